// A test double of the few Cloud Storage JSON API v1 endpoints xpk uses: a bucket's metadata and its IAM policy (read
// and set, with the etag check), and objects (media upload with a generation condition, metadata, alt=media
// download, list with prefix, delimiter and pages, delete), served as the API answers over real HTTP on loopback, so
// the production adapter (src/adapters/cloud-storage-rest.ts) runs against it unmodified, and so can curl.
// Behaviour spec: fake-cloud-storage.md next to this file.
import type {IamBinding} from '../../src/core/storage/backends.js'
import {
  bucketNameProblem,
  byBytes,
  crc32c,
  defaultBindings,
  generationCondition,
  md5Base64,
  objectNameProblem,
  policyEtag,
  policyProblem,
  storageSays,
} from './cloud-storage-shapes.js'
import {
  googleErrorBody,
  HttpAnswer,
  JsonRestFake,
  RawReply,
  type HttpCall,
  type HttpFaultMatch,
  type RawRequest,
} from './fake-server.js'

/** A bucket as the API answers it (the fields of a `projection=noAcl` read). */
export interface BucketJson {
  kind: 'storage#bucket'
  selfLink: string
  id: string
  name: string
  projectNumber: string
  metageneration: string
  location: string
  locationType: string
  storageClass: string
  etag: string
  timeCreated: string
  updated: string
  iamConfiguration: {
    bucketPolicyOnly: {enabled: boolean}
    uniformBucketLevelAccess: {enabled: boolean}
    publicAccessPrevention: string
  }
  rpo: string
}

/** A bucket's IAM policy as the API answers it. */
export interface PolicyJson {
  kind: 'storage#policy'
  resourceId: string
  version: number
  etag: string
  bindings: IamBinding[]
}

/** An object as the API answers it (a `storage#object`); int64s are strings. */
export interface ObjectJson {
  kind: 'storage#object'
  id: string
  selfLink: string
  mediaLink: string
  name: string
  bucket: string
  generation: string
  metageneration: string
  contentType: string
  storageClass: string
  size: string
  md5Hash: string
  crc32c: string
  etag: string
  timeCreated: string
  updated: string
  timeStorageClassUpdated: string
  metadata?: Record<string, string>
}

export interface SeedObject {
  /** Default application/octet-stream. */
  contentType?: string
  metadata?: Record<string, string>
}

/** A request, as the log keeps it (`path` below `/storage/v1/`; uploads and downloads by their whole path). */
export type CloudStorageCall = HttpCall

/** An HTTP-level fault (`times`, `delayMs` and `afterApply` as every fake's: fake-server.ts). */
export interface StorageFault extends HttpFaultMatch {
  /** Answer with this HTTP status and Cloud Storage's JSON error. Omit to only delay the request by delayMs. */
  readonly status?: number
  readonly message?: string
  /** errors[0].reason of the body. Default: the usual reason for the status. */
  readonly reason?: string
  readonly method?: 'GET' | 'PUT' | 'POST' | 'DELETE'
  /** Sent verbatim instead of the JSON error, e.g. a proxy's HTML page. */
  readonly rawBody?: string
}

export interface SeedBucket {
  name: string
  /** The project whose owners, editors and viewers the new bucket's policy names. Default p. */
  project?: string
  /** Default US-CENTRAL1 (upper case, as the API writes it). */
  location?: string
  /** Default region. */
  locationType?: string
  /** Instead of a new bucket's bindings. */
  bindings?: IamBinding[]
  /** Default 1 (3 when a binding has a condition). */
  version?: number
}

/** Errors Cloud Storage reports, worded and coded as it does. */
export const storageErrors = {
  permissionDenied(
    bucket: string,
    permission = 'storage.buckets.getIamPolicy',
    who = 'xpk@p.iam.gserviceaccount.com',
  ): StorageFault {
    return {
      status: 403,
      reason: 'forbidden',
      message: `${who} does not have ${permission} access to the Google Cloud Storage bucket. Permission '${permission}' denied on resource (or it may not exist).`,
      path: `b/${bucket}`,
    }
  },
  rateLimited(): StorageFault {
    return {status: 429, reason: 'rateLimitExceeded', message: 'The rate of requests to the bucket is too high.'}
  },
}

const API_ROOT = '/storage/v1/'
const UPLOAD_ROOT = '/upload/storage/v1/'
const DOWNLOAD_ROOT = '/download/storage/v1/'
const SELF = 'https://www.googleapis.com/storage/v1/'
const MEDIA = 'https://storage.googleapis.com/download/storage/v1/'
const PROJECT_NUMBER = '123456789012'
/** The most items (objects and prefixes) a page of objects.list holds, and the default. */
const MAX_RESULTS = 1000

interface ObjectRecord {
  json: ObjectJson
  data: Buffer
}

interface BucketRecord {
  readonly json: BucketJson
  version: number
  bindings: IamBinding[]
  generation: number
  readonly objects: Map<string, ObjectRecord>
}

/** Object generations are microseconds since the epoch, as the real API's are, and never repeat. */
let lastGeneration = 0n
function nextGeneration(): bigint {
  const now = BigInt(Date.now()) * 1000n
  lastGeneration = now > lastGeneration ? now : lastGeneration + 1n
  return lastGeneration
}

const error = (status: number, message: string, reason?: string) =>
  new HttpAnswer(status, googleErrorBody(status, message, reason, {withStatus: false}))

export class FakeCloudStorage extends JsonRestFake<StorageFault> {
  protected readonly root = API_ROOT
  private readonly buckets = new Map<string, BucketRecord>()
  /** The most items a page of objects.list holds (a smaller `maxResults` in the request wins). */
  pageSize = MAX_RESULTS

  static start(): Promise<FakeCloudStorage> {
    return new FakeCloudStorage().listen('fake-cloud-storage')
  }

  /** Back to the state right after start(): no buckets, calls or faults. */
  reset(): void {
    this.buckets.clear()
    this.pageSize = MAX_RESULTS
    this.forget()
  }

  /** A bucket that exists (no call logged). */
  seedBucket(seed: SeedBucket): BucketJson {
    if (this.buckets.has(seed.name)) throw new Error(`seedBucket: ${seed.name} exists`)
    const now = new Date().toISOString()
    const json: BucketJson = {
      kind: 'storage#bucket',
      selfLink: `${SELF}b/${seed.name}`,
      id: seed.name,
      name: seed.name,
      projectNumber: PROJECT_NUMBER,
      metageneration: '1',
      location: (seed.location ?? 'US-CENTRAL1').toUpperCase(),
      locationType: seed.locationType ?? 'region',
      storageClass: 'STANDARD',
      etag: 'CAE=',
      timeCreated: now,
      updated: now,
      iamConfiguration: {
        bucketPolicyOnly: {enabled: true},
        uniformBucketLevelAccess: {enabled: true},
        publicAccessPrevention: 'inherited',
      },
      rpo: 'DEFAULT',
    }
    const bindings = seed.bindings ?? defaultBindings(seed.project ?? 'p')
    const version = seed.version ?? (bindings.some((b) => b.condition) ? 3 : 1)
    this.buckets.set(seed.name, {
      json,
      version,
      bindings: structuredClone(bindings),
      generation: 1,
      objects: new Map(),
    })
    return structuredClone(json)
  }

  /** An object that exists (no call logged), written as an upload writes it: a new generation. */
  seedObject(bucket: string, name: string, data: string | Uint8Array, options: SeedObject = {}): ObjectJson {
    const record = this.buckets.get(bucket)
    if (!record) throw new Error(`seedObject: no bucket ${bucket}`)
    const bytes = Buffer.from(typeof data === 'string' ? Buffer.from(data, 'utf8') : data)
    return structuredClone(this.write(record, name, bytes, options.contentType, options.metadata).json)
  }

  /** An object's metadata and bytes (no call logged). */
  object(bucket: string, name: string): {json: ObjectJson; data: Buffer} | undefined {
    const found = this.buckets.get(bucket)?.objects.get(name)
    return found && {json: structuredClone(found.json), data: Buffer.from(found.data)}
  }

  /** The names of a bucket's objects, in the API's order. */
  objectNames(bucket: string): string[] {
    return [...(this.buckets.get(bucket)?.objects.keys() ?? [])].sort(byBytes)
  }

  /** Another writer sets the bucket's bindings: the policy gets a new etag (no call logged). */
  changePolicy(name: string, bindings: IamBinding[]): PolicyJson {
    const record = this.buckets.get(name)
    if (!record) throw new Error(`changePolicy: no bucket ${name}`)
    record.bindings = structuredClone(bindings)
    record.generation++
    return policyJson(name, record)
  }

  bucket(name: string): BucketJson | undefined {
    const record = this.buckets.get(name)
    return record && structuredClone(record.json)
  }

  policy(name: string): PolicyJson | undefined {
    const record = this.buckets.get(name)
    return record && policyJson(name, record)
  }

  protected faultAnswer({status, message, reason, rawBody}: StorageFault): HttpAnswer | undefined {
    if (status === undefined) return undefined
    return rawBody
      ? new HttpAnswer(status, rawBody)
      : error(status, message ?? `Injected fault: HTTP ${status}.`, reason)
  }

  protected route(call: CloudStorageCall, text: string, pathname: string, raw: RawRequest): object {
    if (pathname.startsWith(UPLOAD_ROOT)) return this.upload(call, pathname.slice(UPLOAD_ROOT.length), raw)
    if (pathname.startsWith(DOWNLOAD_ROOT)) {
      const media = /^b\/([^/]+)\/o\/(.+)$/.exec(pathname.slice(DOWNLOAD_ROOT.length))
      if (!media || call.method !== 'GET') throw error(404, 'Not Found', 'notFound')
      return this.download(this.existing(media[1]!), decodeURIComponent(media[2]!))
    }
    const objects = /^b\/([^/]+)\/o(?:\/(.+))?$/.exec(call.path)
    if (objects) return this.objectRoute(call, decodeURIComponent(objects[1]!), objects[2])
    const match = /^b\/([^/]+)(\/iam)?$/.exec(call.path)
    if (!match || (match[2] ? !['GET', 'PUT'].includes(call.method) : call.method !== 'GET')) {
      throw error(404, 'Not Found', 'notFound')
    }
    const name = decodeURIComponent(match[1]!)
    const problem = bucketNameProblem(name)
    if (problem) throw error(400, problem, 'invalid')
    const record = this.buckets.get(name)
    if (!record) throw error(404, storageSays.bucketNotFound, 'notFound')
    if (!match[2]) return record.json
    if (call.method === 'GET') {
      const asked = Number(call.query.optionsRequestedPolicyVersion ?? 1)
      if (asked < record.version) {
        throw error(
          400,
          `Requested policy version (${asked}) cannot be less than the existing policy version (${record.version}).`,
          'invalid',
        )
      }
      return policyJson(name, record)
    }
    return this.setPolicy(name, record, text)
  }

  /** The bucket of an object request: a bad name is 400, a missing bucket 404. */
  private existing(bucket: string): BucketRecord {
    const problem = bucketNameProblem(bucket)
    if (problem) throw error(400, problem, 'invalid')
    const record = this.buckets.get(bucket)
    if (!record) throw error(404, storageSays.bucketNotFound, 'notFound')
    return record
  }

  /** `b/B/o` (list) and `b/B/o/NAME` (metadata, alt=media, delete). */
  private objectRoute(call: CloudStorageCall, bucket: string, encodedName: string | undefined): object {
    const record = this.existing(bucket)
    if (encodedName === undefined) {
      if (call.method !== 'GET') throw error(404, 'Not Found', 'notFound')
      return this.list(bucket, record, call.query)
    }
    const name = decodeURIComponent(encodedName)
    if (call.method === 'GET' && call.query.alt === 'media') return this.download(record, name)
    const found = record.objects.get(name)
    if (call.method === 'GET') {
      if (!found) throw error(404, storageSays.noSuchObject(bucket, name), 'notFound')
      return found.json
    }
    if (call.method === 'DELETE') {
      if (!found) throw error(404, storageSays.noSuchObject(bucket, name), 'notFound')
      record.objects.delete(name)
      return new RawReply(204, Buffer.alloc(0))
    }
    throw error(404, 'Not Found', 'notFound')
  }

  private download(record: BucketRecord, name: string): RawReply {
    const found = record.objects.get(name)
    if (!found) throw error(404, storageSays.noSuchObject(record.json.name, name), 'notFound')
    return new RawReply(200, Buffer.from(found.data), {
      'content-type': found.json.contentType,
      'x-goog-generation': found.json.generation,
      'x-goog-metageneration': found.json.metageneration,
      'x-goog-hash': `crc32c=${found.json.crc32c},md5=${found.json.md5Hash}`,
      'x-goog-stored-content-length': found.json.size,
      etag: found.json.etag,
    })
  }

  /** POST upload/storage/v1/b/B/o?uploadType=media&name=N[&ifGenerationMatch=G]: the body is the object. */
  private upload(call: CloudStorageCall, path: string, raw: RawRequest): ObjectJson {
    const match = /^b\/([^/]+)\/o$/.exec(path)
    if (!match || call.method !== 'POST') throw error(404, 'Not Found', 'notFound')
    if (call.query.uploadType !== 'media') {
      throw error(
        400,
        `fake-cloud-storage: uploadType=${call.query.uploadType ?? ''} is not served; only media.`,
        'invalid',
      )
    }
    const record = this.existing(decodeURIComponent(match[1]!))
    const name = call.query.name
    if (name === undefined || name === '') throw error(400, 'Required', 'required')
    const problem = objectNameProblem(name)
    if (problem) throw error(400, problem, 'invalid')
    const condition = call.query.ifGenerationMatch
    if (condition !== undefined) {
      const wanted = generationCondition(condition)
      if (wanted === undefined) throw error(400, storageSays.invalidGeneration(condition), 'invalid')
      const live = record.objects.get(name)
      if (wanted === 0n ? live !== undefined : live?.json.generation !== String(wanted)) {
        throw error(412, storageSays.objectPreconditionFailed, 'conditionNotMet')
      }
    }
    const contentType = raw.headers['content-type'] ?? 'application/octet-stream'
    return this.write(record, name, raw.bytes, contentType).json
  }

  private write(
    record: BucketRecord,
    name: string,
    data: Buffer,
    contentType = 'application/octet-stream',
    metadata?: Record<string, string>,
  ): ObjectRecord {
    const generation = String(nextGeneration())
    const bucket = record.json.name
    const now = new Date().toISOString()
    const encoded = encodeURIComponent(name)
    const json: ObjectJson = {
      kind: 'storage#object',
      id: `${bucket}/${name}/${generation}`,
      selfLink: `${SELF}b/${bucket}/o/${encoded}`,
      mediaLink: `${MEDIA}b/${bucket}/o/${encoded}?generation=${generation}&alt=media`,
      name,
      bucket,
      generation,
      metageneration: '1',
      contentType,
      storageClass: 'STANDARD',
      size: String(data.length),
      md5Hash: md5Base64(data),
      crc32c: crc32c(data),
      etag: Buffer.from(generation).toString('base64'),
      timeCreated: now,
      updated: now,
      timeStorageClassUpdated: now,
      ...(metadata && Object.keys(metadata).length > 0 ? {metadata: {...metadata}} : {}),
    }
    const written = {json, data: Buffer.from(data)}
    record.objects.set(name, written)
    return written
  }

  /**
   * objects.list: the names under `prefix` in byte order, those whose rest holds `delimiter` folded into `prefixes`;
   * a page holds at most maxResults items and prefixes together, and its token is the last one it holds.
   */
  private list(bucket: string, record: BucketRecord, query: Readonly<Record<string, string>>): object {
    const prefix = query.prefix ?? ''
    const delimiter = query.delimiter || undefined
    const asked = query.maxResults === undefined ? MAX_RESULTS : Number(query.maxResults)
    if (!Number.isInteger(asked) || asked < 0) {
      throw error(400, `Invalid value for maxResults: '${query.maxResults}'`, 'invalid')
    }
    const size = Math.max(1, Math.min(asked || MAX_RESULTS, this.pageSize))
    let after: string | undefined
    if (query.pageToken !== undefined) {
      after = Buffer.from(query.pageToken, 'base64url').toString('utf8')
      if (query.pageToken === '' || Buffer.from(after, 'utf8').toString('base64url') !== query.pageToken) {
        throw error(400, 'Invalid page token.', 'invalid')
      }
    }
    const entries = new Map<string, 'item' | 'prefix'>()
    for (const name of record.objects.keys()) {
      if (!name.startsWith(prefix)) continue
      const at = delimiter ? name.indexOf(delimiter, prefix.length) : -1
      if (at >= 0) entries.set(name.slice(0, at + delimiter!.length), 'prefix')
      else entries.set(name, 'item')
    }
    const ordered = [...entries.keys()].sort(byBytes).filter((key) => after === undefined || byBytes(key, after) > 0)
    const page = ordered.slice(0, size)
    const items = page.filter((key) => entries.get(key) === 'item').map((key) => record.objects.get(key)!.json)
    const prefixes = page.filter((key) => entries.get(key) === 'prefix')
    return {
      kind: 'storage#objects',
      ...(ordered.length > page.length ? {nextPageToken: Buffer.from(page.at(-1)!, 'utf8').toString('base64url')} : {}),
      ...(prefixes.length > 0 ? {prefixes} : {}),
      ...(items.length > 0 ? {items} : {}),
    }
  }

  private setPolicy(name: string, record: BucketRecord, text: string): PolicyJson {
    let body: {version?: unknown; etag?: unknown; bindings?: unknown}
    try {
      body = JSON.parse(text) as typeof body
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an object')
    } catch {
      throw error(400, 'Parse Error', 'parseError')
    }
    const bindings = (body.bindings ?? []) as IamBinding[]
    const wellFormed = (b: IamBinding) =>
      typeof b === 'object' && b !== null && typeof b.role === 'string' && Array.isArray(b.members)
    if (!Array.isArray(bindings) || !bindings.every(wellFormed)) {
      throw error(400, 'Invalid value for bindings: each binding has a role and a list of members.', 'invalid')
    }
    const version = body.version === undefined ? 1 : Number(body.version)
    const problem = policyProblem(version, bindings)
    if (problem) throw error(400, problem, 'invalid')
    // The etag is optional: without one the policy is replaced whatever it became; with a stale one, refused.
    if (body.etag !== undefined && body.etag !== policyEtag(record.generation)) {
      throw error(412, storageSays.preconditionFailed, 'conditionNotMet')
    }
    record.version = version
    record.bindings = structuredClone(bindings)
    record.generation++
    return policyJson(name, record)
  }
}

function policyJson(name: string, record: BucketRecord): PolicyJson {
  return {
    kind: 'storage#policy',
    resourceId: `projects/_/buckets/${name}`,
    version: record.version,
    etag: policyEtag(record.generation),
    bindings: structuredClone(record.bindings),
  }
}
