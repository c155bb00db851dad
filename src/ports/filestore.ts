import type {
  FilestoreInstance,
  FilestoreInstanceRequest,
  FilestoreLocation,
  FilestoreOperation,
} from '../core/storage/backends.js'

export type {FilestoreInstance, FilestoreInstanceRequest, FilestoreLocation, FilestoreOperation}

/**
 * The Filestore API (file.googleapis.com/v1) in xpk's terms. Implementations throw ApiError (classified, with hints)
 * and resolve `undefined` from `getInstance` when the instance does not exist. No call retries by itself.
 */
export interface FilestoreClient {
  getInstance(location: FilestoreLocation, id: string): Promise<FilestoreInstance | undefined>
  createInstance(
    location: FilestoreLocation,
    id: string,
    request: FilestoreInstanceRequest,
  ): Promise<FilestoreOperation>
  deleteInstance(location: FilestoreLocation, id: string): Promise<FilestoreOperation>
  getOperation(name: string): Promise<FilestoreOperation>
  close(): Promise<void>
}
