/**
 * The plans of `xpk vm create` and `xpk vm delete`, made from the queued resource as the TPU API reports it: the
 * request xpk sends (or the one found, waited for), the deletion of the queued resource with its nodes, and the
 * waits. `--dry-run` shows them, `--json` prints them, and the commands apply these steps through the step graph.
 */
import {XpkError} from '../errors.js'
import {planSummary, renderPlanLines} from '../render/plan.js'
import type {VmCreateRequest} from './create-options.js'
import {sliceNodeIds} from './naming.js'
import type {QueuedResource, QueuedResourceRequest} from './types.js'

/** The queued resource: created (the request sent), or found with the same request. */
export interface QueuedResourceStep {
  readonly action: 'create' | 'none'
  readonly resource: 'queuedResource'
  readonly name: string
  readonly reason: string
  /** The request sent; null when one is found. */
  readonly spec: QueuedResourceRequest | null
}

/** The deletion of a queued resource with the nodes it made (`force`), or nothing when it is gone or going. */
export interface DeleteQueuedResourceStep {
  readonly action: 'delete' | 'none'
  readonly resource: 'queuedResource'
  readonly name: string
  readonly reason: string
  /** What the delete names; null when nothing is sent. */
  readonly spec: {readonly id: string; readonly force: true; readonly nodes: readonly string[]} | null
}

/** A wait on the queued resource: until it is ACTIVE (create), or gone with its nodes (delete). */
export interface AwaitQueuedResourceStep {
  readonly action: 'wait'
  readonly resource: 'queuedResource'
  readonly name: string
  readonly reason: string
  readonly spec: {readonly until: 'ACTIVE' | 'gone'}
}

export type VmCreateStep = QueuedResourceStep | AwaitQueuedResourceStep
export type VmDeleteStep = DeleteQueuedResourceStep | AwaitQueuedResourceStep

/** Where a vm plan acts, and whether it waits (not with --async). */
export interface VmPlanWhere {
  readonly project: string
  readonly zone: string
  readonly async: boolean
}

export interface VmPlan<Step> {
  readonly project: string
  readonly zone: string
  readonly steps: readonly Step[]
}

/** The request `vm create` sends for a checked input. */
export function queuedResourceRequest(request: VmCreateRequest): QueuedResourceRequest {
  return {
    id: request.queuedResourceId,
    nodePrefix: request.tpuPrefix,
    numSlices: request.numSlices,
    acceleratorType: request.type.name,
    runtimeVersion: request.runtimeVersion,
    capacity: request.capacity,
    ...(request.reservation ? {reservation: request.reservation} : {}),
  }
}

/** Whether a queued resource found is the one `request` asks for (then it is waited for, not sent again). */
export function sameRequest(found: QueuedResource, request: VmCreateRequest): boolean {
  return (
    found.acceleratorType === request.type.name &&
    found.nodeIds.join(',') === sliceNodeIds(request.tpuPrefix, request.numSlices).join(',')
  )
}

/**
 * Plans `vm create`: the request, unless a queued resource of its id is there with the same request (then it is
 * waited for, as a re-run resumes); then, unless --async, the wait until it is ACTIVE.
 * @throws XpkError (conflict) when a queued resource of the id is there for another request, or FAILED
 */
export function planVmCreate(
  request: VmCreateRequest,
  existing: QueuedResource | undefined,
  where: VmPlanWhere,
): VmPlan<VmCreateStep> {
  const id = request.queuedResourceId
  if (existing && (!sameRequest(existing, request) || existing.state === 'FAILED')) {
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
  const nodes = sliceNodeIds(request.tpuPrefix, request.numSlices)
  const step: QueuedResourceStep = existing
    ? nothingSent(id, `exists (${existing.state}) with the same request: waited for, not sent again`)
    : {
        action: 'create',
        resource: 'queuedResource',
        name: id,
        reason:
          `${request.numSlices} slice${request.numSlices === 1 ? '' : 's'} of ${request.type.name} ` +
          `(${request.type.hosts} VM${request.type.hosts === 1 ? '' : 's'} each; nodes ${nodes.join(', ')}), ` +
          `${request.runtimeVersion}, ${request.capacity}${request.reservation ? ` (reservation ${request.reservation})` : ''}`,
        spec: queuedResourceRequest(request),
      }
  return thenWait(
    where,
    step,
    'ACTIVE',
    'until it is ACTIVE (each state it passes is reported; Ctrl-C stops waiting, the request stays queued)',
  )
}

/**
 * Plans `vm delete`: the deletion of the queued resource with its nodes, unless it is being deleted already; then,
 * unless --async, the wait until both are gone. Nothing when it is gone.
 */
export function planVmDelete(id: string, found: QueuedResource | undefined, where: VmPlanWhere): VmPlan<VmDeleteStep> {
  if (!found) return {project: where.project, zone: where.zone, steps: [nothingSent(id, 'already gone')]}
  const nodes = found.nodeIds
  const step: DeleteQueuedResourceStep =
    found.state === 'DELETING'
      ? nothingSent(id, 'being deleted already')
      : {
          action: 'delete',
          resource: 'queuedResource',
          name: id,
          reason: `${found.state}, with its nodes ${nodes.join(', ') || '(none)'} (force)`,
          spec: {id, force: true, nodes},
        }
  return thenWait(where, step, 'gone', 'until it and its nodes are gone')
}

/** A step on the queued resource that sends nothing, and why. */
function nothingSent(name: string, reason: string) {
  return {action: 'none', resource: 'queuedResource', name, reason, spec: null} as const
}

/** The plan: the step on the queued resource, then, unless --async, the wait on it until it is `until`. */
function thenWait<Step extends QueuedResourceStep | DeleteQueuedResourceStep>(
  where: VmPlanWhere,
  step: Step,
  until: 'ACTIVE' | 'gone',
  reason: string,
): VmPlan<Step | AwaitQueuedResourceStep> {
  const wait: AwaitQueuedResourceStep = {
    action: 'wait',
    resource: 'queuedResource',
    name: step.name,
    reason,
    spec: {until},
  }
  return {project: where.project, zone: where.zone, steps: where.async ? [step] : [step, wait]}
}

/** A vm plan as text: one line per step, then the summary. */
export function renderVmPlan(plan: VmPlan<VmCreateStep | VmDeleteStep>): string {
  return renderPlanLines(
    `Plan for TPU VMs in project ${plan.project}, zone ${plan.zone}:`,
    plan.steps.map((s) => ({action: s.action, resource: 'queued-resource', name: s.name, detail: s.reason})),
    [
      planSummary(
        plan.steps.map((s) => s.action),
        'No changes.',
      ),
    ],
  )
}
