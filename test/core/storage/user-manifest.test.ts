// `storage attach --manifest` (src/core/storage/user-manifest.ts): a user's manifest is read and checked before
// anything is sent, table-driven: what it must hold, how its volume and claim must be bound, and that the volume keeps
// its data; every problem named at once with the file and the fix.
import {describe, expect, it} from 'vitest'

import type {KubeObject} from '../../../src/core/kube/release-manifest.js'
import {checkStorageManifest, readStorageManifest} from '../../../src/core/storage/user-manifest.js'
import type {StorageType} from '../../../src/core/storage/types.js'
import {USER_MANIFESTS} from '../../builders/storage.js'
import {usageProblems} from '../../helpers/usage-problems.js'

type Mutable = {apiVersion: string; kind: string; metadata: Record<string, unknown>; spec: Record<string, unknown>}
const pv = (spec: Record<string, unknown> = {}, name = 'data-pv'): Mutable => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {name},
  spec: {
    storageClassName: '',
    capacity: {storage: '100Gi'},
    accessModes: ['ReadWriteOnce'],
    csi: {driver: 'pd.csi.storage.gke.io', volumeHandle: 'projects/p/zones/z/disks/d'},
    ...spec,
  },
})
const pvc = (spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Mutable => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {name: 'data-pvc', ...metadata},
  spec: {
    accessModes: ['ReadWriteOnce'],
    storageClassName: '',
    volumeName: 'data-pv',
    resources: {requests: {storage: '100Gi'}},
    ...spec,
  },
})
const storageClass = (name: string): Mutable => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: {name},
  spec: {},
})
const check = (objects: Mutable[], type: StorageType = 'pd') =>
  checkStorageManifest(objects as unknown as KubeObject[], 'disk.yaml', 'data', type)

describe('storage manifests', () => {
  it.each<[string, string, StorageType, string, string]>([
    [
      'Parallelstore (Python xpk example)',
      USER_MANIFESTS.parallelstore,
      'parallelstore',
      'xpk-parallelstore-pv',
      'xpk-parallelstore-pvc',
    ],
    ['persistent disk (Python xpk example)', USER_MANIFESTS.pd, 'pd', 'xpk-pd-pv', 'xpk-pd-pvc'],
    ['Lustre (Python xpk example)', USER_MANIFESTS.lustre, 'lustre', 'xpk-lustre-pv', 'xpk-lustre-pvc'],
  ])('takes %s, naming the volume and claim the Storage object records', (_what, text, type, pvName, pvcName) => {
    const manifest = readStorageManifest(text, 'm.yaml', 'scratch', type)
    expect([manifest.pv, manifest.pvc]).toEqual([pvName, pvcName])
    expect(manifest.objects.map((o) => o.kind)).toEqual(['PersistentVolume', 'PersistentVolumeClaim'])
  })

  it('takes a Filestore manifest with its StorageClass named <name>-sc, and one without', () => {
    const filestore = (spec: Record<string, unknown> = {}) =>
      pv({csi: {driver: 'filestore.csi.storage.gke.io', volumeHandle: 'h'}, storageClassName: 'data-sc', ...spec})
    expect(
      check([filestore(), pvc({storageClassName: 'data-sc'}), storageClass('data-sc')], 'gcpfilestore').objects,
    ).toHaveLength(3)
    expect(check([filestore(), pvc({storageClassName: 'data-sc'})], 'gcpfilestore').pvc).toBe('data-pvc')
  })

  it.each<[string, Mutable[], StorageType, RegExp[]]>([
    [
      'no claim',
      [pv()],
      'pd',
      [/it holds 1 PersistentVolume and 0 PersistentVolumeClaims; a storage is one of each\.$/],
    ],
    ['two volumes', [pv(), pv({}, 'other-pv'), pvc()], 'pd', [/2 PersistentVolumes and 1 PersistentVolumeClaim;/]],
    [
      'an object of another kind',
      [pv(), pvc(), {apiVersion: 'apps/v1', kind: 'Deployment', metadata: {name: 'x'}, spec: {}}],
      'pd',
      [/apps\/v1 Deployment x is not part of a storage/],
    ],
    [
      'a StorageClass outside Filestore',
      [pv(), pvc(), storageClass('data-sc')],
      'pd',
      [/a StorageClass belongs in a Filestore manifest only/],
    ],
    [
      'a Filestore StorageClass of another name (detach would leave it)',
      [pv({csi: {driver: 'filestore.csi.storage.gke.io', volumeHandle: 'h'}}), pvc(), storageClass('xpkdefsc')],
      'gcpfilestore',
      [/its StorageClass must be one, named data-sc: `xpk storage detach data` removes it by that name\.$/],
    ],
    [
      'a volume of another type',
      [pv({csi: {driver: 'lustre.csi.storage.gke.io', volumeHandle: 'h'}}), pvc()],
      'pd',
      [/is mounted by lustre\.csi\.storage\.gke\.io; a --type pd volume is mounted by pd\.csi\.storage\.gke\.io/],
    ],
    [
      'a volume that is not a CSI one',
      [pv({csi: undefined, nfs: {server: 's', path: '/'}}), pvc()],
      'pd',
      [/is not a CSI volume/],
    ],
    [
      'a volume name no pod volume can have',
      [pv({}, 'Data.PV'), pvc({volumeName: 'Data.PV'})],
      'pd',
      [/PersistentVolume "Data.PV": its name also names the volume in every pod/],
    ],
    [
      'a claim in another namespace',
      [pv(), pvc({}, {namespace: 'team'})],
      'pd',
      [/PersistentVolumeClaim data-pvc is in namespace team; workloads run in default/],
    ],
    [
      "a volume reserved for another claim (Python xpk's own GCS FUSE example)",
      [pv({claimRef: {name: 'gcs-fuse-csi-static-pvc', namespace: 'default'}}), pvc({volumeName: undefined})],
      'pd',
      [/is reserved for claim default\/gcs-fuse-csi-static-pvc \(spec\.claimRef\), not for default\/data-pvc/],
    ],
    [
      'a claim asking for another volume',
      [pv(), pvc({volumeName: 'other-pv'})],
      'pd',
      [/asks for volume other-pv \(spec\.volumeName\), not data-pv/],
    ],
    [
      'a volume and claim bound by nothing',
      [pv(), pvc({volumeName: undefined})],
      'pd',
      [/neither binds the claim to the volume/],
    ],
    [
      'a claim without a storage class',
      [pv(), pvc({storageClassName: undefined})],
      'pd',
      [/names no storage class, so the cluster's default class/],
    ],
    [
      'different storage classes',
      [pv({storageClassName: 'a'}), pvc({storageClassName: 'b'})],
      'pd',
      [/the volume's storage class \("a"\) and the claim's \("b"\) differ/],
    ],
    [
      'an access mode the volume lacks',
      [pv(), pvc({accessModes: ['ReadWriteMany']})],
      'pd',
      [/the claim asks for ReadWriteMany, which the volume does not offer/],
    ],
    [
      'a volume that deletes its data with its claim',
      [pv({persistentVolumeReclaimPolicy: 'Delete'}), pvc()],
      'pd',
      [/persistentVolumeReclaimPolicy: Delete: the data would go with the claim/],
    ],
    [
      'several problems at once',
      [
        pv({persistentVolumeReclaimPolicy: 'Recycle', accessModes: []}),
        pvc({storageClassName: 'x'}, {namespace: 'team'}),
      ],
      'pd',
      [/in namespace team/, /storage class .* differ/, /asks for ReadWriteOnce/, /Recycle/],
    ],
  ])('refuses %s', (_what, objects, type, expected) => {
    const problems = usageProblems(() => check(objects, type))
    expect(problems.map((p) => p.flag)).toEqual(expected.map(() => '--manifest'))
    problems.forEach((p, i) => {
      expect(p.message).toMatch(/^--manifest disk\.yaml: /)
      expect(p.message).toMatch(expected[i]!)
    })
  })

  it('a file that is not YAML, or holds no objects, names --manifest and the file', () => {
    for (const text of ['a: [', '# only a comment\n', 'kind: PersistentVolume\n']) {
      const problems = usageProblems(() => readStorageManifest(text, 'bad.yaml', 'data', 'pd'))
      expect(problems.map((p) => p.flag)).toEqual(['--manifest'])
      expect(problems[0]!.message).toMatch(/^--manifest bad\.yaml/)
    }
  })
})
