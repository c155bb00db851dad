/**
 * How xpk's Kubernetes client reaches the API server: HTTPS requests over kept-alive connections with one TLS context,
 * the credentials of each request, answers read (gunzipped) and failures made XpkErrors. What is asked, and where a
 * kind's objects are, is kube-verbs.ts's and kube-discovery.ts's; kube-client.ts connects them.
 */
import type {IncomingMessage} from 'node:http'
import {Agent, request} from 'node:https'
import {createSecureContext, type SecureContext} from 'node:tls'
import type {Readable} from 'node:stream'
import {createGunzip, gunzipSync} from 'node:zlib'

import {UsageError, XpkError} from '../core/errors.js'
import {redactCredentials} from '../core/text.js'
import {kubeApiError, kubeNetworkError, type KubeStatusBody} from '../core/kube/kube-errors.js'

export interface TlsSettings {
  readonly ca?: string | Buffer
  readonly cert?: Buffer
  readonly key?: Buffer
  readonly servername?: string
  readonly rejectUnauthorized?: boolean
}

export interface TransportOptions {
  /** Where the client talks to, for messages (the API server URL or the kubeconfig context). */
  readonly target: string
  readonly tls: TlsSettings
  /** Headers that authenticate one request (Authorization, impersonation). */
  readonly auth: () => Promise<Record<string, string>>
  readonly proxyAgent?: () => Promise<Agent>
}

export interface Reply {
  readonly status: number
  readonly text: string
}

interface RawReply {
  readonly status: number
  readonly body: Buffer
  /** Whether `body` is gzip-compressed (Content-Encoding). */
  readonly gzip: boolean
}

/** The answer's text, gunzipped if it came compressed; throws when it is not the gzip it says it is. */
function decode(raw: RawReply): Reply {
  return {status: raw.status, text: (raw.gzip ? gunzipSync(raw.body) : raw.body).toString('utf8')}
}

/**
 * Sockets kept open to the API server: enough for the widest wave of requests xpk sends at once (a release's
 * objects, one list per kind), so a wave costs one round trip, and few enough that a burst cannot open hundreds
 * of TLS connections.
 */
const MAX_SOCKETS = 32
/** A request that sends or receives nothing for this long is given up (and retried by the caller's policy). */
export const IDLE_TIMEOUT_MS = 60_000
/**
 * A watch that carries nothing for this long ends (the caller watches again from where it was). The watch asks
 * for bookmarks, which the API server sends about once a minute, so a live but quiet watch is never this idle.
 */
export const WATCH_IDLE_MS = 5 * 60_000

/** HTTPS requests to one API server over kept-alive connections sharing one TLS context. */
export class HttpsTransport {
  private readonly url: URL
  private readonly agent: Agent
  private proxy?: Promise<Agent>

  constructor(
    server: string,
    private readonly options: TransportOptions,
  ) {
    this.url = new URL(server)
    if (this.url.protocol !== 'https:') {
      throw new UsageError(`The Kubernetes API server ${redactCredentials(server)} is not an https:// URL.`, {
        hints: ['xpk talks to the API server over HTTPS only.'],
      })
    }
    const {ca, cert, key, servername, rejectUnauthorized} = options.tls
    // One secure context for every connection: building one per connection parses the CA each time.
    const secureContext: SecureContext = createSecureContext({ca, cert, key})
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: MAX_SOCKETS,
      secureContext,
      ...(servername ? {servername} : {}),
      ...(rejectUnauthorized === false ? {rejectUnauthorized: false} : {}),
    })
  }

  /** The request's credentials; a kubeconfig's exec plugin or auth provider that fails is an auth error. */
  private async credentials(): Promise<Record<string, string>> {
    try {
      return await this.options.auth()
    } catch (error) {
      throw new XpkError('auth', `Could not get credentials for ${this.url.origin}: ${(error as Error).message}`, {
        hints: [
          "Check the kubeconfig user's credentials (e.g. run its exec plugin by hand), or pass another --context.",
        ],
        cause: error,
      })
    }
  }

  /** Sends a request and reads the whole answer as the bytes that came (still compressed, if they were). */
  private async receive(method: string, path: string, query: Query, body?: Body): Promise<RawReply> {
    const res = await this.open(method, path, query, {body, gzip: true, idleMs: IDLE_TIMEOUT_MS})
    return new Promise<RawReply>((resolve, reject) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks),
          gzip: res.headers['content-encoding'] === 'gzip',
        }),
      )
    })
  }

  /** Sends a request and resolves with the answer's head; its body is the caller's to read. */
  async open(
    method: string,
    path: string,
    query: Query,
    options: {readonly body?: Body; readonly gzip?: boolean; readonly idleMs: number; readonly signal?: AbortSignal},
  ): Promise<IncomingMessage> {
    const params = new URLSearchParams()
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value))
    const search = params.size > 0 ? `?${params}` : ''
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'xpk',
      // The API server compresses large answers (an applied CRD comes back whole: 0.7 MB of JSON for Kueue's Workload).
      ...(options.gzip ? {'accept-encoding': 'gzip'} : {}),
      ...(await this.credentials()),
    }
    const body = options.body
    if (body) {
      headers['content-type'] = body.contentType
      headers['content-length'] = String(Buffer.byteLength(body.text))
    }
    const agent = this.options.proxyAgent ? await (this.proxy ??= this.options.proxyAgent()) : this.agent
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        {
          // URL.hostname keeps an IPv6 address in brackets; the socket wants it bare.
          hostname: this.url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: this.url.port || 443,
          method,
          path: `${this.url.pathname.replace(/\/$/, '')}${path}${search}`,
          headers,
          agent,
          timeout: options.idleMs,
          signal: options.signal,
        },
        resolve,
      )
      req.on('timeout', () => req.destroy(new IdleTimeout(options.idleMs)))
      req.on('error', reject)
      req.end(body?.text)
    })
  }

  /** Where the client talks to, for messages. */
  get target(): string {
    return this.options.target
  }

  /**
   * Sends a request; an answer that is neither success nor 404 becomes an error, as does no answer at all. (A 404
   * to an apply is the caller's to explain: a kind not served, or a missing namespace.)
   */
  async send(doing: string, method: string, path: string, query: Query, body?: Body): Promise<Reply> {
    const reply = await this.receiveOk(doing, method, path, query, body)
    try {
      return decode(reply)
    } catch (error) {
      throw this.failure(error, doing)
    }
  }

  /**
   * Opens an answer that streams for long (a watch, a followed log; only {@link WATCH_IDLE_MS} of silence ends it):
   * its head when the server said 200, else its status and text; undefined when `signal` aborted the opening.
   */
  async openStream(
    doing: string,
    path: string,
    query: Query,
    signal: AbortSignal,
  ): Promise<{readonly ok: IncomingMessage} | {readonly status: number; readonly text: string} | undefined> {
    let res: IncomingMessage
    try {
      res = await this.open('GET', path, query, {idleMs: WATCH_IDLE_MS, signal})
    } catch (error) {
      if (signal.aborted) return undefined
      throw this.failure(error, doing)
    }
    if (res.statusCode === 200) return {ok: res}
    return {status: res.statusCode ?? 0, text: await readText(res).catch(() => '')}
  }

  /** The answer's JSON. @throws XpkError when it is not JSON */
  parse(reply: Reply, doing: string): unknown {
    try {
      return JSON.parse(reply.text)
    } catch {
      throw this.notJson(reply.status, doing)
    }
  }

  notJson(status: number, doing: string): XpkError {
    return new XpkError('failed', `${doing} failed: the API server answered HTTP ${status} with no JSON.`, {
      hints: [`Check that ${this.target} is a Kubernetes API server.`],
    })
  }

  /** A failure as an XpkError: one already is, anything else is the network's. */
  failure(error: unknown, doing: string): XpkError {
    if (error instanceof XpkError) return error
    return kubeNetworkError(error as Error, this.target, doing)
  }

  /** {@link send}, with the answer's body as it came (still compressed, if it was). */
  private async receiveOk(doing: string, method: string, path: string, query: Query, body?: Body): Promise<RawReply> {
    let reply: RawReply
    try {
      reply = await this.receive(method, path, query, body)
    } catch (error) {
      throw this.failure(error, doing)
    }
    if ((reply.status >= 200 && reply.status < 300) || reply.status === 404) return reply
    let text = ''
    try {
      text = decode(reply).text
    } catch {
      // A compressed error body that does not gunzip: the status alone says what happened.
    }
    throw kubeApiError(reply.status, statusBody(text), doing)
  }
}

export type Query = Record<string, string | number | boolean | undefined>

export interface Body {
  readonly contentType: string
  readonly text: string
}

/** A connection that carried nothing for too long. */
class IdleTimeout extends Error {
  constructor(ms: number) {
    super(`no answer for ${Math.round(ms / 1000)} s`)
  }
}

/** The answer's whole body as text (gunzipped when compressed and `gzip` allows). */
export async function readText(res: IncomingMessage, gzip = false): Promise<string> {
  let text = ''
  await readBody(res, (chunk) => (text += chunk), {gzip, broken: 'error'})
  return text
}

/**
 * Passes an answer that streams for long (a watch's events, a followed log) to `take` as text, as it arrives, until
 * it ends: the server ends it (then `end` runs, for what is left over), the caller aborts, or the connection goes
 * quiet or breaks; the caller may then open it again. `take` or `end` throwing ends it with that error.
 */
export function followText(res: IncomingMessage, take: (text: string) => void, end?: () => void): Promise<void> {
  return readBody(res, take, {gzip: false, broken: 'end', end})
}

/**
 * Passes the answer's body to `take` as text, piece by piece as it arrives (gunzipped on the way when the server
 * compressed it and `gzip` allows); a multi-byte character split between pieces stays whole. `take` (or `end`, run
 * once the whole body came) throwing ends the read with its error and closes the connection. A connection that
 * breaks first is an error (`broken: 'error'`: a body read whole) or the end (`broken: 'end'`: a stream).
 */
function readBody(
  res: IncomingMessage,
  take: (text: string) => void,
  options: {readonly gzip: boolean; readonly broken: 'error' | 'end'; readonly end?: () => void},
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false
    const fail = (error: Error) => {
      if (settled) return
      settled = true
      res.destroy()
      reject(error)
    }
    const done = () => {
      if (settled) return
      settled = true
      resolve()
    }
    const source: Readable = options.gzip && res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res
    source.setEncoding('utf8')
    source.on('data', (text: string) => {
      if (settled) return
      try {
        take(text)
      } catch (error) {
        fail(error as Error)
      }
    })
    source.on('end', () => {
      if (settled) return
      try {
        options.end?.()
      } catch (error) {
        return fail(error as Error)
      }
      done()
    })
    if (options.broken === 'end') {
      res.on('close', done)
      res.on('error', done)
    } else {
      source.on('error', fail)
      if (source !== res) res.on('error', fail)
    }
  })
}

/** The answer's Status object, or its text as the message when it is not JSON. */
export function statusBody(text: string): KubeStatusBody | undefined {
  try {
    const body = JSON.parse(text) as unknown
    if (typeof body === 'object' && body !== null) return body as KubeStatusBody
  } catch {
    // Not JSON (a proxy's HTML page, plain text): its text is the message.
  }
  return text.trim() ? {message: text.trim().slice(0, 500)} : undefined
}
