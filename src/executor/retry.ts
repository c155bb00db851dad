/**
 * The one retry and wait policy of xpk. Every call to a cloud API that may fail transiently goes through
 * {@link withRetries}, and every wait for a resource to reach a state through {@link pollUntil}: the plan executor,
 * the reads made before planning, `cluster delete`, the listings. Client libraries' own retries are off (see the
 * adapters), so a transient failure is retried once per policy, with jittered backoff, within a budget, and every
 * sleep ends at once when the command's abort signal fires (Ctrl-C, SIGTERM, SIGHUP).
 */
import {ApiError} from '../core/errors.js'
import {jitteredDelay, pollDelay, type Backoff} from '../core/retry.js'

/** Which failures are retried, and for how long. */
export interface RetryPolicy {
  /** Attempts per call for transient failures (UNAVAILABLE, deadlines, rate limits). */
  readonly attempts: number
  /** Jittered exponential backoff between attempts. */
  readonly backoff: Backoff
  /** "Another operation is running on the cluster" is retried for this long, whatever the attempt count. */
  readonly conflictBudgetMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 6,
  backoff: {initialMs: 1000, maxMs: 30_000, factor: 2},
  conflictBudgetMs: 30 * 60_000,
}

/** Time, for waits that tests can run fast. */
export interface Clock {
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>
  readonly random: () => number
  readonly now: () => number
}

export interface RetryOptions {
  readonly policy: RetryPolicy
  readonly clock: Clock
  readonly signal: AbortSignal
  /** Told before each wait, e.g. to show "retrying (UNAVAILABLE), again in 2.1s" on a progress line. */
  readonly onRetry?: (error: ApiError, delayMs: number) => void
}

/**
 * Calls `call` until it succeeds, a failure is not retryable, or the policy's budget is spent. A retryable failure
 * that outlasts the budget is reported as what it has become, a service that keeps failing (exit 7), whatever
 * status it started as, so the same hiccup never ends with three different exit codes.
 */
export async function withRetries<T>(call: () => Promise<T>, options: RetryOptions): Promise<T> {
  const {policy, clock, signal} = options
  const started = clock.now()
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw signal.reason
    try {
      return await call()
    } catch (error) {
      if (signal.aborted) throw signal.reason
      if (!(error instanceof ApiError) || !error.retryable) throw error
      const conflict = error.kind === 'conflict'
      const elapsed = clock.now() - started
      const within = conflict ? elapsed < policy.conflictBudgetMs : attempt + 1 < policy.attempts
      if (!within) throw exhausted(error, attempt + 1, elapsed)
      // Conflicts wait long: the backoff stops growing after a few attempts so the cluster is checked often enough.
      const delay = jitteredDelay(conflict ? Math.min(attempt, 4) : attempt, policy.backoff, clock.random())
      options.onRetry?.(error, delay)
      await clock.sleep(delay, signal)
    }
  }
}

/**
 * Like {@link withRetries} for a create or delete that an earlier attempt or run may already have made: a failure
 * with status `alreadyDone` (ALREADY_EXISTS for creates, NOT_FOUND for deletes) resolves undefined.
 */
export async function withRetriesIdempotent<T>(
  call: () => Promise<T>,
  alreadyDone: 'ALREADY_EXISTS' | 'NOT_FOUND',
  options: RetryOptions,
): Promise<T | undefined> {
  return withRetries(async () => {
    try {
      return await call()
    } catch (error) {
      if (error instanceof ApiError && error.status === alreadyDone) return undefined
      throw error
    }
  }, options)
}

export interface PollOptions extends RetryOptions {
  /** Interval between checks: starts at `initialMs` and grows to `maxMs`. */
  readonly poll: Backoff
}

/** Checks until `check` returns true, waiting with the poll backoff; each check goes through the retry policy. */
export async function pollUntil(check: () => Promise<boolean>, options: PollOptions): Promise<void> {
  for (let polls = 0; !(await withRetries(check, options)); polls++) {
    await options.clock.sleep(pollDelay(polls, options.poll), options.signal)
  }
}

function exhausted(error: ApiError, attempts: number, elapsedMs: number): ApiError {
  const spent = `after ${attempts} attempt${attempts === 1 ? '' : 's'} over ${Math.round(elapsedMs / 1000)}s`
  if (error.kind === 'conflict') {
    return new ApiError('conflict', `${error.message} (still busy ${spent})`, {
      status: error.status,
      retryable: false,
      hints: ['Another operation kept the cluster busy; wait for it to finish, then re-run the same command.'],
      cause: error,
    })
  }
  return new ApiError('unavailable', `${error.message} (still failing ${spent})`, {
    status: error.status,
    retryable: false,
    hints: ['The service kept failing transiently; re-run the same command later: it continues where it stopped.'],
    cause: error,
  })
}
