// A test double of the few Cloud Storage JSON API v1 endpoints xpk uses: a bucket's metadata and its IAM policy (read
// and set, with the etag check), served as the API answers over real HTTP on loopback, so the production adapter
// (src/adapters/cloud-storage-rest.ts) runs against it unmodified. Behaviour spec: fake-cloud-storage.md next to
// this file.
import type {IamBinding} from '../../src/core/storage/backends.js'
import {bucketNameProblem, defaultBindings, policyEtag, policyProblem, storageSays} from './cloud-storage-shapes.js'
import {googleErrorBody, HttpAnswer, JsonRestFake, type HttpCall, type HttpFaultMatch} from './fake-server.js'

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

/** A request, as the log keeps it (`path` below `/storage/v1/`). */
export type CloudStorageCall = HttpCall

/** An HTTP-level fault (`times`, `delayMs` and `afterApply` as every fake's: fake-server.ts). */
export interface StorageFault extends HttpFaultMatch {
  /** Answer with this HTTP status and Cloud Storage's JSON error. Omit to only delay the request by delayMs. */
  readonly status?: number
  readonly message?: string
  /** errors[0].reason of the body. Default: the usual reason for the status. */
  readonly reason?: string
  readonly method?: 'GET' | 'PUT'
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
const SELF = 'https://www.googleapis.com/storage/v1/'
const PROJECT_NUMBER = '123456789012'

interface BucketRecord {
  readonly json: BucketJson
  version: number
  bindings: IamBinding[]
  generation: number
}

const error = (status: number, message: string, reason?: string) =>
  new HttpAnswer(status, googleErrorBody(status, message, reason, {withStatus: false}))

export class FakeCloudStorage extends JsonRestFake<StorageFault> {
  protected readonly root = API_ROOT
  private readonly buckets = new Map<string, BucketRecord>()

  static start(): Promise<FakeCloudStorage> {
    return new FakeCloudStorage().listen('fake-cloud-storage')
  }

  /** Back to the state right after start(): no buckets, calls or faults. */
  reset(): void {
    this.buckets.clear()
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
    this.buckets.set(seed.name, {json, version, bindings: structuredClone(bindings), generation: 1})
    return structuredClone(json)
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

  protected route(call: CloudStorageCall, text: string): object {
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
