import {createServer} from 'node:http'
import {chmod, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {DockerAndGoogleCredentials, normalizeRegistryKey} from '../../src/adapters/registry-credentials.js'
import {UsageError, XpkError} from '../../src/core/errors.js'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'xpk-creds-'))
  cleanups.push(() => rm(dir, {recursive: true, force: true}))
  return dir
}

async function dockerConfig(config: unknown): Promise<string> {
  const dir = await tempDir()
  await writeFile(join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config))
  return dir
}

const b64 = (text: string) => Buffer.from(text).toString('base64')

// A credential helper that knows one registry, as docker-credential-* programs do.
async function helperOnPath(name: string): Promise<string> {
  const bin = await tempDir()
  const script = join(bin, `docker-credential-${name}`)
  await writeFile(
    script,
    [
      '#!/bin/sh',
      '[ "$1" = get ] || exit 3',
      'read url',
      'if [ "$url" = "127.0.0.1:5001" ]; then',
      '  echo \'{"ServerURL":"127.0.0.1:5001","Username":"helper-user","Secret":"helper-secret"}\'',
      'else',
      '  echo "credentials not found in native keychain"; exit 1',
      'fi',
      '',
    ].join('\n'),
  )
  await chmod(script, 0o755)
  return `${bin}:${process.env.PATH}`
}

describe('normalizeRegistryKey', () => {
  it.each([
    ['https://index.docker.io/v1/', 'docker.io'],
    ['docker.io', 'docker.io'],
    ['https://127.0.0.1:5001/v2/', '127.0.0.1:5001'],
    ['US-Docker.pkg.dev', 'us-docker.pkg.dev'],
  ])('%s -> %s', (key, host) => {
    expect(normalizeRegistryKey(key)).toBe(host)
  })
})

describe('DockerAndGoogleCredentials with a Docker config', () => {
  it('decodes inline auths, whatever form the key takes', async () => {
    const dir = await dockerConfig({
      auths: {
        'https://127.0.0.1:5001/v2/': {auth: b64('alice:pa:ss')},
        'https://index.docker.io/v1/': {auth: b64('bob:x')},
      },
    })
    const credentials = new DockerAndGoogleCredentials({env: {DOCKER_CONFIG: dir}})
    expect(await credentials.forRegistry('127.0.0.1:5001')).toEqual({
      auth: {username: 'alice', password: 'pa:ss'},
      source: `Docker config (${join(dir, 'config.json')})`,
    })
    expect((await credentials.forRegistry('docker.io')).auth).toEqual({username: 'bob', password: 'x'})
    expect(await credentials.forRegistry('127.0.0.1:5002')).toEqual({auth: null, source: 'none'})
  })

  it('falls back to ~/.docker/config.json', async () => {
    const home = await tempDir()
    await mkdir(join(home, '.docker'))
    await writeFile(
      join(home, '.docker', 'config.json'),
      JSON.stringify({auths: {'r.example.com': {username: 'u', password: 'p'}}}),
    )
    const found = await new DockerAndGoogleCredentials({env: {HOME: home}}).forRegistry('r.example.com')
    expect(found.auth).toEqual({username: 'u', password: 'p'})
  })

  it('answers no credentials when there is no config at all', async () => {
    const dir = await tempDir()
    expect(await new DockerAndGoogleCredentials({env: {DOCKER_CONFIG: dir}}).forRegistry('r.example.com')).toEqual({
      auth: null,
      source: 'none',
    })
  })

  it('rejects a config that is not JSON', async () => {
    const dir = await dockerConfig('{not json')
    await expect(
      new DockerAndGoogleCredentials({env: {DOCKER_CONFIG: dir}}).forRegistry('r.example.com'),
    ).rejects.toThrow(UsageError)
  })

  it('runs the credential helper named for the registry, without a shell', async () => {
    const dir = await dockerConfig({credHelpers: {'127.0.0.1:5001': 'xpktest'}})
    const PATH = await helperOnPath('xpktest')
    const credentials = new DockerAndGoogleCredentials({env: {DOCKER_CONFIG: dir, PATH}})
    expect(await credentials.forRegistry('127.0.0.1:5001')).toEqual({
      auth: {username: 'helper-user', password: 'helper-secret'},
      source: 'credential helper docker-credential-xpktest',
    })
  })

  it('takes "not found" from the credsStore helper as no credentials, without a problem', async () => {
    const dir = await dockerConfig({credsStore: 'xpktest'})
    const PATH = await helperOnPath('xpktest')
    const found = await new DockerAndGoogleCredentials({env: {DOCKER_CONFIG: dir, PATH}}).forRegistry(
      'other.example.com',
    )
    expect(found).toEqual({auth: null, source: 'credential helper docker-credential-xpktest'})
  })

  it('says clearly when the named helper is not installed', async () => {
    const dir = await dockerConfig({credsStore: 'nonexistent-xpk'})
    const found = await new DockerAndGoogleCredentials({env: {DOCKER_CONFIG: dir, PATH: '/nonexistent'}}).forRegistry(
      '127.0.0.1:5001',
    )
    expect(found.auth).toBeNull()
    expect(found.problem).toMatch(/docker-credential-nonexistent-xpk .*not on PATH/)
  })

  it('prefers inline auths over the credsStore', async () => {
    const dir = await dockerConfig({credsStore: 'nonexistent-xpk', auths: {'127.0.0.1:5001': {auth: b64('a:b')}}})
    const found = await new DockerAndGoogleCredentials({env: {DOCKER_CONFIG: dir}}).forRegistry('127.0.0.1:5001')
    expect(found.auth).toEqual({username: 'a', password: 'b'})
  })
})

describe('DockerAndGoogleCredentials for Google registries', () => {
  it.each(['gcr.io', 'eu.gcr.io', 'us-docker.pkg.dev'])('uses an access token for %s', async (registry) => {
    const credentials = new DockerAndGoogleCredentials({googleAccessToken: async () => 'ya29.token'})
    expect(await credentials.forRegistry(registry)).toEqual({
      auth: {username: 'oauth2accesstoken', password: 'ya29.token'},
      source: 'Application Default Credentials',
    })
  })

  it('turns a token failure into an auth error that says how to log in, and retries later', async () => {
    let calls = 0
    const credentials = new DockerAndGoogleCredentials({
      googleAccessToken: async () => {
        if (++calls === 1) throw new Error('Could not load the default credentials.')
        return 'ya29.later'
      },
    })
    const error = await credentials.forRegistry('us-docker.pkg.dev').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('auth')
    expect((error as XpkError).message).toContain('us-docker.pkg.dev')
    expect((error as XpkError).hints.join(' ')).toContain('gcloud auth application-default login')
    expect((await credentials.forRegistry('us-docker.pkg.dev')).auth?.password).toBe('ya29.later')
  })

  function withEnv(vars: Record<string, string>): void {
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
    Object.assign(process.env, vars)
    cleanups.push(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
    })
  }

  it('gets the token from real Application Default Credentials (an external account against a local STS)', async () => {
    const dir = await tempDir()
    const sts = createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString()))
      req.on('end', () => {
        const form = new URLSearchParams(body)
        const ok = req.url === '/v1/token' && form.get('subject_token') === 'subject-123'
        res.writeHead(ok ? 200 : 400, {'content-type': 'application/json'})
        res.end(
          JSON.stringify(
            ok
              ? {
                  access_token: 'ya29.from-sts',
                  issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
                  token_type: 'Bearer',
                  expires_in: 3600,
                }
              : {error: 'invalid_request'},
          ),
        )
      })
    })
    await new Promise<void>((resolve) => sts.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise((resolve) => sts.close(() => resolve())))
    await writeFile(join(dir, 'subject-token'), 'subject-123')
    await writeFile(
      join(dir, 'adc.json'),
      JSON.stringify({
        type: 'external_account',
        audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        token_url: `http://127.0.0.1:${(sts.address() as AddressInfo).port}/v1/token`,
        credential_source: {file: join(dir, 'subject-token')},
      }),
    )
    withEnv({GOOGLE_APPLICATION_CREDENTIALS: join(dir, 'adc.json')})
    expect((await new DockerAndGoogleCredentials().forRegistry('gcr.io')).auth).toEqual({
      username: 'oauth2accesstoken',
      password: 'ya29.from-sts',
    })
  })

  it('reports missing Application Default Credentials as an auth error', async () => {
    withEnv({CLOUDSDK_CONFIG: await tempDir()})
    const error = await new DockerAndGoogleCredentials().forRegistry('gcr.io').catch((e: unknown) => e)
    expect((error as XpkError).kind).toBe('auth')
    expect((error as XpkError).hints.join(' ')).toContain('gcloud auth application-default login')
  })
})

// Rule 7 of issue 7: a failing credential helper is named, with how it failed and how to look into it, but its
// output is never repeated: it may hold the very secret it was asked for.
describe('DockerAndGoogleCredentials with a failing credential helper', () => {
  const SECRET = 'hunter2-do-not-print'
  const leak = `{"ServerURL":"127.0.0.1:5001","Username":"u","Secret":"${SECRET}"}`

  async function helper(body: string): Promise<string> {
    const bin = await tempDir()
    const script = join(bin, 'docker-credential-xpkleak')
    await writeFile(script, `#!/bin/sh\nread url\n${body}\n`)
    await chmod(script, 0o755)
    return `${bin}:${process.env.PATH}`
  }

  it.each([
    ['prints the secret on stdout and exits 1', `echo '${leak}'; exit 1`, /failed \(exit code 1\)/],
    ['prints the secret on stderr and exits 2', `echo '${leak}' >&2; exit 2`, /failed \(exit code 2\)/],
    ['prints the secret in an error message', `echo "error: bad key ${SECRET}"; exit 1`, /failed \(exit code 1\)/],
    [
      'prints the secret and hangs',
      `echo '${leak}'; exec sleep 5`,
      /failed \(stopped by SIGTERM, after the 0.3 s time limit\)/,
    ],
    [
      'prints the secret as something that is not JSON',
      `echo 'Secret=${SECRET}'`,
      /printed something that is not JSON/,
    ],
  ])('%s: names the helper and never repeats its output', async (_name, body, how) => {
    const dir = await dockerConfig({credHelpers: {'127.0.0.1:5001': 'xpkleak'}})
    const credentials = new DockerAndGoogleCredentials({
      env: {DOCKER_CONFIG: dir, PATH: await helper(body)},
      helperTimeoutMs: 300,
    })
    const found = await credentials.forRegistry('127.0.0.1:5001')
    expect(found.auth).toBeNull()
    expect(found.problem).toMatch(how)
    expect(found.problem).toContain('docker-credential-xpkleak')
    expect(JSON.stringify(found)).not.toContain(SECRET)
    expect(JSON.stringify(found)).not.toContain('hunter2')
  })

  it('says how to run the helper to see its output', async () => {
    const dir = await dockerConfig({credHelpers: {'127.0.0.1:5001': 'xpkleak'}})
    const PATH = await helper(`echo '${leak}'; exit 1`)
    const found = await new DockerAndGoogleCredentials({env: {DOCKER_CONFIG: dir, PATH}}).forRegistry('127.0.0.1:5001')
    expect(found.problem).toContain('echo 127.0.0.1:5001 | docker-credential-xpkleak get')
  })
})
