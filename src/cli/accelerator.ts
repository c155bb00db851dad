/**
 * The `accelerator` topic: the flags of its commands, and their wiring. The flags are read when the CLI starts (help,
 * parsing); the catalog and its rendering are imported when a command runs, so `--help` never loads them, and
 * listing types loads no cluster, workload or VM code.
 */
import * as Flags from '@oclif/core/flags'

import type {Accelerator} from '../core/catalog/types.js'
import type {Invocation} from './base-command.js'
import {choiceFlag, type FlagOptions} from './flag-kinds.js'
import {outputFlags} from './flags.js'

/** The flags of `xpk accelerator list`. */
export const acceleratorListFlags = {
  family: Flags.string({description: 'Only this family, e.g. v5p, v5litepod (or v5e), v6e, tpu7x, h100-80gb.'}),
  kind: choiceFlag(['TPU', 'GPU', 'CPU'], {description: 'Only this kind.'}),
  aliases: Flags.boolean({description: 'Also list topology names (v5p-4x4x8, v4-8x4x4).'}),
  ...outputFlags,
}

/** The flags of `xpk accelerator describe` (the type is its argument). */
export const acceleratorDescribeFlags = {...outputFlags}

/** `xpk accelerator list`: the catalog, filtered, as a table. */
export async function listAccelerators(
  options: FlagOptions<typeof acceleratorListFlags>,
  run: Invocation,
): Promise<Accelerator[]> {
  const [{listAccelerators}, {acceleratorListView}, {showOutput}, {acceleratorListNoneFound}] = await Promise.all([
    import('../services/accelerators.js'),
    import('../core/render/accelerators.js'),
    import('../services/show-output.js'),
    import('../core/messages/lists.js'),
  ])
  const accelerators = listAccelerators(options)
  showOutput(run.console, run.output, acceleratorListView, accelerators, () =>
    acceleratorListNoneFound({filters: {'--family': options.family, '--kind': options.kind}}),
  )
  return accelerators
}

/** `xpk accelerator describe TYPE`: everything xpk derives from one type. */
export async function describeAccelerator(options: {readonly type: string}, run: Invocation): Promise<Accelerator> {
  const [{describeAccelerator}, {acceleratorDescribeView}, {showOutput}] = await Promise.all([
    import('../services/accelerators.js'),
    import('../core/render/accelerators.js'),
    import('../services/show-output.js'),
  ])
  const accelerator = describeAccelerator(options.type)
  showOutput(run.console, run.output, acceleratorDescribeView, accelerator)
  return accelerator
}
