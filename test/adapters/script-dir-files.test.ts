// The one walk, ignore reader and tar packer of script directories (src/adapters/script-dir-files.ts), as image
// builds (FsBuildContextSource) and vm run bundles (ssh-bundle.ts) use them.
import {execFileSync} from 'node:child_process'
import type * as NodeFs from 'node:fs'
import {readdirSync} from 'node:fs'
import {chmod, mkdir, symlink, utimes, writeFile} from 'node:fs/promises'
import {join} from 'node:path'

import tar from 'tar-stream'
import {describe, expect, it, vi} from 'vitest'

import {FsBuildContextSource} from '../../src/adapters/build-context.js'
import {BUNDLE_IGNORE_FILES, IMAGE_IGNORE_FILES, walkScriptDir} from '../../src/adapters/script-dir-files.js'
import {listScriptDir, packScriptDir} from '../../src/adapters/ssh-bundle.js'
import {UsageError, XpkError} from '../../src/core/errors.js'
import type {ScriptDirEntries} from '../../src/ports/remote-shell.js'
import {tempDir} from '../helpers/temp.js'

// Which directories the walk reads, to see that it never enters one it can skip.
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof NodeFs>()
  return {...fs, readdirSync: vi.fn(fs.readdirSync)}
})

async function scriptDir(files: Record<string, string>): Promise<string> {
  const dir = tempDir('xpk-sdf-')
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), {recursive: true})
    await writeFile(join(dir, path), content)
  }
  return dir
}

function walkedPaths(dir: string, ignoreFiles: readonly string[]): string[] {
  const walked = walkScriptDir(dir, ignoreFiles)
  if ('missing' in walked) throw new Error(`unexpected: ${walked.missing}`)
  return walked.entries.map((e) => e.path)
}

async function listed(dir: string): Promise<ScriptDirEntries> {
  const listing = await listScriptDir(dir)
  if ('missing' in listing) throw new Error(`unexpected: ${listing.missing}`)
  return listing
}

interface TarEntry {
  name: string
  type: string
  mode: number
  uid: number
  uname: string
  mtime: number
  linkname: string | null
  content: string
}

async function untar(bytes: Buffer): Promise<TarEntry[]> {
  const extract = tar.extract()
  const out: TarEntry[] = []
  const reading = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = []
      for await (const chunk of entry) chunks.push(chunk as Buffer)
      const h = entry.header
      out.push({
        name: h.name,
        type: h.type ?? 'file',
        mode: h.mode ?? 0,
        uid: h.uid ?? -1,
        uname: h.uname ?? '',
        mtime: h.mtime?.getTime() ?? 0,
        linkname: h.linkname ?? null,
        content: Buffer.concat(chunks).toString(),
      })
    }
  })()
  extract.end(bytes)
  await reading
  return out
}

describe('the ignore files', () => {
  it('are .dockerignore for images, then .xpkignore for vm run, whose exceptions re-include', async () => {
    const dir = await scriptDir({
      '.dockerignore': '*.log\ndata\n',
      '.xpkignore': '!keep.log\nsecret.txt\n',
      'a.log': '',
      'keep.log': '',
      'secret.txt': '',
      'data/x.csv': '',
      'train.py': '',
    })
    expect(walkedPaths(dir, IMAGE_IGNORE_FILES)).toEqual(['.dockerignore', '.xpkignore', 'secret.txt', 'train.py'])
    expect(walkedPaths(dir, BUNDLE_IGNORE_FILES)).toEqual(['.dockerignore', '.xpkignore', 'keep.log', 'train.py'])
    expect((await listed(dir)).entries.map((e) => e.path)).toEqual(walkedPaths(dir, BUNDLE_IGNORE_FILES))
  })

  it.each([
    ['.dockerignore', {'.dockerignore': 'ok\n[oops\n'}, '.dockerignore line 2'],
    ['.xpkignore', {'.dockerignore': 'ok\n', '.xpkignore': '# c\n\n!\n'}, '.xpkignore line 3'],
  ])('a malformed %s is a usage error naming its file and line, for both readers', async (_name, files, where) => {
    const dir = await scriptDir(files)
    await expect(listScriptDir(dir)).rejects.toThrow(UsageError)
    await expect(listScriptDir(dir)).rejects.toThrow(`${join(dir, where)}:`)
    if (where.startsWith('.dockerignore')) {
      await expect(new FsBuildContextSource().scan(dir)).rejects.toThrow(`${join(dir, where)}:`)
    }
  })

  it('an ignore file that cannot be read is a usage error naming it', async () => {
    const dir = await scriptDir({'.dockerignore': 'x\n', 'train.py': ''})
    // A directory in its place: unreadable as a file whoever runs the test (root reads files of any mode).
    await mkdir(join(dir, '.xpkignore'))
    const error = await listScriptDir(dir).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).message).toMatch(`Cannot read ${join(dir, '.xpkignore')}: EISDIR`)
  })
})

describe('the walk', () => {
  /** The directories (relative to `dir`) the walk read. */
  function entered(dir: string): string[] {
    return vi
      .mocked(readdirSync)
      .mock.calls.map(([path]) => String(path))
      .filter((path) => path.startsWith(dir))
      .map((path) => path.slice(dir.length + 1).replace(/\/$/, ''))
  }

  it('does not enter an ignored directory without an exception below it', async () => {
    const dir = await scriptDir({'.dockerignore': 'cache\n!**/keep\n', 'train.py': '', 'cache/a/keep': ''})
    expect(walkedPaths(dir, IMAGE_IGNORE_FILES)).toEqual(['.dockerignore', 'train.py'])
    expect(entered(dir)).toEqual([''])
  })

  it('enters it for an exception naming a path below it, and lists only what that re-includes', async () => {
    const dir = await scriptDir({'.dockerignore': 'cache\n!cache/a/b.bin\n', 'train.py': '', 'cache/a/b.bin': ''})
    expect(walkedPaths(dir, IMAGE_IGNORE_FILES)).toEqual(['.dockerignore', 'cache/a/b.bin', 'train.py'])
    expect(entered(dir)).toEqual(['', 'cache', 'cache/a'])
  })

  it('reports what is neither a file, a directory nor a symlink, unless it is ignored', async () => {
    const dir = await scriptDir({'.dockerignore': 'skip\n', 'train.py': ''})
    execFileSync('mkfifo', [join(dir, 'pipe'), join(dir, 'skip')])
    const walked = walkScriptDir(dir, IMAGE_IGNORE_FILES)
    if ('missing' in walked) throw new Error('unexpected')
    expect(walked.unsupported).toEqual(['pipe'])
  })

  it('lists in path order, every directory before what is in it', async () => {
    const dir = await scriptDir({'a.txt': '', 'a/x': '', 'a-b/y': '', 'b/c/d': ''})
    expect(walkedPaths(dir, [])).toEqual(['a', 'a-b', 'a-b/y', 'a.txt', 'a/x', 'b', 'b/c', 'b/c/d'])
  })

  it('tells a missing directory from a file', async () => {
    const dir = await scriptDir({'f.txt': ''})
    expect(walkScriptDir(join(dir, 'nope'), [])).toEqual({missing: 'absent'})
    expect(walkScriptDir(join(dir, 'f.txt'), [])).toEqual({missing: 'not-a-directory'})
    expect(await listScriptDir(join(dir, 'nope'))).toEqual({dir: join(dir, 'nope'), missing: 'absent'})
  })
})

describe('the vm run bundle', () => {
  it('holds the listed entries with their modes and modification times, owned by root, and counts files', async () => {
    const dir = await scriptDir({'.xpkignore': 'out\n', 'run.sh': 'echo hi\n', 'pkg/m.py': 'print(1)\n', 'out/x': ''})
    await chmod(join(dir, 'run.sh'), 0o755)
    await symlink('run.sh', join(dir, 'link'))
    const when = new Date('2024-05-06T07:08:09Z')
    await utimes(join(dir, 'pkg', 'm.py'), when, when)
    const bundle = await packScriptDir(await listed(dir))
    const entries = await untar(bundle.tar)
    expect(entries.map((e) => [e.name, e.type])).toEqual([
      ['.xpkignore', 'file'],
      ['link', 'symlink'],
      ['pkg/', 'directory'],
      ['pkg/m.py', 'file'],
      ['run.sh', 'file'],
    ])
    const byName = new Map(entries.map((e) => [e.name, e]))
    expect(byName.get('run.sh')).toMatchObject({mode: 0o755, content: 'echo hi\n'})
    expect(byName.get('link')!.linkname).toBe('run.sh')
    expect(byName.get('pkg/m.py')!.mtime).toBe(when.getTime())
    expect(entries.every((e) => e.uid === 0 && e.uname === 'root')).toBe(true)
    expect([bundle.files, bundle.bytes]).toEqual([3, 'out\n'.length + 'echo hi\n'.length + 'print(1)\n'.length])
  })

  it('fails, naming the file, when a large file changes size between listing and packing', async () => {
    const dir = await scriptDir({'big.bin': 'a'.repeat(2 << 20)})
    const listing = await listed(dir)
    await writeFile(join(dir, 'big.bin'), 'a'.repeat(3 << 20))
    const error = await packScriptDir(listing).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).message).toBe('big.bin changed while the script directory was being packed.')
  })
})
