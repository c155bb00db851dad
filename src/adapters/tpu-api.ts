/**
 * The {@link TpuClient} port over the Cloud TPU v2 API (`@google-cloud/tpu`, gRPC). The SDK is imported lazily, on
 * first connection, so other commands never load it. gax's own retries are off on every call (`retry: null`):
 * services retry with xpk's backoff (src/core/retry.ts), so a transient failure is retried once per policy, not
 * twice nested.
 */
import type {protos} from '@google-cloud/tpu'
import type {TpuClient as GaxTpuClient} from '@google-cloud/tpu/build/src/v2/tpu_client.js'

import {XpkError} from '../core/errors.js'
import {shortName} from '../core/vm/naming.js'
import {tpuApiError} from '../core/vm/tpu-errors.js'
import {parseTpuEndpoint} from '../core/vm/endpoint.js'
import type {
  QueuedResource,
  QueuedResourceRequest,
  QueuedResourceState,
  TpuCapacity,
  TpuClient,
  TpuLocation,
  TpuNode,
  TpuOperation,
} from '../ports/tpu.js'

type ApiNode = protos.google.cloud.tpu.v2.INode
type ApiQueuedResource = protos.google.cloud.tpu.v2.IQueuedResource
type ApiOperation = protos.google.longrunning.IOperation

/** How to reach the TPU API. */
export interface TpuConnection {
  /** `https://HOST[:PORT]/`, or `http://127.0.0.1:PORT` (loopback only) for a local test server. */
  readonly endpoint?: string
  /** A static OAuth access token, used instead of Application Default Credentials. */
  readonly accessToken?: string
}

/** Per-call settings: no gax retries (ours only), and a bounded wait per call. */
const CALL = {retry: null, timeout: 60_000} as const

export async function createTpuClient(connection: TpuConnection = {}): Promise<TpuClient> {
  const [{TpuClient: GaxClient}, gax] = await Promise.all([
    import('@google-cloud/tpu/build/src/v2/tpu_client.js'),
    import('google-gax'),
  ])
  // The package's protos hold TPU v1, v2alpha1 and v2; parsing only v2 halves the client's construction (~120 ms).
  class V2OnlyGrpcClient extends gax.GrpcClient {
    override loadProtoJSON(
      json: Parameters<InstanceType<typeof gax.GrpcClient>['loadProtoJSON']>[0],
      ignoreCache = false,
    ) {
      return super.loadProtoJSON(onlyTpuV2(json), ignoreCache)
    }
  }
  const options: Record<string, unknown> = {}
  if (connection.endpoint) {
    const parsed = parseTpuEndpoint(connection.endpoint)
    Object.assign(options, {apiEndpoint: parsed.host, port: parsed.port, universeDomain: 'googleapis.com'})
    if (parsed.insecure) options.sslCreds = gax.grpc.credentials.createInsecure()
  }
  if (connection.accessToken) {
    const auth = new gax.googleAuthLibrary.OAuth2Client()
    auth.setCredentials({access_token: connection.accessToken})
    Object.assign(options, {authClient: auth, universeDomain: 'googleapis.com'})
  }
  type GaxInstance = ConstructorParameters<typeof GaxClient>[1]
  return new TpuApiClient(
    new GaxClient(
      options as ConstructorParameters<typeof GaxClient>[0],
      {
        ...gax,
        GrpcClient: V2OnlyGrpcClient,
      } as unknown as GaxInstance,
    ),
  )
}

/** The bundled protos with google.cloud.tpu reduced to v2, the only version this client calls. */
export function onlyTpuV2<T>(json: T): T {
  type Nested = {nested?: Record<string, Nested>}
  const root = json as Nested
  const google = root.nested?.google
  const cloud = google?.nested?.cloud
  const tpu = cloud?.nested?.tpu
  if (!google || !cloud || !tpu?.nested?.v2) return json
  const trimmedCloud = {...cloud, nested: {...cloud.nested, tpu: {...tpu, nested: {v2: tpu.nested.v2}}}}
  return {...root, nested: {...root.nested, google: {...google, nested: {...google.nested, cloud: trimmedCloud}}}} as T
}

const parent = (l: TpuLocation) => `projects/${l.project}/locations/${l.zone}`

function enumName(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback
}

function capacityOf(qr: ApiQueuedResource, node: ApiNode | undefined): TpuCapacity {
  if (qr.spot) return 'spot'
  if (node?.schedulingConfig?.reserved) return 'reserved'
  if (node?.schedulingConfig?.preemptible) return 'best-effort'
  return 'on-demand'
}

export function toNode(node: ApiNode): TpuNode {
  return {
    id: shortName(node.name ?? ''),
    ...(node.id ? {uid: String(node.id)} : {}),
    acceleratorType: node.acceleratorType ?? '',
    runtimeVersion: node.runtimeVersion ?? '',
    state: enumName(node.state, 'STATE_UNSPECIFIED'),
    ...(node.queuedResource ? {queuedResource: shortName(node.queuedResource)} : {}),
    workers: (node.networkEndpoints ?? []).map((e) => ({
      internalIp: e.ipAddress ?? '',
      ...(e.accessConfig?.externalIp ? {externalIp: e.accessConfig.externalIp} : {}),
    })),
    metadata: {...(node.metadata ?? {})},
  }
}

export function toQueuedResource(qr: ApiQueuedResource): QueuedResource {
  const specs = qr.tpu?.nodeSpec ?? []
  const first = specs[0]?.node ?? undefined
  const nodeIds = specs.flatMap((spec) => {
    const multi = spec.multisliceParams
    if (multi?.nodeCount) {
      const prefix = multi.nodeIdPrefix || shortName(qr.name ?? '')
      return Array.from({length: multi.nodeCount}, (_, i) => `${prefix}-${i}`)
    }
    return spec.nodeId ? [spec.nodeId] : []
  })
  const error = qr.state?.failedData?.error
  return {
    id: shortName(qr.name ?? ''),
    state: enumName(qr.state?.state, 'STATE_UNSPECIFIED') as QueuedResourceState,
    ...(error ? {failure: {code: error.code ?? 2, message: error.message ?? ''}} : {}),
    nodeIds,
    acceleratorType: first?.acceleratorType ?? '',
    runtimeVersion: first?.runtimeVersion ?? '',
    capacity: capacityOf(qr, first),
  }
}

function toOperation(op: ApiOperation): TpuOperation {
  return {
    name: op.name ?? '',
    done: Boolean(op.done),
    ...(op.error ? {error: {code: op.error.code ?? 2, message: op.error.message ?? ''}} : {}),
  }
}

/** The queued resource message for a request: one node spec, multislice when more than one slice. */
export function queuedResourceMessage(location: TpuLocation, request: QueuedResourceRequest): ApiQueuedResource {
  const node: ApiNode = {
    acceleratorType: request.acceleratorType,
    runtimeVersion: request.runtimeVersion,
    ...(request.metadata ? {metadata: {...request.metadata}} : {}),
    ...(request.capacity === 'reserved' ? {schedulingConfig: {reserved: true}} : {}),
    ...(request.capacity === 'best-effort' ? {schedulingConfig: {preemptible: true}} : {}),
  }
  const spec =
    request.numSlices === 1
      ? {parent: parent(location), nodeId: request.nodePrefix, node}
      : {
          parent: parent(location),
          multisliceParams: {nodeCount: request.numSlices, nodeIdPrefix: request.nodePrefix},
          node,
        }
  return {
    tpu: {nodeSpec: [spec]},
    ...(request.capacity === 'spot' ? {spot: {}} : {}),
    ...(request.reservation ? {reservationName: request.reservation} : {}),
  }
}

class TpuApiClient implements TpuClient {
  constructor(private readonly client: GaxTpuClient) {}

  private async call<T>(action: string, location: TpuLocation, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      const e = error as {code?: unknown; details?: string; message?: string}
      if (typeof e.code === 'number') {
        throw tpuApiError(
          {code: e.code, message: e.details || e.message || ''},
          {action, project: location.project, zone: location.zone},
        )
      }
      if (/default credentials|could not refresh access token|invalid_grant/i.test(e.message ?? '')) {
        throw new XpkError('auth', `Could not ${action}: no usable Google Cloud credentials.`, {
          hints: ['Run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS.'],
          cause: error,
        })
      }
      throw error
    }
  }

  private async orMissing<T>(action: string, location: TpuLocation, run: () => Promise<T>): Promise<T | undefined> {
    try {
      return await this.call(action, location, run)
    } catch (error) {
      if (error instanceof XpkError && error.kind === 'not-found') return undefined
      throw error
    }
  }

  async listNodes(location: TpuLocation): Promise<TpuNode[]> {
    const [nodes] = await this.call('list TPU nodes', location, () =>
      this.client.listNodes({parent: parent(location)}, CALL),
    )
    return nodes.map((n) => toNode(n))
  }

  async getNode(location: TpuLocation, id: string): Promise<TpuNode | undefined> {
    const result = await this.orMissing(`read TPU node ${id}`, location, () =>
      this.client.getNode({name: `${parent(location)}/nodes/${id}`}, CALL),
    )
    return result && toNode(result[0])
  }

  async listQueuedResources(location: TpuLocation): Promise<QueuedResource[]> {
    const [list] = await this.call('list queued resources', location, () =>
      this.client.listQueuedResources({parent: parent(location)}, CALL),
    )
    return list.map(toQueuedResource)
  }

  async getQueuedResource(location: TpuLocation, id: string): Promise<QueuedResource | undefined> {
    const result = await this.orMissing(`read queued resource ${id}`, location, () =>
      this.client.getQueuedResource({name: `${parent(location)}/queuedResources/${id}`}, CALL),
    )
    return result && toQueuedResource(result[0])
  }

  async createQueuedResource(location: TpuLocation, request: QueuedResourceRequest): Promise<TpuOperation> {
    const [, raw] = await this.call(`create queued resource ${request.id}`, location, () =>
      this.client.createQueuedResource(
        {
          parent: parent(location),
          queuedResourceId: request.id,
          queuedResource: queuedResourceMessage(location, request),
        },
        CALL,
      ),
    )
    return toOperation(raw ?? {})
  }

  async deleteQueuedResource(location: TpuLocation, id: string, force: boolean): Promise<TpuOperation> {
    const [, raw] = await this.call(`delete queued resource ${id}`, location, () =>
      this.client.deleteQueuedResource({name: `${parent(location)}/queuedResources/${id}`, force}, CALL),
    )
    return toOperation(raw ?? {})
  }

  async setNodeMetadata(
    location: TpuLocation,
    id: string,
    metadata: Readonly<Record<string, string>>,
  ): Promise<TpuOperation> {
    const [, raw] = await this.call(`update the metadata of TPU node ${id}`, location, () =>
      this.client.updateNode(
        {node: {name: `${parent(location)}/nodes/${id}`, metadata: {...metadata}}, updateMask: {paths: ['metadata']}},
        CALL,
      ),
    )
    return toOperation(raw ?? {})
  }

  async getOperation(name: string): Promise<TpuOperation> {
    const [, project = '', , zone = ''] = name.split('/')
    const [op] = await this.call(`read operation ${shortName(name)}`, {project, zone}, () =>
      this.client.getOperation({name} as Parameters<GaxTpuClient['getOperation']>[0], CALL),
    )
    return toOperation(op)
  }

  async close(): Promise<void> {
    await this.client.close()
  }
}
