import type {WorkloadRow} from '../workload/status.js'
import {escapeControl} from '../text.js'
import {renderTable} from './table.js'

/**
 * The `xpk workload list` table: Python xpk's columns (section 5.2 of the behaviour reference) plus Restarts, with
 * the free-text Status Message last so a long Kueue message does not push the other columns apart.
 */
export function renderWorkloadList(rows: readonly WorkloadRow[]): string {
  return renderTable(
    [
      'Jobset Name',
      'Created Time',
      'Priority',
      'TPU/GPU VMs Needed',
      'Running/Ran',
      'Done',
      'Restarts',
      'Status',
      'Status Time',
      'Status Message',
    ],
    rows.map((r) => [
      cell(r.name),
      r.created,
      r.priority === null ? null : cell(r.priority),
      r.vmsNeeded,
      r.vmsRunningOrRan,
      r.vmsDone,
      r.restarts,
      r.status,
      r.statusTime,
      r.statusMessage === '' ? null : cell(r.statusMessage),
    ]),
  )
}

/** Text from the cluster on one table line: no line breaks, no terminal control characters. */
function cell(text: string): string {
  // Most text has neither (one test instead of two replaces, for every row of a long list).
  if (!NEEDS_CLEANING.test(text)) return text
  return escapeControl(text.replace(/\s*[\r\n\t]+\s*/g, ' '))
}

/** A character `cell` changes: line breaks and tabs (C0 controls) and whatever escapeControl replaces. */
// eslint-disable-next-line no-control-regex
const NEEDS_CLEANING = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
