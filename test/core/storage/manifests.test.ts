// The objects xpk builds for a storage (src/core/storage/manifests.ts) beyond the goldens: metadata prefetch turned
// off, a Filestore instance that is not ready or lacks the file share, and the Storage object's names.
import {describe, expect, it} from 'vitest'

import {UsageError, XpkError} from '../../../src/core/errors.js'
import {filestoreObjects, gcsFuseObjects, storageObject} from '../../../src/core/storage/manifests.js'
import {HOME_FS, PROJECT} from '../../builders/storage.js'
import {thrown} from '../../helpers/thrown.js'

const filestore = (instance: Partial<typeof HOME_FS> = {}, vol = 'vol1') =>
  filestoreObjects({
    name: 'home',
    project: PROJECT,
    instance: {...HOME_FS, ...instance},
    vol,
    accessMode: 'ReadWriteOnce',
    network: 'vpc-1',
  })

describe('storage objects', () => {
  it('--no-prefetch-metadata leaves the prefetch attribute out; the logging severity stays', () => {
    const [pv] = gcsFuseObjects({name: 'd', bucket: 'b', sizeGb: 1, mountOptions: [], prefetchMetadata: false})
    expect(pv.spec.csi.volumeAttributes).toEqual({gcsfuseLoggingSeverity: 'warning'})
    expect(pv.spec.mountOptions).toEqual([])
  })

  it("a Filestore volume states its share's capacity in GiB (Python xpk: bare bytes), its mode, tier and network", () => {
    const [pv, pvc, sc] = filestore({
      tier: 'ZONAL',
      location: 'us-central1',
      fileShares: [{name: 'vol1', capacityGb: 2560}],
    })
    expect(pv.spec.capacity).toEqual({storage: '2560Gi'})
    expect(pvc.spec.resources.requests).toEqual({storage: '2560Gi'})
    expect([pv.spec.accessModes, pvc.spec.accessModes]).toEqual([['ReadWriteOnce'], ['ReadWriteOnce']])
    expect(pv.spec.csi.volumeHandle).toBe('projects/my-project/locations/us-central1/instances/home-fs/volumes/vol1')
    expect(sc.parameters).toEqual({tier: 'ZONAL', network: 'projects/my-project/global/networks/vpc-1'})
  })

  it.each<[string, Partial<typeof HOME_FS>]>([
    ['being created', {state: 'CREATING', ipAddress: null}],
    ['ready but without an address', {ipAddress: null}],
    ['being repaired', {state: 'REPAIRING'}],
  ])('a Filestore instance %s is a conflict (exit 6), nothing built', (_what, instance) => {
    const error = thrown(() => filestore(instance), XpkError)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(
      /^Filestore instance home-fs is [A-Z]+.*: a volume can be made of it once it is READY\.$/,
    )
  })

  it('--vol naming no share of the instance is refused naming --vol and the shares it has', () => {
    expect(() => filestore({}, 'data')).toThrow(UsageError)
    expect(() => filestore({}, 'data')).toThrow(
      '--vol data: Filestore instance home-fs has no file share of that name (it has vol1).',
    )
  })

  it('the Storage object names the volume and claim it is given, whatever their names', () => {
    const objects = [
      {kind: 'PersistentVolumeClaim', metadata: {name: 'claim'}},
      {kind: 'PersistentVolume', metadata: {name: 'volume'}},
    ]
    const settings = {name: 's', type: 'pd', autoMount: false, mountPoint: '/s', readonly: true} as const
    expect(storageObject(settings, 'c', objects, '/m.yaml').spec).toEqual({
      auto_mount: false,
      cluster: 'c',
      mount_point: '/s',
      readonly: true,
      type: 'pd',
      manifest: '/m.yaml',
      pv: 'volume',
      pvc: 'claim',
    })
    expect(() => storageObject(settings, 'c', objects.slice(1), '')).toThrow(/needs a PersistentVolume and its claim/)
  })
})
