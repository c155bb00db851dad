import {toYaml} from '../manifests/to-yaml.js'
import type {InClusterPlan, InClusterStep} from './plan.js'

/** Whether a step sends a mutating request when applied. */
export function changesSomething(step: InClusterStep): boolean {
  return (step.kind !== 'apply' && step.kind !== 'gpu-installer') || step.change !== 'none'
}

/**
 * The in-cluster part of the plan as text, one line per step with its reason; `verbose` adds each object xpk
 * applies as YAML. A plan made before the cluster exists says its steps follow the cluster's creation.
 */
export function renderInClusterPlan(plan: InClusterPlan, options: {readonly verbose?: boolean} = {}): string {
  const lines = [
    plan.fromLive
      ? 'Inside the cluster (compared with what is live):'
      : 'Inside the cluster (after it is created or reachable; planned as if nothing were installed):',
  ]
  for (const step of plan.steps) {
    const waits =
      step.kind === 'await' ||
      (step.kind === 'coredns' && step.action !== 'install') ||
      (step.kind === 'gpu-installer' && step.change === 'wait')
    const mark = !changesSomething(step) ? '=' : waits ? '~' : step.kind === 'delete' ? '-' : '+'
    lines.push(`  ${mark} ${step.reason}`)
    if (options.verbose && step.kind === 'apply' && step.change !== 'none') {
      lines.push(
        ...toYaml(step.object)
          .trimEnd()
          .split('\n')
          .map((l) => `      ${l}`),
      )
    }
  }
  for (const note of plan.notes) lines.push(`  ! ${note}`)
  return lines.join('\n')
}

/** What `cluster create --json` says of the in-cluster plan (its schema is test/golden/contract/schemas). */
export type InClusterPlanJson = ReturnType<typeof inClusterPlanToJson>

/**
 * The in-cluster plan as data for `--json`: every object xpk would apply, with what would change; for a release,
 * which of its objects are applied (`all`, or those missing or different); which steps make the quota.
 */
export function inClusterPlanToJson(plan: InClusterPlan) {
  return {
    fromLive: plan.fromLive,
    destructive: plan.destructive,
    quotaAfterNodePools: plan.quotaAfterNodePools,
    notes: plan.notes,
    steps: plan.steps.map((s) =>
      s.kind === 'apply'
        ? {kind: s.kind, change: s.change, quota: s.quota, reason: s.reason, object: s.object}
        : s.kind === 'install'
          ? {
              kind: s.kind,
              component: s.component,
              action: s.action,
              reason: s.reason,
              sizing: s.sizing.body,
              objects: s.objects,
            }
          : s.kind === 'resize'
            ? {kind: s.kind, component: s.component, reason: s.reason, sizing: s.sizing.body}
            : s.kind === 'delete'
              ? {kind: s.kind, quota: s.quota, reason: s.reason, object: s.object}
              : s.kind === 'coredns'
                ? {kind: s.kind, action: s.action, reason: s.reason, objects: s.objects, deployments: s.deployments}
                : s.kind === 'gpu-installer'
                  ? {
                      kind: s.kind,
                      installer: s.installer.name,
                      url: s.installer.url,
                      change: s.change,
                      reason: s.reason,
                    }
                  : {kind: s.kind, component: s.component, reason: s.reason},
    ),
  }
}
