// Label and field selectors as the kube-apiserver parses them from list and watch query strings.
import type {Obj} from './fake-kube-util.js'
import {asObj} from './fake-kube-util.js'

export type Matcher = (object: Obj) => boolean

export class SelectorError extends Error {}

interface LabelRequirement {
  key: string
  op: 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt'
  values: string[]
}

const KEY_RE =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/

/** Splits on commas that are not inside the parentheses of an `in`/`notin` set. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++
    else if (text[i] === ')') depth--
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts.map((p) => p.trim()).filter((p) => p !== '')
}

function checkKey(key: string): void {
  if (!KEY_RE.test(key) || key.length > 317) {
    throw new SelectorError(`unable to parse requirement: invalid label key "${key}"`)
  }
}

function checkValue(value: string): void {
  if (!VALUE_RE.test(value) || value.length > 63) {
    throw new SelectorError(`unable to parse requirement: invalid label value: "${value}"`)
  }
}

function parseRequirement(text: string): LabelRequirement {
  let m = /^!\s*(\S+)$/.exec(text)
  if (m) return checked({key: m[1], op: '!exists', values: []})
  m = /^(\S+?)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text)
  if (m) {
    const values = m[3]
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '')
    return checked({key: m[1], op: m[2] as 'in' | 'notin', values})
  }
  m = /^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*(\S*)$/.exec(text)
  if (m) {
    const op = m[2] === '==' ? '=' : m[2] === '<' ? 'lt' : m[2] === '>' ? 'gt' : (m[2] as '=' | '!=')
    return checked({key: m[1], op, values: [m[3]]})
  }
  if (/^[^\s=!<>()]+$/.test(text)) return checked({key: text, op: 'exists', values: []})
  throw new SelectorError(`unable to parse requirement: found '${text}', expected: identifier`)
}

function checked(req: LabelRequirement): LabelRequirement {
  checkKey(req.key)
  if (req.op === 'gt' || req.op === 'lt') {
    if (!/^-?\d+$/.test(req.values[0])) {
      throw new SelectorError(`unable to parse requirement: for 'gt', 'lt' operators, the value must be an integer`)
    }
  } else for (const value of req.values) checkValue(value)
  return req
}

/** A matcher over metadata.labels; empty or absent text matches everything. */
export function parseLabelSelector(text: string | undefined): Matcher {
  if (!text) return () => true
  const requirements = splitTopLevel(text).map(parseRequirement)
  return (object) => {
    const labels = asObj(asObj(object.metadata).labels) as Record<string, string>
    return requirements.every((r) => {
      const has = Object.hasOwn(labels, r.key)
      const value = labels[r.key]
      switch (r.op) {
        case 'exists':
          return has
        case '!exists':
          return !has
        case '=':
        case 'in':
          return has && r.values.includes(value)
        case '!=':
        case 'notin':
          return !has || !r.values.includes(value)
        case 'gt':
          return has && /^-?\d+$/.test(value) && Number(value) > Number(r.values[0])
        case 'lt':
          return has && /^-?\d+$/.test(value) && Number(value) < Number(r.values[0])
      }
    })
  }
}

/** Field selectors each kind supports besides metadata.name and metadata.namespace. */
const FIELDS_BY_KIND: Record<string, Record<string, (o: Obj) => unknown>> = {
  Pod: {
    'spec.nodeName': (o) => asObj(o.spec).nodeName,
    'spec.restartPolicy': (o) => asObj(o.spec).restartPolicy,
    'spec.schedulerName': (o) => asObj(o.spec).schedulerName,
    'spec.serviceAccountName': (o) => asObj(o.spec).serviceAccountName,
    'status.phase': (o) => asObj(o.status).phase,
    'status.podIP': (o) => asObj(o.status).podIP,
    'status.nominatedNodeName': (o) => asObj(o.status).nominatedNodeName,
  },
  Event: {
    'involvedObject.kind': (o) => asObj(o.involvedObject).kind,
    'involvedObject.name': (o) => asObj(o.involvedObject).name,
    'involvedObject.namespace': (o) => asObj(o.involvedObject).namespace,
    'involvedObject.uid': (o) => asObj(o.involvedObject).uid,
    reason: (o) => o.reason,
    type: (o) => o.type,
  },
  Node: {'spec.unschedulable': (o) => asObj(o.spec).unschedulable ?? false},
  Namespace: {'status.phase': (o) => asObj(o.status).phase},
  Secret: {type: (o) => o.type},
  Job: {'status.successful': (o) => asObj(o.status).successful},
}

/** A matcher over the fields the kind supports; an unknown field is a 400 as on the real server. */
export function parseFieldSelector(text: string | undefined, kind: string): Matcher {
  if (!text) return () => true
  const getters: Record<string, (o: Obj) => unknown> = {
    'metadata.name': (o) => asObj(o.metadata).name,
    'metadata.namespace': (o) => asObj(o.metadata).namespace ?? '',
    ...FIELDS_BY_KIND[kind],
  }
  const terms = splitTopLevel(text).map((term) => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(term)
    if (!m) throw new SelectorError(`invalid selector: '${text}'; can't understand '${term}'`)
    const getter = getters[m[1]]
    if (!getter) throw new SelectorError(`field label not supported: ${m[1]}`)
    return {getter, negate: m[2] === '!=', value: m[3]}
  })
  return (object) =>
    terms.every((t) => {
      const actual = t.getter(object)
      const text = actual === undefined || actual === null ? '' : String(actual)
      return (text === t.value) !== t.negate
    })
}
