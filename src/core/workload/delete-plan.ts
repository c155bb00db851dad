/**
 * The plan of `xpk workload delete`: for a workload an older Python xpk submitted as a PathwaysJob, that first (it
 * owns the JobSet and would make it again); one step per JobSet chosen (deleted, with background propagation: what JobSet
 * and Kueue made for it goes by owner reference; or already gone), and with --wait the wait until they and their
 * pods are gone. `--dry-run` shows it, `--json` prints it, and the delete applies these steps through the step graph.
 */
import {XPK_NAMESPACE} from '../incluster/namespace.js'
import {planSummary, renderPlanLines} from '../render/plan.js'
import type {StatusFilter} from './status.js'

/** One JobSet: deleted, or (named, and read as absent in a dry run) already gone. */
export interface DeleteJobSetStep {
  readonly action: 'delete' | 'none'
  readonly resource: 'jobSet'
  readonly name: string
  readonly reason: string
  /** What the delete names: the JobSet, and the propagation that lets its Jobs, pods and Workload go with it. */
  readonly spec: {
    readonly namespace: string
    readonly name: string
    readonly propagationPolicy: 'Background'
  } | null
}

/** An older xpk's PathwaysJob of a workload chosen, deleted before its JobSet. */
export interface DeletePathwaysJobStep {
  readonly action: 'delete'
  readonly resource: 'pathwaysJob'
  readonly name: string
  readonly reason: string
  readonly spec: {
    readonly namespace: string
    readonly name: string
    readonly propagationPolicy: 'Background'
  }
}

/** --wait: until the deleted JobSets and their pods are gone. */
export interface AwaitDeletedStep {
  readonly action: 'wait'
  readonly resource: 'jobSet'
  readonly name: string
  readonly reason: string
  readonly spec: {readonly workloads: readonly string[]; readonly timeoutSeconds: number}
}

export type WorkloadDeleteStep = DeletePathwaysJobStep | DeleteJobSetStep | AwaitDeletedStep

export interface WorkloadDeletePlan {
  /** `cluster demo`, or the kubeconfig's target. */
  readonly where: string
  readonly steps: readonly WorkloadDeleteStep[]
}

export interface WorkloadDeleteChoice {
  readonly where: string
  /** The JobSets chosen, in order. */
  readonly selected: readonly string[]
  /** Of those, the ones read as already gone (a dry run of --workload reads it). */
  readonly absent: readonly string[]
  /** Of those, the ones that have an older xpk's PathwaysJob (none where the cluster does not serve the kind). */
  readonly pathwaysJobs: readonly string[]
  /** How they were chosen: by --workload, or by the filters. */
  readonly by: {readonly workload: true} | {readonly filterByJob: string | null; readonly filterByStatus: StatusFilter}
  /** --wait, with its time limit; null without. */
  readonly waitSeconds: number | null
}

/** The plan for the JobSets chosen. */
export function planWorkloadDelete(choice: WorkloadDeleteChoice): WorkloadDeletePlan {
  const why = whyChosen(choice.by)
  const steps: WorkloadDeleteStep[] = choice.selected.flatMap((name): WorkloadDeleteStep[] => {
    if (choice.absent.includes(name)) {
      return [
        {action: 'none', resource: 'jobSet', name: `${XPK_NAMESPACE}/${name}`, reason: 'already gone', spec: null},
      ]
    }
    const spec = {namespace: XPK_NAMESPACE, name, propagationPolicy: 'Background'} as const
    const pathwaysJob: WorkloadDeleteStep[] = choice.pathwaysJobs.includes(name)
      ? [
          {
            action: 'delete',
            resource: 'pathwaysJob',
            name: `${XPK_NAMESPACE}/${name}`,
            reason: `${why}; an older xpk's Pathways workload: the PathwaysJob owns the JobSet and would make it again, so it goes first`,
            spec,
          },
        ]
      : []
    return [
      ...pathwaysJob,
      {
        action: 'delete',
        resource: 'jobSet',
        name: `${XPK_NAMESPACE}/${name}`,
        reason: `${why}; its Jobs, pods and Kueue Workload go with it`,
        spec,
      },
    ]
  })
  const deleted = choice.selected.filter((name) => !choice.absent.includes(name))
  if (choice.waitSeconds !== null && deleted.length > 0) {
    steps.push({
      action: 'wait',
      resource: 'jobSet',
      name: deleted.length === 1 ? `${XPK_NAMESPACE}/${deleted[0]}` : `${deleted.length} workloads`,
      reason: `--wait: until ${deleted.length === 1 ? 'it and its pods are' : 'they and their pods are'} gone (at most ${choice.waitSeconds} s, XPK_WORKLOAD_DELETE_TIMEOUT_S)`,
      spec: {workloads: deleted, timeoutSeconds: choice.waitSeconds},
    })
  }
  return {where: choice.where, steps}
}

function whyChosen(by: WorkloadDeleteChoice['by']): string {
  if ('workload' in by) return 'named by --workload'
  const parts = [
    by.filterByJob === null ? null : `its name contains ${by.filterByJob}`,
    by.filterByStatus === 'EVERYTHING' ? null : `it is ${by.filterByStatus} (--filter-by-status)`,
  ].filter((p) => p !== null)
  return parts.length === 0 ? 'every workload (no filter)' : parts.join(' and ')
}

/** The names of the JobSets the plan deletes. */
export function jobSetsToDelete(plan: WorkloadDeletePlan): string[] {
  return plan.steps.flatMap((s) =>
    s.action === 'delete' && s.resource === 'jobSet' && s.spec !== null ? [s.spec.name] : [],
  )
}

/** The plan as text: one line per JobSet (and the wait), then the summary. */
export function renderWorkloadDeletePlan(plan: WorkloadDeletePlan): string {
  return renderPlanLines(
    `Plan for the workloads in ${plan.where}:`,
    plan.steps.map((s) => ({action: s.action, resource: s.resource.toLowerCase(), name: s.name, detail: s.reason})),
    [
      planSummary(
        plan.steps.map((s) => s.action),
        'Nothing to delete.',
      ),
    ],
  )
}
