// A test double of the Service Usage v1 endpoints `xpk doctor` uses: services.list (with `filter=state:ENABLED`,
// pages) and services.get, served as the API answers them over real HTTP on loopback, so the production adapter
// (src/adapters/service-usage-rest.ts) runs against it unmodified. Behaviour spec: fake-service-usage.md.
import {googleErrorBody, HttpAnswer, JsonRestFake, type HttpCall, type HttpFaultMatch} from './fake-server.js'

export interface ServiceUsageFault extends HttpFaultMatch {
  readonly status?: number
  readonly message?: string
  readonly reason?: string
}

/** Services every project has listed (disabled unless enabled), as the real list holds hundreds. */
const KNOWN = [
  'compute.googleapis.com',
  'container.googleapis.com',
  'file.googleapis.com',
  'storage.googleapis.com',
  'tpu.googleapis.com',
  'logging.googleapis.com',
  'monitoring.googleapis.com',
]

const error = (status: number, message: string, reason?: string) =>
  new HttpAnswer(status, googleErrorBody(status, message, reason))

export class FakeServiceUsage extends JsonRestFake<ServiceUsageFault> {
  protected readonly root = '/v1/'
  /** Enabled services by project; a project not here does not exist (403, as the API answers). */
  private readonly enabled = new Map<string, Set<string>>()
  /** Items per page. */
  pageSize = 200

  static start(): Promise<FakeServiceUsage> {
    return new FakeServiceUsage().listen('fake-service-usage')
  }

  reset(): void {
    this.enabled.clear()
    this.pageSize = 200
    this.forget()
  }

  /** A project with these services enabled (the others of the known ones listed as DISABLED). */
  seedProject(project: string, enabled: readonly string[]): void {
    this.enabled.set(project, new Set(enabled))
  }

  protected faultAnswer({status, message, reason}: ServiceUsageFault): HttpAnswer | undefined {
    return status === undefined ? undefined : error(status, message ?? `Injected fault: HTTP ${status}.`, reason)
  }

  protected route(call: HttpCall): object {
    const match = /^projects\/([^/]+)\/services(?:\/([^/]+))?$/.exec(call.path)
    if (!match || call.method !== 'GET')
      throw error(404, `The fake does not serve ${call.method} ${call.path}.`, 'notFound')
    const project = decodeURIComponent(match[1]!)
    const on = this.enabled.get(project)
    if (!on) {
      throw error(403, `Permission denied to list services for consumer container [projects/${project}]`, 'forbidden')
    }
    const service = (name: string) => ({
      name: `projects/${project}/services/${name}`,
      config: {name, title: name.split('.')[0]},
      state: on.has(name) ? 'ENABLED' : 'DISABLED',
      parent: `projects/${project}`,
    })
    if (match[2] !== undefined) return service(decodeURIComponent(match[2]))
    const filter = call.query.filter
    if (filter !== undefined && filter !== 'state:ENABLED' && filter !== 'state:DISABLED') {
      throw error(400, `Invalid filter: ${filter}`, 'badRequest')
    }
    const all = [...new Set([...KNOWN, ...on])].sort().map(service)
    const items = filter ? all.filter((s) => `state:${s.state}` === filter) : all
    const size = Math.min(Number(call.query.pageSize ?? this.pageSize) || this.pageSize, this.pageSize)
    const start = Number(call.query.pageToken ?? 0)
    const page = items.slice(start, start + size)
    const next = start + size < items.length ? String(start + size) : undefined
    return {services: page, ...(next ? {nextPageToken: next} : {})}
  }
}
