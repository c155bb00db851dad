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
      expect(text).toMatch(/^value: '.*'\n$/)
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
