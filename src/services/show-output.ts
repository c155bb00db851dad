import type {Message} from '../core/messages.js'
import {renderOutput, type OutputView} from '../core/render/output.js'
import type {OutputChoice} from '../core/render/output-format.js'
import type {Console} from '../ports/console.js'

/**
 * Prints a list or describe command's result in the chosen form (src/core/render/output.ts): its text on stdout,
 * or for a list that found nothing only `noneFound` on stderr. JSON and YAML print nothing here: the command's
 * result is printed as data when it returns.
 */
export function showOutput<T>(
  console: Console,
  choice: OutputChoice,
  view: OutputView<T>,
  result: T,
  noneFound?: () => Message<'info'>,
): void {
  const shown = renderOutput(view, result, choice)
  if (shown.kind === 'text' && shown.text !== '') console.result(shown.text)
  if (shown.kind === 'none-found') {
    if (!noneFound) throw new Error('showOutput: a list view needs the note that says nothing was found')
    console.info(noneFound())
  }
}
