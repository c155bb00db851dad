import type {Accelerator} from '../catalog/types.js'
import {chipsPerSlice} from '../catalog/types.js'
import {listView, PLAIN_TABLE, renderColumns, type Column, type OutputView, type TableStyle} from './output.js'
import {renderKeyValues} from './table.js'

/** The `xpk accelerator list` columns; `-o wide` adds the family, chips per slice, containers per pod and platform. */
const ACCELERATOR_COLUMNS: readonly Column<Accelerator>[] = [
  {header: 'name', cell: (a) => a.name},
  {header: 'alias of', cell: (a) => (a.name === a.canonical ? '' : a.canonical)},
  {header: 'kind', cell: (a) => a.kind},
  {header: 'family', cell: (a) => a.family, wide: true},
  {header: 'topology', cell: (a) => a.topology},
  {header: 'vms/slice', cell: (a) => a.vmsPerSlice},
  {header: 'chips/vm', cell: (a) => a.chipsPerVm},
  {header: 'chips/slice', cell: chipsPerSlice, wide: true},
  {header: 'machine type', cell: (a) => a.machineType},
  {header: 'gke accelerator', cell: (a) => a.gkeAccelerator},
  {header: 'containers/pod', cell: (a) => a.parallelContainers, wide: true},
  {header: 'platform', cell: (a) => a.dockerPlatform, wide: true},
]

/** The `xpk accelerator list` table. */
export function renderAcceleratorTable(accelerators: readonly Accelerator[], style: TableStyle = PLAIN_TABLE): string {
  return renderColumns(ACCELERATOR_COLUMNS, accelerators, style)
}

/** `xpk accelerator list`: `-o name` prints the names `--tpu-type` and `--device-type` take. */
export const acceleratorListView = listView(renderAcceleratorTable, (a) => a.name)

/**
 * The `xpk accelerator describe` view; `-o wide` adds what only Pathways and the GPU cluster set-up read (the
 * Pathways TPU version, the NCCL installer). It has no table, so `--no-headers` leaves it as it is.
 */
export function renderAcceleratorDetails(a: Accelerator, style: TableStyle = PLAIN_TABLE): string {
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
  if (style.wide && a.pathwaysVersion !== null) entries.push(['Pathways TPU version', a.pathwaysVersion])
  if (style.wide && a.gpu) entries.push(['NCCL installer', a.gpu.ncclInstaller])
  return renderKeyValues(entries)
}

/** `xpk accelerator describe`: `-o name` prints the name as described (an alias stays the alias). */
export const acceleratorDescribeView: OutputView<Accelerator> = {
  text: renderAcceleratorDetails,
  names: (a) => [a.name],
}
