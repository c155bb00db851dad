import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../../cli/base-command.js'
import {deleteVmJob, vmJobDeleteFlags} from '../../../cli/vm-job.js'

export default class VmJobDelete extends XpkCommand {
  static override summary = 'Stop a TPU VM job and delete its TPU (asks first).'
  static override examples = [
    '<%= config.bin %> vm job delete 7',
    '<%= config.bin %> vm job delete 7 --dry-run',
    '<%= config.bin %> vm job delete 7 --purge --force',
  ]
  static override args = {id: Args.string({description: 'The job id (`xpk vm job list`).', required: true})}
  static override flags = vmJobDeleteFlags

  async run() {
    return this.runWith(VmJobDelete, deleteVmJob)
  }
}
