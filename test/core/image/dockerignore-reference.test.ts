// The .dockerignore rules over a corpus of 29 pattern sets and 13 paths (377 cases), each set with the paths Docker
// leaves out of the build context. The expectations were recorded from xpk's own matcher, which was checked against
// the real `docker build` (test/adapters/build-context.test.ts) and agreed with @balena/dockerignore on every case;
// xpk now matches with that library (src/core/image/dockerignore.ts), so this corpus is its regression test.
import {describe, expect, it} from 'vitest'

import {isIgnored, parseDockerignore} from '../../../src/core/image/dockerignore.js'

const PATHS = [
  'main.py',
  'README.md',
  'data/train.csv',
  'data/raw/a.bin',
  'src/model/layers.py',
  'src/model/__pycache__/layers.cpython-311.pyc',
  'node_modules/x/index.js',
  '.git/HEAD',
  'logs/run-1/out.log',
  'notes.txt',
  'build/keep.txt',
  'build/other.o',
  'a/b/c/d.txt',
]

// [the lines of a .dockerignore, the paths of PATHS it ignores]
const CORPUS: readonly (readonly [readonly string[], readonly string[]])[] = [
  [['*.md'], ['README.md']],
  [['data'], ['data/train.csv', 'data/raw/a.bin']],
  [['data/'], ['data/train.csv', 'data/raw/a.bin']],
  [['/data'], ['data/train.csv', 'data/raw/a.bin']],
  [['**/__pycache__'], ['src/model/__pycache__/layers.cpython-311.pyc']],
  [['**/*.pyc'], ['src/model/__pycache__/layers.cpython-311.pyc']],
  [
    ['node_modules', '.git'],
    ['node_modules/x/index.js', '.git/HEAD'],
  ],
  [['logs/*/out.log'], ['logs/run-1/out.log']],
  [['build', '!build/keep.txt'], ['build/other.o']],
  [
    ['*', '!main.py'],
    [
      'README.md',
      'data/train.csv',
      'data/raw/a.bin',
      'src/model/layers.py',
      'src/model/__pycache__/layers.cpython-311.pyc',
      'node_modules/x/index.js',
      '.git/HEAD',
      'logs/run-1/out.log',
      'notes.txt',
      'build/keep.txt',
      'build/other.o',
      'a/b/c/d.txt',
    ],
  ],
  [['*.txt', '!notes.txt'], []],
  [['a/**/d.txt'], ['a/b/c/d.txt']],
  [['src/model'], ['src/model/layers.py', 'src/model/__pycache__/layers.cpython-311.pyc']],
  [['# comment', '', '  notes.txt  '], ['notes.txt']],
  [['data/raw/../train.csv'], ['data/train.csv']],
  [['?otes.txt'], ['notes.txt']],
  [['[a-m]ain.py'], ['main.py']],
  [
    ['**'],
    [
      'main.py',
      'README.md',
      'data/train.csv',
      'data/raw/a.bin',
      'src/model/layers.py',
      'src/model/__pycache__/layers.cpython-311.pyc',
      'node_modules/x/index.js',
      '.git/HEAD',
      'logs/run-1/out.log',
      'notes.txt',
      'build/keep.txt',
      'build/other.o',
      'a/b/c/d.txt',
    ],
  ],
  [['data/**'], ['data/train.csv', 'data/raw/a.bin']],
  [['**/raw/**'], ['data/raw/a.bin']],
  [
    ['*/'],
    [
      'main.py',
      'README.md',
      'data/train.csv',
      'data/raw/a.bin',
      'src/model/layers.py',
      'src/model/__pycache__/layers.cpython-311.pyc',
      'node_modules/x/index.js',
      '.git/HEAD',
      'logs/run-1/out.log',
      'notes.txt',
      'build/keep.txt',
      'build/other.o',
      'a/b/c/d.txt',
    ],
  ],
  [['./main.py'], ['main.py']],
  [['.'], []],
  [['src/*'], ['src/model/layers.py', 'src/model/__pycache__/layers.cpython-311.pyc']],
  [['src/**/*.py', '!src/model/layers.py'], []],
  [['[^a-m]*.txt'], ['notes.txt']],
  [['\\*.md'], []],
  [['*.md', '!README.md', 'README.md'], ['README.md']],
  [['a/b', '!a/b/c/d.txt'], []],
]

describe('.dockerignore corpus', () => {
  const cases = CORPUS.flatMap(([lines, ignored]) =>
    PATHS.map((path) => ({key: `${JSON.stringify(lines)} ${path}`, lines, path, ignored: ignored.includes(path)})),
  )

  it('has 377 cases, each ignored path among the paths', () => {
    expect(cases).toHaveLength(377)
    for (const [, ignored] of CORPUS) for (const path of ignored) expect(PATHS).toContain(path)
  })

  it.each(cases)('$key', ({lines, path, ignored}) => {
    expect(isIgnored(path, parseDockerignore(lines.join('\n')))).toBe(ignored)
  })
})
