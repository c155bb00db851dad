import {ApiError, UsageError, XpkError} from '../core/errors.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import {
  workloadLogsEnded,
  workloadLogsGone,
  workloadLogsReading,
  workloadLogsReconnected,
  workloadLogsRestarted,
  workloadLogsStarted,
  workloadLogsUnreadable,
  workloadLogsWaiting,
} from '../core/messages/workload.js'
import type {Timing} from '../core/timing.js'
import {JOBSET_NAME_LABEL, jobSetRef} from '../core/workload/jobsets.js'
import {headLogsUrl, workerLogsUrl} from '../core/workload/links.js'
import {
  followEnd,
  LogLines,
  nextContainer,
  placeText,
  podPrefix,
  readFollowedPod,
  reopenAsked,
  samePlace,
  selectPods,
  stillRunning,
  workloadLogsInputFromFlags,
  type FollowedPod,
  type FollowEnd,
  type LogPlace,
  type NextContainer,
  type WorkloadLogsFlags,
  type WorkloadLogsInput,
} from '../core/workload/logs.js'
import {isPathwaysJobSet, PATHWAYS_HEAD_JOB} from '../core/workload/pathways.js'
import {Reopening, withRetries, type Clock, type RetryOptions, type RetryPolicy} from '../executor/retry.js'
import {followChanges} from '../executor/watch.js'
import type {Console} from '../ports/console.js'
import type {KubeClient, KubeLogOptions, KubeObject} from '../ports/kube.js'
import {checkInput, listAll, reachCluster, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

export interface WorkloadLogsOptions extends WorkloadTarget, WorkloadLogsFlags {
  /** Retries of every read (timing.retry). */
  readonly timing: Pick<Timing, 'retry'>
}

export interface WorkloadLogsDeps extends ClusterAccessDeps {
  readonly console: Console
}

/** Where a pod sits, and the Cloud Logging query for it (null when the cluster was reached through a kubeconfig). */
export interface MissingPod extends LogPlace {
  readonly logs: string | null
}

/** A pod read, where it sits, and the lines it gave. */
export interface ReadPod extends LogPlace {
  readonly name: string
  lines: number
}

export interface WorkloadLogsResult {
  readonly workload: string
  /** The pods read, each with the lines it gave. */
  readonly pods: readonly ReadPod[]
  /** The places asked for that had no pod (or whose pod went while being read). */
  readonly gone: readonly MissingPod[]
  /**
   * With --follow, each time a place's log went on in another container, in order: a new pod the JobSet made for the
   * place (`pod`), the pod's restarted container (`container`, restartCount its restartCount), or the first container
   * of a pod whose log could not be read before it started (`started`).
   */
  readonly restarts: readonly {
    readonly head?: boolean
    readonly slice: number
    readonly worker: number
    readonly pod: string
    readonly why: NextContainer['why']
    readonly restartCount: number
  }[]
}

/**
 * `xpk workload logs NAME`: the container log of one pod of the workload (worker 0 of slice 0 unless told), or with
 * `--all` of every pod, each line prefixed with where it comes from, as the lines arrive. On a Pathways workload
 * `--slice`/`--worker` pick among its workers and `--head` reads its head's pod (its first container: the user's,
 * or in a headless workload the proxy's); `--all` reads the head too. The pods come from one
 * list by label selector. A place with no pod is a note with the Cloud Logging query that still has its logs.
 * With `--follow`, a place's log goes on in the container that comes after the one followed: the same pod's
 * container once it restarts, or the new pod a JobSet restart makes for the place (seen by a watch of the
 * workload's pods), each with a note; a place with no pod (a JobSet restart deleted it and has not made the new
 * one yet) waits for its new pod. A followed stream cut short while its container still runs (an idle connection
 * closed, a reset, the kubelet's streaming timeout) is read on from its last line (asked with timestamps, so
 * nothing is printed twice). Following stops when the JobSet has completed, failed or been deleted, or on Ctrl-C
 * (`deps.signal`); a watch that fails for good ends every stream at once and is the command's error.
 * @throws UsageErrors for bad input, before any request, and for a --slice/--worker outside the workload's shape;
 * XpkError `not-found` when the workload does not exist
 */
export async function workloadLogs(options: WorkloadLogsOptions, deps: WorkloadLogsDeps): Promise<WorkloadLogsResult> {
  const input = checkInput(options, () => workloadLogsInputFromFlags(options))
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube, gke} = await reachCluster(options, deps, retry)
  const {console} = deps
  const name = input.workload
  const [jobset, podObjects] = await Promise.all([
    withRetries(() => kube.get(jobSetRef(name)), retry),
    listAll(kube, 'v1', 'Pod', {namespace: XPK_NAMESPACE, labelSelector: `${JOBSET_NAME_LABEL}=${name}`}, retry),
  ])
  if (!jobset) {
    throw new XpkError('not-found', `Workload ${name} does not exist in namespace ${XPK_NAMESPACE}.`, {
      hints: ['`xpk workload list` shows the workloads of the cluster.'],
    })
  }
  const pathways = isPathwaysJobSet(jobset)
  const shape = jobSetShape(jobset)
  const {select} = input
  if (!select.all && select.head && !pathways) {
    throw new UsageError(
      `--head reads a Pathways workload's head, and workload ${name} is not a Pathways workload: ` +
        'it has no Pathways head.',
      {
        flag: '--head',
        hints: ['Leave out --head: --slice/--worker read one of its pods, --all every one.'],
      },
    )
  }
  if (!select.all && !select.head && (select.slice >= shape.slices || select.worker >= shape.workers)) {
    throw new UsageError(
      `Workload ${name} has ${plural(shape.slices, 'slice')} of ${plural(shape.workers, 'worker')}: ` +
        `there is no slice ${select.slice}, worker ${select.worker}.`,
      {
        flag: select.slice >= shape.slices ? '--slice' : '--worker',
        hints: ['Slices and workers count from 0; --all reads every pod.'],
      },
    )
  }
  const pods = selectPods(
    podObjects.map((pod) => readFollowedPod(pod)).filter((pod): pod is FollowedPod => pod !== undefined),
    select,
  )
  const link = (place: LogPlace): string | null => {
    if (!gke || !options.cluster) return null
    const where = {...gke, cluster: options.cluster, workload: name}
    return place.head ? headLogsUrl(where) : workerLogsUrl(where, place.slice, place.worker, pathways)
  }
  const gone: MissingPod[] = []
  const sayGone = (place: LogPlace, why: string) => {
    const logs = link(place)
    gone.push({...at(place), logs})
    console.warn(workloadLogsGone({workload: name, ...at(place), why, logs}))
  }
  const head: LogPlace = {head: true, slice: 0, worker: 0}
  const wanted: LogPlace[] = select.all
    ? [...(pathways ? [head] : []), ...places(shape)]
    : select.head
      ? [head]
      : [{slice: select.slice, worker: select.worker}]
  const missing = wanted.filter((w) => !pods.some((p) => samePlace(p, w)))
  // Without --follow, or when the workload is done, a place with no pod is a note now; with it, the place waits
  // for a pod (a JobSet restart deleted its pod and has not made the new one yet; the note comes if following
  // ends with none).
  const waitForPods = input.follow && !followEnd(jobset)
  if (!waitForPods) {
    for (const w of missing) sayGone(w, noPod(name, w))
  }
  // Pods outside the shape the JobSet says (it was changed, or another tool made them) are read too.
  console.info(workloadLogsReading({workload: name, pods: pods.map((p) => p.name), follow: input.follow}))
  // Ends every stream still open when the command fails (one pod's error, a watch failing for good).
  const stop = new AbortController()
  // While following, an API server that stops answering for a while (restarting, upgraded) is retried until
  // following ends (Ctrl-C): only the first reads give up after the policy's attempts.
  const follow = input.follow
    ? new WorkloadFollow(kube, name, {...retry, untilAborted: true}, (error) => stop.abort(error))
    : undefined
  const place: PlaceReader = {
    kube,
    input,
    console,
    clock: deps,
    policy: options.timing.retry,
    follow,
    signal: AbortSignal.any([deps.signal, stop.signal]),
    restarts: [],
    sayGone,
  }
  try {
    const read = await Promise.all([
      ...pods.map((first) => readPlace(place, first, first)),
      ...(waitForPods ? missing.map((w) => readPlace(place, w, undefined)) : []),
    ])
    // A watch that failed for good is the command's error, whatever the streams it ended said.
    follow?.throwIfFailed()
    const ended = follow?.ended()
    if (ended && !deps.signal.aborted) {
      console.info(workloadLogsEnded({workload: name, end: ended}))
    }
    return {workload: name, pods: read.flat(), gone, restarts: place.restarts}
  } catch (error) {
    follow?.throwIfFailed()
    throw error
  } finally {
    stop.abort()
    follow?.close()
  }
}

function noPod(workload: string, place: LogPlace): string {
  return `Workload ${workload} has no pod for ${placeText(place)}.`
}

/** What reading the pods of the places shares. */
interface PlaceReader {
  readonly kube: KubeClient
  readonly input: WorkloadLogsInput
  readonly console: Console
  readonly clock: Clock
  readonly policy: RetryPolicy
  /** Set with --follow. */
  readonly follow: WorkloadFollow | undefined
  readonly signal: AbortSignal
  readonly restarts: WorkloadLogsResult['restarts'][number][]
  readonly sayGone: (place: LogPlace, why: string) => void
}

/**
 * Reads the log of one place's pod `first`; with --follow, goes on in each container that comes next in the place
 * (the pod's restarted container, a new pod a JobSet restart made), saying so, until following is over. A place
 * with no pod (`first` undefined, or its pod gone before its log was read) waits for one with --follow. Returns
 * the lines read per pod.
 */
async function readPlace(reader: PlaceReader, place: LogPlace, first: FollowedPod | undefined): Promise<ReadPod[]> {
  const {input, console, follow, signal} = reader
  const workload = input.workload
  const prefix = input.select.all ? podPrefix(place) : ''
  const counts = new Map<string, number>()
  const readPod = async (pod: FollowedPod, next: boolean): Promise<ReadOutcome> => {
    counts.set(pod.name, counts.get(pod.name) ?? 0)
    const outcome = await readContainer(reader, pod, next, prefix, (lines) =>
      counts.set(pod.name, (counts.get(pod.name) ?? 0) + lines),
    )
    if ('error' in outcome) {
      // With --all, a pod whose log the server will not give yet (400: its container has not started) is a note,
      // so the others go on being read; its lines so far stay printed. So is a container followed into after a
      // restart. Any other failure, or one pod asked for by place, is the command's error.
      const {error} = outcome
      const tolerated = input.select.all || next
      if (!tolerated || !(error instanceof ApiError) || error.status !== 'INVALID_ARGUMENT') throw error
      console.warn(workloadLogsUnreadable({...at(pod), pod: pod.name, cause: error.message}))
      return 'unreadable'
    }
    if (outcome.outcome === 'absent' && outcome.lines === 0) {
      counts.delete(pod.name)
      return 'absent'
    }
    return 'read'
  }
  /** Whether a pod of the place has been read (or found unreadable): the place is not gone. */
  let found = false
  let goneWhy: string | undefined
  const goneOrWait = (why: string) => {
    // Without --follow, or once the workload is done, the place is gone; else its next pod is waited for (and
    // the place is said gone if following ends without one).
    if (!follow || follow.ended() || signal.aborted) {
      goneWhy = undefined
      return reader.sayGone(place, why)
    }
    goneWhy = why
    console.info(workloadLogsWaiting({workload, ...at(place), why}))
  }
  let current: FollowedPod
  if (first) {
    // A first container that could not be read is followed once it starts; one that was read, once it restarts.
    const outcome = await readPod(first, false)
    current = {...first, started: outcome !== 'unreadable'}
    if (outcome === 'absent') goneOrWait(`Pod ${first.name} (${placeText(first)}) is gone.`)
    else found = true
  } else {
    // No pod yet: any pod of the place that runs is the one to follow.
    current = {...place, name: '', created: '', restarts: 0, started: true, running: false, terminating: false}
    goneOrWait(noPod(workload, place))
  }
  const seen = new Set(first ? [first.name] : [])
  while (follow && !signal.aborted) {
    const next = await follow.next(current, seen)
    if (!next) break
    const {pod} = next
    seen.add(pod.name)
    reader.restarts.push({
      ...at(pod),
      pod: pod.name,
      why: next.why,
      restartCount: pod.restarts,
    })
    if (next.why === 'started') console.info(workloadLogsStarted({workload, next}))
    else console.warn(workloadLogsRestarted({workload, next}))
    const outcome = await readPod(pod, true)
    if (outcome !== 'absent') {
      found = true
      goneWhy = undefined
    }
    // Even when its log would not come after all (400), this container is done with: the next one is waited for.
    current = pod
  }
  // Following ended (or there was none) without any pod of the place read: it is gone.
  if (!found && goneWhy !== undefined && !signal.aborted) reader.sayGone(place, goneWhy)
  return [...counts].map(([name, lines]) => ({name, ...at(place), lines}))
}

/** A place as results and messages give it: `head: true` only for the Pathways head. */
function at(place: LogPlace): LogPlace {
  return {...(place.head ? {head: true} : {}), slice: place.slice, worker: place.worker}
}

type ReadOutcome = 'read' | 'absent' | 'unreadable'

/**
 * Reads one container's log (`next`: a container followed into, read whole), printing each whole line as it
 * arrives (with `prefix`); a line split across pieces of the stream is printed once whole, so lines of one pod
 * stay whole and in order however many pods write at once. With --follow, a stream that ends while the container
 * still runs is reopened from its last line (see {@link LogLines}), with a note once lines come again; reopened
 * streams that keep ending at once with nothing new (the kubelet's status lagging behind an exit) are spaced out
 * by the retry policy's backoff. A failure is returned with the lines printed before it.
 */
async function readContainer(
  reader: PlaceReader,
  pod: FollowedPod,
  next: boolean,
  prefix: string,
  counted: (lines: number) => void,
): Promise<{lines: number; outcome: 'ended' | 'absent'} | {lines: number; error: unknown}> {
  const {kube, input, console, follow, signal, clock} = reader
  const asked: Pick<KubeLogOptions, 'tailLines' | 'sinceSeconds'> = {
    ...(next || input.tailLines === undefined ? {} : {tailLines: input.tailLines}),
    ...(next || input.sinceSeconds === undefined ? {} : {sinceSeconds: input.sinceSeconds}),
  }
  const lines = new LogLines(input.follow)
  let printed = 0
  /** Said once the first line of a reopened stream is printed. */
  let reconnected: (() => void) | undefined
  const print = (whole: string[]) => {
    if (whole.length === 0) return
    reconnected?.()
    reconnected = undefined
    for (const line of whole) console.result(`${prefix}${line}`)
    printed += whole.length
    counted(whole.length)
  }
  const opened = clock.now()
  let options: Omit<KubeLogOptions, 'signal'> = {...asked, ...(input.follow ? {follow: true, timestamps: true} : {})}
  const reopening = new Reopening({policy: reader.policy, clock, signal})
  for (;;) {
    const started = clock.now()
    const before = printed
    let outcome: 'ended' | 'absent'
    try {
      // A stream that cannot be opened goes through the retry policy (one cut short once open resolves, and is
      // reopened below): following, until following ends.
      outcome = await withRetries(
        () =>
          kube.logs(
            XPK_NAMESPACE,
            pod.name,
            {...(pod.container ? {container: pod.container} : {}), ...options, signal},
            (text) => print(lines.push(text)),
          ),
        {policy: reader.policy, clock, signal, untilAborted: input.follow},
      )
    } catch (error) {
      print(lines.flush())
      // Ctrl-C (or another stream's failure) ends the stream as it ends the others: what came is kept.
      if (signal.aborted) return {lines: printed, outcome: 'ended'}
      return {lines: printed, error}
    }
    if (outcome === 'absent' || !follow || signal.aborted || !(await follow.stillRunning(pod))) {
      print(lines.flush())
      return {lines: printed, outcome}
    }
    try {
      await reopening.ended(started, printed > before)
    } catch {
      print(lines.flush())
      return {lines: printed, outcome}
    }
    const sinceTime = lines.reopen()
    const from = reopenAsked(asked, sinceTime, clock.now() - opened)
    options = {follow: true, timestamps: true, ...from}
    reconnected ??= () =>
      console.info(
        workloadLogsReconnected({
          workload: input.workload,
          ...at(pod),
          pod: pod.name,
          sinceTime,
        }),
      )
  }
}

/**
 * What `--follow` watches once a followed log ends: the workload's pods (one watch by the jobset-name label, for
 * every place) and its JobSet (one watch by name), started when first needed and stopped by {@link close}. A
 * place's next container is the same pod's restarted container or a new pod the JobSet made for the place;
 * following stops when the JobSet has completed, failed or gone, or on Ctrl-C.
 */
class WorkloadFollow {
  private readonly pods = new Map<string, FollowedPod>()
  private end: FollowEnd | undefined
  private failure: unknown
  private readonly waiters = new Set<() => void>()
  private started: Promise<void> | undefined
  private lastLook: Promise<FollowedPod[]> | undefined
  private readonly stop = new AbortController()
  private readonly signal: AbortSignal

  /**
   * @param onFailure told at once when a watch fails for good (to end every stream: the failure is the command's
   *   error, see {@link throwIfFailed})
   */
  constructor(
    private readonly kube: KubeClient,
    private readonly name: string,
    private readonly retry: RetryOptions,
    private readonly onFailure: (error: unknown) => void,
  ) {
    this.signal = AbortSignal.any([retry.signal, this.stop.signal])
    this.signal.addEventListener('abort', () => this.changed(), {once: true})
  }

  /** How following ended, once it has. */
  ended(): FollowEnd | undefined {
    return this.end
  }

  /**
   * The container to follow after `current`'s log ended (`seen`: the pods of its place read so far), waiting for
   * one; undefined when following is over (the workload is done, or Ctrl-C).
   * @throws what the watches fail with for good
   */
  async next(current: FollowedPod, seen: ReadonlySet<string>): Promise<NextContainer | undefined> {
    try {
      return await this.wait(current, seen)
    } catch (error) {
      // Ctrl-C during a request ends following like Ctrl-C during a wait: cleanly.
      if (this.retry.signal.aborted) return undefined
      this.throwIfFailed()
      throw error
    }
  }

  /**
   * Whether the container of `pod` that was read still runs (the same restartCount, not terminated, the pod not
   * being deleted), asked of the API server when its followed log ended: then the log was cut short, not ended.
   * False once following is over.
   * @throws what the watches fail with for good
   */
  async stillRunning(pod: FollowedPod): Promise<boolean> {
    try {
      await (this.started ??= this.start())
      this.throwIfFailed()
      if (this.end || this.signal.aborted) return false
      const {kube, retry} = this
      const ref = {apiVersion: 'v1', kind: 'Pod', namespace: XPK_NAMESPACE, name: pod.name}
      const object = await withRetries(() => kube.get(ref), {...retry, signal: this.signal})
      return stillRunning(pod, object ? readFollowedPod(object) : undefined)
    } catch (error) {
      if (this.retry.signal.aborted) return false
      this.throwIfFailed()
      throw error
    }
  }

  /** @throws what a watch failed with for good, if one did */
  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure
  }

  close(): void {
    this.stop.abort()
  }

  private async wait(current: FollowedPod, seen: ReadonlySet<string>): Promise<NextContainer | undefined> {
    await (this.started ??= this.start())
    for (;;) {
      if (this.failure !== undefined) throw this.failure
      if (this.signal.aborted) return undefined
      const found = nextContainer(current, seen, this.pods.values())
      if (found) return found
      if (this.end) {
        // The JobSet is done. One look at its pods as they are now, for a container the watch has not shown yet.
        this.lastLook ??= this.listPods()
        return nextContainer(current, seen, await this.lastLook)
      }
      await new Promise<void>((resolve) => {
        const waiter = () => {
          this.waiters.delete(waiter)
          resolve()
        }
        this.waiters.add(waiter)
      })
    }
  }

  private changed(): void {
    for (const waiter of [...this.waiters]) waiter()
  }

  private async start(): Promise<void> {
    const {kube, name, retry} = this
    const ref = jobSetRef(name)
    const jobset = await withRetries(() => kube.get(ref), retry)
    this.end = followEnd(jobset)
    if (!jobset || this.end) return
    const uid = jobset.metadata.uid
    const options = {...retry, signal: this.signal, namespace: XPK_NAMESPACE}
    // After a 410 the watches start over, the current objects coming again as ADDED: whatever does not come again
    // was deleted while no watch was open (no DELETED says so).
    let jobsetAgain: boolean | undefined
    this.keep(
      followChanges(
        kube,
        {
          ...options,
          apiVersion: ref.apiVersion,
          kind: ref.kind,
          fieldSelector: `metadata.name=${name}`,
          resourceVersion: jobset.metadata.resourceVersion as string | undefined,
          onRelist: (phase) => {
            if (phase === 'start') jobsetAgain = false
            else {
              if (jobsetAgain === false) this.end ??= 'deleted'
              jobsetAgain = undefined
              if (this.end) this.changed()
            }
          },
        },
        (change) => {
          if (jobsetAgain !== undefined && change.type === 'ADDED') jobsetAgain = true
          // A JobSet of the same name made since is another workload: this one was deleted.
          const gone = change.type === 'DELETED' || (uid !== undefined && change.object.metadata.uid !== uid)
          this.end ??= gone ? 'deleted' : followEnd(change.object)
          if (this.end) this.changed()
        },
      ),
    )
    let podsAgain: Set<string> | undefined
    this.keep(
      followChanges(
        kube,
        {
          ...options,
          apiVersion: 'v1',
          kind: 'Pod',
          labelSelector: `${JOBSET_NAME_LABEL}=${name}`,
          onRelist: (phase) => {
            if (phase === 'start') podsAgain = new Set()
            else {
              const again = podsAgain ?? new Set()
              for (const pod of [...this.pods.keys()]) if (!again.has(pod)) this.pods.delete(pod)
              podsAgain = undefined
              this.changed()
            }
          },
        },
        (change) => {
          podsAgain?.add(change.object.metadata.name)
          const pod = readFollowedPod(change.object)
          if (!pod) return
          if (change.type === 'DELETED') this.pods.delete(pod.name)
          else this.pods.set(pod.name, pod)
          this.changed()
        },
      ),
    )
  }

  /** A watch that fails for good fails the waits; one stopped by {@link close} or Ctrl-C is over. */
  private keep(watching: Promise<never>): void {
    watching.catch((error: unknown) => {
      if (this.signal.aborted) return
      this.failure = error
      this.stop.abort()
      this.changed()
      this.onFailure(error)
    })
  }

  private async listPods(): Promise<FollowedPod[]> {
    const {kube, name, retry} = this
    const objects = await listAll(
      kube,
      'v1',
      'Pod',
      {namespace: XPK_NAMESPACE, labelSelector: `${JOBSET_NAME_LABEL}=${name}`},
      retry,
    )
    return objects.map((pod) => readFollowedPod(pod)).filter((pod): pod is FollowedPod => pod !== undefined)
  }
}

/**
 * Slices (the replicas of its replicated Jobs) and workers per slice (a Job's parallelism) of an xpk JobSet; of a
 * Pathways JobSet, those of its workers (its head is the one pod of its own replicated Job).
 */
function jobSetShape(jobset: KubeObject): {slices: number; workers: number} {
  const jobs = (
    ((jobset.spec as {replicatedJobs?: unknown[]} | undefined)?.replicatedJobs ?? []) as {
      name?: string
      replicas?: number
      template?: {spec?: {parallelism?: number; completions?: number}}
    }[]
  ).filter((job) => job.name !== PATHWAYS_HEAD_JOB)
  const slices = jobs.reduce((sum, job) => sum + (job.replicas ?? 1), 0)
  const spec = jobs[0]?.template?.spec
  return {slices: Math.max(slices, 1), workers: Math.max(spec?.parallelism ?? spec?.completions ?? 1, 1)}
}

function places(shape: {slices: number; workers: number}): {slice: number; worker: number}[] {
  const out: {slice: number; worker: number}[] = []
  for (let slice = 0; slice < shape.slices; slice++) {
    for (let worker = 0; worker < shape.workers; worker++) out.push({slice, worker})
  }
  return out
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
