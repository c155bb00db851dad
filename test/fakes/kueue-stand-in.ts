// A stand-in for Kueue, the JobSet controller and the kubelet over the Kubernetes fake, for the README's demo and for
// tests that want workloads to move by themselves: it makes the Workload Kueue makes for each queued JobSet, admits
// by priority against the ClusterQueue's quota, preempts lower priorities to make room, starts pods that write log
// lines, and finishes workloads after a set time, writing at each step the status objects the real controllers write
// (the shapes of test/builders/workload-states.ts). It is not a scheduler: see kueue-stand-in.md for what it does
// and what it leaves out.
import {createHash} from 'node:crypto'
import {request} from 'node:https'

import {PRIORITIES} from '../../src/core/workload/priority.js'
import type {FakeKube, Obj} from './fake-kube.js'

type Json = Record<string, unknown>

const JOBSET_API = 'jobset.x-k8s.io/v1alpha2'
const KUEUE_API = 'kueue.x-k8s.io/v1beta2'
const QUEUE_LABEL = 'kueue.x-k8s.io/queue-name'
const JOBSET_NAME_LABEL = 'jobset.sigs.k8s.io/jobset-name'
const JOB_INDEX_LABEL = 'jobset.sigs.k8s.io/job-index'
const REPLICATED_JOB_LABEL = 'jobset.sigs.k8s.io/replicatedjob-name'
const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index'
/** The accelerator and CPU resources a ClusterQueue made by `cluster create` can hold quota for. */
const QUOTA_RESOURCES = ['google.com/tpu', 'nvidia.com/gpu', 'cpu'] as const

export type Outcome = 'Succeeded' | 'Failed'

export interface KueueStandInOptions {
  /** How often the stand-in looks at the cluster when started with {@link KueueStandIn.start}. Default 50 ms. */
  readonly tickMs?: number
  /** From admission until every pod is running (PodsReady). Default 300 ms. */
  readonly startMs?: number
  /** How long a workload runs once its pods are ready, by JobSet name. Default: until deleted or preempted. */
  readonly runMs?: (jobset: string) => number
  /** How a workload that ran its time ends, by JobSet name. Default Succeeded. */
  readonly outcome?: (jobset: string) => Outcome
  /** A training-step log line per pod this often while running. Default 250 ms. */
  readonly logEveryMs?: number
  readonly now?: () => number
}

/** What the stand-in knows of one JobSet it took. */
interface Tracked {
  readonly namespace: string
  readonly jobset: string
  readonly uid: string
  readonly workload: string
  readonly workloadUid: string
  readonly priority: number
  readonly priorityName: string
  readonly created: number
  readonly demand: ReadonlyMap<string, number>
  readonly podSets: readonly PodSet[]
  state: 'pending' | 'starting' | 'running' | 'finished'
  admittedAt?: number
  readyAt?: number
  lastLogAt?: number
  /** Set by {@link KueueStandIn.finishNow}. */
  finishNow?: boolean
  step: number
  preemptions: number
  lastPreemption?: string
  pods: string[]
}

interface PodSet {
  readonly name: string
  readonly replicas: number
  readonly parallelism: number
  readonly template: Json
  readonly container: string
  readonly command: string
}

export class KueueStandIn {
  private readonly tracked = new Map<string, Tracked>()
  private timer?: NodeJS.Timeout
  private running?: Promise<void>
  private readonly now: () => number
  /** What stopped a started stand-in; {@link until} reports it. */
  private failure?: Error

  constructor(
    private readonly kube: FakeKube,
    private readonly options: KueueStandInOptions = {},
  ) {
    this.now = options.now ?? Date.now
  }

  /** A stand-in that looks at the cluster every `tickMs` until {@link stop}. */
  static start(kube: FakeKube, options: KueueStandInOptions = {}): KueueStandIn {
    const standIn = new KueueStandIn(kube, options)
    standIn.timer = setInterval(() => {
      standIn.tick().catch((err: unknown) => {
        // A stand-in that stopped making progress would leave the demo waiting for nothing: say why, once.
        clearInterval(standIn.timer)
        standIn.failure = err instanceof Error ? err : new Error(String(err))
      })
    }, options.tickMs ?? 50)
    return standIn
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.running
  }

  /** The state of each JobSet taken, by name: what a test or the demo waits for. */
  states(): Record<string, Tracked['state']> {
    return Object.fromEntries([...this.tracked.values()].map((t) => [t.jobset, t.state]))
  }

  /** Resolves once `test` holds after a tick (checked every `tickMs`); rejects after `timeoutMs`. */
  async until(test: (states: Record<string, Tracked['state']>) => boolean, timeoutMs = 10_000): Promise<void> {
    // The real clock: a test clock nobody moves must not wait forever.
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (this.failure) throw new Error(`stand-in stopped: ${this.failure.message}`, {cause: this.failure})
      await this.tick()
      if (test(this.states())) return
      if (Date.now() > deadline) throw new Error(`stand-in: still ${JSON.stringify(this.states())}`)
      await new Promise((resolve) => setTimeout(resolve, this.options.tickMs ?? 50))
    }
  }

  /**
   * Ends a workload that is running at the next look, as if its training finished now, whatever `runMs` says: for a
   * demo or test that must see it running until some other thing has happened (a wait has started watching it).
   * @throws Error when no workload of that name is running
   */
  finishNow(jobset: string): void {
    const t = [...this.tracked.values()].find((w) => w.jobset === jobset && w.state === 'running')
    if (!t) throw new Error(`stand-in: ${jobset} is not running (${JSON.stringify(this.states())})`)
    t.finishNow = true
  }

  /** One look at the cluster: takes new JobSets, forgets deleted ones, admits, starts, logs and finishes. */
  tick(): Promise<void> {
    // One pass at a time: a pass that deletes pods awaits the API and must not overlap the next.
    this.running ??= this.pass().finally(() => (this.running = undefined))
    return this.running
  }

  private async pass(): Promise<void> {
    // Nothing to do before JobSet and Kueue are installed (their CRDs applied).
    const kinds = new Set(this.kube.resourceTypes().map((t) => t.kind))
    if (!kinds.has('JobSet') || !kinds.has('Workload')) return
    const now = this.now()
    this.takeNewJobSets(now)
    await this.admit(now)
    for (const t of this.tracked.values()) {
      if (t.state === 'starting' && now >= t.readyAt!) this.podsReady(t, now)
      if (t.state !== 'running') continue
      const runMs = this.options.runMs?.(t.jobset) ?? Infinity
      if (t.finishNow || now >= t.readyAt! + runMs) this.finish(t, now)
      else if (now - t.lastLogAt! >= (this.options.logEveryMs ?? 250)) this.logStep(t, now)
    }
  }

  private takeNewJobSets(now: number): void {
    const seen = new Set<string>()
    for (const object of this.kube.list(JOBSET_API, 'JobSet')) {
      const jobset = object as {metadata: {name: string; namespace: string; uid: string; labels?: Json}; spec: Json}
      const {uid} = jobset.metadata
      seen.add(uid)
      if (this.tracked.has(uid) || !jobset.metadata.labels?.[QUEUE_LABEL]) continue
      this.tracked.set(uid, this.makeWorkload(jobset, now))
    }
    // A deleted JobSet's Workload and pods go by owner reference (the fake's garbage collector); its quota is free.
    for (const [uid] of this.tracked) if (!seen.has(uid)) this.tracked.delete(uid)
  }

  /** The Workload Kueue makes for a JobSet (one pod set per replicated job), created pending. */
  private makeWorkload(
    jobset: {metadata: {name: string; namespace: string; uid: string; labels?: Json}; spec: Json},
    now: number,
  ): Tracked {
    const {name, namespace, uid} = jobset.metadata
    const podSets = (jobset.spec.replicatedJobs as Json[]).map((r): PodSet => {
      const spec = (r.template as {spec: Json}).spec
      const template = spec.template as {spec: {containers: {name: string; command?: string[]}[]}}
      const container = template.spec.containers[0]!
      return {
        name: String(r.name),
        replicas: Number(r.replicas ?? 1),
        parallelism: Number(spec.parallelism ?? 1),
        template: template as unknown as Json,
        container: container.name,
        command: container.command?.at(-1) ?? '',
      }
    })
    const demand = new Map<string, number>()
    for (const set of podSets) {
      const containers = (set.template.spec as {containers: {resources?: {limits?: Json; requests?: Json}}[]})
        .containers
      for (const c of containers)
        for (const resource of QUOTA_RESOURCES) {
          const amount = quantity(c.resources?.limits?.[resource] ?? c.resources?.requests?.[resource] ?? 0)
          if (amount) demand.set(resource, (demand.get(resource) ?? 0) + amount * set.replicas * set.parallelism)
        }
    }
    const priorityName = String((podSets[0]?.template.spec as Json | undefined)?.priorityClassName ?? '')
    const priority = PRIORITIES.find((p) => p.name === priorityName)?.value ?? 0
    const workload = `jobset-${name}-${createHash('sha1').update(`${name}/${uid}`).digest('hex').slice(0, 5)}`
    const [created] = this.kube.seed({
      apiVersion: KUEUE_API,
      kind: 'Workload',
      metadata: {
        name: workload,
        namespace,
        labels: {'kueue.x-k8s.io/job-uid': uid},
        ownerReferences: [
          {apiVersion: JOBSET_API, kind: 'JobSet', name, uid, controller: true, blockOwnerDeletion: true},
        ],
      },
      spec: {
        active: true,
        queueName: jobset.metadata.labels?.[QUEUE_LABEL],
        ...(priorityName
          ? {priority, priorityClassRef: {group: 'scheduling.k8s.io', kind: 'PriorityClass', name: priorityName}}
          : {}),
        podSets: podSets.map((s) => ({name: s.name, count: s.replicas * s.parallelism, template: s.template})),
      },
    })
    const t: Tracked = {
      namespace,
      jobset: name,
      uid,
      workload,
      workloadUid: String((created!.metadata as {uid: string}).uid),
      priority,
      priorityName,
      created: now,
      demand,
      podSets,
      state: 'pending',
      step: 0,
      preemptions: 0,
      pods: [],
    }
    this.setJobSetStatus(t, {
      conditions: [condition('Suspended', 'True', 'SuspendedJobs', 'jobset is suspended', now)],
      replicatedJobsStatus: this.replicated(t, {suspended: 'replicas'}),
      restarts: 0,
    })
    return t
  }

  /**
   * Kueue's admission, simplified: pending workloads by priority then age; each is admitted when it fits the unused
   * quota, or when preempting strictly lower priorities (lowest first, newest first) makes it fit
   * (`withinClusterQueue: LowerPriority`); otherwise it stays pending saying what is missing.
   */
  private async admit(now: number): Promise<void> {
    const quota = this.quota()
    const holding = () => [...this.tracked.values()].filter((t) => t.state === 'starting' || t.state === 'running')
    const used = (resource: string) => holding().reduce((sum, t) => sum + (t.demand.get(resource) ?? 0), 0)
    const pending = [...this.tracked.values()]
      .filter((t) => t.state === 'pending')
      .sort((a, b) => b.priority - a.priority || a.created - b.created)
    for (const t of pending) {
      const short = (extra: Iterable<Tracked> = []) => {
        const freed = [...extra]
        for (const [resource, amount] of t.demand) {
          const free = (quota?.nominal.get(resource) ?? 0) - used(resource)
          const more = amount - free - freed.reduce((sum, v) => sum + (v.demand.get(resource) ?? 0), 0)
          if (more > 0) return {resource, more}
        }
        return undefined
      }
      if (quota && !short()) {
        this.admitOne(t, quota.flavor, now)
        continue
      }
      const victims: Tracked[] = []
      const candidates = holding()
        .filter((v) => v.priority < t.priority)
        .sort((a, b) => a.priority - b.priority || b.admittedAt! - a.admittedAt!)
      for (const v of candidates) {
        if (!short(victims)) break
        victims.push(v)
      }
      if (quota && victims.length > 0 && !short(victims)) {
        for (const v of victims) await this.preempt(v, t, now)
        this.admitOne(t, quota.flavor, now)
        continue
      }
      const missing = short()
      const message = !quota
        ? "ClusterQueue cluster-queue doesn't exist"
        : `couldn't assign flavors to pod set ${t.podSets[0]?.name}: insufficient unused quota for ${missing?.resource} in flavor ${quota.flavor}, ${missing?.more} more needed`
      this.setWorkloadCondition(t, condition('QuotaReserved', 'False', 'Pending', message, now))
    }
  }

  private quota(): {flavor: string; nominal: Map<string, number>} | undefined {
    const queue = this.kube.list(KUEUE_API, 'ClusterQueue').find((q) => name(q) === 'cluster-queue') as
      | {spec: {resourceGroups?: {flavors: {name: string; resources: {name: string; nominalQuota: unknown}[]}[]}[]}}
      | undefined
    const flavor = queue?.spec.resourceGroups?.[0]?.flavors[0]
    if (!flavor) return undefined
    return {flavor: flavor.name, nominal: new Map(flavor.resources.map((r) => [r.name, quantity(r.nominalQuota)]))}
  }

  private admitOne(t: Tracked, flavor: string, now: number): void {
    t.state = 'starting'
    t.admittedAt = now
    t.readyAt = now + (this.options.startMs ?? 300)
    const readmitted = t.preemptions > 0
    const previously = `Previously: ${t.lastPreemption}`
    this.setWorkloadStatus(t, {
      conditions: [
        condition('QuotaReserved', 'True', 'QuotaReserved', 'Quota reserved in ClusterQueue cluster-queue', now),
        condition('Admitted', 'True', 'Admitted', 'The workload is admitted', now),
        condition('PodsReady', 'False', 'WaitForStart', 'Not all pods are ready or succeeded', now),
        ...(readmitted
          ? [
              condition('Evicted', 'False', 'QuotaReserved', previously, now),
              condition('Preempted', 'False', 'QuotaReserved', previously, now),
              condition('Requeued', 'True', 'Preempted', t.lastPreemption!, now),
            ]
          : []),
      ],
      admission: {
        clusterQueue: 'cluster-queue',
        podSetAssignments: t.podSets.map((s) => ({
          name: s.name,
          count: s.replicas * s.parallelism,
          flavors: Object.fromEntries([...t.demand.keys()].map((r) => [r, flavor])),
          resourceUsage: Object.fromEntries([...t.demand].map(([r, amount]) => [r, String(amount)])),
        })),
      },
      ...(readmitted ? {schedulingStats: evictions(t.preemptions)} : {}),
    })
    this.setJobSetStatus(t, {
      conditions: [condition('Suspended', 'False', 'ResumeJobs', 'jobset is resumed', now)],
      replicatedJobsStatus: this.replicated(t, {active: 'replicas'}),
      restarts: 0,
    })
    t.pods = []
    for (const set of t.podSets)
      for (let job = 0; job < set.replicas; job++)
        for (let index = 0; index < set.parallelism; index++) t.pods.push(this.makePod(t, set, job, index))
  }

  private makePod(t: Tracked, set: PodSet, job: number, index: number): string {
    const suffix = createHash('sha1').update(`${t.uid}/${set.name}/${job}/${index}/${t.preemptions}`).digest('hex')
    const pod = `${t.jobset}-${set.name}-${job}-${index}-${suffix.slice(0, 5)}`
    const template = set.template as {metadata?: {labels?: Json}; spec: Json}
    this.kube.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: pod,
        namespace: t.namespace,
        labels: {
          ...template.metadata?.labels,
          [JOBSET_NAME_LABEL]: t.jobset,
          [REPLICATED_JOB_LABEL]: set.name,
          [JOB_INDEX_LABEL]: String(job),
          [COMPLETION_INDEX]: String(index),
        },
        annotations: {[JOB_INDEX_LABEL]: String(job), [COMPLETION_INDEX]: String(index)},
        ownerReferences: [{apiVersion: JOBSET_API, kind: 'JobSet', name: t.jobset, uid: t.uid, controller: true}],
      },
      spec: template.spec,
    })
    this.kube.setStatus(podRef(t, pod), {phase: 'Pending'})
    return pod
  }

  private podsReady(t: Tracked, now: number): void {
    t.state = 'running'
    t.lastLogAt = now
    for (const pod of t.pods) {
      this.kube.setStatus(podRef(t, pod), {
        phase: 'Running',
        startTime: kubeTime(now),
        conditions: [{type: 'Ready', status: 'True', lastTransitionTime: kubeTime(now)}],
      })
      const set = t.podSets.find((s) => pod.startsWith(`${t.jobset}-${s.name}-`))!
      this.kube.setPodLog(
        t.namespace,
        pod,
        `XPK Start: ${new Date(now).toUTCString()}\n` +
          `[kueue stand-in] the demo runs no containers; \`${set.command}\` would start here\n`,
        set.container,
      )
    }
    this.setWorkloadCondition(
      t,
      condition('PodsReady', 'True', 'PodsReady', 'All pods reached readiness and the workload is running', now),
    )
    this.setJobSetStatus(t, {
      conditions: [condition('Suspended', 'False', 'ResumeJobs', 'jobset is resumed', t.admittedAt!)],
      replicatedJobsStatus: this.replicated(t, {active: 'replicas', ready: 'replicas'}),
      restarts: 0,
    })
  }

  private logStep(t: Tracked, now: number): void {
    t.lastLogAt = now
    t.step += 100
    const loss = (2.6 * Math.exp(-t.step / 1500) + 0.9).toFixed(3)
    for (const pod of t.pods) {
      const set = t.podSets.find((s) => pod.startsWith(`${t.jobset}-${s.name}-`))!
      this.kube.appendPodLog(t.namespace, pod, `step ${t.step}: loss ${loss}\n`, set.container)
    }
  }

  private finish(t: Tracked, now: number): void {
    const outcome = this.options.outcome?.(t.jobset) ?? 'Succeeded'
    const code = outcome === 'Succeeded' ? 0 : 1
    t.state = 'finished'
    for (const pod of t.pods) {
      const set = t.podSets.find((s) => pod.startsWith(`${t.jobset}-${s.name}-`))!
      this.kube.appendPodLog(
        t.namespace,
        pod,
        `XPK End: ${new Date(now).toUTCString()}\nEXIT_CODE=${code}\n`,
        set.container,
      )
      this.kube.endPodLog(t.namespace, pod, set.container)
      this.kube.setStatus(podRef(t, pod), (status) => ({...status, phase: outcome}))
    }
    const message =
      outcome === 'Succeeded' ? 'jobset completed successfully' : 'jobset failed due to reaching max number of restarts'
    this.setWorkloadCondition(t, condition('Finished', 'True', outcome, message, now))
    // Kueue counts the pods that succeeded as reclaimable: `workload list`'s Done column.
    if (outcome === 'Succeeded')
      this.kube.setStatus(workloadRef(t), (status) => ({
        ...status,
        reclaimablePods: t.podSets.map((s) => ({name: s.name, count: s.replicas * s.parallelism})),
      }))
    this.setJobSetStatus(t, {
      conditions: [
        condition('Suspended', 'False', 'ResumeJobs', 'jobset is resumed', t.admittedAt!),
        outcome === 'Succeeded'
          ? condition('Completed', 'True', 'AllJobsCompleted', message, now)
          : condition('Failed', 'True', 'ReachedMaxRestarts', message, now),
      ],
      replicatedJobsStatus: this.replicated(t, outcome === 'Succeeded' ? {succeeded: 'replicas'} : {failed: 'one'}),
      restarts: 0,
      terminalState: outcome === 'Succeeded' ? 'Completed' : 'Failed',
    })
  }

  /** Evicts `victim` for `by`: quota released, back in the queue at once, its pods deleted (the JobSet suspended). */
  private async preempt(victim: Tracked, by: Tracked, now: number): Promise<void> {
    const message = `Preempted to accommodate a workload (UID: ${by.workloadUid}, JobUID: ${by.uid}) due to prioritization in the ClusterQueue`
    victim.state = 'pending'
    victim.preemptions += 1
    victim.lastPreemption = message
    this.setWorkloadStatus(victim, {
      conditions: [
        condition('QuotaReserved', 'False', 'Pending', message, now),
        condition('Admitted', 'False', 'NoReservation', 'The workload has no reservation', now),
        condition('PodsReady', 'False', 'Preempted', message, now),
        condition('Evicted', 'True', 'Preempted', message, now),
        condition('Preempted', 'True', 'InClusterQueue', message, now),
        condition('Requeued', 'True', 'Preempted', message, now),
      ],
      schedulingStats: evictions(victim.preemptions),
    })
    this.setJobSetStatus(victim, {
      conditions: [condition('Suspended', 'True', 'SuspendedJobs', 'jobset is suspended', now)],
      replicatedJobsStatus: this.replicated(victim, {suspended: 'replicas'}),
      restarts: 0,
    })
    for (const pod of victim.pods) {
      const set = victim.podSets.find((s) => pod.startsWith(`${victim.jobset}-${s.name}-`))!
      this.kube.endPodLog(victim.namespace, pod, set.container)
    }
    victim.pods = []
    await this.deletePods(victim)
  }

  /** Deletes a JobSet's pods through the API (the fake has no in-process delete), as the Job controller would. */
  private deletePods(t: Tracked): Promise<void> {
    const selector = encodeURIComponent(`${JOBSET_NAME_LABEL}=${t.jobset}`)
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.kube.url}/api/v1/namespaces/${t.namespace}/pods?labelSelector=${selector}`,
        {method: 'DELETE', ca: this.kube.caPem, headers: {authorization: `Bearer ${this.kube.token}`}},
        (res) => {
          res.resume()
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`stand-in: deleting pods: ${res.statusCode}`)),
          )
        },
      )
      req.on('error', reject)
      req.end()
    })
  }

  private replicated(t: Tracked, counts: Record<string, 'replicas' | 'one'>): Json[] {
    return t.podSets.map((s) => ({
      name: s.name,
      ready: 0,
      succeeded: 0,
      failed: 0,
      active: 0,
      suspended: 0,
      ...Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v === 'one' ? 1 : s.replicas])),
    }))
  }

  private setJobSetStatus(t: Tracked, status: Json): void {
    this.kube.setStatus({apiVersion: JOBSET_API, kind: 'JobSet', namespace: t.namespace, name: t.jobset}, status)
  }

  private setWorkloadStatus(t: Tracked, status: Json): void {
    this.kube.setStatus(workloadRef(t), status)
  }

  /** Replaces one condition, keeping the others (and the eviction history of a preempted workload); no write when
   * the condition says what it said. */
  private setWorkloadCondition(t: Tracked, next: Json): void {
    this.kube.setStatus(workloadRef(t), (status) => {
      const conditions = ((status.conditions as Json[] | undefined) ?? []).filter((c) => c.type !== next.type)
      const same = ((status.conditions as Json[] | undefined) ?? []).find((c) => c.type === next.type)
      if (same && same.status === next.status && same.reason === next.reason && same.message === next.message)
        return status
      return {...status, conditions: [...conditions, next]}
    })
  }
}

function condition(type: string, status: 'True' | 'False', reason: string, message: string, now: number): Json {
  return {type, status, reason, message, lastTransitionTime: kubeTime(now)}
}

/** RFC 3339 in whole seconds, as the API server writes times. */
function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

function evictions(count: number): Json {
  return {evictions: [{reason: 'Preempted', underlyingCause: 'InClusterQueue', count}]}
}

/** A Kubernetes quantity as a number: 4, "4", "500m". */
function quantity(value: unknown): number {
  const text = String(value)
  return text.endsWith('m') ? Number.parseFloat(text) / 1000 : Number.parseFloat(text)
}

function name(object: Obj): string {
  return String((object.metadata as {name?: string} | undefined)?.name)
}

function podRef(t: Tracked, pod: string) {
  return {apiVersion: 'v1', kind: 'Pod', namespace: t.namespace, name: pod}
}

function workloadRef(t: Tracked) {
  return {apiVersion: KUEUE_API, kind: 'Workload', namespace: t.namespace, name: t.workload}
}
