// In-memory fakes of the Resource Manager and Service Usage ports, for the doctor's service tests; held to the REST
// adapters over FakeResourceManager and FakeServiceUsage by project-apis-contract.test.ts:
//   - a project not seeded, like a project that is not the caller's, is PERMISSION_DENIED on every call;
//   - testIamPermissions answers the asked permissions the caller holds, in the order asked;
//   - failures are ApiErrors classified as the adapters classify the APIs' answers (projectApiError).
import {GRPC_STATUS} from '../../src/core/cluster/gke-errors.js'
import {projectApiError, type ProjectApi} from '../../src/core/doctor/api-errors.js'
import type {ProjectFound, ResourceManagerClient} from '../../src/ports/resource-manager.js'
import type {ServiceUsageClient} from '../../src/ports/service-usage.js'
import {DENIED} from './fake-resource-manager.js'

export interface ProjectFailure {
  readonly status: (typeof GRPC_STATUS)[number]
  readonly message: string
}

const fail = (api: ProjectApi, project: string, action: string, failure: ProjectFailure) =>
  projectApiError({code: GRPC_STATUS.indexOf(failure.status), message: failure.message}, {api, project, action})

export class MemoryResourceManager implements ResourceManagerClient {
  readonly projects = new Map<string, ProjectFound & {granted: readonly string[]}>()
  readonly log: string[] = []
  private readonly failing: ProjectFailure[] = []

  seedProject(
    projectId: string,
    granted: readonly string[] = [],
    state = 'ACTIVE',
    projectNumber = '123456789012',
  ): this {
    this.projects.set(projectId, {projectId, projectNumber, state, granted})
    return this
  }

  /** The next call fails as the API's answer `failure` would. */
  failNext(failure: ProjectFailure): this {
    this.failing.push(failure)
    return this
  }

  async getProject(projectId: string): Promise<ProjectFound> {
    this.log.push(`getProject ${projectId}`)
    const action = `read project ${projectId}`
    const injected = this.failing.shift()
    if (injected) throw fail('resource-manager', projectId, action, injected)
    const found = this.projects.get(projectId)
    if (!found)
      throw fail('resource-manager', projectId, action, {status: 'PERMISSION_DENIED', message: DENIED(projectId)})
    const {granted: _granted, ...project} = found
    return project
  }

  async testIamPermissions(projectId: string, permissions: readonly string[]): Promise<readonly string[]> {
    this.log.push(`testIamPermissions ${projectId}`)
    const action = `test permissions on project ${projectId}`
    const injected = this.failing.shift()
    if (injected) throw fail('resource-manager', projectId, action, injected)
    const found = this.projects.get(projectId)
    if (!found)
      throw fail('resource-manager', projectId, action, {status: 'PERMISSION_DENIED', message: DENIED(projectId)})
    return permissions.filter((p) => found.granted.includes(p))
  }

  async close(): Promise<void> {}
}

export class MemoryServiceUsage implements ServiceUsageClient {
  readonly enabled = new Map<string, readonly string[]>()
  readonly log: string[] = []
  private readonly failing: ProjectFailure[] = []

  seedProject(project: string, enabled: readonly string[]): this {
    this.enabled.set(project, enabled)
    return this
  }

  failNext(failure: ProjectFailure): this {
    this.failing.push(failure)
    return this
  }

  async listEnabledServices(project: string): Promise<readonly string[]> {
    this.log.push(`listEnabledServices ${project}`)
    return [...this.read(project, `list the enabled APIs of project ${project}`)].sort()
  }

  async isServiceEnabled(project: string, service: string): Promise<boolean> {
    this.log.push(`isServiceEnabled ${project} ${service}`)
    return this.read(project, `read API ${service} of project ${project}`).includes(service)
  }

  private read(project: string, action: string): readonly string[] {
    const injected = this.failing.shift()
    if (injected) throw fail('service-usage', project, action, injected)
    const on = this.enabled.get(project)
    if (!on) {
      throw fail('service-usage', project, action, {
        status: 'PERMISSION_DENIED',
        message: `Permission denied to list services for consumer container [projects/${project}]`,
      })
    }
    return on
  }

  async close(): Promise<void> {}
}
