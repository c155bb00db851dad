import {Command} from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import type {Input, ParserOutput} from '@oclif/core/interfaces'

import {TerminalConsole} from '../adapters/terminal-console.js'
import {errorToJson, throwIfProblems, UsageError, UsageErrors, XpkError} from '../core/errors.js'
import {valueShapeMessage, valueShapeProblem, type ValueShape} from '../core/input.js'
import {
  isDataFormat,
  outputChoice,
  parseOutputFormat,
  type DataFormat,
  type OutputChoice,
} from '../core/render/output-format.js'
import {closestMatches, editDistance} from '../core/suggest.js'
import {escapeControl, escapeInline, hasControlCharacters, redactCredentials} from '../core/text.js'
import type {Console} from '../ports/console.js'
import {camelCaseFlags, type CamelCased} from './flag-kinds.js'
import {globalFlags} from './flags.js'
import {handleStopSignals} from './signals.js'

type AnyFlags = Record<string, unknown>

/**
 * What a command hands its topic's wiring (src/cli/<topic>.ts) besides its options: this run's console and abort
 * signal, whether the output is JSON (or YAML: data either way), how a list or describe command prints its result
 * (`-o`, `--no-headers`), and xpk's version.
 */
export interface Invocation {
  readonly console: Console
  readonly signal: AbortSignal
  readonly json: boolean
  readonly output: OutputChoice
  readonly version: string
}
// oclif's own constraint types for parse(), which its public entry points do not export.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type FlagOutput = Record<string, any>
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ArgOutput = Record<string, any>

/**
 * The base of every xpk command. It owns the global flags, builds the {@link Console} from them, turns every
 * error into one line of explanation plus hints on stderr (or an `{"error": ...}` object under `--json`) and an
 * exit code from the documented table (src/core/errors.ts), and turns Ctrl-C into an abort signal services can
 * honour.
 */
export abstract class XpkCommand extends Command {
  static override enableJsonFlag = true
  static override baseFlags = globalFlags

  private parsedFlags: AnyFlags = {}
  private chosenOutput: OutputChoice | undefined
  /** `-o yaml`'s writer, loaded (before it is needed, as oclif prints results synchronously) only when asked for. */
  private yamlWriter: ((value: unknown) => string) | undefined
  private terminal: TerminalConsole | undefined
  private readonly abortController = new AbortController()
  private releaseSignals: (() => void) | undefined
  /**
   * Ctrl-C, SIGTERM (a job scheduler, `kill`) and SIGHUP (a closed terminal) all stop the command the same way,
   * whatever it is doing: every wait ends, the command says what was already sent and how to resume, and exits 130
   * (even one that had nothing left to wait for). A second signal exits at once.
   */
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    if (this.abortController.signal.aborted) process.exit(130)
    const what = signal === 'SIGINT' ? 'Interrupted.' : `Stopped by ${signal}.`
    this.abortController.abort(new XpkError('interrupted', what, {hints: ['Re-run the same command to resume.']}))
  }

  /** Aborted on the first Ctrl-C, SIGTERM or SIGHUP (a second one exits at once). */
  protected get signal(): AbortSignal {
    return this.abortController.signal
  }

  /** The console for this run, honouring --json, --quiet, --verbose and --force. */
  protected get console(): Console {
    this.terminal ??= new TerminalConsole({
      json: this.jsonEnabled(),
      quiet: Boolean(this.parsedFlags.quiet),
      verbose: Boolean(this.parsedFlags.verbose),
      force: Boolean(this.parsedFlags.force),
      signal: this.abortController.signal,
    })
    return this.terminal
  }

  /** This run, for the topic's wiring. */
  protected get invocation(): Invocation {
    return {
      console: this.console,
      signal: this.signal,
      json: this.jsonEnabled(),
      output: this.chosenOutput ?? outputChoice({json: this.jsonEnabled()}),
      version: this.config.version,
    }
  }

  /**
   * What every command's `run` does: parses its flags and arguments, and hands them to its topic's function
   * (src/cli/<topic>.ts) as options (the flags camel-cased: {@link camelCaseFlags}) with this run.
   */
  protected async runWith<F extends FlagOutput, B extends FlagOutput, A extends ArgOutput, R>(
    command: Input<F, B, A>,
    wire: (options: NoInfer<CamelCased<ParserOutput<F, B, A>['flags']> & A>, run: Invocation) => Promise<R>,
  ): Promise<R> {
    const {args, flags} = await this.parse(command)
    return wire({...camelCaseFlags(flags), ...args}, this.invocation)
  }

  /**
   * `--json`, and on list and describe commands `-o json` and `-o yaml`: the result (and an error) printed as data,
   * the console quiet on stdout. Read from the command line itself, so even an error in parsing it is printed so.
   */
  override jsonEnabled(): boolean {
    return this.jsonFlagGiven() || this.dataFormat() !== undefined
  }

  /**
   * `--json` before any `--`. oclif also turns JSON on when XPK_CONTENT_TYPE=json is set; xpk reads no environment
   * variable its table does not hold (src/core/environment.ts), so only the flag counts.
   */
  private jsonFlagGiven(): boolean {
    if (!this.ctor.enableJsonFlag) return false
    const end = this.argv.indexOf('--')
    const at = this.argv.indexOf('--json')
    return at !== -1 && (end === -1 || at < end)
  }

  /** The data form asked for: `--json` is JSON whatever `-o` says (a different `-o` is refused as a usage error). */
  private dataFormat(): DataFormat | undefined {
    if (this.jsonFlagGiven()) return 'json'
    const definitions = {...this.ctor.baseFlags, ...this.ctor.flags} as FlagDefinitions
    if (definitions.output === undefined) return undefined
    const given = optionGiven(this.argv, definitions, 'output')
    const format = given === undefined ? undefined : parseOutputFormat(given)
    return format !== undefined && isDataFormat(format) ? format : undefined
  }

  private async loadYamlWriter(): Promise<void> {
    if (this.dataFormat() === 'yaml')
      this.yamlWriter ??= (await import('../core/render/yaml-output.js')).renderYamlOutput
  }

  override async init(): Promise<void> {
    await super.init()
    // The console is needed before (and even without) a successful parse, e.g. to report a parse error verbosely.
    const given = (...names: string[]) => this.argv.some((arg) => names.includes(arg))
    this.parsedFlags = {quiet: given('--quiet', '-q'), verbose: given('--verbose', '-v'), force: given('--force')}
    this.releaseSignals = handleStopSignals(this.onSignal)
  }

  /**
   * oclif's parse, plus the rules every command shares: a value given on the command line is what the user meant,
   * so an empty or blank one is an error (never "use the default": `--cluster "$UNSET_VAR"` once deleted the saved
   * cluster), and so is one that breaks the shape its flag declares (white space at either end, a line break, a
   * sign on a number, an empty list item: src/core/input.ts); a stray argument says which flag it probably belongs
   * to. These problems and oclif's own are reported together. A switch that was not given is `false` (oclif leaves
   * it out), so every command's options hold booleans; one with a `--no-` form stays undefined: not given means the
   * default, which the core decides.
   */
  protected override async parse<F extends FlagOutput, B extends FlagOutput, A extends ArgOutput>(
    options?: Input<F, B, A>,
    argv: string[] = this.argv,
  ): Promise<ParserOutput<F, B, A>> {
    const definitions = {...this.ctor.baseFlags, ...(options?.flags ?? this.ctor.flags)} as FlagDefinitions
    const problems = valueProblems(argv, definitions)
    // -o is checked from the command line, so an unknown form is reported with oclif's own problems too.
    const output = outputProblem(argv, definitions, this.jsonFlagGiven())
    if (output && !problems.some((p) => p.flag === '--output')) problems.push(output)
    await this.loadYamlWriter()
    try {
      const parsed = await super.parse(options, argv)
      problems.push(...argumentProblems(parsed.args, (options?.args ?? this.ctor.args ?? {}) as ArgDefinitions))
      throwIfProblems(problems)
      const flags = parsed.flags as AnyFlags
      this.chosenOutput = outputChoice({
        output: flags.output as string | undefined,
        noHeaders: Boolean(flags['no-headers']),
        json: this.jsonFlagGiven(),
      })
      for (const [name, def] of Object.entries(definitions)) {
        if (def.type === 'boolean' && !def.allowNo) (parsed.flags as AnyFlags)[name] ??= false
      }
      if ((parsed.flags as AnyFlags)['dry-run'] === true && definitions['dry-run']?.changesNothing) {
        const {cliDryRunChangesNothing} = await import('../core/messages/cli.js')
        this.console.info(cliDryRunChangesNothing({command: (this.id ?? '').replaceAll(':', ' ')}))
      }
      return parsed
    } catch (thrown) {
      if (!(thrown instanceof Errors.CLIError) || (thrown.oclif?.exit ?? 2) !== 2) throw thrown
      const error = argv.some(hasControlCharacters) ? await this.escapedParseError(options, argv, thrown) : thrown
      const typed = toXpkError(error, this.id ?? '', Object.keys(definitions))
      const stray = /^Unexpected arguments?: (.+)$/m.exec(error.message)?.[1]
      problems.push(
        stray
          ? strayArgumentProblem(stray, this.id ?? '', definitions, (options?.args ?? this.ctor.args) as ArgDefinitions)
          : new UsageError(typed.message, {hints: typed.hints}),
      )
      throwIfProblems(problems.length === 1 && !stray ? [typed as UsageError] : problems)
      throw error
    }
  }

  /**
   * oclif quotes the values it complains about as given (`--env=A\nB cannot also be provided ...`), where a line
   * break would split its message into lines of their own. The same argv with every value escaped fails the same
   * way (escaping changes no token's kind), so its error is the one reported.
   */
  private async escapedParseError<F extends FlagOutput, B extends FlagOutput, A extends ArgOutput>(
    options: Input<F, B, A> | undefined,
    argv: string[],
    original: Errors.CLIError,
  ): Promise<Errors.CLIError> {
    try {
      await super.parse(options, argv.map(escapeInline))
    } catch (escaped) {
      if (escaped instanceof Errors.CLIError) return escaped
    }
    return original
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    this.releaseSignals?.()
    const done = await super.finally(error)
    // Stopped, but the command ended as if it had finished (a followed log ends cleanly on Ctrl-C): still 130.
    if (error === undefined && this.abortController.signal.aborted) await this.catch(this.abortController.signal.reason)
    return done
  }

  /**
   * JSON goes out plain (no colour codes, no highlighting pass): it is for programs, and big lists stay fast. Under
   * `-o yaml` the same value goes out as YAML.
   */
  override logJson(json: unknown): void {
    process.stdout.write(this.yamlWriter ? this.yamlWriter(json) : `${JSON.stringify(json, null, 2)}\n`)
  }

  protected override async catch(error: Error & {oclif?: {exit?: number}}): Promise<never> {
    if (error instanceof Errors.ExitError) throw error
    let typed = toXpkError(error, this.id ?? '', Object.keys(this.ctor.flags ?? {}))
    // Whatever a stopped command failed with on its way out (a request cut off, say), it was stopped: exit 130.
    const stopped: unknown = this.abortController.signal.reason
    if (typed.kind !== 'interrupted' && this.abortController.signal.aborted && stopped instanceof XpkError) {
      typed = stopped
    }
    if (this.jsonEnabled()) {
      await this.loadYamlWriter()
      this.logJson(errorToJson(typed))
    } else {
      process.stderr.write(formatError(typed, Boolean(this.parsedFlags.verbose)))
    }
    throw new Errors.ExitError(typed.exitCode)
  }
}

type FlagDefinitions = Record<
  string,
  {
    type: 'option' | 'boolean'
    allowNo?: boolean
    char?: string
    aliases?: string[]
    charAliases?: string[]
    multiple?: boolean
    /** The shape of its values (src/cli/flag-kinds.ts shaped); `word` when not declared. */
    valueShape?: ValueShape
    /** `--dry-run` of a command that changes nothing (src/cli/flags.ts noChangeDryRunFlag): a note says so. */
    changesNothing?: boolean
  }
>

type ArgDefinitions = Record<string, {valueShape?: ValueShape}>

/**
 * Finds option flags whose value on the command line breaks the rule every value follows (src/core/input.ts): empty
 * or blank (`--cluster ""`, `--zone=`, `-x " "`), or not of the shape the flag declares (`--cluster " alpha"`,
 * `--num-slices +4`, `--restart-on-exit-codes 3,,5`, a line break in a name), checking each value of a repeatable
 * flag. One problem per flag.
 */
export function valueProblems(argv: readonly string[], definitions: FlagDefinitions): UsageError[] {
  const problems = new Map<string, UsageError>()
  for (const {name, def, values} of optionsGiven(argv, definitions)) {
    if (problems.has(name)) continue
    const problem = flagValueProblem(name, values, def.valueShape ?? 'word')
    if (problem) problems.set(name, problem)
  }
  return [...problems.values()]
}

/**
 * Each option flag on the command line with the values given to it there, read as oclif reads argv (long and short
 * names, aliases, `--flag=value`, `-fvalue`, the greedy values of a repeatable flag), up to a bare `--`. Before
 * oclif's parse, so the rules every command shares can be checked even when that parse fails.
 */
function* optionsGiven(
  argv: readonly string[],
  definitions: FlagDefinitions,
): Generator<{name: string; def: FlagDefinitions[string]; values: string[]}> {
  const byName = new Map<string, string>()
  const byChar = new Map<string, string>()
  for (const [name, def] of Object.entries(definitions)) {
    for (const alias of [name, ...(def.aliases ?? [])]) byName.set(alias, name)
    for (const char of [def.char, ...(def.charAliases ?? [])]) if (char) byChar.set(char, name)
  }
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (token === '--') break
    let name: string | undefined
    let inline: string | undefined
    if (token.startsWith('--')) {
      const eq = token.indexOf('=')
      name = byName.get(eq < 0 ? token.slice(2) : token.slice(2, eq))
      if (eq >= 0) inline = token.slice(eq + 1)
    } else if (/^-[^-]/.test(token)) {
      name = byChar.get(token[1]!)
      if (token.length > 2) inline = token.slice(token[2] === '=' ? 3 : 2)
    }
    const def = name === undefined ? undefined : definitions[name]
    if (name === undefined || def?.type !== 'option') continue
    const values: string[] = []
    if (inline !== undefined) values.push(inline)
    else if (i + 1 < argv.length) values.push(argv[++i]!)
    // oclif's repeatable flags are greedy: `--env A=1 B=2` gives both values to --env.
    while (def.multiple && i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) values.push(argv[++i]!)
    yield {name, def, values}
  }
}

/** The problem with `-o` as given on the command line, if any (src/core/render/output-format.ts). */
function outputProblem(argv: readonly string[], definitions: FlagDefinitions, json: boolean): UsageError | undefined {
  if (definitions.output === undefined) return undefined
  try {
    outputChoice({output: optionGiven(argv, definitions, 'output'), json})
    return undefined
  } catch (error) {
    if (error instanceof UsageError) return error
    throw error
  }
}

/** The first value given to an option flag on the command line (oclif refuses a second one). */
function optionGiven(argv: readonly string[], definitions: FlagDefinitions, flag: string): string | undefined {
  for (const {name, values} of optionsGiven(argv, definitions)) if (name === flag) return values[0]
  return undefined
}

function flagValueProblem(name: string, values: readonly string[], shape: ValueShape): UsageError | undefined {
  const flag = `--${name}`
  if (values.some((v) => v.trim() === '')) {
    return new UsageError(`${flag} was given an empty value. Give a value, or leave the flag out.`, {
      flag,
      hints: ['An empty shell variable is the usual cause: check the variables your script passes to xpk.'],
    })
  }
  for (const value of values) {
    const problem = valueShapeProblem(value, shape)
    if (problem) return new UsageError(valueShapeMessage(flag, value, problem), {flag})
  }
  return undefined
}

/** Positional arguments follow the same rule as flag values (`xpk accelerator describe " v5p-8"`). */
function argumentProblems(args: Record<string, unknown>, definitions: ArgDefinitions): UsageError[] {
  return Object.entries(args).flatMap(([name, value]) => {
    if (typeof value !== 'string') return []
    const problem = valueShapeProblem(value, definitions[name]?.valueShape ?? 'word')
    return problem ? [new UsageError(valueShapeMessage(`The argument ${name.toUpperCase()}`, value, problem))] : []
  })
}

/** The flag a bare argument most likely belongs to: each topic's subject (`xpk cluster delete demo`). */
const SUBJECT_FLAGS: Readonly<Record<string, string>> = {cluster: 'cluster', workload: 'workload', vm: 'tpu-prefix'}

/**
 * "unexpected argument "demo"; did you mean --cluster demo?" A command that takes arguments says which
 * (`xpk accelerator describe` takes one argument, TYPE), not that it takes flags only.
 */
export function strayArgumentProblem(
  listed: string,
  commandId: string,
  definitions: FlagDefinitions,
  argDefinitions: ArgDefinitions = {},
): UsageError {
  const args = listed.split(/,\s*/)
  const command = `xpk ${commandId.replaceAll(':', ' ')}`
  const subject = SUBJECT_FLAGS[commandId.split(':')[0] ?? '']
  const guess = subject !== undefined && subject in definitions && args.length === 1 ? subject : undefined
  const shown = args.map((a) => `"${escapeInline(a)}"`).join(', ')
  const takes = Object.keys(argDefinitions).map((name) => name.toUpperCase())
  const what =
    takes.length === 0
      ? 'takes flags only'
      : `takes ${takes.length === 1 ? 'one argument' : `${takes.length} arguments`}, ${takes.join(' and ')}, and flags`
  return new UsageError(
    `Unexpected argument${args.length === 1 ? '' : 's'} ${shown}: ${command} ${what}.` +
      (guess ? ` Did you mean --${guess} ${escapeInline(args[0]!)}?` : ''),
    {flag: guess ? `--${guess}` : undefined, hints: [`See \`${command} --help\` for flags and examples.`]},
  )
}

/** Maps anything thrown into a typed error: oclif parse failures are usage errors, the rest are bugs. */
export function toXpkError(
  error: Error & {oclif?: {exit?: number}},
  commandId: string,
  flagNames: readonly string[] = [],
): XpkError {
  if (error instanceof XpkError) return error
  const command = commandId ? `xpk ${commandId.replaceAll(':', ' ')}` : 'xpk'
  if (error instanceof Errors.CLIError && (error.oclif?.exit ?? 2) === 2) {
    return new XpkError('usage', tidyParseMessage(error.message), {
      hints: [...flagSuggestions(error.message, flagNames), `See \`${command} --help\` for flags and examples.`],
      cause: error,
    })
  }
  return new XpkError('internal', `Unexpected error: ${error.message}`, {
    hints: ['This is a bug in xpk. Re-run with --verbose for the stack trace and report it.'],
    cause: error,
  })
}

/** "Did you mean --num-slices?" for each mistyped flag in oclif's "Nonexistent flag(s): --num-slice" message. */
function flagSuggestions(message: string, flagNames: readonly string[]): string[] {
  const listed = /^Nonexistent flags?: (.+)$/m.exec(message)?.[1]
  if (!listed || flagNames.length === 0) return []
  return listed.split(/,\s*/).flatMap((given) => {
    const name = given.replace(/^-+/, '').split('=')[0]
    const completions = flagNames.filter((f) => f.startsWith(name))
    const [closest] = completions.length === 1 ? completions : closestMatches(name, flagNames, 1)
    // Only completions and near misses: a suggestion that shares little with what was typed is noise.
    const near = closest && editDistance(name, closest) <= Math.max(2, Math.floor(name.length / 4))
    return completions.length === 1 || near ? [`Did you mean --${closest} (not ${given})?`] : []
  })
}

/**
 * oclif reports each pair of exclusive flags twice ("--a=true cannot also be provided when using --b" and the
 * reverse); say it once, plainly.
 */
function tidyParseMessage(message: string): string {
  const lines = message
    .replace(/\n\s*See more help with --help\s*$/, '')
    .replace(/^The following errors? occurred:\s*/, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  const seen = new Set<string>()
  const out: string[] = []
  for (const line of lines) {
    const pair = /^(--[\w-]+)=.* cannot also be provided when using (--[\w-]+)$/.exec(line)
    const text = pair ? `${[pair[1], pair[2]].sort().join(' and ')} cannot be used together.` : line
    if (!seen.has(text)) out.push(text)
    seen.add(text)
  }
  return out.join('\n')
}

/** The human form of an error: the message, hints, and with --verbose the chain of causes. */
export function formatError(error: XpkError, verbose: boolean): string {
  const problems = error instanceof UsageErrors ? error.problems.map((p) => p.message) : error.message.split('\n')
  const lines =
    problems.length === 1
      ? [`Error: ${problems[0]}`]
      : error instanceof UsageErrors
        ? [`Error: ${problems.length} problems:`, ...problems.map((p) => `  - ${p}`)]
        : [`Error: ${problems[0]}`, ...problems.slice(1).map((p) => `  ${p}`)]
  for (const hint of error.hints) lines.push(`  Hint: ${hint}`)
  if (verbose) {
    let cause: unknown = error.cause
    while (cause instanceof Error) {
      lines.push(`  Cause: ${cause.stack ?? cause.message}`)
      cause = cause.cause
    }
  }
  // Messages quote what users, files and APIs gave; none of it may drive the terminal or show a password.
  return `${escapeControl(redactCredentials(lines.join('\n')))}\n`
}
