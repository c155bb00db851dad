/**
 * A cluster's inside as `xpk cluster create` and the controllers leave it, in the Kubernetes fake: JobSet and Kueue
 * installed from their releases (the real CRDs when the tests can find them) with Available controllers, the
 * ClusterQueue with the status Kueue writes, and the nodes of the node pools. Shared by the e2e files that describe
 * a cluster.
 */
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {releaseWithRealCrds} from './release-files.js'

/** JobSet and Kueue installed, each controller's Deployment Available (objects already there are left as they are). */
export function seedInstalledControllers(kube: FakeKube): void {
  for (const o of [...releaseWithRealCrds('jobset'), ...releaseWithRealCrds('kueue')]) {
    const meta = o.metadata as {name: string; namespace?: string}
    if (
      kube.get({
        apiVersion: o.apiVersion,
        kind: o.kind,
        name: meta.name,
        ...(meta.namespace ? {namespace: meta.namespace} : {}),
      })
    ) {
      continue
    }
    kube.seed(
      o.kind === 'Deployment'
        ? ({
            ...o,
            status: {conditions: [{type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable'}]},
          } as Obj)
        : (o as Obj),
    )
  }
}

/** The ClusterQueue `cluster-queue` with one TPU flavor, and Kueue's counts and quota reserved and used in it. */
export function seedTpuClusterQueue(
  kube: FakeKube,
  queue: {flavor: string; chips: number; admitted: number; pending: number; reserving: number; used: string},
): void {
  const ref = {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'cluster-queue'}
  kube.seed({
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: {name: ref.name},
    spec: {
      namespaceSelector: {},
      resourceGroups: [
        {
          coveredResources: ['google.com/tpu'],
          flavors: [{name: queue.flavor, resources: [{name: 'google.com/tpu', nominalQuota: queue.chips}]}],
        },
      ],
    },
  })
  const usage = [{name: queue.flavor, resources: [{name: 'google.com/tpu', total: queue.used, borrowed: '0'}]}]
  kube.setStatus(ref, {
    admittedWorkloads: queue.admitted,
    pendingWorkloads: queue.pending,
    reservingWorkloads: queue.reserving,
    flavorsReservation: usage,
    flavorsUsage: usage,
  })
}

/** A Node of a node pool (GKE's pool label), Ready or not, as the kubelet reports it. */
export function poolNode(name: string, pool: string, ready = true): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {name, labels: {'cloud.google.com/gke-nodepool': pool, 'kubernetes.io/hostname': name}},
    status: {conditions: [{type: 'Ready', status: ready ? 'True' : 'False', reason: 'KubeletReady'}]},
  } as Obj
}
