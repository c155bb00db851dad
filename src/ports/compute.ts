import type {WorkloadPolicySpec} from '../core/cluster/spec.js'
import type {
  AcceleratorCount,
  ObservedReservation,
  ObservedReservationBlock,
  ReservationHealth,
} from '../core/cluster/reservations.js'
import type {RegionQuota} from '../core/doctor/checks.js'
import type {ApiError} from '../core/errors.js'

export type {RegionQuota}
export type {AcceleratorCount, ObservedReservation, ObservedReservationBlock, ReservationHealth, WorkloadPolicySpec}

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
  /** `PROVISION_ONLY` (super-slicing) or the default; absent or null when not reported. */
  readonly acceleratorTopologyMode?: string | null
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
  /** A machine type's vCPUs and memory in a zone (`machineTypes.get`); `undefined` when the zone has no such type. */
  getMachineType(project: string, zone: string, name: string): Promise<MachineTypeCapacity | undefined>
  /** A region's quotas (`regions.get`): metric, limit and usage of each; `undefined` when there is no such region. */
  getRegionQuotas(project: string, region: string): Promise<readonly RegionQuota[] | undefined>
}

/** What Compute Engine reports of a machine type, as far as Kueue's quotas need it. */
export interface MachineTypeCapacity {
  readonly name: string
  readonly guestCpus: number
  readonly memoryMb: number
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
