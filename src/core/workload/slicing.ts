/**
 * The workload side of sub- and super-slicing (the cluster side: src/core/cluster/slicing.ts), as Python xpk's
 * `workload create` decides it (core/scheduling.py, commands/workload.py):
 *
 *   - a cluster is set up for either when Kueue has its Topology (`sub-slice-topology`, `super-slice-topology`):
 *     `cluster create --sub-slicing/--super-slicing` makes it, and so does Python xpk, which looks for the same
 *     names (`kubectl get topology`);
 *   - sub-slicing: a v6e workload of a sub-slice topology (2x4 ... 16x16) that fits in the cluster's slice runs on
 *     part of a slice: Kueue places it by the Topology level `cloud.google.com/gke-tpu-slice-<T>-id`, and its pods
 *     select the cluster's slices (their topology label is the cluster's);
 *   - super-slicing: a tpu7x workload of whole 4x4x4 cubes (4i x 4j x 4k, i <= j <= k, at most 144 cubes) asks
 *     GKE's slice controller to join cubes into its topology (`cloud.google.com/gke-tpu-slice-topology`); its pods
 *     select the accelerator only.
 */
import {TPU_FAMILIES} from '../../templates/tpu-families.js'
import {SUB_SLICE_TOPOLOGY_NAME, SUB_SLICING_TOPOLOGIES, SUPER_SLICE_TOPOLOGY_NAME} from '../cluster/slicing.js'
import type {Accelerator} from '../catalog/types.js'

/** The Kueue Topologies of sub- and super-slicing a cluster has (Python: has_sub/super_slicing_enabled). */
export interface ClusterSlicing {
  readonly sub: boolean
  readonly super: boolean
}

export const NO_SLICING: ClusterSlicing = {sub: false, super: false}

/** The most 4x4x4 cubes one super-slice may join (Python: _SUPER_SLICING_MAX_CUBES). */
export const SUPER_SLICING_MAX_CUBES = 144

/**
 * The longest name of a super-slicing workload: GCE names made from it (63 characters at most) also carry
 * `default-` (8), `jobset-` (7), Kueue's hash (11) and GKE's (9) (Python: _SUPER_SLICING_WORKLOAD_NAME_LIMIT).
 */
export const SUPER_SLICING_NAME_LIMIT = 28

/** How a workload is placed on a sliced cluster; what its JobSet adds (src/core/manifests/jobset.ts). */
export type WorkloadSlicing =
  | {
      readonly kind: 'sub'
      /** The workload's topology: the sub-slice it runs on. */
      readonly sliceTopology: string
      /** The cluster's slice topology, which the pods select. */
      readonly clusterTopology: string
    }
  | {readonly kind: 'super'; readonly topology: string}

/** Kueue's annotation that makes a pod set land within one domain of a Topology level. */
export const PODSET_REQUIRED_TOPOLOGY_ANNOTATION = 'kueue.x-k8s.io/podset-required-topology'
/** GKE's annotation naming the (sub- or super-) slice topology a pod runs on. */
export const SLICE_TOPOLOGY_ANNOTATION = 'cloud.google.com/gke-tpu-slice-topology'

/** The cluster's slicing, from the names of its Kueue Topology objects. */
export function slicingFromTopologies(names: readonly string[]): ClusterSlicing {
  return {sub: names.includes(SUB_SLICE_TOPOLOGY_NAME), super: names.includes(SUPER_SLICE_TOPOLOGY_NAME)}
}

/**
 * Whether a workload of `accelerator` could be sliced on some cluster: its accelerator is that of a family with
 * sub- or super-slicing types (v6e, tpu7x). Only then does `workload create` read the cluster's Topologies.
 */
export function mightBeSliced(accelerator: Accelerator): boolean {
  return (
    accelerator.gkeAccelerator !== null &&
    TPU_FAMILIES.some(
      (row) =>
        row.gkeAccelerator === accelerator.gkeAccelerator &&
        ((row.subSlicingTopologies?.length ?? 0) > 0 || (row.superSlicingTopologies?.length ?? 0) > 0),
    )
  )
}

/** Whether `topology` is a sub-slice topology (Python: SUB_SLICING_TOPOLOGIES). */
export function isSubSliceTopology(topology: string | null): topology is string {
  return topology !== null && (SUB_SLICING_TOPOLOGIES as readonly string[]).includes(topology)
}

/**
 * The 4x4x4 cubes of a super-slice of `topology`, or null when it is not one: 4i x 4j x 4k with i <= j <= k and at
 * most {@link SUPER_SLICING_MAX_CUBES} cubes (Python: _check_super_slicing_topology).
 */
export function superSliceCubes(topology: string | null): number | null {
  if (topology === null) return null
  const dims = topology.split('x').map(Number)
  if (dims.length !== 3 || !dims.every((d) => Number.isInteger(d) && d >= 4 && d % 4 === 0)) return null
  const [a, b, c] = dims as [number, number, number]
  if (!(a <= b && b <= c)) return null
  const cubes = (a / 4) * (b / 4) * (c / 4)
  return cubes <= SUPER_SLICING_MAX_CUBES ? cubes : null
}
