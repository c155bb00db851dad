import {XpkCommand} from '../cli/base-command.js'
import {JOBSET_VERSION, KUEUE_VERSION} from '../core/versions.js'

export default class Version extends XpkCommand {
  static override summary = 'Print the xpk version and the JobSet and Kueue versions it installs.'
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json']

  async run() {
    await this.parse(Version)
    const result = {xpk: this.config.version, jobset: JOBSET_VERSION, kueue: KUEUE_VERSION, node: process.version}
    this.console.result(`xpk ${result.xpk}\nJobSet ${result.jobset}\nKueue ${result.kueue}\nNode.js ${result.node}`)
    return result
  }
}
