import {planSummary, renderPlanLines} from '../render/plan.js'
import {storageResourceWord} from './types.js'

/** A step of a storage plan as its text shows it. */
interface ShownStep {
  readonly action: string
  readonly resource: string
  readonly name: string
  readonly reason: string
}

/**
 * A storage plan (attach, create, detach, delete) as text: its title, one line per step in the words `cluster create`
 * uses for its own, then the summary (`none` where nothing would change) and the warnings.
 */
export function renderStoragePlan(
  title: string,
  steps: readonly ShownStep[],
  nothingToDo: string,
  warnings: readonly string[] = [],
): string {
  return renderPlanLines(
    title,
    steps.map((s) => ({action: s.action, resource: storageResourceWord(s.resource), name: s.name, detail: s.reason})),
    [
      planSummary(
        steps.map((s) => s.action),
        nothingToDo,
      ),
      ...warnings.map((w) => `Warning: ${w}`),
    ],
  )
}
