// What every wire-level fake shares: its server on a free loopback port, how injected faults are picked, counted
// and played, and Google's JSON error bodies. FakeKube (HTTPS), FakeCompute, FakeFilestore and FakeCloudStorage
// (HTTP), FakeGke and FakeTpu (gRPC, and HTTP through rest-front.ts) use it; a fake added later is a
// `startHttpServer` handler whose requests go through `serveWithFaults`.
import {createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo} from 'node:net'

import type {GRPC_STATUS} from '../../src/core/cluster/gke-errors.js'

// ---- start-up ----

/** What a fake does with one request; a rejection is a bug in the fake, answered 500 with its stack. */
export type HandleRequest = (request: IncomingMessage, response: ServerResponse) => Promise<void>

export interface StartedServer {
  readonly server: Server
  readonly port: number
}

/**
 * An HTTP server (HTTPS with `tls`) on 127.0.0.1 and a free port, answering through `handle`. A bug in the fake
 * must fail the test that hit it, not leave the client hanging: a rejected `handle` is a 500 saying so.
 */
export async function startHttpServer(
  name: string,
  handle: HandleRequest,
  tls?: {readonly key: string; readonly cert: string},
): Promise<StartedServer> {
  const server: Server = tls ? createHttpsServer({key: tls.key, cert: tls.cert}) : createHttpServer()
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, {'content-type': 'text/plain'})
      response.end(`${name} crashed: ${error instanceof Error ? error.stack : String(error)}`)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  return {server, port: (server.address() as AddressInfo).port}
}

/** Closes the server and every connection it holds (kept-alive ones, open watches and log streams). */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

/** A request's whole body as text. */
export async function readBody(request: IncomingMessage): Promise<string> {
  return (await readBodyBytes(request)).toString('utf8')
}

/** A request's whole body as bytes. */
export function readBodyBytes(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks)))
    request.on('error', reject)
  })
}

// ---- faults ----

/** What every injected fault has, whatever it answers (an HTTP status, a gRPC code) and whichever requests it fits. */
export interface Fault {
  /** Consumed one per fitting request; removed at 0. Default 1; Infinity for a lasting fault. */
  times?: number
  /** Holds the request this long before it is served; a fault that answers nothing only slows it. */
  delayMs?: number
  /** The request takes effect and only its answer is lost, like a timeout that fires after the server acted. */
  afterApply?: boolean
}

/**
 * The first fault in `faults` that `fits` the request and has uses left, counted down (removed at 0). Tests push
 * faults into the fake's array; each fake says which requests a fault fits (method, path, verb, RPC name, ...).
 */
export function takeFault<F extends Fault>(faults: F[], fits: (fault: F) => boolean): F | undefined {
  const index = faults.findIndex((f) => (f.times ?? 1) > 0 && fits(f))
  if (index < 0) return undefined
  const fault = faults[index]!
  fault.times = (fault.times ?? 1) - 1
  if (fault.times <= 0) faults.splice(index, 1)
  return fault
}

/** Timers a fake holds requests (or work) back with, all cleared when it stops. */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>()

  /** Runs `work` in `ms` unless cleared first. */
  later(ms: number, work: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer)
      work()
    }, ms)
    this.pending.add(timer)
  }

  /** Resolves in `ms`; never, when cleared first (the fake stopped, its connections are closed). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.later(ms, resolve))
  }

  clear(): void {
    for (const timer of this.pending) clearTimeout(timer)
    this.pending.clear()
  }
}

/** How a request that went through the faults ends. */
export type FaultedOutcome<F, T> =
  | {readonly kind: 'served'; readonly value: T; readonly fault: F | undefined}
  /** `applied` holds what serving gave when the fault came after it (`afterApply`). */
  | {readonly kind: 'fault'; readonly fault: F; readonly applied?: {readonly value: T}}
  | {readonly kind: 'stopped'}

export interface FaultedRequest<F extends Fault, T> {
  readonly faults: F[]
  /** Whether a fault fits this request. A `fits` that throws is a bug in the test: the promise rejects with it. */
  readonly fits: (fault: F) => boolean
  /** Whether the fault answers (has a status or code of its own) rather than only delaying. */
  readonly answers: (fault: F) => boolean
  /** Told of the fault taken, before the request waits (for the fake's request log). */
  readonly taken?: (fault: F) => void
  /** Added to every request before it is served (the fake's latency setting). */
  readonly latencyMs: number
  readonly timers: Timers
  readonly stopped: () => boolean
  /** Serves the request for real; its rejection (the fake's own error answers) passes through. */
  readonly serve: () => T | Promise<T>
}

/**
 * One request through the faults, in the order every fake plays them: the fitting fault is taken, the request waits
 * the latency plus the fault's delay, then the fault answers instead of the request, or (`afterApply`) the request
 * is served and the fault answers instead of its answer. Without a delay, `serve` runs in the caller's tick, so
 * requests that arrive together are served in arrival order.
 */
export async function serveWithFaults<F extends Fault, T>(
  request: FaultedRequest<F, T>,
): Promise<FaultedOutcome<F, T>> {
  let fault: F | undefined
  try {
    fault = takeFault(request.faults, request.fits)
  } catch (error) {
    throw new Error(`fault match threw: ${String(error)}`, {cause: error})
  }
  if (fault) request.taken?.(fault)
  const delay = request.latencyMs + (fault?.delayMs ?? 0)
  if (delay > 0) {
    await request.timers.sleep(delay)
    if (request.stopped()) return {kind: 'stopped'}
  }
  const answering = fault !== undefined && request.answers(fault)
  if (answering && !fault!.afterApply) return {kind: 'fault', fault: fault!}
  const value = await request.serve()
  if (answering) return {kind: 'fault', fault: fault!, applied: {value}}
  return {kind: 'served', value, fault}
}

// ---- long-running work ----

/**
 * What a fake is running for a while (operations, background work): each ends when its time comes (never, for
 * Infinity, until ended by hand), and `settled()` resolves once none runs. One timer each: hundreds cost nothing.
 */
export class Running<R> {
  private readonly timers = new Map<R, NodeJS.Timeout | undefined>()
  private waiters: (() => void)[] = []
  private stopped = false

  /** Runs `item` until {@link end}; `ms` later (unless Infinity), `onTime(item)` is called, which is to end it. */
  start(item: R, ms: number, onTime: (item: R) => void): void {
    const timer = Number.isFinite(ms) ? setTimeout(() => onTime(item), Math.max(0, ms)) : undefined
    this.timers.set(item, timer)
  }

  /** Ends `item`'s run; false when it was not running (it ended before). */
  end(item: R): boolean {
    if (!this.timers.has(item)) return false
    clearTimeout(this.timers.get(item))
    this.timers.delete(item)
    if (this.timers.size === 0) this.release()
    return true
  }

  has(item: R): boolean {
    return this.timers.has(item)
  }

  /** What runs, in the order it started. */
  all(): R[] {
    return [...this.timers.keys()]
  }

  get size(): number {
    return this.timers.size
  }

  /** Resolves once nothing runs (at once after {@link stop}). */
  settled(): Promise<void> {
    if (this.timers.size === 0 || this.stopped) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** Forgets everything running without ending it (the fake resets): its timers never fire. */
  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
    this.release()
  }

  /** {@link clear}, for good: the fake stopped. */
  stop(): void {
    this.stopped = true
    this.clear()
  }

  private release(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const resolve of waiters) resolve()
  }
}

// ---- Google's JSON error bodies ----

/** A gRPC status name (NOT_FOUND, UNAVAILABLE, ...). */
export type GrpcStatusName = (typeof GRPC_STATUS)[number]

/** A failure as an API reports it, in gRPC terms: what an in-memory fake is told to fail a call with. */
export interface GrpcFailure {
  readonly status: GrpcStatusName
  readonly message: string
}

/** The methods of a port that an in-memory fake can be told to fail, by name. */
export type PortCall<Port> = Exclude<keyof Port, 'close'>

/** The HTTP status Google's front ends answer each gRPC code with (google.rpc.Code), by name. */
export const HTTP_STATUS_OF: Readonly<Record<GrpcStatusName, number>> = {
  OK: 200,
  CANCELLED: 499,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 400,
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
  UNAUTHENTICATED: 401,
}

/**
 * The HTTP status and body of a gRPC failure as an API transcoded from gRPC answers it over REST (GKE, Cloud TPU,
 * Filestore): `{error: {code: <HTTP status>, message, status: <gRPC name>, details?}}`.
 */
export function grpcErrorReply(
  status: GrpcStatusName,
  message: string,
  details?: readonly object[],
): {readonly httpStatus: number; readonly body: object} {
  const httpStatus = HTTP_STATUS_OF[status]
  return {httpStatus, body: {error: {code: httpStatus, message, status, ...(details ? {details} : {})}}}
}

/** The gRPC name and the usual `errors[].reason` of an HTTP status, as Google's JSON APIs write them. */
const STATUS_NAMES: Record<number, [status: GrpcStatusName, reason: string]> = {
  400: ['INVALID_ARGUMENT', 'invalid'],
  401: ['UNAUTHENTICATED', 'required'],
  403: ['PERMISSION_DENIED', 'forbidden'],
  404: ['NOT_FOUND', 'notFound'],
  409: ['ALREADY_EXISTS', 'alreadyExists'],
  412: ['FAILED_PRECONDITION', 'conditionNotMet'],
  429: ['RESOURCE_EXHAUSTED', 'rateLimitExceeded'],
  500: ['INTERNAL', 'backendError'],
  502: ['UNAVAILABLE', 'backendError'],
  503: ['UNAVAILABLE', 'backendError'],
  504: ['DEADLINE_EXCEEDED', 'backendError'],
}

/** The HTTP status and `errors[].reason` an API with `errors[]` answers a gRPC status with (UNAVAILABLE: 503). */
export const HTTP_ERROR_OF: Readonly<Partial<Record<GrpcStatusName, readonly [status: number, reason: string]>>> =
  Object.fromEntries(Object.entries(STATUS_NAMES).map(([http, [name, reason]]) => [name, [Number(http), reason]]))

/**
 * Google's JSON error body of an HTTP status, as the APIs with `errors[]` write it (Compute Engine, Cloud Storage):
 * `{error: {code, message, errors: [{message, domain: 'global', reason}], status}}`. `withStatus: false` leaves the
 * gRPC name out, as Cloud Storage does.
 */
export function googleErrorBody(
  status: number,
  message: string,
  reason?: string,
  options: {readonly withStatus?: boolean} = {},
): object {
  const [statusName, defaultReason] = STATUS_NAMES[status] ?? [status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION', '']
  const r = reason ?? defaultReason
  return {
    error: {
      code: status,
      message,
      errors: [{message, domain: 'global', ...(r ? {reason: r} : {})}],
      ...(options.withStatus === false ? {} : {status: statusName}),
    },
  }
}

// ---- JSON over HTTP ----

/** A request to a JSON REST fake, as its log keeps it. */
export interface HttpCall {
  readonly method: string
  /** The path below the API root (`projects/p/regions/r/resourcePolicies`), as sent (not decoded). */
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  /** Parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  readonly body: unknown
  readonly authorization: string | undefined
  /** Date.now() when the request arrived. */
  readonly at: number
  /** HTTP status sent back; undefined while the request is still being served. */
  status?: number
}

/** An answer other than a 200 with the route's value: what a route throws (and what a fault answers). */
export class HttpAnswer extends Error {
  readonly httpStatus: number
  /** JSON (Google's error body), or text sent as a proxy's HTML page. */
  readonly body: object | string

  constructor(httpStatus: number, body: object | string) {
    super(`HTTP ${httpStatus}`)
    this.httpStatus = httpStatus
    this.body = body
  }
}

/** An answer that is not JSON: bytes (a media download) or nothing (a 204), with its headers. */
// Fields declared, not parameter properties: the benchmarks run the fakes with Node's own type stripping.
export class RawReply {
  readonly status: number
  readonly body: Buffer
  readonly headers: Readonly<Record<string, string>>

  constructor(status: number, body: Buffer, headers: Readonly<Record<string, string>> = {}) {
    this.status = status
    this.body = body
    this.headers = headers
  }
}

/** What a route is given besides the call and its text: the body's bytes and the request's headers. */
export interface RawRequest {
  readonly bytes: Buffer
  readonly headers: IncomingMessage['headers']
}

/** Which requests a fault of a JSON REST fake fits: its method, and its path below the API root. */
export interface HttpFaultMatch extends Fault {
  readonly method?: string
  /** Paths containing this string, or matching this pattern. */
  readonly path?: string | RegExp
}

/**
 * What the JSON REST fakes (FakeCompute, FakeFilestore, FakeCloudStorage) share: their server on a free loopback port,
 * the request log, the faults and how they are played (`serveWithFaults`); a fake says what its faults answer and
 * routes each request (its 200 answer, or an {@link HttpAnswer} thrown).
 */
export abstract class JsonRestFake<F extends HttpFaultMatch, Operation = never, OperationFault = never> {
  readonly calls: HttpCall[] = []
  readonly faults: F[] = []
  /** Faults that make operations end in an error; each fake says which operations one fits. */
  readonly operationFaults: OperationFault[] = []
  /** The operations running (the fakes with long-running operations), each ending when its time comes. */
  protected readonly active = new Running<Operation>()
  protected readonly delays = new Timers()
  protected stopped = false
  private started: StartedServer | undefined

  /** The API root, e.g. `/compute/v1/`: calls are logged by the path below it. */
  protected abstract readonly root: string

  /** What a fault answers; undefined for one that only delays. */
  protected abstract faultAnswer(fault: F): HttpAnswer | undefined

  /** Serves a request: the JSON of its 200 answer (or a {@link RawReply}), or it throws an {@link HttpAnswer}. */
  protected abstract route(call: HttpCall, text: string, pathname: string, raw: RawRequest): object | Promise<object>

  /** Starts the server; the fakes' own `start()` calls it. */
  protected async listen(name: string): Promise<this> {
    this.started = await startHttpServer(name, (request, response) => this.serve(request, response))
    return this
  }

  /** The loopback port it serves on. */
  get port(): number {
    if (!this.started) throw new Error('not started')
    return this.started.port
  }

  /** What to give the adapter as its endpoint: `http://127.0.0.1:PORT` (the adapter adds the API's root). */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`
  }

  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    this.active.stop()
    this.delays.clear()
    if (this.started) await closeServer(this.started.server)
  }

  /** Every request that is not a GET: the ones that change something. */
  mutatingCalls(): HttpCall[] {
    return this.calls.filter((c) => c.method !== 'GET')
  }

  failOperations(fault: OperationFault): void {
    this.operationFaults.push(fault)
  }

  /** Resolves once no operation runs. */
  settled(): Promise<void> {
    return this.active.settled()
  }

  /** Forgets the requests, the faults and the running operations (a fake's reset() clears its own state too). */
  protected forget(): void {
    this.calls.length = 0
    this.faults.length = 0
    this.operationFaults.length = 0
    this.active.clear()
  }

  /** One request: logged, played through the faults, routed, and answered as JSON. */
  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake')
    const bytes = await readBodyBytes(request)
    const text = bytes.toString('utf8')
    const call: HttpCall = {
      method: request.method ?? 'GET',
      path: url.pathname.startsWith(this.root) ? url.pathname.slice(this.root.length) : url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: parseBody(text),
      authorization: request.headers.authorization,
      at: Date.now(),
    }
    this.calls.push(call)
    const answer = (status: number, body: object | string) => {
      call.status = status
      if (response.destroyed) return
      if (body instanceof RawReply) {
        response.writeHead(body.status, {...body.headers, 'content-length': String(body.body.length)})
        response.end(body.body)
        return
      }
      const json = typeof body !== 'string'
      response.writeHead(status, {
        'content-type': json ? 'application/json; charset=UTF-8' : 'text/html; charset=UTF-8',
      })
      response.end(json ? JSON.stringify(body) : body)
    }
    try {
      const outcome = await serveWithFaults({
        faults: this.faults,
        fits: (f) =>
          (!f.method || f.method === call.method) &&
          (f.path === undefined || (typeof f.path === 'string' ? call.path.includes(f.path) : f.path.test(call.path))),
        answers: (f) => this.faultAnswer(f) !== undefined,
        latencyMs: 0,
        timers: this.delays,
        stopped: () => this.stopped,
        serve: () => this.route(call, text, url.pathname, {bytes, headers: request.headers}),
      })
      if (outcome.kind === 'stopped') return
      if (outcome.kind === 'served') {
        return answer(outcome.value instanceof RawReply ? outcome.value.status : 200, outcome.value)
      }
      const faulted = this.faultAnswer(outcome.fault)!
      answer(faulted.httpStatus, faulted.body)
    } catch (error) {
      if (!(error instanceof HttpAnswer)) throw error
      answer(error.httpStatus, error.body)
    }
  }
}

function parseBody(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
