/**
 * A script directory on the local disk, read the one way image builds (build-context.ts) and `vm run` bundles
 * (ssh-bundle.ts) both read it: one ignore reader, one walk and one tar packer (tar-stream, imported lazily), so the
 * two send the same files with the same headers. Which ignore files each reads is the README's one rule (Script
 * directories): `.dockerignore` for images; `.dockerignore`, then `.xpkignore`, for `vm run`.
 */

import {createHash} from 'node:crypto'
import {createReadStream, lstatSync, readdirSync, readFileSync, readlinkSync, statSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'

import type {Pack} from 'tar-stream'

import {UsageError} from '../core/errors.js'
import {compareContextPaths} from '../core/image/context-digest.js'
import {canSkipDirectory, isIgnored, parseIgnoreFiles, type IgnoreRules} from '../core/image/dockerignore.js'
import type {FileStamp} from './digest-cache.js'

/** The ignore files of an image build's context. */
export const IMAGE_IGNORE_FILES: readonly string[] = ['.dockerignore']
/** The ignore files of a `vm run` bundle: `.xpkignore`'s lines read as if they followed `.dockerignore`'s. */
export const BUNDLE_IGNORE_FILES: readonly string[] = ['.dockerignore', '.xpkignore']

/** Files up to this size are read whole; bigger ones are streamed, so memory stays flat. */
export const SMALL_FILE_BYTES = 1 << 20

/** One path the walk found (after the ignore files), as lstat described it. */
export interface WalkedEntry {
  /** Relative to the directory, `/`-separated. */
  readonly path: string
  readonly type: 'file' | 'directory' | 'symlink'
  /** Permission bits, without the file-type bits. */
  readonly mode: number
  /** Content bytes; 0 for directories and symlinks. */
  readonly size: number
  readonly mtimeMs: number
  /** What the digest cache compares (nanosecond times, exact inode). */
  readonly stamp: FileStamp
}

/** What a walk found. */
export interface Walked {
  /** Sorted by path (every directory before what is in it). */
  readonly entries: readonly WalkedEntry[]
  /** Paths left out because they are neither files, directories nor symlinks (sockets, devices), sorted. */
  readonly unsupported: readonly string[]
  /** Paths left out because they disappeared while the directory was read, sorted. */
  readonly vanished: readonly string[]
}

/**
 * Lists `dir` after the ignore files `ignoreFiles` (names in it, read in that order): an ignored directory is not
 * entered unless an exception names a path below it, and is not listed itself (as Docker does).
 *
 * Synchronous file system calls on purpose: for thousands of small files they are several times faster than the
 * thread-pool round trips of fs/promises, and the command has nothing else to do meanwhile.
 * @throws UsageError for an unreadable path or ignore file, or a malformed ignore pattern (with its file and line).
 */
export function walkScriptDir(
  dir: string,
  ignoreFiles: readonly string[],
): Walked | {readonly missing: 'absent' | 'not-a-directory'} {
  try {
    if (!statSync(dir).isDirectory()) return {missing: 'not-a-directory'}
  } catch (error) {
    if (gone(error)) return {missing: 'absent'}
    throw unreadable(dir, error)
  }
  const rules = readIgnoreRules(dir, ignoreFiles)
  const into: Found = {entries: [], unsupported: [], vanished: []}
  if (!walk(withSlash(dir), '', rules, into)) return {missing: 'absent'}
  into.entries.sort((a, b) => compareContextPaths(a.path, b.path))
  into.unsupported.sort(compareContextPaths)
  into.vanished.sort(compareContextPaths)
  return into
}

/** The rules of the ignore files among `names` that exist in `dir`, read in that order. */
export function readIgnoreRules(dir: string, names: readonly string[]): IgnoreRules {
  const files = []
  for (const name of names) {
    const source = join(dir, name)
    try {
      files.push({text: readFileSync(source, 'utf8'), source})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadable(source, error)
    }
  }
  return parseIgnoreFiles(files)
}

/** `dir` ending in one `/`, so paths under it are made by concatenation, cheaper than path.join (README, Speed). */
function withSlash(dir: string): string {
  return dir.endsWith('/') ? dir : `${dir}/`
}

interface Found {
  readonly entries: WalkedEntry[]
  readonly unsupported: string[]
  readonly vanished: string[]
}

/** Lists `rel` under `root` (which ends in `/`); false when the directory itself disappeared before it was read. */
function walk(root: string, rel: string, rules: IgnoreRules, into: Found): boolean {
  // Without patterns nothing is matched (the matcher would still split every path into its parents).
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
      // An ignored directory is entered only for an exception below it, and is not sent itself.
      if (!filtering || !isIgnored(path, rules))
        into.entries.push({path, type: 'directory', mode, size: 0, mtimeMs, stamp})
      continue
    }
    if (filtering && isIgnored(path, rules)) continue
    if (info.isFile()) into.entries.push({path, type: 'file', mode, size: Number(info.size), mtimeMs, stamp})
    else if (info.isSymbolicLink()) into.entries.push({path, type: 'symlink', mode, size: 0, mtimeMs, stamp})
    else into.unsupported.push(path)
  }
  return true
}

/** One entry to pack: as walked, with what the scan already knows of it. */
export interface PackEntry {
  readonly path: string
  readonly type: 'file' | 'directory' | 'symlink'
  readonly mode: number
  readonly size: number
  /** For the tar header; now when unknown. */
  readonly mtimeMs?: number
  /** The file's content as hashed: the packed bytes must have it (else the pack fails). Unchecked when unset. */
  readonly sha256?: string
  /** The bytes that were hashed, when kept: sent as they are. */
  readonly content?: Buffer
  /** Where a symlink points; read at packing when unset. */
  readonly linkTarget?: string
}

/** Options of {@link packScriptDirTar}. */
export interface PackOptions {
  /** Put before every entry's path (`app/`), or ''. */
  readonly prefix: string
  /** Entries of the tar's own, before the directory's (the Dockerfile), with their content. */
  readonly leading?: readonly {readonly name: string; readonly type: 'file' | 'directory'; readonly content?: Buffer}[]
  /** The error for a file that changed (or was deleted: `how`) between the listing and packing. */
  readonly changed: (path: string, how: string) => Error
  /** The stream's buffer. @default tar-stream's */
  readonly highWaterMark?: number
}

// The tar's own entries get a fixed time so they never vary between runs.
const FIXED_MTIME = new Date('2000-01-01T00:00:00Z')
// Every entry is root's, whoever packed it: the same tar (and image layer) from every machine.
const OWNER = {uid: 0, gid: 0, uname: 'root', gname: 'root'}

type Header = Parameters<Pack['entry']>[0]

/** A regular file of the listing as it is packed: where it is read from, what the listing saw, its tar header. */
interface FileToPack {
  readonly full: string
  readonly entry: PackEntry
  readonly header: Header
}

/**
 * The entries under `root` as an uncompressed tar stream, each with its mode and modification time, owned by root.
 * A file whose hash is known is checked against it on the way (the stream fails with `options.changed` before that
 * entry completes); a file with its content kept is sent from memory.
 */
export async function* packScriptDirTar(
  root: string,
  entries: readonly PackEntry[],
  options: PackOptions,
): AsyncIterable<Uint8Array> {
  const tar = await import('tar-stream')
  const pack = tar.pack(options.highWaterMark === undefined ? {} : {highWaterMark: options.highWaterMark})
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

async function fill(pack: Pack, root: string, entries: readonly PackEntry[], options: PackOptions): Promise<void> {
  for (const own of options.leading ?? []) {
    const header: Header = {name: own.name, type: own.type, mode: own.type === 'directory' ? 0o755 : 0o644}
    await addEntry(pack, {...header, mtime: FIXED_MTIME, ...OWNER}, own.content)
  }
  const now = new Date()
  for (const e of entries) {
    const name = `${options.prefix}${e.path}`
    const header: Header = {name, mode: e.mode, mtime: e.mtimeMs === undefined ? now : new Date(e.mtimeMs), ...OWNER}
    const full = join(root, e.path)
    if (e.type === 'directory') {
      await addEntry(pack, {...header, name: `${name}/`, type: 'directory'})
    } else if (e.type === 'symlink') {
      const linkname = e.linkTarget ?? readlinkSync(full)
      await addEntry(pack, {...header, type: 'symlink', linkname})
    } else if (e.content) {
      await addEntry(pack, {...header, type: 'file'}, e.content)
    } else if (e.size <= SMALL_FILE_BYTES) {
      await addReadFile(pack, {full, entry: e, header: {...header, type: 'file'}}, options)
    } else {
      await addStreamedFile(pack, {full, entry: e, header: {...header, type: 'file', size: e.size}}, options)
    }
  }
  pack.finalize()
}

async function addReadFile(pack: Pack, {full, entry, header}: FileToPack, options: PackOptions): Promise<void> {
  const content = await readFile(full).catch((error: unknown) => {
    throw gone(error) ? options.changed(entry.path, 'was deleted') : error
  })
  if (entry.sha256 !== undefined && (content.length !== entry.size || sha256(content) !== entry.sha256)) {
    throw options.changed(entry.path, 'changed')
  }
  await addEntry(pack, header, content)
}

/** A large file, streamed: its size is in the header, so it must not change (nor its hash, when known). */
async function addStreamedFile(pack: Pack, {full, entry, header}: FileToPack, options: PackOptions): Promise<void> {
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
  if (opened !== null) throw gone(opened) ? options.changed(entry.path, 'was deleted') : opened
  for await (const chunk of stream) {
    const bytes = chunk as Buffer
    size += bytes.length
    if (size > entry.size) throw options.changed(entry.path, 'changed')
    hash.update(bytes)
    if (!sink.write(bytes)) await new Promise<void>((resolve) => sink.once('drain', () => resolve()))
  }
  // Checked before the entry is closed, so a changed file never completes in the tar.
  if (size !== entry.size || (entry.sha256 !== undefined && hash.digest('hex') !== entry.sha256)) {
    throw options.changed(entry.path, 'changed')
  }
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

/** SHA-256 of bytes, in hex, with Node's own implementation (README, Speed). */
export function sha256(content: Uint8Array): string {
  return createHash('sha256').update(content).digest('hex')
}

/** Whether an error says the path (or a directory on the way to it) no longer exists. */
export function gone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** A path of the script directory that cannot be read: a usage error naming it. */
export function unreadable(path: string, error: unknown): UsageError {
  return new UsageError(`Cannot read ${path}: ${(error as Error).message}`, {
    flag: '--script-dir',
    hints: ['Check the permissions of the script directory, or list unreadable paths in its .dockerignore.'],
    cause: error,
  })
}
