/**
 * The {@link CloudStorageClient} port over the Cloud Storage JSON API v1 (storage.googleapis.com/storage/v1), through
 * google-rest.ts as the other Google clients are. The client library (`@google-cloud/storage`) is not a dependency:
 * three calls (a bucket's metadata, its IAM policy read and set) do not justify it. Cloud Storage's error bodies name
 * no gRPC status: the HTTP status decides (412 a stale etag, 429 its rate limit), as google-rest.ts reads it.
 */

import {cloudStorageAction, cloudStorageApiError} from '../core/storage/api-errors.js'
import type {Bucket, IamBinding, IamPolicy} from '../core/storage/backends.js'
import {STORAGE_ENDPOINT} from '../core/storage/endpoints.js'
import {parseEndpointOverride} from '../core/endpoint.js'
import type {CloudStorageClient} from '../ports/cloud-storage.js'
import {apiRoot, connectRest, failureCode, type GoogleConnection, type GoogleRest} from './google-rest.js'

const DEFAULT_BASE = 'https://storage.googleapis.com/storage/v1/'

/** The fields of a `storage#bucket` xpk reads. */
interface ApiBucket {
  readonly name?: string
  readonly location?: string
  readonly locationType?: string
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
  const root = connection.endpoint
    ? apiRoot(parseEndpointOverride(connection.endpoint, STORAGE_ENDPOINT), '/storage/v1/')
    : {base: DEFAULT_BASE, insecure: false}
  // A bucket belongs to no location xpk names: the requests carry the bucket where others carry their location.
  const rest = await connectRest(root, connection, (failure, context) =>
    cloudStorageApiError(
      {code: failureCode(failure), message: failure.message, reasons: failure.reasons},
      {action: context.action, bucket: context.location},
    ),
  )
  return new CloudStorageRestClient(rest)
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
const context = (action: string, bucket: string) => ({action, project: '', location: bucket})

class CloudStorageRestClient implements CloudStorageClient {
  constructor(private readonly rest: GoogleRest) {}

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
