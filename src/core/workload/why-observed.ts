/**
 * What `xpk workload why` reads beyond what `workload list` reads (src/core/workload/observed.ts): the workload's
 * pods, the ClusterQueue's quota, Kueue's pending-workload positions (its visibility API), the Workload's admission
 * checks and the JobSet's restart limit. Readers copy the fields out of the objects the API returned; pure, and no
 * decisions (those are src/core/workload/why.ts).
 */
import {parseQuantity} from '../incluster/live-diff.js'
import type {ObservedCondition} from './observed.js'

type Loose = Record<string, unknown>

const obj = (value: unknown): Loose | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Loose) : undefined
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
const whole = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null

/** A resource quantity as a number (`500m` is 0.5); null when it is not one. */
export function quantityNumber(value: unknown): number | null {
  const q = parseQuantity(value)
  return q === undefined ? null : Number(q.numerator) / Number(q.denominator)
}

/** Why a container is not running, or how it last ended. */
export interface ObservedContainerState {
  readonly name: string
  readonly restarts: number
  /** `waiting.reason` (ErrImagePull, ImagePullBackOff, CrashLoopBackOff, ...), null when not waiting. */
  readonly waitingReason: string | null
  readonly waitingMessage: string | null
  /** The exit code of the current (terminated) or previous run, null when it never ended. */
  readonly lastExitCode: number | null
  readonly lastReason: string | null
}

/** A pod of a workload, as `workload why` reads it. */
export interface ObservedPod {
  readonly name: string
  readonly phase: string | null
  readonly nodeName: string | null
  readonly created: string | null
  /** The JobSet labels: which replicated job (slice) and which pod of it. */
  readonly jobIndex: number | null
  readonly completionIndex: number | null
  /** PodScheduled=False: the scheduler's reason (Unschedulable) and message. */
  readonly unschedulable: {readonly reason: string; readonly message: string} | null
  readonly containers: readonly ObservedContainerState[]
  readonly nodeSelector: Readonly<Record<string, string>>
}

const labelIndex = (labels: Loose | undefined, key: string): number | null => {
  const value = text(labels?.[key])
  return value !== null && /^\d+$/.test(value) ? Number(value) : null
}

export function readPod(object: unknown): ObservedPod {
  const o = obj(object) ?? {}
  const meta = obj(o.metadata) ?? {}
  const spec = obj(o.spec) ?? {}
  const status = obj(o.status) ?? {}
  const labels = obj(meta.labels)
  const scheduled = list(status.conditions)
    .map(obj)
    .find((c) => c?.type === 'PodScheduled' && c.status === 'False')
  const containers = [...list(status.initContainerStatuses), ...list(status.containerStatuses)].map((value) => {
    const c = obj(value) ?? {}
    const state = obj(c.state)
    const waiting = obj(state?.waiting)
    const ended = obj(state?.terminated) ?? obj(obj(c.lastState)?.terminated)
    return {
      name: text(c.name) ?? '',
      restarts: whole(c.restartCount) ?? 0,
      waitingReason: text(waiting?.reason),
      waitingMessage: text(waiting?.message),
      lastExitCode: typeof ended?.exitCode === 'number' ? ended.exitCode : null,
      lastReason: text(ended?.reason),
    }
  })
  return {
    name: text(meta.name) ?? '',
    phase: text(status.phase),
    nodeName: text(spec.nodeName),
    created: text(meta.creationTimestamp),
    jobIndex: labelIndex(labels, 'jobset.sigs.k8s.io/job-index'),
    completionIndex: labelIndex(labels, 'batch.kubernetes.io/job-completion-index'),
    unschedulable: scheduled
      ? {reason: text(scheduled.reason) ?? 'Unschedulable', message: text(scheduled.message) ?? ''}
      : null,
    containers,
    nodeSelector: Object.fromEntries(
      Object.entries(obj(spec.nodeSelector) ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
    ),
  }
}

/** One resource's nominal quota in one flavor of a ClusterQueue. */
export interface QueueQuota {
  readonly flavor: string
  readonly resource: string
  readonly nominal: number
}

/** A ClusterQueue, the fields `why` reads. */
export interface ObservedClusterQueue {
  readonly name: string
  readonly quotas: readonly QueueQuota[]
  /** `Active` False: the queue admits nothing (its flavor is missing, it is stopped). */
  readonly inactive: {readonly reason: string; readonly message: string} | null
}

export function readClusterQueue(object: unknown): ObservedClusterQueue {
  const o = obj(object) ?? {}
  const quotas: QueueQuota[] = []
  for (const group of list(obj(o.spec)?.resourceGroups)) {
    for (const flavor of list(obj(group)?.flavors)) {
      for (const resource of list(obj(flavor)?.resources)) {
        const nominal = quantityNumber(obj(resource)?.nominalQuota)
        const name = text(obj(resource)?.name)
        const flavorName = text(obj(flavor)?.name)
        if (nominal !== null && name !== null && flavorName !== null) {
          quotas.push({flavor: flavorName, resource: name, nominal})
        }
      }
    }
  }
  const active = list(obj(o.status)?.conditions)
    .map(obj)
    .find((c) => c?.type === 'Active')
  return {
    name: text(obj(o.metadata)?.name) ?? '',
    quotas,
    inactive:
      active && active.status === 'False'
        ? {reason: text(active.reason) ?? '', message: text(active.message) ?? ''}
        : null,
  }
}

/** One entry of Kueue's pending workloads of a ClusterQueue (visibility.kueue.x-k8s.io PendingWorkload). */
export interface PendingWorkloadEntry {
  /** The Workload's name. */
  readonly name: string
  readonly priority: number
  /** 0-based, as Kueue counts. */
  readonly positionInClusterQueue: number
}

export function readPendingWorkloads(object: unknown): PendingWorkloadEntry[] {
  return list(obj(object)?.items).flatMap((value) => {
    const item = obj(value)
    const name = text(obj(item?.metadata)?.name)
    const position = whole(item?.positionInClusterQueue)
    if (name === null || position === null) return []
    return [{name, priority: typeof item?.priority === 'number' ? item.priority : 0, positionInClusterQueue: position}]
  })
}

/** An admission check of a Workload and its state (Pending, Ready, Retry, Rejected). */
export interface ObservedAdmissionCheck {
  readonly name: string
  readonly state: string
  readonly message: string
}

/** The parts of a full Workload object `why` reads that `workload list` does not keep. */
export interface WorkloadDetail {
  readonly admissionChecks: readonly ObservedAdmissionCheck[]
  /** What each admitted pod set was given, per resource (Kueue's `resourceUsage`). */
  readonly resourceUsage: Readonly<Record<string, number>>
  /** Every condition, for the preemptor and eviction reasons. */
  readonly conditions: readonly ObservedCondition[]
}

export function readWorkloadDetail(object: unknown): WorkloadDetail {
  const status = obj(obj(object)?.status) ?? {}
  const usage: Record<string, number> = {}
  for (const assignment of list(obj(status.admission)?.podSetAssignments)) {
    for (const [resource, amount] of Object.entries(obj(obj(assignment)?.resourceUsage) ?? {})) {
      const value = quantityNumber(amount)
      if (value !== null) usage[resource] = (usage[resource] ?? 0) + value
    }
  }
  return {
    admissionChecks: list(status.admissionChecks).flatMap((value) => {
      const c = obj(value)
      const name = text(c?.name)
      return name === null ? [] : [{name, state: text(c?.state) ?? 'Pending', message: text(c?.message) ?? ''}]
    }),
    resourceUsage: usage,
    conditions: list(status.conditions) as ObservedCondition[],
  }
}

/** The JobSet's restart limit (`spec.failurePolicy.maxRestarts`); null when it has none. */
export function readMaxRestarts(jobset: unknown): number | null {
  return whole(obj(obj(obj(jobset)?.spec)?.failurePolicy)?.maxRestarts)
}
