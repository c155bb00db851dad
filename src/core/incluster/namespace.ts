/**
 * The namespace of every namespaced object xpk writes into a cluster (the LocalQueue, the ConfigMaps, the workload
 * RBAC, the image-cache DaemonSet) and of the JobSets it submits, as in Python xpk.
 */
export const XPK_NAMESPACE = 'default'
