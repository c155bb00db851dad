// What FakeResourceManager and FakeServiceUsage answer on the wire, beyond the port contracts: the API's shapes, its
// refusals of bad requests, Service Usage's pages and filter (specs: fake-resource-manager.md, fake-service-usage.md).
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {FakeResourceManager} from './fake-resource-manager.js'
import {FakeServiceUsage} from './fake-service-usage.js'

let rm: FakeResourceManager
let su: FakeServiceUsage

beforeAll(async () => {
  rm = await FakeResourceManager.start()
  su = await FakeServiceUsage.start()
})
afterAll(async () => {
  await Promise.all([rm.stop(), su.stop()])
})
beforeEach(() => {
  rm.reset()
  su.reset()
})

const send = async (base: string, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${base}${path}`, init)
  return {status: response.status, body: (await response.json()) as Record<string, unknown>}
}
const post = (body: unknown) => ({
  method: 'POST',
  body: JSON.stringify(body),
  headers: {'content-type': 'application/json'},
})

describe('FakeResourceManager', () => {
  it('answers a project as Resource Manager v3 does, and a missing one 403', async () => {
    rm.seedProject({projectId: 'p1', projectNumber: '42'})
    expect((await send(rm.endpoint, '/v3/projects/p1')).body).toMatchObject({
      name: 'projects/42',
      projectId: 'p1',
      state: 'ACTIVE',
    })
    const missing = await send(rm.endpoint, '/v3/projects/nope')
    expect(missing.status).toBe(403)
    expect(missing.body).toMatchObject({
      error: {status: 'PERMISSION_DENIED', message: expect.stringContaining('or it may not exist')},
    })
  })

  it.each([
    ['no list', {}],
    ['a bad permission', {permissions: ['container.clusters.get', 'not a permission']}],
    ['over 100', {permissions: Array.from({length: 101}, (_, i) => `a.b.c${i}`)}],
  ])('refuses testIamPermissions with %s (400)', async (_name, body) => {
    rm.seedProject({projectId: 'p1'})
    const reply = await send(rm.endpoint, '/v3/projects/p1:testIamPermissions', post(body))
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({error: {status: 'INVALID_ARGUMENT'}})
  })

  it('answers {} when no permission asked is held', async () => {
    rm.seedProject({projectId: 'p1', granted: ['a.b.c']})
    expect(
      (await send(rm.endpoint, '/v3/projects/p1:testIamPermissions', post({permissions: ['x.y.z']}))).body,
    ).toEqual({})
  })
})

describe('FakeServiceUsage', () => {
  it('lists every service with its state, filters the enabled ones, and pages', async () => {
    su.seedProject('p1', ['container.googleapis.com', 'tpu.googleapis.com'])
    const all = await send(su.endpoint, '/v1/projects/p1/services')
    expect((all.body.services as {state: string}[]).filter((s) => s.state === 'DISABLED').length).toBe(5)
    const first = await send(su.endpoint, '/v1/projects/p1/services?filter=state:ENABLED&pageSize=1')
    expect(first.body).toEqual({
      services: [
        {
          name: 'projects/p1/services/container.googleapis.com',
          config: {name: 'container.googleapis.com', title: 'container'},
          state: 'ENABLED',
          parent: 'projects/p1',
        },
      ],
      nextPageToken: '1',
    })
    const second = await send(su.endpoint, '/v1/projects/p1/services?filter=state:ENABLED&pageSize=1&pageToken=1')
    expect(second.body).toMatchObject({services: [{config: {name: 'tpu.googleapis.com'}}]})
    expect(second.body.nextPageToken).toBeUndefined()
  })

  it('refuses another filter (400) and answers a missing project 403', async () => {
    su.seedProject('p1', [])
    expect((await send(su.endpoint, '/v1/projects/p1/services?filter=name:x')).status).toBe(400)
    expect((await send(su.endpoint, '/v1/projects/nope/services')).status).toBe(403)
  })
})
