import {resolveAccelerator} from '../catalog/lookup.js'
import {machineTypeProblem} from '../catalog/machine-types.js'
import type {Accelerator} from '../catalog/types.js'
import {INTEGER_FLAGS, MAX_SLICES, parseInteger, Problems, splitList} from '../input.js'
import {CLUSTER_DEFAULTS} from './defaults.js'
import {clusterNameProblem, projectIdProblem, zoneToRegion} from '../settings.js'
import {additionalNodeNetworks, gpuNetworksFor, MAX_COMPUTE_NAME, tooLongName, type GpuNetwork} from './gpu-networks.js'
import {escapeInline} from '../text.js'
import {mergeCustomFields, parseCustomClusterArguments, parseCustomNodePoolArguments} from './custom-args.js'
import {releaseChannelFor} from './versions.js'
import {
  CSI_DRIVERS,
  HOST_MAINTENANCE_INTERVALS,
  SCOPES,
  type AutoprovisioningSpec,
  type CustomClusterFields,
  type HostMaintenanceInterval,
  workloadPoolOf,
  type Capacity,
  type ClusterSpec,
  type CsiDriver,
  type NodePoolSpec,
  type PlacementPolicy,
} from './spec.js'
import type {ClusterNeeds} from './updates.js'
import {memoryLimitProblem, type KueueLimits} from '../incluster/kueue-limits.js'
import {SLICING_FLAGS, supportsSlicing, type Slicing} from './slicing.js'
import {checkPathways, type PathwaysRequest} from './pathways.js'

/** `cluster create` flags as parsed. Undefined means "not given". */
export interface ClusterCreateFlags {
  readonly cluster?: string
  readonly project?: string
  readonly zone?: string
  readonly tpuType?: string
  readonly deviceType?: string
  /** Integers arrive as the text the user typed (parsed exactly here), or as numbers from in-process callers. */
  readonly numSlices?: string | number
  readonly numNodes?: string | number
  readonly onDemand?: boolean
  readonly spot?: boolean
  readonly reservation?: string
  readonly flex?: boolean
  readonly gkeVersion?: string
  readonly defaultPoolCpuMachineType?: string
  readonly defaultPoolCpuNumNodes?: string | number
  readonly network?: string
  readonly subnetwork?: string
  readonly private?: boolean
  readonly authorizedNetworks?: readonly string[]
  readonly enablePrivateEndpoint?: boolean
  readonly privateEndpointSubnetwork?: string
  readonly enableMasterGlobalAccess?: boolean
  readonly maxPodsPerNode?: string | number
  readonly customNodepoolArguments?: string
  readonly customTpuNodepoolArguments?: string
  /** `--max-parallel`: node-pool operations in flight at once. */
  readonly maxParallel?: string | number
  readonly enableWorkloadIdentity?: boolean
  readonly enableGcsfuseCsiDriver?: boolean
  readonly enableGcpfilestoreCsiDriver?: boolean
  readonly enableParallelstoreCsiDriver?: boolean
  readonly enablePdCsiDriver?: boolean
  readonly enableLustreCsiDriver?: boolean
  readonly enableLegacyLustrePort?: boolean
  /** Go on when the reservations cannot hold the new pools (the plan says so); also answers the questions yes. */
  readonly force?: boolean
  /** `--cpu-limit` / `--memory-limit`: the ClusterQueue's cpu and memory quotas (see kueue-limits.ts). */
  readonly cpuLimit?: string | number
  readonly memoryLimit?: string
  /** `--enable-autoprovisioning`: GKE's node auto-provisioning of TPU pools, between the chips below. */
  readonly enableAutoprovisioning?: boolean
  readonly autoprovisioningMinChips?: string | number
  readonly autoprovisioningMaxChips?: string | number
  readonly hostMaintenanceInterval?: string
  readonly customClusterArguments?: string
  /** Sub-slicing (v6e): Kueue's sub-slice Topology (slicing.ts). */
  readonly subSlicing?: boolean
  /** Super-slicing (tpu7x-4x4x4): each cube on a healthy sub-block of the reservation (slicing.ts). */
  readonly superSlicing?: boolean
  /** With --super-slicing: the cubes (node pools); --num-slices, when also given, must say the same. */
  readonly numCubes?: string | number
  /** `cluster create-ray --ray-version`: GKE's Ray operator addon and a RayCluster of this Ray version. */
  readonly rayVersion?: string
  /** `cluster create-pathways`: the machine type of the Pathways CPU pool `cpu-np` (given: a Pathways cluster). */
  readonly pathwaysGceMachineType?: string
}

/** The `cluster create` flag that enables each CSI driver, as Python xpk names them, and its field in the flags. */
export const CSI_DRIVER_FLAGS: Readonly<
  Record<CsiDriver, {readonly flag: string; readonly key: keyof ClusterCreateFlags}>
> = {
  GcsFuseCsiDriver: {flag: '--enable-gcsfuse-csi-driver', key: 'enableGcsfuseCsiDriver'},
  GcpFilestoreCsiDriver: {flag: '--enable-gcpfilestore-csi-driver', key: 'enableGcpfilestoreCsiDriver'},
  ParallelstoreCsiDriver: {flag: '--enable-parallelstore-csi-driver', key: 'enableParallelstoreCsiDriver'},
  GcePersistentDiskCsiDriver: {flag: '--enable-pd-csi-driver', key: 'enablePdCsiDriver'},
  LustreCsiDriver: {flag: '--enable-lustre-csi-driver', key: 'enableLustreCsiDriver'},
}

export {CLUSTER_DEFAULTS}

/** GKE allows 40 characters in a node-pool name, and xpk names pools `<cluster>-np-<index>`. */
const MAX_NODE_POOL_NAME = 40
export {MAX_SLICES}

/** The shape every desired node pool shares; names and reservations are assigned by the planner. */
export type NodePoolTemplate = Omit<NodePoolSpec, 'name' | 'reservation'>

/** The validated request of a `cluster create` run. */
export interface DesiredCluster {
  readonly spec: ClusterSpec
  readonly accelerator: Accelerator
  /** Node pools wanted: one per slice for TPU/CPU, one for GPU, 0 for an empty cluster. */
  readonly poolCount: number
  readonly poolTemplate: NodePoolTemplate
  /** The GPU networks the pools attach (gpu-networks.ts), created before them; absent or empty for other types. */
  readonly gpuNetworks?: readonly GpuNetwork[]
  /** Reservations new pools may use, as API paths; empty unless capacity is reservation. */
  readonly reservations: readonly string[]
  /** `--max-parallel`, when given: how many node-pool operations may be in flight at once. */
  readonly maxParallel: number | undefined
  /**
   * CSI drivers and Workload Identity asked for, with the flags that asked: sent with a new cluster (its spec), or
   * planned as updates of an existing one.
   */
  readonly needs: ClusterNeeds
  /**
   * Whole pools each reservation (by path) can still hold, as read before planning; new pools go only where there
   * is room while any reservation has some. Undefined when not read (offline plans).
   */
  readonly reservationRoom?: ReadonlyMap<string, number>
  /** `--cpu-limit` / `--memory-limit` as given, checked; corrected against the machine type before planning. */
  readonly kueueLimits: KueueLimits
  /** Node auto-provisioning's chips (`--enable-autoprovisioning`), for Kueue's quota and the resources ConfigMap. */
  readonly autoprovisioning: {readonly minimumChips: number; readonly maximumChips: number} | null
  /** `--sub-slicing` or `--super-slicing`; absent (or null) for neither. */
  readonly slicing?: Slicing | null
  /**
   * Where new pools go, when not the `--reservation` items themselves: with super-slicing, the healthy sub-blocks
   * of the items, as read (each pool on one sub-block). Existing pools on any sub-block of an item are kept.
   */
  readonly poolReservations?: readonly string[]
  /** `cluster create-ray`: the Ray version of the RayCluster (the spec asks for GKE's Ray operator addon). */
  readonly ray?: {readonly version: string} | null
  /** `cluster create-pathways`: the CPU pool `cpu-np` and Kueue's `cpu-user` flavor (pathways.ts). */
  readonly pathways?: PathwaysRequest | null
}

const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/
const RESERVATION =
  /^(?:projects\/([a-z][-a-z0-9]{4,28}[a-z0-9])\/reservations\/)?([a-z]([-a-z0-9]*[a-z0-9])?)(\/reservationBlocks\/[-a-z0-9]+(\/reservationSubBlocks\/[-a-z0-9]+)?)?$/
const RESOURCE_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/

/** Normalises a `--reservation` item to the path GKE expects: the bare name for the cluster's own project. */
export function reservationPath(item: string, project: string): string | undefined {
  const match = RESERVATION.exec(item)
  if (!match) return undefined
  const [, owner, name, , blocks] = match
  const base = owner === undefined || owner === project ? name : `projects/${owner}/reservations/${name}`
  return `${base}${blocks ?? ''}`
}

/**
 * The workload placement policy Python xpk names for a type: `<type>-<topology>-placement-policy`, with `-ss` before
 * `-placement-policy` for super-slicing (whose policy only provisions: GKE's slice controller forms the slices).
 */
export function placementPolicyName(accelerator: Accelerator, superSlicing = false): string {
  return `${accelerator.canonical}-${accelerator.topology}${superSlicing ? '-ss' : ''}-placement-policy`
}

/**
 * The workload placement policy a type's node pools are created with, or null when the type needs none: multi-host
 * tpu7x/tpu7 and gb200 (GPUs other than gb200 have no AxB[xC] topology to place). Workloads select those nodes by
 * this same name, so it depends on the accelerator alone.
 */
export function workloadPolicyName(accelerator: Accelerator): string | null {
  if (!accelerator.requiresWorkloadPolicy || !isAcceleratorTopology(accelerator.topology)) return null
  return placementPolicyName(accelerator)
}

function isAcceleratorTopology(topology: string | null): topology is string {
  return topology !== null && /^\d+x\d+(x\d+)?$/.test(topology)
}

function placementFor(accelerator: Accelerator, slicing: Slicing | null): PlacementPolicy | null {
  const topology = accelerator.topology
  if (!isAcceleratorTopology(topology)) return null
  const policy = workloadPolicyName(accelerator)
  if (policy !== null && slicing === 'super') {
    return {type: 'workload-policy', name: placementPolicyName(accelerator, true), topology, mode: 'PROVISION_ONLY'}
  }
  if (policy !== null) return {type: 'workload-policy', name: policy, topology}
  if (accelerator.kind === 'TPU' && accelerator.vmsPerSlice > 1) return {type: 'compact', tpuTopology: topology}
  return null
}

/**
 * Validates `cluster create` flags (project, zone and cluster already resolved from flags, env, xpk config or
 * gcloud) and computes the desired cluster and node-pool template. Collects every problem before throwing.
 * @throws UsageError or UsageErrors
 */
export function desiredClusterFromFlags(flags: ClusterCreateFlags): DesiredCluster {
  // One collector for every concern, so all problems are reported together, in flag order.
  const problems = new Problems()
  const {name, nameProblem, project, zone, region} = checkTarget(flags, problems)
  const accelerator = problems.attempt(() => resolveAccelerator({tpuType: flags.tpuType, deviceType: flags.deviceType}))
  const {slicing, numSlicesGiven} = checkSlicing(flags, problems, accelerator)
  const {numSlices, numNodes} = checkScale(
    {...flags, numSlices: numSlicesGiven},
    problems,
    accelerator,
    name,
    nameProblem,
  )
  const {capacity, reservations} = checkCapacityFlags(flags, problems, project, {required: true})
  const {gkeVersion, defaultMachine, defaultNodes} = checkVersionAndDefaultPool(flags, problems)
  checkNetworking(flags, problems)
  const {maxPods, general, tpuOnly} = checkNodePoolExtras(flags, problems)
  const maxParallel = problems.integer('--max-parallel', flags.maxParallel, INTEGER_FLAGS['cluster:max-parallel'])
  const needs = checkClusterNeeds(flags, problems)
  const kueueLimits = checkKueueLimits(flags, problems, accelerator)
  const chips = checkAutoprovisioning(flags, problems, accelerator, numSlices)
  const hostMaintenanceInterval = checkHostMaintenanceInterval(flags, problems)
  const customCluster = checkCustomCluster(flags, problems)
  const rayVersion = checkRayVersion(flags, problems, accelerator)
  const pathways = checkPathways(flags, problems, accelerator)
  const gpuNetworks =
    accelerator && name && !nameProblem && project && region && zone
      ? gpuNetworksFor(accelerator, {project, region, zone, name})
      : []
  const tooLong = tooLongName(gpuNetworks)
  if (tooLong !== undefined) {
    problems.add(
      `--cluster "${escapeInline(name ?? '')}": ${accelerator!.name} needs GPU networks named after the cluster and its region, and ${tooLong} is ${tooLong.length} characters long; Compute Engine allows ${MAX_COMPUTE_NAME}.`,
      {
        flag: '--cluster',
        hints: [`Use a cluster name at least ${tooLong.length - MAX_COMPUTE_NAME} characters shorter.`],
      },
    )
  }
  problems.throwIfAny()
  const a = accelerator as Accelerator
  const isPrivate =
    Boolean(flags.private) ||
    (flags.authorizedNetworks?.length ?? 0) > 0 ||
    Boolean(flags.enablePrivateEndpoint) ||
    flags.privateEndpointSubnetwork !== undefined ||
    Boolean(flags.enableMasterGlobalAccess)
  const privateEndpoint = Boolean(flags.enablePrivateEndpoint) || flags.privateEndpointSubnetwork !== undefined
  const spec: ClusterSpec = {
    name: name as string,
    project: project as string,
    region: region as string,
    zone: zone as string,
    releaseChannel: releaseChannelFor(gkeVersion),
    version: gkeVersion ?? null,
    autoUpgrade: gkeVersion === undefined,
    defaultPool: {
      machineType: defaultMachine,
      nodeCount: defaultNodes,
      minNodes: 1,
      maxNodes: 1000,
      locationPolicy: 'BALANCED',
      autoRepair: true,
      // Python xpk passes --scopes=storage-full,gke-default except for GPUs, where gcloud's default, gke-default,
      // applies. The API has no such default (without scopes nodes get at most logging and monitoring), so the
      // GPU set is spelled out too.
      oauthScopes: a.kind === 'GPU' ? [...SCOPES.gkeDefault] : [SCOPES.storageFull, ...SCOPES.gkeDefault],
    },
    network: flags.network ?? customCluster.network ?? null,
    subnetwork: flags.subnetwork ?? customCluster.subnetwork ?? null,
    private: isPrivate
      ? {
          enablePrivateNodes: true,
          enablePrivateEndpoint: privateEndpoint,
          privateEndpointSubnetwork: flags.privateEndpointSubnetwork ?? null,
          masterGlobalAccess: Boolean(flags.enableMasterGlobalAccess),
          authorizedNetworks: [...(flags.authorizedNetworks ?? [])],
        }
      : null,
    networking: {ipAliases: true, dataplaneV2: true, multiNetworking: true},
    autoscalingProfile: 'OPTIMIZE_UTILIZATION',
    dnsEndpoint: !privateEndpoint,
    labels: {gke_product_type: 'xpk'},
    csiDrivers: needs.csiDrivers.map((n) => n.driver),
    lustreLegacyPort: needs.lustreLegacyPort !== null,
    workloadPool: needs.workloadIdentity ? workloadPoolOf(project as string) : null,
    autoprovisioning: chips && autoprovisioningSpec(a, chips, zone as string),
    custom: customCluster,
    ...(slicing === 'super' ? {sliceController: true} : {}),
    ...(rayVersion !== undefined ? {rayOperator: true} : {}),
  }

  const multiHostTpu = a.kind === 'TPU' && a.vmsPerSlice > 1
  const custom = multiHostTpu ? mergeCustomFields(general ?? {}, tpuOnly ?? {}) : (general ?? {})
  const flex = capacity === 'flex'
  const poolTemplate: NodePoolTemplate = {
    machineType: a.machineType,
    nodeCount: flex ? 0 : a.kind === 'GPU' ? numNodes : a.vmsPerSlice,
    tpuTopology: a.kind === 'TPU' ? a.topology : null,
    capacity,
    placementPolicy: placementFor(a, slicing),
    gpu:
      a.kind === 'GPU' && a.gkeAccelerator
        ? {type: a.gkeAccelerator, count: a.chipsPerVm, driverVersion: 'LATEST'}
        : null,
    locations: [zone as string],
    oauthScopes:
      a.kind === 'GPU' ? [SCOPES.cloudPlatform] : [SCOPES.storageFull, ...SCOPES.gkeDefault, SCOPES.cloudPlatform],
    maxPodsPerNode:
      maxPods ?? custom.maxPodsPerNode ?? (multiHostTpu ? CLUSTER_DEFAULTS.multiHostTpuMaxPodsPerNode : null),
    gvnic: custom.gvnic ?? true,
    acceleratorNetworkProfile: a.supportsAcceleratorNetworkProfile ? 'auto' : null,
    ...(gpuNetworks.length > 0 ? {additionalNodeNetworks: additionalNodeNetworks(gpuNetworks)} : {}),
    labels: {
      ...(a.supportsAcceleratorNetworkProfile ? {'cloud.google.com/gke-networking-dra-driver': 'true'} : {}),
      ...custom.labels,
    },
    flexMaxNodes: flex ? (a.kind === 'TPU' ? a.vmsPerSlice : 1000) : null,
    autoscalingLocationPolicy: flex ? 'ANY' : null,
    management: {autoRepair: custom.autoRepair ?? !flex, autoUpgrade: custom.autoUpgrade ?? true},
    queuedProvisioning: flex && a.kind === 'GPU',
    version: null,
    workloadMetadataMode: custom.workloadMetadataMode ?? (needs.workloadIdentity ? 'GKE_METADATA' : null),
    custom,
    hostMaintenanceInterval,
  }
  return {
    spec,
    accelerator: a,
    poolCount: a.kind === 'GPU' ? Math.min(numSlices, 1) : numSlices,
    poolTemplate,
    ...(gpuNetworks.length > 0 ? {gpuNetworks} : {}),
    reservations,
    maxParallel,
    needs,
    kueueLimits,
    autoprovisioning: chips,
    slicing,
    ...(rayVersion !== undefined ? {ray: {version: rayVersion}} : {}),
    ...(pathways ? {pathways} : {}),
  }
}

/** A Ray release (`2.38.0`): the RayCluster's `rayVersion` and the tag of the `rayproject/ray` image. */
const RAY_VERSION = /^\d{1,3}\.\d{1,3}\.\d{1,3}$/

/** `--ray-version`, when given: a Ray release number, since it becomes an image tag and KubeRay's `rayVersion`. */
function checkRayVersion(
  flags: ClusterCreateFlags,
  problems: Problems,
  accelerator: Accelerator | undefined,
): string | undefined {
  const version = flags.rayVersion
  if (version === undefined) return undefined
  if (accelerator !== undefined && accelerator.kind !== 'TPU') {
    // Python xpk builds TPU workers only; on other types its RayCluster would never schedule.
    problems.add(
      `--ray-version makes a RayCluster of TPU workers, and ${accelerator.name} is a ${accelerator.kind} type.`,
      {
        flag: flags.deviceType !== undefined ? '--device-type' : '--tpu-type',
        hints: ['Give a TPU type with --tpu-type, e.g. --tpu-type v5p-16.'],
      },
    )
  }
  if (!RAY_VERSION.test(version)) {
    problems.add(`--ray-version "${escapeInline(version)}" is not a Ray release number.`, {
      flag: '--ray-version',
      hints: ['Give MAJOR.MINOR.PATCH, e.g. --ray-version 2.38.0 (the tags of rayproject/ray).'],
    })
    return undefined
  }
  return version
}

/** `--cpu-limit` and `--memory-limit`, each checked; CPU types' quota counts vCPUs already, so no `--cpu-limit`. */
export function checkKueueLimits(
  flags: Pick<ClusterCreateFlags, 'cpuLimit' | 'memoryLimit'>,
  problems: Problems,
  accelerator: Accelerator | undefined,
): KueueLimits {
  const cpu = problems.integer('--cpu-limit', flags.cpuLimit, INTEGER_FLAGS['cluster:cpu-limit']) ?? null
  if (cpu !== null && accelerator?.kind === 'CPU') {
    problems.add(
      `--cpu-limit adds a cpu quota beside the accelerator's, and ${accelerator.name} is a CPU type whose quota is its vCPUs already (Kueue refuses a resource covered twice).`,
      {flag: '--cpu-limit', hints: ['Leave --cpu-limit out: --num-slices sets the vCPUs of a CPU cluster.']},
    )
  }
  const memory = flags.memoryLimit ?? null
  const problem = memory === null ? undefined : memoryLimitProblem(memory)
  if (problem) problems.add(`--memory-limit "${escapeInline(memory ?? '')}": ${problem}.`, {flag: '--memory-limit'})
  return {cpu, memory}
}

/**
 * Python xpk's autoprovisioning limits: cpu 1 to 1,000,000 and memory 1 to 10,000,000 GB (for the pools GKE
 * provisions; the default pool is not counted), the TPU type (`tpu7x`, `tpu-v5p-slice`) between the chips.
 */
export const AUTOPROVISIONING_CPU_MEMORY_LIMITS = [
  {resourceType: 'cpu', minimum: 1, maximum: 1_000_000},
  {resourceType: 'memory', minimum: 1, maximum: 10_000_000},
] as const

/** Node auto-provisioning as Python xpk's autoprovisioning config file sets it, for `accelerator` in `zone`. */
export function autoprovisioningSpec(
  accelerator: Accelerator,
  chips: {readonly minimumChips: number; readonly maximumChips: number},
  zone: string,
): AutoprovisioningSpec {
  return {
    resourceLimits: [
      ...AUTOPROVISIONING_CPU_MEMORY_LIMITS,
      {resourceType: accelerator.gkeAccelerator ?? '', minimum: chips.minimumChips, maximum: chips.maximumChips},
    ],
    oauthScopes: [SCOPES.storageReadWrite],
    management: {autoRepair: true, autoUpgrade: true},
    locations: [zone],
  }
}

/**
 * `--enable-autoprovisioning` and its chips, as Python xpk checks them: TPU types only (Python refuses CPU types;
 * GPU types here too, as GKE provisions GPUs by another resource and xpk's GPU pools need networking it sets up
 * itself); the minimum defaults to 0 and the maximum to the chips of `--num-slices` slices; the maximum must be above
 * the minimum. The chip flags without `--enable-autoprovisioning` would do nothing, so they are refused.
 */
function checkAutoprovisioning(
  flags: ClusterCreateFlags,
  problems: Problems,
  accelerator: Accelerator | undefined,
  numSlices: number,
): {minimumChips: number; maximumChips: number} | null {
  const minimum = problems.integer(
    '--autoprovisioning-min-chips',
    flags.autoprovisioningMinChips,
    INTEGER_FLAGS['cluster:autoprovisioning-min-chips'],
  )
  const maximum = problems.integer(
    '--autoprovisioning-max-chips',
    flags.autoprovisioningMaxChips,
    INTEGER_FLAGS['cluster:autoprovisioning-max-chips'],
  )
  if (!flags.enableAutoprovisioning) {
    for (const [flag, given] of [
      ['--autoprovisioning-min-chips', flags.autoprovisioningMinChips],
      ['--autoprovisioning-max-chips', flags.autoprovisioningMaxChips],
    ] as const) {
      if (given !== undefined && !problems.has(flag)) {
        problems.add(`${flag} sets a limit of node auto-provisioning, which is not asked for.`, {
          flag,
          hints: [`Add --enable-autoprovisioning, or leave ${flag} out.`],
        })
      }
    }
    return null
  }
  if (accelerator === undefined) return null
  if (accelerator.kind !== 'TPU' || accelerator.gkeAccelerator === null) {
    problems.add(
      `--enable-autoprovisioning provisions TPU slices; ${accelerator.name} is a ${accelerator.kind} type.`,
      {
        flag: '--enable-autoprovisioning',
        hints: ['Use a TPU type (--tpu-type), or leave --enable-autoprovisioning out to get fixed pools.'],
      },
    )
    return null
  }
  const minimumChips = minimum ?? 0
  const maximumChips = maximum ?? numSlices * accelerator.vmsPerSlice * accelerator.chipsPerVm
  if (problems.has('--autoprovisioning-min-chips') || problems.has('--autoprovisioning-max-chips')) return null
  if (maximumChips <= minimumChips) {
    const from = maximum === undefined ? ` (the chips of --num-slices ${numSlices})` : ''
    problems.add(
      `--autoprovisioning-max-chips ${maximumChips}${from} must be above --autoprovisioning-min-chips ${minimumChips}: node auto-provisioning would have nothing to provision.`,
      {
        flag: '--autoprovisioning-max-chips',
        hints: [
          `Set --autoprovisioning-max-chips to more than ${minimumChips}, e.g. ${minimumChips + accelerator.vmsPerSlice * accelerator.chipsPerVm} (one more ${accelerator.name} slice).`,
        ],
      },
    )
    return null
  }
  return {minimumChips, maximumChips}
}

/**
 * `--host-maintenance-interval`: AS_NEEDED (the default, as Python xpk's) or PERIODIC. Python sends it with every
 * pool through `gcloud beta`, to GKE's v1beta1 API, where NodeConfig.hostMaintenancePolicy lives. AS_NEEDED is what a
 * pool gets without the field, so its pools are created through v1 with nothing sent; PERIODIC pools are created
 * through v1beta1 with the field (adapters/gke-container-api.ts).
 */
function checkHostMaintenanceInterval(flags: ClusterCreateFlags, problems: Problems): HostMaintenanceInterval {
  const flag = '--host-maintenance-interval'
  const given = flags.hostMaintenanceInterval
  const upper = given?.toUpperCase()
  if (given === undefined || upper === 'AS_NEEDED') return 'AS_NEEDED'
  if (upper === 'PERIODIC') return 'PERIODIC'
  problems.add(`${flag} "${escapeInline(given)}" is not ${HOST_MAINTENANCE_INTERVALS.join(' or ')}.`, {
    flag,
    hints: ['AS_NEEDED (the default) lets GKE maintain hosts as needed.'],
  })
  return 'AS_NEEDED'
}

/**
 * `--custom-cluster-arguments`, mapped to fields of the create request. `--network` and `--subnetwork` there say
 * what the flags of the same name say; both given with different values is a contradiction.
 */
function checkCustomCluster(flags: ClusterCreateFlags, problems: Problems): CustomClusterFields {
  const flag = '--custom-cluster-arguments'
  const custom = problems.attempt(() => parseCustomClusterArguments(flags.customClusterArguments, flag)) ?? {}
  for (const [name, own] of [
    ['network', flags.network],
    ['subnetwork', flags.subnetwork],
  ] as const) {
    const there = custom[name]
    if (own !== undefined && there !== undefined && own !== there) {
      problems.add(`${flag} says --${name}=${there}, but --${name} is ${own}.`, {
        flag,
        hints: [`Give the ${name} once: --${name} ${own}, or leave it out of ${flag}.`],
      })
    }
  }
  if (custom.masterAuthorizedNetworksOff && (flags.authorizedNetworks?.length ?? 0) > 0) {
    problems.add(`${flag}: --no-enable-master-authorized-networks contradicts --authorized-networks.`, {
      flag,
      hints: ['Leave out one of them.'],
    })
  }
  if (custom.masterIpv4Cidr !== undefined && !flags.private) {
    problems.add(`${flag}: --master-ipv4-cidr is the control plane's range of a private cluster; it needs --private.`, {
      flag,
      hints: ['Add --private, or take the control plane range out of --custom-cluster-arguments.'],
    })
  }
  return custom
}

/**
 * `--sub-slicing`, `--super-slicing` and `--num-cubes`, by Python xpk's rules (commands/cluster.py): one of the two,
 * on a type that supports it, on a reservation (which must be DENSE: checked once it is read); `--num-cubes` only
 * with `--super-slicing`, equal to `--num-slices` when both are given, and the slice count when only it is.
 */
function checkSlicing(flags: ClusterCreateFlags, problems: Problems, accelerator: Accelerator | undefined) {
  const numCubes = problems.integer('--num-cubes', flags.numCubes, INTEGER_FLAGS['cluster:num-cubes'])
  let numSlicesGiven = flags.numSlices
  if (numCubes !== undefined && !flags.superSlicing) {
    problems.add('--num-cubes counts the cubes of a super-slicing cluster; it needs --super-slicing.', {
      flag: '--num-cubes',
      hints: ['Add --super-slicing (tpu7x-4x4x4 on a Cluster Director reservation), or give --num-slices instead.'],
    })
  } else if (numCubes !== undefined && flags.numSlices !== undefined) {
    // A bad --num-slices is reported by checkScale; only a good one is compared.
    const slices = parseInteger(String(flags.numSlices), INTEGER_FLAGS['cluster:num-slices'])
    if ('value' in slices && slices.value !== numCubes) {
      problems.add(`--num-cubes ${numCubes} and --num-slices ${slices.value} differ; a cube is one slice.`, {
        flag: '--num-cubes',
        hints: ['Give one of them, or the same number to both.'],
      })
    }
  } else if (numCubes !== undefined) numSlicesGiven = numCubes
  const asked = (['sub', 'super'] as const).filter((s) => (s === 'sub' ? flags.subSlicing : flags.superSlicing))
  if (asked.length > 1) {
    problems.add('Pick one of --sub-slicing and --super-slicing: no type supports both.', {flag: '--sub-slicing'})
    return {slicing: null, numSlicesGiven}
  }
  const slicing: Slicing | null = asked[0] ?? null
  if (slicing === null) return {slicing, numSlicesGiven}
  const flag = SLICING_FLAGS[slicing]
  if (accelerator && !supportsSlicing(accelerator, slicing)) {
    problems.add(`${flag}: ${accelerator.name} does not support ${slicing === 'sub' ? 'sub' : 'super'}-slicing.`, {
      flag,
      hints: [
        slicing === 'sub'
          ? 'Sub-slicing is for v6e slices of 2x4 to 16x16 (e.g. --tpu-type v6e-4x4).'
          : 'Super-slicing is for tpu7x-4x4x4 cubes (--tpu-type tpu7x-4x4x4, or tpu7x-128).',
      ],
    })
  }
  if (flags.reservation === undefined) {
    problems.add(`${flag} needs a Cluster Director (DENSE) reservation: add --reservation NAME.`, {
      flag: '--reservation',
      hints: ['`gcloud compute reservations list --filter="deploymentType=DENSE"` lists them.'],
    })
  }
  return {slicing, numSlicesGiven}
}

/**
 * The CSI drivers and Workload Identity the `--enable-*` flags ask for. GCS FUSE implies Workload Identity, as in
 * Python xpk: its pods read buckets as their Kubernetes service account. The legacy Lustre port is a setting of the
 * Lustre driver: without --enable-lustre-csi-driver it would do nothing (Python xpk ignores it then), so it is refused.
 */
function checkClusterNeeds(flags: ClusterCreateFlags, problems: Problems): ClusterNeeds {
  const csiDrivers = CSI_DRIVERS.filter((driver) => flags[CSI_DRIVER_FLAGS[driver].key] === true).map((driver) => ({
    driver,
    why: CSI_DRIVER_FLAGS[driver].flag,
  }))
  if (flags.enableLegacyLustrePort && !flags.enableLustreCsiDriver) {
    problems.add('--enable-legacy-lustre-port sets the port of the Lustre CSI driver, which is not asked for.', {
      flag: '--enable-legacy-lustre-port',
      hints: ['Add --enable-lustre-csi-driver, or leave --enable-legacy-lustre-port out.'],
    })
  }
  const workloadIdentity = flags.enableWorkloadIdentity
    ? {why: '--enable-workload-identity'}
    : flags.enableGcsfuseCsiDriver
      ? {why: 'GCS FUSE needs it: --enable-gcsfuse-csi-driver'}
      : null
  return {
    csiDrivers,
    lustreLegacyPort:
      flags.enableLegacyLustrePort && flags.enableLustreCsiDriver ? {why: '--enable-legacy-lustre-port'} : null,
    workloadIdentity,
  }
}

/** Where the cluster goes: --cluster, --project and --zone (already resolved from flags, env, config or gcloud). */
/** `--cluster`, `--project` and `--zone`: each given and well-formed; the zone's region. */
export function checkTarget(flags: Pick<ClusterCreateFlags, 'cluster' | 'project' | 'zone'>, problems: Problems) {
  const need = (value: string | undefined, flag: string, example: string) => {
    if (value === undefined) {
      problems.add(`Missing ${flag}, e.g. ${flag} ${example}.`, {
        flag,
        hints: [
          `Pass ${flag}, set XPK_${flag.slice(2).toUpperCase()}, or run \`xpk config set ${flag.slice(2)} VALUE\`.`,
        ],
      })
    }
    return value
  }
  const name = need(flags.cluster, '--cluster', 'my-cluster')
  const nameProblem = name === undefined ? undefined : clusterNameProblem(name)
  if (nameProblem) problems.add(`--cluster "${escapeInline(name ?? '')}": ${nameProblem}.`, {flag: '--cluster'})
  const project = need(flags.project, '--project', 'my-project')
  const projectProblem = project === undefined ? undefined : projectIdProblem(project)
  if (projectProblem) {
    problems.add(`--project "${escapeInline(project ?? '')}": ${projectProblem}.`, {flag: '--project'})
  }
  const zone = need(flags.zone, '--zone', 'us-central2-b')
  const region = zone === undefined ? undefined : zoneToRegion(zone)
  if (zone !== undefined && region === undefined) {
    problems.add(`--zone "${escapeInline(zone)}": a zone looks like us-central2-b (region plus a letter).`, {
      flag: '--zone',
    })
  }
  return {name, nameProblem, project, zone, region}
}

/** How many slices or GPU nodes, and whether the pool names they give fit GKE's limit. */
function checkScale(
  flags: ClusterCreateFlags,
  problems: Problems,
  accelerator: Accelerator | undefined,
  name: string | undefined,
  nameProblem: string | undefined,
) {
  const numSlices =
    problems.integer('--num-slices', flags.numSlices, INTEGER_FLAGS['cluster:num-slices']) ?? CLUSTER_DEFAULTS.numSlices
  const longestPool = name === undefined ? '' : `${name}-np-${Math.max(0, Math.min(numSlices, MAX_SLICES) - 1)}`
  if (name !== undefined && !nameProblem && longestPool.length > MAX_NODE_POOL_NAME) {
    problems.add(
      `--cluster "${name}" is too long for its node pools: they are named ${longestPool} and GKE allows ${MAX_NODE_POOL_NAME} characters. Use at most ${MAX_NODE_POOL_NAME - (longestPool.length - name.length)} characters.`,
      {flag: '--cluster'},
    )
  }
  const numNodes =
    problems.integer('--num-nodes', flags.numNodes, INTEGER_FLAGS['cluster:num-nodes']) ?? CLUSTER_DEFAULTS.gpuNumNodes
  if (flags.numNodes !== undefined && !problems.has('--num-nodes') && accelerator && accelerator.kind !== 'GPU') {
    problems.add(
      `--num-nodes applies to GPU types; ${accelerator.name} has ${accelerator.vmsPerSlice} VM(s) per slice. Use --num-slices.`,
      {flag: '--num-nodes'},
    )
  }
  // With --ray-version (cluster create-ray, which has no --num-nodes) a GPU type is refused for Ray's sake already.
  if (accelerator?.kind === 'GPU' && flags.numSlices !== undefined && numSlices > 1 && flags.rayVersion === undefined) {
    problems.add(`--num-slices applies to TPU and CPU types; a GPU cluster has one pool of --num-nodes VMs.`, {
      flag: '--num-slices',
      hints: [`Scale ${accelerator.name} with --num-nodes (default ${CLUSTER_DEFAULTS.gpuNumNodes}).`],
    })
  }
  return {numSlices, numNodes}
}

/**
 * The capacity flags: at most one (exactly one when `required`), and the `--reservation` items as API paths.
 * `chosen` is undefined when none is given.
 */
export function checkCapacityFlags(
  flags: Pick<ClusterCreateFlags, 'onDemand' | 'spot' | 'reservation' | 'flex'>,
  problems: Problems,
  project: string | undefined,
  {required}: {readonly required: boolean},
) {
  const chosen = (
    [
      ['--on-demand', flags.onDemand, 'on-demand'],
      ['--spot', flags.spot, 'spot'],
      ['--reservation', flags.reservation !== undefined, 'reservation'],
      ['--flex', flags.flex, 'flex'],
    ] as const
  ).filter(([, set]) => set)
  let capacity: Capacity = 'on-demand'
  if (chosen.length === 0 && !required) {
    // Nothing chosen: the caller decides (cluster adapt takes the pools' own).
  } else if (chosen.length === 0) {
    problems.add('Say how to get the VMs: --on-demand, --spot, --reservation NAME or --flex.', {
      flag: '--on-demand',
      hints: [
        'Reserved capacity needs --reservation; without one, --spot or --flex (Dynamic Workload Scheduler) often find TPUs sooner than --on-demand.',
      ],
    })
  } else if (chosen.length > 1) {
    problems.add(`Pick one capacity flag, not ${chosen.map(([f]) => f).join(' and ')}.`, {flag: chosen[0][0]})
  } else {
    capacity = chosen[0][2]
  }
  const reservations: string[] = []
  if (flags.reservation !== undefined && project !== undefined) {
    for (const item of problems.attempt(() => splitList('--reservation', flags.reservation!)) ?? []) {
      const path = reservationPath(item, project)
      if (path === undefined) {
        problems.add(
          `--reservation "${item}": expected NAME, projects/PROJECT/reservations/NAME, optionally with /reservationBlocks/BLOCK[/reservationSubBlocks/SUB].`,
          {flag: '--reservation'},
        )
      } else if (!reservations.includes(path)) reservations.push(path)
    }
  }
  return {capacity, reservations, chosen: chosen.length === 1 ? capacity : undefined}
}

/** --gke-version and the default CPU pool. */
function checkVersionAndDefaultPool(flags: ClusterCreateFlags, problems: Problems) {
  const gkeVersion = flags.gkeVersion
  if (gkeVersion !== undefined && !/^\d+\.\d+(\.\d+(-gke\.\d+)?)?$/.test(gkeVersion)) {
    problems.add(`--gke-version "${gkeVersion}" is not a GKE version like 1.35.1-gke.1000000.`, {
      flag: '--gke-version',
    })
  }
  const defaultMachine = flags.defaultPoolCpuMachineType ?? CLUSTER_DEFAULTS.defaultPoolCpuMachineType
  const machineProblem = machineTypeProblem(defaultMachine)
  if (machineProblem) {
    problems.add(`--default-pool-cpu-machine-type "${escapeInline(defaultMachine)}" ${machineProblem}.`, {
      flag: '--default-pool-cpu-machine-type',
      hints: [`For example e2-standard-16 (the default), n2-standard-32 or c3-highmem-8.`],
    })
  }
  const defaultNodes =
    problems.integer(
      '--default-pool-cpu-num-nodes',
      flags.defaultPoolCpuNumNodes,
      INTEGER_FLAGS['cluster:default-pool-cpu-num-nodes'],
    ) ?? CLUSTER_DEFAULTS.defaultPoolCpuNumNodes
  return {gkeVersion, defaultMachine, defaultNodes}
}

/** Network names, the CIDRs allowed to reach the control plane, and a private endpoint only on a private cluster. */
function checkNetworking(flags: ClusterCreateFlags, problems: Problems): void {
  // A control plane reachable only from inside the VPC is a choice about a private cluster: said without --private,
  // it is more likely a mistake than a wish to lose access from here (xpk's own in-cluster steps included).
  for (const [flag, given] of [
    ['--enable-private-endpoint', Boolean(flags.enablePrivateEndpoint)],
    ['--private-endpoint-subnetwork', flags.privateEndpointSubnetwork !== undefined],
  ] as const) {
    if (given && !flags.private) {
      problems.add(`${flag} makes the control plane reachable only from inside the VPC; it needs --private.`, {
        flag,
        hints: ['Add --private (private nodes), or leave the flag out to keep the public and DNS endpoints.'],
      })
    }
  }
  for (const [flag, value] of [
    ['--network', flags.network],
    ['--subnetwork', flags.subnetwork],
    ['--private-endpoint-subnetwork', flags.privateEndpointSubnetwork],
  ] as const) {
    if (value !== undefined && !RESOURCE_NAME.test(value.split('/').at(-1) ?? '')) {
      problems.add(`${flag} "${value}" is not a network resource name.`, {flag})
    }
  }
  for (const cidr of flags.authorizedNetworks ?? []) {
    const match = CIDR.exec(cidr)
    if (!match || match.slice(1, 5).some((o) => Number(o) > 255) || Number(match[5]) > 32) {
      problems.add(`--authorized-networks "${cidr}" is not an IPv4 CIDR like 203.0.113.0/24.`, {
        flag: '--authorized-networks',
      })
    }
  }
}

/** Pods per node and the gcloud-style node-pool arguments. */
function checkNodePoolExtras(flags: ClusterCreateFlags, problems: Problems) {
  const maxPods = problems.integer(
    '--max-pods-per-node',
    flags.maxPodsPerNode,
    INTEGER_FLAGS['cluster:max-pods-per-node'],
  )
  const general = problems.attempt(() =>
    parseCustomNodePoolArguments(flags.customNodepoolArguments, '--custom-nodepool-arguments'),
  )
  const tpuOnly = problems.attempt(() =>
    parseCustomNodePoolArguments(flags.customTpuNodepoolArguments, '--custom-tpu-nodepool-arguments'),
  )
  return {maxPods, general, tpuOnly}
}
