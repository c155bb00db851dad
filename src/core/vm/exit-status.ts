/**
 * Worker exit statuses as a shell reports them, and the error `xpk vm run` ends with when the command failed on a
 * worker: its exit code is the highest worker status, passed through instead of a code from xpk's table.
 */
import {XpkError, type XpkErrorOptions} from '../errors.js'

/**
 * Signal numbers on Linux (TPU VMs run Linux), for the names SSH reports (RFC 4254 section 6.10) and a few more.
 * A name missing here still counts as a failure, with the status of a lost connection.
 */
const SIGNALS: Readonly<Record<string, number>> = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  ILL: 4,
  TRAP: 5,
  ABRT: 6,
  BUS: 7,
  FPE: 8,
  KILL: 9,
  USR1: 10,
  SEGV: 11,
  USR2: 12,
  PIPE: 13,
  ALRM: 14,
  TERM: 15,
  XCPU: 24,
  XFSZ: 25,
}

/** What ssh exits with when the connection drops: the same here, so a lost worker outranks ordinary failures. */
export const LOST_CONNECTION_STATUS = 255

/**
 * A worker's exit status as a number, the way shells report it: the exit code, 128+N for a process killed by
 * signal N (`SIGKILL` or `KILL`), 255 for a lost connection or an unknown signal (as ssh does).
 */
export function shellStatus(exit: {readonly code: number | null; readonly signal?: string}): number {
  if (exit.code !== null) return exit.code
  const number = exit.signal === undefined ? undefined : SIGNALS[exit.signal.replace(/^SIG/, '')]
  return number === undefined ? LOST_CONNECTION_STATUS : 128 + number
}

/** "exit code 3", "exit code 137 (SIGKILL)" (killed, as a shell reports it, or as SSH did), "a lost connection". */
export function describeStatus(exit: {readonly code: number | null; readonly signal?: string}): string {
  const status = shellStatus(exit)
  if (exit.code === null && status === LOST_CONNECTION_STATUS) return 'a lost connection'
  const name = status > 128 ? Object.entries(SIGNALS).find(([, n]) => 128 + n === status)?.[0] : undefined
  return name ? `exit code ${status} (SIG${name})` : `exit code ${status}`
}

/**
 * The command failed on at least one worker. Its exit code is the highest worker status (see {@link shellStatus}),
 * not a code from xpk's table: scripts see the worker's code as if they had run the command themselves. `details`
 * is the run's result (per-worker codes), which `--json` prints with the error.
 */
export class WorkerFailure<Details = unknown> extends XpkError {
  readonly status: number
  readonly details: Details

  constructor(status: number, message: string, details: Details, options: XpkErrorOptions = {}) {
    super('unsuccessful', message, options)
    this.name = 'WorkerFailure'
    this.status = status
    this.details = details
  }

  override get exitCode(): number {
    return this.status
  }
}

/**
 * A worker xpk could not reach over SSH, after the retries: no answer, a server that never sent its SSH banner
 * within the handshake timeout, the connection dropped while it was made. Exit 255, as `ssh` exits when it cannot
 * connect, with the kind of xpk's own failure (unavailable): no command ran, so there is no worker's code.
 */
export class UnreachableWorker extends XpkError {
  constructor(message: string, options: XpkErrorOptions = {}) {
    super('unavailable', message, options)
    this.name = 'UnreachableWorker'
  }

  override get exitCode(): number {
    return LOST_CONNECTION_STATUS
  }
}
