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

/** A network tag or a label value: Compute Engine's rules (63 characters at most). */
const TAG = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/
const LABEL_KEY = /^[a-z][-_a-z0-9]{0,62}$/
const LABEL_VALUE = /^[-_a-z0-9]{0,63}$/

/** Why the TPU API refuses a node to create (INVALID_ARGUMENT), or undefined; the same words in both fakes. */
export function nodeProblem(node: {
  readonly id: string
  readonly acceleratorType?: string
  readonly runtimeVersion?: string
  readonly tags?: readonly string[]
  readonly labels?: Readonly<Record<string, string>>
  readonly spot?: boolean
  readonly preemptible?: boolean
}): string | undefined {
  if (!TPU_ID.test(node.id)) return `Invalid node id "${node.id}".`
  if (!TPU_TYPE.test(node.acceleratorType ?? '')) return `Invalid accelerator type "${node.acceleratorType ?? ''}".`
  if (!node.runtimeVersion) return 'runtime_version is required.'
  if (node.spot && node.preemptible) return 'scheduling_config: spot and preemptible cannot both be set.'
  const tag = (node.tags ?? []).find((t) => !TAG.test(t))
  if (tag !== undefined) return `Invalid network tag "${tag}".`
  for (const [key, value] of Object.entries(node.labels ?? {})) {
    if (!LABEL_KEY.test(key)) return `Invalid label key "${key}".`
    if (!LABEL_VALUE.test(value)) return `Invalid value "${value}" of label "${key}".`
  }
  return undefined
}
