// Kueue's visibility API as both Kubernetes fakes serve it: the pending workloads of a ClusterQueue
// (`GET /apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/NAME/pendingworkloads`), computed from the stored
// objects as Kueue orders its queues (BestEffortFIFO / StrictFIFO): higher priority first, then the older queue
// timestamp (the time it was evicted back to the queue, else its creation). Pending means: active, not finished,
// holding no quota, not held out of the queue (Requeued=False: a backoff after an eviction), in a LocalQueue that
// points at the ClusterQueue. Cohorts and the heads Kueue is currently
// trying are not modelled.
import type {KubeObject} from '../../src/ports/kube.js'

type Json = Record<string, unknown>

const conditionOf = (o: KubeObject, type: string) =>
  ((o.status as Json | undefined)?.conditions as Json[] | undefined)?.find((c) => c.type === type)

const isTrue = (o: KubeObject, type: string) => conditionOf(o, type)?.status === 'True'

/** When the workload (re)joined the queue: its eviction, else its creation. */
function queuedAt(o: KubeObject): string {
  const evicted = conditionOf(o, 'Evicted')
  return String(evicted?.status === 'True' ? evicted.lastTransitionTime : (o.metadata.creationTimestamp ?? ''))
}

/** The PendingWorkloadsSummary Kueue answers with; undefined when there is no such ClusterQueue (a 404). */
export function pendingWorkloadsSummary(
  workloads: readonly KubeObject[],
  localQueues: readonly KubeObject[],
  clusterQueues: readonly KubeObject[],
  clusterQueue: string,
): KubeObject | undefined {
  if (!clusterQueues.some((q) => q.metadata.name === clusterQueue)) return undefined
  const queues = new Set(
    localQueues
      .filter((q) => (q.spec as Json | undefined)?.clusterQueue === clusterQueue)
      .map((q) => `${q.metadata.namespace}/${q.metadata.name}`),
  )
  const priority = (o: KubeObject) => Number((o.spec as Json | undefined)?.priority ?? 0)
  const pending = workloads
    .filter((w) => queues.has(`${w.metadata.namespace}/${String((w.spec as Json | undefined)?.queueName)}`))
    .filter((w) => (w.spec as Json | undefined)?.active !== false)
    .filter((w) => !isTrue(w, 'Finished') && !isTrue(w, 'QuotaReserved'))
    .filter((w) => conditionOf(w, 'Requeued')?.status !== 'False')
    .sort((a, b) => priority(b) - priority(a) || queuedAt(a).localeCompare(queuedAt(b)))
  const inLocalQueue = new Map<string, number>()
  return {
    apiVersion: 'visibility.kueue.x-k8s.io/v1beta2',
    kind: 'PendingWorkloadsSummary',
    metadata: {creationTimestamp: null} as unknown as KubeObject['metadata'],
    items: pending.map((w, position) => {
      const local = `${w.metadata.namespace}/${String((w.spec as Json).queueName)}`
      const inLocal = inLocalQueue.get(local) ?? 0
      inLocalQueue.set(local, inLocal + 1)
      return {
        metadata: {
          name: w.metadata.name,
          namespace: w.metadata.namespace,
          creationTimestamp: w.metadata.creationTimestamp,
          ownerReferences: w.metadata.ownerReferences,
        },
        priority: priority(w),
        localQueueName: (w.spec as Json).queueName,
        positionInClusterQueue: position,
        positionInLocalQueue: inLocal,
      }
    }),
  } as KubeObject
}
