/** `xpk version`, a topic of its own: its report is imported when it runs, never for `--help`. */
import type {VersionReport} from '../services/version.js'
import type {Invocation} from './base-command.js'

/** `xpk version`: this CLI's version, the JobSet and Kueue versions it installs, and the Node.js it runs on. */
export async function versionReport(_options: object, run: Invocation): Promise<VersionReport> {
  const {versionReport} = await import('../services/version.js')
  const {report, text} = versionReport(run.version, process.version)
  run.console.result(text)
  return report
}
