// The worker-list cache of `xpk vm run` on disk (src/adapters/ssh-targets.ts): a best-effort JSON store.
import {readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {WorkerListFiles} from '../../src/adapters/ssh-targets.js'
import {tempDir} from '../helpers/temp.js'

describe('WorkerListFiles', () => {
  it('stores one JSON value per key, replacing it whole, and leaves no temporary file', async () => {
    const dir = join(tempDir('xpk-workers-'), 'xpk', 'vm-workers')
    const cache = new WorkerListFiles(dir)
    expect(await cache.read('a')).toBeUndefined()
    await cache.write('a', {n: 1})
    await cache.write('b', {n: 2})
    await cache.write('a', {n: 3})
    expect([await cache.read('a'), await cache.read('b')]).toEqual([{n: 3}, {n: 2}])
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  it('is no cache when its file is damaged or its directory cannot be made', async () => {
    const dir = tempDir('xpk-workers-')
    const cache = new WorkerListFiles(dir)
    await cache.write('a', {n: 1})
    const [file] = readdirSync(dir)
    writeFileSync(join(dir, file), '{"n": 1')
    expect(await cache.read('a')).toBeUndefined()
    // A file where the directory should be: writing fails quietly.
    const blocked = join(tempDir('xpk-workers-'), 'file')
    writeFileSync(blocked, '')
    await expect(new WorkerListFiles(join(blocked, 'sub')).write('a', 1)).resolves.toBeUndefined()
  })
})
