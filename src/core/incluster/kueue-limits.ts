/**
 * `--cpu-limit` and `--memory-limit`: the ClusterQueue's `cpu` and `memory` quotas. Python xpk "autocorrects" each
 * against the capacity of ONE VM of the type (Compute Engine's `guestCpus` and `memoryMb` of `machineTypes.get`) and
 * always ends with that capacity: on a cluster of many VMs the quota is then a fraction of what it holds, and a limit
 * below it (the reason to give one) is overridden. Here the capacity is the cluster's (one VM's times the VMs of the
 * accelerator pools): a limit above it is lowered to it (nothing could use the rest), a limit at or below it is kept
 * as written, with a note saying how much it leaves out. When the machine type cannot be read, the values are used as
 * given.
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

/** A limit compared with the cluster's capacity: lowered to it (`above`), or kept under it (`below`). */
export interface LimitCorrection {
  readonly flag: '--cpu-limit' | '--memory-limit'
  readonly given: string
  /** The quota set: the capacity when above it, else the value as given. */
  readonly corrected: string
  /** The cluster's capacity, as the quota would state it. */
  readonly capacity: string
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

/**
 * Each limit against the capacity of `vms` VMs of `machine`: above it, lowered to it; below it, kept (both said as a
 * correction, for the note); equal (a memory value equal in bytes, however written), kept without a word.
 */
export function autocorrectLimits(
  limits: KueueLimits,
  machine: MachineCapacity,
  vms: number,
): {readonly limits: KueueLimits; readonly corrections: readonly LimitCorrection[]} {
  const corrections: LimitCorrection[] = []
  const count = Math.max(1, vms)
  const cpuCapacity = machine.guestCpus * count
  let cpu = limits.cpu
  if (cpu !== null && cpu !== cpuCapacity) {
    const above = cpu > cpuCapacity
    corrections.push({
      flag: '--cpu-limit',
      given: String(cpu),
      corrected: String(above ? cpuCapacity : cpu),
      capacity: String(cpuCapacity),
      direction: above ? 'above' : 'below',
    })
    if (above) cpu = cpuCapacity
  }
  let memory = limits.memory
  if (memory !== null) {
    const given = parseQuantity(memory)
    const capacityMb = machine.memoryMb * count
    const capacityBytes = BigInt(capacityMb) << 20n
    // Compared exactly (a quantity is a rational number of bytes).
    const compare = given === undefined ? 0n : given.numerator - capacityBytes * given.denominator
    if (compare !== 0n) {
      const above = compare > 0n
      const capacity = `${capacityMb}Mi`
      corrections.push({
        flag: '--memory-limit',
        given: memory,
        corrected: above ? capacity : memory,
        capacity,
        direction: above ? 'above' : 'below',
      })
      if (above) memory = capacity
    }
  }
  return {limits: {cpu, memory}, corrections}
}
