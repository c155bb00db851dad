/**
 * The {@link ResourceManagerClient} port over the Cloud Resource Manager REST API v3
 * (cloudresourcemanager.googleapis.com/v3), through google-rest.ts as the other Google clients are: `projects.get`
 * and `projects.testIamPermissions`, the proto3 JSON mapping of google/cloud/resourcemanager/v3/projects.proto
 * reduced to the fields xpk reads (test/fakes/fake-resource-manager.md).
 */
import {projectApiError} from '../core/doctor/api-errors.js'
import {RESOURCE_MANAGER_ENDPOINT} from '../core/doctor/endpoints.js'
import {parseEndpointOverride} from '../core/endpoint.js'
import type {ProjectFound, ResourceManagerClient} from '../ports/resource-manager.js'
import {apiRoot, connectRest, failureCode, type GoogleConnection, type GoogleRest} from './google-rest.js'

const DEFAULT_BASE = 'https://cloudresourcemanager.googleapis.com/v3/'

/** google.cloud.resourcemanager.v3.Project: `name` is `projects/NUMBER`. */
export interface ApiProject {
  readonly name?: string
  readonly projectId?: string
  readonly state?: string
  readonly displayName?: string
}

export async function createResourceManagerClient(connection: GoogleConnection = {}): Promise<ResourceManagerClient> {
  const root = connection.endpoint
    ? apiRoot(parseEndpointOverride(connection.endpoint, RESOURCE_MANAGER_ENDPOINT), '/v3/')
    : {base: DEFAULT_BASE, insecure: false}
  const rest = await connectRest(root, connection, (failure, context) =>
    projectApiError(
      {code: failureCode(failure), message: failure.message, reasons: failure.reasons},
      {api: 'resource-manager', project: context.project, action: context.action},
    ),
  )
  return new ResourceManagerRestClient(rest)
}

export function toProject(api: ApiProject, projectId: string): ProjectFound {
  return {
    projectId: api.projectId ?? projectId,
    projectNumber: (api.name ?? '').split('/')[1] ?? '',
    state: api.state ?? 'STATE_UNSPECIFIED',
  }
}

const projectPath = (id: string) => `projects/${encodeURIComponent(id)}`

class ResourceManagerRestClient implements ResourceManagerClient {
  constructor(private readonly rest: GoogleRest) {}

  async getProject(projectId: string): Promise<ProjectFound> {
    const context = {action: `read project ${projectId}`, project: projectId, location: 'global'}
    const reply = await this.rest.request('GET', projectPath(projectId), context)
    return toProject(this.rest.json<ApiProject>(reply, context), projectId)
  }

  async testIamPermissions(projectId: string, permissions: readonly string[]): Promise<readonly string[]> {
    const context = {action: `test permissions on project ${projectId}`, project: projectId, location: 'global'}
    const reply = await this.rest.request('POST', `${projectPath(projectId)}:testIamPermissions`, context, {
      body: {permissions},
    })
    // An empty answer (`{}`) is proto3 JSON for "none of them".
    return [...(this.rest.json<{permissions?: string[]}>(reply, context).permissions ?? [])]
  }

  async close(): Promise<void> {
    // Nothing to release: idle keep-alive connections do not hold the process open.
  }
}
