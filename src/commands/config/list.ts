import {XpkCommand} from '../../cli/base-command.js'

export default class ConfigList extends XpkCommand {
  static override summary = 'Show every setting, its effective value and where the value comes from.'
  static override description =
    'Precedence: flag > environment variable (XPK_PROJECT, XPK_ZONE, ...) > xpk config > the active gcloud configuration.'
  static override examples = ['<%= config.bin %> config list', '<%= config.bin %> config list --json']

  async run() {
    await this.parse(ConfigList)
    const {listConfig, configDeps, renderConfigList} = await import('../../cli/runtime.js')
    const entries = await listConfig(configDeps(this.console))
    this.console.result(() => renderConfigList(entries))
    return entries
  }
}
