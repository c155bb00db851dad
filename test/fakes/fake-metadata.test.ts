// FakeMetadata's own behaviour (fake-metadata.md): what it serves, what it refuses as the real metadata server does,
// its faults, and that curl (the startup script's client) reads it through GCE_METADATA_HOST.
import {execFile} from 'node:child_process'
import {promisify} from 'node:util'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {FakeMetadata} from './fake-metadata.js'

let fake: FakeMetadata

const get = (path: string, headers: Record<string, string> = {'Metadata-Flavor': 'Google'}) =>
  fetch(`http://${fake.host}/computeMetadata/v1/${path}`, {headers})

describe('FakeMetadata', () => {
  beforeAll(async () => {
    fake = await FakeMetadata.start({attributes: {'tpu-env': "WORKER_ID: '1'\n", 'xpk-run': 'demo'}, token: 'tok-1'})
  })
  afterAll(() => fake.stop())
  beforeEach(() => {
    fake.calls.length = 0
    fake.faults.length = 0
  })

  it('serves an attribute as text, with the Metadata-Flavor header back, and logs the request', async () => {
    const response = await get('instance/attributes/xpk-run')
    expect(response.status).toBe(200)
    expect(response.headers.get('metadata-flavor')).toBe('Google')
    expect(await response.text()).toBe('demo')
    expect(fake.calls).toEqual([
      {method: 'GET', path: 'instance/attributes/xpk-run', flavored: true, at: expect.any(Number), status: 200},
    ])
  })

  it('answers 404 for an attribute that is not set, and for one deleted meanwhile; a change is served at once', async () => {
    expect((await get('instance/attributes/xpk-keep')).status).toBe(404)
    fake.attributes.set('xpk-keep', 'true')
    expect(await (await get('instance/attributes/xpk-keep')).text()).toBe('true')
    fake.attributes.delete('xpk-keep')
    expect((await get('instance/attributes/xpk-keep')).status).toBe(404)
    expect((await get('instance/nothing-here')).status).toBe(404)
  })

  it('lists the attribute keys, one a line, for the directory', async () => {
    expect(await (await get('instance/attributes/')).text()).toBe('tpu-env\nxpk-run\n')
  })

  it("serves the default service account's token as JSON, and its email", async () => {
    const token = await get('instance/service-accounts/default/token')
    expect(token.headers.get('content-type')).toBe('application/json')
    expect(await token.json()).toEqual({access_token: 'tok-1', expires_in: 3599, token_type: 'Bearer'})
    expect(await (await get('instance/service-accounts/default/email')).text()).toBe('worker@p.iam.gserviceaccount.com')
  })

  it('refuses with 403 a request without Metadata-Flavor: Google (or with another value), and one with X-Forwarded-For', async () => {
    const refused: Record<string, string>[] = [
      {},
      {'Metadata-Flavor': 'google'},
      {'Metadata-Flavor': 'Google', 'X-Forwarded-For': '1.2.3.4'},
    ]
    for (const headers of refused) {
      const response = await get('instance/attributes/xpk-run', headers)
      expect(response.status).toBe(403)
      expect(await response.text()).toMatch(/Missing Metadata-Flavor:Google header|X-Forwarded-For/)
    }
    expect(fake.calls.map((c) => [c.flavored, c.status])).toEqual([
      [false, 403],
      [false, 403],
      [true, 403],
    ])
  })

  it('refuses other methods than GET with 405', async () => {
    const response = await fetch(`http://${fake.host}/computeMetadata/v1/instance/attributes/xpk-run`, {
      method: 'POST',
      headers: {'Metadata-Flavor': 'Google'},
      body: 'x',
    })
    expect(response.status).toBe(405)
  })

  it('plays injected faults on the paths they fit, counted down, then serves again', async () => {
    fake.faults.push({path: 'tpu-env', status: 503, times: 2})
    expect((await get('instance/attributes/xpk-run')).status).toBe(200)
    expect((await get('instance/attributes/tpu-env')).status).toBe(503)
    expect((await get('instance/attributes/tpu-env')).status).toBe(503)
    expect((await get('instance/attributes/tpu-env')).status).toBe(200)
    expect(fake.faults).toEqual([])
    fake.faults.push({path: /token$/, delayMs: 150})
    const started = Date.now()
    expect((await get('instance/service-accounts/default/token')).status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
  })

  // Asynchronously: the fake answers from this process's event loop.
  it("is what curl reads at http://$GCE_METADATA_HOST/computeMetadata/v1/... (the startup script's way)", async () => {
    const result = await promisify(execFile)(
      'bash',
      [
        '-c',
        'curl -sS -H "Metadata-Flavor: Google" "http://${GCE_METADATA_HOST}/computeMetadata/v1/instance/attributes/tpu-env"',
      ],
      {env: {...process.env, GCE_METADATA_HOST: fake.host}, timeout: 10_000},
    )
    expect(result.stdout).toBe("WORKER_ID: '1'\n")
    expect(fake.callsTo('instance/attributes/tpu-env')).toHaveLength(1)
  })
})
