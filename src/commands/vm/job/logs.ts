import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../../cli/base-command.js'
import {vmJobLogs, vmJobLogsFlags} from '../../../cli/vm-job.js'

export default class VmJobLogs extends XpkCommand {
  static override summary =
    "Print a TPU VM job's logs: the command's (latest attempt), a setup module's, or the supervisor's."
  static override examples = [
    '<%= config.bin %> vm job logs 7',
    '<%= config.bin %> vm job logs 7 --worker 1 --follow',
    '<%= config.bin %> vm job logs 7 --module ssh --worker 0',
    '<%= config.bin %> vm job logs 7 --module supervisor',
  ]
  static override args = {id: Args.string({description: 'The job id (`xpk vm job list`).', required: true})}
  static override flags = vmJobLogsFlags

  async run() {
    return this.runWith(VmJobLogs, vmJobLogs)
  }
}
