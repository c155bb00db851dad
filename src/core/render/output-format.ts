/**
 * kubectl's output flags, on every list and describe command (README, "Output"): `-o json|yaml|name|wide` and
 * `--no-headers`. Read when the command line is parsed, before anything is sent, so this module stays small: the
 * views that print each form are in ./output.ts, loaded when a command runs.
 */
import {UsageError} from '../errors.js'
import {escapeInline} from '../text.js'

/** The values of `-o`, kubectl's names. Without `-o`, the table (or view) is printed. */
export const OUTPUT_FORMATS = ['json', 'yaml', 'name', 'wide'] as const

export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

/** How a command prints its result. */
export interface OutputChoice {
  /** `table`: no `-o`, the default table or view. */
  readonly format: OutputFormat | 'table'
  /** False with `--no-headers`: tables without their header line. */
  readonly headers: boolean
}

/** No `-o`, no `--no-headers`. */
export const TABLE_OUTPUT: OutputChoice = {format: 'table', headers: true}

/** The forms that print the command's result as data (what `--json` prints, or the same as YAML), errors included. */
export type DataFormat = Extract<OutputFormat, 'json' | 'yaml'>

export function isDataFormat(format: OutputChoice['format']): format is DataFormat {
  return format === 'json' || format === 'yaml'
}

/** The format `-o` names, in any case (as every flag with a fixed set of values); undefined for anything else. */
export function parseOutputFormat(text: string): OutputFormat | undefined {
  const lower = text.toLowerCase()
  return OUTPUT_FORMATS.find((f) => f === lower)
}

/**
 * The output the flags ask for. `--json` is `-o json` (it came first, and every command has it): the two agree or
 * the command stops, as kubectl users expect a second output flag to be refused rather than one silently winning.
 * `--no-headers` only changes tables (the default and `-o wide`); the other forms have no header line to drop.
 * @throws UsageError for an unknown `-o` (listing the values), or `-o` other than json with `--json`
 */
export function outputChoice(given: {
  readonly output?: string
  readonly noHeaders?: boolean
  readonly json: boolean
}): OutputChoice {
  const headers = !given.noHeaders
  if (given.output === undefined) return {format: given.json ? 'json' : 'table', headers}
  const format = parseOutputFormat(given.output)
  if (format === undefined) {
    throw new UsageError(
      `--output "${escapeInline(given.output)}" is not an output format: use one of ${OUTPUT_FORMATS.join(', ')} ` +
        '(or leave -o out for the table).',
      {flag: '--output', hints: ['-o json and -o yaml print the result as data, -o name one name per line.']},
    )
  }
  if (given.json && format !== 'json') {
    throw new UsageError(`--json and -o ${format} cannot be used together: --json is the same as -o json.`, {
      flag: '--output',
      hints: [`Leave out --json for ${format} output, or -o ${format} for JSON.`],
    })
  }
  return {format, headers}
}
