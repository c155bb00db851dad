import {ApiError, throwIfProblems, UsageError, UsageErrors, XpkError} from '../core/errors.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import {message} from '../core/messages.js'
import {JOBSET_NAME_LABEL, jobSetRef} from '../core/workload/jobsets.js'
import {workerLogsUrl} from '../core/workload/links.js'
import {
  LineSplitter,
  podPrefix,
  readWorkloadPod,
  selectPods,
  workloadLogsInputFromFlags,
  type WorkloadLogsFlags,
  type WorkloadLogsInput,
  type WorkloadPod,
} from '../core/workload/logs.js'
import {withRetries, type RetryOptions, type RetryPolicy} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {KubeClient, KubeObject} from '../ports/kube.js'
import {listAll, reachCluster, targetProblems, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

export interface WorkloadLogsOptions extends WorkloadTarget, WorkloadLogsFlags {
  readonly retry: RetryPolicy
}

export interface WorkloadLogsDeps extends ClusterAccessDeps {
  readonly console: Console
}

/** Where a pod sits, and the Cloud Logging query for it (null when the cluster was reached through a kubeconfig). */
export interface MissingPod {
  readonly slice: number
  readonly worker: number
  readonly logs: string | null
}

export interface WorkloadLogsResult {
  readonly workload: string
  /** The pods read, each with the lines it gave. */
  readonly pods: readonly {readonly name: string; readonly slice: number; readonly worker: number; lines: number}[]
  /** The places asked for that had no pod (or whose pod went while being read). */
  readonly gone: readonly MissingPod[]
}

/**
 * `xpk workload logs NAME`: the container log of one pod of the workload (worker 0 of slice 0 unless told), or with
 * `--all` of every pod, each line prefixed with where it comes from, as the lines arrive. The pods come from one
 * list by label selector. A place with no pod is a note with the Cloud Logging query that still has its logs.
 * @throws UsageErrors for bad input, before any request, and for a --slice/--worker outside the workload's shape;
 * XpkError `not-found` when the workload does not exist
 */
export async function workloadLogs(options: WorkloadLogsOptions, deps: WorkloadLogsDeps): Promise<WorkloadLogsResult> {
  const input = checkOptions(options)
  const retry: RetryOptions = {policy: options.retry, clock: deps, signal: deps.signal}
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
  const shape = jobSetShape(jobset)
  const {select} = input
  if (!select.all && (select.slice >= shape.slices || select.worker >= shape.workers)) {
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
    podObjects.map((pod) => readWorkloadPod(pod)).filter((pod): pod is WorkloadPod => pod !== undefined),
    select,
  )
  const link = (slice: number, worker: number): string | null =>
    gke && options.cluster ? workerLogsUrl({...gke, cluster: options.cluster, workload: name}, slice, worker) : null
  const gone: MissingPod[] = []
  const sayGone = (slice: number, worker: number, why: string) => {
    const logs = link(slice, worker)
    gone.push({slice, worker, logs})
    console.warn(
      message(
        'workload.logs.gone',
        `${why} Its logs are in Cloud Logging${logs ? `: ${logs}` : ' (reach the cluster through GKE for the link).'}`,
        {workload: name, slice, worker, logs},
      ),
    )
  }
  const wanted = select.all ? places(shape) : [{slice: select.slice, worker: select.worker}]
  for (const place of wanted) {
    if (!pods.some((p) => p.slice === place.slice && p.worker === place.worker)) {
      sayGone(
        place.slice,
        place.worker,
        `Workload ${name} has no pod for slice ${place.slice}, worker ${place.worker}.`,
      )
    }
  }
  // Pods outside the shape the JobSet says (it was changed, or another tool made them) are read too.
  console.info(
    message(
      'workload.logs.reading',
      `${input.follow ? 'Following' : 'Reading'} the log${pods.length === 1 ? '' : 's'} of ${plural(pods.length, 'pod')} of workload ${name}.`,
      {workload: name, pods: pods.map((p) => p.name), follow: input.follow},
    ),
  )
  const read = await Promise.all(
    pods.map(async (pod) => {
      const lines = await streamPod(
        kube,
        pod,
        input,
        console,
        select.all ? podPrefix(pod) : '',
        deps.signal,
        select.all,
      )
      if (lines === 'absent') {
        sayGone(pod.slice, pod.worker, `Pod ${pod.name} (slice ${pod.slice}, worker ${pod.worker}) is gone.`)
        return undefined
      }
      return {name: pod.name, slice: pod.slice, worker: pod.worker, lines}
    }),
  )
  return {workload: name, pods: read.filter((p) => p !== undefined), gone}
}

/**
 * Reads one pod's log, printing each whole line as it arrives (with `prefix`); a line split across pieces of the
 * stream is printed once whole, so lines of one pod stay whole and in order however many pods write at once.
 */
async function streamPod(
  kube: KubeClient,
  pod: WorkloadPod,
  input: WorkloadLogsInput,
  console: Console,
  prefix: string,
  signal: AbortSignal,
  tolerate: boolean,
): Promise<number | 'absent'> {
  const splitter = new LineSplitter()
  let count = 0
  const print = (lines: string[]) => {
    for (const line of lines) console.result(`${prefix}${line}`)
    count += lines.length
  }
  let outcome: 'ended' | 'absent'
  try {
    outcome = await readLog()
  } catch (error) {
    // With --all, a pod whose log the server will not give yet (400: its container has not started) is a note,
    // so the others go on being read; its lines so far stay printed. Any other failure, or one pod asked for by
    // place, is the command's error.
    if (!tolerate || !(error instanceof ApiError) || error.status !== 'INVALID_ARGUMENT') throw error
    print(splitter.flush())
    console.warn(
      message('workload.logs.unreadable', `Could not read the log of pod ${pod.name}: ${error.message}`, {
        pod: pod.name,
        slice: pod.slice,
        worker: pod.worker,
      }),
    )
    return count
  }
  print(splitter.flush())
  return outcome === 'absent' && count === 0 ? 'absent' : count

  function readLog() {
    return kube.logs(
      XPK_NAMESPACE,
      pod.name,
      {
        ...(pod.container ? {container: pod.container} : {}),
        follow: input.follow,
        ...(input.tailLines === undefined ? {} : {tailLines: input.tailLines}),
        ...(input.sinceSeconds === undefined ? {} : {sinceSeconds: input.sinceSeconds}),
        signal,
      },
      (text) => print(splitter.push(text)),
    )
  }
}

/** Slices (the replicas of its replicated Jobs) and workers per slice (a Job's parallelism) of an xpk JobSet. */
function jobSetShape(jobset: KubeObject): {slices: number; workers: number} {
  const jobs = ((jobset.spec as {replicatedJobs?: unknown[]} | undefined)?.replicatedJobs ?? []) as {
    replicas?: number
    template?: {spec?: {parallelism?: number; completions?: number}}
  }[]
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

/** Every problem with the input at once, before any request. */
function checkOptions(options: WorkloadLogsOptions): WorkloadLogsInput {
  const problems: UsageError[] = [...targetProblems(options)]
  let input: WorkloadLogsInput | undefined
  try {
    input = workloadLogsInputFromFlags(options)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    problems.push(...(error instanceof UsageErrors ? error.problems : [error]))
  }
  throwIfProblems(problems)
  return input!
}
