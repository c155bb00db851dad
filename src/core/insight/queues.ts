/**
 * What `xpk info` reports: Kueue's LocalQueues and ClusterQueues, each with its workload counts and, per flavor and
 * resource of its ClusterQueue's quota, what is reserved (and used) against the nominal quota.
 *
 * Python xpk (section 7.6 of the behaviour reference) reads `kubectl kueue list ... -o json` and keys every cell by
 * `<flavor>:<resource>` of the ClusterQueue's spec; a status that lacks one of them (a queue Kueue has not reconciled
 * yet, a LocalQueue whose ClusterQueue is gone) stops it with a KeyError. Here a missing count or reservation is
 * null (printed `-`), a resource only the status names still shows, and a LocalQueue's ClusterQueue is named.
 */
import type {KubeObject} from '../kube/release-manifest.js'
import {clusterQueueState, type ClusterQueueState} from '../incluster/describe.js'

/** One resource of one flavor: reserved and used by the queue's workloads, against the ClusterQueue's quota. */
export interface QueueResourceUsage {
  readonly flavor: string
  readonly resource: string
  /** The ClusterQueue's nominal quota (a Kubernetes quantity); null when its spec does not have this resource. */
  readonly nominalQuota: string | null
  /** `status.flavorsReservation`: quota reserved by admitted and admitting workloads; null before Kueue's status. */
  readonly reserved: string | null
  /** `status.flavorsUsage`: quota used by admitted workloads; null before Kueue's status. */
  readonly used: string | null
}

/** A LocalQueue or a ClusterQueue, as `xpk info` shows it. */
export interface QueueUsage {
  readonly name: string
  /** The LocalQueue's namespace; null for a ClusterQueue (cluster-scoped). */
  readonly namespace: string | null
  /** The ClusterQueue whose quota it uses: a LocalQueue's `spec.clusterQueue`, a ClusterQueue's own name. */
  readonly clusterQueue: string
  /** The counts of Kueue's status; null before Kueue has written it. */
  readonly admittedWorkloads: number | null
  readonly pendingWorkloads: number | null
  readonly reservingWorkloads: number | null
  readonly usage: readonly QueueResourceUsage[]
}

/** `xpk info`'s result: each kind asked for (null when it was not: `--clusterqueue` or `--localqueue`). */
export interface QueueInfo {
  readonly localQueues: readonly QueueUsage[] | null
  readonly clusterQueues: readonly QueueUsage[] | null
}

/** Which tables `--clusterqueue` and `--localqueue` ask for: both when neither is given, as in Python xpk. */
export function queueKindsAsked(flags: {readonly clusterqueue?: boolean; readonly localqueue?: boolean}): {
  readonly local: boolean
  readonly cluster: boolean
} {
  const local = Boolean(flags.localqueue)
  const cluster = Boolean(flags.clusterqueue)
  return local || cluster ? {local, cluster} : {local: true, cluster: true}
}

/** A ClusterQueue's row, from what `cluster describe` reads of it. */
export function clusterQueueUsage(queue: ClusterQueueState): QueueUsage {
  return {
    name: queue.name,
    namespace: null,
    clusterQueue: queue.name,
    admittedWorkloads: queue.admittedWorkloads,
    pendingWorkloads: queue.pendingWorkloads,
    reservingWorkloads: queue.reservingWorkloads,
    usage: queue.flavors.flatMap((f) =>
      f.resources.map((r) => ({
        flavor: f.name,
        resource: r.name,
        nominalQuota: r.nominalQuota,
        reserved: r.reserved,
        used: r.used,
      })),
    ),
  }
}

/**
 * A LocalQueue's row: its own reservation and usage (its status) against the quota of its ClusterQueue, in the
 * ClusterQueue's order; resources only its status names follow, with no quota. Its ClusterQueue missing (deleted,
 * or not yet created), every resource it names has no quota.
 */
export function localQueueUsage(queue: KubeObject, clusterQueues: readonly ClusterQueueState[]): QueueUsage {
  const spec = asRecord(queue.spec)
  const clusterQueue = typeof spec.clusterQueue === 'string' ? spec.clusterQueue : ''
  // The LocalQueue's status has the ClusterQueue's shape of flavors; its quota is the ClusterQueue's.
  const own = clusterQueueState({
    apiVersion: queue.apiVersion,
    kind: 'ClusterQueue',
    metadata: {name: queue.metadata.name},
    spec: {},
    ...(queue.status === undefined || queue.status === null ? {} : {status: withUsage(asRecord(queue.status))}),
  })
  const quota = clusterQueues.find((q) => q.name === clusterQueue)
  const reserved = new Map(own.flavors.flatMap((f) => f.resources.map((r) => [`${f.name}\u0000${r.name}`, r])))
  const noStatus = queue.status === undefined || queue.status === null
  const usage: QueueResourceUsage[] = []
  for (const f of quota?.flavors ?? []) {
    for (const r of f.resources) {
      const mine = reserved.get(`${f.name}\u0000${r.name}`)
      reserved.delete(`${f.name}\u0000${r.name}`)
      usage.push({
        flavor: f.name,
        resource: r.name,
        nominalQuota: r.nominalQuota,
        reserved: noStatus ? null : (mine?.reserved ?? '0'),
        used: noStatus ? null : (mine?.used ?? '0'),
      })
    }
  }
  for (const f of own.flavors) {
    for (const r of f.resources) {
      if (!reserved.has(`${f.name}\u0000${r.name}`)) continue
      usage.push({flavor: f.name, resource: r.name, nominalQuota: null, reserved: r.reserved, used: r.used})
    }
  }
  return {
    name: queue.metadata.name,
    namespace: queue.metadata.namespace ?? null,
    clusterQueue,
    admittedWorkloads: own.admittedWorkloads,
    pendingWorkloads: own.pendingWorkloads,
    reservingWorkloads: own.reservingWorkloads,
    usage,
  }
}

/** The queue info, each kind sorted (LocalQueues by namespace, then name). */
export function queueInfo(
  asked: {readonly local: boolean; readonly cluster: boolean},
  clusterQueueObjects: readonly KubeObject[],
  localQueueObjects: readonly KubeObject[],
): QueueInfo {
  const clusterQueues = clusterQueueObjects.map(clusterQueueState).sort((a, b) => a.name.localeCompare(b.name))
  const local = localQueueObjects
    .map((q) => localQueueUsage(q, clusterQueues))
    .sort((a, b) => (a.namespace ?? '').localeCompare(b.namespace ?? '') || a.name.localeCompare(b.name))
  return {
    localQueues: asked.local ? local : null,
    clusterQueues: asked.cluster ? clusterQueues.map(clusterQueueUsage) : null,
  }
}

/** Whether nothing was found of what was asked. */
export function noQueues(info: QueueInfo): boolean {
  return (info.localQueues ?? []).length === 0 && (info.clusterQueues ?? []).length === 0
}

/**
 * The `<flavor>:<resource>` columns of Python's tables, in first-seen order over the rows, and the cell of each:
 * `<reserved>/<quota>` (`-` for what is not known).
 */
export function usageColumns(rows: readonly QueueUsage[]): string[] {
  const keys: string[] = []
  const seen = new Set<string>()
  for (const row of rows) {
    for (const u of row.usage) {
      const key = usageKey(u)
      if (seen.has(key)) continue
      seen.add(key)
      keys.push(key)
    }
  }
  return keys
}

export function usageKey(u: Pick<QueueResourceUsage, 'flavor' | 'resource'>): string {
  return `${u.flavor}:${u.resource}`
}

/** The cell of one column for one row: `reserved/quota`, or null (`-`) when the row's ClusterQueue lacks it. */
export function usageCell(row: QueueUsage, key: string, field: 'reserved' | 'used' = 'reserved'): string | null {
  const u = row.usage.find((x) => usageKey(x) === key)
  if (!u) return null
  return `${u[field] ?? '-'}/${u.nominalQuota ?? '-'}`
}

/** A LocalQueue status in v1beta1 names its usage `flavorUsage`; v1beta2 `flavorsUsage`, as a ClusterQueue's. */
function withUsage(status: Record<string, unknown>): Record<string, unknown> {
  return status.flavorsUsage === undefined && status.flavorUsage !== undefined
    ? {...status, flavorsUsage: status.flavorUsage}
    : status
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}
