/** TPU VMs in xpk's terms: nodes (slices), their workers, and queued resources. */

/** Where TPU VMs live: a project and a zone. */
export interface TpuLocation {
  readonly project: string
  readonly zone: string
}

/** How a queued resource gets its capacity. */
export type TpuCapacity = 'on-demand' | 'reserved' | 'spot' | 'best-effort'

export type QueuedResourceState =
  | 'CREATING'
  | 'ACCEPTED'
  | 'PROVISIONING'
  | 'FAILED'
  | 'DELETING'
  | 'ACTIVE'
  | 'SUSPENDING'
  | 'SUSPENDED'
  | 'WAITING_FOR_RESOURCES'
  | 'STATE_UNSPECIFIED'

/** One worker VM of a slice, from the node's network endpoints. */
export interface TpuWorker {
  readonly internalIp: string
  /** Set when the node has external IPs. */
  readonly externalIp?: string
}

/** A TPU node (one slice) as xpk needs it. */
export interface TpuNode {
  /** The node id (last segment of its name). */
  readonly id: string
  /** The API's unique numeric id: differs when a node is deleted and created again under the same name. */
  readonly uid?: string
  readonly acceleratorType: string
  readonly runtimeVersion: string
  /** CREATING, READY, DELETING, PREEMPTED, ... */
  readonly state: string
  /** The queued resource id that created it, if any. */
  readonly queuedResource?: string
  /** Workers in order: worker i is endpoint i. */
  readonly workers: readonly TpuWorker[]
  readonly metadata: Readonly<Record<string, string>>
}

/** A queued resource: a request for one or more slices. */
export interface QueuedResource {
  readonly id: string
  readonly state: QueuedResourceState
  /** Why it FAILED, as the API reports it (gRPC status code and message). */
  readonly failure?: {readonly code: number; readonly message: string}
  /** The node ids it creates (or created). */
  readonly nodeIds: readonly string[]
  readonly acceleratorType: string
  readonly runtimeVersion: string
  readonly capacity: TpuCapacity
}

/** What `xpk vm create` asks for. */
export interface QueuedResourceRequest {
  readonly id: string
  readonly nodePrefix: string
  readonly numSlices: number
  readonly acceleratorType: string
  readonly runtimeVersion: string
  readonly capacity: TpuCapacity
  /** Reservation to use with `reserved` capacity (full name or short name); the default reservation otherwise. */
  readonly reservation?: string
  readonly metadata?: Readonly<Record<string, string>>
}

/**
 * How a TPU VM created directly (not through a queued resource) gets its capacity: on demand, Spot, or the older
 * preemptible VMs (the node's `schedulingConfig.spot` or `.preemptible`). jobman's `pricing` names them ondemand, spot
 * and preemptible.
 */
export type NodeCapacity = 'on-demand' | 'spot' | 'preemptible'

/** What creating a TPU VM directly asks for (jobman's `allocation_mode: tpu-vm`; CreateNode of the TPU API). */
export interface NodeRequest {
  /** The node id: lowercase letters, digits and hyphens, starting with a letter. */
  readonly id: string
  readonly acceleratorType: string
  readonly runtimeVersion: string
  readonly capacity: NodeCapacity
  /** The node's metadata; the startup script, when given, is added to it as `startup-script`. */
  readonly metadata?: Readonly<Record<string, string>>
  /** The startup script every worker runs at boot (metadata `startup-script`, which it replaces if both name it). */
  readonly startupScript?: string
  /** Network tags (firewall rules select the workers by them). */
  readonly tags?: readonly string[]
  readonly labels?: Readonly<Record<string, string>>
}
