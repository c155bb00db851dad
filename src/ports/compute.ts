import type {WorkloadPolicySpec} from '../core/cluster/spec.js'
import type {
  AcceleratorCount,
  ObservedReservation,
  ObservedReservationBlock,
  ReservationHealth,
} from '../core/cluster/reservations.js'
import type {RegionQuota} from '../core/doctor/checks.js'
import type {ApiError} from '../core/errors.js'
import type {
  FirewallAllowed,
  FirewallSpec,
  NetworkSpec,
  ObservedFirewall,
  ObservedNetwork,
  ObservedSubnetwork,
  SubnetworkSpec,
} from '../core/cluster/vpc.js'

export type {RegionQuota}
export type {
  FirewallAllowed,
  FirewallSpec,
  NetworkSpec,
  ObservedFirewall,
  ObservedNetwork,
  ObservedSubnetwork,
  SubnetworkSpec,
}
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
export interface ComputeClient extends ComputeReservations, ComputeNetworks {
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

/**
 * The VPC networks, subnetworks and firewall rules of GPU clusters (Compute Engine v1 `networks`, `subnetworks`,
 * `firewalls`). Inserts resolve their operation, or `exists` when the name is taken (409); deletes resolve their
 * operation, or `gone` when there is nothing of that name (404). Networks and firewall rules are global, so their
 * operations are read with `getGlobalOperation`; subnetworks are regional (`getRegionOperation`). A network still
 * used by a subnetwork or firewall rule is not deleted: its delete operation ends with a conflict.
 */
export interface ComputeNetworks {
  getNetwork(project: string, name: string): Promise<ObservedNetwork | undefined>
  /** Every network of the project (all pages). */
  listNetworks(project: string): Promise<readonly ObservedNetwork[]>
  insertNetwork(spec: NetworkSpec): Promise<ComputeOperation | 'exists'>
  deleteNetwork(project: string, name: string): Promise<ComputeOperation | 'gone'>
  getSubnetwork(project: string, region: string, name: string): Promise<ObservedSubnetwork | undefined>
  /** Every subnetwork of the project in the region (all pages). */
  listSubnetworks(project: string, region: string): Promise<readonly ObservedSubnetwork[]>
  insertSubnetwork(spec: SubnetworkSpec): Promise<ComputeOperation | 'exists'>
  deleteSubnetwork(project: string, region: string, name: string): Promise<ComputeOperation | 'gone'>
  getFirewall(project: string, name: string): Promise<ObservedFirewall | undefined>
  /** Every firewall rule of the project (all pages). */
  listFirewalls(project: string): Promise<readonly ObservedFirewall[]>
  insertFirewall(spec: FirewallSpec): Promise<ComputeOperation | 'exists'>
  deleteFirewall(project: string, name: string): Promise<ComputeOperation | 'gone'>
  getGlobalOperation(project: string, name: string): Promise<ComputeOperation>
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
