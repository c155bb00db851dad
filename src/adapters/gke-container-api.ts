import type {ClusterManagerClient as ClusterManagerClientType, protos} from '@google-cloud/container'

import {gkeApiError} from '../core/cluster/gke-errors.js'
import type {ClusterStatus, NodePoolStatus} from '../core/cluster/observed.js'
import type {Capacity, ClusterSpec, NodePoolSpec} from '../core/cluster/spec.js'
import {parseEndpoint, type Endpoint} from '../core/endpoint.js'
import {UsageError, XpkError} from '../core/errors.js'
import type {
  ClusterRef,
  GkeClient,
  GkeOperation,
  ObservedCluster,
  ObservedNodePool,
  ServerConfig,
} from '../ports/gke.js'

type ApiCluster = protos.google.container.v1.ICluster
type ApiNodePool = protos.google.container.v1.INodePool
type ApiOperation = protos.google.container.v1.IOperation

/** How to reach the GKE API. */
export interface GkeConnection {
  /**
   * Endpoint override, like gcloud's `api_endpoint_overrides/container`: `https://HOST[:PORT]/` for a private or
   * regional endpoint, or `http://127.0.0.1:PORT` (loopback only) for a local test server.
   */
  readonly endpoint?: string
  /** A static OAuth access token; used instead of Application Default Credentials (no metadata lookups). */
  readonly accessToken?: string
}

/** Parses the GKE endpoint override (rules in src/core/endpoint.ts); a bad one is a usage error naming the setting. */
export function gkeEndpoint(endpoint: string): Endpoint {
  const parsed = parseEndpoint(endpoint)
  if ('problem' in parsed) {
    throw new UsageError(`--gke-endpoint "${endpoint}": ${parsed.problem}.`, {flag: '--gke-endpoint'})
  }
  return parsed
}

/**
 * Creates the real GKE client. The SDK is imported here, lazily, so other commands never load it. Two things
 * halve its start-up cost (about 600 ms to 300 ms): the v1 client module is imported on its own (the package index
 * also loads v1beta1), and the client is given a gax whose proto loader drops the v1beta1 half of the bundled
 * protos before parsing them (passed as the constructor's documented `gaxInstance` argument).
 */
export async function createGkeClient(connection: GkeConnection = {}): Promise<GkeClient> {
  const [{ClusterManagerClient}, gax] = await Promise.all([
    // Deep import: the package has no "exports" map, and its index would also load v1beta1 and the 80 ms protos.js.
    import('@google-cloud/container/build/src/v1/cluster_manager_client.js'),
    import('google-gax'),
  ])
  class V1OnlyGrpcClient extends gax.GrpcClient {
    override loadProtoJSON(
      json: Parameters<InstanceType<typeof gax.GrpcClient>['loadProtoJSON']>[0],
      ignoreCache = false,
    ) {
      return super.loadProtoJSON(withoutV1beta1(json), ignoreCache)
    }
  }
  const options: Record<string, string | number | object> = {}
  if (connection.endpoint) {
    const {host, port, insecure} = gkeEndpoint(connection.endpoint)
    Object.assign(options, {apiEndpoint: host, port})
    // Without an explicit universe domain the client asks ADC for one, which probes the GCE metadata server.
    options.universeDomain = 'googleapis.com'
    if (insecure) options.sslCreds = gax.grpc.credentials.createInsecure()
  }
  if (connection.accessToken) {
    const auth = new gax.googleAuthLibrary.OAuth2Client()
    auth.setCredentials({access_token: connection.accessToken})
    Object.assign(options, {authClient: auth, universeDomain: 'googleapis.com'})
  }
  return new ContainerApiClient(new ClusterManagerClient(options, {...gax, GrpcClient: V1OnlyGrpcClient}))
}

/** The bundled protos minus google.container.v1beta1, which the v1 client never uses. */
function withoutV1beta1<T>(json: T): T {
  const container = (json as {nested?: {google?: {nested?: {container?: {nested?: Record<string, unknown>}}}}}).nested
    ?.google?.nested?.container
  if (!container?.nested?.v1beta1) return json
  const {v1beta1: _dropped, ...rest} = container.nested
  const google = (json as {nested: {google: {nested: Record<string, unknown>}}}).nested.google
  return {
    ...json,
    nested: {
      ...(json as {nested: object}).nested,
      google: {...google, nested: {...google.nested, container: {...container, nested: rest}}},
    },
  } as T
}

/**
 * Options of every call: the library's own retries are off (it would retry reads and deletes for up to 600 s,
 * stacked under xpk's retry policy and deaf to Ctrl-C), so src/executor/retry.ts is the only retry policy. The
 * timeout bounds one attempt.
 */
const CALL = {retry: null, timeout: 60_000} as const

const path = {
  location: (project: string, location: string) => `projects/${project}/locations/${location}`,
  cluster: (ref: ClusterRef) => `projects/${ref.project}/locations/${ref.location}/clusters/${ref.name}`,
  pool: (ref: ClusterRef, pool: string) => `${path.cluster(ref)}/nodePools/${pool}`,
}

/** gax decodes enums as their names (proto-loader `enums: String`); absent values get the fallback. */
function enumName(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback
}

const TAINT_EFFECT = {
  NoSchedule: 'NO_SCHEDULE',
  PreferNoSchedule: 'PREFER_NO_SCHEDULE',
  NoExecute: 'NO_EXECUTE',
} as const

class ContainerApiClient implements GkeClient {
  constructor(private readonly client: ClusterManagerClientType) {}

  private async call<T>(action: string, project: string, location: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      const e = error as {code?: unknown; details?: string; message?: string}
      if (typeof e.code === 'number') {
        throw gkeApiError({code: e.code, message: e.details || e.message || ''}, {action, project, location})
      }
      if (
        /default credentials|could not refresh access token|invalid_grant|unable to detect a project/i.test(
          e.message ?? '',
        )
      ) {
        throw new XpkError(
          'auth',
          `Could not ${action}: no usable Google Cloud credentials (${e.message?.split('\n')[0]}).`,
          {
            hints: [
              'Run `gcloud auth application-default login`, or point GOOGLE_APPLICATION_CREDENTIALS at a service-account key.',
            ],
            cause: error,
          },
        )
      }
      throw error
    }
  }

  private async callOrMissing<T>(
    action: string,
    project: string,
    location: string,
    run: () => Promise<T>,
  ): Promise<T | undefined> {
    try {
      return await this.call(action, project, location, run)
    } catch (error) {
      if (error instanceof XpkError && error.kind === 'not-found') return undefined
      throw error
    }
  }

  async getServerConfig(project: string, location: string): Promise<ServerConfig> {
    const [config] = await this.call('read the GKE server config', project, location, () =>
      this.client.getServerConfig({name: path.location(project, location)}, CALL),
    )
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
    const [response] = await this.call('list clusters', project, location ?? '-', () =>
      this.client.listClusters({parent: path.location(project, location ?? '-')}, CALL),
    )
    return (response.clusters ?? []).map((c) => this.toCluster(project, c))
  }

  async getCluster(ref: ClusterRef): Promise<ObservedCluster | undefined> {
    const result = await this.callOrMissing(`read cluster ${ref.name}`, ref.project, ref.location, () =>
      this.client.getCluster({name: path.cluster(ref)}, CALL),
    )
    return result && this.toCluster(ref.project, result[0])
  }

  async createCluster(spec: ClusterSpec): Promise<GkeOperation> {
    const cluster = toApiCluster(spec)
    const [operation] = await this.call(`create cluster ${spec.name}`, spec.project, spec.region, () =>
      this.client.createCluster({parent: path.location(spec.project, spec.region), cluster}, CALL),
    )
    return this.toOperation(spec.project, spec.region, operation)
  }

  async deleteCluster(ref: ClusterRef): Promise<GkeOperation> {
    const [operation] = await this.call(`delete cluster ${ref.name}`, ref.project, ref.location, () =>
      this.client.deleteCluster({name: path.cluster(ref)}, CALL),
    )
    return this.toOperation(ref.project, ref.location, operation)
  }

  async listNodePools(ref: ClusterRef): Promise<ObservedNodePool[]> {
    const [response] = await this.call(`list node pools of ${ref.name}`, ref.project, ref.location, () =>
      this.client.listNodePools({parent: path.cluster(ref)}, CALL),
    )
    return (response.nodePools ?? []).map((p) => this.toNodePool(p))
  }

  async getNodePool(ref: ClusterRef, name: string): Promise<ObservedNodePool | undefined> {
    const result = await this.callOrMissing(`read node pool ${name}`, ref.project, ref.location, () =>
      this.client.getNodePool({name: path.pool(ref, name)}, CALL),
    )
    return result && this.toNodePool(result[0])
  }

  async createNodePool(ref: ClusterRef, spec: NodePoolSpec): Promise<GkeOperation> {
    const [operation] = await this.call(`create node pool ${spec.name}`, ref.project, ref.location, () =>
      this.client.createNodePool({parent: path.cluster(ref), nodePool: toApiNodePool(spec)}, CALL),
    )
    return this.toOperation(ref.project, ref.location, operation)
  }

  async deleteNodePool(ref: ClusterRef, name: string): Promise<GkeOperation> {
    const [operation] = await this.call(`delete node pool ${name}`, ref.project, ref.location, () =>
      this.client.deleteNodePool({name: path.pool(ref, name)}, CALL),
    )
    return this.toOperation(ref.project, ref.location, operation)
  }

  async getOperation(project: string, location: string, name: string): Promise<GkeOperation> {
    const [operation] = await this.call('check an operation', project, location, () =>
      this.client.getOperation({name}, CALL),
    )
    return this.toOperation(project, location, operation)
  }

  async listOperations(project: string, location: string): Promise<GkeOperation[]> {
    const [response] = await this.call('list operations', project, location, () =>
      this.client.listOperations({parent: path.location(project, location)}, CALL),
    )
    return (response.operations ?? []).map((op) => this.toOperation(project, location, op))
  }

  async close(): Promise<void> {
    await this.client.close()
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
      releaseChannel: c.releaseChannel ? enumName(c.releaseChannel.channel, 'UNSPECIFIED') : null,
      privateNodes: Boolean(c.privateClusterConfig?.enablePrivateNodes),
      labels: {...(c.resourceLabels ?? {})},
      nodePools: (c.nodePools ?? []).map((p) => this.toNodePool(p)),
    }
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
    }
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
      ...(custom.workloadMetadataMode ? {workloadMetadataConfig: {mode: custom.workloadMetadataMode}} : {}),
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
      : {}),
    management: {autoRepair: spec.management.autoRepair, autoUpgrade: spec.management.autoUpgrade},
    ...(spec.queuedProvisioning ? {queuedProvisioning: {enabled: true}} : {}),
    ...(spec.acceleratorNetworkProfile
      ? {networkConfig: {acceleratorNetworkProfile: spec.acceleratorNetworkProfile}}
      : {}),
  }
}

/** Maps the desired cluster to the API message: a pure mapping, every value decided in the core's spec. */
export function toApiCluster(spec: ClusterSpec): ApiCluster {
  return {
    name: spec.name,
    initialClusterVersion: spec.version ?? '',
    releaseChannel: {channel: spec.releaseChannel},
    locations: [spec.zone],
    resourceLabels: {...spec.labels},
    nodePools: [
      {
        name: 'default-pool',
        initialNodeCount: spec.defaultPool.nodeCount,
        config: {
          machineType: spec.defaultPool.machineType,
          oauthScopes: [...spec.defaultPool.oauthScopes],
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
    autoscaling: {autoscalingProfile: spec.autoscalingProfile},
    ipAllocationPolicy: {useIpAliases: spec.networking.ipAliases},
    networkConfig: {
      datapathProvider: spec.networking.dataplaneV2 ? 'ADVANCED_DATAPATH' : 'LEGACY_DATAPATH',
      enableMultiNetworking: spec.networking.multiNetworking,
    },
    ...(spec.network ? {network: spec.network} : {}),
    ...(spec.subnetwork ? {subnetwork: spec.subnetwork} : {}),
    controlPlaneEndpointsConfig: {dnsEndpointConfig: {allowExternalTraffic: spec.dnsEndpoint}},
    ...(spec.private
      ? {
          privateClusterConfig: {
            enablePrivateNodes: spec.private.enablePrivateNodes,
            enablePrivateEndpoint: spec.private.enablePrivateEndpoint,
            ...(spec.private.privateEndpointSubnetwork
              ? {privateEndpointSubnetwork: spec.private.privateEndpointSubnetwork}
              : {}),
            masterGlobalAccessConfig: {enabled: spec.private.masterGlobalAccess},
          },
          masterAuthorizedNetworksConfig: {
            enabled: true,
            cidrBlocks: spec.private.authorizedNetworks.map((cidrBlock) => ({cidrBlock})),
          },
        }
      : {}),
  }
}
