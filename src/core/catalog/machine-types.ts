/**
 * Compute Engine machine types for the cluster's default CPU pool (`--default-pool-cpu-machine-type`). GKE refuses
 * an unknown one only once the cluster is being created, so xpk checks the name offline: a known CPU machine family
 * and one of the shapes Compute Engine names its types with. The sizes offered in a zone are not known offline;
 * GKE still reports a size the zone lacks.
 */
import {closestMatches, orList} from '../suggest.js'

/**
 * The CPU machine families a node pool can use: general purpose, compute, memory and storage optimised. Accelerator
 * families (a2, a3, g2, ct5p, ...) have their own pools and are not for the default pool.
 */
export const CPU_MACHINE_FAMILIES: readonly string[] = [
  'c2',
  'c2d',
  'c3',
  'c3d',
  'c4',
  'c4a',
  'c4d',
  'e2',
  'f1',
  'g1',
  'h3',
  'h4d',
  'm1',
  'm2',
  'm3',
  'm4',
  'n1',
  'n2',
  'n2d',
  'n4',
  'n4a',
  'n4d',
  't2a',
  't2d',
  'x4',
  'z3',
]

/**
 * The shapes of Compute Engine machine type names: `FAMILY-CLASS-VCPUS[-lssd|-metal|-nolssd]`
 * (`e2-standard-16`, `c3-standard-22-lssd`), custom types `FAMILY-custom-VCPUS-MEMORY_MB[-ext]` (`custom-...` is
 * N1's), and the shared-core types (`e2-medium`, `f1-micro`).
 */
const PREDEFINED = /^([a-z][a-z0-9]*)-([a-z]+)-(\d+)(?:-(?:lssd|nolssd|metal))?$/
const CUSTOM = /^(?:([a-z][a-z0-9]*)-)?custom-(\d+)-(\d+)(?:-ext)?$/
const SHARED_CORE = /^(e2-(?:micro|small|medium)|f1-micro|g1-small)$/
const MACHINE_CLASSES = ['standard', 'highmem', 'highcpu', 'megamem', 'ultramem', 'hypermem', 'highlssd']

/** Why `name` is not a CPU machine type a node pool can use, or undefined when it is one. */
export function machineTypeProblem(name: string): string | undefined {
  if (SHARED_CORE.test(name)) return undefined
  const custom = CUSTOM.exec(name)
  const predefined = PREDEFINED.exec(name)
  const family = custom ? (custom[1] ?? 'n1') : predefined?.[1]
  if (family === undefined) {
    return 'is not a machine type: use FAMILY-CLASS-VCPUS like e2-standard-16, or FAMILY-custom-VCPUS-MEMORY_MB'
  }
  if (!CPU_MACHINE_FAMILIES.includes(family)) {
    const near = closestMatches(family, CPU_MACHINE_FAMILIES, 3)
    return (
      `has the machine family "${family}", which is not a CPU family a node pool can use` +
      (near.length > 0 ? ` (did you mean ${orList(near)}?)` : '')
    )
  }
  if (predefined && !MACHINE_CLASSES.includes(predefined[2])) {
    return `has the class "${predefined[2]}": use ${orList(MACHINE_CLASSES)}, e.g. ${family}-standard-16`
  }
  const vcpus = Number(custom ? custom[2] : predefined![3])
  if (vcpus < 1) return 'has no vCPUs'
  return undefined
}
