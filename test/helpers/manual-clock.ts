// A clock whose sleeps last until the test moves time on, for services that wait on something else (a watch)
// while a timeout runs: with the virtual clock every sleep would be over at once.
import type {Clock} from '../../src/executor/retry.js'

export interface ManualClock extends Clock {
  /** Moves time on by `ms`, ending the sleeps that are due by then (in order), and lets their callers run. */
  advance(ms: number): Promise<void>
  /** Sleeps not yet over. */
  readonly sleeping: number
}

export function manualClock(random = 0.5): ManualClock {
  let now = 0
  const sleepers = new Set<{until: number; wake: () => void}>()
  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason)
      const sleeper = {
        until: now + ms,
        wake: () => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        },
      }
      const onAbort = () => {
        sleepers.delete(sleeper)
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, {once: true})
      sleepers.add(sleeper)
    })
  return {
    now: () => now,
    random: () => random,
    sleep,
    // Its sleeps last until time is moved on, so a time limit can run alongside the work it limits.
    timer: sleep,
    async advance(ms) {
      now += ms
      for (const sleeper of [...sleepers].sort((a, b) => a.until - b.until)) {
        if (sleeper.until > now) continue
        sleepers.delete(sleeper)
        sleeper.wake()
      }
      await new Promise((resolve) => setTimeout(resolve, 0))
    },
    get sleeping() {
      return sleepers.size
    },
  }
}
