import * as Flags from '@oclif/core/flags'

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
  description: 'Do not ask for confirmation (before deleting, or creating an SSH key).',
  helpGroup: 'GLOBAL',
})
