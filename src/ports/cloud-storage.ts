import type {Bucket, IamBinding, IamPolicy} from '../core/storage/backends.js'

export type {Bucket, IamBinding, IamPolicy}

/**
 * The Cloud Storage JSON API (storage.googleapis.com/storage/v1) in xpk's terms: a bucket's metadata and its IAM
 * policy. Implementations throw ApiError (classified, with hints) and resolve `undefined` from `getBucket` when the
 * bucket does not exist. `setBucketIamPolicy` sends the policy's etag: a policy changed since it was read is refused
 * (a conflict), never overwritten. No call retries by itself.
 */
export interface CloudStorageClient {
  getBucket(name: string): Promise<Bucket | undefined>
  getBucketIamPolicy(name: string): Promise<IamPolicy>
  setBucketIamPolicy(name: string, policy: IamPolicy): Promise<IamPolicy>
  close(): Promise<void>
}
