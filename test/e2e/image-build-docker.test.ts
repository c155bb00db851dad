// buildImage against a real Docker engine and registry (skipped, with a message, when no engine can be reached).
// The in-process behaviour of the service, over fakes, is in test/services/image-build.test.ts.
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {imageBuildDeps} from '../../src/cli/workload.js'
import {XpkError} from '../../src/core/errors.js'
import type {ImageEngine, RegistryClient} from '../../src/ports/images.js'
import {buildImage, type ImageBuildDeps, type ImageBuildOptions} from '../../src/services/image-build.js'
import {makeBaseImage} from '../helpers/base-image.js'
import {
  docker,
  dockerAvailable,
  explainDockerSkip,
  follow,
  removeImages,
  runInImage,
  uniqueSuffix,
} from '../helpers/docker.js'
import {startLocalRegistry, type LocalRegistry} from '../helpers/local-registry.js'
import {scriptDir, writeFiles} from '../helpers/script-dir.js'
import {tempDir} from '../helpers/temp.js'
import {RecordingConsole} from '../helpers/recording-console.js'

/** Counts the calls that reach the engine and the registry. */
function counted(deps: ImageBuildDeps) {
  const calls = {inspectLocal: 0, build: 0, push: 0, manifest: 0}
  const engine: ImageEngine = {
    inspectLocal: (reference) => (calls.inspectLocal++, deps.engine.inspectLocal(reference)),
    build: (request, onEvent) => (calls.build++, deps.engine.build(request, onEvent)),
    push: (request, onEvent) => (calls.push++, deps.engine.push(request, onEvent)),
  }
  const registry: RegistryClient = {
    manifest: (image, auth) => (calls.manifest++, deps.registry.manifest(image, auth)),
  }
  return {calls, deps: {...deps, engine, registry}}
}

describe.skipIf(!dockerAvailable)('buildImage with a real Docker engine and registry', () => {
  explainDockerSkip('buildImage with a real Docker engine and registry')

  let registry: LocalRegistry
  let base = ''
  let dockerConfig = ''
  const images: string[] = []

  beforeAll(async () => {
    ;[registry, base] = await Promise.all([startLocalRegistry(), makeBaseImage()])
    dockerConfig = await mkdtemp(join(tmpdir(), 'xpk-dockercfg-'))
    const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64')
    await writeFile(join(dockerConfig, 'config.json'), JSON.stringify({auths: {[registry.host]: {auth}}}))
  })
  afterAll(async () => {
    await removeImages([...images.reverse(), base].filter(Boolean))
    await registry?.stop()
    if (dockerConfig) await rm(dockerConfig, {recursive: true, force: true})
  })

  async function realDeps(console = new RecordingConsole(), configDir = dockerConfig) {
    return counted(
      await imageBuildDeps(console, {
        credentials: {env: {DOCKER_CONFIG: configDir}},
        // Off the developer's own cache; one per run keeps every test's re-runs meaningful.
        context: {digestCacheDir: tempDir('xpk-digests-')},
      }),
    )
  }

  function optionsFor(scriptDir: string, name = `app-${uniqueSuffix()}`): ImageBuildOptions {
    return {
      baseImage: base,
      scriptDir,
      platform: 'linux/amd64',
      repository: `${registry.host}/xpk/${name}`,
      dryRun: false,
      offline: false,
    }
  }

  function track(result: {repository: string; tag: string}): void {
    images.push(`${result.repository}:${result.tag}`)
  }

  it('builds and pushes, skips an unchanged re-run, and pushes one layer for one changed file', async () => {
    const dir = await scriptDir({'hello.sh': 'echo hello from xpk\n', 'lib/util.sh': 'true\n'})
    const options = optionsFor(dir)
    const name = options.repository.slice(registry.host.length + 1)

    // First run: build and push.
    const console = new RecordingConsole()
    const {deps, calls} = await realDeps(console)
    const first = await buildImage(options, deps)
    track(first)
    const baseId = (await docker.getImage(base).inspect()).Id
    expect(first).toMatchObject({
      repository: options.repository,
      tag: expect.stringMatching(/^ctx-[0-9a-f]{16}$/),
      action: 'pushed',
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      contextFiles: 2,
      baseDigest: baseId,
      baseDigestSource: 'engine',
      layersPushed: 3,
      layersSkipped: 0,
    })
    expect(first.reference).toBe(`${options.repository}@${first.digest}`)
    expect(calls).toMatchObject({build: 1, push: 1})

    // The registry has exactly that tag, under the reported digest.
    expect(await (await registry.fetch(`/v2/${name}/tags/list`)).json()).toEqual({name, tags: [first.tag]})
    const head = await registry.fetch(`/v2/${name}/manifests/${first.tag}`, {
      method: 'HEAD',
      headers: {accept: 'application/vnd.docker.distribution.manifest.v2+json'},
    })
    expect(head.headers.get('docker-content-digest')).toBe(first.digest)
    expect(await runInImage(`${options.repository}:${first.tag}`, ['cat', '/app/hello.sh'])).toBe(
      'echo hello from xpk\n',
    )

    // Progress: one line per build step, one line per layer, all finished.
    const steps = console.finalLines('Building')
    expect([...steps.values()].map((l) => [l.label, l.status])).toEqual([
      ['Step 1/3', 'done'],
      ['Step 2/3', 'done'],
      ['Step 3/3', 'done'],
    ])
    const layers = [...console.finalLines('Pushing').values()]
    expect(layers).toHaveLength(3)
    expect(layers.every((l) => l.status === 'done' && l.state === 'pushed')).toBe(true)
    expect(console.boards.every((b) => b.closed)).toBe(true)

    // Unchanged re-run (a fresh process would do the same): nothing is built or pushed.
    const rerun = await realDeps()
    const second = await buildImage(options, rerun.deps)
    expect(second).toMatchObject({action: 'exists', tag: first.tag, digest: first.digest, reference: first.reference})
    expect(rerun.calls).toMatchObject({build: 0, push: 0})
    expect(second.seconds).toBeLessThan(5)

    // One changed file: a new tag, and exactly one new layer (base and WORKDIR layers are already there).
    await writeFile(join(dir, 'hello.sh'), 'echo hello again\n')
    const third = await buildImage(options, (await realDeps()).deps)
    track(third)
    expect(third.tag).not.toBe(first.tag)
    expect(third).toMatchObject({action: 'pushed', layersPushed: 1, layersSkipped: 2})
    expect(await runInImage(`${options.repository}:${third.tag}`, ['cat', '/app/hello.sh'])).toBe('echo hello again\n')

    // What the registry holds runs: pull it by digest into a clean local store and read the script.
    await removeImages([`${options.repository}:${first.tag}`, `${options.repository}:${third.tag}`])
    const pinned = third.reference
    await follow(
      await docker.pull(pinned, {
        authconfig: {username: registry.username, password: registry.password, serveraddress: registry.host},
      }),
    )
    images.push(pinned)
    expect(await runInImage(pinned, ['cat', '/app/hello.sh'])).toBe('echo hello again\n')
  })

  it('leaves .dockerignore matches out of the image and out of the tag', async () => {
    const dir = await scriptDir({
      '.dockerignore': 'secret.txt\n*.log\n!keep.log\n',
      'secret.txt': 'password=1',
      'debug.log': 'noise',
      'keep.log': 'kept',
      'run.sh': 'echo run\n',
    })
    const options = optionsFor(dir)
    const first = await buildImage(options, (await realDeps()).deps)
    track(first)
    expect(first.contextFiles).toBe(3)
    const listing = await runInImage(`${options.repository}:${first.tag}`, ['ls', '-a', '/app'])
    expect(listing.split(/\s+/).filter(Boolean).sort()).toEqual(['.', '..', '.dockerignore', 'keep.log', 'run.sh'])

    await writeFiles(dir, {'secret.txt': 'password=2', 'debug.log': 'more noise', 'new.log': 'x'})
    const {deps, calls} = await realDeps()
    const second = await buildImage(options, deps)
    expect(second).toMatchObject({action: 'exists', tag: first.tag})
    expect(calls).toMatchObject({build: 0, push: 0})
  })

  it('dry run: says a build would happen, then that it would be skipped, without building', async () => {
    const dir = await scriptDir({'a.sh': 'echo a\n'})
    const options = optionsFor(dir)
    const dry = await realDeps()
    const before = await buildImage({...options, dryRun: true}, dry.deps)
    expect(before).toMatchObject({action: 'would-build', digest: null, baseDigestSource: 'engine'})
    expect(before.reference).toBe(`${options.repository}:${before.tag}`)
    expect(dry.calls).toMatchObject({build: 0, push: 0, manifest: 1})

    const real = await buildImage(options, (await realDeps()).deps)
    track(real)
    expect(real.tag).toBe(before.tag)

    const after = await buildImage({...options, dryRun: true}, (await realDeps()).deps)
    expect(after).toMatchObject({action: 'would-skip', tag: before.tag, digest: real.digest})
  })

  it('resolves a base image that is only in its registry there, and pins it', async () => {
    const baseRepo = `${registry.host}/xpk/base-${uniqueSuffix()}`
    await docker.getImage(base).tag({repo: baseRepo, tag: '1'})
    const auth = {username: registry.username, password: registry.password, serveraddress: registry.host}
    await follow(await docker.getImage(baseRepo).push({tag: '1', authconfig: auth}))
    await removeImages([`${baseRepo}:1`])
    const manifest = await registry.fetch(`/v2/${baseRepo.slice(registry.host.length + 1)}/manifests/1`, {
      method: 'HEAD',
      headers: {accept: 'application/vnd.docker.distribution.manifest.v2+json'},
    })
    const baseDigest = manifest.headers.get('docker-content-digest')

    const dir = await scriptDir({'a.sh': 'echo a\n'})
    const options = {...optionsFor(dir), baseImage: `${baseRepo}:1`}
    const result = await buildImage(options, (await realDeps()).deps)
    track(result)
    images.push(`${baseRepo}@${baseDigest}`)
    expect(result).toMatchObject({action: 'pushed', baseDigest, baseDigestSource: 'registry'})
    expect(await runInImage(`${options.repository}:${result.tag}`, ['cat', '/app/a.sh'])).toBe('echo a\n')

    // The pull left no `:1` tag locally, so the next run asks the registry again and gets the same tag.
    const again = await buildImage(options, (await realDeps()).deps)
    expect(again).toMatchObject({action: 'exists', tag: result.tag, baseDigestSource: 'registry'})

    // Once the base is pulled, its digest comes from the local engine instead: the tag must not change with that.
    await follow(await docker.pull(`${baseRepo}:1`, {authconfig: auth}))
    images.push(`${baseRepo}:1`)
    const local = await buildImage(options, (await realDeps()).deps)
    expect(local).toMatchObject({action: 'exists', tag: result.tag, baseDigestSource: 'engine', baseDigest})
  })

  it('turns a wrong registry password into an auth error that says how to log in', async () => {
    const config = await tempDir('xpk-badcfg-')
    const auth = Buffer.from(`${registry.username}:wrong`).toString('base64')
    await writeFile(join(config, 'config.json'), JSON.stringify({auths: {[registry.host]: {auth}}}))
    const dir = await scriptDir({'a.sh': 'echo a\n'})
    const {deps, calls} = await realDeps(new RecordingConsole(), config)
    const error = await buildImage(optionsFor(dir), deps).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('auth')
    expect((error as XpkError).exitCode).toBe(3)
    expect((error as XpkError).message).toContain(registry.host)
    expect((error as XpkError).hints.join(' ')).toContain(`docker login ${registry.host}`)
    expect(calls.build).toBe(0)
  })

  it.each([
    ['is not in its registry', (host: string) => `${host}/xpk/nope-${uniqueSuffix()}:1`, /registry does not have it/],
    ['is on an unreachable registry', () => `127.0.0.1:9/xpk/nope-${uniqueSuffix()}:1`, /Could not look up/],
  ])('reports a base image that %s as an image error naming it', async (_name, baseFor, message) => {
    const dir = await scriptDir({'a.sh': 'echo a\n'})
    const baseImage = baseFor(registry.host)
    const {deps, calls} = await realDeps()
    const error = await buildImage({...optionsFor(dir), baseImage}, deps).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('image')
    expect((error as XpkError).exitCode).toBe(8)
    expect((error as XpkError).message).toContain(baseImage)
    expect((error as XpkError).message).toMatch(message)
    expect((error as XpkError).hints.join(' ')).toMatch(/--base-docker-image|docker pull/)
    expect(calls.build).toBe(0)
  })

  it('surfaces a failing build step with its output', async () => {
    const broken = await makeBaseImage({files: {app: 'a file where /app should be a directory\n'}})
    images.push(broken)
    const dir = await scriptDir({'a.sh': 'echo a\n'})
    const console = new RecordingConsole()
    const {deps, calls} = await realDeps(console)
    const error = await buildImage({...optionsFor(dir), baseImage: broken}, deps).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('image')
    expect((error as XpkError).message).toContain('step 2/3 (WORKDIR /app): Cannot mkdir: /app is not a directory')
    expect((error as XpkError).message).toContain('  Step 2/3 : WORKDIR /app')
    expect(console.finalLines('Building').get('step-2')).toMatchObject({
      status: 'failed',
      detail: 'Cannot mkdir: /app is not a directory',
    })
    expect(console.finalLines('Building').get('step-3')).toMatchObject({status: 'waiting'})
    expect(calls.push).toBe(0)
  })
})
