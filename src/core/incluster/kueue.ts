/**
 * The Kueue configuration `cluster create` applies after installing Kueue, as Python xpk's `kueue_config.yaml.j2`
 * (+ Topology) renders it, in Kueue's storage version (kueue.x-k8s.io/v1beta2, which v0.17.1 serves for every
 * kind used here; Python still writes the deprecated v1beta1).
 *
 * Objects, in apply order:
 *   - Topology `gke-default`: GPU clusters where topology-aware scheduling is possible (see topology-aware.ts).
 *   - ResourceFlavor `<slices>x<type>`: the accelerator's node labels (TPU: accelerator and topology, or the
 *     accelerator alone with node auto-provisioning; GPU: accelerator; CPU: none, so CPU workloads may land on any
 *     node, as in Python), naming the Topology if any.
 *   - ProvisioningRequestConfig `dws-config`: always, as Python does (unused without the admission check).
 *   - AdmissionCheck `dws-prov`: single-slice GPU clusters on flex capacity, whose pool uses queued provisioning.
 *   - ClusterQueue `cluster-queue`: the whole cluster as one quota (with node auto-provisioning, its maximum chips),
 *     preempting lower priorities within itself.
 *   - LocalQueue `multislice-queue` in `default`, which every JobSet names.
 *   - The five PriorityClasses.
 *
 * Sub- and super-slicing (slicing.ts): the Topology `sub-slice-topology` (the sub-slice levels that fit the
 * cluster's topology) or `super-slice-topology` (block, 4x4x4 partition, host), named by the flavor; a super-slicing
 * flavor matches the accelerator only (GKE's slice controller joins cubes into larger topologies), and its
 * ClusterQueue waits for the `ss-kueue-operator` admission check of the slice controller.
 *
 * Pathways clusters (`cluster create-pathways`, and any cluster that has its `cpu-np` pool): the ResourceFlavor
 * `cpu-user` (nodes of pool `cpu-np`) and a second resource group of the ClusterQueue giving it Python's quota, 480
 * cpu and 2000G memory, which Pathways heads are admitted against.
 *
 * Left out: Cluster Toolkit's controller toleration is a Deployment patch, not configuration.
 */
import {KIND_TRAITS} from '../catalog/types.js'
import {PATHWAYS_CPU_FLAVOR, PATHWAYS_CPU_POOL} from '../workload/pathways.js'
import type {PriorityClass} from '../manifests/k8s-types.js'
import {CLUSTER_QUEUE_NAME, KUEUE_API_GROUP, KUEUE_API_VERSION, LOCAL_QUEUE_NAME} from '../versions.js'
import type {ClusterShape} from './cluster-shape.js'
import {quotaResource, resourceFlavorName, totalQuota} from './cluster-shape.js'
import {XPK_NAMESPACE} from './namespace.js'
import {priorityClasses} from './priority-classes.js'
import {
  SUB_SLICE_TOPOLOGY_NAME,
  subSlicingTopologyLevels,
  SUPER_SLICE_TOPOLOGY_NAME,
  SUPER_SLICING_ADMISSION_CHECK,
  SUPER_SLICING_CONTROLLER_NAME,
  SUPER_SLICING_TOPOLOGY_LEVELS,
} from '../cluster/slicing.js'
import type {
  AdmissionCheck,
  ClusterQueue,
  InClusterObject,
  LocalQueue,
  ProvisioningRequestConfig,
  ResourceFlavor,
  Topology,
} from './types.js'

/** Topology of GKE's GPU node labels, for topology-aware scheduling. */
export const GKE_DEFAULT_TOPOLOGY_NAME = 'gke-default'
export const DWS_ADMISSION_CHECK_NAME = 'dws-prov'
export const DWS_PROVISIONING_CONFIG_NAME = 'dws-config'

/** GKE's network-topology node labels, widest first; Kueue requires the hostname level last. */
const GKE_DEFAULT_TOPOLOGY_LEVELS = [
  'cloud.google.com/gce-topology-block',
  'cloud.google.com/gce-topology-subblock',
  'cloud.google.com/gce-topology-host',
  'kubernetes.io/hostname',
]

export interface KueueOptions {
  /** Topology-aware scheduling is possible on this cluster (see `topologyAwareSchedulingPossible`). */
  readonly topologyAwareScheduling: boolean
}

/** Every object of a cluster's Kueue configuration; null where the cluster needs none. */
export interface KueueConfiguration {
  readonly topology: Topology | null
  readonly resourceFlavor: ResourceFlavor
  /** Pathways clusters: `cpu-user`, the heads' CPU pool. */
  readonly pathwaysFlavor: ResourceFlavor | null
  readonly provisioningRequestConfig: ProvisioningRequestConfig
  readonly admissionCheck: AdmissionCheck | null
  readonly clusterQueue: ClusterQueue
  readonly localQueue: LocalQueue
  readonly priorityClasses: readonly PriorityClass[]
}

/** The Kueue configuration of a cluster of `shape`. */
export function kueueConfiguration(shape: ClusterShape, options: KueueOptions): KueueConfiguration {
  const topology =
    options.topologyAwareScheduling && shape.accelerator.kind === 'GPU' ? gkeDefaultTopology() : slicingTopology(shape)
  const resourceFlavor = buildResourceFlavor(shape, topology?.metadata.name)
  const admissionCheck =
    shape.slicing === 'super'
      ? superSlicingAdmissionCheck()
      : usesQueuedProvisioning(shape)
        ? dwsAdmissionCheck()
        : null
  return {
    topology,
    resourceFlavor,
    pathwaysFlavor: shape.pathways ? pathwaysFlavor() : null,
    provisioningRequestConfig: dwsProvisioningRequestConfig(quotaResource(shape)),
    admissionCheck,
    clusterQueue: buildClusterQueue(shape, resourceFlavor.metadata.name, admissionCheck?.metadata.name),
    localQueue: buildLocalQueue(),
    priorityClasses: priorityClasses(),
  }
}

/**
 * The configuration as a list in apply order: every object after those it names. (Python applies the AdmissionCheck
 * before its ProvisioningRequestConfig; a check whose parameters do not exist yet stays inactive until they do.)
 */
export function kueueConfigurationObjects(config: KueueConfiguration): InClusterObject[] {
  return [
    ...(config.topology ? [config.topology] : []),
    config.resourceFlavor,
    ...(config.pathwaysFlavor ? [config.pathwaysFlavor] : []),
    config.provisioningRequestConfig,
    ...(config.admissionCheck ? [config.admissionCheck] : []),
    config.clusterQueue,
    config.localQueue,
    ...config.priorityClasses,
  ]
}

type KueueObject = ResourceFlavor | ClusterQueue | LocalQueue | Topology | AdmissionCheck | ProvisioningRequestConfig

/** A Kueue object of {@link KUEUE_API_VERSION}, its fields in the order the builders emit (and the YAML shows). */
function kueueObject<T extends KueueObject>(kind: T['kind'], metadata: T['metadata'], spec: T['spec']): T {
  return {apiVersion: KUEUE_API_VERSION, kind, metadata, spec} as T
}

/** GPU flex pools of a single-slice cluster are created with queued provisioning (Dynamic Workload Scheduler). */
function usesQueuedProvisioning(shape: ClusterShape): boolean {
  return shape.capacity === 'flex' && shape.accelerator.kind === 'GPU' && shape.numSlices <= 1
}

/** The node labels every node of the cluster's accelerator pools carries. */
export function flavorNodeLabels(shape: ClusterShape): Readonly<Record<string, string>> {
  const a = shape.accelerator
  const traits = KIND_TRAITS[a.kind]
  if (traits.acceleratorLabel === null || a.gkeAccelerator === null) return {}
  // With node auto-provisioning the flavor names the accelerator alone, as Python's: slices of any topology count.
  const topology = traits.topologyLabel !== null && a.topology !== null && !shape.autoprovisioning
  return {
    [traits.acceleratorLabel]: a.gkeAccelerator,
    ...(topology ? {[traits.topologyLabel!]: a.topology!} : {}),
  }
}

function buildResourceFlavor(shape: ClusterShape, topologyName: string | undefined): ResourceFlavor {
  // A super-slice spans cubes of one topology into larger ones: the flavor matches the accelerator only.
  const nodeLabels =
    shape.slicing === 'super' ? acceleratorLabelOnly(shape, flavorNodeLabels(shape)) : flavorNodeLabels(shape)
  return kueueObject(
    'ResourceFlavor',
    {name: resourceFlavorName(shape)},
    {
      // Absent rather than `{}` for CPU: nothing to match, and the stored object then equals ours.
      ...(Object.keys(nodeLabels).length > 0 ? {nodeLabels} : {}),
      ...(topologyName === undefined ? {} : {topologyName}),
    },
  )
}

function buildClusterQueue(shape: ClusterShape, flavor: string, admissionCheck: string | undefined): ClusterQueue {
  const resource = quotaResource(shape)
  // `--cpu-limit` / `--memory-limit`, after the accelerator's quota as Python lists them. (CPU types count vCPUs
  // already: `--cpu-limit` is refused for them, since a second `cpu` is a ClusterQueue Kueue does not accept.)
  const limits = [
    ...(shape.cpuQuota != null && resource !== 'cpu' ? [{name: 'cpu', nominalQuota: shape.cpuQuota}] : []),
    ...(shape.memoryQuota != null ? [{name: 'memory', nominalQuota: shape.memoryQuota}] : []),
  ]
  const main = {name: resource, nominalQuota: totalQuota(shape)}
  return kueueObject(
    'ClusterQueue',
    {name: CLUSTER_QUEUE_NAME},
    {
      // Never reclaim from other queues of a cohort (xpk's queue has none); within the queue, a higher-priority
      // workload may evict lower-priority ones.
      preemption: {reclaimWithinCohort: 'Never', withinClusterQueue: 'LowerPriority'},
      namespaceSelector: {},
      resourceGroups: [
        {
          coveredResources: [resource, ...limits.map((l) => l.name)],
          flavors: [{name: flavor, resources: [main, ...limits]}],
        },
        ...(shape.pathways ? [PATHWAYS_RESOURCE_GROUP] : []),
      ],
      ...(admissionCheck === undefined ? {} : {admissionChecksStrategy: {admissionChecks: [{name: admissionCheck}]}}),
    },
  )
}

/** The Pathways heads' flavor, as Python xpk's: the nodes of the `cpu-np` pool. */
function pathwaysFlavor(): ResourceFlavor {
  return kueueObject(
    'ResourceFlavor',
    {name: PATHWAYS_CPU_FLAVOR},
    {nodeLabels: {[NODE_POOL_LABEL]: PATHWAYS_CPU_POOL}},
  )
}

/** Python xpk's quota of the heads' pool: 480 cpu and 2000G memory (the pool scales to 20 nodes). */
const PATHWAYS_RESOURCE_GROUP = {
  coveredResources: ['cpu', 'memory'],
  flavors: [
    {
      name: PATHWAYS_CPU_FLAVOR,
      resources: [
        {name: 'cpu', nominalQuota: 480},
        {name: 'memory', nominalQuota: '2000G'},
      ],
    },
  ],
}

const NODE_POOL_LABEL = 'cloud.google.com/gke-nodepool'

function buildLocalQueue(): LocalQueue {
  return kueueObject(
    'LocalQueue',
    {name: LOCAL_QUEUE_NAME, namespace: XPK_NAMESPACE},
    {clusterQueue: CLUSTER_QUEUE_NAME},
  )
}

function gkeDefaultTopology(): Topology {
  return kueueObject(
    'Topology',
    {name: GKE_DEFAULT_TOPOLOGY_NAME},
    {levels: GKE_DEFAULT_TOPOLOGY_LEVELS.map((nodeLabel) => ({nodeLabel}))},
  )
}

function acceleratorLabelOnly(
  shape: ClusterShape,
  labels: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  const topologyLabel = KIND_TRAITS[shape.accelerator.kind].topologyLabel
  return Object.fromEntries(Object.entries(labels).filter(([key]) => key !== topologyLabel))
}

/** The Topology of a sub- or super-slicing cluster, or null for neither. */
function slicingTopology(shape: ClusterShape): Topology | null {
  if (shape.slicing === 'sub' && shape.accelerator.topology !== null) {
    return kueueObject<Topology>(
      'Topology',
      {name: SUB_SLICE_TOPOLOGY_NAME},
      {levels: subSlicingTopologyLevels(shape.accelerator.topology).map((nodeLabel) => ({nodeLabel}))},
    )
  }
  if (shape.slicing === 'super') {
    return kueueObject<Topology>(
      'Topology',
      {name: SUPER_SLICE_TOPOLOGY_NAME},
      {levels: SUPER_SLICING_TOPOLOGY_LEVELS.map((nodeLabel) => ({nodeLabel}))},
    )
  }
  return null
}

/** GKE's slice controller forms the super-slice a workload asks for before Kueue admits it. */
function superSlicingAdmissionCheck(): AdmissionCheck {
  return kueueObject<AdmissionCheck>(
    'AdmissionCheck',
    {name: SUPER_SLICING_ADMISSION_CHECK},
    {controllerName: SUPER_SLICING_CONTROLLER_NAME},
  )
}

function dwsAdmissionCheck(): AdmissionCheck {
  return kueueObject(
    'AdmissionCheck',
    {name: DWS_ADMISSION_CHECK_NAME},
    {
      controllerName: 'kueue.x-k8s.io/provisioning-request',
      parameters: {apiGroup: KUEUE_API_GROUP, kind: 'ProvisioningRequestConfig', name: DWS_PROVISIONING_CONFIG_NAME},
    },
  )
}

/**
 * GKE queued provisioning: Kueue creates a ProvisioningRequest per workload and, once GKE has resized the pool,
 * pins the workload's pods to the nodes of that resize request by its name.
 */
function dwsProvisioningRequestConfig(resource: string): ProvisioningRequestConfig {
  return kueueObject(
    'ProvisioningRequestConfig',
    {name: DWS_PROVISIONING_CONFIG_NAME},
    {
      provisioningClassName: 'queued-provisioning.gke.io',
      podSetUpdates: {
        nodeSelector: [
          {key: 'autoscaling.gke.io/provisioning-request', valueFromProvisioningClassDetail: 'ResizeRequestName'},
        ],
      },
      managedResources: [resource],
    },
  )
}
