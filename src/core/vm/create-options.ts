import {throwIfProblems, UsageError} from '../errors.js'
import {INTEGER_FLAGS, parseInteger} from '../input.js'
import type {TpuCapacity} from './types.js'
import {checkTypeAndRuntime, type TpuVmType} from './catalog.js'
import {idProblem} from './naming.js'

/** `xpk vm create` input as typed. */
export interface VmCreateInput {
  readonly tpuPrefix: string
  readonly queuedResourceId?: string
  readonly tpuType: string
  /** As typed (checked exactly here) or as a number from in-process callers. */
  readonly numSlices: number | string
  readonly runtimeVersion?: string
  readonly capacity: TpuCapacity
  readonly reservation?: string
}

/** Checked input. */
export interface VmCreateRequest {
  readonly tpuPrefix: string
  readonly queuedResourceId: string
  readonly type: TpuVmType
  readonly numSlices: number
  readonly runtimeVersion: string
  readonly capacity: TpuCapacity
  readonly reservation?: string
}

/** The capacity chosen by --reserved, --spot or --best-effort (the parser lets at most one through); on-demand otherwise. */
export function capacityFromFlags(flags: {reserved?: boolean; spot?: boolean; 'best-effort'?: boolean}): TpuCapacity {
  if (flags.reserved) return 'reserved'
  if (flags.spot) return 'spot'
  return flags['best-effort'] ? 'best-effort' : 'on-demand'
}

export const MAX_VM_SLICES = INTEGER_FLAGS['vm:num-slices'].max

/** Validates `xpk vm create` input, reporting every problem at once. */
export function checkVmCreateInput(input: VmCreateInput): VmCreateRequest {
  const problems: UsageError[] = []
  const parsed = parseInteger(String(input.numSlices), INTEGER_FLAGS['vm:num-slices'])
  const numSlices = 'value' in parsed ? parsed.value : 1
  if ('problem' in parsed) {
    problems.push(new UsageError(`--num-slices: ${parsed.problem}.`, {flag: '--num-slices'}))
  }
  const suffix = numSlices > 1 ? `-${numSlices - 1}`.length : 0
  const prefixProblem = idProblem(input.tpuPrefix, '--tpu-prefix', suffix)
  if (prefixProblem) problems.push(prefixProblem)
  const qrId = input.queuedResourceId ?? input.tpuPrefix
  if (input.queuedResourceId !== undefined) {
    const p = idProblem(input.queuedResourceId, '--queued-resource-id')
    if (p) problems.push(p)
  }
  const {type, runtimeVersion} = checkTypeAndRuntime(input.tpuType, input.runtimeVersion, problems)
  if (input.reservation !== undefined && input.capacity !== 'reserved') {
    problems.push(
      new UsageError('--reservation needs --reserved.', {flag: '--reservation', hints: ['Add --reserved.']}),
    )
  }
  if (input.reservation === '') {
    problems.push(new UsageError('--reservation is empty: give a reservation name.', {flag: '--reservation'}))
  }
  throwIfProblems(problems)
  return {
    tpuPrefix: input.tpuPrefix,
    queuedResourceId: qrId,
    type: type!,
    numSlices,
    runtimeVersion,
    capacity: input.capacity,
    ...(input.reservation ? {reservation: input.reservation} : {}),
  }
}
