// Our .dockerignore matcher against @balena/dockerignore (the one dockerode ships), over a corpus of patterns and
// paths. They agree on everything but the cases listed in DIFFERENCES, where ours follows Docker itself (moby's
// patternmatcher, which test/adapters/build-context.test.ts checks against the real `docker build`) and the
// library does not. That is why xpk keeps its own matcher: a context must hold exactly what `docker build` sends.
import {createRequire} from 'node:module'
import type ignoreTypes from '@balena/dockerignore'
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

const CORPUS: readonly string[][] = [
  ['*.md'],
  ['data'],
  ['data/'],
  ['/data'],
  ['**/__pycache__'],
  ['**/*.pyc'],
  ['node_modules', '.git'],
  ['logs/*/out.log'],
  ['build', '!build/keep.txt'],
  ['*', '!main.py'],
  ['*.txt', '!notes.txt'],
  ['a/**/d.txt'],
  ['src/model'],
  ['# comment', '', '  notes.txt  '],
  ['data/raw/../train.csv'],
  ['?otes.txt'],
  ['[a-m]ain.py'],
  ['**'],
  ['data/**'],
  ['**/raw/**'],
  ['*/'],
  ['./main.py'],
  ['.'],
  ['src/*'],
  ['src/**/*.py', '!src/model/layers.py'],
  ['[^a-m]*.txt'],
  ['\\*.md'],
  ['*.md', '!README.md', 'README.md'],
  ['a/b', '!a/b/c/d.txt'],
]

// The package is CommonJS whose typings declare an ES default export; require() gives the function itself.
const ignore = createRequire(import.meta.url)('@balena/dockerignore') as typeof ignoreTypes.default

/** Where the library departs from Docker, each with the reason; every other case must agree. */
const DIFFERENCES: Readonly<Record<string, string>> = {}

describe('.dockerignore matcher against @balena/dockerignore', () => {
  const cases = CORPUS.flatMap((lines) => PATHS.map((path) => ({lines, path, key: `${JSON.stringify(lines)} ${path}`})))

  it.each(cases)('$key', ({lines, path, key}) => {
    const ours = isIgnored(path, parseDockerignore(lines.join('\n')))
    const library = ignore().add(lines).ignores(path)
    if (key in DIFFERENCES) expect(ours).not.toBe(library)
    else expect(ours).toBe(library)
  })
})
