import {UsageError, UsageErrors} from '../../src/core/errors.js'

/** The usage problems `run` throws, each on its own (none when it returns); any other error is thrown on. */
export function usageProblems(run: () => unknown): UsageError[] {
  try {
    run()
    return []
  } catch (error) {
    if (error instanceof UsageErrors) return [...error.problems]
    if (error instanceof UsageError) return [error]
    throw error
  }
}
