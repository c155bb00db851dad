import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {isolatedEnv, runCli} from '../helpers/cli.js'
import {makeBaseImage} from '../helpers/base-image.js'
import {dockerAvailable, explainDockerSkip, removeImages, runInImage} from '../helpers/docker.js'
import {startLocalRegistry, type LocalRegistry} from '../helpers/local-registry.js'

// The whole CLI (the bundled build, with its bundled dockerode) building and pushing a real image.
describe.skipIf(!dockerAvailable)('xpk workload create with a real Docker engine and registry', () => {
  explainDockerSkip('xpk workload create with a real Docker engine and registry')
  let registry: LocalRegistry
  let base: string
  let scriptDir: string
  let dockerConfig: string
  const pushed: string[] = []

  beforeAll(async () => {
    registry = await startLocalRegistry()
    base = await makeBaseImage()
    scriptDir = await mkdtemp(join(tmpdir(), 'xpk-e2e-script-'))
    await writeFile(join(scriptDir, 'train.py'), 'print("training")\n')
    dockerConfig = await mkdtemp(join(tmpdir(), 'xpk-e2e-docker-config-'))
    const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64')
    await writeFile(join(dockerConfig, 'config.json'), JSON.stringify({auths: {[registry.host]: {auth}}}))
  })

  afterAll(async () => {
    await removeImages([...pushed, base])
    await registry?.stop()
    await rm(scriptDir, {recursive: true, force: true})
    await rm(dockerConfig, {recursive: true, force: true})
  })

  const create = (extra: string[]) =>
    runCli(
      [
        'workload',
        'create',
        '--project',
        'e2e-project',
        '--cluster',
        'demo',
        '--workload',
        'img-1',
        '--tpu-type',
        'v5p-8',
        '--command',
        'python3 train.py',
        '--script-dir',
        scriptDir,
        '--base-docker-image',
        base,
        '--registry',
        `${registry.host}/xpk`,
        '--docker-name',
        'trainer',
        ...extra,
      ],
      {env: isolatedEnv({DOCKER_CONFIG: dockerConfig, DOCKER_HOST: process.env.DOCKER_HOST}), timeoutMs: 120_000},
    )

  it('builds and pushes the image, references it by digest in the manifest, and says submission is not built yet', async () => {
    const manifestFile = join(scriptDir, '..', `jobset-${Date.now()}.yaml`)
    const result = await create(['--output-manifest-file', manifestFile])
    expect(result.stderr).toContain('submitting workloads to a cluster is not available')
    expect(result.code).toBe(1)

    const tags = (await (await registry.fetch('/v2/xpk/trainer/tags/list')).json()) as {tags: string[]}
    expect(tags.tags).toHaveLength(1)
    const reference = `${registry.host}/xpk/trainer:${tags.tags[0]}`
    pushed.push(reference)
    const manifest = await readFile(manifestFile, 'utf8')
    expect(manifest).toMatch(new RegExp(`image: "?${registry.host}/xpk/trainer@sha256:[0-9a-f]{64}"?`))
    expect(await runInImage(reference, ['cat', '/app/train.py'])).toBe('print("training")\n')
    await rm(manifestFile, {force: true})
  })

  it('skips the build and push when nothing changed (--dry-run says so too)', async () => {
    const dryRun = await create(['--dry-run', '--json'])
    expect(dryRun.code).toBe(0)
    expect(JSON.parse(dryRun.stdout).image).toMatchObject({action: 'would-skip', layersPushed: 0})
    const again = await create([])
    expect(again.stderr).toMatch(/already in the registry|exists/i)
    expect(again.stderr).not.toMatch(/Pushing|Pushed/)
  })
})
