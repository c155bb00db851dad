import type {ApiError} from '../core/errors.js'

export type {ApiError}

// The domain types live in the core (its planners and renderers use them); the port speaks in them.
export type {
  NodeCapacity,
  NodeRequest,
  QueuedResource,
  QueuedResourceRequest,
  QueuedResourceState,
  TpuCapacity,
  TpuLocation,
  TpuNode,
  TpuWorker,
} from '../core/vm/types.js'
import type {NodeRequest, QueuedResource, QueuedResourceRequest, TpuLocation, TpuNode} from '../core/vm/types.js'

/** A long-running operation of the TPU API. */
export interface TpuOperation {
  readonly name: string
  readonly done: boolean
  readonly error?: {readonly code: number; readonly message: string}
}

/**
 * The Cloud TPU v2 API in xpk's terms. Implementations throw {@link ApiError} (classified, with hints) and resolve
 * `undefined` from `get*` when the resource does not exist. No call retries by itself: services decide.
 */
export interface TpuClient {
  listNodes(location: TpuLocation): Promise<TpuNode[]>
  getNode(location: TpuLocation, id: string): Promise<TpuNode | undefined>
  /**
   * Creates a TPU VM directly (CreateNode). The node exists at once, CREATING; the operation is done when it is
   * READY, or ends with an error (e.g. no capacity, RESOURCE_EXHAUSTED) and the node is gone.
   */
  createNode(location: TpuLocation, request: NodeRequest): Promise<TpuOperation>
  /** Deletes a node (DeleteNode): DELETING, then gone when the operation is done. */
  deleteNode(location: TpuLocation, id: string): Promise<TpuOperation>
  listQueuedResources(location: TpuLocation): Promise<QueuedResource[]>
  getQueuedResource(location: TpuLocation, id: string): Promise<QueuedResource | undefined>
  createQueuedResource(location: TpuLocation, request: QueuedResourceRequest): Promise<TpuOperation>
  /** With `force`, also deletes the nodes the queued resource created. */
  deleteQueuedResource(location: TpuLocation, id: string, force: boolean): Promise<TpuOperation>
  /** Replaces the node's metadata with `metadata` (UpdateNode with update mask `metadata`). */
  setNodeMetadata(location: TpuLocation, id: string, metadata: Readonly<Record<string, string>>): Promise<TpuOperation>
  getOperation(name: string): Promise<TpuOperation>
  close(): Promise<void>
}
