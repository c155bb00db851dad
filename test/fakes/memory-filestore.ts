// An in-memory double of the FilestoreClient port for planner, executor and service tests: instances and their
// operations with real state, every call logged, failures injectable. Held to the wire fake (FakeFilestore through the
// REST adapter) by filestore-contract.test.ts, which says what both do; in short, as the Filestore API
// (fake-filestore.md):
//   - Instances are kept by project, location and id. A create answers a running operation; the instance is CREATING
//     (no address yet) until the operation is done, then READY with an address on its network. A delete answers a
//     running operation; the instance is DELETING, then gone.
//   - An operation is done after `ticks` reads: of the operation, or of the instance it works on (a caller may wait
//     on either).
//   - Creating an instance that exists (in any state) is ALREADY_EXISTS; a request the API refuses (id, tier and
//     location, share name, capacity, labels: filestore-shapes.ts) is INVALID_ARGUMENT; deleting a missing one is
//     NOT_FOUND, one whose operation runs FAILED_PRECONDITION; an unknown operation is NOT_FOUND.
//   - An operation made to fail ends done with its error; a create that fails leaves no instance.
//   - Failures are ApiErrors classified as the adapter classifies the API's answers, saying what was being done.
import {GRPC_STATUS} from '../../src/core/cluster/gke-errors.js'
import {filestoreAction, filestoreApiError} from '../../src/core/storage/api-errors.js'
import type {
  FilestoreClient,
  FilestoreInstance,
  FilestoreInstanceRequest,
  FilestoreLocation,
  FilestoreOperation,
} from '../../src/ports/filestore.js'
import {takeFault, type Fault, type GrpcFailure, type PortCall} from './fake-server.js'
import {createProblem, filestoreSays, instanceAddress} from './filestore-shapes.js'

export type FilestoreCall = PortCall<FilestoreClient>
export type FilestoreFailure = GrpcFailure

interface OperationRecord {
  readonly name: string
  readonly verb: 'create' | 'delete'
  /** The instance's key (its full name). */
  readonly target: string
  reads: number
  done: boolean
  readonly error: {readonly code: number; readonly message: string} | undefined
}

const instanceName = (l: FilestoreLocation, id: string) =>
  `projects/${l.project}/locations/${l.location}/instances/${id}`

export class MemoryFilestore implements FilestoreClient {
  /** Every call, in order: `getInstance us-central1-a/nfs`, `createInstance ...`, `getOperation operation-1`. */
  readonly calls: string[] = []
  /** Instances by full name. */
  readonly instances = new Map<string, FilestoreInstance>()
  /** Reads of an operation (or of its instance) before it is done. */
  ticks = 2
  closed = 0
  private readonly ops = new Map<string, OperationRecord>()
  private readonly faults: (Fault & FilestoreFailure & {readonly call: FilestoreCall})[] = []
  private readonly operationFaults: (Fault & FilestoreFailure & {readonly verb: 'create' | 'delete'})[] = []
  private made = 0

  /** The next `times` calls of `call` fail as the API's answer `failure` would. */
  failNext(call: FilestoreCall, failure: FilestoreFailure, times = 1): this {
    this.faults.push({call, ...failure, times})
    return this
  }

  /** The next operation of `verb` ends done with `failure` (a create's instance is then gone). */
  failNextOperation(verb: 'create' | 'delete', failure: FilestoreFailure): this {
    this.operationFaults.push({verb, ...failure})
    return this
  }

  /** An instance that exists already, READY unless told otherwise (no call logged). */
  seedInstance(where: FilestoreLocation, instance: Partial<FilestoreInstance> & {id: string}): FilestoreInstance {
    const seeded: FilestoreInstance = {
      location: where.location,
      tier: 'BASIC_HDD',
      state: 'READY',
      network: 'default',
      ipAddress: instanceAddress(this.made++),
      fileShares: [{name: 'vol1', capacityGb: 1024}],
      labels: {},
      ...instance,
    }
    this.instances.set(instanceName(where, instance.id), seeded)
    return seeded
  }

  async getInstance(where: FilestoreLocation, id: string): Promise<FilestoreInstance | undefined> {
    this.calls.push(`getInstance ${where.location}/${id}`)
    // A 404 answer is no instance, as the adapter reads it.
    if (this.fault('getInstance', {...where, action: filestoreAction.read(id)})) return undefined
    const name = instanceName(where, id)
    const running = [...this.ops.values()].find((op) => op.target === name && !op.done)
    if (running) this.tick(running)
    return this.instances.get(name)
  }

  async createInstance(
    where: FilestoreLocation,
    id: string,
    request: FilestoreInstanceRequest,
  ): Promise<FilestoreOperation> {
    this.calls.push(`createInstance ${where.location}/${id}`)
    const context = {...where, action: filestoreAction.create(id)}
    this.fault('createInstance', context)
    const problem = createProblem(where.location, id, {
      tier: request.tier,
      network: request.network,
      shareName: request.fileShare.name,
      capacityGb: request.fileShare.capacityGb,
      labels: request.labels ?? {},
    })
    if (problem) throw this.error('INVALID_ARGUMENT', problem, context)
    const name = instanceName(where, id)
    if (this.instances.has(name)) throw this.error('ALREADY_EXISTS', filestoreSays.alreadyExists(name), context)
    this.instances.set(name, {
      id,
      location: where.location,
      tier: request.tier,
      state: 'CREATING',
      network: request.network,
      ipAddress: null,
      fileShares: [{...request.fileShare}],
      labels: {...request.labels},
    })
    return this.start(where, 'create', name)
  }

  async deleteInstance(where: FilestoreLocation, id: string): Promise<FilestoreOperation> {
    this.calls.push(`deleteInstance ${where.location}/${id}`)
    const context = {...where, action: filestoreAction.delete(id)}
    this.fault('deleteInstance', context)
    const name = instanceName(where, id)
    const instance = this.instances.get(name)
    if (!instance) throw this.error('NOT_FOUND', filestoreSays.notFound(name), context)
    if (instance.state === 'CREATING' || instance.state === 'DELETING') {
      throw this.error('FAILED_PRECONDITION', filestoreSays.busy(name, instance.state), context)
    }
    this.instances.set(name, {...instance, state: 'DELETING'})
    return this.start(where, 'delete', name)
  }

  async getOperation(name: string): Promise<FilestoreOperation> {
    this.calls.push(`getOperation ${name.split('/').at(-1)}`)
    const [, project = '', , location = ''] = name.split('/')
    const context = {project, location, action: filestoreAction.operation(name)}
    this.fault('getOperation', context)
    const op = this.ops.get(name)
    if (!op) throw this.error('NOT_FOUND', filestoreSays.operationNotFound(name), context)
    if (!op.done) this.tick(op)
    return view(op)
  }

  async close(): Promise<void> {
    this.closed++
  }

  /** The mutating calls, in order (`createInstance us-central1-a/nfs`). */
  mutations(): string[] {
    return this.calls.filter((c) => /^(create|delete)/.test(c))
  }

  private start(where: FilestoreLocation, verb: 'create' | 'delete', target: string): FilestoreOperation {
    const name = `projects/${where.project}/locations/${where.location}/operations/operation-${this.ops.size + 1}`
    const failure = takeFault(this.operationFaults, (f) => f.verb === verb)
    const error = failure && {code: GRPC_STATUS.indexOf(failure.status), message: failure.message}
    const op: OperationRecord = {name, verb, target, reads: 0, done: false, error}
    this.ops.set(name, op)
    return view(op)
  }

  /** One more read of a running operation; at `ticks` it is done and its outcome applied. */
  private tick(op: OperationRecord): void {
    if (++op.reads < this.ticks) return
    op.done = true
    const instance = this.instances.get(op.target)
    if (!instance) return
    if (op.verb === 'delete' && !op.error) this.instances.delete(op.target)
    else if (op.verb === 'delete') this.instances.set(op.target, {...instance, state: 'READY'})
    else if (op.error) this.instances.delete(op.target)
    else this.instances.set(op.target, {...instance, state: 'READY', ipAddress: instanceAddress(this.made++)})
  }

  /**
   * Throws the injected failure of `call`, if one is due; but a NOT_FOUND to getInstance, which the adapter reads as
   * no instance, is true.
   */
  private fault(call: FilestoreCall, context: FilestoreLocation & {action: string}): boolean {
    const fault = takeFault(this.faults, (f) => f.call === call)
    if (fault && call === 'getInstance' && fault.status === 'NOT_FOUND') return true
    if (fault) throw this.error(fault.status, fault.message, context)
    return false
  }

  private error(status: FilestoreFailure['status'], message: string, context: FilestoreLocation & {action: string}) {
    return filestoreApiError({code: GRPC_STATUS.indexOf(status), message}, context)
  }
}

function view(op: OperationRecord): FilestoreOperation {
  return {name: op.name, done: op.done, ...(op.done && op.error ? {error: {...op.error}} : {})}
}
