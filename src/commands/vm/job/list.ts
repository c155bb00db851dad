import {XpkCommand} from '../../../cli/base-command.js'
import {listVmJobs, vmJobListFlags} from '../../../cli/vm-job.js'

export default class VmJobList extends XpkCommand {
  static override summary = 'List TPU VM jobs: status, recoveries, host 0 and whether a supervisor runs them.'
  static override description =
    'Reads the job records on this machine. Status is QUEUEING, SETTING_UP, RUNNING, PREEMPTED, RECOVERING, SUCCEEDED, FAILED or STOPPED; a job that is not finished but has no running supervisor is named in a warning with the `resume` that takes over.'
  static override examples = [
    '<%= config.bin %> vm job list',
    '<%= config.bin %> vm job list -o wide',
    '<%= config.bin %> vm job list --filter-by-status running -o name',
    '<%= config.bin %> vm job list --json',
  ]
  static override flags = vmJobListFlags

  async run() {
    return this.runWith(VmJobList, listVmJobs)
  }
}
