// A clock for services and the executor whose sleeps take no real time but are added up, so tests of waits and
// retries run in microseconds and can assert on how long xpk would have waited.
import type {Clock} from '../../src/executor/retry.js'

export interface VirtualClock extends Clock {
  /** Every sleep, in milliseconds, in order. */
  readonly sleeps: number[]
}

export function virtualClock(random = 0.5): VirtualClock {
  let now = 0
  const sleeps: number[] = []
  return {
    sleeps,
    sleep: async (ms: number, signal: AbortSignal) => {
      if (signal.aborted) throw signal.reason
      sleeps.push(ms)
      now += ms
    },
    now: () => now,
    random: () => random,
  }
}
