/**
 * The {@link CloudStorageClient} port over the Cloud Storage JSON API v1 (storage.googleapis.com/storage/v1), through
 * google-rest.ts as the other Google clients are. The client library (`@google-cloud/storage`) is not a dependency:
 * a bucket's metadata, its IAM policy and a few object calls do not justify it. Cloud Storage's error bodies name
 * no gRPC status: the HTTP status decides (412 a stale etag or generation, 429 its rate limit), as google-rest.ts
 * reads it. Uploads are media uploads (`uploadType=media`, one request, the object whole) to the API's upload root,
 * `upload/storage/v1/` beside `storage/v1/`; downloads are `alt=media` reads of the object.
 */

import {cloudStorageAction, cloudStorageApiError} from '../core/storage/api-errors.js'
import type {ApiContext} from '../core/cluster/gke-errors.js'
import type {Bucket, IamBinding, IamPolicy, ObjectListing, StorageObject} from '../core/storage/backends.js'
import {STORAGE_ENDPOINT} from '../core/storage/endpoints.js'
import {parseEndpointOverride} from '../core/endpoint.js'
import type {CloudStorageClient, UploadBody, UploadOptions} from '../ports/cloud-storage.js'
import {apiRoot, connectRest, failureCode, type GoogleConnection, type GoogleRest} from './google-rest.js'

const DEFAULT_BASE = 'https://storage.googleapis.com/storage/v1/'
const DEFAULT_UPLOAD_BASE = 'https://storage.googleapis.com/upload/storage/v1/'

/** The fields of a `storage#bucket` xpk reads. */
interface ApiBucket {
  readonly name?: string
  readonly location?: string
  readonly locationType?: string
}

/** The fields of a `storage#object` xpk reads; int64s (size, generation) are strings. */
export interface ApiObject {
  readonly bucket?: string
  readonly name?: string
  readonly size?: string
  readonly md5Hash?: string
  readonly crc32c?: string
  readonly generation?: string
  readonly contentType?: string
  readonly metadata?: Readonly<Record<string, string>>
  readonly updated?: string
}

/** A `storage#objects` page. */
interface ApiObjects {
  readonly items?: readonly ApiObject[]
  readonly prefixes?: readonly string[]
  readonly nextPageToken?: string
}

/** A `storage#policy`. */
export interface ApiPolicy {
  readonly version?: number
  readonly etag?: string
  readonly bindings?: readonly {
    readonly role?: string
    readonly members?: readonly string[]
    readonly condition?: {readonly title?: string; readonly expression?: string; readonly description?: string}
  }[]
}

/**
 * Creates the real Cloud Storage client. The endpoint is `https://HOST[:PORT]/[PATH/]` (without a path, under
 * `storage/v1/`), or `http://127.0.0.1:PORT` for a local test server, to which no credentials are sent; otherwise a
 * static token is sent as it is, or google-auth-library is imported for Application Default Credentials.
 */
export async function createCloudStorageClient(connection: GoogleConnection = {}): Promise<CloudStorageClient> {
  const endpoint = connection.endpoint ? parseEndpointOverride(connection.endpoint, STORAGE_ENDPOINT) : undefined
  const root = endpoint ? apiRoot(endpoint, '/storage/v1/') : {base: DEFAULT_BASE, insecure: false}
  // Uploads go to the same root under `upload/` (a proxy's path too).
  const uploadBase = endpoint
    ? apiRoot(endpoint, '/storage/v1/').base.replace(endpoint.origin, `${endpoint.origin}/upload`)
    : DEFAULT_UPLOAD_BASE
  // A bucket belongs to no location xpk names: the requests carry the bucket where others carry their location.
  const rest = await connectRest(root, connection, (failure, context) =>
    cloudStorageApiError(
      {code: failureCode(failure), message: failure.message, reasons: failure.reasons},
      {action: context.action, bucket: context.location, ...objectOf(context)},
    ),
  )
  return new CloudStorageRestClient(rest, rest.rebased(uploadBase))
}

/** The context of an object call: the bucket where others carry their location, and the object. */
interface ObjectContext extends ApiContext {
  readonly object: string
}

function objectOf(context: ApiContext): {object?: string} {
  return 'object' in context ? {object: (context as ObjectContext).object} : {}
}

export function toStorageObject(api: ApiObject, bucket: string, name: string): StorageObject {
  return {
    bucket: api.bucket ?? bucket,
    name: api.name ?? name,
    size: Number(api.size ?? 0),
    ...(api.md5Hash ? {md5Hash: api.md5Hash} : {}),
    crc32c: api.crc32c ?? '',
    generation: String(api.generation ?? ''),
    ...(api.contentType ? {contentType: api.contentType} : {}),
    metadata: {...(api.metadata ?? {})},
    updated: api.updated ?? '',
  }
}

/** The bytes of an upload body: a stream is read whole (media uploads send a known length). */
async function bytesOf(body: UploadBody): Promise<Uint8Array<ArrayBuffer>> {
  if (body instanceof Uint8Array) return new Uint8Array(body)
  const chunks: Uint8Array[] = []
  for await (const chunk of body) chunks.push(chunk)
  return new Uint8Array(Buffer.concat(chunks))
}

/** xpk's view of a policy: what a write must send back (its version and etag) and its bindings. */
export function toPolicy(api: ApiPolicy): IamPolicy {
  return {
    version: api.version ?? 1,
    etag: api.etag ?? '',
    bindings: (api.bindings ?? []).map((b): IamBinding => ({
      role: b.role ?? '',
      members: [...(b.members ?? [])],
      ...(b.condition
        ? {
            condition: {
              title: b.condition.title ?? '',
              expression: b.condition.expression ?? '',
              ...(b.condition.description === undefined ? {} : {description: b.condition.description}),
            },
          }
        : {}),
    })),
  }
}

const bucketPath = (name: string) => `b/${encodeURIComponent(name)}`
// An object's name is one path segment: its slashes are escaped too, as the JSON API requires.
const objectPath = (bucket: string, name: string) => `${bucketPath(bucket)}/o/${encodeURIComponent(name)}`
const context = (action: string, bucket: string) => ({action, project: '', location: bucket})
const objectContext = (action: string, bucket: string, object: string): ObjectContext => ({
  action,
  project: '',
  location: bucket,
  object,
})

class CloudStorageRestClient implements CloudStorageClient {
  constructor(
    private readonly rest: GoogleRest,
    private readonly upload: GoogleRest,
  ) {}

  async uploadObject(
    bucket: string,
    name: string,
    body: UploadBody,
    options: UploadOptions = {},
  ): Promise<StorageObject> {
    const uploading = objectContext(cloudStorageAction.upload(bucket, name), bucket, name)
    const query = new URLSearchParams({uploadType: 'media', name})
    if (options.ifGenerationMatch !== undefined) query.set('ifGenerationMatch', String(options.ifGenerationMatch))
    const media = {data: await bytesOf(body), contentType: options.contentType ?? 'application/octet-stream'}
    const reply = await this.upload.request('POST', `${bucketPath(bucket)}/o?${query}`, uploading, {media})
    return toStorageObject(this.upload.json<ApiObject>(reply, uploading), bucket, name)
  }

  async getObject(bucket: string, name: string): Promise<StorageObject | undefined> {
    const reading = objectContext(cloudStorageAction.readObject(bucket, name), bucket, name)
    const api = await this.rest.getOrMissing<ApiObject>(objectPath(bucket, name), reading)
    return api && toStorageObject(api, bucket, name)
  }

  async downloadObject(bucket: string, name: string): Promise<Buffer | undefined> {
    const reading = objectContext(cloudStorageAction.download(bucket, name), bucket, name)
    const reply = await this.rest.request('GET', `${objectPath(bucket, name)}?alt=media`, reading, {
      answers: [404],
      bytes: true,
    })
    return reply.status === 404 ? undefined : (reply.bytes ?? Buffer.alloc(0))
  }

  async listObjects(bucket: string, options: {prefix?: string; delimiter?: string} = {}): Promise<ObjectListing> {
    const listing = objectContext(cloudStorageAction.list(bucket, options.prefix ?? ''), bucket, options.prefix ?? '')
    const objects: StorageObject[] = []
    const prefixes: string[] = []
    let token: string | undefined
    do {
      const query = new URLSearchParams()
      if (options.prefix) query.set('prefix', options.prefix)
      if (options.delimiter) query.set('delimiter', options.delimiter)
      if (token) query.set('pageToken', token)
      const text = query.size > 0 ? `?${query}` : ''
      const page = this.rest.json<ApiObjects>(
        await this.rest.request('GET', `${bucketPath(bucket)}/o${text}`, listing),
        listing,
      )
      objects.push(...(page.items ?? []).map((item) => toStorageObject(item, bucket, item.name ?? '')))
      prefixes.push(...(page.prefixes ?? []))
      token = page.nextPageToken || undefined
    } while (token)
    // Each page is in order; a prefix can come again on a later page.
    return {objects, prefixes: [...new Set(prefixes)].sort()}
  }

  async deleteObject(bucket: string, name: string): Promise<boolean> {
    const deleting = objectContext(cloudStorageAction.deleteObject(bucket, name), bucket, name)
    const reply = await this.rest.request('DELETE', objectPath(bucket, name), deleting, {answers: [404]})
    return reply.status !== 404
  }

  async getBucket(name: string): Promise<Bucket | undefined> {
    const api = await this.rest.getOrMissing<ApiBucket>(bucketPath(name), context(cloudStorageAction.read(name), name))
    return api && {name: api.name ?? name, location: api.location ?? '', locationType: api.locationType ?? ''}
  }

  async getBucketIamPolicy(name: string): Promise<IamPolicy> {
    const reading = context(cloudStorageAction.readIam(name), name)
    // Version 3, so that a policy with conditions is read whole (a lower version is refused for one).
    const reply = await this.rest.request('GET', `${bucketPath(name)}/iam?optionsRequestedPolicyVersion=3`, reading)
    return toPolicy(this.rest.json<ApiPolicy>(reply, reading))
  }

  async setBucketIamPolicy(name: string, policy: IamPolicy): Promise<IamPolicy> {
    const setting = context(cloudStorageAction.setIam(name), name)
    // The etag read with the policy goes back with it: a policy changed since is refused (412), never overwritten.
    const body = {version: policy.version, etag: policy.etag, bindings: policy.bindings}
    const reply = await this.rest.request('PUT', `${bucketPath(name)}/iam`, setting, {body})
    return toPolicy(this.rest.json<ApiPolicy>(reply, setting))
  }

  async close(): Promise<void> {
    // Nothing to release: idle keep-alive connections do not hold the process open.
  }
}
