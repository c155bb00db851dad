// A test double of the few Compute Engine REST v1 endpoints xpk uses (workload policies, reservations), served over real HTTP on
// loopback so the production adapter (fetch, JSON, status codes, operation polling) runs against it unmodified.
// Behaviour spec: fake-compute.md next to this file.
import {
  googleErrorBody,
  HttpAnswer,
  JsonRestFake,
  takeFault,
  type HttpCall,
  type HttpFaultMatch,
} from './fake-server.js'
import type {BlockSeed, ReservationSeed} from './memory-compute.js'

export type {BlockSeed, ReservationSeed}

export type PolicyStatus = 'CREATING' | 'READY' | 'DELETING' | 'EXPIRED' | 'INVALID'
export type OperationStatus = 'RUNNING' | 'DONE'

export interface PolicyState {
  kind: 'compute#resourcePolicy'
  id: string
  name: string
  region: string
  selfLink: string
  creationTimestamp: string
  status: PolicyStatus
  workloadPolicy: {type: string; acceleratorTopology?: string; acceleratorTopologyMode?: string}
  [field: string]: unknown
}

export interface OperationState {
  kind: 'compute#operation'
  id: string
  name: string
  operationType: 'insert' | 'delete'
  targetLink: string
  targetId: string
  status: OperationStatus
  user: string
  progress: number
  insertTime: string
  startTime: string
  endTime?: string
  selfLink: string
  /** Regional operations only (workload policies, subnetworks); networks and firewall rules have global ones. */
  region?: string
  error?: {errors: {code: string; message: string}[]}
  httpErrorStatusCode?: number
  httpErrorMessage?: string
}

export interface FakeComputeOptions {
  /** How long every operation stays RUNNING. 0: the insert answers DONE. Infinity: until finishOperations(). */
  operationMs?: number
  /** When set, every request must carry `Authorization: Bearer <token>`; others get 401. */
  requireToken?: string
  /** Items per page of a list without maxResults (Compute's default: 500). */
  pageSize?: number
}

export type FakeComputeSettings = {operationMs: number; requireToken: string | undefined; pageSize: number}

/** A request, as the log keeps it (`path` below `/compute/v1/`). */
export type ComputeCall = HttpCall

/** An HTTP-level fault (`times`, `delayMs` and `afterApply` as every fake's: fake-server.ts). */
export interface HttpFault extends HttpFaultMatch {
  /** Answer with this status and a Google JSON error. Omit to only delay the request by delayMs. */
  status?: number
  message?: string
  /** errors[0].reason of the body. Default: the usual reason for the status. */
  reason?: string
  /** Only requests with this method. */
  method?: 'GET' | 'POST' | 'DELETE'
  /** Sent verbatim instead of the Google JSON error, e.g. a proxy's HTML page. */
  rawBody?: string
}

export interface OperationTarget {
  project: string
  /** `global` for networks and firewall rules. */
  region: string
  name: string
  body: Record<string, unknown>
  /** What the operation does, e.g. `insert networks`, `delete subnetworks`; `insert resourcePolicies`. */
  does: string
}

export interface OperationFault {
  match?: (target: OperationTarget) => boolean
  /** Default [{code: 'INTERNAL_ERROR', message: 'Internal error. Please try again later.'}]. */
  errors?: {code: string; message: string}[]
  /** Default 500 (or 403 for QUOTA_EXCEEDED, 400 for INVALID_FIELD_VALUE). */
  httpErrorStatusCode?: number
  /** Counts down as the fault is consumed; the fault is removed at 0. Default 1. */
  times?: number
  durationMs?: number
}

export interface SeedPolicy {
  project: string
  region: string
  name: string
  acceleratorTopology?: string
  /** `PROVISION_ONLY` (super-slicing) or `AUTO_CONNECT`; unset by default. */
  acceleratorTopologyMode?: string
  /** Default HIGH_THROUGHPUT. */
  type?: string
  status?: PolicyStatus
}

/** A machine type the fake answers for in every zone (`machineTypes.get`), unless seeded otherwise. */
export interface MachineTypeState {
  kind: 'compute#machineType'
  name: string
  zone: string
  guestCpus: number
  memoryMb: number
  selfLink: string
}

/**
 * Machine types every zone of the fake has, with Compute Engine's vCPUs and memory (MB) for them; seedMachineType
 * adds or replaces one for a project and zone.
 */
export const DEFAULT_MACHINE_TYPES: Readonly<Record<string, {guestCpus: number; memoryMb: number}>> = {
  'ct5p-hightpu-4t': {guestCpus: 208, memoryMb: 458752},
  'ct5lp-hightpu-4t': {guestCpus: 112, memoryMb: 196608},
  'a3-highgpu-8g': {guestCpus: 208, memoryMb: 1916928},
  'n2-standard-32': {guestCpus: 32, memoryMb: 131072},
  'n2-standard-64': {guestCpus: 64, memoryMb: 262144},
  'e2-standard-16': {guestCpus: 16, memoryMb: 65536},
}
/** The workload policy's accelerator topology modes (Compute v1 enum). */
const TOPOLOGY_MODES = new Set(['AUTO_CONNECT', 'PROVISION_ONLY'])

const API_ROOT = '/compute/v1/'
const SELF = 'https://www.googleapis.com/compute/v1/'
const NAME_RE = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/
const REGION_RE = /^[a-z]+(?:-[a-z]+)?\d+$/

/** Whether a region of this name exists here: any of the well-formed names (us-central2, europe-west4). */
export function isRegionName(region: string): boolean {
  return REGION_RE.test(region)
}
const ZONE_RE = /^[a-z]+(?:-[a-z]+)?\d+-[a-z]$/
const TOPOLOGY_RE = /^\d+x\d+(?:x\d+)?$/
const POLICY_TYPES = new Set(['HIGH_THROUGHPUT', 'HIGH_AVAILABILITY'])

/** Errors Compute Engine reports, worded and coded as it does. */
export const computeErrors = {
  permissionDenied(permission = 'compute.resourcePolicies.create', resource = 'projects/p'): HttpFault {
    return {status: 403, reason: 'forbidden', message: `Required '${permission}' permission for '${resource}'`}
  },
  apiDisabled(project: string): HttpFault {
    return {
      status: 403,
      reason: 'accessNotConfigured',
      message:
        `Compute Engine API has not been used in project ${project} before or it is disabled. Enable it by visiting ` +
        `https://console.developers.google.com/apis/api/compute.googleapis.com/overview?project=${project} then retry.`,
    }
  },
  rateLimited(): HttpFault {
    return {status: 403, reason: 'rateLimitExceeded', message: 'Rate Limit Exceeded'}
  },
  quotaExceeded(metric: string, region: string, limit = 10): HttpFault {
    return {
      status: 403,
      reason: 'quotaExceeded',
      message: `Quota '${metric}' exceeded.  Limit: ${limit.toFixed(1)} in region ${region}.`,
    }
  },
}

/** An error answer: Google's JSON error body. */
class HttpError extends HttpAnswer {
  constructor(status: number, message: string, reason?: string) {
    super(status, googleErrorBody(status, message, reason))
  }
}

const policyKey = (project: string, region: string, name: string) =>
  `projects/${project}/regions/${region}/resourcePolicies/${name}`

interface OpRecord {
  op: OperationState
  project: string
  key: string
  failure?: {errors: {code: string; message: string}[]; httpErrorStatusCode: number}
  /** Networks, subnetworks and firewall rules: what happens to the resource when the operation is DONE. */
  onDone?: (failed: boolean) => void
}

/** A network as Compute sends it (`subnetworks` filled in when read). */
export interface NetworkState {
  kind: 'compute#network'
  id: string
  name: string
  selfLink: string
  creationTimestamp: string
  autoCreateSubnetworks: boolean
  mtu: number
  networkProfile?: string
  routingConfig: {routingMode: string}
  [field: string]: unknown
}

export interface SubnetworkState {
  kind: 'compute#subnetwork'
  id: string
  name: string
  selfLink: string
  creationTimestamp: string
  network: string
  region: string
  ipCidrRange: string
  gatewayAddress: string
  [field: string]: unknown
}

export interface FirewallState {
  kind: 'compute#firewall'
  id: string
  name: string
  selfLink: string
  creationTimestamp: string
  network: string
  direction: string
  priority: number
  sourceRanges: string[]
  allowed: {IPProtocol: string; ports?: string[]}[]
  disabled: boolean
  [field: string]: unknown
}

/** What the fake's VPC inserts accept: a dotted IPv4 CIDR. */
const CIDR_RE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/
const PROTOCOLS = new Set(['tcp', 'udp', 'icmp', 'esp', 'ah', 'sctp', 'ipip', 'all'])

/** A CIDR's first and last address as numbers; undefined when it is not one. */
function cidrSpan(cidr: string): [number, number] | undefined {
  const m = CIDR_RE.exec(cidr)
  if (!m) return undefined
  const octets = m.slice(1, 5).map(Number)
  const bits = Number(m[5])
  if (octets.some((o) => o > 255) || bits > 32) return undefined
  const base = octets.reduce((a, o) => a * 256 + o, 0)
  const size = 2 ** (32 - bits)
  if (base % size !== 0) return undefined
  return [base, base + size - 1]
}

export class FakeCompute extends JsonRestFake<HttpFault, OpRecord, OperationFault> {
  settings: FakeComputeSettings
  protected readonly root = API_ROOT

  private readonly policyMap = new Map<string, PolicyState>()
  /** Reservations as Compute sends them, with their blocks and sub-blocks, by `projects/P/zones/Z/reservations/N`. */
  private readonly reservationMap = new Map<string, {rest: Record<string, unknown>; blocks: BlockSeed[]}>()
  /** Seeded machine types by `projects/P/zones/Z/machineTypes/N`; `null` hides a default one. */
  private readonly machineTypeMap = new Map<string, {guestCpus: number; memoryMb: number} | null>()
  private readonly ops = new Map<string, OpRecord>()
  /** Networks and firewall rules by `projects/P/global/{networks,firewalls}/N`, subnetworks by their regional path. */
  private readonly networkMap = new Map<string, NetworkState>()
  private readonly subnetworkMap = new Map<string, SubnetworkState>()
  private readonly firewallMap = new Map<string, FirewallState>()
  /** Seeded quotas by `projects/P/regions/R`; a region not here reports none. */
  private readonly quotaMap = new Map<string, {metric: string; limit: number; usage: number}[]>()
  private opCounter = 0
  private idCounter = 0

  private constructor(private readonly options: FakeComputeOptions) {
    super()
    this.settings = resolveSettings(options)
  }

  static start(options: FakeComputeOptions = {}): Promise<FakeCompute> {
    return new FakeCompute(options).listen('fake-compute')
  }

  /** Back to the state right after start(): no policies, operations, calls or faults; settings as started. */
  reset(): void {
    this.policyMap.clear()
    this.reservationMap.clear()
    this.machineTypeMap.clear()
    this.quotaMap.clear()
    this.networkMap.clear()
    this.subnetworkMap.clear()
    this.firewallMap.clear()
    this.ops.clear()
    this.forget()
    this.opCounter = 0
    this.idCounter = 0
    this.settings = resolveSettings(this.options)
  }

  /** Completes running operations now, as if their time had come. */
  finishOperations(filter?: (op: OperationState) => boolean): void {
    for (const rec of this.active.all()) if (!filter || filter(structuredClone(rec.op))) this.finish(rec)
  }

  seedPolicy(seed: SeedPolicy): PolicyState {
    const key = policyKey(seed.project, seed.region, seed.name)
    if (this.policyMap.has(key)) throw new Error(`seedPolicy: ${key} already exists`)
    const policy = this.newPolicy(seed.project, seed.region, seed.name, {
      type: seed.type ?? 'HIGH_THROUGHPUT',
      ...(seed.acceleratorTopology ? {acceleratorTopology: seed.acceleratorTopology} : {}),
      ...(seed.acceleratorTopologyMode ? {acceleratorTopologyMode: seed.acceleratorTopologyMode} : {}),
    })
    policy.status = seed.status ?? 'READY'
    this.policyMap.set(key, policy)
    return structuredClone(policy)
  }

  /**
   * Adds (or replaces) a reservation with its blocks and sub-blocks (no call logged). Counts are sent as Compute
   * sends them: int64 fields of the reservation as strings, the blocks' int32 counts as numbers.
   */
  seedReservation(seed: ReservationSeed): Record<string, unknown> {
    const key = `projects/${seed.project}/zones/${seed.zone}/reservations/${seed.name}`
    const accelerator = (a: {type: string; count: number}) => ({acceleratorType: a.type, acceleratorCount: a.count})
    const rest: Record<string, unknown> = {
      kind: 'compute#reservation',
      id: this.nextId(),
      creationTimestamp: new Date().toISOString(),
      selfLink: SELF + key,
      zone: `${SELF}projects/${seed.project}/zones/${seed.zone}`,
      name: seed.name,
      status: seed.status ?? 'READY',
      specificReservationRequired: seed.specificReservationRequired ?? false,
      ...(seed.specific
        ? {
            specificReservation: {
              count: String(seed.specific.count),
              inUseCount: String(seed.specific.inUseCount ?? 0),
              instanceProperties: {
                machineType: seed.specific.machineType,
                ...(seed.specific.guestAccelerators
                  ? {guestAccelerators: seed.specific.guestAccelerators.map(accelerator)}
                  : {}),
                ...(seed.specific.maintenanceInterval ? {maintenanceInterval: seed.specific.maintenanceInterval} : {}),
              },
            },
          }
        : {}),
      ...(seed.aggregate
        ? {
            aggregateReservation: {
              vmFamily: 'VM_FAMILY_CLOUD_TPU_POD_SLICE_CT5P',
              reservedResources: seed.aggregate.reserved.map((a) => ({accelerator: accelerator(a)})),
              inUseResources: (seed.aggregate.inUse ?? []).map((a) => ({accelerator: accelerator(a)})),
            },
          }
        : {}),
      ...(seed.deploymentType ? {deploymentType: seed.deploymentType} : {}),
      ...(seed.resourcePolicies ? {resourcePolicies: {...seed.resourcePolicies}} : {}),
      ...(seed.shareType ? {shareSettings: {shareType: seed.shareType}} : {}),
    }
    this.reservationMap.set(key, {rest, blocks: structuredClone([...(seed.blocks ?? [])])})
    return structuredClone(rest)
  }

  /** Sets a region's quotas, as `regions.get` answers them (limit and usage as doubles). */
  seedRegionQuotas(project: string, region: string, quotas: {metric: string; limit: number; usage: number}[]): void {
    this.quotaMap.set(`projects/${project}/regions/${region}`, structuredClone(quotas))
  }

  /** Gives a zone of a project a machine type (or, with `null`, takes away one of the defaults). */
  seedMachineType(
    project: string,
    zone: string,
    name: string,
    capacity: {guestCpus: number; memoryMb: number} | null,
  ): void {
    this.machineTypeMap.set(`projects/${project}/zones/${zone}/machineTypes/${name}`, capacity)
  }

  /** Changes a policy's status as another actor would (finishing or deleting it); `undefined` removes it. */
  setPolicyStatus(project: string, region: string, name: string, status: PolicyStatus | undefined): void {
    const key = policyKey(project, region, name)
    const policy = this.policyMap.get(key)
    if (!policy) throw new Error(`setPolicyStatus: ${key} does not exist`)
    if (status === undefined) this.policyMap.delete(key)
    else policy.status = status
  }

  policy(project: string, region: string, name: string): PolicyState | undefined {
    const found = this.policyMap.get(policyKey(project, region, name))
    return found && structuredClone(found)
  }

  policies(): PolicyState[] {
    return [...this.policyMap.values()].map((p) => structuredClone(p))
  }

  /** Snapshots of the VPC resources, as a GET answers them. */
  networks(): NetworkState[] {
    return [...this.networkMap.values()].map((n) => this.networkAnswer(n))
  }

  subnetworks(): SubnetworkState[] {
    return [...this.subnetworkMap.values()].map((n) => structuredClone(n))
  }

  firewalls(): FirewallState[] {
    return [...this.firewallMap.values()].map((n) => structuredClone(n))
  }

  /** Every network, subnetwork and firewall rule there is, as `kind path`, sorted (a test's view of what is left). */
  vpcResources(): string[] {
    return [
      ...[...this.networkMap.keys()].map((k) => `network ${k}`),
      ...[...this.subnetworkMap.keys()].map((k) => `subnetwork ${k}`),
      ...[...this.firewallMap.keys()].map((k) => `firewall ${k}`),
    ].sort()
  }

  /** Adds a network as another actor would (no operation, no call logged); `subnetMode` custom unless `auto`. */
  seedNetwork(seed: {
    project: string
    name: string
    mtu?: number
    networkProfile?: string
    subnetMode?: 'auto' | 'custom'
  }): void {
    const key = `projects/${seed.project}/global/networks/${seed.name}`
    this.networkMap.set(key, {
      ...this.resourceBase('compute#network', key, seed.name),
      autoCreateSubnetworks: seed.subnetMode === 'auto',
      mtu: seed.mtu ?? 1460,
      ...(seed.networkProfile
        ? {networkProfile: `${SELF}projects/${seed.project}/global/networkProfiles/${seed.networkProfile}`}
        : {}),
      routingConfig: {routingMode: 'REGIONAL'},
    } as NetworkState)
  }

  operation(name: string): OperationState | undefined {
    const found = this.ops.get(name)
    return found && structuredClone(found.op)
  }

  operations(): OperationState[] {
    return [...this.ops.values()].map((r) => structuredClone(r.op))
  }

  protected faultAnswer({status, message, rawBody, reason}: HttpFault): HttpAnswer | undefined {
    if (status === undefined) return undefined
    return new HttpAnswer(
      status,
      rawBody ?? googleErrorBody(status, message ?? `Injected fault: HTTP ${status}.`, reason),
    )
  }

  protected route(call: ComputeCall, text: string, pathname: string): object {
    const token = this.settings.requireToken
    if (token !== undefined && call.authorization !== `Bearer ${token}`) {
      throw call.authorization
        ? new HttpError(401, 'Invalid Credentials', 'authError')
        : new HttpError(
            401,
            'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
            'required',
          )
    }
    const unknown = () => new HttpError(404, `The fake does not serve ${call.method} ${pathname}.`)
    if (!pathname.startsWith(API_ROOT)) throw unknown()
    const parts = call.path.split('/').map(decodeURIComponent)
    if (parts.length === 6 && parts[0] === 'projects' && parts[2] === 'zones' && parts[4] === 'machineTypes') {
      if (call.method !== 'GET') throw unknown()
      return this.machineType(parts[1]!, parts[3]!, parts[5]!)
    }
    if (parts.length >= 5 && parts[0] === 'projects' && parts[2] === 'zones' && call.method === 'GET') {
      const answer = this.reservationRoute(parts, call.query)
      if (answer === undefined) throw unknown()
      return answer
    }
    if (parts.length === 4 && parts[0] === 'projects' && parts[2] === 'regions' && call.method === 'GET') {
      return this.region(parts[1]!, parts[3]!, call.query.fields)
    }
    if (parts.length >= 4 && parts[0] === 'projects' && parts[2] === 'global') {
      const answer = this.globalRoute(call, text, parts)
      if (answer === undefined) throw unknown()
      return answer
    }
    if (parts.length < 5 || parts[0] !== 'projects' || parts[2] !== 'regions') throw unknown()
    const [, project, , region, collection, id, ...rest] = parts as [
      string,
      string,
      string,
      string,
      string,
      ...string[],
    ]
    if (!REGION_RE.test(region))
      throw new HttpError(400, `Invalid value for field 'region': '${region}'. Unknown region.`)
    if (rest.length > 0) throw unknown()
    if (collection === 'resourcePolicies' && id !== undefined && call.method === 'GET') {
      const policy = this.policyMap.get(policyKey(project, region, id))
      if (!policy) throw notFound(policyKey(project, region, id))
      return policy
    }
    if (collection === 'resourcePolicies' && id === undefined && call.method === 'POST') {
      return this.insert(project, region, text)
    }
    if (collection === 'subnetworks') {
      const answer = this.subnetworkRoute(call, text, project, region, id)
      if (answer === undefined) throw unknown()
      return answer
    }
    if (collection === 'operations' && id !== undefined && call.method === 'GET') {
      const rec = this.ops.get(id)
      if (!rec || rec.project !== project || !rec.op.region?.endsWith(`/regions/${region}`)) {
        throw notFound(`projects/${project}/regions/${region}/operations/${id}`)
      }
      return rec.op
    }
    throw unknown()
  }

  /** `projects/P/global/...`: networks, firewall rules and global operations; undefined for anything else. */
  private globalRoute(call: ComputeCall, text: string, parts: string[]): object | undefined {
    const [, project, , collection, id, ...rest] = parts as [string, string, string, string, string | undefined]
    if (rest.length > 0) return undefined
    if (collection === 'operations' && id !== undefined && call.method === 'GET') {
      const rec = this.ops.get(id)
      if (!rec || rec.project !== project || rec.op.region !== undefined) {
        throw notFound(`projects/${project}/global/operations/${id}`)
      }
      return rec.op
    }
    if (collection !== 'networks' && collection !== 'firewalls') return undefined
    const map = collection === 'networks' ? this.networkMap : this.firewallMap
    const prefix = `projects/${project}/global/${collection}`
    if (id === undefined && call.method === 'GET') {
      const items = [...map.entries()]
        .filter(([k]) => k.startsWith(`${prefix}/`))
        .map(([, v]) => (collection === 'networks' ? this.networkAnswer(v as NetworkState) : v))
      return this.page(collection === 'networks' ? 'compute#networkList' : 'compute#firewallList', items, call.query)
    }
    if (id === undefined && call.method === 'POST') {
      const body = parseBody(text)
      return collection === 'networks' ? this.insertNetwork(project, body) : this.insertFirewall(project, body)
    }
    if (id === undefined) return undefined
    const key = `${prefix}/${id}`
    const found = map.get(key)
    if (call.method === 'GET') {
      if (!found) throw notFound(key)
      return collection === 'networks' ? this.networkAnswer(found as NetworkState) : found
    }
    if (call.method !== 'DELETE') return undefined
    if (!found) throw notFound(key)
    const inUse = collection === 'networks' ? this.userOf(project, found.selfLink) : undefined
    return this.startOperation({
      project,
      region: undefined,
      key,
      type: 'delete',
      targetId: found.id,
      target: {project, region: 'global', name: id, body: {}, does: `delete ${collection}`},
      failure: inUse
        ? {
            errors: [
              {
                code: 'RESOURCE_IN_USE_BY_ANOTHER_RESOURCE',
                message: `The network resource '${key}' is already being used by '${inUse}'`,
              },
            ],
            httpErrorStatusCode: 400,
          }
        : undefined,
      onDone: (failed) => failed || map.delete(key),
    })
  }

  /** `projects/P/regions/R/subnetworks[/N]`. */
  private subnetworkRoute(
    call: ComputeCall,
    text: string,
    project: string,
    region: string,
    id: string | undefined,
  ): object | undefined {
    const prefix = `projects/${project}/regions/${region}/subnetworks`
    if (id === undefined && call.method === 'GET') {
      const items = [...this.subnetworkMap.entries()].filter(([k]) => k.startsWith(`${prefix}/`)).map(([, v]) => v)
      return this.page('compute#subnetworkList', items, call.query)
    }
    if (id === undefined && call.method === 'POST') return this.insertSubnetwork(project, region, parseBody(text))
    if (id === undefined) return undefined
    const key = `${prefix}/${id}`
    const found = this.subnetworkMap.get(key)
    if (call.method === 'GET') {
      if (!found) throw notFound(key)
      return found
    }
    if (call.method !== 'DELETE') return undefined
    if (!found) throw notFound(key)
    return this.startOperation({
      project,
      region,
      key,
      type: 'delete',
      targetId: found.id,
      target: {project, region, name: id, body: {}, does: 'delete subnetworks'},
      onDone: (failed) => failed || this.subnetworkMap.delete(key),
    })
  }

  /** A subnetwork or firewall rule that names the network (its selfLink), as a path; undefined when none does. */
  private userOf(project: string, networkLink: string): string | undefined {
    const users = [...this.firewallMap.entries(), ...this.subnetworkMap.entries()]
    return users.find(([k, v]) => k.startsWith(`projects/${project}/`) && v.network === networkLink)?.[0]
  }

  private networkAnswer(network: NetworkState): NetworkState {
    const subnetworks = [...this.subnetworkMap.values()]
      .filter((s) => s.network === network.selfLink)
      .map((s) => s.selfLink)
    return {...structuredClone(network), ...(subnetworks.length > 0 ? {subnetworks} : {})}
  }

  private resourceBase<K extends string>(kind: K, key: string, name: string) {
    return {kind, id: this.nextId(), name, selfLink: SELF + key, creationTimestamp: new Date().toISOString()}
  }

  /** A network named by URL (`https://.../projects/P/global/networks/N` or `projects/P/global/networks/N`). */
  private networkOf(project: string, field: unknown): NetworkState {
    const path =
      typeof field === 'string' ? field.replace(/^https:\/\/(?:www|compute)\.googleapis\.com\/compute\/v1\//, '') : ''
    const m = /^projects\/([^/]+)\/global\/networks\/([^/]+)$/.exec(path)
    if (!m) throw new HttpError(400, `Invalid value for field 'resource.network': '${String(field)}'.`)
    if (m[1] !== project) throw new HttpError(400, `The fake does not model networks of another project ('${m[1]}').`)
    const found = this.networkMap.get(path)
    if (!found) throw notFound(path)
    return found
  }

  private insertNetwork(project: string, body: Record<string, unknown>): OperationState {
    const name = checkName(body.name)
    if (typeof body.autoCreateSubnetworks !== 'boolean') {
      throw new HttpError(400, 'The fake does not model legacy networks: resource.autoCreateSubnetworks is required.')
    }
    const mtu = body.mtu ?? 1460
    if (typeof mtu !== 'number' || !Number.isInteger(mtu) || mtu < 1300 || mtu > 8896) {
      throw new HttpError(
        400,
        `Invalid value for field 'resource.mtu': '${String(body.mtu)}'. Must be between 1300 and 8896.`,
      )
    }
    const profile = body.networkProfile
    if (
      profile !== undefined &&
      (typeof profile !== 'string' || !/projects\/[^/]+\/global\/networkProfiles\/[a-z0-9-]+$/.test(profile))
    ) {
      throw new HttpError(400, `Invalid value for field 'resource.networkProfile': '${String(profile)}'.`)
    }
    const key = `projects/${project}/global/networks/${name}`
    if (this.networkMap.has(key)) throw new HttpError(409, `The resource '${key}' already exists`, 'alreadyExists')
    const network = {
      ...structuredClone(body),
      ...this.resourceBase('compute#network', key, name),
      autoCreateSubnetworks: body.autoCreateSubnetworks,
      mtu,
      routingConfig: {routingMode: 'REGIONAL'},
    } as NetworkState
    this.networkMap.set(key, network)
    return this.startOperation({
      project,
      region: undefined,
      key,
      type: 'insert',
      targetId: network.id,
      target: {project, region: 'global', name, body: structuredClone(body), does: 'insert networks'},
      onDone: (failed) => failed && this.networkMap.delete(key),
    })
  }

  private insertSubnetwork(project: string, region: string, body: Record<string, unknown>): OperationState {
    const name = checkName(body.name)
    const range = body.ipCidrRange
    const span = typeof range === 'string' ? cidrSpan(range) : undefined
    if (!span)
      throw new HttpError(
        400,
        `Invalid value for field 'resource.ipCidrRange': '${String(range)}'. Invalid IPCidrRange.`,
      )
    const network = this.networkOf(project, body.network)
    if (network.autoCreateSubnetworks) {
      throw new HttpError(
        400,
        `Invalid value for field 'resource.network': '${network.selfLink}'. Subnetworks cannot be added to an auto mode network.`,
      )
    }
    const key = `projects/${project}/regions/${region}/subnetworks/${name}`
    if (this.subnetworkMap.has(key)) throw new HttpError(409, `The resource '${key}' already exists`, 'alreadyExists')
    const clash = [...this.subnetworkMap.values()].find((s) => {
      const other = cidrSpan(s.ipCidrRange)!
      return s.network === network.selfLink && other[0] <= span[1] && span[0] <= other[1]
    })
    if (clash) {
      throw new HttpError(
        400,
        `Invalid IPCidrRange: ${String(range)} conflicts with existing subnetwork '${clash.name}' in region '${lastPart(clash.region)}'.`,
      )
    }
    const subnetwork: SubnetworkState = {
      ...structuredClone(body),
      ...this.resourceBase('compute#subnetwork', key, name),
      network: network.selfLink,
      region: `${SELF}projects/${project}/regions/${region}`,
      ipCidrRange: range as string,
      gatewayAddress: numberToIp(span[0] + 1),
    }
    this.subnetworkMap.set(key, subnetwork)
    return this.startOperation({
      project,
      region,
      key,
      type: 'insert',
      targetId: subnetwork.id,
      target: {project, region, name, body: structuredClone(body), does: 'insert subnetworks'},
      onDone: (failed) => failed && this.subnetworkMap.delete(key),
    })
  }

  private insertFirewall(project: string, body: Record<string, unknown>): OperationState {
    const name = checkName(body.name)
    const network = this.networkOf(project, body.network ?? `projects/${project}/global/networks/default`)
    const direction = body.direction ?? 'INGRESS'
    if (direction !== 'INGRESS' && direction !== 'EGRESS') {
      throw new HttpError(400, `Invalid value for field 'resource.direction': '${String(direction)}'.`)
    }
    const allowed = body.allowed
    const rules = Array.isArray(allowed) ? (allowed as {IPProtocol?: unknown; ports?: unknown}[]) : []
    if (rules.length === 0 && body.denied === undefined) {
      throw new HttpError(
        400,
        "Invalid value for field 'resource.allowed': ''. Exactly one of allowed or denied must be given.",
      )
    }
    for (const rule of rules) {
      const protocol = typeof rule.IPProtocol === 'string' ? rule.IPProtocol : ''
      const ports = rule.ports ?? []
      const portsOk =
        Array.isArray(ports) &&
        ports.every((p) => typeof p === 'string' && /^\d{1,5}(?:-\d{1,5})?$/.test(p)) &&
        (ports.length === 0 || ['tcp', 'udp', 'sctp', 'all'].includes(protocol))
      if (!PROTOCOLS.has(protocol) || !portsOk) {
        throw new HttpError(400, `Invalid value for field 'resource.allowed': '${JSON.stringify(rule)}'.`)
      }
    }
    const sources = body.sourceRanges ?? []
    if (!Array.isArray(sources) || sources.some((r) => typeof r !== 'string' || cidrSpan(r) === undefined)) {
      throw new HttpError(400, `Invalid value for field 'resource.sourceRanges': '${JSON.stringify(sources)}'.`)
    }
    const key = `projects/${project}/global/firewalls/${name}`
    if (this.firewallMap.has(key)) throw new HttpError(409, `The resource '${key}' already exists`, 'alreadyExists')
    const firewall: FirewallState = {
      ...structuredClone(body),
      ...this.resourceBase('compute#firewall', key, name),
      network: network.selfLink,
      direction: direction as string,
      priority: typeof body.priority === 'number' ? body.priority : 1000,
      sourceRanges: [...(sources as string[])],
      allowed: structuredClone(rules) as FirewallState['allowed'],
      disabled: false,
    }
    this.firewallMap.set(key, firewall)
    return this.startOperation({
      project,
      region: undefined,
      key,
      type: 'insert',
      targetId: firewall.id,
      target: {project, region: 'global', name, body: structuredClone(body), does: 'insert firewalls'},
      onDone: (failed) => failed && this.firewallMap.delete(key),
    })
  }

  /**
   * Starts an operation on a network, subnetwork or firewall rule (global when `region` is undefined). Its failure is
   * the given one (a network in use), else an injected operation fault's; `onDone(failed)` runs when it is DONE.
   */
  private startOperation(o: {
    project: string
    region: string | undefined
    key: string
    type: 'insert' | 'delete'
    targetId: string
    target: OperationTarget
    failure?: OpRecord['failure']
    onDone: (failed: boolean) => void
  }): OperationState {
    const fault = o.failure ? undefined : takeFault(this.operationFaults, (f) => !f.match || f.match(o.target))
    const now = new Date().toISOString()
    const opName = `operation-${++this.opCounter}`
    const scope = o.region === undefined ? `projects/${o.project}/global` : `projects/${o.project}/regions/${o.region}`
    const rec: OpRecord = {
      project: o.project,
      key: o.key,
      onDone: o.onDone,
      op: {
        kind: 'compute#operation',
        id: this.nextId(),
        name: opName,
        operationType: o.type,
        targetLink: SELF + o.key,
        targetId: o.targetId,
        status: 'RUNNING',
        user: 'fake-user@example.com',
        progress: 0,
        insertTime: now,
        startTime: now,
        selfLink: `${SELF}${scope}/operations/${opName}`,
        ...(o.region === undefined ? {} : {region: `${SELF}projects/${o.project}/regions/${o.region}`}),
      },
    }
    if (o.failure) rec.failure = o.failure
    else if (fault) {
      const errors = fault.errors ?? [{code: 'INTERNAL_ERROR', message: 'Internal error. Please try again later.'}]
      rec.failure = {errors, httpErrorStatusCode: fault.httpErrorStatusCode ?? defaultOperationStatus(errors)}
    }
    this.ops.set(opName, rec)
    const duration = fault?.durationMs ?? this.settings.operationMs
    if (duration <= 0) this.finish(rec)
    else this.active.start(rec, duration, (running) => this.finish(running))
    return rec.op
  }

  /** `regions.get`: a region of a well-formed name, with its seeded quotas; `fields=quotas` keeps only those. */
  private region(project: string, region: string, fields: string | undefined): object {
    const key = `projects/${project}/regions/${region}`
    if (!isRegionName(region)) throw notFound(key)
    const quotas = structuredClone(this.quotaMap.get(key) ?? [])
    if (fields === 'quotas') return {quotas}
    return {
      kind: 'compute#region',
      id: this.nextId(),
      name: region,
      description: region,
      status: 'UP',
      selfLink: SELF + key,
      zones: ['a', 'b', 'c'].map((z) => `${SELF}projects/${project}/zones/${region}-${z}`),
      quotas,
    }
  }

  /** GETs below `projects/P/zones/Z/`: a reservation, its blocks, a block's sub-blocks; undefined for other paths. */
  private reservationRoute(parts: string[], query: Readonly<Record<string, string>>): object | undefined {
    const [, project, , zone, collection, name, ...rest] = parts
    if (!ZONE_RE.test(zone!)) throw new HttpError(400, `Invalid value for field 'zone': '${zone}'. Unknown zone.`)
    if (collection !== 'reservations' || name === undefined) return undefined
    const key = `projects/${project}/zones/${zone}/reservations/${name}`
    const found = this.reservationMap.get(key)
    if (rest.length === 0) {
      if (!found) throw notFound(key)
      return found.rest
    }
    const zoneUrl = `${SELF}projects/${project}/zones/${zone}`
    if (rest.length === 1 && rest[0] === 'reservationBlocks') {
      if (!found) throw notFound(key)
      const items = found.blocks.map((b) => ({
        kind: 'compute#reservationBlock',
        id: this.blockId(`${key}/reservationBlocks/${b.name}`),
        name: b.name,
        zone: zoneUrl,
        selfLink: `${SELF}${key}/reservationBlocks/${b.name}`,
        count: b.count,
        inUseCount: b.inUseCount ?? 0,
        status: b.status ?? 'READY',
        reservationSubBlockCount: b.subBlocks?.length ?? 0,
        healthInfo: {healthStatus: b.health ?? 'HEALTHY'},
      }))
      return this.page('compute#reservationBlocksListResponse', items, query)
    }
    if (rest.length === 3 && rest[0] === 'reservationBlocks' && rest[2] === 'reservationSubBlocks') {
      const block = found?.blocks.find((b) => b.name === rest[1])
      const blockKey = `${key}/reservationBlocks/${rest[1]}`
      if (!found) throw notFound(key)
      if (!block) throw notFound(blockKey)
      const items = (block.subBlocks ?? []).map((sb) => ({
        kind: 'compute#reservationSubBlock',
        id: this.blockId(`${blockKey}/reservationSubBlocks/${sb.name}`),
        name: sb.name,
        zone: zoneUrl,
        selfLink: `${SELF}${blockKey}/reservationSubBlocks/${sb.name}`,
        count: sb.count,
        inUseCount: sb.inUseCount ?? 0,
        status: sb.status ?? 'READY',
        healthInfo: {healthStatus: sb.health ?? 'HEALTHY'},
      }))
      return this.page('compute#reservationSubBlocksListResponse', items, query)
    }
    return undefined
  }

  /** One page of a list: `maxResults` (else settings.pageSize) items from `pageToken` (an offset) on. */
  private page(kind: string, items: object[], query: Readonly<Record<string, string>>): object {
    const size = query.maxResults ? Number(query.maxResults) : this.settings.pageSize
    const from = query.pageToken ? Number(query.pageToken) : 0
    if (!Number.isInteger(from) || from < 0 || from > items.length) {
      throw new HttpError(400, `Invalid value for field 'pageToken': '${query.pageToken}'.`)
    }
    const next = from + size
    return {kind, items: items.slice(from, next), ...(next < items.length ? {nextPageToken: String(next)} : {})}
  }

  /** A stable numeric id for a block or sub-block, from its path. */
  private blockId(path: string): string {
    let hash = 7n
    for (const ch of path) hash = (hash * 31n + BigInt(ch.charCodeAt(0))) % 1_000_000_000_000n
    return String(5_000_000_000_000_000_000n + hash)
  }

  private machineType(project: string, zone: string, name: string): MachineTypeState {
    const key = `projects/${project}/zones/${zone}/machineTypes/${name}`
    const capacity = this.machineTypeMap.has(key) ? this.machineTypeMap.get(key) : DEFAULT_MACHINE_TYPES[name]
    if (!capacity) throw notFound(key)
    return {
      kind: 'compute#machineType',
      name,
      zone,
      guestCpus: capacity.guestCpus,
      memoryMb: capacity.memoryMb,
      selfLink: `${SELF}${key}`,
    }
  }

  private insert(project: string, region: string, text: string): OperationState {
    let body: Record<string, unknown>
    try {
      body = JSON.parse(text) as Record<string, unknown>
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an object')
    } catch {
      throw new HttpError(400, 'Invalid JSON payload received.', 'parseError')
    }
    const name = body.name
    if (typeof name !== 'string' || !NAME_RE.test(name)) {
      throw new HttpError(
        400,
        `Invalid value for field 'resource.name': '${String(name)}'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'`,
      )
    }
    const workload = body.workloadPolicy as {type?: unknown; acceleratorTopology?: unknown} | undefined
    if (typeof workload !== 'object' || workload === null) {
      throw new HttpError(
        400,
        'The fake only models workloadPolicy resource policies: resource.workloadPolicy is required.',
      )
    }
    if (typeof workload.type !== 'string' || !POLICY_TYPES.has(workload.type)) {
      throw new HttpError(400, `Invalid value for field 'resource.workloadPolicy.type': '${String(workload.type)}'.`)
    }
    const topology = workload.acceleratorTopology
    if (topology !== undefined && (typeof topology !== 'string' || !TOPOLOGY_RE.test(topology))) {
      throw new HttpError(
        400,
        `Invalid value for field 'resource.workloadPolicy.acceleratorTopology': '${String(topology)}'.`,
      )
    }
    const mode = (workload as {acceleratorTopologyMode?: unknown}).acceleratorTopologyMode
    if (mode !== undefined && (typeof mode !== 'string' || !TOPOLOGY_MODES.has(mode))) {
      throw new HttpError(
        400,
        `Invalid value for field 'resource.workloadPolicy.acceleratorTopologyMode': '${String(mode)}'.`,
      )
    }
    const key = policyKey(project, region, name)
    if (this.policyMap.has(key)) throw new HttpError(409, `The resource '${key}' already exists`, 'alreadyExists')

    const policy = this.newPolicy(project, region, name, {...(workload as {type: string})}, body)
    this.policyMap.set(key, policy)
    const target: OperationTarget = {
      project,
      region,
      name,
      body: structuredClone(body),
      does: 'insert resourcePolicies',
    }
    const fault = takeFault(this.operationFaults, (f) => !f.match || f.match(target))
    const now = new Date().toISOString()
    const opName = `operation-${++this.opCounter}`
    const rec: OpRecord = {
      project,
      key,
      op: {
        kind: 'compute#operation',
        id: this.nextId(),
        name: opName,
        operationType: 'insert',
        targetLink: SELF + key,
        targetId: policy.id,
        status: 'RUNNING',
        user: 'fake-user@example.com',
        progress: 0,
        insertTime: now,
        startTime: now,
        selfLink: `${SELF}projects/${project}/regions/${region}/operations/${opName}`,
        region: `${SELF}projects/${project}/regions/${region}`,
      },
    }
    if (fault) {
      const errors = fault.errors ?? [{code: 'INTERNAL_ERROR', message: 'Internal error. Please try again later.'}]
      rec.failure = {errors, httpErrorStatusCode: fault.httpErrorStatusCode ?? defaultOperationStatus(errors)}
    }
    this.ops.set(opName, rec)
    const duration = fault?.durationMs ?? this.settings.operationMs
    if (duration <= 0) this.finish(rec)
    else this.active.start(rec, duration, (running) => this.finish(running))
    return rec.op
  }

  private finish(rec: OpRecord): void {
    if (rec.op.status === 'DONE') return
    this.active.end(rec)
    rec.op.status = 'DONE'
    rec.op.progress = 100
    rec.op.endTime = new Date().toISOString()
    if (rec.onDone) {
      if (rec.failure) {
        rec.op.error = {errors: rec.failure.errors}
        rec.op.httpErrorStatusCode = rec.failure.httpErrorStatusCode
        rec.op.httpErrorMessage = HTTP_MESSAGES[rec.failure.httpErrorStatusCode] ?? 'ERROR'
      }
      rec.onDone(rec.failure !== undefined)
      return
    }
    const lostRace = rec.failure?.errors.some((e) => e.code === 'RESOURCE_ALREADY_EXISTS')
    if (rec.failure) {
      // A failed insert leaves nothing behind, except when it lost a race: then the other creator's policy is there.
      if (lostRace) this.policyMap.get(rec.key)!.status = 'READY'
      else this.policyMap.delete(rec.key)
      rec.op.error = {errors: rec.failure.errors}
      rec.op.httpErrorStatusCode = rec.failure.httpErrorStatusCode
      rec.op.httpErrorMessage = HTTP_MESSAGES[rec.failure.httpErrorStatusCode] ?? 'ERROR'
    } else {
      const policy = this.policyMap.get(rec.key)
      if (policy) policy.status = 'READY'
    }
  }

  private newPolicy(
    project: string,
    region: string,
    name: string,
    workloadPolicy: PolicyState['workloadPolicy'],
    body: Record<string, unknown> = {},
  ): PolicyState {
    const key = policyKey(project, region, name)
    return {
      ...structuredClone(body),
      kind: 'compute#resourcePolicy',
      id: this.nextId(),
      name,
      region: `${SELF}projects/${project}/regions/${region}`,
      selfLink: SELF + key,
      creationTimestamp: new Date().toISOString(),
      status: 'CREATING',
      workloadPolicy: structuredClone(workloadPolicy),
    }
  }

  private nextId(): string {
    return String(4_000_000_000_000_000_000n + BigInt(++this.idCounter))
  }
}

const HTTP_MESSAGES: Record<number, string> = {
  400: 'BAD REQUEST',
  403: 'FORBIDDEN',
  409: 'CONFLICT',
  500: 'INTERNAL SERVER ERROR',
}

function defaultOperationStatus(errors: {code: string}[]): number {
  const code = errors[0]?.code
  if (code === 'QUOTA_EXCEEDED') return 403
  if (code === 'INVALID_FIELD_VALUE') return 400
  if (code === 'RESOURCE_ALREADY_EXISTS') return 409
  return 500
}

function parseBody(text: string): Record<string, unknown> {
  try {
    const body = JSON.parse(text) as unknown
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an object')
    return body as Record<string, unknown>
  } catch {
    throw new HttpError(400, 'Invalid JSON payload received.', 'parseError')
  }
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    throw new HttpError(
      400,
      `Invalid value for field 'resource.name': '${String(name)}'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'`,
    )
  }
  return name
}

const lastPart = (url: string) => url.split('/').at(-1) ?? ''

function numberToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.')
}

function notFound(resource: string): HttpError {
  return new HttpError(404, `The resource '${resource}' was not found`, 'notFound')
}

function resolveSettings(options: FakeComputeOptions): FakeComputeSettings {
  return {operationMs: options.operationMs ?? 50, requireToken: options.requireToken, pageSize: options.pageSize ?? 500}
}
