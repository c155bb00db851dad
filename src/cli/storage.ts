/**
 * The `storage` topic: the flags of its commands, and their wiring. The flags are read when the CLI starts (help,
 * parsing); everything else is imported when a command runs, so `--help` and the other topics never load it.
 */
import type {StorageListResult} from '../services/storage-list.js'
import type {Invocation} from './base-command.js'
import {insideCluster} from './command-start.js'
import type {FlagOptions} from './flag-kinds.js'
import {gkeEndpointFlag, kubeAccessFlags, noChangeDryRunFlag, outputFlags, targetFlags} from './flags.js'

/** The flags of `xpk storage list`: the cluster is reached as `workload list` reaches it. */
export const storageListFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...kubeAccessFlags,
  ...outputFlags,
  ...noChangeDryRunFlag,
}

/** `xpk storage list`: GKE (to find the cluster) and its Kubernetes API on first use. */
export async function listStorages(
  options: FlagOptions<typeof storageListFlags>,
  run: Invocation,
): Promise<StorageListResult> {
  return insideCluster(
    import('./wiring.js'),
    {...options, output: run.output},
    run,
    import('../services/storage-list.js').then((m) => m.listStorages),
  )
}
