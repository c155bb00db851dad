/**
 * `xpk doctor`'s capacity question, checked before anything is read: the accelerator (`--tpu-type` or
 * `--device-type`), `--num-slices`, `--reservation` and `--spot`. The last three ask about an accelerator, so they
 * need one; every problem is reported at once (exit 2).
 */
import {resolveAccelerator} from '../catalog/lookup.js'
import {INTEGER_FLAGS, Problems, splitList} from '../input.js'
import type {CapacityRequest} from './checks.js'

export interface DoctorCapacityFlags {
  readonly tpuType?: string
  readonly deviceType?: string
  readonly numSlices?: string | number
  readonly reservation?: string
  readonly spot?: boolean
}

/** The request to check capacity for (null without an accelerator), and the reservations given. */
export interface DoctorCapacity {
  readonly request: CapacityRequest | null
  readonly reservations: readonly string[]
}

/** @throws UsageError or UsageErrors naming each flag at fault */
export function doctorCapacity(flags: DoctorCapacityFlags): DoctorCapacity {
  const problems = new Problems()
  const numSlices = problems.integer('--num-slices', flags.numSlices, INTEGER_FLAGS['doctor:num-slices'])
  const reservations =
    flags.reservation === undefined
      ? []
      : (problems.attempt(() => splitList('--reservation', flags.reservation!)) ?? [])
  const named = flags.tpuType !== undefined || flags.deviceType !== undefined
  const accelerator = named ? problems.attempt(() => resolveAccelerator(flags)) : undefined
  if (!named) {
    for (const [flag, given] of [
      ['--num-slices', flags.numSlices !== undefined],
      ['--reservation', flags.reservation !== undefined],
      ['--spot', flags.spot === true],
    ] as const) {
      if (given) {
        problems.add(`${flag} asks about capacity for an accelerator: add --tpu-type (or --device-type).`, {
          flag,
          hints: ['e.g. `xpk doctor --tpu-type v5p-8 --num-slices 2 --reservation r1`.'],
        })
      }
    }
  }
  problems.throwIfAny()
  return {
    request: accelerator ? {accelerator, numSlices: numSlices ?? 1, spot: flags.spot === true} : null,
    reservations,
  }
}
