/**
 * The TPU of a TPU VM job: reading its health, requesting it (a node, or a queued resource), waiting until it is
 * ready, and deleting it. Used by the supervisor (and by `delete`); every call goes through the one retry policy.
 */
import {XpkError} from '../core/errors.js'
import {tpuHealth, type TpuHealth, type VmJobWorkerAddress} from '../core/vmjob/record.js'
import type {VmJobSpec} from '../core/vmjob/spec.js'
import {withRetries} from '../executor/retry.js'
import type {TpuCapacity, TpuClient, TpuLocation, TpuNode} from '../ports/tpu.js'
import {pollWait, tpuRetry, type VmApiDeps, type VmTiming} from './vm-common.js'

export interface JobTpu {
  readonly tpu: TpuClient
  readonly location: TpuLocation
  readonly spec: VmJobSpec
  readonly timing: VmTiming
  readonly deps: VmApiDeps
}

/** The node and (for queued resources) the queued resource as they are now. */
export async function readJobTpu(at: JobTpu): Promise<{health: TpuHealth; node?: TpuNode; state: string}> {
  const retry = tpuRetry(at.timing, at.deps)
  const id = at.spec.tpu.name
  const [node, queued] = await Promise.all([
    withRetries(() => at.tpu.getNode(at.location, id), retry),
    at.spec.tpu.allocationMode === 'queued-resources'
      ? withRetries(() => at.tpu.getQueuedResource(at.location, id), retry)
      : Promise.resolve(undefined),
  ])
  const health = tpuHealth(node, queued)
  const state = [queued ? `queued resource ${queued.state}` : '', node ? `node ${node.state}` : '']
    .filter(Boolean)
    .join(', ')
  return {health, node, state: state || 'absent'}
}

/** jobman's pricing as the TPU API's capacity: preemptible is the queued resource API's best effort. */
function capacity(spec: VmJobSpec): TpuCapacity {
  if (spec.tpu.pricing === 'spot') return 'spot'
  return spec.tpu.pricing === 'preemptible' ? 'best-effort' : 'on-demand'
}

/** The metadata the TPU is created with: the config's, the startup script, and the key that lets xpk in. */
export function creationMetadata(spec: VmJobSpec, sshKeys: string): Record<string, string> {
  return {
    ...spec.tpu.metadata,
    ...(spec.tpu.startupScript === null ? {} : {'startup-script': spec.tpu.startupScript}),
    'ssh-keys': [spec.tpu.metadata['ssh-keys'], sshKeys].filter(Boolean).join('\n'),
  }
}

/** Sends the request for the job's TPU (an existing one of the same name is taken as this request's). */
export async function requestJobTpu(at: JobTpu, sshKeys: string): Promise<void> {
  const {spec} = at
  const retry = tpuRetry(at.timing, at.deps)
  const metadata = creationMetadata(spec, sshKeys)
  try {
    if (spec.tpu.allocationMode === 'queued-resources') {
      await withRetries(
        () =>
          at.tpu.createQueuedResource(at.location, {
            id: spec.tpu.name,
            nodePrefix: spec.tpu.name,
            numSlices: 1,
            acceleratorType: spec.tpu.accelerator,
            runtimeVersion: spec.tpu.runtimeVersion,
            capacity: capacity(spec),
            metadata,
          }),
        retry,
      )
    } else {
      await withRetries(
        () =>
          at.tpu.createNode(at.location, {
            id: spec.tpu.name,
            acceleratorType: spec.tpu.accelerator,
            runtimeVersion: spec.tpu.runtimeVersion,
            capacity: spec.tpu.pricing === 'ondemand' ? 'on-demand' : spec.tpu.pricing,
            metadata,
            tags: spec.tpu.tags,
          }),
        retry,
      )
    }
  } catch (error) {
    // Another request of the same name (a supervisor killed right after sending it) is the one to wait for.
    if (error instanceof XpkError && error.kind === 'conflict' && /already exists/i.test(error.message)) return
    throw error
  }
}

/**
 * Waits until the TPU is READY and returns its workers, calling `onState` on every change of state. A TPU that is
 * lost while waiting (a queued resource FAILED, a node preempted) resolves undefined: the caller deletes it and
 * requests it again.
 */
export async function waitForJobTpu(
  at: JobTpu,
  onState: (state: string) => void,
): Promise<{workers: VmJobWorkerAddress[]; node: TpuNode} | undefined> {
  let last = ''
  for (let poll = 0; ; poll++) {
    const {health, node, state} = await readJobTpu(at)
    if (state !== last) onState((last = state))
    if (health === 'ready' && node && node.workers.length > 0) return {workers: jobWorkers(node), node}
    if (health === 'lost') return undefined
    if (health === 'absent') {
      throw new XpkError('failed', `The TPU ${at.spec.tpu.name} disappeared while xpk waited for it.`, {
        hints: ['Someone deleted it; `xpk vm job resume ID` requests it again.'],
      })
    }
    await pollWait(poll, at.timing, at.deps)
  }
}

/** The workers of a ready node, in order (slice 0: a job runs on one TPU). */
export function jobWorkers(node: TpuNode): VmJobWorkerAddress[] {
  return node.workers.map((w, worker) => ({
    slice: 0,
    worker,
    nodeId: node.id,
    identity: `${node.id}/${node.uid ?? '-'}/${worker}`,
    internalIp: w.internalIp,
    ...(w.externalIp ? {externalIp: w.externalIp} : {}),
  }))
}

/** Deletes the job's TPU (the queued resource with its node, or the node) and waits until it is gone. */
export async function deleteJobTpu(at: JobTpu): Promise<boolean> {
  const retry = tpuRetry(at.timing, at.deps)
  const id = at.spec.tpu.name
  const queued = at.spec.tpu.allocationMode === 'queued-resources'
  const found = queued
    ? await withRetries(() => at.tpu.getQueuedResource(at.location, id), retry)
    : await withRetries(() => at.tpu.getNode(at.location, id), retry)
  if (!found) return false
  if (found.state !== 'DELETING') {
    try {
      await withRetries(
        () => (queued ? at.tpu.deleteQueuedResource(at.location, id, true) : at.tpu.deleteNode(at.location, id)),
        retry,
      )
    } catch (error) {
      // Already being deleted (by a concurrent delete): wait for it all the same.
      if (!(error instanceof XpkError && error.kind === 'conflict')) throw error
    }
  }
  for (let poll = 0; ; poll++) {
    const still = queued
      ? await withRetries(() => at.tpu.getQueuedResource(at.location, id), retry)
      : await withRetries(() => at.tpu.getNode(at.location, id), retry)
    if (!still) return true
    await pollWait(poll, at.timing, at.deps)
  }
}
