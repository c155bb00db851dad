import {XpkCommand} from '../../cli/base-command.js'
import {deleteVms, vmDeleteFlags} from '../../cli/vm.js'

export default class VmDelete extends XpkCommand {
  static override summary = 'Delete a queued resource and its TPU VM slices.'
  static override description =
    'Asks for confirmation first (--force skips it; without a terminal, --force is required), then waits until the queued resource and its nodes are gone (--async returns at once). Already gone is not an error. --dry-run shows what it would delete (the queued resource and its nodes) without asking.'
  static override examples = [
    '<%= config.bin %> vm delete --tpu-prefix demo',
    '<%= config.bin %> vm delete --tpu-prefix demo --force --async --json',
    '<%= config.bin %> vm delete --tpu-prefix demo --dry-run',
  ]
  static override flags = vmDeleteFlags

  async run() {
    return this.runWith(VmDelete, deleteVms)
  }
}
