// What both TPU fakes (FakeTpu, MemoryTpu) know of the API's names and slice shapes, so they agree on them.

/** A node or queued resource id the API accepts. */
export const TPU_ID = /^[a-z](?:[-a-z0-9]*[a-z0-9])?$/

/** An accelerator type the fakes know: generation and size. */
export const TPU_TYPE = /^(v2|v3|v4|v5litepod|v5p|v6e)-(\d+)$/

/** Workers (VMs) per slice of a type: single-host up to size 8, then 4 chips per host (v5litepod, v6e) or 8 cores. */
export function workersOf(acceleratorType: string): number {
  const m = TPU_TYPE.exec(acceleratorType)
  if (!m) return 1
  const size = Number(m[2])
  if (size <= 8) return 1
  return m[1] === 'v5litepod' || m[1] === 'v6e' ? size / 4 : size / 8
}
