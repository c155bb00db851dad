import {pollDelay, type Backoff} from '../core/retry.js'
import {DEFAULT_RETRY_POLICY, withRetries as retryCall} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {TpuClient} from '../ports/tpu.js'

/** How TPU VM services wait: polls of long operations, and retries of transient failures. */
export interface VmTiming {
  readonly poll: Backoff
  readonly retry: Backoff
  /** Attempts per call for transient failures. */
  readonly attempts: number
}

/** What every TPU VM service that talks to the TPU API needs. */
export interface VmApiDeps {
  readonly tpu: () => Promise<TpuClient>
  readonly console: Console
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>
  readonly random: () => number
  readonly now: () => number
  readonly signal: AbortSignal
}

/**
 * Runs an API call under xpk's one retry policy (src/executor/retry.ts): transient failures retried with jittered
 * backoff, a busy resource within the conflict budget, every wait ended by the abort signal.
 */
export function withRetries<T>(call: () => Promise<T>, timing: VmTiming, deps: VmApiDeps): Promise<T> {
  return retryCall(call, {
    policy: {...DEFAULT_RETRY_POLICY, attempts: timing.attempts, backoff: timing.retry},
    clock: deps,
    signal: deps.signal,
    onRetry: (error, delayMs) =>
      deps.console.debug(`Retrying in ${delayMs} ms after ${error.status}: ${error.message}`),
  })
}

/** The wait before poll number `poll` of a long operation. */
export function pollWait(poll: number, timing: VmTiming, deps: VmApiDeps): Promise<void> {
  return deps.sleep(pollDelay(poll, timing.poll), deps.signal)
}

/** Connects, runs `use`, and always closes the client. */
export async function usingTpu<T>(deps: VmApiDeps, use: (tpu: TpuClient) => Promise<T>): Promise<T> {
  const tpu = await deps.tpu()
  try {
    return await use(tpu)
  } finally {
    await tpu.close()
  }
}
