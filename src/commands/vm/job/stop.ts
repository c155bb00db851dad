import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../../cli/base-command.js'
import {stopVmJob, vmJobStopFlags} from '../../../cli/vm-job.js'

export default class VmJobStop extends XpkCommand {
  static override summary = "Stop a TPU VM job's command and supervisor; keep its TPU."
  static override examples = ['<%= config.bin %> vm job stop 7', '<%= config.bin %> vm job stop 7 --dry-run']
  static override args = {id: Args.string({description: 'The job id (`xpk vm job list`).', required: true})}
  static override flags = vmJobStopFlags

  async run() {
    return this.runWith(VmJobStop, stopVmJob)
  }
}
