import type {Capacity, CsiDriver, HostMaintenanceInterval, ResourceLimit, WorkloadMetadataMode} from './spec.js'

/** What GKE reports, reduced to what xpk compares and shows (adapters map API messages to these). */

export type ClusterStatus = 'PROVISIONING' | 'RUNNING' | 'RECONCILING' | 'STOPPING' | 'ERROR' | 'DEGRADED' | 'UNKNOWN'
export type NodePoolStatus =
  'PROVISIONING' | 'RUNNING' | 'RUNNING_WITH_ERROR' | 'RECONCILING' | 'STOPPING' | 'ERROR' | 'UNKNOWN'

/** A node pool as GKE reports it, reduced to what xpk compares and shows. */
export interface ObservedNodePool {
  readonly name: string
  readonly status: NodePoolStatus
  readonly statusMessage: string
  readonly machineType: string
  /** Nodes per zone GKE was asked for (initialNodeCount). */
  readonly nodeCount: number
  readonly locations: readonly string[]
  readonly version: string
  readonly tpuTopology: string | null
  readonly placementType: 'COMPACT' | null
  readonly placementPolicyName: string | null
  readonly capacity: Capacity
  readonly reservation: string | null
  readonly gpu: {readonly type: string; readonly count: number} | null
  readonly autoscaling: {readonly enabled: boolean; readonly minNodes: number; readonly maxNodes: number} | null
  /** GKE_METADATA when its pods get Workload Identity; null when GKE does not say. */
  readonly workloadMetadataMode: WorkloadMetadataMode | null
  /** The networks of its additional node network configs, in order (absent: none). */
  readonly additionalNodeNetworks?: readonly string[]
  /**
   * The host maintenance interval (`config.hostMaintenancePolicy`, GKE's v1beta1 API only): AS_NEEDED when the pool
   * has none, as GKE maintains it then. Absent when the pool was read through v1, which does not report it.
   */
  readonly hostMaintenanceInterval?: HostMaintenanceInterval
}

/** A cluster as GKE reports it. */
export interface ObservedCluster {
  readonly project: string
  readonly name: string
  readonly location: string
  readonly status: ClusterStatus
  readonly statusMessage: string
  readonly version: string
  readonly nodeLocations: readonly string[]
  /** The control plane's IP endpoint (host, or host:port for the local stand-in). */
  readonly endpoint: string
  /** The DNS-based control-plane endpoint, when the cluster has one (`cluster create` enables it). */
  readonly dnsEndpoint: string | null
  /** The cluster CA certificate, base64-encoded PEM as GKE hands it out; needed to trust the IP endpoint. */
  readonly caCertificate: string | null
  readonly releaseChannel: string | null
  readonly privateNodes: boolean
  readonly labels: Readonly<Record<string, string>>
  /** GKE's fingerprint of `labels`: SetLabels must name it, so labels changed since they were read are not overwritten. */
  readonly labelFingerprint: string
  /** The CSI driver addons that are enabled, in the order of CSI_DRIVERS. */
  readonly csiDrivers: readonly CsiDriver[]
  /** Whether the Lustre CSI driver uses its legacy port (6988). */
  readonly lustreLegacyPort: boolean
  /** GKE's slice controller addon (super-slicing): true when on, absent otherwise. */
  readonly sliceController?: boolean
  /** GKE's Ray operator addon (`cluster create-ray`): true when on, absent otherwise. */
  readonly rayOperator?: boolean
  /** The Workload Identity pool (`P.svc.id.goog`), or null when Workload Identity is off. */
  readonly workloadPool: string | null
  /** The VPC network the cluster's nodes are on (its name, like `default`): a Filestore instance must be on it too. */
  readonly network: string
  /** Node auto-provisioning (GKE's cluster autoscaling), or null when it is off. */
  readonly autoprovisioning: ObservedAutoprovisioning | null
  readonly nodePools: readonly ObservedNodePool[]
}

/** What GKE reports of node auto-provisioning, reduced to what `cluster create` compares. */
export interface ObservedAutoprovisioning {
  readonly resourceLimits: readonly ResourceLimit[]
  readonly locations: readonly string[]
}

/** Versions GKE offers in a location. */
export interface ServerConfig {
  readonly defaultVersion: string
  readonly validMasterVersions: readonly string[]
  readonly validNodeVersions: readonly string[]
  readonly channels: Readonly<
    Record<string, {readonly defaultVersion: string; readonly validVersions: readonly string[]}>
  >
}
