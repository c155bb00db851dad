/**
 * The cluster's size as its node pools provide it once the GKE steps are done. The quota (the ResourceFlavor named
 * for the slice count, the ClusterQueue's nominal quota) and the resources ConfigMap describe what was
 * provisioned, not what was asked for: after a grow from 2 to 4 slices in which the 2 new pools met a stockout, 2
 * slices run, and a quota of 4 would admit workloads no node can take (and `workload create` would accept them).
 */
import type {DesiredCluster} from '../cluster/desired.js'
import type {NodePoolStatus, ObservedNodePool} from '../cluster/observed.js'
import {differencesFrom, ownPoolIndex} from '../cluster/plan.js'
import type {ClusterShape} from './cluster-shape.js'

/** Pools that have their nodes: RUNNING, and RUNNING_WITH_ERROR, which the pool steps count as created too. */
const PROVIDING: ReadonlySet<NodePoolStatus> = new Set(['RUNNING', 'RUNNING_WITH_ERROR'])

/**
 * `shape` with its size taken from `pools` (as GKE lists them after the GKE steps): xpk's own pools that are
 * RUNNING and match the request (same machine type, placement, capacity, node count, as the plan compares them),
 * each a slice (TPU, CPU); a GPU cluster's one pool gives its `--num-nodes` VMs, or none when it is not RUNNING.
 * Pools of other types, others' pools, and pools in ERROR, being made or being deleted provide nothing.
 */
export function shapeOfRunningPools(
  shape: ClusterShape,
  desired: DesiredCluster,
  pools: readonly ObservedNodePool[],
): ClusterShape {
  // Node auto-provisioning's quota is its maximum, not what the fixed pools hold.
  if (shape.autoprovisioning) return shape
  const running = pools.filter(
    (p) =>
      ownPoolIndex(desired.spec.name, p.name) !== undefined &&
      PROVIDING.has(p.status) &&
      differencesFrom(desired.poolTemplate, desired.reservations, p, desired.slicing === 'super').length === 0,
  ).length
  if (shape.accelerator.kind === 'GPU') return {...shape, numNodes: running > 0 ? shape.numNodes : 0}
  return {...shape, numSlices: running}
}
