import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {nodeFetch} from '../../src/adapters/http-client.js'

// Two servers, so a redirect can change origin; each records what it was asked.
interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}
const seen: Seen[] = []
let a: Server
let b: Server
let originA: string
let originB: string

async function listen(
  handler: (url: string, respond: (status: number, headers?: object, body?: string | Buffer) => void) => void,
) {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    seen.push({
      method: request.method!,
      url: request.url!,
      headers: request.headers,
      body: Buffer.concat(chunks).toString(),
    })
    handler(request.url!, (status, headers = {}, body = '') => response.writeHead(status, {...headers}).end(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`}
}

beforeAll(async () => {
  ;({server: a, origin: originA} = await listen((url, respond) => {
    if (url === '/json')
      return respond(200, {'content-type': 'application/json', 'x-digest': 'sha256:1'}, '{"ok":true}')
    if (url === '/bytes') return respond(200, {'content-type': 'application/octet-stream'}, BYTES)
    if (url === '/same') return respond(307, {location: '/json'})
    if (url === '/see-other') return respond(303, {location: '/json'})
    if (url === '/elsewhere') return respond(302, {location: `${originB}/landing`})
    if (url === '/loop') return respond(302, {location: '/loop'})
    respond(404)
  }))
  ;({server: b, origin: originB} = await listen((_url, respond) => respond(200, {}, 'landed')))
})
afterAll(async () => {
  await Promise.all([a, b].map((s) => new Promise((resolve) => s.close(resolve))))
})

/** Bytes that are not UTF-8: read as text and back, they would change. */
const BYTES = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3])

describe('nodeFetch', () => {
  it('sends and answers bytes as they are', async () => {
    const reply = await nodeFetch(`${originA}/bytes`, {method: 'POST', body: new Uint8Array(BYTES)})
    expect(Buffer.from(await reply.arrayBuffer())).toEqual(BYTES)
    expect(seen.at(-1)?.body).toBe(BYTES.toString())
  })

  it('answers like fetch: status, ok, headers, text and JSON', async () => {
    const reply = await nodeFetch(`${originA}/json`)
    expect([reply.status, reply.ok, reply.headers.get('X-Digest'), reply.headers.get('absent')]).toEqual([
      200,
      true,
      'sha256:1',
      null,
    ])
    expect(await reply.json()).toEqual({ok: true})
    expect((await nodeFetch(`${originA}/nothing`)).ok).toBe(false)
  })

  it('follows a redirect on the same origin with the method, body and credentials', async () => {
    seen.length = 0
    const reply = await nodeFetch(`${originA}/same`, {
      method: 'POST',
      headers: {authorization: 'Bearer t', 'content-type': 'application/json'},
      body: '{"x":1}',
    })
    expect(reply.status).toBe(200)
    expect(seen.map((s) => [s.method, s.url, s.headers.authorization, s.body])).toEqual([
      ['POST', '/same', 'Bearer t', '{"x":1}'],
      ['POST', '/json', 'Bearer t', '{"x":1}'],
    ])
  })

  it('turns a 303 into a GET without a body, and keeps HEAD a HEAD', async () => {
    seen.length = 0
    await nodeFetch(`${originA}/see-other`, {method: 'POST', body: 'x', headers: {'content-type': 'text/plain'}})
    await nodeFetch(`${originA}/see-other`, {method: 'HEAD'})
    expect(seen.map((s) => [s.method, s.url, s.body, s.headers['content-type']])).toEqual([
      ['POST', '/see-other', 'x', 'text/plain'],
      ['GET', '/json', '', undefined],
      ['HEAD', '/see-other', '', undefined],
      ['HEAD', '/json', '', undefined],
    ])
  })

  it('drops the credentials when a redirect leaves the origin, as fetch does', async () => {
    seen.length = 0
    const reply = await nodeFetch(`${originA}/elsewhere`, {headers: {authorization: 'Bearer secret', accept: '*/*'}})
    expect(await reply.text()).toBe('landed')
    expect(seen.map((s) => [s.url, s.headers.authorization, s.headers.accept])).toEqual([
      ['/elsewhere', 'Bearer secret', '*/*'],
      ['/landing', undefined, '*/*'],
    ])
  })

  it("does not follow with redirect: 'manual', and gives up on a loop", async () => {
    const manual = await nodeFetch(`${originA}/same`, {redirect: 'manual'})
    expect([manual.status, manual.headers.get('location')]).toEqual([307, '/json'])
    await expect(nodeFetch(`${originA}/loop`)).rejects.toThrow(/more than 20 redirects/)
  })

  it('is aborted by its signal', async () => {
    const aborted = AbortSignal.abort(new Error('stop'))
    await expect(nodeFetch(`${originA}/json`, {signal: aborted})).rejects.toThrow()
  })
})
