// An in-memory double of the CloudStorageClient port for planner, executor and service tests: buckets with their IAM
// policies and etags, every call logged, failures injectable. Held to the wire fake (FakeCloudStorage through the
// REST adapter) by cloud-storage-contract.test.ts, which says what both do; in short, as the Cloud Storage JSON API
// (fake-cloud-storage.md):
//   - A bucket reads as its name, location (upper case) and location type; a missing one as undefined; a name Cloud
//     Storage refuses is INVALID_ARGUMENT. Its IAM policy starts as a new bucket's (cloud-storage-shapes.ts), version
//     1, etag `CAE=`.
//   - Setting a policy replaces it and gives it a new etag, when the etag sent is the current one; a stale etag is
//     FAILED_PRECONDITION (HTTP 412, "Precondition Failed") and changes nothing. Bad roles or members, and conditions
//     in a policy below version 3, are INVALID_ARGUMENT. The IAM calls on a missing bucket are NOT_FOUND.
//   - `changePolicy` is another writer: the policy changes and its etag with it, so a policy read before is stale.
//   - Failures are ApiErrors classified as the adapter classifies the API's answers, saying what was being done.
import {GRPC_STATUS} from '../../src/core/cluster/gke-errors.js'
import {cloudStorageAction, cloudStorageApiError} from '../../src/core/storage/api-errors.js'
import type {Bucket, IamBinding, IamPolicy} from '../../src/core/storage/backends.js'
import type {CloudStorageClient} from '../../src/ports/cloud-storage.js'
import {bucketNameProblem, defaultBindings, policyEtag, policyProblem, storageSays} from './cloud-storage-shapes.js'
import {takeFault, type Fault, type GrpcFailure, type PortCall} from './fake-server.js'

export type CloudStorageCall = PortCall<CloudStorageClient>
/** A failure in gRPC terms: the adapter reads Cloud Storage's HTTP statuses into them. */
export type CloudStorageFailure = GrpcFailure

interface BucketRecord {
  readonly bucket: Bucket
  version: number
  bindings: IamBinding[]
  /** Counts the policy's versions; its etag is derived from it. */
  generation: number
}

export class MemoryCloudStorage implements CloudStorageClient {
  /** Every call, in order: `getBucket b`, `getBucketIamPolicy b`, `setBucketIamPolicy b`. */
  readonly calls: string[] = []
  closed = 0
  private readonly buckets = new Map<string, BucketRecord>()
  private readonly faults: (Fault & CloudStorageFailure & {readonly call: CloudStorageCall})[] = []

  /** A bucket that exists (no call logged), in `location` (default US-CENTRAL1, a region) of `project`. */
  addBucket(name: string, options: {location?: string; locationType?: string; project?: string} = {}): Bucket {
    const bucket: Bucket = {
      name,
      location: (options.location ?? 'US-CENTRAL1').toUpperCase(),
      locationType: options.locationType ?? 'region',
    }
    this.buckets.set(name, {bucket, version: 1, bindings: defaultBindings(options.project ?? 'p'), generation: 1})
    return bucket
  }

  /** Another writer sets the bucket's bindings: the policy gets a new etag. */
  changePolicy(name: string, bindings: readonly IamBinding[]): void {
    const record = this.record(name)
    record.bindings = structuredClone([...bindings])
    record.generation++
  }

  /** The bucket's current policy (no call logged). */
  policy(name: string): IamPolicy {
    return view(this.record(name))
  }

  /** The next `times` calls of `call` fail as Cloud Storage's answer `failure` would. */
  failNext(call: CloudStorageCall, failure: CloudStorageFailure, times = 1): this {
    this.faults.push({call, ...failure, times})
    return this
  }

  /** The mutating calls, in order (`setBucketIamPolicy b`). */
  mutations(): string[] {
    return this.calls.filter((c) => c.startsWith('set'))
  }

  async getBucket(name: string): Promise<Bucket | undefined> {
    // A 404 answer is no bucket, as the adapter reads it.
    if (this.call('getBucket', name, cloudStorageAction.read(name))) return undefined
    const found = this.buckets.get(name)
    return found && {...found.bucket}
  }

  async getBucketIamPolicy(name: string): Promise<IamPolicy> {
    const action = cloudStorageAction.readIam(name)
    this.call('getBucketIamPolicy', name, action)
    return view(this.existing(name, action))
  }

  async setBucketIamPolicy(name: string, policy: IamPolicy): Promise<IamPolicy> {
    const action = cloudStorageAction.setIam(name)
    this.call('setBucketIamPolicy', name, action)
    const record = this.existing(name, action)
    const problem = policyProblem(policy.version, policy.bindings)
    if (problem) throw error('INVALID_ARGUMENT', problem, action, name)
    if (policy.etag !== policyEtag(record.generation)) {
      throw error('FAILED_PRECONDITION', storageSays.preconditionFailed, action, name)
    }
    record.version = policy.version
    record.bindings = structuredClone([...policy.bindings])
    record.generation++
    return view(record)
  }

  async close(): Promise<void> {
    this.closed++
  }

  /**
   * Logs the call; throws its injected failure (but for a NOT_FOUND to getBucket, which the adapter reads as no bucket:
   * true), and Cloud Storage's refusal of a bad bucket name.
   */
  private call(call: CloudStorageCall, bucket: string, action: string): boolean {
    this.calls.push(`${call} ${bucket}`)
    const fault = takeFault(this.faults, (f) => f.call === call)
    if (fault && call === 'getBucket' && fault.status === 'NOT_FOUND') return true
    if (fault) throw error(fault.status, fault.message, action, bucket)
    const problem = bucketNameProblem(bucket)
    if (problem) throw error('INVALID_ARGUMENT', problem, action, bucket)
    return false
  }

  private existing(name: string, action: string): BucketRecord {
    const record = this.buckets.get(name)
    if (!record) throw error('NOT_FOUND', storageSays.bucketNotFound, action, name)
    return record
  }

  private record(name: string): BucketRecord {
    const record = this.buckets.get(name)
    if (!record) throw new Error(`MemoryCloudStorage: no bucket ${name}`)
    return record
  }
}

function view(record: BucketRecord): IamPolicy {
  return {version: record.version, etag: policyEtag(record.generation), bindings: structuredClone(record.bindings)}
}

function error(status: CloudStorageFailure['status'], message: string, action: string, bucket: string) {
  return cloudStorageApiError({code: GRPC_STATUS.indexOf(status), message}, {action, bucket})
}
