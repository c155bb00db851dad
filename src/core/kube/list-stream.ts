import {maskNode, type FieldMask, type MaskLevel, type MaskNode} from './field-mask.js'

/** A list answer that is not JSON, or not a JSON object. */
export class ListSyntaxError extends Error {}

/**
 * Parses a Kubernetes list answer (`{"apiVersion":..,"kind":..,"metadata":{..},"items":[..]}`, its keys in any order)
 * from text given piece by piece as it arrives, one item at a time: each item is parsed (JSON.parse) as soon as its
 * last character is in, and only the fields asked for are parsed at all (see below).
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
 *
 * With `fields` (a FieldMask), each item is projected as it is scanned: at each level the mask names, the scanner
 * reads the keys, and the value of a key the mask does not keep is only skipped over (its end found, minding
 * strings and escapes and that each bracket closes the one it should) and cut out of the item's text, with the
 * comma that separated it. What remains is valid JSON with just the fields kept, and JSON.parse of it gives the
 * object `projectFields(JSON.parse(item), fields)` gives (its keys in the item's order rather than the mask's):
 * most of a JobSet or a Workload (pod templates' commands, env, failure policies, managed fields) is never parsed,
 * so never allocated. What is cut out is checked only as far as finding its end needs: a value with a stray
 * character in a dropped field is not refused (the API server writes JSON with its own encoder).
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

  /** The mask of the items: `true` parses them whole. */
  private readonly node: MaskNode

  // The projection of the items (while `state` is 'project'). Positions are indexes in `text`.
  private step: Step = ITEM
  /** The mask of the value about to be read; undefined when it is cut out. */
  private valueNode: MaskNode | undefined
  /** The open objects and arrays of the item, outermost first: the mask each is read with, and whether an array. */
  private readonly frameNodes: MaskNode[] = []
  private readonly frameArrays: boolean[] = []
  private depth = 0
  /** Whether the innermost object has kept a member yet (else the comma before the next kept one is cut out). */
  private kept = false
  /** Whether the value being skipped is cut out (from `memberEnd` on). */
  private dropping = false
  /** Where the innermost object's last member ended (or its brace): a member cut out is cut from here. */
  private memberEnd = 0
  /** The kept text of the item so far: `out`, then text from `keptFrom` on. */
  private out = ''
  private keptFrom = 0
  /** The closing brackets the value being skipped still needs: the first `skipDepth` of `closers`, innermost last. */
  private readonly closers: number[] = []
  private skipDepth = 0

  constructor(fields?: FieldMask) {
    this.node = maskNode(fields ?? true)
  }

  /** Takes the next piece of the body. */
  push(piece: string): void {
    if (this.start === this.text.length) this.text = piece
    else this.text = this.text.slice(this.start) + piece
    this.at -= this.start
    this.memberEnd -= this.start
    this.keptFrom -= this.start
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
          if (this.node === true) {
            this.beginValue(c, true)
          } else {
            this.step = ITEM
            this.state = 'project'
          }
          break
        }
        case 'project':
          if (!this.project()) return
          break
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
      this.items.push(value)
      this.state = 'after-item'
    } else {
      this.others[this.key] = value
      this.state = 'after-value'
    }
    this.at = end
    this.start = end
  }

  /**
   * Scans on in the items being projected, one after another: true when the items ended (the `]` taken), false
   * when more text is needed. The state lives in locals while the text lasts and is kept in fields between pieces.
   */
  private project(): boolean {
    const text = this.text
    const len = text.length
    const frameNodes = this.frameNodes
    const frameArrays = this.frameArrays
    let i = this.at
    let step = this.step
    let depth = this.depth
    let node = this.valueNode
    let c = 0
    scan: for (;;) {
      if (step !== SKIP && step !== SCALAR) {
        while (i < len && ((c = text.charCodeAt(i)) === 32 || c === 10 || c === 13 || c === 9)) i++
        if (i === len) break
      }
      // Whether a value ended at `i`.
      let ended = false
      switch (step) {
        case ITEM:
          this.start = i
          this.keptFrom = i
          this.out = ''
          node = this.node
          step = VALUE
          break
        case VALUE:
          if (node !== undefined && node !== true && (c === OPEN_BRACE || c === OPEN_BRACKET)) {
            frameNodes[depth] = node
            frameArrays[depth++] = c === OPEN_BRACKET
            i++
            if (c === OPEN_BRACE) {
              this.kept = false
              this.memberEnd = i
              step = KEY_OR_END
            } else {
              step = ELEMENT_OR_END
            }
          } else if (c === OPEN_BRACE || c === OPEN_BRACKET || c === QUOTE) {
            this.inString = false
            this.skipDepth = 0
            step = SKIP
          } else if (c === COMMA || c === COLON || c === CLOSE_BRACE || c === CLOSE_BRACKET) {
            throw new ListSyntaxError('expected a value')
          } else {
            step = SCALAR
          }
          break
        case SKIP: {
          const end = this.skipValue(i)
          if (end < 0) {
            i = len
            break scan
          }
          i = end
          ended = true
          break
        }
        case SCALAR:
          while (i < len) {
            c = text.charCodeAt(i)
            if (
              c === COMMA ||
              c === CLOSE_BRACE ||
              c === CLOSE_BRACKET ||
              c === 32 ||
              c === 10 ||
              c === 13 ||
              c === 9
            ) {
              break
            }
            i++
          }
          if (i === len) break scan
          ended = true
          break
        case ELEMENT_OR_END:
          if (c === CLOSE_BRACKET) {
            i++
            depth--
            // Its parent, if an object, kept the member it is the value of.
            this.kept = true
            ended = true
          } else {
            node = frameNodes[depth - 1]
            step = VALUE
          }
          break
        case KEY_OR_END:
        case KEY: {
          if (c === CLOSE_BRACE && step === KEY_OR_END) {
            i++
            depth--
            // Its parent, if an object, kept the member it is the value of.
            this.kept = true
            ended = true
            break
          }
          if (c !== QUOTE) throw new ListSyntaxError('expected a key')
          // The key's end, noting escapes (keys are short: a loop beats indexOf).
          let end = i + 1
          let escaped = false
          while (end < len && (c = text.charCodeAt(end)) !== QUOTE) {
            if (c === BACKSLASH) {
              escaped = true
              end++
            }
            end++
          }
          if (end >= len) break scan
          // The key is taken with its colon (else read again when more text is in).
          let j = end + 1
          while (j < len && ((c = text.charCodeAt(j)) === 32 || c === 10 || c === 13 || c === 9)) j++
          if (j === len) break scan
          if (c !== COLON) throw new ListSyntaxError('expected :')
          const level = frameNodes[depth - 1] as MaskLevel
          const child = escaped
            ? level.byKey.get(parse(text.slice(i, end + 1)) as string)
            : keyNode(level, text, i + 1, end)
          if (child === undefined) {
            // Cut out from the end of the member before (so with the comma after it), or from the brace.
            this.out += text.slice(this.keptFrom, this.memberEnd)
            this.dropping = true
          } else if (!this.kept) {
            // The first member kept: cut out what is before it since the brace (a comma, if members were cut).
            this.out += text.slice(this.keptFrom, this.memberEnd)
            this.keptFrom = i
            this.kept = true
          }
          node = child
          i = j + 1
          step = VALUE
          break
        }
        case NEXT: {
          const array = frameArrays[depth - 1]
          if (c === COMMA) {
            i++
            if (array) {
              node = frameNodes[depth - 1]
              step = VALUE
            } else {
              step = KEY
            }
          } else if (c === (array ? CLOSE_BRACKET : CLOSE_BRACE)) {
            i++
            depth--
            // Its parent, if an object, kept the member it is the value of.
            this.kept = true
            ended = true
          } else {
            throw new ListSyntaxError(array ? 'expected , or ]' : 'expected , or }')
          }
          break
        }
        case AFTER_ITEM:
          i++
          if (c === COMMA) {
            step = ITEM
          } else if (c === CLOSE_BRACKET) {
            this.at = i
            this.start = i
            this.state = 'after-value'
            return true
          } else {
            throw new ListSyntaxError('expected , or ] between items')
          }
          break
      }
      if (!ended) continue
      if (this.dropping) {
        this.keptFrom = i
        this.dropping = false
      }
      if (depth > 0) {
        this.memberEnd = i
        step = NEXT
        continue
      }
      const json = this.out + text.slice(this.keptFrom, i)
      this.out = ''
      this.items.push(parse(json))
      this.start = i
      step = AFTER_ITEM
    }
    this.at = i
    this.step = step
    this.depth = depth
    this.valueNode = node
    // Between items nothing before `i` is needed.
    if (step === ITEM || step === AFTER_ITEM) this.start = i
    return false
  }

  /**
   * Skips the string, object or array that starts at `from` (or goes on skipping it from there): the index after
   * its end, or -1 when more text is needed. Each closing bracket must close the bracket it pairs with.
   */
  private skipValue(from: number): number {
    const text = this.text
    const len = text.length
    const closers = this.closers
    let depth = this.skipDepth
    let i = from
    if (this.inString) {
      const end = this.stringEnd(i)
      if (end < 0) return -1
      this.inString = false
      i = end + 1
      if (depth === 0) return i
    }
    while (i < len) {
      const c = text.charCodeAt(i++)
      if (c === QUOTE) {
        // The string's end (as stringEnd finds it, inline: most strings are short).
        let quote = text.indexOf('"', i)
        while (quote >= 0 && text.charCodeAt(quote - 1) === BACKSLASH) {
          let slashes = 1
          while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++
          if (slashes % 2 === 0) break
          quote = text.indexOf('"', quote + 1)
        }
        if (quote < 0) {
          this.inString = true
          this.skipDepth = depth
          return -1
        }
        i = quote + 1
        if (depth === 0) return i
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        // The closing bracket is two after the opening one in ASCII.
        closers[depth++] = c + 2
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (depth === 0 || closers[--depth] !== c) throw new ListSyntaxError(`unexpected ${String.fromCharCode(c)}`)
        if (depth === 0) return i
      }
    }
    this.skipDepth = depth
    return -1
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

/** Where the projection of the items is: what it expects next. */
const ITEM = 0
const VALUE = 1
const SKIP = 2
const SCALAR = 3
const ELEMENT_OR_END = 4
const KEY_OR_END = 5
const KEY = 6
const NEXT = 7
const AFTER_ITEM = 8
type Step = number

/** The node the key text[from, to) (written without escapes) has in `level`, or undefined when it is not kept. */
function keyNode(level: MaskLevel, text: string, from: number, to: number): MaskNode | undefined {
  const keys = level.keys
  const length = to - from
  for (let k = 0; k < keys.length; k++) {
    if (keys[k].length === length && text.startsWith(keys[k], from)) return level.nodes[k]
  }
  return undefined
}

type State =
  | 'start'
  | 'project'
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
const IN_VALUE: ReadonlySet<State> = new Set<State>(['key', 'key-or-end', 'body', 'scalar', 'project'])

const QUOTE = 34
const BACKSLASH = 92
const COMMA = 44
const COLON = 58
const OPEN_BRACE = 123
const CLOSE_BRACE = 125
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93

/** JSON.parse, refusing with a ListSyntaxError. */
function parse(json: string): unknown {
  try {
    return JSON.parse(json)
  } catch (error) {
    throw new ListSyntaxError((error as Error).message)
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9
}
