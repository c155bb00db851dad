/**
 * Flag kinds whose values are checked in src/core rather than by oclif. oclif stops at the first value it cannot
 * parse (`--priority urgent` used to hide every other problem) and parses integers through a float
 * (`99999999999999999999` became 1e20), so these flags hand over the text as typed; the core validators parse it
 * exactly, hold it to the range of the API field it feeds, and report every problem at once. The help text is built
 * from the same range and default constants the core uses, so the two cannot drift apart.
 */
import * as Flags from '@oclif/core/flags'
import type {InferredFlags} from '@oclif/core/interfaces'

import {INTEGER_FLAGS, type ValueShape} from '../core/input.js'
import type {globalFlags} from './flags.js'

interface KindOptions {
  readonly description: string
  /** Shown as `[default: ...]`; pass the constant the core applies. */
  readonly default?: string | number
  readonly helpGroup?: string
  readonly exclusive?: string[]
}

function helpText(options: KindOptions, range?: string): string {
  const parts = [options.description]
  if (range) parts.push(`(${range})`)
  if (options.default !== undefined) parts.push(`[default: ${options.default}]`)
  return parts.join(' ')
}

/**
 * Declares the shape of a flag's value for the rule every value follows (src/core/input.ts ValueShape), which the
 * base command applies to every option flag before anything else: spread into the flag's options,
 * `Flags.string({...valueShape('text'), ...})`. `text` is free text (spaces and line breaks are part of it), `list`
 * comma-separated items; a flag that declares nothing is a `word`.
 */
export function valueShape(shape: ValueShape): {readonly valueShape: ValueShape} {
  return {valueShape: shape}
}

/** A whole-number flag, keyed by its entry in {@link INTEGER_FLAGS} (`<topic>:<flag>`). */
export function integerFlag(key: keyof typeof INTEGER_FLAGS, options: KindOptions) {
  const range = INTEGER_FLAGS[key]
  return Flags.string({
    ...valueShape('integer'),
    description: helpText(options, `${range.min}-${range.max}`),
    helpValue: '<n>',
    helpGroup: options.helpGroup,
    exclusive: options.exclusive,
  })
}

/** A flag with a fixed set of values, matched case-insensitively by the core (which lists them on a mistake). */
export function choiceFlag(values: readonly string[], options: KindOptions) {
  return Flags.string({
    description: helpText(options),
    helpValue: values.join('|'),
    helpGroup: options.helpGroup,
    exclusive: options.exclusive,
  })
}

/**
 * What a path flag names, shown as its help value. Each kind has one rule (issue 17: read and checked before
 * anything is planned or sent), and test/e2e/checks-first.test.ts tries bad values on every flag of each kind, found
 * from the command definitions: a new path flag is covered the day it is declared with {@link pathFlag}.
 */
export const PATH_KINDS = {
  /** An existing regular text file, read. */
  file: '<file>',
  /** An existing directory. */
  directory: '<dir>',
  /** A file to write, in an existing directory. */
  'output-file': '<out-file>',
  /** A release manifest: a file, file:///PATH, or an https:// URL. */
  manifest: '<file|url>',
} as const

/** A flag naming a file, directory or URL (see {@link PATH_KINDS}). */
export function pathFlag(
  kind: keyof typeof PATH_KINDS,
  options: Omit<KindOptions, 'default'> & {readonly default?: string},
) {
  return Flags.string({
    description: helpText(options),
    helpValue: PATH_KINDS[kind],
    helpGroup: options.helpGroup,
    exclusive: options.exclusive,
  })
}

/** `num-slices` -> `numSlices`, as a type. */
export type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S

/** An object's keys camel-cased, as a type. */
export type CamelCased<T> = {[K in keyof T as CamelCase<K & string>]: T[K]}

/**
 * The options a command's flags and the global ones become ({@link camelCaseFlags} of the parsed flags): what its
 * topic's wiring takes.
 */
export type FlagOptions<F> = CamelCased<InferredFlags<F & typeof globalFlags>>

/**
 * Parsed flags keyed the way services name options (`--num-slices` -> `numSlices`): the one typed place where
 * kebab-case flags become options, so commands do not list every flag twice. Every command maps its flags this way.
 */
export function camelCaseFlags<T extends Record<string, unknown>>(flags: T): CamelCased<T> {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(flags)) {
    out[name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = value
  }
  return out as CamelCased<T>
}
