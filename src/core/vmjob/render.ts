/** `xpk vm job list`'s table: one row per job, as jobman lists them (with recoveries, and the supervisor's state). */
import {age, msSince} from '../render/ages.js'
import {renderTable} from '../render/table.js'
import type {VmJobView} from './record.js'

export function vmJobTable(jobs: readonly VmJobView[], now: number): string {
  if (jobs.length === 0) return 'No TPU VM jobs. Create one with `xpk vm job create --config job.yaml`.'
  return renderTable(
    ['ID', 'NAME', 'ACCELERATOR', 'ZONE', 'HOST0 IP', 'STATUS', 'RECOVERIES', 'SUPERVISOR', 'AGE'],
    jobs.map((j) => [
      j.id,
      j.name,
      j.accelerator,
      j.zone,
      j.host0 ?? '-',
      j.status,
      String(j.recoveries),
      j.supervisor,
      age(msSince(now, j.createdAt) ?? 0),
    ]),
  )
}
