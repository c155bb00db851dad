// The streaming list parser with a field mask: each item is projected while it is scanned (the values of keys the
// mask does not keep are skipped, never parsed). Whatever the item, the mask and the pieces the body arrives in,
// the items are what JSON.parse of the item cut down by projectFields gives; malformed structure is refused.
import {afterEach, describe, expect, it, vi} from 'vitest'

import {projectFields, type FieldMask} from '../../../src/core/kube/field-mask.js'
import {ListStream, ListSyntaxError} from '../../../src/core/kube/list-stream.js'
import {JOBSET_FIELDS, WORKLOAD_FIELDS} from '../../../src/core/workload/status.js'
import {SCENARIOS, scenarioObjects} from '../../builders/workload-states.js'

/** Parses `text` given in pieces that end at `cuts` (increasing indexes). */
function parseCut(text: string, cuts: readonly number[], fields?: FieldMask) {
  const stream = new ListStream(fields)
  let from = 0
  for (const cut of [...cuts, text.length]) {
    stream.push(text.slice(from, cut))
    from = cut
  }
  return stream.end()
}

function parseInPieces(text: string, size: number, fields?: FieldMask) {
  const cuts: number[] = []
  for (let i = size; i < text.length; i += size) cuts.push(i)
  return parseCut(text, cuts, fields)
}

/** A small deterministic pseudo-random generator (Numerical Recipes LCG), so failures reproduce. */
function lcg(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

type Json = null | boolean | number | string | Json[] | {[key: string]: Json}

// Keys that masks name, and keys that look like them.
const KEYS = [
  'metadata',
  'name',
  'spec',
  'items',
  'status',
  'a',
  'b',
  '',
  'na"me',
  'name\\',
  'nämé',
  '😀',
  'constructor',
]
const STRINGS = [
  '',
  'name',
  '"name":',
  'say "hi"',
  '\\',
  'ends in a backslash \\',
  '\\"',
  '\\\\"',
  '}]{[,:',
  '{"metadata":{"name":"x"}}',
  'é 😀 \u2028 \u2029 \u0000 \u001f',
  'tab\tnewline\n',
  'x'.repeat(40),
]
const NUMBERS = [0, -0, 1, -1, 42, 3.25, -2.5e-7, 1e21, 123456789]

function randomJson(random: () => number, depth: number): Json {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]
  const r = random()
  if (depth <= 0 || r < 0.3) {
    const s = random()
    if (s < 0.4) return pick(STRINGS)
    if (s < 0.7) return pick(NUMBERS)
    return pick([true, false, null])
  }
  if (r < 0.5) return Array.from({length: Math.floor(random() * 4)}, () => randomJson(random, depth - 1))
  const object: {[key: string]: Json} = {}
  for (let n = Math.floor(random() * 6); n > 0; n--) object[pick(KEYS)] = randomJson(random, depth - 1)
  return object
}

function randomMask(random: () => number, depth: number): FieldMask {
  if (depth <= 0 || random() < 0.25) return true
  const mask: {[key: string]: FieldMask} = {}
  for (const key of KEYS) if (random() < 0.4) mask[key] = randomMask(random, depth - 1)
  return mask
}

/**
 * JSON text of `value` written as a server might: whitespace between any tokens and characters of strings (keys
 * too) written as \u escapes at random, so keys are not always written as they read.
 */
function write(value: Json, random: () => number): string {
  const space = () => (random() < 0.15 ? pickSpace(random) : '')
  const str = (s: string) =>
    random() < 0.3
      ? `"${[...s].map((ch) => (random() < 0.5 ? escapeAll(ch) : JSON.stringify(ch).slice(1, -1))).join('')}"`
      : JSON.stringify(s)
  const go = (v: Json): string => {
    if (v === null || typeof v !== 'object')
      return space() + (typeof v === 'string' ? str(v) : JSON.stringify(v)) + space()
    if (Array.isArray(v)) return `${space()}[${v.length === 0 ? space() : v.map(go).join(',')}]${space()}`
    const members = Object.entries(v).map(([k, x]) => `${space()}${str(k)}${space()}:${go(x)}`)
    return `${space()}{${members.length === 0 ? space() : members.join(',')}}${space()}`
  }
  return go(value)
}

const pickSpace = (random: () => number) => [' ', '\n', '\t', '\r', '  \n  '][Math.floor(random() * 5)]
const escapeAll = (ch: string) =>
  [...ch]
    .map((c) => {
      const units = []
      for (let i = 0; i < c.length; i++) units.push(`\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`)
      return units.join('')
    })
    .join('')

/**
 * `value` as text that tells apart what deep equality must: plain objects with their keys sorted (the projection
 * keeps the item's key order, projectFields the mask's), arrays, -0. (Vitest's toStrictEqual takes an own
 * `constructor` key for the object's class.)
 */
function canonical(value: unknown): string {
  if (Object.is(value, -0)) return '-0'
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (Object.getPrototypeOf(value) !== Object.prototype) return 'not a plain object'
  const keys = Object.keys(value).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`
}

/** A list body with `items` written as they are, top-level keys around them. */
const listOf = (items: readonly string[], random: () => number) =>
  `{"kind":"L",${pickSpace(random)}"items":[${items.join(',')}],"metadata":{"continue":"c","x":[1,{"y":"}"}]}}`

describe('ListStream with a field mask', () => {
  afterEach(() => vi.restoreAllMocks())

  it('reads random items as JSON.parse and projectFields do, however the body is split (500 seeded lists)', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const random = lcg(seed * 7919)
      const mask = randomMask(random, 4)
      const values = Array.from({length: 1 + Math.floor(random() * 4)}, () => randomJson(random, 5))
      const texts = values.map((v) => write(v, random))
      const expected = texts.map((t) => projectFields(JSON.parse(t), mask))
      const body = listOf(texts, random)
      const sizes = seed <= 50 ? Array.from({length: 40}, (_, i) => i + 1) : [1, 2, 3, 5, 8, 13, 64, body.length]
      for (const size of sizes) {
        const {items, continue: token} = parseInPieces(body, size, mask)
        expect(canonical(items), `seed ${seed}, pieces of ${size}`).toBe(canonical(expected))
        expect(token).toBe('c')
      }
      // Pieces of random lengths, and two pieces split at each place.
      const cuts: number[] = []
      for (let i = 0; i < body.length; i += 1 + Math.floor(random() * 30)) if (i > 0) cuts.push(i)
      expect(canonical(parseCut(body, cuts, mask).items), `seed ${seed}, random pieces`).toBe(canonical(expected))
      if (seed <= 100) {
        for (let i = 1; i < body.length; i++) {
          expect(canonical(parseCut(body, [i], mask).items), `seed ${seed}, split at ${i}`).toBe(canonical(expected))
        }
      }
    }
  })

  it('reads the Workloads and JobSets of every scenario as projectFields cuts them, however split', () => {
    const random = lcg(11)
    for (const [fields, objects] of [
      [JOBSET_FIELDS, SCENARIOS.map((s) => scenarioObjects(s).jobset)],
      [WORKLOAD_FIELDS, SCENARIOS.flatMap((s) => scenarioObjects(s).workload ?? [])],
    ] as const) {
      const expected = objects.map((o) => projectFields(o, fields))
      for (const body of [
        JSON.stringify({apiVersion: 'v1', kind: 'L', metadata: {continue: 'c'}, items: objects}),
        JSON.stringify({apiVersion: 'v1', kind: 'L', metadata: {continue: 'c'}, items: objects}, null, 2),
        listOf(
          objects.map((o) => write(o as Json, random)),
          random,
        ),
      ]) {
        for (const size of [1, 2, 3, 7, 16, 100, 1000, 16384, body.length]) {
          expect(parseInPieces(body, size, fields)).toStrictEqual({items: expected, continue: 'c'})
        }
      }
      // Each object alone, split in two at every place.
      for (const object of objects.slice(0, 3)) {
        const body = JSON.stringify({items: [object]})
        for (let i = 1; i < body.length; i++) {
          expect(parseCut(body, [i], fields).items).toStrictEqual([projectFields(object, fields)])
        }
      }
    }
  })

  it('never parses what the mask leaves out', () => {
    const parse = vi.spyOn(JSON, 'parse')
    const item = {
      metadata: {name: 'a', annotations: {big: 'LEFT-OUT'.repeat(50)}},
      spec: {template: {command: ['LEFT-OUT'], env: [{name: 'X', value: 'LEFT-OUT'}]}, replicas: 2},
    }
    const fields: FieldMask = {metadata: {name: true}, spec: {replicas: true}}
    const body = JSON.stringify({items: [item, item]})
    expect(parseInPieces(body, 100, fields).items).toStrictEqual([
      {metadata: {name: 'a'}, spec: {replicas: 2}},
      {metadata: {name: 'a'}, spec: {replicas: 2}},
    ])
    const parsed = parse.mock.calls.map(([text]) => String(text))
    expect(parsed.length).toBeGreaterThan(0)
    for (const text of parsed) expect(text).not.toContain('LEFT-OUT')
  })

  it('keeps the last of duplicate keys, as JSON.parse does', () => {
    const item = '{"a":{"x":1,"y":2},"b":0,"a":{"y":3,"z":4},"c":[{"x":5},{"w":6}]}'
    const fields: FieldMask = {a: {y: true, z: true}, c: {x: true}}
    for (let size = 1; size <= item.length; size++) {
      expect(parseInPieces(`{"items":[${item}]}`, size, fields).items).toStrictEqual([
        projectFields(JSON.parse(item), fields),
      ])
    }
  })

  it('refuses malformed structure, in kept and in left-out parts', () => {
    const fields: FieldMask = {a: true, k: {x: true}}
    for (const bad of [
      '{"items":[{"a":1,}]}',
      '{"items":[{,"a":1}]}',
      '{"items":[{"a" 1}]}',
      '{"items":[{"a":}]}',
      '{"items":[{"a":1 "b":2}]}',
      '{"items":[{"a":[1,]}]}',
      '{"items":[{"a":tru}]}',
      '{"items":[{"k":{"x":1,}}]}',
      '{"items":[{"k":[{"x":1},]}]}',
      '{"items":[{"k":[{"x":1}}]}',
      '{"items":[{"k":{"x":1]}]}',
      '{"items":[{"b":[1}]}',
      '{"items":[{"b":{"c":[}]}]}',
      '{"items":[{"b":"unterminated}]}',
      '{"items":[{"b":1}',
      '{"items":[{"b":1},]}',
      '{"items":[{"\\q":1}]}',
      '{"items":[{"a":1}}]}',
      '{"items":[{"k":]}]}',
      '{"items":[{"b":,"a":1}]}',
      '{"items":[{"b"::1}]}',
      '{"items":[{"b":1,,"a":1}]}',
    ]) {
      for (const size of [1, 2, bad.length]) {
        expect(() => parseInPieces(bad, size, fields), bad).toThrow(ListSyntaxError)
      }
    }
  })

  it('finds only the end of what it leaves out: a stray scalar there is not refused', () => {
    expect(parseInPieces('{"items":[{"b":tru,"a":1}]}', 3, {a: true}).items).toStrictEqual([{a: 1}])
  })
})
