import * as Flags from '@oclif/core/flags'

import {integerFlag} from './flag-kinds.js'
import {kubeAccessFlags} from './flags.js'

/** The flags of `xpk workload logs` besides the target and global ones. Values are checked in src/core. */
export const workloadLogsFlags = {
  follow: Flags.boolean({
    char: 'f',
    description: 'Keep printing what the containers write until they exit (or Ctrl-C).',
  }),
  slice: integerFlag('workload:slice', {description: 'The slice whose pod to read.', default: '0', exclusive: ['all']}),
  worker: integerFlag('workload:worker', {
    description: 'The worker (pod index within the slice) to read.',
    default: '0',
    exclusive: ['all'],
  }),
  all: Flags.boolean({
    description: 'Read every pod of the workload, each line prefixed with [slice S/worker W], as lines arrive.',
  }),
  tail: integerFlag('workload:tail', {description: 'Only the last N lines of each log so far.'}),
  since: Flags.string({
    description: 'Only lines written in this last while: 30s, 10m, 2h, 1h30m (at most 7d).',
    helpValue: '<duration>',
  }),
  ...kubeAccessFlags,
}
