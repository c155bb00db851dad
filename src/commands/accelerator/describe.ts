import * as Args from '@oclif/core/args'

import {acceleratorDescribeFlags, describeAccelerator} from '../../cli/accelerator.js'
import {XpkCommand} from '../../cli/base-command.js'

export default class AcceleratorDescribe extends XpkCommand {
  static override summary = 'Show everything xpk derives from one accelerator type.'
  static override examples = [
    '<%= config.bin %> accelerator describe v5p-256',
    '<%= config.bin %> accelerator describe v5p-4x4x8 --json',
    '<%= config.bin %> accelerator describe h100-80gb-8',
    '<%= config.bin %> accelerator describe v5p-256 -o yaml',
  ]
  static override args = {type: Args.string({description: 'Accelerator type name, e.g. v5p-8.', required: true})}
  static override flags = acceleratorDescribeFlags

  async run() {
    return this.runWith(AcceleratorDescribe, describeAccelerator)
  }
}
