/**
 * What `xpk doctor` prints: one row per check (its status first, so a failure stands out in a glance), the summary,
 * then the fix of every check that did not pass. Every cell and line is one line of text, escaped (table.ts, text.ts).
 */
import {renderTable} from '../render/table.js'
import {oneLine} from '../text.js'
import type {CheckStatus, DoctorReport} from './checks.js'

const MARK: Readonly<Record<CheckStatus, string>> = {pass: 'ok', warn: 'WARN', fail: 'FAIL'}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

export function renderDoctor(report: DoctorReport): string {
  const table = renderTable(
    ['status', 'check', 'detail'],
    report.checks.map((c) => [MARK[c.status], c.name, c.detail]),
  )
  const {pass, warn, fail} = report.summary
  const summary = `${plural(fail, 'failure')}, ${plural(warn, 'warning')}, ${pass} passed.`
  const fixes = report.checks.filter((c) => c.fix !== null).map((c) => `  ${c.name}: ${oneLine(c.fix!)}`)
  return [table, '', summary, ...(fixes.length > 0 ? ['', 'To fix:', ...fixes] : [])].join('\n')
}
