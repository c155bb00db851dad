import {XpkError} from '../core/errors.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import type {Timing} from '../core/timing.js'
import {KUEUE_API_VERSION} from '../core/versions.js'
import {JOBSET_NAME_LABEL, jobSetRef, requireWorkloadName} from '../core/workload/jobsets.js'
import {WORKLOAD_KIND, readJobSet, readWorkload} from '../core/workload/observed.js'
import {ownerName, pickWorkload} from '../core/workload/status.js'
import {whyWorkload, type WhyAnswer, type WhyWorkload} from '../core/workload/why.js'
import {
  readClusterQueue,
  readMaxRestarts,
  readPendingWorkloads,
  readPod,
  readWorkloadDetail,
} from '../core/workload/why-observed.js'
import {renderWhy} from '../core/render/why.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {KubeClient} from '../ports/kube.js'
import {checkInput, listAll, reachCluster, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

export interface WorkloadWhyOptions extends WorkloadTarget {
  /** The workload's name (the JobSet's, as `workload create --workload` named it). */
  readonly workload: string
  /** Retries of every read (timing.retry). */
  readonly timing: Pick<Timing, 'retry'>
}

export interface WorkloadWhyDeps extends ClusterAccessDeps {
  readonly console: Console
}

/** The answer as data (`--json`): the status, the findings with their cause codes and numbers, the next step. */
export type WorkloadWhyResult = WhyAnswer

/** The label GKE gives every node: the node pool it belongs to. */
const NODE_POOL_LABEL = 'cloud.google.com/gke-nodepool'

/**
 * `xpk workload why NAME`: reads what can hold the workload back (its JobSet, every Workload of the namespace, its
 * pods, its queue and Kueue's order of the queue, and where pods cannot be placed the node pools from GKE and their
 * ready nodes), and prints the answer of src/core/workload/why.ts. Reads only.
 * @throws UsageErrors for bad input, before any request; XpkError `not-found` when the workload does not exist
 */
export async function workloadWhy(options: WorkloadWhyOptions, deps: WorkloadWhyDeps): Promise<WorkloadWhyResult> {
  const name = checkInput(options, () => requireWorkloadName(options.workload))
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube, cluster} = await reachCluster(options, deps, retry)
  const [jobsetObject, workloadObjects, podObjects] = await Promise.all([
    withRetries(() => kube.get(jobSetRef(name)), retry),
    listAll(kube, KUEUE_API_VERSION, WORKLOAD_KIND, {namespace: XPK_NAMESPACE}, retry),
    listAll(kube, 'v1', 'Pod', {namespace: XPK_NAMESPACE, labelSelector: `${JOBSET_NAME_LABEL}=${name}`}, retry),
  ])
  const workloads: WhyWorkload[] = workloadObjects.map((o) => ({
    observed: readWorkload(o),
    detail: readWorkloadDetail(o),
  }))
  const jobset = jobsetObject && readJobSet(jobsetObject)
  const mine = workloads.filter((w) => ownerName(w.observed) === name)
  const own = pickWorkload(
    mine.map((w) => w.observed),
    jobset,
  )
  if (!jobset && !own) {
    throw new XpkError('not-found', `Workload ${name} does not exist in namespace ${XPK_NAMESPACE}.`, {
      hints: ['`xpk workload list` shows the workloads of the cluster.'],
    })
  }
  const workload = mine.find((w) => w.observed === own)
  const pods = podObjects.map(readPod)
  const [queue, nodes] = await Promise.all([
    readQueue(kube, workload, retry),
    // Ready nodes per pool only matter when a pod cannot be placed: a list of every node is not read otherwise.
    cluster && pods.some((p) => p.unschedulable) ? readyNodesPerPool(kube, retry) : Promise.resolve(null),
  ])
  const answer = whyWorkload({
    name,
    now: deps.now(),
    jobset,
    maxRestarts: jobsetObject ? readMaxRestarts(jobsetObject) : null,
    workload,
    workloads,
    clusterQueue: queue.clusterQueue,
    pending: queue.pending,
    pods,
    nodePools: cluster?.nodePools ?? null,
    readyNodes: nodes,
    cluster: options.viaKubeconfig ? null : (options.cluster ?? null),
  })
  deps.console.result(renderWhy(answer))
  return answer
}

/** The ClusterQueue behind the workload's LocalQueue, and Kueue's order of its pending workloads. */
async function readQueue(kube: KubeClient, workload: WhyWorkload | undefined, retry: RetryOptions) {
  const queueName = workload?.observed.spec?.queueName
  const admittedTo = workload?.observed.status?.admission?.clusterQueue
  let clusterQueueName = admittedTo
  if (clusterQueueName === undefined && queueName !== undefined) {
    const local = await withRetries(
      () => kube.get({apiVersion: KUEUE_API_VERSION, kind: 'LocalQueue', namespace: XPK_NAMESPACE, name: queueName}),
      retry,
    )
    const spec = local?.spec as {clusterQueue?: unknown} | undefined
    clusterQueueName = typeof spec?.clusterQueue === 'string' ? spec.clusterQueue : undefined
  }
  if (clusterQueueName === undefined) return {clusterQueue: undefined, pending: null}
  const cq = clusterQueueName
  const [object, pending] = await Promise.all([
    withRetries(() => kube.get({apiVersion: KUEUE_API_VERSION, kind: 'ClusterQueue', name: cq}), retry),
    withRetries(() => kube.pendingWorkloads(cq), retry),
  ])
  return {
    clusterQueue: object ? readClusterQueue(object) : undefined,
    pending: pending === 'not-served' ? null : readPendingWorkloads(pending),
  }
}

/** Ready nodes per node pool (GKE's label on every node). */
async function readyNodesPerPool(kube: KubeClient, retry: RetryOptions): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const node of await listAll(kube, 'v1', 'Node', {labelSelector: NODE_POOL_LABEL}, retry)) {
    const pool = (node.metadata.labels as Record<string, string> | undefined)?.[NODE_POOL_LABEL]
    const conditions = (node.status as {conditions?: {type?: string; status?: string}[]} | undefined)?.conditions
    const ready = conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
    if (pool !== undefined) counts[pool] = (counts[pool] ?? 0) + (ready ? 1 : 0)
  }
  return counts
}
