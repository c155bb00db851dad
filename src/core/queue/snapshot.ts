/**
 * `xpk queue`: the state of a cluster's queues at one moment, from the objects Kueue and JobSet keep (Kueue
 * Workloads, JobSets, ClusterQueues): per ClusterQueue and flavor the quota in use against the nominal one, then the
 * workloads running (age, VMs, restarts), queued (position in Kueue's order, priority, waiting time), evicted in the
 * last hour (why, and by whom) and finished in the last hour. Pure and whole: the live view recomputes it from its
 * maps on every refresh, so it can never drift from what a fresh read would show.
 */
import {PRIORITIES} from '../workload/priority.js'
import {demandOf, holdsQuota, inQueueOrder, isOutOfQueue, preemptorOf, queuedAt} from '../workload/kueue-queue.js'
import type {KueueWorkload, ObservedJobSet} from '../workload/observed.js'
import {joinWorkloads, ownerName, workloadRow, type WorkloadOutcome} from '../workload/status.js'
import type {ObservedClusterQueue} from '../workload/why-observed.js'

/** How far back evictions and finished workloads are shown. */
export const RECENT_MS = 60 * 60_000

/** One resource of one flavor of a ClusterQueue: what is held (quota reserved) against the nominal quota. */
export interface FlavorUsage {
  readonly flavor: string
  readonly resource: string
  readonly used: number
  readonly nominal: number
}

export interface QueueUsage {
  readonly name: string
  readonly flavors: readonly FlavorUsage[]
  /** Workloads holding its quota. */
  readonly admitted: number
}

export interface RunningWorkload {
  readonly name: string
  readonly priority: string | null
  /** Since it was admitted (or, when Kueue does not say, created). */
  readonly seconds: number | null
  readonly vms: number | null
  readonly restarts: number
}

export interface QueuedWorkload {
  /** 1-based, in Kueue's order within its ClusterQueue's LocalQueue. */
  readonly position: number
  readonly name: string
  readonly priority: string | null
  /** Since it joined the queue (its eviction, else its creation). */
  readonly seconds: number | null
  readonly vmsNeeded: number | null
}

export interface EvictedWorkload {
  readonly name: string
  readonly seconds: number | null
  readonly reason: string
  /** The workload that preempted it, when Kueue's message names one that is still there. */
  readonly by: string | null
  /** Held out of the queue until this many seconds from now (a backoff); null when it is back in it. */
  readonly heldSeconds: number | null
}

export interface FinishedWorkload {
  readonly name: string
  readonly outcome: WorkloadOutcome | null
  readonly seconds: number | null
}

export interface QueueSnapshot {
  /** When it was taken (RFC 3339). */
  readonly at: string
  readonly queues: readonly QueueUsage[]
  readonly running: readonly RunningWorkload[]
  readonly queued: readonly QueuedWorkload[]
  readonly evicted: readonly EvictedWorkload[]
  readonly finished: readonly FinishedWorkload[]
}

export interface SnapshotInputs {
  readonly now: number
  readonly workloads: readonly KueueWorkload[]
  readonly jobsets: readonly ObservedJobSet[]
  readonly clusterQueues: readonly ObservedClusterQueue[]
}

const seconds = (now: number, time: string | null | undefined): number | null => {
  if (!time) return null
  const t = Date.parse(time)
  return Number.isNaN(t) ? null : Math.max(0, Math.round((now - t) / 1000))
}

const priorityName = (w: KueueWorkload | undefined, fallback: string | null): string | null =>
  w?.spec?.priorityClassRef?.name ?? PRIORITIES.find((p) => p.value === w?.spec?.priority)?.name ?? fallback

const conditionTime = (w: KueueWorkload | undefined, type: string): string | undefined =>
  w?.status?.conditions?.find((c) => c.type === type && c.status === 'True')?.lastTransitionTime

export function queueSnapshot(inputs: SnapshotInputs): QueueSnapshot {
  const {now} = inputs
  const pairs = joinWorkloads(inputs.workloads, inputs.jobsets)
  const running: RunningWorkload[] = []
  const evicted: EvictedWorkload[] = []
  const finished: FinishedWorkload[] = []
  for (const {name, workload, jobset} of pairs) {
    const row = workloadRow(workload, jobset)
    if (row.phase === 'RUNNING') {
      running.push({
        name,
        priority: priorityName(workload, row.priority),
        seconds: seconds(now, conditionTime(workload, 'Admitted') ?? row.created),
        vms: row.vmsRunningOrRan ?? row.vmsNeeded,
        restarts: row.restarts ?? 0,
      })
    } else if (row.phase === 'FINISHED') {
      const ago = seconds(now, row.statusTime)
      if (ago === null || ago * 1000 <= RECENT_MS) finished.push({name, outcome: row.outcome, seconds: ago})
    }
    const evictedAt = conditionTime(workload, 'Evicted')
    if (workload && row.phase === 'QUEUED' && evictedAt !== undefined) {
      const ago = seconds(now, evictedAt)
      if (ago === null || ago * 1000 <= RECENT_MS) {
        const by = preemptorOf(workload.status?.conditions, inputs.workloads, (w) => w)
        const requeueAt = Date.parse(workload.status?.requeueState?.requeueAt ?? '')
        evicted.push({
          name,
          seconds: ago,
          reason: workload.status?.conditions?.find((c) => c.type === 'Evicted')?.reason ?? 'Evicted',
          by: by ? ownerName(by) : null,
          heldSeconds:
            isOutOfQueue(workload) && !Number.isNaN(requeueAt)
              ? Math.max(0, Math.ceil((requeueAt - now) / 1000))
              : null,
        })
      }
    }
  }
  const rows = new Map(pairs.map((p) => [p.name, p]))
  const queued = inQueueOrder(inputs.workloads, (w) => w).map((w, i): QueuedWorkload => {
    const name = ownerName(w)
    const row = workloadRow(w, rows.get(name)?.jobset)
    return {
      position: i + 1,
      name,
      priority: priorityName(w, row.priority),
      seconds: seconds(now, queuedAt(w)),
      vmsNeeded: row.vmsNeeded,
    }
  })
  running.sort((a, b) => (a.seconds ?? 0) - (b.seconds ?? 0) || a.name.localeCompare(b.name))
  evicted.sort((a, b) => (a.seconds ?? 0) - (b.seconds ?? 0))
  finished.sort((a, b) => (a.seconds ?? 0) - (b.seconds ?? 0))
  return {
    at: new Date(now).toISOString(),
    queues: inputs.clusterQueues.map((q) => usageOf(q, inputs.workloads)),
    running,
    queued,
    evicted,
    finished,
  }
}

/**
 * What the workloads admitted to a ClusterQueue hold of each of its quotas (a flavor's resource): what they ask for,
 * counted against every flavor of the resource (xpk's clusters have one flavor per queue).
 */
function usageOf(queue: ObservedClusterQueue, workloads: readonly KueueWorkload[]): QueueUsage {
  const mine = workloads.filter((w) => w.status?.admission?.clusterQueue === queue.name && holdsQuota(w))
  const flavors = queue.quotas.map((q) => ({
    flavor: q.flavor,
    resource: q.resource,
    nominal: q.nominal,
    used: mine.reduce((sum, w) => sum + demandOf(w, q.resource), 0),
  }))
  return {name: queue.name, flavors, admitted: mine.length}
}
