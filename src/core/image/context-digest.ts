/**
 * The identity of a script image: one digest over everything that decides its content, so that the same inputs give
 * the same tag on every machine and a changed input always gives a new one.
 */

import {createHash} from 'node:crypto'

/** One path of a build context, as hashed and as sent to the engine. */
export interface ContextEntry {
  /** Relative to the context root, `/`-separated, no leading `./`. */
  readonly path: string
  readonly type: 'file' | 'directory' | 'symlink'
  /** Permission bits (`0o755`), without the file-type bits. */
  readonly mode: number
  /** Content bytes; 0 for directories and symlinks. */
  readonly size: number
  /** Hex SHA-256 of the content, or of the link target for a symlink; `''` for a directory. */
  readonly sha256: string
  /** Where a symlink points. */
  readonly linkTarget?: string
}

/** Everything that decides the image content. */
export interface ContextDigestInput {
  readonly entries: readonly ContextEntry[]
  /** The generated Dockerfile, which names the base image. */
  readonly dockerfile: string
  /** The base image's digest, or null when it could not be resolved (offline). */
  readonly baseDigest: string | null
  readonly platform: string
}

// Bump when the meaning of the digest changes, so old tags are not reused for different images.
const FORMAT = 'xpk-context-v1'

/** Orders paths by UTF-16 code units, independent of locale, so every machine lists a context the same way. */
export function compareContextPaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Returns the entries sorted by path (a new array). */
export function sortContextEntries(entries: readonly ContextEntry[]): ContextEntry[] {
  return [...entries].sort((x, y) => compareContextPaths(x.path, y.path))
}

/** The digest of a build context (`sha256:<64 hex>`); entry order does not matter, modes and contents do. */
export function contextDigest(input: ContextDigestInput): string {
  const hash = createHash('sha256')
  // JSON lines keep fields unambiguous whatever characters a path contains.
  const line = (value: unknown) => hash.update(`${JSON.stringify(value)}\n`)
  line([FORMAT, input.platform, input.baseDigest ?? 'unresolved'])
  line(['dockerfile', input.dockerfile])
  for (const e of sortContextEntries(input.entries)) {
    line([e.type, (e.mode & 0o7777).toString(8), e.path, e.sha256, e.linkTarget ?? ''])
  }
  return `sha256:${hash.digest('hex')}`
}
