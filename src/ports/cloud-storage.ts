import type {Bucket, IamBinding, IamPolicy, ObjectListing, StorageObject} from '../core/storage/backends.js'

export type {Bucket, IamBinding, IamPolicy, ObjectListing, StorageObject}

/** What an upload is conditioned on, and how the object is typed. */
export interface UploadOptions {
  /**
   * Write only if the live object's generation is this one (a decimal string or a number); `0`: only if there is no
   * live object. A failed condition is a conflict (HTTP 412, FAILED_PRECONDITION) and writes nothing.
   */
  readonly ifGenerationMatch?: string | number
  /** @default application/octet-stream */
  readonly contentType?: string
}

/** The bytes of an upload: a buffer, or a stream of chunks (a Readable), read whole before the request. */
export type UploadBody = Uint8Array | AsyncIterable<Uint8Array>

/**
 * The Cloud Storage JSON API (storage.googleapis.com/storage/v1) in xpk's terms: a bucket's metadata and its IAM
 * policy, and objects (upload, metadata, download, list, delete). Implementations throw ApiError (classified, with
 * hints) and resolve `undefined` from `getBucket`, `getObject` and `downloadObject` when the thing does not exist.
 * `setBucketIamPolicy` sends the policy's etag: a policy changed since it was read is refused (a conflict), never
 * overwritten. No call retries by itself.
 */
export interface CloudStorageClient {
  getBucket(name: string): Promise<Bucket | undefined>
  getBucketIamPolicy(name: string): Promise<IamPolicy>
  setBucketIamPolicy(name: string, policy: IamPolicy): Promise<IamPolicy>
  /** Writes the object whole (a media upload), replacing a live one unless the condition says otherwise. */
  uploadObject(bucket: string, name: string, body: UploadBody, options?: UploadOptions): Promise<StorageObject>
  getObject(bucket: string, name: string): Promise<StorageObject | undefined>
  /** The object's bytes. */
  downloadObject(bucket: string, name: string): Promise<Buffer | undefined>
  /** Every object under the prefix (all pages), and with a delimiter the prefixes it folded. */
  listObjects(bucket: string, options?: {readonly prefix?: string; readonly delimiter?: string}): Promise<ObjectListing>
  /** Deletes the live object; false when there was none. */
  deleteObject(bucket: string, name: string): Promise<boolean>
  close(): Promise<void>
}
