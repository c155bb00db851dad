import {UsageError, XpkError} from '../core/errors.js'
import type {Question} from '../core/messages.js'
import type {Console} from '../ports/console.js'

/** What a "no" leaves behind, and what to do instead. */
export interface Declined {
  /** What did not happen, e.g. "Nothing was deleted." */
  readonly nothingDone: string
  readonly hints?: readonly string[]
  /**
   * Whether the command has `--dry-run`: the hint given when nobody can be asked then suggests checking with it
   * first. Hints name only flags the command has (`vm delete` has none).
   */
  readonly hasDryRun?: boolean
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
    const check = declined.hasDryRun ? ', after checking with --dry-run' : ''
    const hint =
      answer.why === 'quiet'
        ? `Add --force to proceed without a prompt (Python xpk's --quiet did that)${check}.`
        : `Re-run with --force to proceed without a prompt${check}.`
    throw new UsageError(`${question.text}\n${why}`, {flag: '--force', hints: [hint]})
  }
  throw new XpkError('declined', declined.nothingDone, declined.hints ? {hints: [...declined.hints]} : {})
}
