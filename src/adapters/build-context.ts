/**
 * The {@link BuildContextSource} port on the local file system: walks a script directory, applies its
 * `.dockerignore`, hashes every file, and later streams exactly those files as a tar (tar-stream, imported lazily),
 * checking each one against its hash on the way.
 */

import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {lstat, readdir, readFile, readlink, stat} from 'node:fs/promises'
import {join} from 'node:path'

import type {Pack} from 'tar-stream'

import {UsageError, XpkError} from '../core/errors.js'
import {compareContextPaths, type ContextEntry} from '../core/image/context-digest.js'
import {
  canSkipDirectory,
  isIgnored,
  NO_IGNORE_RULES,
  parseDockerignore,
  type IgnoreRules,
} from '../core/image/dockerignore.js'
import type {BuildContextSource, ScannedContext} from '../ports/images.js'

/** Options for {@link FsBuildContextSource}. */
export interface FsBuildContextOptions {
  /** How many files to hash at once. @default 16 */
  readonly concurrency?: number
}

// Files up to this size are read whole; bigger ones are streamed so memory stays flat.
const BUFFERED_FILE_BYTES = 1 << 20
// The tar's own entries (the Dockerfile and the files folder) get a fixed time so they never vary between runs.
const FIXED_MTIME = new Date('2000-01-01T00:00:00Z')

interface ScannedFile extends ContextEntry {
  readonly mtime: Date
}

/** A path found by the walk, before hashing; `size` is what lstat said. */
type Found = Omit<ScannedFile, 'sha256'>

/** Reads script directories from the local disk. */
export class FsBuildContextSource implements BuildContextSource {
  private readonly concurrency: number

  constructor(options: FsBuildContextOptions = {}) {
    this.concurrency = options.concurrency ?? 16
  }

  async scan(dir: string): Promise<ScannedContext | {readonly missing: 'absent' | 'not-a-directory'}> {
    try {
      if (!(await stat(dir)).isDirectory()) return {missing: 'not-a-directory'}
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {missing: 'absent'}
      throw unreadable(dir, error)
    }
    const rules = await readIgnoreRules(dir)
    const found: Found[] = []
    const unsupported: string[] = []
    await walk(dir, '', rules, found, unsupported)

    const entries: ScannedFile[] = new Array(found.length)
    let next = 0
    const worker = async () => {
      while (next < found.length) {
        const index = next++
        entries[index] = await hashEntry(dir, found[index]!)
      }
    }
    await Promise.all(Array.from({length: Math.min(this.concurrency, found.length)}, worker))
    entries.sort((a, b) => compareContextPaths(a.path, b.path))
    const bytes = entries.reduce((sum, e) => sum + e.size, 0)
    return {
      entries: entries.map(({mtime: _mtime, ...entry}) => entry),
      bytes,
      unsupported,
      pack: (options) => packContext(dir, entries, options),
    }
  }
}

async function readIgnoreRules(dir: string): Promise<IgnoreRules> {
  const path = join(dir, '.dockerignore')
  try {
    return parseDockerignore(await readFile(path, 'utf8'), path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return NO_IGNORE_RULES
    if (error instanceof XpkError) throw error
    throw unreadable(path, error)
  }
}

async function walk(
  root: string,
  rel: string,
  rules: IgnoreRules,
  found: Found[],
  unsupported: string[],
): Promise<void> {
  let names: string[]
  try {
    names = await readdir(join(root, rel))
  } catch (error) {
    throw unreadable(join(root, rel), error)
  }
  names.sort(compareContextPaths)
  for (const name of names) {
    const path = rel === '' ? name : `${rel}/${name}`
    let info
    try {
      info = await lstat(join(root, path))
    } catch (error) {
      throw unreadable(join(root, path), error)
    }
    const mode = info.mode & 0o7777
    if (info.isDirectory()) {
      if (canSkipDirectory(path, rules)) continue
      // An ignored directory is entered only for an exception below it, and is not sent itself (as Docker does).
      if (!isIgnored(path, rules)) found.push({path, type: 'directory', mode, size: 0, mtime: info.mtime})
      await walk(root, path, rules, found, unsupported)
      continue
    }
    if (isIgnored(path, rules)) continue
    if (info.isFile()) found.push({path, type: 'file', mode, size: info.size, mtime: info.mtime})
    else if (info.isSymbolicLink()) found.push({path, type: 'symlink', mode, size: 0, mtime: info.mtime})
    else unsupported.push(path)
  }
}

async function hashEntry(root: string, entry: Found): Promise<ScannedFile> {
  const full = join(root, entry.path)
  try {
    if (entry.type === 'directory') return {...entry, size: 0, sha256: ''}
    if (entry.type === 'symlink') {
      const linkTarget = await readlink(full)
      return {...entry, size: 0, sha256: sha256(Buffer.from(linkTarget)), linkTarget}
    }
    if (entry.size <= BUFFERED_FILE_BYTES) {
      const content = await readFile(full)
      return {...entry, size: content.length, sha256: sha256(content)}
    }
    const hash = createHash('sha256')
    let size = 0
    for await (const chunk of createReadStream(full, {highWaterMark: BUFFERED_FILE_BYTES})) {
      hash.update(chunk as Buffer)
      size += (chunk as Buffer).length
    }
    return {...entry, size, sha256: hash.digest('hex')}
  } catch (error) {
    throw unreadable(full, error)
  }
}

async function* packContext(
  root: string,
  entries: readonly ScannedFile[],
  options: {readonly dockerfile: string; readonly filesDir: string},
): AsyncIterable<Uint8Array> {
  const tar = await import('tar-stream')
  const pack = tar.pack()
  const filling = fill(pack, root, entries, options).catch((error: unknown) => {
    pack.destroy(error as Error)
  })
  try {
    for await (const chunk of pack) yield chunk as Uint8Array
  } finally {
    // Stops the producer if the consumer gave up early.
    if (!pack.destroyed) pack.destroy()
    await filling
  }
}

async function fill(
  pack: Pack,
  root: string,
  entries: readonly ScannedFile[],
  options: {readonly dockerfile: string; readonly filesDir: string},
): Promise<void> {
  const owner = {uid: 0, gid: 0, uname: 'root', gname: 'root'}
  await addEntry(pack, {name: 'Dockerfile', mode: 0o644, mtime: FIXED_MTIME, ...owner}, Buffer.from(options.dockerfile))
  await addEntry(pack, {name: `${options.filesDir}/`, type: 'directory', mode: 0o755, mtime: FIXED_MTIME, ...owner})
  for (const e of entries) {
    const name = `${options.filesDir}/${e.path}`
    const header = {mode: e.mode, mtime: e.mtime, ...owner}
    if (e.type === 'directory') await addEntry(pack, {...header, name: `${name}/`, type: 'directory'})
    else if (e.type === 'symlink') await addEntry(pack, {...header, name, type: 'symlink', linkname: e.linkTarget})
    else await addFile(pack, join(root, e.path), e, {...header, name, type: 'file', size: e.size})
  }
  pack.finalize()
}

async function addFile(pack: Pack, full: string, entry: ScannedFile, header: Parameters<Pack['entry']>[0]) {
  if (entry.size <= BUFFERED_FILE_BYTES) {
    const content = await readFile(full)
    if (sha256(content) !== entry.sha256) throw changed(entry.path)
    await addEntry(pack, header, content)
    return
  }
  let settle!: (error?: Error | null) => void
  const done = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())))
  // The entry fails too when the pack is destroyed after an error thrown here; that error is the one reported.
  done.catch(() => undefined)
  const sink = pack.entry(header, (error) => settle(error))
  // Destroying the pack destroys this entry with the same error; the pack reports it, so the entry need not.
  sink.on('error', () => undefined)
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of createReadStream(full, {highWaterMark: BUFFERED_FILE_BYTES})) {
    const bytes = chunk as Buffer
    size += bytes.length
    if (size > entry.size) throw changed(entry.path)
    hash.update(bytes)
    if (!sink.write(bytes)) await new Promise<void>((resolve) => sink.once('drain', () => resolve()))
  }
  // Checked before the entry is closed, so a changed file never completes in the tar.
  if (size !== entry.size || hash.digest('hex') !== entry.sha256) throw changed(entry.path)
  sink.end(null)
  await done
}

function addEntry(pack: Pack, header: Parameters<Pack['entry']>[0], content?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const callback = (error?: Error | null) => (error ? reject(error) : resolve())
    if (content === undefined) pack.entry(header, callback)
    else pack.entry(header, content, callback)
  })
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex')
}

function changed(path: string): XpkError {
  return new XpkError('image', `${path} changed while the image was being built.`, {
    hints: ['Wait until nothing writes to the script directory, then run the command again.'],
  })
}

function unreadable(path: string, error: unknown): UsageError {
  return new UsageError(`Cannot read ${path}: ${(error as Error).message}`, {
    flag: '--script-dir',
    hints: ['Check the permissions of the script directory, or list unreadable paths in its .dockerignore.'],
    cause: error,
  })
}
