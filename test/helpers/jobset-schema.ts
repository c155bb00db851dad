import {existsSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

import {Ajv} from 'ajv'
import type {ErrorObject, SchemaValidateFunction, ValidateFunction} from 'ajv'
import {load} from 'js-yaml'

import {JOBSET_API_VERSION, JOBSET_VERSION} from '../../src/core/versions.js'

/**
 * The real JobSet CRD of the version xpk installs. It lives next to the repository (shared by every checkout), so
 * it is resolved from this file: test/helpers/ -> repo root -> ../shared/crds/.
 */
export const JOBSET_CRD_PATH = fileURLToPath(
  new URL(`../../../shared/crds/jobset-${JOBSET_VERSION}/jobset.x-k8s.io_jobsets.yaml`, import.meta.url),
)

/**
 * Whether the schema tests can run. A clone with nothing beside it has no ../shared: those tests are skipped there,
 * with this message, and everything else runs. CI has ../shared and must never skip them, so under CI a missing CRD
 * fails instead.
 */
export const SKIP_CRD_TESTS = !existsSync(JOBSET_CRD_PATH) && !process.env.CI
if (SKIP_CRD_TESTS) {
  process.stderr.write(
    `Skipping the JobSet schema tests: the JobSet CRD is not at ${JOBSET_CRD_PATH} (../shared is not beside this ` +
      'checkout). Everything else runs; CI, which has ../shared, runs them too.\n',
  )
}

type SchemaNode = Record<string, unknown>

let validator: ValidateFunction | undefined

/**
 * Problems the API server (with JobSet `JOBSET_VERSION` installed) would have with `manifest`, one line each
 * (`/json/pointer: message`); empty when it is valid.
 *
 * Stricter than the API server in one way, on purpose: object schemas that list `properties` are treated as
 * closed, so a misspelt field fails here instead of being silently pruned. Also checks what the CRD schema leaves
 * to the API machinery: apiVersion/kind, the name (RFC 1123 label, at most 63 characters), label values and
 * annotation types, and uniqueness of list-map keys (e.g. two env vars with one name).
 */
export function validateJobSet(manifest: unknown): string[] {
  validator ??= compileValidator()
  const problems: string[] = []
  if (!validator(manifest)) problems.push(...(validator.errors ?? []).map(describe))
  problems.push(...checkIdentity(manifest))
  return problems
}

function compileValidator(): ValidateFunction {
  if (!existsSync(JOBSET_CRD_PATH)) {
    throw new Error(
      `JobSet CRD not found at ${JOBSET_CRD_PATH}.\n` +
        `The manifest schema tests validate against the real jobset.x-k8s.io CRD (${JOBSET_VERSION}), which must sit ` +
        'in ../shared/crds/ next to the repository. Restore that directory; do not copy the CRD into the project.',
    )
  }
  const crd = load(readFileSync(JOBSET_CRD_PATH, 'utf8')) as SchemaNode
  const versionName = JOBSET_API_VERSION.split('/')[1]
  const versions = ((crd.spec as SchemaNode).versions ?? []) as SchemaNode[]
  const version = versions.find((v) => v.name === versionName)
  if (!version) throw new Error(`${JOBSET_CRD_PATH} has no version ${versionName}.`)
  const schema = closeObjects(structuredClone((version.schema as SchemaNode).openAPIV3Schema as SchemaNode))

  const ajv = new Ajv({strict: false, allErrors: true, logger: false})
  for (const keyword of [
    'x-kubernetes-int-or-string',
    'x-kubernetes-map-type',
    'x-kubernetes-validations',
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-embedded-resource',
  ]) {
    ajv.addKeyword({keyword})
  }
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-type',
    type: 'array',
    schemaType: 'string',
    errors: true,
    validate: uniqueSet,
  })
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-map-keys',
    type: 'array',
    schemaType: 'array',
    errors: true,
    validate: uniqueKeys,
  })
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  })
  ajv.addFormat('int64', {type: 'number', validate: (n: number) => Number.isSafeInteger(n)})
  ajv.addFormat('date-time', {type: 'string', validate: (s: string) => !Number.isNaN(Date.parse(s))})
  return ajv.compile(schema)
}

/** `x-kubernetes-list-type: set`: the API server rejects duplicate items. */
const uniqueSet: SchemaValidateFunction = (kind: string, data: unknown[]) => {
  if (kind !== 'set' || new Set(data.map((item) => JSON.stringify(item))).size === data.length) return true
  uniqueSet.errors = [{keyword: 'x-kubernetes-list-type', message: 'must not contain duplicate items (list-type set)'}]
  return false
}

/** `x-kubernetes-list-type: map`: the API server rejects two items with the same key(s). */
const uniqueKeys: SchemaValidateFunction = (keys: string[], data: unknown[]) => {
  const seen = new Set<string>()
  for (const item of data) {
    const id = JSON.stringify(keys.map((key) => (item as SchemaNode | null)?.[key] ?? null))
    if (seen.has(id)) {
      uniqueKeys.errors = [
        {keyword: 'x-kubernetes-list-map-keys', message: `duplicate entry for ${keys.join(', ')} ${id}`},
      ]
      return false
    }
    seen.add(id)
  }
  return true
}

/**
 * Makes the schema as strict as the API server is lossy: an object with declared `properties` and neither
 * `additionalProperties` nor `x-kubernetes-preserve-unknown-fields` gets `additionalProperties: false`. Also
 * spells out int-or-string where a CRD only carries the marker.
 */
function closeObjects(node: SchemaNode): SchemaNode {
  if (node['x-kubernetes-int-or-string'] === true && node.anyOf === undefined && node.type === undefined) {
    node.anyOf = [{type: 'integer'}, {type: 'string'}]
  }
  if (
    node.properties !== undefined &&
    node.additionalProperties === undefined &&
    node['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
    node.additionalProperties = false
  }
  for (const child of Object.values((node.properties ?? {}) as Record<string, SchemaNode>)) closeObjects(child)
  for (const key of ['items', 'additionalProperties', 'not']) {
    const child = node[key]
    if (child !== null && typeof child === 'object' && !Array.isArray(child)) closeObjects(child as SchemaNode)
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const children = node[key]
    if (Array.isArray(children)) for (const child of children as SchemaNode[]) closeObjects(child)
  }
  return node
}

function describe(error: ErrorObject): string {
  const where = error.instancePath || '/'
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'additionalProperties') return `${where}: unknown field "${String(params.additionalProperty)}"`
  if (error.keyword === 'required') return `${where}: missing required field "${String(params.missingProperty)}"`
  if (error.keyword === 'enum') return `${where}: ${error.message} (${JSON.stringify(params.allowedValues)})`
  return `${where}: ${error.message}`
}

const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/

/** What the CRD schema leaves open: apiVersion/kind, the object name, and every metadata block's labels. */
function checkIdentity(manifest: unknown): string[] {
  if (manifest === null || typeof manifest !== 'object') return ['/: must be an object']
  const problems: string[] = []
  const root = manifest as SchemaNode
  if (root.apiVersion !== JOBSET_API_VERSION) problems.push(`/apiVersion: must be ${JOBSET_API_VERSION}`)
  if (root.kind !== 'JobSet') problems.push('/kind: must be JobSet')
  const metadata = (root.metadata ?? {}) as SchemaNode
  const name = metadata.name
  if (typeof name !== 'string') problems.push('/metadata/name: missing required field "name"')
  else if (name.length > 63 || !RFC1123_LABEL.test(name)) {
    problems.push(`/metadata/name: "${name}" must be an RFC 1123 label (lowercase alphanumerics and '-', at most 63)`)
  }
  problems.push(...checkMetadata('/metadata', metadata))
  const replicatedJobs = ((root.spec as SchemaNode | undefined)?.replicatedJobs ?? []) as SchemaNode[]
  if (Array.isArray(replicatedJobs)) {
    replicatedJobs.forEach((job, i) => {
      const jobTemplate = (job?.template ?? {}) as SchemaNode
      const podTemplate = ((jobTemplate.spec ?? {}) as SchemaNode).template as SchemaNode | undefined
      problems.push(...checkMetadata(`/spec/replicatedJobs/${i}/template/metadata`, jobTemplate.metadata))
      problems.push(
        ...checkMetadata(`/spec/replicatedJobs/${i}/template/spec/template/metadata`, podTemplate?.metadata),
      )
    })
  }
  return problems
}

function checkMetadata(path: string, metadata: unknown): string[] {
  if (metadata === undefined) return []
  if (metadata === null || typeof metadata !== 'object') return [`${path}: must be an object`]
  const problems: string[] = []
  for (const field of ['labels', 'annotations'] as const) {
    const map = (metadata as SchemaNode)[field]
    if (map === undefined) continue
    if (map === null || typeof map !== 'object' || Array.isArray(map)) {
      problems.push(`${path}/${field}: must be a map of strings`)
      continue
    }
    for (const [key, value] of Object.entries(map)) {
      if (typeof value !== 'string') {
        problems.push(`${path}/${field}/${key}: must be a string`)
      } else if (field === 'labels' && (value.length > 63 || !LABEL_VALUE.test(value))) {
        problems.push(
          `${path}/labels/${key}: "${value}" is not a valid label value (at most 63 alphanumerics, '-', '_', '.')`,
        )
      }
    }
  }
  return problems
}
