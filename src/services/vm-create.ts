import {XpkError} from '../core/errors.js'
import {checkVmCreateInput, type VmCreateInput} from '../core/vm/create-options.js'
import {sliceNodeIds} from '../core/vm/naming.js'
import {STATE_NOTES} from '../core/vm/render.js'
import {tpuApiError} from '../core/vm/tpu-errors.js'
import type {QueuedResource, TpuLocation, TpuNode} from '../ports/tpu.js'
import {withRetries} from '../executor/retry.js'
import {pollWait, tpuRetry, usingTpu, type VmApiDeps, type VmTiming} from './vm-common.js'
import {vmCreateActive, vmCreateAsync, vmCreateExists, vmCreateRequesting} from '../core/messages/vm.js'

export interface VmCreateOptions extends VmCreateInput, TpuLocation {
  /** Return once the request is accepted instead of waiting until ACTIVE. */
  readonly async: boolean
  readonly timing: VmTiming
}

export interface VmCreateResult {
  readonly queuedResource: string
  readonly state: string
  /** `created` (sent now), `existing` (found, same request: waited for it). */
  readonly outcome: 'created' | 'existing'
  readonly nodes: readonly {readonly id: string; readonly state: string; readonly workers: readonly string[]}[]
}

function sameRequest(found: QueuedResource, nodeIds: readonly string[], type: string): boolean {
  return found.acceleratorType === type && found.nodeIds.join(',') === nodeIds.join(',')
}

/**
 * `xpk vm create`: validates everything first, requests one queued resource with N slices, and waits (with
 * progress, one line per state change) until it is ACTIVE. Re-running with the same request resumes waiting.
 */
export async function createVms(options: VmCreateOptions, deps: VmApiDeps): Promise<VmCreateResult> {
  const request = checkVmCreateInput(options)
  const location = {project: options.project, zone: options.zone}
  const id = request.queuedResourceId
  const nodeIds = sliceNodeIds(request.tpuPrefix, request.numSlices)
  return usingTpu(deps, async (tpu) => {
    const existing = await withRetries(() => tpu.getQueuedResource(location, id), tpuRetry(options.timing, deps))
    let outcome: VmCreateResult['outcome'] = 'created'
    if (existing) {
      if (!sameRequest(existing, nodeIds, request.type.name) || existing.state === 'FAILED') {
        throw new XpkError(
          'conflict',
          `Queued resource ${id} already exists (${existing.state}, ${existing.acceleratorType}, nodes ${existing.nodeIds.join(', ')}).`,
          {
            hints: [
              `Delete it first with \`xpk vm delete --tpu-prefix ${request.tpuPrefix} --queued-resource-id ${id}\`, or pick another --queued-resource-id.`,
            ],
          },
        )
      }
      outcome = 'existing'
      deps.console.info(vmCreateExists({queuedResource: id, state: existing.state}))
    } else {
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
      try {
        await withRetries(
          () =>
            tpu.createQueuedResource(location, {
              id,
              nodePrefix: request.tpuPrefix,
              numSlices: request.numSlices,
              acceleratorType: request.type.name,
              runtimeVersion: request.runtimeVersion,
              capacity: request.capacity,
              ...(request.reservation ? {reservation: request.reservation} : {}),
            }),
          tpuRetry(options.timing, deps),
        )
      } catch (error) {
        // A retried create whose first attempt went through finds its own request: that is success.
        const mine = await tpu.getQueuedResource(location, id).catch(() => undefined)
        if (!(
          error instanceof XpkError &&
          error.kind === 'conflict' &&
          mine &&
          sameRequest(mine, nodeIds, request.type.name)
        )) {
          throw error
        }
      }
    }
    if (options.async) {
      deps.console.info(vmCreateAsync({tpuPrefix: request.tpuPrefix}))
      const now = await tpu.getQueuedResource(location, id)
      return {queuedResource: id, state: now?.state ?? 'CREATING', outcome, nodes: []}
    }
    const final = await waitUntilActive(id, location, options, deps, tpu)
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
      queuedResource: id,
      state: final.state,
      outcome,
      nodes: nodes.map((n) => ({id: n.id, state: n.state, workers: n.workers.map((w) => w.internalIp)})),
    }
  })
}

async function waitUntilActive(
  id: string,
  location: TpuLocation,
  options: VmCreateOptions,
  deps: VmApiDeps,
  tpu: Parameters<Parameters<typeof usingTpu>[1]>[0],
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
