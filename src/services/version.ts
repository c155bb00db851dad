import {JOBSET_VERSION, KUEUE_VERSION} from '../core/versions.js'

export interface VersionReport {
  readonly xpk: string
  readonly jobset: string
  readonly kueue: string
  readonly node: string
}

/** `xpk version`: this CLI's version, the JobSet and Kueue versions it installs, and the Node.js it runs on. */
export function versionReport(xpk: string, node: string): {report: VersionReport; text: string} {
  const report = {xpk, jobset: JOBSET_VERSION, kueue: KUEUE_VERSION, node}
  return {report, text: `xpk ${xpk}\nJobSet ${report.jobset}\nKueue ${report.kueue}\nNode.js ${node}`}
}
