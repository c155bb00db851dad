// An in-memory double of the GkeClient port for executor and service tests: one cluster with real state, operations
// that finish after a number of reads, every call recorded. Held to the wire fake (FakeGke through the REST adapter)
// by gke-contract.test.ts, which says what both do; in short, as GKE (fake-gke.md):
//   - The cluster is `demo` in us-central2 (a call's project is not compared: one project). Reads of another cluster
//     find nothing; changes to it are NOT_FOUND.
//   - Creating the cluster (or a pool) that exists, in any state, is ALREADY_EXISTS; deleting one that does not is
//     NOT_FOUND. A change is refused (FAILED_PRECONDITION, retried by xpk) while the cluster is being created or
//     deleted, or while another operation runs on the same pool, and (not retried) while the cluster is neither
//     RUNNING nor DEGRADED. Deleting the cluster aborts the operations running on its pools.
//   - Labels carry a fingerprint of their content; SetLabels with another fingerprint is refused as GKE words it.
//   - UpdateCluster (addons, Workload Identity) runs alone: refused while any operation runs on the cluster, and
//     every change waits for it; the cluster is RECONCILING until it is DONE, then shows the change. A pool may use
//     GKE_METADATA only once the cluster has Workload Identity, and then gets it by default; UpdateNodePool switches
//     an existing pool (RECONCILING until done).
//   - The cluster is made with `default-pool`; resources are PROVISIONING (or STOPPING) while their operation runs,
//     then RUNNING (or gone). An operation made to fail leaves its resource in ERROR with the failure as its message.
//   - Failures are ApiErrors classified as the adapter classifies GKE's answers, saying what was being done.
//   - A pool keeps the host maintenance interval it was created with (a seeded pool's, AS_NEEDED when it has none);
//     reads give it only when asked (`hostMaintenance`: GKE's v1beta1 read, logged as `listNodePools hostMaintenance`
//     or `getNodePool NAME hostMaintenance`), otherwise they leave it out, as GKE's v1 API does.
// Methods can still be replaced per test, for what the contract does not cover.
import {gkeApiError, GRPC_STATUS} from '../../src/core/cluster/gke-errors.js'
import type {
  ClusterStatus,
  NodePoolStatus,
  ObservedAutoprovisioning,
  ObservedNodePool,
  ServerConfig,
} from '../../src/core/cluster/observed.js'
import {
  CSI_DRIVERS,
  workloadPoolOf,
  type AutoprovisioningSpec,
  type ClusterSpec,
  type ClusterUpdate,
  type CsiDriver,
  type NodePoolSpec,
  type NodePoolUpdate,
} from '../../src/core/cluster/spec.js'
import type {ApiError} from '../../src/core/errors.js'
import type {ClusterRef, GkeClient, GkeOperation, NodePoolReadOptions} from '../../src/ports/gke.js'
import {anObservedCluster, anObservedPool, observedPoolFrom} from '../builders/observed.js'
import {takeFault, type Fault} from './fake-server.js'
import {gkeSays, LABEL_KEY_RE, LABEL_VALUE_RE, labelFingerprint} from './gke-wording.js'

/** Where the one cluster is. */
export const MEMORY_CLUSTER = {location: 'us-central2', name: 'demo'} as const

/** A method of the port. */
export type GkeCall = Exclude<keyof GkeClient, 'close'>

/** A failure as GKE reports it, in gRPC terms: its status name and message. */
export interface GkeFailure {
  readonly status: (typeof GRPC_STATUS)[number]
  readonly message: string
}

interface Context {
  readonly action: string
  readonly project: string
  readonly location: string
}

interface OperationEntry {
  op: GkeOperation
  reads: number
  /** Applies the operation's outcome when it is done (tests may replace it). */
  finish: () => void
  /** The node pool it works on; undefined for the cluster's own operations. */
  readonly pool?: string
}

const CLUSTER_OPERATIONS = new Set(['CREATE_CLUSTER', 'DELETE_CLUSTER', 'UPDATE_CLUSTER'])

/** A pool as a read gives it: its interval only through `hostMaintenance` (v1beta1), AS_NEEDED when it has none. */
function readPool(pool: ObservedNodePool, options: NodePoolReadOptions): ObservedNodePool {
  const {hostMaintenanceInterval, ...v1} = pool
  return options.hostMaintenance ? {...v1, hostMaintenanceInterval: hostMaintenanceInterval ?? 'AS_NEEDED'} : v1
}

export class MemoryGke implements GkeClient {
  readonly pools = new Map<string, ObservedNodePool>()
  readonly ops = new Map<string, OperationEntry>()
  readonly calls: string[] = []
  inFlight = 0
  maxInFlight = 0
  /** Reads of an operation (getOperation, or listOperations) before it is done. */
  ticks = 2
  /** The cluster's status, or gone. */
  cluster: ClusterStatus | 'gone' = 'RUNNING'
  /** The cluster's resource labels; SetLabels replaces them when given their current fingerprint. */
  labels: Record<string, string> = {gke_product_type: 'xpk'}
  /** The CSI driver addons enabled, in any order (reads give them in CSI_DRIVERS order). */
  csiDrivers: CsiDriver[] = []
  lustreLegacyPort = false
  /** GKE's slice controller addon, from the create request (super-slicing). */
  sliceController = false
  /** GKE's Ray operator addon: from the create request or an update (cluster create-ray). */
  rayOperator = false
  /** The Workload Identity pool, or null when it is off. */
  workloadPool: string | null = null
  /** The cluster's VPC network, `default` unless created on another. */
  network = 'default'
  /** Node auto-provisioning, as GKE reports it; null when off. */
  autoprovisioning: ObservedAutoprovisioning | null = null
  private next = 0
  private readonly faults: (Fault & GkeFailure & {readonly call: GkeCall})[] = []
  private readonly operationFaults: (Fault & GkeFailure & {readonly type: string})[] = []

  constructor(existing: readonly ObservedNodePool[] = []) {
    for (const p of existing) this.pools.set(p.name, p)
  }

  /** The current labels' fingerprint (of their content, as FakeGke's). */
  get fingerprint(): string {
    return labelFingerprint(this.labels)
  }

  /** The next `times` calls of `call` fail as GKE's answer `failure` would. */
  failNext(call: GkeCall, failure: GkeFailure, times = 1): this {
    this.faults.push({call, ...failure, times})
    return this
  }

  /** The next operation of `type` (CREATE_NODE_POOL, ...) ends DONE with `failure`, its resource left in ERROR. */
  failNextOperation(type: string, failure: GkeFailure): this {
    this.operationFaults.push({type, ...failure})
    return this
  }

  async getServerConfig(project: string, location: string): Promise<ServerConfig> {
    this.calls.push('getServerConfig')
    this.fault('getServerConfig', {action: 'read the GKE server config', project, location})
    const version = '1.35.1-gke.1000000'
    const channel = {defaultVersion: version, validVersions: [version]}
    return {
      defaultVersion: version,
      validMasterVersions: [version],
      validNodeVersions: [version],
      channels: {RAPID: channel, REGULAR: channel, STABLE: channel},
    }
  }

  async listClusters(project: string, location?: string) {
    this.calls.push('listClusters')
    this.fault('listClusters', {action: 'list clusters', project, location: location ?? '-'})
    if (this.cluster === 'gone') return []
    if (location !== undefined && location !== '-' && location !== MEMORY_CLUSTER.location) return []
    return [this.snapshot(project)]
  }

  async getCluster(ref: ClusterRef) {
    this.calls.push('getCluster')
    this.fault('getCluster', this.context(`read cluster ${ref.name}`, ref))
    return this.exists(ref) ? this.snapshot(ref.project) : undefined
  }

  async createCluster(spec: ClusterSpec): Promise<GkeOperation> {
    this.calls.push('createCluster')
    const ref = {project: spec.project, location: spec.region, name: spec.name}
    const context = this.context(`create cluster ${spec.name}`, ref)
    this.fault('createCluster', context)
    if (!this.isTheCluster(ref)) throw new Error(`MemoryGke holds one cluster, ${MEMORY_CLUSTER.name}`)
    if (this.cluster !== 'gone') this.fail('ALREADY_EXISTS', gkeSays.alreadyExists(this.key(ref)), context)
    if (spec.autoprovisioning) this.checkAutoprovisioning(spec.autoprovisioning, context)
    this.cluster = 'PROVISIONING'
    this.labels = {...spec.labels}
    this.csiDrivers = [...spec.csiDrivers]
    this.lustreLegacyPort = spec.csiDrivers.includes('LustreCsiDriver') && spec.lustreLegacyPort
    this.workloadPool = spec.workloadPool
    this.sliceController = spec.sliceController === true
    this.rayOperator = spec.rayOperator === true
    this.network = spec.network ?? 'default'
    this.autoprovisioning = spec.autoprovisioning && observedAutoprovisioning(spec.autoprovisioning)
    this.pools.set('default-pool', {
      ...anObservedPool({name: 'default-pool', machineType: spec.defaultPool.machineType}),
      nodeCount: spec.defaultPool.nodeCount,
      locations: [spec.zone],
      tpuTopology: null,
      placementType: null,
      status: 'PROVISIONING',
      workloadMetadataMode: spec.workloadPool ? 'GKE_METADATA' : null,
    })
    return this.operation(ref, 'CREATE_CLUSTER', undefined, () => {
      this.cluster = 'RUNNING'
      for (const [name, pool] of this.pools) this.pools.set(name, {...pool, status: 'RUNNING'})
    })
  }

  async deleteCluster(ref: ClusterRef): Promise<GkeOperation> {
    this.calls.push('deleteCluster')
    const context = this.context(`delete cluster ${ref.name}`, ref)
    this.fault('deleteCluster', context)
    if (!this.exists(ref)) this.fail('NOT_FOUND', gkeSays.notFound(this.key(ref)), context)
    const clusterOp = this.running().find((e) => CLUSTER_OPERATIONS.has(e.op.type))
    if (clusterOp) {
      this.fail('FAILED_PRECONDITION', gkeSays.busyCluster(shortId(clusterOp), clusterOp.op.type, ref.name), context)
    }
    // Deleting the cluster supersedes whatever its node pools were doing.
    for (const entry of this.running()) {
      const failure = {status: 'ABORTED', message: gkeSays.abortedByClusterDelete} as const
      this.end(entry, gkeApiError(code(failure), this.operationContext(entry)))
    }
    this.cluster = 'STOPPING'
    for (const [name, pool] of this.pools) this.pools.set(name, {...pool, status: 'STOPPING'})
    return this.operation(ref, 'DELETE_CLUSTER', undefined, () => {
      this.cluster = 'gone'
      this.pools.clear()
    })
  }

  async setResourceLabels(ref: ClusterRef, labels: Readonly<Record<string, string>>, fingerprint: string) {
    this.calls.push('setResourceLabels')
    const context = this.context(`set the labels of cluster ${ref.name}`, ref)
    this.fault('setResourceLabels', context)
    if (!this.exists(ref)) this.fail('NOT_FOUND', gkeSays.notFound(this.key(ref)), context)
    for (const [key, value] of Object.entries(labels)) {
      if (!LABEL_KEY_RE.test(key)) this.fail('INVALID_ARGUMENT', gkeSays.invalidLabelKey(key), context)
      if (!LABEL_VALUE_RE.test(value)) this.fail('INVALID_ARGUMENT', gkeSays.invalidLabelValue(key, value), context)
    }
    const clusterOp = this.running().find((e) => CLUSTER_OPERATIONS.has(e.op.type))
    if (clusterOp) this.fail('FAILED_PRECONDITION', gkeSays.incompatibleOperation(shortId(clusterOp)), context)
    if (fingerprint !== this.fingerprint) {
      this.fail('FAILED_PRECONDITION', gkeSays.fingerprintMismatch(fingerprint, this.fingerprint), context)
    }
    this.labels = {...labels}
    return this.operation(ref, 'SET_LABELS', undefined, () => {})
  }

  async updateCluster(ref: ClusterRef, update: ClusterUpdate): Promise<GkeOperation> {
    this.calls.push(`updateCluster ${update.kind}`)
    const what =
      update.kind === 'addons'
        ? `enable ${update.enable.join(', ')} on`
        : update.kind === 'workloadIdentity'
          ? 'enable Workload Identity on'
          : update.kind === 'rayOperator'
            ? 'enable the Ray operator on'
            : 'set node auto-provisioning of'
    const context = this.context(`${what} cluster ${ref.name}`, ref)
    this.fault('updateCluster', context)
    if (!this.exists(ref)) this.fail('NOT_FOUND', gkeSays.notFound(this.key(ref)), context)
    if (update.kind === 'workloadIdentity' && update.workloadPool !== workloadPoolOf(ref.project)) {
      this.fail('INVALID_ARGUMENT', gkeSays.badWorkloadPool(update.workloadPool, ref.project), context)
    }
    if (update.kind === 'autoprovisioning') this.checkAutoprovisioning(update.autoprovisioning, context)
    this.checkAccepts(ref, context)
    // GKE changes a cluster one operation at a time: not while its node pools are being changed either. The caller
    // retries after a while, so the operation in the way gets a tick (the cluster lock's SET_LABELS, which nobody
    // waits for, ends so).
    const [busy] = this.running()
    if (busy) {
      this.read(busy.op.name)
      this.fail('FAILED_PRECONDITION', gkeSays.incompatibleOperation(shortId(busy)), context)
    }
    this.cluster = 'RECONCILING'
    return this.operation(ref, 'UPDATE_CLUSTER', undefined, () => {
      if (update.kind === 'workloadIdentity') this.workloadPool = update.workloadPool
      else if (update.kind === 'autoprovisioning')
        this.autoprovisioning = observedAutoprovisioning(update.autoprovisioning)
      else if (update.kind === 'rayOperator') this.rayOperator = true
      else {
        this.csiDrivers = [...new Set([...this.csiDrivers, ...update.enable])]
        if (update.enable.includes('LustreCsiDriver') && update.lustreLegacyPort) this.lustreLegacyPort = true
      }
      this.cluster = 'RUNNING'
    })
  }

  async listNodePools(ref: ClusterRef, options: NodePoolReadOptions = {}) {
    if (options.hostMaintenance) this.calls.push('listNodePools hostMaintenance')
    const context = this.context(`list node pools of ${ref.name}`, ref)
    this.fault('listNodePools', context)
    if (!this.exists(ref)) this.fail('NOT_FOUND', gkeSays.notFound(this.key(ref)), context)
    return [...this.pools.values()].map((p) => readPool(p, options))
  }

  async getNodePool(ref: ClusterRef, name: string, options: NodePoolReadOptions = {}) {
    this.calls.push(`getNodePool ${name}${options.hostMaintenance ? ' hostMaintenance' : ''}`)
    this.fault('getNodePool', this.context(`read node pool ${name}`, ref))
    const pool = this.exists(ref) ? this.pools.get(name) : undefined
    return pool && readPool(pool, options)
  }

  async createNodePool(ref: ClusterRef, spec: NodePoolSpec) {
    this.calls.push(`createNodePool ${spec.name}`)
    const context = this.context(`create node pool ${spec.name}`, ref)
    this.fault('createNodePool', context)
    if (!this.exists(ref)) this.fail('NOT_FOUND', gkeSays.notFound(this.key(ref)), context)
    if (this.pools.has(spec.name)) {
      this.fail('ALREADY_EXISTS', gkeSays.alreadyExists(`${this.key(ref)}/nodePools/${spec.name}`), context)
    }
    if (spec.workloadMetadataMode === 'GKE_METADATA' && this.workloadPool === null) {
      this.fail('INVALID_ARGUMENT', gkeSays.workloadIdentityOff(spec.name), context)
    }
    this.checkAccepts(ref, context)
    const mode = spec.workloadMetadataMode ?? (this.workloadPool ? 'GKE_METADATA' : null)
    this.pools.set(spec.name, {
      ...observedPoolFrom(spec),
      status: 'PROVISIONING',
      workloadMetadataMode: mode,
      hostMaintenanceInterval: spec.hostMaintenanceInterval,
    })
    return this.operation(ref, 'CREATE_NODE_POOL', spec.name, () => this.setPoolStatus(spec.name, 'RUNNING'))
  }

  async deleteNodePool(ref: ClusterRef, name: string) {
    this.calls.push(`deleteNodePool ${name}`)
    const context = this.context(`delete node pool ${name}`, ref)
    this.fault('deleteNodePool', context)
    if (!this.exists(ref)) this.fail('NOT_FOUND', gkeSays.notFound(this.key(ref)), context)
    if (!this.pools.has(name)) this.fail('NOT_FOUND', gkeSays.notFound(`${this.key(ref)}/nodePools/${name}`), context)
    this.checkAccepts(ref, context, name)
    this.setPoolStatus(name, 'STOPPING')
    return this.operation(ref, 'DELETE_NODE_POOL', name, () => this.pools.delete(name))
  }

  async updateNodePool(ref: ClusterRef, name: string, update: NodePoolUpdate) {
    this.calls.push(`updateNodePool ${name}`)
    const context = this.context(`update node pool ${name}`, ref)
    this.fault('updateNodePool', context)
    if (!this.exists(ref)) this.fail('NOT_FOUND', gkeSays.notFound(this.key(ref)), context)
    if (!this.pools.has(name)) this.fail('NOT_FOUND', gkeSays.notFound(`${this.key(ref)}/nodePools/${name}`), context)
    if (update.workloadMetadataMode === 'GKE_METADATA' && this.workloadPool === null) {
      this.fail('INVALID_ARGUMENT', gkeSays.workloadIdentityOff(name), context)
    }
    this.checkAccepts(ref, context, name)
    this.setPoolStatus(name, 'RECONCILING')
    return this.operation(ref, 'UPGRADE_NODES', name, () => {
      const pool = this.pools.get(name)
      if (pool) this.pools.set(name, {...pool, status: 'RUNNING', workloadMetadataMode: update.workloadMetadataMode})
    })
  }

  async getOperation(project: string, location: string, name: string) {
    this.calls.push('getOperation')
    const context = {action: 'check an operation', project, location}
    this.fault('getOperation', context)
    if (!this.ops.has(name)) this.fail('NOT_FOUND', gkeSays.notFound(name), context)
    return this.read(name)
  }

  async listOperations(project: string, location: string) {
    this.calls.push('listOperations')
    this.fault('listOperations', {action: 'list operations', project, location})
    return [...this.ops.keys()].filter((name) => name.includes(`/locations/${location}/`)).map((n) => this.read(n))
  }

  async close() {}

  // ---- internals ----

  private isTheCluster(ref: {location: string; name: string}): boolean {
    return ref.location === MEMORY_CLUSTER.location && ref.name === MEMORY_CLUSTER.name
  }

  private exists(ref: ClusterRef): boolean {
    return this.isTheCluster(ref) && this.cluster !== 'gone'
  }

  private key(ref: ClusterRef): string {
    return `projects/${ref.project}/locations/${ref.location}/clusters/${ref.name}`
  }

  /** GKE's checks of node auto-provisioning (FakeGke's): cpu and memory limits, no maximum below its minimum. */
  private checkAutoprovisioning(spec: AutoprovisioningSpec, context: Context): void {
    for (const type of ['cpu', 'memory']) {
      if (!spec.resourceLimits.some((l) => l.resourceType === type)) {
        this.fail('INVALID_ARGUMENT', gkeSays.napLimitMissing(type), context)
      }
    }
    const inverted = spec.resourceLimits.find((l) => l.maximum < l.minimum)
    if (inverted) this.fail('INVALID_ARGUMENT', gkeSays.napLimitInverted(inverted.resourceType), context)
  }

  private context(action: string, ref: ClusterRef): Context {
    return {action, project: ref.project, location: ref.location}
  }

  private snapshot(project: string) {
    return anObservedCluster({
      project,
      status: this.cluster as ClusterStatus,
      // The cluster read is v1's: its pools come without their interval.
      nodePools: [...this.pools.values()].map((p) => readPool(p, {})),
      labels: {...this.labels},
      labelFingerprint: this.fingerprint,
      csiDrivers: CSI_DRIVERS.filter((driver) => this.csiDrivers.includes(driver)),
      lustreLegacyPort: this.lustreLegacyPort,
      workloadPool: this.workloadPool,
      network: this.network,
      autoprovisioning: this.autoprovisioning,
      // Reported only when on, as the adapter reports it.
      ...(this.sliceController ? {sliceController: true} : {}),
      ...(this.rayOperator ? {rayOperator: true} : {}),
    })
  }

  private fail(status: GkeFailure['status'], message: string, context: Context): never {
    throw gkeApiError(code({status, message}), context)
  }

  private fault(call: GkeCall, context: Context): void {
    const fault = takeFault(this.faults, (f) => f.call === call)
    if (fault) throw gkeApiError(code(fault), context)
  }

  /** The order GKE refuses a node-pool change in: the cluster busy, not ready, then the same pool busy. */
  private checkAccepts(ref: ClusterRef, context: Context, pool?: string): void {
    const running = this.running()
    const clusterOp = running.find((e) => CLUSTER_OPERATIONS.has(e.op.type))
    if (clusterOp) this.fail('FAILED_PRECONDITION', gkeSays.incompatibleOperation(shortId(clusterOp)), context)
    if (this.cluster !== 'RUNNING' && this.cluster !== 'DEGRADED') {
      this.fail('FAILED_PRECONDITION', gkeSays.notReady(ref.name, this.cluster), context)
    }
    const poolOp = pool === undefined ? undefined : running.find((e) => e.pool === pool)
    if (poolOp) this.fail('FAILED_PRECONDITION', gkeSays.busyPool(shortId(poolOp), poolOp.op.type, pool!), context)
  }

  private setPoolStatus(name: string, status: NodePoolStatus, statusMessage?: string): void {
    const pool = this.pools.get(name)
    if (pool) this.pools.set(name, {...pool, status, ...(statusMessage === undefined ? {} : {statusMessage})})
  }

  private running(): OperationEntry[] {
    return [...this.ops.values()].filter((e) => e.op.status !== 'DONE')
  }

  private operation(ref: ClusterRef, type: string, pool: string | undefined, finish: () => void): GkeOperation {
    const op: GkeOperation = {
      name: `projects/${ref.project}/locations/${ref.location}/operations/operation-${++this.next}`,
      type,
      status: 'RUNNING',
      error: null,
    }
    this.inFlight++
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
    const entry: OperationEntry = {op, reads: 0, finish, ...(pool === undefined ? {} : {pool})}
    const fault = takeFault(this.operationFaults, (f) => f.type === type)
    if (fault) {
      // It ends DONE with the failure, its resource in ERROR saying why.
      entry.finish = () => {
        entry.op = {...entry.op, error: gkeApiError(code(fault), this.operationContext(entry))}
        if (pool !== undefined) return this.setPoolStatus(pool, 'ERROR', fault.message)
        this.cluster = 'ERROR'
        // A failed create or delete of the cluster takes its pools along; a failed update leaves them as they are.
        if (type !== 'UPDATE_CLUSTER') for (const name of this.pools.keys()) this.setPoolStatus(name, 'ERROR')
      }
    }
    this.ops.set(op.name, entry)
    return op
  }

  /** What the adapter says an operation was doing: its type and the name of what it works on. */
  private operationContext(entry: OperationEntry): Context {
    const [, project, , location] = entry.op.name.split('/')
    const target = entry.pool ?? MEMORY_CLUSTER.name
    return {action: `${entry.op.type.toLowerCase().replaceAll('_', ' ')} ${target}`, project, location}
  }

  private read(name: string): GkeOperation {
    const entry = this.ops.get(name)!
    if (entry.op.status !== 'DONE' && ++entry.reads >= this.ticks) {
      entry.op = {...entry.op, status: 'DONE'}
      this.inFlight--
      entry.finish()
    }
    return entry.op
  }

  /** Ends a running operation at once with `error`, its outcome not applied. */
  private end(entry: OperationEntry, error: ApiError): void {
    entry.op = {...entry.op, status: 'DONE', error}
    this.inFlight--
  }
}

function code(failure: GkeFailure): {code: number; message: string} {
  return {code: GRPC_STATUS.indexOf(failure.status), message: failure.message}
}

function shortId(entry: OperationEntry): string {
  return entry.op.name.slice(entry.op.name.lastIndexOf('/') + 1)
}

/** What GKE reports of the node auto-provisioning it was given: the limits and zones. */
function observedAutoprovisioning(spec: AutoprovisioningSpec): ObservedAutoprovisioning {
  return {resourceLimits: spec.resourceLimits.map((l) => ({...l})), locations: [...spec.locations]}
}
