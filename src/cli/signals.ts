/**
 * Who answers Ctrl-C, SIGTERM and SIGHUP. bin/run.js installs the process's handlers before anything else loads, so
 * a signal at any moment ends xpk with exit 130 and one line (instead of the process being killed by the signal
 * while it loads: 143 for SIGTERM), and hands them here to the command that runs, which ends its waits, says what
 * was already sent and exits 130 itself. Without bin/run.js (a test running a command in process), the command
 * installs its own handlers.
 */

/** The signals that stop a command. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/** bin/run.js's handlers: they call `handler` while a command has one there, else end the process themselves. */
export interface StopSignals {
  handler?: (signal: NodeJS.Signals) => void
}

let processHandlers: StopSignals | undefined

/** Called by `run` with bin/run.js's handlers. */
export function adoptStopSignals(stops: StopSignals): void {
  processHandlers = stops
}

/** Makes `handler` answer the stop signals until the function returned is called. */
export function handleStopSignals(handler: (signal: NodeJS.Signals) => void): () => void {
  const stops = processHandlers
  if (stops) {
    stops.handler = handler
    return () => {
      if (stops.handler === handler) stops.handler = undefined
    }
  }
  for (const signal of STOP_SIGNALS) process.on(signal, handler)
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, handler)
  }
}
