import type {Accelerator} from '../catalog/types.js'
import {chipsPerSlice} from '../catalog/types.js'
import {renderKeyValues, renderTable} from './table.js'

/** The `xpk accelerator list` table. */
export function renderAcceleratorTable(accelerators: readonly Accelerator[]): string {
  if (accelerators.length === 0) return 'No accelerator types match.'
  return renderTable(
    ['name', 'alias of', 'kind', 'topology', 'vms/slice', 'chips/vm', 'machine type', 'gke accelerator'],
    accelerators.map((a) => [
      a.name,
      a.name === a.canonical ? '' : a.canonical,
      a.kind,
      a.topology,
      a.vmsPerSlice,
      a.chipsPerVm,
      a.machineType,
      a.gkeAccelerator,
    ]),
  )
}

/** The `xpk accelerator describe` view. */
export function renderAcceleratorDetails(a: Accelerator): string {
  const perVm = a.kind === 'CPU' ? 'vCPUs per VM' : a.kind === 'GPU' ? 'GPUs per VM' : 'Chips per VM'
  const entries: [string, string | number | boolean | null][] = [
    ['Name', a.name === a.canonical ? a.name : `${a.name} (alias of ${a.canonical})`],
    ['Kind', a.kind],
    ['Family', a.family],
    ['Topology', a.topology],
    ['VMs per slice', a.vmsPerSlice],
    [perVm, a.chipsPerVm],
    [a.kind === 'CPU' ? 'vCPUs per slice' : 'Chips per slice', chipsPerSlice(a)],
    ['Machine type', a.machineType],
    ['GKE accelerator', a.gkeAccelerator],
    ['Containers per pod', a.parallelContainers],
    ['Docker platform', a.dockerPlatform],
    ['Workload placement policy', a.requiresWorkloadPolicy ? 'required' : 'no'],
    ['Accelerator network profile', a.supportsAcceleratorNetworkProfile ? 'yes' : 'no'],
  ]
  if (a.tensorcoresPerChip !== null) entries.push(['Tensor cores per chip', a.tensorcoresPerChip])
  if (a.supportsSubSlicing) entries.push(['Sub-slicing', 'supported'])
  if (a.supportsSuperSlicing) entries.push(['Super-slicing', 'supported'])
  if (a.gpu) {
    entries.push(['GPUDirect', a.gpu.gpuDirect])
    entries.push(['Topology-aware placement', a.gpu.requiresTopology ? 'required' : 'no'])
  }
  return renderKeyValues(entries)
}
