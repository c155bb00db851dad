import {UsageError} from '../errors.js'

// TPU node and queued resource ids: lowercase letters, digits and hyphens, starting with a letter.
const ID = /^[a-z](?:[-a-z0-9]*[a-z0-9])?$/
const MAX_ID = 61

/** Validates a TPU node prefix or queued resource id; `reserve` is the room the slice suffix (-N) needs. */
export function idProblem(value: string, flag: string, reserve = 0): UsageError | undefined {
  if (ID.test(value) && value.length + reserve <= MAX_ID) return undefined
  return new UsageError(
    `${flag} "${value}": use lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen, at most ${MAX_ID - reserve} characters.`,
    {flag, hints: [`For example ${flag} my-tpu.`]},
  )
}

/** The node ids of N slices: `P` for one slice, `P-0` ... `P-(N-1)` for several. */
export function sliceNodeIds(prefix: string, numSlices: number): string[] {
  if (numSlices === 1) return [prefix]
  return Array.from({length: numSlices}, (_, i) => `${prefix}-${i}`)
}

/** The slice index a node id has under a prefix (`P` is slice 0, `P-3` is slice 3), or undefined if not a match. */
export function sliceIndex(prefix: string, nodeId: string): number | undefined {
  if (nodeId === prefix) return 0
  if (!nodeId.startsWith(`${prefix}-`)) return undefined
  const rest = nodeId.slice(prefix.length + 1)
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined
}

/** The last path segment of a resource name (`projects/p/locations/z/nodes/n` gives `n`). */
export function shortName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1)
}

/** A default run name from the clock, e.g. run-20260123-174501. */
export function defaultRunName(now: Date): string {
  const iso = now.toISOString()
  return `run-${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}`
}

const RUN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/

/** --run-name becomes a directory name locally and remotely: keep it to a safe alphabet. */
export function runNameProblem(runName: string): UsageError | undefined {
  if (RUN_NAME.test(runName)) return undefined
  return new UsageError(
    `--run-name "${runName}": use letters, digits, dots, underscores and hyphens (at most 100, not starting with a dot or hyphen).`,
    {flag: '--run-name'},
  )
}
