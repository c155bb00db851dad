/**
 * The {@link ServiceUsageClient} port over the Service Usage REST API v1 (serviceusage.googleapis.com/v1), through
 * google-rest.ts: `services.list` filtered to the enabled ones (every page) and `services.get`, the proto3 JSON
 * mapping of google/api/serviceusage/v1/resources.proto reduced to the fields xpk reads
 * (test/fakes/fake-service-usage.md).
 */
import {projectApiError} from '../core/doctor/api-errors.js'
import {SERVICE_USAGE_ENDPOINT} from '../core/doctor/endpoints.js'
import {parseEndpointOverride} from '../core/endpoint.js'
import type {ServiceUsageClient} from '../ports/service-usage.js'
import {apiRoot, connectRest, failureCode, type GoogleConnection, type GoogleRest} from './google-rest.js'

const DEFAULT_BASE = 'https://serviceusage.googleapis.com/v1/'

/** google.api.serviceusage.v1.Service: `name` is `projects/NUMBER/services/NAME`; `state` ENABLED or DISABLED. */
export interface ApiService {
  readonly name?: string
  readonly config?: {readonly name?: string; readonly title?: string}
  readonly state?: string
}

export async function createServiceUsageClient(connection: GoogleConnection = {}): Promise<ServiceUsageClient> {
  const root = connection.endpoint
    ? apiRoot(parseEndpointOverride(connection.endpoint, SERVICE_USAGE_ENDPOINT), '/v1/')
    : {base: DEFAULT_BASE, insecure: false}
  const rest = await connectRest(root, connection, (failure, context) =>
    projectApiError(
      {code: failureCode(failure), message: failure.message, reasons: failure.reasons},
      {api: 'service-usage', project: context.project, action: context.action},
    ),
  )
  return new ServiceUsageRestClient(rest)
}

/** A service's name: its config's, else the last part of its resource name. */
export function serviceName(api: ApiService): string {
  return api.config?.name ?? (api.name ?? '').split('/').at(-1) ?? ''
}

const servicesPath = (project: string) => `projects/${encodeURIComponent(project)}/services`

class ServiceUsageRestClient implements ServiceUsageClient {
  constructor(private readonly rest: GoogleRest) {}

  async listEnabledServices(project: string): Promise<readonly string[]> {
    const context = {action: `list the enabled APIs of project ${project}`, project, location: 'global'}
    const names: string[] = []
    let token: string | undefined
    do {
      const query = `filter=${encodeURIComponent('state:ENABLED')}&pageSize=200${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`
      const reply = await this.rest.request('GET', `${servicesPath(project)}?${query}`, context)
      const page = this.rest.json<{services?: ApiService[]; nextPageToken?: string}>(reply, context)
      names.push(...(page.services ?? []).filter((s) => s.state === 'ENABLED').map(serviceName))
      token = page.nextPageToken || undefined
    } while (token)
    return names
  }

  async isServiceEnabled(project: string, service: string): Promise<boolean> {
    const context = {action: `read API ${service} of project ${project}`, project, location: 'global'}
    const reply = await this.rest.request('GET', `${servicesPath(project)}/${encodeURIComponent(service)}`, context)
    return this.rest.json<ApiService>(reply, context).state === 'ENABLED'
  }

  async close(): Promise<void> {
    // Nothing to release: idle keep-alive connections do not hold the process open.
  }
}
