import type {Clock} from '../ports/clock.js'

/** Resolves after `ms`, or rejects with the signal's reason when it aborts; `hold` keeps the process alive meanwhile. */
function wait(ms: number, signal: AbortSignal, hold: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    if (!hold) timer.unref()
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason as Error)
    }
    signal.addEventListener('abort', onAbort, {once: true})
  })
}

/** Real timers, randomness and time. */
export const systemClock: Clock = {
  sleep: (ms, signal) => wait(ms, signal, true),
  // A time limit runs alongside the work it limits, and never keeps the process alive on its own.
  timer: (ms, signal) => wait(ms, signal, false),
  random: Math.random,
  now: Date.now,
}
