/**
 * The {@link TpuClient} port over the Cloud TPU v2 REST API (tpu.googleapis.com/v2), through google-rest.ts as GKE
 * and Compute Engine are. The client library (`@google-cloud/tpu` over google-gax and grpc-js) is not used: loading
 * it and parsing its protos cost a `vm` command several times its own CPU before its first request (README, Speed). The
 * messages below are the proto3 JSON mapping of google/cloud/tpu/v2/cloud_tpu.proto, reduced to the fields xpk
 * sends and reads; test/adapters/tpu-api.test.ts checks that they reach the API as the library's own REST transport
 * sends them.
 */

import type {ApiContext} from '../core/cluster/gke-errors.js'
import {parseTpuEndpoint} from '../core/vm/endpoint.js'
import {shortName} from '../core/vm/naming.js'
import {tpuApiError} from '../core/vm/tpu-errors.js'
import type {
  NodeRequest,
  QueuedResource,
  QueuedResourceRequest,
  QueuedResourceState,
  TpuCapacity,
  TpuClient,
  TpuLocation,
  TpuNode,
  TpuOperation,
} from '../ports/tpu.js'
import {
  apiRoot,
  connectRest,
  failureCode,
  type ApiStatus,
  type GoogleConnection,
  type GoogleRest,
} from './google-rest.js'

/**
 * How to reach the TPU API. The endpoint is `https://HOST[:PORT]/[PATH/]` (without a path, `v2/` is appended), or
 * `http://127.0.0.1:PORT` (loopback only, no credentials sent) for a local test server.
 */
export type TpuConnection = GoogleConnection

const DEFAULT_BASE = 'https://tpu.googleapis.com/v2/'

/** google.cloud.tpu.v2.Node; `id` is an int64, so a string in JSON. */
export interface ApiNode {
  readonly name?: string
  readonly id?: string
  readonly acceleratorType?: string
  readonly runtimeVersion?: string
  readonly state?: string
  readonly queuedResource?: string
  readonly networkEndpoints?: readonly {
    readonly ipAddress?: string
    readonly port?: number
    readonly accessConfig?: {readonly externalIp?: string}
  }[]
  readonly metadata?: Readonly<Record<string, string>>
  readonly labels?: Readonly<Record<string, string>>
  readonly tags?: readonly string[]
  readonly schedulingConfig?: {readonly preemptible?: boolean; readonly reserved?: boolean; readonly spot?: boolean}
}

/** google.cloud.tpu.v2.QueuedResource.Tpu.NodeSpec */
interface ApiNodeSpec {
  readonly parent?: string
  readonly nodeId?: string
  readonly multisliceParams?: {readonly nodeCount?: number; readonly nodeIdPrefix?: string}
  readonly node?: ApiNode
}

/** google.cloud.tpu.v2.QueuedResource; `spot` is an empty message whose presence asks for Spot capacity. */
export interface ApiQueuedResource {
  readonly name?: string
  readonly tpu?: {readonly nodeSpec?: readonly ApiNodeSpec[]}
  readonly spot?: Record<string, never>
  readonly reservationName?: string
  readonly state?: {readonly state?: string; readonly failedData?: {readonly error?: ApiStatus}}
}

/**
 * Creates the real TPU client. Plain http (a loopback test server) sends no credentials; a static token is sent as
 * it is; otherwise google-auth-library is imported for Application Default Credentials.
 */
export async function createTpuClient(connection: TpuConnection = {}): Promise<TpuClient> {
  // Without a path, `v2/` under the host; else the path given (e.g. a proxy's).
  const root = connection.endpoint
    ? apiRoot(parseTpuEndpoint(connection.endpoint), '/v2/')
    : {base: DEFAULT_BASE, insecure: false}
  const rest = await connectRest(root, connection, (failure, context) =>
    tpuApiError(
      {code: failureCode(failure), message: failure.message},
      {action: context.action, project: context.project, zone: context.location},
    ),
  )
  return new TpuRestClient(rest)
}

const segment = encodeURIComponent
const locationPath = (l: TpuLocation) => `projects/${segment(l.project)}/locations/${segment(l.zone)}`
/** The parent the API names in node specs: the same location, unescaped (the names are checked by the core). */
const parent = (l: TpuLocation) => `projects/${l.project}/locations/${l.zone}`

/** The REST API sends enums by name and leaves out default values; absent values get the fallback. */
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
  const first = specs[0]?.node
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

/** The queued resource message for a request: one node spec, multislice when more than one slice. */
export function queuedResourceMessage(location: TpuLocation, request: QueuedResourceRequest): ApiQueuedResource {
  const node: ApiNode = {
    acceleratorType: request.acceleratorType,
    runtimeVersion: request.runtimeVersion,
    ...(request.metadata ? {metadata: {...request.metadata}} : {}),
    ...(request.capacity === 'reserved' ? {schedulingConfig: {reserved: true}} : {}),
    ...(request.capacity === 'best-effort' ? {schedulingConfig: {preemptible: true}} : {}),
  }
  const spec: ApiNodeSpec =
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

/** The node message of CreateNode: Spot and preemptible capacity are the node's scheduling config. */
export function nodeMessage(request: NodeRequest): ApiNode {
  const metadata = {
    ...(request.metadata ?? {}),
    ...(request.startupScript === undefined ? {} : {'startup-script': request.startupScript}),
  }
  return {
    acceleratorType: request.acceleratorType,
    runtimeVersion: request.runtimeVersion,
    ...(Object.keys(metadata).length > 0 ? {metadata} : {}),
    ...(request.labels && Object.keys(request.labels).length > 0 ? {labels: {...request.labels}} : {}),
    ...(request.tags && request.tags.length > 0 ? {tags: [...request.tags]} : {}),
    ...(request.capacity === 'spot' ? {schedulingConfig: {spot: true}} : {}),
    ...(request.capacity === 'preemptible' ? {schedulingConfig: {preemptible: true}} : {}),
  }
}

/** A list response: the items under `key`, and the token of the next page when there is one. */
type Page<K extends string, T> = {readonly [key in K]?: readonly T[]} & {readonly nextPageToken?: string}

/**
 * No call retries by itself (src/executor/retry.ts is the only retry policy); the request timeout (GoogleRest) bounds
 * one attempt.
 */
class TpuRestClient implements TpuClient {
  constructor(private readonly rest: GoogleRest) {}

  private context(action: string, location: TpuLocation): ApiContext {
    return {action, project: location.project, location: location.zone}
  }

  /** Every item of a list, page after page (the API pages at its own default size). */
  private async list<K extends string, T>(path: string, key: K, context: ApiContext): Promise<T[]> {
    const items: T[] = []
    let token: string | undefined
    do {
      const query = token ? `?pageToken=${encodeURIComponent(token)}` : ''
      const page = this.rest.json<Page<K, T>>(await this.rest.request('GET', path + query, context), context)
      items.push(...((page[key] ?? []) as readonly T[]))
      token = page.nextPageToken || undefined
    } while (token)
    return items
  }

  async listNodes(location: TpuLocation): Promise<TpuNode[]> {
    const context = this.context('list TPU nodes', location)
    const nodes = await this.list<'nodes', ApiNode>(`${locationPath(location)}/nodes`, 'nodes', context)
    return nodes.map(toNode)
  }

  async getNode(location: TpuLocation, id: string): Promise<TpuNode | undefined> {
    const context = this.context(`read TPU node ${id}`, location)
    const node = await this.rest.getOrMissing<ApiNode>(`${locationPath(location)}/nodes/${segment(id)}`, context)
    return node && toNode(node)
  }

  async createNode(location: TpuLocation, request: NodeRequest): Promise<TpuOperation> {
    const context = this.context(`create TPU node ${request.id}`, location)
    const path = `${locationPath(location)}/nodes?nodeId=${segment(request.id)}`
    return this.rest.operation('POST', path, context, nodeMessage(request))
  }

  async deleteNode(location: TpuLocation, id: string): Promise<TpuOperation> {
    const context = this.context(`delete TPU node ${id}`, location)
    return this.rest.operation('DELETE', `${locationPath(location)}/nodes/${segment(id)}`, context)
  }

  async listQueuedResources(location: TpuLocation): Promise<QueuedResource[]> {
    const context = this.context('list queued resources', location)
    const path = `${locationPath(location)}/queuedResources`
    const list = await this.list<'queuedResources', ApiQueuedResource>(path, 'queuedResources', context)
    return list.map(toQueuedResource)
  }

  async getQueuedResource(location: TpuLocation, id: string): Promise<QueuedResource | undefined> {
    const context = this.context(`read queued resource ${id}`, location)
    const path = `${locationPath(location)}/queuedResources/${segment(id)}`
    const qr = await this.rest.getOrMissing<ApiQueuedResource>(path, context)
    return qr && toQueuedResource(qr)
  }

  async createQueuedResource(location: TpuLocation, request: QueuedResourceRequest): Promise<TpuOperation> {
    const context = this.context(`create queued resource ${request.id}`, location)
    const path = `${locationPath(location)}/queuedResources?queuedResourceId=${segment(request.id)}`
    return this.rest.operation('POST', path, context, queuedResourceMessage(location, request))
  }

  async deleteQueuedResource(location: TpuLocation, id: string, force: boolean): Promise<TpuOperation> {
    const context = this.context(`delete queued resource ${id}`, location)
    const path = `${locationPath(location)}/queuedResources/${segment(id)}${force ? '?force=true' : ''}`
    return this.rest.operation('DELETE', path, context)
  }

  async setNodeMetadata(
    location: TpuLocation,
    id: string,
    metadata: Readonly<Record<string, string>>,
  ): Promise<TpuOperation> {
    const context = this.context(`update the metadata of TPU node ${id}`, location)
    // The update mask names the one field replaced; the node's other fields are left as they are.
    const path = `${locationPath(location)}/nodes/${segment(id)}?updateMask=metadata`
    return this.rest.operation('PATCH', path, context, {metadata: {...metadata}} satisfies ApiNode)
  }

  async getOperation(name: string): Promise<TpuOperation> {
    const [, project = '', , zone = ''] = name.split('/')
    const context = this.context(`read operation ${shortName(name)}`, {project, zone})
    const path = name.split('/').map(segment).join('/')
    return this.rest.operation('GET', path, context)
  }

  async close(): Promise<void> {
    // Nothing to release: idle keep-alive connections do not hold the process open.
  }
}
