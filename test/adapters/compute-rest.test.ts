import {mkdtemp, rm} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {createComputeClient} from '../../src/adapters/compute-rest.js'
import {ApiError, XpkError} from '../../src/core/errors.js'
import type {ComputeClient, ComputeOperation, WorkloadPolicySpec} from '../../src/ports/compute.js'
import {computeErrors, FakeCompute} from '../fakes/fake-compute.js'

const P = 'p1'
const R = 'us-east5'
const NAME = 'tpu7x-16-2x2x2-placement-policy'
const SPEC: WorkloadPolicySpec = {project: P, region: R, name: NAME, acceleratorTopology: '2x2x2'}
const policiesPath = `projects/${P}/regions/${R}/resourcePolicies`

let fake: FakeCompute
let compute: ComputeClient
let gcloudConfig: string
const savedEnv = {...process.env}

beforeAll(async () => {
  fake = await FakeCompute.start({operationMs: 20})
  compute = await createComputeClient({endpoint: fake.endpoint})
  // An empty gcloud config dir: Application Default Credentials find no credential file on this machine.
  gcloudConfig = await mkdtemp(join(tmpdir(), 'xpk-compute-'))
  process.env.CLOUDSDK_CONFIG = gcloudConfig
})

afterAll(async () => {
  await fake.stop()
  await rm(gcloudConfig, {recursive: true, force: true})
  process.env.CLOUDSDK_CONFIG = savedEnv.CLOUDSDK_CONFIG
  if (savedEnv.CLOUDSDK_CONFIG === undefined) delete process.env.CLOUDSDK_CONFIG
})

beforeEach(() => fake.reset())

/** The error a promise rejects with (fails the test if it resolves). */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(outcome).toBeInstanceOf(XpkError)
  return outcome as ApiError
}

/** A fetch that sends requests for https://compute.example.test to the fake over http, headers untouched. */
function redirectingFetch(seen: string[]): typeof fetch {
  return (input, init) => {
    const url = String(input)
    seen.push(url)
    return fetch(url.replace(/^https:\/\/compute\.example\.test(:\d+)?/, fake.endpoint), init)
  }
}

describe('getWorkloadPolicy', () => {
  it('resolves undefined for a missing policy', async () => {
    expect(await compute.getWorkloadPolicy(P, R, NAME)).toBeUndefined()
    expect(fake.calls.map((c) => [c.method, c.path, c.status])).toEqual([['GET', `${policiesPath}/${NAME}`, 404]])
  })

  it('maps an existing policy', async () => {
    fake.seedPolicy({project: P, region: R, name: NAME, acceleratorTopology: '2x2x2', type: 'HIGH_AVAILABILITY'})
    expect(await compute.getWorkloadPolicy(P, R, NAME)).toEqual({
      name: NAME,
      acceleratorTopology: '2x2x2',
      type: 'HIGH_AVAILABILITY',
      status: 'READY',
    })
  })

  it('gives null for a policy without a topology', async () => {
    fake.seedPolicy({project: P, region: R, name: 'plain'})
    expect(await compute.getWorkloadPolicy(P, R, 'plain')).toEqual({
      name: 'plain',
      acceleratorTopology: null,
      type: 'HIGH_THROUGHPUT',
      status: 'READY',
    })
  })
})

/** Reads an operation until it is done, as the executor's watcher would (the adapter itself never waits). */
async function finished(op: ComputeOperation | 'exists'): Promise<ComputeOperation> {
  if (op === 'exists') throw new Error('expected an operation, got exists')
  let current = op
  for (let i = 0; i < 500 && !current.done; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5))
    current = await compute.getRegionOperation(P, R, current.name)
  }
  return current
}

describe('insertWorkloadPolicy and getRegionOperation', () => {
  it('posts a HIGH_THROUGHPUT workload policy and returns its region operation, read until DONE', async () => {
    fake.settings.operationMs = 60
    const op = await compute.insertWorkloadPolicy(SPEC)
    expect(op).toEqual({name: 'operation-1', done: false, error: null})
    expect(fake.mutatingCalls().map((c) => [c.path, c.body])).toEqual([
      [policiesPath, {name: NAME, workloadPolicy: {type: 'HIGH_THROUGHPUT', acceleratorTopology: '2x2x2'}}],
    ])
    expect(await finished(op)).toEqual({name: 'operation-1', done: true, error: null})
    expect(new Set(fake.calls.filter((c) => c.method === 'GET').map((c) => c.path))).toEqual(
      new Set([`projects/${P}/regions/${R}/operations/operation-1`]),
    )
    expect(fake.policy(P, R, NAME)?.status).toBe('READY')
  })

  it('sends the PROVISION_ONLY mode of a super-slicing policy, and reads it back', async () => {
    const ss = {...SPEC, name: 'tpu7x-128-4x4x4-ss-placement-policy', acceleratorTopology: '4x4x4'} as const
    await finished(await compute.insertWorkloadPolicy({...ss, acceleratorTopologyMode: 'PROVISION_ONLY'}))
    expect(fake.mutatingCalls().map((c) => c.body)).toEqual([
      {
        name: ss.name,
        workloadPolicy: {
          type: 'HIGH_THROUGHPUT',
          acceleratorTopology: '4x4x4',
          acceleratorTopologyMode: 'PROVISION_ONLY',
        },
      },
    ])
    expect(await compute.getWorkloadPolicy(P, R, ss.name)).toMatchObject({acceleratorTopologyMode: 'PROVISION_ONLY'})
  })

  it("answers 'exists' for 409 ALREADY_EXISTS, without waiting", async () => {
    fake.seedPolicy({project: P, region: R, name: NAME, acceleratorTopology: '2x2x2'})
    await expect(compute.insertWorkloadPolicy(SPEC)).resolves.toBe('exists')
    expect(fake.calls.map((c) => [c.method, c.path, c.status])).toEqual([['POST', policiesPath, 409]])
  })

  it('classifies an operation that ends RESOURCE_ALREADY_EXISTS as ALREADY_EXISTS (another creator won)', async () => {
    fake.failOperations({errors: [{code: 'RESOURCE_ALREADY_EXISTS', message: `The resource '${NAME}' already exists`}]})
    const done = await finished(await compute.insertWorkloadPolicy(SPEC))
    expect(done.error?.status).toBe('ALREADY_EXISTS')
  })

  it('maps 403 to a permission error (exit code 3) with a Compute Engine IAM hint', async () => {
    fake.faults.push(computeErrors.permissionDenied('compute.resourcePolicies.create', `projects/${P}`))
    const error = await failure(compute.insertWorkloadPolicy(SPEC))
    expect(error).toBeInstanceOf(ApiError)
    expect(error.message).toBe(
      `Could not create workload policy ${NAME}: Required 'compute.resourcePolicies.create' permission for 'projects/${P}'`,
    )
    expect([error.kind, error.exitCode, error.status, error.retryable]).toEqual([
      'permission',
      3,
      'PERMISSION_DENIED',
      false,
    ])
    expect(error.hints.join(' ')).toContain('roles/compute.admin')
    expect(error.hints.join(' ')).not.toContain('container')
  })

  it('says how to enable the API when Compute Engine is disabled in the project', async () => {
    fake.faults.push(computeErrors.apiDisabled(P))
    const error = await failure(compute.getWorkloadPolicy(P, R, NAME))
    expect(error.kind).toBe('permission')
    expect(error.hints).toEqual([
      expect.stringContaining(`gcloud services enable compute.googleapis.com --project=${P}`),
    ])
  })

  it('maps 403 rateLimitExceeded to a retryable quota error and 403 quotaExceeded to a final one', async () => {
    fake.faults.push(computeErrors.rateLimited())
    const rate = await failure(compute.insertWorkloadPolicy(SPEC))
    expect([rate.kind, rate.status, rate.retryable]).toEqual(['quota', 'RESOURCE_EXHAUSTED', true])

    fake.faults.push(computeErrors.quotaExceeded('RESOURCE_POLICIES', R))
    const quota = await failure(compute.insertWorkloadPolicy(SPEC))
    expect([quota.kind, quota.exitCode, quota.retryable]).toEqual(['quota', 5, false])
    expect(quota.message).toContain("Quota 'RESOURCE_POLICIES' exceeded")
  })

  it.each([
    [429, 'Resource has been exhausted (e.g. check quota).', 'quota', 'RESOURCE_EXHAUSTED'],
    [500, 'Internal error.', 'unavailable', 'INTERNAL'],
    [503, 'The service is currently unavailable.', 'unavailable', 'UNAVAILABLE'],
    [504, 'Deadline exceeded.', 'unavailable', 'DEADLINE_EXCEEDED'],
  ])('maps HTTP %i to a retryable ApiError', async (status, message, kind, grpcStatus) => {
    fake.faults.push({status, message, method: 'POST'})
    const error = await failure(compute.insertWorkloadPolicy(SPEC))
    expect(error).toBeInstanceOf(ApiError)
    expect([error.kind, error.status, error.retryable]).toEqual([kind, grpcStatus, true])
    expect(error.message).toBe(`Could not create workload policy ${NAME}: ${message}`)
    expect(fake.policies()).toEqual([])
  })

  it.each([
    [400, 'failed', 'INVALID_ARGUMENT', 1],
    [401, 'auth', 'UNAUTHENTICATED', 3],
    [404, 'not-found', 'NOT_FOUND', 4],
  ])('maps HTTP %i to a final %s error', async (status, kind, grpcStatus, exitCode) => {
    fake.faults.push({status, method: 'POST'})
    const error = await failure(compute.insertWorkloadPolicy(SPEC))
    expect([error.kind, error.status, error.retryable, error.exitCode]).toEqual([kind, grpcStatus, false, exitCode])
    expect(error.hints.join(' ')).not.toMatch(/GKE|locations\//)
  })

  it('keeps the text of an error page that is not JSON', async () => {
    fake.faults.push({status: 502, rawBody: '<html><title>502 Bad Gateway</title></html>'})
    const error = await failure(compute.getWorkloadPolicy(P, R, NAME))
    expect([error.kind, error.retryable]).toEqual(['unavailable', true])
    expect(error.message).toContain('502 Bad Gateway')
  })

  it('turns an operation error into a typed error naming the policy', async () => {
    fake.failOperations({
      errors: [{code: 'QUOTA_EXCEEDED', message: `Quota 'RESOURCE_POLICIES' exceeded.  Limit: 10.0 in region ${R}.`}],
    })
    const quota = (await finished(await compute.insertWorkloadPolicy(SPEC))).error!
    expect([quota.kind, quota.retryable]).toEqual(['quota', false])
    expect(quota.message).toBe(
      `Could not create workload policy ${NAME}: Quota 'RESOURCE_POLICIES' exceeded.  Limit: 10.0 in region ${R}.`,
    )

    fake.reset()
    fake.failOperations({})
    const internal = (await finished(await compute.insertWorkloadPolicy(SPEC))).error!
    expect([internal.kind, internal.status, internal.retryable]).toEqual(['unavailable', 'INTERNAL', true])

    fake.reset()
    fake.failOperations({errors: [{code: 'SOMETHING_NEW', message: 'odd'}], httpErrorStatusCode: 400})
    const unknown = (await finished(await compute.insertWorkloadPolicy(SPEC))).error!
    expect([unknown.kind, unknown.status, unknown.message]).toEqual([
      'failed',
      'INVALID_ARGUMENT',
      `Could not create workload policy ${NAME}: odd`,
    ])
  })
})

describe('transport', () => {
  it('gives up on a request that takes longer than requestTimeoutMs, as a retryable error', async () => {
    const impatient = await createComputeClient({endpoint: fake.endpoint, requestTimeoutMs: 100})
    fake.faults.push({delayMs: 1000})
    const error = await failure(impatient.getWorkloadPolicy(P, R, NAME))
    expect([error.kind, error.status, error.retryable]).toEqual(['unavailable', 'DEADLINE_EXCEEDED', true])
    expect(error.message).toContain('within 100 ms')
  })

  it('reports an unreachable endpoint as a retryable error', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const nowhere = await createComputeClient({endpoint: `http://127.0.0.1:${port}`})
    const error = await failure(nowhere.getWorkloadPolicy(P, R, NAME))
    expect([error.kind, error.retryable]).toEqual(['unavailable', true])
    expect(error.message).toContain('ECONNREFUSED')
  })

  it.each([
    ['http://compute.example.com', 'plain http is only allowed on loopback'],
    ['ftp://127.0.0.1:21', 'must use https://'],
  ])('refuses the endpoint %s as a usage error', async (endpoint, message) => {
    const error = await failure(createComputeClient({endpoint}))
    expect([error.kind, error.exitCode]).toEqual(['usage', 2])
    expect(error.message).toContain(message)
    expect(error.message).toContain('--compute-endpoint')
  })

  it('sends the access token as a Bearer header over https, under the default path or the given one', async () => {
    fake.settings.requireToken = 'tok-123'
    const seen: string[] = []
    const bare = await createComputeClient({
      endpoint: 'https://compute.example.test:8443',
      accessToken: 'tok-123',
      fetch: redirectingFetch(seen),
    })
    fake.seedPolicy({project: P, region: R, name: NAME, acceleratorTopology: '2x2x2'})
    expect(await bare.getWorkloadPolicy(P, R, NAME)).toMatchObject({acceleratorTopology: '2x2x2'})
    expect(fake.calls.map((c) => [c.status, c.authorization])).toEqual([[200, 'Bearer tok-123']])

    const pathed = await createComputeClient({
      endpoint: 'https://compute.example.test/compute/v1',
      accessToken: 'tok-123',
      fetch: redirectingFetch(seen),
    })
    await pathed.getWorkloadPolicy(P, R, 'other')
    expect(seen).toEqual([
      `https://compute.example.test:8443/compute/v1/${policiesPath}/${NAME}`,
      `https://compute.example.test/compute/v1/${policiesPath}/other`,
    ])
  })

  it('sends no credentials to a loopback http endpoint, even when given a token', async () => {
    const loopback = await createComputeClient({endpoint: fake.endpoint, accessToken: 'do-not-leak'})
    await loopback.insertWorkloadPolicy(SPEC)
    expect(fake.calls.length).toBeGreaterThan(0)
    expect(fake.calls.map((c) => c.authorization)).toEqual(fake.calls.map(() => undefined))
  })

  it('falls back to Application Default Credentials over https, and says how to log in when there are none', async () => {
    const seen: string[] = []
    const adc = await createComputeClient({endpoint: 'https://compute.example.test/', fetch: redirectingFetch(seen)})
    const error = await failure(adc.getWorkloadPolicy(P, R, NAME))
    expect([error.kind, error.exitCode]).toEqual(['auth', 3])
    expect(error.message).toContain(`No Google credentials to read workload policy ${NAME}`)
    expect(error.hints.join(' ')).toContain('gcloud auth application-default login')
    expect(seen).toEqual([])
  })
})

describe('metadata server', () => {
  let sink: Server
  const probes: string[] = []

  beforeAll(async () => {
    // GCE_METADATA_HOST points google-auth-library's metadata lookups at this sink instead of 169.254.169.254.
    sink = createServer((request, response) => {
      probes.push(`${request.method} ${request.url}`)
      response.writeHead(404).end()
    })
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve))
    const host = `127.0.0.1:${(sink.address() as AddressInfo).port}`
    process.env.GCE_METADATA_HOST = host
    process.env.GCE_METADATA_IP = host
    // Detection stays on for these tests: the point is that the client is configured not to need it.
    delete process.env.METADATA_SERVER_DETECTION
  })

  afterAll(async () => {
    for (const key of ['GCE_METADATA_HOST', 'GCE_METADATA_IP', 'METADATA_SERVER_DETECTION'] as const) {
      process.env[key] = savedEnv[key]
      if (savedEnv[key] === undefined) delete process.env[key]
    }
    await new Promise((resolve) => sink.close(resolve))
  })

  beforeEach(() => {
    probes.length = 0
  })

  it('is never asked anything when the endpoint is loopback http', async () => {
    const loopback = await createComputeClient({endpoint: fake.endpoint})
    expect(await loopback.getWorkloadPolicy(P, R, NAME)).toBeUndefined()
    await loopback.insertWorkloadPolicy(SPEC)
    expect(await loopback.getWorkloadPolicy(P, R, NAME)).toMatchObject({acceleratorTopology: '2x2x2'})
    expect(probes).toEqual([])
  })

  it('does see the probe of a client that falls back to ADC (so the test above can fail)', async () => {
    const adc = await createComputeClient({endpoint: 'https://compute.example.test/', fetch: redirectingFetch([])})
    const error = await failure(adc.getWorkloadPolicy(P, R, NAME))
    expect(error.kind).toBe('auth')
    expect(probes.length).toBeGreaterThan(0)
  })
})

describe('reservations', () => {
  const Z = 'us-east5-a'

  it('reads a reservation by its zonal path and maps a missing one to undefined', async () => {
    fake.seedReservation({project: P, zone: Z, name: 'r1', specific: {machineType: 'tpu7x-standard-4t', count: 8}})
    expect(await compute.getReservation(P, Z, 'r1')).toMatchObject({name: 'r1', zone: Z, specific: {count: 8}})
    expect(await compute.getReservation(P, Z, 'r2')).toBeUndefined()
    expect(fake.calls.map((c) => [c.method, c.path, c.status])).toEqual([
      ['GET', `projects/${P}/zones/${Z}/reservations/r1`, 200],
      ['GET', `projects/${P}/zones/${Z}/reservations/r2`, 404],
    ])
  })

  it('names the reservation permissions in the hint of a 403', async () => {
    fake.faults.push(computeErrors.permissionDenied('compute.reservations.get', `projects/${P}`))
    const error = await failure(compute.getReservation(P, Z, 'r1'))
    expect(error.kind).toBe('permission')
    expect(error.message).toBe(
      `Could not read reservation r1: Required 'compute.reservations.get' permission for 'projects/${P}'`,
    )
    expect(error.hints.join('\n')).toContain('compute.reservations.get and compute.reservations.list')
  })

  it('lists the sub-blocks of a block under the reservation block path', async () => {
    fake.seedReservation({
      project: P,
      zone: Z,
      name: 'r1',
      specific: {machineType: 'tpu7x-standard-4t', count: 32},
      blocks: [{name: 'b-1', count: 32, subBlocks: [{name: 's-1', count: 16, inUseCount: 3}]}],
    })
    expect(await compute.listReservationSubBlocks(P, Z, 'r1', 'b-1')).toEqual([
      {name: 's-1', count: 16, inUseCount: 3, status: 'READY', health: 'HEALTHY'},
    ])
    expect(fake.calls.at(-1)?.path).toBe(
      `projects/${P}/zones/${Z}/reservations/r1/reservationBlocks/b-1/reservationSubBlocks`,
    )
  })
})
