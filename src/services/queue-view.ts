import {XpkError} from '../core/errors.js'
import {queueSnapshot, type QueueSnapshot} from '../core/queue/snapshot.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import {renderQueueScreen, renderQueueTables} from '../core/render/queue.js'
import type {Timing} from '../core/timing.js'
import {JOBSET_API_VERSION, KUEUE_API_VERSION} from '../core/versions.js'
import {
  JOBSET_KIND,
  WORKLOAD_KIND,
  readJobSet,
  readWorkload,
  type KueueWorkload,
  type ObservedJobSet,
} from '../core/workload/observed.js'
import {readClusterQueue, type ObservedClusterQueue} from '../core/workload/why-observed.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import {followChanges, type ObjectChange} from '../executor/watch.js'
import type {Console} from '../ports/console.js'
import type {KubeClient, KubeObject} from '../ports/kube.js'
import type {Screen} from '../ports/screen.js'
import {checkInput, listAll, reachCluster, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

export interface QueueViewOptions extends WorkloadTarget {
  /** Print once and return, even on a terminal (`--once`; also under `--json`). */
  readonly once: boolean
  readonly timing: Pick<Timing, 'retry'>
}

export interface QueueViewDeps extends ClusterAccessDeps {
  readonly console: Console
  /** The terminal to redraw, or null without one (then the view prints once). */
  readonly screen: () => Screen | null
}

/** How often the live view may redraw after a change; ages move on once a second regardless. */
export const REFRESH_MS = 100
const TICK_MS = 1000

/**
 * `xpk queue`: the cluster's queues and workloads (src/core/queue/snapshot.ts). Once: one list of each kind (Kueue
 * Workloads, JobSets, ClusterQueues), printed as tables (or returned as data). Live, on a terminal: one watch of
 * each kind, kept in maps, the screen redrawn from them at most every REFRESH_MS after a change (and every second
 * for the ages), never by polling; it ends on Ctrl-C.
 * @throws UsageErrors for a bad target, before any request; the watches' failures that outlast the retry policy
 */
export async function viewQueue(options: QueueViewOptions, deps: QueueViewDeps): Promise<QueueSnapshot> {
  checkInput(options, () => undefined)
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube} = await reachCluster(options, deps, retry)
  const cluster = options.viaKubeconfig ? null : (options.cluster ?? null)
  const screen = options.once ? null : deps.screen()
  if (!screen) {
    const [workloads, jobsets, queues] = await Promise.all([
      listAll(kube, KUEUE_API_VERSION, WORKLOAD_KIND, {namespace: XPK_NAMESPACE}, retry),
      listAll(kube, JOBSET_API_VERSION, JOBSET_KIND, {namespace: XPK_NAMESPACE}, retry),
      listAll(kube, KUEUE_API_VERSION, 'ClusterQueue', {}, retry),
    ])
    const snapshot = queueSnapshot({
      now: deps.now(),
      workloads: workloads.map(readWorkload),
      jobsets: jobsets.map(readJobSet),
      clusterQueues: queues.map(readClusterQueue),
    })
    deps.console.result(() => renderQueueTables(snapshot, cluster))
    return snapshot
  }

  await requireServed(kube, retry)
  const workloads = new Map<string, KueueWorkload>()
  const jobsets = new Map<string, ObservedJobSet>()
  const queues = new Map<string, ObservedClusterQueue>()
  const take =
    <T>(into: Map<string, T>, read: (o: KubeObject) => T) =>
    (change: ObjectChange) => {
      const key = `${change.object.metadata.namespace ?? ''}/${change.object.metadata.name}`
      if (change.type === 'DELETED') into.delete(key)
      else into.set(key, read(change.object))
      dirty = true
    }
  // A watch that starts over after a 410 sends every object again: the ones that do not come again were deleted.
  const relist = <T>(into: Map<string, T>) => {
    let before = new Set<string>()
    return (phase: 'start' | 'end') => {
      if (phase === 'start') before = new Set(into.keys())
      else for (const key of before) if (!into.has(key)) into.delete(key)
    }
  }
  let dirty = true
  let snapshot = queueSnapshot({now: deps.now(), workloads: [], jobsets: [], clusterQueues: []})
  const draw = () => {
    snapshot = queueSnapshot({
      now: deps.now(),
      workloads: [...workloads.values()],
      jobsets: [...jobsets.values()],
      clusterQueues: [...queues.values()],
    })
    screen.draw(renderQueueScreen(snapshot, screen.size(), cluster))
    dirty = false
  }
  const stopResize = screen.onResize(() => (dirty = true))
  const follow = (
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    onChange: (c: ObjectChange) => void,
    onRelist: (p: 'start' | 'end') => void,
  ) => followChanges(kube, {...retry, apiVersion, kind, namespace, onRelist}, onChange)
  try {
    const watching = Promise.all([
      follow(KUEUE_API_VERSION, WORKLOAD_KIND, XPK_NAMESPACE, take(workloads, readWorkload), relist(workloads)),
      follow(JOBSET_API_VERSION, JOBSET_KIND, XPK_NAMESPACE, take(jobsets, readJobSet), relist(jobsets)),
      follow(KUEUE_API_VERSION, 'ClusterQueue', undefined, take(queues, readClusterQueue), relist(queues)),
    ])
    const drawing = (async () => {
      let sinceTick = TICK_MS
      while (!deps.signal.aborted) {
        if (dirty || sinceTick >= TICK_MS) {
          draw()
          sinceTick = 0
        }
        await deps.sleep(REFRESH_MS, deps.signal)
        sinceTick += REFRESH_MS
      }
      // Stopped between two frames: no frame after this, and the stop is the run's end.
      throw deps.signal.reason
    })()
    // Both run until Ctrl-C (the signal's reason) or a watch fails for good.
    await Promise.race([watching, drawing])
    throw new Error('xpk queue: the live view stopped without a reason')
  } finally {
    stopResize()
    screen.close()
  }
}

/**
 * The kinds the live view watches must be served (a watch of a kind without its CRD fails over and over): one
 * lookup of each, at once, and what to do when they are not.
 */
async function requireServed(kube: KubeClient, retry: RetryOptions): Promise<void> {
  const kinds = [
    [KUEUE_API_VERSION, WORKLOAD_KIND, 'Kueue'],
    [KUEUE_API_VERSION, 'ClusterQueue', 'Kueue'],
    [JOBSET_API_VERSION, JOBSET_KIND, 'JobSet'],
  ] as const
  const found = await Promise.all(
    kinds.map(([apiVersion, kind]) =>
      withRetries(() => kube.lookup({apiVersion, kind, namespace: XPK_NAMESPACE, name: 'xpk-queue-probe'}), retry),
    ),
  )
  const missing = [...new Set(kinds.filter((_, i) => found[i].state === 'not-served').map(([, , what]) => what))]
  if (missing.length > 0) {
    throw new XpkError(
      'conflict',
      `The cluster has no ${missing.join(' and ')} (its kinds are not served), so it has no queue to show.`,
      {
        hints: ['`xpk cluster create` installs JobSet and Kueue and makes the queues.'],
      },
    )
  }
}
