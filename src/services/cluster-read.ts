import {XpkError} from '../core/errors.js'
import type {ObservedCluster} from '../core/cluster/observed.js'
import {zoneToRegion} from '../core/settings.js'
import {withRetries, type Clock, type RetryPolicy} from '../executor/retry.js'
import type {GkeClient} from '../ports/gke.js'
import {findCluster} from './cluster-lookup.js'

/** What the read-only commands need: GKE, and the retry policy every call goes through. */
export interface ClusterReadDeps extends Clock {
  readonly gke: () => Promise<GkeClient>
  readonly retry: RetryPolicy
  readonly signal: AbortSignal
}

/** `xpk cluster list`: every cluster of the project, or of one zone's region. */
export async function listClusters(
  options: {readonly project: string; readonly zone?: string},
  deps: ClusterReadDeps,
): Promise<ObservedCluster[]> {
  const gke = await deps.gke()
  try {
    // All locations, then filtered: a region's list would leave out zonal clusters in its zones.
    const region = options.zone === undefined ? undefined : (zoneToRegion(options.zone) ?? options.zone)
    const all = await withRetries(() => gke.listClusters(options.project), retryOf(deps))
    const clusters = all.filter(
      (c) => region === undefined || c.location === region || c.location.startsWith(`${region}-`),
    )
    return clusters.sort((a, b) => a.location.localeCompare(b.location) || a.name.localeCompare(b.name))
  } finally {
    await gke.close()
  }
}

/** `xpk cluster describe`: one cluster with its node pools. */
export async function describeCluster(
  options: {readonly project: string; readonly zone: string; readonly cluster: string},
  deps: ClusterReadDeps,
): Promise<ObservedCluster> {
  const gke = await deps.gke()
  try {
    const found = await withRetries(
      () => findCluster(gke, options.project, options.zone, options.cluster),
      retryOf(deps),
    )
    if (!found) {
      throw new XpkError(
        'not-found',
        `Cluster ${options.cluster} not found in project ${options.project} (${zoneToRegion(options.zone) ?? options.zone} or ${options.zone}).`,
        {hints: ['Check --project and --zone; `xpk cluster list` shows your clusters.']},
      )
    }
    return found
  } finally {
    await gke.close()
  }
}

function retryOf(deps: ClusterReadDeps) {
  return {policy: deps.retry, clock: deps, signal: deps.signal}
}
