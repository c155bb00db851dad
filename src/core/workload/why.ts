/**
 * `xpk workload why NAME`: one answer, in plain words, to "why is my workload not running (or not done)?", from
 * everything that can hold it back, and the next thing to do. Pure: the service reads the objects
 * (src/services/workload-why.ts), this decides. Each finding has a cause code, its numbers and the objects involved,
 * so `--json` gives the same answer as data. The causes, in the order they are looked for:
 *
 *   - Kueue has no Workload for the JobSet (not queued through Kueue, or Kueue is not running);
 *   - finished: succeeded, or failed with the restarts used and the exit code of a failed container;
 *   - queued: no queue (ClusterQueue or LocalQueue missing or inactive), too big for the cluster's quota, or waiting
 *     for quota: its position (Kueue's visibility API, else computed as Kueue orders: priority, then age), the
 *     workloads ahead, who holds the quota, and whether a higher priority would preempt them; pending admission
 *     checks (a flex-start provisioning request); evicted (preempted by which workload, or why) and requeued;
 *   - admitted: pods the scheduler cannot place (with the node pools of its accelerator that are not RUNNING or
 *     miss nodes, from GKE), images that cannot be pulled, containers in a crash loop (with the last exit code),
 *     restarts used against `--max-restarts`; or running well.
 */
import type {ObservedNodePool} from '../cluster/observed.js'
import {PRIORITIES} from './priority.js'
import {ownerName, workloadRow, type WorkloadPhase, type WorkloadStatus} from './status.js'
import type {KueueWorkload, ObservedCondition, ObservedJobSet} from './observed.js'
import type {
  ObservedClusterQueue,
  ObservedPod,
  PendingWorkloadEntry,
  QueueQuota,
  WorkloadDetail,
} from './why-observed.js'
import {age, msSince} from '../render/ages.js'
import {
  ACCELERATOR_RESOURCES,
  demandOf,
  holdsQuota,
  inQueueOrder,
  isOutOfQueue,
  preemptorOf,
  priorityOf,
  resourceUnit,
} from './kueue-queue.js'

/** Every cause `why` recognises (the README lists them). */
export const WHY_CAUSES = [
  'not-in-kueue',
  'succeeded',
  'failed',
  'no-queue',
  'too-big',
  'waiting-for-quota',
  'queue-position',
  'quota-in-use',
  'admission-check',
  'evicted',
  'requeued',
  'pods-unschedulable',
  'node-pool-unhealthy',
  'image-pull',
  'crash-loop',
  'restarts',
  'starting',
  'running',
] as const

export type WhyCause = (typeof WHY_CAUSES)[number]

/** One thing that holds the workload back (or says how it is doing), as words and as data. */
export interface WhyFinding {
  readonly cause: WhyCause
  readonly text: string
  /** The numbers and objects behind the text (names of workloads, pods, node pools, counts). */
  readonly data: Readonly<Record<string, string | number | boolean | null | readonly string[]>>
}

export interface WhyAnswer {
  readonly workload: string
  readonly status: WorkloadStatus
  readonly phase: WorkloadPhase
  /** The first line: where the workload is, in a few words. */
  readonly headline: string
  readonly findings: readonly WhyFinding[]
  /** The next thing to do (or to expect); null when there is nothing to do. */
  readonly next: string | null
}

/** A Workload of the cluster: what `workload list` reads of it, and the details `why` needs. */
export interface WhyWorkload {
  readonly observed: KueueWorkload
  readonly detail: WorkloadDetail
}

export interface WhyInputs {
  /** The name asked about (the JobSet's). */
  readonly name: string
  readonly now: number
  readonly jobset: ObservedJobSet | undefined
  /** `spec.failurePolicy.maxRestarts` of the JobSet; null without one. */
  readonly maxRestarts: number | null
  /** The Workload Kueue made for it (picked as `workload list` picks it), if any. */
  readonly workload: WhyWorkload | undefined
  /** Every Workload of the namespace: who holds the quota, who is ahead, who preempted it. */
  readonly workloads: readonly WhyWorkload[]
  /** The ClusterQueue its LocalQueue points at, when it exists. */
  readonly clusterQueue: ObservedClusterQueue | undefined
  /** Kueue's pending workloads of that ClusterQueue in order; null when the visibility API is not served. */
  readonly pending: readonly PendingWorkloadEntry[] | null
  readonly pods: readonly ObservedPod[]
  /** The cluster's node pools from GKE, with ready nodes per pool; null when GKE was not asked (a kubeconfig). */
  readonly nodePools: readonly ObservedNodePool[] | null
  readonly readyNodes: Readonly<Record<string, number>> | null
  /** The cluster's name, for the commands the answer suggests. */
  readonly cluster: string | null
}

/** A priority value by the name of xpk's class, or the number. */
function priorityName(value: number | undefined): string {
  return PRIORITIES.find((p) => p.value === value)?.name ?? String(value ?? 0)
}

function condition(conditions: readonly ObservedCondition[] | undefined, type: string): ObservedCondition | undefined {
  return conditions?.find((c) => c.type === type)
}

function isTrue(c: ObservedCondition | undefined): boolean {
  return c?.status === 'True'
}

/** A message as the middle of a sentence: without its closing full stop. */
function clause(text: string): string {
  return text.replace(/\.+\s*$/, '')
}

/** "a, b and c" */
function andList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/** Up to `max` names, then "and N more". */
function some(items: readonly string[], max = 3): string {
  return items.length <= max ? andList(items) : `${items.slice(0, max).join(', ')} and ${items.length - max} more`
}

/** What an admitted Workload holds of a resource: Kueue's resourceUsage, else what it asks for. */
function holdingOf(w: WhyWorkload, resource: string): number {
  return w.detail.resourceUsage[resource] ?? demandOf(w.observed, resource)
}

/** The quota the workload is measured against: the resource it asks most of among the queue's, in the first flavor. */
function quotaFor(queue: ObservedClusterQueue | undefined, workload: KueueWorkload): QueueQuota | undefined {
  if (!queue) return undefined
  const asked = queue.quotas.filter((q) => demandOf(workload, q.resource) > 0)
  const accelerator = asked.find((q) => ACCELERATOR_RESOURCES.includes(q.resource))
  return accelerator ?? asked[0] ?? queue.quotas[0]
}

const QUEUE_MISSING = /(ClusterQueue|LocalQueue) (\S+) (doesn't exist|is inactive|is stopped)/
const UNUSED_QUOTA = /insufficient unused quota for (\S+) in flavor (\S+), (\d+(?:\.\d+)?) more needed/
const OVER_CAPACITY = /insufficient quota for (\S+) in flavor ([^\s,]+)/

/** Decides the answer from what was read. */
export function whyWorkload(inputs: WhyInputs): WhyAnswer {
  const {name, jobset} = inputs
  const own = inputs.workload
  const row = workloadRow(own?.observed, jobset)
  const base = {workload: name, status: row.status, phase: row.phase}
  if (!own) return {...base, ...notInKueue(inputs)}
  if (row.phase === 'FINISHED') return {...base, ...finished(inputs, row.outcome === 'SUCCESSFUL')}
  if (row.phase === 'QUEUED') return {...base, ...queued(inputs, own)}
  return {...base, ...admitted(inputs, own, row.vmsNeeded)}
}

type Part = Pick<WhyAnswer, 'headline' | 'findings' | 'next'>

function notInKueue(inputs: WhyInputs): Part {
  const {jobset, now} = inputs
  const waited = msSince(now, jobset?.metadata.creationTimestamp)
  const queueName = jobset?.metadata.labels?.['kueue.x-k8s.io/queue-name'] ?? null
  const text =
    queueName === null
      ? 'Its JobSet names no Kueue queue (label kueue.x-k8s.io/queue-name), so Kueue never admits it; it was not submitted by xpk workload create.'
      : `Kueue has made no Workload for it in ${age(waited ?? 0)}: the Kueue controller is not running, or not watching JobSets.`
  return {
    headline: `SUBMITTED ${age(waited ?? 0)} ago, not yet seen by Kueue.`,
    findings: [{cause: 'not-in-kueue', text, data: {queueName, seconds: waited === null ? null : waited / 1000}}],
    next:
      queueName === null
        ? `Delete it and submit it again with xpk workload create.`
        : `xpk cluster describe${clusterFlag(inputs)} shows whether Kueue is installed and Available; xpk cluster create installs it.`,
  }
}

function clusterFlag(inputs: WhyInputs): string {
  return inputs.cluster ? ` --cluster ${inputs.cluster}` : ''
}

function finished(inputs: WhyInputs, succeeded: boolean): Part {
  const {jobset, workload, now, name} = inputs
  const done =
    jobset?.status?.conditions?.find((c) => (c.type === 'Completed' || c.type === 'Failed') && c.status === 'True') ??
    condition(workload?.observed.status?.conditions, 'Finished')
  const ago = msSince(now, done?.lastTransitionTime)
  const when = ago === null ? '' : ` ${age(ago)} ago`
  if (succeeded) {
    return {
      headline: `FINISHED: succeeded${when}.`,
      findings: [{cause: 'succeeded', text: done?.message || 'Every pod finished with exit code 0.', data: {}}],
      next: null,
    }
  }
  const findings: WhyFinding[] = [
    {cause: 'failed', text: done?.message || 'The JobSet failed.', data: {reason: done?.reason ?? null}},
  ]
  const restarts = restartsFinding(inputs)
  if (restarts) findings.push(restarts)
  const exited = inputs.pods.flatMap((p) =>
    p.containers.filter((c) => c.lastExitCode !== null && c.lastExitCode !== 0).map((c) => ({pod: p, c})),
  )
  if (exited.length > 0) {
    const {pod, c} = exited[0]
    findings.push({
      cause: 'crash-loop',
      text: `Pod ${pod.name} exited with code ${c.lastExitCode}${c.lastReason ? ` (${c.lastReason})` : ''}.`,
      data: {pod: pod.name, container: c.name, exitCode: c.lastExitCode, pods: exited.map((e) => e.pod.name)},
    })
  }
  return {
    headline: `FINISHED: failed${when}.`,
    findings,
    next: `xpk workload logs ${name}${clusterFlag(inputs)} --all --tail 50 shows the last lines of every pod (while they exist).`,
  }
}

function restartsFinding(inputs: WhyInputs): WhyFinding | undefined {
  const restarts = inputs.jobset?.status?.restarts ?? 0
  const max = inputs.maxRestarts
  if (restarts === 0) return undefined
  const limit = max === null ? '' : ` of ${max}`
  return {
    cause: 'restarts',
    text: `The JobSet restarted ${restarts}${limit} time${restarts === 1 && max === null ? '' : 's'}${max !== null && restarts >= max ? ': no restarts left' : ''}.`,
    data: {restarts, maxRestarts: max},
  }
}

/** Holders of quota in the same ClusterQueue, lowest priority first and newest first (Kueue's victim order). */
function holders(inputs: WhyInputs, queueName: string | undefined, self: KueueWorkload): WhyWorkload[] {
  return inputs.workloads
    .filter((w) => w.observed !== self && holdsQuota(w.observed))
    .filter((w) => queueName === undefined || w.observed.status?.admission?.clusterQueue === queueName)
    .sort(
      (a, b) =>
        priorityOf(a.observed) - priorityOf(b.observed) ||
        (b.observed.metadata.creationTimestamp ?? '').localeCompare(a.observed.metadata.creationTimestamp ?? ''),
    )
}

function label(w: WhyWorkload, resource?: string): string {
  const amount = resource === undefined ? '' : `, ${holdingOf(w, resource)}`
  return `${ownerName(w.observed)} (${priorityName(w.observed.spec?.priority)}${amount})`
}

function queued(inputs: WhyInputs, own: WhyWorkload): Part {
  const self = own.observed
  const conditions = self.status?.conditions
  const reserved = condition(conditions, 'QuotaReserved')
  const message = reserved?.status === 'False' ? (reserved.message ?? '') : ''
  const findings: WhyFinding[] = []
  const queue = inputs.clusterQueue
  const missing = QUEUE_MISSING.exec(message)
  if (missing || !queue || queue.inactive) {
    const what = missing
      ? `${missing[1]} ${missing[2]} ${missing[3]}`
      : queue?.inactive
        ? `ClusterQueue ${queue.name} is inactive: ${clause(queue.inactive.message || queue.inactive.reason)}`
        : 'the cluster has no ClusterQueue for its queue'
    findings.push({cause: 'no-queue', text: `Kueue cannot admit it: ${what}.`, data: {message}})
    return {
      headline: `QUEUED with nowhere to go: ${what}.`,
      findings,
      next: `xpk cluster create${clusterFlag(inputs)} (with the cluster's flags) makes the queues again.`,
    }
  }

  const quota = quotaFor(queue, self)
  const resource = quota?.resource ?? 'google.com/tpu'
  const needed = demandOf(self, resource)
  const nominal = quota?.nominal ?? 0
  const holding = holders(inputs, queue.name, self)
  const used = holding.reduce((sum, w) => sum + holdingOf(w, resource), 0)
  const free = Math.max(0, nominal - used)
  const units = resourceUnit(resource)

  if (OVER_CAPACITY.test(message) || (quota && needed > nominal)) {
    findings.push({
      cause: 'too-big',
      text: `It needs ${needed} ${units} (${resource}); the whole queue ${queue.name} has ${nominal}${quota ? ` in flavor ${quota.flavor}` : ''}.`,
      data: {resource, needed, nominal, flavor: quota?.flavor ?? null},
    })
    return {
      headline: `QUEUED, and it can never start here: it asks for more ${units} than the cluster has.`,
      findings,
      next: `Ask for fewer slices, or grow the cluster: xpk cluster create${clusterFlag(inputs)} --num-slices N.`,
    }
  }

  const evicted = evictionFindings(inputs, own)
  findings.push(...evicted)
  const checks = own.detail.admissionChecks.filter((c) => c.state !== 'Ready')
  if (isTrue(reserved) && checks.length === 0) {
    findings.push({cause: 'starting', text: 'Quota is reserved; Kueue admits it next.', data: {}})
    return {
      headline: 'QUEUED: quota reserved, being admitted.',
      findings,
      next: 'Run xpk workload why again in a moment.',
    }
  }
  if (isTrue(reserved)) {
    findings.push({
      cause: 'admission-check',
      text: `Quota is reserved; waiting for admission check${checks.length === 1 ? '' : 's'} ${andList(checks.map((c) => `${c.name} (${c.state}${c.message ? `: ${c.message}` : ''})`))}.`,
      data: {checks: checks.map((c) => c.name), states: checks.map((c) => c.state)},
    })
    return {
      headline: `QUEUED: quota reserved, waiting for capacity (admission check${checks.length === 1 ? '' : 's'}).`,
      findings,
      next: 'It starts when the capacity is provisioned (flex-start can take hours); nothing to do until then.',
    }
  }

  const unusedMatch = UNUSED_QUOTA.exec(message)
  const moreNeeded = unusedMatch ? Number(unusedMatch[3]) : Math.max(0, needed - free)
  findings.push({
    cause: 'waiting-for-quota',
    text: `It needs ${needed} ${units}; ${free} of ${nominal} are free${quota ? ` in flavor ${quota.flavor}` : ''} (${moreNeeded} more needed).`,
    data: {resource, needed, free, nominal, moreNeeded, flavor: quota?.flavor ?? null, message},
  })

  const position = positionOf(inputs, self)
  if (position) {
    const ahead = position.ahead
    const aheadNeed = ahead.reduce((sum, w) => sum + demandOf(w.observed, resource), 0)
    findings.push({
      cause: 'queue-position',
      text:
        ahead.length === 0
          ? `It is first in ${queue.name}.`
          : `Ahead of it: ${some(ahead.map((w) => `${ownerName(w.observed)} (${priorityName(w.observed.spec?.priority)})`))}, needing ${aheadNeed} ${units}.`,
      data: {
        position: position.index + 1,
        of: position.total,
        source: position.source,
        ahead: ahead.map((w) => ownerName(w.observed)),
        aheadNeed,
      },
    })
  }
  if (holding.length > 0) {
    findings.push({
      cause: 'quota-in-use',
      text: `${used} of ${nominal} ${units} are in use by ${some(holding.map((w) => label(w, resource)).reverse())}.`,
      data: {used, nominal, holders: holding.map((w) => ownerName(w.observed))},
    })
  }
  const where = position ? `, position ${position.index + 1} of ${position.total} in ${queue.name}` : ''
  const held = heldBack(inputs, self)
  return {
    headline:
      held === null
        ? `QUEUED${where}: waiting for ${moreNeeded} more ${units}.`
        : `QUEUED, held out of the queue for ${age(held)} after an eviction${moreNeeded > 0 ? `; then waiting for ${moreNeeded} more ${units}` : ''}.`,
    findings,
    next:
      held !== null
        ? `It rejoins the queue by itself in ${age(held)}${moreNeeded > 0 ? '' : ' and fits the free quota'}; nothing to do.`
        : moreNeeded > 0
          ? preemptionAdvice(inputs, self, holding, resource, needed - free)
          : 'It fits the free quota: Kueue admits it at its next pass.',
  }
}

function evictionFindings(inputs: WhyInputs, own: WhyWorkload): WhyFinding[] {
  const conditions = own.detail.conditions
  const evicted = condition(conditions, 'Evicted')
  const findings: WhyFinding[] = []
  if (isTrue(evicted)) {
    const by = preemptorOf(conditions, inputs.workloads, (w) => w.observed)
    const reason = evicted?.reason ?? 'Evicted'
    const ago = msSince(inputs.now, evicted?.lastTransitionTime)
    findings.push({
      cause: 'evicted',
      text:
        reason === 'Preempted'
          ? `Preempted${ago === null ? '' : ` ${age(ago)} ago`}${by ? ` by ${label(by)}` : ''}: it goes back to the queue and restarts from the start (or its last checkpoint).`
          : `Evicted${ago === null ? '' : ` ${age(ago)} ago`} (${reason}): ${clause(evicted?.message ?? '')}.`,
      data: {reason, by: by ? ownerName(by.observed) : null, message: evicted?.message ?? ''},
    })
  }
  const requeue = own.observed.status?.requeueState
  if (requeue?.count) {
    const at = requeue.requeueAt ? Date.parse(requeue.requeueAt) - inputs.now : null
    findings.push({
      cause: 'requeued',
      text: `Requeued ${requeue.count} time${requeue.count === 1 ? '' : 's'}${at !== null && at > 0 ? `; back in the queue in ${age(at)}` : ''}.`,
      data: {count: requeue.count, requeueAt: requeue.requeueAt ?? null},
    })
  }
  return findings
}

/** Ms until an evicted workload rejoins the queue (Requeued=False with a requeueAt ahead); null when it is in it. */
function heldBack(inputs: WhyInputs, self: KueueWorkload): number | null {
  if (!isOutOfQueue(self)) return null
  const at = self.status?.requeueState?.requeueAt
  const left = at ? Date.parse(at) - inputs.now : NaN
  return Number.isNaN(left) ? null : Math.max(0, left)
}

interface Position {
  readonly index: number
  readonly total: number
  readonly ahead: readonly WhyWorkload[]
  readonly source: 'kueue' | 'computed'
}

/** Its place among the pending workloads: Kueue's own answer, else computed as Kueue orders (priority, then age). */
function positionOf(inputs: WhyInputs, self: KueueWorkload): Position | undefined {
  const byName = new Map(inputs.workloads.map((w) => [w.observed.metadata.name, w]))
  if (inputs.pending) {
    const mine = inputs.pending.find((p) => p.name === self.metadata.name)
    if (!mine) return undefined
    const ahead = inputs.pending
      .filter((p) => p.positionInClusterQueue < mine.positionInClusterQueue)
      .sort((a, b) => a.positionInClusterQueue - b.positionInClusterQueue)
      .flatMap((p) => byName.get(p.name) ?? [])
    return {index: mine.positionInClusterQueue, total: inputs.pending.length, ahead, source: 'kueue'}
  }
  const pending = inQueueOrder(inputs.workloads, (w) => w.observed, self.spec?.queueName)
  const index = pending.findIndex((w) => w.observed.metadata.name === self.metadata.name)
  if (index < 0) return undefined
  return {index, total: pending.length, ahead: pending.slice(0, index), source: 'computed'}
}

/**
 * When it starts, and whether a higher priority would start it sooner: Kueue preempts lower-priority workloads in
 * the ClusterQueue (lowest first, newest first) until enough is free; the smallest of xpk's classes above every
 * victim needed is the one to suggest.
 */
function preemptionAdvice(
  inputs: WhyInputs,
  self: KueueWorkload,
  holding: readonly WhyWorkload[],
  resource: string,
  short: number,
): string {
  const wait = holding.length > 0 ? 'It starts when enough of them finish' : 'It starts when the quota is free'
  if (short <= 0 || holding.length === 0) return `${wait}.`
  const victims: WhyWorkload[] = []
  let freed = 0
  for (const w of holding) {
    if (freed >= short) break
    victims.push(w)
    freed += holdingOf(w, resource)
  }
  if (freed < short) return `${wait}.`
  const top = Math.max(...victims.map((w) => priorityOf(w.observed)))
  const names = some(victims.map((w) => ownerName(w.observed)))
  if (priorityOf(self) > top)
    return `It outranks ${names}: Kueue preempts ${victims.length === 1 ? 'it' : 'them'} to make room.`
  const higher = PRIORITIES.find((p) => p.value > top)
  if (!higher) return `${wait}.`
  return `${wait}; or delete it and submit it again with --priority ${higher.name} to preempt ${names}.`
}

function admitted(inputs: WhyInputs, own: WhyWorkload, vmsNeeded: number | null): Part {
  const {pods, name, now} = inputs
  const findings: WhyFinding[] = []
  const running = pods.filter((p) => p.phase === 'Running').length
  const expected = vmsNeeded ?? pods.length
  const unschedulable = pods.filter((p) => p.unschedulable)
  let next: string | null = null
  if (unschedulable.length > 0) {
    const first = unschedulable[0]
    findings.push({
      cause: 'pods-unschedulable',
      text: `${unschedulable.length} pod${unschedulable.length === 1 ? '' : 's'} cannot be scheduled: ${first.name}: ${first.unschedulable?.message || first.unschedulable?.reason}`,
      data: {pods: unschedulable.map((p) => p.name), message: first.unschedulable?.message ?? ''},
    })
    const pools = unhealthyPools(inputs, first)
    for (const pool of pools) findings.push(pool)
    next = pools.length
      ? `Re-run xpk cluster create${clusterFlag(inputs)} (with the cluster's flags) to repair or recreate the node pool${pools.length === 1 ? '' : 's'}.`
      : 'The message above says which nodes it needs; xpk cluster describe shows the node pools and their nodes.'
  }
  const pulls = pods.flatMap((p) =>
    p.containers.filter((c) => IMAGE_PULL.has(c.waitingReason ?? '')).map((c) => ({p, c})),
  )
  if (pulls.length > 0) {
    const {p, c} = pulls[0]
    findings.push({
      cause: 'image-pull',
      text: `The image cannot be pulled (${c.waitingReason}) on ${pulls.length} pod${pulls.length === 1 ? '' : 's'}: ${c.waitingMessage ?? p.name}`,
      data: {pods: pulls.map((x) => x.p.name), reason: c.waitingReason, message: c.waitingMessage},
    })
    next ??=
      'Check the image name and that the nodes may pull it (the node service account needs Artifact Registry Reader); then delete the workload and submit it again.'
  }
  const loops = pods.flatMap((p) =>
    p.containers.filter((c) => c.waitingReason === 'CrashLoopBackOff').map((c) => ({p, c})),
  )
  if (loops.length > 0) {
    const {p, c} = loops[0]
    findings.push({
      cause: 'crash-loop',
      text: `${loops.length} container${loops.length === 1 ? ' keeps' : 's keep'} crashing: ${p.name} exited with code ${c.lastExitCode ?? '?'} and restarted ${c.restarts} time${c.restarts === 1 ? '' : 's'}.`,
      data: {pods: loops.map((x) => x.p.name), exitCode: c.lastExitCode, restarts: c.restarts},
    })
    next ??= `xpk workload logs ${name}${clusterFlag(inputs)} --slice ${p.jobIndex ?? 0} --worker ${p.completionIndex ?? 0} shows why it exits.`
  }
  const restarts = restartsFinding(inputs)
  if (restarts) findings.push(restarts)
  const admittedAt = condition(own.observed.status?.conditions, 'Admitted')?.lastTransitionTime
  const ago = msSince(now, admittedAt)
  const forHow = ago === null ? '' : ` for ${age(ago)}`
  if (running >= expected && expected > 0 && findings.length === (restarts ? 1 : 0)) {
    findings.unshift({
      cause: 'running',
      text: `Every pod is running${forHow}.`,
      data: {running, expected, seconds: ago === null ? null : ago / 1000},
    })
    return {
      headline: `RUNNING on ${running} of ${expected} VMs${forHow}.`,
      findings,
      next: `Follow it: xpk workload logs ${name}${clusterFlag(inputs)} -f.`,
    }
  }
  if (findings.length === (restarts ? 1 : 0)) {
    findings.unshift({
      cause: 'starting',
      text: `Admitted${ago === null ? '' : ` ${age(ago)} ago`}; ${running} of ${expected} pods are running, the rest are being created or started.`,
      data: {running, expected, pods: pods.length},
    })
    next = 'Pods usually start within minutes (the image is pulled on every VM); run xpk workload why again.'
  }
  const state = running > 0 ? 'RUNNING' : 'STARTING'
  return {headline: `${state} on ${running} of ${expected} VMs${forHow}.`, findings, next}
}

const IMAGE_PULL = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull'])

const POOL_SELECTORS: readonly {key: string; matches: (pool: ObservedNodePool, value: string) => boolean}[] = [
  {key: 'cloud.google.com/gke-nodepool', matches: (pool, value) => pool.name === value},
  {key: 'cloud.google.com/gke-tpu-topology', matches: (pool, value) => pool.tpuTopology === value},
  {key: 'cloud.google.com/gke-accelerator', matches: (pool, value) => pool.gpu?.type === value},
  {key: 'node.kubernetes.io/instance-type', matches: (pool, value) => pool.machineType === value},
]

/** The node pools a pod could run on (by its node selector) that are not RUNNING or have fewer ready nodes. */
function unhealthyPools(inputs: WhyInputs, pod: ObservedPod): WhyFinding[] {
  if (!inputs.nodePools) return []
  const selectors = POOL_SELECTORS.filter((s) => pod.nodeSelector[s.key] !== undefined)
  if (selectors.length === 0) return []
  const candidates = inputs.nodePools.filter((pool) => selectors.every((s) => s.matches(pool, pod.nodeSelector[s.key])))
  return candidates.flatMap((pool): WhyFinding[] => {
    const expected = pool.nodeCount * Math.max(1, pool.locations.length)
    const ready = inputs.readyNodes?.[pool.name] ?? null
    if (pool.status !== 'RUNNING') {
      return [
        {
          cause: 'node-pool-unhealthy',
          text: `Node pool ${pool.name} is ${pool.status}${pool.statusMessage ? ` (${pool.statusMessage})` : ''}.`,
          data: {nodePool: pool.name, status: pool.status, message: pool.statusMessage, ready, expected},
        },
      ]
    }
    if (ready !== null && ready < expected) {
      return [
        {
          cause: 'node-pool-unhealthy',
          text: `Node pool ${pool.name} has ${ready} of ${expected} nodes ready.`,
          data: {nodePool: pool.name, status: pool.status, message: pool.statusMessage, ready, expected},
        },
      ]
    }
    return []
  })
}
