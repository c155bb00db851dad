/** Versions of the in-cluster components xpk installs and generates manifests for. */
export const JOBSET_VERSION = 'v0.10.1'
export const KUEUE_VERSION = 'v0.17.1'

/** API versions of the objects xpk writes. */
export const JOBSET_API_VERSION = 'jobset.x-k8s.io/v1alpha2'
export const KUEUE_API_VERSION = 'kueue.x-k8s.io/v1beta1'

/** Names of the Kueue objects xpk configures on every cluster. */
export const LOCAL_QUEUE_NAME = 'multislice-queue'
export const CLUSTER_QUEUE_NAME = 'cluster-queue'
