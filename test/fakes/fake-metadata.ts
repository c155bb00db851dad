// A test double of one Compute Engine VM's metadata server (the instance's attributes and its service account's token),
// for scripts that run on a TPU VM: the detached job's startup script reads it through GCE_METADATA_HOST, as Google's
// libraries do. One fake per VM (worker), as each VM has its own. Behaviour spec: fake-metadata.md next to this file.
import type {IncomingMessage, ServerResponse} from 'node:http'

import {closeServer, serveWithFaults, startHttpServer, Timers, type Fault, type StartedServer} from './fake-server.js'

const ROOT = '/computeMetadata/v1/'

/** A request, as the log keeps it. */
export interface MetadataCall {
  readonly method: string
  /** The path below `/computeMetadata/v1/` (`instance/attributes/tpu-env`), decoded. */
  readonly path: string
  /** Whether it carried `Metadata-Flavor: Google`. */
  readonly flavored: boolean
  readonly at: number
  status?: number
}

/** An injected fault: requests whose path (below `/computeMetadata/v1/`) fits are answered `status`, or only delayed. */
export interface MetadataFault extends Fault {
  readonly path?: string | RegExp
  readonly status?: number
}

export interface FakeMetadataOptions {
  /** The instance's custom metadata (`instance/attributes/<key>`). */
  readonly attributes?: Readonly<Record<string, string>>
  /** The default service account's access token. Default `fake-token`. */
  readonly token?: string
  /** The default service account's email. */
  readonly email?: string
}

// The real server's words (its pages are HTML; only the sentence matters to a client).
const MISSING_FLAVOR = 'Missing Metadata-Flavor:Google header.'
const FORWARDED = 'Request had a X-Forwarded-For header and was rejected.'

export class FakeMetadata {
  readonly calls: MetadataCall[] = []
  readonly faults: MetadataFault[] = []
  /** The attributes served; tests change them at will (a key deleted is a 404). */
  readonly attributes: Map<string, string>
  token: string
  email: string
  private readonly timers = new Timers()
  private started: StartedServer | undefined
  private stopped = false

  private constructor(options: FakeMetadataOptions) {
    this.attributes = new Map(Object.entries(options.attributes ?? {}))
    this.token = options.token ?? 'fake-token'
    this.email = options.email ?? 'worker@p.iam.gserviceaccount.com'
  }

  static async start(options: FakeMetadataOptions = {}): Promise<FakeMetadata> {
    const fake = new FakeMetadata(options)
    fake.started = await startHttpServer('fake-metadata', (request, response) => fake.handle(request, response))
    return fake
  }

  /** `127.0.0.1:PORT`: the value of GCE_METADATA_HOST. */
  get host(): string {
    if (!this.started) throw new Error('fake-metadata: not started')
    return `127.0.0.1:${this.started.port}`
  }

  /** Requests for a path (below `/computeMetadata/v1/`), in arrival order. */
  callsTo(path: string): MetadataCall[] {
    return this.calls.filter((c) => c.path === path)
  }

  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    this.timers.clear()
    if (this.started) await closeServer(this.started.server)
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://metadata.google.internal')
    const path = url.pathname.startsWith(ROOT) ? decodeURIComponent(url.pathname.slice(ROOT.length)) : url.pathname
    const flavored = request.headers['metadata-flavor'] === 'Google'
    const call: MetadataCall = {method: request.method ?? 'GET', path, flavored, at: Date.now()}
    this.calls.push(call)
    request.resume()
    const answer = (status: number, body: string, type = 'application/text') => {
      call.status = status
      response.writeHead(status, {'content-type': type, 'metadata-flavor': 'Google', server: 'Metadata Server for VM'})
      response.end(body)
    }
    // The checks of the real server come before anything else: no fault is played on a refused request.
    if (request.headers['x-forwarded-for'] !== undefined) return answer(403, `${FORWARDED}\n`, 'text/html')
    if (!flavored) return answer(403, `${MISSING_FLAVOR}\n`, 'text/html')
    const outcome = await serveWithFaults({
      faults: this.faults,
      fits: (f) => f.path === undefined || (typeof f.path === 'string' ? path.includes(f.path) : f.path.test(path)),
      answers: (f) => f.status !== undefined,
      latencyMs: 0,
      timers: this.timers,
      stopped: () => this.stopped,
      serve: () => this.route(call.method, path),
    })
    if (outcome.kind === 'stopped') return
    if (outcome.kind === 'fault')
      return answer(outcome.fault.status!, `Injected fault: HTTP ${outcome.fault.status}.\n`)
    answer(outcome.value.status, outcome.value.body, outcome.value.type)
  }

  private route(method: string, path: string): {status: number; body: string; type?: string} {
    if (method !== 'GET') return {status: 405, body: 'Method Not Allowed\n', type: 'text/html'}
    if (path === 'instance/attributes/') {
      return {status: 200, body: [...this.attributes.keys()].map((k) => `${k}\n`).join('')}
    }
    if (path.startsWith('instance/attributes/')) {
      const value = this.attributes.get(path.slice('instance/attributes/'.length))
      if (value !== undefined) return {status: 200, body: value}
    }
    if (path === 'instance/service-accounts/default/token') {
      const body = JSON.stringify({access_token: this.token, expires_in: 3599, token_type: 'Bearer'})
      return {status: 200, body, type: 'application/json'}
    }
    if (path === 'instance/service-accounts/default/email') return {status: 200, body: this.email}
    return {status: 404, body: 'Not Found\n', type: 'text/html'}
  }
}
