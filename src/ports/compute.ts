import type {WorkloadPolicySpec} from '../core/cluster/spec.js'
import type {ApiError} from '../core/errors.js'

export type {WorkloadPolicySpec}

/** A regional Compute Engine operation. */
export interface ComputeOperation {
  /** The operation's name in its region. */
  readonly name: string
  readonly done: boolean
  /** How it failed, classified (a policy of that name made meanwhile by someone else is ALREADY_EXISTS). */
  readonly error: ApiError | null
}

/** A workload policy as Compute Engine reports it; `null` for fields it left out. */
export interface ObservedWorkloadPolicy {
  readonly name: string
  readonly acceleratorTopology: string | null
  /** e.g. `HIGH_THROUGHPUT` */
  readonly type: string | null
  /** `CREATING`, `READY`, `DELETING`, `EXPIRED` or `INVALID`; pools may name it only once it is READY. */
  readonly status: string | null
}

/**
 * The part of the Compute Engine API xpk needs. Implementations throw `ApiError` (core/errors.ts: classified,
 * with hints) for API failures and do not retry: retries are the caller's job.
 */
export interface ComputeClient extends ComputeReservations {
  /** Resolves `undefined` when the policy does not exist. */
  getWorkloadPolicy(project: string, region: string, name: string): Promise<ObservedWorkloadPolicy | undefined>
  /**
   * Sends the insert of a HIGH_THROUGHPUT workload policy. Resolves its operation, or `exists` when a policy of
   * that name exists already (409: an earlier or parallel run, gcloud). Waiting is the executor's job.
   */
  insertWorkloadPolicy(spec: WorkloadPolicySpec): Promise<ComputeOperation | 'exists'>
  getRegionOperation(project: string, region: string, name: string): Promise<ComputeOperation>
}

/** An accelerator count of a reservation, e.g. `{type: 'nvidia-h100-80gb', count: 8}`. */
export interface AcceleratorCount {
  /** As Compute Engine names it: `nvidia-h100-80gb`, or a URL/path `projects/P/zones/Z/acceleratorTypes/tpu7x`. */
  readonly type: string
  readonly count: number
}

/** A reservation as Compute Engine reports it, reduced to what xpk decides with; `null` for fields it left out. */
export interface ObservedReservation {
  readonly name: string
  /** The zone's name (the API's zone URL, last segment). */
  readonly zone: string | null
  /** `CREATING`, `READY`, `UPDATING`, `DELETING` or `INVALID`; only a READY reservation gives VMs. */
  readonly status: string | null
  /** A reservation of `count` VMs of one machine type. */
  readonly specific: {
    readonly machineType: string | null
    readonly guestAccelerators: readonly AcceleratorCount[]
    /** VMs reserved. */
    readonly count: number
    /** VMs of it running now. */
    readonly inUseCount: number
    /** `AS_NEEDED`, `PERIODIC` or `RECURRENT` (instanceProperties.maintenanceInterval), when set. */
    readonly maintenanceInterval: string | null
  } | null
  /** A reservation of accelerators (TPUs or GPUs) counted in chips, not VMs. */
  readonly aggregate: {
    readonly reserved: readonly AcceleratorCount[]
    readonly inUse: readonly AcceleratorCount[]
  } | null
  /** `DENSE` (Cluster Director: blocks and sub-blocks) or `FLEXIBLE`. */
  readonly deploymentType: string | null
  /** The resource policies the reservation's VMs are placed by (values of the API's map), e.g. a compact policy. */
  readonly resourcePolicies: readonly string[]
  /** Only VMs that name the reservation may use it. */
  readonly specificReservationRequired: boolean
  /** `LOCAL`, `SPECIFIC_PROJECTS`, ... (shareSettings.shareType), when shared settings are reported. */
  readonly shareType: string | null
}

/** Health as Compute Engine reports it for blocks and sub-blocks: `HEALTHY`, `DEGRADED`, or null when unreported. */
export type ReservationHealth = string | null

/** A block (or sub-block) of a DENSE reservation: hosts it has, hosts in use, its status and health. */
export interface ObservedReservationBlock {
  readonly name: string
  readonly count: number
  readonly inUseCount: number
  /** `CREATING`, `READY`, `DELETING` or `INVALID`. */
  readonly status: string | null
  readonly health: ReservationHealth
}

/** The reservation reads of the Compute Engine API (same error contract as {@link ComputeClient}). */
export interface ComputeReservations {
  /** Resolves `undefined` when no reservation of that name is in the zone (a 404). */
  getReservation(project: string, zone: string, name: string): Promise<ObservedReservation | undefined>
  /** The blocks of a reservation (every page); `undefined` when the reservation is not there. */
  listReservationBlocks(
    project: string,
    zone: string,
    reservation: string,
  ): Promise<readonly ObservedReservationBlock[] | undefined>
  /** The sub-blocks of one block (every page); `undefined` when the reservation or block is not there. */
  listReservationSubBlocks(
    project: string,
    zone: string,
    reservation: string,
    block: string,
  ): Promise<readonly ObservedReservationBlock[] | undefined>
}
