import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'
import {workloadLogs, workloadLogsFlags} from '../../cli/workload.js'

export default class WorkloadLogs extends XpkCommand {
  static override summary = "Print (or follow) a workload's container logs through the Kubernetes API."
  static override description =
    'Reads the log of worker 0 of slice 0 unless --slice/--worker say another pod; --all reads every pod at once, each line prefixed with [slice S/worker W] as it arrives (lines of one pod stay whole and in order). On a Pathways workload, --slice/--worker pick among its TPU workers, --head reads its head pod, and --all reads the head too (its lines prefixed with [head]). --follow keeps printing until the containers exit. A pod that is gone is a note with the Cloud Logging query that still holds its logs. Log lines go to stdout, notes to stderr.'
  static override examples = [
    '<%= config.bin %> workload logs --cluster demo run-1',
    '<%= config.bin %> workload logs --cluster demo run-1 --all --follow',
    '<%= config.bin %> workload logs --cluster demo run-1 --slice 1 --worker 3 --since 10m --tail 100',
    '<%= config.bin %> workload logs --cluster demo pw-run --head --follow',
  ]
  static override args = {workload: Args.string({description: 'The workload (JobSet) name.', required: true})}
  static override flags = workloadLogsFlags

  async run() {
    return this.runWith(WorkloadLogs, workloadLogs)
  }
}
