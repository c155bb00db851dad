/**
 * SHA-256 digests of a script directory's files remembered between runs, keyed by what lstat says of each file,
 * the way git's index spares `git status` from reading unchanged files: a file whose size, modification and change
 * times (nanoseconds), inode and device are all as recorded is taken to have the recorded digest, so an unchanged
 * re-run reads only metadata.
 *
 * One JSON file per directory (by its real path) under the user's cache directory, replaced atomically (written
 * beside it, then renamed), private to the user. Best effort: a missing, unreadable or corrupt file is an empty
 * cache, and one that cannot be written is no cache.
 *
 * Racy files (git's "racy git" problem): a file changed twice within one tick of the file system's clock keeps
 * the same times, so a digest recorded in the same second as the file's last change may be of the first content.
 * Such a record is not trusted: a file whose modification time is not before the whole second in which the cache
 * file was written is hashed again, and recorded again, so the next run can trust it.
 */

import {createHash} from 'node:crypto'
import {closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

/** What lstat says of a file, as far as the cache compares it (bigint stat: nanosecond times). */
export interface FileStamp {
  readonly size: bigint
  readonly mtimeNs: bigint
  readonly ctimeNs: bigint
  readonly ino: bigint
  readonly dev: bigint
}

// Bump when the file's meaning changes; a file in another format is ignored (and replaced).
const FORMAT = 'xpk-digests-v1'
const NS_PER_SECOND = 1_000_000_000n
const SHA256_HEX = /^[0-9a-f]{64}$/

/** `size mtimeNs ctimeNs ino dev` (decimal) and the hex SHA-256 of the content. */
type StampedDigest = [stamp: string, sha256: string]

interface CacheFile {
  readonly format: typeof FORMAT
  readonly dir: string
  readonly files: {readonly [path: string]: StampedDigest}
}

/** The digests of one directory's files, as recorded by an earlier run. */
export class DigestCache {
  private readonly seen = new Map<string, StampedDigest>()
  private changed = false

  private readonly file: string
  private readonly dir: string
  private readonly recorded: {readonly [path: string]: unknown}
  private readonly trustedBeforeNs: bigint
  private readonly recordedCount: number

  /**
   * @param file where the cache lives
   * @param dir the directory's real path, recorded in the file so a file for another directory is never used
   * @param recorded the records read from the file
   * @param trustedBeforeNs modification times from this one on are racy (the second the file was written)
   */
  private constructor(
    file: string,
    dir: string,
    recorded: {readonly [path: string]: unknown},
    trustedBeforeNs: bigint,
  ) {
    // Plain fields rather than parameter properties, so Node can run this file with type stripping (benchmarks).
    this.file = file
    this.dir = dir
    this.recorded = recorded
    this.trustedBeforeNs = trustedBeforeNs
    this.recordedCount = Object.keys(recorded).length
  }

  /**
   * The cache of `dir` (its real path) in `cacheDir`. Reads the file once, synchronously: the scan that uses it
   * is synchronous too, and the file is one read.
   */
  static open(cacheDir: string, dir: string): DigestCache {
    const file = join(cacheDir, `${createHash('sha256').update(dir).digest('hex').slice(0, 32)}.json`)
    let fd: number | undefined
    try {
      fd = openSync(file, 'r')
      const writtenNs = fstatSync(fd, {bigint: true}).mtimeNs
      const parsed = JSON.parse(readFileSync(fd, 'utf8')) as unknown
      const records = validRecords(parsed, dir)
      // Times from the start of the second of the write on are racy.
      if (records) return new DigestCache(file, dir, records, (writtenNs / NS_PER_SECOND) * NS_PER_SECOND)
    } catch {
      // Missing, unreadable or not JSON: start empty.
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
    return new DigestCache(file, dir, {}, 0n)
  }

  /** The recorded digest of `path` (relative to the directory) if its stamp is unchanged and not racy. */
  lookup(path: string, stamp: FileStamp): string | undefined {
    if (!Object.hasOwn(this.recorded, path) || stamp.mtimeNs >= this.trustedBeforeNs) return undefined
    // Checked here rather than on load (10,000 records): a record that is not xpk's is a miss.
    const record = this.recorded[path]
    if (!Array.isArray(record) || record.length !== 2 || record[0] !== stampKey(stamp)) return undefined
    if (typeof record[1] !== 'string' || !SHA256_HEX.test(record[1])) return undefined
    this.seen.set(path, record as StampedDigest)
    return record[1]
  }

  /** Records the digest of `path` as just computed from a file with this stamp. */
  record(path: string, stamp: FileStamp, sha256: string): void {
    this.seen.set(path, [stampKey(stamp), sha256])
    this.changed = true
  }

  /**
   * Writes the records of this run (files no longer listed are dropped) when anything differs from the file read:
   * an unchanged re-run writes nothing. Never throws.
   */
  save(): void {
    if (!this.changed && this.seen.size === this.recordedCount) return
    const content: CacheFile = {format: FORMAT, dir: this.dir, files: Object.fromEntries(this.seen)}
    const temp = `${this.file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
    try {
      mkdirSync(dirname(this.file), {recursive: true, mode: 0o700})
      writeFileSync(temp, JSON.stringify(content), {mode: 0o600})
      renameSync(temp, this.file)
    } catch {
      // No cache next time: the files are hashed again, as without one.
      try {
        unlinkSync(temp)
      } catch {
        // Never written.
      }
    }
  }
}

/** The records of a parsed cache file for `dir`, or undefined when it is not one. */
function validRecords(parsed: unknown, dir: string): {readonly [path: string]: unknown} | undefined {
  if (typeof parsed !== 'object' || parsed === null) return undefined
  const file = parsed as Partial<CacheFile>
  if (file.format !== FORMAT || file.dir !== dir || typeof file.files !== 'object' || file.files === null) {
    return undefined
  }
  // Each record is checked when it is looked up: a record that is not a [stamp, digest] pair is only a miss.
  return file.files
}

/** One string for the comparison: one allocation per file instead of five conversions. */
function stampKey(stamp: FileStamp): string {
  return `${stamp.size} ${stamp.mtimeNs} ${stamp.ctimeNs} ${stamp.ino} ${stamp.dev}`
}
