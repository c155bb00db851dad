import type {ObservedCluster, ObservedNodePool} from './observed.js'
import {
  CSI_DRIVERS,
  workloadPoolOf,
  type AutoprovisioningSpec,
  type ClusterUpdate,
  type CsiDriver,
  type NodePoolUpdate,
  type ResourceLimit,
} from './spec.js'

/**
 * What a cluster must have for something xpk sets up (`cluster create --enable-*`, a storage to attach): CSI driver
 * addons, the Lustre driver's legacy port, Workload Identity. Each says why it is needed, for the plan's reasons.
 */
export interface ClusterNeeds {
  readonly csiDrivers: readonly {readonly driver: CsiDriver; readonly why: string}[]
  /** The Lustre CSI driver on its legacy port (6988); only together with LustreCsiDriver. */
  readonly lustreLegacyPort: {readonly why: string} | null
  /** The project's Workload Identity pool on the cluster, and GKE_METADATA on xpk's node pools. */
  readonly workloadIdentity: {readonly why: string} | null
}

/** Nothing needed. */
export const NO_NEEDS: ClusterNeeds = {csiDrivers: [], lustreLegacyPort: null, workloadIdentity: null}

/**
 * A change to an existing cluster's settings: one UpdateCluster request, run alone (GKE refuses it beside any other
 * operation on the cluster). `none` when what was asked for is there already: nothing is sent.
 */
export interface ClusterUpdateStep {
  readonly action: 'update' | 'none'
  readonly resource: 'clusterUpdate'
  /** The cluster. */
  readonly name: string
  readonly reason: string
  /** The change sent; for `none`, the change that is not needed. */
  readonly spec: ClusterUpdate
  readonly wait: false
}

/** A change to an existing node pool in place: one UpdateNodePool request; GKE recreates the pool's nodes for it. */
export interface NodePoolUpdateStep {
  readonly action: 'update'
  readonly resource: 'nodePoolUpdate'
  /** The node pool. */
  readonly name: string
  readonly reason: string
  readonly spec: NodePoolUpdate
  readonly wait: false
}

export type UpdateStep = ClusterUpdateStep | NodePoolUpdateStep

/** The steps that bring a cluster to what is needed, and what xpk leaves to the user. */
export interface ClusterUpdates {
  /** Workload Identity first (what GCS FUSE needs, as Python xpk orders them), then the addons, then the pools. */
  readonly steps: readonly UpdateStep[]
  readonly warnings: readonly string[]
}

/** The node pools of the cluster the updates may touch. */
export interface PoolsToUpdate {
  /** xpk's own pools that stay as they are: switched to GKE_METADATA when Workload Identity is needed. */
  readonly own: readonly ObservedNodePool[]
  /** Pools xpk does not change (made by others); those without GKE_METADATA are named in a warning. */
  readonly others: readonly ObservedNodePool[]
}

/**
 * Plans what an existing cluster lacks of `needs`, as Python xpk's `update_cluster_with_*_if_necessary` decide it:
 * Workload Identity unless the cluster has the project's pool; each CSI driver that is not enabled (one request for
 * all); Lustre again when its legacy port is wanted and off. What is there already is a `none` step and sends
 * nothing, so a re-run changes nothing. With Workload Identity, xpk's own pools without GKE_METADATA are switched
 * (their nodes are recreated; Python xpk does the same in `cluster create`); pools of others are only named.
 */
export function planClusterUpdates(
  needs: ClusterNeeds,
  observed: ObservedCluster,
  pools: PoolsToUpdate,
): ClusterUpdates {
  const cluster = observed.name
  const steps: UpdateStep[] = []
  const warnings: string[] = []
  const identity = needs.workloadIdentity
  if (identity) {
    const spec: ClusterUpdate = {kind: 'workloadIdentity', workloadPool: workloadPoolOf(observed.project)}
    const enabled = clusterHas(observed, spec)
    steps.push({
      action: enabled ? 'none' : 'update',
      resource: 'clusterUpdate',
      name: cluster,
      reason: enabled ? 'already enabled' : `not enabled yet (${identity.why})`,
      spec,
      wait: false,
    })
  }
  const legacyPortMissing = needs.lustreLegacyPort !== null && !observed.lustreLegacyPort
  const missing = needs.csiDrivers.filter(
    ({driver}) => !observed.csiDrivers.includes(driver) || (driver === 'LustreCsiDriver' && legacyPortMissing),
  )
  const present = needs.csiDrivers.filter((need) => !missing.includes(need))
  if (missing.length > 0) {
    const whys = [...missing.map((m) => m.why), ...(legacyPortMissing ? [needs.lustreLegacyPort!.why] : [])]
    steps.push({
      action: 'update',
      resource: 'clusterUpdate',
      name: cluster,
      reason: `not enabled yet (${[...new Set(whys)].join(', ')})`,
      spec: {kind: 'addons', enable: inOrder(missing.map((m) => m.driver)), lustreLegacyPort: legacyPortMissing},
      wait: false,
    })
    if (missing.some((m) => m.driver === 'LustreCsiDriver') && observed.nodePools.length > 0) {
      warnings.push(lustreNodesWarning(observed))
    }
  }
  if (present.length > 0) {
    steps.push({
      action: 'none',
      resource: 'clusterUpdate',
      name: cluster,
      reason: 'already enabled',
      spec: {
        kind: 'addons',
        enable: inOrder(present.map((p) => p.driver)),
        lustreLegacyPort: present.some((p) => p.driver === 'LustreCsiDriver') && observed.lustreLegacyPort,
      },
      wait: false,
    })
  }
  if (identity) {
    for (const pool of pools.own.filter((p) => p.workloadMetadataMode !== 'GKE_METADATA')) {
      steps.push({
        action: 'update',
        resource: 'nodePoolUpdate',
        name: pool.name,
        reason: `its pods get Workload Identity only from the GKE metadata server (${identity.why}); GKE recreates its nodes`,
        spec: {workloadMetadataMode: 'GKE_METADATA'},
        wait: false,
      })
    }
    const left = pools.others.filter((p) => p.workloadMetadataMode !== 'GKE_METADATA').map((p) => p.name)
    if (left.length > 0) warnings.push(othersWithoutIdentityWarning(observed, left))
  }
  return {steps, warnings}
}

/** Whether the cluster shows what `update` enables (after the update, or because it was there already). */
export function clusterHas(observed: ObservedCluster, update: ClusterUpdate): boolean {
  if (update.kind === 'workloadIdentity') return observed.workloadPool === update.workloadPool
  if (update.kind === 'autoprovisioning')
    return autoprovisioningDifferences(update.autoprovisioning, observed).length === 0
  if (update.kind === 'rayOperator') return observed.rayOperator === true
  return (
    update.enable.every((driver) => observed.csiDrivers.includes(driver)) &&
    (!update.lustreLegacyPort || observed.lustreLegacyPort)
  )
}

/**
 * The UpdateCluster step of `--enable-autoprovisioning` on an existing cluster: `none` when GKE reports node
 * auto-provisioning with the same limits and zone; else the whole ClusterAutoscaling, which replaces the cluster's
 * (the autoscaling profile with it, so it stays optimize-utilization: one request where Python xpk sends two).
 */
export function planAutoprovisioningUpdate(
  wanted: AutoprovisioningSpec,
  observed: ObservedCluster,
  autoscalingProfile: 'OPTIMIZE_UTILIZATION' | 'BALANCED',
): ClusterUpdateStep {
  const differences = autoprovisioningDifferences(wanted, observed)
  return {
    action: differences.length === 0 ? 'none' : 'update',
    resource: 'clusterUpdate',
    name: observed.name,
    reason:
      differences.length === 0
        ? 'already enabled with these limits'
        : observed.autoprovisioning === null
          ? 'not enabled yet (--enable-autoprovisioning)'
          : `differs: ${differences.join('; ')}`,
    spec: {kind: 'autoprovisioning', autoprovisioning: wanted, autoscalingProfile},
    wait: false,
  }
}

/**
 * The UpdateCluster step of GKE's Ray operator addon (`cluster create-ray`) on an existing cluster: `none` when GKE
 * reports it on, so a re-run sends nothing.
 */
export function planRayOperatorUpdate(observed: ObservedCluster): ClusterUpdateStep {
  const enabled = observed.rayOperator === true
  return {
    action: enabled ? 'none' : 'update',
    resource: 'clusterUpdate',
    name: observed.name,
    reason: enabled ? 'already enabled' : 'not enabled yet (the RayCluster needs KubeRay: cluster create-ray)',
    spec: {kind: 'rayOperator'},
    wait: false,
  }
}

/** How the cluster's node auto-provisioning differs from `wanted`, in words; empty when it matches. */
function autoprovisioningDifferences(wanted: AutoprovisioningSpec, observed: ObservedCluster): string[] {
  const have = observed.autoprovisioning
  if (have === null) return ['not enabled']
  const out: string[] = []
  const text = (l: ResourceLimit | undefined) => (l === undefined ? 'none' : `${l.minimum}-${l.maximum}`)
  for (const limit of wanted.resourceLimits) {
    const there = have.resourceLimits.find((l) => l.resourceType === limit.resourceType)
    if (there?.minimum !== limit.minimum || there.maximum !== limit.maximum) {
      out.push(`${limit.resourceType} ${text(there)} → ${text(limit)}`)
    }
  }
  if (wanted.locations.join() !== have.locations.join()) {
    out.push(`zones ${have.locations.join(',') || 'any'} → ${wanted.locations.join(',')}`)
  }
  return out
}

function inOrder(drivers: readonly CsiDriver[]): CsiDriver[] {
  return CSI_DRIVERS.filter((driver) => drivers.includes(driver))
}

function lustreNodesWarning(observed: ObservedCluster): string {
  return (
    `Nodes that exist when the Lustre CSI driver is enabled may need to be recreated before their pods can mount Lustre; ` +
    `Python xpk recreates the nodes of every pool, xpk does not (every workload on them would restart). If mounts fail, ` +
    `recreate a pool's nodes: \`gcloud container clusters upgrade ${observed.name} --node-pool=POOL --location=${observed.location} --project=${observed.project}\`.`
  )
}

function othersWithoutIdentityWarning(observed: ObservedCluster, pools: readonly string[]): string {
  const many = pools.length > 1
  return (
    `Node pool${many ? 's' : ''} ${pools.join(', ')} ${many ? 'keep' : 'keeps'} the VM's metadata server: xpk changes only its own pools ` +
    `(${observed.name}-np-*), so pods there do not get Workload Identity. To switch one (GKE recreates its nodes): ` +
    `\`gcloud container node-pools update POOL --cluster=${observed.name} --location=${observed.location} --project=${observed.project} --workload-metadata=GKE_METADATA\`.`
  )
}
