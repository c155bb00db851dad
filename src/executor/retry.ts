/**
 * The one retry and wait policy of xpk. Every call to a cloud API that may fail transiently goes through
 * {@link withRetries}, and every wait for a resource to reach a state through {@link pollUntil}: the plan executor,
 * the reads made before planning, `cluster delete`, the listings. Client libraries' own retries are off (see the
 * adapters), so a transient failure is retried once per policy, with jittered backoff, within a budget, and every
 * sleep ends at once when the command's abort signal fires (Ctrl-C, SIGTERM, SIGHUP).
 */
import {ApiError} from '../core/errors.js'
import {jitteredDelay, pollDelay, type Backoff, type RetryPolicy} from '../core/retry.js'
import type {Clock} from '../ports/clock.js'

export {DEFAULT_RETRY_POLICY, type RetryPolicy} from '../core/retry.js'
export type {Clock} from '../ports/clock.js'

export interface RetryOptions {
  readonly policy: RetryPolicy
  readonly clock: Clock
  readonly signal: AbortSignal
  /** Told before each wait, e.g. to show "retrying (UNAVAILABLE), again in 2.1s" on a progress line. */
  readonly onRetry?: (error: ApiError, delayMs: number) => void
  /**
   * Retry transient failures until the signal aborts instead of for the policy's attempts: for the reads of a wait
   * that is under way (a watch reconnecting, a followed log reopening), which an API server restarting for a minute
   * must not end. The wait's time limit (or Ctrl-C) still ends it.
   */
  readonly untilAborted?: boolean
  /**
   * Which failures are transient, for calls whose failures are not ApiErrors (an SSH connection refused while a key
   * reaches the VMs). @default an ApiError marked retryable
   */
  readonly retryable?: (error: unknown) => boolean
  /**
   * Transient failures are retried until this time (the clock's), past the policy's attempts: how long something
   * this run just changed may take to show (an SSH key added to the VMs' metadata).
   */
  readonly retryUntil?: number
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
      return await unlessAborted(call(), signal)
    } catch (error) {
      if (signal.aborted) throw signal.reason
      const transient = options.retryable ? options.retryable(error) : error instanceof ApiError && error.retryable
      if (!transient) throw error
      const conflict = error instanceof ApiError && error.kind === 'conflict'
      const now = clock.now()
      const elapsed = now - started
      const within = conflict
        ? elapsed < policy.conflictBudgetMs
        : options.untilAborted === true || attempt + 1 < policy.attempts || now < (options.retryUntil ?? now)
      if (!within) throw error instanceof ApiError ? exhausted(error, attempt + 1, elapsed) : error
      // Conflicts wait long: the backoff stops growing after a few attempts so the cluster is checked often enough.
      const delay = jitteredDelay(conflict ? Math.min(attempt, 4) : attempt, policy.backoff, clock.random())
      if (error instanceof ApiError) options.onRetry?.(error, delay)
      await clock.sleep(delay, signal)
    }
  }
}

/** {@link withRetries} under these options, as a function of the call: how KubeClient.listAll sends each page. */
export function retrying(options: RetryOptions): <T>(call: () => Promise<T>) => Promise<T> {
  return (call) => withRetries(call, options)
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

/** A stream that ends this soon with nothing in it, again and again, is waited out before it is opened again. */
export const QUICK_END_MS = 1000

/**
 * Paces a stream that is opened again each time it ends (a watch, a followed log): one that keeps ending at once with
 * nothing in it (a server closing it straight away, a kubelet whose status lags behind a container's exit) is opened
 * again after the policy's jittered backoff instead of in a tight loop; one that carried something, or lasted, at once.
 */
export class Reopening {
  private quickEnds = 0

  constructor(private readonly options: Pick<RetryOptions, 'policy' | 'clock' | 'signal'>) {}

  /**
   * Called when a stream opened at `openedAt` (clock time) ended, `carried` saying whether anything came in it;
   * resolves when it may be opened again.
   * @throws the signal's reason when it aborts meanwhile
   */
  async ended(openedAt: number, carried: boolean): Promise<void> {
    const {policy, clock, signal} = this.options
    this.quickEnds = !carried && clock.now() - openedAt < QUICK_END_MS ? this.quickEnds + 1 : 0
    if (this.quickEnds === 0) return
    await clock.sleep(jitteredDelay(Math.min(this.quickEnds - 1, 5), policy.backoff, clock.random()), signal)
  }
}

/**
 * Settles as `work` does, or rejects with the signal's reason the moment the signal aborts. A request that gets no
 * answer (a server that accepts connections and never replies) would otherwise hold a command past its time limit,
 * or past Ctrl-C, until the socket's own idle timeout; what it leaves behind is dropped (the command is ending).
 */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined)
    return Promise.reject(signal.reason as Error)
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined)
      reject(signal.reason as Error)
    }
    signal.addEventListener('abort', onAbort, {once: true})
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error as Error)
      },
    )
  })
}

/** A command's (or a wait's) time limit: `signal` aborts when it passes, or when the command is stopped. */
export interface TimeLimit {
  /** Aborts with the error `expired` made when the limit passed, or with the command's own abort reason. */
  readonly signal: AbortSignal
  /** Whether the limit itself passed (not Ctrl-C). */
  readonly expired: () => boolean
  /** Stops the timer, e.g. while a question waits for a person's answer. */
  readonly pause: () => void
  /** Starts the timer anew for the whole time, e.g. from the answer to a question. */
  readonly restart: () => void
  /** Stops the timer for good; the signal stays as it is. */
  readonly dispose: () => void
}

/**
 * Starts a time limit of `ms` from now under `parent` (the command's Ctrl-C signal). Everything run under its
 * signal ends when it passes, first reads included: every call through {@link withRetries} is raced against it, and
 * every sleep and watch ends with it. `expired` makes the error it aborts with (kind `timeout`, exit 124).
 */
export function startTimeLimit(parent: AbortSignal, ms: number, clock: Clock, expired: () => Error): TimeLimit {
  const limit = new AbortController()
  let timer = new AbortController()
  let passed = false
  const onParent = () => limit.abort(parent.reason)
  if (parent.aborted) onParent()
  else parent.addEventListener('abort', onParent, {once: true})
  const arm = () => {
    timer.abort()
    timer = new AbortController()
    clock.timer?.(ms, AbortSignal.any([timer.signal, limit.signal])).then(
      () => {
        passed = true
        limit.abort(expired())
      },
      () => undefined,
    )
  }
  arm()
  return {
    signal: limit.signal,
    expired: () => passed,
    pause: () => timer.abort(),
    restart: arm,
    dispose: () => {
      timer.abort()
      parent.removeEventListener('abort', onParent)
    },
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
