import type {GpuDirect} from '../../templates/gpu-cpu-types.js'

export type {GpuDirect}

/** The three kinds of accelerator xpk schedules. */
export type AcceleratorKind = 'TPU' | 'GPU' | 'CPU'

export type DockerPlatform = 'linux/amd64' | 'linux/arm64'

/** GPU-only facts. */
export interface GpuTraits {
  /** Needs a compact placement (topology-aware scheduling) to reach full interconnect bandwidth. */
  readonly requiresTopology: boolean
  readonly gpuDirect: GpuDirect
  /** The NCCL installer manifest URL for the cluster, if the type needs one. */
  readonly ncclInstaller: string | null
}

/**
 * One accepted accelerator type name and everything xpk derives from it. Aliases (`v5p-4x4x8`) are separate
 * entries whose `canonical` names the type they stand for (`v5p-256`).
 */
export interface Accelerator {
  /** The name as the user may type it. */
  readonly name: string
  /** The canonical name (Python xpk's `device_type`); equals `name` unless `name` is an alias. */
  readonly canonical: string
  readonly kind: AcceleratorKind
  /** TPU prefix (`v5p`), GPU model (`h100-80gb`) or CPU machine type (`n2-standard-32`). */
  readonly family: string
  /** TPU `AxB[xC]`; gb200 `1x72`; null for other GPUs and CPUs. */
  readonly topology: string | null
  /** VMs in one slice (GPUs: always 1; the VM count of a GPU workload is `--num-nodes`). */
  readonly vmsPerSlice: number
  /** TPU chips or GPUs per VM; for CPUs, the vCPUs per VM. */
  readonly chipsPerVm: number
  /** Value of the node accelerator label (`cloud.google.com/gke-tpu-accelerator` etc.); null for CPUs. */
  readonly gkeAccelerator: string | null
  /** GCE machine type of each VM. */
  readonly machineType: string
  /** Containers per pod that share the VM's chips (tpu7/tpu7x 4-chip VMs: 2). */
  readonly parallelContainers: number
  readonly dockerPlatform: DockerPlatform
  /** Multi-host slice needing a GCE workload placement policy (tpu7/tpu7x multi-host, every GPU). */
  readonly requiresWorkloadPolicy: boolean
  readonly supportsSubSlicing: boolean
  readonly supportsSuperSlicing: boolean
  /** Node pools get `--accelerator-network-profile=auto`. */
  readonly supportsAcceleratorNetworkProfile: boolean
  /** Tensor cores per TPU chip; null for GPUs and CPUs. */
  readonly tensorcoresPerChip: number | null
  /** Pathways' name for the TPU generation; null for GPUs and CPUs. */
  readonly pathwaysVersion: string | null
  readonly gpu: GpuTraits | null
}

/** The Kubernetes resource, node label keys and toleration of each kind. */
export const KIND_TRAITS = {
  TPU: {
    resource: 'google.com/tpu',
    acceleratorLabel: 'cloud.google.com/gke-tpu-accelerator',
    topologyLabel: 'cloud.google.com/gke-tpu-topology',
  },
  GPU: {
    resource: 'nvidia.com/gpu',
    acceleratorLabel: 'cloud.google.com/gke-accelerator',
    topologyLabel: null,
  },
  CPU: {resource: 'cpu', acceleratorLabel: null, topologyLabel: null},
} as const satisfies Record<
  AcceleratorKind,
  {resource: string; acceleratorLabel: string | null; topologyLabel: string | null}
>

/** Total chips (TPU/GPU) or vCPUs (CPU) of one slice. */
export function chipsPerSlice(accelerator: Accelerator): number {
  return accelerator.vmsPerSlice * accelerator.chipsPerVm
}
