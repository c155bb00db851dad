/**
 * Whether a script directory looks like more than training code. Packing a repository root by accident (the
 * default --script-dir is the current directory) sends dependencies, history and build output into the image;
 * xpk asks before doing that.
 */

import type {ContextEntry} from './context-digest.js'

/** Directory names that almost never belong in a training image. */
export const BULKY_DIRECTORY_NAMES: readonly string[] = ['node_modules', '.git']

/** How big a script directory may be before xpk asks, in MB (10^6 bytes). */
export const DEFAULT_SCRIPT_DIR_MAX_MB = 100

/** The environment variable that changes that limit (whole MB; 0: no size limit). */
export const SCRIPT_DIR_MAX_MB_VARIABLE = 'XPK_SCRIPT_DIR_MAX_MB'

/** An entry of a listed script directory, as far as the checks read it. */
export type ListedEntry = Pick<ContextEntry, 'path' | 'type' | 'size'>

/** Files (everything but directories) and bytes of a listing. */
export function contextSize(entries: readonly ListedEntry[]): {readonly files: number; readonly bytes: number} {
  let files = 0
  let bytes = 0
  for (const entry of entries) {
    if (entry.type === 'directory') continue
    files++
    bytes += entry.size
  }
  return {files, bytes}
}

/**
 * The reasons to ask before packing: bulky directories (the outermost of each, at most `shown` named) and a total
 * over `maxBytes` (null: no limit). Empty when there is nothing to ask about.
 */
export function contextConcerns(
  entries: readonly ListedEntry[],
  maxBytes: number | null,
  shown = 3,
): readonly string[] {
  const bulky: string[] = []
  for (const entry of entries) {
    if (entry.type !== 'directory') continue
    const name = entry.path.slice(entry.path.lastIndexOf('/') + 1)
    if (!BULKY_DIRECTORY_NAMES.includes(name)) continue
    if (bulky.some((outer) => entry.path.startsWith(`${outer}/`))) continue
    bulky.push(entry.path)
  }
  const concerns: string[] = []
  if (bulky.length > 0) {
    const named = bulky.slice(0, shown).join(', ') + (bulky.length > shown ? ` and ${bulky.length - shown} more` : '')
    concerns.push(`contains ${named}`)
  }
  const {bytes} = contextSize(entries)
  if (maxBytes !== null && bytes > maxBytes) {
    concerns.push(`holds ${formatBytes(bytes)}, more than the ${formatBytes(maxBytes)} limit`)
  }
  return concerns
}

/** A byte count for people: `512 bytes`, `3.9 MB`, `558 MB`, `1.2 GB` (powers of 1000, as disk tools say). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} byte${bytes === 1 ? '' : 's'}`
  const units = ['kB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = ''
  for (const next of units) {
    value /= 1000
    unit = next
    if (value < 1000) break
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`
}
