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
//   - Objects: an upload writes a new generation (with size, MD5 and CRC32C in base64); `ifGenerationMatch` 0 writes
//     only a new object, another value only over that generation, else FAILED_PRECONDITION (412) writing nothing.
//     A missing object (or bucket) reads and downloads as undefined and deletes as false; an upload to or a listing of
//     a missing bucket is NOT_FOUND.
//     Listing is in name order, `prefixes` folding the names whose rest holds the delimiter. `addObject` seeds one.
//   - Failures are ApiErrors classified as the adapter classifies the API's answers, saying what was being done.
import {GRPC_STATUS} from '../../src/core/cluster/gke-errors.js'
import {cloudStorageAction, cloudStorageApiError} from '../../src/core/storage/api-errors.js'
import type {Bucket, IamBinding, IamPolicy, ObjectListing, StorageObject} from '../../src/core/storage/backends.js'
import type {CloudStorageClient, UploadBody, UploadOptions} from '../../src/ports/cloud-storage.js'
import {
  bucketNameProblem,
  crc32c,
  defaultBindings,
  generationCondition,
  listNames,
  md5Base64,
  objectNameProblem,
  policyEtag,
  policyProblem,
  storageSays,
} from './cloud-storage-shapes.js'
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
  readonly objects: Map<string, {readonly object: StorageObject; readonly data: Buffer}>
}

/** The calls that change something. */
const MUTATING: readonly CloudStorageCall[] = ['setBucketIamPolicy', 'uploadObject', 'deleteObject']

export class MemoryCloudStorage implements CloudStorageClient {
  /** Every call, in order: `getBucket b`, `setBucketIamPolicy b`, `uploadObject b/name`, `listObjects b/prefix`, ... */
  readonly calls: string[] = []
  closed = 0
  private readonly buckets = new Map<string, BucketRecord>()
  private readonly faults: (Fault & CloudStorageFailure & {readonly call: CloudStorageCall})[] = []
  private generations = BigInt(Date.now()) * 1000n

  /** A bucket that exists (no call logged), in `location` (default US-CENTRAL1, a region) of `project`. */
  addBucket(name: string, options: {location?: string; locationType?: string; project?: string} = {}): Bucket {
    const bucket: Bucket = {
      name,
      location: (options.location ?? 'US-CENTRAL1').toUpperCase(),
      locationType: options.locationType ?? 'region',
    }
    this.buckets.set(name, {
      bucket,
      version: 1,
      bindings: defaultBindings(options.project ?? 'p'),
      generation: 1,
      objects: new Map(),
    })
    return bucket
  }

  /** An object that exists (no call logged), written as an upload writes it: a new generation. */
  addObject(
    bucket: string,
    name: string,
    data: string | Uint8Array,
    options: {contentType?: string; metadata?: Record<string, string>} = {},
  ): StorageObject {
    const bytes = Buffer.from(typeof data === 'string' ? Buffer.from(data, 'utf8') : data)
    return this.write(this.record(bucket), name, bytes, options.contentType, options.metadata)
  }

  /** An object's bytes (no call logged), or undefined. */
  objectData(bucket: string, name: string): Buffer | undefined {
    const found = this.buckets.get(bucket)?.objects.get(name)
    return found && Buffer.from(found.data)
  }

  /** The names of a bucket's objects, in the API's order (no call logged). */
  objectNames(bucket: string): string[] {
    return listNames([...this.record(bucket).objects.keys()], '', undefined).names
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

  /** The mutating calls, in order (`setBucketIamPolicy b`, `uploadObject b/name`, `deleteObject b/name`). */
  mutations(): string[] {
    return this.calls.filter((c) => MUTATING.some((call) => c.startsWith(`${call} `)))
  }

  async uploadObject(
    bucket: string,
    name: string,
    body: UploadBody,
    options: UploadOptions = {},
  ): Promise<StorageObject> {
    const action = cloudStorageAction.upload(bucket, name)
    this.call('uploadObject', bucket, action, name)
    const data = await bytesOf(body)
    const record = this.existing(bucket, action, name)
    const problem = objectNameProblem(name)
    if (problem) throw error('INVALID_ARGUMENT', problem, action, bucket, name)
    if (options.ifGenerationMatch !== undefined) {
      const wanted = generationCondition(options.ifGenerationMatch)
      if (wanted === undefined) {
        throw error(
          'INVALID_ARGUMENT',
          storageSays.invalidGeneration(String(options.ifGenerationMatch)),
          action,
          bucket,
          name,
        )
      }
      const live = record.objects.get(name)
      if (wanted === 0n ? live !== undefined : live?.object.generation !== String(wanted)) {
        throw error('FAILED_PRECONDITION', storageSays.objectPreconditionFailed, action, bucket, name)
      }
    }
    return this.write(record, name, data, options.contentType)
  }

  async getObject(bucket: string, name: string): Promise<StorageObject | undefined> {
    const action = cloudStorageAction.readObject(bucket, name)
    if (this.call('getObject', bucket, action, name)) return undefined
    // A missing bucket is a 404 too, which the adapter reads as no object.
    const found = this.buckets.get(bucket)?.objects.get(name)
    return found && structuredClone(found.object)
  }

  async downloadObject(bucket: string, name: string): Promise<Buffer | undefined> {
    const action = cloudStorageAction.download(bucket, name)
    if (this.call('downloadObject', bucket, action, name)) return undefined
    // A missing bucket is a 404 too, which the adapter reads as no object.
    const found = this.buckets.get(bucket)?.objects.get(name)
    return found && Buffer.from(found.data)
  }

  async listObjects(bucket: string, options: {prefix?: string; delimiter?: string} = {}): Promise<ObjectListing> {
    const prefix = options.prefix ?? ''
    const action = cloudStorageAction.list(bucket, prefix)
    this.call('listObjects', bucket, action, prefix)
    const record = this.existing(bucket, action, prefix)
    const {names, prefixes} = listNames([...record.objects.keys()], prefix, options.delimiter || undefined)
    return {objects: names.map((n) => structuredClone(record.objects.get(n)!.object)), prefixes}
  }

  async deleteObject(bucket: string, name: string): Promise<boolean> {
    const action = cloudStorageAction.deleteObject(bucket, name)
    if (this.call('deleteObject', bucket, action, name)) return false
    return this.buckets.get(bucket)?.objects.delete(name) ?? false
  }

  private write(
    record: BucketRecord,
    name: string,
    data: Buffer,
    contentType = 'application/octet-stream',
    metadata: Record<string, string> = {},
  ): StorageObject {
    const object: StorageObject = {
      bucket: record.bucket.name,
      name,
      size: data.length,
      md5Hash: md5Base64(data),
      crc32c: crc32c(data),
      generation: String(++this.generations),
      contentType,
      metadata: {...metadata},
      updated: new Date().toISOString(),
    }
    record.objects.set(name, {object, data: Buffer.from(data)})
    return structuredClone(object)
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
   * Logs the call; throws its injected failure (but for a NOT_FOUND to a read or delete that the adapter reads as
   * nothing there: true), and Cloud Storage's refusal of a bad bucket name.
   */
  private call(call: CloudStorageCall, bucket: string, action: string, object?: string): boolean {
    this.calls.push(`${call} ${object === undefined ? bucket : `${bucket}/${object}`}`)
    const fault = takeFault(this.faults, (f) => f.call === call)
    const missingReads: readonly CloudStorageCall[] = ['getBucket', 'getObject', 'downloadObject', 'deleteObject']
    if (fault && missingReads.includes(call) && fault.status === 'NOT_FOUND') return true
    if (fault) throw error(fault.status, fault.message, action, bucket, object)
    const problem = bucketNameProblem(bucket)
    if (problem) throw error('INVALID_ARGUMENT', problem, action, bucket, object)
    return false
  }

  private existing(name: string, action: string, object?: string): BucketRecord {
    const record = this.buckets.get(name)
    if (!record) throw error('NOT_FOUND', storageSays.bucketNotFound, action, name, object)
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

function error(
  status: CloudStorageFailure['status'],
  message: string,
  action: string,
  bucket: string,
  object?: string,
) {
  return cloudStorageApiError(
    {code: GRPC_STATUS.indexOf(status), message},
    {action, bucket, ...(object === undefined ? {} : {object})},
  )
}

async function bytesOf(body: UploadBody): Promise<Buffer> {
  if (body instanceof Uint8Array) return Buffer.from(body)
  const chunks: Uint8Array[] = []
  for await (const chunk of body) chunks.push(chunk)
  return Buffer.concat(chunks)
}
