// An in-memory double of the ComputeClient port for executor and service tests.
import type {WorkloadPolicySpec} from '../../src/core/cluster/spec.js'
import type {ApiError} from '../../src/core/errors.js'
import type {ComputeClient} from '../../src/ports/compute.js'

/** Compute Engine in memory: records the policies created, in order with the GKE calls when given their log. */
export class MemoryCompute implements ComputeClient {
  readonly created: WorkloadPolicySpec[] = []
  failWith: ApiError | undefined
  constructor(private readonly log: string[] = []) {}
  async getWorkloadPolicy() {
    return undefined
  }
  async createWorkloadPolicy(spec: WorkloadPolicySpec) {
    this.log.push(`createWorkloadPolicy ${spec.name}`)
    if (this.failWith) throw this.failWith
    this.created.push(spec)
  }
}
