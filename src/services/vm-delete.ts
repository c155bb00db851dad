import {throwIfProblems, XpkError} from '../core/errors.js'
import {vmDeleteAbsent, vmDeleteAsync, vmDeleteConfirm, vmDeleteDone, vmDeleteDryRun} from '../core/messages/vm.js'
import {planVmDelete, renderVmPlan, type VmDeleteStep} from '../core/vm/manage-plan.js'
import {idProblem} from '../core/vm/naming.js'
import {planStep, runStepsOrThrow, type GraphStep} from '../executor/step-graph.js'
import type {TpuLocation} from '../ports/tpu.js'
import {confirmOrStop} from './confirm.js'
import {withRetries} from '../executor/retry.js'
import {pollWait, tpuRetry, usingTpu, type QueuedResourceAt, type VmApiDeps, type VmTiming} from './vm-common.js'

export interface VmDeleteOptions extends TpuLocation {
  readonly tpuPrefix: string
  /** Defaults to the prefix. */
  readonly queuedResourceId?: string
  readonly async: boolean
  /** Show the plan (what would be deleted) and delete nothing. */
  readonly dryRun?: boolean
  readonly timing: VmTiming
}

export interface VmDeleteResult {
  readonly queuedResource: string
  /** `deleted`, `deleting` (--async), `absent` (nothing to do) or `planned` (a dry run). */
  readonly outcome: 'deleted' | 'deleting' | 'absent' | 'planned'
  readonly nodes: readonly string[]
  readonly dryRun: boolean
  /** The plan, as data: the deletion (the queued resource, force, its nodes) and the wait. */
  readonly steps: readonly VmDeleteStep[]
}

/**
 * `xpk vm delete`: reads the queued resource, plans its deletion with its nodes (and the wait until both are gone,
 * unless --async), asks first (or --force), and applies the plan. A queued resource that does not exist is success;
 * a dry run shows the plan.
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
    const plan = planVmDelete(id, found, {...location, async: options.async})
    const base = {queuedResource: id, dryRun: options.dryRun ?? false, steps: plan.steps}
    if (!found) {
      deps.console.info(vmDeleteAbsent({queuedResource: id, project: options.project, zone: options.zone}))
      return {...base, outcome: 'absent', nodes: []}
    }
    const nodes = found.nodeIds
    if (options.dryRun) {
      deps.console.result(renderVmPlan(plan))
      deps.console.info(vmDeleteDryRun())
      return {...base, outcome: 'planned', nodes}
    }
    await confirmOrStop(deps.console, vmDeleteConfirm({queuedResource: id, state: found.state, nodes}), {
      nothingDone: 'Nothing was deleted.',
    })
    const queuedResource = {tpu, location, id}
    const graph: GraphStep[] = []
    for (const step of plan.steps) {
      if (step.action === 'delete') {
        graph.push(planStep(step, 'delete', () => deleteQueuedResource(queuedResource, options, deps)))
      } else if (step.action === 'wait') {
        graph.push(planStep(step, 'wait', () => waitUntilGone(queuedResource, options, deps), ['delete'], graph))
      }
    }
    await runStepsOrThrow(graph, {board: undefined, signal: deps.signal, now: deps.now})
    if (options.async) {
      deps.console.info(vmDeleteAsync({queuedResource: id}))
      return {...base, outcome: 'deleting', nodes}
    }
    deps.console.info(vmDeleteDone({queuedResource: id, nodes}))
    return {...base, outcome: 'deleted', nodes}
  })
}

/** Deletes the queued resource with its nodes (`force`); already gone is done. */
async function deleteQueuedResource(
  {tpu, location, id}: QueuedResourceAt,
  options: VmDeleteOptions,
  deps: VmApiDeps,
): Promise<void> {
  try {
    await withRetries(() => tpu.deleteQueuedResource(location, id, true), tpuRetry(options.timing, deps))
  } catch (error) {
    if (!(error instanceof XpkError && error.kind === 'not-found')) throw error
  }
}

/** Polls until the queued resource is gone, one progress line per state. */
async function waitUntilGone(
  {tpu, location, id}: QueuedResourceAt,
  options: VmDeleteOptions,
  deps: VmApiDeps,
): Promise<void> {
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
}
