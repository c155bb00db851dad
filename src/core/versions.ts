/** Versions of the in-cluster components xpk installs and generates manifests for. */
export const JOBSET_VERSION = 'v0.10.1'
export const KUEUE_VERSION = 'v0.17.1'
/**
 * Kueue releases older than this cannot be upgraded in place (v0.15 introduced the v1beta2 API): xpk must delete
 * every Kueue object and CRD first, and asks before doing so.
 */
export const KUEUE_BREAKING_VERSION = 'v0.15.0'

/** API groups of the custom resources xpk writes. */
export const JOBSET_API_GROUP = 'jobset.x-k8s.io'
export const KUEUE_API_GROUP = 'kueue.x-k8s.io'

/** API versions of the objects xpk writes. */
export const JOBSET_API_VERSION = `${JOBSET_API_GROUP}/v1alpha2`
/** The storage version of Kueue `KUEUE_VERSION`; v1beta1 is still served there, but deprecated (a warning per apply). */
export const KUEUE_API_VERSION = `${KUEUE_API_GROUP}/v1beta2`

/** The release manifests xpk applies to install each component (as Python xpk does with `kubectl apply -f`). */
export const JOBSET_RELEASE_MANIFEST_URL = `https://github.com/kubernetes-sigs/jobset/releases/download/${JOBSET_VERSION}/manifests.yaml`
export const KUEUE_RELEASE_MANIFEST_URL = `https://github.com/kubernetes-sigs/kueue/releases/download/${KUEUE_VERSION}/manifests.yaml`

/** Names of the Kueue objects xpk configures on every cluster. */
export const LOCAL_QUEUE_NAME = 'multislice-queue'
export const CLUSTER_QUEUE_NAME = 'cluster-queue'

/** The group version of Kueue's visibility API xpk reads (Kueue 0.15 and later serve it beside v1beta1). */
export const VISIBILITY_API_VERSION = 'visibility.kueue.x-k8s.io/v1beta2'
