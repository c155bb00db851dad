/**
 * A `.dockerignore` matcher with Docker's semantics (moby/patternmatcher plus buildkit's dockerignore reader):
 *
 * - `#` starts a comment only at the very start of a line; blank lines are skipped; surrounding whitespace is trimmed.
 * - A leading `!` makes the pattern an exception (it re-includes what earlier patterns excluded).
 * - Patterns are cleaned like Go's `filepath.Clean` and a leading `/` is dropped, so `/a/../b/` means `b`.
 * - `*` matches any run of characters except `/`, `?` one character except `/`, `[...]` a class (`[^...]` negates),
 *   `\` escapes the next character, and `**` matches any number of directories, including none.
 * - The last pattern that matches wins, and a pattern that matches a parent directory matches everything below it.
 *
 * Paths given to {@link isIgnored} are relative to the context root, use `/`, and have no leading `./`.
 */

import {UsageError} from '../errors.js'

/** One compiled line of a `.dockerignore` file. */
export interface IgnorePattern {
  /** The cleaned pattern, without its `!`. */
  readonly pattern: string
  /** True for `!` lines, which re-include matching paths. */
  readonly exception: boolean
  readonly regex: RegExp
}

/** The compiled patterns of one `.dockerignore` file, in file order. */
export interface IgnoreRules {
  readonly patterns: readonly IgnorePattern[]
}

/** Rules that ignore nothing (no `.dockerignore`). */
export const NO_IGNORE_RULES: IgnoreRules = {patterns: []}

/**
 * Parses the text of a `.dockerignore` file.
 * @param source names the file in error messages.
 * @throws UsageError for a pattern Docker would reject (a lone `!`, an unterminated `[` class or a trailing `\`).
 */
export function parseDockerignore(text: string, source = '.dockerignore'): IgnoreRules {
  const patterns: IgnorePattern[] = []
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  lines.forEach((raw, index) => {
    if (raw.startsWith('#')) return
    let line = raw.trim()
    if (line === '') return
    const exception = line.startsWith('!')
    if (exception) line = line.slice(1).trim()
    if (line === '') {
      throw new UsageError(`${source} line ${index + 1}: "!" needs a pattern after it.`, {
        hints: [`Fix or remove line ${index + 1} of ${source}.`],
      })
    }
    let pattern = cleanPath(line)
    if (pattern.length > 1 && pattern.startsWith('/')) pattern = pattern.slice(1)
    const regex = compilePattern(pattern)
    if (regex === null) {
      throw new UsageError(`${source} line ${index + 1}: "${raw.trim()}" is not a valid pattern.`, {
        hints: ['Close every "[" with "]" and do not end a pattern with "\\".'],
      })
    }
    patterns.push({pattern, exception, regex})
  })
  return {patterns}
}

/** True when the path (relative, `/`-separated) is excluded from the build context. */
export function isIgnored(path: string, rules: IgnoreRules): boolean {
  const parents = parentPaths(path)
  let ignored = false
  for (const p of rules.patterns) {
    // An exclusion cannot change an already-excluded path, nor an exception an included one.
    if (p.exception !== ignored) continue
    if (p.regex.test(path) || parents.some((parent) => p.regex.test(parent))) ignored = !p.exception
  }
  return ignored
}

/**
 * True when a directory and everything below it can be left out without looking inside: it is ignored and no
 * exception pattern names a path under it. Mirrors the Docker CLI, which only descends into an excluded directory
 * when an exception's literal text starts with that directory.
 */
export function canSkipDirectory(dir: string, rules: IgnoreRules): boolean {
  if (!isIgnored(dir, rules)) return false
  const prefix = `${dir}/`
  return !rules.patterns.some((p) => p.exception && `${p.pattern}/`.startsWith(prefix))
}

/** Go's `path.Clean`: collapses `//`, `.` and `..`; `''` becomes `.`. */
export function cleanPath(path: string): string {
  const rooted = path.startsWith('/')
  const out: string[] = []
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop()
      else if (!rooted) out.push('..')
      continue
    }
    out.push(part)
  }
  const joined = out.join('/')
  if (rooted) return `/${joined}`
  return joined === '' ? '.' : joined
}

function parentPaths(path: string): string[] {
  const parts = path.split('/')
  const parents: string[] = []
  for (let i = 1; i < parts.length; i++) parents.push(parts.slice(0, i).join('/'))
  return parents
}

const REGEX_SPECIAL = new Set(['.', '+', '(', ')', '|', '{', '}', '$', '^'])

/** Translates a cleaned pattern into an anchored regular expression, or null when it is malformed. */
function compilePattern(pattern: string): RegExp | null {
  let source = '^'
  let inClass = false
  const chars = [...pattern]
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!
    if (inClass) {
      if (ch === '\\') {
        const next = chars[++i]
        if (next === undefined) return null
        source += escapeLiteral(next)
      } else if (ch === ']') {
        source += ']'
        inClass = false
      } else if (ch === '[') {
        source += '\\['
      } else {
        source += ch
      }
      continue
    }
    if (ch === '*') {
      if (chars[i + 1] === '*') {
        i++
        // `**/` is treated as `**`; a trailing `**` takes everything, otherwise any number of whole directories.
        if (chars[i + 1] === '/') i++
        source += i + 1 >= chars.length ? '.*' : '(?:.*/)?'
      } else {
        source += '[^/]*'
      }
    } else if (ch === '?') {
      source += '[^/]'
    } else if (ch === '\\') {
      const next = chars[++i]
      if (next === undefined) return null
      source += escapeLiteral(next)
    } else if (ch === '[') {
      inClass = true
      source += '['
      if (chars[i + 1] === '^') {
        source += '^'
        i++
      }
      // Go rejects an empty class, and a leading `]` would otherwise close it.
      if (chars[i + 1] === ']') return null
    } else if (ch === ']') {
      source += '\\]'
    } else {
      source += REGEX_SPECIAL.has(ch) ? `\\${ch}` : ch
    }
  }
  if (inClass) return null
  try {
    return new RegExp(`${source}$`, 's')
  } catch {
    return null
  }
}

function escapeLiteral(ch: string): string {
  return /[A-Za-z0-9_]/.test(ch) ? ch : `\\${ch}`
}
