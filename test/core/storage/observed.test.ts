// The readers of the objects a storage is made of (src/core/storage/observed.ts): every spec field checked against
// the type Python xpk's CRD gives it, a malformed object read with what it has, the PersistentVolume's CSI fields,
// and whether a CRD as read serves the Storage kind.
import {describe, expect, it} from 'vitest'

import {
  readStorage,
  readVolume,
  servesStorage,
  STORAGE_API_VERSION,
  STORAGE_CRD_NAME,
  STORAGE_KIND,
  type ObservedStorage,
} from '../../../src/core/storage/observed.js'
import type {KubeObject} from '../../../src/ports/kube.js'
import {PYTHON_STORAGE_CRD, SKIP_STORAGE_CRD_TESTS} from '../../helpers/storage-crd.js'

const SPEC = {
  type: 'gcsfuse',
  cluster: 'demo',
  auto_mount: true,
  mount_point: '/data',
  readonly: false,
  manifest: 'xpkclusters/storage-manifests/p-z-demo-data-manifest.yaml',
  pv: 'data-pv',
  pvc: 'data-pvc',
}

const storage = (spec: unknown, name = 'data'): KubeObject => ({
  apiVersion: 'xpk.x-k8s.io/v1',
  kind: 'Storage',
  metadata: {name},
  ...(spec === undefined ? {} : {spec}),
})

const WELL_FORMED: ObservedStorage = {
  name: 'data',
  type: 'gcsfuse',
  cluster: 'demo',
  autoMount: true,
  mountPoint: '/data',
  readonly: false,
  manifest: 'xpkclusters/storage-manifests/p-z-demo-data-manifest.yaml',
  pv: 'data-pv',
  pvc: 'data-pvc',
  invalidFields: [],
}

describe('readStorage', () => {
  it('reads every spec field of a well-formed Storage, and nothing else', () => {
    expect(readStorage(storage({...SPEC, extra: 'ignored'}))).toEqual(WELL_FORMED)
  })

  const WIRE = {
    type: 'type',
    cluster: 'cluster',
    auto_mount: 'autoMount',
    mount_point: 'mountPoint',
    readonly: 'readonly',
    manifest: 'manifest',
    pv: 'pv',
    pvc: 'pvc',
  } as const
  const wrongType = (field: keyof typeof SPEC) => (typeof SPEC[field] === 'boolean' ? 'true' : 42)

  it.each(Object.keys(WIRE) as (keyof typeof WIRE)[])(
    'spec.%s missing, null or of the wrong type: null, named in invalidFields',
    (field) => {
      const without = Object.fromEntries(Object.entries(SPEC).filter(([k]) => k !== field))
      for (const spec of [without, {...SPEC, [field]: null}, {...SPEC, [field]: wrongType(field)}]) {
        expect(readStorage(storage(spec))).toEqual({
          ...WELL_FORMED,
          [WIRE[field]]: null,
          invalidFields: [`spec.${field}`],
        })
      }
    },
  )

  it.each([
    ['no spec', undefined],
    ['a spec that is not an object', 'gcsfuse'],
    ['a spec that is a list', [SPEC]],
    ['an empty spec', {}],
  ])('%s: the name, every field null, all eight named in the CRD order', (_, spec) => {
    expect(readStorage(storage(spec))).toEqual({
      name: 'data',
      type: null,
      cluster: null,
      autoMount: null,
      mountPoint: null,
      readonly: null,
      manifest: null,
      pv: null,
      pvc: null,
      invalidFields: Object.keys(WIRE).map((f) => `spec.${f}`),
    })
  })

  it('keeps empty text as written: the CRD allows it (the table shows it as "-")', () => {
    expect(readStorage(storage({...SPEC, manifest: '', type: ''}))).toMatchObject({
      manifest: '',
      type: '',
      invalidFields: [],
    })
  })
})

describe('readVolume', () => {
  const volume = (spec: unknown): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name: 'data-pv'},
    spec,
  })

  it.each([
    [
      'a Cloud Storage FUSE volume',
      {csi: {driver: 'gcsfuse.csi.storage.gke.io', volumeHandle: 'my-bucket'}, capacity: {storage: '64Gi'}},
      {name: 'data-pv', driver: 'gcsfuse.csi.storage.gke.io', volumeHandle: 'my-bucket'},
    ],
    [
      'a Filestore volume',
      {csi: {driver: 'filestore.csi.storage.gke.io', volumeHandle: 'projects/p/locations/z/instances/i/volumes/v'}},
      {
        name: 'data-pv',
        driver: 'filestore.csi.storage.gke.io',
        volumeHandle: 'projects/p/locations/z/instances/i/volumes/v',
      },
    ],
    [
      'a volume that is not CSI (hostPath)',
      {hostPath: {path: '/mnt'}},
      {name: 'data-pv', driver: null, volumeHandle: null},
    ],
    ['no spec', undefined, {name: 'data-pv', driver: null, volumeHandle: null}],
    [
      'a handle that is not text',
      {csi: {driver: 'x', volumeHandle: 7}},
      {name: 'data-pv', driver: 'x', volumeHandle: null},
    ],
  ])('%s', (_, spec, expected) => {
    expect(readVolume(volume(spec))).toEqual(expected)
  })
})

describe('servesStorage', () => {
  const crd = (versions: unknown): KubeObject => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {name: 'storages.xpk.x-k8s.io'},
    spec: {group: 'xpk.x-k8s.io', versions},
  })

  it.each([
    ['no CRD', undefined, false],
    ['the CRD serving v1', crd([{name: 'v1', served: true, storage: true}]), true],
    [
      'v1 among other versions',
      crd([
        {name: 'v2', served: true},
        {name: 'v1', served: true},
      ]),
      true,
    ],
    ['v1 declared but not served', crd([{name: 'v1', served: false, storage: true}]), false],
    ['only another version', crd([{name: 'v2', served: true, storage: true}]), false],
    ['no versions', crd(undefined), false],
  ])('%s: %s', (_, object, served) => {
    expect(servesStorage(object)).toBe(served)
  })
})

describe.skipIf(SKIP_STORAGE_CRD_TESTS)("against Python xpk's Storage CRD (../shared/crds/xpk-storage-v1)", () => {
  interface Schema {
    readonly type?: string
    readonly properties?: Record<string, Schema>
    readonly required?: string[]
  }
  const crd = () => {
    if (!PYTHON_STORAGE_CRD) throw new Error('no ../shared/crds/xpk-storage-v1 (CI runs these tests and needs it)')
    return PYTHON_STORAGE_CRD.spec as {
      group: string
      scope: string
      names: {kind: string; plural: string}
      versions: {name: string; served: boolean; schema: {openAPIV3Schema: Schema}}[]
    }
  }
  const specSchema = () => crd().versions.find((v) => v.name === 'v1')!.schema.openAPIV3Schema.properties!.spec!

  it('is the kind xpk lists: its name, group, version, kind and scope', () => {
    expect(PYTHON_STORAGE_CRD!.metadata.name).toBe(STORAGE_CRD_NAME)
    expect(`${crd().group}/v1`).toBe(STORAGE_API_VERSION)
    expect(crd().names.kind).toBe(STORAGE_KIND)
    expect(crd().scope).toBe('Cluster')
    expect(servesStorage(PYTHON_STORAGE_CRD)).toBe(true)
  })

  it('a spec with a value of its type in every property reads with no invalid field', () => {
    const properties = Object.entries(specSchema().properties!)
    expect(properties.length).toBe(8)
    const spec = Object.fromEntries(
      properties.map(([name, p]) => [name, p.type === 'boolean' ? true : `${name}-value`]),
    )
    expect(readStorage(storage(spec)).invalidFields).toEqual([])
  })

  it('each field the CRD requires, left out, is the one invalid field', () => {
    const required = specSchema().required!
    expect(required.length).toBe(8)
    for (const name of required) {
      const spec = Object.fromEntries(Object.entries(SPEC).filter(([k]) => k !== name))
      expect(readStorage(storage(spec)).invalidFields).toEqual([`spec.${name}`])
    }
    expect(new Set(required)).toEqual(new Set(Object.keys(SPEC)))
  })
})
