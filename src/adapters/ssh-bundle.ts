/**
 * Packs a script directory into one tar (in memory, built once and sent to every worker), honouring `.dockerignore`
 * and `.xpkignore` with the same rules as image builds. tar-stream is imported lazily.
 */
import {lstatSync, readdirSync, readFileSync, readlinkSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {UsageError} from '../core/errors.js'
import type {ScriptDirEntries, ScriptDirEntry, ScriptDirListing} from '../ports/remote-shell.js'
import {canSkipDirectory, isIgnored, parseDockerignore, type IgnoreRules} from '../core/image/dockerignore.js'

function readRules(dir: string): IgnoreRules {
  const patterns: IgnoreRules['patterns'][number][] = []
  for (const name of ['.dockerignore', '.xpkignore']) {
    try {
      patterns.push(...parseDockerignore(readFileSync(join(dir, name), 'utf8'), join(dir, name)).patterns)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return {patterns}
}

type Entry = ScriptDirEntry

function walk(root: string, rel: string, rules: IgnoreRules, out: Entry[]): void {
  for (const name of readdirSync(join(root, rel)).sort()) {
    const path = rel ? `${rel}/${name}` : name
    const stat = lstatSync(join(root, path))
    if (stat.isDirectory()) {
      if (canSkipDirectory(path, rules)) continue
      if (!isIgnored(path, rules)) out.push({path, type: 'directory', mode: stat.mode & 0o7777, size: 0})
      walk(root, path, rules, out)
    } else if (isIgnored(path, rules)) {
      continue
    } else if (stat.isFile()) {
      out.push({path, type: 'file', mode: stat.mode & 0o7777, size: stat.size})
    } else if (stat.isSymbolicLink()) {
      out.push({path, type: 'symlink', mode: 0o777, size: 0})
    }
  }
}

/**
 * What packing the directory would send, after its ignore files: every entry with its type and size, read before
 * anything is asked or sent (vm run checks it first). A directory that is missing or not a directory says so.
 */
export async function listScriptDir(dir: string): Promise<ScriptDirListing> {
  let info
  try {
    info = statSync(dir)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return {dir, missing: 'absent'}
    throw unreadable(dir, error)
  }
  if (!info.isDirectory()) return {dir, missing: 'not-a-directory'}
  const entries: Entry[] = []
  try {
    walk(dir, '', readRules(dir), entries)
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw unreadable(dir, error)
  }
  return {dir, entries}
}

function unreadable(dir: string, error: unknown): UsageError {
  return new UsageError(`--script-dir ${dir}: ${(error as Error).message}.`, {
    flag: '--script-dir',
    hints: ['Point --script-dir at the directory to copy to every worker (default: the current directory).'],
  })
}

/** The listed directory as a tar, and how many files and bytes went in. */
export async function packScriptDir(listing: ScriptDirEntries): Promise<{tar: Buffer; files: number; bytes: number}> {
  const {dir, entries} = listing
  const {pack: createPack} = await import('tar-stream')
  const pack = createPack()
  const chunks: Buffer[] = []
  const done = new Promise<void>((resolve, reject) => {
    pack.on('data', (c: unknown) => chunks.push(c as Buffer))
    pack.on('end', resolve)
    pack.on('error', reject)
  })
  const mtime = new Date()
  let bytes = 0
  for (const entry of entries) {
    const full = join(dir, entry.path)
    if (entry.type === 'file') {
      const content = readFileSync(full)
      bytes += content.length
      await new Promise<void>((resolve, reject) =>
        pack.entry({name: entry.path, mode: entry.mode, mtime, size: content.length}, content, (e) =>
          e ? reject(e) : resolve(),
        ),
      )
    } else if (entry.type === 'directory') {
      pack.entry({name: entry.path, type: 'directory', mode: entry.mode, mtime})
    } else {
      pack.entry({name: entry.path, type: 'symlink', linkname: readlinkSync(full), mtime})
    }
  }
  pack.finalize()
  await done
  return {tar: Buffer.concat(chunks), files: entries.filter((e) => e.type === 'file').length, bytes}
}
