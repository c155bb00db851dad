import type {WorkloadRow} from '../workload/status.js'
import {listView, PLAIN_TABLE, renderColumns, type Column, type TableStyle} from './output.js'

/**
 * The `xpk workload list` table: Python xpk's columns (section 5.2 of the behaviour reference) plus Restarts, with
 * the free-text Status Message last so a long Kueue message does not push the other columns apart. `-o wide` adds
 * the Kueue Workload's name, the storages its pods mount, and the phase and outcome `--filter-by-status` selects by,
 * before the message.
 */
const WORKLOAD_COLUMNS: readonly Column<WorkloadRow>[] = [
  {header: 'Jobset Name', cell: (r) => r.name},
  {header: 'Created Time', cell: (r) => r.created},
  {header: 'Priority', cell: (r) => r.priority},
  {header: 'TPU/GPU VMs Needed', cell: (r) => r.vmsNeeded},
  {header: 'Running/Ran', cell: (r) => r.vmsRunningOrRan},
  {header: 'Done', cell: (r) => r.vmsDone},
  {header: 'Restarts', cell: (r) => r.restarts},
  {header: 'Status', cell: (r) => r.status},
  {header: 'Status Time', cell: (r) => r.statusTime},
  {header: 'Phase', cell: (r) => r.phase, wide: true},
  {header: 'Outcome', cell: (r) => r.outcome, wide: true},
  {header: 'Kueue Workload', cell: (r) => r.kueueWorkload, wide: true},
  {header: 'Storages', cell: (r) => r.storages.join(',') || null, wide: true},
  {header: 'Status Message', cell: (r) => r.statusMessage || null},
]

/** The `xpk workload list` table of these rows. */
export function renderWorkloadList(rows: readonly WorkloadRow[], style: TableStyle = PLAIN_TABLE): string {
  return renderColumns(WORKLOAD_COLUMNS, rows, style)
}

/** `xpk workload list`: `-o name` prints the names `--workload` and `--wait-for-job-completion` take. */
export const workloadListView = listView(renderWorkloadList, (r) => r.name)
