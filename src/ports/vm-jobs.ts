import type {VmJobAccess, VmJobEvent, VmJobRecord} from '../core/vmjob/record.js'
import type {VmJobSpec} from '../core/vmjob/spec.js'

export type {VmJobEvent, VmJobRecord}

/**
 * The TPU VM jobs' records: one directory per job under the user's state directory (the config snapshot with the
 * addresses the TPU got, the status, the events, the logs per module and worker). Every change is written whole and
 * atomically under the job's lock, so two xpk processes never corrupt a record; `update` reads the record inside the
 * lock, so a change never overwrites another made since it was read.
 */
export interface VmJobStore {
  /** The directory of all jobs (for messages). */
  readonly root: string
  /** Allocates the next id and writes the new record (status QUEUEING), the config text (when one was read). */
  create(spec: VmJobSpec, access: VmJobAccess, configText: string | undefined, now: number): Promise<VmJobRecord>
  read(id: string): Promise<VmJobRecord | undefined>
  /** Every job, by id. */
  list(): Promise<VmJobRecord[]>
  /**
   * Changes the record under the job's lock: `change` gets the current record and returns the new one (updatedAt is
   * set by the store), or undefined to leave it. Resolves the record as it is afterwards.
   */
  update(id: string, change: (current: VmJobRecord) => VmJobRecord | undefined, now: number): Promise<VmJobRecord>
  appendEvent(id: string, event: VmJobEvent): Promise<void>
  events(id: string): Promise<VmJobEvent[]>
  /** The path of one log of the job (`<name>.log` under its logs directory). */
  logPath(id: string, name: string): string
  /** Opens a log for appending (made with its directory when missing). */
  appendLog(id: string, name: string): {write(chunk: Buffer): void; close(): Promise<void>}
  /** The names of the job's logs (without `.log`), sorted. */
  logs(id: string): Promise<string[]>
  /** Reads a log from byte `offset`; empty when it does not exist. */
  readLog(id: string, name: string, offset: number): Promise<Buffer>
  /** Removes the job's directory. */
  remove(id: string): Promise<void>
}

/** The processes of the machine running xpk: the supervisors. */
export interface Processes {
  /** This machine's name, recorded beside a supervisor's pid. */
  readonly host: string
  readonly pid: number
  /** Whether a process with this pid is alive on this machine. */
  alive(pid: number): boolean
  /**
   * Starts `xpk vm job supervise ID` in the background, detached from the terminal (it survives its closing), its
   * output appended to `logPath`. Resolves its pid.
   */
  startSupervisor(jobId: string, logPath: string): Promise<number>
  /** Sends a signal; false when there was no such process. */
  signal(pid: number, signal: NodeJS.Signals): boolean
}
