import {XpkCommand} from '../../cli/base-command.js'
import {listVms, vmListFlags} from '../../cli/vm.js'

export default class VmList extends XpkCommand {
  static override summary = 'List TPU VM queued resources and slices with their state, workers and IPs.'
  static override examples = [
    '<%= config.bin %> vm list --project my-project --zone us-central2-b',
    '<%= config.bin %> vm list --tpu-prefix demo --json',
    '<%= config.bin %> vm list --tpu-prefix demo -o wide',
    '<%= config.bin %> vm list -o name',
  ]
  static override flags = vmListFlags

  async run() {
    return this.runWith(VmList, listVms)
  }
}
