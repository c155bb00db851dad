import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {GoogleRest, httpFailure, type RestFailure} from '../../src/adapters/google-rest.js'
import {nodeFetch} from '../../src/adapters/http-client.js'

let server: Server
let base: string
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/drop') {
      // Headers and half the body promised, then the connection is gone.
      response.writeHead(200, {'content-type': 'application/json', 'content-length': '100'})
      response.write('{"clusters": [')
      setTimeout(() => request.socket.destroy(), 20)
    } else if (request.url === '/html') {
      response.writeHead(200, {'content-type': 'text/html'}).end('<html>proxy says hi</html>')
    } else {
      response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({method: request.method}))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

const context = {action: 'list clusters', project: 'p', location: 'l'}
/** A GoogleRest whose errors carry the failure they were made from. */
const rest = () =>
  new GoogleRest(
    `${base}/`,
    async () => ({}),
    5_000,
    nodeFetch,
    (failure) => Object.assign(new Error(failure.message), {failure}),
  )
const failureOf = async (promise: Promise<unknown>): Promise<RestFailure> => {
  const error = (await promise.then(
    () => expect.fail('resolved'),
    (e: unknown) => e,
  )) as {failure: RestFailure}
  return error.failure
}

describe('GoogleRest', () => {
  it('sends the method and body and reads the JSON answer', async () => {
    const client = rest()
    const reply = await client.request('POST', 'echo', context, {body: {a: 1}})
    expect(client.json(reply, context)).toEqual({method: 'POST'})
  })

  it('fails a connection that drops mid-answer as unreachable instead of hanging or reading half a body', async () => {
    const failure = await failureOf(rest().request('GET', 'drop', context))
    expect(failure.kind).toBe('unreachable')
  })

  it('fails a 2xx answer that is not JSON as malformed, quoting it', async () => {
    const client = rest()
    const reply = await client.request('GET', 'html', context)
    const failure = await failureOf(Promise.resolve().then(() => client.json(reply, context)))
    expect([failure.kind, failure.message]).toEqual([
      'malformed',
      'the answer was not JSON: <html>proxy says hi</html>',
    ])
  })
})

describe('httpFailure', () => {
  it("takes Google's status name, message and reasons from the error body", () => {
    const body = {
      error: {
        code: 400,
        message: 'Cluster is running incompatible operation operation-1.',
        status: 'FAILED_PRECONDITION',
        details: [{reason: 'CLUSTER_BUSY'}],
      },
    }
    expect(httpFailure(400, JSON.stringify(body))).toEqual({
      kind: 'answer',
      httpStatus: 400,
      statusName: 'FAILED_PRECONDITION',
      message: 'Cluster is running incompatible operation operation-1.',
      reasons: new Set(['CLUSTER_BUSY']),
    })
  })

  it('keeps the text of a body that is not Google JSON, and names no status it does not know', () => {
    expect(httpFailure(502, 'Bad Gateway')).toEqual({
      kind: 'answer',
      httpStatus: 502,
      message: 'Bad Gateway',
      reasons: new Set(),
    })
    expect(httpFailure(400, '{"error": {"status": "NOT_A_STATUS"}}').statusName).toBeUndefined()
  })
})
