// What GKE says, shared by the two GKE fakes (FakeGke on the wire, MemoryGke in memory) so they say it alike; the
// contract (gke-contract.test.ts) checks that the adapter reads FakeGke's answers into what MemoryGke throws.
import {createHash} from 'node:crypto'

/** GKE resource labels: keys start with a lowercase letter; keys and values are lowercase letters, digits, _ and -. */
export const LABEL_KEY_RE = /^[a-z][a-z0-9_-]{0,62}$/
export const LABEL_VALUE_RE = /^[a-z0-9_-]{0,63}$/

/** What an operation does to what, in the words of GKE's refusals. */
const DOING: Readonly<Record<string, string>> = {
  CREATE_CLUSTER: 'creating',
  DELETE_CLUSTER: 'deleting',
  CREATE_NODE_POOL: 'creating',
  DELETE_NODE_POOL: 'deleting',
  SET_NODE_POOL_SIZE: 'resizing',
  UPDATE_CLUSTER: 'updating',
  UPGRADE_NODES: 'updating',
}

export const gkeSays = {
  /** Node auto-provisioning without a cpu or memory limit. */
  napLimitMissing: (type: string) =>
    `Autoprovisioning requires a resource limit for ${type}: the cluster autoscaler needs maximum ${type} to be set.`,
  /** A node auto-provisioning limit whose maximum is below its minimum. */
  napLimitInverted: (type: string) => `Maximum of resource limit ${type} must be greater than or equal to its minimum.`,
  notFound: (name: string) => `Not found: ${name}.`,
  alreadyExists: (name: string) => `Already exists: ${name}.`,
  /** A change refused while an operation on the cluster runs; `operation` is its short id (operation-7). */
  incompatibleOperation: (operation: string) => `Cluster is running incompatible operation ${operation}.`,
  /** A cluster delete refused while the cluster is being created or deleted. */
  busyCluster: (operation: string, type: string, cluster: string) =>
    `Operation ${operation} is currently ${DOING[type]} cluster ${cluster}. Please wait and try again once it is done.`,
  /** A node-pool change refused while another operation on that pool runs. */
  busyPool: (operation: string, type: string, pool: string) =>
    `Operation ${operation} is currently ${DOING[type]} node pool ${pool}. Please wait and try again once it is done.`,
  notReady: (cluster: string, status: string) => `Cluster ${cluster} is not ready: its status is ${status}.`,
  fingerprintMismatch: (given: string, current: string) =>
    `Labels could not be set due to fingerprint mismatch; try again with the proper fingerprint: incorrect fingerprint supplied was "${given}", the expected one is "${current}".`,
  invalidLabelKey: (key: string) => `Invalid label key "${key}".`,
  invalidLabelValue: (key: string, value: string) => `Invalid value "${value}" for label "${key}".`,
  /** An UpdateCluster whose ClusterUpdate sets no field, or more than one (GKE applies one change per request). */
  oneUpdatePerRequest: (fields: readonly string[]) =>
    `Exactly one update can be applied to a cluster with each request; this request has ${fields.length}${fields.length ? `: ${fields.join(', ')}` : ''}.`,
  /** A Workload Identity pool other than the project's own. */
  badWorkloadPool: (pool: string, project: string) =>
    `Invalid workload pool "${pool}": the only pool of project ${project} is "${project}.svc.id.goog".`,
  /** A node pool asking for the GKE metadata server on a cluster without Workload Identity. */
  workloadIdentityOff: (pool: string) =>
    `Node pool ${pool} cannot use workload metadata mode GKE_METADATA: Workload Identity is not enabled on the cluster.`,
  /** How node-pool operations end when their cluster is deleted under them. */
  abortedByClusterDelete: 'Operation was aborted: the cluster is being deleted.',
}

/**
 * A fingerprint of the labels' content: 8 hex digits, as GKE shows them. GKE does not say how it derives them; a
 * content hash is the case where labels put back as they were give the old fingerprint again, which a client must
 * not be fooled by (xpk's lock counts a generation label for that reason).
 */
export function labelFingerprint(labels: Readonly<Record<string, string>>): string {
  const sorted = Object.keys(labels)
    .sort()
    .map((key) => [key, labels[key]])
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 8)
}
