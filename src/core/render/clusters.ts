import {acceleratorCatalog} from '../catalog/catalog.js'
import {nicNetworksText} from '../cluster/gpu-networks.js'
import type {ObservedCluster, ObservedNodePool} from '../cluster/observed.js'
import type {
  ClusterDescription,
  ClusterQueueState,
  ControllerState,
  InClusterState,
  PoolNodes,
  RayClusterState,
} from '../incluster/describe.js'
import {listView, PLAIN_TABLE, renderColumns, type Column, type OutputView, type TableStyle} from './output.js'
import {renderKeyValues, renderTable} from './table.js'

let familyByMachine: Map<string, string> | undefined

/** The accelerator a pool provides, in xpk's words: "v5p 2x2x2", "8x nvidia-h100-80gb", or the machine type. */
export function poolAccelerator(pool: ObservedNodePool): string {
  if (pool.gpu) return `${pool.gpu.count}x ${pool.gpu.type}`
  familyByMachine ??= new Map(
    [...acceleratorCatalog().values()].filter((a) => a.kind === 'TPU').map((a) => [a.machineType, a.family]),
  )
  const family = familyByMachine.get(pool.machineType)
  if (!family) return pool.machineType
  return pool.tpuTopology ? `${family} ${pool.tpuTopology}` : family
}

/** "4x v5p 2x2x2, e2-standard-16" — pools grouped by what they provide. */
export function acceleratorSummary(pools: readonly ObservedNodePool[]): string {
  const counts = new Map<string, number>()
  for (const pool of pools) counts.set(poolAccelerator(pool), (counts.get(poolAccelerator(pool)) ?? 0) + 1)
  return [...counts].map(([what, n]) => (n === 1 ? what : `${n}x ${what}`)).join(', ')
}

/** The `xpk cluster list` columns; `-o wide` adds where the nodes are, the channel, private nodes and the endpoint. */
const CLUSTER_COLUMNS: readonly Column<ObservedCluster>[] = [
  {header: 'name', cell: (c) => c.name},
  {header: 'location', cell: (c) => c.location},
  {header: 'node zones', cell: (c) => c.nodeLocations.join(',') || null, wide: true},
  {header: 'status', cell: (c) => c.status},
  {header: 'version', cell: (c) => c.version},
  {header: 'release channel', cell: (c) => c.releaseChannel, wide: true},
  {header: 'private nodes', cell: (c) => (c.privateNodes ? 'yes' : 'no'), wide: true},
  {header: 'endpoint', cell: (c) => c.endpoint || null, wide: true},
  {header: 'node pools', cell: (c) => c.nodePools.length},
  {header: 'accelerators', cell: (c) => acceleratorSummary(c.nodePools)},
]

/** The `xpk cluster list` table. */
export function renderClusterList(clusters: readonly ObservedCluster[], style: TableStyle = PLAIN_TABLE): string {
  return renderColumns(CLUSTER_COLUMNS, clusters, style)
}

/** `xpk cluster list`: `-o name` prints the names `--cluster` takes. */
export const clusterListView = listView(renderClusterList, (c) => c.name)

/**
 * The node-pool table of `xpk cluster describe`; `-o wide` adds zones, version, autoscaling, placement and the GPU
 * networks the nodes have a NIC on (additional node networks).
 */
const POOL_COLUMNS: readonly Column<ObservedNodePool>[] = [
  {header: 'node pool', cell: (p) => p.name},
  {header: 'machine type', cell: (p) => p.machineType},
  {header: 'accelerator', cell: poolAccelerator},
  {header: 'topology', cell: (p) => p.tpuTopology},
  {header: 'nodes', cell: (p) => p.nodeCount},
  {header: 'zones', cell: (p) => p.locations.join(',') || null, wide: true},
  {header: 'version', cell: (p) => p.version || null, wide: true},
  {header: 'autoscaling', cell: autoscalingText, wide: true},
  {header: 'placement', cell: placementText, wide: true},
  {header: 'GPU networks', cell: (p) => nicNetworksText(p.additionalNodeNetworks ?? [], ',') || null, wide: true},
  {header: 'status', cell: (p) => p.status},
  {header: 'capacity', cell: (p) => (p.capacity === 'reservation' ? `reservation ${p.reservation}` : p.capacity)},
]

function autoscalingText(p: ObservedNodePool): string {
  return p.autoscaling?.enabled ? `${p.autoscaling.minNodes}-${p.autoscaling.maxNodes}` : 'off'
}

function placementText(p: ObservedNodePool): string | null {
  if (p.placementPolicyName)
    return p.placementType ? `${p.placementType} ${p.placementPolicyName}` : p.placementPolicyName
  return p.placementType
}

/**
 * The `xpk cluster describe` view: cluster facts, one row per node pool, then what was read inside the cluster.
 * Reached through a kubeconfig (GKE not asked), only the inside; skipped or unreachable, only what GKE reports.
 */
export function renderClusterDetails(d: ClusterDescription | ObservedCluster, style: TableStyle = PLAIN_TABLE): string {
  const inside = 'inCluster' in d && d.inCluster.reached ? d.inCluster : null
  if (!('name' in d)) return inside ? renderInCluster(inside, style) : ''
  const c = d
  const facts = renderKeyValues([
    ['Cluster', c.name],
    ['Project', c.project],
    ['Location', c.location],
    ['Node zones', c.nodeLocations.join(', ')],
    ['Status', c.statusMessage ? `${c.status} (${c.statusMessage})` : c.status],
    ['Version', c.version],
    ['Release channel', c.releaseChannel],
    ['Private nodes', c.privateNodes ? 'yes' : 'no'],
    ['Endpoint', c.endpoint || null],
  ])
  const pools = c.nodePools.length === 0 ? 'No node pools.' : renderColumns(POOL_COLUMNS, c.nodePools, style)
  return inside ? `${facts}\n\n${pools}\n\n${renderInCluster(inside, style)}` : `${facts}\n\n${pools}`
}

/**
 * `xpk cluster describe`: `-o name` prints the name `--cluster` takes; reached through a kubeconfig, GKE was not
 * asked and there is no cluster name to print.
 */
export const clusterDescribeView: OutputView<ClusterDescription> = {
  text: renderClusterDetails,
  names: (d) => ('name' in d ? [d.name] : []),
}

/**
 * What was read inside the cluster: controller versions, workload counts and node readiness as facts, then the
 * ClusterQueues' quota and usage per flavor and resource, then the nodes of each pool (without the expected count
 * when GKE was not asked), then the RayClusters when there are any (a cluster without Ray shows nothing of it).
 */
export function renderInCluster(s: InClusterState, style: TableStyle = PLAIN_TABLE): string {
  const facts = renderKeyValues([
    ['JobSet', controllerText(s.jobset)],
    ['Kueue', controllerText(s.kueue)],
    ...s.clusterQueues.map((q): [string, string] => [`Workloads in ${q.name}`, workloadsText(q)]),
    ['Nodes', `${s.nodes.ready} of ${s.nodes.total} ready`],
  ])
  const quotaRows = s.clusterQueues.flatMap((q) =>
    q.flavors.flatMap((f) => f.resources.map((r) => [q.name, f.name, r.name, r.nominalQuota, r.reserved, r.used])),
  )
  const queues =
    s.clusterQueues.length === 0
      ? s.kueue.installed
        ? 'No ClusterQueue.'
        : 'No ClusterQueue: Kueue is not installed (`xpk cluster create` installs it).'
      : renderTable(['cluster queue', 'flavor', 'resource', 'quota', 'reserved', 'used'], quotaRows, style)
  const withExpected = s.via === 'gke'
  // The GPUDirect installers' column only where a pool has one: TPU and other clusters' tables are as before.
  const withInstallers = s.nodePools.some((p) => p.installers !== undefined)
  const pools =
    s.nodePools.length === 0
      ? 'No node is in a node pool.'
      : renderTable(
          [
            ...(withExpected ? ['node pool', 'expected', 'ready', 'total'] : ['node pool', 'ready', 'total']),
            ...(withInstallers ? ['gpudirect installers ready'] : []),
          ],
          s.nodePools.map((p) => [
            ...(withExpected ? [p.name, p.expected, p.ready, p.total] : [p.name, p.ready, p.total]),
            ...(withInstallers ? [installersText(p)] : []),
          ]),
          style,
        )
  const rayClusters = s.rayClusters.length === 0 ? '' : `\n\n${renderColumns(RAY_COLUMNS, s.rayClusters, style)}`
  return `Inside the cluster, at ${s.target}:\n${facts}\n\n${queues}\n\n${pools}${rayClusters}`
}

/** The RayClusters of `cluster describe`, as KubeRay reports them; `-o wide` adds the head service's IP. */
const RAY_COLUMNS: readonly Column<RayClusterState>[] = [
  {header: 'raycluster', cell: (r) => `${r.namespace}/${r.name}`},
  {header: 'state', cell: rayStateText},
  {header: 'head', cell: (r) => (r.headReady === null ? null : r.headReady ? 'ready' : 'not ready')},
  {
    header: 'workers ready',
    cell: (r) => (r.workers.desired === null ? null : `${r.workers.ready ?? 0}/${r.workers.desired}`),
  },
  {header: 'dashboard', cell: (r) => r.dashboard},
  {header: 'head service IP', cell: (r) => r.headServiceIp, wide: true},
]

function rayStateText(r: RayClusterState): string {
  const state = r.state ?? 'not reported yet'
  return r.reason === null ? state : `${state} (${r.reason})`
}

/** `nccl-tcpx-installer 2/2, device-injector 1/2`: nodes of the pool with a ready pod, of its nodes. */
function installersText(p: PoolNodes): string | null {
  if (p.installers === undefined) return null
  return p.installers.map((i) => `${i.daemonSet} ${i.ready}/${i.nodes}`).join(', ')
}

function controllerText(c: ControllerState): string {
  if (!c.installed) return 'not installed'
  const version = c.version ?? `version unknown (image ${c.image ?? 'unknown'})`
  return c.available ? version : `${version}, not Available`
}

function workloadsText(q: ClusterQueueState): string {
  if (q.admittedWorkloads === null) return 'not reported yet (Kueue has not written its status)'
  return `${q.admittedWorkloads} admitted, ${q.pendingWorkloads ?? 0} pending, ${q.reservingWorkloads ?? 0} reserving quota`
}
