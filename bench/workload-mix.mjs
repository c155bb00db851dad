// The workloads the list and queue benchmarks put in the Kubernetes fake: CRDs that take any object (validating
// 20,000 objects against the 1.4 MB Kueue schema would only slow the set-up; the e2e tests validate the same objects
// against the real CRDs), and the state mix of a busy cluster.
import {jobsetStatus, kueueStatus} from '../test/builders/workload-states.ts'

/** A CRD that serves `kind` and takes any object, with a status subresource as the real ones have. */
export const anyObjectCrd = (group, kind, plural, version, scope = 'Namespaced') => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {name: `${plural}.${group}`},
  spec: {
    group,
    names: {kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase()},
    scope,
    versions: [
      {
        name: version,
        served: true,
        storage: true,
        schema: {openAPIV3Schema: {type: 'object', 'x-kubernetes-preserve-unknown-fields': true}},
        subresources: {status: {}},
      },
    ],
  },
})

/** Half admitted and running, a quarter queued for quota, a quarter finished (one in five of those failed). */
export function workloadState(i) {
  if (i % 4 < 2) return {jobset: jobsetStatus.running(30), kueue: kueueStatus.running(30), expected: 'RUNNING'}
  if (i % 4 === 2) return {jobset: jobsetStatus.suspended(20), kueue: kueueStatus.pending(20), expected: 'QUEUED'}
  return i % 20 === 3
    ? {jobset: jobsetStatus.failed(40), kueue: kueueStatus.failed(40), expected: 'FINISHED'}
    : {jobset: jobsetStatus.completed(40), kueue: kueueStatus.succeeded(40), expected: 'FINISHED'}
}

/** The priority classes the workloads take in turn. */
export const PRIORITY_CYCLE = ['very-low', 'low', 'medium', 'high', 'very-high']
