import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {FsBuildContextSource} from '../../src/adapters/build-context.js'
import {DockerEngine} from '../../src/adapters/docker-engine.js'
import {XpkError} from '../../src/core/errors.js'
import {CONTEXT_FILES_DIR, layerDockerfile} from '../../src/core/image/dockerfile.js'
import type {BuildEvent, PushEvent, ScannedContext} from '../../src/ports/images.js'
import {makeBaseImage} from '../helpers/base-image.js'
import {docker, dockerAvailable, explainDockerSkip, removeImages, runInImage, uniqueSuffix} from '../helpers/docker.js'
import {startLocalRegistry, type LocalRegistry} from '../helpers/local-registry.js'
import {tempDir} from '../helpers/temp.js'

describe('DockerEngine without an engine', () => {
  it('reports an unreachable engine as unavailable, with a hint about DOCKER_HOST', async () => {
    const engine = new DockerEngine({socketPath: '/nonexistent/xpk-docker.sock'})
    const error = await engine.inspectLocal('anything:1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('unavailable')
    expect((error as XpkError).exitCode).toBe(7)
    expect((error as XpkError).message).toContain('/nonexistent/xpk-docker.sock')
    expect((error as XpkError).hints.join(' ')).toContain('DOCKER_HOST')
  })
})

describe('DockerEngine looking up a local image', () => {
  // An engine API on a unix socket that knows one image; every path it was asked for is recorded.
  let server: Server
  let socketPath: string
  const asked: string[] = []
  beforeAll(async () => {
    socketPath = join(tempDir('xpk-engine-sock-'), 'docker.sock')
    server = createServer((request, response) => {
      asked.push(`${request.method} ${request.url}`)
      const reply = (status: number, body: object) =>
        response.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify(body))
      if (request.url === '/images/xpktest/found:1/json') {
        reply(200, {Id: `sha256:${'1'.repeat(64)}`, RepoDigests: null, Os: 'linux', Architecture: 'arm64'})
      } else if (request.url === '/images/xpktest/broken:1/json') {
        reply(500, {message: 'layer store is on fire'})
      } else {
        reply(404, {message: 'No such image'})
      }
    })
    await new Promise<void>((resolve) => server.listen(socketPath, resolve))
  })
  afterAll(() => new Promise((resolve) => server.close(resolve)))
  // The lookup must not load dockerode (about 60 ms), so an unchanged image costs no engine client at all.
  const noClient = () => Promise.reject(new Error('dockerode was loaded'))

  it('asks the socket directly, without dockerode: found, absent, or failed with the engine message', async () => {
    asked.length = 0
    const engine = new DockerEngine({socketPath, client: noClient})
    expect(await engine.inspectLocal('xpktest/found:1')).toEqual({
      id: `sha256:${'1'.repeat(64)}`,
      repoDigests: [],
      platform: 'linux/arm64',
    })
    expect(await engine.inspectLocal('xpktest/absent:1')).toBeNull()
    const error = await engine.inspectLocal('xpktest/broken:1').catch((e: unknown) => e)
    expect([(error as XpkError).kind, (error as XpkError).message]).toEqual([
      'image',
      'Could not inspect xpktest/broken:1: layer store is on fire',
    ])
    expect(asked).toEqual([
      'GET /images/xpktest/found:1/json',
      'GET /images/xpktest/absent:1/json',
      'GET /images/xpktest/broken:1/json',
    ])
  })

  it("finds the socket in DOCKER_HOST's unix:// form, and leaves other engines to dockerode", async () => {
    const unix = new DockerEngine({env: {DOCKER_HOST: `unix://${socketPath}`}, client: noClient})
    expect(await unix.inspectLocal('xpktest/found:1')).toMatchObject({platform: 'linux/arm64'})
    const tcp = new DockerEngine({env: {DOCKER_HOST: 'tcp://127.0.0.1:2375'}, client: noClient})
    await expect(tcp.inspectLocal('xpktest/found:1')).rejects.toThrow('dockerode was loaded')
  })
})

describe.skipIf(!dockerAvailable)('DockerEngine against a real engine and registry', () => {
  explainDockerSkip('DockerEngine against a real engine and registry')

  const engine = new DockerEngine()
  const images: string[] = []
  const dirs: string[] = []
  let base = ''
  let registry: LocalRegistry

  beforeAll(async () => {
    ;[base, registry] = await Promise.all([makeBaseImage(), startLocalRegistry()])
  })
  afterAll(async () => {
    await removeImages([...images.reverse(), base].filter(Boolean))
    await registry?.stop()
  })
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, {recursive: true, force: true})))
  })

  async function context(
    files: Record<string, string>,
    keepInMemoryBytes?: number,
  ): Promise<{dir: string; scanned: ScannedContext}> {
    const dir = await mkdtemp(join(tmpdir(), 'xpk-engine-'))
    dirs.push(dir)
    for (const [path, content] of Object.entries(files)) await writeFile(join(dir, path), content)
    const scanned = await new FsBuildContextSource({keepInMemoryBytes}).scan(dir)
    if ('missing' in scanned) throw new Error('no context')
    return {dir, scanned}
  }

  it('finds local images and says when one is absent', async () => {
    const local = await engine.inspectLocal(base)
    expect(local).toEqual({
      id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      repoDigests: [],
      platform: 'linux/amd64',
    })
    expect(await engine.inspectLocal(`xpktest/absent-${uniqueSuffix()}:1`)).toBeNull()
  })

  it('builds from a tar stream with step events, then pushes with layer events and the digest', async () => {
    const {scanned} = await context({'hello.sh': 'echo hello from xpk\n'})
    const tag = `${registry.host}/xpk/engine-${uniqueSuffix()}:t1`
    images.push(tag)
    const buildEvents: BuildEvent[] = []
    const built = await engine.build(
      {
        context: scanned.pack({dockerfile: layerDockerfile(base), filesDir: CONTEXT_FILES_DIR}),
        tag,
        platform: 'linux/amd64',
        pull: false,
      },
      (e) => buildEvents.push(e),
    )
    expect(built).toEqual({ok: true, imageId: expect.stringMatching(/^sha256:/)})
    expect(buildEvents.filter((e) => e.kind === 'step')).toEqual([
      {kind: 'step', step: 1, steps: 3, instruction: `FROM ${base}`},
      {kind: 'step', step: 2, steps: 3, instruction: 'WORKDIR /app'},
      {kind: 'step', step: 3, steps: 3, instruction: 'COPY app/ /app/'},
    ])
    expect(await runInImage(tag, ['cat', '/app/hello.sh'])).toBe('echo hello from xpk\n')

    const pushEvents: PushEvent[] = []
    const [repository, t] = [tag.slice(0, tag.lastIndexOf(':')), 't1']
    const pushed = await engine.push(
      {repository, tag: t, auth: {username: registry.username, password: registry.password}},
      (e) => pushEvents.push(e),
    )
    expect(pushed.ok).toBe(true)
    const digest = (pushed as {digest: string}).digest
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    const head = await registry.fetch(`/v2/${repository.slice(registry.host.length + 1)}/manifests/t1`, {
      method: 'HEAD',
      headers: {accept: 'application/vnd.docker.distribution.manifest.v2+json'},
    })
    expect(head.headers.get('docker-content-digest')).toBe(digest)
    expect(pushEvents.filter((e) => e.state === 'pushed').length).toBeGreaterThan(0)
    for (const e of pushEvents) if (e.total !== undefined) expect(e.current).toBeLessThanOrEqual(e.total)
  })

  it('returns a failing step from inside the stream and leaves no container behind', async () => {
    const broken = await makeBaseImage({files: {app: 'a file where /app should be a directory\n'}})
    images.push(broken)
    const {scanned} = await context({'hello.sh': 'echo\n'})
    const tag = `xpktest/broken-${uniqueSuffix()}:1`
    const result = await engine.build(
      {
        context: scanned.pack({dockerfile: layerDockerfile(broken), filesDir: CONTEXT_FILES_DIR}),
        tag,
        platform: 'linux/amd64',
        pull: false,
      },
      () => undefined,
    )
    expect(result).toEqual({
      ok: false,
      failure: {
        message: 'Cannot mkdir: /app is not a directory',
        step: {step: 2, steps: 3, instruction: 'WORKDIR /app'},
        output: expect.arrayContaining(['Step 2/3 : WORKDIR /app']),
      },
    })
    expect(await docker.listContainers({all: true, filters: {ancestor: [broken]}})).toEqual([])
    expect(await engine.inspectLocal(tag)).toBeNull()
  })

  it('reports a file that changed while it was being sent, not a truncated-tar error', async () => {
    const {dir, scanned} = await context({'hello.sh': 'one\n'}, 0)
    await writeFile(join(dir, 'hello.sh'), 'two\n')
    const error = await engine
      .build(
        {
          context: scanned.pack({dockerfile: layerDockerfile(base), filesDir: CONTEXT_FILES_DIR}),
          tag: `xpktest/changed-${uniqueSuffix()}:1`,
          platform: 'linux/amd64',
          pull: false,
        },
        () => undefined,
      )
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).message).toContain('hello.sh changed')
  })

  it('returns a refused push as denied', async () => {
    const tag = `${registry.host}/xpk/denied-${uniqueSuffix()}`
    await docker.getImage(base).tag({repo: tag, tag: 't1'})
    images.push(`${tag}:t1`)
    const result = await engine.push(
      {repository: tag, tag: 't1', auth: {username: registry.username, password: 'wrong'}},
      () => undefined,
    )
    expect(result).toEqual({
      ok: false,
      failure: {message: expect.stringMatching(/unauthorized|authentication/i), denied: true},
    })
  })
})
