// A Console that records everything, for service tests.
import {UsageError} from '../../src/core/errors.js'
import type {Console, ProgressBoard, ProgressLine} from '../../src/ports/console.js'

/** One progress display as the service drove it. */
export interface RecordedBoard {
  readonly title: string
  readonly updates: Array<{id: string; line: ProgressLine}>
  readonly notes: string[]
  closed: boolean
}

/**
 * How a {@link RecordingConsole} answers prompts: refuse (a test that does not expect one fails), answer yes or
 * no, or act as the terminal console does with no terminal and no --force.
 */
export type PromptAnswer = 'unexpected' | 'yes' | 'no' | 'no-terminal'

/** Records results, messages, prompts and progress boards. */
export class RecordingConsole implements Console {
  readonly results: string[] = []
  readonly questions: string[] = []
  readonly infos: string[] = []
  readonly warnings: string[] = []
  readonly debugs: string[] = []
  readonly boards: RecordedBoard[] = []

  result(text: string): void {
    this.results.push(text)
  }
  info(text: string): void {
    this.infos.push(text)
  }
  warn(text: string): void {
    this.warnings.push(text)
  }
  debug(text: string): void {
    this.debugs.push(text)
  }
  private readonly answer: PromptAnswer

  constructor(answer: PromptAnswer = 'unexpected') {
    this.answer = answer
  }

  confirm(question: string): Promise<boolean> {
    this.questions.push(question)
    switch (this.answer) {
      case 'yes':
        return Promise.resolve(true)
      case 'no':
        return Promise.resolve(false)
      case 'no-terminal':
        return Promise.reject(new UsageError(`${question}\nThere is no terminal to ask on.`, {flag: '--force'}))
      case 'unexpected':
        return Promise.reject(new Error(`unexpected prompt: ${question}`))
    }
  }
  progress(title: string): ProgressBoard {
    const board: RecordedBoard = {title, updates: [], notes: [], closed: false}
    this.boards.push(board)
    return {
      update: (id, line) => board.updates.push({id, line}),
      note: (text) => board.notes.push(text),
      close: () => (board.closed = true),
    }
  }

  /** The last state of each line of the board whose title starts with `prefix`. */
  finalLines(prefix: string): Map<string, ProgressLine> {
    const board = this.boards.find((b) => b.title.startsWith(prefix))
    if (!board) throw new Error(`no progress board titled "${prefix}..."; boards: ${this.boards.map((b) => b.title)}`)
    return new Map(board.updates.map(({id, line}) => [id, line]))
  }
}
