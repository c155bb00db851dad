import {XpkCommand} from '../../cli/base-command.js'
import {createVms, vmCreateFlags} from '../../cli/vm.js'

export default class VmCreate extends XpkCommand {
  static override summary = 'Request TPU VM slices (one queued resource) and wait until they are ready.'
  static override description =
    'Creates the slices P (one slice) or P-0 ... P-(N-1) through the Cloud TPU API, without GKE, and waits with progress until the queued resource is ACTIVE. Re-running the same request resumes waiting. --dry-run shows the plan: the request it would send (or the queued resource found), then the wait.'
  static override examples = [
    '<%= config.bin %> vm create --tpu-prefix demo --tpu-type v4-8 --project my-project --zone us-central2-b',
    '<%= config.bin %> vm create --tpu-prefix demo --tpu-type v5litepod-16 --num-slices 2 --spot --async',
    '<%= config.bin %> vm create --tpu-prefix demo --tpu-type v4-8 --reserved --runtime-version tpu-ubuntu2204-base',
    '<%= config.bin %> vm create --tpu-prefix demo --tpu-type v4-16 --num-slices 2 --dry-run --json',
  ]
  static override flags = vmCreateFlags

  async run() {
    return this.runWith(VmCreate, createVms)
  }
}
