/** Whether a controller's Deployment has finished rolling out: what `kubectl rollout status` waits for. */

/** The fields of a Deployment the rollout check reads. */
export interface DeploymentStatus {
  readonly metadata: {readonly generation?: number}
  readonly spec?: {readonly replicas?: number}
  readonly status?: {
    readonly observedGeneration?: number
    readonly replicas?: number
    readonly updatedReplicas?: number
    readonly availableReplicas?: number
    readonly conditions?: readonly {
      readonly type: string
      readonly status: string
      readonly reason?: string
      readonly message?: string
    }[]
  }
}

/**
 * What the rollout still waits for, or undefined when the Deployment is Available with every replica updated.
 * Available alone is not enough after an upgrade: the old pod keeps the Deployment Available while the new one
 * starts, and it is the new one that must serve the webhooks.
 */
export function rolloutWaiting(deployment: DeploymentStatus | undefined): string | undefined {
  if (!deployment) return 'it does not exist'
  const status = deployment.status ?? {}
  if ((status.observedGeneration ?? 0) < (deployment.metadata.generation ?? 1)) {
    return 'its controller has not seen the latest change yet'
  }
  const wanted = deployment.spec?.replicas ?? 1
  const updated = status.updatedReplicas ?? 0
  const old = (status.replicas ?? 0) - updated
  const available = status.availableReplicas ?? 0
  if (updated < wanted) return `${updated} of ${wanted} replicas updated`
  if (old > 0) return `${old} old ${old === 1 ? 'replica' : 'replicas'} still running`
  if (available < updated) return `${available} of ${updated} updated replicas available`
  const availableCondition = (status.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True')
  return availableCondition ? undefined : 'not Available'
}
