/**
 * Typed reads of a YAML tree that collect every problem instead of stopping at the first: each problem names the
 * file, the line and the key path (`job.yaml:12: tpu.pricing: ...`) and says how to fix it. Values are read
 * through the interpolator, so `${...}` is resolved (and its problems reported) where the value is read.
 */
import {isAbsolute, join, resolve} from 'node:path'

import {UsageError} from '../errors.js'
import {escapeInline} from '../text.js'
import {closestMatches, orList} from '../suggest.js'
import {formatPath, type Interpolator, type KeyPath} from './interpolation.js'
import {lineCounter, type YamlMap, type YamlMapEntry, type YamlNode, type YamlScalarValue} from './yaml-tree.js'

export interface ConfigWarning {
  readonly line: number
  /** The key path the warning is about, e.g. `job.queue`. */
  readonly path: string
  /** The whole message, starting with `file:line:`. */
  readonly text: string
}

/** A scalar as read: its resolved value and where it is. */
export interface Read<T> {
  readonly value: T
  /** The value as text (a number's source text: `python: 3.10` is "3.10", not 3.1). */
  readonly text: string
  readonly offset: number
  readonly path: KeyPath
}

/** A block (mapping) of the file: its entries, its key path, and where its key is (for "is missing" problems). */
export interface Block {
  readonly map: YamlMap
  readonly path: KeyPath
  readonly at: number
}

export function describe(node: YamlNode): string {
  if (node.kind === 'map') return 'a mapping'
  if (node.kind === 'seq') return 'a list'
  return node.value === null ? 'null' : `"${escapeInline(node.text)}"`
}

export class ConfigReader {
  readonly problems: UsageError[] = []
  readonly warnings: ConfigWarning[] = []
  private readonly lineOf: (offset: number) => number

  constructor(
    readonly file: string,
    text: string,
    readonly interpolator: Interpolator,
  ) {
    this.lineOf = lineCounter(text)
  }

  line(offset: number): number {
    return this.lineOf(offset)
  }

  where(offset: number): string {
    return `${this.file}:${this.line(offset)}`
  }

  problem(offset: number, path: KeyPath | string, message: string, fix?: string): void {
    const name = typeof path === 'string' ? path : formatPath(path)
    this.problems.push(
      new UsageError(`${this.where(offset)}: ${name}${name ? ': ' : ''}${message}`, {hints: fix ? [fix] : []}),
    )
  }

  warn(offset: number, path: KeyPath, message: string): void {
    const name = formatPath(path)
    this.warnings.push({line: this.line(offset), path: name, text: `${this.where(offset)}: ${name}: ${message}`})
  }

  entry(map: YamlMap | undefined, key: string): YamlMapEntry | undefined {
    return map?.entries.find((e) => e.key === key)
  }

  /**
   * Reports the keys of `map` that are neither `known` nor `ignored` (naming the closest known key), and warns
   * about the `ignored` ones (key: why it is ignored).
   */
  checkKeys(map: YamlMap, base: KeyPath, known: readonly string[], ignored: Readonly<Record<string, string>> = {}) {
    for (const e of map.entries) {
      if (known.includes(e.key)) continue
      if (e.key in ignored) {
        this.warn(e.keyOffset, [...base, e.key], ignored[e.key]!)
        continue
      }
      const [near] = closestMatches(e.key, known, 1)
      const where = base.length === 0 ? 'at the top of the file' : `under ${formatPath(base)}`
      this.problem(
        e.keyOffset,
        [...base, e.key],
        `unknown key${near ? `; did you mean ${near}?` : ''}`,
        `Keys ${where}: ${known.join(', ')}.`,
      )
    }
  }

  /** A block (a mapping); undefined when absent or null. */
  block(map: YamlMap | undefined, base: KeyPath, key: string): Block | undefined {
    const e = this.entry(map, key)
    if (e === undefined) return undefined
    const path = [...base, key]
    if (e.value.kind === 'map') return {map: e.value, path, at: e.keyOffset}
    if (e.value.kind === 'scalar' && e.value.value === null) return undefined
    this.problem(e.value.offset, path, `should be a mapping of key: value, not ${describe(e.value)}`)
    return undefined
  }

  /** A scalar, resolved; undefined when absent or null (a problem when `required`). */
  scalar(
    map: YamlMap | undefined,
    base: KeyPath,
    key: string,
    expected: string,
    required?: {readonly offset: number; readonly fix: string},
  ): Read<Exclude<YamlScalarValue, null>> | undefined {
    const e = this.entry(map, key)
    const path = [...base, key]
    if (e === undefined || (e.value.kind === 'scalar' && e.value.value === null)) {
      if (required) this.problem(e?.value.offset ?? required.offset, path, 'is missing', required.fix)
      return undefined
    }
    return this.resolveNode(e.value, path, expected)
  }

  resolveNode(node: YamlNode, path: KeyPath, expected: string): Read<Exclude<YamlScalarValue, null>> | undefined {
    if (node.kind !== 'scalar') {
      this.problem(node.offset, path, `should be ${expected}, not ${describe(node)}`)
      return undefined
    }
    const resolved = this.interpolator.resolve(node, path)
    if ('problem' in resolved) {
      this.problem(node.offset, path, resolved.problem, resolved.fix)
      return undefined
    }
    if (resolved.value === null) return undefined
    return {value: resolved.value, text: resolved.text, offset: node.offset, path}
  }

  string(
    map: YamlMap | undefined,
    base: KeyPath,
    key: string,
    required?: {readonly offset: number; readonly fix: string},
  ): Read<string> | undefined {
    const read = this.scalar(map, base, key, 'a string', required)
    return read && this.asString(read)
  }

  private asString(read: Read<Exclude<YamlScalarValue, null>>): Read<string> | undefined {
    if (typeof read.value === 'string') return read as Read<string>
    if (typeof read.value === 'number') return {...read, value: read.text}
    this.problem(read.offset, read.path, `should be a string, not ${String(read.value)}`, 'Quote it if you mean text.')
    return undefined
  }

  boolean(map: YamlMap | undefined, base: KeyPath, key: string): Read<boolean> | undefined {
    const read = this.scalar(map, base, key, 'true or false')
    if (read === undefined || typeof read.value === 'boolean') return read as Read<boolean> | undefined
    this.problem(read.offset, read.path, `should be true or false, not "${escapeInline(String(read.value))}"`)
    return undefined
  }

  integer(map: YamlMap | undefined, base: KeyPath, key: string, min: number): Read<number> | undefined {
    const read = this.scalar(map, base, key, `a whole number (${min} or more)`)
    if (read === undefined) return undefined
    if (typeof read.value === 'number' && Number.isSafeInteger(read.value) && read.value >= min) {
      return read as Read<number>
    }
    this.problem(
      read.offset,
      read.path,
      `should be a whole number, ${min} or more, not "${escapeInline(String(read.value))}"`,
    )
    return undefined
  }

  oneOf<T extends string>(
    map: YamlMap | undefined,
    base: KeyPath,
    key: string,
    values: readonly T[],
  ): Read<T> | undefined {
    const read = this.string(map, base, key)
    if (read === undefined) return undefined
    if ((values as readonly string[]).includes(read.value)) return read as Read<T>
    const [near] = closestMatches(read.value, values, 1)
    this.problem(
      read.offset,
      read.path,
      `"${escapeInline(read.value)}" is not one of ${orList(values)}`,
      near ? `Did you mean ${near}?` : undefined,
    )
    return undefined
  }

  /** A list of strings; a missing or null key is an empty list. */
  stringList(map: YamlMap | undefined, base: KeyPath, key: string): Read<string[]> | undefined {
    const e = this.entry(map, key)
    const path = [...base, key]
    if (e === undefined || (e.value.kind === 'scalar' && e.value.value === null)) return undefined
    if (e.value.kind !== 'seq') {
      this.problem(e.value.offset, path, `should be a list of strings, not ${describe(e.value)}`)
      return undefined
    }
    const out: string[] = []
    e.value.items.forEach((item, i) => {
      const read = this.resolveNode(item, [...path, i], 'a string')
      const text = read && this.asString(read)
      if (text) out.push(text.value)
    })
    return {value: out, text: '', offset: e.value.offset, path}
  }

  /** A mapping of string values; a missing or null key is empty. */
  stringMap(map: YamlMap | undefined, base: KeyPath, key: string): Read<Record<string, string>> | undefined {
    const e = this.entry(map, key)
    const path = [...base, key]
    if (e === undefined || (e.value.kind === 'scalar' && e.value.value === null)) return undefined
    if (e.value.kind !== 'map') {
      this.problem(e.value.offset, path, `should be a mapping of key: value, not ${describe(e.value)}`)
      return undefined
    }
    const out: Record<string, string> = {}
    for (const entry of e.value.entries) {
      const read = this.string(e.value, path, entry.key)
      if (read) out[entry.key] = read.value
    }
    return {value: out, text: '', offset: e.value.offset, path}
  }
}

/** A path on the machine running xpk: `~` is the home directory, a relative path is from `cwd` (as in jobman). */
export function localPath(path: string, cwd: string, homeDir: string): string {
  if (path === '~') return homeDir
  if (path.startsWith('~/')) return join(homeDir, path.slice(2))
  return isAbsolute(path) ? path : resolve(cwd, path)
}
