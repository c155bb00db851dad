// The fake's lists, served from kept item bytes and a kept key order: every page says what is stored at the time
// it is asked for (a write between two pages shows on the second), as whole JSON with the API server's shape.
import {request} from 'node:https'

import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {FakeKube} from './fake-kube.js'

let fake: FakeKube

beforeAll(async () => {
  fake = await FakeKube.start()
})
afterAll(async () => {
  await fake?.stop()
})
beforeEach(() => fake.reset())

/** A request as a client sends it: status and parsed body. */
function send(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/merge-patch+json',
): Promise<{status: number; body: Record<string, unknown>}> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, fake.url)
    const headers = {authorization: `Bearer ${fake.token}`, ...(body ? {'content-type': contentType} : {})}
    const req = request(url, {method, ca: fake.caPem, headers}, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown>}))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

const get = (path: string) => send('GET', path)
const CM = '/api/v1/namespaces/default/configmaps'

const configMap = (name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {name, namespace: 'default'},
  data,
})

type Item = {apiVersion?: string; kind?: string; metadata: {name: string; resourceVersion: string}; data?: unknown}
const names = (body: Record<string, unknown>) => (body.items as Item[]).map((i) => i.metadata.name)

describe('lists', () => {
  it('pages in name order; a change, a new object and a deletion between pages show on the next page', async () => {
    fake.seed(...['a', 'b', 'c', 'd', 'e'].map((n) => configMap(n, {v: n})))
    const first = await get(`${CM}?limit=2`)
    expect(first.status).toBe(200)
    expect(names(first.body)).toEqual(['a', 'b'])
    const meta = first.body.metadata as {continue: string; remainingItemCount: number}
    expect(meta.remainingItemCount).toBe(3)

    expect((await send('PATCH', `${CM}/c`, {data: {v: 'c2'}})).status).toBe(200)
    fake.seed(configMap('cc', {v: 'new'}))
    expect((await send('DELETE', `${CM}/e`)).status).toBe(200)
    const second = await get(`${CM}?limit=2&continue=${meta.continue}`)
    expect(names(second.body)).toEqual(['c', 'cc'])
    expect((second.body.items as Item[]).map((i) => i.data)).toEqual([{v: 'c2'}, {v: 'new'}])
    expect((second.body.metadata as {remainingItemCount: number}).remainingItemCount).toBe(1)
    const rest = await get(`${CM}?limit=2&continue=${(second.body.metadata as {continue: string}).continue}`)
    expect(names(rest.body)).toEqual(['d'])
    expect(rest.body.metadata).not.toHaveProperty('continue')
  })

  it('a write to an object is seen by the next list, with its new resourceVersion', async () => {
    fake.seed(configMap('one', {v: '1'}))
    const [before] = (await get(CM)).body.items as Item[]
    await send('PATCH', `${CM}/one`, {data: {v: '2'}})
    const [after] = (await get(CM)).body.items as Item[]
    expect(after.data).toEqual({v: '2'})
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion))
    // A write that changes nothing keeps the object, and the list, as they were.
    await send('PATCH', `${CM}/one`, {data: {v: '2'}})
    expect(((await get(CM)).body.items as Item[])[0]).toEqual(after)
  })

  it('built-in items come without apiVersion and kind, custom resources with them; the list says its kind', async () => {
    fake.seed(configMap('one', {v: '1'}))
    const {body} = await get(CM)
    expect(body).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: {resourceVersion: expect.any(String)},
    })
    const [item] = body.items as Item[]
    expect(item.apiVersion).toBeUndefined()
    expect(item.kind).toBeUndefined()
    expect(item).toEqual({
      ...fake.get({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'one'}),
      apiVersion: undefined,
      kind: undefined,
    })
  })
})
