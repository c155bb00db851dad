/**
 * The {@link ComputeClient} port over the Compute Engine REST API v1 (google-rest.ts). There is no Compute SDK among
 * xpk's dependencies and two endpoints do not justify one; google-auth-library supplies the credentials.
 */

import {type ApiContext, gkeApiError, isApiDisabled} from '../core/cluster/gke-errors.js'
import {parseEndpoint} from '../core/endpoint.js'
import {ApiError, UsageError} from '../core/errors.js'
import {escapeInline, redactCredentials} from '../core/text.js'
import type {
  AcceleratorCount,
  ComputeClient,
  ComputeOperation as PortOperation,
  FirewallAllowed,
  FirewallSpec,
  MachineTypeCapacity,
  NetworkSpec,
  ObservedFirewall,
  ObservedNetwork,
  ObservedSubnetwork,
  SubnetworkSpec,
  RegionQuota,
  ObservedReservation,
  ObservedReservationBlock,
  ObservedWorkloadPolicy,
  WorkloadPolicySpec,
} from '../ports/compute.js'
import {connectRest, type GoogleConnection, type GoogleRest, grpcCodeForHttp, type RestFailure} from './google-rest.js'

/** How to reach the Compute Engine API. */
export interface ComputeConnection extends GoogleConnection {
  /**
   * Endpoint override, like gcloud's `api_endpoint_overrides/compute`: `https://HOST[:PORT]/[PATH/]` or
   * `http://127.0.0.1:PORT` (loopback only) for a local test server. Without a path, `compute/v1/` is appended.
   * Plain http sends no credentials at all.
   */
  readonly endpoint?: string
}

const DEFAULT_BASE = 'https://compute.googleapis.com/compute/v1/'

/**
 * Creates the real Compute Engine client. google-auth-library is imported only when Application Default
 * Credentials are needed (no token, not a loopback test server), and asked for credentials only on the first request.
 */
export async function createComputeClient(connection: ComputeConnection = {}): Promise<ComputeClient> {
  const root = connection.endpoint ? computeBase(connection.endpoint) : {base: DEFAULT_BASE, insecure: false}
  const rest = await connectRest(root, connection, (failure, context) =>
    computeApiError(computeFailure(failure), context),
  )
  return new ComputeRestClient(rest)
}

/** The API root for an endpoint override (rules in src/core/endpoint.ts); a bad one is a usage error naming the setting. */
function computeBase(endpoint: string): {base: string; insecure: boolean} {
  const parsed = parseEndpoint(endpoint)
  if ('problem' in parsed) {
    throw new UsageError(`--compute-endpoint "${redactCredentials(escapeInline(endpoint))}": ${parsed.problem}.`, {
      flag: '--compute-endpoint',
    })
  }
  return {base: `${parsed.origin}${parsed.path === '/' ? '/compute/v1/' : parsed.path}`, insecure: parsed.insecure}
}

/** The subset of a compute#operation that matters here. */
interface ComputeOperation {
  readonly name?: string
  readonly status?: string
  readonly operationType?: string
  readonly targetLink?: string
  readonly error?: {readonly errors?: readonly {readonly code?: string; readonly message?: string}[]}
  readonly httpErrorStatusCode?: number
  readonly httpErrorMessage?: string
}

/** An API failure before classification: gRPC code, message and Google's error reasons. */
interface ComputeFailure {
  readonly code: number
  readonly message: string
  readonly reasons: ReadonlySet<string>
  /** Set for HTTP 429 and rate-limit reasons: waiting helps, whatever the message says. */
  readonly rateLimited?: boolean
}

const RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'RATE_LIMIT_EXCEEDED'])
const QUOTA_REASONS = new Set([...RATE_LIMIT_REASONS, 'quotaExceeded', 'dailyLimitExceeded', 'QUOTA_EXCEEDED'])

/** The gRPC code for an HTTP status; Compute reports quota and rate limits as 403 with a reason. */
function computeCodeForHttp(status: number, reasons: ReadonlySet<string>): number {
  return status === 403 && [...reasons].some((r) => QUOTA_REASONS.has(r)) ? 8 : grpcCodeForHttp(status)
}

/** Compute operation error codes by gRPC code; the operation's HTTP status is the fallback. */
const OPERATION_ERROR_CODES: Readonly<Record<string, number>> = {
  RESOURCE_ALREADY_EXISTS: 6,
  ALREADY_EXISTS: 6,
  RESOURCE_NOT_FOUND: 5,
  NOT_FOUND: 5,
  QUOTA_EXCEEDED: 8,
  RATE_LIMIT_EXCEEDED: 8,
  ZONE_RESOURCE_POOL_EXHAUSTED: 8,
  ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS: 8,
  PERMISSION_DENIED: 7,
  FORBIDDEN: 7,
  INVALID_FIELD_VALUE: 3,
  INVALID_ARGUMENT: 3,
  BAD_REQUEST: 3,
  CONDITION_NOT_MET: 9,
  RESOURCE_IN_USE_BY_ANOTHER_RESOURCE: 9,
  INTERNAL_ERROR: 13,
  SERVICE_UNAVAILABLE: 14,
}

/** gkeApiError's classification with hints that talk about Compute Engine instead of GKE. */
function computeApiError(failure: ComputeFailure, context: ApiContext): ApiError {
  const classified = gkeApiError({code: failure.code, message: failure.message}, context)
  const {project, location} = context
  const kind = classified.kind
  let retryable = classified.retryable
  let hints = classified.hints.map((hint) => hint.replace(/^GKE\b/, 'Compute Engine'))
  if (kind === 'permission') {
    hints = isApiDisabled(failure.message, failure.reasons)
      ? [
          `The Compute Engine API is disabled in project ${project}: run \`gcloud services enable compute.googleapis.com --project=${project}\`, wait a minute, and re-run.`,
        ]
      : [
          `Your credentials lack a Compute Engine permission on project ${project}: grant roles/compute.admin (or a role with ${context.action.includes('reservation') ? 'compute.reservations.get and compute.reservations.list' : 'compute.resourcePolicies.get and compute.resourcePolicies.create'}), e.g. \`gcloud projects add-iam-policy-binding ${project} --member=user:YOU@example.com --role=roles/compute.admin\`.`,
        ]
  } else if (kind === 'not-found' && context.action.includes('reservation')) {
    hints = [`Looked in projects/${project}/zones/${location}. Check --reservation, --project and --zone.`]
  } else if (kind === 'not-found') {
    hints = [
      `Looked in projects/${project}/regions/${location}. Check --project and --zone (the policy lives in the zone's region).`,
    ]
  } else if (failure.rateLimited && kind === 'quota' && !retryable) {
    // gkeApiError only recognises rate limits by their wording; the HTTP status or reason says so for certain.
    retryable = true
    hints = ['The Compute Engine API rate limit was hit; it resets within a minute, so a retry after a pause works.']
  }
  return new ApiError(kind, classified.message, {status: classified.status, retryable, hints})
}

/** A failed request as Compute reports it: the HTTP status decides the code (its error bodies may name no status). */
function computeFailure(failure: RestFailure): ComputeFailure {
  const {message, reasons} = failure
  switch (failure.kind) {
    case 'timeout':
      return {code: 4, message, reasons}
    case 'unreachable':
      return {code: 14, message, reasons}
    case 'malformed':
      return {code: 13, message, reasons}
    case 'answer': {
      const rateLimited = failure.httpStatus === 429 || [...reasons].some((r) => RATE_LIMIT_REASONS.has(r))
      return {code: computeCodeForHttp(failure.httpStatus, reasons), message, reasons, rateLimited}
    }
  }
}

/** The failure of a finished operation, or undefined when it succeeded. */
function operationFailure(op: ComputeOperation): ComputeFailure | undefined {
  const errors = op.error?.errors ?? []
  if (errors.length === 0 && !op.httpErrorStatusCode) return undefined
  const reasons = new Set(errors.map((e) => e.code).filter((c): c is string => typeof c === 'string'))
  const known = [...reasons].map((c) => OPERATION_ERROR_CODES[c]).find((c) => c !== undefined)
  const httpStatus = op.httpErrorStatusCode
  const code = known ?? (httpStatus ? computeCodeForHttp(httpStatus, reasons) : 2)
  const message =
    errors
      .map((e) => e.message ?? e.code ?? '')
      .filter(Boolean)
      .join('; ') ||
    op.httpErrorMessage ||
    'the operation failed'
  return {code, message, reasons, rateLimited: reasons.has('RATE_LIMIT_EXCEEDED')}
}

/** The port's view of an operation: its name, whether it is done, and its failure classified. */
function toPortOperation(op: ComputeOperation, context: ApiContext): PortOperation {
  if (!op.name) throw computeApiError({code: 13, message: 'the answer named no operation', reasons: new Set()}, context)
  const failure = operationFailure(op)
  return {name: op.name, done: op.status === 'DONE', error: failure ? computeApiError(failure, context) : null}
}

const segment = encodeURIComponent

class ComputeRestClient implements ComputeClient {
  constructor(private readonly rest: GoogleRest) {}

  async getWorkloadPolicy(project: string, region: string, name: string): Promise<ObservedWorkloadPolicy | undefined> {
    const context = {action: `read workload policy ${name}`, project, location: region}
    const path = `${regionPath(project, region)}/resourcePolicies/${segment(name)}`
    const reply = await this.rest.request('GET', path, context, {answers: [404]})
    if (reply.status === 404) return undefined
    const policy = this.rest.json<{
      name?: string
      status?: string
      workloadPolicy?: {type?: string; acceleratorTopology?: string; acceleratorTopologyMode?: string}
    }>(reply, context)
    return {
      name: policy.name ?? name,
      acceleratorTopology: policy.workloadPolicy?.acceleratorTopology ?? null,
      ...(policy.workloadPolicy?.acceleratorTopologyMode
        ? {acceleratorTopologyMode: policy.workloadPolicy.acceleratorTopologyMode}
        : {}),
      type: policy.workloadPolicy?.type ?? null,
      status: policy.status ?? null,
    }
  }

  async insertWorkloadPolicy(spec: WorkloadPolicySpec): Promise<PortOperation | 'exists'> {
    const context = {action: `create workload policy ${spec.name}`, project: spec.project, location: spec.region}
    const body = {
      name: spec.name,
      workloadPolicy: {
        type: 'HIGH_THROUGHPUT',
        acceleratorTopology: spec.acceleratorTopology,
        ...(spec.acceleratorTopologyMode ? {acceleratorTopologyMode: spec.acceleratorTopologyMode} : {}),
      },
    }
    const reply = await this.rest.request(
      'POST',
      `${regionPath(spec.project, spec.region)}/resourcePolicies`,
      context,
      {
        body,
        answers: [409],
      },
    )
    if (reply.status === 409) return 'exists'
    return toPortOperation(this.rest.json<ComputeOperation>(reply, context), context)
  }

  async getRegionOperation(project: string, region: string, name: string): Promise<PortOperation> {
    const path = `${regionPath(project, region)}/operations/${segment(name)}`
    const reading = {action: `check operation ${name}`, project, location: region}
    const op = this.rest.json<ComputeOperation>(await this.rest.request('GET', path, reading), reading)
    return toPortOperation(op, {...reading, action: operationAction(op) ?? reading.action})
  }

  async getGlobalOperation(project: string, name: string): Promise<PortOperation> {
    const path = `${globalPath(project)}/operations/${segment(name)}`
    const reading = {action: `check operation ${name}`, project, location: 'global'}
    const op = this.rest.json<ComputeOperation>(await this.rest.request('GET', path, reading), reading)
    return toPortOperation(op, {...reading, action: operationAction(op) ?? reading.action})
  }

  async getNetwork(project: string, name: string): Promise<ObservedNetwork | undefined> {
    const context = {action: `read network ${name}`, project, location: 'global'}
    const found = await this.rest.getOrMissing<RestNetwork>(`${globalPath(project)}/networks/${segment(name)}`, context)
    return found && toNetwork(found, name)
  }

  async listNetworks(project: string): Promise<readonly ObservedNetwork[]> {
    const context = {action: 'list networks', project, location: 'global'}
    const items = await this.listItems<RestNetwork>(`${globalPath(project)}/networks`, context)
    return items.map((n) => toNetwork(n, ''))
  }

  insertNetwork(spec: NetworkSpec): Promise<PortOperation | 'exists'> {
    const body = {
      name: spec.name,
      autoCreateSubnetworks: false,
      mtu: spec.mtu,
      ...(spec.networkProfile
        ? {networkProfile: `${SELF_BASE}${globalPath(spec.project)}/networkProfiles/${segment(spec.networkProfile)}`}
        : {}),
    }
    const context = {action: `create network ${spec.name}`, project: spec.project, location: 'global'}
    return this.insert(`${globalPath(spec.project)}/networks`, body, context)
  }

  deleteNetwork(project: string, name: string): Promise<PortOperation | 'gone'> {
    const context = {action: `delete network ${name}`, project, location: 'global'}
    return this.remove(`${globalPath(project)}/networks/${segment(name)}`, context)
  }

  async getSubnetwork(project: string, region: string, name: string): Promise<ObservedSubnetwork | undefined> {
    const context = {action: `read subnetwork ${name}`, project, location: region}
    const path = `${regionPath(project, region)}/subnetworks/${segment(name)}`
    const found = await this.rest.getOrMissing<RestSubnetwork>(path, context)
    return found && toSubnetwork(found, name, region)
  }

  async listSubnetworks(project: string, region: string): Promise<readonly ObservedSubnetwork[]> {
    const context = {action: `list the subnetworks of region ${region}`, project, location: region}
    const items = await this.listItems<RestSubnetwork>(`${regionPath(project, region)}/subnetworks`, context)
    return items.map((s) => toSubnetwork(s, '', region))
  }

  insertSubnetwork(spec: SubnetworkSpec): Promise<PortOperation | 'exists'> {
    const body = {
      name: spec.name,
      network: `${SELF_BASE}${globalPath(spec.project)}/networks/${segment(spec.network)}`,
      ipCidrRange: spec.ipCidrRange,
    }
    const context = {action: `create subnetwork ${spec.name}`, project: spec.project, location: spec.region}
    return this.insert(`${regionPath(spec.project, spec.region)}/subnetworks`, body, context)
  }

  deleteSubnetwork(project: string, region: string, name: string): Promise<PortOperation | 'gone'> {
    const context = {action: `delete subnetwork ${name}`, project, location: region}
    return this.remove(`${regionPath(project, region)}/subnetworks/${segment(name)}`, context)
  }

  async getFirewall(project: string, name: string): Promise<ObservedFirewall | undefined> {
    const context = {action: `read firewall rule ${name}`, project, location: 'global'}
    const found = await this.rest.getOrMissing<RestFirewall>(
      `${globalPath(project)}/firewalls/${segment(name)}`,
      context,
    )
    return found && toFirewall(found, name)
  }

  async listFirewalls(project: string): Promise<readonly ObservedFirewall[]> {
    const context = {action: 'list firewall rules', project, location: 'global'}
    const items = await this.listItems<RestFirewall>(`${globalPath(project)}/firewalls`, context)
    return items.map((f) => toFirewall(f, ''))
  }

  insertFirewall(spec: FirewallSpec): Promise<PortOperation | 'exists'> {
    const body = {
      name: spec.name,
      network: `${SELF_BASE}${globalPath(spec.project)}/networks/${segment(spec.network)}`,
      direction: 'INGRESS',
      sourceRanges: [...spec.sourceRanges],
      allowed: spec.allowed.map((a) => ({
        IPProtocol: a.protocol,
        ...(a.ports.length > 0 ? {ports: [...a.ports]} : {}),
      })),
    }
    const context = {action: `create firewall rule ${spec.name}`, project: spec.project, location: 'global'}
    return this.insert(`${globalPath(spec.project)}/firewalls`, body, context)
  }

  deleteFirewall(project: string, name: string): Promise<PortOperation | 'gone'> {
    const context = {action: `delete firewall rule ${name}`, project, location: 'global'}
    return this.remove(`${globalPath(project)}/firewalls/${segment(name)}`, context)
  }

  /** An insert: its operation, or `exists` for a 409 (the name is taken). */
  private async insert(path: string, body: object, context: ApiContext): Promise<PortOperation | 'exists'> {
    const reply = await this.rest.request('POST', path, context, {body, answers: [409]})
    if (reply.status === 409) return 'exists'
    return toPortOperation(this.rest.json<ComputeOperation>(reply, context), context)
  }

  /** A delete: its operation, or `gone` for a 404 (nothing of that name). */
  private async remove(path: string, context: ApiContext): Promise<PortOperation | 'gone'> {
    const reply = await this.rest.request('DELETE', path, context, {answers: [404]})
    if (reply.status === 404) return 'gone'
    return toPortOperation(this.rest.json<ComputeOperation>(reply, context), context)
  }

  /** Every item of a list, page by page. */
  private async listItems<T>(path: string, context: ApiContext): Promise<T[]> {
    const out: T[] = []
    let token: string | undefined
    do {
      const page = this.rest.json<RestList<T>>(
        await this.rest.request('GET', token ? `${path}?pageToken=${encodeURIComponent(token)}` : path, context),
        context,
      )
      out.push(...(page.items ?? []))
      token = page.nextPageToken || undefined
    } while (token)
    return out
  }

  async getReservation(project: string, zone: string, name: string): Promise<ObservedReservation | undefined> {
    const context = {action: `read reservation ${name}`, project, location: zone}
    const found = await this.rest.getOrMissing<RestReservation>(
      `${zonePath(project, zone)}/reservations/${segment(name)}`,
      context,
    )
    return found && toReservation(found, name)
  }

  listReservationBlocks(project: string, zone: string, reservation: string) {
    const context = {action: `list the blocks of reservation ${reservation}`, project, location: zone}
    return this.listAll(`${zonePath(project, zone)}/reservations/${segment(reservation)}/reservationBlocks`, context)
  }

  listReservationSubBlocks(project: string, zone: string, reservation: string, block: string) {
    const context = {
      action: `list the sub-blocks of reservation ${reservation} block ${block}`,
      project,
      location: zone,
    }
    const parent = `reservations/${segment(reservation)}/reservationBlocks/${segment(block)}`
    return this.listAll(`${zonePath(project, zone)}/${parent}/reservationSubBlocks`, context)
  }

  getMachineType(project: string, zone: string, name: string): Promise<MachineTypeCapacity | undefined> {
    return readMachineType(this.rest, project, zone, name)
  }

  async getRegionQuotas(project: string, region: string): Promise<readonly RegionQuota[] | undefined> {
    const context = {action: `read the quotas of region ${region}`, project, location: region}
    // Only the quotas: the rest of the region (zones, status) is not needed.
    const found = await this.rest.getOrMissing<{quotas?: {metric?: string; limit?: number; usage?: number}[]}>(
      `${regionPath(project, region)}?fields=quotas`,
      context,
    )
    return (
      found && (found.quotas ?? []).map((q) => ({metric: q.metric ?? '', limit: q.limit ?? 0, usage: q.usage ?? 0}))
    )
  }

  /** Every page of a list of blocks or sub-blocks; undefined when its parent does not exist (404). */
  private async listAll(
    path: string,
    context: {action: string; project: string; location: string},
  ): Promise<ObservedReservationBlock[] | undefined> {
    const out: ObservedReservationBlock[] = []
    let token: string | undefined
    do {
      const page = await this.rest.getOrMissing<RestList<RestBlock>>(
        token ? `${path}?pageToken=${encodeURIComponent(token)}` : path,
        context,
      )
      if (page === undefined) return undefined
      out.push(...(page.items ?? []).map(toBlock))
      token = page.nextPageToken || undefined
    } while (token)
    return out
  }
}

/** Reads a machine type's capacity; shared by the client class (kept outside it so the class stays the port's map). */
async function readMachineType(
  rest: GoogleRest,
  project: string,
  zone: string,
  name: string,
): Promise<MachineTypeCapacity | undefined> {
  const context = {action: `read machine type ${name}`, project, location: zone}
  const path = `projects/${segment(project)}/zones/${segment(zone)}/machineTypes/${segment(name)}`
  const reply = await rest.request('GET', path, context, {answers: [404]})
  if (reply.status === 404) return undefined
  const type = rest.json<{name?: string; guestCpus?: number; memoryMb?: number}>(reply, context)
  if (typeof type.guestCpus !== 'number' || typeof type.memoryMb !== 'number') {
    throw computeApiError({code: 13, message: 'the answer has no guestCpus or memoryMb', reasons: new Set()}, context)
  }
  return {name: type.name ?? name, guestCpus: type.guestCpus, memoryMb: type.memoryMb}
}

function zonePath(project: string, zone: string): string {
  return `projects/${segment(project)}/zones/${segment(zone)}`
}

/** A reservation, block or sub-block as the REST API sends it (the fields xpk reads). */
interface RestAccelerator {
  readonly acceleratorType?: string
  readonly acceleratorCount?: number | string
}
interface RestReservation {
  readonly name?: string
  readonly zone?: string
  readonly status?: string
  readonly specificReservation?: {
    readonly count?: string | number
    readonly inUseCount?: string | number
    readonly instanceProperties?: {
      readonly machineType?: string
      readonly guestAccelerators?: readonly RestAccelerator[]
      readonly maintenanceInterval?: string
    }
  }
  readonly aggregateReservation?: {
    readonly reservedResources?: readonly {readonly accelerator?: RestAccelerator}[]
    readonly inUseResources?: readonly {readonly accelerator?: RestAccelerator}[]
  }
  readonly deploymentType?: string
  readonly resourcePolicies?: Readonly<Record<string, string>>
  readonly specificReservationRequired?: boolean
  readonly shareSettings?: {readonly shareType?: string}
}
interface RestBlock {
  readonly name?: string
  readonly count?: number | string
  readonly inUseCount?: number | string
  readonly status?: string
  readonly healthInfo?: {readonly healthStatus?: string}
}
interface RestList<T> {
  readonly items?: readonly T[]
  readonly nextPageToken?: string
}

/** An int64 or int32 field (Compute sends int64 as a string); absent or unreadable is 0. */
function count(value: string | number | undefined): number {
  const n = typeof value === 'number' ? value : Number(value ?? 0)
  return Number.isSafeInteger(n) && n >= 0 ? n : 0
}

function accelerators(list: readonly RestAccelerator[] | undefined): AcceleratorCount[] {
  return (list ?? []).map((a) => ({type: a.acceleratorType ?? '', count: count(a.acceleratorCount)}))
}

function toReservation(r: RestReservation, name: string): ObservedReservation {
  const specific = r.specificReservation
  const aggregate = r.aggregateReservation
  return {
    name: r.name ?? name,
    zone: r.zone ? (r.zone.split('/').at(-1) ?? null) : null,
    status: r.status ?? null,
    specific: specific
      ? {
          machineType: specific.instanceProperties?.machineType ?? null,
          guestAccelerators: accelerators(specific.instanceProperties?.guestAccelerators),
          count: count(specific.count),
          inUseCount: count(specific.inUseCount),
          maintenanceInterval: specific.instanceProperties?.maintenanceInterval ?? null,
        }
      : null,
    aggregate: aggregate
      ? {
          reserved: accelerators(aggregate.reservedResources?.flatMap((x) => (x.accelerator ? [x.accelerator] : []))),
          inUse: accelerators(aggregate.inUseResources?.flatMap((x) => (x.accelerator ? [x.accelerator] : []))),
        }
      : null,
    deploymentType: r.deploymentType ?? null,
    resourcePolicies: Object.values(r.resourcePolicies ?? {}),
    specificReservationRequired: r.specificReservationRequired === true,
    shareType: r.shareSettings?.shareType ?? null,
  }
}

function toBlock(b: RestBlock): ObservedReservationBlock {
  return {
    name: b.name ?? '',
    count: count(b.count),
    inUseCount: count(b.inUseCount),
    status: b.status ?? null,
    health: b.healthInfo?.healthStatus ?? null,
  }
}

function globalPath(project: string): string {
  return `projects/${segment(project)}/global`
}

/** Resource URLs in request bodies, as Compute Engine writes them itself. */
const SELF_BASE = 'https://www.googleapis.com/compute/v1/'

/** The resource a URL names: its last part. */
const lastPart = (url: string | undefined): string => (url ?? '').split('/').at(-1) ?? ''

/** What an operation did, in the words of the call that started it ("create network NAME"); undefined if unknown. */
function operationAction(op: ComputeOperation): string | undefined {
  const match = /\/(resourcePolicies|networks|subnetworks|firewalls)\/([^/]+)$/.exec(op.targetLink ?? '')
  if (!match || (op.operationType !== 'insert' && op.operationType !== 'delete')) return undefined
  const noun = {
    resourcePolicies: 'workload policy',
    networks: 'network',
    subnetworks: 'subnetwork',
    firewalls: 'firewall rule',
  }[match[1]!]
  return `${op.operationType === 'insert' ? 'create' : 'delete'} ${noun} ${match[2]}`
}

interface RestNetwork {
  readonly name?: string
  readonly mtu?: number
  readonly autoCreateSubnetworks?: boolean
  readonly networkProfile?: string
  readonly subnetworks?: readonly string[]
}
interface RestSubnetwork {
  readonly name?: string
  readonly region?: string
  readonly network?: string
  readonly ipCidrRange?: string
}
interface RestFirewall {
  readonly name?: string
  readonly network?: string
  readonly direction?: string
  readonly sourceRanges?: readonly string[]
  readonly allowed?: readonly {readonly IPProtocol?: string; readonly ports?: readonly string[]}[]
}

function toNetwork(n: RestNetwork, name: string): ObservedNetwork {
  return {
    name: n.name ?? name,
    mtu: typeof n.mtu === 'number' ? n.mtu : null,
    autoCreateSubnetworks: typeof n.autoCreateSubnetworks === 'boolean' ? n.autoCreateSubnetworks : null,
    networkProfile: n.networkProfile ? lastPart(n.networkProfile) : null,
    subnetworks: (n.subnetworks ?? []).map((url) => {
      const parts = url.split('/')
      return `${parts.at(-3) ?? ''}/${parts.at(-1) ?? ''}`
    }),
  }
}

function toSubnetwork(s: RestSubnetwork, name: string, region: string): ObservedSubnetwork {
  return {
    name: s.name ?? name,
    region: s.region ? lastPart(s.region) : region,
    network: lastPart(s.network),
    ipCidrRange: s.ipCidrRange ?? null,
  }
}

function toFirewall(f: RestFirewall, name: string): ObservedFirewall {
  return {
    name: f.name ?? name,
    network: lastPart(f.network),
    direction: f.direction ?? null,
    sourceRanges: [...(f.sourceRanges ?? [])],
    allowed: (f.allowed ?? []).map((a): FirewallAllowed => ({
      protocol: a.IPProtocol ?? '',
      ports: [...(a.ports ?? [])],
    })),
  }
}

function regionPath(project: string, region: string): string {
  return `projects/${segment(project)}/regions/${segment(region)}`
}
