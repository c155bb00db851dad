/**
 * The {@link GkeClient} port over the GKE REST API v1 (container.googleapis.com/v1), through google-rest.ts; v1beta1
 * only for what v1 lacks: node pools with PERIODIC host maintenance, and reading pools' maintenance interval. The
 * message types are @google-cloud/container's (types only); its client is not used because loading it costs
 * start-up time that every command reaching GKE pays before its first request: google-gax over gRPC (proto parsing
 * and grpc-js) or over its REST transport. `npm run bench:gke-transports` measures the ways; README, Speed.
 */
import type {protos} from '@google-cloud/container'

import {type ApiContext, gkeApiError} from '../core/cluster/gke-errors.js'
import type {ClusterStatus, NodePoolStatus} from '../core/cluster/observed.js'
import {
  CSI_DRIVERS,
  type AutoprovisioningSpec,
  type Capacity,
  type ClusterSpec,
  type ClusterUpdate,
  type CsiDriver,
  type HostMaintenanceInterval,
  type NodePoolSpec,
  type NodePoolUpdate,
  type WorkloadMetadataMode,
} from '../core/cluster/spec.js'
import {parseEndpoint, type Endpoint} from '../core/endpoint.js'
import {UsageError} from '../core/errors.js'
import {escapeInline, redactCredentials} from '../core/text.js'
import type {
  ClusterRef,
  GkeClient,
  GkeOperation,
  NodePoolReadOptions,
  ObservedCluster,
  ObservedNodePool,
  ServerConfig,
} from '../ports/gke.js'
import {connectRest, failureCode, type GoogleConnection, type GoogleRest} from './google-rest.js'

type ApiCluster = protos.google.container.v1.ICluster
type ApiNodePool = protos.google.container.v1.INodePool
type BetaNodePool = protos.google.container.v1beta1.INodePool
type BetaNodeConfig = protos.google.container.v1beta1.INodeConfig
type ApiOperation = protos.google.container.v1.IOperation
type ApiServerConfig = protos.google.container.v1.IServerConfig
type ApiAddonsConfig = protos.google.container.v1.IAddonsConfig
type ApiClusterUpdate = protos.google.container.v1.IClusterUpdate
type ApiClusterAutoscaling = protos.google.container.v1.IClusterAutoscaling

/** How to reach the GKE API. */
export interface GkeConnection extends GoogleConnection {
  /**
   * Endpoint override, like gcloud's `api_endpoint_overrides/container`: `https://HOST[:PORT]/` for a private or
   * regional endpoint, or `http://127.0.0.1:PORT` (loopback only) for a local test server.
   */
  readonly endpoint?: string
}

const DEFAULT_BASE = 'https://container.googleapis.com/v1/'

/** Parses the GKE endpoint override (rules in src/core/endpoint.ts); a bad one is a usage error naming the setting. */
export function gkeEndpoint(endpoint: string): Endpoint {
  const parsed = parseEndpoint(endpoint)
  if ('problem' in parsed) {
    throw new UsageError(`--gke-endpoint "${redactCredentials(escapeInline(endpoint))}": ${parsed.problem}.`, {
      flag: '--gke-endpoint',
    })
  }
  return parsed
}

/**
 * Creates the real GKE client. Plain http (a loopback test server) sends no credentials; a static token is sent as
 * it is; otherwise google-auth-library is imported for Application Default Credentials.
 */
export async function createGkeClient(connection: GkeConnection = {}): Promise<GkeClient> {
  const root = connection.endpoint ? gkeBase(connection.endpoint) : {base: DEFAULT_BASE, insecure: false}
  const rest = await connectRest(root, connection, (failure, context) =>
    gkeApiError({code: failureCode(failure), message: failure.message}, context),
  )
  const betaRoot = betaBase(root.base)
  return new ContainerApiClient(rest, betaRoot === null ? null : rest.rebased(betaRoot), root.base)
}

/** The API root for an endpoint override: `v1/` under its host, or the path it gives (e.g. a proxy's). */
function gkeBase(endpoint: string): {base: string; insecure: boolean} {
  const {origin, path, insecure} = gkeEndpoint(endpoint)
  return {base: `${origin}${path === '/' ? '/v1/' : path}`, insecure}
}

/**
 * GKE's v1beta1 root beside a v1 root (`.../v1/` becomes `.../v1beta1/`, as gcloud's `beta` commands reach it); null
 * for an override whose path ends otherwise (a proxy's own path), where no sibling can be named.
 */
export function betaBase(base: string): string | null {
  return /\/v1\/$/.test(base) ? `${base.slice(0, -'v1/'.length)}v1beta1/` : null
}

const segment = encodeURIComponent
const path = {
  location: (project: string, location: string) => `projects/${segment(project)}/locations/${segment(location)}`,
  cluster: (ref: ClusterRef) => `${path.location(ref.project, ref.location)}/clusters/${segment(ref.name)}`,
  pool: (ref: ClusterRef, pool: string) => `${path.cluster(ref)}/nodePools/${segment(pool)}`,
}

/** The REST API sends enums by name and leaves out default values; absent values get the fallback. */
function enumName(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback
}

/** Where AddonsConfig keeps each CSI driver's `{enabled}`. */
const ADDON_CONFIG = {
  GcsFuseCsiDriver: 'gcsFuseCsiDriverConfig',
  GcpFilestoreCsiDriver: 'gcpFilestoreCsiDriverConfig',
  ParallelstoreCsiDriver: 'parallelstoreCsiDriverConfig',
  GcePersistentDiskCsiDriver: 'gcePersistentDiskCsiDriverConfig',
  LustreCsiDriver: 'lustreCsiDriverConfig',
} as const satisfies Record<CsiDriver, keyof ApiAddonsConfig>

const TAINT_EFFECT = {
  NoSchedule: 'NO_SCHEDULE',
  PreferNoSchedule: 'PREFER_NO_SCHEDULE',
  NoExecute: 'NO_EXECUTE',
} as const

/**
 * The library's own retries are gone with the library: src/executor/retry.ts is the only retry policy. The
 * request timeout (GoogleRest) bounds one attempt.
 */
class ContainerApiClient implements GkeClient {
  constructor(
    private readonly rest: GoogleRest,
    /** v1beta1 beside `rest`; null when the endpoint override's path has no v1 segment to replace. */
    private readonly betaRest: GoogleRest | null,
    private readonly base: string,
  ) {}

  /** The v1beta1 client, for the requests only it has; an endpoint override without a v1 root cannot reach it. */
  private beta(why: string): GoogleRest {
    if (this.betaRest) return this.betaRest
    throw new UsageError(
      `--gke-endpoint ${redactCredentials(escapeInline(this.base))} does not end in /v1/, so GKE's v1beta1 API, which ${why} needs, cannot be reached beside it.`,
      {
        flag: '--gke-endpoint',
        hints: ['Give the endpoint as https://HOST/ or with a path ending in /v1/; xpk puts v1beta1/ in place of v1/.'],
      },
    )
  }

  private async get<T>(resource: string, context: ApiContext): Promise<T> {
    return this.rest.json<T>(await this.rest.request('GET', resource, context), context)
  }

  /** GET of one resource; undefined when it does not exist. */
  private async getOrMissing<T>(resource: string, context: ApiContext): Promise<T | undefined> {
    const reply = await this.rest.request('GET', resource, context, {answers: [404]})
    return reply.status === 404 ? undefined : this.rest.json<T>(reply, context)
  }

  private async send(method: 'POST' | 'PUT' | 'DELETE', resource: string, context: ApiContext, body?: object) {
    const reply = await this.rest.request(method, resource, context, body ? {body} : {})
    return this.rest.json<ApiOperation>(reply, context)
  }

  async getServerConfig(project: string, location: string): Promise<ServerConfig> {
    const config = await this.get<ApiServerConfig>(`${path.location(project, location)}/serverConfig`, {
      action: 'read the GKE server config',
      project,
      location,
    })
    const channels: Record<string, {defaultVersion: string; validVersions: string[]}> = {}
    for (const c of config.channels ?? []) {
      const name = enumName(c.channel, 'UNSPECIFIED')
      channels[name] = {defaultVersion: c.defaultVersion ?? '', validVersions: [...(c.validVersions ?? [])]}
    }
    return {
      defaultVersion: config.defaultClusterVersion ?? '',
      validMasterVersions: [...(config.validMasterVersions ?? [])],
      validNodeVersions: [...(config.validNodeVersions ?? [])],
      channels,
    }
  }

  async listClusters(project: string, location?: string): Promise<ObservedCluster[]> {
    const response = await this.get<{clusters?: ApiCluster[]}>(`${path.location(project, location ?? '-')}/clusters`, {
      action: 'list clusters',
      project,
      location: location ?? '-',
    })
    return (response.clusters ?? []).map((c) => this.toCluster(project, c))
  }

  async getCluster(ref: ClusterRef): Promise<ObservedCluster | undefined> {
    const context = {action: `read cluster ${ref.name}`, project: ref.project, location: ref.location}
    const cluster = await this.getOrMissing<ApiCluster>(path.cluster(ref), context)
    return cluster && this.toCluster(ref.project, cluster)
  }

  async createCluster(spec: ClusterSpec): Promise<GkeOperation> {
    const cluster = toApiCluster(spec)
    const context = {action: `create cluster ${spec.name}`, project: spec.project, location: spec.region}
    const operation = await this.send('POST', `${path.location(spec.project, spec.region)}/clusters`, context, {
      cluster,
    })
    return this.toOperation(spec.project, spec.region, operation)
  }

  async deleteCluster(ref: ClusterRef): Promise<GkeOperation> {
    const context = {action: `delete cluster ${ref.name}`, project: ref.project, location: ref.location}
    const operation = await this.send('DELETE', path.cluster(ref), context)
    return this.toOperation(ref.project, ref.location, operation)
  }

  async setResourceLabels(
    ref: ClusterRef,
    labels: Readonly<Record<string, string>>,
    fingerprint: string,
  ): Promise<GkeOperation> {
    const context = {action: `set the labels of cluster ${ref.name}`, project: ref.project, location: ref.location}
    const operation = await this.send('POST', `${path.cluster(ref)}:setResourceLabels`, context, {
      resourceLabels: {...labels},
      labelFingerprint: fingerprint,
    })
    return this.toOperation(ref.project, ref.location, operation)
  }

  async updateCluster(ref: ClusterRef, update: ClusterUpdate): Promise<GkeOperation> {
    const what = {
      addons: () => `enable ${update.kind === 'addons' ? update.enable.join(', ') : ''} on`,
      workloadIdentity: () => 'enable Workload Identity on',
      autoprovisioning: () => 'set node auto-provisioning of',
      rayOperator: () => 'enable the Ray operator on',
    }[update.kind]()
    const context = {action: `${what} cluster ${ref.name}`, project: ref.project, location: ref.location}
    const operation = await this.send('PUT', path.cluster(ref), context, {update: toApiClusterUpdate(update)})
    return this.toOperation(ref.project, ref.location, operation)
  }

  async listNodePools(ref: ClusterRef, options: NodePoolReadOptions = {}): Promise<ObservedNodePool[]> {
    const context = {action: `list node pools of ${ref.name}`, project: ref.project, location: ref.location}
    const rest = options.hostMaintenance ? this.beta('reading the host maintenance interval of node pools') : this.rest
    const response = rest.json<{nodePools?: BetaNodePool[]}>(
      await rest.request('GET', `${path.cluster(ref)}/nodePools`, context),
      context,
    )
    return (response.nodePools ?? []).map((p) => this.readPool(p, options))
  }

  async getNodePool(
    ref: ClusterRef,
    name: string,
    options: NodePoolReadOptions = {},
  ): Promise<ObservedNodePool | undefined> {
    const context = {action: `read node pool ${name}`, project: ref.project, location: ref.location}
    const rest = options.hostMaintenance ? this.beta('reading the host maintenance interval of node pools') : this.rest
    const pool = await rest.getOrMissing<BetaNodePool>(path.pool(ref, name), context)
    return pool && this.readPool(pool, options)
  }

  async createNodePool(ref: ClusterRef, spec: NodePoolSpec): Promise<GkeOperation> {
    const context = {action: `create node pool ${spec.name}`, project: ref.project, location: ref.location}
    // Only v1beta1 has the field; AS_NEEDED is what a pool gets without it, so those pools stay on v1.
    const periodic = spec.hostMaintenanceInterval === 'PERIODIC'
    const rest = periodic ? this.beta('--host-maintenance-interval PERIODIC') : this.rest
    const reply = await rest.request('POST', `${path.cluster(ref)}/nodePools`, context, {
      body: {nodePool: periodic ? toBetaApiNodePool(spec) : toApiNodePool(spec)},
    })
    return this.toOperation(ref.project, ref.location, rest.json<ApiOperation>(reply, context))
  }

  async deleteNodePool(ref: ClusterRef, name: string): Promise<GkeOperation> {
    const context = {action: `delete node pool ${name}`, project: ref.project, location: ref.location}
    const operation = await this.send('DELETE', path.pool(ref, name), context)
    return this.toOperation(ref.project, ref.location, operation)
  }

  async updateNodePool(ref: ClusterRef, name: string, update: NodePoolUpdate): Promise<GkeOperation> {
    const context = {action: `update node pool ${name}`, project: ref.project, location: ref.location}
    const operation = await this.send('PUT', path.pool(ref, name), context, {
      workloadMetadataConfig: {mode: update.workloadMetadataMode},
    })
    return this.toOperation(ref.project, ref.location, operation)
  }

  async getOperation(project: string, location: string, name: string): Promise<GkeOperation> {
    // `name` is the operation's full resource name, as toOperation gives it.
    const operation = await this.get<ApiOperation>(name, {action: 'check an operation', project, location})
    return this.toOperation(project, location, operation)
  }

  async listOperations(project: string, location: string): Promise<GkeOperation[]> {
    const response = await this.get<{operations?: ApiOperation[]}>(`${path.location(project, location)}/operations`, {
      action: 'list operations',
      project,
      location,
    })
    return (response.operations ?? []).map((op) => this.toOperation(project, location, op))
  }

  async close(): Promise<void> {
    // Nothing to release: idle keep-alive connections do not hold the process open.
  }

  private toOperation(project: string, location: string, op: ApiOperation): GkeOperation {
    const shortName = op.name ?? ''
    const name = shortName.startsWith('projects/')
      ? shortName
      : `${path.location(project, location)}/operations/${shortName}`
    const type = enumName(op.operationType, 'TYPE_UNSPECIFIED')
    const status = enumName(op.status, 'RUNNING') as GkeOperation['status']
    const target = (op.targetLink ?? '').split('/').at(-1) ?? ''
    const failure = op.error && (op.error.code ?? 0) !== 0 ? op.error : undefined
    const error = failure
      ? gkeApiError(
          {code: failure.code ?? 2, message: failure.message || op.statusMessage || ''},
          {action: `${type.toLowerCase().replaceAll('_', ' ')} ${target}`.trim(), project, location},
        )
      : null
    return {name, type, status: status === ('STATUS_UNSPECIFIED' as string) ? 'RUNNING' : status, error}
  }

  private toCluster(project: string, c: ApiCluster): ObservedCluster {
    return {
      project,
      name: c.name ?? '',
      location: c.location ?? '',
      status: enumName(c.status, 'UNKNOWN') as ClusterStatus,
      statusMessage: c.statusMessage ?? '',
      version: c.currentMasterVersion ?? '',
      nodeLocations: [...(c.locations ?? [])],
      endpoint: c.endpoint ?? '',
      dnsEndpoint: c.controlPlaneEndpointsConfig?.dnsEndpointConfig?.endpoint || null,
      caCertificate: c.masterAuth?.clusterCaCertificate || null,
      releaseChannel: c.releaseChannel ? enumName(c.releaseChannel.channel, 'UNSPECIFIED') : null,
      privateNodes: Boolean(c.privateClusterConfig?.enablePrivateNodes),
      labels: {...(c.resourceLabels ?? {})},
      labelFingerprint: c.labelFingerprint ?? '',
      csiDrivers: CSI_DRIVERS.filter((driver) => c.addonsConfig?.[ADDON_CONFIG[driver]]?.enabled === true),
      lustreLegacyPort: c.addonsConfig?.lustreCsiDriverConfig?.enableLegacyLustrePort === true,
      // Only when on: clusters without the addon (nearly all) read as before.
      ...(c.addonsConfig?.sliceControllerConfig?.enabled === true ? {sliceController: true} : {}),
      ...(c.addonsConfig?.rayOperatorConfig?.enabled === true ? {rayOperator: true} : {}),
      workloadPool: c.workloadIdentityConfig?.workloadPool || null,
      // GKE names the network (`default`); a cluster made without one is on `default`, which GKE then reports.
      network: c.network || 'default',
      autoprovisioning: c.autoscaling?.enableNodeAutoprovisioning
        ? {
            // int64 values arrive as JSON strings.
            resourceLimits: (c.autoscaling.resourceLimits ?? []).map((l) => ({
              resourceType: l.resourceType ?? '',
              minimum: Number(l.minimum ?? 0),
              maximum: Number(l.maximum ?? 0),
            })),
            locations: [...(c.autoscaling.autoprovisioningLocations ?? [])],
          }
        : null,
      nodePools: (c.nodePools ?? []).map((p) => this.toNodePool(p)),
    }
  }

  /** A pool read through v1 (no interval reported) or v1beta1 (its interval, AS_NEEDED when it has none). */
  private readPool(p: BetaNodePool, options: NodePoolReadOptions): ObservedNodePool {
    const pool = this.toNodePool(p as ApiNodePool)
    if (!options.hostMaintenance) return pool
    return {...pool, hostMaintenanceInterval: hostMaintenanceOf(p.config)}
  }

  private toNodePool(p: ApiNodePool): ObservedNodePool {
    const config = p.config ?? {}
    const affinity = config.reservationAffinity
    const affinityType = enumName(affinity?.consumeReservationType, 'UNSPECIFIED')
    const capacity: Capacity = config.flexStart
      ? 'flex'
      : config.spot || config.preemptible
        ? 'spot'
        : affinityType === 'SPECIFIC_RESERVATION'
          ? 'reservation'
          : 'on-demand'
    const accelerator = config.accelerators?.[0]
    const placementType = enumName(p.placementPolicy?.type, 'TYPE_UNSPECIFIED')
    const metadataMode = enumName(config.workloadMetadataConfig?.mode, 'MODE_UNSPECIFIED')
    return {
      name: p.name ?? '',
      status: enumName(p.status, 'UNKNOWN') as NodePoolStatus,
      statusMessage: p.statusMessage ?? '',
      machineType: config.machineType ?? '',
      nodeCount: Number(p.initialNodeCount ?? 0),
      locations: [...(p.locations ?? [])],
      version: p.version ?? '',
      tpuTopology: p.placementPolicy?.tpuTopology || null,
      placementType: placementType === 'COMPACT' ? 'COMPACT' : null,
      placementPolicyName: p.placementPolicy?.policyName || null,
      capacity,
      reservation: capacity === 'reservation' ? (affinity?.values?.[0] ?? null) : null,
      gpu: accelerator?.acceleratorType
        ? {type: accelerator.acceleratorType, count: Number(accelerator.acceleratorCount ?? 0)}
        : null,
      autoscaling: p.autoscaling
        ? {
            enabled: Boolean(p.autoscaling.enabled),
            minNodes: Number(p.autoscaling.minNodeCount ?? 0),
            maxNodes: Number(p.autoscaling.maxNodeCount ?? 0),
          }
        : null,
      workloadMetadataMode:
        metadataMode === 'GKE_METADATA' || metadataMode === 'GCE_METADATA'
          ? (metadataMode as WorkloadMetadataMode)
          : null,
      ...(p.networkConfig?.additionalNodeNetworkConfigs?.length
        ? {additionalNodeNetworks: p.networkConfig.additionalNodeNetworkConfigs.map((c) => c.network ?? '')}
        : {}),
    }
  }
}

/** The addons config that enables `drivers` (and only mentions them: an update leaves the others as they are). */
function toApiAddonsConfig(drivers: readonly CsiDriver[], lustreLegacyPort: boolean): ApiAddonsConfig {
  const config: ApiAddonsConfig = {}
  for (const driver of drivers) config[ADDON_CONFIG[driver]] = {enabled: true}
  if (drivers.includes('LustreCsiDriver') && lustreLegacyPort) {
    config.lustreCsiDriverConfig = {enabled: true, enableLegacyLustrePort: true}
  }
  return config
}

/** Maps one change of an existing cluster to the ClusterUpdate message, which carries exactly one field. */
export function toApiClusterUpdate(update: ClusterUpdate): ApiClusterUpdate {
  switch (update.kind) {
    case 'addons':
      return {desiredAddonsConfig: toApiAddonsConfig(update.enable, update.lustreLegacyPort)}
    case 'workloadIdentity':
      return {desiredWorkloadIdentityConfig: {workloadPool: update.workloadPool}}
    case 'autoprovisioning':
      return {desiredClusterAutoscaling: toApiClusterAutoscaling(update.autoscalingProfile, update.autoprovisioning)}
    case 'rayOperator':
      // Only this addon is named: GKE leaves the others as they are.
      return {desiredAddonsConfig: {rayOperatorConfig: {enabled: true}}}
  }
}

/**
 * The cluster autoscaling message: the profile, and node auto-provisioning when asked for (as gcloud builds it from
 * `--enable-autoprovisioning --autoprovisioning-config-file`: the file's limits, scopes, management and zones; no
 * service account, so GKE's default applies).
 */
export function toApiClusterAutoscaling(
  profile: ClusterSpec['autoscalingProfile'],
  nap: AutoprovisioningSpec | null,
): ApiClusterAutoscaling {
  return {
    autoscalingProfile: profile,
    ...(nap
      ? {
          enableNodeAutoprovisioning: true,
          resourceLimits: nap.resourceLimits.map((l) => ({...l})),
          autoprovisioningNodePoolDefaults: {
            oauthScopes: [...nap.oauthScopes],
            management: {autoRepair: nap.management.autoRepair, autoUpgrade: nap.management.autoUpgrade},
          },
          autoprovisioningLocations: [...nap.locations],
        }
      : {}),
  }
}

/** Maps a desired node pool to the API message: a pure mapping, every value decided in the core's spec. */
export function toApiNodePool(spec: NodePoolSpec): ApiNodePool {
  const custom = spec.custom
  const flex = spec.capacity === 'flex'
  const placement = spec.placementPolicy
  return {
    name: spec.name,
    initialNodeCount: spec.nodeCount,
    locations: [...spec.locations],
    ...(spec.version ? {version: spec.version} : {}),
    config: {
      machineType: spec.machineType,
      oauthScopes: [...spec.oauthScopes],
      labels: {...spec.labels},
      gvnic: {enabled: spec.gvnic},
      ...(spec.capacity === 'spot' ? {spot: true} : {}),
      ...(flex ? {flexStart: true, reservationAffinity: {consumeReservationType: 'NO_RESERVATION'}} : {}),
      ...(spec.capacity === 'reservation' && spec.reservation
        ? {
            reservationAffinity: {
              consumeReservationType: 'SPECIFIC_RESERVATION',
              key: 'compute.googleapis.com/reservation-name',
              values: [spec.reservation],
            },
          }
        : {}),
      ...(spec.gpu
        ? {
            accelerators: [
              {
                acceleratorType: spec.gpu.type,
                acceleratorCount: spec.gpu.count,
                gpuDriverInstallationConfig: {gpuDriverVersion: spec.gpu.driverVersion},
              },
            ],
          }
        : {}),
      ...(custom.taints
        ? {taints: custom.taints.map((t) => ({key: t.key, value: t.value, effect: TAINT_EFFECT[t.effect]}))}
        : {}),
      ...(custom.tags ? {tags: [...custom.tags]} : {}),
      ...(custom.metadata ? {metadata: {...custom.metadata}} : {}),
      ...(custom.diskType ? {diskType: custom.diskType} : {}),
      ...(custom.diskSizeGb ? {diskSizeGb: custom.diskSizeGb} : {}),
      ...(custom.imageType ? {imageType: custom.imageType} : {}),
      ...(custom.serviceAccount ? {serviceAccount: custom.serviceAccount} : {}),
      ...(custom.minCpuPlatform ? {minCpuPlatform: custom.minCpuPlatform} : {}),
      ...(spec.workloadMetadataMode ? {workloadMetadataConfig: {mode: spec.workloadMetadataMode}} : {}),
    },
    ...(placement?.type === 'compact' ? {placementPolicy: {type: 'COMPACT', tpuTopology: placement.tpuTopology}} : {}),
    ...(placement?.type === 'workload-policy' ? {placementPolicy: {policyName: placement.name}} : {}),
    ...(spec.maxPodsPerNode ? {maxPodsConstraint: {maxPodsPerNode: spec.maxPodsPerNode}} : {}),
    ...(spec.flexMaxNodes !== null
      ? {
          autoscaling: {
            enabled: true,
            minNodeCount: 0,
            maxNodeCount: spec.flexMaxNodes,
            locationPolicy: spec.autoscalingLocationPolicy ?? 'ANY',
          },
        }
      : spec.autoscaling
        ? {
            autoscaling: {
              enabled: true,
              minNodeCount: spec.autoscaling.minNodes,
              maxNodeCount: spec.autoscaling.maxNodes,
            },
          }
        : {}),
    management: {autoRepair: spec.management.autoRepair, autoUpgrade: spec.management.autoUpgrade},
    ...(spec.queuedProvisioning ? {queuedProvisioning: {enabled: true}} : {}),
    ...(spec.acceleratorNetworkProfile || spec.additionalNodeNetworks?.length
      ? {
          networkConfig: {
            ...(spec.acceleratorNetworkProfile ? {acceleratorNetworkProfile: spec.acceleratorNetworkProfile} : {}),
            ...(spec.additionalNodeNetworks?.length
              ? {additionalNodeNetworkConfigs: spec.additionalNodeNetworks.map((n) => ({...n}))}
              : {}),
          },
        }
      : {}),
  }
}

/**
 * The v1beta1 node pool of a spec: the v1 message (the fields are the same in both versions) plus
 * `config.hostMaintenancePolicy`, which only v1beta1 has.
 */
export function toBetaApiNodePool(spec: NodePoolSpec): BetaNodePool {
  const pool = toApiNodePool(spec) as BetaNodePool
  const config: BetaNodeConfig = {
    ...pool.config,
    hostMaintenancePolicy: {
      maintenanceInterval: spec.hostMaintenanceInterval as unknown as BetaMaintenanceInterval,
    },
  }
  return {...pool, config}
}

type BetaMaintenanceInterval = protos.google.container.v1beta1.HostMaintenancePolicy.MaintenanceInterval

/** A v1beta1 pool's interval: the one it was given, or AS_NEEDED, which GKE applies when none was given. */
function hostMaintenanceOf(config: BetaNodeConfig | null | undefined): HostMaintenanceInterval {
  const interval = enumName(config?.hostMaintenancePolicy?.maintenanceInterval, 'MAINTENANCE_INTERVAL_UNSPECIFIED')
  return interval === 'PERIODIC' ? 'PERIODIC' : 'AS_NEEDED'
}

/** Enum values as the REST API takes them, by name (the message types declare the numbers). */
function enumNames<E>(names: readonly string[]): E[] {
  return [...names] as unknown as E[]
}

/** Maps the desired cluster to the API message: a pure mapping, every value decided in the core's spec. */
export function toApiCluster(spec: ClusterSpec): ApiCluster {
  const custom = spec.custom
  const defaultPoolExtras = {
    ...(custom.imageType ? {imageType: custom.imageType} : {}),
    ...(custom.diskType ? {diskType: custom.diskType} : {}),
    ...(custom.diskSizeGb ? {diskSizeGb: custom.diskSizeGb} : {}),
    ...(custom.serviceAccount ? {serviceAccount: custom.serviceAccount} : {}),
    ...(custom.tags ? {tags: [...custom.tags]} : {}),
    ...(custom.enableImageStreaming ? {gcfsConfig: {enabled: true}} : {}),
  }
  const ipAllocation = {
    ...(custom.clusterIpv4Cidr ? {clusterIpv4CidrBlock: custom.clusterIpv4Cidr} : {}),
    ...(custom.servicesIpv4Cidr ? {servicesIpv4CidrBlock: custom.servicesIpv4Cidr} : {}),
    ...(custom.clusterSecondaryRangeName ? {clusterSecondaryRangeName: custom.clusterSecondaryRangeName} : {}),
    ...(custom.servicesSecondaryRangeName ? {servicesSecondaryRangeName: custom.servicesSecondaryRangeName} : {}),
    ...(custom.stackType ? {stackType: custom.stackType} : {}),
  }
  return {
    name: spec.name,
    ...(custom.description ? {description: custom.description} : {}),
    initialClusterVersion: spec.version ?? '',
    releaseChannel: {channel: spec.releaseChannel},
    locations: [spec.zone],
    resourceLabels: {...custom.labels, ...spec.labels},
    nodePools: [
      {
        name: 'default-pool',
        initialNodeCount: spec.defaultPool.nodeCount,
        config: {
          machineType: spec.defaultPool.machineType,
          oauthScopes: [...spec.defaultPool.oauthScopes],
          ...defaultPoolExtras,
        },
        autoscaling: {
          enabled: true,
          totalMinNodeCount: spec.defaultPool.minNodes,
          totalMaxNodeCount: spec.defaultPool.maxNodes,
          locationPolicy: spec.defaultPool.locationPolicy,
        },
        management: {autoUpgrade: spec.autoUpgrade, autoRepair: spec.defaultPool.autoRepair},
      },
    ],
    autoscaling: toApiClusterAutoscaling(spec.autoscalingProfile, spec.autoprovisioning),
    ipAllocationPolicy: {useIpAliases: spec.networking.ipAliases, ...ipAllocation},
    networkConfig: {
      datapathProvider: spec.networking.dataplaneV2 ? 'ADVANCED_DATAPATH' : 'LEGACY_DATAPATH',
      enableMultiNetworking: spec.networking.multiNetworking,
      ...(custom.enableIntraNodeVisibility ? {enableIntraNodeVisibility: true} : {}),
      ...(custom.enableL4IlbSubsetting ? {enableL4ilbSubsetting: true} : {}),
      ...(custom.gatewayApi
        ? {gatewayApiConfig: {channel: custom.gatewayApi === 'standard' ? 'CHANNEL_STANDARD' : 'CHANNEL_DISABLED'}}
        : {}),
    },
    ...(custom.defaultMaxPodsPerNode ? {defaultMaxPodsConstraint: {maxPodsPerNode: custom.defaultMaxPodsPerNode}} : {}),
    ...(custom.enableShieldedNodes !== undefined ? {shieldedNodes: {enabled: custom.enableShieldedNodes}} : {}),
    ...(custom.loggingComponents
      ? {loggingConfig: {componentConfig: {enableComponents: enumNames(custom.loggingComponents)}}}
      : {}),
    ...(custom.monitoringComponents || custom.enableManagedPrometheus !== undefined
      ? {
          monitoringConfig: {
            ...(custom.monitoringComponents
              ? {componentConfig: {enableComponents: enumNames(custom.monitoringComponents)}}
              : {}),
            ...(custom.enableManagedPrometheus !== undefined
              ? {managedPrometheusConfig: {enabled: custom.enableManagedPrometheus}}
              : {}),
          },
        }
      : {}),
    ...(custom.maintenanceWindowStart
      ? {maintenancePolicy: {window: {dailyMaintenanceWindow: {startTime: custom.maintenanceWindowStart}}}}
      : {}),
    ...(custom.databaseEncryptionKey
      ? {databaseEncryption: {state: 'ENCRYPTED', keyName: custom.databaseEncryptionKey}}
      : {}),
    ...(custom.enableCostAllocation ? {costManagementConfig: {enabled: true}} : {}),
    ...(custom.securityGroup ? {authenticatorGroupsConfig: {enabled: true, securityGroup: custom.securityGroup}} : {}),
    ...(spec.network ? {network: spec.network} : {}),
    ...(spec.subnetwork ? {subnetwork: spec.subnetwork} : {}),
    controlPlaneEndpointsConfig: {dnsEndpointConfig: {allowExternalTraffic: spec.dnsEndpoint}},
    ...(spec.csiDrivers.length > 0 || spec.sliceController || spec.rayOperator
      ? {
          addonsConfig: {
            ...toApiAddonsConfig(spec.csiDrivers, spec.lustreLegacyPort),
            ...(spec.sliceController ? {sliceControllerConfig: {enabled: true}} : {}),
            ...(spec.rayOperator ? {rayOperatorConfig: {enabled: true}} : {}),
          },
        }
      : {}),
    ...(spec.workloadPool ? {workloadIdentityConfig: {workloadPool: spec.workloadPool}} : {}),
    ...(spec.private
      ? {
          privateClusterConfig: {
            enablePrivateNodes: spec.private.enablePrivateNodes,
            enablePrivateEndpoint: spec.private.enablePrivateEndpoint,
            ...(spec.private.privateEndpointSubnetwork
              ? {privateEndpointSubnetwork: spec.private.privateEndpointSubnetwork}
              : {}),
            masterGlobalAccessConfig: {enabled: spec.private.masterGlobalAccess},
            ...(custom.masterIpv4Cidr ? {masterIpv4CidrBlock: custom.masterIpv4Cidr} : {}),
          },
          masterAuthorizedNetworksConfig: custom.masterAuthorizedNetworksOff
            ? {enabled: false}
            : {
                enabled: true,
                cidrBlocks: spec.private.authorizedNetworks.map((cidrBlock) => ({cidrBlock})),
              },
        }
      : {}),
  }
}
