/**
 * The HTTP side shared by xpk's clients of Google REST APIs (GKE, Compute Engine, Cloud TPU): credentials, one JSON request
 * with a timeout, and Google's JSON error body read into a gRPC-style failure that the caller classifies. Node
 * built-ins only: google-auth-library is imported only when Application Default Credentials are needed, because
 * loading it costs a noticeable share of start-up (README, Speed), and requests go through node:http/node:https
 * (http-client.ts).
 */

import type {ApiContext} from '../core/cluster/gke-errors.js'
import {GRPC_STATUS} from '../core/cluster/gke-errors.js'
import type {Endpoint} from '../core/endpoint.js'
import {XpkError} from '../core/errors.js'
import {certificateError, connectionErrorCode} from '../core/tls-errors.js'
import {type Fetch, nodeFetch} from './http-client.js'

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform'

/** The headers that authorise a request to `url`. */
export type Authorize = (url: string, context: ApiContext) => Promise<Record<string, string>>

/** A failed request before classification: HTTP status, Google's canonical status name, message and reasons. */
export interface RestFailure {
  /** An error answer; no answer in time; no connection; or a 2xx answer that is not a JSON object. */
  readonly kind: 'answer' | 'timeout' | 'unreachable' | 'malformed'
  /** The HTTP status; 0 when no answer came. */
  readonly httpStatus: number
  /** `error.status` of Google's error body (`NOT_FOUND`, `FAILED_PRECONDITION`, ...) when it names one. */
  readonly statusName?: (typeof GRPC_STATUS)[number]
  readonly message: string
  /** `reason` of `error.errors[]` and `error.details[]`. */
  readonly reasons: ReadonlySet<string>
}

/**
 * Credentials for an endpoint: none for plain http (a loopback test server must never see a token, and ADC must
 * never probe the metadata server for one), a static token when given, else Application Default Credentials.
 */
export async function authorizer(options: {insecure: boolean; accessToken?: string | undefined}): Promise<Authorize> {
  if (options.insecure) return async () => ({})
  if (options.accessToken) {
    const header = {authorization: `Bearer ${options.accessToken}`}
    return async () => header
  }
  const {GoogleAuth} = await import('google-auth-library')
  // A token needs no project; naming one stops the library from looking it up (gcloud, metadata server).
  const auth = new GoogleAuth({scopes: [CLOUD_PLATFORM_SCOPE], projectId: 'xpk-unused'})
  return async (url, context) => {
    try {
      // Headers, not just the token: user credentials may carry a quota project (x-goog-user-project).
      return Object.fromEntries(await auth.getRequestHeaders(url))
    } catch (error) {
      throw new XpkError('auth', `No Google credentials to ${context.action}: ${(error as Error).message}`, {
        hints: [
          'Run `gcloud auth application-default login`, or point GOOGLE_APPLICATION_CREDENTIALS at a service-account key.',
        ],
        cause: error,
      })
    }
  }
}

/** How to reach a Google REST API, as each client (GKE, Compute Engine, Cloud TPU) takes it. */
export interface GoogleConnection {
  /** Endpoint override (rules in src/core/endpoint.ts); plain http to loopback sends no credentials at all. */
  readonly endpoint?: string
  /** A static OAuth access token; used instead of Application Default Credentials (no metadata lookups). */
  readonly accessToken?: string
  /** How long one HTTP request may take, in milliseconds. @default 60000 */
  readonly requestTimeoutMs?: number
  /** How requests are sent. @default nodeFetch (node:http and node:https) */
  readonly fetch?: Fetch
  /**
   * Ends every request of the client when it aborts (Ctrl-C, a command's time limit): a server that accepts and never
   * answers then holds neither the command nor the process.
   */
  readonly signal?: AbortSignal
}

/** The API root for an endpoint override: `defaultPath` (e.g. `/v1/`) under its host, or the path it gives (a proxy's). */
export function apiRoot(endpoint: Endpoint, defaultPath: string): {base: string; insecure: boolean} {
  return {base: `${endpoint.origin}${endpoint.path === '/' ? defaultPath : endpoint.path}`, insecure: endpoint.insecure}
}

/**
 * The REST client of one API root: no credentials over plain http (a loopback test server), a static token as it
 * is, otherwise Application Default Credentials; failures classified by the API's own rules.
 */
export async function connectRest(
  root: {readonly base: string; readonly insecure: boolean},
  connection: GoogleConnection,
  classify: (failure: RestFailure, context: ApiContext) => Error,
): Promise<GoogleRest> {
  const authorize = await authorizer({insecure: root.insecure, accessToken: connection.accessToken})
  const timeoutMs = connection.requestTimeoutMs ?? 60_000
  return new GoogleRest(root.base, authorize, timeoutMs, connection.fetch ?? nodeFetch, classify, connection.signal)
}

/** A Google JSON error body: `{error: {code, message, status, errors: [{reason}], details: [{reason}]}}`. */
interface GoogleErrorBody {
  readonly error?: {
    readonly message?: unknown
    readonly status?: unknown
    readonly errors?: readonly {readonly reason?: unknown}[]
    readonly details?: readonly {readonly reason?: unknown}[]
  }
}

/** Reads a failed HTTP response into a failure; bodies that are not Google JSON still give a message. */
export function httpFailure(httpStatus: number, text: string): RestFailure {
  let body: GoogleErrorBody | undefined
  try {
    body = JSON.parse(text) as GoogleErrorBody
  } catch {
    body = undefined
  }
  const error = typeof body === 'object' && body !== null ? body.error : undefined
  const reasons = new Set(
    [...(error?.errors ?? []), ...(error?.details ?? [])]
      .map((e) => e?.reason)
      .filter((r): r is string => typeof r === 'string'),
  )
  const message =
    typeof error?.message === 'string' && error.message
      ? error.message
      : text.trim().slice(0, 300) || `HTTP status ${httpStatus}`
  const statusName = GRPC_STATUS.find((name) => name === error?.status && name !== 'OK')
  return {kind: 'answer', httpStatus, message, reasons, ...(statusName ? {statusName} : {})}
}

/** The gRPC code for an HTTP status, as Google maps them (google.rpc.Code), for errors that name no status. */
export function grpcCodeForHttp(status: number): number {
  switch (status) {
    case 400:
      return 3
    case 401:
      return 16
    case 403:
      return 7
    case 404:
      return 5
    case 408:
      return 4
    case 409:
      return 6
    case 412:
      return 9
    case 429:
      return 8
    case 499:
      return 1
    case 500:
      return 13
    case 501:
      return 12
    case 503:
      return 14
    case 504:
      return 4
    default:
      return status >= 500 ? 14 : 3
  }
}

/**
 * The gRPC code of a failure, which the classifications work on. GKE and Cloud TPU name it in the error body's
 * `status`; the HTTP status alone would not do, since FAILED_PRECONDITION ("another operation is running", retried)
 * and INVALID_ARGUMENT (not retried) are both 400.
 */
export function failureCode(failure: RestFailure): number {
  switch (failure.kind) {
    case 'timeout':
      return GRPC_STATUS.indexOf('DEADLINE_EXCEEDED')
    case 'unreachable':
      return GRPC_STATUS.indexOf('UNAVAILABLE')
    case 'malformed':
      return GRPC_STATUS.indexOf('INTERNAL')
    case 'answer':
      return failure.statusName ? GRPC_STATUS.indexOf(failure.statusName) : grpcCodeForHttp(failure.httpStatus)
  }
}

/** google.rpc.Status: an RPC's or an operation's failure. */
export interface ApiStatus {
  readonly code?: number
  readonly message?: string
}

/** google.longrunning.Operation without its payloads, which xpk does not read; `done` is left out while false. */
export interface ApiOperation {
  readonly name?: string
  readonly done?: boolean
  readonly error?: ApiStatus
}

/** A long-running operation as the ports that wait on them take it (Cloud TPU, Filestore). */
export interface LongRunningOperation {
  readonly name: string
  readonly done: boolean
  readonly error?: {readonly code: number; readonly message: string}
}

export function toLongRunningOperation(op: ApiOperation): LongRunningOperation {
  return {
    name: op.name ?? '',
    done: Boolean(op.done),
    ...(op.error ? {error: {code: op.error.code ?? 2, message: op.error.message ?? ''}} : {}),
  }
}

/** A reply the caller reads: any 2xx, or a status it asked to handle itself. */
export interface Reply {
  readonly status: number
  readonly text: string
  /** The body's bytes, when the request asked for them (`bytes: true`, a media download); `text` is then empty. */
  readonly bytes?: Buffer
  /** The reply's headers (a media download's generation and hashes). */
  readonly headers?: {get(name: string): string | null}
}

export interface RequestOptions {
  /** A JSON body. */
  readonly body?: unknown
  /** Bytes sent as they are with their content type, instead of a JSON body (a media upload). */
  readonly media?: {readonly data: Uint8Array<ArrayBuffer>; readonly contentType: string}
  /** Read a 2xx answer's body as bytes (a media download), not text. */
  readonly bytes?: boolean
  readonly signal?: AbortSignal
  /** Non-2xx statuses the caller handles (e.g. 404 for "missing"); every other one throws. */
  readonly answers?: readonly number[]
}

/** JSON over HTTP to one API root, every failure turned into the caller's classified error. */
export class GoogleRest {
  constructor(
    private readonly base: string,
    private readonly authorize: Authorize,
    private readonly timeoutMs: number,
    private readonly fetch: Fetch,
    private readonly classify: (failure: RestFailure, context: ApiContext) => Error,
    private readonly ended?: AbortSignal,
  ) {}

  /** The same client (credentials, timeout, transport, error rules) at another root: another version of the API. */
  rebased(base: string): GoogleRest {
    return new GoogleRest(base, this.authorize, this.timeoutMs, this.fetch, this.classify, this.ended)
  }

  /** One HTTP request to `base + path`. */
  async request(method: string, path: string, context: ApiContext, options: RequestOptions = {}): Promise<Reply> {
    const url = this.base + path
    const headers: Record<string, string> = {accept: 'application/json', ...(await this.authorize(url, context))}
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    if (options.media) headers['content-type'] = options.media.contentType
    if (options.bytes) headers.accept = '*/*'
    const body = options.media
      ? options.media.data
      : options.body === undefined
        ? undefined
        : JSON.stringify(options.body)
    const timeout = AbortSignal.timeout(this.timeoutMs)
    const given = [options.signal, this.ended].filter((s): s is AbortSignal => s !== undefined)
    const signal = given.length > 0 ? AbortSignal.any([...given, timeout]) : timeout
    let reply: Reply
    try {
      const response = await this.fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : {body}),
        signal,
      })
      const ok = response.status >= 200 && response.status < 300
      reply =
        options.bytes && ok
          ? {
              status: response.status,
              text: '',
              bytes: Buffer.from(await response.arrayBuffer()),
              headers: response.headers,
            }
          : {status: response.status, text: await response.text(), headers: response.headers}
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason
      if (this.ended?.aborted) throw this.ended.reason
      const host = new URL(url).host
      // Only a completed handshake whose certificate failed verification is a certificate problem; a connection
      // cut during the handshake is UNAVAILABLE like any other, which the retry policy retries.
      const certificate = certificateError(error, `Could not ${context.action}: the certificate of ${host}`, [
        'Check the endpoint; a proxy that intercepts TLS needs its CA certificate in NODE_EXTRA_CA_CERTS.',
      ])
      if (certificate) throw certificate
      const failure: RestFailure = timeout.aborted
        ? {
            kind: 'timeout',
            httpStatus: 0,
            message: `no answer from ${host} within ${this.timeoutMs} ms`,
            reasons: new Set(),
          }
        : {
            kind: 'unreachable',
            httpStatus: 0,
            message: `cannot reach ${host} (${networkCode(error)})`,
            reasons: new Set(),
          }
      throw this.classify(failure, context)
    }
    if ((reply.status >= 200 && reply.status < 300) || options.answers?.includes(reply.status)) return reply
    throw this.classify(httpFailure(reply.status, reply.text), context)
  }

  /** GET of one resource; undefined when it does not exist (404). */
  async getOrMissing<T>(path: string, context: ApiContext): Promise<T | undefined> {
    const reply = await this.request('GET', path, context, {answers: [404]})
    return reply.status === 404 ? undefined : this.json<T>(reply, context)
  }

  /** A request the API answers with a long-running operation (a GET of one, too). */
  async operation(method: string, path: string, context: ApiContext, body?: object): Promise<LongRunningOperation> {
    const reply = await this.request(method, path, context, body ? {body} : {})
    return toLongRunningOperation(this.json<ApiOperation>(reply, context))
  }

  /** The reply's JSON object; anything else (a proxy's HTML page, a truncated body) is an INTERNAL failure. */
  json<T>(reply: Reply, context: ApiContext): T {
    try {
      const value = JSON.parse(reply.text) as unknown
      if (typeof value === 'object' && value !== null) return value as T
    } catch {
      // Fall through: a proxy or a broken server answered.
    }
    throw this.classify(
      {
        kind: 'malformed',
        httpStatus: reply.status,
        message: `the answer was not JSON: ${reply.text.slice(0, 200)}`,
        reasons: new Set(),
      },
      context,
    )
  }
}

/** The system error code of a failed request (ECONNREFUSED, ENOTFOUND, ...), for the message. */
function networkCode(error: unknown): string {
  return connectionErrorCode(error) ?? (error instanceof Error ? error.message : String(error))
}
