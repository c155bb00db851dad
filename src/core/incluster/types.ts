/**
 * The Kueue objects xpk configures on a cluster, typed as far as xpk fills them in (kueue.x-k8s.io/v1beta2, the
 * storage version of Kueue v0.17.1). Core objects (ConfigMap, PriorityClass, DaemonSet, RBAC) are typed in
 * ../manifests/k8s-types.ts. Field order is the order the builders emit, which is the order the YAML shows.
 */
import type {
  ConfigMap,
  DaemonSet,
  NamedObjectMeta,
  NamespacedObjectMeta,
  PriorityClass,
  Role,
  RoleBinding,
  ServiceAccount,
} from '../manifests/k8s-types.js'

/** The nodes a flavor stands for, and optionally the topology Kueue places pods in on them. */
export interface ResourceFlavor {
  readonly apiVersion: string
  readonly kind: 'ResourceFlavor'
  readonly metadata: NamedObjectMeta
  readonly spec: {
    /** Labels the flavor's nodes carry; Kueue adds them to the pods it admits as a node selector. */
    readonly nodeLabels?: Readonly<Record<string, string>>
    readonly topologyName?: string
  }
}

/** A quota: `nominalQuota` of resource `name`. Whole numbers are written as integers, as Python xpk does. */
export interface ResourceQuota {
  readonly name: string
  readonly nominalQuota: number | string
}

export interface ResourceGroup {
  readonly coveredResources: readonly string[]
  readonly flavors: readonly {readonly name: string; readonly resources: readonly ResourceQuota[]}[]
}

export interface ClusterQueue {
  readonly apiVersion: string
  readonly kind: 'ClusterQueue'
  readonly metadata: NamedObjectMeta
  readonly spec: {
    readonly preemption: {
      readonly reclaimWithinCohort: 'Never' | 'LowerPriority' | 'Any'
      readonly withinClusterQueue: 'Never' | 'LowerPriority' | 'LowerOrNewerEqualPriority'
    }
    /** `{}` admits workloads from every namespace (a missing selector admits none). */
    readonly namespaceSelector: Readonly<Record<string, never>>
    readonly resourceGroups: readonly ResourceGroup[]
    /** v1beta2's form of v1beta1 `admissionChecks`: a check without `onFlavors` applies to every flavor. */
    readonly admissionChecksStrategy?: {readonly admissionChecks: readonly {readonly name: string}[]}
  }
}

export interface LocalQueue {
  readonly apiVersion: string
  readonly kind: 'LocalQueue'
  readonly metadata: NamespacedObjectMeta
  readonly spec: {readonly clusterQueue: string}
}

/** A check Kueue runs before admitting a workload; xpk uses the provisioning-request one for DWS flex GPUs. */
export interface AdmissionCheck {
  readonly apiVersion: string
  readonly kind: 'AdmissionCheck'
  readonly metadata: NamedObjectMeta
  readonly spec: {
    readonly controllerName: string
    /** Absent for controllers that take none (GKE's slice controller). */
    readonly parameters?: {readonly apiGroup: string; readonly kind: string; readonly name: string}
  }
}

/** How Kueue asks the cluster autoscaler for nodes (GKE queued provisioning, the Dynamic Workload Scheduler). */
export interface ProvisioningRequestConfig {
  readonly apiVersion: string
  readonly kind: 'ProvisioningRequestConfig'
  readonly metadata: NamedObjectMeta
  readonly spec: {
    readonly provisioningClassName: string
    readonly podSetUpdates: {
      readonly nodeSelector: readonly {readonly key: string; readonly valueFromProvisioningClassDetail: string}[]
    }
    readonly managedResources: readonly string[]
  }
}

/** The levels (node labels, widest first, `kubernetes.io/hostname` last) topology-aware scheduling packs by. */
export interface Topology {
  readonly apiVersion: string
  readonly kind: 'Topology'
  readonly metadata: NamedObjectMeta
  readonly spec: {readonly levels: readonly {readonly nodeLabel: string}[]}
}

export type KueueObject =
  ResourceFlavor | ClusterQueue | LocalQueue | AdmissionCheck | ProvisioningRequestConfig | Topology

/**
 * GKE multi-networking's description of a GPU network (networking.gke.io/v1, cluster-scoped): a `Network` that pods
 * name in their `networking.gke.io/interfaces` annotation, and the `GKENetworkParamSet` it refers to (the VPC and
 * subnetwork). See src/core/cluster/gpu-networks.ts.
 */
export interface GkeNetworkObject {
  readonly apiVersion: 'networking.gke.io/v1'
  readonly kind: 'Network' | 'GKENetworkParamSet'
  readonly metadata: NamedObjectMeta
  readonly spec: Readonly<Record<string, unknown>>
}

/** Every object this module builds for a cluster. */
export type InClusterObject =
  KueueObject | PriorityClass | ConfigMap | DaemonSet | ServiceAccount | Role | RoleBinding | GkeNetworkObject

/**
 * A strategic-merge patch of a controller Deployment: what `kubectl patch --type=strategic` sends. Containers are
 * merged by name, so the patch touches only the container it names.
 */
export interface DeploymentPatch {
  readonly namespace: string
  readonly name: string
  readonly patchType: 'strategic'
  readonly body: {
    readonly spec: {
      /** Controller replicas, when the sizing sets them (super-slicing: Kueue runs 3). */
      readonly replicas?: number
      readonly template: {
        readonly spec: {
          readonly containers: readonly {
            readonly name: string
            readonly resources: {
              readonly requests?: Readonly<Record<string, string>>
              readonly limits?: Readonly<Record<string, string>>
            }
          }[]
        }
      }
    }
  }
  /** One line for the plan, e.g. `size Kueue's controller for 70 nodes: cpu 2, memory 4096Mi`. */
  readonly reason: string
}
