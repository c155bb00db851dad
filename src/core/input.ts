/**
 * Checking what the user typed. Every validator collects its problems in one {@link Problems} list so that all of
 * them are reported together, and every number is parsed from the text the user gave (never through a float) and
 * held to the range of the API field it ends up in.
 */
import {throwIfProblems, UsageError, UsageErrors, type XpkErrorOptions} from './errors.js'

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
  'cluster:num-nodes': {min: 1, max: GKE_MAX_NODES_PER_POOL, limit: "GKE's nodes per node pool"},
  'cluster:default-pool-cpu-num-nodes': {min: 1, max: GKE_MAX_NODES_PER_POOL, limit: "GKE's nodes per node pool"},
  'cluster:max-pods-per-node': {min: 8, max: 256, limit: "GKE's maxPodsPerNode"},
  'cluster:max-parallel': {min: 1, max: MAX_SLICES, limit: 'node-pool operations; more than one per pool is useless'},
  'workload:num-slices': {min: 1, max: MAX_SLICES, limit: "GKE's node pools per cluster"},
  'workload:num-nodes': {min: 1, max: GKE_MAX_NODES_PER_POOL, limit: "GKE's nodes per node pool"},
  'workload:max-restarts': {min: 0, max: INT32_MAX, limit: "JobSet's int32 failurePolicy.maxRestarts"},
  'workload:ttl-seconds-after-finished': {min: 0, max: INT32_MAX, limit: "JobSet's int32 ttlSecondsAfterFinished"},
  'workload:termination-grace-period-seconds': {
    min: 0,
    max: INT64_JSON_MAX,
    limit: "the pod's int64 terminationGracePeriodSeconds, as far as JSON carries it exactly",
  },
  'workload:timeout': {min: 1, max: MAX_WAIT_SECONDS, limit: "seconds; Node's timers wait at most about 24.8 days"},
  'workload:slice': {min: 0, max: MAX_SLICES - 1, limit: 'slice indexes start at 0'},
  'workload:worker': {min: 0, max: GKE_MAX_NODES_PER_POOL - 1, limit: 'worker indexes start at 0'},
  'workload:tail': {min: 0, max: INT32_MAX, limit: 'lines'},
  'vm:num-slices': {min: 1, max: 256, limit: 'slices of one queued resource xpk requests'},
  'vm:ssh-port': {min: 1, max: 65_535, limit: 'TCP ports'},
} as const satisfies Record<string, IntegerRange>

/**
 * Parses a whole number given as text and checks its range; returns the number or the reason it is not acceptable.
 * Exact for any length of input: "99999999999999999999" is out of range, never rounded to 1e20.
 */
export function parseInteger(text: string, range: IntegerRange): {value: number} | {problem: string} {
  const trimmed = text.trim()
  const expected = `a whole number from ${range.min} to ${range.max} (${range.limit})`
  if (!/^[-+]?\d+$/.test(trimmed)) return {problem: `"${text}" is not ${expected}`}
  const big = BigInt(trimmed)
  if (big < BigInt(range.min) || big > BigInt(range.max))
    return {problem: `${trimmed} is out of range: use ${expected}`}
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
