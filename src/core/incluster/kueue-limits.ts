/**
 * `--cpu-limit` and `--memory-limit`: the ClusterQueue's `cpu` and `memory` quotas, as Python xpk sets them. Python
 * first "autocorrects" each against the capacity of the type's machine (Compute Engine's `guestCpus` and `memoryMb`
 * of `machineTypes.get`), and the corrected value is always that capacity: a limit above or below it is replaced
 * (with a note saying which), a memory limit equal to it in bytes is kept as written. When the machine type cannot be
 * read, the values are used as given. So the quota is one VM's capacity, not the cluster's; that is Python's rule,
 * kept so a cluster made by either tool holds the same ClusterQueue.
 */
import {parseQuantity} from './live-diff.js'

/** The limits as given: null when the flag was not. */
export interface KueueLimits {
  readonly cpu: number | null
  readonly memory: string | null
}

export const NO_KUEUE_LIMITS: KueueLimits = {cpu: null, memory: null}

/** What Compute Engine reports for a machine type. */
export interface MachineCapacity {
  readonly guestCpus: number
  readonly memoryMb: number
}

/** One limit replaced by the machine's capacity. */
export interface LimitCorrection {
  readonly flag: '--cpu-limit' | '--memory-limit'
  readonly given: string
  readonly corrected: string
  readonly direction: 'above' | 'below'
}

/** Whether any limit is given (only then is the machine type read). */
export function hasKueueLimits(limits: KueueLimits): boolean {
  return limits.cpu !== null || limits.memory !== null
}

/** Why a `--memory-limit` value cannot be a quota, or undefined when it is a Kubernetes quantity above zero. */
export function memoryLimitProblem(value: string): string | undefined {
  const quantity = parseQuantity(value)
  if (quantity === undefined) {
    return 'not a Kubernetes quantity: use a number with an optional unit, e.g. 64Gi, 500Mi or 100G'
  }
  if (quantity.numerator <= 0n) return 'must be more than 0'
  return undefined
}

/** Python's `_autocorrect_cpu_limit` and `_autocorrect_memory_limit` against `capacity`. */
export function autocorrectLimits(
  limits: KueueLimits,
  capacity: MachineCapacity,
): {readonly limits: KueueLimits; readonly corrections: readonly LimitCorrection[]} {
  const corrections: LimitCorrection[] = []
  let cpu = limits.cpu
  if (cpu !== null && cpu !== capacity.guestCpus) {
    corrections.push({
      flag: '--cpu-limit',
      given: String(cpu),
      corrected: String(capacity.guestCpus),
      direction: cpu > capacity.guestCpus ? 'above' : 'below',
    })
    cpu = capacity.guestCpus
  }
  let memory = limits.memory
  if (memory !== null) {
    const given = parseQuantity(memory)
    const capacityBytes = BigInt(capacity.memoryMb) << 20n
    // Python compares whole bytes (parse_quantity); a fraction of a byte counts as that fraction.
    const compare = given === undefined ? 0n : given.numerator - capacityBytes * given.denominator
    if (compare !== 0n) {
      const corrected = `${capacity.memoryMb}Mi`
      corrections.push({flag: '--memory-limit', given: memory, corrected, direction: compare > 0n ? 'above' : 'below'})
      memory = corrected
    }
  }
  return {limits: {cpu, memory}, corrections}
}
