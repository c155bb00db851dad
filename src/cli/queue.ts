/**
 * The `queue` topic: `xpk queue`, the live view of a cluster's queues. Its flags are read when the CLI starts; the
 * view, the watches and the terminal screen are imported when it runs.
 */
import * as Flags from '@oclif/core/flags'

import type {QueueSnapshot} from '../core/queue/snapshot.js'
import type {Invocation} from './base-command.js'
import {insideCluster} from './command-start.js'
import type {FlagOptions} from './flag-kinds.js'
import {gkeEndpointFlag, kubeAccessFlags, targetFlags} from './flags.js'

/** The flags of `xpk queue`. */
export const queueFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  once: Flags.boolean({
    description: 'Print the queues once, as tables, and exit (what happens anyway without a terminal, or with --json).',
  }),
  ...kubeAccessFlags,
}

/** `xpk queue`: on a terminal, redrawn in place from watches until Ctrl-C; otherwise once. */
export async function viewQueue(options: FlagOptions<typeof queueFlags>, run: Invocation): Promise<QueueSnapshot> {
  const [{terminalScreen}, view] = await Promise.all([
    import('../adapters/terminal-screen.js'),
    import('../services/queue-view.js').then((m) => m.viewQueue),
  ])
  return insideCluster(
    import('./wiring.js'),
    options,
    run,
    Promise.resolve((o, deps) =>
      view({...o, once: options.once === true || run.json}, {...deps, screen: () => terminalScreen()}),
    ),
  )
}
