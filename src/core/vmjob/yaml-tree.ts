/**
 * A YAML document as a tree that remembers where each value is (for messages naming the file's line), read from
 * js-yaml's parser events as src/core/config-yaml.ts does. Plain scalars are typed the way PyYAML (and so OmegaConf
 * and jobman) types them, YAML 1.1 (`loop: yes` is true), and keep their source text, so a string field given
 * `python: 3.10` reads "3.10", not 3.1.
 */
import {getScalarValue, load, loadAll, parseEvents, YAML11_SCHEMA, type Event} from 'js-yaml'

export type YamlScalarValue = string | number | boolean | null

export interface YamlScalar {
  readonly kind: 'scalar'
  readonly offset: number
  /** The typed value (plain scalars typed as YAML 1.1 types them; quoted and block scalars are strings). */
  readonly value: YamlScalarValue
  /** The decoded text, before typing. */
  readonly text: string
}
export interface YamlMapEntry {
  readonly key: string
  readonly keyOffset: number
  readonly value: YamlNode
}
export interface YamlMap {
  readonly kind: 'map'
  readonly offset: number
  readonly entries: readonly YamlMapEntry[]
}
export interface YamlSeq {
  readonly kind: 'seq'
  readonly offset: number
  readonly items: readonly YamlNode[]
}
export type YamlNode = YamlScalar | YamlMap | YamlSeq

/** Why a text is not one YAML document, with the line the parser stopped at. */
export interface YamlSyntaxProblem {
  readonly line: number
  readonly reason: string
}

/**
 * The text's one document as a tree; null for an empty document; a syntax problem otherwise. Aliases stand for the
 * node they name; duplicate keys are a syntax problem (as js-yaml's loader says).
 */
export function parseYamlTree(text: string): YamlNode | null | YamlSyntaxProblem {
  let documents: unknown[]
  try {
    documents = loadAll(text, {schema: YAML11_SCHEMA})
  } catch (error) {
    const mark = (error as {mark?: {line?: number}}).mark
    const reason = ((error as Error).message.split('\n')[0] ?? '').replace(/\s*\(\d+:\d+\)$/, '')
    return {line: (mark?.line ?? 0) + 1, reason}
  }
  if (documents.length > 1) return {line: 1, reason: `it holds ${documents.length} YAML documents; it should hold one`}
  if (documents.length === 0 || documents[0] === null || documents[0] === undefined) return null
  return buildTree(text, parseEvents(text, {}))
}

function buildTree(text: string, events: Event[]): YamlNode {
  const anchors = new Map<string, YamlNode>()
  let at = 0
  const anchored = (event: {anchorStart: number; anchorEnd: number}, node: YamlNode): YamlNode => {
    if (event.anchorStart >= 0) anchors.set(text.slice(event.anchorStart, event.anchorEnd), node)
    return node
  }
  const next = (): YamlNode => {
    const event = events[at++]!
    if (event.type === 4) {
      const empty = event.valueStart < 0
      const decoded = empty ? '' : getScalarValue(text, event)
      const quoted = event.style === 2 || event.style === 3
      // A block scalar (`|`, `>`) is placed at its indicator, on the key's line, not at its content below.
      const block =
        event.style >= 4
          ? Math.max(text.lastIndexOf('|', event.valueStart), text.lastIndexOf('>', event.valueStart))
          : -1
      const offset = empty ? Math.max(0, event.valueEnd) : block >= 0 ? block : event.valueStart - (quoted ? 1 : 0)
      return anchored(event, {kind: 'scalar', offset, value: typed(decoded, event.style, empty), text: decoded})
    }
    if (event.type === 3) {
      const entries: YamlMapEntry[] = []
      const node: YamlMap = {kind: 'map', offset: event.start, entries}
      anchored(event, node)
      while (events[at]!.type !== 6) {
        const key = next()
        entries.push({
          key: key.kind === 'scalar' ? key.text : '?',
          keyOffset: key.offset,
          value: next(),
        })
      }
      at++
      return node
    }
    if (event.type === 2) {
      const items: YamlNode[] = []
      const node: YamlSeq = {kind: 'seq', offset: event.start, items}
      anchored(event, node)
      while (events[at]!.type !== 6) items.push(next())
      at++
      return node
    }
    if (event.type === 5) {
      // loadAll accepted the document, so the anchor exists.
      return anchors.get(text.slice(event.anchorStart, event.anchorEnd))!
    }
    throw new Error(`unexpected YAML event ${event.type}`)
  }
  while (events[at]?.type === 1) at++
  return next()
}

function typed(decoded: string, style: number, empty: boolean): YamlScalarValue {
  if (empty) return null
  if (style !== 1) return decoded
  const value = load(decoded, {schema: YAML11_SCHEMA})
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return value
  return decoded
}

/** 1-based line numbers of offsets in a text. */
export function lineCounter(text: string): (offset: number) => number {
  const starts = [0]
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1)
  return (offset) => {
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (starts[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    return lo + 1
  }
}
