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
  MachineTypeCapacity,
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
    // Its failure is told as what the operation did, e.g. "create workload policy NAME", like the insert's own.
    const policy = /\/resourcePolicies\/([^/]+)$/.exec(op.targetLink ?? '')?.[1]
    const action = policy && op.operationType === 'insert' ? `create workload policy ${policy}` : reading.action
    return toPortOperation(op, {...reading, action})
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

function regionPath(project: string, region: string): string {
  return `projects/${segment(project)}/regions/${segment(region)}`
}
