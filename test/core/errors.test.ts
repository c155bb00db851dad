import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {
  ApiError,
  combinedKind,
  errorToJson,
  EXIT_CODE_TABLE,
  exitCodeFor,
  throwIfProblems,
  UsageError,
  UsageErrors,
  XpkError,
  type ErrorKind,
} from '../../src/core/errors.js'
import {REPO_ROOT} from '../helpers/cli.js'

describe('exit codes', () => {
  it('gives every error kind exactly one documented code', () => {
    const kinds: ErrorKind[] = [
      'failed',
      'declined',
      'usage',
      'auth',
      'permission',
      'not-found',
      'quota',
      'stockout',
      'conflict',
      'unavailable',
      'image',
      'timeout',
      'unsuccessful',
      'interrupted',
      'internal',
    ]
    const listed = EXIT_CODE_TABLE.flatMap((row) => row.kinds)
    expect([...listed].sort()).toEqual([...kinds].sort())
    expect(new Set(EXIT_CODE_TABLE.map((r) => r.code)).size).toBe(EXIT_CODE_TABLE.length)
  })

  it.each([
    ['usage', 2],
    ['declined', 1],
    ['permission', 3],
    ['not-found', 4],
    ['stockout', 5],
    ['quota', 5],
    ['conflict', 6],
    ['unavailable', 7],
    ['image', 8],
    ['interrupted', 130],
  ] as const)('%s exits with %i', (kind, code) => {
    expect(exitCodeFor(kind)).toBe(code)
    expect(new XpkError(kind, 'x').exitCode).toBe(code)
  })

  it('is documented in the README exactly as in the code', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
    const section = /<!-- exit-codes:start -->\n([\s\S]*?)<!-- exit-codes:end -->/.exec(readme)?.[1]
    expect(section, 'README exit-code section').toBeDefined()
    const rows = section!
      .split('\n')
      .filter((line) => /^\| \d+ \|/.test(line))
      .map((line) =>
        line
          .split('|')
          .map((c) => c.trim())
          .slice(1, 3),
      )
    expect(rows).toEqual(EXIT_CODE_TABLE.map((r) => [String(r.code), r.meaning]))
  })
})

describe('typed errors', () => {
  it('throws one problem as itself and several together', () => {
    const a = new UsageError('a', {flag: '--a'})
    const b = new UsageError('b', {flag: '--b', hints: ['fix b']})
    expect(() => throwIfProblems([])).not.toThrow()
    expect(() => throwIfProblems([a])).toThrow(a)
    try {
      throwIfProblems([a, b])
    } catch (error) {
      expect(error).toBeInstanceOf(UsageErrors)
      expect((error as UsageErrors).problems).toEqual([a, b])
      expect((error as UsageErrors).hints).toEqual(['fix b'])
      expect((error as UsageErrors).exitCode).toBe(2)
    }
  })

  it('serialises for --json with kind, exit code, message and hints', () => {
    const error = new ApiError('stockout', 'no capacity', {
      status: 'RESOURCE_EXHAUSTED',
      retryable: false,
      hints: ['try --spot'],
    })
    expect(errorToJson(error)).toEqual({
      error: {kind: 'stockout', exitCode: 5, message: 'no capacity', hints: ['try --spot']},
    })
  })
})

describe('combinedKind: the exit code of several failures', () => {
  it.each([
    [[], 'failed', 1],
    [['stockout'], 'stockout', 5],
    [['stockout', 'quota'], 'stockout', 5],
    [['quota', 'stockout', 'quota'], 'quota', 5],
    [['auth', 'permission'], 'auth', 3],
    [['stockout', 'unavailable'], 'failed', 1],
    [['conflict', 'conflict'], 'conflict', 6],
    [['interrupted', 'stockout'], 'failed', 1],
  ] as const)('%j -> %s (exit %d)', (kinds, kind, code) => {
    expect(combinedKind(kinds)).toBe(kind)
    expect(exitCodeFor(combinedKind(kinds))).toBe(code)
  })
})
