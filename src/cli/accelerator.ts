/**
 * The `accelerator` topic: the flags of its commands, and their wiring. The flags are read when the CLI starts (help,
 * parsing); the catalog and its rendering are imported when a command runs, so `--help` never loads them, and
 * listing types loads no cluster, workload or VM code.
 */
import * as Flags from '@oclif/core/flags'

import type {Accelerator} from '../core/catalog/types.js'
import type {Invocation} from './base-command.js'
import {choiceFlag, type FlagOptions} from './flag-kinds.js'

/** The flags of `xpk accelerator list`. */
export const acceleratorListFlags = {
  family: Flags.string({description: 'Only this family, e.g. v5p, v5litepod (or v5e), v6e, tpu7x, h100-80gb.'}),
  kind: choiceFlag(['TPU', 'GPU', 'CPU'], {description: 'Only this kind.'}),
  aliases: Flags.boolean({description: 'Also list topology names (v5p-4x4x8, v4-8x4x4).'}),
}

/** `xpk accelerator list`: the catalog, filtered, as a table. */
export async function listAccelerators(
  options: FlagOptions<typeof acceleratorListFlags>,
  run: Invocation,
): Promise<Accelerator[]> {
  const [{listAccelerators}, {renderAcceleratorTable}] = await Promise.all([
    import('../services/accelerators.js'),
    import('../core/render/accelerators.js'),
  ])
  const accelerators = listAccelerators(options)
  run.console.result(() => renderAcceleratorTable(accelerators))
  return accelerators
}

/** `xpk accelerator describe TYPE`: everything xpk derives from one type. */
export async function describeAccelerator(options: {readonly type: string}, run: Invocation): Promise<Accelerator> {
  const [{describeAccelerator}, {renderAcceleratorDetails}] = await Promise.all([
    import('../services/accelerators.js'),
    import('../core/render/accelerators.js'),
  ])
  const accelerator = describeAccelerator(options.type)
  run.console.result(() => renderAcceleratorDetails(accelerator))
  return accelerator
}
