// A test double of the GKE ClusterManager v1 API, served over real gRPC from the .proto files that ship with
// @google-cloud/container, so the production ClusterManagerClient runs against it unmodified, and over the REST
// mapping of the same protos (rest-front.ts), which is how xpk itself talks to GKE.
// Behaviour spec: fake-gke.md next to this file.
import {createRequire} from 'node:module'
import path from 'node:path'
import * as grpc from '@grpc/grpc-js'

import {Running, serveWithFaults, takeFault, Timers, type Fault} from './fake-server.js'
import {gkeSays, LABEL_KEY_RE, LABEL_VALUE_RE, labelFingerprint} from './gke-wording.js'
import {routeUnary, startGrpcServer} from './grpc-server.js'
import {startRestFront, type DecodeOptions, type RestFront} from './rest-front.js'
import * as protoLoader from '@grpc/proto-loader'
import type {protos} from '@google-cloud/container'

type V1 = typeof protos.google.container.v1
type Cluster = protos.google.container.v1.ICluster
type NodePool = protos.google.container.v1.INodePool
type Operation = protos.google.container.v1.IOperation
type ServerConfig = protos.google.container.v1.IServerConfig

export type ClusterStatus = keyof V1['Cluster']['Status']
export type NodePoolStatus = keyof V1['NodePool']['Status']
export type OperationStatus = keyof V1['Operation']['Status']
export type OperationType =
  | 'CREATE_CLUSTER'
  | 'DELETE_CLUSTER'
  | 'UPDATE_CLUSTER'
  | 'CREATE_NODE_POOL'
  | 'DELETE_NODE_POOL'
  | 'UPGRADE_NODES'
  | 'SET_NODE_POOL_SIZE'
  | 'SET_LABELS'
export type Channel = 'RAPID' | 'REGULAR' | 'STABLE'

export type ClusterState = Cluster & {name: string; location: string; status: ClusterStatus; nodePools: NodePoolState[]}
export type NodePoolState = NodePool & {name: string; status: NodePoolStatus}
export type OperationState = Operation & {
  name: string
  operationType: OperationType
  status: OperationStatus
  location: string
  error?: {code: number; message: string; details: unknown[]} | null
}

export interface ServerConfigSettings {
  channels: Record<Channel, {defaultVersion: string; validVersions: string[]}>
  defaultClusterVersion: string
  validMasterVersions: string[]
  validNodeVersions: string[]
  defaultImageType: string
  validImageTypes: string[]
}

export interface FakeGkeOptions {
  /** How long every operation stays RUNNING. Infinity: until finishOperations() or CancelOperation. */
  operationMs?: number
  operationMsByType?: Partial<Record<OperationType, number>>
  /** Running operations a cluster accepts before rejecting more (see `concurrencyLimitError`). */
  maxConcurrentOperationsPerCluster?: number
  /**
   * How the limit is reported: FAILED_PRECONDITION "incompatible operation" (older GKE wording), or
   * RESOURCE_EXHAUSTED "Too many operations ... concurrent operations quota" (GKE's 429 for node-pool operations).
   */
  concurrencyLimitError?: 'incompatible-operation' | 'too-many-operations'
  /** Added before every RPC is processed, to make call counts show up in wall-clock benchmarks. */
  rpcLatencyMs?: number
  serverConfig?: Partial<ServerConfigSettings>
  /** Written into Cluster.endpoint of created clusters. */
  clusterEndpoint?: string
  clusterCaCertificate?: string
  /**
   * Asked when a node pool names a workload placement policy (`placementPolicy.policyName`), with the policy's full
   * name `projects/P/regions/R/resourcePolicies/N`; false rejects the pool as GKE does. Unset: every policy exists.
   */
  placementPolicyExists?: (policy: string) => boolean
  /**
   * Asked for each additional node network of a new pool (`networkConfig.additionalNodeNetworkConfigs`) with the
   * project, the cluster's region, the network and the subnetwork; false rejects the pool as GKE does (the subnetwork
   * must exist in the network, in the cluster's region). Unset: every one exists.
   */
  subnetworkExists?: (project: string, region: string, network: string, subnetwork: string) => boolean
}

export type FakeGkeSettings = Required<Omit<FakeGkeOptions, 'serverConfig'>> & {serverConfig: ServerConfigSettings}

export interface CallRecord {
  method: string
  request: Record<string, unknown>
  /** Date.now() when the RPC arrived. */
  at: number
  /** gRPC status code sent back; undefined while the RPC is still being served. */
  code?: number
  /** `v1beta1` for the node-pool methods served at `/v1beta1/...` (REST only); absent for v1. */
  api?: 'v1beta1'
  details?: string
}

/** An RPC-level fault (`times`, `delayMs` and `afterApply` as every fake's: fake-server.ts). */
export interface RpcFault extends Fault {
  /** RPC name as in the proto (CreateNodePool) or '*' for any. */
  method: string
  /** Omit to only delay the RPC by delayMs. */
  code?: grpc.status
  message?: string
  match?: (request: Record<string, unknown>) => boolean
}

export interface OperationTarget {
  type: OperationType
  project: string
  location: string
  cluster: string
  nodePool?: string
  /** First zone the resource lives in, for zone-specific error messages. */
  zone: string
  request: Record<string, unknown>
}

export interface OperationFault {
  /** Any operation type when omitted. */
  type?: OperationType
  match?: (target: OperationTarget) => boolean
  /** google.rpc.Status code stored in Operation.error. Default INTERNAL. */
  code?: number
  message?: string | ((target: OperationTarget) => string)
  /** Counts down as the fault is consumed; the fault is removed at 0. Default 1. */
  times?: number
  /** Overrides the operation's duration. */
  durationMs?: number
  /** Status the cluster or node pool is left in. Default ERROR. */
  resourceStatus?: ClusterStatus & NodePoolStatus
}

export interface SeedNodePool extends NodePool {
  name: string
  status?: NodePoolStatus
}

export interface SeedCluster {
  project: string
  location: string
  name: string
  status?: ClusterStatus
  nodePools?: SeedNodePool[]
  /** Any other Cluster fields. */
  fields?: Cluster
}

/** Errors GKE reports, worded the way CLIs match on them. */
export const gkeErrors = {
  stockout(zone?: string): {code: grpc.status; message: (target: OperationTarget) => string} {
    return {
      code: grpc.status.RESOURCE_EXHAUSTED,
      message: (t) =>
        `Google Compute Engine: Not all instances running in IGM. Current errors: [GCE_STOCKOUT]: Instance creation ` +
        `failed: The zone 'projects/${t.project}/zones/${zone ?? t.zone}' does not have enough resources available ` +
        `to fulfill the request. Try a different zone, or try again later.`,
    }
  },
  quotaExceeded(metric: string, region: string, limit = 0): {code: grpc.status; message: string} {
    return {
      code: grpc.status.RESOURCE_EXHAUSTED,
      message: `Insufficient quota to satisfy the request: Quota '${metric}' exceeded. Limit: ${limit.toFixed(1)} in region ${region}.`,
    }
  },
}

const DEFAULT_CHANNELS: ServerConfigSettings['channels'] = {
  RAPID: {
    defaultVersion: '1.35.1-gke.1000000',
    validVersions: ['1.35.1-gke.1000000', '1.35.0-gke.1800000', '1.34.5-gke.1200000'],
  },
  REGULAR: {
    defaultVersion: '1.34.5-gke.1200000',
    validVersions: ['1.34.5-gke.1200000', '1.34.4-gke.1100000', '1.33.8-gke.1300000'],
  },
  STABLE: {
    defaultVersion: '1.33.8-gke.1300000',
    validVersions: ['1.33.8-gke.1300000', '1.33.7-gke.1200000', '1.32.11-gke.1100000'],
  },
}

const NAME_RE = /^[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?$/
const LOCATION_RE = /^[a-z]+(?:-[a-z]+)?\d+(?:-[a-z])?$/
/** Operations on the cluster itself: while one runs, GKE refuses every other change to the cluster and its pools. */
const CLUSTER_OPS: readonly OperationType[] = ['CREATE_CLUSTER', 'DELETE_CLUSTER', 'UPDATE_CLUSTER']
/** The ClusterUpdate fields the fake applies; it answers UNIMPLEMENTED for the others. */
const CLUSTER_UPDATES = ['desiredAddonsConfig', 'desiredWorkloadIdentityConfig', 'desiredClusterAutoscaling'] as const
/** The UpdateNodePoolRequest fields that name the pool rather than change it. */
const POOL_REQUEST_NAMES = new Set(['name', 'projectId', 'zone', 'clusterId', 'nodePoolId'])
const API = 'https://container.googleapis.com/v1/'
/**
 * The v1beta1 methods served (REST only), for what v1 lacks: node pools' `config.hostMaintenancePolicy`. They share
 * the state with v1; v1 answers leave the field out, as their messages have no such field.
 */
const V1BETA1_METHODS = ['CreateNodePool', 'GetNodePool', 'ListNodePools'] as const

class RpcError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message)
  }
}

const notFound = (name: string) => new RpcError(grpc.status.NOT_FOUND, gkeSays.notFound(name))
const invalid = (message: string) => new RpcError(grpc.status.INVALID_ARGUMENT, message)

interface ClusterRecord {
  key: string
  project: string
  location: string
  data: Cluster & {name: string; status: ClusterStatus}
  pools: Map<string, PoolRecord>
}

interface PoolRecord {
  data: NodePoolState
  /** Nodes per zone; NodePool has no field for the current size, so it lives beside the echoed message. */
  nodeCount: number
}

interface OpRecord {
  op: OperationState
  type: OperationType
  clusterKey: string
  nodePool?: string
  failure?: {code: number; message: string; resourceStatus: ClusterStatus & NodePoolStatus}
  resizeTo?: number
  /** What an update changes once it is DONE (UPDATE_CLUSTER, UPGRADE_NODES). */
  applyUpdate?: () => void
}

let cachedService: grpc.ServiceDefinition | undefined

/** How requests reach `serve`, over gRPC and REST alike. */
const DECODE: DecodeOptions = {
  longs: String,
  enums: String,
  // Without defaults the request shows exactly what the client sent, which is what the state echoes back.
  defaults: false,
  oneofs: false,
}

function loadService(): grpc.ServiceDefinition {
  if (cachedService) return cachedService
  const require = createRequire(import.meta.url)
  const containerMain = require.resolve('@google-cloud/container')
  const containerProtos = path.join(
    path.dirname(require.resolve('@google-cloud/container/package.json')),
    'build/protos',
  )
  // google-gax's "exports" hides its package.json, so locate its protos from its main file.
  const gaxProtos = path.join(path.dirname(createRequire(containerMain).resolve('google-gax')), '../protos')
  const definition = protoLoader.loadSync('google/container/v1/cluster_service.proto', {
    includeDirs: [containerProtos, gaxProtos],
    keepCase: false,
    ...DECODE,
  })
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    google: {container: {v1: {ClusterManager: {service: grpc.ServiceDefinition}}}}
  }
  cachedService = loaded.google.container.v1.ClusterManager.service
  return cachedService
}

function versionParts(version: string): number[] {
  return version.split(/[.-]/).map((part) => Number.parseInt(part.replace(/\D/g, ''), 10) || 0)
}

function compareVersionsDesc(a: string, b: string): number {
  const pa = versionParts(a)
  const pb = versionParts(b)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pb[i] ?? 0) - (pa[i] ?? 0)
    if (diff !== 0) return diff
  }
  return 0
}

/** GKE accepts '-', 'latest', '1.34', '1.34.5' and full versions; it stores the resolved full version. */
function resolveVersion(requested: string | null | undefined, valid: string[], fallback: string, kind: string): string {
  if (!requested || requested === '-') return fallback
  const sorted = [...valid].sort(compareVersionsDesc)
  if (requested === 'latest') return sorted[0] ?? fallback
  const hit = sorted.find((v) => v === requested || v.startsWith(`${requested}.`) || v.startsWith(`${requested}-`))
  if (!hit) throw invalid(`${kind} version "${requested}" is unsupported.`)
  return hit
}

function resolveSettings(options: FakeGkeOptions): FakeGkeSettings {
  const given = options.serverConfig ?? {}
  const channels = structuredClone(given.channels ?? DEFAULT_CHANNELS)
  const union = [...new Set(Object.values(channels).flatMap((c) => c.validVersions))].sort(compareVersionsDesc)
  const validMasterVersions = given.validMasterVersions ?? union
  return {
    operationMs: options.operationMs ?? 50,
    operationMsByType: {...options.operationMsByType},
    maxConcurrentOperationsPerCluster: options.maxConcurrentOperationsPerCluster ?? Infinity,
    concurrencyLimitError: options.concurrencyLimitError ?? 'incompatible-operation',
    rpcLatencyMs: options.rpcLatencyMs ?? 0,
    placementPolicyExists: options.placementPolicyExists ?? (() => true),
    subnetworkExists: options.subnetworkExists ?? (() => true),
    // Loopback by default: a CLI that dials the endpoint fails fast instead of leaving the machine.
    clusterEndpoint: options.clusterEndpoint ?? '127.0.0.1',
    clusterCaCertificate:
      options.clusterCaCertificate ??
      Buffer.from('-----BEGIN CERTIFICATE-----\nZmFrZS1na2UtY2E=\n-----END CERTIFICATE-----\n').toString('base64'),
    serverConfig: {
      channels,
      defaultClusterVersion: given.defaultClusterVersion ?? channels.REGULAR.defaultVersion,
      validMasterVersions,
      validNodeVersions: given.validNodeVersions ?? validMasterVersions,
      defaultImageType: given.defaultImageType ?? 'COS_CONTAINERD',
      validImageTypes: given.validImageTypes ?? ['COS_CONTAINERD', 'UBUNTU_CONTAINERD'],
    },
  }
}

/** Builds a resource name from the deprecated projectId/zone/... fields when the modern name is empty. */
function nameFrom(request: Record<string, unknown>, modern: 'name' | 'parent', parts: [string, string][]): string {
  const value = request[modern]
  if (typeof value === 'string' && value) return value
  const segments: string[] = []
  for (const [collection, field] of parts) {
    const id = request[field]
    if (typeof id !== 'string' || !id) throw invalid(`Either ${modern} or ${field} must be set.`)
    segments.push(collection, id)
  }
  return segments.join('/')
}

const PROJECT_LOCATION: [string, string][] = [
  ['projects', 'projectId'],
  ['locations', 'zone'],
]
const CLUSTER_PARTS: [string, string][] = [...PROJECT_LOCATION, ['clusters', 'clusterId']]
const POOL_PARTS: [string, string][] = [...CLUSTER_PARTS, ['nodePools', 'nodePoolId']]
const OPERATION_PARTS: [string, string][] = [...PROJECT_LOCATION, ['operations', 'operationId']]

function parse(name: string, collections: string[]): string[] {
  const segments = name.split('/')
  const ids: string[] = []
  const ok =
    segments.length === collections.length * 2 &&
    collections.every((collection, i) => {
      const kind = segments[2 * i]
      const id = segments[2 * i + 1]
      // The v1 API still accepts the zonal spelling of the location segment.
      const kindOk = kind === collection || (collection === 'locations' && kind === 'zones')
      if (!kindOk || !id) return false
      ids.push(id)
      return true
    })
  if (!ok) throw invalid(`Invalid resource name "${name}".`)
  return ids
}

const clusterKey = (project: string, location: string, name: string) =>
  `projects/${project}/locations/${location}/clusters/${name}`

function isRegion(location: string): boolean {
  return !/-[a-z]$/.test(location)
}

export class FakeGke {
  readonly calls: CallRecord[] = []
  readonly faults: RpcFault[] = []
  readonly operationFaults: OperationFault[] = []
  settings: FakeGkeSettings

  private readonly clusters = new Map<string, ClusterRecord>()
  private readonly ops = new Map<string, OpRecord>()
  private readonly active = new Running<OpRecord>()
  private readonly delays = new Timers()
  private opCounter = 0
  private idCounter = 0
  private stopped = false
  private rest: RestFront | undefined

  private constructor(
    private readonly server: grpc.Server,
    readonly port: number,
    private readonly options: FakeGkeOptions,
  ) {
    this.settings = resolveSettings(options)
  }

  static async start(options: FakeGkeOptions = {}): Promise<FakeGke> {
    const service = loadService()
    const {server, port} = await startGrpcServer()
    const fake = new FakeGke(server, port, options)
    routeUnary(server, [service], (method, request, callback) => fake.serve(method, request, callback))
    const require = createRequire(import.meta.url)
    fake.rest = await startRestFront(
      require('@google-cloud/container/build/protos/protos.json') as object,
      'google.container.v1.ClusterManager',
      DECODE,
      (method, request, callback) => fake.serve(method, request, callback),
      [
        {
          service: 'google.container.v1beta1.ClusterManager',
          methods: V1BETA1_METHODS,
          serve: (method, request, callback) => fake.serve(method, request, callback, 'v1beta1'),
        },
      ],
    )
    return fake
  }

  /** `127.0.0.1:PORT` of the REST front, which xpk talks to (`XPK_GKE_ENDPOINT=http://<endpoint>`). */
  get endpoint(): string {
    return `127.0.0.1:${this.restPort}`
  }

  /** The REST front's port; `port` is the gRPC one. */
  get restPort(): number {
    if (!this.rest) throw new Error('fake-gke: not started')
    return this.rest.port
  }

  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    this.active.stop()
    this.delays.clear()
    this.server.forceShutdown()
    await this.rest?.close()
  }

  /** Back to the state right after start(): no clusters, operations, calls or faults; settings as started. */
  reset(): void {
    // RPCs held back by a delay still get answered, against the fresh state.
    this.active.clear()
    this.clusters.clear()
    this.ops.clear()
    this.calls.length = 0
    this.faults.length = 0
    this.operationFaults.length = 0
    this.opCounter = 0
    this.idCounter = 0
    this.settings = resolveSettings(this.options)
  }

  /** Resolves once no operation is running. */
  settled(): Promise<void> {
    return this.active.settled()
  }

  failOperations(fault: OperationFault): void {
    this.operationFaults.push(fault)
  }

  /** Completes running operations now, as if their time had come. */
  finishOperations(filter?: (op: OperationState) => boolean): void {
    for (const rec of this.active.all()) if (!filter || filter(structuredClone(rec.op))) this.finish(rec)
  }

  mutatingCalls(): CallRecord[] {
    return this.calls.filter((c) => !/^(Get|List)/.test(c.method))
  }

  callCount(method?: string): number {
    return method ? this.calls.filter((c) => c.method === method).length : this.calls.length
  }

  seedCluster(seed: SeedCluster): ClusterState {
    const key = clusterKey(seed.project, seed.location, seed.name)
    if (this.clusters.has(key)) throw new Error(`seedCluster: ${key} already exists`)
    const fields = structuredClone(seed.fields ?? {})
    delete fields.nodePools
    const rec = this.newClusterRecord(seed.project, seed.location, {...fields, name: seed.name})
    rec.data.status = seed.status ?? 'RUNNING'
    rec.data.currentMasterVersion = rec.data.currentMasterVersion || this.settings.serverConfig.defaultClusterVersion
    rec.data.currentNodeVersion = rec.data.currentNodeVersion || rec.data.currentMasterVersion
    this.clusters.set(key, rec)
    for (const pool of seed.nodePools ?? []) this.seedNodePool(seed.project, seed.location, seed.name, pool)
    return this.snapshot(rec)
  }

  seedNodePool(project: string, location: string, cluster: string, pool: SeedNodePool): NodePoolState {
    const rec = this.clusters.get(clusterKey(project, location, cluster))
    if (!rec) throw new Error(`seedNodePool: cluster ${cluster} does not exist`)
    if (rec.pools.has(pool.name)) throw new Error(`seedNodePool: node pool ${pool.name} already exists`)
    const poolRec = this.newPoolRecord(rec, structuredClone(pool))
    poolRec.data.status = pool.status ?? 'RUNNING'
    rec.pools.set(pool.name, poolRec)
    return structuredClone(poolRec.data)
  }

  cluster(project: string, location: string, name: string): ClusterState | undefined {
    const rec = this.clusters.get(clusterKey(project, location, name))
    return rec && this.snapshot(rec)
  }

  clusterList(): ClusterState[] {
    return [...this.clusters.values()].map((rec) => this.snapshot(rec))
  }

  nodePools(project: string, location: string, cluster: string): NodePoolState[] {
    const rec = this.clusters.get(clusterKey(project, location, cluster))
    return rec ? [...rec.pools.values()].map((p) => structuredClone(p.data)) : []
  }

  nodePool(project: string, location: string, cluster: string, name: string): NodePoolState | undefined {
    const pool = this.clusters.get(clusterKey(project, location, cluster))?.pools.get(name)
    return pool && structuredClone(pool.data)
  }

  /** Current nodes per zone of a pool (initialNodeCount, then whatever SetNodePoolSize made it). */
  nodeCount(project: string, location: string, cluster: string, name: string): number | undefined {
    return this.clusters.get(clusterKey(project, location, cluster))?.pools.get(name)?.nodeCount
  }

  /** By full name or by the short id (operation-7). */
  operation(name: string): OperationState | undefined {
    const rec = this.ops.get(name) ?? [...this.ops.values()].find((r) => r.op.name.endsWith(`/operations/${name}`))
    return rec && structuredClone(rec.op)
  }

  operations(): OperationState[] {
    return [...this.ops.values()].map((r) => structuredClone(r.op))
  }

  runningOperations(): OperationState[] {
    return this.active.all().map((r) => structuredClone(r.op))
  }

  // ---- RPC plumbing ----

  private serve(
    method: string,
    request: Record<string, unknown>,
    callback: grpc.sendUnaryData<object>,
    api?: 'v1beta1',
  ): void {
    const record: CallRecord = {method, request, at: Date.now(), ...(api ? {api} : {})}
    this.calls.push(record)
    const respond = (code: grpc.status, details: string | undefined, value?: object) => {
      record.code = code
      if (details) record.details = details
      if (code === grpc.status.OK) callback(null, value)
      else callback({code, details})
    }
    serveWithFaults({
      faults: this.faults,
      fits: (f) => (f.method === '*' || f.method === method) && (!f.match || f.match(request)),
      answers: (f) => f.code !== undefined,
      latencyMs: this.settings.rpcLatencyMs,
      timers: this.delays,
      stopped: () => this.stopped,
      serve: () => this.dispatch(method, request),
    }).then(
      (outcome) => {
        if (outcome.kind === 'served') respond(grpc.status.OK, undefined, outcome.value)
        else if (outcome.kind === 'fault')
          respond(outcome.fault.code!, outcome.fault.message ?? grpc.status[outcome.fault.code!])
      },
      (err: unknown) => {
        if (err instanceof RpcError) return respond(err.code, err.message)
        respond(grpc.status.INTERNAL, `fake-gke: ${err instanceof Error ? err.stack : String(err)}`)
      },
    )
  }

  private dispatch(method: string, r: Record<string, unknown>): object {
    switch (method) {
      case 'ListClusters':
        return this.listClusters(r)
      case 'GetCluster':
        return this.snapshot(this.requireCluster(nameFrom(r, 'name', CLUSTER_PARTS)))
      case 'CreateCluster':
        return this.createCluster(r)
      case 'DeleteCluster':
        return this.deleteCluster(r)
      case 'ListNodePools':
        return this.listNodePools(r)
      case 'GetNodePool':
        return structuredClone(this.requirePool(nameFrom(r, 'name', POOL_PARTS)).pool.data)
      case 'CreateNodePool':
        return this.createNodePool(r)
      case 'DeleteNodePool':
        return this.deleteNodePool(r)
      case 'SetNodePoolSize':
        return this.setNodePoolSize(r)
      case 'SetLabels':
        return this.setLabels(r)
      case 'UpdateCluster':
        return this.updateCluster(r)
      case 'UpdateNodePool':
        return this.updateNodePool(r)
      case 'GetOperation':
        return structuredClone(this.requireOperation(nameFrom(r, 'name', OPERATION_PARTS)).op)
      case 'ListOperations':
        return this.listOperations(r)
      case 'CancelOperation':
        return this.cancelOperation(r)
      case 'GetServerConfig':
        return this.serverConfig(r)
      default:
        throw new RpcError(grpc.status.UNIMPLEMENTED, `fake-gke does not implement ${method}.`)
    }
  }

  // ---- clusters ----

  private listClusters(r: Record<string, unknown>): object {
    const [project, location] = parse(nameFrom(r, 'parent', PROJECT_LOCATION), ['projects', 'locations'])
    const clusters = [...this.clusters.values()]
      .filter((c) => c.project === project && (location === '-' || c.location === location))
      .map((c) => this.snapshot(c))
    return {clusters, missingZones: []}
  }

  private createCluster(r: Record<string, unknown>): object {
    const [project, location] = parse(nameFrom(r, 'parent', PROJECT_LOCATION), ['projects', 'locations'])
    if (!LOCATION_RE.test(location)) throw invalid(`Location "${location}" is not a valid zone or region.`)
    const input = structuredClone((r.cluster ?? undefined) as Cluster | undefined)
    if (!input) throw invalid('Cluster must be specified.')
    const name = input.name ?? ''
    if (!NAME_RE.test(name)) throw invalid(nameError('cluster.name', name))
    const key = clusterKey(project, location, name)
    if (this.clusters.has(key)) throw new RpcError(grpc.status.ALREADY_EXISTS, gkeSays.alreadyExists(key))

    const pools = input.nodePools ?? []
    delete input.nodePools
    if (pools.length === 0) {
      if (!input.initialNodeCount && !input.autopilot?.enabled) {
        throw invalid('Cluster.initial_node_count must be greater than zero.')
      }
      if (input.initialNodeCount) {
        pools.push({name: 'default-pool', initialNodeCount: input.initialNodeCount, config: input.nodeConfig ?? {}})
      }
    }
    const seen = new Set<string>()
    for (const pool of pools) {
      if (!NAME_RE.test(pool.name ?? '')) throw invalid(nameError('node_pool.name', pool.name ?? ''))
      if (seen.has(pool.name!)) throw invalid(`Node pool "${pool.name}" is specified more than once.`)
      seen.add(pool.name!)
      if (pool.config?.workloadMetadataConfig?.mode === 'GKE_METADATA' && !input.workloadIdentityConfig?.workloadPool) {
        throw invalid(gkeSays.workloadIdentityOff(pool.name!))
      }
    }
    checkAutoscaling(input.autoscaling)
    const workloadPool = input.workloadIdentityConfig?.workloadPool
    if (workloadPool && workloadPool !== `${project}.svc.id.goog`)
      throw invalid(gkeSays.badWorkloadPool(workloadPool, project))

    const sc = this.settings.serverConfig
    const channel = input.releaseChannel?.channel as string | undefined
    const fallback =
      channel && channel in sc.channels ? sc.channels[channel as Channel].defaultVersion : sc.defaultClusterVersion
    const version = resolveVersion(input.initialClusterVersion, sc.validMasterVersions, fallback, 'Master')
    const rec = this.newClusterRecord(project, location, {...input, name})
    rec.data.currentMasterVersion = version
    rec.data.currentNodeVersion = version
    rec.data.status = 'PROVISIONING'
    const poolRecs = pools.map((pool) => {
      pool.version = resolveVersion(pool.version, sc.validNodeVersions, version, 'Node')
      const poolRec = this.newPoolRecord(rec, pool as SeedNodePool)
      poolRec.data.status = 'PROVISIONING'
      return poolRec
    })
    this.clusters.set(key, rec)
    for (const poolRec of poolRecs) rec.pools.set(poolRec.data.name, poolRec)
    return this.startOperation('CREATE_CLUSTER', rec, r)
  }

  private deleteCluster(r: Record<string, unknown>): object {
    const rec = this.requireCluster(nameFrom(r, 'name', CLUSTER_PARTS))
    const clusterOp = this.running(rec).find((op) => CLUSTER_OPS.includes(op.type))
    if (clusterOp) {
      throw new RpcError(
        grpc.status.FAILED_PRECONDITION,
        gkeSays.busyCluster(shortId(clusterOp), clusterOp.type, rec.data.name),
      )
    }
    // Deleting a cluster supersedes whatever its node pools were doing.
    for (const op of this.running(rec)) {
      const message = gkeSays.abortedByClusterDelete
      this.finish(op, {code: grpc.status.ABORTED, message, resourceStatus: 'STOPPING'})
    }
    const op = this.startOperation('DELETE_CLUSTER', rec, r)
    rec.data.status = 'STOPPING'
    for (const pool of rec.pools.values()) pool.data.status = 'STOPPING'
    return op
  }

  /**
   * SetLabels: replaces the cluster's resource labels when `labelFingerprint` is the current one (GKE's optimistic
   * concurrency), else FAILED_PRECONDITION with GKE's wording; refused while the cluster is being created or deleted.
   * The labels change at once (a GetCluster right after sees them); the SET_LABELS operation then runs its time.
   */
  private setLabels(r: Record<string, unknown>): object {
    const rec = this.requireCluster(nameFrom(r, 'name', CLUSTER_PARTS))
    const labels = (r.resourceLabels ?? {}) as Record<string, string>
    for (const [key, value] of Object.entries(labels)) {
      if (!LABEL_KEY_RE.test(key)) throw invalid(gkeSays.invalidLabelKey(key))
      if (!LABEL_VALUE_RE.test(String(value))) throw invalid(gkeSays.invalidLabelValue(key, String(value)))
    }
    const clusterOp = this.running(rec).find((op) => CLUSTER_OPS.includes(op.type))
    if (clusterOp) throw incompatible(clusterOp)
    const current = rec.data.labelFingerprint ?? ''
    const given = typeof r.labelFingerprint === 'string' ? r.labelFingerprint : ''
    if (given !== current) {
      throw new RpcError(grpc.status.FAILED_PRECONDITION, gkeSays.fingerprintMismatch(given, current))
    }
    rec.data.resourceLabels = {...labels}
    rec.data.labelFingerprint = labelFingerprint(labels)
    return this.startOperation('SET_LABELS', rec, r)
  }

  /**
   * UpdateCluster: one change per request (desiredAddonsConfig or desiredWorkloadIdentityConfig here), refused while
   * any other operation runs on the cluster. The cluster is RECONCILING until the UPDATE_CLUSTER operation is DONE,
   * and shows the change from then on.
   */
  private updateCluster(r: Record<string, unknown>): object {
    const rec = this.requireCluster(nameFrom(r, 'name', CLUSTER_PARTS))
    const update = (r.update ?? {}) as Record<string, unknown>
    const fields = Object.keys(update).filter((k) => update[k] !== undefined && update[k] !== null)
    if (fields.length !== 1) throw invalid(gkeSays.oneUpdatePerRequest(fields))
    const field = fields[0] as (typeof CLUSTER_UPDATES)[number]
    if (!CLUSTER_UPDATES.includes(field)) {
      throw new RpcError(grpc.status.UNIMPLEMENTED, `fake-gke does not model ClusterUpdate.${field}.`)
    }
    let applyUpdate: () => void
    if (field === 'desiredWorkloadIdentityConfig') {
      const pool = (update[field] as {workloadPool?: string}).workloadPool ?? ''
      if (pool !== '' && pool !== `${rec.project}.svc.id.goog`)
        throw invalid(gkeSays.badWorkloadPool(pool, rec.project))
      applyUpdate = () => {
        if (pool === '') delete rec.data.workloadIdentityConfig
        else rec.data.workloadIdentityConfig = {workloadPool: pool}
      }
    } else if (field === 'desiredClusterAutoscaling') {
      // The whole ClusterAutoscaling is replaced, profile and node auto-provisioning alike.
      const autoscaling = update[field] as Cluster['autoscaling']
      checkAutoscaling(autoscaling)
      applyUpdate = () => {
        rec.data.autoscaling = structuredClone(autoscaling)
      }
    } else {
      // Only the addons named change; each one's config is merged into what the cluster has.
      const addons = update[field] as Record<string, Record<string, unknown>>
      applyUpdate = () => {
        const current = (rec.data.addonsConfig ?? {}) as Record<string, Record<string, unknown>>
        for (const [addon, config] of Object.entries(addons)) current[addon] = {...current[addon], ...config}
        rec.data.addonsConfig = current
      }
    }
    const running = this.running(rec)
    const clusterOp = running.find((op) => CLUSTER_OPS.includes(op.type))
    if (clusterOp) throw incompatible(clusterOp)
    if (rec.data.status !== 'RUNNING' && rec.data.status !== 'DEGRADED') {
      throw new RpcError(grpc.status.FAILED_PRECONDITION, gkeSays.notReady(rec.data.name, rec.data.status))
    }
    // GKE changes a cluster one operation at a time: not while its node pools are being changed either.
    if (running.length > 0) throw incompatible(running[0])
    const op = this.startOperation('UPDATE_CLUSTER', rec, r)
    this.ops.get(op.name)!.applyUpdate = applyUpdate
    rec.data.status = 'RECONCILING'
    return op
  }

  // ---- node pools ----

  private listNodePools(r: Record<string, unknown>): object {
    const rec = this.requireCluster(nameFrom(r, 'parent', CLUSTER_PARTS))
    return {nodePools: [...rec.pools.values()].map((p) => structuredClone(p.data))}
  }

  private createNodePool(r: Record<string, unknown>): object {
    const rec = this.requireCluster(nameFrom(r, 'parent', CLUSTER_PARTS))
    const input = structuredClone((r.nodePool ?? undefined) as NodePool | undefined)
    if (!input) throw invalid('Node_pool must be specified.')
    const name = input.name ?? ''
    if (!NAME_RE.test(name)) throw invalid(nameError('node_pool.name', name))
    if (rec.pools.has(name)) {
      throw new RpcError(grpc.status.ALREADY_EXISTS, gkeSays.alreadyExists(`${rec.key}/nodePools/${name}`))
    }
    const policyName = (input as {placementPolicy?: {policyName?: string}}).placementPolicy?.policyName
    if (policyName) {
      const region = rec.location.replace(/-[a-z]$/, '')
      const policy = `projects/${rec.project}/regions/${region}/resourcePolicies/${policyName}`
      if (!this.settings.placementPolicyExists(policy)) {
        throw invalid(`Placement policy "${policyName}" was not found: the resource '${policy}' does not exist.`)
      }
    }
    const additional = input.networkConfig?.additionalNodeNetworkConfigs ?? []
    const region = rec.location.replace(/-[a-z]$/, '')
    for (const n of additional) {
      if (!n.network || !n.subnetwork) throw invalid('additional_node_network_configs need a network and a subnetwork.')
      if (!this.settings.subnetworkExists(rec.project, region, n.network, n.subnetwork)) {
        throw invalid(
          `Subnetwork "projects/${rec.project}/regions/${region}/subnetworks/${n.subnetwork}" of network "${n.network}" not found.`,
        )
      }
    }
    if (
      input.config?.workloadMetadataConfig?.mode === 'GKE_METADATA' &&
      !rec.data.workloadIdentityConfig?.workloadPool
    ) {
      throw invalid(gkeSays.workloadIdentityOff(name))
    }
    this.checkClusterAccepts(rec)
    const sc = this.settings.serverConfig
    input.version = resolveVersion(input.version, sc.validNodeVersions, rec.data.currentMasterVersion ?? '', 'Node')
    const poolRec = this.newPoolRecord(rec, input as SeedNodePool)
    poolRec.data.status = 'PROVISIONING'
    rec.pools.set(name, poolRec)
    return this.startOperation('CREATE_NODE_POOL', rec, r, name)
  }

  private deleteNodePool(r: Record<string, unknown>): object {
    const {rec, pool} = this.requirePool(nameFrom(r, 'name', POOL_PARTS))
    this.checkClusterAccepts(rec, pool.data.name)
    const op = this.startOperation('DELETE_NODE_POOL', rec, r, pool.data.name)
    pool.data.status = 'STOPPING'
    return op
  }

  /**
   * UpdateNodePool, as far as the fake models it: the workload metadata mode (GKE_METADATA only on a cluster with
   * Workload Identity). The pool is RECONCILING (GKE recreates its nodes) until the operation is DONE, then has it.
   */
  private updateNodePool(r: Record<string, unknown>): object {
    const {rec, pool} = this.requirePool(nameFrom(r, 'name', POOL_PARTS))
    const changes = Object.keys(r).filter((k) => !POOL_REQUEST_NAMES.has(k) && r[k] !== undefined && r[k] !== null)
    const mode = (r.workloadMetadataConfig as {mode?: string} | undefined)?.mode
    if (changes.join() !== 'workloadMetadataConfig' || (mode !== 'GKE_METADATA' && mode !== 'GCE_METADATA')) {
      throw new RpcError(
        grpc.status.UNIMPLEMENTED,
        `fake-gke models only workloadMetadataConfig.mode updates of node pools, not ${changes.join(', ') || 'an empty update'}.`,
      )
    }
    if (mode === 'GKE_METADATA' && !rec.data.workloadIdentityConfig?.workloadPool) {
      throw invalid(gkeSays.workloadIdentityOff(pool.data.name))
    }
    this.checkClusterAccepts(rec, pool.data.name)
    const op = this.startOperation('UPGRADE_NODES', rec, r, pool.data.name)
    this.ops.get(op.name)!.applyUpdate = () => {
      pool.data.config = {...pool.data.config, workloadMetadataConfig: {mode}}
    }
    pool.data.status = 'RECONCILING'
    return op
  }

  private setNodePoolSize(r: Record<string, unknown>): object {
    const {rec, pool} = this.requirePool(nameFrom(r, 'name', POOL_PARTS))
    const nodeCount = Number(r.nodeCount ?? 0)
    if (!Number.isInteger(nodeCount) || nodeCount < 0) throw invalid(`Invalid node count ${nodeCount}.`)
    this.checkClusterAccepts(rec, pool.data.name)
    const op = this.startOperation('SET_NODE_POOL_SIZE', rec, r, pool.data.name)
    this.ops.get(op.name)!.resizeTo = nodeCount
    pool.data.status = 'RECONCILING'
    return op
  }

  /** The order GKE applies: cluster busy, this pool busy, then the per-cluster operation limit. */
  private checkClusterAccepts(rec: ClusterRecord, poolName?: string): void {
    const running = this.running(rec)
    const clusterOp = running.find((op) => CLUSTER_OPS.includes(op.type))
    if (clusterOp) throw incompatible(clusterOp)
    if (rec.data.status !== 'RUNNING' && rec.data.status !== 'DEGRADED') {
      throw new RpcError(grpc.status.FAILED_PRECONDITION, gkeSays.notReady(rec.data.name, rec.data.status))
    }
    const poolOp = poolName ? running.find((op) => op.nodePool === poolName) : undefined
    if (poolOp) {
      throw new RpcError(grpc.status.FAILED_PRECONDITION, gkeSays.busyPool(shortId(poolOp), poolOp.type, poolName!))
    }
    if (running.length >= this.settings.maxConcurrentOperationsPerCluster) {
      if (this.settings.concurrencyLimitError === 'too-many-operations') {
        throw new RpcError(
          grpc.status.RESOURCE_EXHAUSTED,
          `Too many operations: cluster "${rec.data.name}" hits the concurrent operations quota ${this.settings.maxConcurrentOperationsPerCluster}, please try again later.`,
        )
      }
      throw incompatible(running[0])
    }
  }

  // ---- operations ----

  private listOperations(r: Record<string, unknown>): object {
    const [project, location] = parse(nameFrom(r, 'parent', PROJECT_LOCATION), ['projects', 'locations'])
    const prefix = `projects/${project}/locations/`
    const operations = [...this.ops.values()]
      .filter((rec) => rec.op.name.startsWith(prefix) && (location === '-' || rec.op.location === location))
      .map((rec) => structuredClone(rec.op))
    return {operations, missingZones: []}
  }

  private cancelOperation(r: Record<string, unknown>): object {
    const rec = this.requireOperation(nameFrom(r, 'name', OPERATION_PARTS))
    if (!this.active.has(rec)) {
      throw new RpcError(grpc.status.FAILED_PRECONDITION, `Operation ${shortId(rec)} is already done.`)
    }
    // A cancelled create leaves a half-made resource; a cancelled delete or resize leaves the old one running.
    const resourceStatus = rec.type.startsWith('CREATE') ? 'ERROR' : 'RUNNING'
    this.finish(rec, {code: grpc.status.CANCELLED, message: 'Operation was cancelled.', resourceStatus})
    return {}
  }

  private startOperation(type: OperationType, rec: ClusterRecord, request: Record<string, unknown>, nodePool?: string) {
    const id = `operation-${++this.opCounter}`
    const name = `projects/${rec.project}/locations/${rec.location}/operations/${id}`
    const targetPath = nodePool ? `${rec.key}/nodePools/${nodePool}` : rec.key
    const op: OperationState = {
      name,
      zone: rec.location,
      location: rec.location,
      operationType: type,
      status: 'RUNNING',
      selfLink: API + name,
      targetLink: API + targetPath,
      startTime: new Date().toISOString(),
    }
    const opRec: OpRecord = {op, type, clusterKey: rec.key, nodePool}
    const pool = nodePool ? rec.pools.get(nodePool)?.data : undefined
    const zone = (pool?.locations ?? rec.data.locations ?? [])[0] ?? rec.location
    const target: OperationTarget = {
      type,
      project: rec.project,
      location: rec.location,
      cluster: rec.data.name,
      zone,
      request,
    }
    if (nodePool) target.nodePool = nodePool
    const fault = takeFault(
      this.operationFaults,
      (f) => (!f.type || f.type === target.type) && (!f.match || f.match(target)),
    )
    if (fault) {
      const message = typeof fault.message === 'function' ? fault.message(target) : fault.message
      opRec.failure = {
        code: fault.code ?? grpc.status.INTERNAL,
        message: message ?? 'Internal error.',
        resourceStatus: fault.resourceStatus ?? 'ERROR',
      }
    }
    this.ops.set(name, opRec)
    const duration = fault?.durationMs ?? this.settings.operationMsByType[type] ?? this.settings.operationMs
    this.active.start(opRec, duration, (rec) => this.finish(rec))
    return structuredClone(op)
  }

  private finish(rec: OpRecord, override?: OpRecord['failure']): void {
    if (!this.active.end(rec)) return
    const failure = override ?? rec.failure
    rec.op.status = 'DONE'
    rec.op.endTime = new Date().toISOString()
    if (failure) {
      rec.op.error = {code: failure.code, message: failure.message, details: []}
      rec.op.statusMessage = failure.message
    }
    const cluster = this.clusters.get(rec.clusterKey)
    const pool = rec.nodePool ? cluster?.pools.get(rec.nodePool) : undefined
    if (cluster) this.applyOutcome(rec, cluster, pool, failure)
  }

  private applyOutcome(
    rec: OpRecord,
    cluster: ClusterRecord,
    pool: PoolRecord | undefined,
    failure: OpRecord['failure'],
  ) {
    if (failure) {
      const target = pool ? pool.data : cluster.data
      target.status = failure.resourceStatus
      target.statusMessage = failure.message
      // A failed create or delete of the cluster takes its pools along; a failed update leaves them as they are.
      if (!pool && rec.type !== 'UPDATE_CLUSTER') {
        for (const p of cluster.pools.values()) p.data.status = failure.resourceStatus
      }
      return
    }
    switch (rec.type) {
      case 'CREATE_CLUSTER':
        cluster.data.status = 'RUNNING'
        for (const p of cluster.pools.values()) p.data.status = 'RUNNING'
        break
      case 'DELETE_CLUSTER':
        this.clusters.delete(cluster.key)
        break
      case 'CREATE_NODE_POOL':
        if (pool) pool.data.status = 'RUNNING'
        break
      case 'DELETE_NODE_POOL':
        if (pool) cluster.pools.delete(pool.data.name)
        break
      case 'UPDATE_CLUSTER':
        rec.applyUpdate?.()
        cluster.data.status = 'RUNNING'
        break
      case 'UPGRADE_NODES':
        rec.applyUpdate?.()
        if (pool) pool.data.status = 'RUNNING'
        break
      case 'SET_NODE_POOL_SIZE':
        if (pool) {
          pool.data.status = 'RUNNING'
          pool.nodeCount = rec.resizeTo ?? pool.nodeCount
        }
        break
    }
  }

  private running(rec: ClusterRecord): OpRecord[] {
    return this.active.all().filter((op) => op.clusterKey === rec.key)
  }

  // ---- server config ----

  private serverConfig(r: Record<string, unknown>): ServerConfig {
    const [, location] = parse(nameFrom(r, 'name', PROJECT_LOCATION), ['projects', 'locations'])
    if (!LOCATION_RE.test(location)) throw invalid(`Location "${location}" is not a valid zone or region.`)
    const sc = this.settings.serverConfig
    return {
      defaultClusterVersion: sc.defaultClusterVersion,
      validMasterVersions: [...sc.validMasterVersions],
      validNodeVersions: [...sc.validNodeVersions],
      defaultImageType: sc.defaultImageType,
      validImageTypes: [...sc.validImageTypes],
      channels: (Object.keys(sc.channels) as Channel[]).map((channel) => ({
        channel,
        defaultVersion: sc.channels[channel].defaultVersion,
        validVersions: [...sc.channels[channel].validVersions],
      })),
    }
  }

  // ---- state helpers ----

  private requireCluster(name: string): ClusterRecord {
    const [project, location, cluster] = parse(name, ['projects', 'locations', 'clusters'])
    const key = clusterKey(project, location, cluster)
    const rec = this.clusters.get(key)
    if (!rec) throw notFound(key)
    return rec
  }

  private requirePool(name: string): {rec: ClusterRecord; pool: PoolRecord} {
    const [project, location, cluster, poolName] = parse(name, ['projects', 'locations', 'clusters', 'nodePools'])
    const rec = this.requireCluster(clusterKey(project, location, cluster))
    const pool = rec.pools.get(poolName)
    if (!pool) throw notFound(`${rec.key}/nodePools/${poolName}`)
    return {rec, pool}
  }

  private requireOperation(name: string): OpRecord {
    const [project, location, id] = parse(name, ['projects', 'locations', 'operations'])
    const canonical = `projects/${project}/locations/${location}/operations/${id}`
    const rec = this.ops.get(canonical)
    if (!rec) throw notFound(canonical)
    return rec
  }

  private newClusterRecord(project: string, location: string, input: Cluster & {name: string}): ClusterRecord {
    const key = clusterKey(project, location, input.name)
    const id = (++this.idCounter).toString(16).padStart(32, '0')
    const data: ClusterRecord['data'] = {
      ...input,
      name: input.name,
      location,
      zone: location,
      locations: input.locations?.length
        ? input.locations
        : isRegion(location)
          ? ['a', 'b', 'c'].map((z) => `${location}-${z}`)
          : [location],
      selfLink: API + key,
      id,
      createTime: new Date().toISOString(),
      endpoint: input.endpoint || this.settings.clusterEndpoint,
      masterAuth: {clusterCaCertificate: this.settings.clusterCaCertificate, ...input.masterAuth},
      labelFingerprint: labelFingerprint((input.resourceLabels ?? {}) as Record<string, string>),
      // GKE puts a cluster made without a network or subnetwork on `default`, and says so in its reads.
      network: input.network || 'default',
      subnetwork: input.subnetwork || 'default',
      status: 'PROVISIONING',
    }
    return {key, project, location, data, pools: new Map()}
  }

  private newPoolRecord(cluster: ClusterRecord, input: SeedNodePool): PoolRecord {
    const data: NodePoolState = {
      ...input,
      name: input.name,
      // GKE fills these in when the caller leaves them out; pools of a cluster with Workload Identity get the GKE
      // metadata server.
      config: {
        machineType: 'e2-medium',
        diskSizeGb: 100,
        imageType: 'COS_CONTAINERD',
        ...(cluster.data.workloadIdentityConfig?.workloadPool ? {workloadMetadataConfig: {mode: 'GKE_METADATA'}} : {}),
        ...input.config,
      },
      locations: input.locations?.length ? input.locations : [...(cluster.data.locations ?? [])],
      version: input.version || cluster.data.currentNodeVersion || cluster.data.currentMasterVersion || '',
      selfLink: `${API}${cluster.key}/nodePools/${input.name}`,
      status: input.status ?? 'PROVISIONING',
    }
    return {data, nodeCount: Number(input.initialNodeCount ?? 0)}
  }

  private snapshot(rec: ClusterRecord): ClusterState {
    const pools = [...rec.pools.values()]
    return {
      ...structuredClone(rec.data),
      location: rec.location,
      nodePools: pools.map((p) => structuredClone(p.data)),
      currentNodeCount: pools.reduce((sum, p) => sum + p.nodeCount * (p.data.locations?.length || 1), 0),
    }
  }
}

/**
 * GKE's checks of node auto-provisioning: cpu and memory limits are required, and no limit's maximum may be below
 * its minimum. (int64 limits arrive as strings.)
 */
function checkAutoscaling(autoscaling: Cluster['autoscaling']): void {
  if (!autoscaling?.enableNodeAutoprovisioning) return
  const limits = autoscaling.resourceLimits ?? []
  for (const type of ['cpu', 'memory']) {
    if (!limits.some((l) => l.resourceType === type)) throw invalid(gkeSays.napLimitMissing(type))
  }
  for (const limit of limits) {
    if (Number(limit.maximum ?? 0) < Number(limit.minimum ?? 0)) {
      throw invalid(gkeSays.napLimitInverted(limit.resourceType ?? ''))
    }
  }
}

function shortId(rec: OpRecord): string {
  return rec.op.name.slice(rec.op.name.lastIndexOf('/') + 1)
}

function incompatible(rec: OpRecord): RpcError {
  return new RpcError(grpc.status.FAILED_PRECONDITION, gkeSays.incompatibleOperation(shortId(rec)))
}

function nameError(field: string, value: string): string {
  return (
    `Invalid value for field "${field}": "${value}". Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?)' ` +
    `(only alphanumerics and '-' allowed, must start with a letter and end with an alphanumeric, and must be no ` +
    `longer than 40 characters).`
  )
}
