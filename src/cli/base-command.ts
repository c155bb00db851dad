import {Command} from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'

import {TerminalConsole} from '../adapters/terminal-console.js'
import {errorToJson, UsageErrors, XpkError} from '../core/errors.js'
import {closestMatches, editDistance} from '../core/suggest.js'
import type {Console} from '../ports/console.js'
import {globalFlags} from './flags.js'

type AnyFlags = Record<string, unknown>

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
  private terminal: TerminalConsole | undefined
  private readonly abortController = new AbortController()
  private readonly onSigint = (): void => {
    if (this.abortController.signal.aborted) process.exit(130)
    this.abortController.abort(
      new XpkError('interrupted', 'Interrupted.', {hints: ['Re-run the same command to resume.']}),
    )
  }

  /** Aborted on the first Ctrl-C (a second one exits at once). */
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

  override async init(): Promise<void> {
    await super.init()
    // The console is needed before (and even without) a successful parse, e.g. to report a parse error verbosely.
    const given = (...names: string[]) => this.argv.some((arg) => names.includes(arg))
    this.parsedFlags = {quiet: given('--quiet', '-q'), verbose: given('--verbose', '-v'), force: given('--force')}
    process.on('SIGINT', this.onSigint)
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    process.off('SIGINT', this.onSigint)
    return super.finally(error)
  }

  /** JSON goes out plain (no colour codes, no highlighting pass): it is for programs, and big lists stay fast. */
  override logJson(json: unknown): void {
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`)
  }

  protected override async catch(error: Error & {oclif?: {exit?: number}}): Promise<never> {
    if (error instanceof Errors.ExitError) throw error
    const typed = toXpkError(error, this.id ?? '', Object.keys(this.ctor.flags ?? {}))
    if (this.jsonEnabled()) {
      this.logJson(errorToJson(typed))
    } else {
      process.stderr.write(formatError(typed, Boolean(this.parsedFlags.verbose)))
    }
    throw new Errors.ExitError(typed.exitCode)
  }
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
  return `${lines.join('\n')}\n`
}
