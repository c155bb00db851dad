import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'

export default class ConfigGet extends XpkCommand {
  static override summary = 'Print a saved default.'
  static override description =
    'Prints nothing (and a note on stderr) when the key is not set. `xpk config list` shows effective values.'
  static override examples = ['<%= config.bin %> config get zone', '<%= config.bin %> config get project --json']
  static override args = {key: Args.string({description: 'Setting name.', required: true})}

  async run() {
    const {args} = await this.parse(ConfigGet)
    const {getConfig, configDeps} = await import('../../cli/runtime.js')
    const result = await getConfig(args.key, configDeps(this.console))
    if (result.value !== null) this.console.result(result.value)
    return result
  }
}
