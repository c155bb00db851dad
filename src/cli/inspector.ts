/** `xpk inspector`, a topic of its own as in Python xpk: its flags, and its wiring (imported when it runs). */
import * as Flags from '@oclif/core/flags'

import type {InspectorResult} from '../services/inspector.js'
import type {Invocation} from './base-command.js'
import {startCommand} from './command-start.js'
import type {FlagOptions} from './flag-kinds.js'
import {gkeEndpointFlag, kubeAccessFlags, noChangeDryRunFlag, targetFlags} from './flags.js'

/** The flags of `xpk inspector`. */
export const inspectorFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...kubeAccessFlags,
  workload: Flags.string({
    description: 'Also the JobSet, Kueue Workload, pods and events of this workload.',
  }),
  'print-to-terminal': Flags.boolean({
    description: 'Also print the file on stdout (it is written either way).',
  }),
  ...noChangeDryRunFlag,
}

/**
 * `xpk inspector`: GKE and the cluster's Kubernetes API on first use, and the file written in the system's temporary
 * directory (TMPDIR), as Python xpk's; this machine's versions and the settings with their origins go in its first
 * sections.
 */
export async function inspector(
  options: FlagOptions<typeof inspectorFlags>,
  run: Invocation,
): Promise<InspectorResult> {
  const [{wiring, settings, timing}, {inspector}, {NodeFiles}, {tmpdir}] = await Promise.all([
    startCommand(import('./wiring.js'), options, run),
    import('../services/inspector.js'),
    import('../adapters/local-files.js'),
    import('node:os'),
  ])
  const shown = Object.entries(settings).flatMap(([key, s]) =>
    s.value === undefined ? [] : [{key, value: s.value, origin: s.origin}],
  )
  return inspector(
    {
      ...options,
      ...wiring.clusterTarget(settings),
      viaKubeconfig: wiring.viaKubeconfig(options),
      timing,
      local: {
        xpkVersion: run.version,
        nodeVersion: process.version,
        platform: `${process.platform} ${process.arch}`,
        settings: shown,
      },
      directory: tmpdir(),
    },
    {...wiring.clusterAccess(settings, options, run), files: new NodeFiles()},
  )
}
