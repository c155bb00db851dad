/**
 * What `xpk workload list` says about each workload, computed from the two objects the cluster keeps for it: the
 * JobSet xpk submitted (jobset.x-k8s.io/v1alpha2) and the Workload Kueue made for it (kueue.x-k8s.io/v1beta2). Pure:
 * the service reads the objects, this decides.
 *
 * Python xpk shows the type of the Workload's latest condition and filters on words in its message ("finished",
 * "failed"). That loses real states: the latest condition is often PodsReady or Requeued (shown as Unknown), a
 * successful JobSet's message ("jobset completed successfully") has neither word, and a JobSet that finished while
 * Kueue has not caught up, or that runs without Kueue, has no Workload at all. Here every condition is read with
 * its meaning, in this order:
 *
 *   1. Finished: the JobSet's Completed/Failed condition (JobSet decides the outcome), else Kueue's Finished
 *      (reason Succeeded; any other reason, such as Failed or AdmissionChecksRejected, is a failure).
 *   2. Evicted=True (reason Preempted, or Preempted=True): on its way back to the queue, even while Admitted is
 *      still True during the eviction.
 *   3. Admitted=True: pods are created; Running once PodsReady=True (or, where Kueue does not report PodsReady,
 *      once the JobSet counts every pod ready), else Admitted (starting, or recovering after a restart).
 *   4. QuotaReserved=True: quota is held, admission checks are pending.
 *   5. Otherwise Pending: waiting for quota (QuotaReserved=False says why), or Submitted when Kueue has not made
 *      the Workload yet.
 *
 * The fields read, and how they are read from API objects, are src/core/workload/observed.ts.
 */

import {
  JOBSET_KIND,
  type KueueWorkload,
  type ObservedCondition,
  type ObservedJobSet,
  type ObservedPodTemplate,
  STORAGES_ANNOTATION,
} from './observed.js'

/** The Status column: what the workload is doing now (see the module comment for how it is decided). */
export type WorkloadStatus =
  'Submitted' | 'Pending' | 'QuotaReserved' | 'Admitted' | 'Running' | 'Preempted' | 'Evicted' | 'Succeeded' | 'Failed'

/** Where a workload is in its life: every status belongs to exactly one phase. */
export type WorkloadPhase = 'QUEUED' | 'RUNNING' | 'FINISHED'

/** How a finished workload ended. */
export type WorkloadOutcome = 'SUCCESSFUL' | 'FAILED'

const PHASE_OF: Readonly<Record<WorkloadStatus, WorkloadPhase>> = {
  Submitted: 'QUEUED',
  Pending: 'QUEUED',
  QuotaReserved: 'QUEUED',
  Preempted: 'QUEUED',
  Evicted: 'QUEUED',
  Admitted: 'RUNNING',
  Running: 'RUNNING',
  Succeeded: 'FINISHED',
  Failed: 'FINISHED',
}

/** One row of `xpk workload list` (section 5.2 of the behaviour reference, plus restarts, phase and outcome). */
export interface WorkloadRow {
  /** The JobSet's name (what `workload create --workload` named it), or the Workload's owner's. */
  readonly name: string
  /** The Kueue Workload's own name (`jobset-<name>-<hash>`); null while Kueue has made none. */
  readonly kueueWorkload: string | null
  /** When the Workload was created (the JobSet's creation time while there is no Workload). */
  readonly created: string | null
  /** The priority class: Kueue's priorityClassRef, else the pod template's priorityClassName. */
  readonly priority: string | null
  /** VMs the accelerator pod sets ask for; null when no pod set is an accelerator one. */
  readonly vmsNeeded: number | null
  /** VMs admitted for them (running, or ran for a finished workload); null while not admitted. */
  readonly vmsRunningOrRan: number | null
  /** VMs whose pods have finished (Kueue's reclaimable pods); null when none. */
  readonly vmsDone: number | null
  /** JobSet restarts so far; null without a JobSet. */
  readonly restarts: number | null
  readonly status: WorkloadStatus
  /** The message of the condition that decided the status (or what xpk knows instead); may be empty. */
  readonly statusMessage: string
  /** When that condition last changed; null when nothing says. */
  readonly statusTime: string | null
  readonly phase: WorkloadPhase
  /** Set when the phase is FINISHED. */
  readonly outcome: WorkloadOutcome | null
  /** The storages its pods mount (the JobSet's xpk.x-k8s.io/storages annotation); empty when none, or unknown. */
  readonly storages: readonly string[]
}

/** The values of `--filter-by-status`, in the order `--help` lists them. */
export const STATUS_FILTERS = ['EVERYTHING', 'FINISHED', 'RUNNING', 'QUEUED', 'FAILED', 'SUCCESSFUL'] as const

export type StatusFilter = (typeof STATUS_FILTERS)[number]

/** Resource names and node labels that make a pod set an accelerator one (Python xpk's rule). */
const ACCELERATOR_RESOURCES = ['google.com/tpu', 'nvidia.com/gpu']
const ACCELERATOR_NODE_LABELS = [
  'cloud.google.com/gke-accelerator',
  'cloud.google.com/gke-tpu-topology',
  'cloud.google.com/gke-tpu-accelerator',
  'cloud.google.com/tpu-topology',
]

/**
 * Whether a pod set runs on TPU or GPU VMs: a container asks for an accelerator resource, or the pods select
 * accelerator nodes. A Pathways head or a CPU-only helper is not one, so its pods are not counted as VMs.
 */
export function isAcceleratorPodSet(template: ObservedPodTemplate | undefined): boolean {
  const spec = template?.spec
  if (!spec) return false
  // Loops, not spreads of every container's keys: this runs for each pod set of every row of a long list.
  for (const containers of [spec.containers, spec.initContainers]) {
    for (const c of containers ?? []) {
      if (namesAccelerator(c.resources?.requests) || namesAccelerator(c.resources?.limits)) return true
    }
  }
  for (const key of Object.keys(spec.nodeSelector ?? {})) if (ACCELERATOR_NODE_LABELS.includes(key)) return true
  return false
}

function namesAccelerator(resources: Readonly<Record<string, unknown>> | undefined): boolean {
  if (!resources) return false
  for (const key of Object.keys(resources)) if (ACCELERATOR_RESOURCES.some((r) => key.includes(r))) return true
  return false
}

/** The condition of a type, or undefined. */
function condition(conditions: readonly ObservedCondition[] | undefined, type: string): ObservedCondition | undefined {
  return conditions?.find((c) => c.type === type)
}

function isTrue(c: ObservedCondition | undefined): c is ObservedCondition {
  return c?.status === 'True'
}

/** A count as the API gives it; anything but a whole non-negative number counts as 0, as in Python xpk. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0
}

/** The sum over the named pod sets in `names`; null for an absent or empty list (shown as "-"). */
function sumFor(
  entries: readonly {readonly name?: string; readonly count?: number}[] | undefined,
  names: ReadonlySet<string>,
): number | null {
  if (!entries || entries.length === 0) return null
  return entries.filter((e) => e.name !== undefined && names.has(e.name)).reduce((sum, e) => sum + count(e.count), 0)
}

/** The JobSet that owns a Workload, by the owner reference Kueue sets (else the first owner, as Python xpk reads). */
export function ownerName(workload: KueueWorkload): string {
  const owners = workload.metadata.ownerReferences ?? []
  const jobset = owners.find((o) => o.kind === JOBSET_KIND && (o.apiVersion ?? '').startsWith('jobset.x-k8s.io/'))
  return (jobset ?? owners[0])?.name ?? workload.metadata.name
}

function ownerUid(workload: KueueWorkload): string | undefined {
  return workload.metadata.ownerReferences?.find((o) => o.kind === JOBSET_KIND)?.uid
}

/**
 * The one Workload that speaks for a JobSet among those naming it as owner: the one owned by this very JobSet
 * (same uid: a JobSet deleted and submitted again under the same name leaves the old one behind until Kueue's
 * garbage collection), else the newest.
 */
export function pickWorkload(
  candidates: readonly KueueWorkload[],
  jobset: ObservedJobSet | undefined,
): KueueWorkload | undefined {
  const uid = jobset?.metadata.uid
  const own = uid === undefined ? undefined : candidates.find((w) => ownerUid(w) === uid)
  if (own) return own
  return [...candidates].sort((a, b) =>
    (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''),
  )[0]
}

/**
 * Pairs every Workload with the JobSet that owns it, by owner name, and adds JobSets Kueue has made no Workload
 * for (just submitted, or not queued through Kueue). One pair per name, sorted by name.
 */
export function joinWorkloads(
  workloads: readonly KueueWorkload[],
  jobsets: readonly ObservedJobSet[],
): {readonly name: string; readonly workload?: KueueWorkload; readonly jobset?: ObservedJobSet}[] {
  const byOwner = new Map<string, KueueWorkload[]>()
  for (const w of workloads) {
    const name = ownerName(w)
    const list = byOwner.get(name)
    if (list) list.push(w)
    else byOwner.set(name, [w])
  }
  const jobsetByName = new Map<string, ObservedJobSet>()
  const all = new Set(byOwner.keys())
  for (const j of jobsets) {
    jobsetByName.set(j.metadata.name, j)
    all.add(j.metadata.name)
  }
  const names = [...all].sort()
  return names.map((name) => {
    const jobset = jobsetByName.get(name)
    const workload = pickWorkload(byOwner.get(name) ?? [], jobset)
    // Set, not spread from temporary objects: one pair per row of a long list.
    const pair: {name: string; workload?: KueueWorkload; jobset?: ObservedJobSet} = {name}
    if (workload) pair.workload = workload
    if (jobset) pair.jobset = jobset
    return pair
  })
}

/** What decided the status: the status, and the condition (or text) it came from. */
interface Decision {
  readonly status: WorkloadStatus
  readonly message: string
  readonly time: string | null
}

function from(status: WorkloadStatus, c: ObservedCondition | undefined, fallbackTime: string | null): Decision {
  return {status, message: c?.message ?? '', time: c?.lastTransitionTime ?? fallbackTime}
}

/** The JobSet's own outcome: its Completed or Failed condition, whichever is True. */
function jobsetOutcome(jobset: ObservedJobSet | undefined): Decision | undefined {
  const conditions = jobset?.status?.conditions
  const failed = condition(conditions, 'Failed')
  if (isTrue(failed)) return from('Failed', failed, null)
  const completed = condition(conditions, 'Completed')
  if (isTrue(completed)) return from('Succeeded', completed, null)
  return undefined
}

/**
 * Whether every Job of the JobSet is ready or done. replicatedJobsStatus counts Jobs, not pods: a Job is `ready`
 * once all its pods are ready or succeeded.
 */
function jobsetAllReady(jobset: ObservedJobSet | undefined): boolean {
  const jobsWanted = (jobset?.spec?.replicatedJobs ?? []).reduce((sum, r) => sum + count(r.replicas ?? 1), 0)
  if (jobsWanted === 0) return false
  const statuses = jobset?.status?.replicatedJobsStatus ?? []
  return statuses.reduce((sum, s) => sum + count(s.ready) + count(s.succeeded), 0) >= jobsWanted
}

function decideWithWorkload(workload: KueueWorkload, jobset: ObservedJobSet | undefined): Decision {
  const conditions = workload.status?.conditions
  const created = workload.metadata.creationTimestamp ?? null
  const decided = jobsetOutcome(jobset)
  if (decided) return decided
  const finished = condition(conditions, 'Finished')
  if (isTrue(finished)) return from(finished.reason === 'Succeeded' ? 'Succeeded' : 'Failed', finished, created)
  const evicted = condition(conditions, 'Evicted')
  if (isTrue(evicted)) {
    const preempted = evicted.reason === 'Preempted' || isTrue(condition(conditions, 'Preempted'))
    const decision = from(preempted ? 'Preempted' : 'Evicted', evicted, created)
    const requeued = condition(conditions, 'Requeued')
    const requeueAt = workload.status?.requeueState?.requeueAt
    // Kueue holds a workload evicted repeatedly (e.g. pods not ready in time) out of the queue for a backoff.
    if (!isTrue(requeued) && requeueAt)
      return {...decision, message: `${decision.message} (back in the queue at ${requeueAt})`.trim()}
    return decision
  }
  const admitted = condition(conditions, 'Admitted')
  if (isTrue(admitted)) {
    const podsReady = condition(conditions, 'PodsReady')
    if (isTrue(podsReady)) return from('Running', podsReady, created)
    // Without waitForPodsReady, Kueue never writes PodsReady: the JobSet's counts say whether every pod is up.
    if (podsReady === undefined && jobsetAllReady(jobset)) return from('Running', admitted, created)
    return from('Admitted', podsReady ?? admitted, created)
  }
  const reserved = condition(conditions, 'QuotaReserved')
  if (isTrue(reserved)) return from('QuotaReserved', reserved, created)
  // QuotaReserved=False carries why it waits ("couldn't assign flavors ... insufficient unused quota ...").
  return from('Pending', reserved, created)
}

function decideJobSetOnly(jobset: ObservedJobSet): Decision {
  const created = jobset.metadata.creationTimestamp ?? null
  const decided = jobsetOutcome(jobset)
  if (decided) return decided
  const conditions = jobset.status?.conditions
  const suspended = condition(conditions, 'Suspended')
  const active = (jobset.status?.replicatedJobsStatus ?? []).reduce((sum, s) => sum + count(s.active), 0)
  if (!isTrue(suspended) && jobset.spec?.suspend !== true && active > 0) {
    return jobsetAllReady(jobset)
      ? {status: 'Running', message: 'Every job of the JobSet is ready', time: created}
      : {status: 'Admitted', message: 'The JobSet is starting its jobs', time: created}
  }
  const queued = jobset.metadata.labels?.['kueue.x-k8s.io/queue-name']
  const message = queued
    ? `Waiting for Kueue to queue it in ${queued}`
    : isTrue(suspended)
      ? (suspended.message ?? 'The JobSet is suspended')
      : 'The JobSet has not started its jobs yet'
  return {status: 'Submitted', message, time: isTrue(suspended) ? (suspended.lastTransitionTime ?? created) : created}
}

/** The pod sets of the workload (or, without one, of the JobSet's replicated jobs) that run on TPU/GPU VMs. */
function acceleratorPodSets(
  workload: KueueWorkload | undefined,
  jobset: ObservedJobSet | undefined,
): {names: Set<string>; needed: number | null} {
  if (workload) {
    const sets = (workload.spec?.podSets ?? []).filter((p) => isAcceleratorPodSet(p.template))
    const names = new Set(sets.map((p) => p.name ?? 'main'))
    return {names, needed: sets.length === 0 ? null : sets.reduce((sum, p) => sum + count(p.count ?? 1), 0)}
  }
  const jobs = (jobset?.spec?.replicatedJobs ?? []).filter((r) => isAcceleratorPodSet(r.template?.spec?.template))
  return {
    names: new Set(jobs.map((r) => r.name ?? '')),
    needed:
      jobs.length === 0
        ? null
        : jobs.reduce((sum, r) => sum + count(r.replicas ?? 1) * count(r.template?.spec?.parallelism ?? 1), 0),
  }
}

/**
 * Kueue's priority class, else the first pod set's that names one, as Kueue picks it: a Pathways head (the first
 * pod set) names none, its workers do.
 */
function priorityOf(workload: KueueWorkload | undefined, jobset: ObservedJobSet | undefined): string | null {
  const ref = workload?.spec?.priorityClassRef?.name
  if (ref) return ref
  for (const p of workload?.spec?.podSets ?? [])
    if (p.template?.spec?.priorityClassName) return p.template.spec.priorityClassName
  for (const r of jobset?.spec?.replicatedJobs ?? []) {
    const named = r.template?.spec?.template?.spec?.priorityClassName
    if (named) return named
  }
  return null
}

/**
 * The row for one workload from its Kueue Workload and its JobSet (either may be missing, not both).
 * @throws Error when both are missing (a caller bug)
 */
export function workloadRow(workload: KueueWorkload | undefined, jobset: ObservedJobSet | undefined): WorkloadRow {
  if (!workload && !jobset) throw new Error('workloadRow needs a Workload or a JobSet')
  const decision = workload ? decideWithWorkload(workload, jobset) : decideJobSetOnly(jobset!)
  const {names, needed} = acceleratorPodSets(workload, jobset)
  const phase = PHASE_OF[decision.status]
  return {
    name: workload ? ownerName(workload) : jobset!.metadata.name,
    kueueWorkload: workload?.metadata.name ?? null,
    created: (workload ?? jobset)!.metadata.creationTimestamp ?? null,
    priority: priorityOf(workload, jobset),
    vmsNeeded: needed,
    vmsRunningOrRan: sumFor(workload?.status?.admission?.podSetAssignments, names),
    vmsDone: sumFor(workload?.status?.reclaimablePods, names),
    restarts: jobset ? count(jobset.status?.restarts) : null,
    status: decision.status,
    statusMessage: decision.message,
    statusTime: decision.time,
    phase,
    outcome: phase !== 'FINISHED' ? null : decision.status === 'Succeeded' ? 'SUCCESSFUL' : 'FAILED',
    storages: jobset?.metadata.annotations?.[STORAGES_ANNOTATION]?.split(',').filter(Boolean) ?? NO_STORAGES,
  }
}

/** One empty list for the rows of every workload that mounts nothing (most, in a list of thousands). */
const NO_STORAGES: readonly string[] = Object.freeze([])

/** Every row, joined and sorted by name. */
export function workloadRows(workloads: readonly KueueWorkload[], jobsets: readonly ObservedJobSet[]): WorkloadRow[] {
  return joinWorkloads(workloads, jobsets).map((pair) => workloadRow(pair.workload, pair.jobset))
}

/** Whether `--filter-by-status` keeps the row: FAILED and SUCCESSFUL are kinds of FINISHED. */
export function matchesStatus(row: WorkloadRow, filter: StatusFilter): boolean {
  switch (filter) {
    case 'EVERYTHING':
      return true
    case 'FINISHED':
    case 'RUNNING':
    case 'QUEUED':
      return row.phase === filter
    case 'FAILED':
    case 'SUCCESSFUL':
      return row.outcome === filter
  }
}

/**
 * `--filter-by-status` as typed, matched without regard to case; a problem naming the valid values otherwise
 * (Python xpk warned and listed everything, which a script cannot tell from a real answer).
 */
export function parseStatusFilter(text: string): {value: StatusFilter} | {problem: string} {
  const found = STATUS_FILTERS.find((f) => f === text.trim().toUpperCase())
  if (found) return {value: found}
  return {problem: `"${text}" is not a status filter: use one of ${STATUS_FILTERS.join(', ')}`}
}
