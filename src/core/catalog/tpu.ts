import type {TopologySource, TpuFamilyRow} from '../../templates/tpu-families.js'
import type {Accelerator} from './types.js'

/** Product of the dimensions of a topology string such as `4x4x8`. */
export function topologyChips(topology: string): number {
  return topology.split('x').reduce((product, dim) => product * Number(dim), 1)
}

/**
 * Lists the topologies of a family, in Python xpk's order: the small shapes 2x2x1, 2x2x2, 2x2x4, 2x4x4, then
 * every AxBxC with A, B, C multiples of 4 up to 256 and at most `maxCubes` 4x4x4 cubes (A ascending, then B, then
 * C; with `nondecreasing`, only A <= B <= C).
 */
export function expandTopologies(source: TopologySource): string[] {
  if (source.kind === 'list') return [...source.topologies]
  const topologies = ['2x2x1', '2x2x2', '2x2x4', '2x4x4']
  for (let a = 4; a <= 256; a += 4) {
    for (let b = source.nondecreasing ? a : 4; b <= 256; b += 4) {
      for (let c = source.nondecreasing ? b : 4; c <= 256; c += 4) {
        if ((a / 4) * (b / 4) * (c / 4) <= source.maxCubes) topologies.push(`${a}x${b}x${c}`)
      }
    }
  }
  return topologies
}

/**
 * Generates a TPU family's entries. Each topology T yields `<prefix>-<T>` and, unless another topology already
 * owns it, `<prefix>-<cores>` where cores = chips x tensor cores per chip; a default topology always takes the
 * `<prefix>-<cores>` name. VMs carry 4 chips, except single-chip slices (1 chip on 1 VM).
 */
export function generateTpuFamily(row: TpuFamilyRow, into: Map<string, Accelerator>): void {
  const defaults = new Set(row.defaultTopologies ?? [])
  const subSlicing = new Set(row.subSlicingTopologies ?? [])
  const superSlicing = new Set(row.superSlicingTopologies ?? [])
  for (const topology of expandTopologies(row.topologies)) {
    const chips = topologyChips(topology)
    const chipsPerVm = chips === 1 ? 1 : 4
    const vmsPerSlice = chips / chipsPerVm
    const canonical = `${row.prefix}-${chips * row.tensorcoresPerChip}`
    const base: Omit<Accelerator, 'name'> = {
      canonical,
      kind: 'TPU',
      family: row.prefix,
      topology,
      vmsPerSlice,
      chipsPerVm,
      gkeAccelerator: row.gkeAccelerator,
      machineType: row.machineType,
      parallelContainers: row.parallelContainers,
      dockerPlatform: 'linux/amd64',
      requiresWorkloadPolicy: row.workloadPolicy && vmsPerSlice > 1,
      supportsSubSlicing: subSlicing.has(topology),
      supportsSuperSlicing: superSlicing.has(topology),
      supportsAcceleratorNetworkProfile: row.acceleratorNetworkProfile,
      tensorcoresPerChip: row.tensorcoresPerChip,
      pathwaysVersion: row.pathwaysVersion,
      gpu: null,
    }
    const aliasName = `${row.prefix}-${topology}`
    into.set(aliasName, {...base, name: aliasName})
    if (defaults.has(topology) || !into.has(canonical)) into.set(canonical, {...base, name: canonical})
  }
}
