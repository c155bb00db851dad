// An in-memory double of the ComputeClient port for executor and service tests: policies and operations with
// real state, every call logged (in order with the GKE calls when given their log), failures injectable.
import type {WorkloadPolicySpec} from '../../src/core/cluster/spec.js'
import type {ApiError} from '../../src/core/errors.js'
import type {ComputeClient, ComputeOperation, ObservedWorkloadPolicy} from '../../src/ports/compute.js'

export class MemoryCompute implements ComputeClient {
  readonly created: WorkloadPolicySpec[] = []
  readonly policies = new Map<string, ObservedWorkloadPolicy>()
  /** The insert fails with this. */
  failWith: ApiError | undefined
  /** The insert's operation ends with this error. */
  operationError: ApiError | null = null
  /** Reads of an operation before it is done, and of a new policy before it is READY. */
  ticks = 2
  private readonly ops = new Map<string, {reads: number; spec: WorkloadPolicySpec}>()

  constructor(private readonly log: string[] = []) {}

  async getWorkloadPolicy(_project: string, _region: string, name: string) {
    this.log.push(`getWorkloadPolicy ${name}`)
    const policy = this.policies.get(name)
    if (policy?.status === 'CREATING' && this.ticks-- <= 0) this.policies.set(name, {...policy, status: 'READY'})
    return this.policies.get(name)
  }

  async insertWorkloadPolicy(spec: WorkloadPolicySpec): Promise<ComputeOperation | 'exists'> {
    this.log.push(`createWorkloadPolicy ${spec.name}`)
    if (this.failWith) throw this.failWith
    if (this.policies.has(spec.name)) return 'exists'
    const name = `op-${this.ops.size}`
    this.ops.set(name, {reads: 0, spec})
    return {name, done: false, error: null}
  }

  async getRegionOperation(_project: string, _region: string, name: string): Promise<ComputeOperation> {
    const op = this.ops.get(name)!
    if (++op.reads < this.ticks) return {name, done: false, error: null}
    if (!this.operationError && !this.policies.has(op.spec.name)) {
      this.created.push(op.spec)
      this.policies.set(op.spec.name, {
        name: op.spec.name,
        acceleratorTopology: op.spec.acceleratorTopology,
        type: 'HIGH_THROUGHPUT',
        status: 'CREATING',
      })
    }
    return {name, done: true, error: this.operationError}
  }
}
