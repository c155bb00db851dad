/**
 * What `workload create` sets up before submitting (Python xpk's `setup_k8s_service_accounts`): the `xpk-sa`
 * service account, and a `pod-reader` Role bound to it and to the namespace's `default` account, so code in a
 * workload's pods can look up its peers (pods, services, Jobs) through the Kubernetes API.
 */
import {XPK_SERVICE_ACCOUNT} from '../manifests/jobset.js'
import type {Role, RoleBinding, ServiceAccount} from '../manifests/k8s-types.js'
import {XPK_NAMESPACE} from './namespace.js'

export const POD_READER_ROLE = 'pod-reader'

const READ = ['get', 'list', 'watch']

/** The ServiceAccount, the Role, then one RoleBinding per account (`<account>-pod-reader-binding`). */
export function workloadRbacObjects(): [ServiceAccount, Role, RoleBinding, RoleBinding] {
  return [
    {apiVersion: 'v1', kind: 'ServiceAccount', metadata: {name: XPK_SERVICE_ACCOUNT, namespace: XPK_NAMESPACE}},
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: {name: POD_READER_ROLE, namespace: XPK_NAMESPACE},
      rules: [
        {apiGroups: [''], resources: ['pods', 'services'], verbs: READ},
        {apiGroups: ['batch'], resources: ['jobs'], verbs: READ},
      ],
    },
    podReaderBinding('default'),
    podReaderBinding(XPK_SERVICE_ACCOUNT),
  ]
}

function podReaderBinding(account: string): RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: {name: `${account}-${POD_READER_ROLE}-binding`, namespace: XPK_NAMESPACE},
    subjects: [{kind: 'ServiceAccount', name: account, namespace: XPK_NAMESPACE}],
    roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: POD_READER_ROLE},
  }
}
