import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'
import {getConfig} from '../../cli/config.js'

export default class ConfigGet extends XpkCommand {
  static override summary = 'Print a saved default.'
  static override description =
    'Prints nothing (and a note on stderr) when the key is not set. `xpk config list` shows effective values.'
  static override examples = ['<%= config.bin %> config get zone', '<%= config.bin %> config get project --json']
  static override args = {key: Args.string({description: 'Setting name.', required: true})}

  async run() {
    return this.runWith(ConfigGet, getConfig)
  }
}
