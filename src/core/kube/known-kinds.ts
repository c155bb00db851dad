/**
 * Where the custom kinds xpk itself installs and uses are served: their resource (the URL segment) and scope, known
 * here so that reaching them costs no discovery request. A CRD's plural and scope belong to the CRD, not to one of
 * its versions (`spec.names.plural`, `spec.scope`), so they hold for every version of the kind: a version the
 * cluster does not serve (or a cluster without the CRD) answers the request with the API server's 404 for a
 * resource it does not serve, which the Kubernetes port reports as "not served" (KubeClient.lookup), and gets,
 * lists and deletes read as nothing, as they did when discovery said so first.
 *
 * Checked against the real CRDs of the pinned releases (versions.ts), and Storage against ours, by
 * test/core/kube/known-kinds.test.ts.
 * Kinds not here (other CRDs, other groups) are still found through discovery.
 */
import {STORAGE_API_GROUP, STORAGE_KIND} from '../storage/observed.js'
import {JOBSET_API_GROUP, KUEUE_API_GROUP} from '../versions.js'

/** A kind's resource: its plural (the URL segment) and whether its objects live in namespaces. */
export interface KnownKind {
  readonly plural: string
  readonly namespaced: boolean
}

/**
 * API group -> kind -> resource: the kinds of JobSet and Kueue that xpk writes, reads, lists or watches, and the
 * Storage kind (its own CRD, src/core/storage/crd.ts, which every `workload create` lists).
 */
export const KNOWN_KINDS: Readonly<Record<string, Readonly<Record<string, KnownKind>>>> = {
  [JOBSET_API_GROUP]: {
    JobSet: {plural: 'jobsets', namespaced: true},
  },
  [KUEUE_API_GROUP]: {
    Workload: {plural: 'workloads', namespaced: true},
    LocalQueue: {plural: 'localqueues', namespaced: true},
    ClusterQueue: {plural: 'clusterqueues', namespaced: false},
    ResourceFlavor: {plural: 'resourceflavors', namespaced: false},
    Topology: {plural: 'topologies', namespaced: false},
    AdmissionCheck: {plural: 'admissionchecks', namespaced: false},
    ProvisioningRequestConfig: {plural: 'provisioningrequestconfigs', namespaced: false},
  },
  [STORAGE_API_GROUP]: {
    [STORAGE_KIND]: {plural: 'storages', namespaced: false},
  },
}

/** The resource of `kind` in `apiVersion` (any version of its group), or undefined when xpk does not know it. */
export function knownKind(apiVersion: string, kind: string): KnownKind | undefined {
  const slash = apiVersion.lastIndexOf('/')
  if (slash < 0) return undefined
  return BY_GROUP_KIND.get(`${apiVersion.slice(0, slash)}/${kind}`)
}

/** `group/kind` -> resource (a Map: a kind named like an Object.prototype key finds nothing). */
const BY_GROUP_KIND: ReadonlyMap<string, KnownKind> = new Map(
  Object.entries(KNOWN_KINDS).flatMap(([group, kinds]) =>
    Object.entries(kinds).map(([kind, resource]) => [`${group}/${kind}`, resource] as const),
  ),
)
