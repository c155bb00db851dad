import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {createComputeClient} from '../../src/adapters/compute-rest.js'
import {systemClock} from '../../src/adapters/system-clock.js'
import {ApiError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {createWorkloadPolicy} from '../../src/executor/workload-policy.js'
import type {ComputeClient, WorkloadPolicySpec} from '../../src/ports/compute.js'
import {computeErrors, FakeCompute} from './fake-compute.js'

const P = 'p1'
const R = 'us-central1'
const policiesPath = `projects/${P}/regions/${R}/resourcePolicies`
const spec = (name = 'tpu7x-16-2x2x2-placement-policy', acceleratorTopology = '2x2x2'): WorkloadPolicySpec => ({
  project: P,
  region: R,
  name,
  acceleratorTopology,
})
/** Creates a policy as the CLI does (the executor's createWorkloadPolicy), with short real waits. */
const create = (policy: WorkloadPolicySpec, signal = new AbortController().signal) =>
  createWorkloadPolicy(compute, policy, {
    policy: {...DEFAULT_RETRY_POLICY, backoff: {initialMs: 1, maxMs: 5, factor: 2}},
    clock: systemClock,
    signal,
    poll: {initialMs: 5, maxMs: 50, factor: 1.5, fastForMs: 0},
  })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let fake: FakeCompute
let compute: ComputeClient

beforeAll(async () => {
  fake = await FakeCompute.start({operationMs: 20})
  compute = await createComputeClient({endpoint: fake.endpoint})
})

afterAll(async () => {
  await fake.stop()
})

beforeEach(() => fake.reset())

/** Google's JSON error body, as the fake sends it. */
interface ErrorJson {
  error: {code: number; message: string; errors: {message: string; domain: string; reason?: string}[]; status: string}
}

/** A raw request, for what the adapter hides (bodies of errors, routes it never calls). */
async function raw(method: string, path: string, init: {body?: string; headers?: Record<string, string>} = {}) {
  const response = await fetch(`${fake.endpoint}/compute/v1/${path}`, {method, ...init})
  return {status: response.status, body: (await response.json()) as ErrorJson}
}

async function until(check: () => boolean) {
  for (let i = 0; i < 400 && !check(); i++) await sleep(5)
  expect(check()).toBe(true)
}

describe('FakeCompute workload policies', () => {
  it('keeps an inserted policy CREATING until its operation is DONE, then READY', async () => {
    fake.settings.operationMs = Infinity
    const created = create(spec())
    await until(() => fake.calls.some((c) => c.path.includes('/operations/')))

    expect(fake.policy(P, R, 'tpu7x-16-2x2x2-placement-policy')).toMatchObject({
      kind: 'compute#resourcePolicy',
      name: 'tpu7x-16-2x2x2-placement-policy',
      status: 'CREATING',
      region: `https://www.googleapis.com/compute/v1/projects/${P}/regions/${R}`,
      selfLink: `https://www.googleapis.com/compute/v1/${policiesPath}/tpu7x-16-2x2x2-placement-policy`,
      workloadPolicy: {type: 'HIGH_THROUGHPUT', acceleratorTopology: '2x2x2'},
    })
    expect(fake.operation('operation-1')).toMatchObject({
      kind: 'compute#operation',
      operationType: 'insert',
      status: 'RUNNING',
      targetLink: `https://www.googleapis.com/compute/v1/${policiesPath}/tpu7x-16-2x2x2-placement-policy`,
    })

    fake.finishOperations()
    await created
    expect(fake.policy(P, R, 'tpu7x-16-2x2x2-placement-policy')?.status).toBe('READY')
    expect(fake.operation('operation-1')).toMatchObject({status: 'DONE', progress: 100})
    expect(fake.operation('operation-1')?.error).toBeUndefined()
  })

  it('answers an insert already DONE when operationMs is 0, so nothing is polled', async () => {
    fake.settings.operationMs = 0
    await create(spec())
    // No operation poll: only the READY check of the policy follows the insert.
    expect(fake.calls.map((c) => [c.method, c.path, c.status])).toEqual([
      ['POST', policiesPath, 200],
      ['GET', `${policiesPath}/tpu7x-16-2x2x2-placement-policy`, 200],
    ])
    expect(fake.policy(P, R, 'tpu7x-16-2x2x2-placement-policy')?.status).toBe('READY')
  })

  it('serves a seeded policy and answers 404 with a Google error for a missing one', async () => {
    fake.seedPolicy({project: P, region: R, name: 'seeded', acceleratorTopology: '4x4x4'})
    expect(await compute.getWorkloadPolicy(P, R, 'seeded')).toEqual({
      name: 'seeded',
      acceleratorTopology: '4x4x4',
      type: 'HIGH_THROUGHPUT',
      status: 'READY',
    })
    expect(await compute.getWorkloadPolicy(P, 'europe-west4', 'seeded')).toBeUndefined()
    expect(await raw('GET', `${policiesPath}/missing`)).toEqual({
      status: 404,
      body: {
        error: {
          code: 404,
          message: `The resource '${policiesPath}/missing' was not found`,
          errors: [
            {message: `The resource '${policiesPath}/missing' was not found`, domain: 'global', reason: 'notFound'},
          ],
          status: 'NOT_FOUND',
        },
      },
    })
    expect(fake.mutatingCalls()).toEqual([])
  })

  it('rejects a second insert of the same name with 409 alreadyExists and keeps the first', async () => {
    fake.seedPolicy({project: P, region: R, name: 'dup', acceleratorTopology: '2x2x2'})
    const second = await raw('POST', policiesPath, {
      body: JSON.stringify({name: 'dup', workloadPolicy: {type: 'HIGH_THROUGHPUT', acceleratorTopology: '4x4x4'}}),
    })
    expect(second.status).toBe(409)
    expect(second.body.error).toMatchObject({
      message: `The resource '${policiesPath}/dup' already exists`,
      errors: [{reason: 'alreadyExists'}],
      status: 'ALREADY_EXISTS',
    })
    expect(fake.policies().map((p) => p.workloadPolicy.acceleratorTopology)).toEqual(['2x2x2'])
    expect(fake.operations()).toEqual([])
  })

  it.each([
    ['a bad name', spec('Bad_Name'), "Invalid value for field 'resource.name': 'Bad_Name'"],
    ['a bad topology', spec('ok', '2by2'), "Invalid value for field 'resource.workloadPolicy.acceleratorTopology'"],
    ['a zone as region', {...spec(), region: 'us-central1-a'}, "Invalid value for field 'region': 'us-central1-a'"],
  ])('rejects an insert with %s as 400 and stores nothing', async (_what, bad, message) => {
    const error = await create(bad).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).message).toContain(message)
    expect(fake.calls.at(-1)?.status).toBe(400)
    expect(fake.policies()).toEqual([])
  })

  it('rejects bodies that are not JSON or not workload policies', async () => {
    const notJson = await raw('POST', policiesPath, {body: '{nope'})
    expect([notJson.status, notJson.body.error.errors[0].reason]).toEqual([400, 'parseError'])
    const groupPlacement = await raw('POST', policiesPath, {
      body: JSON.stringify({name: 'gp', groupPlacementPolicy: {collocation: 'COLLOCATED'}}),
    })
    expect(groupPlacement.status).toBe(400)
    const badType = await raw('POST', policiesPath, {
      body: JSON.stringify({name: 'bt', workloadPolicy: {type: 'FASTEST'}}),
    })
    expect(badType.body.error.message).toContain("'resource.workloadPolicy.type': 'FASTEST'")
    expect(fake.policies()).toEqual([])
    expect(fake.calls.map((c) => c.body)).toEqual([
      '{nope',
      {name: 'gp', groupPlacementPolicy: {collocation: 'COLLOCATED'}},
      {name: 'bt', workloadPolicy: {type: 'FASTEST'}},
    ])
  })

  it('scopes operations to their project and region', async () => {
    fake.settings.operationMs = Infinity
    await raw('POST', policiesPath, {body: JSON.stringify({name: 'x', workloadPolicy: {type: 'HIGH_THROUGHPUT'}})})
    expect((await raw('GET', `projects/${P}/regions/${R}/operations/operation-1`)).status).toBe(200)
    expect((await raw('GET', `projects/${P}/regions/europe-west4/operations/operation-1`)).status).toBe(404)
    expect((await raw('GET', `projects/other/regions/${R}/operations/operation-1`)).status).toBe(404)
  })

  it('answers 404 for routes it does not serve, and logs them', async () => {
    const wait = await raw('POST', `projects/${P}/regions/${R}/operations/operation-1/wait`)
    expect(wait.status).toBe(404)
    expect(wait.body.error.message).toBe(
      `The fake does not serve POST /compute/v1/projects/${P}/regions/${R}/operations/operation-1/wait.`,
    )
    const response = await fetch(`${fake.endpoint}/v1/projects/${P}`)
    expect(response.status).toBe(404)
    expect(fake.calls.map((c) => [c.method, c.path])).toEqual([
      ['POST', `projects/${P}/regions/${R}/operations/operation-1/wait`],
      ['GET', `/v1/projects/${P}`],
    ])
    expect(fake.mutatingCalls()).toHaveLength(1)
  })

  it('checks a bearer token only when started with requireToken', async () => {
    fake.settings.requireToken = 'sesame'
    const none = await raw('GET', `${policiesPath}/x`)
    const wrong = await raw('GET', `${policiesPath}/x`, {headers: {authorization: 'Bearer nope'}})
    const right = await raw('GET', `${policiesPath}/x`, {headers: {authorization: 'Bearer sesame'}})
    expect([none.status, none.body.error.errors[0].reason]).toEqual([401, 'required'])
    expect([wrong.status, wrong.body.error.errors[0].reason]).toEqual([401, 'authError'])
    expect(right.status).toBe(404)
    expect(fake.calls.map((c) => c.authorization)).toEqual([undefined, 'Bearer nope', 'Bearer sesame'])
  })
})

describe('FakeCompute faults', () => {
  it('consumes an HTTP fault `times` times, only for the method and path it names', async () => {
    fake.faults.push({status: 503, method: 'POST', path: '/resourcePolicies', times: 2})
    expect(await compute.getWorkloadPolicy(P, R, 'np')).toBeUndefined()
    // The CLI's retry policy rides out both faults in one create.
    await create(spec())
    expect(fake.faults).toEqual([])
    expect(fake.calls.filter((c) => c.method === 'POST').map((c) => c.status)).toEqual([503, 503, 200])
    expect(fake.policies()).toHaveLength(1)
  })

  it('sends Google JSON error bodies, or a raw body when asked', async () => {
    fake.faults.push({...computeErrors.permissionDenied('compute.resourcePolicies.get', 'projects/p1')})
    fake.faults.push({path: /resourcePolicies\/html$/, status: 502, rawBody: '<html>Bad Gateway</html>'})
    expect(await raw('GET', `${policiesPath}/x`)).toEqual({
      status: 403,
      body: {
        error: {
          code: 403,
          message: "Required 'compute.resourcePolicies.get' permission for 'projects/p1'",
          errors: [
            {
              message: "Required 'compute.resourcePolicies.get' permission for 'projects/p1'",
              domain: 'global',
              reason: 'forbidden',
            },
          ],
          status: 'PERMISSION_DENIED',
        },
      },
    })
    const html = await fetch(`${fake.endpoint}/compute/v1/${policiesPath}/html`)
    expect([html.status, await html.text()]).toEqual([502, '<html>Bad Gateway</html>'])
  })

  it('delays a request by a fault without a status, then serves it normally', async () => {
    fake.seedPolicy({project: P, region: R, name: 'slow', acceleratorTopology: '2x2'})
    fake.faults.push({path: 'slow', delayMs: 150})
    const started = Date.now()
    expect(await compute.getWorkloadPolicy(P, R, 'slow')).toMatchObject({acceleratorTopology: '2x2'})
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
    expect(fake.calls[0]?.status).toBe(200)
  })

  it('afterApply makes the insert and loses its answer: the retry finds the policy there (409, exists)', async () => {
    fake.faults.push({method: 'POST', status: 504, afterApply: true})
    const error = (await compute.insertWorkloadPolicy(spec()).catch((e: unknown) => e)) as ApiError
    expect([error.status, error.retryable]).toEqual(['DEADLINE_EXCEEDED', true])
    expect(fake.policies().map((p) => p.name)).toEqual([spec().name])
    expect(await compute.insertWorkloadPolicy(spec())).toBe('exists')
    expect(fake.calls.map((c) => c.status)).toEqual([504, 409])
  })

  it('fails a matching operation: DONE with error.errors and httpErrorStatusCode, policy removed', async () => {
    fake.failOperations({
      match: (t) => t.name === 'doomed',
      errors: [
        {code: 'QUOTA_EXCEEDED', message: "Quota 'RESOURCE_POLICIES' exceeded.  Limit: 10.0 in region us-central1."},
      ],
    })
    await create(spec('fine'))
    const error = (await create(spec('doomed')).catch((e: unknown) => e)) as ApiError
    expect(error.kind).toBe('quota')
    expect(fake.operation('operation-2')).toMatchObject({
      status: 'DONE',
      error: {errors: [{code: 'QUOTA_EXCEEDED'}]},
      httpErrorStatusCode: 403,
      httpErrorMessage: 'FORBIDDEN',
    })
    expect(fake.operation('operation-1')?.error).toBeUndefined()
    expect(fake.policies().map((p) => p.name)).toEqual(['fine'])
    expect(fake.operationFaults).toEqual([])
  })

  it('keeps the policy READY when an operation fails RESOURCE_ALREADY_EXISTS (a race another creator won)', async () => {
    fake.failOperations({errors: [{code: 'RESOURCE_ALREADY_EXISTS', message: "The resource 'raced' already exists"}]})
    const error = await create(spec('raced')).catch((e: unknown) => e)
    expect(error).toBeUndefined()
    expect(fake.operation('operation-1')?.httpErrorStatusCode).toBe(409)
    expect(fake.policy(P, R, 'raced')?.status).toBe('READY')
  })

  it('setPolicyStatus changes or removes a policy as another actor would', async () => {
    fake.seedPolicy({project: P, region: R, name: 'other', status: 'CREATING'})
    fake.setPolicyStatus(P, R, 'other', 'READY')
    expect((await compute.getWorkloadPolicy(P, R, 'other'))?.status).toBe('READY')
    fake.setPolicyStatus(P, R, 'other', undefined)
    expect(await compute.getWorkloadPolicy(P, R, 'other')).toBeUndefined()
    expect(() => fake.setPolicyStatus(P, R, 'other', 'READY')).toThrow(/does not exist/)
  })

  it('reset() forgets policies, operations, calls, faults and setting changes', async () => {
    fake.settings.operationMs = 0
    await create(spec())
    fake.faults.push({status: 500})
    fake.failOperations({})
    fake.reset()
    expect([fake.policies(), fake.operations(), fake.calls, fake.faults, fake.operationFaults]).toEqual([
      [],
      [],
      [],
      [],
      [],
    ])
    expect(fake.settings.operationMs).toBe(20)
    fake.settings.operationMs = Infinity
    const stop = new AbortController()
    const pending = create(spec(), stop.signal).catch(() => undefined)
    await until(() => fake.operations().length === 1)
    expect(fake.operations()[0]?.name).toBe('operation-1')
    stop.abort()
    await pending
  })

  it('settled() resolves once every operation is DONE', async () => {
    fake.settings.operationMs = 80
    await raw('POST', policiesPath, {body: JSON.stringify({name: 'a', workloadPolicy: {type: 'HIGH_THROUGHPUT'}})})
    expect(fake.operations()[0]?.status).toBe('RUNNING')
    await fake.settled()
    expect(fake.operations()[0]?.status).toBe('DONE')
  })
})

describe('FakeCompute reservations', () => {
  const Z = 'us-central1-a'
  const seed = {
    project: P,
    zone: Z,
    name: 'r1',
    specific: {machineType: 'ct5p-hightpu-4t', count: 64, inUseCount: 12, maintenanceInterval: 'PERIODIC'},
    deploymentType: 'DENSE',
    blocks: [1, 2, 3, 4, 5].map((i) => ({
      name: `b${i}`,
      count: 16,
      inUseCount: i,
      subBlocks: [{name: `b${i}-s1`, count: 16, health: 'DEGRADED'}],
    })),
  }

  it('answers a reservation as Compute does: int64 counts as strings, zone and selfLink as URLs', async () => {
    fake.seedReservation(seed)
    const response = await fetch(`${fake.endpoint}/compute/v1/projects/${P}/zones/${Z}/reservations/r1`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      kind: 'compute#reservation',
      name: 'r1',
      zone: `https://www.googleapis.com/compute/v1/projects/${P}/zones/${Z}`,
      selfLink: `https://www.googleapis.com/compute/v1/projects/${P}/zones/${Z}/reservations/r1`,
      status: 'READY',
      deploymentType: 'DENSE',
      specificReservation: {
        count: '64',
        inUseCount: '12',
        instanceProperties: {machineType: 'ct5p-hightpu-4t', maintenanceInterval: 'PERIODIC'},
      },
    })
  })

  it('answers 404 notFound for a missing reservation or block, and 400 for a region where a zone belongs', async () => {
    fake.seedReservation(seed)
    const missing = await raw('GET', `projects/${P}/zones/${Z}/reservations/nope`)
    expect(missing.status).toBe(404)
    expect(missing.body.error.errors[0]!.reason).toBe('notFound')
    const block = await raw('GET', `projects/${P}/zones/${Z}/reservations/r1/reservationBlocks/b9/reservationSubBlocks`)
    expect(block.status).toBe(404)
    expect(block.body.error.message).toContain('reservations/r1/reservationBlocks/b9')
    const region = await raw('GET', `projects/${P}/zones/us-central1/reservations/r1`)
    expect(region.status).toBe(400)
    expect(region.body.error.message).toContain('Unknown zone')
  })

  it('pages lists by maxResults or settings.pageSize, and the adapter reads every page', async () => {
    fake.seedReservation(seed)
    fake.settings.pageSize = 2
    const blocks = await compute.listReservationBlocks(P, Z, 'r1')
    expect(blocks?.map((b) => [b.name, b.inUseCount])).toEqual([
      ['b1', 1],
      ['b2', 2],
      ['b3', 3],
      ['b4', 4],
      ['b5', 5],
    ])
    expect(fake.calls.map((c) => c.query.pageToken ?? null)).toEqual([null, '2', '4'])
    const page = await fetch(
      `${fake.endpoint}/compute/v1/projects/${P}/zones/${Z}/reservations/r1/reservationBlocks?maxResults=4`,
    )
    expect(await page.json()).toMatchObject({kind: 'compute#reservationBlocksListResponse', nextPageToken: '4'})
    expect(await compute.listReservationSubBlocks(P, Z, 'r1', 'b2')).toEqual([
      {name: 'b2-s1', count: 16, inUseCount: 0, status: 'READY', health: 'DEGRADED'},
    ])
  })

  it('forgets reservations on reset()', async () => {
    fake.seedReservation(seed)
    fake.reset()
    expect(await compute.getReservation(P, Z, 'r1')).toBeUndefined()
  })
})

describe('FakeCompute networks, subnetworks and firewall rules', () => {
  const post = (path: string, body: unknown) =>
    raw('POST', path, {body: JSON.stringify(body), headers: {'content-type': 'application/json'}})
  const network = (name: string) => `https://www.googleapis.com/compute/v1/projects/${P}/global/networks/${name}`
  const done = async (op: {name: string}, scope: 'global' | 'region') => {
    for (let i = 0; i < 400; i++) {
      const read =
        scope === 'global' ? compute.getGlobalOperation(P, op.name) : compute.getRegionOperation(P, R, op.name)
      const answer = await read
      if (answer.done) return answer
      await sleep(5)
    }
    throw new Error('operation never ended')
  }

  it('answers Compute-shaped resources: URLs for network and region, the subnetwork listed on its network', async () => {
    await done(
      (await compute.insertNetwork({project: P, name: 'n1', mtu: 8244, networkProfile: null})) as never,
      'global',
    )
    await done(
      (await compute.insertSubnetwork({
        project: P,
        region: R,
        name: 's1',
        network: 'n1',
        ipCidrRange: '192.168.1.0/24',
      })) as never,
      'region',
    )
    const [net] = fake.networks()
    expect(net).toMatchObject({kind: 'compute#network', autoCreateSubnetworks: false, mtu: 8244})
    expect(net!.subnetworks).toEqual([
      `https://www.googleapis.com/compute/v1/projects/${P}/regions/${R}/subnetworks/s1`,
    ])
    expect(fake.subnetworks()[0]).toMatchObject({network: network('n1'), gatewayAddress: '192.168.1.1'})
    const op = fake.operations().find((o) => o.targetLink.endsWith('/networks/n1'))
    expect(op?.region).toBeUndefined()
    expect(op?.selfLink).toContain(`/projects/${P}/global/operations/`)
  })

  it('refuses legacy networks, MTUs out of range, overlapping subnet ranges and ports on icmp with 400', async () => {
    expect((await post(`projects/${P}/global/networks`, {name: 'n1'})).status).toBe(400)
    expect(
      (await post(`projects/${P}/global/networks`, {name: 'n1', autoCreateSubnetworks: false, mtu: 9000})).status,
    ).toBe(400)
    fake.seedNetwork({project: P, name: 'n1'})
    fake.seedNetwork({project: P, name: 'auto', subnetMode: 'auto'})
    const subnets = `projects/${P}/regions/${R}/subnetworks`
    expect((await post(subnets, {name: 's1', network: network('n1'), ipCidrRange: '192.168.1.0/24'})).status).toBe(200)
    const overlap = await post(subnets, {name: 's2', network: network('n1'), ipCidrRange: '192.168.0.0/16'})
    expect(overlap.status).toBe(400)
    expect(overlap.body.error.message).toContain("conflicts with existing subnetwork 's1'")
    expect((await post(subnets, {name: 's3', network: network('auto'), ipCidrRange: '10.0.0.0/24'})).status).toBe(400)
    expect((await post(subnets, {name: 's4', network: network('n1'), ipCidrRange: '192.168.2.1/24'})).status).toBe(400)
    const icmpPorts = await post(`projects/${P}/global/firewalls`, {
      name: 'f1',
      network: network('n1'),
      allowed: [{IPProtocol: 'icmp', ports: ['1']}],
    })
    expect(icmpPorts.status).toBe(400)
    expect((await post(`projects/${P}/global/firewalls`, {name: 'f1', network: network('gone')})).status).toBe(404)
    expect(fake.vpcResources()).toEqual([
      `network projects/${P}/global/networks/auto`,
      `network projects/${P}/global/networks/n1`,
      `subnetwork projects/${P}/regions/${R}/subnetworks/s1`,
    ])
  })

  it('ends the delete of a network in use RESOURCE_IN_USE_BY_ANOTHER_RESOURCE (400) and keeps the network', async () => {
    fake.seedNetwork({project: P, name: 'n1'})
    await done(
      (await compute.insertFirewall({
        project: P,
        name: 'f1',
        network: 'n1',
        sourceRanges: ['192.168.0.0/16'],
        allowed: [{protocol: 'icmp', ports: []}],
      })) as never,
      'global',
    )
    const op = await done((await compute.deleteNetwork(P, 'n1')) as never, 'global')
    expect(op.error?.status).toBe('FAILED_PRECONDITION')
    const rest = fake.operations().find((o) => o.operationType === 'delete')
    expect(rest).toMatchObject({
      httpErrorStatusCode: 400,
      error: {errors: [{code: 'RESOURCE_IN_USE_BY_ANOTHER_RESOURCE'}]},
    })
    expect(fake.vpcResources()).toContain(`network projects/${P}/global/networks/n1`)
    expect(fake.mutatingCalls().map((c) => c.method)).toEqual(['POST', 'DELETE'])
  })

  it('scopes global operations: a regional operation is not found among them, nor a global one in a region', async () => {
    const netOp = (await compute.insertNetwork({project: P, name: 'n1', mtu: 1460, networkProfile: null})) as {
      name: string
    }
    await expect(compute.getRegionOperation(P, R, netOp.name)).rejects.toMatchObject({status: 'NOT_FOUND'})
    await expect(compute.getGlobalOperation('other', netOp.name)).rejects.toMatchObject({status: 'NOT_FOUND'})
    await expect(compute.getGlobalOperation(P, netOp.name)).resolves.toMatchObject({name: netOp.name})
  })
})
