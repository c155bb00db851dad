import type {PriorityClass} from '../manifests/k8s-types.js'
import {PRIORITIES} from '../workload/priority.js'

/**
 * The five PriorityClasses `workload create --priority` names, lowest first. Kueue's ClusterQueue preempts by
 * these pod priorities (`withinClusterQueue: LowerPriority`); xpk creates no Kueue WorkloadPriorityClass. None is
 * the global default, so pods that name no class keep priority 0.
 */
export function priorityClasses(): PriorityClass[] {
  return PRIORITIES.map((priority) => ({
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: {name: priority.name},
    value: priority.value,
    globalDefault: false,
    description: priority.description,
  }))
}
