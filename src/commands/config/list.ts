import {XpkCommand} from '../../cli/base-command.js'
import {configListFlags, listConfig} from '../../cli/config.js'

export default class ConfigList extends XpkCommand {
  static override summary = 'Show every setting, its effective value and where the value comes from.'
  static override description =
    'Precedence: flag > environment variable (XPK_PROJECT, XPK_ZONE, ...) > xpk config > the active gcloud configuration.'
  static override examples = [
    '<%= config.bin %> config list',
    '<%= config.bin %> config list --json',
    '<%= config.bin %> config list -o yaml',
  ]
  static override flags = configListFlags

  async run() {
    return this.runWith(ConfigList, listConfig)
  }
}
