// Every adapter that opens TLS connections, against real TLS servers on loopback: a server that closes the
// connection during the handshake (an API server restarting) is UNAVAILABLE and retried by the one retry policy; a
// server that completes the handshake with a certificate of another CA is a certificate problem (exit 3), tried once.
import {createServer as createTcpServer, type AddressInfo, type Server, type Socket} from 'node:net'
import {createServer as createTlsServer} from 'node:tls'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {connectKube} from '../../src/adapters/kube-client.js'
import {createComputeClient} from '../../src/adapters/compute-rest.js'
import {createGkeClient} from '../../src/adapters/gke-container-api.js'
import {createTpuClient} from '../../src/adapters/tpu-api.js'
import {nodeFetch} from '../../src/adapters/http-client.js'
import {RegistryHttpClient} from '../../src/adapters/registry-http.js'
import {HttpReleaseManifests} from '../../src/adapters/release-manifests.js'
import {ApiError} from '../../src/core/errors.js'
import {CERTIFICATE_ERROR_CODES} from '../../src/core/tls-errors.js'
import {DEFAULT_RETRY_POLICY, withRetries} from '../../src/executor/retry.js'
import {makeFakeKubeTls, type FakeKubeTls} from '../fakes/fake-kube-tls.js'
import {tempDir} from '../helpers/temp.js'
import {virtualClock} from '../helpers/virtual-clock.js'

/** A loopback server that counts the connections it accepted. */
interface CountingServer {
  readonly port: number
  connections: number
  close(): Promise<void>
}

async function listen(server: Server, counted: {connections: number}): Promise<CountingServer> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    counted.connections++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const entry: CountingServer = {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return counted.connections
    },
    set connections(n) {
      counted.connections = n
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
  return entry
}

/** Reads the client's hello, then drops the connection: the handshake never completes. */
async function cutsHandshakeShort(): Promise<CountingServer> {
  const server = createTcpServer((socket) => {
    socket.once('data', () => socket.destroy())
    socket.on('error', () => undefined)
  })
  return listen(server, {connections: 0})
}

/** Completes the handshake with a certificate that `tls`'s CA signed, then answers nothing. */
async function presents(tls: FakeKubeTls): Promise<CountingServer> {
  const server = createTlsServer({cert: tls.serverCertPem, key: tls.serverKeyPem}, (socket) => {
    socket.on('error', () => undefined)
  })
  server.on('tlsClientError', () => undefined)
  const counted = {connections: 0}
  const entry = await listen(server, counted)
  return entry
}

let trusted: FakeKubeTls
let other: FakeKubeTls
let handshakeCut: CountingServer
let otherCa: CountingServer

beforeAll(async () => {
  trusted = await makeFakeKubeTls()
  other = await makeFakeKubeTls()
  handshakeCut = await cutsHandshakeShort()
  otherCa = await presents(other)
})
afterAll(async () => {
  await handshakeCut?.close()
  await otherCa?.close()
})

/** One request of each adapter to `https://127.0.0.1:PORT`. */
const ADAPTERS: ReadonlyArray<readonly [string, (port: number) => Promise<unknown>]> = [
  [
    'Kubernetes (kube-client.ts, the cluster CA)',
    async (port) => {
      const kube = await connectKube({
        kind: 'gke',
        server: `https://127.0.0.1:${port}`,
        caCertificate: Buffer.from(trusted.caPem).toString('base64'),
        token: async () => 'token',
      })
      return kube.get({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'x'})
    },
  ],
  [
    'GKE (gke-container-api.ts over google-rest.ts and http-client.ts)',
    async (port) => {
      const gke = await createGkeClient({endpoint: `https://127.0.0.1:${port}/`, accessToken: 'token'})
      return gke.getCluster({project: 'p', location: 'us-central2', name: 'c'})
    },
  ],
  [
    'Compute Engine (compute-rest.ts over google-rest.ts and http-client.ts)',
    async (port) => {
      const compute = await createComputeClient({endpoint: `https://127.0.0.1:${port}/`, accessToken: 'token'})
      return compute.getWorkloadPolicy('p', 'us-central2', 'policy')
    },
  ],
  [
    // Over gRPC (the client library, before) a certificate of another CA was UNAVAILABLE too: retried, then exit 7.
    'Cloud TPU (tpu-api.ts over google-rest.ts and http-client.ts)',
    async (port) => {
      const tpu = await createTpuClient({endpoint: `https://127.0.0.1:${port}/`, accessToken: 'token'})
      return tpu.listNodes({project: 'p', zone: 'us-central2-b'})
    },
  ],
  [
    'a container registry (registry-http.ts over http-client.ts)',
    async (port) => {
      // The registry's name is not a loopback one (those are spoken to over plain http): its requests go here.
      const registry = new RegistryHttpClient({
        fetch: (url, init) => nodeFetch(url.replace('https://registry.example.com', `https://127.0.0.1:${port}`), init),
      })
      return registry.manifest(
        {registry: 'registry.example.com', repository: 'team/app', reference: 'v1'},
        async () => null,
      )
    },
  ],
  [
    'release manifests (release-manifests.ts over fetch)',
    async (port) => {
      const manifests = new HttpReleaseManifests({
        cacheDir: tempDir('xpk-manifests-'),
        urls: {jobset: `https://127.0.0.1:${port}/manifests.yaml`},
      })
      return manifests.load('jobset')
    },
  ],
]

/** The call through the one retry policy, as the services make it: 3 attempts, no real waiting. */
async function throughRetries(call: () => Promise<unknown>): Promise<ApiError> {
  const policy = {...DEFAULT_RETRY_POLICY, attempts: 3}
  const error = await withRetries(call, {policy, clock: virtualClock(), signal: new AbortController().signal}).catch(
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ApiError)
  return error as ApiError
}

describe('a TLS handshake cut short is unavailable and retried; a certificate of another CA is a certificate problem', () => {
  it.each(ADAPTERS)('%s', async (_, request) => {
    handshakeCut.connections = 0
    const cut = await throughRetries(() => request(handshakeCut.port))
    expect([cut.kind, cut.exitCode], cut.message).toEqual(['unavailable', 7])
    expect(cut.message).not.toMatch(/certificate/i)
    // Every attempt reached the server: the policy retried it.
    expect(handshakeCut.connections).toBe(3)

    otherCa.connections = 0
    const refused = await throughRetries(() => request(otherCa.port))
    expect([refused.kind, refused.exitCode, refused.retryable], refused.message).toEqual(['auth', 3, false])
    const code = /certificate .*failed verification \(([A-Z_]+)/.exec(refused.message)?.[1]
    expect(CERTIFICATE_ERROR_CODES.has(code ?? ''), refused.message).toBe(true)
    expect(otherCa.connections).toBe(1)
  })
})
