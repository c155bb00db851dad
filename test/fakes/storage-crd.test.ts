// The Kubernetes fake takes our Storage CRD (src/core/storage/crd.ts) as the API server would (a CRD it checks:
// name, one storage version, a structural schema) and then serves the kind, holding every Storage object to the
// schema: a complete one is stored, one that lacks a required field or gives a field another type is refused (422).
import {describe, expect, it} from 'vitest'

import {storageCrd} from '../../src/core/storage/crd.js'
import {servesStorage, STORAGE_API_VERSION, STORAGE_CRD_NAME} from '../../src/core/storage/observed.js'
import {fakesForFile} from '../helpers/wire-fakes.js'
import {FakeKube, type Obj} from './fake-kube.js'

let kube: FakeKube

fakesForFile(async (fakes) => {
  kube = fakes.add(await FakeKube.start())
})

const SPEC = {
  auto_mount: true,
  cluster: 'demo',
  mount_point: '/data',
  readonly: false,
  type: 'gcsfuse',
  manifest: '',
  pv: 'data-pv',
  pvc: 'data-pvc',
}
const storage = (spec: Record<string, unknown>): Obj => ({
  apiVersion: STORAGE_API_VERSION,
  kind: 'Storage',
  metadata: {name: 'data'},
  spec,
})

describe('the Kubernetes fake and our Storage CRD', () => {
  it('takes the CRD, marks it established, and serves Storage objects cluster-scoped', () => {
    const [stored] = kube.seed(storageCrd() as unknown as Obj)
    expect(servesStorage(stored as never)).toBe(true)
    expect(
      kube.get({apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: STORAGE_CRD_NAME}),
    ).toBeDefined()
    kube.seed(storage(SPEC))
    const [object] = kube.list(STORAGE_API_VERSION, 'Storage')
    expect(object?.spec).toEqual(SPEC)
    expect((object?.metadata as {namespace?: string}).namespace).toBeUndefined()
  })

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a required field missing', {...SPEC, pv: undefined}, /spec\.pv/],
    ['a boolean given as text', {...SPEC, readonly: 'false'}, /spec\.readonly/],
    ['a string given as a number', {...SPEC, mount_point: 7}, /spec\.mount_point/],
  ])('refuses a Storage object with %s', (_name, spec, field) => {
    kube.seed(storageCrd() as unknown as Obj)
    expect(() => kube.seed(storage(JSON.parse(JSON.stringify(spec)) as Record<string, unknown>))).toThrow(field)
    expect(kube.list(STORAGE_API_VERSION, 'Storage')).toEqual([])
  })
})
