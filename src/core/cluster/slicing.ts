/**
 * Sub- and super-slicing, as Python xpk sets them up (commands/cluster.py, core/kueue_manager.py, core/nodepool.py).
 *
 * Sub-slicing (v6e): workloads of a smaller topology (2x4, 4x4, ...) share a slice; Kueue places them through a
 * Topology of GKE's `cloud.google.com/gke-tpu-slice-<T>-id` node labels. The node pools are ordinary.
 *
 * Super-slicing (tpu7x-4x4x4, a "cube"): GKE's slice controller joins cubes into larger slices for a workload. Each
 * node pool is one cube on one healthy sub-block of a Cluster Director (DENSE) reservation, placed by a workload
 * policy in PROVISION_ONLY mode; Kueue admits workloads through the slice controller's admission check and places
 * them through a Topology of block, 4x4x4 partition and host.
 */
import type {Accelerator} from '../catalog/types.js'

export type Slicing = 'sub' | 'super'

/** The flag that asks for each. */
export const SLICING_FLAGS: Readonly<Record<Slicing, string>> = {sub: '--sub-slicing', super: '--super-slicing'}

/** The sub-slice topologies of v6e, as Python xpk lists them (core/system_characteristics.py). */
export const SUB_SLICING_TOPOLOGIES = ['2x4', '4x4', '4x8', '8x8', '8x16', '16x16'] as const

/** Kueue Topology names Python xpk gives them, which workloads of either tool look for. */
export const SUB_SLICE_TOPOLOGY_NAME = 'sub-slice-topology'
export const SUPER_SLICE_TOPOLOGY_NAME = 'super-slice-topology'

/** The admission check through which GKE's slice controller forms a super-slice before Kueue admits a workload. */
export const SUPER_SLICING_ADMISSION_CHECK = 'ss-kueue-operator'
export const SUPER_SLICING_CONTROLLER_NAME = 'accelerator.gke.io/slice'

/** The node label of a sub-slice of topology `topology`. */
export function sliceTopologyLabel(topology: string): string {
  return `cloud.google.com/gke-tpu-slice-${topology}-id`
}

const dims = (topology: string) => topology.split('x').map(Number)
const product = (topology: string) => dims(topology).reduce((a, b) => a * b, 1)

/** Whether `inner` fits inside `outer` dimension by dimension (same number of dimensions), as Python compares them. */
export function topologyContained(inner: string, outer: string): boolean {
  const [a, b] = [dims(inner), dims(outer)]
  return a.length === b.length && a.every((x, i) => x <= b[i]!)
}

/**
 * The levels of the sub-slicing Topology of a cluster of `topology`: every sub-slice topology that fits in it,
 * largest first, then the host (Kueue requires the hostname level last).
 */
export function subSlicingTopologyLevels(topology: string): string[] {
  const fitting = [...SUB_SLICING_TOPOLOGIES]
    .sort((x, y) => product(y) - product(x))
    .filter((t) => topologyContained(t, topology))
  return [...fitting.map(sliceTopologyLabel), 'kubernetes.io/hostname']
}

/** The levels of the super-slicing Topology: the reservation block, the 4x4x4 cube, the host. */
export const SUPER_SLICING_TOPOLOGY_LEVELS = [
  'cloud.google.com/gce-topology-block',
  'cloud.google.com/gke-tpu-partition-4x4x4-id',
  'kubernetes.io/hostname',
] as const

/** Whether `accelerator` supports `slicing` (Python: supports_sub_slicing, supports_super_slicing). */
export function supportsSlicing(accelerator: Accelerator, slicing: Slicing): boolean {
  return slicing === 'sub' ? accelerator.supportsSubSlicing : accelerator.supportsSuperSlicing
}
