import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {chmod, mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import tar from 'tar-stream'
import {afterEach, describe, expect, it} from 'vitest'

import {FsBuildContextSource} from '../../src/adapters/build-context.js'
import {UsageError, XpkError} from '../../src/core/errors.js'
import type {ScannedContext} from '../../src/ports/images.js'
import {makeBaseImage} from '../helpers/base-image.js'
import {dockerAvailable, explainDockerSkip, removeImages, runInImage, uniqueSuffix} from '../helpers/docker.js'
import {tempDir} from '../helpers/temp.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, {recursive: true, force: true})))
})

async function scriptDir(files: Record<string, string | {content: string; mode: number}>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'xpk-ctx-'))
  dirs.push(dir)
  for (const [path, spec] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), {recursive: true})
    const {content, mode} = typeof spec === 'string' ? {content: spec, mode: 0o644} : spec
    await writeFile(join(dir, path), content)
    await chmod(join(dir, path), mode)
  }
  return dir
}

async function scan(dir: string, keepInMemoryBytes?: number): Promise<ScannedContext> {
  const scanned = await new FsBuildContextSource({keepInMemoryBytes}).scan(dir)
  if ('missing' in scanned) throw new Error(`unexpected: ${scanned.missing}`)
  return scanned
}

interface TarFile {
  name: string
  type: string
  mode: number
  uid: number
  content: Buffer
  linkname: string | null
}

async function untar(stream: AsyncIterable<Uint8Array>): Promise<TarFile[]> {
  const extract = tar.extract()
  const files: TarFile[] = []
  const reading = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = []
      for await (const chunk of entry) chunks.push(chunk as Buffer)
      const h = entry.header
      files.push({
        name: h.name,
        type: h.type ?? 'file',
        mode: h.mode ?? 0,
        uid: h.uid ?? -1,
        content: Buffer.concat(chunks),
        linkname: h.linkname ?? null,
      })
    }
  })()
  for await (const chunk of stream) extract.write(chunk)
  extract.end(null)
  await reading
  return files
}

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex')

describe('FsBuildContextSource.scan', () => {
  it('lists files, directories and symlinks in path order with modes and hashes', async () => {
    const dir = await scriptDir({
      'run.sh': {content: 'echo hi\n', mode: 0o755},
      'src/train.py': 'print(1)\n',
      'src/z.py': '',
    })
    await symlink('src/train.py', join(dir, 'latest'))
    const scanned = await scan(dir)
    expect(scanned.entries).toEqual([
      {path: 'latest', type: 'symlink', mode: 0o777, size: 0, sha256: sha('src/train.py'), linkTarget: 'src/train.py'},
      {path: 'run.sh', type: 'file', mode: 0o755, size: 8, sha256: sha('echo hi\n')},
      {path: 'src', type: 'directory', mode: expect.any(Number), size: 0, sha256: ''},
      {path: 'src/train.py', type: 'file', mode: 0o644, size: 9, sha256: sha('print(1)\n')},
      {path: 'src/z.py', type: 'file', mode: 0o644, size: 0, sha256: sha('')},
    ])
    expect(scanned.bytes).toBe(17)
    expect(scanned.unsupported).toEqual([])
  })

  it('honours .dockerignore, exceptions included', async () => {
    const dir = await scriptDir({
      '.dockerignore': '# build output\n*.log\n!keep.log\ndata\n!data/small.csv\n**/__pycache__\n',
      'a.log': 'x',
      'keep.log': 'x',
      'data/big.bin': 'x',
      'data/small.csv': 'x',
      'src/__pycache__/m.pyc': 'x',
      'src/m.py': 'x',
    })
    const paths = (await scan(dir)).entries.map((e) => e.path)
    // `data` itself is excluded, so only the re-included file is sent (the engine creates its folder).
    expect(paths).toEqual(['.dockerignore', 'data/small.csv', 'keep.log', 'src', 'src/m.py'])
  })

  it('does not look inside an ignored directory, but reports unsupported files elsewhere', async () => {
    const dir = await scriptDir({'.dockerignore': 'ignored\n', 'ignored/x': 'x', 'ok.txt': 'x'})
    execFileSync('mkfifo', [join(dir, 'ignored', 'pipe'), join(dir, 'pipe')])
    const scanned = await scan(dir)
    expect(scanned.entries.map((e) => e.path)).toEqual(['.dockerignore', 'ok.txt'])
    expect(scanned.unsupported).toEqual(['pipe'])
  })

  it('tells a missing directory from a file', async () => {
    const dir = await scriptDir({'file.txt': 'x'})
    const source = new FsBuildContextSource()
    expect(await source.scan(join(dir, 'nope'))).toEqual({missing: 'absent'})
    expect(await source.scan(join(dir, 'file.txt'))).toEqual({missing: 'not-a-directory'})
  })

  it('rejects a malformed .dockerignore with its line number', async () => {
    const dir = await scriptDir({'.dockerignore': 'ok\n[oops\n'})
    await expect(new FsBuildContextSource().scan(dir)).rejects.toThrow(UsageError)
    await expect(new FsBuildContextSource().scan(dir)).rejects.toThrow(/line 2/)
  })
})

describe('ScannedContext.pack', () => {
  it('streams the Dockerfile and exactly the scanned entries, owned by root', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 'z')
    const dir = await scriptDir({
      '.dockerignore': 'secret.txt\n',
      'secret.txt': 'no',
      'run.sh': {content: 'echo hi\n', mode: 0o755},
      'big.bin': big.toString(),
    })
    await symlink('run.sh', join(dir, 'link'))
    const scanned = await scan(dir)
    const files = await untar(scanned.pack({dockerfile: 'FROM x\n', filesDir: 'app'}))
    expect(files.map((f) => [f.name, f.type])).toEqual([
      ['Dockerfile', 'file'],
      ['app/', 'directory'],
      ['app/.dockerignore', 'file'],
      ['app/big.bin', 'file'],
      ['app/link', 'symlink'],
      ['app/run.sh', 'file'],
    ])
    const byName = new Map(files.map((f) => [f.name, f]))
    expect(byName.get('Dockerfile')!.content.toString()).toBe('FROM x\n')
    expect(sha(byName.get('app/big.bin')!.content)).toBe(sha(big))
    expect(byName.get('app/run.sh')!.mode).toBe(0o755)
    expect(byName.get('app/link')!.linkname).toBe('run.sh')
    expect(files.every((f) => f.uid === 0)).toBe(true)
  })

  it('sends the bytes it hashed even if a small file changes after scanning', async () => {
    const dir = await scriptDir({'small.txt': 'before'})
    const scanned = await scan(dir)
    await writeFile(join(dir, 'small.txt'), 'after!')
    const files = await untar(scanned.pack({dockerfile: 'FROM x\n', filesDir: 'app'}))
    expect(files.find((f) => f.name === 'app/small.txt')!.content.toString()).toBe('before')
  })

  it.each([
    ['a small file not kept in memory', 'small.txt', 'before', 'after!'],
    ['a small file that shrank', 'small.txt', 'before', 'af'],
    ['a streamed large file of the same size', 'large.bin', 'a'.repeat(2 << 20), 'b'.repeat(2 << 20)],
  ])('fails when %s changed after scanning', async (_name, path, before, after) => {
    const dir = await scriptDir({[path]: before})
    const scanned = await scan(dir, 0)
    await writeFile(join(dir, path), after)
    const error = await untar(scanned.pack({dockerfile: 'FROM x\n', filesDir: 'app'})).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('image')
    expect((error as XpkError).message).toContain(`${path} changed`)
  })
})

// Rule 5 of issue 7: a path that disappears while the directory is read is reported, never a crash.
describe('FsBuildContextSource when paths disappear', () => {
  const large = 'a'.repeat(2 << 20)

  it.each([
    ['a small file', {'train.py': '1', 'gone.txt': 'x'}, 'gone.txt', ['gone.txt']],
    ['a large (streamed) file', {'train.py': '1', 'gone.bin': large}, 'gone.bin', ['gone.bin']],
    ['a symlink', {'train.py': '1'}, 'link', ['link']],
    ['a directory of files', {'train.py': '1', 'sub/a.txt': 'a', 'sub/b.txt': 'b'}, 'sub', ['sub/a.txt', 'sub/b.txt']],
  ])('leaves out %s deleted between listing and hashing, and says so', async (_name, files, victim, vanished) => {
    const dir = await scriptDir(files)
    if (victim === 'link') await symlink('train.py', join(dir, 'link'))
    const scanned = await new FsBuildContextSource().scan(dir, {
      beforeHashing: () => rm(join(dir, victim), {recursive: true}),
    })
    if ('missing' in scanned) throw new Error(`unexpected: ${scanned.missing}`)
    expect(scanned.vanished).toEqual(vanished)
    expect(scanned.entries.map((e) => e.path)).not.toContain(vanished[0])
    expect(scanned.entries.map((e) => e.path)).toContain('train.py')
    // The context still packs: what vanished is simply not in it.
    const names = (await untar(scanned.pack({dockerfile: 'FROM x\n', filesDir: 'app'}))).map((f) => f.name)
    expect(names).toContain('app/train.py')
    for (const path of vanished) expect(names).not.toContain(`app/${path}`)
  })

  it('says the directory is absent once it is gone', async () => {
    const dir = await scriptDir({'train.py': '1'})
    await rm(dir, {recursive: true})
    expect(await new FsBuildContextSource().scan(dir)).toEqual({missing: 'absent'})
  })

  it.each([
    ['a small file not kept in memory', 'small.txt', 'before'],
    ['a large (streamed) file', 'large.bin', large],
  ])('fails clearly when %s is deleted after scanning', async (_name, path, content) => {
    const dir = await scriptDir({[path]: content})
    const scanned = await scan(dir, 0)
    await rm(join(dir, path))
    const error = await untar(scanned.pack({dockerfile: 'FROM x\n', filesDir: 'app'})).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('image')
    expect((error as XpkError).message).toBe(`${path} was deleted while the image was being built.`)
  })

  it('stops before reading any file when the listing is refused', async () => {
    const dir = await scriptDir({'train.py': '1'})
    let listed: string[] = []
    const refused = new Error('refused')
    const error = await new FsBuildContextSource()
      .scan(dir, {
        beforeHashing: (listing) => {
          listed = listing.entries.map((e) => `${e.path}:${e.type}:${e.size}`)
          throw refused
        },
      })
      .catch((e: unknown) => e)
    expect(error).toBe(refused)
    expect(listed).toEqual(['train.py:file:1'])
  })
})

describe.skipIf(!dockerAvailable)('FsBuildContextSource against the Docker CLI', () => {
  explainDockerSkip('FsBuildContextSource against the Docker CLI')

  it('sends the same files as `docker build` for a tricky .dockerignore', async () => {
    const dir = await scriptDir({
      '.dockerignore': [
        '**/*.md',
        '!docs/deep/*.md',
        'node_modules',
        '!node_modules/keep',
        'a/**/b',
        '.git',
        '*.log',
        '!keep.log',
        'temp?',
        '[a-c].txt',
        ' #not-a-comment',
        '# a comment',
        // Read by a regular expression but literal to Docker, which also matches case-sensitively.
        'a+b.txt',
        'c|d',
        'e{1}',
        'f^g',
        '*.PY',
        // A name the matcher library's cache would answer from Object.prototype.
        'constructor',
      ].join('\n'),
      'README.md': '',
      'docs/a.md': '',
      'docs/deep/b.md': '',
      'node_modules/keep/k.js': '',
      'node_modules/other/o.js': '',
      'a/x/b/c.txt': '',
      'a/y/d.txt': '',
      '.git/HEAD': '',
      'keep.log': '',
      'other.log': '',
      temp1: '',
      temp12: '',
      'b.txt': '',
      'd.txt': '',
      '#not-a-comment': '',
      'src/main.py': '',
      'a+b.txt': '',
      'aab.txt': '',
      'c|d': '',
      wd: '',
      'e{1}': '',
      e: '',
      'f^g': '',
      'top.py': '',
      constructor: '',
    })
    const base = await makeBaseImage()
    const image = `xpktest/ctx-${uniqueSuffix()}:1`
    const dockerfile = join(tempDir('xpk-df-'), 'Dockerfile')
    dirs.push(join(dockerfile, '..'))
    await writeFile(dockerfile, `FROM ${base}\nCOPY . /ctx/\n`)
    try {
      execFileSync('docker', ['build', '-q', '-f', dockerfile, '-t', image, dir], {stdio: 'pipe'})
      const listed = await runInImage(image, ['sh', '-c', 'cd /ctx && find . -type f | sort'])
      const dockerFiles = listed
        .split('\n')
        .filter(Boolean)
        .map((line) => line.replace(/^\.\//, ''))
        // The CLI adds the outside Dockerfile under a random name and keeps it out of COPY via .dockerignore.
        .filter((path) => !path.startsWith('.dockerfile.'))
        .sort()
      const ours = (await scan(dir)).entries.filter((e) => e.type === 'file').map((e) => e.path)
      expect(ours).toEqual(dockerFiles)
      expect(ours).toContain('node_modules/keep/k.js')
      expect(ours).not.toContain('node_modules/other/o.js')
      expect(ours).toEqual(expect.arrayContaining(['aab.txt', 'wd', 'e', 'top.py']))
      for (const path of ['a+b.txt', 'c|d', 'e{1}', 'f^g', 'constructor']) expect(ours).not.toContain(path)
    } finally {
      await removeImages([image, base])
    }
  })
})
