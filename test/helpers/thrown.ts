import {UsageError, UsageErrors, type XpkError} from '../../src/core/errors.js'

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

/** The error `run` throws; a test fails when it returns. */
export function thrownError(run: () => unknown): XpkError {
  try {
    run()
  } catch (error) {
    return error as XpkError
  }
  throw new Error('expected an error, and none was thrown')
}
