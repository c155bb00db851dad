import {XpkError} from '../core/errors.js'
import type {Answer, Message, Question} from '../core/messages.js'
import {escapeControl, redactCredentials} from '../core/text.js'
import type {Console, ProgressBoard, ProgressLine} from '../ports/console.js'

/** Streams and switches for {@link TerminalConsole}; defaults are the process's own. */
export interface TerminalConsoleOptions {
  readonly json?: boolean
  readonly quiet?: boolean
  readonly verbose?: boolean
  readonly force?: boolean
  readonly stdout?: NodeJS.WritableStream
  readonly stderr?: NodeJS.WritableStream & {isTTY?: boolean; rows?: number; columns?: number}
  readonly stdin?: NodeJS.ReadableStream & {isTTY?: boolean}
  /** Ctrl-C while a question waits for its answer rejects the question. */
  readonly signal?: AbortSignal
  /** Overrides TTY detection of stderr (live progress) — for tests. */
  readonly live?: boolean
  readonly now?: () => Date
}

/** The real {@link Console}: stdout for results, stderr for the rest, prompts on the terminal. */
export class TerminalConsole implements Console {
  private readonly options: TerminalConsoleOptions
  private readonly stdout: NodeJS.WritableStream
  private readonly stderr: NonNullable<TerminalConsoleOptions['stderr']>
  private activeBoard: LiveBoard | undefined

  constructor(options: TerminalConsoleOptions = {}) {
    this.options = options
    this.stdout = options.stdout ?? process.stdout
    this.stderr = options.stderr ?? process.stderr
  }

  result(output: string | (() => string)): void {
    if (this.options.json) return
    const text = typeof output === 'function' ? output() : output
    this.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  info(message: Message): void {
    if (this.options.quiet) return
    this.writeErr(message.text)
  }

  warn(message: Message): void {
    this.writeErr(`Warning: ${message.text}`)
  }

  debug(text: string): void {
    if (this.options.verbose) this.writeErr(text)
  }

  async confirm(asked: Question): Promise<Answer> {
    if (this.options.force) return {yes: true, by: 'force'}
    // Python xpk's --quiet also answered prompts with yes. Here it only quiets output: a script moved over must
    // neither hang on a question nobody sees nor go ahead with something destructive unasked, so the host answers
    // the question's default (no, for anything destructive).
    if (this.options.quiet) return {yes: asked.default, by: 'default', why: 'quiet'}
    const stdin = this.options.stdin ?? process.stdin
    if (!stdin.isTTY) return {yes: asked.default, by: 'default', why: 'no-terminal'}
    const question = escapeControl(asked.text)
    // Lines are read as a stream so answers typed ahead (or piped through a pty) are not lost between questions.
    const {createInterface} = await import('node:readline')
    const rl = createInterface({input: stdin, terminal: false})
    const lines = rl[Symbol.asyncIterator]()
    const signal = this.options.signal
    const interrupted = new Promise<never>((_, reject) => {
      const stop = () => reject(new XpkError('interrupted', 'Interrupted at the question: nothing was changed.'))
      if (signal?.aborted) stop()
      signal?.addEventListener('abort', stop, {once: true})
    })
    interrupted.catch(() => undefined)
    try {
      for (;;) {
        this.stderr.write(`${question} ${asked.default ? '(Y/n)' : '(y/N)'}: `)
        const next = await Promise.race([lines.next(), interrupted])
        // End of input (Ctrl-D) takes the default, which is "no" for anything destructive.
        if (next.done) return {yes: asked.default, by: 'person'}
        const answer = String(next.value).trim().toLowerCase()
        if (answer === '') return {yes: asked.default, by: 'person'}
        if (answer === 'y' || answer === 'yes') return {yes: true, by: 'person'}
        if (answer === 'n' || answer === 'no') return {yes: false, by: 'person'}
        this.stderr.write('Please answer yes or no (y/n).\n')
      }
    } finally {
      rl.close()
    }
  }

  progress(title: string): ProgressBoard {
    const live = this.options.live ?? Boolean(this.stderr.isTTY)
    if (this.options.quiet) return new PlainBoard(this.stderr, this.now, true)
    if (!live) {
      this.writeErr(title)
      return new PlainBoard(this.stderr, this.now, false)
    }
    this.writeErr(title)
    this.activeBoard = new LiveBoard(this.stderr, this.now)
    return this.activeBoard
  }

  private readonly now = (): Date => (this.options.now ? this.options.now() : new Date())

  // Everything on stderr may quote names, files and API messages: none of it may drive the terminal or show a
  // password (a kubeconfig's server URL may hold one).
  private writeErr(raw: string): void {
    const text = escapeControl(redactCredentials(raw))
    const line = text.endsWith('\n') ? text : `${text}\n`
    if (this.activeBoard?.isOpen) this.activeBoard.writeAbove(line.trimEnd())
    else this.stderr.write(line)
  }
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000)
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
}

function formatBar(current: number, total: number, width = 20): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, current / total)) : 0
  const filled = Math.round(ratio * width)
  return `[${'='.repeat(filled)}${' '.repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}%`
}

interface BoardEntry {
  line: ProgressLine
  startedAt: number
  endedAt?: number
}

/** Redraws one line per id in place, with a spinner and elapsed time, at most ten times a second. */
class LiveBoard implements ProgressBoard {
  isOpen = true
  private readonly entries = new Map<string, BoardEntry>()
  private drawnLines = 0
  private frame = 0
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly out: NonNullable<TerminalConsoleOptions['stderr']>,
    private readonly now: () => Date,
  ) {
    this.timer = setInterval(() => this.draw(), 100)
    this.timer.unref()
  }

  update(id: string, line: ProgressLine): void {
    const t = this.now().getTime()
    const entry = this.entries.get(id)
    if (!entry) this.entries.set(id, {line, startedAt: t, endedAt: isFinal(line) ? t : undefined})
    else {
      if (entry.line.status === 'waiting' && line.status === 'running') entry.startedAt = t
      entry.line = line
      entry.endedAt = isFinal(line) ? (entry.endedAt ?? t) : undefined
    }
  }

  note(message: Message): void {
    this.writeAbove(message.text)
  }

  writeAbove(text: string): void {
    this.clear()
    this.out.write(`${escapeControl(text)}\n`)
    this.draw()
  }

  close(): void {
    if (!this.isOpen) return
    clearInterval(this.timer)
    this.draw()
    this.isOpen = false
  }

  private clear(): void {
    if (this.drawnLines > 0) this.out.write(`\x1b[${this.drawnLines}A\x1b[0J`)
    this.drawnLines = 0
  }

  private draw(): void {
    if (!this.isOpen) return
    this.frame = (this.frame + 1) % SPINNER.length
    const now = this.now().getTime()
    const maxLines = Math.max(3, (this.out.rows ?? 24) - 2)
    const all = [...this.entries.values()]
    let shown = all
    const summary: string[] = []
    if (all.length > maxLines) {
      // Too many lines for the screen: keep what is moving or broken, count the rest.
      shown = all.filter((e) => e.line.status === 'running' || e.line.status === 'failed').slice(0, maxLines - 1)
      const done = all.filter((e) => e.line.status === 'done').length
      const waiting = all.filter((e) => e.line.status === 'waiting').length
      const failed = all.filter((e) => e.line.status === 'failed').length
      const running = all.filter((e) => e.line.status === 'running').length
      summary.push(`  ${done} done, ${running} running, ${waiting} waiting, ${failed} failed (of ${all.length})`)
    }
    const width = Math.max(...shown.map((e) => e.line.label.length), 0)
    const columns = this.out.columns ?? 120
    const lines = shown.map((e) => {
      const {line} = e
      const icon =
        line.status === 'done'
          ? '✔'
          : line.status === 'failed'
            ? '✖'
            : line.status === 'waiting'
              ? '·'
              : SPINNER[this.frame]
      const elapsed = formatElapsed((e.endedAt ?? now) - e.startedAt)
      const bar = line.total !== undefined ? ` ${formatBar(line.current ?? 0, line.total)}` : ''
      const detail = line.detail ? `  ${line.detail}` : ''
      return `${icon} ${line.label.padEnd(width)}  ${line.state.padEnd(10)} ${elapsed.padStart(6)}${bar}${detail}`.slice(
        0,
        columns - 1,
      )
    })
    const text = [...lines, ...summary].map(escapeControl)
    this.clear()
    if (text.length > 0) this.out.write(`${text.join('\n')}\n`)
    this.drawnLines = text.length
  }
}

function isFinal(line: ProgressLine): boolean {
  return line.status === 'done' || line.status === 'failed'
}

/**
 * What a board prints for a line when there is no terminal to redraw it on (after a timestamp): its label, state and
 * detail. Not its status: on a terminal the status is the icon in front, and a line that goes from running to done
 * with the same words says nothing new in a log.
 */
export function plainProgressText(line: ProgressLine): string {
  return `${line.label}  ${line.state}${line.detail ? `  ${line.detail}` : ''}`
}

/**
 * Prints a timestamped line whenever what a line shows changes ({@link plainProgressText}), so each state is printed
 * once however often the service reports it; byte counts alone never print. Silent (`--quiet`) prints failed lines
 * only, each once.
 */
class PlainBoard implements ProgressBoard {
  private readonly last = new Map<string, string>()

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly now: () => Date,
    private readonly silent: boolean,
  ) {}

  update(id: string, line: ProgressLine): void {
    if (this.silent && line.status !== 'failed') return
    const text = plainProgressText(line)
    if (this.last.get(id) === text) return
    this.last.set(id, text)
    const stamp = this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z')
    this.out.write(escapeControl(`${stamp}  ${text}`) + '\n')
  }

  note(message: Message): void {
    if (!this.silent) this.out.write(`${escapeControl(message.text)}\n`)
  }

  close(): void {}
}
