import * as Flags from '@oclif/core/flags'

import {DEFAULT_WAIT_TIMEOUT_SECONDS} from '../core/workload/list-options.js'
import {STATUS_FILTERS} from '../core/workload/status.js'
import {choiceFlag, integerFlag} from './flag-kinds.js'
import {kubeAccessFlags} from './flags.js'

/** The flags of `xpk workload list` besides the target and global ones. Values are checked in src/core. */
export const workloadListFlags = {
  'filter-by-status': choiceFlag(STATUS_FILTERS, {
    description:
      'Only workloads in this state (any case): QUEUED (waiting, or preempted and back in the queue), RUNNING (admitted), FINISHED, and of those FAILED or SUCCESSFUL.',
    default: 'EVERYTHING',
    exclusive: ['wait-for-job-completion'],
  }),
  'filter-by-job': Flags.string({
    description: 'Only workloads whose name contains this text.',
    exclusive: ['wait-for-job-completion'],
  }),
  'wait-for-job-completion': Flags.string({
    description:
      'Watch this workload until it finishes, then show it: exit 0 when it succeeded, 125 when it failed, 124 on timeout.',
    helpValue: '<workload>',
  }),
  timeout: {
    ...integerFlag('workload:timeout', {
      description: 'With --wait-for-job-completion: seconds to wait.',
      default: `${DEFAULT_WAIT_TIMEOUT_SECONDS} (one week)`,
    }),
    dependsOn: ['wait-for-job-completion'],
  },
  ...kubeAccessFlags,
}
