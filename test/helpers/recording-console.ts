// A Console that records everything, for service tests.
import {plainProgressText} from '../../src/adapters/terminal-console.js'
import type {Answer, Message, MessageCode, Question} from '../../src/core/messages.js'
import {MESSAGES} from '../../src/core/messages/registry.js'
import type {Console, ProgressBoard, ProgressLine} from '../../src/ports/console.js'

/** One progress display as the service drove it. */
export interface RecordedBoard {
  readonly title: string
  readonly updates: Array<{id: string; line: ProgressLine}>
  readonly notes: Message[]
  closed: boolean
}

/**
 * How a {@link RecordingConsole} answers prompts: refuse (a test that does not expect one fails), answer as a
 * person would (yes or no), or act as the terminal host does when nobody can be asked (no terminal, --quiet): it
 * answers the question's default.
 */
export type PromptAnswer = 'unexpected' | 'yes' | 'no' | 'no-terminal' | 'quiet'

/**
 * Records results, coded messages, questions and progress boards. A message whose code is registered for another
 * level (a warning code passed to `info`, say) fails the test, so the registry in src/core/messages.ts stays true.
 */
export class RecordingConsole implements Console {
  readonly results: string[] = []
  readonly messages: Array<Message & {level: 'info' | 'warn'}> = []
  readonly questions: Question[] = []
  readonly debugs: string[] = []
  readonly boards: RecordedBoard[] = []
  private readonly answer: PromptAnswer

  constructor(answer: PromptAnswer = 'unexpected') {
    this.answer = answer
  }

  result(text: string | (() => string)): void {
    this.results.push(typeof text === 'function' ? text() : text)
  }
  info(message: Message): void {
    this.messages.push({...checkLevel(message, 'info'), level: 'info'})
  }
  warn(message: Message): void {
    this.messages.push({...checkLevel(message, 'warn'), level: 'warn'})
  }
  debug(text: string): void {
    this.debugs.push(text)
  }

  /** Codes of the notes and warnings, in order (optionally of one level). */
  codes(level?: 'info' | 'warn'): MessageCode[] {
    return this.messages.filter((m) => level === undefined || m.level === level).map((m) => m.code)
  }

  /** The one message with this code; fails when there is none or more than one. */
  the(code: MessageCode): Message {
    const found = [...this.messages, ...this.boards.flatMap((b) => b.notes)].filter((m) => m.code === code)
    if (found.length !== 1) throw new Error(`expected one ${code} message, got ${found.length}: ${this.codes()}`)
    return found[0]
  }

  confirm(asked: Question): Promise<Answer> {
    checkLevel(asked, 'question')
    this.questions.push(asked)
    switch (this.answer) {
      case 'yes':
        return Promise.resolve({yes: true, by: 'person'})
      case 'no':
        return Promise.resolve({yes: false, by: 'person'})
      case 'no-terminal':
        return Promise.resolve({yes: asked.default, by: 'default', why: 'no-terminal'})
      case 'quiet':
        return Promise.resolve({yes: asked.default, by: 'default', why: 'quiet'})
      case 'unexpected':
        return Promise.reject(new Error(`unexpected prompt ${asked.code}: ${asked.text}`))
    }
  }
  progress(title: string): ProgressBoard {
    const board: RecordedBoard = {title, updates: [], notes: [], closed: false}
    this.boards.push(board)
    return {
      update: (id, line) => board.updates.push({id, line}),
      note: (message) => board.notes.push(checkLevel(message, 'info')),
      close: () => (board.closed = true),
    }
  }

  /**
   * The lines the board whose title starts with `prefix` prints when there is no terminal (without timestamps), in
   * order: each update whose text differs from its line's last one, by the terminal console's own rule.
   */
  printed(prefix: string): string[] {
    const board = this.boards.find((b) => b.title.startsWith(prefix))
    if (!board) throw new Error(`no progress board titled "${prefix}..."; boards: ${this.boards.map((b) => b.title)}`)
    const last = new Map<string, string>()
    const lines: string[] = []
    for (const {id, line} of board.updates) {
      const text = plainProgressText(line)
      if (last.get(id) === text) continue
      last.set(id, text)
      lines.push(text)
    }
    return lines
  }

  /** The last state of each line of the board whose title starts with `prefix`. */
  finalLines(prefix: string): Map<string, ProgressLine> {
    const board = this.boards.find((b) => b.title.startsWith(prefix))
    if (!board) throw new Error(`no progress board titled "${prefix}..."; boards: ${this.boards.map((b) => b.title)}`)
    return new Map(board.updates.map(({id, line}) => [id, line]))
  }
}

function checkLevel<M extends Message | Question>(message: M, level: 'info' | 'warn' | 'question'): M {
  const registered = MESSAGES[message.code]?.level
  if (registered !== level) {
    throw new Error(`message ${message.code} is registered as ${registered ?? 'nothing'} but was sent as ${level}`)
  }
  return message
}
