/**
 * What xpk reads and asks of the Google services behind a storage: Filestore instances (Filestore API v1) and Cloud
 * Storage buckets with their IAM policies (Cloud Storage JSON API v1), in xpk's terms. The planners of `storage
 * attach`, `create` and `delete` decide from these; the ports (src/ports/filestore.ts, cloud-storage.ts) speak them.
 */

/** A Filestore location: a zone (BASIC_HDD, BASIC_SSD, ZONAL) or a region (REGIONAL, ENTERPRISE). */
export interface FilestoreLocation {
  readonly project: string
  readonly location: string
}

export const FILESTORE_TIERS = ['BASIC_HDD', 'BASIC_SSD', 'ZONAL', 'REGIONAL', 'ENTERPRISE'] as const
export type FilestoreTier = (typeof FILESTORE_TIERS)[number]

export type FilestoreState =
  | 'STATE_UNSPECIFIED'
  | 'CREATING'
  | 'READY'
  | 'REPAIRING'
  | 'DELETING'
  | 'ERROR'
  | 'RESTORING'
  | 'SUSPENDED'
  | 'SUSPENDING'
  | 'RESUMING'
  | 'REVERTING'
  | 'PROMOTING'

/** A Filestore instance as xpk uses it: where it is, its state, its network and address, its shares. */
export interface FilestoreInstance {
  /** The instance id (the last part of projects/P/locations/L/instances/ID). */
  readonly id: string
  readonly location: string
  readonly tier: FilestoreTier
  readonly state: FilestoreState
  /** The VPC network of its first network config (the name, not the full URL), if any. */
  readonly network: string | null
  /** The first IP address of its first network config, once it has one. */
  readonly ipAddress: string | null
  readonly fileShares: readonly {readonly name: string; readonly capacityGb: number}[]
  readonly labels: Readonly<Record<string, string>>
}

/** What `storage create` asks for. */
export interface FilestoreInstanceRequest {
  readonly tier: FilestoreTier
  readonly network: string
  /** The one file share (Python xpk's --vol) and its size. */
  readonly fileShare: {readonly name: string; readonly capacityGb: number}
  readonly description?: string
  readonly labels?: Readonly<Record<string, string>>
}

/** A long-running operation of the Filestore API. */
export interface FilestoreOperation {
  readonly name: string
  readonly done: boolean
  readonly error?: {readonly code: number; readonly message: string}
}

/** A Cloud Storage bucket as xpk uses it. */
export interface Bucket {
  readonly name: string
  /** Upper case as the API writes it: US-CENTRAL1, US, EU, ... */
  readonly location: string
  /** region, dual-region or multi-region. */
  readonly locationType: string
}

/** A bucket's IAM policy (version 3 where conditions are used), with the etag a write must carry. */
export interface IamPolicy {
  readonly version: number
  readonly etag: string
  readonly bindings: readonly IamBinding[]
}

export interface IamBinding {
  readonly role: string
  readonly members: readonly string[]
  readonly condition?: {readonly title: string; readonly expression: string; readonly description?: string}
}

/** A Cloud Storage object's metadata as xpk uses it (a `storage#object`). */
export interface StorageObject {
  readonly bucket: string
  readonly name: string
  /** Bytes. */
  readonly size: number
  /** Base64 of the content's MD5, as the API writes it; composite objects have none. */
  readonly md5Hash?: string
  /** Base64 of the content's CRC32C (big-endian), as the API writes it. */
  readonly crc32c: string
  /** Changes on every write of the object: an int64, as a decimal string. */
  readonly generation: string
  readonly contentType?: string
  /** The object's custom metadata. */
  readonly metadata: Readonly<Record<string, string>>
  /** RFC 3339 time of the last write. */
  readonly updated: string
}

/** What a listing under a prefix holds: the objects, and the "directories" a delimiter folded. */
export interface ObjectListing {
  /** In name order. */
  readonly objects: readonly StorageObject[]
  /** The names cut after the delimiter (with it) of the objects not listed, in order; empty without a delimiter. */
  readonly prefixes: readonly string[]
}
