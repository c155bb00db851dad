import {CPU_TYPES, GPU_TYPES} from '../../templates/gpu-cpu-types.js'
import {TPU_FAMILIES} from '../../templates/tpu-families.js'
import {generateTpuFamily} from './tpu.js'
import type {Accelerator} from './types.js'

let catalog: ReadonlyMap<string, Accelerator> | undefined
const tpuFamilies = new Map<string, ReadonlyMap<string, Accelerator>>()
let gpusAndCpus: ReadonlyMap<string, Accelerator> | undefined

/**
 * Every accelerator type name xpk accepts, in Python xpk's order: GPUs, then TPU families (tpu7, tpu7x, v6e, v5p,
 * v5litepod, v4), then CPUs. Built on first use and cached.
 */
export function acceleratorCatalog(): ReadonlyMap<string, Accelerator> {
  if (!catalog) {
    const all = new Map<string, Accelerator>()
    const add = (part: ReadonlyMap<string, Accelerator>, kind?: string) => {
      for (const [name, a] of part) if (kind === undefined || a.kind === kind) all.set(name, a)
    }
    add(gpuAndCpuEntries(), 'GPU')
    for (const prefix of new Set(TPU_FAMILIES.map((f) => f.prefix))) add(tpuFamily(prefix))
    add(gpuAndCpuEntries(), 'CPU')
    catalog = all
  }
  return catalog
}

/**
 * The entry for one name, generating only the family it can belong to: a single lookup (every workload create)
 * need not generate all 2,057 names.
 */
export function catalogEntry(name: string): Accelerator | undefined {
  const prefix = TPU_FAMILIES.find((f) => name.startsWith(`${f.prefix}-`))?.prefix
  return prefix === undefined ? gpuAndCpuEntries().get(name) : tpuFamily(prefix).get(name)
}

/** One TPU family (all rows with that prefix, generated in order, since they share the core-count names). */
function tpuFamily(prefix: string): ReadonlyMap<string, Accelerator> {
  let family = tpuFamilies.get(prefix)
  if (!family) {
    const entries = new Map<string, Accelerator>()
    for (const row of TPU_FAMILIES) if (row.prefix === prefix) generateTpuFamily(row, entries)
    tpuFamilies.set(prefix, entries)
    family = entries
  }
  return family
}

function gpuAndCpuEntries(): ReadonlyMap<string, Accelerator> {
  gpusAndCpus ??= buildGpusAndCpus()
  return gpusAndCpus
}

function buildGpusAndCpus(): Map<string, Accelerator> {
  const entries = new Map<string, Accelerator>()
  for (const gpu of GPU_TYPES) {
    entries.set(gpu.name, {
      name: gpu.name,
      canonical: gpu.canonical ?? gpu.name,
      kind: 'GPU',
      family: gpu.family,
      topology: gpu.topology,
      vmsPerSlice: 1,
      chipsPerVm: gpu.chipsPerVm,
      gkeAccelerator: gpu.gkeAccelerator,
      machineType: gpu.machineType,
      parallelContainers: 1,
      dockerPlatform: gpu.arm64 ? 'linux/arm64' : 'linux/amd64',
      requiresWorkloadPolicy: true,
      supportsSubSlicing: false,
      supportsSuperSlicing: false,
      supportsAcceleratorNetworkProfile: gpu.acceleratorNetworkProfile,
      tensorcoresPerChip: null,
      pathwaysVersion: null,
      gpu: {requiresTopology: gpu.requiresTopology, gpuDirect: gpu.gpuDirect, ncclInstaller: gpu.ncclInstaller},
    })
  }
  for (const cpu of CPU_TYPES) {
    for (const vms of cpu.vmCounts) {
      const name = `${cpu.machineType}-${vms}`
      entries.set(name, {
        name,
        canonical: name,
        kind: 'CPU',
        family: cpu.machineType,
        topology: null,
        vmsPerSlice: vms,
        chipsPerVm: cpu.vcpus,
        gkeAccelerator: null,
        machineType: cpu.machineType,
        parallelContainers: 1,
        dockerPlatform: 'linux/amd64',
        requiresWorkloadPolicy: false,
        supportsSubSlicing: false,
        supportsSuperSlicing: false,
        supportsAcceleratorNetworkProfile: false,
        tensorcoresPerChip: null,
        pathwaysVersion: null,
        gpu: null,
      })
    }
  }
  return entries
}
