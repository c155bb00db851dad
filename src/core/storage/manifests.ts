/**
 * The objects `storage attach` writes, field for field as Python xpk writes them (src/xpk/templates/fuse-pv.yaml,
 * fuse-pvc.yaml, filestore-pv.yaml, filestore-pvc.yaml, filestore-sc.yaml, storage.yaml, filled in by core/gcsfuse.py,
 * core/filestore.py and core/storage.py), so that a storage attached by either tool looks the same to both:
 *
 *   - GCS FUSE: a PersistentVolume `<name>-pv` (ReadWriteMany, the bucket as its volume handle, the mount options,
 *     metadata prefetch unless turned off) and its claim `<name>-pvc`, both of class `example-storage-class` (a class
 *     that need not exist: the claim binds by `volumeName`; GKE's own static-provisioning example uses that name);
 *   - Filestore: a PersistentVolume `<name>-pv` (the instance's file share by resource name and IP address, Retain),
 *     its claim `<name>-pvc` and a StorageClass `<name>-sc` naming the instance's tier and the cluster's network;
 *   - the Storage object (storages.xpk.x-k8s.io), whose spec says where workloads mount which claim.
 *
 * Where we differ from Python xpk, on purpose (README, Storage):
 *   1. A Filestore volume's capacity is `<capacityGb>Gi`; Python writes the bare number, which Kubernetes reads as
 *      bytes (a 1 TiB share became a 1024-byte volume). Both the volume and its claim say the real size.
 *   2. The Filestore claim names its namespace (`default`, where workloads run); Python left it to the client.
 *   3. `spec.manifest` of the Storage object is the manifest file given with --manifest, or empty: Python wrote a copy
 *      of every manifest to ./xpkclusters/storage-manifests/ and that path here, a file on one machine that no one
 *      else can read; what it held is in the cluster (`xpk storage list -o wide` names the volume and its claim).
 *   4. Every object starts with apiVersion and kind (Python's Filestore claim template starts with kind).
 */
import {XpkError, UsageError} from '../errors.js'
import {XPK_NAMESPACE} from '../incluster/namespace.js'
import type {AccessMode, PersistentVolume, PersistentVolumeClaim, StorageClass} from '../manifests/k8s-types.js'
import type {FilestoreInstance} from './backends.js'
import {STORAGE_API_VERSION, STORAGE_KIND} from './observed.js'
import type {StorageSettings} from './rules.js'
import {CSI_DRIVERS, storageObjectNames, type StorageType} from './types.js'

/** A Storage object (xpk.x-k8s.io/v1), its spec as the CRD has it (Python xpk's field names). */
export interface StorageObject {
  readonly apiVersion: typeof STORAGE_API_VERSION
  readonly kind: typeof STORAGE_KIND
  readonly metadata: {readonly name: string}
  readonly spec: {
    readonly auto_mount: boolean
    readonly cluster: string
    readonly mount_point: string
    readonly readonly: boolean
    readonly type: StorageType
    readonly manifest: string
    readonly pv: string
    readonly pvc: string
  }
}

/** What a storage is made of in the cluster, besides its Storage object, in the order Python xpk lists them. */
export type StorageVolumeObject = PersistentVolume | PersistentVolumeClaim | StorageClass

/** The class GCS FUSE volumes and claims name (Python xpk's, and GKE's example): it need not exist. */
export const GCSFUSE_STORAGE_CLASS = 'example-storage-class'

/** What a GCS FUSE storage is made from. */
export interface GcsFuseVolume {
  readonly name: string
  readonly bucket: string
  readonly sizeGb: number
  readonly mountOptions: readonly string[]
  readonly prefetchMetadata: boolean
}

/** The PersistentVolume and claim of a GCS FUSE storage (Python xpk: core/gcsfuse.py `manifest`). */
export function gcsFuseObjects(volume: GcsFuseVolume): [PersistentVolume, PersistentVolumeClaim] {
  const names = storageObjectNames(volume.name)
  const size = `${volume.sizeGb}Gi`
  const pv = persistentVolume(names.pv, {
    accessModes: ['ReadWriteMany'],
    capacity: {storage: size},
    storageClassName: GCSFUSE_STORAGE_CLASS,
    mountOptions: [...volume.mountOptions],
    csi: {
      driver: CSI_DRIVERS.gcsfuse,
      volumeHandle: volume.bucket,
      volumeAttributes: {
        gcsfuseLoggingSeverity: 'warning',
        // Lists the bucket's objects once when the volume is mounted, so the first reads do not each ask.
        ...(volume.prefetchMetadata ? {gcsfuseMetadataPrefetchOnMount: 'true'} : {}),
      },
    },
  })
  const pvc = claim(names.pvc, {
    accessModes: ['ReadWriteMany'],
    resources: {requests: {storage: size}},
    volumeName: names.pv,
    storageClassName: GCSFUSE_STORAGE_CLASS,
  })
  return [pv, pvc]
}

/** What a Filestore storage is made from: the instance as read, and the flags. */
export interface FilestoreVolume {
  readonly name: string
  readonly project: string
  readonly instance: FilestoreInstance
  /** `--vol`: the file share. */
  readonly vol: string
  readonly accessMode: AccessMode
  /** The cluster's VPC network (its name), which the StorageClass names. */
  readonly network: string
}

/**
 * The PersistentVolume, claim and StorageClass of a Filestore storage (Python xpk: core/filestore.py `manifest`).
 * @throws XpkError (conflict) when the instance is not READY or has no address yet; UsageError naming --vol when it
 *   has no file share of that name
 */
export function filestoreObjects(volume: FilestoreVolume): [PersistentVolume, PersistentVolumeClaim, StorageClass] {
  const {instance, vol} = volume
  if (instance.state !== 'READY' || instance.ipAddress === null) {
    throw new XpkError(
      'conflict',
      `Filestore instance ${instance.id} is ${instance.state}${instance.ipAddress === null ? ', with no IP address yet' : ''}: ` +
        'a volume can be made of it once it is READY.',
      {hints: ['Run the same command again once the instance is READY.']},
    )
  }
  const share = instance.fileShares.find((s) => s.name === vol)
  if (share === undefined) {
    const shares = instance.fileShares.map((s) => s.name)
    throw new UsageError(
      `--vol ${vol}: Filestore instance ${instance.id} has no file share of that name` +
        (shares.length === 0 ? '.' : ` (it has ${shares.join(', ')}).`),
      {flag: '--vol', hints: shares.length === 0 ? [] : [`Give --vol ${shares[0]}.`]},
    )
  }
  const names = storageObjectNames(volume.name)
  const size = `${share.capacityGb}Gi`
  const pv = persistentVolume(names.pv, {
    storageClassName: names.storageClass,
    capacity: {storage: size},
    accessModes: [volume.accessMode],
    persistentVolumeReclaimPolicy: 'Retain',
    volumeMode: 'Filesystem',
    csi: {
      driver: CSI_DRIVERS.gcpfilestore,
      volumeHandle: `projects/${volume.project}/locations/${instance.location}/instances/${instance.id}/volumes/${vol}`,
      volumeAttributes: {ip: instance.ipAddress, volume: vol},
    },
  })
  const pvc = claim(names.pvc, {
    accessModes: [volume.accessMode],
    storageClassName: names.storageClass,
    volumeName: names.pv,
    resources: {requests: {storage: size}},
  })
  const storageClass: StorageClass = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {name: names.storageClass},
    provisioner: CSI_DRIVERS.gcpfilestore,
    volumeBindingMode: 'Immediate',
    allowVolumeExpansion: true,
    parameters: {tier: instance.tier, network: `projects/${volume.project}/global/networks/${volume.network}`},
  }
  return [pv, pvc, storageClass]
}

function persistentVolume(name: string, spec: PersistentVolume['spec']): PersistentVolume {
  return {apiVersion: 'v1', kind: 'PersistentVolume', metadata: {name}, spec}
}

/** A claim in the workloads' namespace (Python xpk's GCS FUSE template names it; its Filestore one leaves it out). */
function claim(name: string, spec: PersistentVolumeClaim['spec']): PersistentVolumeClaim {
  return {apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: {name, namespace: XPK_NAMESPACE}, spec}
}

/**
 * The Storage object of a storage: its settings, the cluster it is attached to, and the PersistentVolume and claim
 * its objects hold (Python xpk: core/storage.py `fill_storage_template`, which keeps this key order).
 * @param manifest the manifest file given with --manifest, or '' for objects xpk made (see difference 3)
 */
export function storageObject(
  settings: StorageSettings,
  cluster: string,
  objects: readonly {readonly kind: string; readonly metadata: {readonly name: string}}[],
  manifest: string,
): StorageObject {
  const named = (kind: string) => objects.find((o) => o.kind === kind)?.metadata.name
  const pv = named('PersistentVolume')
  const pvc = named('PersistentVolumeClaim')
  if (pv === undefined || pvc === undefined) throw new Error('A storage needs a PersistentVolume and its claim.')
  return {
    apiVersion: STORAGE_API_VERSION,
    kind: STORAGE_KIND,
    metadata: {name: settings.name},
    spec: {
      auto_mount: settings.autoMount,
      cluster,
      mount_point: settings.mountPoint,
      readonly: settings.readonly,
      type: settings.type,
      manifest,
      pv,
      pvc,
    },
  }
}
