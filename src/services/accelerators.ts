import {acceleratorCatalog} from '../core/catalog/catalog.js'
import {resolveAcceleratorName} from '../core/catalog/lookup.js'
import type {Accelerator, AcceleratorKind} from '../core/catalog/types.js'
import {UsageError} from '../core/errors.js'
import {Problems} from '../core/input.js'
import {closestMatches, orList} from '../core/suggest.js'

export interface AcceleratorListOptions {
  /** Family such as v5p, tpu7x, v5litepod (or its nickname v5e), h100-80gb, n2-standard-32. */
  readonly family?: string
  /** TPU, GPU or CPU, in any case. */
  readonly kind?: string
  /** Also list topology names (v5p-4x4x8 for v5p-256, v4-8x4x4 for another 256-core v4 shape). */
  readonly aliases?: boolean
}

const FAMILY_NICKNAMES: Readonly<Record<string, string>> = {v5e: 'v5litepod'}

const KINDS: readonly AcceleratorKind[] = ['TPU', 'GPU', 'CPU']

/** Lists the accelerator catalog, filtered. An unknown family or kind is a usage error with suggestions. */
export function listAccelerators(options: AcceleratorListOptions): Accelerator[] {
  const all = [...acceleratorCatalog().values()]
  const problems = new Problems()
  let selected = all
  if (options.family !== undefined) {
    const family = FAMILY_NICKNAMES[options.family] ?? options.family
    const families = [...new Set(all.map((a) => a.family))]
    if (!families.includes(family)) {
      problems.push(
        new UsageError(
          `--family=${options.family}: unknown family. Did you mean ${orList(closestMatches(options.family, families, 3))}?`,
          {flag: '--family', hints: [`Families: ${families.join(', ')}.`]},
        ),
      )
    }
    selected = selected.filter((a) => a.family === family)
  }
  const kind = options.kind?.trim().toUpperCase()
  if (kind !== undefined && !KINDS.includes(kind as AcceleratorKind)) {
    problems.add(`--kind "${options.kind}": use one of ${KINDS.join(', ')}.`, {flag: '--kind'})
  }
  problems.throwIfAny()
  if (kind !== undefined) selected = selected.filter((a) => a.kind === kind)
  if (!options.aliases) selected = selected.filter((a) => !isTopologyName(a))
  return selected
}

/**
 * A name that spells a TPU topology (v5p-4x4x8, v4-8x4x4) rather than a core count. They are hidden by default:
 * one row per slice size reads better than 1,700 rows. gb200-4-nolssd names its own machine type and stays.
 */
function isTopologyName(a: Accelerator): boolean {
  return a.name !== a.canonical && acceleratorCatalog().get(a.canonical)?.machineType === a.machineType
}

/** Looks up one accelerator by any accepted name (unknown names are usage errors with suggestions). */
export function describeAccelerator(name: string): Accelerator {
  return resolveAcceleratorName(name)
}
