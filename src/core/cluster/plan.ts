import type {DesiredCluster, NodePoolTemplate} from './desired.js'
import type {ClusterStatus, ObservedCluster, ObservedNodePool} from './observed.js'
import {ApiError} from '../errors.js'
import {creationFailedForCapacity} from './gke-errors.js'
import type {ClusterSpec, NodePoolSpec, PlacementPolicy, WorkloadPolicySpec} from './spec.js'
import {PATHWAYS_CPU_POOL, pathwaysPoolSpec} from './pathways.js'
import {firewallsOf, uniqueNetworks, type GpuNetwork, type ObservedGpuNetworks} from './gpu-networks.js'
import type {FirewallSpec, NetworkSpec, SubnetworkSpec} from './vpc.js'
import {planAutoprovisioningUpdate, planClusterUpdates, planRayOperatorUpdate, type UpdateStep} from './updates.js'

export type {ClusterUpdateStep, NodePoolUpdateStep, UpdateStep} from './updates.js'

/**
 * What a step does. `recreate` deletes a pool and creates it again under the same name; size changes are
 * recreates too, because GKE reports only the node count a pool was created with. `update` changes a setting of an
 * existing cluster or pool in place (CSI drivers, Workload Identity).
 */
export type PlanAction = 'create' | 'delete' | 'recreate' | 'update' | 'none'

/** A step on the cluster itself. */
export interface ClusterStep {
  readonly action: 'create' | 'delete' | 'none'
  readonly resource: 'cluster'
  readonly name: string
  readonly reason: string
  readonly spec: ClusterSpec | null
  /** The apply waits for the cluster to become RUNNING (it is still provisioning). */
  readonly wait: boolean
}

/** A step on one node pool. */
export interface NodePoolStep {
  readonly action: PlanAction
  readonly resource: 'nodePool'
  readonly name: string
  readonly reason: string
  /** The desired pool (create, recreate, or unchanged of ours); null for deletions and foreign pools. */
  readonly spec: NodePoolSpec | null
  /** True for xpk's own pools (`<cluster>-np-*`); pools others made are listed but never changed. */
  readonly managed: boolean
  /** The apply waits for the pool to become RUNNING (it is still provisioning). */
  readonly wait: boolean
  /**
   * Create steps: a pool of this name is still being deleted (an interrupted run's recreate, say); the apply waits
   * until it is gone, so pools keep their canonical names instead of moving to new indexes.
   */
  readonly afterDeletion?: boolean
  /** Recreate steps of pools whose creation failed for capacity: no node was ever provisioned, nothing is lost. */
  readonly nothingToLose?: boolean
}

/**
 * The GCE workload policy that new node pools name as placement policy (multi-host tpu7x, gb200). It must exist
 * before they are created; it is never deleted, because other clusters in the region may use it.
 */
export interface PlacementPolicyStep {
  readonly action: 'create' | 'none'
  readonly resource: 'placementPolicy'
  readonly name: string
  readonly reason: string
  /** The policy to create; null when it exists. */
  readonly spec: WorkloadPolicySpec | null
  readonly wait: false
}

/**
 * A VPC network, subnetwork or firewall rule of a GPU cluster (gpu-networks.ts): created before the node pools that
 * attach them, kept when it exists as xpk would make it, deleted by `cluster delete` after the cluster.
 */
export interface GpuNetworkStep {
  readonly action: 'create' | 'delete' | 'none'
  readonly resource: 'network' | 'subnetwork' | 'firewall'
  readonly name: string
  readonly reason: string
  /** What to create; null when it exists or is deleted. */
  readonly spec: NetworkSpec | SubnetworkSpec | FirewallSpec | null
  /** A subnetwork's region (deletes need it); absent for the global networks and firewall rules. */
  readonly region?: string
  readonly wait: false
}

export type PlanStep = ClusterStep | UpdateStep | PlacementPolicyStep | GpuNetworkStep | NodePoolStep

/** Whether a step is on a GPU network, subnetwork or firewall rule. */
export function isGpuNetworkStep(step: PlanStep): step is GpuNetworkStep {
  return step.resource === 'network' || step.resource === 'subnetwork' || step.resource === 'firewall'
}

/**
 * Whether the workload policy the pools need exists and is READY: `undefined` when it was not looked up (offline
 * plans), and then a create step that tolerates an existing policy is planned. A policy still `creating` gets a
 * create step too: it ends in waiting for the policy to be READY.
 */
export type PlacementPolicyState = 'exists' | 'creating' | 'missing' | undefined

/** A plan: what will be done, in a form that can be printed, serialised and applied as is. */
export interface Plan {
  readonly project: string
  /** The cluster's location (its region for clusters xpk makes). */
  readonly location: string
  readonly cluster: string
  readonly steps: readonly PlanStep[]
  /** Requested cluster settings that an existing cluster does not have and that xpk does not change. */
  readonly warnings: readonly string[]
}

/**
 * True when applying the plan loses something: a node pool (or a cluster) is deleted or recreated. Replacing a pool
 * whose creation failed for capacity loses nothing (it never had a node), so a re-run after a stockout asks nothing.
 */
export function isDestructive(plan: Plan): boolean {
  return destructiveSteps(plan).length > 0
}

/** The steps that lose something, as {@link isDestructive} counts them. */
export function destructiveSteps(plan: Plan): PlanStep[] {
  return plan.steps.filter(
    (s) => s.action === 'delete' || (s.action === 'recreate' && !(s.resource === 'nodePool' && s.nothingToLose)),
  )
}

/** Counts of steps by action. */
export function summarize(plan: Plan): Record<PlanAction, number> {
  const counts: Record<PlanAction, number> = {create: 0, delete: 0, recreate: 0, update: 0, none: 0}
  for (const step of plan.steps) counts[step.action]++
  return counts
}

const CLUSTER_GONE: readonly ClusterStatus[] = ['STOPPING']

/**
 * Plans a `cluster create` run: the pure reconciler. Compares the desired cluster with what GKE reports (or with
 * nothing, for a new cluster or an offline plan) and returns one step per cluster and node pool, each with a
 * reason. Only pools named `<cluster>-np-*` are ever changed.
 */
export function planCluster(
  desired: DesiredCluster,
  observed: ObservedCluster | undefined,
  placementPolicy: PlacementPolicyState = undefined,
  /** The GPU networks as read (undefined: not looked up, offline). */
  gpuNetworks: ObservedGpuNetworks | undefined = undefined,
): Plan {
  const spec = desired.spec
  const location = observed?.location ?? spec.region
  const steps: PlanStep[] = []
  if (observed === undefined) {
    steps.push({
      action: 'create',
      resource: 'cluster',
      name: spec.name,
      reason: 'does not exist yet',
      spec,
      wait: false,
    })
  } else if (CLUSTER_GONE.includes(observed.status)) {
    steps.push({
      action: 'create',
      resource: 'cluster',
      name: spec.name,
      reason: 'is being deleted; it is created again once the deletion finishes',
      spec,
      wait: true,
    })
  } else {
    const provisioning = observed.status === 'PROVISIONING'
    steps.push({
      action: 'none',
      resource: 'cluster',
      name: spec.name,
      reason: provisioning
        ? 'exists and is still provisioning; waiting for it'
        : `exists (${observed.status}, version ${observed.version || 'unknown'}, ${observed.location})`,
      spec: null,
      wait: provisioning,
    })
  }
  const live = observed && !CLUSTER_GONE.includes(observed.status) ? observed : undefined
  const warnings = live ? unchangedSettings(desired, live) : []
  const poolSteps = planNodePools(desired, live?.nodePools ?? [])
  // A new cluster gets its CSI drivers and Workload Identity in the create request; an existing one, updates.
  const updates = live ? planUpdates(desired, live, poolSteps) : {steps: [], warnings: []}
  const [clusterUpdates, poolUpdates] = [
    updates.steps.filter((s) => s.resource === 'clusterUpdate'),
    updates.steps.filter((s) => s.resource === 'nodePoolUpdate'),
  ]
  // Node auto-provisioning, too: in the create request of a new cluster, an update of an existing one.
  if (live && spec.autoprovisioning) {
    clusterUpdates.push(planAutoprovisioningUpdate(spec.autoprovisioning, live, spec.autoscalingProfile))
  }
  if (live && spec.rayOperator) clusterUpdates.push(planRayOperatorUpdate(live))
  return {
    project: spec.project,
    location,
    cluster: spec.name,
    steps: [
      ...steps,
      ...clusterUpdates,
      ...planPlacementPolicy(desired, poolSteps, placementPolicy),
      ...planGpuNetworks(desired.gpuNetworks ?? [], gpuNetworks),
      ...poolSteps,
      ...poolUpdates,
    ],
    warnings: [...warnings, ...updates.warnings],
  }
}

/**
 * The updates an existing cluster needs for the CSI drivers and Workload Identity asked for. xpk's own pools that stay
 * (not deleted or recreated, and asked to use GKE_METADATA) are switched to it; pools of others are only named.
 */
function planUpdates(desired: DesiredCluster, observed: ObservedCluster, poolSteps: readonly NodePoolStep[]) {
  const kept = new Set(poolSteps.filter((s) => s.managed && s.action === 'none' && s.spec).map((s) => s.name))
  const switchOwn = desired.poolTemplate.workloadMetadataMode === 'GKE_METADATA'
  return planClusterUpdates(desired.needs, observed, {
    own: switchOwn ? observed.nodePools.filter((p) => kept.has(p.name)) : [],
    others: observed.nodePools.filter(
      (p) => p.status !== 'STOPPING' && ownPoolIndex(desired.spec.name, p.name) === undefined,
    ),
  })
}

/** The workload-policy step, when a pool to be created names one: nothing to do for pools that already exist. */
function planPlacementPolicy(
  desired: DesiredCluster,
  poolSteps: readonly NodePoolStep[],
  state: PlacementPolicyState,
): PlacementPolicyStep[] {
  const placement = desired.poolTemplate.placementPolicy
  if (placement?.type !== 'workload-policy') return []
  if (!poolSteps.some((s) => s.action === 'create' || s.action === 'recreate')) return []
  const name = placement.name
  if (state === 'exists') {
    return [{action: 'none', resource: 'placementPolicy', name, reason: 'exists', spec: null, wait: false}]
  }
  return [
    {
      action: 'create',
      resource: 'placementPolicy',
      name,
      reason: {
        missing: 'does not exist yet',
        creating: 'is still being created; waiting until it is ready',
        unknown: 'created unless it exists (not looked up offline)',
      }[state ?? 'unknown'],
      spec: {
        project: desired.spec.project,
        region: desired.spec.region,
        name,
        acceleratorTopology: placement.topology,
        ...(placement.mode ? {acceleratorTopologyMode: placement.mode} : {}),
      },
      wait: false,
    },
  ]
}

/**
 * The GPU networks' steps: each network, then its subnetworks and firewall rules, created unless it exists (under its
 * name: one that differs from what xpk would make is refused before planning, see gpuNetworkDifferences).
 */
function planGpuNetworks(networks: readonly GpuNetwork[], observed: ObservedGpuNetworks | undefined): GpuNetworkStep[] {
  const step = (
    resource: GpuNetworkStep['resource'],
    spec: NetworkSpec | SubnetworkSpec | FirewallSpec,
    found: ReadonlyMap<string, unknown> | undefined,
  ): GpuNetworkStep => {
    if (found?.has(spec.name))
      return {action: 'none', resource, name: spec.name, reason: 'exists', spec: null, wait: false}
    const reason = observed ? 'does not exist yet' : 'created unless it exists (not looked up offline)'
    return {action: 'create', resource, name: spec.name, reason, spec, wait: false}
  }
  // Each network before what is on it: its subnetworks, then its firewall rules (RDMA NICs share one network).
  return uniqueNetworks(networks).flatMap((net) => {
    const on = networks.filter((n) => n.network.name === net.name)
    return [
      step('network', net, observed?.networks),
      ...on.map((n) => step('subnetwork', n.subnetwork, observed?.subnetworks)),
      ...firewallsOf(on).map((f) => step('firewall', f, observed?.firewalls)),
    ]
  })
}

/** Cluster-level settings that were asked for but differ on the existing cluster; xpk only reconciles node pools. */
function unchangedSettings(desired: DesiredCluster, observed: ObservedCluster): string[] {
  const spec = desired.spec
  const warnings: string[] = []
  if (spec.private && !observed.privateNodes) {
    warnings.push(
      `Private nodes were requested, but cluster ${spec.name} is public; xpk does not convert an existing cluster (delete and create it again to change this).`,
    )
  }
  if (!spec.autoUpgrade && spec.version !== null && observed.version !== '' && spec.version !== observed.version) {
    warnings.push(
      `--gke-version ${spec.version} was requested, but cluster ${spec.name} runs ${observed.version}; xpk does not upgrade an existing control plane.`,
    )
  }
  if (spec.sliceController && observed.sliceController !== true) {
    warnings.push(
      `--super-slicing needs GKE's slice controller, which cluster ${spec.name} does not run; xpk enables it only when it creates a cluster (\`gcloud container clusters update ${spec.name} --enable-slice-controller\` enables it).`,
    )
  }
  if (observed.status === 'ERROR') {
    warnings.push(`Cluster ${spec.name} is in ERROR${observed.statusMessage ? ` (${observed.statusMessage})` : ''}.`)
  }
  return warnings
}

/** The desired pool for a name, with the reservation picked for it. */
export function nodePoolSpec(template: NodePoolTemplate, name: string, reservation: string | null): NodePoolSpec {
  return {...template, name, reservation}
}

interface Candidate {
  readonly pool: ObservedNodePool
  readonly index: number
  readonly differences: readonly string[]
}

/** The index of one of xpk's own pools (`<cluster>-np-<i>`), or undefined for a pool xpk does not manage. */
export const ownPoolIndex = (cluster: string, name: string): number | undefined => {
  const prefix = `${cluster}-np-`
  if (!name.startsWith(prefix)) return undefined
  const rest = name.slice(prefix.length)
  return /^\d+$/.test(rest) ? Number(rest) : Number.MAX_SAFE_INTEGER
}

/**
 * Plans the node pools: keeps up to `poolCount` of the existing `<cluster>-np-*` pools (healthy pools that
 * already match first, then the lowest indices), recreates kept pools that differ from the desired spec or are
 * broken, deletes the rest, and creates pools under the lowest free indices until there are `poolCount`.
 */
export function planNodePools(desired: DesiredCluster, observed: readonly ObservedNodePool[]): NodePoolStep[] {
  const cluster = desired.spec.name
  const template = desired.poolTemplate
  const candidates: Candidate[] = []
  const steps: NodePoolStep[] = []
  // A pool still being deleted frees its name: new pools take it (after the deletion) so names stay canonical.
  const stopping = new Set(
    observed.filter((p) => p.status === 'STOPPING' && ownPoolIndex(cluster, p.name) !== undefined).map((p) => p.name),
  )
  const taken = new Set(observed.map((p) => p.name).filter((n) => !stopping.has(n)))

  for (const pool of observed) {
    const index = ownPoolIndex(cluster, pool.name)
    if (pool.name === PATHWAYS_CPU_POOL) {
      steps.push(...planPathwaysPool(desired, pool))
    } else if (index === undefined) {
      steps.push({
        action: 'none',
        resource: 'nodePool',
        name: pool.name,
        reason: `not managed by xpk (only ${cluster}-np-* pools are)`,
        spec: null,
        managed: false,
        wait: false,
      })
    } else if (pool.status === 'STOPPING') {
      continue
    } else {
      candidates.push({
        pool,
        index,
        differences: differencesFrom(template, desired.reservations, pool, desired.slicing === 'super'),
      })
    }
  }

  const rank = (c: Candidate) => (c.pool.status === 'ERROR' ? 2 : c.differences.length > 0 ? 1 : 0)
  const kept = [...candidates].sort((x, y) => rank(x) - rank(y) || x.index - y.index).slice(0, desired.poolCount)
  const keptNames = new Set(kept.map((c) => c.pool.name))
  // Super-slicing puts each new pool on one sub-block (read before planning); otherwise on the items given.
  const targets = desired.poolReservations?.length ? desired.poolReservations : desired.reservations
  const reservationUse = new Map<string, number>(targets.map((r) => [r, 0]))

  for (const c of candidates) {
    if (keptNames.has(c.pool.name)) continue
    const why =
      c.pool.status === 'ERROR' ? `in ERROR state${c.pool.statusMessage ? ` (${c.pool.statusMessage})` : ''} and ` : ''
    steps.push({
      action: 'delete',
      resource: 'nodePool',
      name: c.pool.name,
      reason: `${why}not needed: ${desired.poolCount} ${desired.poolCount === 1 ? 'pool' : 'pools'} requested`,
      spec: null,
      managed: true,
      wait: false,
    })
  }
  for (const c of kept) {
    if (
      c.differences.length === 0 &&
      c.pool.status !== 'ERROR' &&
      c.pool.reservation !== null &&
      (targets === desired.reservations || reservationUse.has(c.pool.reservation))
    ) {
      reservationUse.set(c.pool.reservation, (reservationUse.get(c.pool.reservation) ?? 0) + 1)
    }
  }
  const newUse = new Map<string, number>()
  const pickReservation = (): string | null => {
    if (template.capacity !== 'reservation' || desired.reservations.length === 0) return null
    // Spread new pools over the reservations: fewest pools first, then the order given; only over those with room
    // left when their room was read (and any has some).
    const room = desired.reservationRoom
    const entries = [...reservationUse.entries()]
    const withRoom = room ? entries.filter(([r]) => (newUse.get(r) ?? 0) < (room.get(r) ?? 0)) : []
    const [best] = (withRoom.length > 0 ? withRoom : entries).sort((a, b) => a[1] - b[1])
    reservationUse.set(best[0], best[1] + 1)
    newUse.set(best[0], (newUse.get(best[0]) ?? 0) + 1)
    return best[0]
  }

  for (const c of kept) {
    const pool = c.pool
    if (pool.status === 'ERROR') {
      const failed = creationFailedForCapacity(pool.statusMessage)
      const reason = `in ERROR state${pool.statusMessage ? `: ${pool.statusMessage}` : ''}`
      steps.push({
        ...change('recreate', pool.name, failed ? `${reason} (never provisioned: nothing is lost)` : reason),
        ...(failed ? {nothingToLose: true} : {}),
      })
    } else if (c.differences.length > 0) {
      steps.push(change('recreate', pool.name, `differs from the request: ${c.differences.join('; ')}`))
    } else {
      const provisioning = pool.status === 'PROVISIONING' || pool.status === 'RECONCILING'
      steps.push({
        action: 'none',
        resource: 'nodePool',
        name: pool.name,
        reason: provisioning
          ? `matches the request; ${pool.status.toLowerCase()}, waiting for it`
          : 'matches the request',
        spec: nodePoolSpec(template, pool.name, pool.reservation),
        managed: true,
        wait: provisioning,
      })
    }
  }

  let next = 0
  for (let i = kept.length; i < desired.poolCount; i++) {
    while (taken.has(`${cluster}-np-${next}`)) next++
    const name = `${cluster}-np-${next}`
    taken.add(name)
    if (stopping.delete(name)) {
      steps.push({
        ...change('create', name, 'new slice, once GKE has finished deleting the earlier pool of this name'),
        afterDeletion: true,
      })
    } else steps.push(change('create', name, desired.autoprovisioning ? NAP_FIXED_SLICE : 'new slice'))
  }
  for (const name of stopping) {
    steps.push({
      action: 'none',
      resource: 'nodePool',
      name,
      reason: 'is being deleted already',
      spec: null,
      managed: true,
      wait: false,
    })
  }

  if (desired.pathways && !observed.some((p) => p.name === PATHWAYS_CPU_POOL)) {
    steps.push(...planPathwaysPool(desired, undefined))
  }

  function change(action: 'create' | 'recreate', name: string, reason: string): NodePoolStep {
    const reservation = pickReservation()
    return {
      action,
      resource: 'nodePool',
      name,
      reason,
      spec: nodePoolSpec(template, name, reservation),
      managed: true,
      wait: false,
    }
  }

  return steps.sort(byPoolName)
}

/**
 * The Pathways CPU pool `cpu-np`. `cluster create-pathways` creates it when missing, keeps it when its machine type
 * is `--pathways-gce-machine-type`, and recreates it otherwise (or when in ERROR), as its slices. `cluster create`
 * (and `create-pathways` of another shape) never deletes it as a pool it does not manage: Pathways workloads' heads
 * run there, and Python xpk keeps it too.
 */
function planPathwaysPool(desired: DesiredCluster, pool: ObservedNodePool | undefined): NodePoolStep[] {
  const name = PATHWAYS_CPU_POOL
  const request = desired.pathways
  if (!request) {
    const reason = 'the Pathways CPU pool (xpk cluster create-pathways): kept, Pathways heads run there'
    return [{action: 'none', resource: 'nodePool', name, reason, spec: null, managed: false, wait: false}]
  }
  const spec = pathwaysPoolSpec(request, desired.spec.zone, desired.poolTemplate.version)
  const step = (action: PlanAction, reason: string, extra: Partial<NodePoolStep> = {}): NodePoolStep => ({
    action,
    resource: 'nodePool',
    name,
    reason,
    spec,
    managed: action !== 'none' || extra.wait === true,
    wait: false,
    ...extra,
  })
  if (pool === undefined) return [step('create', 'the Pathways CPU pool (heads: proxy, resource manager, client)')]
  if (pool.status === 'STOPPING') {
    return [
      step('create', 'the Pathways CPU pool, once GKE has finished deleting the earlier one', {afterDeletion: true}),
    ]
  }
  if (pool.status === 'ERROR') {
    const failed = creationFailedForCapacity(pool.statusMessage)
    return [
      step('recreate', `in ERROR state${pool.statusMessage ? `: ${pool.statusMessage}` : ''}`, {
        ...(failed ? {nothingToLose: true} : {}),
      }),
    ]
  }
  if (pool.machineType !== request.machineType) {
    return [step('recreate', `differs from the request: machine type ${pool.machineType} → ${request.machineType}`)]
  }
  const provisioning = pool.status === 'PROVISIONING' || pool.status === 'RECONCILING'
  return [
    step(
      'none',
      provisioning ? `matches the request; ${pool.status.toLowerCase()}, waiting for it` : 'matches the request',
      {
        wait: provisioning,
      },
    ),
  ]
}

/**
 * With node auto-provisioning, Python xpk still creates `--num-slices` pools (1 unless given) before it enables it;
 * so does xpk, and says so, since they stay whether or not workloads need them.
 */
const NAP_FIXED_SLICE = 'new slice, a fixed pool beside node auto-provisioning (as Python xpk; --num-slices 0 for none)'

function byPoolName(a: NodePoolStep, b: NodePoolStep): number {
  const key = (s: NodePoolStep) => (s.managed ? 0 : 1)
  return key(a) - key(b) || a.name.localeCompare(b.name, 'en', {numeric: true})
}

/** Whether reservation path `path` is a block or sub-block of the item `item`. */
function isUnder(path: string, item: string): boolean {
  return path.startsWith(`${item}/reservationBlocks/`) || path.startsWith(`${item}/reservationSubBlocks/`)
}

function placementText(p: PlacementPolicy | null): string {
  if (p === null) return 'none'
  return p.type === 'compact' ? `compact ${p.tpuTopology}` : `workload policy ${p.name}`
}

function observedPlacement(pool: ObservedNodePool): string {
  if (pool.placementPolicyName) return `workload policy ${pool.placementPolicyName}`
  if (pool.placementType === 'COMPACT') return `compact ${pool.tpuTopology ?? ''}`.trim()
  return 'none'
}

/** What differs between a pool and the desired template, in words; empty when it matches. */
export function differencesFrom(
  template: NodePoolTemplate,
  reservations: readonly string[],
  pool: ObservedNodePool,
  /** Super-slicing: a pool on any sub-block of an item is on that item. */
  onSubBlocks = false,
): string[] {
  const out: string[] = []
  if (pool.machineType !== template.machineType) out.push(`machine type ${pool.machineType} → ${template.machineType}`)
  const want = placementText(template.placementPolicy)
  const have = observedPlacement(pool)
  if (want !== have) out.push(`placement ${have} → ${want}`)
  if (pool.capacity !== template.capacity) out.push(`capacity ${pool.capacity} → ${template.capacity}`)
  else if (
    template.capacity === 'reservation' &&
    (pool.reservation === null ||
      !reservations.some((r) => pool.reservation === r || (onSubBlocks && isUnder(pool.reservation!, r))))
  ) {
    out.push(`reservation ${pool.reservation ?? 'none'} → ${reservations.join(' or ')}`)
  }
  const wantNets = (template.additionalNodeNetworks ?? []).map((n) => n.network).join(',') || 'none'
  const haveNets = (pool.additionalNodeNetworks ?? []).join(',') || 'none'
  if (wantNets !== haveNets) out.push(`additional node networks ${haveNets} → ${wantNets}`)
  const wantGpu = template.gpu ? `${template.gpu.count}x ${template.gpu.type}` : 'none'
  const haveGpu = pool.gpu ? `${pool.gpu.count}x ${pool.gpu.type}` : 'none'
  if (wantGpu !== haveGpu) out.push(`GPUs ${haveGpu} → ${wantGpu}`)
  const wrongZone =
    template.locations.length > 0 && pool.locations.length > 0 && pool.locations.join() !== template.locations.join()
  if (wrongZone) out.push(`zone ${pool.locations.join(',')} → ${template.locations.join(',')}`)
  // Known only when the pools were read through v1beta1 (cluster create reads them so when it keeps any of its own);
  // GKE cannot change it in place (UpdateNodePool has no field for it), so a different interval is a recreate.
  const interval = pool.hostMaintenanceInterval
  if (interval !== undefined && interval !== template.hostMaintenanceInterval) {
    out.push(`host maintenance interval ${interval} → ${template.hostMaintenanceInterval}`)
  }
  // GKE reports only the count a pool was created with, so a different count is a recreate, not a resize that
  // the next run could not see.
  if (template.capacity !== 'flex' && pool.nodeCount !== template.nodeCount) {
    out.push(`node count ${pool.nodeCount} → ${template.nodeCount}`)
  }
  return out
}

/**
 * The plan of `xpk cluster delete`: one step on the cluster, with the node pools (and so the workloads) it takes
 * along, applied by the same executor as `cluster create`. A cluster GKE is already deleting gets a delete step that
 * only waits; one that does not exist gets none.
 */
export function planClusterDelete(
  target: {readonly project: string; readonly location: string; readonly name: string},
  observed: ObservedCluster | undefined,
  /** The cluster's GPU networks, found by their names (gpu-networks.ts): deleted after the cluster. */
  gpuNetworks: {
    readonly region: string
    readonly networks: readonly string[]
    readonly subnetworks: readonly string[]
    readonly firewalls: readonly string[]
  } = {region: target.location, networks: [], subnetworks: [], firewalls: []},
): Plan {
  const pools = observed?.nodePools.map((p) => p.name) ?? []
  const step: ClusterStep =
    observed === undefined
      ? {
          action: 'none',
          resource: 'cluster',
          name: target.name,
          reason: 'does not exist: nothing to delete',
          spec: null,
          wait: false,
        }
      : {
          action: 'delete',
          resource: 'cluster',
          name: target.name,
          reason:
            observed.status === 'STOPPING'
              ? 'is already being deleted; waits until GKE has finished'
              : `with its ${pools.length} node pool${pools.length === 1 ? '' : 's'} (${pools.join(', ') || 'none'}) and every workload on them`,
          spec: null,
          wait: observed.status === 'STOPPING',
        }
  const after = observed === undefined ? '' : ', after the cluster'
  const remove = (resource: GpuNetworkStep['resource'], name: string, why: string): GpuNetworkStep => ({
    action: 'delete',
    resource,
    name,
    reason: `${why}${after}`,
    spec: null,
    ...(resource === 'subnetwork' ? {region: gpuNetworks.region} : {}),
    wait: false,
  })
  return {
    project: target.project,
    location: observed?.location ?? target.location,
    cluster: target.name,
    steps: [
      step,
      ...gpuNetworks.firewalls.map((n) => remove('firewall', n, "the cluster's GPU network firewall rule")),
      ...gpuNetworks.subnetworks.map((n) => remove('subnetwork', n, "the cluster's GPU subnetwork")),
      ...gpuNetworks.networks.map((n) =>
        remove('network', n, "the cluster's GPU network, once its subnetworks and firewall rules are gone"),
      ),
    ],
    warnings: [],
  }
}

/**
 * Whether a workload policy that was just created (or found) can be named by node pools: true when READY, false
 * while CREATING. One that vanished (its creator's insert failed) or is in any other state is an error.
 * @throws ApiError conflict: retryable for a vanished policy (a re-run creates it), final for a bad state
 */
export function workloadPolicyReady(spec: WorkloadPolicySpec, found: ObservedWorkloadPolicyState | undefined): boolean {
  if (found === undefined) {
    throw new ApiError('conflict', `Workload policy ${spec.name} disappeared while another request created it.`, {
      status: 'ABORTED',
      retryable: true,
      hints: ['Re-run the same command: it creates the policy again.'],
    })
  }
  if (found.status === null || found.status === 'READY') return true
  if (found.status === 'CREATING') return false
  throw new ApiError('conflict', `Workload policy ${spec.name} is ${found.status}, so pools cannot use it.`, {
    status: 'FAILED_PRECONDITION',
    retryable: false,
    hints: [
      `Delete it (\`gcloud compute resource-policies delete ${spec.name} --project=${spec.project} --region=${spec.region}\`) once no node pool uses it, and re-run.`,
    ],
  })
}

/** What {@link workloadPolicyReady} needs to know of an observed policy. */
export interface ObservedWorkloadPolicyState {
  readonly status: string | null
}
