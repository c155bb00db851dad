/**
 * The objects in the goldens that no CRD describes (ConfigMap, PriorityClass, DaemonSet, ServiceAccount, Role,
 * RoleBinding; and ProvisioningRequestConfig, whose CRD the shared copy of Kueue's lacks), checked against the
 * rules the API server applies to them: required fields, name formats, and what each kind demands of its values.
 */
import {describe, expect, it} from 'vitest'

import {allGoldenDocuments} from './golden-cases.js'

type Json = Record<string, unknown>

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const CONFIGMAP_KEY = /^[-._a-zA-Z0-9]+$/
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/
/** The highest priority a user-defined PriorityClass may have; higher ones are reserved for system classes. */
const HIGHEST_USER_PRIORITY = 1_000_000_000

const isMap = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string')

/** Problems the API server would report for `doc`, by kind; empty when it would accept it. */
function problems(doc: Json): string[] {
  const out: string[] = []
  const need = (ok: boolean, what: string) => {
    if (!ok) out.push(what)
  }
  const metadata = isMap(doc.metadata) ? doc.metadata : {}
  const name = metadata.name
  need(typeof name === 'string' && name.length <= 253 && DNS_SUBDOMAIN.test(name), `metadata.name ${String(name)}`)
  for (const field of ['labels', 'annotations'] as const) {
    const map = metadata[field]
    if (map === undefined) continue
    need(isMap(map) && Object.values(map).every((v) => typeof v === 'string'), `metadata.${field} are strings`)
  }
  for (const [key, value] of Object.entries(isMap(metadata.labels) ? metadata.labels : {})) {
    need(QUALIFIED_NAME.test(key) && LABEL_VALUE.test(String(value)) && String(value).length <= 63, `label ${key}`)
  }
  const namespaced = ['ConfigMap', 'DaemonSet', 'ServiceAccount', 'Role', 'RoleBinding'].includes(String(doc.kind))
  need(namespaced === (typeof metadata.namespace === 'string'), `namespace only on namespaced kinds`)

  switch (doc.kind) {
    case 'ConfigMap':
      need(doc.apiVersion === 'v1', 'ConfigMap is v1')
      need(isMap(doc.data), 'ConfigMap data')
      for (const [key, value] of Object.entries(isMap(doc.data) ? doc.data : {})) {
        need(key.length <= 253 && CONFIGMAP_KEY.test(key), `data key ${key}`)
        need(typeof value === 'string', `data.${key} is a string`)
      }
      break
    case 'PriorityClass':
      need(doc.apiVersion === 'scheduling.k8s.io/v1', 'PriorityClass is scheduling.k8s.io/v1')
      need(!String(name).startsWith('system-'), 'system- names are reserved')
      need(Number.isInteger(doc.value) && Math.abs(doc.value as number) <= HIGHEST_USER_PRIORITY, 'value')
      need(typeof doc.globalDefault === 'boolean' && typeof doc.description === 'string', 'globalDefault, description')
      break
    case 'DaemonSet':
      out.push(...daemonSetProblems(doc))
      break
    case 'ServiceAccount':
      need(doc.apiVersion === 'v1', 'ServiceAccount is v1')
      break
    case 'Role':
      need(doc.apiVersion === 'rbac.authorization.k8s.io/v1', 'Role is rbac v1')
      for (const rule of Array.isArray(doc.rules) ? (doc.rules as Json[]) : [null as unknown as Json]) {
        need(isMap(rule) && strings(rule.apiGroups) && strings(rule.resources), 'rule apiGroups, resources')
        need(isMap(rule) && strings(rule.verbs) && rule.verbs.length > 0, 'rule verbs')
      }
      break
    case 'RoleBinding': {
      need(doc.apiVersion === 'rbac.authorization.k8s.io/v1', 'RoleBinding is rbac v1')
      const ref = isMap(doc.roleRef) ? doc.roleRef : {}
      need(ref.apiGroup === 'rbac.authorization.k8s.io' && ref.kind === 'Role' && typeof ref.name === 'string', 'ref')
      for (const subject of Array.isArray(doc.subjects) ? (doc.subjects as Json[]) : []) {
        need(subject.kind === 'ServiceAccount' && typeof subject.name === 'string', 'subject kind, name')
        need(typeof subject.namespace === 'string', 'a ServiceAccount subject needs its namespace')
      }
      break
    }
    case 'ProvisioningRequestConfig':
      out.push(...provisioningRequestConfigProblems(doc))
      break
    default:
      out.push(`no rules for ${String(doc.kind)}`)
  }
  return out
}

function daemonSetProblems(doc: Json): string[] {
  const out: string[] = []
  const need = (ok: boolean, what: string) => {
    if (!ok) out.push(what)
  }
  need(doc.apiVersion === 'apps/v1', 'DaemonSet is apps/v1')
  const spec = isMap(doc.spec) ? doc.spec : {}
  const template = isMap(spec.template) ? spec.template : {}
  const podLabels = isMap(template.metadata) && isMap(template.metadata.labels) ? template.metadata.labels : {}
  const selector = isMap(spec.selector) && isMap(spec.selector.matchLabels) ? spec.selector.matchLabels : {}
  need(Object.keys(selector).length > 0, 'a selector')
  need(
    Object.entries(selector).every(([k, v]) => podLabels[k] === v),
    'the selector matches the template labels',
  )
  const pod = isMap(template.spec) ? template.spec : {}
  const containers = Array.isArray(pod.containers) ? (pod.containers as Json[]) : []
  need(containers.length > 0, 'containers')
  for (const c of containers) {
    need(
      typeof c.name === 'string' && c.name.length <= 63 && DNS_LABEL.test(c.name),
      `container name ${String(c.name)}`,
    )
    need(typeof c.image === 'string' && c.image.length > 0, 'container image')
  }
  const affinity = isMap(pod.affinity) && isMap(pod.affinity.nodeAffinity) ? pod.affinity.nodeAffinity : {}
  const required = affinity.requiredDuringSchedulingIgnoredDuringExecution
  const terms =
    isMap(required) && Array.isArray(required.nodeSelectorTerms) ? (required.nodeSelectorTerms as Json[]) : []
  for (const term of terms) {
    for (const e of Array.isArray(term.matchExpressions) ? (term.matchExpressions as Json[]) : []) {
      need(typeof e.key === 'string' && QUALIFIED_NAME.test(e.key), `node selector key ${String(e.key)}`)
      const values = Array.isArray(e.values) ? e.values : []
      if (e.operator === 'Exists' || e.operator === 'DoesNotExist') need(values.length === 0, 'Exists takes no values')
      else if (e.operator === 'In' || e.operator === 'NotIn') need(values.length > 0, `${e.operator} needs values`)
      else out.push(`operator ${String(e.operator)}`)
    }
  }
  for (const t of Array.isArray(pod.tolerations) ? (pod.tolerations as Json[]) : []) {
    need(t.key !== undefined || t.operator === 'Exists', 'a toleration without a key must be Exists')
    need(!(t.operator === 'Exists' && t.value !== undefined), 'Exists takes no value')
  }
  return out
}

/** Kueue v1beta2's ProvisioningRequestConfig schema (Kueue's own CRD, the release xpk installs). */
function provisioningRequestConfigProblems(doc: Json): string[] {
  const out: string[] = []
  const need = (ok: boolean, what: string) => {
    if (!ok) out.push(what)
  }
  need(doc.apiVersion === 'kueue.x-k8s.io/v1beta2', 'kueue.x-k8s.io/v1beta2')
  const spec = isMap(doc.spec) ? doc.spec : {}
  const allowed = new Set([
    'provisioningClassName',
    'podSetUpdates',
    'managedResources',
    'parameters',
    'podSetMergePolicy',
    'retryStrategy',
  ])
  need(
    Object.keys(spec).every((k) => allowed.has(k)),
    `spec fields ${Object.keys(spec).join(', ')}`,
  )
  const className = spec.provisioningClassName
  need(typeof className === 'string' && className.length <= 253 && DNS_SUBDOMAIN.test(className), 'class name')
  const managed = spec.managedResources
  need(strings(managed) && new Set(managed).size === managed.length && managed.length <= 100, 'managedResources set')
  const updates = isMap(spec.podSetUpdates) ? spec.podSetUpdates : {}
  const selectors = Array.isArray(updates.nodeSelector) ? (updates.nodeSelector as Json[]) : []
  need(selectors.length <= 8, 'at most 8 node selector updates')
  need(new Set(selectors.map((s) => s.key)).size === selectors.length, 'node selector keys unique')
  for (const s of selectors) {
    need(
      Object.keys(s).every((k) => k === 'key' || k === 'valueFromProvisioningClassDetail'),
      'selector fields',
    )
    need(
      typeof s.key === 'string' && s.key.length <= 317 && QUALIFIED_NAME.test(s.key),
      `selector key ${String(s.key)}`,
    )
    const from = s.valueFromProvisioningClassDetail
    need(typeof from === 'string' && from.length >= 1 && from.length <= 32768, 'valueFromProvisioningClassDetail')
  }
  return out
}

const CHECKED = new Set([
  'ConfigMap',
  'PriorityClass',
  'DaemonSet',
  'ServiceAccount',
  'Role',
  'RoleBinding',
  'ProvisioningRequestConfig',
])
const documents = allGoldenDocuments().filter(({doc}) => CHECKED.has(String(doc.kind)))

describe('core objects in the goldens', () => {
  it('cover every kind checked here', () => {
    expect(new Set(documents.map(({doc}) => doc.kind))).toEqual(CHECKED)
  })

  it.each(documents)('$label: the API server would accept it', ({doc}) => {
    expect(problems(doc)).toEqual([])
  })

  it.each<{name: string; edit: (doc: Json) => void; kind: string; problem: RegExp}>([
    {name: 'a number in ConfigMap data', kind: 'ConfigMap', edit: (d) => ((d.data as Json).x = 4), problem: /data.x/},
    {
      name: 'a ConfigMap without a namespace',
      kind: 'ConfigMap',
      edit: (d) => delete (d.metadata as Json).namespace,
      problem: /namespace/,
    },
    {name: 'a system priority', kind: 'PriorityClass', edit: (d) => (d.value = 2_000_000_001), problem: /value/},
    {
      name: 'a DaemonSet selector its pods do not match',
      kind: 'DaemonSet',
      edit: (d) => (((d.spec as Json).selector as Json).matchLabels = {other: 'x'}),
      problem: /selector matches/,
    },
    {
      name: 'an empty node selector key',
      kind: 'DaemonSet',
      edit: (d) => {
        const spec = ((d.spec as Json).template as Json).spec as Json
        spec.affinity = {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{matchExpressions: [{key: '', operator: 'Exists'}]}],
            },
          },
        }
      },
      problem: /node selector key/,
    },
    {name: 'a rule without verbs', kind: 'Role', edit: (d) => ((d.rules as Json[])[0].verbs = []), problem: /verbs/},
    {
      name: 'a subject without a namespace',
      kind: 'RoleBinding',
      edit: (d) => delete (d.subjects as Json[])[0].namespace,
      problem: /namespace/,
    },
    {
      name: 'a ProvisioningRequestConfig without its class',
      kind: 'ProvisioningRequestConfig',
      edit: (d) => delete (d.spec as Json).provisioningClassName,
      problem: /class name/,
    },
    {
      name: 'a misspelt ProvisioningRequestConfig field',
      kind: 'ProvisioningRequestConfig',
      edit: (d) => ((d.spec as Json).managedResource = ['cpu']),
      problem: /spec fields/,
    },
  ])('the rules catch $name', ({kind, edit, problem}) => {
    const found = documents.find(({doc}) => doc.kind === kind)
    const broken = structuredClone(found?.doc ?? {})
    edit(broken)
    expect(problems(broken).join('\n')).toMatch(problem)
  })
})
