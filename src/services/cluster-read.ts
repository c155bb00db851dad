import type {ObservedCluster} from '../core/cluster/observed.js'
import {UsageError, XpkError} from '../core/errors.js'
import {
  clusterQueueState,
  controllerState,
  installerPod,
  needsV1beta1Fallback,
  nodeHealth,
  nodeTotals,
  poolNodes,
  rayClusterState,
  type ClusterDescription,
  type InClusterState,
  type InstallerPod,
  type NodeHealth,
} from '../core/incluster/describe.js'
import {GPU_INSTALLERS} from '../core/incluster/gpu-installers.js'
import {RAY_API_VERSION, RAY_NAMESPACE} from '../core/incluster/ray-cluster.js'
import {collect} from '../core/kube/list-pages.js'
import {RELEASES} from '../core/kube/release-manifest.js'
import {clusterDescribeNoGke, clusterDescribeUnreachable} from '../core/messages/cluster.js'
import {zoneToRegion} from '../core/settings.js'
import type {Timing} from '../core/timing.js'
import {KUEUE_API_GROUP, KUEUE_API_VERSION} from '../core/versions.js'
import {retrying, withRetries, type Clock, type RetryOptions} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {GkeClient} from '../ports/gke.js'
import type {KubeClient} from '../ports/kube.js'
import {requireCluster} from './cluster-lookup.js'

export type {ClusterDescription} from '../core/incluster/describe.js'

/** What the read-only commands need: GKE, and time for the retry policy every call goes through. */
export interface ClusterReadDeps extends Clock {
  readonly gke: () => Promise<GkeClient>
  readonly signal: AbortSignal
}

/** The retries of every call (timing.retry). */
export interface ClusterReadTiming {
  readonly timing: Pick<Timing, 'retry'>
}

/** `xpk cluster list`: every cluster of the project, or of one zone's region. */
export async function listClusters(
  options: {readonly project: string; readonly zone?: string} & ClusterReadTiming,
  deps: ClusterReadDeps,
): Promise<ObservedCluster[]> {
  const gke = await deps.gke()
  try {
    // All locations, then filtered: a region's list would leave out zonal clusters in its zones.
    const region = options.zone === undefined ? undefined : (zoneToRegion(options.zone) ?? options.zone)
    const all = await withRetries(() => gke.listClusters(options.project), retryOf(options, deps))
    const clusters = all.filter(
      (c) => region === undefined || c.location === region || c.location.startsWith(`${region}-`),
    )
    return clusters.sort((a, b) => a.location.localeCompare(b.location) || a.name.localeCompare(b.name))
  } finally {
    await gke.close()
  }
}

/** Where `xpk cluster describe` looks, and how far. */
export interface DescribeOptions extends ClusterReadTiming {
  /** The GKE cluster; null with `--kubeconfig` / `--context`, which reach the cluster without asking GKE. */
  readonly target: {readonly project: string; readonly zone: string; readonly cluster: string} | null
  /** `--skip-in-cluster`: GKE only, as for a control plane not reachable from here. */
  readonly skipInCluster: boolean
}

/** What `cluster describe` needs besides GKE: the cluster's Kubernetes API, and a console for notes. */
export interface ClusterDescribeDeps extends ClusterReadDeps {
  /** Connects to the cluster's Kubernetes API: through the kubeconfig, else from the GKE cluster. */
  readonly kube: (cluster: ObservedCluster | undefined) => Promise<KubeClient>
  readonly console: Console
}

/** Attempts per in-cluster read: a read-only command should not wait half a minute on a control plane that is down. */
const IN_CLUSTER_READ_ATTEMPTS = 3
const KUEUE_V1BETA1 = `${KUEUE_API_GROUP}/v1beta1`

/**
 * `xpk cluster describe`: the cluster and its node pools from GKE, then, from inside the cluster, the JobSet and
 * Kueue versions, the ClusterQueues' quota and usage, each pool's expected, ready and total nodes, and the
 * RayClusters' state and dashboard address. When the inside cannot be read, that is a warning with its cause, and
 * the GKE part is still shown. With a kubeconfig, GKE is not asked and a failure to read inside is the command's
 * failure.
 */
export async function describeCluster(
  options: DescribeOptions,
  deps: ClusterDescribeDeps,
): Promise<ClusterDescription> {
  if (options.target === null) {
    deps.console.info(clusterDescribeNoGke())
    const kube = await deps.kube(undefined)
    return {inCluster: await readInside(kube, null, 'kubeconfig', options, deps)}
  }
  const cluster = await requireCluster(deps.gke, options.target, retryOf(options, deps))
  if (options.skipInCluster) return {...cluster, inCluster: {reached: false, reason: 'skipped', cause: null}}
  try {
    if (!cluster.endpoint && !cluster.dnsEndpoint) {
      throw new XpkError('unavailable', `GKE reports no control-plane endpoint for the cluster (${cluster.status}).`)
    }
    const kube = await deps.kube(cluster)
    return {...cluster, inCluster: await readInside(kube, cluster.nodePools, 'gke', options, deps)}
  } catch (error) {
    // Only what the cluster (or the way to it) answered becomes a note; an abort or a bug stays what it is.
    if (!(error instanceof XpkError) || error instanceof UsageError || deps.signal.aborted) throw error
    deps.console.warn(clusterDescribeUnreachable({cluster: cluster.name, cause: error.message, kind: error.kind}))
    return {...cluster, inCluster: {reached: false, reason: 'unreachable', cause: error.message}}
  }
}

/**
 * Reads inside the cluster with a fixed number of requests, whatever its size: the two controller Deployments by
 * name, one list of ClusterQueues (and a second, in v1beta1, only for a Kueue too old to serve v1beta2), one of the
 * RayClusters in namespace `ray`, the GPUDirect installers' pods in kube-system (by label), and the Nodes in pages of 500, each page reduced to pool and readiness at once so a large cluster is never held in memory.
 */
async function readInside(
  kube: KubeClient,
  gkePools: ObservedCluster['nodePools'] | null,
  via: 'gke' | 'kubeconfig',
  {timing}: ClusterReadTiming,
  deps: ClusterDescribeDeps,
): Promise<InClusterState> {
  const retry: RetryOptions = {
    policy: {...timing.retry, attempts: Math.min(timing.retry.attempts, IN_CLUSTER_READ_ATTEMPTS)},
    clock: deps,
    signal: deps.signal,
  }
  const call = retrying(retry)
  const controller = (component: 'jobset' | 'kueue') => {
    const {namespace, name} = RELEASES[component].controller
    return call(() => kube.get({apiVersion: 'apps/v1', kind: 'Deployment', namespace, name}))
  }
  const listQueues = (apiVersion: string) => collect(kube.listAll(apiVersion, 'ClusterQueue', {retry: call}))
  const [jobsetDeployment, kueueDeployment, queues, nodes, rayClusters, installerPods] = await Promise.all([
    controller('jobset'),
    controller('kueue'),
    listQueues(KUEUE_API_VERSION),
    readNodes(kube, call),
    // A cluster without the Ray operator does not serve the kind: an empty list, and nothing is shown.
    collect(kube.listAll(RAY_API_VERSION, 'RayCluster', {namespace: RAY_NAMESPACE, retry: call})),
    readInstallerPods(kube, call),
  ])
  const jobset = controllerState(jobsetDeployment)
  const kueue = controllerState(kueueDeployment)
  const clusterQueues = queues.length === 0 && needsV1beta1Fallback(kueue) ? await listQueues(KUEUE_V1BETA1) : queues
  return {
    reached: true,
    via,
    target: kube.target,
    jobset,
    kueue,
    clusterQueues: clusterQueues.map(clusterQueueState).sort((a, b) => a.name.localeCompare(b.name)),
    nodes: nodeTotals(nodes),
    nodePools: poolNodes(gkePools, nodes, installerPods),
    rayClusters: rayClusters.map(rayClusterState).sort((a, b) => a.name.localeCompare(b.name)),
  }
}

/** The pods of the GPUDirect installers' DaemonSets (one label-selected list in kube-system), each reduced at once. */
async function readInstallerPods(kube: KubeClient, call: ReturnType<typeof retrying>): Promise<InstallerPod[]> {
  const names = [...new Set(Object.values(GPU_INSTALLERS).map((i) => i.daemonSet))].join(',')
  const pods: InstallerPod[] = []
  const options = {namespace: 'kube-system', labelSelector: `k8s-app in (${names})`, retry: call}
  for await (const page of kube.listAll('v1', 'Pod', options)) for (const pod of page) pods.push(installerPod(pod))
  return pods
}

async function readNodes(kube: KubeClient, call: ReturnType<typeof retrying>): Promise<NodeHealth[]> {
  const nodes: NodeHealth[] = []
  for await (const page of kube.listAll('v1', 'Node', {retry: call})) {
    for (const node of page) nodes.push({...nodeHealth(node), name: node.metadata.name})
  }
  return nodes
}

function retryOf({timing}: ClusterReadTiming, deps: ClusterReadDeps): RetryOptions {
  return {policy: timing.retry, clock: deps, signal: deps.signal}
}
