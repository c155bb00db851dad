/**
 * The {@link BuildContextSource} port on the local file system: walks a script directory, applies its
 * `.dockerignore`, hashes every file, and later streams exactly those files as a tar (tar-stream, imported lazily).
 * Small files are kept in memory from the scan, so the bytes sent are the bytes hashed; other files are read again
 * and checked against their hash on the way.
 */

import {createHash} from 'node:crypto'
import {createReadStream, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
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
import type {BuildContextSource, ScannedContext, ScanOptions} from '../ports/images.js'
import {DigestCache, type FileStamp} from './digest-cache.js'

/** Options for {@link FsBuildContextSource}. */
export interface FsBuildContextOptions {
  /** How many bytes of small files to keep in memory between scan and pack. @default 64 MiB */
  readonly keepInMemoryBytes?: number
  /**
   * Where file digests are remembered between runs (see digest-cache.ts), so that unchanged files are not read
   * again. No cache when unset.
   */
  readonly digestCacheDir?: string
}

// Files up to this size are read whole; bigger ones are streamed so memory stays flat.
const SMALL_FILE_BYTES = 1 << 20
// The tar's own entries (the Dockerfile and the files folder) get a fixed time so they never vary between runs.
const FIXED_MTIME = new Date('2000-01-01T00:00:00Z')
// A larger buffer than the stream default lets small entries complete without waiting for the socket each time.
const PACK_BUFFER_BYTES = 1 << 20

interface ScannedFile extends ContextEntry {
  /** Modification time in milliseconds, for the tar header (a Date per file only when packing). */
  readonly mtimeMs: number
  /** The bytes that were hashed, when kept. */
  readonly content?: Buffer
}

/** A path found by the walk, before hashing; `size` and `stamp` are what lstat said. */
type Found = Omit<ScannedFile, 'sha256' | 'content'> & {readonly stamp: FileStamp}

type Header = Parameters<Pack['entry']>[0]

/** Reads script directories from the local disk. */
export class FsBuildContextSource implements BuildContextSource {
  private readonly keepInMemoryBytes: number
  private readonly digestCacheDir: string | undefined

  constructor(options: FsBuildContextOptions = {}) {
    this.keepInMemoryBytes = options.keepInMemoryBytes ?? 64 << 20
    this.digestCacheDir = options.digestCacheDir
  }

  // Synchronous file system calls on purpose: for hundreds of small files they are several times faster than the
  // thread-pool round trips of fs/promises, and the command has nothing else to do meanwhile.
  async scan(
    dir: string,
    options: ScanOptions = {},
  ): Promise<ScannedContext | {readonly missing: 'absent' | 'not-a-directory'}> {
    try {
      if (!statSync(dir).isDirectory()) return {missing: 'not-a-directory'}
    } catch (error) {
      if (gone(error)) return {missing: 'absent'}
      throw unreadable(dir, error)
    }
    const rules = readIgnoreRules(dir)
    const found: Found[] = []
    const unsupported: string[] = []
    const vanished: string[] = []
    if (!walk(withSlash(dir), '', rules, {found, unsupported, vanished})) return {missing: 'absent'}
    found.sort((a, b) => compareContextPaths(a.path, b.path))
    unsupported.sort(compareContextPaths)
    await options.beforeHashing?.({entries: found})

    let budget = this.keepInMemoryBytes
    const hasher = new Hasher()
    const cache =
      this.digestCacheDir === undefined ? undefined : DigestCache.open(this.digestCacheDir, realpathSync(dir))
    const entries: ScannedFile[] = []
    const root = withSlash(dir)
    for (const {stamp, ...entry} of found) {
      const full = root + entry.path
      try {
        const cached = entry.type === 'file' ? cache?.lookup(entry.path, stamp) : undefined
        if (cached !== undefined) {
          // Unchanged since an earlier run hashed it: not read now; packing reads it and checks it against this.
          entries.push({...entry, sha256: cached})
        } else if (entry.type === 'directory') {
          entries.push({...entry, size: 0, sha256: ''})
        } else if (entry.type === 'symlink') {
          const linkTarget = readlinkSync(full)
          entries.push({...entry, size: 0, sha256: await hasher.hex(Buffer.from(linkTarget)), linkTarget})
        } else if (entry.size <= SMALL_FILE_BYTES) {
          const content = readFileSync(full)
          const keep = content.length <= budget
          if (keep) budget -= content.length
          const sha256 = await hasher.hex(content)
          // Recorded only when what was read is what lstat described; a file growing meanwhile is hashed next time.
          if (content.length === entry.size) cache?.record(entry.path, stamp, sha256)
          entries.push({...entry, size: content.length, sha256, ...(keep ? {content} : {})})
        } else {
          const hashed = await hashStream(full)
          if (hashed.size === entry.size) cache?.record(entry.path, stamp, hashed.sha256)
          entries.push({...entry, ...hashed})
        }
      } catch (error) {
        // Deleted between the listing and now (a build writing into the directory, an editor's swap file).
        if (gone(error)) {
          vanished.push(entry.path)
          continue
        }
        throw unreadable(full, error)
      }
    }
    vanished.sort(compareContextPaths)
    cache?.save()
    return {
      entries: entries.map(({mtimeMs: _mtimeMs, content: _content, ...entry}) => entry),
      bytes: entries.reduce((sum, e) => sum + e.size, 0),
      unsupported,
      vanished,
      pack: (options) => packContext(dir, entries, options),
    }
  }
}

function readIgnoreRules(dir: string): IgnoreRules {
  const path = join(dir, '.dockerignore')
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return NO_IGNORE_RULES
    throw unreadable(path, error)
  }
  return parseDockerignore(text, path)
}

interface WalkResults {
  readonly found: Found[]
  readonly unsupported: string[]
  readonly vanished: string[]
}

/** `dir` ending in one `/`, so paths under it are made by concatenation (10,000 path.join calls cost ~10 ms). */
function withSlash(dir: string): string {
  return dir.endsWith('/') ? dir : `${dir}/`
}

/**
 * Lists `rel` under `root` (which ends in `/`) into `into`; false when the directory itself disappeared before it
 * could be read.
 */
function walk(root: string, rel: string, rules: IgnoreRules, into: WalkResults): boolean {
  // Without a .dockerignore nothing is matched (the matcher would still split every path into its parents).
  const filtering = rules.patterns.length > 0
  let names: string[]
  try {
    names = readdirSync(root + rel)
  } catch (error) {
    if (gone(error)) return false
    throw unreadable(root + rel, error)
  }
  for (const name of names) {
    const path = rel === '' ? name : `${rel}/${name}`
    let info
    try {
      // bigint: nanosecond times and exact inode numbers for the digest cache.
      info = lstatSync(root + path, {bigint: true})
    } catch (error) {
      if (gone(error)) {
        into.vanished.push(path)
        continue
      }
      throw unreadable(root + path, error)
    }
    const mode = Number(info.mode & 0o7777n)
    const mtimeMs = Number(info.mtimeMs)
    const stamp: FileStamp = {
      size: info.size,
      mtimeNs: info.mtimeNs,
      ctimeNs: info.ctimeNs,
      ino: info.ino,
      dev: info.dev,
    }
    if (info.isDirectory()) {
      if (filtering && canSkipDirectory(path, rules)) continue
      if (!walk(root, path, rules, into)) {
        into.vanished.push(path)
        continue
      }
      // An ignored directory is entered only for an exception below it, and is not sent itself (as Docker does).
      if (!filtering || !isIgnored(path, rules))
        into.found.push({path, type: 'directory', mode, size: 0, mtimeMs, stamp})
      continue
    }
    if (filtering && isIgnored(path, rules)) continue
    if (info.isFile()) into.found.push({path, type: 'file', mode, size: Number(info.size), mtimeMs, stamp})
    else if (info.isSymbolicLink()) into.found.push({path, type: 'symlink', mode, size: 0, mtimeMs, stamp})
    else into.unsupported.push(path)
  }
  return true
}

/** Whether an error says the path (or a directory on the way to it) no longer exists. */
function gone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** SHA-256 of file contents, with Node's own implementation (loading it costs 1-3 ms, measured on Node 24). */
class Hasher {
  async hex(content: Uint8Array): Promise<string> {
    return createHash('sha256').update(content).digest('hex')
  }
}

async function hashStream(full: string): Promise<{size: number; sha256: string}> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of createReadStream(full, {highWaterMark: SMALL_FILE_BYTES})) {
    hash.update(chunk as Buffer)
    size += (chunk as Buffer).length
  }
  return {size, sha256: hash.digest('hex')}
}

async function* packContext(
  root: string,
  entries: readonly ScannedFile[],
  options: {readonly dockerfile: string; readonly filesDir: string},
): AsyncIterable<Uint8Array> {
  const tar = await import('tar-stream')
  const pack = tar.pack({highWaterMark: PACK_BUFFER_BYTES})
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
    const header: Header = {name, mode: e.mode, mtime: new Date(e.mtimeMs), ...owner}
    const full = join(root, e.path)
    if (e.type === 'directory') await addEntry(pack, {...header, name: `${name}/`, type: 'directory'})
    else if (e.type === 'symlink') await addEntry(pack, {...header, type: 'symlink', linkname: e.linkTarget})
    else if (e.content) await addEntry(pack, {...header, type: 'file'}, e.content)
    else if (e.size <= SMALL_FILE_BYTES) await addReadFile(pack, full, e, {...header, type: 'file'})
    else await addStreamedFile(pack, full, e, {...header, type: 'file', size: e.size})
  }
  pack.finalize()
}

async function addReadFile(pack: Pack, full: string, entry: ScannedFile, header: Header): Promise<void> {
  const content = await readFile(full).catch((error: unknown) => {
    throw gone(error) ? changed(entry.path, 'was deleted') : error
  })
  if (content.length !== entry.size || (await new Hasher().hex(content)) !== entry.sha256) throw changed(entry.path)
  await addEntry(pack, header, content)
}

async function addStreamedFile(pack: Pack, full: string, entry: ScannedFile, header: Header): Promise<void> {
  let settle!: (error?: Error | null) => void
  const done = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())))
  // The entry fails too when the pack is destroyed after an error thrown here; that error is the one reported.
  done.catch(() => undefined)
  const sink = pack.entry(header, (error) => settle(error))
  // Destroying the pack destroys this entry with the same error; the pack reports it, so the entry need not.
  sink.on('error', () => undefined)
  const hash = createHash('sha256')
  let size = 0
  const stream = createReadStream(full, {highWaterMark: SMALL_FILE_BYTES})
  const opened = await new Promise<unknown>((resolve) => {
    stream.once('open', () => resolve(null))
    stream.once('error', resolve)
  })
  if (opened !== null) throw gone(opened) ? changed(entry.path, 'was deleted') : opened
  for await (const chunk of stream) {
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

function addEntry(pack: Pack, header: Header, content?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const callback = (error?: Error | null) => (error ? reject(error) : resolve())
    if (content === undefined) pack.entry(header, callback)
    else pack.entry(header, content, callback)
  })
}

function changed(path: string, how = 'changed'): XpkError {
  return new XpkError('image', `${path} ${how} while the image was being built.`, {
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
