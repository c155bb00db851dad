// `storage list`'s rows and view (src/core/storage/list.ts): what a volume handle is shown as, the join with the
// PersistentVolumes, the order, and the cells of the table. The exact text of the table in every form is
// test/golden/tables/storage-list.txt (test/core/render/tables-golden.test.ts).
import {describe, expect, it} from 'vitest'

import {renderOutput} from '../../../src/core/render/output.js'

import {
  bucketOrInstance,
  renderStorageList,
  storageListView,
  storageRows,
  type StorageRow,
} from '../../../src/core/storage/list.js'
import type {ObservedStorage, ObservedVolume} from '../../../src/core/storage/observed.js'

const aStorage = (name: string, overrides: Partial<ObservedStorage> = {}): ObservedStorage => ({
  name,
  type: 'gcsfuse',
  cluster: 'demo',
  autoMount: true,
  mountPoint: `/${name}`,
  readonly: false,
  manifest: `xpkclusters/storage-manifests/p-z-demo-${name}-manifest.yaml`,
  pv: `${name}-pv`,
  pvc: `${name}-pvc`,
  invalidFields: [],
  ...overrides,
})

const aVolume = (name: string, volumeHandle: string | null): ObservedVolume => ({
  name,
  driver: volumeHandle === null ? null : 'gcsfuse.csi.storage.gke.io',
  volumeHandle,
})

describe('bucketOrInstance', () => {
  it.each([
    ['a Cloud Storage bucket (gcsfuse)', 'my-bucket', 'my-bucket'],
    ['Filestore, as xpk attaches it', 'projects/p/locations/us-central1-a/instances/fs-1/volumes/vol1', 'fs-1'],
    ['a Filestore instance without a volume', 'projects/p/locations/us-central1/instances/fs-2', 'fs-2'],
    ['a persistent disk', 'projects/p/zones/us-central1-a/disks/disk-1', 'disk-1'],
    ['a Parallelstore handle (as its driver takes it)', 'p/us-central1-a/ps-1/default-pool/default-container', null],
    ['a Lustre handle', 'p/us-central1-a/lustre-1', null],
    ['an empty handle', '', null],
  ])('%s: %j', (_, handle, shown) => {
    expect(bucketOrInstance(handle)).toBe(shown ?? handle)
  })

  it('no handle: nothing to show', () => {
    expect(bucketOrInstance(null)).toBeNull()
  })
})

describe('storageRows', () => {
  it('joins each storage with its PersistentVolume by name, sorted by name in code points', () => {
    const rows = storageRows(
      [aStorage('zeta'), aStorage('Alpha'), aStorage('beta'), aStorage('alpha')],
      [aVolume('beta-pv', 'beta-bucket'), aVolume('alpha-pv', 'alpha-bucket'), aVolume('zeta-pv', 'zeta-bucket')],
    )
    expect(rows.map((r) => [r.name, r.volumeHandle, r.bucketOrInstance])).toEqual([
      ['Alpha', null, null],
      ['alpha', 'alpha-bucket', 'alpha-bucket'],
      ['beta', 'beta-bucket', 'beta-bucket'],
      ['zeta', 'zeta-bucket', 'zeta-bucket'],
    ])
  })

  it.each([
    ['names no PersistentVolume', aStorage('a', {pv: null, invalidFields: ['spec.pv']}), [aVolume('a-pv', 'b')]],
    ['names one that does not exist', aStorage('a'), [aVolume('other-pv', 'b')]],
    ['names one that is not a CSI volume', aStorage('a'), [aVolume('a-pv', null)]],
  ])('a storage that %s: no volume handle, nothing in Bucket/Instance', (_, storage, volumes) => {
    expect(storageRows([storage], volumes)).toEqual([{...storage, volumeHandle: null, bucketOrInstance: null}])
  })

  it('keeps every field of the storage as read, and adds only the two from its volume', () => {
    const storage = aStorage('a', {autoMount: null, invalidFields: ['spec.auto_mount']})
    const [row] = storageRows([storage], [aVolume('a-pv', 'projects/p/locations/l/instances/i/volumes/v')])
    expect(row).toEqual({
      ...storage,
      volumeHandle: 'projects/p/locations/l/instances/i/volumes/v',
      bucketOrInstance: 'i',
    })
  })
})

describe('the storage list table', () => {
  const row = (overrides: Partial<StorageRow> = {}): StorageRow => ({
    ...aStorage('data'),
    volumeHandle: 'my-bucket',
    bucketOrInstance: 'my-bucket',
    ...overrides,
  })
  const cells = (r: StorageRow, wide = false) => renderStorageList([r], {wide, headers: false}).split(/ {3,}/)

  it("has Python xpk's columns with the bucket or instance for the manifest; -o wide adds PV, PVC, handle, manifest", () => {
    const header = (wide: boolean) => renderStorageList([row()], {wide, headers: true}).split('\n')[0]!.split(/ {3,}/)
    expect(header(false)).toEqual(['NAME', 'TYPE', 'AUTO MOUNT', 'MOUNT POINT', 'READONLY', 'BUCKET/INSTANCE'])
    expect(header(true)).toEqual([
      ...['NAME', 'TYPE', 'AUTO MOUNT', 'MOUNT POINT', 'READONLY', 'BUCKET/INSTANCE'],
      ...['PV', 'PVC', 'VOLUME HANDLE', 'MANIFEST'],
    ])
  })

  it.each<[string, Partial<StorageRow>, string[]]>([
    ['a well-formed storage', {}, ['data', 'gcsfuse', 'true', '/data', 'false', 'my-bucket']],
    [
      'booleans as the flags take them',
      {autoMount: false, readonly: true},
      ['data', 'gcsfuse', 'false', '/data', 'true', 'my-bucket'],
    ],
    [
      'unknown fields as "-"',
      {type: null, autoMount: null, mountPoint: null, readonly: null, bucketOrInstance: null},
      ['data', '-', '-', '-', '-', '-'],
    ],
    ['empty text as "-"', {type: '', mountPoint: ''}, ['data', '-', 'true', '-', 'false', 'my-bucket']],
    [
      'text from the cluster on one line, control characters escaped',
      {mountPoint: '/a\nb', type: 'x\u001b[2Jy', bucketOrInstance: 'b\u202ec'},
      ['data', 'x\\x1b[2Jy', 'true', '/a b', 'false', 'b\\u202ec'],
    ],
  ])('%s', (_, overrides, expected) => {
    expect(cells(row(overrides))).toEqual(expected)
  })

  it('-o wide: the PersistentVolume, its claim, the whole handle and the manifest, escaped too', () => {
    expect(cells(row({pvc: null, manifest: 'm\r\nn'}), true).slice(6)).toEqual(['data-pv', '-', 'my-bucket', 'm n'])
  })

  it('-o name: one escaped name per line; an empty list is empty (the note says so instead)', () => {
    expect(renderOutput(storageListView, [row(), row({name: 'b\u0007'})], {format: 'name', headers: true})).toEqual({
      kind: 'text',
      text: 'data\nb\\x07',
    })
    expect(storageListView.isEmpty!([])).toBe(true)
    expect(storageListView.isEmpty!([row()])).toBe(false)
  })
})
