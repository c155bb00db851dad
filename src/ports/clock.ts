/**
 * Time, for every wait xpk makes: the retry policy's backoff, polls, watches reopening, a command's time limit. The
 * real clock is src/adapters/system-clock.ts; tests use clocks whose sleeps take no real time (test/helpers).
 */
export interface Clock {
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>
  /** A number in [0, 1), for the backoff's jitter. */
  readonly random: () => number
  /** Milliseconds since the epoch (or since the test's clock started). */
  readonly now: () => number
  /**
   * Like `sleep`, for a timer that runs alongside other work (a command's time limit, see the executor's
   * startTimeLimit). A clock whose sleeps end at once (tests' virtual time) has none: its time limits are only the
   * checks of `now()` that waits make between polls.
   */
  readonly timer?: (ms: number, signal: AbortSignal) => Promise<void>
}
