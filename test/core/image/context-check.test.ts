import {describe, expect, it} from 'vitest'

import {contextConcerns, contextSize, formatBytes} from '../../../src/core/image/context-check.js'

type Entry = {path: string; type: 'file' | 'directory' | 'symlink'; size: number}
const dir = (path: string): Entry => ({path, type: 'directory', size: 0})
const file = (path: string, size = 10): Entry => ({path, type: 'file', size})

describe('contextConcerns', () => {
  it.each<[string, Entry[], number | null, string[]]>([
    ['a small training directory', [file('train.py'), dir('lib'), file('lib/a.py')], 100, []],
    ['node_modules at the root', [dir('node_modules'), file('node_modules/x.js')], null, ['contains node_modules']],
    ['a nested .git', [dir('sub'), dir('sub/.git'), file('sub/.git/HEAD')], null, ['contains sub/.git']],
    [
      'node_modules inside node_modules, named once',
      [dir('node_modules'), dir('node_modules/a'), dir('node_modules/a/node_modules')],
      null,
      ['contains node_modules'],
    ],
    [
      'more than three bulky directories',
      [dir('.git'), dir('a/node_modules'), dir('b/node_modules'), dir('c/node_modules'), dir('d/.git')],
      null,
      ['contains .git, a/node_modules, b/node_modules and 2 more'],
    ],
    ['a file named node_modules', [file('node_modules')], null, []],
    ['a directory whose name only ends in node_modules', [dir('my_node_modules')], null, []],
    ['exactly the limit', [file('a', 60), file('b', 40)], 100, []],
    [
      'one byte over the limit',
      [file('a', 60), file('b', 41)],
      100,
      ['holds 101 bytes, more than the 100 bytes limit'],
    ],
    ['no limit', [file('a', 10 ** 12)], null, []],
    [
      'both',
      [dir('.git'), file('data.bin', 558_000_000)],
      100_000_000,
      ['contains .git', 'holds 558 MB, more than the 100 MB limit'],
    ],
  ])('%s', (_name, entries, limit, expected) => {
    expect(contextConcerns(entries, limit)).toEqual(expected)
  })
})

describe('contextSize', () => {
  it('counts files and symlinks, not directories', () => {
    expect(contextSize([dir('a'), file('a/b', 5), {path: 'l', type: 'symlink', size: 0}])).toEqual({files: 2, bytes: 5})
  })
})

describe('formatBytes', () => {
  it.each([
    [0, '0 bytes'],
    [1, '1 byte'],
    [999, '999 bytes'],
    [1000, '1.0 kB'],
    [3_900_000, '3.9 MB'],
    [558_123_456, '558 MB'],
    [1_200_000_000, '1.2 GB'],
  ])('%d -> %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text)
  })
})
