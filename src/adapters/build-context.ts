/**
 * The {@link BuildContextSource} port on the local file system: walks a script directory after its `.dockerignore`
 * (script-dir-files.ts, the walk `vm run` bundles use too), hashes every file, and later streams exactly those files
 * as a tar through the same packer. Small files are kept in memory from the scan, so the bytes sent are the bytes
 * hashed; other files are read again and checked against their hash on the way.
 */

import {createHash} from 'node:crypto'
import {createReadStream, readFileSync, readlinkSync, realpathSync} from 'node:fs'

import {XpkError} from '../core/errors.js'
import {compareContextPaths, type ContextEntry} from '../core/image/context-digest.js'
import type {BuildContextSource, ScannedContext, ScanOptions} from '../ports/images.js'
import {DigestCache} from './digest-cache.js'
import {
  gone,
  IMAGE_IGNORE_FILES,
  packScriptDirTar,
  sha256,
  SMALL_FILE_BYTES,
  unreadable,
  walkScriptDir,
  type PackEntry,
} from './script-dir-files.js'

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

// A larger buffer than the stream default lets small entries complete without waiting for the socket each time.
const PACK_BUFFER_BYTES = 1 << 20

type ScannedFile = ContextEntry & PackEntry

/** Reads script directories from the local disk. */
export class FsBuildContextSource implements BuildContextSource {
  private readonly keepInMemoryBytes: number
  private readonly digestCacheDir: string | undefined

  constructor(options: FsBuildContextOptions = {}) {
    this.keepInMemoryBytes = options.keepInMemoryBytes ?? 64 << 20
    this.digestCacheDir = options.digestCacheDir
  }

  async scan(
    dir: string,
    options: ScanOptions = {},
  ): Promise<ScannedContext | {readonly missing: 'absent' | 'not-a-directory'}> {
    const walked = walkScriptDir(dir, IMAGE_IGNORE_FILES)
    if ('missing' in walked) return walked
    const vanished = [...walked.vanished]
    await options.beforeHashing?.({entries: walked.entries})

    let budget = this.keepInMemoryBytes
    const cache =
      this.digestCacheDir === undefined ? undefined : DigestCache.open(this.digestCacheDir, realpathSync(dir))
    const entries: ScannedFile[] = []
    const root = dir.endsWith('/') ? dir : `${dir}/`
    // Synchronous reads, as the walk's: the command has nothing else to do meanwhile.
    for (const {stamp, ...entry} of walked.entries) {
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
          entries.push({...entry, size: 0, sha256: sha256(Buffer.from(linkTarget)), linkTarget})
        } else if (entry.size <= SMALL_FILE_BYTES) {
          const content = readFileSync(full)
          const keep = content.length <= budget
          if (keep) budget -= content.length
          const digest = sha256(content)
          // Recorded only when what was read is what lstat described; a file growing meanwhile is hashed next time.
          if (content.length === entry.size) cache?.record(entry.path, stamp, digest)
          entries.push({...entry, size: content.length, sha256: digest, ...(keep ? {content} : {})})
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
      unsupported: walked.unsupported,
      vanished,
      pack: ({dockerfile, filesDir}) =>
        packScriptDirTar(dir, entries, {
          prefix: `${filesDir}/`,
          leading: [
            {name: 'Dockerfile', type: 'file', content: Buffer.from(dockerfile)},
            {name: `${filesDir}/`, type: 'directory'},
          ],
          changed: (path, how) =>
            new XpkError('image', `${path} ${how} while the image was being built.`, {
              hints: ['Wait until nothing writes to the script directory, then run the command again.'],
            }),
          highWaterMark: PACK_BUFFER_BYTES,
        }),
    }
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
