// A Console that records everything, for service tests.
import type {Console, ProgressBoard, ProgressLine} from '../../src/ports/console.js'

/** One progress display as the service drove it. */
export interface RecordedBoard {
  readonly title: string
  readonly updates: Array<{id: string; line: ProgressLine}>
  readonly notes: string[]
  closed: boolean
}

/** Records results, messages and progress boards; refuses to prompt. */
export class RecordingConsole implements Console {
  readonly results: string[] = []
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
  confirm(question: string): Promise<boolean> {
    return Promise.reject(new Error(`unexpected prompt: ${question}`))
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
