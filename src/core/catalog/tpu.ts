import type {TopologySource, TpuFamilyRow} from '../../templates/tpu-families.js'
import type {Accelerator} from './types.js'

/** Product of the dimensions of a topology string such as `4x4x8`. */
export function topologyChips(topology: string): number {
  let product = 1
  let dim = 0
  for (let i = 0; i < topology.length; i++) {
    const code = topology.charCodeAt(i)
    if (code === 120 /* x */) {
      product *= dim
      dim = 0
    } else dim = dim * 10 + (code - 48)
  }
  return product * dim
}

/**
 * Lists the topologies of a family, in Python xpk's order: the small shapes 2x2x1, 2x2x2, 2x2x4, 2x4x4, then
 * every AxBxC with A, B, C multiples of 4 up to 256 and at most `maxCubes` 4x4x4 cubes (A ascending, then B, then
 * C; with `nondecreasing`, only A <= B <= C).
 */
export function expandTopologies(source: TopologySource): string[] {
  if (source.kind === 'list') return [...source.topologies]
  const topologies = ['2x2x1', '2x2x2', '2x2x4', '2x4x4']
  // Loops stop as soon as the cube budget is exceeded (the order is unchanged): v4 alone would otherwise walk
  // 64^3 candidates on every start.
  for (let i = 1; i <= 64 && i <= source.maxCubes; i++) {
    for (let j = source.nondecreasing ? i : 1; j <= 64 && i * j <= source.maxCubes; j++) {
      for (let k = source.nondecreasing ? j : 1; k <= 64 && i * j * k <= source.maxCubes; k++) {
        topologies.push(`${4 * i}x${4 * j}x${4 * k}`)
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
    // A literal per entry, not a spread of a shared base: this runs 2,000 times at start-up, mostly interpreted.
    const entry = (name: string): Accelerator => ({
      name,
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
    })
    const aliasName = `${row.prefix}-${topology}`
    into.set(aliasName, entry(aliasName))
    if (defaults.has(topology) || !into.has(canonical)) into.set(canonical, entry(canonical))
  }
}
