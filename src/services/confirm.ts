import {UsageError, XpkError} from '../core/errors.js'
import type {Question} from '../core/messages.js'
import type {Console} from '../ports/console.js'

/** What a "no" leaves behind, and what to do instead. */
export interface Declined {
  /** What did not happen, e.g. "Nothing was deleted." */
  readonly nothingDone: string
  /**
   * What to do instead, also shown when nobody could be asked (after the hint naming --force). Hints name only flags
   * the command has, so a suggestion to check first with --dry-run comes from the commands that have it.
   */
  readonly hints?: readonly string[]
}

/**
 * Asks `question` and returns only on yes. A person's "no" is a declined error (exit 1). The host's own "no",
 * given because nobody could be asked, is a usage error naming --force (exit 2): the command was run in a way that
 * can never go ahead, and re-running it unchanged would stop again.
 */
export async function confirmOrStop(console: Console, question: Question, declined: Declined): Promise<void> {
  const answer = await console.confirm(question)
  if (answer.yes) return
  if (answer.by === 'default') {
    const why =
      answer.why === 'quiet'
        ? 'This needs your confirmation, and --quiet does not answer questions.'
        : 'This needs your confirmation, but there is no terminal to ask on.'
    const hint =
      answer.why === 'quiet'
        ? "Add --force to proceed without a prompt (Python xpk's --quiet did that)."
        : 'Re-run with --force to proceed without a prompt.'
    throw new UsageError(`${question.text}\n${why}`, {flag: '--force', hints: [hint, ...(declined.hints ?? [])]})
  }
  throw new XpkError('declined', declined.nothingDone, declined.hints ? {hints: [...declined.hints]} : {})
}
