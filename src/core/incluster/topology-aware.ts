/**
 * Whether Kueue's topology-aware scheduling (TAS) can place a GPU cluster's pods by network topology. When it can,
 * the cluster gets the `gke-default` Topology and its ResourceFlavor names it, and A3/A4 workloads ask Kueue to
 * pack their pods (the JobSet builder's `topologyAwareScheduling`).
 */
import type {Accelerator} from '../catalog/types.js'
import type {Capacity} from '../cluster/spec.js'

/** GPU families whose topology labels GKE sets only on reserved or flex-start (DWS) capacity. */
const TOPOLOGY_ONLY_ON_RESERVED_OR_FLEX = new Set(['h100-80gb', 'h100-mega-80gb'])

/** What is known about the cluster's node pools when deciding. */
export interface ObservedPlacement {
  /** At least one node pool of the cluster has COMPACT placement. */
  readonly compactPlacementPool: boolean
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
