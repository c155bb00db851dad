// A cluster as `xpk cluster create` leaves it, for the workload commands' in-process tests: the JobSet, Kueue
// Workload and LocalQueue kinds served (minimal CRDs that take any object), the resources ConfigMap, the LocalQueue
// `multislice-queue` and the five PriorityClasses (what a submitted JobSet refers to), and helpers to seed workloads with what JobSet and Kueue make for them (Jobs, pods, a Kueue Workload),
// tied to the JobSet by owner reference as the controllers tie them.
import {resolveAccelerator} from '../../src/core/catalog/lookup.js'
import type {Slicing} from '../../src/core/cluster/slicing.js'
import type {ClusterShape} from '../../src/core/incluster/cluster-shape.js'
import {clusterConfigMaps} from '../../src/core/incluster/configmaps.js'
import {kueueConfiguration} from '../../src/core/incluster/kueue.js'
import {priorityClasses} from '../../src/core/incluster/priority-classes.js'
import type {KubeObject} from '../../src/ports/kube.js'
import {MemoryKube, type MemoryKubeOptions} from '../fakes/memory-kube.js'

export const JOBSET_API = 'jobset.x-k8s.io/v1alpha2'

/**
 * A CRD serving `versions` (the first is the storage version) with a schema that takes any object: enough for the
 * fakes, which require a schema, when the real CRD is not at hand.
 */
export function crd(
  group: string,
  kind: string,
  plural: string,
  versions: string | readonly string[],
  scope: 'Namespaced' | 'Cluster',
) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {name: `${plural}.${group}`},
    spec: {
      group,
      scope,
      names: {kind, plural, listKind: `${kind}List`, singular: kind.toLowerCase()},
      versions: (typeof versions === 'string' ? [versions] : versions).map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        schema: {openAPIV3Schema: {type: 'object', 'x-kubernetes-preserve-unknown-fields': true}},
      })),
    },
  }
}

/** The JobSet CRD serving `versions`. */
export const jobSetCrdServing = (...versions: string[]) =>
  crd('jobset.x-k8s.io', 'JobSet', 'jobsets', versions, 'Namespaced')

export const JOBSET_CRD = jobSetCrdServing('v1alpha2')
export const KUEUE_WORKLOAD_CRD = crd('kueue.x-k8s.io', 'Workload', 'workloads', 'v1beta2', 'Namespaced')
export const LOCAL_QUEUE_CRD = crd('kueue.x-k8s.io', 'LocalQueue', 'localqueues', 'v1beta2', 'Namespaced')
export const RESOURCE_FLAVOR_CRD = crd('kueue.x-k8s.io', 'ResourceFlavor', 'resourceflavors', 'v1beta2', 'Cluster')
export const CLUSTER_QUEUE_CRD = crd('kueue.x-k8s.io', 'ClusterQueue', 'clusterqueues', 'v1beta2', 'Cluster')
export const NETWORK_PARAM_SET_CRD = crd(
  'networking.gke.io',
  'GKENetworkParamSet',
  'gkenetworkparamsets',
  'v1',
  'Cluster',
)

export interface ClusterOptions extends MemoryKubeOptions {
  /** The resources ConfigMap's data; null for a cluster without it. @default {'v5p-16': '8'} (4 slices) */
  readonly resources?: Record<string, string> | null
  /** GKENetworkParamSets to seed (name and deviceMode); the CRD is there whenever this is given. */
  readonly gpuNetworks?: ReadonlyArray<{name: string; deviceMode: string}>
  /** What `cluster create` would have made that this cluster lacks (each a reason a submit is refused). */
  readonly without?: readonly SetUpPart[]
  /** Made with `cluster create-pathways`: Kueue's cpu-user flavor is there. @default false */
  readonly pathways?: boolean
}

/** Kueue's `cpu-user` ResourceFlavor, as `cluster create-pathways` leaves it: a cluster set up for Pathways. */
export function pathwaysCpuFlavor(): KubeObject {
  return {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'ResourceFlavor',
    metadata: {name: 'cpu-user'},
    spec: {nodeLabels: {'cloud.google.com/gke-nodepool': 'cpu-np'}},
  }
}

/** The parts of a cluster's set-up a submitted JobSet refers to. */
export type SetUpPart = 'jobset-crd' | 'kueue-crds' | 'local-queue' | 'priority-classes'

/** The LocalQueue every JobSet names, as `cluster create` configures it (Kueue fills in its status). */
export function localQueue(status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'LocalQueue',
    metadata: {name: 'multislice-queue', namespace: 'default'},
    spec: {clusterQueue: 'cluster-queue'},
    ...(status ? {status} : {}),
  }
}

/**
 * What a submit needs besides the resources ConfigMap, for the e2e tests' and benchmarks' fakes too: the LocalQueue
 * kind and `multislice-queue`, and the five PriorityClasses (the JobSet CRD comes from the caller: real or minimal).
 */
export function submitReadyKueueObjects(): KubeObject[] {
  return [LOCAL_QUEUE_CRD as KubeObject, localQueue(), ...(priorityClasses() as unknown as KubeObject[])]
}

/** The resources ConfigMap `cluster create` writes for cluster `cluster`: VMs per device type. */
export function resourcesConfigMap(cluster: string, data: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {name: `${cluster}-resources-configmap`, namespace: 'default'},
    data,
  }
}

/** Cluster `demo`, set up by `cluster create` unless told otherwise. */
export function aWorkloadCluster(options: ClusterOptions = {}): MemoryKube {
  const kube = new MemoryKube(options)
  const without = new Set(options.without ?? [])
  if (!without.has('jobset-crd')) kube.seed(JOBSET_CRD)
  if (!without.has('kueue-crds')) {
    kube.seed(KUEUE_WORKLOAD_CRD)
    kube.seed(LOCAL_QUEUE_CRD)
    if (!without.has('local-queue')) kube.seed(localQueue())
  }
  if (!without.has('priority-classes'))
    for (const priority of priorityClasses()) kube.seed(priority as unknown as KubeObject)
  if (options.pathways) {
    kube.seed(RESOURCE_FLAVOR_CRD)
    kube.seed(pathwaysCpuFlavor())
  }
  const resources = options.resources === undefined ? {'v5p-16': '8'} : options.resources
  if (resources !== null) kube.seed(resourcesConfigMap('demo', resources))
  if (options.gpuNetworks !== undefined) {
    kube.seed(NETWORK_PARAM_SET_CRD)
    for (const network of options.gpuNetworks) {
      kube.seed({
        apiVersion: 'networking.gke.io/v1',
        kind: 'GKENetworkParamSet',
        metadata: {name: network.name},
        spec: {vpc: `${network.name}-vpc`, vpcSubnet: `${network.name}-subnet`, deviceMode: network.deviceMode},
      })
    }
  }
  return kube
}

/**
 * Seeds a running workload: its JobSet (applied by xpk), and what the controllers make for it, each owned by the one
 * above it: a Kueue Workload and one Job per slice owned by the JobSet, `podsPerJob` pods owned by each Job. Jobs
 * and pods carry the jobset-name label, as the JobSet controller sets it.
 */
export function seedWorkload(
  kube: MemoryKube,
  name: string,
  options: {slices?: number; podsPerJob?: number; ownedBy?: KubeObject} = {},
) {
  const {slices = 1, podsPerJob = 2, ownedBy} = options
  // An older xpk's PathwaysJob (ownedBy) is the JobSet's controller, as its controller makes it.
  const jobSetOwner =
    ownedBy === undefined
      ? {}
      : {
          ownerReferences: [
            {
              ...{apiVersion: ownedBy.apiVersion, kind: ownedBy.kind, name: ownedBy.metadata.name},
              ...{uid: ownedBy.metadata.uid, controller: true},
            },
          ],
        }
  kube.seed(
    {
      apiVersion: JOBSET_API,
      kind: 'JobSet',
      metadata: {name, namespace: 'default', labels: {'xpk.google.com/workload': name}, ...jobSetOwner},
      spec: {replicatedJobs: [{name: 'slice-job', replicas: slices}]},
    },
    {manager: 'xpk'},
  )
  const owner = (o: KubeObject, controller: boolean) => [
    {apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, controller},
  ]
  const jobSet = kube.peek({apiVersion: JOBSET_API, kind: 'JobSet', namespace: 'default', name})!
  const labels = {'jobset.sigs.k8s.io/jobset-name': name}
  kube.seed(
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'Workload',
      metadata: {name: `jobset-${name}-0a1b2`, namespace: 'default', ownerReferences: owner(jobSet, true)},
      spec: {queueName: 'multislice-queue'},
    },
    {manager: 'kueue'},
  )
  for (let slice = 0; slice < slices; slice++) {
    const jobName = `${name}-slice-job-${slice}`
    kube.seed(
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {name: jobName, namespace: 'default', labels, ownerReferences: owner(jobSet, true)},
      },
      {manager: 'jobset'},
    )
    const job = kube.peek({apiVersion: 'batch/v1', kind: 'Job', namespace: 'default', name: jobName})!
    for (let worker = 0; worker < podsPerJob; worker++) {
      kube.seed(
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: `${jobName}-${worker}-x${worker}y`,
            namespace: 'default',
            labels,
            ownerReferences: owner(job, true),
          },
          spec: {nodeName: `node-${slice}-${worker}`},
        },
        {manager: 'kube-controller-manager', status: {phase: 'Running'}},
      )
    }
  }
}

/** Names of the stored objects of a kind (no request logged). */
export function namesOf(kube: MemoryKube, kind: string): string[] {
  return kube.all(kind).map((o) => o.metadata.name)
}

/** Kueue's Topology kind (cluster-scoped), as a minimal CRD. */
export const TOPOLOGY_CRD = crd('kueue.x-k8s.io', 'Topology', 'topologies', 'v1beta2', 'Cluster')

/**
 * What `cluster create --sub-slicing` or `--super-slicing` leaves for the workloads of cluster `demo` of `slices`
 * slices of `tpuType`: the resources ConfigMap's data, and Kueue's Topology of it, both made by the cluster side's
 * builders (so a workload looks for the names `cluster create` writes).
 */
export function slicedCluster(
  slicing: Slicing,
  tpuType: string,
  slices: number,
): {readonly resources: Record<string, string>; readonly topology: KubeObject} {
  const shape: ClusterShape = {
    clusterName: 'demo',
    accelerator: resolveAccelerator({tpuType}),
    numSlices: slices,
    numNodes: 0,
    capacity: 'reservation',
    reservation: 'dense-reservation',
    slicing,
  }
  const topology = kueueConfiguration(shape, {topologyAwareScheduling: false}).topology!
  const resources = clusterConfigMaps(shape, {xpkVersion: '1.0.0'}).resources.data as Record<string, string>
  return {resources, topology: topology as unknown as KubeObject}
}
