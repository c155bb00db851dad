// What GKE's Ray operator addon puts in a cluster, for the tests of `cluster create-ray`: KubeRay's RayCluster CRD
// (v1.7.0's when found, see crds.ts; else a stand-in that serves the kind without a schema), and nodes to size the
// RayCluster from.
import type {KubeObject} from '../../src/core/kube/release-manifest.js'
import {RAY_CLUSTER_CRD} from './crds.js'

/** KubeRay's RayCluster CRD, as the addon installs it. */
export function kubeRayCrd(): KubeObject {
  return structuredClone(RAY_CLUSTER_CRD ?? RAY_CLUSTER_CRD_STAND_IN)
}

const RAY_CLUSTER_CRD_STAND_IN = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {name: 'rayclusters.ray.io'},
  spec: {
    group: 'ray.io',
    names: {kind: 'RayCluster', listKind: 'RayClusterList', plural: 'rayclusters', singular: 'raycluster'},
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {openAPIV3Schema: {type: 'object', 'x-kubernetes-preserve-unknown-fields': true}},
      },
    ],
  },
} as unknown as KubeObject

/** A fake Kubernetes API (memory or wire) that nodes are seeded into, their status set as the kubelet's. */
interface NodeSeeding {
  seed(object: never): unknown
  setStatus(ref: {apiVersion: string; kind: string; name: string}, status: never): unknown
}

/** Seeds {@link rayNodes} into `kube`, with their status (allocatable, Ready), which seeding alone does not keep. */
export function seedRayNodes(kube: NodeSeeding, tpuPool?: string): void {
  for (const node of rayNodes(tpuPool)) {
    kube.seed(node as never)
    const {status} = node as unknown as {status: unknown}
    kube.setStatus({apiVersion: 'v1', kind: 'Node', name: node.metadata.name}, status as never)
  }
}

/**
 * One node of the default CPU pool (e2-standard-16) and one v5p TPU node (ct5p-hightpu-4t) of pool `tpuPool`, with
 * their allocatable CPU and memory as the kubelet reports them.
 */
export function rayNodes(tpuPool = 'demo-np-0'): KubeObject[] {
  const node = (name: string, labels: Record<string, string>, cpu: string, memory: string) =>
    ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name, labels: {...labels, 'kubernetes.io/hostname': name}},
      status: {
        allocatable: {cpu, memory},
        conditions: [{type: 'Ready', status: 'True', reason: 'KubeletReady'}],
      },
    }) as unknown as KubeObject
  return [
    node('gke-demo-default-pool-1', {'cloud.google.com/gke-nodepool': 'default-pool'}, '15890m', '60055592Ki'),
    node(
      'gke-demo-np-0-1',
      {
        'cloud.google.com/gke-nodepool': tpuPool,
        'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice',
        'cloud.google.com/gke-tpu-topology': '2x2x2',
      },
      '207',
      '462542412Ki',
    ),
  ]
}

/**
 * The status KubeRay v1 writes on a RayCluster named `raycluster` (fields of v1.7.0's CRD): its state, the worker
 * replicas over every group, the head's pod and service, the head service's ports by name, and the conditions.
 */
export function kubeRayStatus(
  given: {state?: string; readyWorkers?: number; desiredWorkers?: number; headReady?: boolean} = {},
): Record<string, unknown> {
  const {state = 'ready', readyWorkers = 2, desiredWorkers = 2, headReady = true} = given
  const at = '2026-01-05T10:00:00Z'
  return {
    state,
    desiredWorkerReplicas: desiredWorkers,
    readyWorkerReplicas: readyWorkers,
    availableWorkerReplicas: readyWorkers,
    minWorkerReplicas: desiredWorkers,
    maxWorkerReplicas: desiredWorkers,
    desiredCPU: '15',
    desiredMemory: '60Gi',
    desiredTPU: '8',
    endpoints: {client: '10001', dashboard: '8265', 'gcs-server': '6379', metrics: '8080', multislice: '8081'},
    head: {
      podIP: '10.8.0.12',
      podName: 'raycluster-head-x7k2p',
      serviceIP: '34.118.230.17',
      serviceName: 'raycluster-head-svc',
    },
    conditions: [
      {
        type: 'HeadPodReady',
        status: headReady ? 'True' : 'False',
        reason: headReady ? 'HeadPodRunningAndReady' : 'HeadPodNotFound',
        message: '',
        lastTransitionTime: at,
      },
      {
        type: 'RayClusterProvisioned',
        status: 'True',
        reason: 'AllPodRunningAndReadyFirstTime',
        message: '',
        lastTransitionTime: at,
      },
    ],
    lastUpdateTime: at,
    observedGeneration: 1,
  }
}
