import type {ObservedCluster} from '../core/cluster/observed.js'
import {zoneToRegion} from '../core/settings.js'
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
