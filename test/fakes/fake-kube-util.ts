// Shared pieces of the fake kube-apiserver: JSON helpers and the v1 Status errors every handler throws.

export type Obj = Record<string, unknown>

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The value if it is a JSON object, else a fresh empty one (reads of absent branches stay simple). */
export function asObj(value: unknown): Obj {
  return isObj(value) ? value : {}
}

export function clone<T>(value: T): T {
  return structuredClone(value)
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]))
  }
  if (isObj(a) && isObj(b)) {
    const ak = Object.keys(a).filter((k) => a[k] !== undefined)
    const bk = Object.keys(b).filter((k) => b[k] !== undefined)
    return ak.length === bk.length && ak.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
  }
  return false
}

/** Kubernetes timestamps are RFC 3339 with whole seconds. */
export function kubeTime(ms = Date.now()): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

/** Like Date.toISOString but with microseconds, as in managedFields and conditions written by MicroTime fields. */
export function kubeMicroTime(ms = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')
}

export interface StatusCause {
  reason?: string
  message?: string
  field?: string
}

export interface StatusDetails {
  name?: string
  group?: string
  kind?: string
  uid?: string
  causes?: StatusCause[]
  retryAfterSeconds?: number
}

/** A failure answered as a v1 Status, the body every Kubernetes client parses errors from. */
export class KubeError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message)
  }

  toStatus(): Obj {
    const status: Obj = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    }
    if (this.details) status.details = this.details
    return status
  }
}

export interface ResourceName {
  group: string
  /** The plural, e.g. `configmaps`. */
  resource: string
  name?: string
}

/** `configmaps` or `jobsets.jobset.x-k8s.io`, the way the server names a resource in messages. */
export function qualifiedResource(r: {group: string; resource: string}): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource
}

export const errors = {
  notFound(r: ResourceName): KubeError {
    return new KubeError(404, 'NotFound', `${qualifiedResource(r)} "${r.name ?? ''}" not found`, {
      name: r.name,
      ...(r.group ? {group: r.group} : {}),
      kind: r.resource,
    })
  },
  alreadyExists(r: ResourceName): KubeError {
    return new KubeError(409, 'AlreadyExists', `${qualifiedResource(r)} "${r.name ?? ''}" already exists`, {
      name: r.name,
      ...(r.group ? {group: r.group} : {}),
      kind: r.resource,
    })
  },
  conflict(r: ResourceName, why: string, causes?: StatusCause[]): KubeError {
    return new KubeError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(r)} "${r.name}": ${why}`,
      {
        name: r.name,
        ...(r.group ? {group: r.group} : {}),
        kind: r.resource,
        ...(causes ? {causes} : {}),
      },
    )
  },
  badRequest(message: string): KubeError {
    return new KubeError(400, 'BadRequest', message)
  },
  methodNotAllowed(): KubeError {
    return new KubeError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')
  },
  unsupportedMediaType(contentType: string): KubeError {
    return new KubeError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (got ${contentType})`,
    )
  },
  gone(message: string): KubeError {
    return new KubeError(410, 'Expired', message)
  },
  internal(message: string): KubeError {
    return new KubeError(500, 'InternalError', `Internal error occurred: ${message}`, {
      causes: [{message}],
    })
  },
}

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueForbidden'

/** One problem with one field, worded as apimachinery's field.Error. */
export interface FieldError {
  type: FieldErrorType
  field: string
  /** Omitted from the message for Required, Forbidden and TooLong, as the real server does. */
  value?: unknown
  detail?: string
}

const TYPE_WORDS: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueForbidden: 'Forbidden',
}

function showValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value === null || value === undefined) return 'null'
  return JSON.stringify(value)
}

export function fieldErrorBody(e: FieldError): string {
  const words = TYPE_WORDS[e.type]
  const omit = e.type === 'FieldValueRequired' || e.type === 'FieldValueForbidden' || e.type === 'FieldValueTooLong'
  let body = omit || !('value' in e) ? words : `${words}: ${showValue(e.value)}`
  if (e.detail) body += `: ${e.detail}`
  return body
}

/** 422 Invalid: `Kind.group "name" is invalid: <errors>`, each error also a cause. */
export function invalid(kind: string, group: string, name: string, fieldErrors: FieldError[]): KubeError {
  const texts = fieldErrors.map((e) => `${e.field}: ${fieldErrorBody(e)}`)
  const qualified = group ? `${kind}.${group}` : kind
  const message = `${qualified} "${name}" is invalid: ${texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`}`
  return new KubeError(422, 'Invalid', message, {
    name,
    ...(group ? {group} : {}),
    kind,
    causes: fieldErrors.map((e) => ({reason: e.type, message: fieldErrorBody(e), field: e.field})),
  })
}

/**
 * An RFC 3339 time (any fraction of a second, any offset) in nanoseconds since the epoch; undefined when it is not one. The
 * kubelet writes RFC3339Nano; `sinceTime` comes as RFC 3339 with or without a fraction.
 */
export function logTimeNanos(text: string): bigint | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(text)
  if (!m) return undefined
  const ms = Date.parse(`${m[1]}${m[3]}`)
  if (Number.isNaN(ms)) return undefined
  return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'))
}
