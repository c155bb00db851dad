/**
 * Whether Kueue's topology-aware scheduling (TAS) can place a GPU cluster's pods by network topology. When it can,
 * the cluster gets the `gke-default` Topology and its ResourceFlavor names it, and A3/A4 workloads ask Kueue to
 * pack their pods (the JobSet builder's `topologyAwareScheduling`).
 */
import type {Accelerator} from '../catalog/types.js'
import type {ObservedCluster} from '../cluster/observed.js'
import type {Plan} from '../cluster/plan.js'
import type {Capacity} from '../cluster/spec.js'

/** GPU families whose topology labels GKE sets only on reserved or flex-start (DWS) capacity. */
const TOPOLOGY_ONLY_ON_RESERVED_OR_FLEX = new Set(['h100-80gb', 'h100-mega-80gb'])

/** What is known about the cluster's node pools when deciding. */
export interface ObservedPlacement {
  /** At least one node pool of the cluster has COMPACT placement. */
  readonly compactPlacementPool: boolean
  /** Those pools by name, for the plan's reason. */
  readonly compactPools?: readonly string[]
}

/**
 * Python xpk's `is_GPU_TAS_possible`: never for TPU and CPU, nor for GPUs that need no topology (l4, a100);
 * h100 and h100-mega only on reservation or flex capacity; flex always; otherwise only when a compact-placement
 * pool exists. Python answers yes in any dry run; here a dry run gets the same answer as the run it previews (an
 * offline dry run observes no pools).
 */
export function topologyAwareSchedulingPossible(
  accelerator: Accelerator,
  capacity: Capacity,
  observed: ObservedPlacement,
): boolean {
  if (accelerator.kind !== 'GPU' || !accelerator.gpu?.requiresTopology) return false
  if (TOPOLOGY_ONLY_ON_RESERVED_OR_FLEX.has(accelerator.family) && capacity !== 'reservation' && capacity !== 'flex')
    return false
  if (capacity === 'flex') return true
  return observed.compactPlacementPool
}

/**
 * The cluster's node pools as they will be once the GKE steps of `plan` are done: pools kept or left alone as GKE
 * reports them, pools created or recreated as the plan makes them, deleted pools gone. Python asks GKE for pools
 * with `placementPolicy.type=COMPACT` after creating them; this answers the same question before, so the dry run
 * shows it and a cluster that does not exist yet is planned from the pools that will be created.
 */
export function placementAfterPlan(plan: Plan, observed: ObservedCluster | undefined): ObservedPlacement {
  const live = new Map((observed?.nodePools ?? []).map((p) => [p.name, p]))
  const compactPools: string[] = []
  for (const step of plan.steps) {
    if (step.resource !== 'nodePool' || step.action === 'delete') continue
    const pool = live.get(step.name)
    const compact =
      step.action === 'none'
        ? pool?.placementType === 'COMPACT' && pool.status !== 'STOPPING'
        : step.spec?.placementPolicy?.type === 'compact'
    if (compact) compactPools.push(step.name)
  }
  return {compactPlacementPool: compactPools.length > 0, compactPools}
}

/** Why topology-aware scheduling is possible, for the plan line of the Topology (undefined when it is not). */
export function topologyAwareSchedulingReason(
  accelerator: Accelerator,
  capacity: Capacity,
  observed: ObservedPlacement,
): string | undefined {
  if (!topologyAwareSchedulingPossible(accelerator, capacity, observed)) return undefined
  if (capacity === 'flex') return 'flex-start nodes carry GKE network-topology labels'
  const pools = observed.compactPools ?? []
  if (pools.length === 0) return 'a node pool has COMPACT placement'
  const shown = pools.length > 3 ? [...pools.slice(0, 3), `${pools.length - 3} more`] : pools
  return `node pool${pools.length === 1 ? '' : 's'} ${shown.join(', ')} ${pools.length === 1 ? 'has' : 'have'} COMPACT placement`
}
