/**
 * Our definition of the Storage kind (storages.xpk.x-k8s.io, v1, cluster-scoped): what `storage attach` installs on a
 * cluster that lacks it. It is Python xpk's schema (src/xpk/api/storage_crd.yaml) field for field, so that a cluster
 * set up by either tool works with both: the same spec fields of the same types, all required, and the whole object
 * immutable once created (a CEL rule), as there. Written here as data, never read from Python xpk's file; a test
 * compares the two (test/core/storage/crd.test.ts) and the Kubernetes fake takes it.
 */
import type {KubeObject} from '../kube/release-manifest.js'
import {
  STORAGE_API_GROUP,
  STORAGE_API_VERSION,
  STORAGE_CRD_NAME,
  STORAGE_KIND,
  STORAGE_SPEC_FIELDS,
} from './observed.js'

/** The plural, as it names the resource (`/apis/xpk.x-k8s.io/v1/storages`) and the CRD. */
export const STORAGE_PLURAL = 'storages'

/** Python xpk lists the required fields in this order (pvc before pv), unlike the properties: kept, field for field. */
const REQUIRED_ORDER = ['type', 'cluster', 'auto_mount', 'mount_point', 'readonly', 'manifest', 'pvc', 'pv'] as const

/** The Storage CustomResourceDefinition, as `storage attach` creates it. */
export function storageCrd(): KubeObject {
  const properties = Object.fromEntries(Object.entries(STORAGE_SPEC_FIELDS).map(([name, type]) => [name, {type}]))
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {name: STORAGE_CRD_NAME},
    spec: {
      group: STORAGE_API_GROUP,
      versions: [
        {
          name: STORAGE_API_VERSION.slice(STORAGE_API_GROUP.length + 1),
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {spec: {type: 'object', properties, required: [...REQUIRED_ORDER]}},
              // A Storage is never edited: detach and attach again. Python xpk's rule, kept so both tools agree.
              'x-kubernetes-validations': [{message: 'Value is immutable', rule: 'self == oldSelf'}],
            },
          },
        },
      ],
      scope: 'Cluster',
      names: {plural: STORAGE_PLURAL, singular: STORAGE_KIND.toLowerCase(), kind: STORAGE_KIND, shortNames: ['stg']},
    },
  }
}
