import {pollDelay} from '../core/retry.js'
import type {Timing} from '../core/timing.js'
import type {Clock, RetryOptions} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {TpuClient, TpuLocation} from '../ports/tpu.js'

/** How TPU VM services wait: retries of transient failures, and polls of long operations (timing.operations). */
export type VmTiming = Pick<Timing, 'retry' | 'operations'>

/** What every TPU VM service that talks to the TPU API needs. */
export interface VmApiDeps extends Clock {
  readonly tpu: () => Promise<TpuClient>
  readonly console: Console
  readonly signal: AbortSignal
}

/**
 * The one retry policy (src/executor/retry.ts) for TPU API calls: transient failures retried with jittered backoff, a
 * busy resource within the conflict budget, every wait ended by the abort signal; each retry told with --verbose.
 */
export function tpuRetry(timing: VmTiming, deps: VmApiDeps): RetryOptions {
  return {
    policy: timing.retry,
    clock: deps,
    signal: deps.signal,
    onRetry: (error, delayMs) =>
      deps.console.debug(`Retrying in ${delayMs} ms after ${error.status}: ${error.message}`),
  }
}

/** The wait before poll number `poll` of a long operation. */
export function pollWait(poll: number, timing: VmTiming, deps: VmApiDeps): Promise<void> {
  return deps.sleep(pollDelay(poll, timing.operations), deps.signal)
}

/** The queued resource a command acts on: its id, where it is, and the TPU API client that reaches it. */
export interface QueuedResourceAt {
  readonly tpu: TpuClient
  readonly location: TpuLocation
  readonly id: string
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
