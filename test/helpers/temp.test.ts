import {existsSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, dirname} from 'node:path'

import {describe, expect, it} from 'vitest'

import {isolatedEnv} from './cli.js'
import {removeTempDirs, tempDir} from './temp.js'

// The guarantees test/global-setup.ts and test/setup.ts give every test; the global teardown then fails the run
// if anything is left in the root.
describe('the per-run temporary root', () => {
  it('is the temporary directory of every test and of the CLI runs they start', () => {
    expect(basename(tmpdir())).toMatch(/^xpk-test-/)
    expect(isolatedEnv().TMPDIR).toBe(tmpdir())
  })

  it('holds the directories tempDir makes, until removeTempDirs', () => {
    const dirs = [tempDir('xpk-a-'), tempDir('xpk-b-')]
    expect(dirs.map((d) => dirname(d))).toEqual([tmpdir(), tmpdir()])
    expect(dirs.every((d) => existsSync(d))).toBe(true)
    removeTempDirs()
    expect(dirs.some((d) => existsSync(d))).toBe(false)
  })
})
