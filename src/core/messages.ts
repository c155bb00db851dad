/**
 * Every note, warning and question xpk prints besides its results carries a stable code, the way aws-cdk's I/O host
 * does. The English text may be reworded at any time; the code and its data may not change meaning. Tests assert on
 * codes, and a host that is not a terminal (a test, a wrapper) can react to them.
 *
 * Each message has one maker, in src/core/messages/<topic>.ts, that binds its code, its level and the type of its
 * payload, and builds the text (and the data hosts read) from that payload: `clusterLockHeld({cluster, ...})`. So
 * the compiler checks that a warning goes to `console.warn` and a note to `console.info` (the level is part of the
 * message's type), that a question is asked with its own default, and that every value the text needs is given.
 *
 * The makers are also a contract snapshot (src/core/messages/registry.ts, test/golden/contract/messages.json):
 * adding, removing or re-levelling a code is a visible diff.
 */

import type {MessageCode} from './messages/registry.js'

export type {MessageCode} from './messages/registry.js'

/** Where a message goes: a note (hidden by --quiet), a warning (always shown), or a yes/no question. */
export type MessageLevel = 'info' | 'warn' | 'question'

/** The level of a note or a warning (a question has its own type, {@link Question}). */
export type NoteLevel = Exclude<MessageLevel, 'question'>

export interface MessageDefinition<C extends string = string, L extends MessageLevel = MessageLevel> {
  readonly code: C
  readonly level: L
  /** What the message is about, for the contract snapshot and for hosts that react to codes. */
  readonly summary: string
}

/** The level a message was made at: a type only (no such field exists at run time), set by its maker alone. */
declare const LEVEL: unique symbol

/** A note or warning: a stable code, the English text, and the values the text was made from. */
export interface Message<L extends NoteLevel = NoteLevel> {
  readonly code: MessageCode
  readonly text: string
  readonly data?: Readonly<Record<string, unknown>>
  readonly [LEVEL]: L
}

/**
 * A yes/no question. `default` is the answer to Enter or end of input, and the answer the host gives on its own
 * when nobody can be asked (no terminal, --quiet): destructive questions default to no, so there they stop the
 * command with a hint to re-run with --force.
 */
export interface Question {
  readonly code: MessageCode
  readonly text: string
  readonly data?: Readonly<Record<string, unknown>>
  readonly default: boolean
  readonly [LEVEL]: 'question'
}

/** What a maker builds from its payload: the text, or the text and the values behind it (for hosts and tests). */
export type Made = string | {readonly text: string; readonly data?: Readonly<Record<string, unknown>>}

/** How a message gets its text: made from its payload, or, for a message without payload, the text itself. */
export type MakeText<P> = ((payload: P) => Made) | string

/** Makes the note or warning of one code from its payload; its code, level and summary are on it too. */
export type NoteMaker<C extends string, P, L extends NoteLevel> = ((payload: P) => Message<L>) & MessageDefinition<C, L>

/** Makes the question of one code from its payload, with the default answer that code always has. */
export type QuestionMaker<C extends string, P> = ((payload: P) => Question) &
  MessageDefinition<C, 'question'> & {readonly defaultAnswer: boolean}

/** A maker of any kind, as the registry lists them. */
export type AnyMessageMaker = NoteMaker<string, never, NoteLevel> | QuestionMaker<string, never>

/**
 * Defines a note (`console.info`, hidden by --quiet). A maker without payload is called with no argument, and is
 * given its text instead of a function that makes it.
 */
export const defineInfo = noteDefiner('info')

/** Defines a warning (`console.warn`, always shown). */
export const defineWarning = noteDefiner('warn')

/** Defines a yes/no question (`confirmOrStop`) and the answer it defaults to. */
export function defineQuestion<const C extends string, P = void>(
  code: C,
  summary: string,
  defaultAnswer: boolean,
  make: MakeText<P>,
): QuestionMaker<C, P> {
  const maker = (payload: P): Question =>
    ({...built(code, typeof make === 'string' ? make : make(payload)), default: defaultAnswer}) as Question
  return Object.assign(maker, {code, level: 'question' as const, summary, defaultAnswer})
}

/** What defines the notes of one level: each maker it returns binds its code, that level and its payload's type. */
function noteDefiner<L extends NoteLevel>(level: L) {
  return <const C extends string, P = void>(code: C, summary: string, make: MakeText<P>): NoteMaker<C, P, L> => {
    const maker = (payload: P): Message<L> => built(code, typeof make === 'string' ? make : make(payload)) as Message<L>
    return Object.assign(maker, {code, level, summary})
  }
}

/** `{code, text}`, with `data` only when the maker gave some. */
function built(code: string, made: Made): {code: string; text: string; data?: Readonly<Record<string, unknown>>} {
  if (typeof made === 'string') return {code, text: made}
  return made.data === undefined ? {code, text: made.text} : {code, text: made.text, data: made.data}
}

/**
 * The answer to a {@link Question} and who gave it: the person at the terminal, `--force`, or the host itself with
 * the question's default because nobody could be asked (`why` says which).
 */
export type Answer =
  | {readonly yes: boolean; readonly by: 'person' | 'force'}
  | {readonly yes: boolean; readonly by: 'default'; readonly why: 'no-terminal' | 'quiet'}

/**
 * The question before node pools are switched to the GKE metadata server (GKE recreates their nodes), for `cluster
 * create` and `storage attach` alike; `needs` says what asks for it.
 */
export function defineRecreateNodesQuestion<const C extends string>(code: C, description: string, needs: string) {
  return defineQuestion(code, description, false, (p: {nodePools: readonly string[]}) => ({
    text: `${needs} needs the GKE metadata server on ${p.nodePools.length} node pool${p.nodePools.length === 1 ? '' : 's'} (${p.nodePools.join(', ')}): GKE recreates their nodes, and the workloads running on them restart. Continue?`,
    data: {nodePools: p.nodePools},
  }))
}
