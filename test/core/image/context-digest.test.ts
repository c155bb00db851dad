import {describe, expect, it} from 'vitest'

import {contextDigest, sortContextEntries, type ContextEntry} from '../../../src/core/image/context-digest.js'
import {layerDockerfile} from '../../../src/core/image/dockerfile.js'

const entries: ContextEntry[] = [
  {path: 'src', type: 'directory', mode: 0o755, size: 0, sha256: ''},
  {path: 'src/train.py', type: 'file', mode: 0o644, size: 5, sha256: 'a'.repeat(64)},
  {path: 'run.sh', type: 'file', mode: 0o755, size: 9, sha256: 'b'.repeat(64)},
  {path: 'latest', type: 'symlink', mode: 0o777, size: 0, sha256: 'c'.repeat(64), linkTarget: 'src/train.py'},
]
const input = {
  entries,
  dockerfile: layerDockerfile('python:3.10'),
  baseDigest: `sha256:${'d'.repeat(64)}`,
  platform: 'linux/amd64',
}

describe('contextDigest', () => {
  it('is a sha256 digest', () => {
    expect(contextDigest(input)).toMatch(/^sha256:[0-9a-f]{64}$/)
  })

  it('is the same whatever order the entries come in', () => {
    expect(contextDigest({...input, entries: [...entries].reverse()})).toBe(contextDigest(input))
  })

  const change = (index: number, patch: Partial<ContextEntry>) =>
    entries.map((e, i) => (i === index ? {...e, ...patch} : e))

  it.each([
    ['a file content', {entries: change(1, {sha256: 'e'.repeat(64)})}],
    ['a file mode', {entries: change(2, {mode: 0o644})}],
    ['a path', {entries: change(2, {path: 'run2.sh'})}],
    ['a symlink target', {entries: change(3, {linkTarget: 'run.sh'})}],
    ['an entry type', {entries: change(0, {type: 'file' as const})}],
    ['an added entry', {entries: [...entries, {path: 'x', type: 'file' as const, mode: 0o644, size: 0, sha256: ''}]}],
    ['a removed entry', {entries: entries.slice(1)}],
    ['the base digest', {baseDigest: `sha256:${'f'.repeat(64)}`}],
    ['an unresolved base digest', {baseDigest: null}],
    ['the platform', {platform: 'linux/arm64'}],
    ['the base image named in the Dockerfile', {dockerfile: layerDockerfile('python:3.11')}],
  ])('changes with %s', (_name, patch) => {
    expect(contextDigest({...input, ...patch})).not.toBe(contextDigest(input))
  })

  it('does not depend on sizes (contents decide)', () => {
    expect(contextDigest({...input, entries: change(1, {size: 999})})).toBe(contextDigest(input))
  })

  it('cannot be fooled by separators inside paths', () => {
    const a: ContextEntry[] = [{path: 'a\nfile b', type: 'file', mode: 0o644, size: 0, sha256: ''}]
    const b: ContextEntry[] = [
      {path: 'a', type: 'file', mode: 0o644, size: 0, sha256: ''},
      {path: 'b', type: 'file', mode: 0o644, size: 0, sha256: ''},
    ]
    expect(contextDigest({...input, entries: a})).not.toBe(contextDigest({...input, entries: b}))
  })
})

describe('sortContextEntries', () => {
  it('sorts by code unit, not locale, and returns a new array', () => {
    const sorted = sortContextEntries([
      {path: 'b', type: 'file', mode: 0, size: 0, sha256: ''},
      {path: 'B', type: 'file', mode: 0, size: 0, sha256: ''},
      {path: 'a.txt', type: 'file', mode: 0, size: 0, sha256: ''},
      {path: 'a', type: 'directory', mode: 0, size: 0, sha256: ''},
    ])
    expect(sorted.map((e) => e.path)).toEqual(['B', 'a', 'a.txt', 'b'])
  })
})

describe('layerDockerfile', () => {
  it('copies the files folder into /app', () => {
    expect(layerDockerfile('python:3.10')).toBe('FROM python:3.10\nWORKDIR /app\nCOPY app/ /app/\n')
  })
})
