/**
 * `fetch` for xpk's few JSON and HEAD requests (GKE, Compute Engine, container registries), on node:http and
 * node:https, for start-up time. The first `fetch` of a process loads undici, and so does an ESM import of node:http
 * (the import reads every export, and its WebSocket exports are lazy getters that load undici), which costs the first
 * request several times what node:http from process.getBuiltinModule does (README, Speed, has the measurement). Idle
 * keep-alive connections (the global agents keep them) do not hold the process open. The global `fetch` fits the same type, so tests can pass it instead.
 */

import type {ClientRequest, IncomingMessage, RequestOptions} from 'node:http'

/** What xpk's clients use of a `fetch` request. */
export interface HttpInit {
  readonly method?: string
  readonly headers?: Readonly<Record<string, string>>
  /** Text, or bytes sent as they are (a Cloud Storage media upload). */
  readonly body?: string | Uint8Array<ArrayBuffer>
  readonly signal?: AbortSignal
  /** @default 'follow' */
  readonly redirect?: 'follow' | 'manual'
}

/** What xpk's clients use of a `fetch` Response. */
export interface HttpReply {
  readonly status: number
  readonly ok: boolean
  readonly headers: {get(name: string): string | null}
  text(): Promise<string>
  json(): Promise<unknown>
  /** The body's bytes (a Cloud Storage media download). */
  arrayBuffer(): Promise<ArrayBuffer>
}

export type Fetch = (url: string, init?: HttpInit) => Promise<HttpReply>

type Request = (url: URL, options: RequestOptions, done: (reply: IncomingMessage) => void) => ClientRequest

const REDIRECTS = new Set([301, 302, 303, 307, 308])
// As many as fetch follows.
const MAX_REDIRECTS = 20

/** One request, following redirects as `fetch` does (and, as it does, dropping credentials when the origin changes). */
export const nodeFetch: Fetch = async (url, init = {}) => {
  let target = new URL(url)
  let {method = 'GET', body} = init
  let headers: Record<string, string> = {...init.headers}
  for (let hop = 0; ; hop++) {
    const reply = await once(target, method, headers, body, init.signal)
    const location = reply.headers.get('location')
    if (init.redirect === 'manual' || !REDIRECTS.has(reply.status) || location === null) return reply
    if (hop === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${url}`)
    const next = new URL(location, target)
    if (next.origin !== target.origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'))
    }
    // A 303, and a 301 or 302 after a POST, turn into a GET without a body; 307 and 308 keep both.
    if (reply.status === 303 || ((reply.status === 301 || reply.status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET'
      body = undefined
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type'))
    }
    target = next
  }
}

async function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  signal: AbortSignal | undefined,
): Promise<HttpReply> {
  const name = url.protocol === 'https:' ? 'node:https' : 'node:http'
  // process.getBuiltinModule came in Node 22.3; older 22.x take the import and its cost.
  const {request}: {request: Request} = process.getBuiltinModule?.(name) ?? (await import(name))
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {method, headers, ...(signal ? {signal} : {})}, (incoming) => {
      const chunks: Buffer[] = []
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
      // Also a connection that drops mid-answer: the answer errs ('aborted') instead of ending.
      incoming.on('error', reject)
      incoming.on('end', () => {
        const bytes = Buffer.concat(chunks)
        const status = incoming.statusCode ?? 0
        resolve({
          status,
          ok: status >= 200 && status < 300,
          headers: {get: (header) => headerValue(incoming, header)},
          text: async () => bytes.toString('utf8'),
          json: async () => JSON.parse(bytes.toString('utf8')) as unknown,
          arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
        })
      })
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

function headerValue(incoming: IncomingMessage, name: string): string | null {
  const value = incoming.headers[name.toLowerCase()]
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
}
