import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {parseAuthChallenges, RegistryHttpClient} from '../../src/adapters/registry-http.js'
import {XpkError} from '../../src/core/errors.js'
import type {RegistryAuth} from '../../src/ports/images.js'
import {dockerAvailable, explainDockerSkip} from '../helpers/docker.js'
import {startLocalRegistry, type LocalRegistry} from '../helpers/local-registry.js'

const DIGEST = `sha256:${'9'.repeat(64)}`

describe('parseAuthChallenges', () => {
  it.each([
    [
      'a Docker Hub bearer challenge',
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/python:pull"',
      [
        {
          scheme: 'bearer',
          params: {
            realm: 'https://auth.docker.io/token',
            service: 'registry.docker.io',
            scope: 'repository:library/python:pull',
          },
        },
      ],
    ],
    ['a basic challenge', 'Basic realm="xpk-test"', [{scheme: 'basic', params: {realm: 'xpk-test'}}]],
    [
      'two challenges, spaces and an error parameter',
      'Basic realm="a, b", Bearer realm="https://t/x" , error="insufficient_scope"',
      [
        {scheme: 'basic', params: {realm: 'a, b'}},
        {scheme: 'bearer', params: {realm: 'https://t/x', error: 'insufficient_scope'}},
      ],
    ],
    [
      'an unquoted value and an escaped quote',
      'Bearer realm=https://t/x,service="s\\"q"',
      [{scheme: 'bearer', params: {realm: 'https://t/x', service: 's"q'}}],
    ],
    ['nothing', '', []],
  ])('%s', (_name, header, challenges) => {
    expect(parseAuthChallenges(header)).toEqual(challenges)
  })
})

// A registry that wants a Bearer token from its own token service, as gcr.io, Artifact Registry and Docker Hub do.
interface TokenRegistry {
  host: string
  requests: Array<{method: string; url: string; authorization?: string; accept?: string}>
  close(): Promise<void>
}

async function startTokenRegistry(options: {anonymousPaths?: string[]} = {}): Promise<TokenRegistry> {
  const requests: TokenRegistry['requests'] = []
  let host = ''
  const server: Server = createServer((req: IncomingMessage, res) => {
    requests.push({
      method: req.method!,
      url: req.url!,
      authorization: req.headers.authorization,
      accept: req.headers.accept,
    })
    const url = new URL(req.url!, `http://${host}`)
    if (url.pathname === '/token') {
      const expected = `Basic ${Buffer.from('oauth2accesstoken:ya29.good').toString('base64')}`
      if (req.headers.authorization !== expected) return void res.writeHead(401).end()
      res.writeHead(200, {'content-type': 'application/json'})
      return void res.end(JSON.stringify({token: `tok-${url.searchParams.get('scope')}`}))
    }
    const anonymous = options.anonymousPaths?.includes(url.pathname)
    if (!anonymous && req.headers.authorization !== 'Bearer tok-repository:team/app:pull') {
      res.writeHead(401, {
        'www-authenticate': `Bearer realm="http://${host}/token",service="fake",scope="repository:team/app:pull"`,
      })
      return void res.end()
    }
    if (url.pathname.endsWith('/manifests/t1')) return void res.writeHead(200, {'docker-content-digest': DIGEST}).end()
    if (url.pathname.endsWith('/manifests/boom')) return void res.writeHead(500).end()
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`
  return {host, requests, close: () => new Promise((resolve) => server.close(() => resolve()))}
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function counting(auth: RegistryAuth | null) {
  const calls = {count: 0}
  return {
    calls,
    auth: async () => {
      calls.count++
      return auth
    },
  }
}

describe('RegistryHttpClient with a token service', () => {
  it('follows the Bearer challenge, then reuses the token', async () => {
    const registry = await startTokenRegistry()
    cleanups.push(registry.close)
    const client = new RegistryHttpClient()
    const {auth} = counting({username: 'oauth2accesstoken', password: 'ya29.good'})
    const image = {registry: registry.host, repository: 'team/app', reference: 't1'}

    expect(await client.manifest(image, auth)).toEqual({exists: true, digest: DIGEST})
    expect(await client.manifest({...image, reference: 'other'}, auth)).toEqual({exists: false})

    expect(registry.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'HEAD /v2/team/app/manifests/t1',
      'GET /token?service=fake&scope=repository%3Ateam%2Fapp%3Apull',
      'HEAD /v2/team/app/manifests/t1',
      'HEAD /v2/team/app/manifests/other',
    ])
    expect(registry.requests[0]!.accept).toContain('application/vnd.oci.image.index.v1+json')
    expect(registry.requests[0]!.accept).toContain('application/vnd.docker.distribution.manifest.v2+json')
  })

  it('asks for credentials only when the registry wants them', async () => {
    const registry = await startTokenRegistry({anonymousPaths: ['/v2/public/img/manifests/t1']})
    cleanups.push(registry.close)
    const {auth, calls} = counting(null)
    const found = await new RegistryHttpClient().manifest(
      {registry: registry.host, repository: 'public/img', reference: 't1'},
      auth,
    )
    expect(found).toEqual({exists: true, digest: DIGEST})
    expect(calls.count).toBe(0)
  })

  it('turns a refused token into an auth error naming the registry', async () => {
    const registry = await startTokenRegistry()
    cleanups.push(registry.close)
    const {auth} = counting({username: 'oauth2accesstoken', password: 'expired'})
    const error = await new RegistryHttpClient()
      .manifest({registry: registry.host, repository: 'team/app', reference: 't1'}, auth)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('auth')
    expect((error as XpkError).message).toContain(registry.host)
  })

  it('reports a server error as unavailable', async () => {
    const registry = await startTokenRegistry({anonymousPaths: ['/v2/team/app/manifests/boom']})
    cleanups.push(registry.close)
    const error = await new RegistryHttpClient()
      .manifest({registry: registry.host, repository: 'team/app', reference: 'boom'}, async () => null)
      .catch((e: unknown) => e)
    expect((error as XpkError).kind).toBe('unavailable')
  })

  it('reports an unreachable registry as unavailable', async () => {
    const registry = await startTokenRegistry()
    await registry.close()
    const error = await new RegistryHttpClient()
      .manifest({registry: registry.host, repository: 'team/app', reference: 't1'}, async () => null)
      .catch((e: unknown) => e)
    expect((error as XpkError).kind).toBe('unavailable')
    expect((error as XpkError).message).toContain(registry.host)
  })
})

// Grouped with the Docker tests: the registry comes with the same setup (.ci/setup-docker) as the engine.
describe.skipIf(!dockerAvailable)('RegistryHttpClient with a real docker-registry (Basic auth)', () => {
  explainDockerSkip('RegistryHttpClient with a real docker-registry (Basic auth)')

  async function registry(): Promise<LocalRegistry> {
    const started = await startLocalRegistry()
    cleanups.push(started.stop)
    return started
  }

  it('answers absent for a tag nobody pushed', async () => {
    const r = await registry()
    const found = await new RegistryHttpClient().manifest(
      {registry: r.host, repository: 'xpk/nothing', reference: 'ctx-0'},
      async () => ({username: r.username, password: r.password}),
    )
    expect(found).toEqual({exists: false})
  })

  it.each([
    ['a wrong password', {username: 'xpk', password: 'wrong'}, /HTTP 401/],
    ['no credentials', null, /needs credentials/],
  ])('turns %s into an auth error with a docker login hint', async (_name, credentials, message) => {
    const r = await registry()
    const error = await new RegistryHttpClient()
      .manifest({registry: r.host, repository: 'xpk/nothing', reference: 'ctx-0'}, async () => credentials)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('auth')
    expect((error as XpkError).message).toMatch(message)
    expect((error as XpkError).hints.join(' ')).toContain(`docker login ${r.host}`)
  })
})
