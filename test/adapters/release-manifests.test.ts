import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {IncomingMessage, Server, ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {
  defaultManifestCacheDir,
  HttpReleaseManifests,
  releaseManifestCachePath,
} from '../../src/adapters/release-manifests.js'
import {UsageError, XpkError} from '../../src/core/errors.js'
import {tempDir} from '../helpers/temp.js'

/** The smallest manifest the adapter accepts as Kueue's: it must hold the controller Deployment. */
const KUEUE_MANIFEST = `apiVersion: v1
kind: Namespace
metadata:
  name: kueue-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kueue-controller-manager
  namespace: kueue-system
spec:
  template:
    spec:
      containers:
        - name: manager
          image: registry.k8s.io/kueue/kueue:v0.17.1
`

type Handler = (request: IncomingMessage, response: ServerResponse) => void

interface ManifestServer {
  readonly url: string
  /** Paths requested, in order. */
  readonly requests: string[]
}

const servers: Server[] = []

/** An HTTP server on a free loopback port; every request is recorded, then answered by `handler`. */
async function serve(handler: Handler): Promise<ManifestServer> {
  const requests: string[] = []
  const server = createServer((request, response) => {
    requests.push(request.url ?? '')
    handler(request, response)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/manifests.yaml`, requests}
}

function serving(body: string): Promise<ManifestServer> {
  return serve((_request, response) => {
    response.writeHead(200, {'content-type': 'application/octet-stream'}).end(body)
  })
}

/** A loopback URL nothing listens on. */
async function refusedUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${port}/manifests.yaml`
}

async function failure(promise: Promise<unknown>): Promise<XpkError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof XpkError) return error
    throw error
  }
  throw new Error('expected a failure')
}

const realFetch = globalThis.fetch

beforeEach(() => {
  // Nothing here may reach the internet: a test that forgot to point the adapter at a local server fails instead.
  globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.hostname !== '127.0.0.1') throw new Error(`a test tried to reach ${url.href}`)
    return realFetch(input, init)
  }
})

afterEach(async () => {
  globalThis.fetch = realFetch
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

describe('HttpReleaseManifests', () => {
  it('downloads a release once, caches it, and reads the cache afterwards without a request', async () => {
    const server = await serving(KUEUE_MANIFEST)
    const cacheDir = join(tempDir(), 'xpk', 'manifests')
    const first = await new HttpReleaseManifests({cacheDir, urls: {kueue: server.url}}).load('kueue')
    expect([first.origin, first.source, first.text]).toEqual(['download', server.url, KUEUE_MANIFEST])
    expect(first.objects.map((o) => o.kind)).toEqual(['Namespace', 'Deployment'])
    const cachePath = join(cacheDir, 'kueue-v0.17.1.yaml')
    expect(readFileSync(cachePath, 'utf8')).toBe(KUEUE_MANIFEST)

    const second = await new HttpReleaseManifests({cacheDir, urls: {kueue: server.url}}).load('kueue')
    expect([second.origin, second.source, second.text]).toEqual(['cache', cachePath, KUEUE_MANIFEST])
    expect(server.requests).toEqual(['/manifests.yaml'])
    // Beside the manifest, only its parsed objects, named by the text's hash.
    expect(readdirSync(cacheDir)).toEqual(['kueue-v0.17.1.yaml', 'parsed'])
    expect(readdirSync(join(cacheDir, 'parsed'))).toEqual([`kueue-${sha256(KUEUE_MANIFEST)}.json`])
  })

  it('parses each manifest text once: later loads read its objects from the JSON copy, a damaged copy is redone', async () => {
    const server = await serving(KUEUE_MANIFEST)
    const cacheDir = join(tempDir(), 'xpk', 'manifests')
    const source = () => new HttpReleaseManifests({cacheDir, urls: {kueue: server.url}})
    const first = await source().load('kueue')
    const parsed = join(cacheDir, 'parsed', `kueue-${sha256(KUEUE_MANIFEST)}.json`)
    // A copy edited behind xpk's back shows that the objects came from it and not from the YAML.
    const marked = JSON.parse(readFileSync(parsed, 'utf8')) as {metadata: {labels?: Record<string, string>}}[]
    marked[0].metadata.labels = {'from-json-copy': 'yes'}
    writeFileSync(parsed, JSON.stringify(marked))
    const second = await source().load('kueue')
    expect(second.objects[0].metadata.labels).toEqual({'from-json-copy': 'yes'})
    writeFileSync(parsed, '{not json')
    const third = await source().load('kueue')
    expect(third.objects).toEqual(first.objects)
    expect(JSON.parse(readFileSync(parsed, 'utf8'))).toEqual(first.objects)
  })

  it('makes its cache directory private to the user', async () => {
    const server = await serving(KUEUE_MANIFEST)
    const cacheDir = join(tempDir(), 'cache', 'xpk', 'manifests')
    await new HttpReleaseManifests({cacheDir, urls: {kueue: server.url}}).load('kueue')
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700)
  })

  it('downloads again when the cached copy is damaged, and replaces it', async () => {
    const server = await serving(KUEUE_MANIFEST)
    const cacheDir = tempDir()
    writeFileSync(releaseManifestCachePath(cacheDir, 'kueue'), '<html>not yaml: [</html>')
    const loaded = await new HttpReleaseManifests({cacheDir, urls: {kueue: server.url}}).load('kueue')
    expect(loaded.origin).toBe('download')
    expect(readFileSync(releaseManifestCachePath(cacheDir, 'kueue'), 'utf8')).toBe(KUEUE_MANIFEST)
  })

  it('still returns the download when the cache directory cannot be made', async () => {
    const server = await serving(KUEUE_MANIFEST)
    const blocker = join(tempDir(), 'a-file')
    writeFileSync(blocker, '')
    const source = new HttpReleaseManifests({cacheDir: join(blocker, 'manifests'), urls: {kueue: server.url}})
    expect((await source.load('kueue')).origin).toBe('download')
    expect((await source.load('kueue')).origin).toBe('download')
    expect(server.requests).toHaveLength(2)
  })

  describe('override', () => {
    it('reads a local file instead, every time, and caches no manifest (only its parsed objects)', async () => {
      const server = await serving('unused')
      const dir = tempDir()
      const file = join(dir, 'kueue.yaml')
      writeFileSync(file, KUEUE_MANIFEST)
      const cacheDir = join(dir, 'cache')
      const loaded = await new HttpReleaseManifests({cacheDir, urls: {kueue: server.url}}).load('kueue', {
        override: file,
      })
      expect([loaded.origin, loaded.source, loaded.text]).toEqual(['override-file', file, KUEUE_MANIFEST])
      expect(server.requests).toEqual([])
      expect(readdirSync(cacheDir)).toEqual(['parsed'])
      expect(existsSync(join(cacheDir, 'kueue-v0.17.1.yaml'))).toBe(false)
    })

    it('accepts a file: URL', async () => {
      const file = join(tempDir(), 'kueue.yaml')
      writeFileSync(file, KUEUE_MANIFEST)
      const loaded = await new HttpReleaseManifests({cacheDir: tempDir()}).load('kueue', {override: `file://${file}`})
      expect(loaded.origin).toBe('override-file')
    })

    it('downloads an http(s) URL instead, every time, and caches no manifest (only its parsed objects)', async () => {
      const release = await serving('unused')
      const mirror = await serving(KUEUE_MANIFEST)
      const cacheDir = tempDir()
      const source = new HttpReleaseManifests({cacheDir, urls: {kueue: release.url}})
      for (let i = 0; i < 2; i++) {
        const loaded = await source.load('kueue', {override: mirror.url})
        expect([loaded.origin, loaded.source]).toEqual(['override-url', mirror.url])
      }
      expect(mirror.requests).toHaveLength(2)
      expect(release.requests).toEqual([])
      expect(readdirSync(cacheDir)).toEqual(['parsed'])
    })

    it.each<{name: string; make: (dir: string) => string; message: RegExp}>([
      {name: 'a missing file', make: (dir) => join(dir, 'nope.yaml'), message: /nope.yaml: no such file\./},
      {name: 'a directory', make: (dir) => dir, message: /: is a directory; give a release manifest \(YAML\)\./},
      {
        name: 'a file that is not YAML',
        make: (dir) => write(join(dir, 'bad.yaml'), 'a: [b'),
        message: /bad.yaml line \d+, column \d+ is not valid YAML/,
      },
      {
        name: 'a manifest of something else',
        make: (dir) => write(join(dir, 'other.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n'),
        message:
          /other.yaml is not a Kueue release manifest: it has no Deployment kueue-system\/kueue-controller-manager/,
      },
      {
        name: "JobSet's manifest given as Kueue's",
        make: (dir) => write(join(dir, 'jobset.yaml'), KUEUE_MANIFEST.replaceAll('kueue', 'jobset')),
        message: /is not a Kueue release manifest/,
      },
    ])('rejects $name as a usage error of the flag', async ({make, message}) => {
      const error = await failure(
        new HttpReleaseManifests({cacheDir: tempDir()}).load('kueue', {override: make(tempDir())}),
      )
      expect(error).toBeInstanceOf(UsageError)
      expect((error as UsageError).flag).toBe('--kueue-manifest')
      expect(error.exitCode).toBe(2)
      expect(error.message).toMatch(/^--kueue-manifest[ :]/)
      expect(error.message).toMatch(message)
    })

    it('names the JobSet flag for JobSet', async () => {
      const error = await failure(
        new HttpReleaseManifests({cacheDir: tempDir()}).load('jobset', {override: join(tempDir(), 'x.yaml')}),
      )
      expect((error as UsageError).flag).toBe('--jobset-manifest')
    })

    it('reports a failed override download with the URL as a usage error of the flag, and hints at checking it', async () => {
      const server = await serve((_request, response) => response.writeHead(404, 'Not Found').end())
      const error = await failure(new HttpReleaseManifests({cacheDir: tempDir()}).load('kueue', {override: server.url}))
      expect(error).toBeInstanceOf(UsageError)
      expect((error as UsageError).flag).toBe('--kueue-manifest')
      expect(error.message).toBe(
        `--kueue-manifest: Cannot download the Kueue v0.17.1 release manifest from ${server.url}: HTTP 404 Not Found.`,
      )
      expect(error.hints.join('\n')).toMatch(/Check the URL given to --kueue-manifest/)
    })
  })

  describe('a failed download', () => {
    it('names the URL and the HTTP status of a 404, and how to use the override', async () => {
      const server = await serve((_request, response) => response.writeHead(404, 'Not Found').end('nothing here'))
      const cacheDir = tempDir()
      const error = await failure(new HttpReleaseManifests({cacheDir, urls: {jobset: server.url}}).load('jobset'))
      expect(error.kind).toBe('not-found')
      expect(error.exitCode).toBe(4)
      expect(error.message).toBe(
        `Cannot download the JobSet v0.10.1 release manifest from ${server.url}: HTTP 404 Not Found.`,
      )
      expect(error.hints).toEqual([
        'Where GitHub cannot be reached, download https://github.com/kubernetes-sigs/jobset/releases/download/v0.10.1/manifests.yaml ' +
          'elsewhere and pass it with --jobset-manifest <file>, or pass a mirror with --jobset-manifest <https URL>.',
        `Or put the file at ${join(cacheDir, 'jobset-v0.10.1.yaml')}, where xpk looks before downloading.`,
      ])
      expect(readdirSync(cacheDir)).toEqual([])
    })

    it.each([
      [500, 'unavailable'],
      [503, 'unavailable'],
      [429, 'unavailable'],
      [403, 'failed'],
      [410, 'not-found'],
    ])('classifies HTTP %i as %s', async (status, kind) => {
      const server = await serve((_request, response) => response.writeHead(status).end())
      const error = await failure(
        new HttpReleaseManifests({cacheDir: tempDir(), urls: {kueue: server.url}}).load('kueue'),
      )
      expect(error.kind).toBe(kind)
      expect(error.message).toContain(`HTTP ${status}`)
    })

    it('says the connection was refused', async () => {
      const url = await refusedUrl()
      const cacheDir = tempDir()
      const error = await failure(new HttpReleaseManifests({cacheDir, urls: {kueue: url}}).load('kueue'))
      expect(error.kind).toBe('unavailable')
      expect(error.exitCode).toBe(7)
      expect(error.message).toBe(
        `Cannot download the Kueue v0.17.1 release manifest from ${url}: connection refused (ECONNREFUSED).`,
      )
      expect(error.hints[0]).toMatch(/--kueue-manifest <file>/)
      expect(readdirSync(cacheDir)).toEqual([])
    })

    it('leaves no file behind when the connection drops in the middle of the body', async () => {
      const server = await serve((_request, response) => {
        response.writeHead(200, {'content-length': String(KUEUE_MANIFEST.length * 2)})
        response.write(KUEUE_MANIFEST.slice(0, 100))
        setTimeout(() => response.socket?.destroy(), 20)
      })
      const cacheDir = tempDir()
      const error = await failure(new HttpReleaseManifests({cacheDir, urls: {kueue: server.url}}).load('kueue'))
      expect(error.kind).toBe('unavailable')
      expect(error.message).toBe(
        `Cannot download the Kueue v0.17.1 release manifest from ${server.url}: the connection closed unexpectedly (UND_ERR_SOCKET).`,
      )
      expect(readdirSync(cacheDir)).toEqual([])
    })

    it('leaves no file behind when the body is not the release manifest (a captive portal page)', async () => {
      const server = await serving('<html><body>Please log in</body></html>\n')
      const cacheDir = tempDir()
      const error = await failure(new HttpReleaseManifests({cacheDir, urls: {kueue: server.url}}).load('kueue'))
      expect(error.kind).toBe('failed')
      expect(error.message).toBe(`${server.url} is not a Kubernetes manifest:\n  document 1 (line 1): not a mapping`)
      expect(error.hints[0]).toMatch(/--kueue-manifest/)
      expect(readdirSync(cacheDir)).toEqual([])
    })

    it('refuses a body larger than maxBytes, and caches nothing', async () => {
      const server = await serving(KUEUE_MANIFEST)
      const cacheDir = tempDir()
      const source = new HttpReleaseManifests({cacheDir, urls: {kueue: server.url}, maxBytes: 64})
      const error = await failure(source.load('kueue'))
      expect(error.message).toMatch(/the file is larger than 64 bytes\.$/)
      expect(readdirSync(cacheDir)).toEqual([])
    })

    it('refuses a body that is not UTF-8', async () => {
      const server = await serve((_request, response) => response.writeHead(200).end(Buffer.from([0xff, 0xfe, 0x41])))
      const error = await failure(
        new HttpReleaseManifests({cacheDir: tempDir(), urls: {kueue: server.url}}).load('kueue'),
      )
      expect(error.message).toMatch(/the file is not UTF-8 text\.$/)
    })

    it('gives up after timeoutMs when the server does not answer', async () => {
      const server = await serve(() => undefined)
      const source = new HttpReleaseManifests({cacheDir: tempDir(), urls: {kueue: server.url}, timeoutMs: 200})
      const error = await failure(source.load('kueue'))
      expect(error.kind).toBe('unavailable')
      expect(error.message).toMatch(/: no complete answer within 0\.2 s\.$/)
    })

    it('stops at once when cancelled, as an interruption', async () => {
      const server = await serve(() => undefined)
      const controller = new AbortController()
      const source = new HttpReleaseManifests({cacheDir: tempDir(), urls: {kueue: server.url}})
      const pending = failure(source.load('kueue', {signal: controller.signal}))
      setTimeout(() => controller.abort(), 50)
      const error = await pending
      expect(error.kind).toBe('interrupted')
      expect(error.message).toBe(`Stopped downloading the Kueue v0.17.1 release manifest from ${server.url}.`)
    })
  })
})

describe('defaultManifestCacheDir', () => {
  it.each<[string, NodeJS.ProcessEnv, string]>([
    ['XDG_CACHE_HOME when absolute', {XDG_CACHE_HOME: '/var/cache/u'}, '/var/cache/u/xpk/manifests'],
    [
      '~/.cache when XDG_CACHE_HOME is relative (XDG says to ignore it)',
      {XDG_CACHE_HOME: 'rel'},
      '/home/u/.cache/xpk/manifests',
    ],
    ['~/.cache when XDG_CACHE_HOME is unset', {}, '/home/u/.cache/xpk/manifests'],
  ])('uses %s', (_name, env, dir) => {
    expect(defaultManifestCacheDir(env, '/home/u')).toBe(dir)
  })

  it('keeps one file per component and version', () => {
    expect(releaseManifestCachePath('/c', 'jobset')).toBe('/c/jobset-v0.10.1.yaml')
    expect(releaseManifestCachePath('/c', 'kueue')).toBe('/c/kueue-v0.17.1.yaml')
  })
})

function write(path: string, text: string): string {
  mkdirSync(join(path, '..'), {recursive: true})
  writeFileSync(path, text)
  return path
}
