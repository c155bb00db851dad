import {XpkCommand} from '../cli/base-command.js'

export default class Version extends XpkCommand {
  static override summary = 'Print the xpk version and the JobSet and Kueue versions it installs.'
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json']

  async run() {
    await this.parse(Version)
    const {versionReport} = await import('../cli/catalog-runtime.js')
    const {report, text} = versionReport(this.config.version, process.version)
    this.console.result(text)
    return report
  }
}
