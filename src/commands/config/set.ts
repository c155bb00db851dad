import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'
import {configChangeFlags, setConfig} from '../../cli/config.js'

export default class ConfigSet extends XpkCommand {
  static override summary = 'Save a default (project, zone, cluster, registry, gke-endpoint, compute-endpoint).'
  static override description =
    'Saved defaults apply when neither the flag nor its XPK_* environment variable is given. They live in $XDG_CONFIG_HOME/xpk/config.yaml (default ~/.config/xpk/config.yaml).'
  static override examples = [
    '<%= config.bin %> config set project my-project',
    '<%= config.bin %> config set zone us-central2-b',
    '<%= config.bin %> config set registry us-docker.pkg.dev/my-project/training',
    '<%= config.bin %> config set zone us-east5-a --dry-run',
  ]
  static override args = {
    key: Args.string({description: 'Setting name (see `xpk config list`).', required: true}),
    value: Args.string({description: 'Value to save.', required: true}),
  }
  static override flags = configChangeFlags

  async run() {
    return this.runWith(ConfigSet, setConfig)
  }
}
