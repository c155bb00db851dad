// An in-memory TpuClient for service tests: queued resources follow a scripted list of states, one per read.
import {ApiError} from '../../src/core/errors.js'
import type {
  QueuedResource,
  QueuedResourceRequest,
  QueuedResourceState,
  TpuClient,
  TpuLocation,
  TpuNode,
  TpuOperation,
} from '../../src/ports/tpu.js'

export class MemoryTpu implements TpuClient {
  readonly queued = new Map<string, QueuedResource & {script: QueuedResourceState[]}>()
  readonly nodes = new Map<string, TpuNode>()
  readonly log: string[] = []
  /** Errors thrown by the next calls of a method, in order. */
  readonly failures = new Map<string, ApiError[]>()
  /** The states a created queued resource goes through, one per getQueuedResource call. */
  script: QueuedResourceState[] = ['ACCEPTED', 'PROVISIONING', 'ACTIVE']
  workersPerNode = 2
  closed = 0

  private fail(method: string): void {
    this.log.push(method)
    const next = this.failures.get(method)?.shift()
    if (next) throw next
  }

  async listNodes(_l: TpuLocation): Promise<TpuNode[]> {
    this.fail('listNodes')
    return [...this.nodes.values()]
  }
  async getNode(_l: TpuLocation, id: string): Promise<TpuNode | undefined> {
    this.fail('getNode')
    return this.nodes.get(id)
  }
  async listQueuedResources(_l: TpuLocation): Promise<QueuedResource[]> {
    this.fail('listQueuedResources')
    return [...this.queued.values()]
  }
  async getQueuedResource(_l: TpuLocation, id: string): Promise<QueuedResource | undefined> {
    this.fail('getQueuedResource')
    const qr = this.queued.get(id)
    if (!qr) return undefined
    if (qr.script.length > 0) {
      const state = qr.script.shift()!
      const failure = state === 'FAILED' ? {code: 8, message: 'There is no more capacity in the zone.'} : undefined
      const next = {...qr, state, ...(failure ? {failure} : {})}
      this.queued.set(id, next)
      if (state === 'ACTIVE') for (const n of qr.nodeIds) this.addNode(n, qr.acceleratorType, qr.id)
      if (state === 'DELETING' && qr.script.length === 0) this.queued.delete(id)
      return next
    }
    return qr
  }
  addNode(id: string, type: string, queuedResource?: string): TpuNode {
    const node: TpuNode = {
      id,
      acceleratorType: type,
      runtimeVersion: 'tpu-ubuntu2204-base',
      state: 'READY',
      ...(queuedResource ? {queuedResource} : {}),
      workers: Array.from({length: this.workersPerNode}, (_, w) => ({internalIp: `10.0.${this.nodes.size}.${w + 2}`})),
      metadata: {},
    }
    this.nodes.set(id, node)
    return node
  }
  async createQueuedResource(_l: TpuLocation, r: QueuedResourceRequest): Promise<TpuOperation> {
    this.fail('createQueuedResource')
    const nodeIds =
      r.numSlices === 1 ? [r.nodePrefix] : Array.from({length: r.numSlices}, (_, i) => `${r.nodePrefix}-${i}`)
    this.queued.set(r.id, {
      id: r.id,
      state: 'CREATING',
      nodeIds,
      acceleratorType: r.acceleratorType,
      runtimeVersion: r.runtimeVersion,
      capacity: r.capacity,
      script: [...this.script],
    })
    return {name: 'op-create', done: true}
  }
  async deleteQueuedResource(_l: TpuLocation, id: string): Promise<TpuOperation> {
    this.fail('deleteQueuedResource')
    const qr = this.queued.get(id)
    if (qr) {
      this.queued.set(id, {...qr, state: 'DELETING', script: ['DELETING', 'DELETING']})
      for (const n of qr.nodeIds) this.nodes.delete(n)
    }
    return {name: 'op-delete', done: false}
  }
  async setNodeMetadata(
    _l: TpuLocation,
    id: string,
    metadata: Readonly<Record<string, string>>,
  ): Promise<TpuOperation> {
    this.fail('setNodeMetadata')
    const node = this.nodes.get(id)!
    this.nodes.set(id, {...node, metadata: {...metadata}})
    return {name: 'op-update', done: true}
  }
  async getOperation(name: string): Promise<TpuOperation> {
    this.fail('getOperation')
    return {name, done: true}
  }
  async close(): Promise<void> {
    this.closed++
  }
}

export const unavailable = () =>
  new ApiError('unavailable', 'Could not do it: try later (UNAVAILABLE).', {status: 'UNAVAILABLE', retryable: true})
