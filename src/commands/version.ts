import {XpkCommand} from '../cli/base-command.js'
import {versionReport} from '../cli/version.js'

export default class Version extends XpkCommand {
  static override summary = 'Print the xpk version and the JobSet and Kueue versions it installs.'
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json']

  async run() {
    return this.runWith(Version, versionReport)
  }
}
