import {UsageError} from '../errors.js'
import {escapeInline} from '../text.js'
import {closestMatches, orList} from '../suggest.js'
import {acceleratorCatalog, catalogEntry} from './catalog.js'
import type {Accelerator, AcceleratorKind} from './types.js'

/** Names people use for a family that xpk spells differently. */
const FAMILY_NICKNAMES: Readonly<Record<string, string>> = {v5e: 'v5litepod', v5lite: 'v5litepod'}

/** The entry for an accepted name, or undefined. */
export function findAccelerator(name: string): Accelerator | undefined {
  return catalogEntry(name)
}

/** Up to `limit` accepted names closest to `name`, optionally only of one kind. */
export function suggestAcceleratorNames(name: string, limit = 5, kind?: AcceleratorKind): string[] {
  const names = [...acceleratorCatalog().values()].filter((a) => !kind || a.kind === kind).map((a) => a.name)
  const [prefix, ...rest] = name.split('-')
  const nickname = FAMILY_NICKNAMES[prefix?.toLowerCase() ?? '']
  if (nickname) {
    const renamed = [nickname, ...rest].join('-')
    if (names.includes(renamed))
      return [renamed, ...closestMatches(renamed, names, limit).filter((n) => n !== renamed)].slice(0, limit)
  }
  return closestMatches(name, names, limit)
}

/** The choice between `--tpu-type` and `--device-type` (exactly one is set; the parser enforces that). */
export interface AcceleratorChoice {
  readonly tpuType?: string
  readonly deviceType?: string
}

/**
 * Resolves the accelerator chosen by `--tpu-type` (TPUs only) or `--device-type` (any kind). An unknown or
 * missing type is a usage error that names the flag and the closest valid names.
 */
export function resolveAccelerator(choice: AcceleratorChoice): Accelerator {
  const name = choice.tpuType ?? choice.deviceType
  if (name === undefined || name === '') {
    throw new UsageError('No accelerator type given.', {
      flag: '--tpu-type',
      hints: ['Pass --tpu-type (e.g. --tpu-type=v5p-8) or --device-type (e.g. --device-type=h100-80gb-8).'],
    })
  }
  return lookupAccelerator(name, choice.tpuType !== undefined ? '--tpu-type' : '--device-type')
}

/**
 * Resolves an accelerator named by a command's argument (`xpk accelerator describe NAME`), any kind. Apart from
 * {@link resolveAccelerator}, so what it says names no flag the command does not have.
 */
export function resolveAcceleratorName(name: string): Accelerator {
  return lookupAccelerator(name, undefined)
}

function lookupAccelerator(name: string, flag: '--tpu-type' | '--device-type' | undefined): Accelerator {
  const kind = flag === '--tpu-type' ? 'TPU' : undefined
  const found = findAccelerator(name)
  if (found && (!kind || found.kind === kind)) return found
  const suggestions = suggestAcceleratorNames(name, 5, kind)
  const subject = flag === undefined ? `"${escapeInline(name)}"` : `${flag}=${escapeInline(name)}`
  const reason =
    found && kind === 'TPU'
      ? `${subject}: ${name} is a ${found.kind}, not a TPU. Use --device-type=${name} instead.`
      : `${subject}: unknown accelerator type. Did you mean ${orList(suggestions)}?`
  throw new UsageError(reason, {
    flag,
    hints: [
      'See every accepted name with `xpk accelerator list`, or those of one family with `xpk accelerator list --family v5p`.',
    ],
  })
}
