// A test double of the Filestore API v1 (file.googleapis.com) for what xpk uses: instances get, create and delete,
// and their long-running operations, served as the API's REST mapping (paths, JSON, errors) over real HTTP on
// loopback, so the production adapter (src/adapters/filestore-rest.ts) runs against it unmodified.
// Behaviour spec: fake-filestore.md next to this file.
import {GRPC_STATUS} from '../../src/core/cluster/gke-errors.js'
import {
  grpcErrorReply,
  HttpAnswer,
  JsonRestFake,
  takeFault,
  type GrpcStatusName,
  type HttpCall,
  type HttpFaultMatch,
} from './fake-server.js'
import {createProblem, filestoreSays, instanceAddress} from './filestore-shapes.js'

/** An instance as the API answers it (the proto3 JSON mapping: int64 as strings, enums by name). */
export interface InstanceJson {
  name: string
  description?: string
  state: string
  createTime: string
  tier: string
  labels?: Record<string, string>
  fileShares: {name: string; capacityGb: string}[]
  networks: {network: string; modes: string[]; ipAddresses?: string[]; connectMode?: string; reservedIpRange?: string}[]
  etag: string
  satisfiesPzi: boolean
}

/** A google.longrunning.Operation as the API answers it; `done` is left out while false. */
export interface OperationJson {
  name: string
  metadata: {
    '@type': 'type.googleapis.com/google.cloud.common.OperationMetadata'
    createTime: string
    endTime?: string
    target: string
    verb: 'create' | 'delete'
    cancelRequested: boolean
    apiVersion: 'v1'
  }
  done?: true
  error?: {code: number; message: string}
  response?: Record<string, unknown>
}

/** A request, as the log keeps it (`path` below `/v1/`). */
export type FilestoreCall = HttpCall

/** An HTTP-level fault (`times`, `delayMs` and `afterApply` as every fake's: fake-server.ts). */
export interface FilestoreFault extends HttpFaultMatch {
  /** Answer with this gRPC status (its HTTP status and Google's JSON error body). Omit to only delay. */
  readonly status?: GrpcStatusName
  readonly message?: string
  /** `error.details` of the body, e.g. a google.rpc.ErrorInfo naming the reason. */
  readonly details?: readonly object[]
  /** Sent verbatim (with the status's HTTP status) instead of the JSON error, e.g. a proxy's HTML page. */
  readonly rawBody?: string
}

/** What an operation works on, for an operation fault's `match`. */
export interface OperationTarget {
  readonly project: string
  readonly location: string
  readonly id: string
  readonly verb: 'create' | 'delete'
}

/** Makes an operation end done with an error instead of its outcome. */
export interface OperationFault {
  match?: (target: OperationTarget) => boolean
  /** Default INTERNAL. */
  status?: GrpcStatusName
  message?: string
  /** Counts down as the fault is consumed; the fault is removed at 0. Default 1. */
  times?: number
  /** How long this operation runs instead of `operationMs`. */
  durationMs?: number
}

export interface SeedInstance {
  project: string
  location: string
  id: string
  /** Default BASIC_HDD. */
  tier?: string
  /** Default READY. */
  state?: string
  /** Default `default`. */
  network?: string
  /** Default vol1, 1024 GB. */
  shareName?: string
  capacityGb?: number
  labels?: Record<string, string>
  /** Default the next address the fake gives; none for an instance that is not READY. */
  ipAddress?: string
}

export interface FakeFilestoreOptions {
  /** How long every operation runs. 0: done when answered. Infinity: until finishOperations(). Default 50. */
  operationMs?: number
}

/** Errors the Filestore API reports, worded and coded as it does. */
export const filestoreErrors = {
  apiDisabled(project: string): FilestoreFault {
    return {
      status: 'PERMISSION_DENIED',
      message: `Cloud Filestore API has not been used in project ${project} before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/file.googleapis.com/overview?project=${project} then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.`,
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'SERVICE_DISABLED',
          domain: 'googleapis.com',
          metadata: {service: 'file.googleapis.com', consumer: `projects/${project}`},
        },
      ],
    }
  },
  permissionDenied(
    permission = 'file.instances.create',
    resource = 'projects/p/locations/us-central1-a',
  ): FilestoreFault {
    return {status: 'PERMISSION_DENIED', message: `Permission '${permission}' denied on '${resource}'`}
  },
  quotaExceeded(metric = 'file.googleapis.com/standard_capacity', limit = 10240): FilestoreFault {
    return {status: 'RESOURCE_EXHAUSTED', message: `Quota limit '${metric}' has been exceeded. Limit: ${limit} GB.`}
  },
}

const API_ROOT = '/v1/'
const LOCATION = /^projects\/([^/]+)\/locations\/([^/]+)\/instances$/
const INSTANCE = /^projects\/([^/]+)\/locations\/([^/]+)\/instances\/([^/]+)$/
const OPERATION = /^projects\/[^/]+\/locations\/[^/]+\/operations\/[^/]+$/

/** The fields of each message the fake takes in a request, by the JSON names; any other is refused as ESF does. */
const FIELDS = {
  instance: new Set([
    'name',
    'description',
    'state',
    'statusMessage',
    'createTime',
    'tier',
    'labels',
    'fileShares',
    'networks',
    'etag',
    'satisfiesPzs',
    'satisfiesPzi',
    'kmsKeyName',
    'suspensionReasons',
  ]),
  fileShare: new Set(['name', 'capacityGb', 'sourceBackup', 'nfsExportOptions']),
  network: new Set(['network', 'modes', 'reservedIpRange', 'ipAddresses', 'connectMode']),
}
const TIERS = [
  'TIER_UNSPECIFIED',
  'STANDARD',
  'PREMIUM',
  'BASIC_HDD',
  'BASIC_SSD',
  'HIGH_SCALE_SSD',
  'ENTERPRISE',
  'ZONAL',
  'REGIONAL',
]
/** The old names of three tiers, which the API still takes. */
const TIER_ALIASES: Readonly<Record<string, string>> = {
  STANDARD: 'BASIC_HDD',
  PREMIUM: 'BASIC_SSD',
  HIGH_SCALE_SSD: 'ZONAL',
}

const invalid = (message: string) => httpError('INVALID_ARGUMENT', message)

function httpError(status: GrpcStatusName, message: string, details?: readonly object[]): HttpAnswer {
  const {httpStatus, body} = grpcErrorReply(status, message, details)
  return new HttpAnswer(httpStatus, body)
}

/** What the fake holds: instances and operations by full name, and how many addresses it gave. */
interface World {
  readonly instances: Map<string, InstanceJson>
  readonly operations: Map<string, OperationRecord>
  addresses: number
}

const emptyWorld = (): World => ({instances: new Map(), operations: new Map(), addresses: 0})

interface OperationRecord {
  readonly json: OperationJson
  readonly target: OperationTarget
  readonly instance: string
  readonly failure?: {code: number; message: string}
}

export class FakeFilestore extends JsonRestFake<FilestoreFault, OperationRecord, OperationFault> {
  settings: Required<FakeFilestoreOptions>
  protected readonly root = API_ROOT

  private world = emptyWorld()
  /** The settings it started with, which reset() restores. */
  private readonly initial: Required<FakeFilestoreOptions>
  private opCounter = 0
  private etags = 0

  private constructor(options: FakeFilestoreOptions) {
    super()
    this.initial = {operationMs: 50, ...options}
    this.settings = {...this.initial}
  }

  static start(options: FakeFilestoreOptions = {}): Promise<FakeFilestore> {
    return new FakeFilestore(options).listen('fake-filestore')
  }

  /** Back to the state right after start(): no instances, operations, calls or faults; settings as started. */
  reset(): void {
    this.world = emptyWorld()
    this.forget()
    this.settings = {...this.initial}
  }

  /** Ends the running operations now (those `filter` picks), as if their time had come. */
  finishOperations(filter?: (op: OperationJson) => boolean): void {
    for (const rec of this.active.all()) if (!filter || filter(structuredClone(rec.json))) this.finish(rec)
  }

  /** An instance that exists already (no call logged, no operation). */
  seedInstance(seed: SeedInstance): InstanceJson {
    const name = `projects/${seed.project}/locations/${seed.location}/instances/${seed.id}`
    if (this.world.instances.has(name)) throw new Error(`seedInstance: ${name} exists`)
    const state = seed.state ?? 'READY'
    const ipAddress = seed.ipAddress ?? (state === 'READY' ? instanceAddress(this.world.addresses++) : undefined)
    const instance = this.newInstance(name, {
      tier: seed.tier ?? 'BASIC_HDD',
      state,
      fileShares: [{name: seed.shareName ?? 'vol1', capacityGb: String(seed.capacityGb ?? 1024)}],
      networks: [
        {
          network: seed.network ?? 'default',
          modes: ['MODE_IPV4'],
          connectMode: 'DIRECT_PEERING',
          ...(ipAddress ? {ipAddresses: [ipAddress]} : {}),
        },
      ],
      ...(seed.labels ? {labels: seed.labels} : {}),
    })
    this.world.instances.set(name, instance)
    return structuredClone(instance)
  }

  /** Copies of the instances, in the order they were made. */
  instances(): InstanceJson[] {
    return [...this.world.instances.values()].map((i) => structuredClone(i))
  }

  /** A copy of one instance, if it exists. */
  instance(project: string, location: string, id: string): InstanceJson | undefined {
    return this.instances().find((i) => i.name === `projects/${project}/locations/${location}/instances/${id}`)
  }

  operations(): OperationJson[] {
    return [...this.world.operations.values()].map((r) => structuredClone(r.json))
  }

  protected faultAnswer({status, message, details, rawBody}: FilestoreFault): HttpAnswer | undefined {
    if (status === undefined) return undefined
    const reply = grpcErrorReply(status, message ?? `Injected fault: ${status}.`, details)
    return new HttpAnswer(reply.httpStatus, rawBody ?? reply.body)
  }

  protected route(call: FilestoreCall, text: string): object {
    const unknown = () => httpError('NOT_FOUND', `The fake does not serve ${call.method} ${API_ROOT}${call.path}.`)
    // A path outside the API root, or a segment holding an escaped slash, names nothing the API has.
    const parts = call.path.split('/').map(decodeURIComponent)
    if (call.path.startsWith('/') || parts.some((part) => part.includes('/'))) throw unknown()
    const path = parts.join('/')
    const instance = INSTANCE.exec(path)
    if (instance && call.method === 'GET') return this.requireInstance(path)
    if (instance && call.method === 'DELETE') {
      return this.delete(path, {project: instance[1]!, location: instance[2]!, id: instance[3]!, verb: 'delete'})
    }
    const location = LOCATION.exec(path)
    if (location && call.method === 'POST') return this.create(location[1]!, location[2]!, call.query.instanceId, text)
    if (OPERATION.test(path) && call.method === 'GET') {
      const op = this.world.operations.get(path)
      if (!op) throw httpError('NOT_FOUND', filestoreSays.operationNotFound(path))
      return op.json
    }
    throw unknown()
  }

  private requireInstance(name: string): InstanceJson {
    const instance = this.world.instances.get(name)
    if (!instance) throw httpError('NOT_FOUND', filestoreSays.notFound(name))
    return instance
  }

  private create(project: string, location: string, id: string | undefined, text: string): OperationJson {
    if (!id) throw invalid('Field instance_id is required.')
    const asked = readInstance(parseMessage(text))
    const problem = createProblem(location, id, {...asked, tier: TIER_ALIASES[asked.tier] ?? asked.tier})
    if (problem) throw invalid(problem)
    const name = `projects/${project}/locations/${location}/instances/${id}`
    if (this.world.instances.has(name)) throw httpError('ALREADY_EXISTS', filestoreSays.alreadyExists(name))
    this.world.instances.set(
      name,
      this.newInstance(name, {
        tier: asked.tier,
        state: 'CREATING',
        ...(asked.description ? {description: asked.description} : {}),
        ...(Object.keys(asked.labels).length > 0 ? {labels: asked.labels} : {}),
        fileShares: [{...asked.share, capacityGb: String(asked.capacityGb)}],
        networks: [asked.networkConfig],
      }),
    )
    return this.startOperation({project, location, id, verb: 'create'}, name)
  }

  private delete(name: string, target: OperationTarget): OperationJson {
    const instance = this.requireInstance(name)
    if (instance.state === 'CREATING' || instance.state === 'DELETING') {
      throw httpError('FAILED_PRECONDITION', filestoreSays.busy(name, instance.state))
    }
    instance.state = 'DELETING'
    return this.startOperation(target, name)
  }

  private startOperation(target: OperationTarget, instance: string): OperationJson {
    const name = `projects/${target.project}/locations/${target.location}/operations/operation-${Date.now()}-${(++this.opCounter).toString(16).padStart(8, '0')}`
    const fault = takeFault(this.operationFaults, (f) => !f.match || f.match(target))
    const status = fault?.status ?? 'INTERNAL'
    const rec: OperationRecord = {
      target,
      instance,
      json: {
        name,
        metadata: {
          '@type': 'type.googleapis.com/google.cloud.common.OperationMetadata',
          createTime: new Date().toISOString(),
          target: instance,
          verb: target.verb,
          cancelRequested: false,
          apiVersion: 'v1',
        },
      },
      ...(fault
        ? {failure: {code: GRPC_STATUS.indexOf(status), message: fault.message ?? 'An internal error has occurred.'}}
        : {}),
    }
    this.world.operations.set(name, rec)
    const duration = fault?.durationMs ?? this.settings.operationMs
    if (duration <= 0) this.finish(rec)
    else this.active.start(rec, duration, (running) => this.finish(running))
    return structuredClone(rec.json)
  }

  /** The operation's outcome: the instance READY with an address, or gone; or the failure, nothing left of a create. */
  private finish(rec: OperationRecord): void {
    if (rec.json.done) return
    this.active.end(rec)
    rec.json.done = true
    rec.json.metadata.endTime = new Date().toISOString()
    const instance = this.world.instances.get(rec.instance)
    if (rec.failure) {
      rec.json.error = rec.failure
      if (rec.target.verb === 'create') this.world.instances.delete(rec.instance)
      else if (instance) instance.state = 'READY'
    } else if (rec.target.verb === 'delete') {
      this.world.instances.delete(rec.instance)
      rec.json.response = {'@type': 'type.googleapis.com/google.protobuf.Empty'}
    } else if (instance) {
      instance.state = 'READY'
      instance.networks[0]!.ipAddresses = [instanceAddress(this.world.addresses++)]
      rec.json.response = {
        '@type': 'type.googleapis.com/google.cloud.filestore.v1.Instance',
        ...structuredClone(instance),
      }
    }
  }

  private newInstance(name: string, fields: Omit<InstanceJson, 'name' | 'createTime' | 'etag' | 'satisfiesPzi'>) {
    return {
      name,
      createTime: new Date().toISOString(),
      etag: `"${(++this.etags).toString(16)}"`,
      satisfiesPzi: false,
      ...fields,
    }
  }
}

/** A JSON object body, or the refusal ESF gives anything else. */
function parseMessage(text: string): Record<string, unknown> {
  let body: unknown
  try {
    body = JSON.parse(text === '' ? '{}' : text)
  } catch {
    throw invalid('Invalid JSON payload received. Unexpected token.')
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('Invalid JSON payload received. Expected an object.')
  }
  return body as Record<string, unknown>
}

/** Refuses a field the message does not have, in ESF's words. */
function knownFields(value: unknown, fields: ReadonlySet<string>, at: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`Invalid JSON payload received. Expected an object at '${at}'.`)
  }
  for (const key of Object.keys(value)) {
    if (!fields.has(key)) {
      throw invalid(`Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`)
    }
  }
  return value as Record<string, unknown>
}

/** What a create request asks for, its fields checked by their proto types. */
function readInstance(body: Record<string, unknown>) {
  knownFields(body, FIELDS.instance, 'instance')
  const tier = body.tier === undefined ? 'TIER_UNSPECIFIED' : String(body.tier)
  if (!TIERS.includes(tier)) {
    throw invalid(
      `Invalid value at 'instance.tier' (type.googleapis.com/google.cloud.filestore.v1.Instance.Tier), "${tier}"`,
    )
  }
  const shares = Array.isArray(body.fileShares) ? body.fileShares : []
  const networks = Array.isArray(body.networks) ? body.networks : []
  if (shares.length !== 1) throw invalid(`instance.file_shares: one file share is supported, not ${shares.length}.`)
  if (networks.length !== 1) throw invalid(`instance.networks: one network is supported, not ${networks.length}.`)
  const share = knownFields(shares[0], FIELDS.fileShare, 'instance.file_shares[0]')
  const network = knownFields(networks[0], FIELDS.network, 'instance.networks[0]')
  const capacity = share.capacityGb
  if (!(typeof capacity === 'number' || (typeof capacity === 'string' && /^-?\d+$/.test(capacity)))) {
    throw invalid(`Invalid value at 'instance.file_shares[0].capacity_gb' (TYPE_INT64), ${JSON.stringify(capacity)}`)
  }
  for (const mode of Array.isArray(network.modes) ? network.modes : []) {
    if (mode !== 'MODE_IPV4' && mode !== 'ADDRESS_MODE_UNSPECIFIED') {
      throw invalid(
        `Invalid value at 'instance.networks[0].modes[0]' (type.googleapis.com/google.cloud.filestore.v1.NetworkConfig.AddressMode), "${String(mode)}"`,
      )
    }
  }
  const {ipAddresses: _outputOnly, ...networkConfig} = network
  return {
    tier,
    description: typeof body.description === 'string' ? body.description : undefined,
    share: share as {name: string},
    shareName: typeof share.name === 'string' ? share.name : '',
    capacityGb: Number(capacity),
    network: typeof network.network === 'string' ? network.network : '',
    networkConfig: {
      ...(networkConfig as {network: string}),
      modes: (network.modes as string[] | undefined) ?? ['MODE_IPV4'],
      connectMode: (network.connectMode as string | undefined) ?? 'DIRECT_PEERING',
    },
    labels: (body.labels ?? {}) as Record<string, string>,
  }
}
