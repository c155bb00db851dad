/**
 * What `xpk cluster describe` reports from inside the cluster, computed from the objects the service lists: the
 * JobSet and Kueue controller versions (their image tags), each ClusterQueue's quota and usage per flavor with its
 * workload counts, and per node pool the expected, ready and total nodes.
 *
 * Python xpk (section 7.3 of the behaviour reference) builds its node-pool table from separate `kubectl | uniq -c`
 * pipelines whose counts are appended by position, so a pool with no Ready node takes the next pool's count and the
 * columns shift. Here every count is keyed by the pool's name, and a pool that has no ready node shows 0.
 */
import type {ObservedCluster, ObservedNodePool} from '../cluster/observed.js'
import {controllerImage, imageTag, type KubeObject} from '../kube/release-manifest.js'
import {KUEUE_BREAKING_VERSION} from '../versions.js'
import {compareReleaseVersions, parseReleaseVersion} from './install-decision.js'

/** The node label GKE puts on every node with the name of its node pool. */
export const NODE_POOL_LABEL = 'cloud.google.com/gke-nodepool'

/** A controller as its Deployment shows it. */
export interface ControllerState {
  readonly installed: boolean
  /** The image tag (`v0.17.1`); null when not installed or when the image names no tag (pinned by digest). */
  readonly version: string | null
  /** The controller container's image; null when not installed. */
  readonly image: string | null
  /** Whether the Deployment reports Available=True; null when not installed. */
  readonly available: boolean | null
}

/** Quota and usage of one resource of one flavor, as Kubernetes quantities (`16`, `100Gi`). */
export interface QueueResource {
  readonly name: string
  /** From the spec; null when the status names a resource the spec no longer has. */
  readonly nominalQuota: string | null
  /** Quota reserved by workloads (`status.flavorsReservation`); null when Kueue has not written a status yet. */
  readonly reserved: string | null
  /** Quota used by admitted workloads (`status.flavorsUsage`); null when Kueue has not written a status yet. */
  readonly used: string | null
}

export interface QueueFlavor {
  readonly name: string
  readonly resources: readonly QueueResource[]
}

/** One ClusterQueue: quota and usage per flavor, and its workload counts (null before Kueue writes a status). */
export interface ClusterQueueState {
  readonly name: string
  readonly admittedWorkloads: number | null
  readonly pendingWorkloads: number | null
  readonly reservingWorkloads: number | null
  readonly flavors: readonly QueueFlavor[]
}

/** What one node contributes to the counts. */
export interface NodeHealth {
  /** Read to place the GPUDirect installers' pods in pools; absent where a count is all that matters. */
  readonly name?: string
  /** Its `cloud.google.com/gke-nodepool` label; null when it has none (not a GKE node-pool node). */
  readonly pool: string | null
  /** Its Ready condition is True. */
  readonly ready: boolean
}

/** The nodes of one node pool. */
export interface PoolNodes {
  readonly name: string
  /** The node count GKE was asked for (per zone, times the pool's zones); null when GKE was not asked. */
  readonly expected: number | null
  readonly ready: number
  readonly total: number
  /**
   * The GPUDirect installers' DaemonSets (gpu-installers.ts) with a pod on the pool's nodes: how many of the pool's
   * nodes run a ready one. Absent when none has (TPU and CPU pools, GPU types without them).
   */
  readonly installers?: readonly InstallerReadiness[]
}

/** One installer DaemonSet on one pool: `ready` of the pool's `nodes` nodes run a ready pod of it. */
export interface InstallerReadiness {
  readonly daemonSet: string
  readonly ready: number
  readonly nodes: number
}

/** A pod of an installer DaemonSet: its DaemonSet (by its `k8s-app` label), node and readiness. */
export interface InstallerPod {
  readonly daemonSet: string
  readonly node: string
  readonly ready: boolean
}

/** Everything read from inside the cluster. */
export interface InClusterState {
  readonly reached: true
  /** How the cluster was reached: the GKE endpoint, or `--kubeconfig` / `--context` (then GKE was not asked). */
  readonly via: 'gke' | 'kubeconfig'
  /** The API server (and kubeconfig context), for the reader to know which cluster this is. */
  readonly target: string
  readonly jobset: ControllerState
  readonly kueue: ControllerState
  readonly clusterQueues: readonly ClusterQueueState[]
  /** Every node, whether or not it belongs to a node pool. */
  readonly nodes: {readonly ready: number; readonly total: number}
  readonly nodePools: readonly PoolNodes[]
  /**
   * The RayClusters in namespace `ray` (`cluster create-ray`'s), by name; empty when there is none or the cluster
   * does not serve the kind (no Ray operator).
   */
  readonly rayClusters: readonly RayClusterState[]
}

/** A RayCluster as KubeRay reports it in its status (all null until KubeRay has written one). */
export interface RayClusterState {
  readonly namespace: string
  readonly name: string
  /** KubeRay's `status.state` (`ready`, `suspended`). */
  readonly state: string | null
  /** KubeRay's `status.reason`, why the state is what it is (a failure to create a pod). */
  readonly reason: string | null
  /** The head pod is ready (KubeRay's HeadPodReady condition); null when KubeRay reports no such condition. */
  readonly headReady: boolean | null
  /** Worker replicas over every worker group: `status.readyWorkerReplicas` of `status.desiredWorkerReplicas`. */
  readonly workers: {readonly ready: number | null; readonly desired: number | null}
  /**
   * The dashboard's address inside the cluster, as KubeRay reports the head service: `status.head.serviceName`,
   * the namespace, and the port `status.endpoints.dashboard` (`raycluster-head-svc.ray.svc:8265`).
   */
  readonly dashboard: string | null
  /** The head service's cluster IP (`status.head.serviceIP`). */
  readonly headServiceIp: string | null
}

/** Why nothing was read from inside the cluster. */
export interface InClusterNotRead {
  readonly reached: false
  /** `skipped`: --skip-in-cluster; `unreachable`: the reads failed (the control plane, credentials, RBAC). */
  readonly reason: 'skipped' | 'unreachable'
  /** What failed, for `unreachable`. */
  readonly cause: string | null
}

export type InClusterDescription = InClusterState | InClusterNotRead

/**
 * What `cluster describe` shows: the cluster as GKE reports it with what was read inside it, or (reached through a
 * kubeconfig, GKE not asked) only what was read inside it.
 */
export type ClusterDescription =
  (ObservedCluster & {readonly inCluster: InClusterDescription}) | {readonly inCluster: InClusterState}

/** A controller's state from its Deployment, or from its absence. */
export function controllerState(deployment: KubeObject | undefined): ControllerState {
  if (!deployment) return {installed: false, version: null, image: null, available: null}
  const image = controllerImage(deployment) ?? null
  const conditions = asArray(asRecord(deployment.status).conditions).map(asRecord)
  return {
    installed: true,
    version: (image && imageTag(image)) ?? null,
    image,
    available: conditions.some((c) => c.type === 'Available' && c.status === 'True'),
  }
}

/**
 * Whether the ClusterQueues must be listed again in v1beta1: an empty v1beta2 list means nothing when Kueue is
 * older than v0.15, which does not serve v1beta2 at all. A Kueue whose version cannot be told may be old too.
 * Not installed (as far as xpk can see), or v0.15 and later: the v1beta2 answer stands.
 */
export function needsV1beta1Fallback(kueue: ControllerState): boolean {
  if (!kueue.installed) return false
  const parts = kueue.version === null ? undefined : parseReleaseVersion(kueue.version)
  if (parts === undefined) return true
  return compareReleaseVersions(parts, parseReleaseVersion(KUEUE_BREAKING_VERSION)!) < 0
}

/**
 * A ClusterQueue's quota (spec) joined with its reservation and usage (status) by flavor and resource name, in
 * spec order; flavors or resources only the status names (quota removed while workloads still hold it) follow.
 */
export function clusterQueueState(queue: KubeObject): ClusterQueueState {
  const spec = asRecord(queue.spec)
  const status = queue.status === undefined || queue.status === null ? undefined : asRecord(queue.status)
  const reserved = quantitiesByFlavor(status?.flavorsReservation, 'total')
  const used = quantitiesByFlavor(status?.flavorsUsage, 'total')
  const order: Array<{flavor: string; resource: string; nominalQuota: string | null}> = []
  const seen = new Set<string>()
  const add = (flavor: string, resource: string, nominalQuota: string | null) => {
    const key = `${flavor}\u0000${resource}`
    if (seen.has(key)) return
    seen.add(key)
    order.push({flavor, resource, nominalQuota})
  }
  for (const group of asArray(spec.resourceGroups).map(asRecord)) {
    for (const flavor of asArray(group.flavors).map(asRecord)) {
      for (const resource of asArray(flavor.resources).map(asRecord)) {
        add(String(flavor.name), String(resource.name), quantity(resource.nominalQuota))
      }
    }
  }
  for (const byFlavor of [reserved, used]) {
    for (const [flavor, resources] of byFlavor) for (const resource of resources.keys()) add(flavor, resource, null)
  }
  // With a status, a flavor or resource it does not list holds nothing; without one, Kueue has not looked yet.
  const usage = (byFlavor: Map<string, Map<string, string>>, flavor: string, resource: string) =>
    status === undefined ? null : (byFlavor.get(flavor)?.get(resource) ?? '0')
  const byFlavor = new Map<string, QueueResource[]>()
  for (const row of order) {
    const resources = byFlavor.get(row.flavor) ?? []
    byFlavor.set(row.flavor, resources)
    resources.push({
      name: row.resource,
      nominalQuota: row.nominalQuota,
      reserved: usage(reserved, row.flavor, row.resource),
      used: usage(used, row.flavor, row.resource),
    })
  }
  const flavors: QueueFlavor[] = [...byFlavor].map(([name, resources]) => ({name, resources}))
  const count = (field: string) => (status === undefined ? null : (integer(status[field]) ?? 0))
  return {
    name: queue.metadata.name,
    admittedWorkloads: count('admittedWorkloads'),
    pendingWorkloads: count('pendingWorkloads'),
    reservingWorkloads: count('reservingWorkloads'),
    flavors,
  }
}

/** A RayCluster's state, workers and dashboard address from its status, as KubeRay v1 writes it. */
export function rayClusterState(rayCluster: KubeObject): RayClusterState {
  const namespace = rayCluster.metadata.namespace ?? ''
  const status = asRecord(rayCluster.status)
  const head = asRecord(status.head)
  const serviceName = text(head.serviceName)
  const dashboardPort = text(asRecord(status.endpoints).dashboard)
  const headCondition = asArray(status.conditions)
    .map(asRecord)
    .find((c) => c.type === 'HeadPodReady')
  return {
    namespace,
    name: rayCluster.metadata.name,
    state: text(status.state),
    reason: text(status.reason),
    headReady: headCondition === undefined ? null : headCondition.status === 'True',
    workers: {
      ready: integer(status.readyWorkerReplicas) ?? null,
      desired: integer(status.desiredWorkerReplicas) ?? null,
    },
    dashboard:
      serviceName !== null && dashboardPort !== null ? `${serviceName}.${namespace}.svc:${dashboardPort}` : null,
    headServiceIp: text(head.serviceIP),
  }
}

/** A node's pool (label) and readiness (its Ready condition is True). */
export function nodeHealth(node: KubeObject): NodeHealth {
  const labels = asRecord(node.metadata.labels)
  const pool = labels[NODE_POOL_LABEL]
  const conditions = asArray(asRecord(node.status).conditions).map(asRecord)
  return {
    pool: typeof pool === 'string' && pool !== '' ? pool : null,
    ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
  }
}

/**
 * The nodes of each pool, counted by pool name. With GKE's pools: one row per pool in GKE's order (a pool with no
 * node yet shows 0 ready of 0), then pools that only nodes name (GKE does not list them: deleted, or another
 * project's). Without GKE (`pools` null): the pools the nodes name, sorted, with no expected count. Nodes without a
 * pool label are in the overall totals only.
 */
export function poolNodes(
  pools: readonly ObservedNodePool[] | null,
  nodes: readonly NodeHealth[],
  installerPods: readonly InstallerPod[] = [],
): PoolNodes[] {
  const counts = new Map<string, {ready: number; total: number}>()
  for (const node of nodes) {
    if (node.pool === null) continue
    const count = counts.get(node.pool) ?? {ready: 0, total: 0}
    counts.set(node.pool, {ready: count.ready + (node.ready ? 1 : 0), total: count.total + 1})
  }
  const known = new Set((pools ?? []).map((p) => p.name))
  const fromGke = (pools ?? []).map((p) => ({
    name: p.name,
    expected: p.nodeCount * Math.max(1, p.locations.length),
    ...(counts.get(p.name) ?? {ready: 0, total: 0}),
  }))
  const onlyOnNodes = [...counts]
    .filter(([name]) => !known.has(name))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, count]) => ({name, expected: null, ...count}))
  const installers = installersByPool(nodes, installerPods)
  return [...fromGke, ...onlyOnNodes].map((p) => {
    const found = installers.get(p.name)
    return found === undefined ? p : {...p, installers: found}
  })
}

/** A pod of an installer DaemonSet, from its `k8s-app` label, node name and Ready condition. */
export function installerPod(pod: KubeObject): InstallerPod {
  const labels = asRecord(pod.metadata.labels)
  const conditions = asArray(asRecord(pod.status).conditions).map(asRecord)
  return {
    daemonSet: String(labels['k8s-app'] ?? ''),
    node: String(asRecord(pod.spec).nodeName ?? ''),
    ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
  }
}

/** Per pool, each installer DaemonSet with a pod on its nodes: nodes with a ready pod, of the pool's nodes. */
function installersByPool(
  nodes: readonly NodeHealth[],
  pods: readonly InstallerPod[],
): Map<string, InstallerReadiness[]> {
  const poolOf = new Map(
    nodes.flatMap((n) => (n.pool === null || n.name === undefined ? [] : [[n.name, n.pool] as const])),
  )
  const nodesIn = new Map<string, number>()
  for (const n of nodes) if (n.pool !== null) nodesIn.set(n.pool, (nodesIn.get(n.pool) ?? 0) + 1)
  const readyNodes = new Map<string, Map<string, Set<string>>>()
  for (const pod of pods) {
    const pool = poolOf.get(pod.node)
    if (pool === undefined) continue
    const byDaemonSet = readyNodes.get(pool) ?? new Map<string, Set<string>>()
    readyNodes.set(pool, byDaemonSet)
    const ready = byDaemonSet.get(pod.daemonSet) ?? new Set<string>()
    byDaemonSet.set(pod.daemonSet, ready)
    if (pod.ready) ready.add(pod.node)
  }
  const result = new Map<string, InstallerReadiness[]>()
  for (const [pool, byDaemonSet] of readyNodes) {
    result.set(
      pool,
      [...byDaemonSet]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([daemonSet, ready]) => ({daemonSet, ready: ready.size, nodes: nodesIn.get(pool) ?? 0})),
    )
  }
  return result
}

/** Ready and total over every node. */
export function nodeTotals(nodes: readonly NodeHealth[]): {ready: number; total: number} {
  return {ready: nodes.filter((n) => n.ready).length, total: nodes.length}
}

function quantitiesByFlavor(value: unknown, field: string): Map<string, Map<string, string>> {
  const byFlavor = new Map<string, Map<string, string>>()
  for (const flavor of asArray(value).map(asRecord)) {
    const resources = new Map<string, string>()
    for (const resource of asArray(flavor.resources).map(asRecord)) {
      resources.set(String(resource.name), quantity(resource[field]) ?? '0')
    }
    byFlavor.set(String(flavor.name), resources)
  }
  return byFlavor
}

/** A quantity as Kubernetes writes it, which may be a JSON number or a string (`16`, `"16"`, `"100Gi"`). */
function quantity(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value === 'string' && value !== '') return value
  return null
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

function integer(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}
