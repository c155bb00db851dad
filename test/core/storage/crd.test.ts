// Our Storage CRD (src/core/storage/crd.ts) against Python xpk's (../shared/crds/xpk-storage-v1, never copied into
// the project): the same object, field for field, so that clusters set up by either tool work with both. Without
// ../shared the comparison is skipped with one line saying why (test/helpers/storage-crd.ts), except under CI.
import {describe, expect, it} from 'vitest'

import {storageCrd, STORAGE_PLURAL} from '../../../src/core/storage/crd.js'
import {
  readStorage,
  servesStorage,
  STORAGE_API_VERSION,
  STORAGE_CRD_NAME,
  STORAGE_KIND,
  STORAGE_SPEC_FIELDS,
} from '../../../src/core/storage/observed.js'
import {PYTHON_STORAGE_CRD, SKIP_STORAGE_CRD_TESTS} from '../../helpers/storage-crd.js'

interface Schema {
  readonly type?: string
  readonly properties?: Record<string, Schema>
  readonly required?: string[]
}
const ours = storageCrd() as unknown as {
  metadata: {name: string}
  spec: {
    group: string
    scope: string
    names: {kind: string; plural: string}
    versions: {name: string; served: boolean; storage: boolean; schema: {openAPIV3Schema: Schema}}[]
  }
}
const specSchema = ours.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!

describe('our Storage CRD', () => {
  it('serves the kind storage list reads: its name, group, version, kind and scope', () => {
    expect(ours.metadata.name).toBe(STORAGE_CRD_NAME)
    expect(`${ours.spec.group}/${ours.spec.versions[0]!.name}`).toBe(STORAGE_API_VERSION)
    expect(ours.spec.names).toMatchObject({kind: STORAGE_KIND, plural: STORAGE_PLURAL})
    expect(ours.metadata.name).toBe(`${STORAGE_PLURAL}.${ours.spec.group}`)
    expect(ours.spec.scope).toBe('Cluster')
    expect(ours.spec.versions.filter((v) => v.storage)).toHaveLength(1)
    expect(servesStorage(storageCrd())).toBe(true)
  })

  it('declares every spec field the reader checks, with its type, and requires each', () => {
    expect(Object.fromEntries(Object.entries(specSchema.properties!).map(([k, v]) => [k, v.type]))).toEqual(
      STORAGE_SPEC_FIELDS,
    )
    expect([...specSchema.required!].sort()).toEqual(Object.keys(STORAGE_SPEC_FIELDS).sort())
    const spec = Object.fromEntries(
      Object.entries(STORAGE_SPEC_FIELDS).map(([k, t]) => [k, t === 'boolean' ? false : `${k}-value`]),
    )
    expect(
      readStorage({apiVersion: STORAGE_API_VERSION, kind: STORAGE_KIND, metadata: {name: 's'}, spec}),
    ).toMatchObject({invalidFields: []})
  })

  it('is a new object each time (a caller cannot change the next one)', () => {
    const first = storageCrd() as unknown as {spec: {versions: unknown[]}}
    first.spec.versions.length = 0
    expect(storageCrd()).toEqual(ours)
  })
})

describe.skipIf(SKIP_STORAGE_CRD_TESTS)("our Storage CRD against Python xpk's (../shared/crds/xpk-storage-v1)", () => {
  it('is the same object, field for field (the order of the required fields too)', () => {
    if (!PYTHON_STORAGE_CRD) throw new Error('no ../shared/crds/xpk-storage-v1 (CI runs these tests and needs it)')
    expect(storageCrd()).toEqual(PYTHON_STORAGE_CRD)
    const python = PYTHON_STORAGE_CRD.spec as typeof ours.spec
    expect(specSchema.required).toEqual(python.versions[0]!.schema.openAPIV3Schema.properties!.spec!.required)
    expect(Object.keys(specSchema.properties!)).toEqual(
      Object.keys(python.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties!),
    )
  })
})
