import {throwIfProblems, XpkError} from '../core/errors.js'
import {idProblem} from '../core/vm/naming.js'
import type {TpuLocation} from '../ports/tpu.js'
import {withRetries} from '../executor/retry.js'
import {pollWait, tpuRetry, usingTpu, type VmApiDeps, type VmTiming} from './vm-common.js'
import {vmDeleteAbsent, vmDeleteAsync, vmDeleteConfirm, vmDeleteDone} from '../core/messages/vm.js'
import {confirmOrStop} from './confirm.js'

export interface VmDeleteOptions extends TpuLocation {
  readonly tpuPrefix: string
  /** Defaults to the prefix. */
  readonly queuedResourceId?: string
  readonly async: boolean
  readonly timing: VmTiming
}

export interface VmDeleteResult {
  readonly queuedResource: string
  readonly outcome: 'deleted' | 'deleting' | 'absent'
  readonly nodes: readonly string[]
}

/**
 * `xpk vm delete`: asks first (or --force), deletes the queued resource with its nodes and waits until both are
 * gone (unless --async). A queued resource that does not exist is success.
 */
export async function deleteVms(options: VmDeleteOptions, deps: VmApiDeps): Promise<VmDeleteResult> {
  // The names become paths of the TPU API's URLs: checked by the rule `vm create` made them with.
  throwIfProblems(
    [
      idProblem(options.tpuPrefix, '--tpu-prefix'),
      options.queuedResourceId === undefined ? undefined : idProblem(options.queuedResourceId, '--queued-resource-id'),
    ].filter((p) => p !== undefined),
  )
  const location = {project: options.project, zone: options.zone}
  const id = options.queuedResourceId ?? options.tpuPrefix
  return usingTpu(deps, async (tpu) => {
    const found = await withRetries(() => tpu.getQueuedResource(location, id), tpuRetry(options.timing, deps))
    if (!found) {
      deps.console.info(vmDeleteAbsent({queuedResource: id, project: options.project, zone: options.zone}))
      return {queuedResource: id, outcome: 'absent', nodes: []}
    }
    const nodes = found.nodeIds
    await confirmOrStop(deps.console, vmDeleteConfirm({queuedResource: id, state: found.state, nodes}), {
      nothingDone: 'Nothing was deleted.',
    })
    if (found.state !== 'DELETING') {
      try {
        await withRetries(() => tpu.deleteQueuedResource(location, id, true), tpuRetry(options.timing, deps))
      } catch (error) {
        if (!(error instanceof XpkError && error.kind === 'not-found')) throw error
      }
    }
    if (options.async) {
      deps.console.info(vmDeleteAsync({queuedResource: id}))
      return {queuedResource: id, outcome: 'deleting', nodes}
    }
    const board = deps.console.progress(`Deleting queued resource ${id}:`)
    try {
      for (let poll = 0; ; poll++) {
        const now = await withRetries(() => tpu.getQueuedResource(location, id), tpuRetry(options.timing, deps))
        if (!now) break
        // The state alone: the board shows how long it has been (or when, in a log), so each state prints once.
        board.update(id, {label: id, state: now.state.toLowerCase(), status: 'running'})
        await pollWait(poll, options.timing, deps)
      }
      board.update(id, {label: id, state: 'deleted', status: 'done'})
    } finally {
      board.close()
    }
    deps.console.info(vmDeleteDone({queuedResource: id, nodes}))
    return {queuedResource: id, outcome: 'deleted', nodes}
  })
}
