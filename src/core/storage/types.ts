/**
 * The kinds of storage xpk attaches, as Python xpk names them (`--type`), and what each needs of a cluster: the CSI
 * driver that mounts its volumes and the GKE add-on that runs that driver.
 */
import type {AccessMode} from '../manifests/k8s-types.js'

export const STORAGE_TYPES = ['gcsfuse', 'gcpfilestore', 'parallelstore', 'pd', 'lustre'] as const
export type StorageType = (typeof STORAGE_TYPES)[number]

export function isStorageType(value: unknown): value is StorageType {
  return (STORAGE_TYPES as readonly unknown[]).includes(value)
}

/** The CSI driver (a PersistentVolume's `spec.csi.driver`) that mounts each type's volumes. */
export const CSI_DRIVERS: Readonly<Record<StorageType, string>> = {
  gcsfuse: 'gcsfuse.csi.storage.gke.io',
  gcpfilestore: 'filestore.csi.storage.gke.io',
  parallelstore: 'parallelstore.csi.storage.gke.io',
  pd: 'pd.csi.storage.gke.io',
  lustre: 'lustre.csi.storage.gke.io',
}

/**
 * The GKE add-on that runs each type's CSI driver: its name as `gcloud container clusters update --update-addons`
 * takes it (Python xpk's words) and its key in the cluster's `addonsConfig` (GKE API).
 */
export const CSI_ADDONS: Readonly<Record<StorageType, {readonly name: string; readonly configKey: string}>> = {
  gcsfuse: {name: 'GcsFuseCsiDriver', configKey: 'gcsFuseCsiDriverConfig'},
  gcpfilestore: {name: 'GcpFilestoreCsiDriver', configKey: 'gcpFilestoreCsiDriverConfig'},
  parallelstore: {name: 'ParallelstoreCsiDriver', configKey: 'parallelstoreCsiDriverConfig'},
  pd: {name: 'GcePersistentDiskCsiDriver', configKey: 'gcePersistentDiskCsiDriverConfig'},
  lustre: {name: 'LustreCsiDriver', configKey: 'lustreCsiDriverConfig'},
}

/** The access modes `--access-mode` takes (Python xpk's choices). */
export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany'] as const satisfies readonly AccessMode[]

/** The names Python xpk gives what it makes for a storage (core/filestore.py, core/gcsfuse.py). */
export const storageObjectNames = (name: string) => ({
  pv: `${name}-pv`,
  pvc: `${name}-pvc`,
  storageClass: `${name}-sc`,
})
