// The TPU adapter over REST. First against Google's own REST transport of the client library (google-gax's
// `fallback` mode, which builds paths, query and body from the protos' google.api.http annotations and the service
// configuration's rules for operations): the same port calls through both must reach the fake as the same decoded
// requests, so a path, a query parameter or a body field the adapter named differently from the API would show here.
import * as grpc from '@grpc/grpc-js'
import {v2} from '@google-cloud/tpu'
import {OAuth2Client} from 'google-auth-library'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {createTpuClient, nodeMessage, queuedResourceMessage} from '../../src/adapters/tpu-api.js'
import {type ApiError, XpkError} from '../../src/core/errors.js'
import {tpuApiError} from '../../src/core/vm/tpu-errors.js'
import type {NodeRequest, QueuedResourceRequest, TpuClient} from '../../src/ports/tpu.js'
import {FakeTpu} from '../fakes/fake-tpu.js'
import {tempDir} from '../helpers/temp.js'

const LOC = {project: 'p', zone: 'us-central2-b'}
const PARENT = 'projects/p/locations/us-central2-b'

const REQUEST: QueuedResourceRequest = {
  id: 'q',
  nodePrefix: 'q',
  numSlices: 2,
  acceleratorType: 'v4-16',
  runtimeVersion: 'tpu-ubuntu2204-base',
  capacity: 'spot',
  metadata: {'ssh-keys': 'me:ssh-ed25519 AAAA me'},
}

const NODE_REQUEST: NodeRequest = {
  id: 'vm',
  acceleratorType: 'v4-8',
  runtimeVersion: 'tpu-ubuntu2204-base',
  capacity: 'preemptible',
  metadata: {a: '1'},
  startupScript: '#!/bin/bash\necho up',
  tags: ['ml', 'ssh'],
  labels: {job: 'train'},
}

/** The same fake state for both clients: three nodes, listed two to a page. */
async function seededFake(): Promise<FakeTpu> {
  const fake = await FakeTpu.start({pageSize: 2, updateMs: Infinity, deleteMs: Infinity, stepMs: Infinity})
  for (const id of ['n1', 'n2', 'n3']) fake.seedNode(LOC.project, LOC.zone, id, {acceleratorType: 'v4-8'})
  return fake
}

/** What the fake decoded, call by call: the method, the request as gRPC would carry it, and the answer's code. */
const received = (fake: FakeTpu) => fake.calls.map((c) => [c.method, c.request, c.code])

describe('the TPU adapter sends what the client library sends', () => {
  let viaLibrary: FakeTpu
  let viaAdapter: FakeTpu
  beforeAll(async () => {
    viaLibrary = await seededFake()
    viaAdapter = await seededFake()
  })
  afterAll(async () => {
    await viaLibrary?.stop()
    await viaAdapter?.stop()
  })

  it('lists with paging, reads, creates, updates the metadata, reads the operation and deletes: the same requests', async () => {
    // A static token: the library's REST transport asks its auth client for headers, and this one never looks for ADC.
    const authClient = new OAuth2Client()
    authClient.setCredentials({access_token: 'fake-token'})
    const library = new v2.TpuClient({
      fallback: true,
      protocol: 'http',
      apiEndpoint: '127.0.0.1',
      port: viaLibrary.port,
      // The library's own copy of google-auth-library has other types; the client works the same.
      authClient: authClient as never,
      universeDomain: 'googleapis.com',
    })
    const noRetry = {retry: null}
    try {
      await library.listNodes({parent: PARENT}, noRetry)
      await library.getNode({name: `${PARENT}/nodes/n1`}, noRetry)
      await library.getNode({name: `${PARENT}/nodes/absent`}, noRetry).catch(() => undefined)
      const [created] = await library.createQueuedResource(
        {parent: PARENT, queuedResourceId: 'q', queuedResource: queuedResourceMessage(LOC, REQUEST) as never},
        noRetry,
      )
      await library.listQueuedResources({parent: PARENT}, noRetry)
      await library.getQueuedResource({name: `${PARENT}/queuedResources/q`}, noRetry)
      const [update] = await library.updateNode(
        {node: {name: `${PARENT}/nodes/n1`, metadata: {a: '1'}}, updateMask: {paths: ['metadata']}},
        noRetry,
      )
      await library.getOperation({name: update.name!} as never)
      await library.deleteQueuedResource({name: `${PARENT}/queuedResources/q`, force: true}, noRetry)
      await library.createNode({parent: PARENT, nodeId: 'vm', node: nodeMessage(NODE_REQUEST) as never}, noRetry)
      await library.createNode(
        {
          parent: PARENT,
          nodeId: 'spotvm',
          node: nodeMessage({...NODE_REQUEST, id: 'spotvm', capacity: 'spot'}) as never,
        },
        noRetry,
      )
      await library.deleteNode({name: `${PARENT}/nodes/n2`}, noRetry)
      expect(created.name).toMatch(/operations\/operation-\d+$/)
    } finally {
      await library.close()
    }

    const tpu = await createTpuClient({endpoint: `http://${viaAdapter.endpoint}`})
    await tpu.listNodes(LOC)
    await tpu.getNode(LOC, 'n1')
    expect(await tpu.getNode(LOC, 'absent')).toBeUndefined()
    await tpu.createQueuedResource(LOC, REQUEST)
    await tpu.listQueuedResources(LOC)
    await tpu.getQueuedResource(LOC, 'q')
    const update = await tpu.setNodeMetadata(LOC, 'n1', {a: '1'})
    expect(update.done).toBe(false)
    await tpu.getOperation(update.name)
    await tpu.deleteQueuedResource(LOC, 'q', true)
    await tpu.createNode(LOC, NODE_REQUEST)
    await tpu.createNode(LOC, {...NODE_REQUEST, id: 'spotvm', capacity: 'spot'})
    await tpu.deleteNode(LOC, 'n2')

    expect(received(viaAdapter)).toEqual(received(viaLibrary))
    expect(received(viaAdapter).map(([method]) => method)).toEqual([
      'ListNodes',
      'ListNodes',
      'GetNode',
      'GetNode',
      'CreateQueuedResource',
      'ListQueuedResources',
      'GetQueuedResource',
      'UpdateNode',
      'GetOperation',
      'DeleteQueuedResource',
      'CreateNode',
      'CreateNode',
      'DeleteNode',
    ])
    // The node as CreateNode carries it: the startup script is metadata, the capacity the scheduling config.
    expect(viaAdapter.calls.find((c) => c.method === 'CreateNode')?.request).toEqual({
      parent: PARENT,
      nodeId: 'vm',
      node: {
        acceleratorType: 'v4-8',
        runtimeVersion: 'tpu-ubuntu2204-base',
        metadata: {a: '1', 'startup-script': '#!/bin/bash\necho up'},
        labels: {job: 'train'},
        tags: ['ml', 'ssh'],
        schedulingConfig: {preemptible: true},
      },
    })
    expect(viaAdapter.node(LOC.project, LOC.zone, 'spotvm')?.schedulingConfig).toEqual({spot: true})
  })
})

describe('the TPU adapter over REST', () => {
  let fake: FakeTpu
  let tpu: TpuClient
  beforeAll(async () => {
    fake = await FakeTpu.start()
    tpu = await createTpuClient({endpoint: `http://${fake.endpoint}`})
  })
  afterAll(async () => fake?.stop())
  afterEach(() => {
    fake.calls.length = 0
  })

  /** The error a promise rejects with (fails the test if it resolves). */
  async function failure(promise: Promise<unknown>): Promise<ApiError> {
    const outcome = await promise.then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(outcome).toBeInstanceOf(XpkError)
    return outcome as ApiError
  }

  // Every status the API can answer with is classified as over gRPC: the error body's `status` names it (the HTTP
  // status alone would not: FAILED_PRECONDITION and INVALID_ARGUMENT are both 400), so kind, exit code, retry and
  // message are those of tpuApiError for that code.
  const CODES = Object.values(grpc.status).filter((c): c is number => typeof c === 'number' && c !== grpc.status.OK)
  it.each(CODES.map((code) => [grpc.status[code], code] as const))(
    '%s answered over REST is the error it was over gRPC',
    async (_, code) => {
      const message = code === grpc.status.RESOURCE_EXHAUSTED ? 'There is no more capacity in the zone.' : 'injected'
      fake.injectFault({method: 'ListQueuedResources', code, message})
      const error = await failure(tpu.listQueuedResources(LOC))
      const expected = tpuApiError({code, message}, {action: 'list queued resources', ...LOC})
      expect({
        kind: error.kind,
        exitCode: error.exitCode,
        retryable: error.retryable,
        status: error.status,
        message: error.message,
        hints: error.hints,
      }).toEqual({
        kind: expected.kind,
        exitCode: expected.exitCode,
        retryable: expected.retryable,
        status: expected.status,
        message: expected.message,
        hints: expected.hints,
      })
      // One failure, one request: xpk's retry policy is the only one.
      expect(fake.calls).toHaveLength(1)
    },
  )

  it('reads a missing node or queued resource as undefined; other missing things are not-found errors', async () => {
    expect(await tpu.getNode(LOC, 'absent')).toBeUndefined()
    expect(await tpu.getQueuedResource(LOC, 'absent')).toBeUndefined()
    const error = await failure(tpu.deleteQueuedResource(LOC, 'absent', true))
    expect([error.kind, error.exitCode]).toEqual(['not-found', 4])
    expect(error.message).toContain('Could not delete queued resource absent')
  })

  it('sends the token as a Bearer header over https, under v2/ or the path the endpoint gives', async () => {
    const seen: [string, string | undefined][] = []
    const redirecting: typeof fetch = (input, init) => {
      const url = String(input)
      seen.push([url, new Headers(init?.headers).get('authorization') ?? undefined])
      return fetch(url.replace(/^https:\/\/tpu\.example\.test(:\d+)?/, `http://${fake.endpoint}`), init)
    }
    const bare = await createTpuClient({
      endpoint: 'https://tpu.example.test:8443',
      accessToken: 't',
      fetch: redirecting,
    })
    await bare.listNodes(LOC)
    const pathed = await createTpuClient({
      endpoint: 'https://tpu.example.test/v2/',
      accessToken: 't',
      fetch: redirecting,
    })
    await pathed.getOperation(`${PARENT}/operations/missing`).catch(() => undefined)
    expect(seen).toEqual([
      [`https://tpu.example.test:8443/v2/${PARENT}/nodes`, 'Bearer t'],
      [`https://tpu.example.test/v2/${PARENT}/operations/missing`, 'Bearer t'],
    ])
  })

  it('sends no credentials to a loopback http endpoint, even when given a token', async () => {
    const seen: (string | undefined)[] = []
    const loopback = await createTpuClient({
      endpoint: `http://${fake.endpoint}`,
      accessToken: 'do-not-leak',
      fetch: (input, init) => {
        seen.push(new Headers(init?.headers).get('authorization') ?? undefined)
        return fetch(input, init)
      },
    })
    await loopback.listNodes(LOC)
    expect(seen).toEqual([undefined])
  })

  it('falls back to Application Default Credentials over https, and says how to log in when there are none', async () => {
    let requests = 0
    const saved = process.env.CLOUDSDK_CONFIG
    // An empty gcloud config dir: Application Default Credentials find no credential file on this machine.
    process.env.CLOUDSDK_CONFIG = tempDir('xpk-tpu-adc-')
    try {
      const adc = await createTpuClient({
        endpoint: 'https://tpu.example.test/',
        fetch: async () => {
          requests++
          throw new Error('no request may be sent without credentials')
        },
      })
      const error = await failure(adc.listNodes(LOC))
      expect([error.kind, error.exitCode]).toEqual(['auth', 3])
      expect(error.message).toContain('No Google credentials to list TPU nodes')
      expect(error.hints.join(' ')).toContain('gcloud auth application-default login')
    } finally {
      if (saved === undefined) delete process.env.CLOUDSDK_CONFIG
      else process.env.CLOUDSDK_CONFIG = saved
    }
    expect(requests).toBe(0)
  })

  it('gives up on a request that takes longer than requestTimeoutMs, as a retryable error', async () => {
    const slow = await createTpuClient({endpoint: `http://${fake.endpoint}`, requestTimeoutMs: 50})
    fake.injectFault({method: 'ListNodes', delayMs: 1_000})
    const error = await failure(slow.listNodes(LOC))
    expect([error.kind, error.status, error.retryable]).toEqual(['unavailable', 'DEADLINE_EXCEEDED', true])
    expect(error.message).toContain('within 50 ms')
  })

  it('sends the update mask and only the metadata, which replaces the node metadata and nothing else', async () => {
    fake.seedNode(LOC.project, LOC.zone, 'keyed', {acceleratorType: 'v4-8', metadata: {a: '1'}, labels: {team: 'ml'}})
    const op = await tpu.setNodeMetadata(LOC, 'keyed', {b: '2'})
    expect(op).toEqual({name: expect.stringMatching(new RegExp(`^${PARENT}/operations/operation-\\d+$`)), done: true})
    expect(fake.calls.at(-1)?.request).toEqual({
      node: {name: `${PARENT}/nodes/keyed`, metadata: {b: '2'}},
      updateMask: {paths: ['metadata']},
    })
    expect(fake.node(LOC.project, LOC.zone, 'keyed')).toMatchObject({metadata: {b: '2'}, labels: {team: 'ml'}})
  })
})
