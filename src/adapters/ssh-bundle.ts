/**
 * Packs a script directory into one tar (in memory, built once and sent to every worker) after its `.dockerignore`
 * and `.xpkignore`, with the walk and the tar packer image builds use (script-dir-files.ts).
 */
import {XpkError} from '../core/errors.js'
import type {ScriptDirEntries, ScriptDirListing} from '../ports/remote-shell.js'
import {BUNDLE_IGNORE_FILES, packScriptDirTar, walkScriptDir} from './script-dir-files.js'

/**
 * What packing the directory would send, after its ignore files: every entry with its type and size, read before
 * anything is asked or sent (vm run checks it first). A directory that is missing or not a directory says so.
 */
export async function listScriptDir(dir: string): Promise<ScriptDirListing> {
  const walked = walkScriptDir(dir, BUNDLE_IGNORE_FILES)
  if ('missing' in walked) return {dir, missing: walked.missing}
  return {dir, entries: walked.entries.map(({stamp: _stamp, ...entry}) => entry)}
}

/** The listed directory as a tar, and how many files and bytes went in. */
export async function packScriptDir(listing: ScriptDirEntries): Promise<{tar: Buffer; files: number; bytes: number}> {
  const {dir, entries} = listing
  const chunks: Uint8Array[] = []
  const packing = packScriptDirTar(dir, entries, {
    prefix: '',
    changed: (path, how) =>
      new XpkError('failed', `${path} ${how} while the script directory was being packed.`, {
        hints: ['Wait until nothing writes to the script directory, then run the command again.'],
      }),
  })
  for await (const chunk of packing) chunks.push(chunk)
  let files = 0
  let bytes = 0
  for (const entry of entries) {
    if (entry.type !== 'file') continue
    files++
    bytes += entry.size
  }
  return {tar: Buffer.concat(chunks), files, bytes}
}
