/** Exponential backoff settings. */
export interface Backoff {
  readonly initialMs: number
  readonly maxMs: number
  readonly factor: number
}

/** Which failures are retried, and for how long (src/executor/retry.ts applies it). */
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

/**
 * The delay before retry number `attempt` (0-based): exponential, capped, with "full jitter" so that many
 * clients retrying at once spread out instead of hitting the API together.
 * @param random a number in [0, 1), injected to keep this pure
 */
export function jitteredDelay(attempt: number, backoff: Backoff, random: number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** attempt)
  return Math.round(ceiling / 2 + (random * ceiling) / 2)
}

/** The polling interval for the `poll`-th check of a long operation: grows geometrically up to the cap, no jitter. */
export function pollDelay(poll: number, backoff: Backoff): number {
  return Math.min(backoff.maxMs, Math.round(backoff.initialMs * backoff.factor ** poll))
}

/** Node-pool operations in flight at once unless --max-parallel says otherwise. */
export const DEFAULT_APPLY_CONCURRENCY = 100
