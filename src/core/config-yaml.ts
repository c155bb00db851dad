/**
 * The config file's text (Python xpk's format: `version: v1`, `configs: {key: value}`), read and edited in place.
 *
 * Reading: an empty file, one of comments only, and `configs:` with no value all mean "no settings"; anything else
 * that is not a mapping where one belongs is bad input naming the file and line. Editing: `xpk config set` and
 * `unset` change only the lines of the keys they touch, found by the YAML parser's own source offsets (js-yaml's
 * parseEvents), so comments, blank lines, key order, quoting and the keys xpk does not know stay as they were;
 * js-yaml cannot keep comments through load and dump, and a YAML library that can would cost start-up time for this
 * one file. A `configs` written in flow style (`configs: {zone: a}`) is rewritten in flow style, losing only comments
 * inside its braces.
 */
import {dump, getScalarValue, loadAll, parseEvents} from 'js-yaml'

import {UsageError} from './errors.js'
import {LEGACY_CONFIG_KEYS, SETTING_KEYS, type SettingKey} from './settings.js'
import {escapeInline} from './text.js'

type Values = Partial<Record<SettingKey, string>>

const FIX = 'Fix the file, or delete it and set your defaults again with `xpk config set`.'

/** The settings a config file holds (Python xpk's `project-id` and `cluster-name` read as `project` and `cluster`). */
export function readConfigValues(text: string, location: string): Values {
  const configs = readConfigs(text, location)
  const values: Values = {}
  for (const [legacy, key] of Object.entries(LEGACY_CONFIG_KEYS)) {
    if (typeof configs[legacy] === 'string' && configs[legacy] !== '') values[key] = configs[legacy] as string
  }
  for (const key of SETTING_KEYS) {
    const value = configs[key]
    if (value !== undefined && value !== null && value !== '') values[key] = String(value)
  }
  return values
}

/** The `configs` mapping of the file; empty when the file, or `configs`, holds nothing. */
function readConfigs(text: string, location: string): Record<string, unknown> {
  const document = parseDocument(text, location)
  if (document === null) return {}
  const configs = document.value.configs
  if (configs === undefined || configs === null) return {}
  if (typeof configs !== 'object' || Array.isArray(configs)) {
    const tree = document.tree as MapNode
    throw notAMapping(location, text, entry(tree, text, 'configs')!.value, '"configs"')
  }
  return configs as Record<string, unknown>
}

/**
 * The file's text with each setting in `changes` set (a string) or removed (undefined), touching only those lines.
 * Removing a setting also removes its Python xpk name (`project-id`), which would bring it back on the next read.
 * @throws UsageError naming the file and line when the file or its `configs` is not a mapping
 */
export function editConfigs(text: string, location: string, changes: Values): string {
  let out = text
  for (const key of SETTING_KEYS) {
    if (!(key in changes)) continue
    const value = changes[key]
    if (value === undefined) {
      out = removeKey(out, location, key)
      for (const [legacy, modern] of Object.entries(LEGACY_CONFIG_KEYS)) {
        if (modern === key) out = removeKey(out, location, legacy)
      }
    } else {
      out = setKey(out, location, key, value)
    }
  }
  return out
}

interface ScalarNode {
  readonly kind: 'scalar'
  /**
   * Where the value's text starts and ends, quotes included (a block scalar's content, with its last line break);
   * -1 for an empty (null) value.
   */
  readonly start: number
  readonly end: number
  /** js-yaml's SCALAR_STYLE: 1 plain, 2 and 3 quoted, 4 and 5 block. */
  readonly style: number
  readonly decoded: string
}
interface MapNode {
  readonly kind: 'map'
  readonly start: number
  readonly flow: boolean
  readonly entries: {key: ScalarNode; value: TreeNode}[]
}
interface OtherNode {
  readonly kind: 'sequence' | 'alias'
  readonly start: number
}
type TreeNode = ScalarNode | MapNode | OtherNode

/** The one document of the file, as values and as a tree with source offsets; null when it holds none. */
function parseDocument(text: string, location: string): {value: Record<string, unknown>; tree: TreeNode} | null {
  let documents: unknown[]
  try {
    documents = loadAll(text)
  } catch (error) {
    throw new UsageError(`${location} is not valid YAML: ${(error as Error).message.split('\n')[0]}`, {
      hints: [FIX],
      cause: error,
    })
  }
  if (documents.length > 1) {
    throw new UsageError(`${location} holds ${documents.length} YAML documents; it should hold one.`, {hints: [FIX]})
  }
  if (documents.length === 0 || documents[0] === null || documents[0] === undefined) return null
  const tree = buildTree(text)
  if (tree.kind !== 'map') throw notAMapping(location, text, tree, 'The file')
  return {value: documents[0] as Record<string, unknown>, tree}
}

/** The first document's content as a tree of the parser's events, with their source offsets. */
function buildTree(text: string): TreeNode {
  const events = parseEvents(text, {})
  let at = 0
  const next = (): TreeNode => {
    const event = events[at++]!
    if (event.type === 4) {
      const quoted = event.style === 2 || event.style === 3
      const empty = event.valueStart < 0
      return {
        kind: 'scalar',
        start: empty ? -1 : event.valueStart - (quoted ? 1 : 0),
        end: empty ? -1 : event.valueEnd + (quoted ? 1 : 0),
        style: event.style,
        decoded: empty ? '' : getScalarValue(text, event),
      }
    }
    if (event.type === 3) {
      const entries: MapNode['entries'] = []
      while (events[at]!.type !== 6) {
        const key = next()
        entries.push({key: key as ScalarNode, value: next()})
      }
      at++
      return {kind: 'map', start: event.start, flow: event.style === 2, entries}
    }
    if (event.type === 2) {
      while (events[at]!.type !== 6) next()
      at++
      return {kind: 'sequence', start: event.start}
    }
    return {kind: 'alias', start: event.type === 5 ? event.anchorStart : -1}
  }
  while (events[at]?.type === 1) at++
  return next()
}

function entry(map: MapNode, text: string, key: string): {key: ScalarNode; value: TreeNode} | undefined {
  return map.entries.find((e) => e.key.kind === 'scalar' && e.key.decoded === key)
}

function notAMapping(location: string, text: string, node: TreeNode, what: string): UsageError {
  const offset = node.start >= 0 ? node.start : 0
  const kind = node.kind === 'scalar' ? `the value "${escapeInline((node as ScalarNode).decoded)}"` : `a ${node.kind}`
  return new UsageError(
    `${location}:${lineOf(text, offset)}: ${what} should be a mapping of key: value, not ${kind}; xpk will not rewrite it.`,
    {hints: [FIX]},
  )
}

function lineOf(text: string, offset: number): number {
  let line = 1
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === '\n') line++
  return line
}

const lineStart = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1
const lineEnd = (text: string, offset: number): number => {
  const end = text.indexOf('\n', offset)
  return end < 0 ? text.length : end
}

/** A scalar as YAML writes it on one line (quoted when it must be). */
function scalar(value: string): string {
  return dump(value, {lineWidth: -1}).trimEnd()
}

/** Where a node's text ends: the end of its last scalar, or past a flow collection's closing bracket. */
function nodeEnd(text: string, node: TreeNode): number {
  if (node.kind === 'scalar') return node.start < 0 ? -1 : node.end
  if (node.kind === 'map') {
    if (node.flow) return flowEnd(text, node.start)
    return Math.max(-1, ...node.entries.flatMap((e) => [nodeEnd(text, e.key), nodeEnd(text, e.value)]))
  }
  // A sequence or alias under `configs` is not a setting's value; its entry is rewritten whole.
  return node.kind === 'sequence' && text[node.start] === '[' ? flowEnd(text, node.start) : lineEnd(text, node.start)
}

/** Past the bracket that closes the flow collection opening at `start`, minding quotes and comments. */
function flowEnd(text: string, start: number): number {
  let depth = 0
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') {
      if (--depth === 0) return i + 1
    } else if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++
    } else if (c === "'") {
      for (i++; i < text.length; i++) if (text[i] === "'" && text[++i] !== "'") break
      i--
    } else if (c === '#' && /\s/.test(text[i - 1] ?? ' ')) i = lineEnd(text, i)
  }
  return text.length
}

/** The end of an entry's last line (after a comment on it), for inserting a line after it. */
function entryLineEnd(text: string, e: {key: ScalarNode; value: TreeNode}): number {
  const end = Math.max(nodeEnd(text, e.key), nodeEnd(text, e.value))
  // A block scalar's content ends with its line break: the entry's last line is the one before.
  return text[end - 1] === '\n' ? end - 1 : lineEnd(text, end)
}

function setKey(text: string, location: string, key: string, value: string): string {
  const document = parseDocument(text, location)
  const line = `${key}: ${scalar(value)}`
  if (document === null) return `${withNewline(text)}version: v1\nconfigs:\n  ${line}\n`
  const top = document.tree as MapNode
  const configs = entry(top, text, 'configs')
  if (configs === undefined) {
    if (top.flow) return rewriteFlow(text, top, {...document.value, configs: {[key]: value}})
    const version = entry(top, text, 'version') === undefined ? 'version: v1\n' : ''
    return `${withNewline(text)}${version}configs:\n  ${line}\n`
  }
  const node = configs.value
  if (node.kind === 'scalar' && document.value.configs === null) {
    // `configs:`, `configs: ~` or `configs: null`: the mapping starts on the next line.
    const cleared = node.start < 0 ? text : text.slice(0, node.start) + text.slice(node.end)
    const at = lineEnd(cleared, configs.key.end)
    return `${cleared.slice(0, at)}\n  ${line}${cleared.slice(at)}`
  }
  if (node.kind !== 'map') throw notAMapping(location, text, node, '"configs"')
  const values = document.value.configs as Record<string, unknown>
  if (node.flow) return rewriteFlow(text, node, {...values, [key]: value})
  const existing = entry(node, text, key)
  if (existing) {
    if (existing.value.kind !== 'scalar') throw notAMapping(location, text, existing.value, `"${key}"`)
    const {start, end} = existing.value
    if (start < 0) {
      const at = existing.key.end + text.slice(existing.key.end).indexOf(':') + 1
      return `${text.slice(0, at)} ${scalar(value)}${text.slice(at)}`
    }
    // A block scalar (`|`, `>`) starts at its indicator, before the content the parser points at.
    const from = existing.value.style >= 4 ? text.lastIndexOf(':', start) + 1 : start
    const replacement = existing.value.style >= 4 ? ` ${scalar(value)}\n` : scalar(value)
    return text.slice(0, from) + replacement + text.slice(end)
  }
  const last = node.entries[node.entries.length - 1]!
  const indent = ' '.repeat(node.start - lineStart(text, node.start))
  const at = entryLineEnd(text, last)
  return `${text.slice(0, at)}\n${indent}${line}${text.slice(at)}`
}

function removeKey(text: string, location: string, key: string): string {
  const document = parseDocument(text, location)
  if (document === null) return text
  const configs = entry(document.tree as MapNode, text, 'configs')
  if (configs === undefined || document.value.configs === null || document.value.configs === undefined) return text
  const node = configs.value
  if (node.kind !== 'map') throw notAMapping(location, text, node, '"configs"')
  const found = entry(node, text, key)
  if (found === undefined) return text
  if (node.flow) {
    const {[key]: _removed, ...rest} = document.value.configs as Record<string, unknown>
    return rewriteFlow(text, node, rest)
  }
  const from = lineStart(text, found.key.start)
  const to = entryLineEnd(text, found)
  return text.slice(0, from) + text.slice(Math.min(text.length, to + 1))
}

/** Replaces a flow mapping (`{zone: a}`) with the same mapping holding `values`, still in flow style. */
function rewriteFlow(text: string, node: MapNode, values: Record<string, unknown>): string {
  const flow = dump(values, {flowLevel: 0, lineWidth: -1}).trimEnd()
  return text.slice(0, node.start) + flow + text.slice(flowEnd(text, node.start))
}

const withNewline = (text: string): string => (text === '' || text.endsWith('\n') ? text : `${text}\n`)
