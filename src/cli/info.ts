/** `xpk info`, a topic of its own as in Python xpk: its flags, and its wiring (the service is imported when it runs). */
import * as Flags from '@oclif/core/flags'

import type {QueueInfo} from '../services/info.js'
import type {Invocation} from './base-command.js'
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

/** `xpk info`: GKE (to find the cluster) and its Kubernetes API on first use; reads only. */
export async function info(options: FlagOptions<typeof infoFlags>, run: Invocation): Promise<QueueInfo> {
  const [wiring, {info}] = await Promise.all([import('./wiring.js'), import('../services/info.js')])
  return wiring.runInsideCluster({...options, output: run.output}, run, info)
}
