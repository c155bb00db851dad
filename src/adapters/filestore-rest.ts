/**
 * The {@link FilestoreClient} port over the Filestore REST API v1 (file.googleapis.com/v1), through google-rest.ts as
 * the TPU and Compute Engine clients are. The client library (`@google-cloud/filestore`, over google-gax) is not a
 * dependency: four calls do not justify it, and loading it would cost `storage` commands start-up time. The messages
 * below are the proto3 JSON mapping of google/cloud/filestore/v1/cloud_filestore_service.proto, reduced to the fields
 * xpk sends and reads (test/fakes/fake-filestore.md says where each was checked).
 */

import {filestoreAction, filestoreApiError} from '../core/storage/api-errors.js'
import {FILESTORE_TIERS, type FilestoreState, type FilestoreTier} from '../core/storage/backends.js'
import {FILESTORE_ENDPOINT} from '../core/storage/endpoints.js'
import {parseEndpointOverride} from '../core/endpoint.js'
import type {
  FilestoreClient,
  FilestoreInstance,
  FilestoreInstanceRequest,
  FilestoreLocation,
  FilestoreOperation,
} from '../ports/filestore.js'
import {apiRoot, connectRest, failureCode, type GoogleConnection, type GoogleRest} from './google-rest.js'

const DEFAULT_BASE = 'https://file.googleapis.com/v1/'

/** google.cloud.filestore.v1.Instance; `capacityGb` is an int64, so a string in JSON (a number is read too). */
export interface ApiInstance {
  readonly name?: string
  readonly description?: string
  readonly state?: string
  readonly tier?: string
  readonly labels?: Readonly<Record<string, string>>
  readonly fileShares?: readonly {readonly name?: string; readonly capacityGb?: string | number}[]
  readonly networks?: readonly {
    readonly network?: string
    readonly modes?: readonly string[]
    readonly ipAddresses?: readonly string[]
  }[]
}

const STATES: ReadonlySet<string> = new Set<FilestoreState>([
  'CREATING',
  'READY',
  'REPAIRING',
  'DELETING',
  'ERROR',
  'RESTORING',
  'SUSPENDED',
  'SUSPENDING',
  'RESUMING',
  'REVERTING',
  'PROMOTING',
])

/** The tiers' old names, which the API still answers for instances made under them. */
const TIER_ALIASES: Readonly<Record<string, FilestoreTier>> = {
  STANDARD: 'BASIC_HDD',
  PREMIUM: 'BASIC_SSD',
  HIGH_SCALE_SSD: 'ZONAL',
}

/**
 * Creates the real Filestore client. The endpoint is `https://HOST[:PORT]/[PATH/]` (without a path, under `v1/`), or
 * `http://127.0.0.1:PORT` for a local test server, to which no credentials are sent; otherwise a static token is sent
 * as it is, or google-auth-library is imported for Application Default Credentials.
 */
export async function createFilestoreClient(connection: GoogleConnection = {}): Promise<FilestoreClient> {
  const root = connection.endpoint
    ? apiRoot(parseEndpointOverride(connection.endpoint, FILESTORE_ENDPOINT), '/v1/')
    : {base: DEFAULT_BASE, insecure: false}
  const rest = await connectRest(root, connection, (failure, context) =>
    filestoreApiError({code: failureCode(failure), message: failure.message, reasons: failure.reasons}, context),
  )
  return new FilestoreRestClient(rest)
}

const segment = encodeURIComponent
const locationPath = (l: FilestoreLocation) => `projects/${segment(l.project)}/locations/${segment(l.location)}`

/** The instance message of a create request: one file share and one network, as Python xpk sends them. */
export function instanceMessage(request: FilestoreInstanceRequest): ApiInstance {
  return {
    tier: request.tier,
    ...(request.description === undefined ? {} : {description: request.description}),
    ...(request.labels === undefined ? {} : {labels: {...request.labels}}),
    fileShares: [{name: request.fileShare.name, capacityGb: String(request.fileShare.capacityGb)}],
    networks: [{network: request.network, modes: ['MODE_IPV4']}],
  }
}

/** xpk's view of an instance; the tier's old names read as the new ones. `id` and `where` stand in for a missing name. */
export function toInstance(api: ApiInstance, where: FilestoreLocation, id: string): FilestoreInstance | string {
  const [, , , location = where.location, , name = id] = (api.name ?? '').split('/')
  const tierName = api.tier ?? ''
  const tier = TIER_ALIASES[tierName] ?? FILESTORE_TIERS.find((t) => t === tierName)
  if (!tier) return `its tier "${tierName}" is not one xpk knows (${FILESTORE_TIERS.join(', ')})`
  const network = api.networks?.[0]
  return {
    id: name,
    location,
    tier,
    state: STATES.has(api.state ?? '') ? (api.state as FilestoreState) : 'STATE_UNSPECIFIED',
    // A shared VPC's network comes as its full name (projects/HOST/global/networks/NAME).
    network: network?.network ? network.network.split('/').at(-1)! : null,
    ipAddress: network?.ipAddresses?.[0] ?? null,
    fileShares: (api.fileShares ?? []).map((share) => ({
      name: share.name ?? '',
      capacityGb: Number(share.capacityGb ?? 0),
    })),
    labels: {...api.labels},
  }
}

class FilestoreRestClient implements FilestoreClient {
  constructor(private readonly rest: GoogleRest) {}

  async getInstance(where: FilestoreLocation, id: string): Promise<FilestoreInstance | undefined> {
    const context = {...where, action: filestoreAction.read(id)}
    const api = await this.rest.getOrMissing<ApiInstance>(`${locationPath(where)}/instances/${segment(id)}`, context)
    if (!api) return undefined
    const instance = toInstance(api, where, id)
    if (typeof instance === 'string') {
      // UNIMPLEMENTED: a tier this xpk was not made for; re-running does not help, an upgrade might.
      throw filestoreApiError({code: 12, message: `instance ${id}: ${instance}`}, context)
    }
    return instance
  }

  async createInstance(
    where: FilestoreLocation,
    id: string,
    request: FilestoreInstanceRequest,
  ): Promise<FilestoreOperation> {
    const context = {...where, action: filestoreAction.create(id)}
    const path = `${locationPath(where)}/instances?instanceId=${segment(id)}`
    return this.rest.operation('POST', path, context, instanceMessage(request))
  }

  async deleteInstance(where: FilestoreLocation, id: string): Promise<FilestoreOperation> {
    const context = {...where, action: filestoreAction.delete(id)}
    return this.rest.operation('DELETE', `${locationPath(where)}/instances/${segment(id)}`, context)
  }

  async getOperation(name: string): Promise<FilestoreOperation> {
    const [, project = '', , location = ''] = name.split('/')
    const context = {project, location, action: filestoreAction.operation(name)}
    return this.rest.operation('GET', name.split('/').map(segment).join('/'), context)
  }

  async close(): Promise<void> {
    // Nothing to release: idle keep-alive connections do not hold the process open.
  }
}
