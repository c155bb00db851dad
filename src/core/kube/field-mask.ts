/**
 * Which fields of an object a reader uses, to drop the rest of each object of a long list as soon as it is parsed.
 * The Kubernetes API has no field projection (a list sends whole objects); the client cuts each item down to the
 * mask. `true` keeps a value whole; an object keeps only the keys it names, each by its own mask; an array is cut
 * element by element with the same mask; a scalar is kept as it is (a reader checks types anyway).
 */
export type FieldMask = true | {readonly [key: string]: FieldMask}

type Cut = (value: unknown) => unknown

const compiled = new WeakMap<object, Cut>()
const keep: Cut = (value) => value

/** `value` cut down to `mask` (a new object; `value` is not changed). */
export function projectFields(value: unknown, mask: FieldMask): unknown {
  return cutterFor(mask)(value)
}

/**
 * The function that cuts a value down to `mask`, made once per mask: a list of 10,000 objects is cut with one
 * closure per level of the mask, instead of walking the mask's keys again for every object.
 */
export function cutterFor(mask: FieldMask): Cut {
  if (mask === true) return keep
  let cut = compiled.get(mask)
  if (cut) return cut
  const fields = Object.keys(mask).map((key) => ({key, cut: cutterFor(mask[key])}))
  const cutObject = (value: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {}
    for (const field of fields) {
      if (Object.hasOwn(value, field.key)) out[field.key] = field.cut(value[field.key])
    }
    return out
  }
  cut = (value) => {
    if (value === null || typeof value !== 'object') return value
    if (Array.isArray(value)) return value.map((item: unknown) => cut!(item))
    return cutObject(value as Record<string, unknown>)
  }
  compiled.set(mask, cut)
  return cut
}

/**
 * A mask as the list scanner walks it: `true` keeps a value whole; a level keeps the keys it has, each by its own
 * node. The scanner compares a key's text in place with the level's keys of the same length (no string is made
 * for it); a key written with escapes is decoded and looked up in `byKey` (a Map: a key like `constructor` is
 * never found on a prototype).
 */
export type MaskNode = true | MaskLevel

export interface MaskLevel {
  readonly keys: readonly string[]
  readonly nodes: readonly MaskNode[]
  readonly byKey: ReadonlyMap<string, MaskNode>
}

const nodes = new WeakMap<object, MaskNode>()

/** The node of `mask`, made once per mask. */
export function maskNode(mask: FieldMask): MaskNode {
  if (mask === true) return true
  let node = nodes.get(mask)
  if (node) return node
  const keys = Object.keys(mask)
  const children = keys.map((key) => maskNode(mask[key]))
  node = {keys, nodes: children, byKey: new Map(keys.map((key, i) => [key, children[i]]))}
  nodes.set(mask, node)
  return node
}
