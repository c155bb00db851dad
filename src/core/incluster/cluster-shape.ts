/**
 * What a cluster holds, as far as the objects inside it care: one accelerator type, how many of it, and how the
 * VMs were obtained. Kueue's quota, the ResourceFlavor and the ConfigMaps are all derived from it.
 */
import type {Accelerator} from '../catalog/types.js'
import {KIND_TRAITS} from '../catalog/types.js'
import type {Slicing} from '../cluster/slicing.js'
import type {Capacity} from '../cluster/spec.js'

export interface ClusterShape {
  readonly clusterName: string
  readonly accelerator: Accelerator
  /**
   * Slices of a TPU or CPU type (0 for an empty cluster). GPU clusters have one pool; Python xpk still names their
   * flavor after `--num-slices`, which is 1 unless given.
   */
  readonly numSlices: number
  /** GPU VMs (`--num-nodes`); not used for TPU and CPU types. */
  readonly numNodes: number
  readonly capacity: Capacity
  /** `--reservation` exactly as given (one name or a comma-separated list), when capacity is reservation. */
  readonly reservation: string | null
  /**
   * The ClusterQueue's `cpu` and `memory` quotas (`--cpu-limit`, `--memory-limit`, compared with the cluster's
   * capacity: see kueue-limits.ts); absent or null: not part of the quota.
   */
  readonly cpuQuota?: number | null
  readonly memoryQuota?: string | null
  /**
   * Node auto-provisioning's chips (`cluster create --enable-autoprovisioning`): Kueue's quota is the maximum, as in
   * Python xpk, whatever the fixed pools hold. Absent or null without it.
   */
  readonly autoprovisioning?: {readonly minimumChips: number; readonly maximumChips: number} | null
  /** `--sub-slicing` or `--super-slicing` (Kueue's Topology, flavor and admission check follow); absent: neither. */
  readonly slicing?: Slicing | null
  /**
   * A Pathways cluster (`cluster create-pathways`, or a cluster with its `cpu-np` pool): Kueue's `cpu-user` flavor
   * and resource group. Absent: not one.
   */
  readonly pathways?: boolean
}

/** The Kubernetes resource Kueue's quota counts: `google.com/tpu`, `nvidia.com/gpu` or `cpu`. */
export function quotaResource(shape: ClusterShape): string {
  return KIND_TRAITS[shape.accelerator.kind].resource
}

/**
 * VMs the cluster holds: GPU `--num-nodes`, otherwise slices x VMs per slice. This is the count the resources
 * ConfigMap records and `workload create` checks a request against.
 */
export function clusterVmCount(shape: ClusterShape): number {
  return shape.accelerator.kind === 'GPU' ? shape.numNodes : shape.numSlices * shape.accelerator.vmsPerSlice
}

/**
 * Kueue's nominal quota: every TPU chip, every GPU, or (CPU types) every vCPU of the cluster's VMs; with node
 * auto-provisioning, its maximum chips.
 */
export function totalQuota(shape: ClusterShape): number {
  if (shape.autoprovisioning) return shape.autoprovisioning.maximumChips
  return clusterVmCount(shape) * shape.accelerator.chipsPerVm
}

/**
 * The ResourceFlavor's name, `<slices>x<device type>` as Python xpk writes it (`2xv5p-16`, `1xh100-80gb-8`), so a
 * cluster created by either tool keeps one flavor. `_` is not valid in a Kubernetes name and becomes `-`.
 */
export function resourceFlavorName(shape: ClusterShape): string {
  return `${shape.numSlices}x${shape.accelerator.canonical.replaceAll('_', '-')}`
}
