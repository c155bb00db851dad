/**
 * What `xpk cluster create` wants to exist, in GKE's terms but free of SDK types. The adapter maps these to
 * ClusterManager API messages; the planner compares them with what exists.
 */

/** How node-pool VMs are obtained. Exactly one per run (`--on-demand | --spot | --reservation | --flex`). */
export type Capacity = 'on-demand' | 'spot' | 'reservation' | 'flex'

export const CAPACITIES: readonly Capacity[] = ['on-demand', 'spot', 'reservation', 'flex']

/**
 * The CSI drivers GKE runs as cluster addons, by gcloud's names for them (`--update-addons GcsFuseCsiDriver=ENABLED`),
 * in the order Python xpk lists them: Cloud Storage FUSE, Filestore, Parallelstore, Persistent Disk, Lustre.
 */
export const CSI_DRIVERS = [
  'GcsFuseCsiDriver',
  'GcpFilestoreCsiDriver',
  'ParallelstoreCsiDriver',
  'GcePersistentDiskCsiDriver',
  'LustreCsiDriver',
] as const

export type CsiDriver = (typeof CSI_DRIVERS)[number]

/** How a node pool's pods reach the metadata server: GKE's (Workload Identity) or the VM's. */
export type WorkloadMetadataMode = 'GKE_METADATA' | 'GCE_METADATA'

/** The Workload Identity pool of a project: GKE accepts only this one. */
export function workloadPoolOf(project: string): string {
  return `${project}.svc.id.goog`
}

/**
 * One change to an existing cluster, as one UpdateCluster request: GKE applies one change per request (and refuses
 * a request while another operation runs on the cluster), so addons and Workload Identity are two requests.
 */
export type ClusterUpdate =
  | {
      readonly kind: 'addons'
      /** Addons to enable; the others are left as they are. */
      readonly enable: readonly CsiDriver[]
      /** With LustreCsiDriver: its legacy port (6988), for nodes older than GKE 1.33.2-gke.4655000. */
      readonly lustreLegacyPort: boolean
    }
  | {readonly kind: 'workloadIdentity'; readonly workloadPool: string}
  | {
      readonly kind: 'autoprovisioning'
      /** The whole of GKE's cluster autoscaling: node auto-provisioning with its limits, and the profile it keeps. */
      readonly autoprovisioning: AutoprovisioningSpec
      readonly autoscalingProfile: 'OPTIMIZE_UTILIZATION' | 'BALANCED'
    }
  /** GKE's Ray operator addon (KubeRay, for `cluster create-ray`): `addonsConfig.rayOperatorConfig.enabled`. */
  | {readonly kind: 'rayOperator'}

/** One change to an existing node pool, as one UpdateNodePool request (GKE recreates the pool's nodes for it). */
export interface NodePoolUpdate {
  readonly workloadMetadataMode: WorkloadMetadataMode
}

/** Where slices are placed: compact TPU placement, or a named GCE workload policy. */
export type PlacementPolicy =
  | {readonly type: 'compact'; readonly tpuTopology: string}
  | {
      readonly type: 'workload-policy'
      readonly name: string
      readonly topology: string
      /** PROVISION_ONLY for super-slicing: the policy places the cube's VMs; GKE's slice controller forms slices. */
      readonly mode?: 'PROVISION_ONLY'
    }

/**
 * A GCE workload policy (a resource policy of type workloadPolicy, HIGH_THROUGHPUT) that node pools of types like
 * multi-host tpu7x and gb200 name as their placement policy. It lives in the cluster's region.
 */
export interface WorkloadPolicySpec {
  readonly project: string
  readonly region: string
  /** e.g. `tpu7x-16-2x2x2-placement-policy` */
  readonly name: string
  /** e.g. `2x2x2` */
  readonly acceleratorTopology: string
  /** `PROVISION_ONLY` for super-slicing pools (gcloud's --accelerator-topology-mode); absent: the API's default. */
  readonly acceleratorTopologyMode?: 'PROVISION_ONLY'
}

/** A node taint. */
export interface Taint {
  readonly key: string
  readonly value: string
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute'
}

/** Node-pool fields set through `--custom-nodepool-arguments`, already mapped to API meaning. */
export interface CustomNodePoolFields {
  readonly labels?: Readonly<Record<string, string>>
  readonly taints?: readonly Taint[]
  readonly tags?: readonly string[]
  readonly metadata?: Readonly<Record<string, string>>
  readonly diskType?: string
  readonly diskSizeGb?: number
  readonly imageType?: string
  readonly serviceAccount?: string
  readonly minCpuPlatform?: string
  readonly workloadMetadataMode?: WorkloadMetadataMode
  readonly autoUpgrade?: boolean
  readonly autoRepair?: boolean
  readonly gvnic?: boolean
  readonly maxPodsPerNode?: number
}

/**
 * How GKE schedules host maintenance of a pool's VMs (`--host-maintenance-interval`): AS_NEEDED, or PERIODIC (in
 * windows; a specific reservation's VMs must have the same interval). Python xpk sends it with every node pool,
 * AS_NEEDED unless asked; the field is in GKE's v1beta1 API only.
 */
export type HostMaintenanceInterval = 'AS_NEEDED' | 'PERIODIC'

export const HOST_MAINTENANCE_INTERVALS: readonly HostMaintenanceInterval[] = ['AS_NEEDED', 'PERIODIC']

/** One limit of node auto-provisioning: a resource (`cpu`, `memory` in GB, or a TPU type such as `tpu7x`). */
export interface ResourceLimit {
  readonly resourceType: string
  readonly minimum: number
  readonly maximum: number
}

/**
 * Node auto-provisioning (GKE's ClusterAutoscaling), as Python xpk's autoprovisioning config file sets it: the
 * resource limits (cpu and memory generous, the TPU type between the minimum and maximum chips), the defaults of
 * the pools GKE provisions (scopes, auto-repair and auto-upgrade; the service account left to GKE's default) and
 * the zone they may go in.
 */
export interface AutoprovisioningSpec {
  readonly resourceLimits: readonly ResourceLimit[]
  readonly oauthScopes: readonly string[]
  readonly management: {readonly autoRepair: boolean; readonly autoUpgrade: boolean}
  readonly locations: readonly string[]
}

/** Cluster fields set through `--custom-cluster-arguments`, already mapped to API meaning. */
export interface CustomClusterFields {
  readonly network?: string
  readonly subnetwork?: string
  /** With private nodes: the control plane's /28 (`--master-ipv4-cidr`). */
  readonly masterIpv4Cidr?: string
  /** `--no-enable-master-authorized-networks`: a private cluster's control plane open to every address. */
  readonly masterAuthorizedNetworksOff?: boolean
  readonly clusterIpv4Cidr?: string
  readonly servicesIpv4Cidr?: string
  readonly clusterSecondaryRangeName?: string
  readonly servicesSecondaryRangeName?: string
  readonly defaultMaxPodsPerNode?: number
  readonly description?: string
  readonly labels?: Readonly<Record<string, string>>
  readonly enableShieldedNodes?: boolean
  readonly enableIntraNodeVisibility?: boolean
  readonly enableL4IlbSubsetting?: boolean
  readonly loggingComponents?: readonly string[]
  readonly monitoringComponents?: readonly string[]
  readonly enableManagedPrometheus?: boolean
  readonly maintenanceWindowStart?: string
  readonly databaseEncryptionKey?: string
  readonly imageType?: string
  readonly diskType?: string
  readonly diskSizeGb?: number
  readonly serviceAccount?: string
  readonly tags?: readonly string[]
  readonly enableImageStreaming?: boolean
  readonly enableCostAllocation?: boolean
  readonly securityGroup?: string
  readonly stackType?: 'IPV4' | 'IPV4_IPV6'
  readonly gatewayApi?: 'disabled' | 'standard'
}

/** One desired node pool. */
export interface NodePoolSpec {
  readonly name: string
  readonly machineType: string
  /** Nodes to create; 0 for flex-start pools, which scale up on demand. */
  readonly nodeCount: number
  /** TPU topology (AxB[xC]) or null for GPU/CPU pools. */
  readonly tpuTopology: string | null
  readonly capacity: Capacity
  /** Reservation path (`name` or `projects/P/reservations/NAME[/reservationBlocks/B]`), when capacity is reservation. */
  readonly reservation: string | null
  readonly placementPolicy: PlacementPolicy | null
  /** GPU: accelerator type and count per VM, and the driver GKE installs (xpk asks for the latest). */
  readonly gpu: {readonly type: string; readonly count: number; readonly driverVersion: 'LATEST' | 'DEFAULT'} | null
  /** The zone(s) the nodes run in. */
  readonly locations: readonly string[]
  readonly oauthScopes: readonly string[]
  readonly maxPodsPerNode: number | null
  readonly gvnic: boolean
  /** `auto` for types that support GKE's accelerator network profile. */
  readonly acceleratorNetworkProfile: 'auto' | null
  /**
   * The GPU networks the nodes get a NIC on (GKE's `networkConfig.additionalNodeNetworkConfigs`), in NIC order;
   * absent or empty for pools without (see gpu-networks.ts).
   */
  readonly additionalNodeNetworks?: readonly {readonly network: string; readonly subnetwork: string}[]
  readonly labels: Readonly<Record<string, string>>
  /** Flex-start: autoscaling from 0 up to this many nodes. */
  readonly flexMaxNodes: number | null
  /** Where the autoscaler of a flex-start pool may put nodes (ANY zone of the pool's locations). */
  readonly autoscalingLocationPolicy: 'ANY' | 'BALANCED' | null
  /** Autoscaling between these node counts (the Pathways CPU pool, 1-20 as Python xpk's); absent: a fixed size. */
  readonly autoscaling?: {readonly minNodes: number; readonly maxNodes: number}
  /** Node auto-repair and auto-upgrade: on, except auto-repair of flex-start pools (nodes come and go anyway). */
  readonly management: {readonly autoRepair: boolean; readonly autoUpgrade: boolean}
  /** Single-slice GPU flex pools use queued provisioning (Dynamic Workload Scheduler). */
  readonly queuedProvisioning: boolean
  /** GKE node version; null means "decided at apply time from the control plane version". */
  readonly version: string | null
  /**
   * GKE_METADATA on a cluster with Workload Identity (pods get their Kubernetes service account's identity);
   * null leaves GKE's default (GKE_METADATA there too, GCE_METADATA elsewhere). `--workload-metadata` in the custom
   * node-pool arguments wins, as it comes last on Python xpk's command line.
   */
  readonly workloadMetadataMode: WorkloadMetadataMode | null
  readonly custom: CustomNodePoolFields
  /**
   * `--host-maintenance-interval`. Python xpk sends it with every pool through GKE's v1beta1 API; v1 has no field for
   * it. AS_NEEDED is what a pool gets without one, so such pools go through v1 with nothing sent; PERIODIC pools are
   * created through v1beta1 with `config.hostMaintenancePolicy`.
   */
  readonly hostMaintenanceInterval: HostMaintenanceInterval
}

export type ReleaseChannel = 'RAPID' | 'REGULAR' | 'STABLE'

/** Private-cluster settings. */
export interface PrivateClusterSpec {
  readonly enablePrivateNodes: boolean
  readonly enablePrivateEndpoint: boolean
  readonly privateEndpointSubnetwork: string | null
  readonly masterGlobalAccess: boolean
  readonly authorizedNetworks: readonly string[]
}

/** The desired cluster. It is regional (the zone's region) with nodes pinned to the zone. */
export interface ClusterSpec {
  readonly name: string
  readonly project: string
  readonly region: string
  readonly zone: string
  readonly releaseChannel: ReleaseChannel
  /** Control-plane version; null means "the channel's default, read from the server config at apply time". */
  readonly version: string | null
  readonly autoUpgrade: boolean
  readonly defaultPool: {
    readonly machineType: string
    readonly nodeCount: number
    readonly minNodes: number
    readonly maxNodes: number
    /** Spread autoscaled nodes evenly over the zones (only one today, but kept when more are added). */
    readonly locationPolicy: 'BALANCED' | 'ANY'
    readonly autoRepair: boolean
    readonly oauthScopes: readonly string[]
  }
  /**
   * Networking as Python xpk sets it: VPC-native (IP aliases), Dataplane V2 (ADVANCED_DATAPATH) and
   * multi-networking, which the accelerator network profiles of newer TPUs and GPUs need.
   */
  readonly networking: {readonly ipAliases: boolean; readonly dataplaneV2: boolean; readonly multiNetworking: boolean}
  /** The cluster autoscaler's profile: remove idle nodes quickly (accelerators are expensive). */
  readonly autoscalingProfile: 'OPTIMIZE_UTILIZATION' | 'BALANCED'
  readonly network: string | null
  readonly subnetwork: string | null
  readonly private: PrivateClusterSpec | null
  readonly dnsEndpoint: boolean
  readonly labels: Readonly<Record<string, string>>
  /** CSI drivers to enable: in the create request of a new cluster, by an update of an existing one. */
  readonly csiDrivers: readonly CsiDriver[]
  /** LustreCsiDriver on its legacy port (6988); only with LustreCsiDriver. */
  readonly lustreLegacyPort: boolean
  /** Workload Identity: the project's pool (`P.svc.id.goog`), or null to leave it as it is. */
  readonly workloadPool: string | null
  /** Node auto-provisioning (`--enable-autoprovisioning`), or null to leave the cluster's autoscaling as it is. */
  readonly autoprovisioning: AutoprovisioningSpec | null
  /** `--custom-cluster-arguments`, mapped to fields of the create request (an existing cluster keeps its own). */
  readonly custom: CustomClusterFields
  /** GKE's slice controller addon (super-slicing; gcloud's --enable-slice-controller), in the create request. */
  readonly sliceController?: boolean
  /** GKE's Ray operator addon (`cluster create-ray`): in the create request, by an update of an existing cluster. */
  readonly rayOperator?: boolean
}

/** OAuth scopes xpk gives nodes: `storage-full`, gcloud's `gke-default` set, and `cloud-platform`. */
export const SCOPES = {
  storageFull: 'https://www.googleapis.com/auth/devstorage.full_control',
  gkeDefault: [
    'https://www.googleapis.com/auth/devstorage.read_only',
    'https://www.googleapis.com/auth/logging.write',
    'https://www.googleapis.com/auth/monitoring',
    'https://www.googleapis.com/auth/service.management.readonly',
    'https://www.googleapis.com/auth/servicecontrol',
    'https://www.googleapis.com/auth/trace.append',
  ],
  cloudPlatform: 'https://www.googleapis.com/auth/cloud-platform',
  /** What Python xpk's autoprovisioning config gives the pools GKE provisions. */
  storageReadWrite: 'https://www.googleapis.com/auth/devstorage.read_write',
} as const
