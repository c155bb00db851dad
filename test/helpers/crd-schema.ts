/**
 * Validates manifests against the real CRDs of the JobSet and Kueue versions xpk installs (found by crds.ts), as
 * strictly as the API server would treat them and a little stricter where it would silently lose data.
 *
 * Usage: `describe.skipIf(SKIP_CRD_TESTS)(...)` and `expect(validateAgainstCrd(object)).toEqual([])`.
 */

import {Ajv} from 'ajv'
import type {ErrorObject, SchemaValidateFunction, ValidateFunction} from 'ajv'

import {RELEASE_COMPONENTS, RELEASES, splitApiVersion, summarizeCrd} from '../../src/core/kube/release-manifest.js'
import type {KubeObject, ReleaseComponent} from '../../src/core/kube/release-manifest.js'
import {CRDS, SKIP_CRD_TESTS} from './crds.js'
import type {CrdLookup} from './crds.js'

export {SKIP_CRD_TESTS}

/** Options for {@link validateAgainstCrd}. */
export interface CrdValidationOptions {
  /**
   * Validate as this apiVersion and kind whatever the manifest says, and report a manifest that says otherwise
   * (for builders that must produce exactly one type).
   */
  readonly as?: {readonly apiVersion: string; readonly kind: string}
  /**
   * Accept a version the CRD marks deprecated (Kueue v1beta1 in v0.17). The API server accepts it with a warning on
   * every apply; xpk should not make its users read those, so by default it is a problem. @default false
   */
  readonly allowDeprecated?: boolean
}

type SchemaNode = Record<string, unknown>

/**
 * Names the API server accepts for a custom resource are DNS subdomains; some controllers demand less, because
 * the name ends up in a label value or a host name. Keyed by `group/kind`.
 */
const LABEL_NAMED_KINDS = new Set([
  // The JobSet webhook: the name goes into pod host names and label values (at most 63 characters).
  'jobset.x-k8s.io/JobSet',
])

/** Validates one manifest; see {@link validateAgainstCrd}. */
export type CrdValidator = (manifest: unknown, options?: CrdValidationOptions) => string[]

/**
 * Problems the API server (with the CRDs crds.ts found installed) would have with `manifest`, one line each
 * (`/json/pointer: message`); empty when it is valid. The CRD is chosen by the apiVersion's group and the kind, and
 * the schema by the apiVersion's version, which the CRD must serve.
 *
 * Stricter than the API server in three ways, on purpose: object schemas that list `properties` are treated as
 * closed, so a misspelt field fails here instead of being silently pruned; a namespace on a cluster-scoped object
 * (silently dropped by the server) is a problem; and so is a deprecated version, unless allowed. Also checks what
 * the CRD schema leaves to the API machinery: the name, every `metadata` block's labels and annotations (keys and
 * values), and uniqueness of list-set items and list-map keys (e.g. two env vars with one name). CEL rules
 * (`x-kubernetes-validations`) are not evaluated.
 *
 * Throws when the CRDs of the manifest's component could not be found (see crds.ts), which under CI is how a
 * missing CRD fails the run.
 */
export const validateAgainstCrd: CrdValidator = createCrdValidator(CRDS)

/** A validator over the CRDs of `lookup` (tests of this module use small CRDs of their own). */
export function createCrdValidator(
  lookup: CrdLookup,
  groupOf: (component: ReleaseComponent) => string = (c) => RELEASES[c].group,
): CrdValidator {
  const compiled = new Map<string, ChosenSchema>()
  return (manifest, options = {}) => {
    if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) return ['/: must be an object']
    const root = manifest as SchemaNode
    const problems: string[] = []
    if (options.as !== undefined) {
      if (root.apiVersion !== options.as.apiVersion) problems.push(`/apiVersion: must be ${options.as.apiVersion}`)
      if (root.kind !== options.as.kind) problems.push(`/kind: must be ${options.as.kind}`)
    } else {
      if (typeof root.apiVersion !== 'string') problems.push('/: missing required field "apiVersion"')
      if (typeof root.kind !== 'string') problems.push('/: missing required field "kind"')
      if (problems.length > 0) return problems
    }
    const apiVersion = options.as?.apiVersion ?? (root.apiVersion as string)
    const kind = options.as?.kind ?? (root.kind as string)

    const chosen = chooseSchema(lookup, groupOf, compiled, apiVersion, kind, options.allowDeprecated ?? false)
    if ('problem' in chosen) return [...problems, chosen.problem]
    const {validate} = chosen
    const schemaProblems = validate(manifest) ? [] : (validate.errors ?? []).map(describe)
    const groupKind = `${splitApiVersion(apiVersion).group}/${kind}`
    return [...schemaProblems, ...problems, ...checkIdentity(root, chosen, groupKind)]
  }
}

interface ChosenSchema {
  readonly validate: ValidateFunction
  readonly namespaced: boolean
}

function chooseSchema(
  lookup: CrdLookup,
  groupOf: (component: ReleaseComponent) => string,
  compiled: Map<string, ChosenSchema>,
  apiVersion: string,
  kind: string,
  allowDeprecated: boolean,
): ChosenSchema | {readonly problem: string} {
  const {group, version} = splitApiVersion(apiVersion)
  const component = lookup.components.find((c) => groupOf(c.component) === group)
  if (component === undefined) {
    if (!lookup.found && RELEASE_COMPONENTS.some((c) => RELEASES[c].group === group)) {
      throw new Error(lookup.reason.replace(/^Skipping the CRD schema tests: /, 'The CRD schema tests cannot run: '))
    }
    const groups = lookup.components.map((c) => groupOf(c.component))
    return {problem: `/apiVersion: no CRDs of API group "${group}" (only of ${groups.join(', ')})`}
  }
  const crds = component.crds()
  const crd = crds.find((c) => summarizeCrd(c).kind === kind)
  if (crd === undefined) {
    const kinds = crds.map((c) => summarizeCrd(c).kind).sort()
    return {problem: `/kind: no CRD defines ${kind} in ${group} (${component.source} has ${kinds.join(', ')})`}
  }
  const summary = summarizeCrd(crd)
  const served = summary.versions.filter((v) => v.served).map((v) => v.name)
  const entry = summary.versions.find((v) => v.name === version)
  if (entry === undefined || !entry.served) {
    return {problem: `/apiVersion: ${apiVersion} is not served by the ${kind} CRD (served: ${served.join(', ')})`}
  }
  if (entry.deprecated && !allowDeprecated) {
    return {
      problem: `/apiVersion: ${apiVersion} is deprecated for ${kind} (storage version: ${summary.storageVersion})`,
    }
  }
  const key = `${version}/${kind}`
  let chosen = compiled.get(key)
  if (chosen === undefined) {
    const versions = (crd.spec as {versions: SchemaNode[]}).versions
    const schema = (versions.find((v) => v.name === version)?.schema as SchemaNode | undefined)?.openAPIV3Schema
    if (schema === undefined) return {problem: `/apiVersion: the ${kind} CRD has no schema for ${version}`}
    const validate = ajv().compile(closeObjects(structuredClone(schema as SchemaNode)))
    chosen = {validate, namespaced: summary.scope === 'Namespaced'}
    compiled.set(key, chosen)
  }
  return chosen
}

let sharedAjv: Ajv | undefined

/** One Ajv that knows the Kubernetes extensions, shared by every compiled schema. */
function ajv(): Ajv {
  if (sharedAjv !== undefined) return sharedAjv
  const instance = new Ajv({strict: false, allErrors: true, logger: false, code: {regExp: goRegExp}})
  // Markers the API server acts on but a JSON Schema validator has nothing to check for.
  for (const keyword of [
    'x-kubernetes-int-or-string',
    'x-kubernetes-map-type',
    'x-kubernetes-validations',
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-embedded-resource',
  ]) {
    instance.addKeyword({keyword})
  }
  instance.addKeyword({
    keyword: 'x-kubernetes-list-type',
    type: 'array',
    schemaType: 'string',
    errors: true,
    validate: uniqueSet,
  })
  instance.addKeyword({
    keyword: 'x-kubernetes-list-map-keys',
    type: 'array',
    schemaType: 'array',
    errors: true,
    validate: uniqueKeys,
  })
  instance.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  })
  instance.addFormat('int64', {type: 'number', validate: (n: number) => Number.isSafeInteger(n)})
  instance.addFormat('date-time', {type: 'string', validate: (s: string) => !Number.isNaN(Date.parse(s))})
  sharedAjv = instance
  return instance
}

/**
 * CRD patterns are Go (RE2) regular expressions. The one construct they use that JavaScript lacks is a
 * case-insensitive flag at the start (`^(?i)...` in Kueue's AdmissionCheck), which JavaScript spells as a flag.
 */
const goRegExp = Object.assign(
  (pattern: string, flags: string): RegExp => {
    const caseless = /^(\^?)\(\?i\)/.exec(pattern)
    if (caseless === null) return new RegExp(pattern, flags)
    return new RegExp(`${caseless[1]}${pattern.slice(caseless[0].length)}`, `${flags}i`)
  },
  {code: 'goRegExp'},
)

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
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/
const QUALIFIED_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/

/** What the CRD schema leaves to the API machinery: the name, the namespace, and every metadata block. */
function checkIdentity(root: SchemaNode, chosen: ChosenSchema, groupKind: string): string[] {
  const problems: string[] = []
  const metadata = root.metadata
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    return [metadata === undefined ? '/: missing required field "metadata"' : '/metadata: must be an object']
  }
  const {name, namespace} = metadata as SchemaNode
  if (typeof name !== 'string') problems.push('/metadata/name: missing required field "name"')
  else if (LABEL_NAMED_KINDS.has(groupKind)) {
    if (name.length > 63 || !RFC1123_LABEL.test(name)) {
      problems.push(`/metadata/name: "${name}" must be an RFC 1123 label (lowercase alphanumerics and '-', at most 63)`)
    }
  } else if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    problems.push(
      `/metadata/name: "${name}" must be a DNS subdomain (lowercase alphanumerics, '-' and '.', at most 253)`,
    )
  }
  if (namespace !== undefined) {
    if (!chosen.namespaced) {
      problems.push('/metadata/namespace: must not be set: the kind is cluster-scoped (the API server would drop it)')
    } else if (typeof namespace !== 'string' || namespace.length > 63 || !RFC1123_LABEL.test(namespace)) {
      problems.push(`/metadata/namespace: ${JSON.stringify(namespace)} must be an RFC 1123 label`)
    }
  }
  problems.push(...checkMetadata('/metadata', metadata))
  for (const [key, value] of Object.entries(root))
    if (key !== 'metadata') problems.push(...nestedMetadata(`/${key}`, value))
  return problems
}

/** Every `metadata` inside the object (job and pod templates), depth first in document order. */
function nestedMetadata(path: string, node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => nestedMetadata(`${path}/${i}`, item))
  if (node === null || typeof node !== 'object') return []
  return Object.entries(node).flatMap(([key, value]) => [
    ...(key === 'metadata' ? checkMetadata(`${path}/metadata`, value) : nestedMetadata(`${path}/${key}`, value)),
  ])
}

function checkMetadata(path: string, metadata: unknown): string[] {
  if (metadata === undefined) return []
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
    return [`${path}: must be an object`]
  const problems: string[] = []
  for (const field of ['labels', 'annotations'] as const) {
    const map = (metadata as SchemaNode)[field]
    if (map === undefined) continue
    if (map === null || typeof map !== 'object' || Array.isArray(map)) {
      problems.push(`${path}/${field}: must be a map of strings`)
      continue
    }
    for (const [key, value] of Object.entries(map)) {
      if (!isQualifiedName(key)) {
        problems.push(
          `${path}/${field}/${key}: not a valid key ([prefix/]name: a DNS subdomain prefix, a name of at most 63 alphanumerics, '-', '_', '.')`,
        )
      }
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

/** A label or annotation key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
function isQualifiedName(key: string): boolean {
  const slash = key.lastIndexOf('/')
  const prefix = slash < 0 ? undefined : key.slice(0, slash)
  const name = slash < 0 ? key : key.slice(slash + 1)
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) return false
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name)
}

/**
 * A validator over one CRD that is not a release xpk installs (KubeRay's RayCluster, see crds.ts), as strict as
 * {@link validateAgainstCrd}: the manifest's apiVersion must be of the CRD's group and a version it serves.
 */
export function createOneCrdValidator(crd: KubeObject): CrdValidator {
  const group = (crd.spec as {group: string}).group
  const one = 'one-crd' as ReleaseComponent
  return createCrdValidator(
    {found: true, components: [{component: one, source: group, crds: () => [crd]}]},
    () => group,
  )
}
