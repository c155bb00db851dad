// What every wire-level fake shares: its server on a free loopback port, and how injected faults are picked, counted
// and played. FakeKube (HTTPS), FakeCompute (HTTP), FakeGke (gRPC, and HTTP through rest-front.ts) use it; a fake
// added later (the Cloud TPU API over REST) is a `startHttpServer` handler whose requests go through `serveWithFaults`.
import {createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo} from 'node:net'

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
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
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
