/** `xpk vm job list`: one row per job, as jobman lists them, with the recoveries and the supervisor's state. */
import {age, msSince} from '../render/ages.js'
import {PLAIN_TABLE, renderColumns, type Column, type OutputView, type TableStyle} from '../render/output.js'
import type {VmJobView} from './record.js'

/** The columns; `-o wide` adds why the job ended and where its records are. */
function columns(now: number): readonly Column<VmJobView>[] {
  return [
    {header: 'id', cell: (j) => j.id},
    {header: 'name', cell: (j) => j.name},
    {header: 'accelerator', cell: (j) => j.accelerator},
    {header: 'zone', cell: (j) => j.zone},
    {header: 'host0 ip', cell: (j) => j.host0},
    {header: 'status', cell: (j) => j.status},
    {header: 'recoveries', cell: (j) => j.recoveries},
    {header: 'supervisor', cell: (j) => j.supervisor},
    {header: 'age', cell: (j) => age(msSince(now, j.createdAt) ?? 0)},
    {header: 'reason', cell: (j) => j.reason, wide: true},
    {header: 'directory', cell: (j) => j.dir, wide: true},
  ]
}

export function renderVmJobList(jobs: readonly VmJobView[], now: number, style: TableStyle = PLAIN_TABLE): string {
  return renderColumns(columns(now), jobs, style)
}

/** The list view at a given time (ages); `-o name` gives `job/ID`. */
export function vmJobListView(now: number): OutputView<readonly VmJobView[]> {
  return {
    text: (jobs, style) => renderVmJobList(jobs, now, style),
    names: (jobs) => jobs.map((j) => `job/${j.id}`),
    isEmpty: (jobs) => jobs.length === 0,
  }
}
