/**
 * Parsers for the JSON message streams of the Docker Engine's build and push endpoints. They are pure (no I/O) so
 * that the odd corners of the format can be tested without an engine: failures arrive as an in-stream
 * `{error, errorDetail}` message, build output arrives in fragments, and push byte counts can exceed the total.
 */

import type {BuildEvent, BuildFailure, LayerPushState, PushEvent, PushFailure} from '../ports/images.js'

/** How many lines of build output a failure report keeps. */
export const FAILURE_OUTPUT_LINES = 20

/** One message of a Docker progress stream, as far as xpk reads it. */
export interface DockerMessage {
  readonly stream?: string
  readonly status?: string
  readonly id?: string
  readonly progressDetail?: {readonly current?: number; readonly total?: number}
  readonly aux?: {readonly ID?: string; readonly Tag?: string; readonly Digest?: string; readonly Size?: number}
  readonly error?: string
  readonly errorDetail?: {readonly message?: string; readonly code?: number}
}

const STEP_LINE = /^Step (\d+)\/(\d+) : (.*)$/

/** Turns build messages into {@link BuildEvent}s and remembers what a failure report needs. */
export class BuildStreamParser {
  private pending = ''
  private readonly lines: string[] = []
  private step: BuildFailure['step'] = null
  private failureMessage: string | null = null
  private id: string | null = null

  /** Feeds one message; returns the events it completes. */
  feed(message: DockerMessage): BuildEvent[] {
    const events: BuildEvent[] = []
    if (typeof message.stream === 'string') {
      this.pending += message.stream
      // Messages are not lines: a step header arrives without its newline, which follows as its own message.
      const parts = this.pending.split('\n')
      this.pending = parts.pop() ?? ''
      for (const line of parts) this.line(line, events)
    }
    if (message.aux?.ID) this.id = message.aux.ID
    if (message.error !== undefined || message.errorDetail?.message !== undefined) {
      this.flush(events)
      this.failureMessage = (message.errorDetail?.message ?? message.error ?? 'unknown error').trim()
    }
    return events
  }

  /** Ends the stream; returns the events of a last unterminated line. */
  end(): BuildEvent[] {
    const events: BuildEvent[] = []
    this.flush(events)
    return events
  }

  /** The failure reported in the stream, or null when the build succeeded. */
  get failure(): BuildFailure | null {
    if (this.failureMessage === null) return null
    return {message: this.failureMessage, step: this.step, output: this.lines.slice(-FAILURE_OUTPUT_LINES)}
  }

  /** The id of the built image (`sha256:...`), when the engine sent it. */
  get imageId(): string | null {
    return this.id
  }

  /** The step currently running. */
  get currentStep(): BuildFailure['step'] {
    return this.step
  }

  private flush(events: BuildEvent[]): void {
    if (this.pending !== '') this.line(this.pending, events)
    this.pending = ''
  }

  private line(raw: string, events: BuildEvent[]): void {
    const text = raw.replace(/\r$/, '')
    if (text.trim() === '') return
    this.lines.push(text)
    if (this.lines.length > FAILURE_OUTPUT_LINES * 2) this.lines.splice(0, this.lines.length - FAILURE_OUTPUT_LINES)
    const header = STEP_LINE.exec(text)
    if (header) {
      this.step = {step: Number(header[1]), steps: Number(header[2]), instruction: header[3]!.trim()}
      events.push({kind: 'step', ...this.step})
    } else {
      events.push({kind: 'output', text})
    }
  }
}

const LAYER_STATES: ReadonlyArray<[RegExp, LayerPushState]> = [
  [/^Preparing$/, 'preparing'],
  [/^Waiting$/, 'waiting'],
  [/^Pushing$/, 'pushing'],
  [/^Pushed$/, 'pushed'],
  [/^Layer already exists$/, 'exists'],
  [/^Mounted from /, 'mounted'],
  [/^Retrying in /, 'retrying'],
]

const DIGEST_STATUS = /: digest: (sha256:[0-9a-f]{64}) size: \d+/
const DENIED = /unauthori[sz]ed|denied|authentication required|no basic auth credentials|forbidden|\b40[13]\b/i

/** Turns push messages into {@link PushEvent}s and finds the pushed manifest digest. */
export class PushStreamParser {
  private digestFromAux: string | null = null
  private digestFromStatus: string | null = null
  private failureInfo: PushFailure | null = null
  private readonly finalStates = new Map<string, LayerPushState>()

  /** Feeds one message; returns the layer event it carries, if any. */
  feed(message: DockerMessage): PushEvent[] {
    if (message.error !== undefined || message.errorDetail?.message !== undefined) {
      const text = (message.errorDetail?.message ?? message.error ?? 'unknown error').trim()
      this.failureInfo = {message: text, denied: DENIED.test(text)}
      return []
    }
    if (message.aux?.Digest) this.digestFromAux = message.aux.Digest
    const status = message.status ?? ''
    const fromStatus = DIGEST_STATUS.exec(status)
    if (fromStatus) this.digestFromStatus = fromStatus[1]!
    if (!message.id) return []
    const state = LAYER_STATES.find(([pattern]) => pattern.test(status))?.[1]
    if (!state) return []
    this.finalStates.set(message.id, state)
    if (state !== 'pushing') return [{kind: 'layer', id: message.id, state}]
    const total = message.progressDetail?.total
    const current = message.progressDetail?.current
    if (typeof total !== 'number' || typeof current !== 'number' || total <= 0) {
      return [{kind: 'layer', id: message.id, state}]
    }
    // The engine sometimes reports more bytes sent than the layer holds.
    return [{kind: 'layer', id: message.id, state, current: Math.min(Math.max(current, 0), total), total}]
  }

  /** The pushed manifest digest, preferring the structured `aux` message over the status text. */
  get digest(): string | null {
    return this.digestFromAux ?? this.digestFromStatus
  }

  /** The failure reported in the stream, or null. */
  get failure(): PushFailure | null {
    return this.failureInfo
  }

  /** The last state of each layer id seen. */
  get layers(): ReadonlyMap<string, LayerPushState> {
    return this.finalStates
  }
}
