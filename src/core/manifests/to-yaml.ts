/**
 * Serializes manifests as YAML. This is the only place manifests become text, so every manifest xpk prints,
 * writes or applies looks the same.
 *
 * Written here rather than with js-yaml's dump: set up to write the same text (bench/yaml-emit.ts does), js-yaml is
 * several times slower on every manifest and adds its loading to the commands that print one (README, Speed).
 * Manifests only hold maps, lists, strings, numbers and booleans, so a small emitter that errs on the side of quoting
 * is enough; the tests round-trip every manifest and a few thousand random strings through js-yaml.
 *
 * - Keys keep the order the builders created them in; properties whose value is `undefined` are left out.
 * - A string is written plain only when no YAML 1.1 or 1.2 reader can take it for anything else (kubectl still
 *   reads YAML 1.1, where `on`, `yes` or `0755` are not strings); otherwise it is double-quoted with JSON escapes,
 *   which YAML reads back as the same string.
 * - Multi-line strings (the container scripts) become literal blocks, kept byte for byte; lines are never folded.
 * - Lists of integers are written on one line (`values: [42, 127, 128]`), as Python xpk does for exit codes: a
 *   podFailurePolicy carries 130 of them.
 */
export function toYaml(obj: unknown): string {
  const out: string[] = []
  if (isCollection(obj) && !isEmpty(obj)) writeCollection(obj, 0, out)
  else out.push(scalar(obj))
  return `${out.join('\n')}\n`
}

/** Serializes several objects as one multi-document YAML stream (documents separated by `---`). */
export function toYamlDocuments(objs: readonly unknown[]): string {
  return objs.map((obj) => toYaml(obj)).join('---\n')
}

type Collection = readonly unknown[] | Readonly<Record<string, unknown>>

function isCollection(value: unknown): value is Collection {
  return typeof value === 'object' && value !== null
}

function entries(value: Readonly<Record<string, unknown>>): [string, unknown][] {
  return Object.entries(value).filter(([, v]) => v !== undefined)
}

function isEmpty(value: Collection): boolean {
  return Array.isArray(value) ? value.length === 0 : entries(value as Record<string, unknown>).length === 0
}

/** Writes a non-empty collection whose first line starts at `indent`. */
function writeCollection(value: Collection, indent: number, out: string[]): void {
  const pad = ' '.repeat(indent)
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isCollection(item) && !isEmpty(item)) {
        // The first line of a nested map or list shares the line of its dash.
        const nested: string[] = []
        writeCollection(item, indent + 2, nested)
        out.push(`${pad}- ${nested[0].slice(indent + 2)}`, ...nested.slice(1))
      } else {
        out.push(...valueLines(`${pad}-`, item, indent + 2))
      }
    }
    return
  }
  for (const [key, item] of entries(value as Record<string, unknown>)) {
    const prefix = `${pad}${scalar(key)}:`
    if (isCollection(item) && !isEmpty(item)) {
      if (Array.isArray(item) && isIntegerList(item)) {
        out.push(`${prefix} [${item.join(', ')}]`)
      } else {
        out.push(prefix)
        writeCollection(item, indent + 2, out)
      }
    } else {
      out.push(...valueLines(prefix, item, indent + 2))
    }
  }
}

/** `prefix value` for a scalar or an empty collection, or a literal block for a multi-line string. */
function valueLines(prefix: string, value: unknown, indent: number): string[] {
  if (typeof value === 'string' && canBeLiteralBlock(value)) {
    const chomp = value.endsWith('\n') ? (value.endsWith('\n\n') ? '+' : '') : '-'
    const body = (value.endsWith('\n') ? value.slice(0, -1) : value).split('\n')
    const pad = ' '.repeat(indent)
    return [`${prefix} |${chomp}`, ...body.map((line) => (line === '' ? '' : `${pad}${line}`))]
  }
  return [`${prefix} ${scalar(value)}`]
}

function isIntegerList(items: readonly unknown[]): boolean {
  return items.every((item) => typeof item === 'number' && Number.isSafeInteger(item))
}

/**
 * A multi-line string can be a literal block when every line is printable text: no tabs or other control
 * characters, no carriage returns, and a first line that does not start with a space (that would need an
 * indentation indicator).
 */
function canBeLiteralBlock(value: string): boolean {
  if (!value.includes('\n') || hasUnprintable(value)) return false
  // The first non-empty line sets the block's indentation, so it must not start with a space.
  const firstText = value.split('\n').find((line) => line !== '')
  return firstText !== undefined && !firstText.startsWith(' ')
}

// Every word some YAML 1.1 or 1.2 reader turns into a boolean or null.
const RESERVED = new Set(['y', 'yes', 'n', 'no', 'true', 'false', 'on', 'off', 'null', '~'])

/**
 * Plain only when unambiguous: starts with a letter, `_`, `/`, or `-` followed by a letter or `-` (`-c`,
 * `--flag`); continues with letters, digits, `_ . / = + - ( ) $ @ ,`, a `:` followed by something other than a
 * space (`image:tag`), or single spaces; does not end with a space or colon; is not a reserved word. Everything
 * else (numbers, dates, `key: value`, `# comment`, `[x]`, ...) is quoted.
 */
const PLAIN = /^(?:[A-Za-z_/]|-(?=[A-Za-z-]))(?:[A-Za-z0-9_./=+()$@,-]|:(?=[^ ])| (?! ))*$/

/** True when the string holds a tab, carriage return or other control or special character (not newlines). */
function hasUnprintable(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code === 10) continue
    if (code < 32 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || code === 0xfeff)
      return true
    if (code >= 0xd800 && code <= 0xdfff) return true
  }
  return false
}

/** JSON's escaping, plus the characters YAML does not allow raw in a double-quoted string. */
function doubleQuoted(value: string): string {
  return JSON.stringify(value).replace(
    /[\x7f-\x9f\u2028\u2029\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`toYaml: ${value} is not a number a manifest can hold`)
    return String(value)
  }
  if (typeof value === 'string') {
    if (PLAIN.test(value) && !value.endsWith(' ') && !RESERVED.has(value.toLowerCase())) return value
    return doubleQuoted(value)
  }
  if (Array.isArray(value)) return '[]'
  if (typeof value === 'object') return '{}'
  throw new Error(`toYaml: cannot serialize a ${typeof value}`)
}
