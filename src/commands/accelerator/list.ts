import {acceleratorListFlags, listAccelerators} from '../../cli/accelerator.js'
import {XpkCommand} from '../../cli/base-command.js'

export default class AcceleratorList extends XpkCommand {
  static override summary = 'List the TPU, GPU and CPU types xpk accepts.'
  static override description =
    'Every name works with --tpu-type (TPUs) or --device-type (any kind). Topology names such as v5p-4x4x8 (= v5p-256) or v4-8x4x4 (another 256-core v4 shape) are listed with --aliases.'
  static override examples = [
    '<%= config.bin %> accelerator list --family v5p',
    '<%= config.bin %> accelerator list --kind GPU',
    '<%= config.bin %> accelerator list --family tpu7x --aliases --json',
    '<%= config.bin %> accelerator list --family v5p -o wide',
    '<%= config.bin %> accelerator list --kind GPU -o name',
  ]
  static override flags = acceleratorListFlags

  async run() {
    return this.runWith(AcceleratorList, listAccelerators)
  }
}
