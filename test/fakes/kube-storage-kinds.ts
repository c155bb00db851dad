// The built-in storage kinds as the kube-apiserver checks them: PersistentVolume and PersistentVolumeClaim (core
// v1) and StorageClass (storage.k8s.io/v1). The schemas are Kubernetes' OpenAPI v3 (api/openapi-spec/v3
// api__v1_openapi.json and apis__storage.k8s.io__v1_openapi.json, k8s.io/api core/v1 and storage/v1 types) reduced to
// the fields xpk and users' storage manifests set, with the enums the API server's validation enforces
// (pkg/apis/core/validation and pkg/apis/storage/validation); fields not listed are stored as sent. Shared by both
// fakes (fake-kube.ts and memory-kube.ts), so they refuse the same objects with the same words:
//   - a field of the wrong JSON type, or a capacity or request that is no quantity, is refused while decoding
//     (400 BadRequest, "cannot be handled as a KIND"), as the real server's JSON decoder does;
//   - everything else is a 422 Invalid with one cause per field error, worded like the Go validation.
import {applyDefaults, validate} from './fake-kube-schema.js'
import type {FieldError, Obj} from './fake-kube-util.js'
import {asObj, deepEqual, isObj} from './fake-kube-util.js'

const STRING = {type: 'string'}
const STRING_MAP = {type: 'object', additionalProperties: STRING}
const QUANTITY_MAP = {type: 'object', additionalProperties: {'x-kubernetes-int-or-string': true}}
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']
const VOLUME_MODES = ['Block', 'Filesystem']
const OBJECT_REFERENCE = {
  type: 'object',
  properties: {
    apiVersion: STRING,
    kind: STRING,
    name: STRING,
    namespace: STRING,
    uid: STRING,
    resourceVersion: STRING,
  },
}

const ACCESS_MODE_LIST = {type: 'array', items: {type: 'string', enum: ACCESS_MODES}}
const VOLUME_MODE = {type: 'string', enum: VOLUME_MODES, default: 'Filesystem'}

/** A kind whose fields are all in `spec`. */
const specOf = (properties: Obj): Obj => ({type: 'object', properties: {spec: {type: 'object', properties}}})

/** The reduced OpenAPI v3 schemas, by `group/kind` (core's group is empty). */
export const STORAGE_KIND_SCHEMAS: Readonly<Record<string, Obj>> = {
  '/PersistentVolume': specOf({
    accessModes: ACCESS_MODE_LIST,
    capacity: QUANTITY_MAP,
    claimRef: OBJECT_REFERENCE,
    mountOptions: {type: 'array', items: STRING},
    persistentVolumeReclaimPolicy: {type: 'string', enum: ['Delete', 'Recycle', 'Retain'], default: 'Retain'},
    storageClassName: STRING,
    volumeMode: VOLUME_MODE,
    csi: {
      type: 'object',
      required: ['driver', 'volumeHandle'],
      properties: {
        driver: STRING,
        volumeHandle: STRING,
        readOnly: {type: 'boolean'},
        fsType: STRING,
        volumeAttributes: STRING_MAP,
      },
    },
    nfs: {
      type: 'object',
      required: ['server', 'path'],
      properties: {server: STRING, path: STRING, readOnly: {type: 'boolean'}},
    },
    gcePersistentDisk: {
      type: 'object',
      required: ['pdName'],
      properties: {pdName: STRING, fsType: STRING, partition: {type: 'integer'}, readOnly: {type: 'boolean'}},
    },
    hostPath: {type: 'object', required: ['path'], properties: {path: STRING, type: STRING}},
    local: {type: 'object', required: ['path'], properties: {path: STRING, fsType: STRING}},
  }),
  '/PersistentVolumeClaim': specOf({
    accessModes: ACCESS_MODE_LIST,
    resources: {type: 'object', properties: {requests: QUANTITY_MAP, limits: QUANTITY_MAP}},
    selector: {type: 'object'},
    storageClassName: STRING,
    volumeMode: VOLUME_MODE,
    volumeName: STRING,
  }),
  'storage.k8s.io/StorageClass': {
    type: 'object',
    required: ['provisioner'],
    properties: {
      provisioner: STRING,
      parameters: STRING_MAP,
      reclaimPolicy: {type: 'string', enum: ['Delete', 'Retain'], default: 'Delete'},
      volumeBindingMode: {type: 'string', enum: ['Immediate', 'WaitForFirstConsumer'], default: 'Immediate'},
      allowVolumeExpansion: {type: 'boolean'},
      mountOptions: {type: 'array', items: STRING},
    },
  },
}

/** Every volume source a PersistentVolumeSpec can carry (core/v1 PersistentVolumeSource); exactly one is allowed. */
const VOLUME_SOURCES = [
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'csi',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'glusterfs',
  'hostPath',
  'iscsi',
  'local',
  'nfs',
  'photonPersistentDisk',
  'portworxVolume',
  'quobyte',
  'rbd',
  'scaleIO',
  'storageos',
  'vsphereVolume',
]

// apimachinery's resource.Quantity grammar, and the message its decoder fails with.
const QUANTITY_RE = /^[+-]?(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/
const QUANTITY_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
}

/** A quantity's value (approximate, enough to compare sizes); undefined when it is no quantity. */
function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return q
  if (typeof q !== 'string') return undefined
  const m = QUANTITY_RE.exec(q)
  if (!m) return undefined
  const suffix = m[2] ?? ''
  const number = Number(q.slice(0, q.length - suffix.length).replace(/^\+/, ''))
  if (/^[eE]/.test(suffix)) return number * 10 ** Number(suffix.slice(1))
  return number * (SUFFIX[suffix] ?? 1)
}

/** A refusal of the whole request: 400 while decoding, or 422 with field errors. */
export type StorageRefusal = {decode: string} | {problems: FieldError[]}

/**
 * Fills in, in place, the defaults the API server gives what it stores (pkg/apis/core/v1/defaults.go and
 * storage/v1/defaults.go): a volume's reclaim policy Retain, volume modes Filesystem, a class's reclaim policy Delete
 * and binding mode Immediate. Only the wire fake does; MemoryKube stores what it is sent.
 */
export function defaultStorageKind(group: string, kind: string, object: Obj): void {
  const schema = STORAGE_KIND_SCHEMAS[`${group}/${kind}`]
  if (!schema) return
  if (kind !== 'StorageClass' && !isObj(object.spec)) object.spec = {}
  applyDefaults(object, schema)
}

/**
 * Why the API server refuses `object` (a create, or an update of `previous`), or undefined when it takes it. Only
 * the storage kinds are checked; ObjectMeta is the caller's.
 */
export function storageKindRefusal(
  group: string,
  kind: string,
  object: Obj,
  previous?: Obj,
): StorageRefusal | undefined {
  const schema = STORAGE_KIND_SCHEMAS[`${group}/${kind}`]
  if (!schema) return undefined
  // As sent on the wire: a field set to undefined is no field.
  object = JSON.parse(JSON.stringify(object)) as Obj
  if (previous) previous = JSON.parse(JSON.stringify(previous)) as Obj
  const body = {...object}
  delete body.metadata
  const typeErrors = validate(body, schema).filter((e) => e.type === 'FieldValueTypeInvalid')
  const cannot = `${kind} in version "v1" cannot be handled as a ${kind}`
  if (typeErrors[0]) {
    const e = typeErrors[0]
    // The schema validator names the JSON type it found (integer and number are both a JSON number to Go).
    const found = e.value === 'integer' ? 'number' : String(e.value)
    return {decode: `${cannot}: json: cannot unmarshal ${found} into Go struct field ${kind}.${e.field}`}
  }
  const quantities =
    kind === 'PersistentVolume'
      ? Object.values(asObj(asObj(object.spec).capacity))
      : kind === 'PersistentVolumeClaim'
        ? [asObj(asObj(object.spec).resources).requests, asObj(asObj(object.spec).resources).limits]
            .map(asObj)
            .flatMap((m) => Object.values(m))
        : []
  if (quantities.some((q) => quantityValue(q) === undefined)) return {decode: `${cannot}: ${QUANTITY_MSG}`}
  const problems =
    kind === 'PersistentVolume'
      ? volumeProblems(object, previous)
      : kind === 'PersistentVolumeClaim'
        ? claimProblems(object, previous)
        : classProblems(object, previous)
  return problems.length > 0 ? {problems} : undefined
}

function enumOf(kind: string, path: string[]): string[] {
  let node = asObj(STORAGE_KIND_SCHEMAS[kind])
  for (const name of path) node = name === '[]' ? asObj(node.items) : asObj(asObj(node.properties)[name])
  return (node.enum as string[] | undefined) ?? []
}

function supported(field: string, value: unknown, values: string[]): FieldError {
  return {
    type: 'FieldValueNotSupported',
    field,
    value,
    detail: `supported values: ${[...values]
      .sort()
      .map((v) => JSON.stringify(v))
      .join(', ')}`,
  }
}

function forbidden(field: string, detail: string): FieldError {
  return {type: 'FieldValueForbidden', field, detail}
}

/** An update of a field that may only be set once (ValidateImmutableField). */
function immutable(field: string, value: unknown): FieldError {
  return {type: 'FieldValueInvalid', field, value, detail: 'field is immutable'}
}

function accessModeProblems(kind: string, spec: Obj, requiredDetail?: string): FieldError[] {
  const modes = Array.isArray(spec.accessModes) ? (spec.accessModes as string[]) : []
  if (modes.length === 0) {
    return [
      {type: 'FieldValueRequired', field: 'spec.accessModes', ...(requiredDetail ? {detail: requiredDetail} : {})},
    ]
  }
  const allowed = enumOf(kind, ['spec', 'accessModes', '[]'])
  const errs = modes.filter((m) => !allowed.includes(m)).map((m) => supported('spec.accessModes', m, allowed))
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) {
    errs.push(forbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes'))
  }
  return errs
}

function volumeModeProblems(kind: string, spec: Obj): FieldError[] {
  const allowed = enumOf(kind, ['spec', 'volumeMode'])
  return spec.volumeMode !== undefined && !allowed.includes(String(spec.volumeMode))
    ? [supported('spec.volumeMode', spec.volumeMode, allowed)]
    : []
}

function requiredInSchema(kind: string, spec: Obj, source: string): FieldError[] {
  const node = asObj(asObj(asObj(asObj(STORAGE_KIND_SCHEMAS[kind]).properties).spec).properties)[source]
  const required = Array.isArray(asObj(node).required) ? (asObj(node).required as string[]) : []
  const value = asObj(spec[source])
  return required
    .filter((name) => value[name] === undefined || value[name] === '')
    .map((name) => ({type: 'FieldValueRequired' as const, field: `spec.${source}.${name}`}))
}

function volumeProblems(pv: Obj, previous: Obj | undefined): FieldError[] {
  const kind = '/PersistentVolume'
  const spec = asObj(pv.spec)
  const errs = accessModeProblems(kind, spec)
  const capacity = asObj(spec.capacity)
  if (Object.keys(capacity).length === 0) errs.push({type: 'FieldValueRequired', field: 'spec.capacity'})
  else if (!Object.hasOwn(capacity, 'storage') || Object.keys(capacity).length > 1) {
    errs.push(supported('spec.capacity', capacity, ['storage']))
  }
  for (const [name, q] of Object.entries(capacity)) {
    if ((quantityValue(q) ?? 0) < 0) {
      errs.push({
        type: 'FieldValueInvalid',
        field: `spec.capacity[${name}]`,
        value: String(q),
        detail: 'must be greater than or equal to 0',
      })
    }
  }
  const policies = enumOf(kind, ['spec', 'persistentVolumeReclaimPolicy'])
  const policy = spec.persistentVolumeReclaimPolicy
  if (policy !== undefined && !policies.includes(String(policy))) {
    errs.push(supported('spec.persistentVolumeReclaimPolicy', policy, policies))
  }
  errs.push(...volumeModeProblems(kind, spec))
  const sources = VOLUME_SOURCES.filter((s) => spec[s] !== undefined)
  if (sources.length === 0) {
    errs.push({type: 'FieldValueRequired', field: 'spec', detail: 'must specify a volume type'})
  } else if (sources.length > 1) {
    errs.push(forbidden('spec', 'may not specify more than 1 volume type'))
  }
  for (const source of sources) errs.push(...requiredInSchema(kind, spec, source))
  if (previous) {
    const before = asObj(previous.spec)
    if (!deepEqual(sourcesOf(before), sourcesOf(spec))) {
      errs.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'))
    }
    if ((before.volumeMode ?? 'Filesystem') !== (spec.volumeMode ?? 'Filesystem')) {
      errs.push(immutable('spec.volumeMode', spec.volumeMode ?? 'Filesystem'))
    }
  }
  return errs
}

function sourcesOf(spec: Obj): Obj {
  return Object.fromEntries(VOLUME_SOURCES.filter((s) => spec[s] !== undefined).map((s) => [s, spec[s]]))
}

function claimProblems(pvc: Obj, previous: Obj | undefined): FieldError[] {
  const kind = '/PersistentVolumeClaim'
  const spec = asObj(pvc.spec)
  const errs = accessModeProblems(kind, spec, 'at least 1 access mode is required')
  const storage = asObj(asObj(spec.resources).requests).storage
  if (storage === undefined) errs.push({type: 'FieldValueRequired', field: 'spec.resources[storage]'})
  else if ((quantityValue(storage) ?? 0) <= 0) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.resources[storage]',
      value: String(storage),
      detail: 'must be greater than zero',
    })
  }
  errs.push(...volumeModeProblems(kind, spec))
  if (!previous) return errs
  // ValidatePersistentVolumeClaimUpdate: the spec is frozen, except that an unbound claim may be given its volume
  // and a bound one may be resized; a smaller request must stay above what the volume has (status.capacity), as with
  // RecoverVolumeExpansionFailure, on by default since 1.32.
  const before = asObj(previous.spec)
  const after = structuredClone(spec)
  if (!before.volumeName) {
    if (before.volumeName === undefined) delete after.volumeName
    else after.volumeName = before.volumeName
  }
  const oldStorage = asObj(asObj(before.resources).requests).storage
  if (asObj(previous.status).phase === 'Bound' && storage !== undefined && isObj(asObj(after.resources).requests)) {
    asObj(asObj(after.resources).requests).storage = oldStorage
  }
  const capacity = quantityValue(asObj(asObj(previous.status).capacity).storage) ?? 0
  const newSize = quantityValue(storage) ?? 0
  if (newSize < (quantityValue(oldStorage) ?? 0) && newSize <= capacity) {
    errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'))
  }
  if (!deepEqual(before, after)) {
    errs.push(
      forbidden(
        'spec',
        'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
      ),
    )
  }
  return errs
}

function classProblems(sc: Obj, previous: Obj | undefined): FieldError[] {
  const kind = 'storage.k8s.io/StorageClass'
  const errs: FieldError[] = []
  if (typeof sc.provisioner !== 'string' || sc.provisioner === '') {
    errs.push({type: 'FieldValueRequired', field: 'provisioner'})
  }
  for (const field of ['reclaimPolicy', 'volumeBindingMode']) {
    const allowed = enumOf(kind, [field])
    if (sc[field] !== undefined && !allowed.includes(String(sc[field]))) {
      errs.push(supported(field, sc[field], allowed))
    }
  }
  if (!previous) return errs
  for (const field of ['parameters', 'provisioner', 'reclaimPolicy']) {
    if (!deepEqual(sc[field] ?? null, previous[field] ?? null)) {
      errs.push(forbidden(field, `updates to ${field} are forbidden.`))
    }
  }
  if (!deepEqual(sc.volumeBindingMode ?? null, previous.volumeBindingMode ?? null)) {
    errs.push(immutable('volumeBindingMode', sc.volumeBindingMode ?? ''))
  }
  return errs
}
