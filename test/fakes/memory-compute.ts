// An in-memory double of the ComputeClient port for executor and service tests: policies and operations with real
// state, every call logged (in order with the GKE calls when given their log), failures injectable. Held to the wire
// fake (FakeCompute through the REST adapter) by compute-contract.test.ts, which says what both do:
//   - A policy exists from its insert on, CREATING, and is READY once the insert's operation is DONE (after `ticks`
//     reads of it). An operation that fails takes its policy away, except one that ends ALREADY_EXISTS (another
//     creator won the race): that creator's policy stays, READY.
//   - An insert of a name that exists (in any state) is `exists`; an unknown operation is NOT_FOUND.
//   - Failures are ApiErrors classified as the adapter classifies Compute Engine's answers (gkeApiError, with
//     Compute Engine named in the hints), saying what was being done.
//   - Reservations (seeded with seedReservation, keyed by project, zone and name) read as the adapter maps Compute's
//     answer; a missing one reads as undefined, and so do the blocks and sub-blocks of a missing reservation or block.
//   - Networks, subnetworks and firewall rules exist from their insert on; an insert of a name taken is `exists`, a
//     delete of a name not there `gone`. A deleted one is there until its operation is DONE. A network that a
//     subnetwork or firewall rule still names is not deleted: the delete's operation ends FAILED_PRECONDITION
//     (Compute's RESOURCE_IN_USE_BY_ANOTHER_RESOURCE). Network and firewall operations are global, subnetwork ones
//     regional; each is DONE after `ticks` reads.
//   - A region's quotas (seedRegionQuotas) read as seeded; a region of a well-formed name has none unless seeded, and
//     one of another name (no such region) reads as undefined, as the wire fake's 404.
// One project and region for policies and operations: the project and region of those calls are not kept apart.
import {gkeApiError, GRPC_STATUS} from '../../src/core/cluster/gke-errors.js'
import type {WorkloadPolicySpec} from '../../src/core/cluster/spec.js'
import {ApiError} from '../../src/core/errors.js'
import type {
  RegionQuota,
  AcceleratorCount,
  ComputeClient,
  ComputeOperation,
  FirewallSpec,
  NetworkSpec,
  ObservedFirewall,
  ObservedNetwork,
  ObservedSubnetwork,
  SubnetworkSpec,
  ObservedReservation,
  ObservedReservationBlock,
  ObservedWorkloadPolicy,
} from '../../src/ports/compute.js'
import {DEFAULT_MACHINE_TYPES, isRegionName} from './fake-compute.js'
import {takeFault, type Fault} from './fake-server.js'

/** A call of the port. */
export type ComputeCall =
  | 'getWorkloadPolicy'
  | 'insertWorkloadPolicy'
  | 'getRegionOperation'
  | 'getMachineType'
  | 'getReservation'
  | 'listReservationBlocks'
  | 'listReservationSubBlocks'
  | 'getRegionQuotas'
  | 'getNetwork'
  | 'listNetworks'
  | 'insertNetwork'
  | 'deleteNetwork'
  | 'getSubnetwork'
  | 'listSubnetworks'
  | 'insertSubnetwork'
  | 'deleteSubnetwork'
  | 'getFirewall'
  | 'listFirewalls'
  | 'insertFirewall'
  | 'deleteFirewall'
  | 'getGlobalOperation'

/** A block or sub-block of a seeded reservation: hosts, hosts in use (default 0), status (READY) and health (HEALTHY). */
export interface BlockSeed {
  readonly name: string
  readonly count: number
  readonly inUseCount?: number
  readonly status?: string
  readonly health?: string
  readonly subBlocks?: readonly Omit<BlockSeed, 'subBlocks'>[]
}

/** A reservation to seed, the same for both fakes (status READY and counts in use 0 unless given). */
export interface ReservationSeed {
  readonly project: string
  readonly zone: string
  readonly name: string
  readonly status?: string
  readonly specific?: {
    readonly machineType: string
    readonly count: number
    readonly inUseCount?: number
    readonly guestAccelerators?: readonly AcceleratorCount[]
    readonly maintenanceInterval?: string
  }
  readonly aggregate?: {readonly reserved: readonly AcceleratorCount[]; readonly inUse?: readonly AcceleratorCount[]}
  readonly deploymentType?: string
  /** The API's map of resource policies, e.g. `{policy: 'projects/p/regions/r/resourcePolicies/compact'}`. */
  readonly resourcePolicies?: Readonly<Record<string, string>>
  readonly specificReservationRequired?: boolean
  readonly shareType?: string
  readonly blocks?: readonly BlockSeed[]
}

/** A seeded reservation as the port reports it. */
export function observedReservation(seed: ReservationSeed): ObservedReservation {
  return {
    name: seed.name,
    zone: seed.zone,
    status: seed.status ?? 'READY',
    specific: seed.specific
      ? {
          machineType: seed.specific.machineType,
          guestAccelerators: [...(seed.specific.guestAccelerators ?? [])],
          count: seed.specific.count,
          inUseCount: seed.specific.inUseCount ?? 0,
          maintenanceInterval: seed.specific.maintenanceInterval ?? null,
        }
      : null,
    aggregate: seed.aggregate
      ? {reserved: [...seed.aggregate.reserved], inUse: [...(seed.aggregate.inUse ?? [])]}
      : null,
    deploymentType: seed.deploymentType ?? null,
    resourcePolicies: Object.values(seed.resourcePolicies ?? {}),
    specificReservationRequired: seed.specificReservationRequired ?? false,
    shareType: seed.shareType ?? null,
  }
}

/** A seeded block or sub-block as the port reports it. */
export function observedBlock(seed: Omit<BlockSeed, 'subBlocks'>): ObservedReservationBlock {
  return {
    name: seed.name,
    count: seed.count,
    inUseCount: seed.inUseCount ?? 0,
    status: seed.status ?? 'READY',
    health: seed.health ?? 'HEALTHY',
  }
}

/** A failure as Compute Engine reports it, in gRPC terms: its status name and message. */
export interface ComputeFailure {
  readonly status: (typeof GRPC_STATUS)[number]
  readonly message: string
}

interface CallFault extends Fault, ComputeFailure {
  readonly call: ComputeCall
}

interface OperationRecord {
  reads: number
  readonly spec: WorkloadPolicySpec
  readonly error: ApiError | null
}

/** An operation on a network, subnetwork or firewall rule: what happens when it is DONE. */
interface VpcOperation {
  reads: number
  readonly scope: string
  readonly error: ApiError | null
  readonly onDone: () => void
}

export class MemoryCompute implements ComputeClient {
  /** The policies this fake's inserts made, in order (when their operation ended well). */
  readonly created: WorkloadPolicySpec[] = []
  readonly policies = new Map<string, ObservedWorkloadPolicy>()
  /** Every insert fails with this, as it is (a test's own error). */
  failWith: ApiError | undefined
  /** The next inserts' operations end with this error, as it is. */
  operationError: ApiError | null = null
  /**
   * Reads of an operation before it is done; and of a policy another creator left CREATING (seeded so, with no
   * insert of ours) before that creator's operation makes it READY.
   */
  ticks = 2
  private readonly ops = new Map<string, OperationRecord>()
  private readonly faults: CallFault[] = []
  private readonly operationFaults: (Fault & ComputeFailure)[] = []
  /** Reads of policies others are creating, by name. */
  private readonly othersReads = new Map<string, number>()
  /** Seeded reservations by `project/zone/name`. */
  private readonly reservations = new Map<string, ReservationSeed>()

  /** Machine types by name, in every project and zone (the wire fake's defaults unless changed). */
  readonly machineTypes = new Map<string, {guestCpus: number; memoryMb: number}>(Object.entries(DEFAULT_MACHINE_TYPES))

  /** Networks by `project/name`, subnetworks by `project/region/name`, firewall rules by `project/name`. */
  readonly networks = new Map<string, ObservedNetwork>()
  readonly subnetworks = new Map<string, ObservedSubnetwork & {readonly project: string}>()
  readonly firewalls = new Map<string, ObservedFirewall & {readonly project: string}>()
  private readonly vpcOps = new Map<string, VpcOperation>()

  constructor(private readonly log: string[] = []) {}

  /** Every network, subnetwork and firewall rule there is, as `kind project/[region/]name`, sorted. */
  vpcResources(): string[] {
    return [
      ...[...this.networks.keys()].map((k) => `network ${k}`),
      ...[...this.subnetworks.keys()].map((k) => `subnetwork ${k}`),
      ...[...this.firewalls.keys()].map((k) => `firewall ${k}`),
    ].sort()
  }

  async getNetwork(project: string, name: string): Promise<ObservedNetwork | undefined> {
    this.log.push(`getNetwork ${name}`)
    if (this.fault('getNetwork', {action: `read network ${name}`, project, location: 'global'})) return undefined
    const found = this.networks.get(`${project}/${name}`)
    return found && this.withSubnetworks(project, found)
  }

  async listNetworks(project: string): Promise<readonly ObservedNetwork[]> {
    this.log.push(`listNetworks ${project}`)
    this.fault('listNetworks', {action: 'list networks', project, location: 'global'})
    return [...this.networks.entries()]
      .filter(([k]) => k.startsWith(`${project}/`))
      .map(([, n]) => this.withSubnetworks(project, n))
  }

  async insertNetwork(spec: NetworkSpec): Promise<ComputeOperation | 'exists'> {
    this.log.push(`insertNetwork ${spec.name}`)
    const context = {action: `create network ${spec.name}`, project: spec.project, location: 'global'}
    const key = `${spec.project}/${spec.name}`
    if (this.fault('insertNetwork', context) || this.networks.has(key)) return 'exists'
    const network = {
      name: spec.name,
      mtu: spec.mtu,
      autoCreateSubnetworks: false,
      networkProfile: spec.networkProfile,
      subnetworks: [],
    }
    this.networks.set(key, network)
    return this.startVpcOperation('global', context, null, (failed) => failed && this.networks.delete(key))
  }

  async deleteNetwork(project: string, name: string): Promise<ComputeOperation | 'gone'> {
    this.log.push(`deleteNetwork ${name}`)
    const context = {action: `delete network ${name}`, project, location: 'global'}
    const key = `${project}/${name}`
    if (this.fault('deleteNetwork', context) || !this.networks.has(key)) return 'gone'
    const user =
      [...this.firewalls.values()].find((f) => f.project === project && f.network === name) ??
      [...this.subnetworks.values()].find((s) => s.project === project && s.network === name)
    const inUse = user
      ? computeError(
          {
            status: 'FAILED_PRECONDITION',
            message: `The network resource 'projects/${project}/global/networks/${name}' is already being used by '${
              'direction' in user
                ? `projects/${project}/global/firewalls/${user.name}`
                : `projects/${project}/regions/${user.region}/subnetworks/${user.name}`
            }'`,
          },
          context,
        )
      : null
    return this.startVpcOperation('global', context, inUse, (failed) => failed || this.networks.delete(key))
  }

  async getSubnetwork(project: string, region: string, name: string): Promise<ObservedSubnetwork | undefined> {
    this.log.push(`getSubnetwork ${name}`)
    if (this.fault('getSubnetwork', {action: `read subnetwork ${name}`, project, location: region})) return undefined
    const found = this.subnetworks.get(`${project}/${region}/${name}`)
    return found && withoutProject(found)
  }

  async listSubnetworks(project: string, region: string): Promise<readonly ObservedSubnetwork[]> {
    this.log.push(`listSubnetworks ${project}/${region}`)
    const context = {action: `list the subnetworks of region ${region}`, project, location: region}
    this.fault('listSubnetworks', context)
    return [...this.subnetworks.values()]
      .filter((s) => s.project === project && s.region === region)
      .map(withoutProject)
  }

  async insertSubnetwork(spec: SubnetworkSpec): Promise<ComputeOperation | 'exists'> {
    this.log.push(`insertSubnetwork ${spec.name}`)
    const context = {action: `create subnetwork ${spec.name}`, project: spec.project, location: spec.region}
    const key = `${spec.project}/${spec.region}/${spec.name}`
    if (this.fault('insertSubnetwork', context) || this.subnetworks.has(key)) return 'exists'
    if (!this.networks.has(`${spec.project}/${spec.network}`)) {
      const resource = `projects/${spec.project}/global/networks/${spec.network}`
      throw computeError({status: 'NOT_FOUND', message: `The resource '${resource}' was not found`}, context)
    }
    const {project, region, name, network, ipCidrRange} = spec
    this.subnetworks.set(key, {project, region, name, network, ipCidrRange})
    return this.startVpcOperation(region, context, null, (failed) => failed && this.subnetworks.delete(key))
  }

  async deleteSubnetwork(project: string, region: string, name: string): Promise<ComputeOperation | 'gone'> {
    this.log.push(`deleteSubnetwork ${name}`)
    const context = {action: `delete subnetwork ${name}`, project, location: region}
    const key = `${project}/${region}/${name}`
    if (this.fault('deleteSubnetwork', context) || !this.subnetworks.has(key)) return 'gone'
    return this.startVpcOperation(region, context, null, (failed) => failed || this.subnetworks.delete(key))
  }

  async getFirewall(project: string, name: string): Promise<ObservedFirewall | undefined> {
    this.log.push(`getFirewall ${name}`)
    if (this.fault('getFirewall', {action: `read firewall rule ${name}`, project, location: 'global'})) return undefined
    const found = this.firewalls.get(`${project}/${name}`)
    return found && withoutProject(found)
  }

  async listFirewalls(project: string): Promise<readonly ObservedFirewall[]> {
    this.log.push(`listFirewalls ${project}`)
    this.fault('listFirewalls', {action: 'list firewall rules', project, location: 'global'})
    return [...this.firewalls.values()].filter((f) => f.project === project).map(withoutProject)
  }

  async insertFirewall(spec: FirewallSpec): Promise<ComputeOperation | 'exists'> {
    this.log.push(`insertFirewall ${spec.name}`)
    const context = {action: `create firewall rule ${spec.name}`, project: spec.project, location: 'global'}
    const key = `${spec.project}/${spec.name}`
    if (this.fault('insertFirewall', context) || this.firewalls.has(key)) return 'exists'
    if (!this.networks.has(`${spec.project}/${spec.network}`)) {
      const resource = `projects/${spec.project}/global/networks/${spec.network}`
      throw computeError({status: 'NOT_FOUND', message: `The resource '${resource}' was not found`}, context)
    }
    this.firewalls.set(key, {
      project: spec.project,
      name: spec.name,
      network: spec.network,
      direction: 'INGRESS',
      sourceRanges: [...spec.sourceRanges],
      allowed: spec.allowed.map((a) => ({protocol: a.protocol, ports: [...a.ports]})),
    })
    return this.startVpcOperation('global', context, null, (failed) => failed && this.firewalls.delete(key))
  }

  async deleteFirewall(project: string, name: string): Promise<ComputeOperation | 'gone'> {
    this.log.push(`deleteFirewall ${name}`)
    const context = {action: `delete firewall rule ${name}`, project, location: 'global'}
    const key = `${project}/${name}`
    if (this.fault('deleteFirewall', context) || !this.firewalls.has(key)) return 'gone'
    return this.startVpcOperation('global', context, null, (failed) => failed || this.firewalls.delete(key))
  }

  async getGlobalOperation(project: string, name: string): Promise<ComputeOperation> {
    return this.readVpcOperation('global', project, name, 'getGlobalOperation')
  }

  private withSubnetworks(project: string, network: ObservedNetwork): ObservedNetwork {
    const subnetworks = [...this.subnetworks.values()]
      .filter((s) => s.project === project && s.network === network.name)
      .map((s) => `${s.region}/${s.name}`)
    return {...network, subnetworks}
  }

  /**
   * An operation on a network, subnetwork or firewall rule; `done(failed)` runs when it is DONE. Its error is the
   * given one (a network in use), else the next operation fault, else none.
   */
  private startVpcOperation(
    scope: string,
    context: {action: string; project: string; location: string},
    error: ApiError | null,
    done: (failed: boolean) => unknown,
  ): ComputeOperation {
    const name = `operation-vpc-${this.vpcOps.size + 1}`
    const failure = error ? undefined : takeFault(this.operationFaults, () => true)
    const ended = error ?? (failure ? computeError(failure, context) : null)
    this.vpcOps.set(name, {reads: 0, scope, error: ended, onDone: () => done(ended !== null)})
    return {name, done: false, error: null}
  }

  private readVpcOperation(scope: string, project: string, name: string, call: ComputeCall): ComputeOperation {
    const reading = {action: `check operation ${name}`, project, location: scope}
    this.fault(call, reading)
    const op = this.vpcOps.get(name)
    if (!op || op.scope !== scope) {
      const where = scope === 'global' ? 'global' : `regions/${scope}`
      const resource = `projects/${project}/${where}/operations/${name}`
      throw computeError({status: 'NOT_FOUND', message: `The resource '${resource}' was not found`}, reading)
    }
    if (++op.reads < this.ticks) return {name, done: false, error: null}
    if (op.reads === this.ticks) op.onDone()
    return {name, done: true, error: op.error}
  }

  async getMachineType(project: string, zone: string, name: string) {
    this.log.push(`getMachineType ${name}`)
    if (this.fault('getMachineType', {action: `read machine type ${name}`, project, location: zone})) return undefined
    const found = this.machineTypes.get(name)
    return found && {name, ...found}
  }

  /** The next `times` calls of `call` fail as Compute Engine's answer `failure` would. */
  failNext(call: ComputeCall, failure: ComputeFailure, times = 1): this {
    this.faults.push({call, ...failure, times})
    return this
  }

  /** The next insert's operation ends DONE with `failure` (ALREADY_EXISTS: another creator won the race). */
  failNextOperation(failure: ComputeFailure): this {
    this.operationFaults.push({...failure})
    return this
  }

  /** Quotas by `project/region`; a region of a well-formed name that is not here has none reported. */
  private readonly quotas = new Map<string, readonly RegionQuota[]>()

  /** Sets a region's quotas (metric, limit, usage), as the wire fake's seedRegionQuotas. */
  seedRegionQuotas(project: string, region: string, quotas: readonly RegionQuota[]): this {
    this.quotas.set(`${project}/${region}`, quotas)
    return this
  }

  async getRegionQuotas(project: string, region: string): Promise<readonly RegionQuota[] | undefined> {
    this.log.push(`getRegionQuotas ${project}/${region}`)
    if (this.fault('getRegionQuotas', {action: `read the quotas of region ${region}`, project, location: region})) {
      return undefined
    }
    if (!isRegionName(region)) return undefined
    return structuredClone([...(this.quotas.get(`${project}/${region}`) ?? [])])
  }

  /** Adds (or replaces) a reservation with its blocks and sub-blocks. */
  seedReservation(seed: ReservationSeed): this {
    this.reservations.set(`${seed.project}/${seed.zone}/${seed.name}`, seed)
    return this
  }

  async getReservation(project: string, zone: string, name: string): Promise<ObservedReservation | undefined> {
    this.log.push(`getReservation ${project}/${zone}/${name}`)
    if (this.fault('getReservation', {action: `read reservation ${name}`, project, location: zone})) return undefined
    const seed = this.reservations.get(`${project}/${zone}/${name}`)
    return seed && observedReservation(seed)
  }

  async listReservationBlocks(project: string, zone: string, reservation: string) {
    this.log.push(`listReservationBlocks ${project}/${zone}/${reservation}`)
    const context = {action: `list the blocks of reservation ${reservation}`, project, location: zone}
    if (this.fault('listReservationBlocks', context)) return undefined
    const found = this.reservations.get(`${project}/${zone}/${reservation}`)
    return found && (found.blocks ?? []).map(observedBlock)
  }

  async listReservationSubBlocks(project: string, zone: string, reservation: string, block: string) {
    this.log.push(`listReservationSubBlocks ${project}/${zone}/${reservation}/${block}`)
    const context = {
      action: `list the sub-blocks of reservation ${reservation} block ${block}`,
      project,
      location: zone,
    }
    if (this.fault('listReservationSubBlocks', context)) return undefined
    const found = this.reservations.get(`${project}/${zone}/${reservation}`)?.blocks?.find((b) => b.name === block)
    return found && (found.subBlocks ?? []).map(observedBlock)
  }

  async getWorkloadPolicy(project: string, region: string, name: string) {
    this.log.push(`getWorkloadPolicy ${name}`)
    // A 404 answer is no policy, as the adapter reads it.
    if (this.fault('getWorkloadPolicy', {action: `read workload policy ${name}`, project, location: region})) {
      return undefined
    }
    const policy = this.policies.get(name)
    if (policy?.status === 'CREATING' && ![...this.ops.values()].some((op) => op.spec.name === name)) {
      const reads = (this.othersReads.get(name) ?? 0) + 1
      this.othersReads.set(name, reads)
      if (reads > this.ticks) this.policies.set(name, {...policy, status: 'READY'})
    }
    const found = this.policies.get(name)
    return found && {...found}
  }

  async insertWorkloadPolicy(spec: WorkloadPolicySpec): Promise<ComputeOperation | 'exists'> {
    this.log.push(`createWorkloadPolicy ${spec.name}`)
    if (this.failWith) throw this.failWith
    const context = {action: `create workload policy ${spec.name}`, project: spec.project, location: spec.region}
    // A 409 answer is a policy of the name, as the adapter reads it.
    if (this.fault('insertWorkloadPolicy', context) || this.policies.has(spec.name)) return 'exists'
    const name = `operation-${this.ops.size + 1}`
    const failure = takeFault(this.operationFaults, () => true)
    this.ops.set(name, {reads: 0, spec, error: failure ? computeError(failure, context) : this.operationError})
    this.policies.set(spec.name, {
      name: spec.name,
      acceleratorTopology: spec.acceleratorTopology,
      ...(spec.acceleratorTopologyMode ? {acceleratorTopologyMode: spec.acceleratorTopologyMode} : {}),
      type: 'HIGH_THROUGHPUT',
      status: 'CREATING',
    })
    return {name, done: false, error: null}
  }

  async getRegionOperation(project: string, region: string, name: string): Promise<ComputeOperation> {
    if (name.startsWith('operation-vpc-')) return this.readVpcOperation(region, project, name, 'getRegionOperation')
    const reading = {action: `check operation ${name}`, project, location: region}
    this.fault('getRegionOperation', reading)
    const op = this.ops.get(name)
    if (!op) {
      const resource = `projects/${project}/regions/${region}/operations/${name}`
      throw computeError({status: 'NOT_FOUND', message: `The resource '${resource}' was not found`}, reading)
    }
    if (++op.reads < this.ticks) return {name, done: false, error: null}
    if (op.reads === this.ticks) this.finish(op)
    return {name, done: true, error: op.error}
  }

  /** The operation ends: its policy READY, or gone when it failed (but for a race another creator won). */
  private finish(op: OperationRecord): void {
    const policy = this.policies.get(op.spec.name)
    if (op.error === null) {
      this.created.push(op.spec)
      if (policy) this.policies.set(op.spec.name, {...policy, status: 'READY'})
    } else if (op.error.status === 'ALREADY_EXISTS') {
      if (policy) this.policies.set(op.spec.name, {...policy, status: 'READY'})
    } else {
      this.policies.delete(op.spec.name)
    }
  }

  /**
   * Throws the injected failure of `call`, but for the answers the adapter reads as results: true for a 404 to a
   * read of a policy and a 409 to an insert.
   */
  private fault(call: ComputeCall, context: {action: string; project: string; location: string}): boolean {
    const fault = takeFault(this.faults, (f) => f.call === call)
    if (!fault) return false
    // A 404 to a read (but of an operation or a whole list) or a delete is nothing there, a 409 to an insert a name
    // taken: the adapter's results.
    const absentOn404 = !call.endsWith('Operation') && !call.startsWith('insert') && !VPC_LISTS.has(call)
    if (absentOn404 && fault.status === 'NOT_FOUND') return true
    if (call.startsWith('insert') && fault.status === 'ALREADY_EXISTS') return true
    throw computeError(fault, context)
  }
}

const VPC_LISTS: ReadonlySet<ComputeCall> = new Set(['listNetworks', 'listSubnetworks', 'listFirewalls'])

function withoutProject<T extends {readonly project: string}>(value: T): Omit<T, 'project'> {
  const {project: _project, ...rest} = value
  return rest
}

/** A Compute Engine failure as the REST adapter classifies it. */
function computeError(failure: ComputeFailure, context: {action: string; project: string; location: string}) {
  const error = gkeApiError({code: GRPC_STATUS.indexOf(failure.status), message: failure.message}, context)
  return new ApiError(error.kind, error.message, {
    status: error.status,
    retryable: error.retryable,
    hints: error.hints.map((hint) => hint.replace(/^GKE\b/, 'Compute Engine')),
  })
}
