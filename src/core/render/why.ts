import {oneLine} from '../text.js'
import type {WhyAnswer} from '../workload/why.js'

/** Findings shown under the headline: the answer stays within six lines before the next step. */
export const MAX_WHY_FINDINGS = 5

/**
 * `workload why` as a person reads it: the headline, the findings indented under it (the most telling first, at most
 * {@link MAX_WHY_FINDINGS}), then the next step. Text from the cluster (Kueue's and the scheduler's messages, names)
 * is kept to one line each.
 */
export function renderWhy(answer: WhyAnswer): string {
  const lines = [oneLine(`${answer.workload}: ${answer.headline}`)]
  const shown = answer.findings.slice(0, MAX_WHY_FINDINGS)
  for (const finding of shown) lines.push(`  ${oneLine(finding.text)}`)
  const hidden = answer.findings.length - shown.length
  if (hidden > 0) lines.push(`  (${hidden} more in --json)`)
  if (answer.next) lines.push(`Next: ${oneLine(answer.next)}`)
  return lines.join('\n')
}
