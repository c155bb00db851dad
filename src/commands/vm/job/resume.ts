import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../../cli/base-command.js'
import {resumeVmJob, vmJobResumeFlags} from '../../../cli/vm-job.js'

export default class VmJobResume extends XpkCommand {
  static override summary = 'Start a new supervisor for a TPU VM job (after a restart, a stop, or a killed supervisor).'
  static override description =
    'Reuses the TPU when it is healthy (no second request), follows the command again when it still runs on the workers, and otherwise goes on where the job was: requests the TPU, sets it up, runs the command.'
  static override examples = ['<%= config.bin %> vm job resume 7', '<%= config.bin %> vm job resume 7 --foreground']
  static override args = {id: Args.string({description: 'The job id (`xpk vm job list`).', required: true})}
  static override flags = vmJobResumeFlags

  async run() {
    return this.runWith(VmJobResume, resumeVmJob)
  }
}
