// Storages as `storage attach` makes them, for tests: a Filestore instance as the Filestore port reads it, user
// manifests like Python xpk's examples/storage/*-manifest-attach.yaml (placeholders filled in), and the objects an
// attach sends for a set of flags.
import type {FilestoreInstance} from '../../src/core/storage/backends.js'
import type {WorkloadStorage} from '../../src/core/storage/mounts.js'
import {filestoreObjects, gcsFuseObjects, storageObject} from '../../src/core/storage/manifests.js'
import {attachRequestFromFlags, type AttachFlags} from '../../src/core/storage/rules.js'
import {readStorageManifest} from '../../src/core/storage/user-manifest.js'
import type {Obj} from '../fakes/fake-kube-util.js'

export const CLUSTER = 'demo'
export const PROJECT = 'my-project'

/** A READY Filestore instance as the Filestore port reads it. */
export const HOME_FS: FilestoreInstance = {
  id: 'home-fs',
  location: 'us-central1-a',
  tier: 'BASIC_HDD',
  state: 'READY',
  network: 'default',
  ipAddress: '10.22.0.2',
  fileShares: [{name: 'vol1', capacityGb: 1024}],
  labels: {},
}

/** User manifests like Python xpk's examples/storage/*-manifest-attach.yaml, their placeholders filled in. */
export const USER_MANIFESTS = {
  parallelstore: `apiVersion: v1
kind: PersistentVolume
metadata:
  name: xpk-parallelstore-pv
spec:
  storageClassName: xpk-parallelstore-class
  capacity:
    storage: 12000Gi
  accessModes:
    - ReadWriteMany
  persistentVolumeReclaimPolicy: Retain
  volumeMode: Filesystem
  csi:
    driver: parallelstore.csi.storage.gke.io
    volumeHandle: "my-project/us-central1-a/ps-1/default-pool/default-container"
    volumeAttributes:
      accessPoints: 10.90.0.2,10.90.0.3,10.90.0.4
      network: projects/my-project/global/networks/default
  claimRef:
    name: xpk-parallelstore-pvc
    namespace: default
---
kind: PersistentVolumeClaim
apiVersion: v1
metadata:
  name: xpk-parallelstore-pvc
  namespace: default
spec:
  accessModes:
    - ReadWriteMany
  storageClassName: xpk-parallelstore-class
  resources:
    requests:
      storage: 12000Gi
`,
  pd: `apiVersion: v1
kind: PersistentVolume
metadata:
  name: xpk-pd-pv
spec:
  storageClassName: "xpk-pd-class"
  capacity:
    storage: 100G
  accessModes:
    - ReadWriteOnce
  claimRef:
    name: xpk-pd-pvc
    namespace: default
  csi:
    driver: pd.csi.storage.gke.io
    volumeHandle: projects/my-project/zones/us-central1-a/disks/data-disk
    fsType: ext4
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  namespace: default
  name: xpk-pd-pvc
spec:
  storageClassName: "xpk-pd-class"
  accessModes:
    - ReadWriteOnce
  resources:
    requests:
      storage: 100G
`,
  lustre: `apiVersion: v1
kind: PersistentVolume
metadata:
  name: xpk-lustre-pv
spec:
  storageClassName: ""
  capacity:
    storage: 36000Gi
  accessModes:
    - ReadWriteMany
  persistentVolumeReclaimPolicy: Retain
  volumeMode: Filesystem
  claimRef:
    namespace: default
    name: xpk-lustre-pvc
  csi:
    driver: lustre.csi.storage.gke.io
    volumeHandle: "my-project/us-central1-a/lustre-1"
    volumeAttributes:
      ip: 10.90.1.2
      filesystem: lfs
---
kind: PersistentVolumeClaim
apiVersion: v1
metadata:
  name: xpk-lustre-pvc
spec:
  accessModes:
    - ReadWriteMany
  storageClassName: ""
  volumeName: xpk-lustre-pv
  resources:
    requests:
      storage: 36000Gi
`,
} as const

/** The objects `storage attach` sends for a case, the Storage object last. */
export function attachObjects(flags: AttachFlags): Obj[] {
  const request = attachRequestFromFlags(flags)
  const {source} = request
  let objects: readonly {kind: string; metadata: {name: string}}[]
  let manifest = ''
  if (source.kind === 'gcsfuse') objects = gcsFuseObjects({name: request.name, ...source})
  else if (source.kind === 'gcpfilestore')
    objects = filestoreObjects({...source, name: request.name, project: PROJECT, instance: HOME_FS, network: 'default'})
  else {
    const type = request.type as keyof typeof USER_MANIFESTS
    objects = readStorageManifest(USER_MANIFESTS[type], source.path, request.name, request.type).objects
    manifest = source.path
  }
  return [...objects, storageObject(request, CLUSTER, objects, manifest)] as unknown as Obj[]
}

/** `storage attach datasets`: a read-only bucket every workload mounts at /data. */
export const DATASETS_FLAGS: AttachFlags = {
  name: 'datasets',
  type: 'gcsfuse',
  autoMount: 'true',
  mountPoint: '/data',
  readonly: 'true',
  bucket: 'my-datasets',
  size: '64',
}

/** `storage attach home`: a writable Filestore share (HOME_FS's vol1) mounted where asked. */
export const HOME_FLAGS: AttachFlags = {
  name: 'home',
  type: 'gcpfilestore',
  autoMount: 'false',
  mountPoint: '/home/shared',
  readonly: 'false',
  instance: 'home-fs',
  vol: 'vol1',
}

/** Storages as a workload mounts them (what src/core/storage/mounts.ts makes of the cluster's Storage objects). */
export const MOUNTED = {
  datasets: {
    name: 'datasets',
    type: 'gcsfuse',
    pv: 'datasets-pv',
    pvc: 'datasets-pvc',
    mountPoint: '/data',
    readonly: true,
    by: '--storage',
  },
  home: {
    name: 'home',
    type: 'gcpfilestore',
    pv: 'home-pv',
    pvc: 'home-pvc',
    mountPoint: '/home/shared',
    readonly: false,
    by: 'auto-mount',
  },
  scratch: {
    name: 'scratch',
    type: 'parallelstore',
    pv: 'xpk-parallelstore-pv',
    pvc: 'xpk-parallelstore-pvc',
    mountPoint: '/scratch',
    readonly: false,
    by: 'auto-mount',
  },
  lustre: {
    name: 'lustre',
    type: 'lustre',
    pv: 'xpk-lustre-pv',
    pvc: 'xpk-lustre-pvc',
    mountPoint: '/lustre',
    readonly: false,
    by: 'auto-mount',
  },
  disk: {
    name: 'disk',
    type: 'pd',
    pv: 'xpk-pd-pv',
    pvc: 'xpk-pd-pvc',
    mountPoint: '/disk',
    readonly: true,
    by: '--storage',
  },
} as const satisfies Record<string, WorkloadStorage>
