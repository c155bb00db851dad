// What the kube-apiserver checks and fills in on every write besides a CRD's schema: ObjectMeta (names, labels,
// annotations), a few built-in defaults, and the built-in rules xpk's objects can trip over.
import {FieldPath} from './fake-kube-schema.js'
import type {ResourceType} from './fake-kube-resources.js'
import type {FieldError, Obj} from './fake-kube-util.js'
import {asObj, isObj} from './fake-kube-util.js'

const SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const NAME_PART_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/
const LABEL_VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and " +
  "end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end " +
  "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric " +
  "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is " +
  "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and " +
  "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is " +
  "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

export function nameProblems(name: string, rule: 'subdomain' | 'label' | 'path-segment'): string[] {
  // RBAC objects: any name usable as one path segment (`system:coredns`), as the API server's ValidatePathSegmentName.
  if (rule === 'path-segment') {
    if (name === '.' || name === '..') return [`may not be '${name}'`]
    return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`)
  }
  if (rule === 'label') {
    const out: string[] = []
    if (name.length > 63) out.push('must be no more than 63 characters')
    if (!LABEL_RE.test(name)) out.push(LABEL_MSG)
    return out
  }
  const out: string[] = []
  if (name.length > 253) out.push('must be no more than 253 characters')
  if (!SUBDOMAIN_RE.test(name)) out.push(SUBDOMAIN_MSG)
  return out
}

function qualifiedNameProblems(key: string): string[] {
  const slash = key.lastIndexOf('/')
  const prefix = slash >= 0 ? key.slice(0, slash) : ''
  const name = slash >= 0 ? key.slice(slash + 1) : key
  const out: string[] = []
  if (slash >= 0 && (prefix === '' || !SUBDOMAIN_RE.test(prefix) || prefix.length > 253)) {
    out.push(`prefix part ${SUBDOMAIN_MSG}`)
  }
  if (name === '') out.push('name part must be non-empty')
  else {
    if (name.length > 63) out.push('name part must be no more than 63 characters')
    if (!NAME_PART_RE.test(name)) out.push(NAME_PART_MSG)
  }
  return out
}

/** ObjectMeta rules shared by every kind. */
export function validateMeta(object: Obj, type: ResourceType): FieldError[] {
  const errs: FieldError[] = []
  const meta = asObj(object.metadata)
  const name = typeof meta.name === 'string' ? meta.name : ''
  if (!name) errs.push({type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required'})
  else {
    for (const problem of nameProblems(name, type.nameRule)) {
      errs.push({type: 'FieldValueInvalid', field: 'metadata.name', value: name, detail: problem})
    }
  }
  if (meta.labels !== undefined) {
    if (!isObj(meta.labels)) {
      errs.push({
        type: 'FieldValueTypeInvalid',
        field: 'metadata.labels',
        value: meta.labels,
        detail: 'must be a map of string to string',
      })
    } else {
      for (const [key, value] of Object.entries(meta.labels)) {
        for (const p of qualifiedNameProblems(key))
          errs.push({type: 'FieldValueInvalid', field: 'metadata.labels', value: key, detail: p})
        if (typeof value !== 'string') {
          errs.push({
            type: 'FieldValueTypeInvalid',
            field: `metadata.labels[${key}]`,
            value,
            detail: 'must be a string',
          })
        } else {
          if (value.length > 63)
            errs.push({
              type: 'FieldValueInvalid',
              field: 'metadata.labels',
              value,
              detail: 'must be no more than 63 characters',
            })
          if (!LABEL_VALUE_RE.test(value))
            errs.push({type: 'FieldValueInvalid', field: 'metadata.labels', value, detail: LABEL_VALUE_MSG})
        }
      }
    }
  }
  if (meta.annotations !== undefined) {
    if (!isObj(meta.annotations)) {
      errs.push({
        type: 'FieldValueTypeInvalid',
        field: 'metadata.annotations',
        value: meta.annotations,
        detail: 'must be a map of string to string',
      })
    } else {
      let total = 0
      for (const [key, value] of Object.entries(meta.annotations)) {
        for (const p of qualifiedNameProblems(key.toLowerCase())) {
          errs.push({type: 'FieldValueInvalid', field: 'metadata.annotations', value: key, detail: p})
        }
        if (typeof value !== 'string') {
          errs.push({
            type: 'FieldValueTypeInvalid',
            field: `metadata.annotations[${key}]`,
            value,
            detail: 'must be a string',
          })
        } else total += key.length + value.length
      }
      if (total > 256 * 1024) {
        errs.push({
          type: 'FieldValueTooLong',
          field: 'metadata.annotations',
          detail: 'may not be more than 262144 bytes',
        })
      }
    }
  }
  return errs
}

function validatePodSpec(spec: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = []
  const s = asObj(spec)
  const containers = s.containers
  if (!Array.isArray(containers) || containers.length === 0) {
    errs.push({type: 'FieldValueRequired', field: path.child('containers').text})
    return errs
  }
  const seen = new Set<string>()
  containers.forEach((c, i) => {
    const at = path.child('containers').index(i)
    const container = asObj(c)
    const name = container.name
    if (typeof name !== 'string' || name === '') errs.push({type: 'FieldValueRequired', field: at.child('name').text})
    else {
      for (const p of nameProblems(name, 'label'))
        errs.push({type: 'FieldValueInvalid', field: at.child('name').text, value: name, detail: p})
      if (seen.has(name)) errs.push({type: 'FieldValueDuplicate', field: at.child('name').text, value: name})
      seen.add(name)
    }
    if (typeof container.image !== 'string' || container.image.trim() === '') {
      errs.push({type: 'FieldValueRequired', field: at.child('image').text})
    }
  })
  return errs
}

function selectorMatches(selector: Obj, labels: Obj): boolean {
  const matchLabels = asObj(selector.matchLabels)
  const exprs = Array.isArray(selector.matchExpressions) ? selector.matchExpressions.map(asObj) : []
  if (Object.keys(matchLabels).length === 0 && exprs.length === 0) return false
  const labelOk = Object.entries(matchLabels).every(([k, v]) => labels[k] === v)
  const exprOk = exprs.every((e) => {
    const key = String(e.key)
    const values = Array.isArray(e.values) ? e.values.map(String) : []
    const has = Object.hasOwn(labels, key)
    switch (e.operator) {
      case 'In':
        return has && values.includes(String(labels[key]))
      case 'NotIn':
        return !has || !values.includes(String(labels[key]))
      case 'Exists':
        return has
      case 'DoesNotExist':
        return !has
      default:
        return false
    }
  })
  return labelOk && exprOk
}

/** The built-in rules for the workload kinds; other built-in kinds are stored as sent. */
export function validateBuiltin(object: Obj, type: ResourceType): FieldError[] {
  const spec = asObj(object.spec)
  const specPath = new FieldPath('spec')
  switch (type.kind) {
    case 'Pod':
      return validatePodSpec(object.spec, specPath)
    case 'Deployment':
    case 'DaemonSet':
    case 'StatefulSet':
    case 'ReplicaSet': {
      const errs: FieldError[] = []
      const template = asObj(spec.template)
      if (!isObj(spec.selector)) errs.push({type: 'FieldValueRequired', field: 'spec.selector'})
      else if (!selectorMatches(spec.selector, asObj(asObj(template.metadata).labels))) {
        errs.push({
          type: 'FieldValueInvalid',
          field: 'spec.template.metadata.labels',
          value: asObj(asObj(template.metadata).labels),
          detail: '`selector` does not match template `labels`',
        })
      }
      errs.push(...validatePodSpec(template.spec, specPath.child('template').child('spec')))
      return errs
    }
    case 'Job': {
      const template = asObj(spec.template)
      const templateSpec = asObj(template.spec)
      const errs = validatePodSpec(template.spec, specPath.child('template').child('spec'))
      const policy = templateSpec.restartPolicy ?? 'Always'
      if (policy !== 'OnFailure' && policy !== 'Never') {
        errs.push({
          type: 'FieldValueNotSupported',
          field: 'spec.template.spec.restartPolicy',
          value: policy,
          detail: 'supported values: "OnFailure", "Never"',
        })
      }
      return errs
    }
    case 'PriorityClass':
      return typeof object.value === 'number' && Number.isInteger(object.value)
        ? []
        : [{type: 'FieldValueRequired', field: 'value'}]
    default:
      return []
  }
}

/** The defaults of built-in kinds that callers read back (everything else is stored as sent). */
export function defaultBuiltin(object: Obj, type: ResourceType): void {
  switch (type.kind) {
    case 'Namespace':
      object.spec = {finalizers: ['kubernetes'], ...asObj(object.spec)}
      break
    case 'Secret':
      object.type ??= 'Opaque'
      break
    case 'Deployment':
    case 'StatefulSet':
    case 'ReplicaSet':
      object.spec = {replicas: 1, ...asObj(object.spec)}
      break
    case 'Job': {
      const spec = asObj(object.spec)
      object.spec = {
        parallelism: 1,
        completions: spec.completionMode === 'Indexed' ? undefined : 1,
        backoffLimit: 6,
        ...spec,
      }
      if (asObj(object.spec).completions === undefined) delete asObj(object.spec).completions
      break
    }
    case 'PriorityClass':
      object.preemptionPolicy ??= 'PreemptLowerPriority'
      break
    case 'Service':
      object.spec = {type: 'ClusterIP', ...asObj(object.spec)}
      break
  }
}

/** Status a freshly created object gets from the server (kinds with a status subresource start from this). */
export function initialStatus(type: ResourceType): Obj | undefined {
  switch (type.kind) {
    case 'Namespace':
      return {phase: 'Active'}
    case 'Pod':
      return {phase: 'Pending', qosClass: 'BestEffort'}
    default:
      return undefined
  }
}
