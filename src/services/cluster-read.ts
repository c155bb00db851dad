import type {ObservedCluster} from '../core/cluster/observed.js'
import {UsageError, XpkError} from '../core/errors.js'
import {
  clusterQueueState,
  controllerState,
  needsV1beta1Fallback,
  nodeHealth,
  nodeTotals,
  poolNodes,
  type ClusterDescription,
  type InClusterState,
  type NodeHealth,
} from '../core/incluster/describe.js'
import {RELEASES} from '../core/kube/release-manifest.js'
import {clusterDescribeNoGke, clusterDescribeUnreachable} from '../core/messages/cluster.js'
import {zoneToRegion} from '../core/settings.js'
import {KUEUE_API_GROUP, KUEUE_API_VERSION} from '../core/versions.js'
import {withRetries, type Clock, type RetryOptions, type RetryPolicy} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {GkeClient} from '../ports/gke.js'
import type {KubeClient, KubeObject} from '../ports/kube.js'
import {findCluster} from './cluster-lookup.js'

export type {ClusterDescription} from '../core/incluster/describe.js'

/** What the read-only commands need: GKE, and the retry policy every call goes through. */
export interface ClusterReadDeps extends Clock {
  readonly gke: () => Promise<GkeClient>
  readonly retry: RetryPolicy
  readonly signal: AbortSignal
}

/** `xpk cluster list`: every cluster of the project, or of one zone's region. */
export async function listClusters(
  options: {readonly project: string; readonly zone?: string},
  deps: ClusterReadDeps,
): Promise<ObservedCluster[]> {
  const gke = await deps.gke()
  try {
    // All locations, then filtered: a region's list would leave out zonal clusters in its zones.
    const region = options.zone === undefined ? undefined : (zoneToRegion(options.zone) ?? options.zone)
    const all = await withRetries(() => gke.listClusters(options.project), retryOf(deps))
    const clusters = all.filter(
      (c) => region === undefined || c.location === region || c.location.startsWith(`${region}-`),
    )
    return clusters.sort((a, b) => a.location.localeCompare(b.location) || a.name.localeCompare(b.name))
  } finally {
    await gke.close()
  }
}

/** Where `xpk cluster describe` looks, and how far. */
export interface DescribeOptions {
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
const PAGE = 500
const KUEUE_V1BETA1 = `${KUEUE_API_GROUP}/v1beta1`

/**
 * `xpk cluster describe`: the cluster and its node pools from GKE, then, from inside the cluster, the JobSet and
 * Kueue versions, the ClusterQueues' quota and usage, and each pool's expected, ready and total nodes. When the
 * inside cannot be read, that is a warning with its cause, and the GKE part is still shown. With a kubeconfig,
 * GKE is not asked and a failure to read inside is the command's failure.
 */
export async function describeCluster(
  options: DescribeOptions,
  deps: ClusterDescribeDeps,
): Promise<ClusterDescription> {
  if (options.target === null) {
    deps.console.info(clusterDescribeNoGke())
    const kube = await deps.kube(undefined)
    return {inCluster: await readInside(kube, null, 'kubeconfig', deps)}
  }
  const cluster = await describeGkeCluster(options.target, deps)
  if (options.skipInCluster) return {...cluster, inCluster: {reached: false, reason: 'skipped', cause: null}}
  try {
    if (!cluster.endpoint && !cluster.dnsEndpoint) {
      throw new XpkError('unavailable', `GKE reports no control-plane endpoint for the cluster (${cluster.status}).`)
    }
    const kube = await deps.kube(cluster)
    return {...cluster, inCluster: await readInside(kube, cluster.nodePools, 'gke', deps)}
  } catch (error) {
    // Only what the cluster (or the way to it) answered becomes a note; an abort or a bug stays what it is.
    if (!(error instanceof XpkError) || error instanceof UsageError || deps.signal.aborted) throw error
    deps.console.warn(clusterDescribeUnreachable({cluster: cluster.name, cause: error.message, kind: error.kind}))
    return {...cluster, inCluster: {reached: false, reason: 'unreachable', cause: error.message}}
  }
}

/** The cluster as GKE reports it; not-found (exit 4) when it does not exist. */
async function describeGkeCluster(
  options: {readonly project: string; readonly zone: string; readonly cluster: string},
  deps: ClusterReadDeps,
): Promise<ObservedCluster> {
  const gke = await deps.gke()
  try {
    const found = await withRetries(
      () => findCluster(gke, options.project, options.zone, options.cluster),
      retryOf(deps),
    )
    if (!found) {
      throw new XpkError(
        'not-found',
        `Cluster ${options.cluster} not found in project ${options.project} (${zoneToRegion(options.zone) ?? options.zone} or ${options.zone}).`,
        {hints: ['Check --project and --zone; `xpk cluster list` shows your clusters.']},
      )
    }
    return found
  } finally {
    await gke.close()
  }
}

/**
 * Reads inside the cluster with a fixed number of requests, whatever its size: the two controller Deployments by
 * name, one list of ClusterQueues (and a second, in v1beta1, only for a Kueue too old to serve v1beta2), and the
 * Nodes in pages of 500, each page reduced to pool and readiness at once so a large cluster is never held in memory.
 */
async function readInside(
  kube: KubeClient,
  gkePools: ObservedCluster['nodePools'] | null,
  via: 'gke' | 'kubeconfig',
  deps: ClusterDescribeDeps,
): Promise<InClusterState> {
  const retry: RetryOptions = {
    policy: {...deps.retry, attempts: Math.min(deps.retry.attempts, IN_CLUSTER_READ_ATTEMPTS)},
    clock: deps,
    signal: deps.signal,
  }
  const call = <T>(read: () => Promise<T>) => withRetries(read, retry)
  const controller = (component: 'jobset' | 'kueue') => {
    const {namespace, name} = RELEASES[component].controller
    return call(() => kube.get({apiVersion: 'apps/v1', kind: 'Deployment', namespace, name}))
  }
  const [jobsetDeployment, kueueDeployment, queues, nodes] = await Promise.all([
    controller('jobset'),
    controller('kueue'),
    listAll(kube, KUEUE_API_VERSION, 'ClusterQueue', call),
    readNodes(kube, call),
  ])
  const jobset = controllerState(jobsetDeployment)
  const kueue = controllerState(kueueDeployment)
  const clusterQueues =
    queues.length === 0 && needsV1beta1Fallback(kueue)
      ? await listAll(kube, KUEUE_V1BETA1, 'ClusterQueue', call)
      : queues
  return {
    reached: true,
    via,
    target: kube.target,
    jobset,
    kueue,
    clusterQueues: clusterQueues.map(clusterQueueState).sort((a, b) => a.name.localeCompare(b.name)),
    nodes: nodeTotals(nodes),
    nodePools: poolNodes(gkePools, nodes),
  }
}

type Call = <T>(read: () => Promise<T>) => Promise<T>

async function readNodes(kube: KubeClient, call: Call): Promise<NodeHealth[]> {
  const nodes: NodeHealth[] = []
  let token: string | undefined
  do {
    const page = await call(() => kube.list('v1', 'Node', {limit: PAGE, continue: token}))
    for (const node of page.items) nodes.push(nodeHealth(node))
    token = page.continue
  } while (token)
  return nodes
}

async function listAll(kube: KubeClient, apiVersion: string, kind: string, call: Call): Promise<KubeObject[]> {
  const items: KubeObject[] = []
  let token: string | undefined
  do {
    const page = await call(() => kube.list(apiVersion, kind, {limit: PAGE, continue: token}))
    items.push(...page.items)
    token = page.continue
  } while (token)
  return items
}

function retryOf(deps: ClusterReadDeps) {
  return {policy: deps.retry, clock: deps, signal: deps.signal}
}
