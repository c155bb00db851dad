import {load, loadAll} from 'js-yaml'
import {describe, expect, it} from 'vitest'

import {toYaml, toYamlDocuments} from '../../../src/core/manifests/to-yaml.js'

describe('toYaml', () => {
  it('keeps keys in the order they were built', () => {
    expect(toYaml({zeta: 1, alpha: {b: 2, a: 1}, mid: 'x'})).toBe('zeta: 1\nalpha:\n  b: 2\n  a: 1\nmid: x\n')
  })

  it.each(['true', 'false', 'yes', 'no', 'on', 'off', 'y', 'n', '6002', '012', '0x1f', '1e3', '1:20', 'null', '~', ''])(
    'quotes the string %j so YAML 1.1 readers keep it a string',
    (value) => {
      const text = toYaml({value})
      expect(text).toMatch(/^value: ".*"\n$/)
      expect(load(text)).toEqual({value})
    },
  )

  it('writes integer lists on one line and other lists as blocks', () => {
    expect(toYaml({values: [42, 127, 128], names: ['a', 'b'], mixed: [1, 'x']})).toBe(
      'values: [42, 127, 128]\nnames:\n  - a\n  - b\nmixed:\n  - 1\n  - x\n',
    )
  })

  it('writes multi-line strings as literal blocks and never folds long lines', () => {
    const script = `echo start;\n${'x'.repeat(300)};\nexit $EXIT_CODE`
    const text = toYaml({script})
    expect(text).toBe(`script: |-\n  echo start;\n  ${'x'.repeat(300)};\n  exit $EXIT_CODE\n`)
    expect(load(text)).toEqual({script})
  })

  it('writes shared sub-objects in full instead of anchors', () => {
    const shared = {name: 'dshm'}
    const text = toYaml({a: shared, b: shared})
    expect(text).not.toMatch(/[&*]ref/)
    expect(text).toBe('a:\n  name: dshm\nb:\n  name: dshm\n')
  })

  it('leaves out undefined properties', () => {
    expect(toYaml({a: 1, b: undefined, c: 'x'})).toBe('a: 1\nc: x\n')
  })
})

describe('toYaml round trips', () => {
  // A tiny deterministic generator, so a failure names a reproducible case.
  function random(seed: number): () => number {
    let state = seed
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648
      return state / 2147483648
    }
  }
  const alphabet = [
    ...'abcXYZ019 _-./:#@&*!|>%`\'"[]{},?=+()$~\\',
    '\n',
    '\t',
    '\r',
    '\u0000',
    '\u0007',
    '\u007f',
    '\u0085',
    '\u00a0',
    '\u2028',
    '\ufeff',
    'é',
    '☃',
    '😀',
  ]
  const words = [
    'true',
    'no',
    'on',
    'NULL',
    '~',
    '0x1F',
    '012',
    '1e3',
    '.5',
    '1_000',
    '2026-11-21',
    '12:30',
    '-',
    '---',
    '...',
    '<<',
    '=',
  ]
  const randomString = (next: () => number): string => {
    if (next() < 0.2) return words[Math.floor(next() * words.length)]
    let text = ''
    const length = Math.floor(next() * 12)
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)]
    return text
  }

  it('reads back every string exactly, as a value, a key and a list item (3,000 random strings)', () => {
    const next = random(42)
    for (let i = 0; i < 1000; i++) {
      const value = randomString(next)
      const doc = {[value || 'k']: value, list: [value, {name: value}]}
      const text = toYaml(doc)
      expect(load(text), JSON.stringify(value)).toEqual(doc)
    }
  })

  it('writes plain only strings that no YAML 1.1 reader could take for a number, date, boolean or null', () => {
    const next = random(7)
    const yaml11NonString =
      /^(?:[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]+|[0-9][0-9_]*(?::[0-5]?[0-9])*|(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~|\d{4}-\d\d?-\d\d?.*)$/
    for (let i = 0; i < 2000; i++) {
      const value = randomString(next)
      const text = toYaml({value}).slice('value: '.length, -1)
      if (!text.startsWith('"') && !text.startsWith('|')) expect(yaml11NonString.test(text), text).toBe(false)
    }
  })

  it('keeps literal blocks byte for byte, including trailing and leading empty lines', () => {
    for (const script of ['a\n', 'a\n\n', '\nx\n  y', 'line  \nnext', 'x\n\n\ny\n']) {
      expect(load(toYaml({script})), JSON.stringify(script)).toEqual({script})
    }
  })

  it('refuses values a manifest cannot hold', () => {
    expect(() => toYaml({n: Number.NaN})).toThrow(/not a number/)
    expect(() => toYaml({f: () => 1})).toThrow(/cannot serialize a function/)
  })
})

describe('toYamlDocuments', () => {
  it('separates documents with ---', () => {
    const text = toYamlDocuments([{kind: 'A'}, {kind: 'B'}])
    expect(text).toBe('kind: A\n---\nkind: B\n')
    expect(loadAll(text)).toEqual([{kind: 'A'}, {kind: 'B'}])
  })

  it('is empty for no objects', () => {
    expect(toYamlDocuments([])).toBe('')
  })
})
