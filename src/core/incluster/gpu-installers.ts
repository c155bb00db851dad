/**
 * The DaemonSets GPUDirect needs on a GPU cluster's nodes, from Google's published manifests, as Python xpk applies
 * them after creating the cluster (`prepare_gpus` in src/xpk/commands/cluster.py): the NCCL plugin installer of the
 * type's GPUDirect flavour, and for the H100 types (A3 High, A3 Mega) the NRI device injector, which gives the
 * TCPX/TCPXO daemon the GPU devices its pod annotation names.
 *
 * The manifests live on `master` of GoogleCloudPlatform/container-engine-accelerators: they are downloaded on every
 * run (never cached, see README "GPU clusters") and are never part of this project.
 */
import type {Accelerator} from '../catalog/types.js'
import {makesGpuNetworks} from '../cluster/gpu-networks.js'

export type GpuInstallerName = 'nccl-tcpx' | 'nccl-tcpxo' | 'nccl-rdma' | 'nri-device-injector'

export interface GpuInstaller {
  readonly name: GpuInstallerName
  /** For plan lines and messages. */
  readonly title: string
  readonly url: string
  /** The DaemonSet Google's manifest makes in kube-system; its pods carry `k8s-app: <name>` (`cluster describe`). */
  readonly daemonSet: string
  /** The `cluster create` flag that replaces {@link url} with a file or another URL. */
  readonly overrideFlag: '--nccl-installer-manifest' | '--nri-device-injector-manifest'
}

const BASE = 'https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/master'

export const GPU_INSTALLERS: Readonly<Record<GpuInstallerName, GpuInstaller>> = {
  'nccl-tcpx': {
    name: 'nccl-tcpx',
    daemonSet: 'nccl-tcpx-installer',
    title: 'NCCL TCPX installer',
    url: `${BASE}/gpudirect-tcpx/nccl-tcpx-installer.yaml`,
    overrideFlag: '--nccl-installer-manifest',
  },
  'nccl-tcpxo': {
    name: 'nccl-tcpxo',
    daemonSet: 'nccl-tcpxo-installer',
    title: 'NCCL TCPXO installer',
    url: `${BASE}/gpudirect-tcpxo/nccl-tcpxo-installer.yaml`,
    overrideFlag: '--nccl-installer-manifest',
  },
  'nccl-rdma': {
    name: 'nccl-rdma',
    daemonSet: 'nccl-rdma-installer',
    title: 'NCCL RDMA (gIB) installer',
    url: `${BASE}/gpudirect-rdma/nccl-rdma-installer.yaml`,
    overrideFlag: '--nccl-installer-manifest',
  },
  'nri-device-injector': {
    name: 'nri-device-injector',
    daemonSet: 'device-injector',
    title: 'NRI device injector',
    url: `${BASE}/nri_device_injector/nri-device-injector.yaml`,
    overrideFlag: '--nri-device-injector-manifest',
  },
}

/**
 * The installers `cluster create` applies for a type: A3 High TCPX and A3 Mega TCPXO with the NRI device injector,
 * A3 Ultra and A4 the RDMA one; none for TPUs, other GPUs, and GB200 (whose A4X installer is not built yet).
 */
export function gpuInstallersFor(accelerator: Accelerator): GpuInstaller[] {
  if (!makesGpuNetworks(accelerator)) return []
  const direct = accelerator.gpu?.gpuDirect
  if (direct === 'tcpx') return [GPU_INSTALLERS['nccl-tcpx'], GPU_INSTALLERS['nri-device-injector']]
  if (direct === 'tcpxo') return [GPU_INSTALLERS['nccl-tcpxo'], GPU_INSTALLERS['nri-device-injector']]
  if (direct === 'rdma') return [GPU_INSTALLERS['nccl-rdma']]
  return []
}

/** A DaemonSet's status as far as the wait reads it. */
export interface DaemonSetStatus {
  readonly metadata?: {readonly generation?: number}
  readonly status?: {
    readonly observedGeneration?: number
    readonly desiredNumberScheduled?: number
    readonly numberReady?: number
    readonly updatedNumberScheduled?: number
  }
}

/**
 * What a DaemonSet still waits for, or undefined once it is ready on every node it is scheduled on (numberReady =
 * desiredNumberScheduled, for the spec applied). A DaemonSet with no node to run on yet (GPU pools that scale from
 * zero) is ready: its pods start with the nodes, before any workload can be placed on them.
 */
export function daemonSetWaiting(daemonSet: DaemonSetStatus | undefined): string | undefined {
  if (daemonSet === undefined) return 'it does not exist'
  const generation = daemonSet.metadata?.generation ?? 0
  const status = daemonSet.status ?? {}
  if ((status.observedGeneration ?? 0) < generation) return 'its controller has not seen its spec yet'
  const desired = status.desiredNumberScheduled ?? 0
  const ready = status.numberReady ?? 0
  if (ready < desired) return `${ready} of ${desired} pods ready`
  return undefined
}
