import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../../cli/base-command.js'
import {sshVmJob, vmJobSshFlags} from '../../../cli/vm-job.js'

export default class VmJobSsh extends XpkCommand {
  static override summary = "Open a shell on a worker of a TPU VM job's TPU (worker 0 unless --worker)."
  static override description =
    "Logs in as the job's supervisor does (its user, port, key and address), through xpk's SSH client: no ssh binary needed. On a terminal you get an interactive shell; with input piped in, the shell runs it as a script. Exits with the shell's status."
  static override examples = ['<%= config.bin %> vm job ssh 7', '<%= config.bin %> vm job ssh 7 --worker 1']
  static override args = {id: Args.string({description: 'The job id (`xpk vm job list`).', required: true})}
  static override flags = vmJobSshFlags

  async run() {
    return this.runWith(VmJobSsh, sshVmJob)
  }
}
