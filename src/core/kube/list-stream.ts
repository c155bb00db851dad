import {cutterFor, type FieldMask} from './field-mask.js'

/** A list answer that is not JSON, or not a JSON object. */
export class ListSyntaxError extends Error {}

/**
 * Parses a Kubernetes list answer (`{"apiVersion":..,"kind":..,"metadata":{..},"items":[..]}`, its keys in any order)
 * from text given piece by piece as it arrives, one item at a time: each item is parsed (JSON.parse) as soon as its
 * last character is in, and cut down to `fields` at once.
 *
 * Why not JSON.parse of the whole body: a page of 500 Kueue Workloads is 1.3 MB of JSON, and parsing it whole
 * needs the body gathered into one buffer, decoded into one megabyte string and turned into 5 MB of objects that
 * all live until the last is read. Each of those large blocks is fresh memory (V8 gives every string over 128 KB
 * its own mapping), and touching fresh memory is what a list of 10,000 workloads spent most of its time on.
 * Item by item, every string and object is small and short-lived, and the parsing happens while the rest of the
 * page is still on its way.
 *
 * The scanner only finds where each item (and each other top-level value) begins and ends, minding strings and
 * escapes; JSON.parse reads each piece, so anything malformed is still refused.
 */
export class ListStream {
  readonly items: unknown[] = []
  /** The other top-level values (metadata, apiVersion, kind), parsed. */
  readonly others: Record<string, unknown> = {}

  /** Text not yet consumed: from `start`, the key or value being scanned. */
  private text = ''
  private start = 0
  /** Scan position in `text`. */
  private at = 0
  private state: State = 'start'
  /** The top-level key whose value is being read. */
  private key = ''
  /** Whether the value being scanned is an item (else the value of `key`). */
  private inItems = false
  /** Open brackets inside the value being scanned. */
  private nesting = 0
  private inString = false

  /** Cuts each item down to the fields asked for (or keeps it whole). */
  private readonly cut: (item: unknown) => unknown

  constructor(fields?: FieldMask) {
    this.cut = cutterFor(fields ?? true)
  }

  /** Takes the next piece of the body. */
  push(piece: string): void {
    if (this.start === this.text.length) this.text = piece
    else this.text = this.text.slice(this.start) + piece
    this.at -= this.start
    this.start = 0
    this.scan()
  }

  /**
   * The body is complete: throws ListSyntaxError unless it was one whole JSON object.
   * @returns the items and the continue token of the list's metadata
   */
  end(): {items: unknown[]; continue?: string} {
    if (this.state !== 'done' || this.text.slice(this.at).trim() !== '') {
      throw new ListSyntaxError('the body ends before the JSON object does')
    }
    const metadata = this.others.metadata as {continue?: unknown} | undefined
    const token = metadata?.continue
    return typeof token === 'string' && token !== '' ? {items: this.items, continue: token} : {items: this.items}
  }

  private scan(): void {
    const text = this.text
    while (this.at < text.length) {
      if (!IN_VALUE.has(this.state)) this.start = this.at
      switch (this.state) {
        case 'start':
          if (!this.expect(OPEN_BRACE, 'key-or-end')) return
          break
        case 'key-or-end':
        case 'key': {
          const c = this.skipSpace()
          if (c < 0) return
          if (c === CLOSE_BRACE && this.state === 'key-or-end') {
            this.at++
            this.state = 'done'
            break
          }
          if (c !== QUOTE) throw new ListSyntaxError('expected a key')
          const end = this.stringEnd(this.at + 1)
          if (end < 0) return
          this.key = JSON.parse(text.slice(this.at, end + 1)) as string
          this.at = end + 1
          this.state = 'colon'
          break
        }
        case 'colon':
          if (!this.expect(COLON, 'value')) return
          break
        case 'value': {
          const c = this.skipSpace()
          if (c < 0) return
          if (this.key === 'items' && c === OPEN_BRACKET) {
            this.at++
            this.state = 'item-or-end'
          } else {
            this.beginValue(c, false)
          }
          break
        }
        case 'item-or-end':
        case 'item': {
          const c = this.skipSpace()
          if (c < 0) return
          if (c === CLOSE_BRACKET && this.state === 'item-or-end') {
            this.at++
            this.state = 'after-value'
            break
          }
          this.beginValue(c, true)
          break
        }
        case 'body':
        case 'scalar':
          if (!this.scanValue()) return
          break
        case 'after-item': {
          const c = this.skipSpace()
          if (c < 0) return
          this.at++
          if (c === COMMA) this.state = 'item'
          else if (c === CLOSE_BRACKET) this.state = 'after-value'
          else throw new ListSyntaxError('expected , or ] between items')
          break
        }
        case 'after-value': {
          const c = this.skipSpace()
          if (c < 0) return
          this.at++
          if (c === COMMA) this.state = 'key'
          else if (c === CLOSE_BRACE) this.state = 'done'
          else throw new ListSyntaxError('expected , or } after a value')
          break
        }
        case 'done':
          if (this.skipSpace() >= 0) throw new ListSyntaxError('text after the JSON object')
          return
      }
    }
  }

  /** Starts scanning the value (an item, or the value of `key`) whose first character `c` is at `at`. */
  private beginValue(c: number, item: boolean): void {
    this.start = this.at
    this.inItems = item
    this.inString = false
    this.nesting = 0
    this.state = c === OPEN_BRACE || c === OPEN_BRACKET || c === QUOTE ? 'body' : 'scalar'
  }

  /** Scans the value that starts at `start`; true when it ended (and was taken), false when more text is needed. */
  private scanValue(): boolean {
    const text = this.text
    let i = this.at
    if (this.state === 'scalar') {
      while (i < text.length && !this.scalarEnd(i)) i++
      this.at = i
      if (i === text.length) return false
      this.finishValue(i)
      return true
    }
    let nesting = this.nesting
    while (i < text.length) {
      if (this.inString) {
        const end = this.stringEnd(i)
        if (end < 0) {
          this.at = text.length
          this.nesting = nesting
          return false
        }
        this.inString = false
        i = end + 1
        if (nesting === 0) {
          this.finishValue(i)
          return true
        }
        continue
      }
      const c = text.charCodeAt(i++)
      if (c === QUOTE) this.inString = true
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) nesting++
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --nesting === 0) {
        this.finishValue(i)
        return true
      }
    }
    this.at = i
    this.nesting = nesting
    return false
  }

  /** Whether text[i] ends a scalar (number, true, false, null). */
  private scalarEnd(i: number): boolean {
    const c = this.text.charCodeAt(i)
    return i >= this.text.length || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)
  }

  /** The value is text[start, end): parse it and go on after it. */
  private finishValue(end: number): void {
    let value: unknown
    try {
      value = JSON.parse(this.text.slice(this.start, end))
    } catch (error) {
      throw new ListSyntaxError((error as Error).message)
    }
    if (this.inItems) {
      this.items.push(this.cut(value))
      this.state = 'after-item'
    } else {
      this.others[this.key] = value
      this.state = 'after-value'
    }
    this.at = end
    this.start = end
  }

  /**
   * The index of the quote that ends the string whose contents start at `from`, or -1 when it is not in yet.
   * A quote preceded by an odd number of backslashes is escaped.
   */
  private stringEnd(from: number): number {
    const text = this.text
    let i = from
    for (;;) {
      const quote = text.indexOf('"', i)
      // Not in yet: the scan resumes after what it has seen (a backslash at the end still counts, from the text).
      if (quote < 0) return -1
      let slashes = 0
      while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++
      if (slashes % 2 === 0) return quote
      i = quote + 1
    }
  }

  /** Skips whitespace; the character found, or -1 when the text ran out. */
  private skipSpace(): number {
    const text = this.text
    while (this.at < text.length && isSpace(text.charCodeAt(this.at))) this.at++
    return this.at < text.length ? text.charCodeAt(this.at) : -1
  }

  /** Takes `char` (after whitespace) and moves to `next`; false when the text ran out first. */
  private expect(char: number, next: State): boolean {
    const c = this.skipSpace()
    if (c < 0) return false
    if (c !== char) throw new ListSyntaxError(`expected ${String.fromCharCode(char)}`)
    this.at++
    this.state = next
    return true
  }
}

type State =
  | 'start'
  | 'key-or-end'
  | 'key'
  | 'colon'
  | 'value'
  | 'body'
  | 'item-or-end'
  | 'item'
  | 'scalar'
  | 'after-item'
  | 'after-value'
  | 'done'

/** States in which text from `start` must be kept: a key or a value is being scanned. */
const IN_VALUE: ReadonlySet<State> = new Set<State>(['key', 'key-or-end', 'body', 'scalar'])

const QUOTE = 34
const BACKSLASH = 92
const COMMA = 44
const COLON = 58
const OPEN_BRACE = 123
const CLOSE_BRACE = 125
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9
}
