// Field ownership (metadata.managedFields) and server-side apply: which manager owns which field, conflicts when an
// applier would change a field someone else owns, and removal of fields an applier stops applying.
import type {Shape} from './fake-kube-merge.js'
import type {Obj} from './fake-kube-util.js'
import {KubeError, asObj, clone, deepEqual, isObj, kubeTime} from './fake-kube-util.js'

/** One step of a field path: a field name, a list item by its key fields, or a set member by value. */
export type Segment = {f: string} | {k: Obj} | {v: unknown}
export type FieldPathSegments = Segment[]

export type Scope = 'main' | 'status' | 'all'

export interface ManagerEntry {
  manager: string
  operation: 'Apply' | 'Update'
  subresource?: string
  apiVersion: string
  time: string
  /** Owned paths keyed by their JSON form. */
  paths: Map<string, FieldPathSegments>
}

/** Metadata the server sets, which no manager owns. */
const SYSTEM_METADATA = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]

/** The part of an object a write in `scope` covers, without the fields nobody owns. */
export function scopeView(object: Obj, scope: Scope): Obj {
  if (scope === 'status') return object.status === undefined ? {} : {status: clone(object.status)}
  const view = clone(object)
  delete view.apiVersion
  delete view.kind
  if (scope === 'main') delete view.status
  if (isObj(view.metadata)) {
    for (const key of SYSTEM_METADATA) delete view.metadata[key]
    if (Object.keys(view.metadata).length === 0) delete view.metadata
  }
  return view
}

function sortedKey(item: unknown, keys: string[]): Obj {
  const id: Obj = {}
  for (const k of [...keys].sort()) id[k] = asObj(item)[k]
  return id
}

/** Every leaf and keyed list item of `value`, as the paths a manager would own. */
export function ownedPaths(value: unknown, shape: Shape): Map<string, FieldPathSegments> {
  const out = new Map<string, FieldPathSegments>()
  const add = (path: FieldPathSegments) => out.set(JSON.stringify(path), path)
  const walk = (node: unknown, s: Shape, path: FieldPathSegments) => {
    if (isObj(node) && !s.atomicMap()) {
      const keys = Object.keys(node).filter((k) => node[k] !== undefined)
      if (keys.length === 0 && path.length > 0) add(path)
      for (const key of keys) walk(node[key], s.child(key), [...path, {f: key}])
      return
    }
    if (Array.isArray(node)) {
      const list = s.list()
      if (list.type === 'map') {
        for (const item of node) {
          const itemPath = [...path, {k: sortedKey(item, list.keys)}]
          add(itemPath)
          walk(item, s.item(), itemPath)
        }
        return
      }
      if (list.type === 'set') {
        for (const item of node) add([...path, {v: item}])
        return
      }
    }
    if (path.length > 0) add(path)
  }
  walk(value, shape, [])
  return out
}

function step(node: unknown, segment: Segment): unknown {
  if ('f' in segment) return isObj(node) ? node[segment.f] : undefined
  if (!Array.isArray(node)) return undefined
  if ('k' in segment) {
    const keys = Object.keys(segment.k)
    return node.find((item) => deepEqual(sortedKey(item, keys), segment.k))
  }
  return node.find((item) => deepEqual(item, segment.v))
}

export function valueAt(node: unknown, path: FieldPathSegments): unknown {
  let current = node
  for (const segment of path) {
    current = step(current, segment)
    if (current === undefined) return undefined
  }
  return current
}

function deletePath(root: Obj, path: FieldPathSegments): void {
  const parent = valueAt(root, path.slice(0, -1))
  const last = path.at(-1)
  if (!last) return
  if ('f' in last) {
    if (isObj(parent)) delete parent[last.f]
    return
  }
  if (!Array.isArray(parent)) return
  const index =
    'k' in last
      ? parent.findIndex((item) => deepEqual(sortedKey(item, Object.keys(last.k)), last.k))
      : parent.findIndex((item) => deepEqual(item, last.v))
  if (index >= 0) parent.splice(index, 1)
}

function isPrefix(prefix: FieldPathSegments, path: FieldPathSegments): boolean {
  return prefix.length <= path.length && prefix.every((seg, i) => deepEqual(seg, path[i]))
}

/** `.spec.containers[name="c"].image`, the form structured-merge-diff prints in conflicts. */
export function pathString(path: FieldPathSegments): string {
  return path
    .map((seg) => {
      if ('f' in seg) return `.${seg.f}`
      if ('k' in seg) {
        return `[${Object.entries(seg.k)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`
      }
      return `[=${JSON.stringify(seg.v)}]`
    })
    .join('')
}

/** metadata.managedFields entries in the FieldsV1 form (`f:`, `k:`, `v:` keys, `.` for an owned list item). */
export function renderManagedFields(entries: ManagerEntry[]): Obj[] {
  return entries.map((e) => {
    const tree: Obj = {}
    for (const path of e.paths.values()) {
      let node = tree
      for (const seg of path) {
        const key = 'f' in seg ? `f:${seg.f}` : 'k' in seg ? `k:${JSON.stringify(seg.k)}` : `v:${JSON.stringify(seg.v)}`
        node[key] = asObj(node[key])
        node = node[key] as Obj
      }
      if (path.length > 0 && 'k' in path[path.length - 1]) node['.'] = {}
    }
    return {
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      time: e.time,
      fieldsType: 'FieldsV1',
      fieldsV1: tree,
      ...(e.subresource ? {subresource: e.subresource} : {}),
    }
  })
}

function sameManager(e: ManagerEntry, manager: string, operation: string, subresource: string | undefined): boolean {
  return e.manager === manager && e.operation === operation && (e.subresource ?? '') === (subresource ?? '')
}

function describeManager(e: ManagerEntry): string {
  let text = JSON.stringify(e.manager)
  if (e.subresource) text += ` with subresource ${JSON.stringify(e.subresource)}`
  if (e.operation === 'Update') text += ` using ${e.apiVersion}`
  return text
}

export interface Writer {
  manager: string
  subresource?: string
  apiVersion: string
}

/**
 * Ownership after a non-apply write (create, update, patch): the writer takes every field it changed, and those
 * fields, as well as removed ones, leave every other manager.
 */
export function recordUpdate(
  entries: ManagerEntry[],
  writer: Writer,
  before: Obj,
  after: Obj,
  scope: Scope,
  shape: Shape,
): ManagerEntry[] {
  const oldView = scopeView(before, scope)
  const newView = scopeView(after, scope)
  const oldPaths = ownedPaths(oldView, shape)
  const newPaths = ownedPaths(newView, shape)
  const changed = new Map<string, FieldPathSegments>()
  for (const [key, path] of newPaths) {
    if (!oldPaths.has(key) || !deepEqual(valueAt(oldView, path), valueAt(newView, path))) changed.set(key, path)
  }
  const removed = [...oldPaths.keys()].filter((key) => !newPaths.has(key))
  if (changed.size === 0 && removed.length === 0) return entries
  const time = kubeTime()
  const next = entries.map((e) => ({...e, paths: new Map(e.paths)}))
  for (const e of next) {
    for (const key of [...changed.keys(), ...removed]) {
      if (e.paths.delete(key)) e.time = time
    }
  }
  let own = next.find((e) => sameManager(e, writer.manager, 'Update', writer.subresource))
  if (!own) {
    own = {manager: writer.manager, operation: 'Update', apiVersion: writer.apiVersion, time, paths: new Map()}
    if (writer.subresource) own.subresource = writer.subresource
    next.push(own)
  }
  for (const [key, path] of changed) own.paths.set(key, path)
  own.time = time
  own.apiVersion = writer.apiVersion
  return next.filter((e) => e.paths.size > 0)
}

function mergeApplied(live: unknown, applied: unknown, shape: Shape): unknown {
  if (isObj(applied) && isObj(live) && !shape.atomicMap()) {
    const result = clone(live)
    for (const [key, value] of Object.entries(applied)) result[key] = mergeApplied(live[key], value, shape.child(key))
    return result
  }
  if (Array.isArray(applied) && Array.isArray(live)) {
    const list = shape.list()
    if (list.type === 'set') {
      const result = clone(live)
      for (const v of applied) if (!result.some((r) => deepEqual(r, v))) result.push(clone(v))
      return result
    }
    if (list.type === 'map') {
      const result = clone(live)
      for (const item of applied) {
        const id = sortedKey(item, list.keys)
        const index = result.findIndex((r) => deepEqual(sortedKey(r, list.keys), id))
        if (index >= 0) result[index] = mergeApplied(result[index], item, shape.item())
        else result.push(clone(item))
      }
      return result
    }
  }
  return clone(applied)
}

export interface ApplyResult {
  object: Obj
  entries: ManagerEntry[]
}

/**
 * Server-side apply of `applied` onto `live` (undefined: the object is new) within `scope`. Throws 409 with one
 * cause per conflicting field unless `force`, which moves those fields to the applier.
 */
export function serverSideApply(
  live: Obj | undefined,
  applied: Obj,
  entries: ManagerEntry[],
  writer: Writer,
  force: boolean,
  scope: Scope,
  shape: Shape,
): ApplyResult {
  const appliedView = scopeView(applied, scope)
  const appliedPaths = ownedPaths(appliedView, shape)
  const liveObject = live ?? {}
  const liveView = scopeView(liveObject, scope)
  const next = entries.map((e) => ({...e, paths: new Map(e.paths)}))
  const isOwn = (e: ManagerEntry) => sameManager(e, writer.manager, 'Apply', writer.subresource)
  const conflicts: {entry: ManagerEntry; key: string; path: FieldPathSegments}[] = []
  for (const e of next) {
    if (isOwn(e)) continue
    for (const [key, path] of appliedPaths) {
      if (!e.paths.has(key)) continue
      // A keyed item is identified by its key, so owning it together is never a conflict by itself.
      if ('k' in path[path.length - 1]) continue
      if (!deepEqual(valueAt(liveView, path), valueAt(appliedView, path))) conflicts.push({entry: e, key, path})
    }
  }
  if (conflicts.length > 0 && !force) throw conflictError(conflicts)
  const time = kubeTime()
  for (const c of conflicts) {
    c.entry.paths.delete(c.key)
    c.entry.time = time
  }
  const own = next.find(isOwn)
  const others = next.filter((e) => !isOwn(e))
  let object =
    scope === 'status'
      ? {...clone(liveObject), status: mergeApplied(liveObject.status, applied.status, shape.child('status'))}
      : (mergeApplied(liveObject, applied, shape) as Obj)
  if (own) {
    const dropped = [...own.paths.entries()]
      .filter(([key]) => !appliedPaths.has(key))
      .map(([, path]) => path)
      .filter((path) => !others.some((e) => [...e.paths.values()].some((q) => isPrefix(path, q))))
      // Deepest first, so removing an item does not hide a field inside it that is removed too.
      .sort((a, b) => b.length - a.length)
    object = clone(object)
    for (const path of dropped) deletePath(object, path)
  }
  const entry: ManagerEntry = own ?? {
    manager: writer.manager,
    operation: 'Apply',
    apiVersion: writer.apiVersion,
    time,
    paths: new Map(),
  }
  if (writer.subresource) entry.subresource = writer.subresource
  const changed =
    !own || own.paths.size !== appliedPaths.size || [...appliedPaths.keys()].some((k) => !own.paths.has(k))
  entry.paths = appliedPaths
  entry.apiVersion = writer.apiVersion
  if (changed) entry.time = time
  const result = own ? next : [...next, entry]
  return {object, entries: result.filter((e) => e.paths.size > 0)}
}

function conflictError(conflicts: {entry: ManagerEntry; path: FieldPathSegments}[]): KubeError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${describeManager(c.entry)}`,
    field: pathString(c.path),
  }))
  let message: string
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${describeManager(conflicts[0].entry)}: ${pathString(conflicts[0].path)}`
  } else {
    const byManager = new Map<string, string[]>()
    for (const c of conflicts) {
      const name = describeManager(c.entry)
      byManager.set(name, [...(byManager.get(name) ?? []), pathString(c.path)])
    }
    const lines: string[] = []
    for (const name of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${name}:`, ...byManager.get(name)!.map((p) => `- ${p}`))
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`
  }
  return new KubeError(409, 'Conflict', message, {causes})
}
