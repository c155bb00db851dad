import {XpkError} from '../core/errors.js'
import {vmCreateActive, vmCreateAsync, vmCreateDryRun, vmCreateExists, vmCreateRequesting} from '../core/messages/vm.js'
import {checkVmCreateInput, type VmCreateInput} from '../core/vm/create-options.js'
import {planVmCreate, renderVmPlan, sameRequest, type VmCreateStep} from '../core/vm/manage-plan.js'
import {sliceNodeIds} from '../core/vm/naming.js'
import {STATE_NOTES} from '../core/vm/render.js'
import {tpuApiError} from '../core/vm/tpu-errors.js'
import {planStep, runStepsOrThrow, type GraphStep} from '../executor/step-graph.js'
import type {QueuedResource, QueuedResourceRequest, TpuClient, TpuLocation, TpuNode} from '../ports/tpu.js'
import {withRetries} from '../executor/retry.js'
import {pollWait, tpuRetry, usingTpu, type QueuedResourceAt, type VmApiDeps, type VmTiming} from './vm-common.js'

export interface VmCreateOptions extends VmCreateInput, TpuLocation {
  /** Return once the request is accepted instead of waiting until ACTIVE. */
  readonly async: boolean
  /** Show the plan (the request, or the queued resource found) and send nothing. */
  readonly dryRun?: boolean
  readonly timing: VmTiming
}

export interface VmCreateResult {
  readonly queuedResource: string
  /** Its state as last read; null when there is none (a dry run that would request it). */
  readonly state: string | null
  /** `created` (sent now), `existing` (found, same request: waited for it), `planned` (a dry run that would send it). */
  readonly outcome: 'created' | 'existing' | 'planned'
  readonly nodes: readonly {readonly id: string; readonly state: string; readonly workers: readonly string[]}[]
  readonly dryRun: boolean
  /** The plan, as data: the request sent (or the queued resource found) and the wait. */
  readonly steps: readonly VmCreateStep[]
}

/**
 * `xpk vm create`: validates everything first, reads the queued resource of the id, plans (the request, or the one
 * found with the same request, then the wait), and applies the plan: requests one queued resource with N slices and
 * waits (with progress, one line per state change) until it is ACTIVE. Re-running with the same request resumes
 * waiting; a dry run shows the plan.
 */
export async function createVms(options: VmCreateOptions, deps: VmApiDeps): Promise<VmCreateResult> {
  const request = checkVmCreateInput(options)
  const location = {project: options.project, zone: options.zone}
  const id = request.queuedResourceId
  const nodeIds = sliceNodeIds(request.tpuPrefix, request.numSlices)
  return usingTpu(deps, async (tpu) => {
    const existing = await withRetries(() => tpu.getQueuedResource(location, id), tpuRetry(options.timing, deps))
    const plan = planVmCreate(request, existing, {...location, async: options.async})
    const base = {queuedResource: id, dryRun: options.dryRun ?? false, steps: plan.steps}
    if (options.dryRun) {
      deps.console.result(renderVmPlan(plan))
      deps.console.info(vmCreateDryRun())
      return {...base, state: existing?.state ?? null, outcome: existing ? 'existing' : 'planned', nodes: []}
    }
    if (existing) deps.console.info(vmCreateExists({queuedResource: id, state: existing.state}))
    let final: QueuedResource | undefined
    const graph: GraphStep[] = []
    for (const step of plan.steps) {
      if (step.action === 'create' && step.spec !== null) {
        const sent = step.spec
        graph.push(
          planStep(step, 'create', async () => {
            deps.console.info(
              vmCreateRequesting({
                queuedResource: id,
                numSlices: request.numSlices,
                type: request.type.name,
                hosts: request.type.hosts,
                runtimeVersion: request.runtimeVersion,
                capacity: request.capacity,
                nodes: nodeIds,
              }),
            )
            await sendRequest(tpu, location, sent, options, deps, (found) => sameRequest(found, request))
          }),
        )
      } else if (step.action === 'wait') {
        const wait = async () => void (final = await waitUntilActive({tpu, location, id}, options, deps))
        graph.push(planStep(step, 'wait', wait, ['create'], graph))
      }
    }
    await runStepsOrThrow(graph, {board: undefined, signal: deps.signal, now: deps.now})
    const outcome: VmCreateResult['outcome'] = existing ? 'existing' : 'created'
    if (options.async) {
      deps.console.info(vmCreateAsync({tpuPrefix: request.tpuPrefix}))
      const now = await tpu.getQueuedResource(location, id)
      return {...base, state: now?.state ?? 'CREATING', outcome, nodes: []}
    }
    const nodes = (
      await Promise.all(nodeIds.map((n) => withRetries(() => tpu.getNode(location, n), tpuRetry(options.timing, deps))))
    ).filter((n): n is TpuNode => n !== undefined)
    deps.console.info(vmCreateActive({queuedResource: id, nodes}))
    deps.console.result(
      nodes
        .map((n) => `${n.id}\t${n.state}\t${n.workers.map((w) => w.externalIp ?? w.internalIp).join(',')}`)
        .join('\n'),
    )
    return {
      ...base,
      state: final!.state,
      outcome,
      nodes: nodes.map((n) => ({id: n.id, state: n.state, workers: n.workers.map((w) => w.internalIp)})),
    }
  })
}

/** Sends the request. A retried create whose first attempt went through finds its own request: that is success. */
async function sendRequest(
  tpu: TpuClient,
  location: TpuLocation,
  request: QueuedResourceRequest,
  options: VmCreateOptions,
  deps: VmApiDeps,
  isMine: (found: QueuedResource) => boolean,
): Promise<void> {
  try {
    await withRetries(() => tpu.createQueuedResource(location, request), tpuRetry(options.timing, deps))
  } catch (error) {
    const mine = await tpu.getQueuedResource(location, request.id).catch(() => undefined)
    if (!(error instanceof XpkError && error.kind === 'conflict' && mine && isMine(mine))) throw error
  }
}

async function waitUntilActive(
  {tpu, location, id}: QueuedResourceAt,
  options: VmCreateOptions,
  deps: VmApiDeps,
): Promise<QueuedResource> {
  const board = deps.console.progress(`Waiting for queued resource ${id}:`)
  try {
    for (let poll = 0; ; poll++) {
      const qr = await withRetries(() => tpu.getQueuedResource(location, id), tpuRetry(options.timing, deps))
      if (!qr) {
        throw new XpkError('failed', `Queued resource ${id} disappeared while waiting (deleted by someone else?).`, {
          hints: ['Run `xpk vm create` again to request it anew.'],
        })
      }
      // One line per state, with what it means: the board shows how long it has been (or when, in a log).
      board.update(id, {
        label: id,
        state: qr.state,
        status: qr.state === 'ACTIVE' ? 'done' : qr.state === 'FAILED' ? 'failed' : 'running',
        detail: STATE_NOTES[qr.state] ?? '',
      })
      if (qr.state === 'ACTIVE') return qr
      if (qr.state === 'FAILED') {
        const failure = qr.failure ?? {code: 2, message: 'no reason given'}
        const error = tpuApiError(failure, {action: `provision queued resource ${id}`, ...location})
        throw new XpkError(error.kind === 'usage' ? 'failed' : error.kind, error.message, {
          hints: [
            ...error.hints,
            `Delete the failed request with \`xpk vm delete --queued-resource-id ${id} --tpu-prefix ...\` before trying again.`,
          ],
          cause: error,
        })
      }
      if (qr.state === 'SUSPENDED' || qr.state === 'DELETING') {
        throw new XpkError('failed', `Queued resource ${id} is ${qr.state}: ${STATE_NOTES[qr.state]}.`)
      }
      await pollWait(poll, options.timing, deps)
    }
  } finally {
    board.close()
  }
}
