/** Static data about GPU and CPU accelerator types, as Python xpk defines them. */

export type GpuDirect = 'fastrak' | 'tcpx' | 'tcpxo' | 'rdma'

const INSTALLERS = 'https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/master'

/** NCCL installer manifests applied to GPU clusters, by GPUDirect flavour. */
export const NCCL_INSTALLERS = {
  tcpx: `${INSTALLERS}/gpudirect-tcpx/nccl-tcpx-installer.yaml`,
  tcpxo: `${INSTALLERS}/gpudirect-tcpxo/nccl-tcpxo-installer.yaml`,
  rdma: `${INSTALLERS}/gpudirect-rdma/nccl-rdma-installer.yaml`,
  rdmaA4x: `${INSTALLERS}/gpudirect-rdma/nccl-rdma-installer-a4x.yaml`,
} as const

export interface GpuTypeRow {
  readonly name: string
  /** The canonical name when `name` is an alias (gb200-4-nolssd is a gb200-4). */
  readonly canonical?: string
  readonly family: string
  readonly gkeAccelerator: string
  readonly machineType: string
  readonly chipsPerVm: number
  readonly topology: string | null
  readonly requiresTopology: boolean
  readonly gpuDirect: GpuDirect
  readonly ncclInstaller: string | null
  readonly acceleratorNetworkProfile: boolean
  readonly arm64: boolean
}

const l4 = (chips: number, machine: string): GpuTypeRow => ({
  name: `l4-${chips}`,
  family: 'l4',
  gkeAccelerator: 'nvidia-l4',
  machineType: machine,
  chipsPerVm: chips,
  topology: null,
  requiresTopology: false,
  gpuDirect: 'fastrak',
  ncclInstaller: null,
  acceleratorNetworkProfile: false,
  arm64: false,
})

const a100 = (chips: number): GpuTypeRow => ({
  name: `a100-40gb-${chips}`,
  family: 'a100-40gb',
  gkeAccelerator: 'nvidia-tesla-a100',
  machineType: `a2-highgpu-${chips}g`,
  chipsPerVm: chips,
  topology: null,
  requiresTopology: false,
  gpuDirect: 'fastrak',
  ncclInstaller: null,
  acceleratorNetworkProfile: false,
  arm64: false,
})

const gb200 = (name: string, machine: string): GpuTypeRow => ({
  name,
  canonical: 'gb200-4',
  family: 'gb200',
  gkeAccelerator: 'nvidia-gb200',
  machineType: machine,
  chipsPerVm: 4,
  topology: '1x72',
  requiresTopology: true,
  gpuDirect: 'rdma',
  ncclInstaller: NCCL_INSTALLERS.rdmaA4x,
  acceleratorNetworkProfile: true,
  arm64: true,
})

const hopperOrBlackwell = (
  name: string,
  family: string,
  gkeAccelerator: string,
  machineType: string,
  gpuDirect: GpuDirect,
): GpuTypeRow => ({
  name,
  family,
  gkeAccelerator,
  machineType,
  chipsPerVm: 8,
  topology: null,
  requiresTopology: true,
  gpuDirect,
  ncclInstaller:
    gpuDirect === 'tcpx' ? NCCL_INSTALLERS.tcpx : gpuDirect === 'tcpxo' ? NCCL_INSTALLERS.tcpxo : NCCL_INSTALLERS.rdma,
  acceleratorNetworkProfile: true,
  arm64: false,
})

/** GPU types in xpk's order. */
export const GPU_TYPES: readonly GpuTypeRow[] = [
  l4(1, 'g2-standard-12'),
  l4(2, 'g2-standard-24'),
  l4(4, 'g2-standard-48'),
  l4(8, 'g2-standard-96'),
  a100(1),
  a100(2),
  a100(4),
  a100(8),
  {...gb200('gb200-4', 'a4x-highgpu-4g'), canonical: undefined},
  gb200('gb200-4-nolssd', 'a4x-highgpu-4g-nolssd'),
  hopperOrBlackwell('b200-8', 'b200', 'nvidia-b200', 'a4-highgpu-8g', 'rdma'),
  hopperOrBlackwell('h200-141gb-8', 'h200-141gb', 'nvidia-h200-141gb', 'a3-ultragpu-8g', 'rdma'),
  hopperOrBlackwell('h100-80gb-8', 'h100-80gb', 'nvidia-h100-80gb', 'a3-highgpu-8g', 'tcpx'),
  hopperOrBlackwell('h100-mega-80gb-8', 'h100-mega-80gb', 'nvidia-h100-mega-80gb', 'a3-megagpu-8g', 'tcpxo'),
]

export interface CpuTypeRow {
  readonly machineType: string
  readonly vcpus: number
  /** The VM counts offered as `<machine>-<vms>` names. */
  readonly vmCounts: readonly number[]
}

/** CPU machine types in xpk's order. */
export const CPU_TYPES: readonly CpuTypeRow[] = [
  {machineType: 'm1-megamem-96', vcpus: 96, vmCounts: [1]},
  {machineType: 'n2-standard-64', vcpus: 64, vmCounts: [1]},
  {machineType: 'n2-standard-4', vcpus: 4, vmCounts: [1, 2, 4, 8, 16, 32, 64, 128, 256]},
  {machineType: 'n2-standard-32', vcpus: 32, vmCounts: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]},
]
