// FakeFilestore on the wire, as its spec (fake-filestore.md) says: the REST mapping of the Filestore API v1 (paths,
// the proto3 JSON of instances and operations, Google's JSON errors), the lifecycle, the refusals and the faults.
// Raw requests, so what the adapter does not show (operation metadata, error bodies, field names) is checked too.
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {FakeFilestore, filestoreErrors, type OperationJson} from './fake-filestore.js'

const P = 'p1'
const ZONE = 'us-central1-a'
const REGION = 'us-central1'
const parent = (location = ZONE) => `projects/${P}/locations/${location}`
const instancePath = (id: string, location = ZONE) => `${parent(location)}/instances/${id}`

let fake: FakeFilestore

beforeAll(async () => {
  fake = await FakeFilestore.start({operationMs: Infinity})
})
afterAll(() => fake.stop())
beforeEach(() => fake.reset())

interface Reply {
  status: number
  body: Record<string, unknown>
}

async function send(method: string, path: string, body?: unknown): Promise<Reply> {
  const response = await fetch(`${fake.endpoint}/v1/${path}`, {
    method,
    ...(body === undefined ? {} : {body: typeof body === 'string' ? body : JSON.stringify(body)}),
  })
  return {status: response.status, body: (await response.json()) as Record<string, unknown>}
}

/** A create request's instance, as Python xpk sends it (one share, one network). */
const instanceBody = (extra: Record<string, unknown> = {}) => ({
  tier: 'BASIC_HDD',
  description: 'XPK created filestore instance',
  fileShares: [{name: 'vol1', capacityGb: '1024'}],
  networks: [{network: 'default', modes: ['MODE_IPV4']}],
  ...extra,
})
const create = (id: string, body: unknown = instanceBody(), location = ZONE) =>
  send('POST', `${parent(location)}/instances?instanceId=${id}`, body)

const errorBody = (code: number, status: string, message: string | RegExp) => ({
  error: {code, status, message: typeof message === 'string' ? message : expect.stringMatching(message)},
})

describe('FakeFilestore: instances and their operations', () => {
  it('creates an instance CREATING with a running operation, READY with an address once the operation is done', async () => {
    const created = await create('nfs', instanceBody({labels: {team: 'ml'}}))
    expect(created.status).toBe(200)
    const op = created.body as unknown as OperationJson
    expect(op.name).toMatch(new RegExp(`^${parent()}/operations/operation-\\d+-[0-9a-f]+$`))
    expect(op).not.toHaveProperty('done')
    expect(op.metadata).toMatchObject({
      '@type': 'type.googleapis.com/google.cloud.common.OperationMetadata',
      target: instancePath('nfs'),
      verb: 'create',
      apiVersion: 'v1',
    })
    const creating = await send('GET', instancePath('nfs'))
    expect(creating.body).toMatchObject({
      name: instancePath('nfs'),
      state: 'CREATING',
      tier: 'BASIC_HDD',
      description: 'XPK created filestore instance',
      labels: {team: 'ml'},
      fileShares: [{name: 'vol1', capacityGb: '1024'}],
      networks: [{network: 'default', modes: ['MODE_IPV4'], connectMode: 'DIRECT_PEERING'}],
    })
    expect((creating.body.networks as object[])[0]).not.toHaveProperty('ipAddresses')

    fake.finishOperations()
    const done = await send('GET', op.name)
    expect(done.body).toMatchObject({name: op.name, done: true, response: {state: 'READY'}})
    expect((done.body.response as Record<string, unknown>)['@type']).toBe(
      'type.googleapis.com/google.cloud.filestore.v1.Instance',
    )
    const ready = await send('GET', instancePath('nfs'))
    expect(ready.body).toMatchObject({state: 'READY', networks: [{ipAddresses: [expect.stringMatching(/^10\./)]}]})
  })

  it('takes the capacity as a number too (int64 in proto3 JSON), and answers it as a string', async () => {
    await create('numeric', instanceBody({fileShares: [{name: 'vol1', capacityGb: 2048}]}))
    expect(fake.instance(P, ZONE, 'numeric')?.fileShares).toEqual([{name: 'vol1', capacityGb: '2048'}])
  })

  it('creates REGIONAL and ENTERPRISE instances in a region, the zonal tiers in a zone', async () => {
    expect((await create('reg', instanceBody({tier: 'REGIONAL'}), REGION)).status).toBe(200)
    expect((await create('ent', instanceBody({tier: 'ENTERPRISE'}), REGION)).status).toBe(200)
    expect((await create('zon', instanceBody({tier: 'ZONAL'}))).status).toBe(200)
    expect(fake.instances().map((i) => i.name)).toEqual([
      instancePath('reg', REGION),
      instancePath('ent', REGION),
      instancePath('zon'),
    ])
  })

  it('deletes: DELETING with a running operation, then gone and the operation done with an empty response', async () => {
    fake.seedInstance({project: P, location: ZONE, id: 'old'})
    const deleted = await send('DELETE', instancePath('old'))
    const op = deleted.body as unknown as OperationJson
    expect(op.metadata.verb).toBe('delete')
    expect((await send('GET', instancePath('old'))).body).toMatchObject({state: 'DELETING'})
    fake.finishOperations()
    expect(await send('GET', instancePath('old'))).toEqual({
      status: 404,
      body: errorBody(404, 'NOT_FOUND', `Resource '${instancePath('old')}' was not found`),
    })
    expect((await send('GET', op.name)).body).toMatchObject({
      done: true,
      response: {'@type': 'type.googleapis.com/google.protobuf.Empty'},
    })
  })

  it('ends an operation made to fail with its error; a failed create leaves no instance', async () => {
    fake.failOperations({status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for capacity'})
    const op = (await create('nocap')).body as unknown as OperationJson
    fake.finishOperations()
    expect((await send('GET', op.name)).body).toMatchObject({
      done: true,
      error: {code: 8, message: 'Quota exceeded for capacity'},
    })
    expect(fake.instance(P, ZONE, 'nocap')).toBeUndefined()
  })

  it('ends each operation after operationMs by itself', async () => {
    fake.settings.operationMs = 5
    await create('timed')
    await fake.settled()
    expect(fake.instance(P, ZONE, 'timed')?.state).toBe('READY')
  })
})

describe('FakeFilestore: refusals, in Google JSON errors with the gRPC status', () => {
  it('refuses a name that exists, in any state (409 ALREADY_EXISTS), changing nothing', async () => {
    await create('twice')
    expect(await create('twice', instanceBody({tier: 'ZONAL'}))).toEqual({
      status: 409,
      body: errorBody(409, 'ALREADY_EXISTS', `Resource '${instancePath('twice')}' already exists`),
    })
    expect(fake.instance(P, ZONE, 'twice')?.tier).toBe('BASIC_HDD')
  })

  it('refuses a delete while the instance is being created (400 FAILED_PRECONDITION)', async () => {
    await create('young')
    expect(await send('DELETE', instancePath('young'))).toEqual({
      status: 400,
      body: errorBody(400, 'FAILED_PRECONDITION', /is CREATING: an operation is in progress/),
    })
  })

  const refused: [string, string, unknown, RegExp][] = [
    ['no instanceId', '', instanceBody(), /instance_id is required/],
    ['an id with upper case', 'Bad', instanceBody(), /Invalid instance_id "Bad"/],
    ['an id ending in a hyphen', 'bad-', instanceBody(), /Invalid instance_id/],
    ['an id of 64 characters', 'a'.repeat(64), instanceBody(), /Invalid instance_id/],
    ['a field the API does not have', 'x', instanceBody({size: 1}), /Unknown name "size" at 'instance'/],
    [
      'a share field it does not have',
      'x',
      instanceBody({fileShares: [{name: 'v', capacity: 1024}]}),
      /Unknown name "capacity" at 'instance.file_shares\[0\]'/,
    ],
    ['a tier it does not know', 'x', instanceBody({tier: 'PREMIUM_SSD'}), /Invalid value at 'instance.tier'/],
    ['no tier', 'x', instanceBody({tier: undefined}), /Invalid value at 'instance.tier': "TIER_UNSPECIFIED"/],
    ['a capacity that is not a number', 'x', instanceBody({fileShares: [{name: 'v', capacityGb: '1T'}]}), /TYPE_INT64/],
    ['a capacity under the tier minimum', 'x', instanceBody({fileShares: [{name: 'v', capacityGb: '100'}]}), /1024-/],
    ['BASIC_SSD under 2.5 TiB', 'x', instanceBody({tier: 'BASIC_SSD'}), /2560-65434 GB/],
    ['ENTERPRISE in a zone', 'x', instanceBody({tier: 'ENTERPRISE'}), /created in a region/],
    [
      'a share name with a hyphen',
      'x',
      instanceBody({fileShares: [{name: 'my-vol', capacityGb: '1024'}]}),
      /share name/,
    ],
    [
      'a share name over 16 characters on a basic tier',
      'x',
      instanceBody({fileShares: [{name: 'a'.repeat(17), capacityGb: '1024'}]}),
      /1-16 lowercase/,
    ],
    ['two file shares', 'x', instanceBody({fileShares: [{name: 'a'}, {name: 'b'}]}), /one file share/],
    ['no network', 'x', instanceBody({networks: []}), /one network/],
    ['an empty network name', 'x', instanceBody({networks: [{network: ''}]}), /network is required/],
    [
      'an address mode it does not know',
      'x',
      instanceBody({networks: [{network: 'n', modes: ['MODE_IPV6']}]}),
      /AddressMode/,
    ],
    ['a label key with upper case', 'x', instanceBody({labels: {Team: 'ml'}}), /Invalid label "Team"/],
    ['a body that is not JSON', 'x', '{tier:', /Invalid JSON payload/],
    ['a body that is a list', 'x', '[]', /Expected an object/],
  ]

  it.each(refused)('refuses %s (400 INVALID_ARGUMENT) and creates nothing', async (_what, id, body, message) => {
    const path = `${parent()}/instances${id === '' ? '' : `?instanceId=${id}`}`
    expect(await send('POST', path, body)).toEqual({status: 400, body: errorBody(400, 'INVALID_ARGUMENT', message)})
    expect(fake.instances()).toEqual([])
  })

  it('refuses a zonal tier in a region and a regional one in a zone', async () => {
    expect((await create('x', instanceBody(), REGION)).body).toMatchObject({error: {message: /created in a zone/}})
    expect((await create('x', instanceBody({tier: 'REGIONAL'}))).body).toMatchObject({
      error: {message: /created in a region/},
    })
  })

  it('answers 404 to what it does not serve, and to operations it never started', async () => {
    const cases: [string, string][] = [
      ['GET', `${parent()}/instances`],
      ['PATCH', instancePath('x')],
      ['POST', `${instancePath('x')}:restore`],
      ['GET', `${parent()}/operations/operation-1`],
      ['GET', `projects/${P}/locations/${ZONE}/instances/a%2Fb`],
    ]
    for (const [method, path] of cases) {
      const reply = await send(method, path)
      expect([method, path, reply.status, (reply.body.error as {status: string}).status]).toEqual([
        method,
        path,
        404,
        'NOT_FOUND',
      ])
    }
  })
})

describe('FakeFilestore: faults and the log', () => {
  it('answers a fault with its status and Google JSON error, then serves again', async () => {
    fake.faults.push({status: 'UNAVAILABLE', message: 'The service is currently unavailable.', times: 2})
    expect((await send('GET', instancePath('x'))).body).toEqual(
      errorBody(503, 'UNAVAILABLE', 'The service is currently unavailable.'),
    )
    expect((await send('GET', instancePath('x'))).status).toBe(503)
    expect((await send('GET', instancePath('x'))).status).toBe(404)
  })

  it('says a disabled API as Google does: 403 PERMISSION_DENIED with an ErrorInfo of reason SERVICE_DISABLED', async () => {
    fake.faults.push({method: 'POST', ...filestoreErrors.apiDisabled(P)})
    const reply = await create('x')
    expect(reply.status).toBe(403)
    expect(reply.body).toMatchObject({
      error: {status: 'PERMISSION_DENIED', message: /Cloud Filestore API has not been used in project p1/},
    })
    expect((reply.body.error as {details: {reason: string}[]}).details[0]!.reason).toBe('SERVICE_DISABLED')
  })

  it('picks a fault by method and path, and leaves the others', async () => {
    fake.faults.push({method: 'DELETE', path: /instances\/[^/]+$/, ...filestoreErrors.permissionDenied()})
    expect((await create('kept')).status).toBe(200)
    expect((await send('DELETE', instancePath('kept'))).status).toBe(403)
  })

  it('applies a request whose answer an afterApply fault loses', async () => {
    fake.faults.push({method: 'POST', status: 'DEADLINE_EXCEEDED', afterApply: true})
    expect((await create('lost')).status).toBe(504)
    expect(fake.instance(P, ZONE, 'lost')?.state).toBe('CREATING')
  })

  it('sends a raw body instead of the JSON error when told, and only delays without a status', async () => {
    fake.faults.push({status: 'UNAVAILABLE', rawBody: '<html>Bad Gateway</html>'})
    const response = await fetch(`${fake.endpoint}/v1/${instancePath('x')}`)
    expect([response.status, await response.text()]).toEqual([503, '<html>Bad Gateway</html>'])
    fake.faults.push({delayMs: 30})
    const started = Date.now()
    expect((await send('GET', instancePath('x'))).status).toBe(404)
    expect(Date.now() - started).toBeGreaterThanOrEqual(25)
  })

  it('logs every request with its query and body; mutatingCalls are those that are not GETs', async () => {
    await create('logged')
    await send('GET', instancePath('logged'))
    expect(fake.calls.map((c) => [c.method, c.path, c.query, c.status])).toEqual([
      ['POST', `${parent()}/instances`, {instanceId: 'logged'}, 200],
      ['GET', instancePath('logged'), {}, 200],
    ])
    expect(fake.calls[0]!.body).toEqual(instanceBody())
    expect(fake.mutatingCalls().map((c) => c.method)).toEqual(['POST'])
  })
})
