import {planClusterDelete} from '../core/cluster/plan.js'
import {planToJson, renderPlan, type PlanJson} from '../core/cluster/render-plan.js'
import {XpkError} from '../core/errors.js'
import {DEFAULT_APPLY_CONCURRENCY} from '../core/retry.js'
import {zoneToRegion} from '../core/settings.js'
import type {Timing} from '../core/timing.js'
import {applyClusterPlan} from '../executor/apply-cluster-plan.js'
import {withRetries, type Clock} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {GkeClient} from '../ports/gke.js'
import {findCluster} from './cluster-lookup.js'
import {
  clusterDeleteAbsent,
  clusterDeleteConfirm,
  clusterDeleteDone,
  clusterDeleteDryRun,
  clusterDeletePlan,
} from '../core/messages/cluster.js'
import {confirmOrStop} from './confirm.js'
import {
  lockOf,
  newLock,
  noteDryRunLock,
  refuseIfHeld,
  releaseLock,
  takeLock,
  type ClusterLockOptions,
} from './cluster-lock.js'
import {lockJson, type LockJson} from '../core/cluster/lock.js'

export interface ClusterDeleteOptions {
  readonly project: string
  readonly zone: string
  readonly cluster: string
  readonly dryRun: boolean
  /** Retries, and the polls of the deletion's operation. */
  readonly timing: Pick<Timing, 'retry' | 'operations'>
  /** The cluster lock: a delete takes it too, so it never deletes a cluster another run is changing. */
  readonly lock: ClusterLockOptions
}

export interface ClusterDeleteDeps extends Clock {
  readonly gke: () => Promise<GkeClient>
  readonly console: Console
  readonly signal: AbortSignal
}

export interface ClusterDeleteResult extends PlanJson {
  /** `deleted`, `absent` (nothing to do) or `planned` (dry run). */
  readonly outcome: 'deleted' | 'absent' | 'planned'
  readonly nodePools: readonly string[]
  /** The cluster lock as the cluster was read. */
  readonly lock: LockJson
}

/**
 * `xpk cluster delete`: reads the cluster, plans its deletion (one step), shows the plan, asks (or --force), takes
 * the cluster lock (refusing, exit 6, when another run holds it) and applies the plan with the executor `cluster
 * create` uses: the same retries, operation watching, progress and Ctrl-C. A cluster that is already gone is
 * success, with a note.
 */
export async function deleteCluster(
  options: ClusterDeleteOptions,
  deps: ClusterDeleteDeps,
): Promise<ClusterDeleteResult> {
  const {project, zone, cluster} = options
  const retry = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const gke = await deps.gke()
  try {
    const found = await withRetries(() => findCluster(gke, project, zone, cluster), retry)
    const plan = planClusterDelete({project, location: zoneToRegion(zone) ?? zone, name: cluster}, found)
    const nodePools = found?.nodePools.map((p) => p.name) ?? []
    const lock = lockOf(found, options.lock, deps.now())
    const lockShown = {view: lock, staleSeconds: options.lock.staleSeconds}
    const json = {...planToJson(plan), lock: lockJson(lock, options.lock.staleSeconds)}
    if (found === undefined) {
      deps.console.info(clusterDeleteAbsent({cluster, project, region: zoneToRegion(zone) ?? zone, zone}))
      return {...json, outcome: 'absent', nodePools}
    }
    if (options.dryRun) {
      deps.console.result(renderPlan(plan, lockShown))
      noteDryRunLock(cluster, lock, options.lock, deps.console)
      deps.console.info(clusterDeleteDryRun())
      return {...json, outcome: 'planned', nodePools}
    }
    // A cluster another run is creating or resizing is not deleted under it: refused before the question.
    refuseIfHeld(cluster, lock, options.lock)
    deps.console.info(clusterDeletePlan({plan: renderPlan(plan, lockShown)}))
    if (found.status !== 'STOPPING') {
      await confirmOrStop(deps.console, clusterDeleteConfirm({cluster, location: found.location, nodePools}), {
        nothingDone: 'Nothing was deleted.',
        hints: ['See what it would delete with --dry-run.'],
      })
    }
    const started = deps.now()
    // Being deleted already: nothing to lock, only to wait for. Else the lock, until GKE deletes it with the cluster
    // (or released, when the deletion did not happen).
    const lockDeps = {...pickClock(deps), gke, console: deps.console, signal: deps.signal, retry: options.timing.retry}
    const held = found.status === 'STOPPING' ? null : newLock('cluster-delete', options.lock, deps)
    let result
    try {
      // Inside the try: Ctrl-C while the SetLabels is on the wire may still leave the lock set (see cluster create).
      if (held) await takeLock(found, held, options.lock, lockDeps)
      result = await applyClusterPlan(
        plan,
        {gke, console: deps.console, ...pickClock(deps)},
        {concurrency: DEFAULT_APPLY_CONCURRENCY, timing: options.timing, signal: deps.signal},
      )
    } finally {
      if (held) await releaseLock({project, location: found.location, name: cluster}, held, options.lock, lockDeps)
    }
    if (result.interrupted) {
      throw new XpkError(
        'interrupted',
        result.sentChanges
          ? `Interrupted: GKE keeps deleting cluster ${cluster}.`
          : 'Interrupted before the deletion was sent to GKE.',
        {hints: ['Re-run the same command: it waits for a deletion in progress, or starts it.']},
      )
    }
    const failure = result.outcomes.find((o) => o.status === 'failed')
    if (failure?.error) throw failure.error
    deps.console.info(clusterDeleteDone({cluster, seconds: Math.round((deps.now() - started) / 1000)}))
    return {...json, outcome: 'deleted', nodePools}
  } finally {
    await gke.close()
  }
}

function pickClock(clock: Clock): Clock {
  return {sleep: clock.sleep, random: clock.random, now: clock.now}
}
