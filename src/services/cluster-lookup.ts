import type {ObservedCluster} from '../core/cluster/observed.js'
import {XpkError} from '../core/errors.js'
import {zoneToRegion} from '../core/settings.js'
import {unlessAborted, withRetries, type RetryOptions} from '../executor/retry.js'
import type {GkeClient} from '../ports/gke.js'

/**
 * Finds a cluster by name near a zone: xpk's clusters are regional (the zone's region); clusters made elsewhere
 * may be zonal, so the zone itself is tried second.
 */
export async function findCluster(
  gke: GkeClient,
  project: string,
  zone: string,
  name: string,
): Promise<ObservedCluster | undefined> {
  const region = zoneToRegion(zone) ?? zone
  return (
    (await gke.getCluster({project, location: region, name})) ??
    (region === zone ? undefined : await gke.getCluster({project, location: zone, name}))
  )
}

/** A cluster by project, zone and name. */
export interface ClusterName {
  readonly project: string
  readonly zone: string
  readonly cluster: string
}

/**
 * The cluster as GKE reports it, read through the retry policy on a connection of its own (closed after); a cluster
 * that does not exist is not-found (exit 4). Connecting may ask for a token (Application Default Credentials): the
 * retry's signal (a time limit, Ctrl-C) ends that too.
 */
export async function requireCluster(
  connect: () => Promise<GkeClient>,
  {project, zone, cluster}: ClusterName,
  retry: RetryOptions,
): Promise<ObservedCluster> {
  const gke = await unlessAborted(connect(), retry.signal)
  let found: ObservedCluster | undefined
  try {
    found = await withRetries(() => findCluster(gke, project, zone, cluster), retry)
  } finally {
    await gke.close()
  }
  if (!found) {
    throw new XpkError(
      'not-found',
      `Cluster ${cluster} not found in project ${project} (${zoneToRegion(zone) ?? zone} or ${zone}).`,
      {hints: ['Check --project and --zone; `xpk cluster list` shows your clusters.']},
    )
  }
  return found
}
