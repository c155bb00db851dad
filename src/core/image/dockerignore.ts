/**
 * `.dockerignore` rules, matched by `@balena/dockerignore` (a port of moby's matcher, the one dockerode ships), with
 * what the library leaves to its caller:
 *
 * - Every line is checked as Docker checks it before anything is read: a lone `!` and a pattern Go's
 *   `filepath.Match` calls malformed (an unclosed `[`, an empty class, a trailing `\`) are refused with the file and
 *   line, where the library would drop the `!`, match a trailing `\` literally and throw on `[` only when first used.
 * - Characters a regular expression reads but a Docker pattern does not (`+ ( ) | { } ^` outside a class) are
 *   escaped before the library sees them: unescaped, `c|d` would ignore every path ending in `d`.
 * - Matching is case-sensitive, as Docker's is on Linux (the library's default ignores case).
 * - {@link canSkipDirectory} says when a walk need not enter a directory at all.
 *
 * Paths given to {@link isIgnored} are relative to the context root, use `/`, and have no leading `./`.
 */

import {posix} from 'node:path'

import dockerignore from '@balena/dockerignore'

import {UsageError} from '../errors.js'

/** One pattern line of an ignore file. */
export interface IgnorePattern {
  /** The pattern as Docker cleans it (`filepath.Clean`, no leading `/`), without its `!`. */
  readonly pattern: string
  /** True for `!` lines, which re-include matching paths. */
  readonly exception: boolean
}

/** The patterns of one or more ignore files, in order, and their matcher. */
export interface IgnoreRules {
  readonly patterns: readonly IgnorePattern[]
  /** Whether `path` is excluded; undefined when there are no patterns. */
  readonly ignores: ((path: string) => boolean) | undefined
}

/** One ignore file: its text, and the name its errors give. */
export interface IgnoreFile {
  readonly text: string
  readonly source: string
}

/** Rules that ignore nothing (no ignore file). */
export const NO_IGNORE_RULES: IgnoreRules = {patterns: [], ignores: undefined}

/**
 * The rules of ignore files read one after the other, as if the later ones' lines followed the earlier ones' (so a
 * `!` line of a later file can re-include what an earlier file excludes).
 * @throws UsageError naming the file and line of the first pattern Docker would refuse.
 */
export function parseIgnoreFiles(files: readonly IgnoreFile[]): IgnoreRules {
  const patterns: IgnorePattern[] = []
  const lines: string[] = []
  for (const {text, source} of files) {
    text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .forEach((raw, index) => {
        if (raw.startsWith('#')) return
        let line = raw.trim()
        if (line === '') return
        const exception = line.startsWith('!')
        if (exception) line = line.slice(1).trim()
        const where = `${source} line ${index + 1}`
        if (line === '') {
          throw new UsageError(`${where}: "!" needs a pattern after it.`, {
            hints: [`Fix or remove line ${index + 1} of ${source}.`],
          })
        }
        if (!wellFormed(line)) {
          throw new UsageError(`${where}: "${raw.trim()}" is not a valid pattern.`, {
            hints: ['Close every "[" with "]", put something between them, and do not end a pattern with "\\".'],
          })
        }
        patterns.push({pattern: cleanPattern(line), exception})
        lines.push(`${exception ? '!' : ''}${escapeForRegExp(line)}`)
      })
  }
  if (patterns.length === 0) return NO_IGNORE_RULES
  const matcher = dockerignore.default({ignorecase: false}).add(lines)
  // The library remembers answers in a plain object (`path in cache`), where `constructor` or `toString` is always
  // found: a file of that name would never be ignored. A cache without a prototype has only what was put in it.
  ;(matcher as unknown as {_cache: object})._cache = Object.create(null) as object
  return {patterns, ignores: (path) => matcher.ignores(path)}
}

/** The rules of one `.dockerignore` text; `source` names the file in errors. */
export function parseDockerignore(text: string, source = '.dockerignore'): IgnoreRules {
  return parseIgnoreFiles([{text, source}])
}

/** True when the path (relative, `/`-separated) is excluded. */
export function isIgnored(path: string, rules: IgnoreRules): boolean {
  return rules.ignores?.(path) ?? false
}

/**
 * True when a directory and everything below it can be left out without looking inside: it is ignored and no
 * exception pattern names a path under it. As the Docker CLI decides it: a directory is entered only for an
 * exception whose text starts with the directory's path (`!node_modules/keep`; a wildcard exception does not count).
 */
export function canSkipDirectory(dir: string, rules: IgnoreRules): boolean {
  if (!isIgnored(dir, rules)) return false
  const prefix = `${dir}/`
  return !rules.patterns.some((p) => p.exception && `${p.pattern}/`.startsWith(prefix))
}

/** Go's `filepath.Clean` of a pattern (as `path.posix.normalize` without the trailing `/`), leading `/` dropped. */
function cleanPattern(pattern: string): string {
  let clean = posix.normalize(pattern)
  if (clean.length > 1 && clean.endsWith('/')) clean = clean.slice(0, -1)
  if (clean.length > 1 && clean.startsWith('/')) clean = clean.slice(1)
  return clean
}

/**
 * Whether Go's `filepath.Match` accepts the pattern (it checks the whole pattern): every `\` escapes a character,
 * every class closes and holds at least one character or range, a range's ends are characters (not `-` or `]`).
 */
function wellFormed(pattern: string): boolean {
  const chars = [...pattern]
  let i = 0
  // A class member: a character (or an escaped one), which must be followed by something.
  const member = (): boolean => {
    const c = chars[i]
    if (c === undefined || c === '-' || c === ']') return false
    if (c === '\\') i++
    if (chars[i] === undefined) return false
    i++
    return i < chars.length
  }
  while (i < chars.length) {
    const c = chars[i++]
    if (c === '\\') {
      if (i >= chars.length) return false
      i++
    } else if (c === '[') {
      if (chars[i] === '^') i++
      for (let ranges = 0; ; ranges++) {
        if (chars[i] === ']' && ranges > 0) {
          i++
          break
        }
        if (!member()) return false
        if (chars[i] === '-') {
          i++
          if (!member()) return false
        }
      }
    }
  }
  return true
}

// Read by a regular expression, but literal in a Docker pattern (moby escapes them; the library does not).
const REGEXP_ONLY = new Set(['+', '(', ')', '|', '{', '}', '^'])

/** The pattern with those characters escaped outside classes (`\` escapes are kept as they are). */
function escapeForRegExp(pattern: string): string {
  let out = ''
  let inClass = false
  const chars = [...pattern]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]
    if (c === '\\') {
      out += c + chars[++i]
    } else if (inClass) {
      out += c
      if (c === ']') inClass = false
    } else if (c === '[') {
      out += c
      inClass = true
      // A `^` right after `[` negates the class.
      if (chars[i + 1] === '^') out += chars[++i]
    } else {
      out += REGEXP_ONLY.has(c) ? `\\${c}` : c
    }
  }
  // A leading `#` would make the library take the line for a comment (xpk has already dropped the comments).
  return out.startsWith('#') ? `\\${out}` : out
}
