import type {ObservedCluster, ObservedNodePool} from './observed.js'
import {ownPoolIndex} from './plan.js'
import type {CsiDriver} from './spec.js'
import {planClusterUpdates, type ClusterNeeds, type ClusterUpdates} from './updates.js'

/** The CSI driver each storage type (`storage attach --type`, Python xpk's names) is mounted by. */
export const STORAGE_CSI_DRIVER = {
  gcsfuse: 'GcsFuseCsiDriver',
  gcpfilestore: 'GcpFilestoreCsiDriver',
  parallelstore: 'ParallelstoreCsiDriver',
  pd: 'GcePersistentDiskCsiDriver',
  lustre: 'LustreCsiDriver',
} as const satisfies Record<string, CsiDriver>

export type StorageDriverType = keyof typeof STORAGE_CSI_DRIVER

/**
 * What a cluster needs before a storage of `type` can be mounted, as Python xpk's `enable_csi_drivers_if_necessary`
 * decides it: the type's CSI driver, Lustre on its legacy port when asked (`--enable-legacy-lustre-port`), and for
 * GCS FUSE Workload Identity, since its pods reach the bucket as their Kubernetes service account.
 */
export function storageNeeds(
  type: StorageDriverType,
  options: {readonly lustreLegacyPort?: boolean} = {},
): ClusterNeeds {
  return {
    csiDrivers: [{driver: STORAGE_CSI_DRIVER[type], why: `--type ${type}`}],
    lustreLegacyPort: type === 'lustre' && options.lustreLegacyPort ? {why: '--enable-legacy-lustre-port'} : null,
    workloadIdentity: type === 'gcsfuse' ? {why: 'GCS FUSE needs it: --type gcsfuse'} : null,
  }
}

/**
 * The cluster updates `storage attach` plans for a storage of `type` on the cluster as GKE reports it: plan steps
 * of the form `cluster create` applies (Workload Identity, the addon, then xpk's own pools switched to the GKE
 * metadata server for GCS FUSE), `none` for what is there already, and warnings for what xpk leaves to the user.
 * Pools being deleted or in ERROR are left out: they have no node to serve a mount.
 */
export function planStorageClusterUpdates(
  type: StorageDriverType,
  observed: ObservedCluster,
  options: {readonly lustreLegacyPort?: boolean} = {},
): ClusterUpdates {
  const usable = observed.nodePools.filter((p) => p.status !== 'STOPPING' && p.status !== 'ERROR')
  const own = (p: ObservedNodePool) => ownPoolIndex(observed.name, p.name) !== undefined
  return planClusterUpdates(storageNeeds(type, options), observed, {
    own: usable.filter(own),
    others: usable.filter((p) => !own(p)),
  })
}
