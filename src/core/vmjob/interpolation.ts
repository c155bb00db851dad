/**
 * OmegaConf's interpolation, the part jobman configs use: `${tpu.accelerator}` (any key path, with `.` and `[i]`),
 * relative `${.sibling}` and `${..uncle}`, `${oc.env:NAME}` and `${oc.env:NAME,default}`, and the escape `\${`
 * (OmegaConf has no `$${`; `\\${x}` is a backslash followed by the value of x). A value that is only `${x}` takes
 * x's type (a number stays a number); inside a longer string a value is written as Python's str() writes it
 * (True, None), as jobman would. Values are resolved when read, as OmegaConf does, so a key nobody reads may hold
 * anything.
 */
import {closestMatches} from '../suggest.js'
import type {YamlNode, YamlScalar, YamlScalarValue} from './yaml-tree.js'

export type KeyPath = readonly (string | number)[]

export interface Resolved {
  readonly value: YamlScalarValue
  /** The value as text inside a longer string. */
  readonly text: string
}

export interface InterpolationProblem {
  readonly problem: string
  readonly fix: string
}

/** `tpu.name`, `ssh.identities[0].public_key` */
export function formatPath(path: KeyPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('')
}

const ESCAPE_FIX = 'Write \\${...} for a literal "${...}" (a shell variable can also be written $NAME).'

export class Interpolator {
  private readonly done = new Map<YamlScalar, Resolved | InterpolationProblem>()
  private readonly resolving: string[] = []
  private scalarPaths: string[] | undefined

  constructor(
    private readonly root: YamlNode,
    private readonly env: Readonly<Record<string, string | undefined>> = {},
  ) {}

  /** The scalar at `at`, its interpolations resolved. */
  resolve(node: YamlScalar, at: KeyPath): Resolved | InterpolationProblem {
    const known = this.done.get(node)
    if (known) return known
    const here = formatPath(at)
    const cycleAt = this.resolving.indexOf(here)
    if (cycleAt >= 0) {
      const chain = [...this.resolving.slice(cycleAt), here].join(' -> ')
      return {
        problem: `the interpolation refers back to itself (${chain})`,
        fix: 'Break the cycle: give one of them a value.',
      }
    }
    this.resolving.push(here)
    try {
      const result = typeof node.value === 'string' ? this.interpolate(node.value, at) : plain(node)
      this.done.set(node, result)
      return result
    } finally {
      this.resolving.pop()
    }
  }

  private interpolate(raw: string, at: KeyPath): Resolved | InterpolationProblem {
    if (!raw.includes('${')) return {value: raw, text: raw}
    const parts: Resolved[] = []
    let literal = ''
    let i = 0
    while (i < raw.length) {
      if (raw.startsWith('\\\\${', i)) {
        literal += '\\'
        i += 2
        continue
      }
      if (raw.startsWith('\\${', i)) {
        literal += '${'
        i += 3
        continue
      }
      if (!raw.startsWith('${', i)) {
        literal += raw[i]
        i++
        continue
      }
      const close = raw.indexOf('}', i + 2)
      if (close < 0) return {problem: `"${raw.slice(i)}" opens \${ without a closing }`, fix: ESCAPE_FIX}
      const inner = raw.slice(i + 2, close)
      if (inner.includes('${')) {
        return {problem: `"${raw}" nests an interpolation in another, which xpk does not support`, fix: ESCAPE_FIX}
      }
      const value = this.reference(inner.trim(), at)
      if ('problem' in value) return value
      if (literal !== '') parts.push({value: literal, text: literal})
      literal = ''
      parts.push(value)
      i = close + 1
    }
    if (literal !== '') parts.push({value: literal, text: literal})
    if (parts.length === 1) return parts[0]!
    const text = parts.map((p) => p.text).join('')
    return {value: text, text}
  }

  private reference(inner: string, at: KeyPath): Resolved | InterpolationProblem {
    const resolver = /^([A-Za-z_][\w.]*):(.*)$/s.exec(inner)
    if (resolver) return this.resolver(resolver[1]!, resolver[2]!, inner)
    const parsed = parseReference(inner, at)
    if (parsed === undefined) return {problem: `"\${${inner}}" is not a key path`, fix: ESCAPE_FIX}
    let node: YamlNode | undefined = this.root
    for (const segment of parsed) node = child(node, segment)
    const name = formatPath(parsed)
    if (node === undefined) {
      const near = closestMatches(name, this.allScalarPaths(), 1)
      return {
        problem: `\${${inner}} names no key of the file`,
        fix: `${near.length > 0 ? `Did you mean \${${near[0]}}? ` : ''}${ESCAPE_FIX}`,
      }
    }
    if (node.kind !== 'scalar') {
      return {
        problem: `\${${inner}} is a ${node.kind === 'map' ? 'mapping' : 'list'}, not a single value`,
        fix: 'Interpolate one value, e.g. ${tpu.accelerator}.',
      }
    }
    return this.resolve(node, parsed)
  }

  private resolver(name: string, args: string, inner: string): Resolved | InterpolationProblem {
    if (name !== 'oc.env') {
      return {
        problem: `the resolver "${name}" in \${${inner}} is not supported (xpk knows oc.env)`,
        fix: `Write the value itself. ${ESCAPE_FIX}`,
      }
    }
    const comma = args.indexOf(',')
    const variable = (comma < 0 ? args : args.slice(0, comma)).trim()
    const fallback = comma < 0 ? undefined : unquote(args.slice(comma + 1).trim())
    const value = this.env[variable] ?? fallback
    if (value === undefined) {
      return {
        problem: `the environment variable ${variable} of \${${inner}} is not set`,
        fix: `Set ${variable}, or give a default: \${oc.env:${variable},value}.`,
      }
    }
    return {value, text: value}
  }

  private allScalarPaths(): string[] {
    if (this.scalarPaths) return this.scalarPaths
    const out: string[] = []
    const walk = (node: YamlNode, path: KeyPath, depth: number): void => {
      if (depth > 20) return
      if (node.kind === 'scalar') out.push(formatPath(path))
      else if (node.kind === 'map') for (const e of node.entries) walk(e.value, [...path, e.key], depth + 1)
      else node.items.forEach((item, i) => walk(item, [...path, i], depth + 1))
    }
    walk(this.root, [], 0)
    this.scalarPaths = out
    return out
  }
}

function plain(node: YamlScalar): Resolved {
  const {value} = node
  if (value === null) return {value, text: 'None'}
  if (typeof value === 'boolean') return {value, text: value ? 'True' : 'False'}
  return {value, text: node.text}
}

function unquote(text: string): string {
  const quoted = /^(['"])(.*)\1$/s.exec(text)
  return quoted ? quoted[2]! : text
}

/** The absolute path a reference names, seen from the value at `at`; undefined when it is not a path. */
function parseReference(inner: string, at: KeyPath): KeyPath | undefined {
  const dots = /^\.*/.exec(inner)![0].length
  const rest = inner.slice(dots)
  const segments: (string | number)[] = []
  const token = /(?:^|\.)([^.[\]\s]+)|\[\s*([^\]]+?)\s*\]/gy
  let consumed = 0
  for (let m = token.exec(rest); m !== null && m[0] !== ''; m = token.exec(rest)) {
    const key = m[1] ?? m[2]!
    segments.push(/^\d+$/.test(key) ? Number(key) : key)
    consumed = token.lastIndex
  }
  if (consumed !== rest.length || segments.length === 0) return undefined
  if (dots === 0) return segments
  if (dots > at.length) return undefined
  return [...at.slice(0, at.length - dots), ...segments]
}

function child(node: YamlNode | undefined, segment: string | number): YamlNode | undefined {
  if (node === undefined) return undefined
  if (node.kind === 'map') return node.entries.find((e) => e.key === String(segment))?.value
  if (node.kind === 'seq' && typeof segment === 'number') return node.items[segment]
  return undefined
}
