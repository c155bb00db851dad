import type {Answer, Message, Question} from '../core/messages.js'

/**
 * How services talk to the person at the terminal. Results go to stdout; everything else (progress, notes,
 * warnings, prompts) goes to stderr so that stdout stays clean for pipes and `--json`.
 */
export interface Console {
  /**
   * Prints a result (stdout). Suppressed under `--json`, where the command's return value is the result; pass a
   * function to skip rendering altogether in that case.
   */
  result(text: string | (() => string)): void
  /** Prints a progress note (stderr). Suppressed by `--quiet`. Only a note's maker makes a `Message<'info'>`. */
  info(message: Message<'info'>): void
  /** Prints a warning (stderr). Never suppressed. Only a warning's maker makes a `Message<'warn'>`. */
  warn(message: Message<'warn'>): void
  /** Prints a detail only shown with `--verbose` (stderr). */
  debug(text: string): void
  /**
   * Asks a yes/no question. `--force` answers yes without asking; when nobody can be asked (no terminal, or
   * `--quiet`), the host answers the question's default and says so in the answer. Services go through
   * `confirmOrStop` (services/confirm.ts), which turns a "no" into the right error.
   */
  confirm(question: Question): Promise<Answer>
  /** Starts a live progress display for long work; close it when done. */
  progress(title: string): ProgressBoard
}

/** The state of one line of a progress display (one node pool, one image layer, ...). */
export interface ProgressLine {
  /** What the line is about, e.g. a node-pool name or a layer id. */
  readonly label: string
  /** A short word or phrase for the current state, e.g. "creating", "pushing". */
  readonly state: string
  readonly status: 'waiting' | 'running' | 'done' | 'failed'
  /** For byte or step counts: progress so far and the expected total. */
  readonly current?: number
  readonly total?: number
  /** Free text shown after the state, e.g. an error cause. */
  readonly detail?: string
}

/** A live, multi-line progress display. On a terminal, lines redraw in place; otherwise each change is a timestamped line. */
export interface ProgressBoard {
  /** Adds or updates the line with this id. */
  update(id: string, line: ProgressLine): void
  /** Prints a one-off note above the live lines. */
  note(message: Message<'info'>): void
  /** Stops redrawing and leaves the final state on screen. */
  close(): void
}
