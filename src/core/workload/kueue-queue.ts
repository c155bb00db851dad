/**
 * How Kueue sees a ClusterQueue's workloads, decided from the Workload objects alone: who holds quota, who waits and
 * in which order (Kueue's BestEffortFIFO and StrictFIFO order: higher priority first, then the older queue time,
 * which is the eviction for a workload sent back, else its creation), who is held out of the queue (a backoff after
 * an eviction, or deactivated), what each asks for, and who preempted whom. Shared by `workload why` (where Kueue's
 * visibility API does not answer) and `xpk queue`.
 */
import type {KueueWorkload, ObservedCondition} from './observed.js'
import {quantityNumber} from './why-observed.js'

function condition(conditions: readonly ObservedCondition[] | undefined, type: string): ObservedCondition | undefined {
  return conditions?.find((c) => c.type === type)
}

const isTrue = (c: ObservedCondition | undefined): boolean => c?.status === 'True'

/** The resources Kueue's quota counts for accelerators. */
export const ACCELERATOR_RESOURCES: readonly string[] = ['google.com/tpu', 'nvidia.com/gpu']

const UNITS: Readonly<Record<string, string>> = {'google.com/tpu': 'chips', 'nvidia.com/gpu': 'GPUs', cpu: 'vCPUs'}

/** What people call a resource's units: chips, GPUs, vCPUs; else the resource's name. */
export function resourceUnit(resource: string): string {
  return UNITS[resource] ?? resource
}

/** The Workload's priority value (Kueue copies the PriorityClass's into spec.priority); 0 without one. */
export function priorityOf(workload: KueueWorkload): number {
  return workload.spec?.priority ?? 0
}

export function isFinished(workload: KueueWorkload): boolean {
  return isTrue(condition(workload.status?.conditions, 'Finished'))
}

/** Quota reserved and not finished: it counts against the ClusterQueue's quota. */
export function holdsQuota(workload: KueueWorkload): boolean {
  return isTrue(condition(workload.status?.conditions, 'QuotaReserved')) && !isFinished(workload)
}

/** Kueue keeps a workload out of its queue while Requeued is False (a backoff after an eviction) or it is inactive. */
export function isOutOfQueue(workload: KueueWorkload): boolean {
  return condition(workload.status?.conditions, 'Requeued')?.status === 'False' || workload.spec?.active === false
}

/** Waiting in the queue: not finished, no quota, not held out of it. */
export function isPending(workload: KueueWorkload): boolean {
  return !holdsQuota(workload) && !isFinished(workload) && !isOutOfQueue(workload)
}

/** When it (re)joined the queue: its eviction, else its creation (RFC 3339, compared as text). */
export function queuedAt(workload: KueueWorkload): string {
  const evicted = condition(workload.status?.conditions, 'Evicted')
  return (isTrue(evicted) ? evicted?.lastTransitionTime : undefined) ?? workload.metadata.creationTimestamp ?? ''
}

/** The pending ones of `items` (of `queueName`'s LocalQueue, when given), in the order Kueue admits them. */
export function inQueueOrder<T>(items: readonly T[], of: (item: T) => KueueWorkload, queueName?: string): T[] {
  return items
    .filter((item) => {
      const w = of(item)
      return (queueName === undefined || w.spec?.queueName === queueName) && isPending(w)
    })
    .map((item) => ({item, priority: priorityOf(of(item)), at: queuedAt(of(item))}))
    .sort((a, b) => b.priority - a.priority || a.at.localeCompare(b.at))
    .map((e) => e.item)
}

/** What a Workload asks of one resource: pod count x each pod's limit (else request), summed over pod sets. */
export function demandOf(workload: KueueWorkload, resource: string): number {
  let total = 0
  for (const set of workload.spec?.podSets ?? []) {
    let perPod = 0
    for (const c of set.template?.spec?.containers ?? []) {
      perPod += quantityNumber(c.resources?.limits?.[resource] ?? c.resources?.requests?.[resource]) ?? 0
    }
    total += perPod * (set.count ?? 0)
  }
  return total
}

/**
 * The workload that preempted this one, by the uids in Kueue's message ("Preempted to accommodate a workload (UID:
 * U, JobUID: J) ..."): the Workload of uid U, or the one owned by the JobSet of uid J; undefined when it is not
 * (or no longer) there, or the workload was not preempted.
 */
export function preemptorOf<T>(
  conditions: readonly ObservedCondition[] | undefined,
  candidates: readonly T[],
  of: (item: T) => KueueWorkload,
): T | undefined {
  const evicted = condition(conditions, 'Evicted')
  if (!isTrue(evicted)) return undefined
  const preempted = condition(conditions, 'Preempted')
  const text = `${isTrue(preempted) ? (preempted?.message ?? '') : ''} ${evicted?.message ?? ''}`
  const uid = /\(UID: ([^,)]+)/.exec(text)?.[1]
  const jobUid = /JobUID: ([^,)]+)/.exec(text)?.[1]
  if (uid === undefined && jobUid === undefined) return undefined
  return candidates.find((item) => {
    const w = of(item)
    return (
      (uid !== undefined && w.metadata.uid === uid) ||
      (jobUid !== undefined && (w.metadata.ownerReferences ?? []).some((o) => o.uid === jobUid))
    )
  })
}
