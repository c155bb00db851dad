// Structural OpenAPI v3 schemas of CRDs, applied to custom resources the way the apiextensions server does: drop
// nulls the schema does not allow, fill defaults, prune unknown fields (unless x-kubernetes-preserve-unknown-fields),
// then validate and report field errors worded like kube-openapi's.
import type {FieldError, Obj} from './fake-kube-util.js'
import {asObj, clone, deepEqual, isObj} from './fake-kube-util.js'

type Schema = Obj

/** A field path as the API server prints it: `spec.replicatedJobs[0].template`, `metadata.labels[app]`. */
export class FieldPath {
  constructor(readonly text: string) {}

  child(name: string): FieldPath {
    return new FieldPath(this.text ? `${this.text}.${name}` : name)
  }

  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`)
  }

  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`)
  }
}

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata'])

function isEmbedded(schema: Schema): boolean {
  return schema['x-kubernetes-embedded-resource'] === true
}

function properties(schema: Schema): Record<string, Schema> {
  return asObj(schema.properties) as Record<string, Schema>
}

/** Applies defaults in place; returns the (possibly replaced) value. */
export function applyDefaults(value: unknown, schema: Schema): unknown {
  if (Array.isArray(value)) {
    const items = asObj(schema.items)
    return value.map((item) => applyDefaults(item, items))
  }
  if (!isObj(value)) return value
  for (const [name, prop] of Object.entries(properties(schema))) {
    const current = value[name]
    if ((current === undefined || (current === null && prop.nullable !== true)) && prop.default !== undefined) {
      value[name] = clone(prop.default)
    }
    if (value[name] !== undefined) value[name] = applyDefaults(value[name], prop)
  }
  if (isObj(schema.additionalProperties)) {
    const extra = schema.additionalProperties
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(properties(schema), key)) value[key] = applyDefaults(value[key], extra)
    }
  }
  return value
}

/**
 * Removes, in place, fields the schema does not declare and nulls it does not allow; returns the paths it pruned
 * (for Warn/Strict field validation).
 */
export function prune(value: unknown, schema: Schema, path = new FieldPath(''), root = true): string[] {
  const pruned: string[] = []
  if (Array.isArray(value)) {
    const items = asObj(schema.items)
    value.forEach((item, i) => pruned.push(...prune(item, items, path.index(i), false)))
    return pruned
  }
  if (!isObj(value)) return pruned
  const props = properties(schema)
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true
  const additional = schema.additionalProperties
  const keepMeta = root || isEmbedded(schema)
  for (const key of Object.keys(value)) {
    const prop = props[key]
    // ObjectMeta is the API machinery's, whatever the schema says of `metadata` (usually a bare `type: object`).
    if (keepMeta && ROOT_FIELDS.has(key)) continue
    if (prop) {
      if (value[key] === null && prop.nullable !== true) {
        delete value[key]
        continue
      }
      pruned.push(...prune(value[key], prop, path.child(key), false))
    } else if (isObj(additional)) {
      pruned.push(...prune(value[key], additional, path.child(key), false))
    } else if (additional === true || preserve) {
      continue
    } else {
      delete value[key]
      pruned.push(path.child(key).text)
    }
  }
  return pruned
}

function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return isObj(value)
    case 'array':
      return Array.isArray(value)
    case 'string':
      return typeof value === 'string'
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    case 'number':
      return typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    default:
      return true
  }
}

const patternCache = new Map<string, RegExp>()

function patternOf(pattern: string): RegExp {
  let re = patternCache.get(pattern)
  if (!re) {
    // The schemas are written for Go's RE2; the syntax they use (classes, anchors, repetition) means the same in JS.
    re = new RegExp(pattern, 'u')
    patternCache.set(pattern, re)
  }
  return re
}

function enumText(values: unknown[]): string {
  return `supported values: ${values.map((v) => JSON.stringify(typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`
}

/** Field errors for `value` against `schema`; CEL rules (x-kubernetes-validations) are not evaluated. */
export function validate(value: unknown, schema: Schema, path = new FieldPath(''), root = true): FieldError[] {
  const errs: FieldError[] = []
  const at = path.text
  if (value === null) {
    if (schema.nullable === true) return errs
  }
  const intOrString = schema['x-kubernetes-int-or-string'] === true
  const type = typeof schema.type === 'string' ? schema.type : undefined
  if (intOrString) {
    if (!(typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)))) {
      errs.push({
        type: 'FieldValueTypeInvalid',
        field: at,
        value: typeName(value),
        detail: `${at} in body must be of type integer-or-string: "${typeName(value)}"`,
      })
      return errs
    }
  } else if (type && !typeMatches(type, value)) {
    // kube-openapi's InvalidType error carries the type it found as its value, so that is what the cause shows.
    errs.push({
      type: 'FieldValueTypeInvalid',
      field: at,
      value: typeName(value),
      detail: `${at} in body must be of type ${type}: "${typeName(value)}"`,
    })
    return errs
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => deepEqual(e, value))) {
    errs.push({type: 'FieldValueNotSupported', field: at, value, detail: enumText(schema.enum)})
  }
  if (typeof value === 'string') errs.push(...validateString(value, schema, at))
  if (typeof value === 'number') errs.push(...validateNumber(value, schema, at))
  if (Array.isArray(value)) errs.push(...validateArray(value, schema, path))
  if (isObj(value)) errs.push(...validateObject(value, schema, path, root))
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[key]
    if (!Array.isArray(list)) continue
    const results = list.map((s) => validate(value, asObj(s), path, root))
    const passing = results.filter((r) => r.length === 0).length
    if (key === 'allOf') errs.push(...results.flat())
    else if (key === 'anyOf' && passing === 0) {
      errs.push({
        type: 'FieldValueInvalid',
        field: at,
        value: '',
        detail: `"${at}" must validate at least one schema (anyOf)`,
      })
    } else if (key === 'oneOf' && passing !== 1) {
      errs.push({
        type: 'FieldValueInvalid',
        field: at,
        value: '',
        detail: `"${at}" must validate one and only one schema (oneOf)`,
      })
    }
  }
  if (isObj(schema.not) && validate(value, schema.not, path, root).length === 0) {
    errs.push({type: 'FieldValueInvalid', field: at, value: '', detail: `"${at}" must not validate the schema (not)`})
  }
  return errs
}

function validateString(value: string, schema: Schema, at: string): FieldError[] {
  const errs: FieldError[] = []
  const length = [...value].length
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
    errs.push({type: 'FieldValueTooLong', field: at, value, detail: `may not be longer than ${schema.maxLength}`})
  }
  if (typeof schema.minLength === 'number' && length < schema.minLength) {
    errs.push({
      type: 'FieldValueInvalid',
      field: at,
      value,
      detail: `${at} in body should be at least ${schema.minLength} chars long`,
    })
  }
  if (typeof schema.pattern === 'string' && !patternOf(schema.pattern).test(value)) {
    errs.push({type: 'FieldValueInvalid', field: at, value, detail: `${at} in body should match '${schema.pattern}'`})
  }
  return errs
}

function validateNumber(value: number, schema: Schema, at: string): FieldError[] {
  const errs: FieldError[] = []
  if (typeof schema.minimum === 'number') {
    const exclusive = schema.exclusiveMinimum === true
    if (exclusive ? value <= schema.minimum : value < schema.minimum) {
      const words = exclusive ? 'greater than' : 'greater than or equal to'
      errs.push({
        type: 'FieldValueInvalid',
        field: at,
        value,
        detail: `${at} in body should be ${words} ${schema.minimum}`,
      })
    }
  }
  if (typeof schema.maximum === 'number') {
    const exclusive = schema.exclusiveMaximum === true
    if (exclusive ? value >= schema.maximum : value > schema.maximum) {
      const words = exclusive ? 'less than' : 'less than or equal to'
      errs.push({
        type: 'FieldValueInvalid',
        field: at,
        value,
        detail: `${at} in body should be ${words} ${schema.maximum}`,
      })
    }
  }
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0 && value % schema.multipleOf !== 0) {
    errs.push({
      type: 'FieldValueInvalid',
      field: at,
      value,
      detail: `${at} in body should be a multiple of ${schema.multipleOf}`,
    })
  }
  return errs
}

function validateArray(value: unknown[], schema: Schema, path: FieldPath): FieldError[] {
  const errs: FieldError[] = []
  const at = path.text
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
    errs.push({
      type: 'FieldValueTooMany',
      field: at,
      value: value.length,
      detail: `must have at most ${schema.maxItems} items`,
    })
  }
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
    errs.push({
      type: 'FieldValueInvalid',
      field: at,
      value: value.length,
      detail: `${at} in body should have at least ${schema.minItems} items`,
    })
  }
  const listType = schema['x-kubernetes-list-type']
  if (listType === 'set') {
    value.forEach((item, i) => {
      if (value.findIndex((other) => deepEqual(other, item)) < i) {
        errs.push({type: 'FieldValueDuplicate', field: path.index(i).text, value: item})
      }
    })
  } else if (listType === 'map') {
    const keys = Array.isArray(schema['x-kubernetes-list-map-keys'])
      ? schema['x-kubernetes-list-map-keys'].map(String)
      : []
    const seen: Obj[] = []
    value.forEach((item, i) => {
      const id: Obj = {}
      for (const k of keys) id[k] = asObj(item)[k]
      if (seen.some((s) => deepEqual(s, id)))
        errs.push({type: 'FieldValueDuplicate', field: path.index(i).text, value: id})
      seen.push(id)
    })
  }
  const items = asObj(schema.items)
  value.forEach((item, i) => errs.push(...validate(item, items, path.index(i), false)))
  return errs
}

function validateObject(value: Obj, schema: Schema, path: FieldPath, root: boolean): FieldError[] {
  const errs: FieldError[] = []
  const at = path.text
  const props = properties(schema)
  if (Array.isArray(schema.required)) {
    for (const name of schema.required.map(String)) {
      if (value[name] === undefined) errs.push({type: 'FieldValueRequired', field: path.child(name).text})
    }
  }
  const count = Object.keys(value).length
  if (typeof schema.maxProperties === 'number' && count > schema.maxProperties) {
    errs.push({
      type: 'FieldValueTooMany',
      field: at,
      value: count,
      detail: `must have at most ${schema.maxProperties} items`,
    })
  }
  if (typeof schema.minProperties === 'number' && count < schema.minProperties) {
    errs.push({
      type: 'FieldValueInvalid',
      field: at,
      value: count,
      detail: `${at} in body should have at least ${schema.minProperties} properties`,
    })
  }
  for (const [key, child] of Object.entries(value)) {
    // The root's metadata is ObjectMeta, validated by the API machinery rather than by the CRD's schema.
    if ((root || isEmbedded(schema)) && key === 'metadata') continue
    const prop = props[key]
    if (prop) errs.push(...validate(child, prop, path.child(key), false))
    else if (isObj(schema.additionalProperties)) {
      errs.push(...validate(child, schema.additionalProperties, path.child(key), false))
    }
  }
  return errs
}
