import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'

export default class ConfigUnset extends XpkCommand {
  static override summary = 'Remove a saved default.'
  static override examples = ['<%= config.bin %> config unset cluster']
  static override args = {key: Args.string({description: 'Setting name.', required: true})}

  async run() {
    const {args} = await this.parse(ConfigUnset)
    const {unsetConfig, configDeps} = await import('../../cli/runtime.js')
    return unsetConfig(args.key, configDeps(this.console))
  }
}
