import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../../cli/base-command.js'
import {superviseVmJob, vmJobSuperviseFlags} from '../../../cli/vm-job.js'

export default class VmJobSupervise extends XpkCommand {
  static override hidden = true
  static override summary = "A TPU VM job's supervisor (started by `vm job create` and `vm job resume`)."
  static override examples = ['<%= config.bin %> vm job supervise 7']
  static override args = {id: Args.string({description: 'The job id.', required: true})}
  static override flags = vmJobSuperviseFlags

  async run() {
    return this.runWith(VmJobSupervise, superviseVmJob)
  }
}
