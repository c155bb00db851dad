import {XpkError} from '../core/errors.js'
import type {ObservedCluster} from '../core/cluster/observed.js'
import {zoneToRegion} from '../core/settings.js'
import type {GkeClient} from '../ports/gke.js'
import {findCluster} from './cluster-lookup.js'

/** `xpk cluster list`: every cluster of the project, or of one zone's region. */
export async function listClusters(
  options: {readonly project: string; readonly zone?: string},
  deps: {readonly gke: () => Promise<GkeClient>},
): Promise<ObservedCluster[]> {
  const gke = await deps.gke()
  try {
    // All locations, then filtered: a region's list would leave out zonal clusters in its zones.
    const region = options.zone === undefined ? undefined : (zoneToRegion(options.zone) ?? options.zone)
    const clusters = (await gke.listClusters(options.project)).filter(
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
  deps: {readonly gke: () => Promise<GkeClient>},
): Promise<ObservedCluster> {
  const gke = await deps.gke()
  try {
    const found = await findCluster(gke, options.project, options.zone, options.cluster)
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
