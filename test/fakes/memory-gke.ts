// In-memory doubles of the GkeClient port for executor and service tests: real state, operations that finish after
// a number of reads, every call recorded. Methods can be replaced per test to inject failures.
import {gkeApiError} from '../../src/core/cluster/gke-errors.js'
import type {ClusterStatus, ObservedNodePool, ServerConfig} from '../../src/core/cluster/observed.js'
import type {ClusterSpec, NodePoolSpec} from '../../src/core/cluster/spec.js'
import type {ClusterRef, GkeClient, GkeOperation} from '../../src/ports/gke.js'
import {anObservedCluster, observedPoolFrom} from '../builders/observed.js'

const CONTEXT = {action: 'x', project: 'test-project', location: 'us-central2'}

/**
 * A GKE client in memory: operations finish after `ticks` reads of them; every call is counted. Methods can be
 * replaced per test to inject failures.
 */
export class MemoryGke implements GkeClient {
  readonly pools = new Map<string, ObservedNodePool>()
  readonly ops = new Map<string, {op: GkeOperation; reads: number; finish: () => void}>()
  readonly calls: string[] = []
  inFlight = 0
  maxInFlight = 0
  ticks = 2
  /** The cluster's status, or gone. */
  cluster: ClusterStatus | 'gone' = 'RUNNING'
  /** The cluster's resource labels; SetLabels replaces them when given the current fingerprint. */
  labels: Record<string, string> = {gke_product_type: 'xpk'}
  /** Counts label changes: the fingerprint changes with every SetLabels, as GKE's does. */
  private labelVersion = 0
  private next = 0

  constructor(existing: readonly ObservedNodePool[] = []) {
    for (const p of existing) this.pools.set(p.name, p)
  }

  private operation(type: string, finish: () => void): GkeOperation {
    const op: GkeOperation = {
      name: `projects/test-project/locations/us-central2/operations/op-${this.next++}`,
      type,
      status: 'RUNNING',
      error: null,
    }
    this.inFlight++
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
    this.ops.set(op.name, {op, reads: 0, finish})
    return op
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

  async getServerConfig(): Promise<ServerConfig> {
    this.calls.push('getServerConfig')
    const version = '1.35.1-gke.1000000'
    const channel = {defaultVersion: version, validVersions: [version]}
    return {
      defaultVersion: version,
      validMasterVersions: [version],
      validNodeVersions: [version],
      channels: {RAPID: channel, REGULAR: channel, STABLE: channel},
    }
  }
  async listClusters() {
    this.calls.push('listClusters')
    const cluster = await this.getCluster()
    return cluster ? [cluster] : []
  }
  async getCluster() {
    this.calls.push('getCluster')
    if (this.cluster === 'gone') return undefined
    return anObservedCluster({
      status: this.cluster,
      nodePools: [...this.pools.values()],
      labels: {...this.labels},
      labelFingerprint: this.fingerprint,
    })
  }
  /** The current labels' fingerprint. */
  get fingerprint(): string {
    return `fp-${this.labelVersion}`
  }
  async createCluster(spec: ClusterSpec): Promise<GkeOperation> {
    this.calls.push('createCluster')
    if (this.cluster !== 'gone' && this.cluster !== 'STOPPING') {
      throw gkeApiError(
        {code: 6, message: 'Already exists: projects/test-project/locations/us-central2/clusters/demo.'},
        CONTEXT,
      )
    }
    this.cluster = 'PROVISIONING'
    this.labels = {...spec.labels}
    this.labelVersion++
    return this.operation('CREATE_CLUSTER', () => (this.cluster = 'RUNNING'))
  }
  async deleteCluster(): Promise<GkeOperation> {
    this.calls.push('deleteCluster')
    if (this.cluster === 'gone') throw gkeApiError({code: 5, message: 'cluster not found'}, CONTEXT)
    this.cluster = 'STOPPING'
    return this.operation('DELETE_CLUSTER', () => {
      this.cluster = 'gone'
      this.pools.clear()
    })
  }
  /** GKE's SetLabels: refused (FAILED_PRECONDITION, fingerprint mismatch) unless `fingerprint` is the current one. */
  async setResourceLabels(_ref: ClusterRef, labels: Readonly<Record<string, string>>, fingerprint: string) {
    this.calls.push('setResourceLabels')
    if (this.cluster === 'gone') throw gkeApiError({code: 5, message: 'cluster not found'}, CONTEXT)
    if (fingerprint !== this.fingerprint) {
      throw gkeApiError(
        {
          code: 9,
          message: `Labels could not be set due to fingerprint mismatch; try again with the proper fingerprint: incorrect fingerprint supplied was "${fingerprint}", the expected one is "${this.fingerprint}".`,
        },
        CONTEXT,
      )
    }
    this.labels = {...labels}
    this.labelVersion++
    return this.operation('SET_LABELS', () => {})
  }
  async listNodePools() {
    return [...this.pools.values()]
  }
  async getNodePool(_ref: ClusterRef, name: string) {
    this.calls.push(`getNodePool ${name}`)
    return this.pools.get(name)
  }
  async createNodePool(_ref: ClusterRef, spec: NodePoolSpec) {
    this.calls.push(`createNodePool ${spec.name}`)
    this.pools.set(spec.name, {...observedPoolFrom(spec), status: 'PROVISIONING'})
    return this.operation('CREATE_NODE_POOL', () =>
      this.pools.set(spec.name, {...this.pools.get(spec.name)!, status: 'RUNNING'}),
    )
  }
  async deleteNodePool(_ref: ClusterRef, name: string) {
    this.calls.push(`deleteNodePool ${name}`)
    this.pools.set(name, {...this.pools.get(name)!, status: 'STOPPING'})
    return this.operation('DELETE_NODE_POOL', () => this.pools.delete(name))
  }
  async getOperation(_p: string, _l: string, name: string) {
    this.calls.push('getOperation')
    return this.read(name)
  }
  async listOperations() {
    this.calls.push('listOperations')
    return [...this.ops.keys()].map((name) => this.read(name))
  }
  async close() {}
}
