import {planClusterDelete, type Plan} from '../core/cluster/plan.js'
import {ownGpuNetworkResources} from '../core/cluster/gpu-networks.js'
import {planToJson, renderPlan, type PlanJson} from '../core/cluster/render-plan.js'
import {XpkError} from '../core/errors.js'
import {DEFAULT_APPLY_CONCURRENCY} from '../core/retry.js'
import {zoneToRegion} from '../core/settings.js'
import type {Timing} from '../core/timing.js'
import {applyClusterPlan} from '../executor/apply-cluster-plan.js'
import {withRetries, type Clock, type RetryOptions} from '../executor/retry.js'
import type {ComputeClient} from '../ports/compute.js'
import type {Console} from '../ports/console.js'
import type {GkeClient} from '../ports/gke.js'
import {findCluster} from './cluster-lookup.js'
import {
  clusterDeleteAbsent,
  clusterDeleteConfirm,
  clusterDeleteConfirmNetworks,
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
  /** Compute Engine: the cluster's GPU networks are found and deleted through it. */
  readonly compute: () => Promise<ComputeClient>
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
    const region = zoneToRegion(zone) ?? zone
    const [found, networks] = await Promise.all([
      withRetries(() => findCluster(gke, project, zone, cluster), retry),
      findGpuNetworks(deps, {project, region, cluster}, retry),
    ])
    const plan = planClusterDelete({project, location: region, name: cluster}, found, {region, ...networks})
    const networkSteps = plan.steps.length - 1
    const nodePools = found?.nodePools.map((p) => p.name) ?? []
    const lock = lockOf(found, options.lock, deps.now())
    const lockShown = {view: lock, staleSeconds: options.lock.staleSeconds}
    const json = {...planToJson(plan), lock: lockJson(lock, options.lock.staleSeconds)}
    // Without a cluster, what is left of its GPU networks (a deletion stopped after the cluster) is still deleted.
    if (found === undefined && networkSteps === 0) {
      deps.console.info(clusterDeleteAbsent({cluster, project, region, zone}))
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
    if (found === undefined) {
      await confirmOrStop(deps.console, clusterDeleteConfirmNetworks({cluster, networks: networks.networks}), {
        nothingDone: 'Nothing was deleted.',
        hints: ['See what it would delete with --dry-run.'],
      })
      return {...json, ...(await deleteNetworksOnly(plan, deps, options)), nodePools}
    }
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
        {gke, compute: deps.compute, console: deps.console, ...pickClock(deps)},
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
    if (failure?.error) throw withNetworkHint(failure.error, failure.resource)
    deps.console.info(clusterDeleteDone({cluster, seconds: Math.round((deps.now() - started) / 1000)}))
    return {...json, outcome: 'deleted', nodePools}
  } finally {
    await gke.close()
  }
}

/**
 * The GPU networks, subnetworks and firewall rules of the cluster, found by the names `cluster create` gives them
 * (gpu-networks.ts): listed, since a run may have made only some of them. Nothing for a project that has none.
 */
async function findGpuNetworks(
  deps: ClusterDeleteDeps,
  target: {project: string; region: string; cluster: string},
  retry: RetryOptions,
) {
  const compute = await deps.compute()
  const {project, region, cluster} = target
  const [networks, subnetworks, firewalls] = await Promise.all([
    withRetries(() => compute.listNetworks(project), retry),
    withRetries(() => compute.listSubnetworks(project, region), retry),
    withRetries(() => compute.listFirewalls(project), retry),
  ])
  return ownGpuNetworkResources(cluster, region, {networks, subnetworks, firewalls})
}

/** Deletes what is left of the GPU networks of a cluster that is gone. */
async function deleteNetworksOnly(
  plan: Plan,
  deps: ClusterDeleteDeps,
  options: ClusterDeleteOptions,
): Promise<{outcome: 'deleted'}> {
  const gke = await deps.gke()
  const result = await applyClusterPlan(
    plan,
    {gke, compute: deps.compute, console: deps.console, ...pickClock(deps)},
    {concurrency: DEFAULT_APPLY_CONCURRENCY, timing: options.timing, signal: deps.signal},
  )
  if (result.interrupted) {
    throw new XpkError('interrupted', 'Interrupted while deleting the GPU networks.', {
      hints: ['Re-run the same command: it deletes what is left.'],
    })
  }
  const failure = result.outcomes.find((o) => o.status === 'failed')
  if (failure?.error) throw withNetworkHint(failure.error, failure.resource)
  return {outcome: 'deleted'}
}

/** A failed GPU network step says that a re-run deletes what is left. */
function withNetworkHint<E extends Error>(error: E, resource: string): E | XpkError {
  if (!['network', 'subnetwork', 'firewall'].includes(resource) || !(error instanceof XpkError)) return error
  return new XpkError(error.kind, error.message, {
    hints: [
      ...error.hints,
      'Re-run `xpk cluster delete` once the cause is fixed: it deletes the GPU networks that are left.',
    ],
  })
}

function pickClock(clock: Clock): Clock {
  return {sleep: clock.sleep, random: clock.random, now: clock.now}
}
