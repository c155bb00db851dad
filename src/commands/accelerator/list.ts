import * as Flags from '@oclif/core/flags'

import {XpkCommand} from '../../cli/base-command.js'
import {choiceFlag} from '../../cli/flag-kinds.js'

export default class AcceleratorList extends XpkCommand {
  static override summary = 'List the TPU, GPU and CPU types xpk accepts.'
  static override description =
    'Every name works with --tpu-type (TPUs) or --device-type (any kind). Topology names such as v5p-4x4x8 (= v5p-256) or v4-8x4x4 (another 256-core v4 shape) are listed with --aliases.'
  static override examples = [
    '<%= config.bin %> accelerator list --family v5p',
    '<%= config.bin %> accelerator list --kind GPU',
    '<%= config.bin %> accelerator list --family tpu7x --aliases --json',
  ]
  static override flags = {
    family: Flags.string({description: 'Only this family, e.g. v5p, v5litepod (or v5e), v6e, tpu7x, h100-80gb.'}),
    kind: choiceFlag(['TPU', 'GPU', 'CPU'], {description: 'Only this kind.'}),
    aliases: Flags.boolean({description: 'Also list topology names (v5p-4x4x8, v4-8x4x4).'}),
  }

  async run() {
    const {flags} = await this.parse(AcceleratorList)
    const {listAccelerators, renderAcceleratorTable} = await import('../../cli/catalog-runtime.js')
    const accelerators = listAccelerators({
      family: flags.family,
      kind: flags.kind,
      aliases: flags.aliases,
    })
    this.console.result(() => renderAcceleratorTable(accelerators))
    return accelerators
  }
}
