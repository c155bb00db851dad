/**
 * `xpk workload describe NAME`: everything about one workload, from its JobSet, the Kueue Workload made for it, its
 * pods and the events about them: what was asked (type, slices, priority, image, command, restarts, storages), where
 * it is (the status `workload list` gives), how it got there (every Kueue and JobSet condition, in time order), per
 * slice and worker its pod, node and restarts, the events of the last hour, the mounts, and the links. Pure: the
 * service reads, this decides what is shown; the readers take the fields out of the API's objects.
 */
import {acceleratorCatalog} from '../catalog/catalog.js'
import {SLICE_JOB_NAME} from '../manifests/jobset.js'
import type {WorkloadPlace} from './links.js'
import {workloadLinks, type WorkloadLinks} from './links.js'
import {isPathwaysJobSet} from './pathways.js'
import type {KueueWorkload, ObservedCondition, ObservedJobSet} from './observed.js'
import {STORAGES_ANNOTATION} from './observed.js'
import {workloadRow, type WorkloadOutcome, type WorkloadPhase, type WorkloadStatus} from './status.js'
import type {ObservedPod} from './why-observed.js'

type Loose = Record<string, unknown>
const obj = (value: unknown): Loose | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Loose) : undefined
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
const whole = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null

/** What the JobSet asks for, as `workload create` wrote it (or another tool did). */
export interface WorkloadAsked {
  /** xpk's name of the accelerator (`v5p-16`, `h100-80gb-8`), from the pods' node selector; null when unknown. */
  readonly type: string | null
  readonly slices: number
  readonly vmsPerSlice: number
  readonly priority: string | null
  readonly image: string | null
  /** The command as given to `workload create --command` (the wrapper's argument), else the container's command. */
  readonly command: string | null
  /** `--max-restarts`: the JobSet's failure policy. */
  readonly maxRestarts: number | null
  readonly storages: readonly string[]
  readonly created: string | null
}

/** One container mount of the main container. */
export interface WorkloadMount {
  readonly name: string
  readonly mountPath: string
  readonly readOnly: boolean
  /** Where it comes from: `pvc/<claim>`, `csi/<driver>`, `emptyDir`, `hostPath/<path>`, `configMap/<name>`, ... */
  readonly source: string
}

/** A condition of the JobSet or the Workload, in the history. */
export interface HistoryEntry {
  readonly time: string | null
  readonly object: 'JobSet' | 'Workload'
  readonly type: string
  readonly status: string
  readonly reason: string | null
  readonly message: string | null
}

/** One pod of the workload, by its place. */
export interface WorkloadPodRow {
  readonly slice: number | null
  readonly worker: number | null
  readonly name: string
  readonly phase: string | null
  readonly node: string | null
  readonly restarts: number
  /** Why it is not running, when it is not: the scheduler's or the kubelet's reason. */
  readonly waiting: string | null
}

/** An event about the JobSet, the Workload or a pod. */
export interface WorkloadEvent {
  readonly time: string | null
  /** `Pod/run-1-slice-job-0-0-abcde`, `JobSet/run-1`, `Workload/jobset-run-1-0a1b2`. */
  readonly object: string
  readonly type: string | null
  readonly reason: string | null
  readonly message: string | null
  readonly count: number
}

/** An event as read from the API (core/v1 Event), the fields shown. */
export interface ObservedEvent {
  readonly kind: string | null
  readonly name: string | null
  readonly type: string | null
  readonly reason: string | null
  readonly message: string | null
  readonly count: number
  /** The last time it happened (lastTimestamp, eventTime, or creation). */
  readonly time: string | null
}

export interface WorkloadDescription {
  readonly name: string
  readonly namespace: string
  readonly cluster: string | null
  readonly kueueWorkload: string | null
  readonly status: WorkloadStatus
  readonly phase: WorkloadPhase
  readonly outcome: WorkloadOutcome | null
  readonly statusMessage: string
  readonly statusTime: string | null
  readonly restarts: number | null
  readonly asked: WorkloadAsked
  readonly history: readonly HistoryEntry[]
  readonly pods: readonly WorkloadPodRow[]
  readonly mounts: readonly WorkloadMount[]
  /** Events of the last hour about the JobSet, the Workload and the pods, oldest first. */
  readonly events: readonly WorkloadEvent[]
  /** The Cloud Console page and the logs of slice 0, worker 0; null when GKE was not asked (a kubeconfig). */
  readonly links: WorkloadLinks | null
}

export interface DescribeInputs {
  readonly name: string
  readonly namespace: string
  readonly now: number
  /** The JobSet as the API returned it (spec read here), and as `workload list` reads it. */
  readonly jobsetObject: unknown
  readonly jobset: ObservedJobSet
  readonly workload: KueueWorkload | undefined
  readonly pods: readonly ObservedPod[]
  readonly events: readonly ObservedEvent[]
  /** Where it runs, for the links; null through a kubeconfig. */
  readonly place: Omit<WorkloadPlace, 'workload'> | null
}

/** How far back events are shown. */
export const EVENT_WINDOW_MS = 60 * 60_000

export function describeWorkload(inputs: DescribeInputs): WorkloadDescription {
  const {jobset, workload, name} = inputs
  const row = workloadRow(workload, jobset)
  const podNames = new Set(inputs.pods.map((p) => p.name))
  const about = (e: ObservedEvent) =>
    (e.kind === 'JobSet' && e.name === name) ||
    (e.kind === 'Workload' && workload !== undefined && e.name === workload.metadata.name) ||
    (e.kind === 'Pod' && e.name !== null && (podNames.has(e.name) || e.name.startsWith(`${name}-${SLICE_JOB_NAME}-`)))
  const recent = (e: ObservedEvent) => {
    const t = e.time === null ? NaN : Date.parse(e.time)
    return Number.isNaN(t) || inputs.now - t <= EVENT_WINDOW_MS
  }
  return {
    name,
    namespace: inputs.namespace,
    cluster: inputs.place?.cluster ?? null,
    kueueWorkload: row.kueueWorkload,
    status: row.status,
    phase: row.phase,
    outcome: row.outcome,
    statusMessage: row.statusMessage,
    statusTime: row.statusTime,
    restarts: row.restarts,
    asked: askedOf(inputs.jobsetObject, row.priority, jobset),
    history: historyOf(jobset, workload),
    pods: [...inputs.pods]
      .map(podRow)
      .sort((a, b) => (a.slice ?? 1e9) - (b.slice ?? 1e9) || (a.worker ?? 1e9) - (b.worker ?? 1e9)),
    mounts: mountsOf(inputs.jobsetObject),
    events: inputs.events
      .filter((e) => about(e) && recent(e))
      .sort((a, b) => (a.time ?? '').localeCompare(b.time ?? ''))
      .map((e) => ({
        time: e.time,
        object: `${e.kind ?? '?'}/${e.name ?? '?'}`,
        type: e.type,
        reason: e.reason,
        message: e.message,
        count: e.count,
      })),
    links: inputs.place
      ? workloadLinks({...inputs.place, workload: name}, isPathwaysJobSet(inputs.jobsetObject))
      : null,
  }
}

function podRow(p: ObservedPod): WorkloadPodRow {
  const waiting =
    p.unschedulable?.reason ??
    p.containers.find((c) => c.waitingReason !== null)?.waitingReason ??
    (p.phase === 'Failed' ? (p.containers.find((c) => c.lastReason !== null)?.lastReason ?? null) : null)
  return {
    slice: p.jobIndex,
    worker: p.completionIndex,
    name: p.name,
    phase: p.phase,
    node: p.nodeName,
    restarts: p.containers.reduce((sum, c) => sum + c.restarts, 0),
    waiting,
  }
}

function historyOf(jobset: ObservedJobSet, workload: KueueWorkload | undefined): HistoryEntry[] {
  const entries = (object: HistoryEntry['object'], conditions: readonly ObservedCondition[] | undefined) =>
    (conditions ?? []).map((c) => ({
      time: c.lastTransitionTime ?? null,
      object,
      type: c.type ?? '?',
      status: c.status ?? '?',
      reason: c.reason ?? null,
      message: c.message ?? null,
    }))
  return [...entries('Workload', workload?.status?.conditions), ...entries('JobSet', jobset.status?.conditions)].sort(
    (a, b) => (a.time ?? '').localeCompare(b.time ?? ''),
  )
}

const WRAPPER_MARK = 'xpk-wrapper'

function askedOf(object: unknown, priority: string | null, jobset: ObservedJobSet): WorkloadAsked {
  const spec = obj(obj(object)?.spec)
  const first = obj(list(spec?.replicatedJobs)[0])
  const jobSpec = obj(obj(first?.template)?.spec)
  const podSpec = obj(obj(jobSpec?.template)?.spec)
  const container = obj(list(podSpec?.containers)[0])
  const command = list(container?.command).map((c) => String(c))
  const mark = command.indexOf(WRAPPER_MARK)
  // xpk's wrapper takes the user's command as its argument, `$` doubled for Kubernetes' own expansion.
  const userCommand =
    mark >= 0 && command[mark + 1] !== undefined
      ? command[mark + 1].replaceAll('$$', '$')
      : command.length > 0
        ? [...command, ...list(container?.args).map(String)].join(' ')
        : null
  const storages = jobset.metadata.annotations?.[STORAGES_ANNOTATION]
  return {
    type: acceleratorName(obj(podSpec?.nodeSelector) ?? {}),
    slices: whole(first?.replicas) ?? 1,
    vmsPerSlice: whole(jobSpec?.parallelism) ?? 1,
    priority,
    image: text(container?.image),
    command: userCommand,
    maxRestarts: whole(obj(spec?.failurePolicy)?.maxRestarts),
    storages: storages ? storages.split(',').filter(Boolean) : [],
    created: jobset.metadata.creationTimestamp ?? null,
  }
}

/** xpk's name of the accelerator the pods select: TPU by accelerator and topology, GPU by accelerator, CPU by machine. */
function acceleratorName(selector: Loose): string | null {
  const tpu = text(selector['cloud.google.com/gke-tpu-accelerator'])
  const topology = text(selector['cloud.google.com/gke-tpu-topology'])
  const gpu = text(selector['cloud.google.com/gke-accelerator'])
  const machine = text(selector['node.kubernetes.io/instance-type'])
  if (tpu === null && gpu === null && machine === null) return null
  for (const a of acceleratorCatalog().values()) {
    if (tpu !== null && a.kind === 'TPU' && a.gkeAccelerator === tpu && a.topology === topology) return a.canonical
    if (tpu === null && gpu !== null && a.kind === 'GPU' && a.gkeAccelerator === gpu) return a.canonical
    if (tpu === null && gpu === null && a.kind === 'CPU' && a.machineType === machine) return a.canonical
  }
  return tpu !== null ? `${tpu} ${topology ?? ''}`.trim() : (gpu ?? machine)
}

function mountsOf(object: unknown): WorkloadMount[] {
  const first = obj(list(obj(obj(object)?.spec)?.replicatedJobs)[0])
  const podSpec = obj(obj(obj(obj(first?.template)?.spec)?.template)?.spec)
  const volumes = new Map(list(podSpec?.volumes).map((v) => [text(obj(v)?.name) ?? '', obj(v) ?? {}]))
  const container = obj(list(podSpec?.containers)[0])
  return list(container?.volumeMounts).map((m) => {
    const mount = obj(m) ?? {}
    const name = text(mount.name) ?? ''
    return {
      name,
      mountPath: text(mount.mountPath) ?? '',
      readOnly: mount.readOnly === true,
      source: volumeSource(volumes.get(name)),
    }
  })
}

function volumeSource(volume: Loose | undefined): string {
  if (!volume) return '?'
  const claim = text(obj(volume.persistentVolumeClaim)?.claimName)
  if (claim !== null) return `pvc/${claim}`
  const driver = text(obj(volume.csi)?.driver)
  if (driver !== null) return `csi/${driver}`
  const host = text(obj(volume.hostPath)?.path)
  if (host !== null) return `hostPath/${host}`
  const config = text(obj(volume.configMap)?.name)
  if (config !== null) return `configMap/${config}`
  const secret = text(obj(volume.secret)?.secretName)
  if (secret !== null) return `secret/${secret}`
  const kind = Object.keys(volume).find((k) => k !== 'name')
  return kind ?? '?'
}

/** An Event (core/v1) as `workload describe` reads it. */
export function readEvent(object: unknown): ObservedEvent {
  const o = obj(object) ?? {}
  const involved = obj(o.involvedObject) ?? {}
  return {
    kind: text(involved.kind),
    name: text(involved.name),
    type: text(o.type),
    reason: text(o.reason),
    message: text(o.message),
    count: whole(o.count) ?? 1,
    time: text(o.lastTimestamp) ?? text(o.eventTime) ?? text(obj(o.metadata)?.creationTimestamp),
  }
}
