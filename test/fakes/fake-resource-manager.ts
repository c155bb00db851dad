// A test double of the two Cloud Resource Manager v3 endpoints `xpk doctor` uses: projects.get and
// projects.testIamPermissions, served as the API answers them over real HTTP on loopback, so the production adapter
// (src/adapters/resource-manager-rest.ts) runs against it unmodified. Behaviour spec: fake-resource-manager.md.
import {googleErrorBody, HttpAnswer, JsonRestFake, type HttpCall, type HttpFaultMatch} from './fake-server.js'

export interface ResourceManagerFault extends HttpFaultMatch {
  readonly status?: number
  readonly message?: string
  readonly reason?: string
}

export interface SeedProject {
  readonly projectId: string
  readonly projectNumber?: string
  /** ACTIVE (default) or DELETE_REQUESTED. */
  readonly state?: string
  /** The permissions the caller holds on it. Default: none. */
  readonly granted?: readonly string[]
}

/** What Resource Manager answers for a project that is not there or not the caller's: one 403 for both. */
export const DENIED = (id: string) =>
  `Permission 'resourcemanager.projects.get' denied on resource '//cloudresourcemanager.googleapis.com/projects/${id}' (or it may not exist).`

const PERMISSION = /^[a-z][a-zA-Z0-9]*\.[a-zA-Z0-9]+\.[a-zA-Z0-9]+$/

const error = (status: number, message: string, reason?: string) =>
  new HttpAnswer(status, googleErrorBody(status, message, reason))

export class FakeResourceManager extends JsonRestFake<ResourceManagerFault> {
  protected readonly root = '/v3/'
  private readonly projects = new Map<string, Required<SeedProject>>()
  private numbers = 100000000000

  static start(): Promise<FakeResourceManager> {
    return new FakeResourceManager().listen('fake-resource-manager')
  }

  reset(): void {
    this.projects.clear()
    this.forget()
  }

  seedProject(seed: SeedProject): void {
    this.projects.set(seed.projectId, {
      projectId: seed.projectId,
      projectNumber: seed.projectNumber ?? String(++this.numbers),
      state: seed.state ?? 'ACTIVE',
      granted: [...(seed.granted ?? [])],
    })
  }

  protected faultAnswer({status, message, reason}: ResourceManagerFault): HttpAnswer | undefined {
    return status === undefined ? undefined : error(status, message ?? `Injected fault: HTTP ${status}.`, reason)
  }

  protected route(call: HttpCall, text: string): object {
    const match = /^projects\/([^/:]+)(:testIamPermissions)?$/.exec(call.path)
    if (!match || call.method !== (match[2] ? 'POST' : 'GET')) {
      throw error(404, `The fake does not serve ${call.method} ${call.path}.`, 'notFound')
    }
    const id = decodeURIComponent(match[1]!)
    const project = this.projects.get(id)
    if (!match[2]) {
      if (!project) throw error(403, DENIED(id), 'forbidden')
      return {
        name: `projects/${project.projectNumber}`,
        parent: 'organizations/1',
        projectId: project.projectId,
        state: project.state,
        displayName: project.projectId,
        createTime: '2024-01-01T00:00:00.000Z',
        updateTime: '2024-01-01T00:00:00.000Z',
        etag: 'W/"1"',
      }
    }
    let body: {permissions?: unknown}
    try {
      body = JSON.parse(text) as typeof body
    } catch {
      throw error(400, 'Invalid JSON payload received.', 'badRequest')
    }
    const asked = body?.permissions
    if (!Array.isArray(asked) || asked.length > 100) {
      throw error(400, 'The number of permissions must be between 1 and 100.', 'badRequest')
    }
    const bad = asked.find((p) => typeof p !== 'string' || !PERMISSION.test(p))
    if (bad !== undefined) throw error(400, `Permission ${String(bad)} is not valid.`, 'badRequest')
    if (!project) throw error(403, DENIED(id), 'forbidden')
    const held = asked.filter((p) => project.granted.includes(p as string))
    // proto3 JSON leaves an empty list out: `{}` means none of them.
    return held.length === 0 ? {} : {permissions: held}
  }
}
