// Patch formats the kube-apiserver accepts (JSON merge patch, strategic merge patch, JSON patch) and the list and
// map semantics they and server-side apply share: which lists merge by a key, which are sets, which are atomic.
import type {Obj} from './fake-kube-util.js'
import {KubeError, asObj, clone, deepEqual, isObj} from './fake-kube-util.js'

export type ListShape = {type: 'atomic'} | {type: 'map'; keys: string[]} | {type: 'set'}

/** What the server knows about the shape of one position in an object. */
export interface Shape {
  child(name: string): Shape
  item(): Shape
  list(): ListShape
  /** Maps are granular (merged key by key) unless marked atomic. */
  atomicMap(): boolean
}

/**
 * Built-in kinds have no schema here, so their merge keys come from the field names the Kubernetes types tag with
 * patchMergeKey / listMapKeys. Only the lists xpk's objects use are covered; every other list is atomic.
 */
export class BuiltinShape implements Shape {
  constructor(
    private readonly kind: string,
    private readonly names: readonly string[] = [],
  ) {}

  child(name: string): Shape {
    return new BuiltinShape(this.kind, [...this.names, name])
  }

  item(): Shape {
    return this
  }

  atomicMap(): boolean {
    return false
  }

  list(): ListShape {
    const names = this.names
    const last = names.at(-1)
    const inContainer = names.some((n) => n === 'containers' || n === 'initContainers' || n === 'ephemeralContainers')
    switch (last) {
      case 'containers':
      case 'initContainers':
      case 'ephemeralContainers':
      case 'env':
      case 'volumes':
      case 'imagePullSecrets':
      case 'webhooks':
      case 'resourceClaims':
        return {type: 'map', keys: ['name']}
      case 'volumeMounts':
        return {type: 'map', keys: ['mountPath']}
      case 'volumeDevices':
        return {type: 'map', keys: ['devicePath']}
      case 'ports':
        if (inContainer) return {type: 'map', keys: ['containerPort']}
        if (this.kind === 'Service' && names.length === 2 && names[0] === 'spec') return {type: 'map', keys: ['port']}
        return {type: 'atomic'}
      case 'hostAliases':
        return {type: 'map', keys: ['ip']}
      case 'topologySpreadConstraints':
        return {type: 'map', keys: ['topologyKey']}
      case 'ownerReferences':
        return names.length === 2 && names[0] === 'metadata' ? {type: 'map', keys: ['uid']} : {type: 'atomic'}
      case 'conditions':
        return names[0] === 'status' ? {type: 'map', keys: ['type']} : {type: 'atomic'}
      case 'finalizers':
        return names.length === 2 && names[0] === 'metadata' ? {type: 'set'} : {type: 'atomic'}
      default:
        return {type: 'atomic'}
    }
  }
}

/** A custom resource's structural schema; metadata at the root follows the built-in ObjectMeta rules. */
export class SchemaShape implements Shape {
  constructor(
    private readonly schema: Obj,
    private readonly root = true,
  ) {}

  child(name: string): Shape {
    if ((this.root || this.schema['x-kubernetes-embedded-resource'] === true) && name === 'metadata') {
      return new BuiltinShape('', ['metadata'])
    }
    const prop = asObj(this.schema.properties)[name]
    if (isObj(prop)) return new SchemaShape(prop, false)
    if (isObj(this.schema.additionalProperties)) return new SchemaShape(this.schema.additionalProperties, false)
    return new SchemaShape({}, false)
  }

  item(): Shape {
    return new SchemaShape(asObj(this.schema.items), false)
  }

  list(): ListShape {
    const type = this.schema['x-kubernetes-list-type']
    if (type === 'set') return {type: 'set'}
    if (type === 'map') {
      const keys = this.schema['x-kubernetes-list-map-keys']
      return {type: 'map', keys: Array.isArray(keys) ? keys.map(String) : []}
    }
    return {type: 'atomic'}
  }

  atomicMap(): boolean {
    return this.schema['x-kubernetes-map-type'] === 'atomic'
  }
}

/** RFC 7386: objects merge recursively, null deletes, anything else replaces. */
export function jsonMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return clone(patch)
  const result: Obj = isObj(target) ? clone(target) : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key]
    else result[key] = jsonMergePatch(result[key], value)
  }
  return result
}

function keyOf(item: unknown, keys: string[]): Obj {
  const id: Obj = {}
  for (const k of keys) id[k] = asObj(item)[k]
  return id
}

function sameKey(a: unknown, b: unknown, keys: string[]): boolean {
  return keys.length > 0 && deepEqual(keyOf(a, keys), keyOf(b, keys))
}

/**
 * Strategic merge patch for built-in kinds: lists with a merge key merge item by item, `$patch: delete|replace`,
 * `$deleteFromPrimitiveList/<field>` and `$retainKeys` directives apply; `$setElementOrder` is accepted and ignored.
 */
export function strategicMergePatch(original: unknown, patch: unknown, shape: Shape): unknown {
  if (!isObj(patch)) return clone(patch)
  if (patch.$patch === 'replace') {
    const replaced = clone(patch)
    delete replaced.$patch
    return replaced
  }
  if (patch.$patch === 'delete') return undefined
  const result: Obj = isObj(original) && !shape.atomicMap() ? clone(original) : {}
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length)
      const current = result[field]
      if (Array.isArray(current) && Array.isArray(value)) {
        result[field] = current.filter((v) => !value.some((d) => deepEqual(d, v)))
      }
      continue
    }
    if (value === null) {
      delete result[key]
      continue
    }
    const merged = mergeValue(result[key], value, shape.child(key))
    if (merged === undefined) delete result[key]
    else result[key] = merged
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys.map(String))
    for (const key of Object.keys(result)) if (!keep.has(key)) delete result[key]
  }
  return result
}

function mergeValue(original: unknown, value: unknown, shape: Shape): unknown {
  if (isObj(value)) return strategicMergePatch(original, value, shape)
  if (!Array.isArray(value)) return clone(value)
  const list = shape.list()
  if (list.type === 'set') {
    const result = Array.isArray(original) ? clone(original) : []
    for (const v of value) if (!result.some((r) => deepEqual(r, v))) result.push(clone(v))
    return result
  }
  if (list.type !== 'map') return clone(value)
  if (value.some((item) => isObj(item) && item.$patch === 'replace')) {
    return clone(value.filter((item) => !(isObj(item) && item.$patch === 'replace')))
  }
  // Strategic merge matches on the first key only (the Go struct's patchMergeKey).
  const keys = list.keys.slice(0, 1)
  const result: unknown[] = Array.isArray(original) ? clone(original) : []
  for (const item of value) {
    const index = result.findIndex((r) => sameKey(r, item, keys))
    if (isObj(item) && item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1)
      continue
    }
    if (index >= 0) result[index] = strategicMergePatch(result[index], item, shape.item())
    else result.push(strategicMergePatch(undefined, item, shape.item()))
  }
  return result
}

function pointer(path: string): string[] {
  if (path === '') return []
  if (!path.startsWith('/')) throw jsonPatchError(`invalid JSON pointer "${path}"`)
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function jsonPatchError(message: string): KubeError {
  return new KubeError(422, 'Invalid', message)
}

function parentOf(doc: unknown, segments: string[], op: string): {parent: Obj | unknown[]; last: string} {
  let node: unknown = doc
  for (const segment of segments.slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(segment)]
    else if (isObj(node)) node = node[segment]
    else node = undefined
    if (node === undefined)
      throw jsonPatchError(
        `${op} operation does not apply: doc is missing path: "/${segments.join('/')}": missing value`,
      )
  }
  if (!Array.isArray(node) && !isObj(node)) {
    throw jsonPatchError(`${op} operation does not apply: doc is missing path: "/${segments.join('/')}": missing value`)
  }
  return {parent: node, last: segments.at(-1) ?? ''}
}

function read(doc: unknown, path: string, op: string): unknown {
  const segments = pointer(path)
  if (segments.length === 0) return doc
  const {parent, last} = parentOf(doc, segments, op)
  const value = Array.isArray(parent) ? parent[Number(last)] : parent[last]
  if (value === undefined)
    throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`)
  return value
}

function remove(doc: unknown, path: string, op: string): unknown {
  const segments = pointer(path)
  const {parent, last} = parentOf(doc, segments, op)
  const value = read(doc, path, op)
  if (Array.isArray(parent)) parent.splice(Number(last), 1)
  else delete parent[last]
  return value
}

function add(doc: unknown, path: string, value: unknown, op: string, replace: boolean): unknown {
  const segments = pointer(path)
  if (segments.length === 0) return clone(value)
  const {parent, last} = parentOf(doc, segments, op)
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last)
    if (!Number.isInteger(index) || index < 0 || index > parent.length) {
      throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`)
    }
    if (replace) parent[index] = clone(value)
    else parent.splice(index, 0, clone(value))
  } else {
    if (replace && parent[last] === undefined) {
      throw jsonPatchError(`replace operation does not apply: doc is missing key: ${path}: missing value`)
    }
    parent[last] = clone(value)
  }
  return doc
}

/** RFC 6902 JSON patch (add, remove, replace, move, copy, test). */
export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations))
    throw new KubeError(400, 'BadRequest', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch')
  let doc = clone(target)
  for (const raw of operations) {
    const o = asObj(raw)
    const op = String(o.op ?? '')
    const path = String(o.path ?? '')
    switch (op) {
      case 'add':
        doc = add(doc, path, o.value, op, false)
        break
      case 'replace':
        doc = add(doc, path, o.value, op, true)
        break
      case 'remove':
        remove(doc, path, op)
        break
      case 'move': {
        const value = remove(doc, String(o.from ?? ''), op)
        doc = add(doc, path, value, op, false)
        break
      }
      case 'copy':
        doc = add(doc, path, read(doc, String(o.from ?? ''), op), op, false)
        break
      case 'test':
        if (!deepEqual(read(doc, path, op), o.value)) throw jsonPatchError(`testing value ${path} failed: test failed`)
        break
      default:
        throw jsonPatchError(`Unexpected kind: ${op}`)
    }
  }
  return doc
}
