/**
 * Checking what the user typed. Every validator collects its problems in one {@link Problems} list so that all of
 * them are reported together, and every number is parsed from the text the user gave (never through a float) and
 * held to the range of the API field it ends up in.
 */
import {throwIfProblems, UsageError, UsageErrors, type XpkErrorOptions} from './errors.js'
import {escapeInline, hasControlCharacters} from './text.js'

/**
 * The form a value must have, whatever it is for. Every flag declares its shape (src/cli/flag-kinds.ts; `word` unless
 * it says otherwise), and the same rule reads XPK_* variables and config values, so a value is refused the same way
 * wherever it comes from:
 * - `word`: one value as given: not blank, no white space at either end, no line break or other control character
 *   (spaces inside are left to the value's own check: a path may hold them, a name may not);
 * - `integer`: a word of digits with no sign (`+4` and ` 4` are refused, not read as 4);
 * - `list`: comma-separated words, none of them empty (`3,,5`, `a,` are refused, not read as `3,5`, `a`);
 * - `text`: free text, which may hold spaces, tabs and line breaks anywhere (`--command`, `--env`); only blank is refused.
 */
export type ValueShape = 'word' | 'integer' | 'list' | 'text'

/** What each shape accepts, in a sentence (help texts and the README's rule). */
export const VALUE_SHAPES: Readonly<Record<ValueShape, string>> = {
  word: 'a value as given: no white space at either end, no line break or control character',
  integer: 'a whole number written with digits only: no sign, no white space',
  list: 'comma-separated items, none empty, none with white space at either end',
  text: 'free text: spaces, tabs and line breaks are part of the value',
}

/**
 * Why a value does not have its shape, as a clause to follow the value ("starts with white space; ..."), or
 * undefined. Blank values are the caller's to word (`--x was given an empty value`), but are refused here too.
 */
export function valueShapeProblem(value: string, shape: ValueShape): string | undefined {
  if (value.trim() === '') return 'is empty; give a value'
  if (shape === 'text') return undefined
  if (/^\s/.test(value)) return 'starts with white space; xpk uses a value exactly as given, so remove it'
  if (/\s$/.test(value)) return 'ends with white space; xpk uses a value exactly as given, so remove it'
  if (hasControlCharacters(value)) return 'holds a line break or another control character (shown escaped); remove it'
  if (shape === 'integer' && /^[+]/.test(value)) return 'has a plus sign; write the number with digits only'
  if (shape === 'list') {
    const items = value.split(',')
    if (items.some((item) => item === ''))
      return 'has an empty item (two commas in a row, or one at an end); remove the extra comma'
    if (items.some((item) => item.trim() !== item))
      return 'has an item with white space around it; write the list without spaces, like a,b'
  }
  return undefined
}

/** `--cluster " alpha": it starts with white space; ...`: a value that breaks the shape rule, quoted safely. */
export function valueShapeMessage(what: string, value: string, problem: string): string {
  return `${what} "${escapeInline(value)}": it ${problem}.`
}

/**
 * Splits a comma-separated list by the shape rule: every item is kept as written, and an empty item or one with
 * white space around it is refused (never skipped or trimmed).
 * @throws UsageError naming `flag`
 */
export function splitList(flag: string, text: string): string[] {
  const problem = valueShapeProblem(text, 'list')
  if (problem) throw new UsageError(valueShapeMessage(flag, text, problem), {flag})
  return text.split(',')
}

/** The inclusive range of an integer flag and where the limit comes from (shown in the message). */
export interface IntegerRange {
  readonly min: number
  readonly max: number
  /** The field or limit that sets the range, e.g. "JobSet's int32 maxRestarts". */
  readonly limit: string
}

/** Kubernetes' int32 fields. */
export const INT32_MAX = 2_147_483_647
/**
 * Kubernetes' int64 fields (terminationGracePeriodSeconds) hold more, but JSON numbers in xpk and in most clients
 * are exact only up to 2^53 - 1, so that is where xpk stops.
 */
export const INT64_JSON_MAX = Number.MAX_SAFE_INTEGER
/** GKE's limit of nodes in one node pool (per zone). */
export const GKE_MAX_NODES_PER_POOL = 1000
/** GKE's limit of node pools in one cluster; more slices cannot exist anyway. */
export const MAX_SLICES = 1000

/** The longest wait a Node.js timer can hold (2^31 - 1 ms), in whole seconds; a longer one would fire at once. */
export const MAX_WAIT_SECONDS = Math.floor((2 ** 31 - 1) / 1000)

/** Every integer flag of every command, with the range of the field it feeds. Help texts are built from these. */
export const INTEGER_FLAGS = {
  'cluster:num-slices': {min: 0, max: MAX_SLICES, limit: "GKE's node pools per cluster"},
  'cluster:num-cubes': {min: 0, max: MAX_SLICES, limit: "GKE's node pools per cluster (a cube is one pool)"},
  'cluster:num-nodes': {min: 1, max: GKE_MAX_NODES_PER_POOL, limit: "GKE's nodes per node pool"},
  'cluster:default-pool-cpu-num-nodes': {min: 1, max: GKE_MAX_NODES_PER_POOL, limit: "GKE's nodes per node pool"},
  'cluster:max-pods-per-node': {min: 8, max: 256, limit: "GKE's maxPodsPerNode"},
  'cluster:autoprovisioning-min-chips': {min: 0, max: 1_000_000, limit: 'chips'},
  'cluster:autoprovisioning-max-chips': {min: 1, max: 1_000_000, limit: 'chips'},
  'cluster:max-parallel': {min: 1, max: MAX_SLICES, limit: 'node-pool operations; more than one per pool is useless'},
  'cluster:cpu-limit': {min: 1, max: 1_000_000, limit: "vCPUs of the ClusterQueue's cpu quota"},
  'workload:num-slices': {min: 1, max: MAX_SLICES, limit: "GKE's node pools per cluster"},
  'workload:num-nodes': {min: 1, max: GKE_MAX_NODES_PER_POOL, limit: "GKE's nodes per node pool"},
  'workload:max-restarts': {min: 0, max: INT32_MAX, limit: "JobSet's int32 failurePolicy.maxRestarts"},
  'workload:ttl-seconds-after-finished': {min: 0, max: INT32_MAX, limit: "JobSet's int32 ttlSecondsAfterFinished"},
  'workload:termination-grace-period-seconds': {
    min: 0,
    max: INT64_JSON_MAX,
    limit: "the pod's int64 terminationGracePeriodSeconds, as far as JSON carries it exactly",
  },
  'workload:elastic-slices': {min: 0, max: MAX_SLICES, limit: 'slices of the workload'},
  'workload:max-slice-restarts': {min: 1, max: 1_000_000, limit: "restarts per slice (a worker Job's backoffLimit)"},
  'workload:timeout': {min: 1, max: MAX_WAIT_SECONDS, limit: "seconds; Node's timers wait at most about 24.8 days"},
  'workload:slice': {min: 0, max: MAX_SLICES - 1, limit: 'slice indexes start at 0'},
  'workload:worker': {min: 0, max: GKE_MAX_NODES_PER_POOL - 1, limit: 'worker indexes start at 0'},
  'workload:tail': {min: 0, max: INT32_MAX, limit: 'lines'},
  'storage:size': {min: 1, max: 8_589_934_591, limit: "GiB; a PersistentVolume's capacity is an int64 of bytes"},
  'vm:num-slices': {min: 1, max: 256, limit: 'slices of one queued resource xpk requests'},
  'doctor:num-slices': {min: 1, max: MAX_SLICES, limit: "GKE's node pools per cluster"},
  'vm:ssh-port': {min: 1, max: 65_535, limit: 'TCP ports'},
  'vm:max-recoveries': {min: 0, max: 1_000_000, limit: 'recoveries after a preemption'},
  'vm:poll-interval': {min: 1, max: 3600, limit: 'seconds between reads of the TPU state'},
  'vm:worker': {min: 0, max: 4095, limit: 'worker indexes start at 0'},
  'vm:timeout': {min: 1, max: MAX_WAIT_SECONDS, limit: "seconds; Node's timers wait at most about 24.8 days"},
} as const satisfies Record<string, IntegerRange>

/**
 * Parses a whole number given as text and checks its range; returns the number or the reason it is not acceptable.
 * Exact for any length of input: "99999999999999999999" is out of range, never rounded to 1e20.
 */
export function parseInteger(text: string, range: IntegerRange): {value: number} | {problem: string} {
  const expected = `a whole number from ${range.min} to ${range.max} (${range.limit})`
  const shape = valueShapeProblem(text, 'integer')
  // " 4" and "+4" are not read as 4: the rule every value follows (a value is used exactly as given).
  if (shape) return {problem: `"${escapeInline(text)}" ${shape.split(';')[0]}: use ${expected}, in digits only`}
  if (!/^-?\d+$/.test(text)) return {problem: `"${escapeInline(text)}" is not ${expected}`}
  const big = BigInt(text)
  if (big < BigInt(range.min) || big > BigInt(range.max)) return {problem: `${text} is out of range: use ${expected}`}
  return {value: Number(big)}
}

/** One list of usage problems, filled by every check of a command's input and thrown all together. */
export class Problems {
  private readonly list: UsageError[] = []

  /** Adds a problem with the flag it is about. */
  add(message: string, options: XpkErrorOptions & {flag?: string} = {}): void {
    this.list.push(new UsageError(message, options))
  }

  /** Adds an existing usage error (or each problem of several). */
  push(error: UsageError): void {
    if (error instanceof UsageErrors) this.list.push(...error.problems)
    else this.list.push(error)
  }

  /** Runs a check that throws usage errors; collects them and returns undefined instead. Other errors propagate. */
  attempt<T>(check: () => T): T | undefined {
    try {
      return check()
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      this.push(error)
      return undefined
    }
  }

  /**
   * Parses an optional integer flag, given as the text the user typed (or as a number by in-process callers); a
   * problem is recorded (and undefined returned) when it is bad.
   */
  integer(flag: string, given: string | number | undefined, range: IntegerRange): number | undefined {
    if (given === undefined) return undefined
    const parsed = parseInteger(String(given), range)
    if ('value' in parsed) return parsed.value
    this.add(`${flag}: ${parsed.problem}.`, {flag})
    return undefined
  }

  get size(): number {
    return this.list.length
  }

  /** Whether a problem about this flag was already recorded. */
  has(flag: string): boolean {
    return this.list.some((p) => p.flag === flag)
  }

  /** Throws every collected problem (one as itself, several together); does nothing when there are none. */
  throwIfAny(): void {
    throwIfProblems(this.list)
  }
}
