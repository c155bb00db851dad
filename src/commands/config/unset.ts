import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'
import {configChangeFlags, unsetConfig} from '../../cli/config.js'

export default class ConfigUnset extends XpkCommand {
  static override summary = 'Remove a saved default.'
  static override examples = ['<%= config.bin %> config unset cluster']
  static override args = {key: Args.string({description: 'Setting name.', required: true})}
  static override flags = configChangeFlags

  async run() {
    return this.runWith(ConfigUnset, unsetConfig)
  }
}
