import {describe, expect, it} from 'vitest'

import {XPK_SERVICE_ACCOUNT} from '../../../src/core/manifests/jobset.js'
import {workloadRbacObjects} from '../../../src/core/incluster/workload-rbac.js'

describe('workloadRbacObjects', () => {
  const [account, role, ...bindings] = workloadRbacObjects()

  it('creates the service account JobSets run as', () => {
    expect(account).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {name: XPK_SERVICE_ACCOUNT, namespace: 'default'},
    })
  })

  it('lets pod-reader read pods, services and Jobs, and nothing else', () => {
    expect(role.metadata).toEqual({name: 'pod-reader', namespace: 'default'})
    expect(role.rules).toEqual([
      {apiGroups: [''], resources: ['pods', 'services'], verbs: ['get', 'list', 'watch']},
      {apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch']},
    ])
  })

  it.each([
    {index: 0, account: 'default', name: 'default-pod-reader-binding'},
    {index: 1, account: XPK_SERVICE_ACCOUNT, name: 'xpk-sa-pod-reader-binding'},
  ])('binds pod-reader to the $account account as $name', ({index, account: name, ...expected}) => {
    const binding = bindings[index]
    expect(binding.metadata).toEqual({name: expected.name, namespace: 'default'})
    expect(binding.subjects).toEqual([{kind: 'ServiceAccount', name, namespace: 'default'}])
    expect(binding.roleRef).toEqual({apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name})
  })
})
