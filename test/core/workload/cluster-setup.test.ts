// What a submit finds missing from the objects its JobSet refers to: the JobSet kind is told served or not by the
// read of the workload's name; only when it is not is the CRD read, and it says which message fits.
import {describe, expect, it} from 'vitest'

import {type JobSetKind, missingObjects} from '../../../src/core/workload/cluster-setup.js'
import type {KubeObject} from '../../../src/ports/kube.js'

const object = (kind: string, name: string): KubeObject => ({apiVersion: 'v1', kind, metadata: {name}})

const crd = (versions: {name: string; served?: boolean}[]): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {name: 'jobsets.jobset.x-k8s.io'},
  spec: {group: 'jobset.x-k8s.io', names: {kind: 'JobSet', plural: 'jobsets'}, versions},
})

const missing = (jobSet: JobSetKind) =>
  missingObjects(
    {jobSet, localQueue: object('LocalQueue', 'multislice-queue'), priorityClass: object('PriorityClass', 'medium')},
    'medium',
  )

describe('missingObjects: the JobSet kind', () => {
  it('served: nothing missing (the CRD is not needed to say so)', () => {
    expect(missing({served: true})).toEqual([])
  })

  it.each<[string, JobSetKind, string, string]>([
    [
      'no CRD',
      {served: false, crd: undefined},
      'CustomResourceDefinition jobsets.jobset.x-k8s.io',
      'JobSet is not installed, so the API server cannot take a JobSet',
    ],
    [
      'a CRD without v1alpha2 (an older JobSet)',
      {served: false, crd: crd([{name: 'v1alpha1', served: true}])},
      'CustomResourceDefinition jobsets.jobset.x-k8s.io serving v1alpha2',
      'the installed JobSet does not serve jobset.x-k8s.io/v1alpha2, the version xpk writes',
    ],
    [
      'a CRD with v1alpha2 not served',
      {served: false, crd: crd([{name: 'v1alpha2', served: false}])},
      'CustomResourceDefinition jobsets.jobset.x-k8s.io serving v1alpha2',
      'the installed JobSet does not serve jobset.x-k8s.io/v1alpha2, the version xpk writes',
    ],
    [
      'a CRD listing v1alpha2 that the API server does not serve yet',
      {served: false, crd: crd([{name: 'v1alpha2', served: true}])},
      'CustomResourceDefinition jobsets.jobset.x-k8s.io serving v1alpha2',
      'the CRD lists v1alpha2 but the API server does not serve jobset.x-k8s.io/v1alpha2 ' +
        '(not established yet, if JobSet was just installed: try again in a minute)',
    ],
  ])('not served, %s', (_name, jobSet, object, why) => {
    expect(missing(jobSet)).toEqual([{object, why}])
  })

  it('comes first, before the queue and the priority class', () => {
    const found = missingObjects(
      {jobSet: {served: false, crd: undefined}, localQueue: undefined, priorityClass: undefined},
      'high',
    )
    expect(found.map((m) => m.object)).toEqual([
      'CustomResourceDefinition jobsets.jobset.x-k8s.io',
      'LocalQueue default/multislice-queue',
      'PriorityClass high',
    ])
  })
})
