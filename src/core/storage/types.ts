/**
 * The kinds of storage xpk attaches, as Python xpk names them (`--type`), and the CSI driver that mounts each one's
 * volumes (the GKE add-on that runs it is the cluster side's: src/core/cluster/storage-needs.ts).
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

/** The access modes `--access-mode` takes (Python xpk's choices). */
export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany'] as const satisfies readonly AccessMode[]

/** The names Python xpk gives what it makes for a storage (core/filestore.py, core/gcsfuse.py). */
export const storageObjectNames = (name: string) => ({
  pv: `${name}-pv`,
  pvc: `${name}-pvc`,
  storageClass: `${name}-sc`,
})

/**
 * The word each resource of a storage plan (attach, create, detach, delete) goes by on its plan line and its progress
 * line, as `cluster create` shows its own: one table, so the plan and the progress of a run say the same.
 */
export const STORAGE_RESOURCE_WORDS = {
  clusterUpdate: 'cluster',
  nodePoolUpdate: 'nodepool',
  cluster: 'cluster',
  bucket: 'bucket',
  bucketIam: 'bucket-iam',
  filestoreInstance: 'filestore',
  customResourceDefinition: 'crd',
  storageClass: 'storageclass',
  persistentVolume: 'pv',
  persistentVolumeClaim: 'pvc',
  storage: 'storage',
} as const satisfies Readonly<Record<string, string>>

/** The word of a storage plan's resource; one this table does not know stands for itself. */
export function storageResourceWord(resource: string): string {
  return (STORAGE_RESOURCE_WORDS as Readonly<Record<string, string>>)[resource] ?? resource
}
