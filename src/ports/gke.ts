import type {ObservedCluster, ObservedNodePool, ServerConfig} from '../core/cluster/observed.js'
import type {ClusterSpec, ClusterUpdate, NodePoolSpec, NodePoolUpdate} from '../core/cluster/spec.js'
import type {ApiError} from '../core/errors.js'

export type {ObservedCluster, ObservedNodePool, ServerConfig}

/** Identifies a cluster: a location is a region (xpk's clusters) or a zone (clusters made elsewhere). */
export interface ClusterRef {
  readonly project: string
  readonly location: string
  readonly name: string
}

/** How node pools are read: `hostMaintenance` asks for their host maintenance interval (one v1beta1 read). */
export interface NodePoolReadOptions {
  readonly hostMaintenance?: boolean
}

/** A GKE long-running operation. */
export interface GkeOperation {
  /** Full name: projects/P/locations/L/operations/ID. */
  readonly name: string
  readonly type: string
  readonly status: 'PENDING' | 'RUNNING' | 'DONE' | 'ABORTING'
  /** Set when the operation finished with an error (stockout, quota, ...). */
  readonly error: ApiError | null
}

/**
 * The ClusterManager API in xpk's terms. Implementations throw {@link ApiError} (classified, with hints) for API
 * failures and resolve `undefined` from `get*` when the resource does not exist.
 */
export interface GkeClient {
  getServerConfig(project: string, location: string): Promise<ServerConfig>
  /** All clusters of the project, or of one location. */
  listClusters(project: string, location?: string): Promise<ObservedCluster[]>
  getCluster(ref: ClusterRef): Promise<ObservedCluster | undefined>
  createCluster(spec: ClusterSpec): Promise<GkeOperation>
  deleteCluster(ref: ClusterRef): Promise<GkeOperation>
  /**
   * Replaces the cluster's resource labels (SetLabels), if `fingerprint` is the `labelFingerprint` of the labels it
   * replaces: when they changed since it was read, GKE refuses (an ApiError that {@link isLabelFingerprintMismatch}
   * recognises) and nothing changes. xpk's cluster lock rests on this (core/cluster/lock.ts).
   */
  setResourceLabels(
    ref: ClusterRef,
    labels: Readonly<Record<string, string>>,
    fingerprint: string,
  ): Promise<GkeOperation>
  /**
   * Changes an existing cluster (UpdateCluster): one change per request, and GKE refuses it (FAILED_PRECONDITION,
   * "incompatible operation") while any other operation runs on the cluster; node-pool changes wait for it alike.
   */
  updateCluster(ref: ClusterRef, update: ClusterUpdate): Promise<GkeOperation>
  /**
   * The cluster's node pools. With `hostMaintenance`, read through GKE's v1beta1 API so that each carries its
   * `hostMaintenanceInterval`; otherwise through v1, which does not report it (the field is left out).
   */
  listNodePools(ref: ClusterRef, options?: NodePoolReadOptions): Promise<ObservedNodePool[]>
  getNodePool(ref: ClusterRef, name: string, options?: NodePoolReadOptions): Promise<ObservedNodePool | undefined>
  /** Through v1, or through v1beta1 when the spec asks for PERIODIC host maintenance (a field only v1beta1 has). */
  createNodePool(ref: ClusterRef, spec: NodePoolSpec): Promise<GkeOperation>
  deleteNodePool(ref: ClusterRef, name: string): Promise<GkeOperation>
  /** Changes an existing node pool in place (UpdateNodePool); GKE recreates its nodes. */
  updateNodePool(ref: ClusterRef, name: string, update: NodePoolUpdate): Promise<GkeOperation>
  getOperation(project: string, location: string, name: string): Promise<GkeOperation>
  /** Recent operations of a location (GKE keeps finished ones for a while): one call to watch many. */
  listOperations(project: string, location: string): Promise<GkeOperation[]>
  close(): Promise<void>
}
