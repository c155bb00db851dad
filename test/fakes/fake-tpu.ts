// A test double of the Cloud TPU v2 API (nodes, queued resources, operations), served over the REST mapping of the
// .proto files that ship with @google-cloud/tpu (rest-front.ts), which is how xpk talks to the TPU API, so the
// production TpuClient runs against it unmodified. Behaviour spec: fake-tpu.md next to this file.
import {createRequire} from 'node:module'
import * as grpc from '@grpc/grpc-js'

import {startRestFront, type DecodeOptions, type RestFront} from './rest-front.js'
import {nodeProblem, TPU_ID as ID, TPU_TYPE as TYPE, workersOf} from './tpu-shapes.js'

export {workersOf}

export type QueuedResourceStateName =
  | 'CREATING'
  | 'ACCEPTED'
  | 'PROVISIONING'
  | 'FAILED'
  | 'DELETING'
  | 'ACTIVE'
  | 'SUSPENDING'
  | 'SUSPENDED'
  | 'WAITING_FOR_RESOURCES'
export type NodeStateName = 'CREATING' | 'READY' | 'DELETING' | 'PREEMPTED' | 'TERMINATED' | 'STOPPED'

export interface Endpoint {
  ipAddress: string
  port?: number
  accessConfig?: {externalIp: string}
}

export interface NodeState {
  name: string
  acceleratorType: string
  runtimeVersion: string
  state: NodeStateName
  networkEndpoints: Endpoint[]
  metadata: Record<string, string>
  labels?: Record<string, string>
  tags?: string[]
  schedulingConfig?: {preemptible?: boolean; reserved?: boolean; spot?: boolean}
  queuedResource?: string
  multisliceNode?: boolean
  createTime: {seconds: string; nanos: number}
  health?: string
  /** Unique numeric id (int64 as a string), new for every node created. */
  id?: string
}

export interface QueuedResourceRecord {
  name: string
  /** The message as the client sent it (tpu, spot, guaranteed, reservationName, ...). */
  data: Record<string, unknown>
  state: QueuedResourceStateName
  failure?: {code: number; message: string}
  /** Full node names this queued resource creates. */
  nodeNames: string[]
  createTime: {seconds: string; nanos: number}
  timer?: NodeJS.Timeout
}

export interface OperationRecord {
  name: string
  done: boolean
  error?: {code: number; message: string}
  verb: string
  target: string
}

export interface CallRecord {
  method: string
  request: Record<string, unknown>
  at: number
  code?: number
  details?: string
}

export interface RpcFault {
  /** RPC name as in the proto (CreateQueuedResource, GetNode, ...) or '*'. */
  method: string
  code?: grpc.status
  message?: string
  /** Consumed one per matching call; removed at 0. Default 1. */
  times?: number
  delayMs?: number
  match?: (request: Record<string, unknown>) => boolean
}

/** Makes a queued resource end FAILED instead of ACTIVE. */
export interface ProvisioningFault {
  match?: (queuedResourceId: string, record: QueuedResourceRecord) => boolean
  /** google.rpc.Status code stored in state.failedData.error. Default RESOURCE_EXHAUSTED. */
  code?: number
  message?: string
  /** The state it fails from. Default PROVISIONING. */
  after?: 'ACCEPTED' | 'WAITING_FOR_RESOURCES' | 'PROVISIONING'
  times?: number
}

/** Makes a node created by CreateNode (not by a queued resource) fail instead of turning READY. */
export interface NodeCreationFault {
  match?: (nodeId: string) => boolean
  /** google.rpc.Status code of the operation's error. Default RESOURCE_EXHAUSTED. */
  code?: number
  message?: string
  times?: number
}

export interface FakeTpuOptions {
  /**
   * How long a queued resource stays in each of ACCEPTED, (WAITING_FOR_RESOURCES,) PROVISIONING (Infinity: until
   * advance()), and a node made by CreateNode stays CREATING (Infinity: until completeOperations()).
   */
  stepMs?: number
  /** Spend one step in WAITING_FOR_RESOURCES between ACCEPTED and PROVISIONING. */
  waitForResources?: boolean
  /** How long deletes take (DELETING, then gone). Infinity: until completeOperations(). */
  deleteMs?: number
  /** How long UpdateNode's operation runs before the metadata is applied. Infinity: until completeOperations(). */
  updateMs?: number
  /** Network endpoints of each node, by node id and slice index; default 10.<slice>.0.<worker+2>. */
  endpoints?: (nodeId: string, sliceIndex: number, workers: number) => Endpoint[]
  /** Called when a node's metadata changes (create and UpdateNode), e.g. to install ssh-keys on test SSH servers. */
  onMetadata?: (nodeId: string, metadata: Record<string, string>) => void
  /** Added before every RPC is answered. */
  rpcLatencyMs?: number
  /** The most items a list answers with (a smaller `pageSize` in the request wins); then `nextPageToken`. */
  pageSize?: number
}

type Settings = Required<Omit<FakeTpuOptions, 'onMetadata' | 'endpoints'>> &
  Pick<FakeTpuOptions, 'onMetadata' | 'endpoints'>

// No parameter properties in this file: the benchmark runs it with Node's type stripping.
class RpcError extends Error {
  readonly code: grpc.status

  constructor(code: grpc.status, message: string) {
    super(message)
    this.code = code
  }
}

const LOCATION_NAME = /^projects\/([^/]+)\/locations\/([^/]+)$/

let nodeCounter = 1000

/** How requests reach `serve`: enums by name, int64 as strings, and only the fields the client sent. */
const DECODE: DecodeOptions = {longs: String, enums: String, defaults: false, oneofs: false}

let cachedProtos: object | undefined

/**
 * The package's protos with the long-running operations mixin added to the Tpu service at the path the API serves it
 * (`/v2/{name=projects/*\/locations/*\/operations/*}`, from the service configuration, which the library's REST
 * transport also uses; the proto's own annotation is the generic `/v1/{name=operations/**}`).
 */
function tpuProtos(): object {
  if (cachedProtos) return cachedProtos
  type Json = {nested: Record<string, Json>; methods: Record<string, object>}
  const protos = structuredClone(createRequire(import.meta.url)('@google-cloud/tpu/build/protos/protos.json')) as Json
  const tpu = protos.nested.google!.nested.cloud!.nested.tpu!.nested.v2!.nested.Tpu!
  tpu.methods.GetOperation = {
    requestType: '.google.longrunning.GetOperationRequest',
    responseType: '.google.longrunning.Operation',
    options: {'(google.api.http).get': '/v2/{name=projects/*/locations/*/operations/*}'},
  }
  cachedProtos = protos
  return protos
}

const timestamp = () => {
  const ms = Date.now()
  return {seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6}
}

export class FakeTpu {
  readonly calls: CallRecord[] = []
  private readonly queued = new Map<string, QueuedResourceRecord>()
  private readonly nodeMap = new Map<string, NodeState>()
  private readonly ops = new Map<string, OperationRecord>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly faults: RpcFault[] = []
  private readonly provisioningFaults: ProvisioningFault[] = []
  private readonly nodeCreationFaults: NodeCreationFault[] = []
  private opCounter = 0
  /** Operations held by an infinite duration, finished by completeOperations(). */
  private readonly held: (() => void)[] = []
  private stopped = false
  readonly settings: Settings

  private rest: RestFront | undefined

  private constructor(options: FakeTpuOptions) {
    this.settings = {
      stepMs: 20,
      waitForResources: false,
      deleteMs: 20,
      updateMs: 0,
      rpcLatencyMs: 0,
      pageSize: Infinity,
      ...options,
    }
  }

  static async start(options: FakeTpuOptions = {}): Promise<FakeTpu> {
    const fake = new FakeTpu(options)
    fake.rest = await startRestFront(tpuProtos(), 'google.cloud.tpu.v2.Tpu', DECODE, (method, request, callback) =>
      fake.serve(method, request, callback),
    )
    return fake
  }

  /** The port of the REST front. */
  get port(): number {
    if (!this.rest) throw new Error('fake-tpu: not started')
    return this.rest.port
  }

  /** `127.0.0.1:PORT`, which xpk talks to (`XPK_TPU_ENDPOINT=http://<endpoint>`). */
  get endpoint(): string {
    return `127.0.0.1:${this.port}`
  }

  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    await this.rest?.close()
  }

  // ---- test controls ----

  /** Every RPC that changes state (anything but Get and List), in arrival order. */
  mutatingCalls(): CallRecord[] {
    return this.calls.filter((c) => !/^(Get|List)/.test(c.method))
  }

  injectFault(fault: RpcFault): void {
    this.faults.push({times: 1, ...fault})
  }

  injectProvisioningFault(fault: ProvisioningFault): void {
    this.provisioningFaults.push({times: 1, ...fault})
  }

  /** Makes the next node created by CreateNode (that `match` fits) end its operation with an error, and be gone. */
  injectNodeCreationFault(fault: NodeCreationFault): void {
    this.nodeCreationFaults.push({times: 1, ...fault})
  }

  /** Adds a node that exists already (READY unless told otherwise), outside any queued resource. */
  seedNode(project: string, zone: string, id: string, node: Partial<NodeState> & {acceleratorType: string}): NodeState {
    const name = `projects/${project}/locations/${zone}/nodes/${id}`
    const state: NodeState = {
      name,
      runtimeVersion: 'tpu-ubuntu2204-base',
      state: 'READY',
      networkEndpoints: this.endpointsFor(id, 0, workersOf(node.acceleratorType)),
      metadata: {},
      createTime: timestamp(),
      id: String(++nodeCounter),
      ...node,
    }
    this.nodeMap.set(name, state)
    return structuredClone(state)
  }

  node(project: string, zone: string, id: string): NodeState | undefined {
    const n = this.nodeMap.get(`projects/${project}/locations/${zone}/nodes/${id}`)
    return n && structuredClone(n)
  }

  nodes(): NodeState[] {
    return [...this.nodeMap.values()].map((n) => structuredClone(n))
  }

  queuedResource(project: string, zone: string, id: string): QueuedResourceRecord | undefined {
    const q = this.queued.get(`projects/${project}/locations/${zone}/queuedResources/${id}`)
    if (!q) return undefined
    const {timer: _timer, ...rest} = q
    return structuredClone(rest)
  }

  operations(): OperationRecord[] {
    return [...this.ops.values()].map((o) => structuredClone(o))
  }

  /** Moves a queued resource held by `stepMs: Infinity` one state forward. */
  advance(project: string, zone: string, id: string): QueuedResourceStateName {
    const rec = this.queued.get(`projects/${project}/locations/${zone}/queuedResources/${id}`)
    if (!rec) throw new Error(`fake-tpu: no queued resource ${id}`)
    this.step(rec)
    return rec.state
  }

  /** Finishes every operation held by `deleteMs` / `updateMs` Infinity. */
  completeOperations(): void {
    for (const finish of this.held.splice(0)) finish()
  }

  /**
   * Preempts a node now (one of a queued resource or one created directly): the node becomes PREEMPTED and its
   * queued resource, if any, SUSPENDED.
   */
  preempt(project: string, zone: string, nodeId: string): void {
    const node = this.interrupt(project, zone, nodeId, 'PREEMPTED')
    const rec = node.queuedResource ? this.queued.get(node.queuedResource) : undefined
    if (rec) {
      clearTimeout(rec.timer)
      rec.state = 'SUSPENDED'
    }
  }

  /** The node becomes TERMINATED now (e.g. a host error); its queued resource, if any, is left as it is. */
  terminate(project: string, zone: string, nodeId: string): void {
    this.interrupt(project, zone, nodeId, 'TERMINATED')
  }

  /** The node becomes STOPPED now (stopped by someone else); its queued resource, if any, is left as it is. */
  stopNode(project: string, zone: string, nodeId: string): void {
    this.interrupt(project, zone, nodeId, 'STOPPED')
  }

  private interrupt(project: string, zone: string, nodeId: string, state: NodeStateName): NodeState {
    const node = this.nodeMap.get(`projects/${project}/locations/${zone}/nodes/${nodeId}`)
    if (!node) throw new Error(`fake-tpu: no node ${nodeId}`)
    node.state = state
    return node
  }

  // ---- request plumbing ----

  private serve(method: string, request: Record<string, unknown>, callback: grpc.sendUnaryData<object>): void {
    const record: CallRecord = {method, request, at: Date.now()}
    this.calls.push(record)
    const respond = (code: grpc.status, details: string | undefined, value?: object) => {
      record.code = code
      if (details) record.details = details
      if (code === grpc.status.OK) callback(null, value)
      else callback({code, details})
    }
    const index = this.faults.findIndex(
      (f) => (f.method === '*' || f.method === method) && (!f.match || f.match(request)),
    )
    const fault = index >= 0 ? this.faults[index] : undefined
    if (fault && --fault.times! <= 0) this.faults.splice(index, 1)
    const run = () => {
      if (this.stopped) return
      if (fault?.code !== undefined) return respond(fault.code, fault.message ?? grpc.status[fault.code])
      try {
        respond(grpc.status.OK, undefined, this.dispatch(method, request))
      } catch (err) {
        if (err instanceof RpcError) return respond(err.code, err.message)
        respond(grpc.status.INTERNAL, `fake-tpu: ${err instanceof Error ? err.stack : String(err)}`)
      }
    }
    const delay = (fault?.delayMs ?? 0) + this.settings.rpcLatencyMs
    if (delay > 0) this.later(delay, run)
    else run()
  }

  private later(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    if (!Number.isFinite(ms)) return undefined
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
    }, ms)
    this.timers.add(timer)
    return timer
  }

  private dispatch(method: string, r: Record<string, unknown>): object {
    switch (method) {
      case 'ListNodes': {
        const {items, nextPageToken} = this.listIn(r, this.nodeMap)
        return {nodes: items, ...(nextPageToken ? {nextPageToken} : {})}
      }
      case 'GetNode':
        return structuredClone(this.requireNode(String(r.name ?? '')))
      case 'CreateNode':
        return this.createNode(r)
      case 'UpdateNode':
        return this.updateNode(r)
      case 'DeleteNode':
        return this.deleteNode(String(r.name ?? ''))
      case 'ListQueuedResources': {
        const {items, nextPageToken} = this.listIn(r, this.queued)
        return {
          queuedResources: items.map((q) => this.render(q as QueuedResourceRecord)),
          ...(nextPageToken ? {nextPageToken} : {}),
        }
      }
      case 'GetQueuedResource':
        return this.render(this.requireQueued(String(r.name ?? '')))
      case 'CreateQueuedResource':
        return this.createQueued(r)
      case 'DeleteQueuedResource':
        return this.deleteQueued(r)
      case 'GetOperation': {
        const op = this.ops.get(String(r.name ?? ''))
        if (!op) throw new RpcError(grpc.status.NOT_FOUND, `Operation ${String(r.name)} not found.`)
        return this.renderOperation(op)
      }
      default:
        throw new RpcError(grpc.status.UNIMPLEMENTED, `fake-tpu does not implement ${method}.`)
    }
  }

  /** One page of the resources under the request's parent, in creation order; the token is the next offset. */
  private listIn<T extends {name: string}>(
    r: Record<string, unknown>,
    map: Map<string, T>,
  ): {items: T[]; nextPageToken?: string} {
    const parent = String(r.parent ?? '')
    if (!LOCATION_NAME.test(parent)) throw new RpcError(grpc.status.INVALID_ARGUMENT, `Invalid parent "${parent}".`)
    const token = String(r.pageToken ?? '')
    const offset = token === '' ? 0 : Number(Buffer.from(token, 'base64url').toString())
    if (!Number.isInteger(offset) || offset < 0) {
      throw new RpcError(grpc.status.INVALID_ARGUMENT, `Invalid page token "${token}".`)
    }
    const asked = Number(r.pageSize ?? 0)
    const size = Math.min(asked > 0 ? asked : Infinity, this.settings.pageSize)
    const all = [...map.values()].filter((v) => v.name.startsWith(`${parent}/`))
    const items = all.slice(offset, offset + size).map((v) => structuredClone({...v, timer: undefined}) as T)
    const next = offset + items.length
    return {items, ...(next < all.length ? {nextPageToken: Buffer.from(String(next)).toString('base64url')} : {})}
  }

  private requireNode(name: string): NodeState {
    const node = this.nodeMap.get(name)
    if (!node) throw new RpcError(grpc.status.NOT_FOUND, `Resource '${name}' was not found`)
    return node
  }

  private requireQueued(name: string): QueuedResourceRecord {
    const rec = this.queued.get(name)
    if (!rec) throw new RpcError(grpc.status.NOT_FOUND, `Resource '${name}' was not found`)
    return rec
  }

  private render(rec: QueuedResourceRecord): object {
    const stateData = {
      CREATING: 'creatingData',
      ACCEPTED: 'acceptedData',
      PROVISIONING: 'provisioningData',
      FAILED: 'failedData',
      DELETING: 'deletingData',
      ACTIVE: 'activeData',
      SUSPENDING: 'suspendingData',
      SUSPENDED: 'suspendedData',
      WAITING_FOR_RESOURCES: undefined,
    }[rec.state]
    const state: Record<string, unknown> = {state: rec.state, stateInitiator: 'USER'}
    if (stateData) state[stateData] = rec.state === 'FAILED' ? {error: {...rec.failure, details: []}} : {}
    return {...structuredClone(rec.data), name: rec.name, createTime: rec.createTime, state}
  }

  private renderOperation(op: OperationRecord): object {
    return {
      name: op.name,
      done: op.done,
      ...(op.error ? {error: {...op.error, details: []}} : {}),
    }
  }

  private startOperation(location: string, verb: string, target: string, ms: number, apply: () => void): object {
    const name = `${location}/operations/operation-${++this.opCounter}`
    const op: OperationRecord = {name, done: false, verb, target}
    this.ops.set(name, op)
    const finish = () => {
      try {
        apply()
      } catch (err) {
        op.error = {code: err instanceof RpcError ? err.code : grpc.status.INTERNAL, message: (err as Error).message}
      }
      op.done = true
    }
    if (ms <= 0) finish()
    else if (!Number.isFinite(ms)) this.held.push(finish)
    else this.later(ms, finish)
    return this.renderOperation(op)
  }

  private createQueued(r: Record<string, unknown>): object {
    const parent = String(r.parent ?? '')
    if (!LOCATION_NAME.test(parent)) throw new RpcError(grpc.status.INVALID_ARGUMENT, `Invalid parent "${parent}".`)
    const id = String(r.queuedResourceId ?? '')
    if (!ID.test(id)) {
      throw new RpcError(grpc.status.INVALID_ARGUMENT, `Invalid queued resource id "${id}".`)
    }
    const name = `${parent}/queuedResources/${id}`
    if (this.queued.has(name)) throw new RpcError(grpc.status.ALREADY_EXISTS, `Resource '${name}' already exists`)
    const data = (r.queuedResource ?? {}) as Record<string, unknown>
    const specs = ((data.tpu as {nodeSpec?: Record<string, unknown>[]} | undefined)?.nodeSpec ?? []) as {
      parent?: string
      nodeId?: string
      multisliceParams?: {nodeCount?: number; nodeIdPrefix?: string}
      node?: Record<string, unknown>
    }[]
    if (specs.length === 0) throw new RpcError(grpc.status.INVALID_ARGUMENT, 'tpu.node_spec is required.')
    const nodeNames: string[] = []
    for (const spec of specs) {
      const node = spec.node ?? {}
      if (!TYPE.test(String(node.acceleratorType ?? ''))) {
        throw new RpcError(grpc.status.INVALID_ARGUMENT, `Invalid accelerator type "${String(node.acceleratorType)}".`)
      }
      if (!node.runtimeVersion) throw new RpcError(grpc.status.INVALID_ARGUMENT, 'runtime_version is required.')
      const multi = spec.multisliceParams
      const ids = multi?.nodeCount
        ? Array.from({length: multi.nodeCount}, (_, i) => `${multi.nodeIdPrefix || id}-${i}`)
        : [spec.nodeId ?? '']
      for (const nodeId of ids) {
        if (!ID.test(nodeId)) throw new RpcError(grpc.status.INVALID_ARGUMENT, `Invalid node id "${nodeId}".`)
        const nodeName = `${spec.parent ?? parent}/nodes/${nodeId}`
        if (this.nodeMap.has(nodeName)) {
          throw new RpcError(grpc.status.ALREADY_EXISTS, `Resource '${nodeName}' already exists`)
        }
        nodeNames.push(nodeName)
      }
    }
    const rec: QueuedResourceRecord = {name, data, state: 'ACCEPTED', nodeNames, createTime: timestamp()}
    this.queued.set(name, rec)
    rec.timer = this.later(this.settings.stepMs, () => this.step(rec))
    return this.startOperation(parent, 'create', name, 0, () => {})
  }

  /** One state forward: ACCEPTED -> (WAITING_FOR_RESOURCES ->) PROVISIONING -> ACTIVE, or FAILED by a fault. */
  private step(rec: QueuedResourceRecord): void {
    if (!this.queued.has(rec.name)) return
    const id = rec.name.slice(rec.name.lastIndexOf('/') + 1)
    const faultIndex = this.provisioningFaults.findIndex(
      (f) => (f.after ?? 'PROVISIONING') === rec.state && (!f.match || f.match(id, rec)),
    )
    if (faultIndex >= 0) {
      const fault = this.provisioningFaults[faultIndex]
      if (--fault.times! <= 0) this.provisioningFaults.splice(faultIndex, 1)
      rec.state = 'FAILED'
      rec.failure = {
        code: fault.code ?? grpc.status.RESOURCE_EXHAUSTED,
        message: fault.message ?? 'There is no more capacity in the zone; you can try again later.',
      }
      for (const n of rec.nodeNames) this.nodeMap.delete(n)
      return
    }
    const next: Partial<Record<QueuedResourceStateName, QueuedResourceStateName>> = {
      ACCEPTED: this.settings.waitForResources ? 'WAITING_FOR_RESOURCES' : 'PROVISIONING',
      WAITING_FOR_RESOURCES: 'PROVISIONING',
      PROVISIONING: 'ACTIVE',
    }
    const to = next[rec.state]
    if (!to) return
    rec.state = to
    if (to === 'PROVISIONING') this.createNodes(rec)
    if (to === 'ACTIVE') for (const n of rec.nodeNames) this.nodeMap.get(n)!.state = 'READY'
    if (to !== 'ACTIVE') rec.timer = this.later(this.settings.stepMs, () => this.step(rec))
  }

  private createNodes(rec: QueuedResourceRecord): void {
    const specs = (rec.data.tpu as {nodeSpec: {node?: Record<string, unknown>; multisliceParams?: unknown}[]}).nodeSpec
    const spec = specs[0]
    const node = (spec.node ?? {}) as Partial<NodeState>
    rec.nodeNames.forEach((nodeName, sliceIndex) => {
      const id = nodeName.slice(nodeName.lastIndexOf('/') + 1)
      const metadata = {...(node.metadata ?? {})}
      const state: NodeState = {
        ...structuredClone(node),
        name: nodeName,
        acceleratorType: String(node.acceleratorType),
        runtimeVersion: String(node.runtimeVersion),
        state: 'CREATING',
        networkEndpoints: this.endpointsFor(id, sliceIndex, workersOf(String(node.acceleratorType))),
        metadata,
        queuedResource: rec.name,
        multisliceNode: rec.nodeNames.length > 1,
        createTime: timestamp(),
        health: 'HEALTHY',
        id: String(++nodeCounter),
      }
      this.nodeMap.set(nodeName, state)
      this.settings.onMetadata?.(id, metadata)
    })
  }

  private endpointsFor(nodeId: string, sliceIndex: number, workers: number): Endpoint[] {
    if (this.settings.endpoints) return this.settings.endpoints(nodeId, sliceIndex, workers)
    return Array.from({length: workers}, (_, w) => ({ipAddress: `10.${sliceIndex}.0.${w + 2}`, port: 8470}))
  }

  private deleteQueued(r: Record<string, unknown>): object {
    const name = String(r.name ?? '')
    const rec = this.requireQueued(name)
    const live = rec.nodeNames.filter((n) => this.nodeMap.has(n))
    if (!r.force && (live.length > 0 || !['FAILED', 'SUSPENDED'].includes(rec.state))) {
      throw new RpcError(
        grpc.status.FAILED_PRECONDITION,
        `Queued resource '${name}' is ${rec.state}${live.length ? ` and has ${live.length} nodes` : ''}; only a FAILED or SUSPENDED queued resource without nodes can be deleted without force.`,
      )
    }
    if (rec.state === 'DELETING') throw new RpcError(grpc.status.FAILED_PRECONDITION, `${name} is being deleted.`)
    clearTimeout(rec.timer)
    rec.state = 'DELETING'
    for (const n of live) this.nodeMap.get(n)!.state = 'DELETING'
    const location = name.slice(0, name.indexOf('/queuedResources/'))
    return this.startOperation(location, 'delete', name, this.settings.deleteMs, () => {
      for (const n of rec.nodeNames) this.nodeMap.delete(n)
      this.queued.delete(name)
    })
  }

  /** CreateNode: the node is CREATING at once; after stepMs it is READY (or gone, by a fault) and the operation done. */
  private createNode(r: Record<string, unknown>): object {
    const parent = String(r.parent ?? '')
    if (!LOCATION_NAME.test(parent)) throw new RpcError(grpc.status.INVALID_ARGUMENT, `Invalid parent "${parent}".`)
    const id = String(r.nodeId ?? '')
    const node = (r.node ?? {}) as Partial<NodeState>
    const problem = nodeProblem({
      id,
      acceleratorType: node.acceleratorType,
      runtimeVersion: node.runtimeVersion,
      tags: node.tags,
      labels: node.labels,
      spot: node.schedulingConfig?.spot,
      preemptible: node.schedulingConfig?.preemptible,
    })
    if (problem) throw new RpcError(grpc.status.INVALID_ARGUMENT, problem)
    const name = `${parent}/nodes/${id}`
    if (this.nodeMap.has(name)) throw new RpcError(grpc.status.ALREADY_EXISTS, `Resource '${name}' already exists`)
    const metadata = {...(node.metadata ?? {})}
    const state: NodeState = {
      ...structuredClone(node),
      name,
      acceleratorType: String(node.acceleratorType),
      runtimeVersion: String(node.runtimeVersion),
      state: 'CREATING',
      networkEndpoints: this.endpointsFor(id, 0, workersOf(String(node.acceleratorType))),
      metadata,
      createTime: timestamp(),
      health: 'HEALTHY',
      id: String(++nodeCounter),
    }
    this.nodeMap.set(name, state)
    this.settings.onMetadata?.(id, metadata)
    return this.startOperation(parent, 'create', name, this.settings.stepMs, () => {
      const current = this.nodeMap.get(name)
      // Deleted (or interrupted) while it was being created: the deletion decides.
      if (current !== state || state.state !== 'CREATING') return
      const index = this.nodeCreationFaults.findIndex((f) => !f.match || f.match(id))
      if (index >= 0) {
        const fault = this.nodeCreationFaults[index]
        if (--fault.times! <= 0) this.nodeCreationFaults.splice(index, 1)
        this.nodeMap.delete(name)
        throw new RpcError(
          (fault.code ?? grpc.status.RESOURCE_EXHAUSTED) as grpc.status,
          fault.message ?? 'There is no more capacity in the zone; you can try again later.',
        )
      }
      state.state = 'READY'
    })
  }

  private deleteNode(name: string): object {
    const node = this.requireNode(name)
    if (node.state === 'DELETING') throw new RpcError(grpc.status.FAILED_PRECONDITION, `${name} is being deleted.`)
    node.state = 'DELETING'
    const location = name.slice(0, name.indexOf('/nodes/'))
    return this.startOperation(location, 'delete', name, this.settings.deleteMs, () => {
      if (this.nodeMap.get(name) === node) this.nodeMap.delete(name)
    })
  }

  private updateNode(r: Record<string, unknown>): object {
    const patch = (r.node ?? {}) as Partial<NodeState>
    const name = String(patch.name ?? '')
    const node = this.requireNode(name)
    const paths = ((r.updateMask as {paths?: string[]} | undefined)?.paths ?? []).flatMap((p) => p.split(','))
    if (paths.length === 0) throw new RpcError(grpc.status.INVALID_ARGUMENT, 'update_mask is required.')
    const unsupported = paths.filter((p) => p !== 'metadata' && p !== 'labels')
    if (unsupported.length > 0) {
      throw new RpcError(grpc.status.INVALID_ARGUMENT, `fake-tpu: cannot update ${unsupported.join(', ')}.`)
    }
    if (node.state !== 'READY') {
      throw new RpcError(grpc.status.FAILED_PRECONDITION, `Node '${name}' is ${node.state}; it must be READY.`)
    }
    const location = name.slice(0, name.indexOf('/nodes/'))
    return this.startOperation(location, 'update', name, this.settings.updateMs, () => {
      const current = this.requireNode(name)
      if (paths.includes('metadata')) {
        current.metadata = {...(patch.metadata ?? {})}
        this.settings.onMetadata?.(name.slice(name.lastIndexOf('/') + 1), current.metadata)
      }
      if (paths.includes('labels')) current.labels = {...(patch.labels ?? {})}
    })
  }
}
