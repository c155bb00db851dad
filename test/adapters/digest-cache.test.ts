import {readdirSync, readFileSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {FsBuildContextSource} from '../../src/adapters/build-context.js'
import {DigestCache, type FileStamp} from '../../src/adapters/digest-cache.js'
import type {ScannedContext} from '../../src/ports/images.js'
import {tempDir} from '../helpers/temp.js'

const SHA_A = 'a'.repeat(64)
const SHA_B = 'b'.repeat(64)
// Long before any cache file is written: never racy.
const OLD = 1_600_000_000n * 1_000_000_000n
const stamp: FileStamp = {size: 10n, mtimeNs: OLD + 123n, ctimeNs: OLD + 456n, ino: 42n, dev: 7n}

/** The only cache file in `dir`. */
const cacheFile = (dir: string) => {
  const files = readdirSync(dir)
  expect(files).toHaveLength(1)
  return join(dir, files[0]!)
}

describe('DigestCache', () => {
  it('gives back a digest recorded by an earlier run for the same stamp', () => {
    const dir = tempDir('xpk-digests-')
    const first = DigestCache.open(dir, '/src/trainer')
    expect(first.lookup('train.py', stamp)).toBeUndefined()
    first.record('train.py', stamp, SHA_A)
    first.save()
    expect(DigestCache.open(dir, '/src/trainer').lookup('train.py', stamp)).toBe(SHA_A)
    // Another directory has its own file.
    expect(DigestCache.open(dir, '/src/other').lookup('train.py', stamp)).toBeUndefined()
  })

  it.each<[string, Partial<FileStamp>]>([
    ['size', {size: 11n}],
    ['modification time (by a nanosecond)', {mtimeNs: stamp.mtimeNs + 1n}],
    ['change time', {ctimeNs: stamp.ctimeNs + 1n}],
    ['inode (a file replaced by another)', {ino: 43n}],
    ['device', {dev: 8n}],
  ])('does not trust a record when the %s differs', (_, change) => {
    const dir = tempDir('xpk-digests-')
    const first = DigestCache.open(dir, '/src/trainer')
    first.record('train.py', stamp, SHA_A)
    first.save()
    expect(DigestCache.open(dir, '/src/trainer').lookup('train.py', {...stamp, ...change})).toBeUndefined()
  })

  it('does not trust a file modified in the second the cache was written, or later (racy git)', () => {
    const dir = tempDir('xpk-digests-')
    const first = DigestCache.open(dir, '/src/trainer')
    // The modification times of these files are whatever now is; the cache is written in the same second or the next.
    const written = BigInt(Date.now()) * 1_000_000n
    const second = (written / 1_000_000_000n) * 1_000_000_000n
    const racy = {...stamp, mtimeNs: second}
    const justBefore = {...stamp, mtimeNs: second - 1n}
    first.record('racy.py', racy, SHA_A)
    first.record('before.py', justBefore, SHA_B)
    first.save()
    const writtenSecond = (statSync(cacheFile(dir), {bigint: true}).mtimeNs / 1_000_000_000n) * 1_000_000_000n
    const again = DigestCache.open(dir, '/src/trainer')
    expect(again.lookup('racy.py', racy)).toBeUndefined()
    // Trusted only if the cache was written in a later second than its last change, as it is here when it was.
    expect(again.lookup('before.py', justBefore)).toBe(justBefore.mtimeNs < writtenSecond ? SHA_B : undefined)
  })

  it('writes nothing when a run found every file as recorded', () => {
    const dir = tempDir('xpk-digests-')
    const first = DigestCache.open(dir, '/src/trainer')
    first.record('train.py', stamp, SHA_A)
    first.save()
    const before = statSync(cacheFile(dir), {bigint: true})
    const again = DigestCache.open(dir, '/src/trainer')
    expect(again.lookup('train.py', stamp)).toBe(SHA_A)
    again.save()
    const after = statSync(cacheFile(dir), {bigint: true})
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs])
  })

  it('drops files that are no longer listed, and writes privately and atomically', () => {
    const dir = join(tempDir('xpk-digests-'), 'nested', 'digests')
    const first = DigestCache.open(dir, '/src/trainer')
    first.record('gone.py', stamp, SHA_A)
    first.record('kept.py', stamp, SHA_B)
    first.save()
    const again = DigestCache.open(dir, '/src/trainer')
    expect(again.lookup('kept.py', stamp)).toBe(SHA_B)
    again.save()
    const file = cacheFile(dir)
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).files)).toEqual(['kept.py'])
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
  })

  it.each([
    ['not JSON', () => '{"format": "xpk-digests-v1", "dir": '],
    ['another format', (file: object) => JSON.stringify({...file, format: 'xpk-digests-v0'})],
    ['another directory', (file: object) => JSON.stringify({...file, dir: '/elsewhere'})],
    [
      'a malformed digest',
      () =>
        JSON.stringify({
          format: 'xpk-digests-v1',
          dir: '/src/trainer',
          files: {'a.py': ['10', '1', '1', '1', '1', 'zz']},
        }),
    ],
    [
      'a malformed stamp',
      () =>
        JSON.stringify({
          format: 'xpk-digests-v1',
          dir: '/src/trainer',
          files: {'a.py': ['-1', '1', '1', '1', '1', SHA_A]},
        }),
    ],
  ])('treats a cache file with %s as empty, and replaces it', (_, corrupt) => {
    const dir = tempDir('xpk-digests-')
    const first = DigestCache.open(dir, '/src/trainer')
    first.record('train.py', stamp, SHA_A)
    first.save()
    const file = cacheFile(dir)
    writeFileSync(file, corrupt(JSON.parse(readFileSync(file, 'utf8')) as {files: Record<string, string[]>}))
    const again = DigestCache.open(dir, '/src/trainer')
    expect(again.lookup('train.py', stamp)).toBeUndefined()
    again.record('train.py', stamp, SHA_B)
    again.save()
    expect(DigestCache.open(dir, '/src/trainer').lookup('train.py', stamp)).toBe(SHA_B)
  })

  it('is no cache, without an error, where it cannot be written', () => {
    // Under a regular file: no directory can be made there, whoever runs the test (root ignores permissions).
    const parent = tempDir('xpk-digests-')
    writeFileSync(join(parent, 'file'), '')
    const cache = DigestCache.open(join(parent, 'file', 'digests'), '/src/trainer')
    cache.record('train.py', stamp, SHA_A)
    expect(() => cache.save()).not.toThrow()
    expect(readdirSync(parent)).toEqual(['file'])
  })
})

describe('FsBuildContextSource with a digest cache', () => {
  /** A script directory whose files were last changed long ago (not racy). */
  async function oldFiles(files: Record<string, string>): Promise<string> {
    const dir = tempDir('xpk-ctx-')
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(dir, path, '..'), {recursive: true})
      await writeFile(join(dir, path), content)
      utimesSync(join(dir, path), 1_600_000_000, 1_600_000_000)
    }
    return dir
  }
  async function scan(source: FsBuildContextSource, dir: string): Promise<ScannedContext> {
    const scanned = await source.scan(dir)
    if ('missing' in scanned) throw new Error(`unexpected: ${scanned.missing}`)
    return scanned
  }
  const digests = (scanned: ScannedContext) => Object.fromEntries(scanned.entries.map((e) => [e.path, e.sha256]))
  /** Rewrites every digest in the cache file to `sha`, so a digest taken from the cache shows as `sha`. */
  function poison(cacheDir: string, sha: string) {
    const file = cacheFile(cacheDir)
    const content = JSON.parse(readFileSync(file, 'utf8')) as {files: Record<string, string[]>}
    for (const record of Object.values(content.files)) record[1] = sha
    writeFileSync(file, JSON.stringify(content))
    // Written now, so the files changed in 2020 are not racy.
  }

  it('takes the digests of unchanged files from the cache instead of reading them', async () => {
    const dir = await oldFiles({'train.py': 'print(1)\n', 'pkg/model.py': 'W = 1\n'})
    const cacheDir = tempDir('xpk-digests-')
    const source = new FsBuildContextSource({digestCacheDir: cacheDir})
    const first = digests(await scan(source, dir))
    expect(first['train.py']).not.toBe(SHA_A)
    poison(cacheDir, SHA_A)
    const second = await scan(source, dir)
    // Only the cache could have said SHA_A: the files were not read.
    expect(digests(second)).toEqual({pkg: '', 'pkg/model.py': SHA_A, 'train.py': SHA_A})
    // Packing reads the files and checks them against the digests, so a wrong cache cannot send other bytes.
    const packing = (async () => {
      for await (const _ of second.pack({dockerfile: 'FROM scratch\n', filesDir: 'app'})) void _
    })()
    await expect(packing).rejects.toThrow(/changed while the image was being built/)
  })

  it('hashes again a file rewritten with the same size and modification time (its change time moved)', async () => {
    const dir = await oldFiles({'train.py': 'print(1)\n'})
    const cacheDir = tempDir('xpk-digests-')
    const source = new FsBuildContextSource({digestCacheDir: cacheDir})
    await scan(source, dir)
    poison(cacheDir, SHA_A)
    writeFileSync(join(dir, 'train.py'), 'print(2)\n')
    utimesSync(join(dir, 'train.py'), 1_600_000_000, 1_600_000_000)
    const scanned = await scan(source, dir)
    expect(digests(scanned)['train.py']).toBe(
      (await import('node:crypto')).createHash('sha256').update('print(2)\n').digest('hex'),
    )
  })

  it('gives the same entries with and without a cache', async () => {
    const dir = await oldFiles({'train.py': 'print(1)\n', 'a/b/c.txt': 'x'.repeat(3_000_000)})
    const cacheDir = tempDir('xpk-digests-')
    const plain = await scan(new FsBuildContextSource(), dir)
    const cached = new FsBuildContextSource({digestCacheDir: cacheDir})
    await scan(cached, dir)
    const again = await scan(cached, dir)
    expect(again.entries).toEqual(plain.entries)
    expect(again.bytes).toBe(plain.bytes)
  })
})
