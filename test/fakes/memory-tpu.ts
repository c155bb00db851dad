// An in-memory TpuClient for service tests: queued resources follow a scripted list of states, one per read, and so
// do nodes created directly (CREATING, then READY), a node's operation finishing its creation or deletion when read. It
// serves one location (project p, zone us-central2-b unless given); the port-level behaviour the services rely on
// is held to FakeTpu's through the real adapter by tpu-port-contract.test.ts.
import {ApiError} from '../../src/core/errors.js'
import {tpuApiError} from '../../src/core/vm/tpu-errors.js'
import type {
  NodeRequest,
  QueuedResource,
  QueuedResourceRequest,
  QueuedResourceState,
  TpuClient,
  TpuLocation,
  TpuNode,
  TpuOperation,
} from '../../src/ports/tpu.js'
import {nodeProblem, TPU_ID, TPU_TYPE, workersOf} from './tpu-shapes.js'

/** The failure FakeTpu gives a queued resource that found no capacity. */
export const NO_CAPACITY = {code: 8, message: 'There is no more capacity in the zone; you can try again later.'}

/** A node state in a node's script; `gone` is its end (deleted, or its creation failed). */
export type NodeScriptState = 'CREATING' | 'READY' | 'DELETING' | 'gone'

/** The states a node goes through after a change, read by read, and how its operation ends. */
interface NodeProgress {
  script: NodeScriptState[]
  operation: string
  failure?: {code: number; message: string}
}

export class MemoryTpu implements TpuClient {
  readonly queued = new Map<string, QueuedResource & {script: QueuedResourceState[]}>()
  readonly nodes = new Map<string, TpuNode>()
  readonly log: string[] = []
  /** Errors thrown by the next calls of a method, in order. */
  readonly failures = new Map<string, ApiError[]>()
  /** The states a created queued resource goes through, one per getQueuedResource call. */
  script: QueuedResourceState[] = ['ACCEPTED', 'PROVISIONING', 'ACTIVE']
  /** The states of the queued resource created with this id, instead of `script`. */
  readonly scripts = new Map<string, QueuedResourceState[]>()
  /** The states a node created directly goes through, one per getNode read (the last one stays). */
  nodeScript: NodeScriptState[] = ['CREATING', 'READY']
  /** The states of the node created with this id, instead of `nodeScript`. */
  readonly nodeScripts = new Map<string, NodeScriptState[]>()
  /** Node creations that end their operation with this failure, the node gone (set by failNodeCreation). */
  private readonly nodeFailures = new Map<string, {code: number; message: string}>()
  private readonly progress = new Map<string, NodeProgress>()
  /** The errors of node operations that ended in one, by operation name. */
  private readonly operationErrors = new Map<string, {code: number; message: string}>()
  closed = 0
  private operations = 0

  constructor(readonly location: TpuLocation = {project: 'p', zone: 'us-central2-b'}) {}

  private fail(method: string): void {
    this.log.push(method)
    const next = this.failures.get(method)?.shift()
    if (next) throw next
  }

  /** Whether `l` is the location this fake serves; any other one is empty, as an unused zone is. */
  private here(l: TpuLocation): boolean {
    return l.project === this.location.project && l.zone === this.location.zone
  }

  /** Creating anywhere else is beyond this fake: the tests that need two zones use FakeTpu. */
  private requireHere(l: TpuLocation): void {
    if (!this.here(l)) throw new Error(`MemoryTpu serves ${this.location.project}/${this.location.zone} only`)
  }

  /** The error the adapter makes of the status FakeTpu answers with. */
  private error(code: number, message: string, action: string): ApiError {
    return tpuApiError({code, message}, {action, ...this.location})
  }

  private name(kind: 'nodes' | 'queuedResources', id: string): string {
    return `projects/${this.location.project}/locations/${this.location.zone}/${kind}/${id}`
  }

  private operation(done: boolean): TpuOperation {
    const {project, zone} = this.location
    return {name: `projects/${project}/locations/${zone}/operations/operation-${++this.operations}`, done}
  }

  async listNodes(l: TpuLocation): Promise<TpuNode[]> {
    this.fail('listNodes')
    return this.here(l) ? [...this.nodes.values()] : []
  }
  async getNode(l: TpuLocation, id: string): Promise<TpuNode | undefined> {
    this.fail('getNode')
    if (!this.here(l)) return undefined
    const progress = this.progress.get(id)
    // The last state of the script stays until the operation is read.
    if (progress) this.moveNode(id, progress.script.length > 1 ? progress.script.shift()! : progress.script[0]!)
    return this.nodes.get(id)
  }

  /** The node's creation ends its operation with `failure` (default no capacity, as FakeTpu's), the node gone. */
  failNodeCreation(id: string, failure: {code: number; message: string} = NO_CAPACITY): void {
    this.nodeFailures.set(id, failure)
  }

  /** The node is preempted now: PREEMPTED, and its queued resource, if any, SUSPENDED (as FakeTpu's preempt). */
  preempt(id: string): void {
    const node = this.interrupt(id, 'PREEMPTED')
    const qr = node.queuedResource ? this.queued.get(node.queuedResource) : undefined
    if (qr) this.queued.set(qr.id, {...qr, state: 'SUSPENDED', script: []})
  }

  /** The node is TERMINATED now; its queued resource, if any, is left as it is. */
  terminate(id: string): void {
    this.interrupt(id, 'TERMINATED')
  }

  /** The node is STOPPED now; its queued resource, if any, is left as it is. */
  stopNode(id: string): void {
    this.interrupt(id, 'STOPPED')
  }

  private interrupt(id: string, state: string): TpuNode {
    const node = this.nodes.get(id)
    if (!node) throw new Error(`MemoryTpu: no node ${id}`)
    this.progress.delete(id)
    const next = {...node, state}
    this.nodes.set(id, next)
    return next
  }

  private moveNode(id: string, state: NodeScriptState): void {
    const node = this.nodes.get(id)
    if (!node) return
    if (state === 'gone') this.nodes.delete(id)
    else this.nodes.set(id, {...node, state})
  }

  async createNode(l: TpuLocation, r: NodeRequest): Promise<TpuOperation> {
    this.fail('createNode')
    this.requireHere(l)
    const action = `create TPU node ${r.id}`
    const problem = nodeProblem({
      ...r,
      spot: r.capacity === 'spot',
      preemptible: r.capacity === 'preemptible',
    })
    if (problem) throw this.error(3, problem, action)
    if (this.nodes.has(r.id)) throw this.error(6, `Resource '${this.name('nodes', r.id)}' already exists`, action)
    const failure = this.nodeFailures.get(r.id)
    this.nodeFailures.delete(r.id)
    const script = failure ? ['CREATING', 'gone'] : (this.nodeScripts.get(r.id) ?? this.nodeScript)
    const node = this.addNode(r.id, r.acceleratorType)
    const metadata = {
      ...(r.metadata ?? {}),
      ...(r.startupScript === undefined ? {} : {'startup-script': r.startupScript}),
    }
    this.nodes.set(r.id, {...node, runtimeVersion: r.runtimeVersion, state: 'CREATING', metadata})
    const op = this.operation(false)
    this.progress.set(r.id, {
      script: [...script] as NodeScriptState[],
      operation: op.name,
      ...(failure ? {failure} : {}),
    })
    return op
  }

  async deleteNode(l: TpuLocation, id: string): Promise<TpuOperation> {
    this.fail('deleteNode')
    const action = `delete TPU node ${id}`
    const node = this.here(l) ? this.nodes.get(id) : undefined
    if (!node) throw this.error(5, `Resource '${this.name('nodes', id)}' was not found`, action)
    if (node.state === 'DELETING') throw this.error(9, `${this.name('nodes', id)} is being deleted.`, action)
    this.nodes.set(id, {...node, state: 'DELETING'})
    const op = this.operation(false)
    this.progress.set(id, {script: ['DELETING', 'gone'], operation: op.name})
    return op
  }
  async listQueuedResources(l: TpuLocation): Promise<QueuedResource[]> {
    this.fail('listQueuedResources')
    return this.here(l) ? [...this.queued.values()] : []
  }
  async getQueuedResource(l: TpuLocation, id: string): Promise<QueuedResource | undefined> {
    this.fail('getQueuedResource')
    const qr = this.here(l) ? this.queued.get(id) : undefined
    if (!qr) return undefined
    if (qr.script.length > 0) {
      const state = qr.script.shift()!
      const next = {...qr, state, ...(state === 'FAILED' ? {failure: NO_CAPACITY} : {})}
      this.queued.set(id, next)
      if (state === 'ACTIVE') for (const n of qr.nodeIds) this.addNode(n, qr.acceleratorType, qr.id)
      if (state === 'FAILED') for (const n of qr.nodeIds) this.nodes.delete(n)
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
      workers: Array.from({length: workersOf(type)}, (_, w) => ({internalIp: `10.0.${this.nodes.size}.${w + 2}`})),
      metadata: {},
    }
    this.nodes.set(id, node)
    return node
  }
  async createQueuedResource(l: TpuLocation, r: QueuedResourceRequest): Promise<TpuOperation> {
    this.fail('createQueuedResource')
    this.requireHere(l)
    const action = `create queued resource ${r.id}`
    const nodeIds =
      r.numSlices === 1 ? [r.nodePrefix] : Array.from({length: r.numSlices}, (_, i) => `${r.nodePrefix}-${i}`)
    if (!TPU_ID.test(r.id)) throw this.error(3, `Invalid queued resource id "${r.id}".`, action)
    if (!TPU_TYPE.test(r.acceleratorType)) {
      throw this.error(3, `Invalid accelerator type "${r.acceleratorType}".`, action)
    }
    const taken = this.queued.has(r.id)
      ? this.name('queuedResources', r.id)
      : nodeIds.filter((n) => this.nodes.has(n)).map((n) => this.name('nodes', n))[0]
    if (taken) throw this.error(6, `Resource '${taken}' already exists`, action)
    this.queued.set(r.id, {
      id: r.id,
      state: 'CREATING',
      nodeIds,
      acceleratorType: r.acceleratorType,
      runtimeVersion: r.runtimeVersion,
      capacity: r.capacity,
      script: [...(this.scripts.get(r.id) ?? this.script)],
    })
    return this.operation(true)
  }
  async deleteQueuedResource(l: TpuLocation, id: string, force: boolean): Promise<TpuOperation> {
    this.fail('deleteQueuedResource')
    const action = `delete queued resource ${id}`
    const name = this.name('queuedResources', id)
    const qr = this.here(l) ? this.queued.get(id) : undefined
    if (!qr) throw this.error(5, `Resource '${name}' was not found`, action)
    const live = qr.nodeIds.filter((n) => this.nodes.has(n))
    if (qr.state === 'DELETING') throw this.error(9, `${name} is being deleted.`, action)
    if (!force && (live.length > 0 || !['FAILED', 'SUSPENDED'].includes(qr.state))) {
      throw this.error(
        9,
        `Queued resource '${name}' is ${qr.state}${live.length ? ` and has ${live.length} nodes` : ''}; only a FAILED or SUSPENDED queued resource without nodes can be deleted without force.`,
        action,
      )
    }
    this.queued.set(id, {...qr, state: 'DELETING', script: ['DELETING', 'DELETING']})
    for (const n of qr.nodeIds) this.nodes.delete(n)
    return this.operation(false)
  }
  async setNodeMetadata(l: TpuLocation, id: string, metadata: Readonly<Record<string, string>>): Promise<TpuOperation> {
    this.fail('setNodeMetadata')
    const action = `update the metadata of TPU node ${id}`
    const node = this.here(l) ? this.nodes.get(id) : undefined
    if (!node) throw this.error(5, `Resource '${this.name('nodes', id)}' was not found`, action)
    if (node.state !== 'READY') {
      throw this.error(9, `Node '${this.name('nodes', id)}' is ${node.state}; it must be READY.`, action)
    }
    this.nodes.set(id, {...node, metadata: {...metadata}})
    return this.operation(true)
  }
  async getOperation(name: string): Promise<TpuOperation> {
    this.fail('getOperation')
    const number = /^projects\/[^/]+\/locations\/[^/]+\/operations\/operation-(\d+)$/.exec(name)?.[1]
    if (!number || Number(number) > this.operations) {
      throw this.error(5, `Operation ${name} not found.`, `read operation ${name.split('/').at(-1)}`)
    }
    // A node's operation is done when read: its creation or deletion is over (the node READY, or gone).
    for (const [id, progress] of this.progress) {
      if (progress.operation !== name) continue
      this.moveNode(id, progress.script.at(-1)!)
      this.progress.delete(id)
      if (progress.failure) this.operationErrors.set(name, progress.failure)
      break
    }
    const error = this.operationErrors.get(name)
    return {name, done: true, ...(error ? {error} : {})}
  }
  async close(): Promise<void> {
    this.closed++
  }
}

export const unavailable = () =>
  new ApiError('unavailable', 'Could not do it: try later (UNAVAILABLE).', {status: 'UNAVAILABLE', retryable: true})
