/**
 * A TPU VM job's record: what its directory holds besides the logs (the checked spec, the status, the TPU it got,
 * the supervisor that runs it, how it ended) and its events. Pure: the job store keeps it, the supervisor decides it.
 */
import type {VmJobSpec} from './spec.js'

/** What the job is doing, as `xpk vm job list` shows it. */
export type VmJobStatus =
  'QUEUEING' | 'SETTING_UP' | 'RUNNING' | 'PREEMPTED' | 'RECOVERING' | 'SUCCEEDED' | 'FAILED' | 'STOPPED'

/** Statuses after which nothing runs until `resume`. */
export const FINAL_STATUSES: ReadonlySet<VmJobStatus> = new Set(['SUCCEEDED', 'FAILED', 'STOPPED', 'PREEMPTED'])

/** One worker of the TPU the job got, as the API reported it when it became ready. */
export interface VmJobWorkerAddress {
  readonly slice: number
  readonly worker: number
  readonly nodeId: string
  readonly identity: string
  readonly internalIp: string
  readonly externalIp?: string
}

export interface VmJobSupervisorRef {
  readonly pid: number
  /** The machine it runs on (a pid means nothing elsewhere). */
  readonly host: string
  readonly startedAt: number
}

export interface VmJobWorkerExit {
  readonly worker: number
  /** The command's exit status as a shell reports it; null when it is unknown (the worker was lost). */
  readonly code: number | null
}

/** How the supervisor reaches the workers (decided at create, so that a resumed supervisor reaches them the same way). */
export interface VmJobAccess {
  readonly sshUser: string
  readonly sshPort: number
  /** Connect to internal IPs (xpk runs inside the VPC). */
  readonly internalIp: boolean
  /** How often the TPU's state is read while the command runs (preemption detection). */
  readonly pollMs: number
}

export interface VmJobRecord {
  /** Six digits, as jobman numbers its jobs. */
  readonly id: string
  readonly spec: VmJobSpec
  readonly access: VmJobAccess
  readonly status: VmJobStatus
  readonly createdAt: number
  readonly updatedAt: number
  /** Times the TPU was lost and requested again. */
  readonly recoveries: number
  /** Times the command was started; names the run directory on the workers (attempt-N). */
  readonly attempt: number
  /** The workers of the TPU, once it was ready (cleared when it is lost). */
  readonly workers?: readonly VmJobWorkerAddress[]
  readonly supervisor?: VmJobSupervisorRef
  /** `xpk vm job stop` asked the supervisor to stop. */
  readonly stopRequested?: boolean
  /** How the last run of the command ended, per worker that ran it. */
  readonly exits?: readonly VmJobWorkerExit[]
  /** Why the job is FAILED or STOPPED, in one sentence. */
  readonly reason?: string
}

export type VmJobEventName =
  | 'created'
  | 'supervisor-started'
  | 'requested'
  | 'ready'
  | 'setup-done'
  | 'running'
  | 'reattached'
  | 'preempted'
  | 'recovering'
  | 'deleted'
  | 'recovered'
  | 'finished'
  | 'failed'
  | 'stop-requested'
  | 'stopped'

/** One line of events.jsonl. */
export interface VmJobEvent {
  readonly time: number
  readonly event: VmJobEventName
  readonly detail?: string
}

/** The id of the job after the highest one in use. */
export function nextJobId(existing: readonly string[]): string {
  const highest = existing.reduce((max, id) => Math.max(max, /^\d+$/.test(id) ? Number(id) : 0), 0)
  return String(highest + 1).padStart(6, '0')
}

/**
 * What names the job on its workers (its directory, its containers): the id and its creation time, so that a job
 * created after another one's records were purged never finds that one's runs under the same id.
 */
export function remoteKey(record: Pick<VmJobRecord, 'id' | 'createdAt'>): string {
  return `${record.id}-${record.createdAt.toString(36)}`
}

/** The job id a user typed (`7`, `000007`) as stored; undefined when it cannot be one. */
export function normalizeJobId(typed: string): string | undefined {
  if (!/^\d{1,9}$/.test(typed) || Number(typed) === 0) return undefined
  return String(Number(typed)).padStart(6, '0')
}

/** The TPU states that mean it is gone for the job: it must be deleted and requested again. */
const LOST_NODE_STATES = new Set(['PREEMPTED', 'TERMINATED', 'STOPPED', 'STOPPING', 'SUSPENDED', 'SUSPENDING'])
const LOST_QUEUED_STATES = new Set(['FAILED', 'SUSPENDED', 'SUSPENDING'])

/** What the API says of the job's TPU: usable, still coming, lost (delete and request again), or absent. */
export type TpuHealth = 'ready' | 'pending' | 'lost' | 'absent'

/** Judges the TPU from its node state (or absence) and, for queued resources, the queued resource's state. */
export function tpuHealth(node: {state: string} | undefined, queued?: {state: string}): TpuHealth {
  if (queued && LOST_QUEUED_STATES.has(queued.state)) return 'lost'
  if (node && LOST_NODE_STATES.has(node.state)) return 'lost'
  if (node?.state === 'READY') return 'ready'
  if (node || queued) return node?.state === 'DELETING' || queued?.state === 'DELETING' ? 'lost' : 'pending'
  return 'absent'
}

/** The workers the command runs on: every worker, or the listed ones (checked against the TPU by the reader). */
export function commandWorkers<T extends {worker: number; slice: number}>(
  workers: readonly T[],
  chosen: VmJobSpec['command']['workers'],
): T[] {
  if (chosen === 'all') return [...workers]
  return workers.filter((w, i) => chosen.includes(i))
}

/** A job as the commands show it: its record, and whether a supervisor runs it. */
export interface VmJobView {
  readonly id: string
  readonly name: string
  readonly accelerator: string
  readonly zone: string
  readonly host0: string | null
  readonly status: VmJobStatus
  readonly recoveries: number
  readonly createdAt: string
  readonly supervisor: 'running' | 'gone' | 'none'
  readonly reason: string | null
  readonly dir: string
}
