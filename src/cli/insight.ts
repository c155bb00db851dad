/**
 * `xpk info` and `xpk inspector`, top-level commands as in Python xpk: their flags, and their wiring. The flags are
 * read when the CLI starts (help, parsing); the services are imported when a command runs.
 */
import * as Flags from '@oclif/core/flags'

import type {QueueInfo} from '../services/info.js'
import type {InspectorResult} from '../services/inspector.js'
import type {Invocation} from './base-command.js'
import {startCommand} from './command-start.js'
import type {FlagOptions} from './flag-kinds.js'
import {gkeEndpointFlag, kubeAccessFlags, noChangeDryRunFlag, outputFlags, targetFlags} from './flags.js'

/** The flags of `xpk info`: which tables (Python's two mutually exclusive switches), and the output flags. */
export const infoFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...kubeAccessFlags,
  clusterqueue: Flags.boolean({
    description: 'Show only the ClusterQueues and their usage.',
    exclusive: ['localqueue'],
    helpGroup: 'QUEUES',
  }),
  localqueue: Flags.boolean({
    description: 'Show only the LocalQueues and their usage.',
    exclusive: ['clusterqueue'],
    helpGroup: 'QUEUES',
  }),
  ...outputFlags,
  ...noChangeDryRunFlag,
}

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

/** `xpk info`: GKE (to find the cluster) and its Kubernetes API on first use; reads only. */
export async function info(options: FlagOptions<typeof infoFlags>, run: Invocation): Promise<QueueInfo> {
  const [wiring, {info}] = await Promise.all([import('./wiring.js'), import('../services/info.js')])
  return wiring.runInsideCluster({...options, output: run.output}, run, info)
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
