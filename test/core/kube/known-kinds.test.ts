// The resources of xpk's own JobSet and Kueue kinds, known without discovery: each checked against the real CRD of
// the release xpk installs (plural, scope, and serving the version xpk uses), when test/helpers/crds.ts finds them.
import {describe, expect, it} from 'vitest'

import {KNOWN_KINDS, knownKind} from '../../../src/core/kube/known-kinds.js'
import {summarizeCrd, type CrdSummary} from '../../../src/core/kube/release-manifest.js'
import {JOBSET_API_GROUP, JOBSET_API_VERSION, KUEUE_API_GROUP, KUEUE_API_VERSION} from '../../../src/core/versions.js'
import {storageCrd} from '../../../src/core/storage/crd.js'
import {STORAGE_API_GROUP, STORAGE_API_VERSION} from '../../../src/core/storage/observed.js'
import {CRDS, SKIP_CRD_TESTS} from '../../helpers/crds.js'
import {allGoldenDocuments} from '../incluster/golden-cases.js'

/** Every JobSet and Kueue kind in the table, with the version xpk uses it at. */
const ENTRIES = Object.entries(KNOWN_KINDS)
  .filter(([group]) => group !== STORAGE_API_GROUP)
  .flatMap(([group, kinds]) =>
    Object.entries(kinds).map(([kind, resource]) => ({
      group,
      kind,
      ...resource,
      apiVersion: group === JOBSET_API_GROUP ? JOBSET_API_VERSION : KUEUE_API_VERSION,
    })),
  )

/**
 * Kinds whose CRD the found CRDs may lack: the shared copy of Kueue's CRDs has no ProvisioningRequestConfig
 * (core-objects.test.ts checks its objects by hand). When its CRD is found, it is checked like the others.
 */
const MAY_LACK_CRD = new Set(['ProvisioningRequestConfig'])

function crdOf(group: string, kind: string): CrdSummary | undefined {
  for (const component of CRDS.components) {
    for (const crd of component.crds()) {
      const summary = summarizeCrd(crd)
      if (summary.group === group && summary.kind === kind) return summary
    }
  }
  return undefined
}

describe('known kinds', () => {
  it('finds a kind at any version of its group; nothing else', () => {
    expect(knownKind(JOBSET_API_VERSION, 'JobSet')).toEqual({plural: 'jobsets', namespaced: true})
    expect(knownKind(`${KUEUE_API_GROUP}/v1beta1`, 'ClusterQueue')).toEqual({
      plural: 'clusterqueues',
      namespaced: false,
    })
    expect(knownKind(`${KUEUE_API_GROUP}/v1beta2`, 'Workload')).toEqual({plural: 'workloads', namespaced: true})
    expect(knownKind('v1', 'JobSet')).toBeUndefined()
    expect(knownKind('example.com/v1', 'JobSet')).toBeUndefined()
    expect(knownKind(KUEUE_API_VERSION, 'Cohort')).toBeUndefined()
    expect(knownKind(KUEUE_API_VERSION, 'constructor')).toBeUndefined()
    expect(knownKind(KUEUE_API_VERSION, 'toString')).toBeUndefined()
  })

  it('holds every JobSet and Kueue kind xpk writes (the in-cluster goldens), reads or lists', () => {
    const used = new Set(['JobSet', 'Workload', 'LocalQueue', 'ClusterQueue'])
    for (const {doc} of allGoldenDocuments()) {
      const apiVersion = String(doc.apiVersion)
      if (apiVersion.startsWith(`${KUEUE_API_GROUP}/`) || apiVersion.startsWith(`${JOBSET_API_GROUP}/`)) {
        used.add(String(doc.kind))
      }
    }
    expect(new Set(ENTRIES.map((e) => e.kind))).toEqual(used)
  })

  it("Storage: the plural and scope of xpk's own CRD (Python xpk's, field for field: test/core/storage/crd.test.ts)", () => {
    const crd = summarizeCrd(storageCrd())
    expect(Object.keys(KNOWN_KINDS[STORAGE_API_GROUP]!)).toEqual([crd.kind])
    expect(knownKind(STORAGE_API_VERSION, crd.kind)).toEqual({
      plural: crd.plural,
      namespaced: crd.scope === 'Namespaced',
    })
  })

  describe.skipIf(SKIP_CRD_TESTS)('against the real CRDs of the releases xpk installs', () => {
    it('every kind but those listed as possibly missing has its CRD among them', () => {
      const lacking = ENTRIES.filter((e) => !MAY_LACK_CRD.has(e.kind) && crdOf(e.group, e.kind) === undefined)
      expect(lacking.map((e) => `${e.group} ${e.kind}`)).toEqual([])
    })

    it.each(ENTRIES)('$kind: the CRD says its plural and scope, and serves $apiVersion', (entry) => {
      const crd = crdOf(entry.group, entry.kind)
      if (crd === undefined && MAY_LACK_CRD.has(entry.kind)) {
        // Not in the CRDs found (see MAY_LACK_CRD): Kueue's CRD is provisioningrequestconfigs, cluster-scoped.
        expect(entry).toMatchObject({plural: 'provisioningrequestconfigs', namespaced: false})
        return
      }
      expect(crd).toBeDefined()
      expect({plural: entry.plural, namespaced: entry.namespaced}).toEqual({
        plural: crd!.plural,
        namespaced: crd!.scope === 'Namespaced',
      })
      expect(crd!.name).toBe(`${entry.plural}.${entry.group}`)
      const version = entry.apiVersion.slice(entry.group.length + 1)
      expect(crd!.versions.filter((v) => v.served).map((v) => v.name)).toContain(version)
    })
  })
})
