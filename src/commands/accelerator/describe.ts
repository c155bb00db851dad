import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'

export default class AcceleratorDescribe extends XpkCommand {
  static override summary = 'Show everything xpk derives from one accelerator type.'
  static override examples = [
    '<%= config.bin %> accelerator describe v5p-256',
    '<%= config.bin %> accelerator describe v5p-4x4x8 --json',
    '<%= config.bin %> accelerator describe h100-80gb-8',
  ]
  static override args = {type: Args.string({description: 'Accelerator type name, e.g. v5p-8.', required: true})}

  async run() {
    const {args} = await this.parse(AcceleratorDescribe)
    const {describeAccelerator, renderAcceleratorDetails} = await import('../../cli/catalog-runtime.js')
    const accelerator = describeAccelerator(args.type)
    this.console.result(() => renderAcceleratorDetails(accelerator))
    return accelerator
  }
}
