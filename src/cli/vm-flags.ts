import * as Flags from '@oclif/core/flags'

import {integerFlag, pathFlag, valueShape} from './flag-kinds.js'

/** Where TPU VM commands act, and how they reach the TPU API. */
export const vmTargetFlags = {
  project: Flags.string({description: 'Google Cloud project ID. [env: XPK_PROJECT]', helpGroup: 'TARGET'}),
  zone: Flags.string({
    description: 'Compute zone of the TPUs, e.g. us-central2-b. [env: XPK_ZONE]',
    helpGroup: 'TARGET',
  }),
  'tpu-endpoint': Flags.string({
    description: 'Cloud TPU API endpoint, e.g. https://tpu.googleapis.com/. [env: XPK_TPU_ENDPOINT]',
    helpGroup: 'TARGET',
  }),
}

const TPU_PREFIX =
  'Slice name, or prefix of the slices P-0, P-1, ... of a multislice request (like multihost_runner --TPU_PREFIX).'

export const tpuPrefixFlag = Flags.string({description: TPU_PREFIX, required: true})

export const tpuPrefixFilterFlag = Flags.string({description: `Only this slice or prefix: ${TPU_PREFIX}`})

export const queuedResourceIdFlag = Flags.string({
  description: 'Queued resource id. [default: the --tpu-prefix]',
})

export const asyncFlag = Flags.boolean({description: 'Return once the request is sent instead of waiting.'})

export const forceFlag = Flags.boolean({
  description: 'Do not ask for confirmation (before deleting, creating an SSH key, or copying a large --script-dir).',
  helpGroup: 'GLOBAL',
})

/** The flags of `xpk vm run`. */
export const vmRunFlags = {
  ...vmTargetFlags,
  'tpu-prefix': tpuPrefixFlag,
  command: Flags.string({
    ...valueShape('text'),
    description: 'Command to run on every worker (in the copied script directory).',
    required: true,
  }),
  'script-dir': pathFlag('directory', {
    description:
      'Directory to copy to every worker (honours .dockerignore and .xpkignore). Asks first when it holds node_modules or .git, or more than XPK_SCRIPT_DIR_MAX_MB (default 100, 0: no limit) MB; --force copies it without asking. [default: current directory]',
    exclusive: ['use-existing-folder'],
  }),
  'run-name': Flags.string({description: 'Name of the run (log directory). [default: run-<UTC timestamp>]'}),
  'internal-ip': Flags.boolean({description: 'Connect to internal IPs (when running inside Google Cloud).'}),
  'use-existing-folder': Flags.boolean({
    description: 'Re-run in the copy already on the workers; copy nothing.',
    exclusive: ['script-dir'],
  }),
  'ssh-user': Flags.string({description: 'Login on the workers. [default: your local user name]'}),
  'ssh-port': integerFlag('vm:ssh-port', {description: 'SSH port of the workers.', default: 22}),
  'log-dir': pathFlag('directory', {
    description: 'Where run directories with per-worker logs go. [default: $TMPDIR/xpk-runs]',
  }),
  force: forceFlag,
}
