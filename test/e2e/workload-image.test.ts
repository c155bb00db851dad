import {chmodSync, mkdirSync, readdirSync, writeFileSync} from 'node:fs'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {FakeGke} from '../fakes/fake-gke.js'
import {FakeKube, type Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {makeBaseImage} from '../helpers/base-image.js'
import {jobSetCrd} from '../helpers/release-files.js'
import {resourcesConfigMap, submitReadyKueueObjects} from '../builders/workload-cluster.js'
import {dockerAvailable, explainDockerSkip, removeImages, runInImage} from '../helpers/docker.js'
import {startLocalRegistry, type LocalRegistry} from '../helpers/local-registry.js'
import {tempDir} from '../helpers/temp.js'

// The whole CLI (the bundled build, with its bundled dockerode) building and pushing a real image, then submitting
// the JobSet to the GKE and Kubernetes fakes.
describe.skipIf(!dockerAvailable)('xpk workload create with a real Docker engine and registry', () => {
  explainDockerSkip('xpk workload create with a real Docker engine and registry')
  let registry: LocalRegistry
  let kube: FakeKube
  let gke: FakeGke
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
    // Cluster demo, set up for v5p-8 as `cluster create` leaves it, serving the real JobSet CRD when it is found.
    kube = await FakeKube.start()
    gke = await FakeGke.start(kube.gkeClusterOptions())
    gke.seedCluster({project: 'e2e-project', location: 'us-central2', name: 'demo'})
    kube.seed(
      jobSetCrd() as unknown as Obj,
      resourcesConfigMap('demo', {'v5p-8': '4'}) as unknown as Obj,
      ...(submitReadyKueueObjects() as unknown as Obj[]),
    )
  }, 120_000)

  afterAll(async () => {
    await removeImages([...pushed, base])
    await registry?.stop()
    await gke?.stop()
    await kube?.stop()
    await rm(scriptDir, {recursive: true, force: true})
    await rm(dockerConfig, {recursive: true, force: true})
  })

  /** `workload create` building from scriptDir onto the base and pushing to the local registry. */
  const create = (
    extra: string[],
    options: {workload?: string; dockerName?: string; env?: Record<string, string | undefined>} = {},
  ) =>
    runCli(
      [
        ...['workload', 'create', '--project', 'e2e-project', '--cluster', 'demo'],
        ...['--workload', options.workload ?? 'img-1', '--tpu-type', 'v5p-8', '--command', 'python3 train.py'],
        ...['--script-dir', scriptDir, '--base-docker-image', base, '--registry', `${registry.host}/xpk`],
        ...['--docker-name', options.dockerName ?? 'trainer', ...extra],
      ],
      {
        env: isolatedEnv({
          DOCKER_CONFIG: dockerConfig,
          DOCKER_HOST: process.env.DOCKER_HOST,
          XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
          XPK_ACCESS_TOKEN: kube.token,
          XPK_ZONE: 'us-central2-b',
          ...options.env,
        }),
        timeoutMs: 120_000,
      },
    )

  it('builds and pushes the image, references it by digest in the manifest, and submits the JobSet', async () => {
    const manifestFile = join(scriptDir, '..', `jobset-${Date.now()}.yaml`)
    const result = await create(['--output-manifest-file', manifestFile])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('Submitted workload img-1 on cluster demo')

    const tags = (await (await registry.fetch('/v2/xpk/trainer/tags/list')).json()) as {tags: string[]}
    expect(tags.tags).toHaveLength(1)
    const reference = `${registry.host}/xpk/trainer:${tags.tags[0]}`
    pushed.push(reference)
    const manifest = await readFile(manifestFile, 'utf8')
    expect(manifest).toMatch(new RegExp(`image: "?${registry.host}/xpk/trainer@sha256:[0-9a-f]{64}"?`))
    // The JobSet on the cluster runs the image just pushed, by digest.
    const submitted = JSON.stringify(
      kube.get({apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'default', name: 'img-1'}),
    )
    expect(submitted).toMatch(new RegExp(`"image":"${registry.host}/xpk/trainer@sha256:[0-9a-f]{64}"`))
    expect(await runInImage(reference, ['cat', '/app/train.py'])).toBe('print("training")\n')
    await rm(manifestFile, {force: true})
  })

  it('skips the build and push when nothing changed (--dry-run says so too)', async () => {
    const dryRun = await create(['--dry-run', '--json'])
    expect(dryRun.code).toBe(0)
    expect(JSON.parse(dryRun.stdout).image).toMatchObject({action: 'would-skip', layersPushed: 0})
    const again = await create(['--replace', '--force'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(/already in the registry|exists/i)
    expect(again.stderr).not.toMatch(/Pushing|Pushed/)
  })

  it('never prints the output of a failing credential helper, which may hold a secret', async () => {
    const secret = `s3cret-${Date.now()}`
    const bin = tempDir('xpk-e2e-helper-')
    const helper = join(bin, 'docker-credential-xpkleak')
    writeFileSync(
      helper,
      `#!/bin/sh\nread url\necho '{"ServerURL":"'$url'","Username":"u","Secret":"${secret}"}'\necho "${secret}" >&2\nexit 1\n`,
    )
    chmodSync(helper, 0o755)
    const config = tempDir('xpk-e2e-helper-config-')
    writeFileSync(join(config, 'config.json'), JSON.stringify({credHelpers: {[registry.host]: 'xpkleak'}}))
    const result = await create(['--dry-run'], {
      workload: 'img-2',
      dockerName: 'leak',
      env: {DOCKER_CONFIG: config, PATH: `${bin}:${process.env.PATH}`},
    })
    expect(result.stderr).toContain('docker-credential-xpkleak failed (exit code 1)')
    expect(result.stderr).toContain(`docker-credential-xpkleak get`)
    expect(result.code).toBe(3)
    expect(result.stdout + result.stderr).not.toContain(secret)
  })
})

// Rule 5 of issue 7 through the whole CLI: bad files are usage errors before any work, and a script directory that
// looks like a whole repository is packed only with --force (there is no terminal to ask on here).
describe('xpk workload create checks files and the script directory first', () => {
  const args = (...extra: string[]) => [
    'workload',
    'create',
    '--project',
    'e2e-project',
    '--cluster',
    'demo',
    '--workload',
    'files-1',
    '--tpu-type',
    'v5p-8',
    '--command',
    'python3 train.py',
    '--dry-run',
    '--offline',
    ...extra,
  ]

  it.each<[string, (dir: string) => string[], number, RegExp]>([
    [
      'a directory as --output-manifest-file',
      (d) => ['--docker-image', 'i', '--output-manifest-file', d],
      2,
      /--output-manifest-file .* is a directory/,
    ],
    [
      'a missing directory for --output-manifest-file',
      (d) => ['--docker-image', 'i', '--output-manifest-file', join(d, 'missing', 'x.yaml')],
      2,
      /--output-manifest-file .*does not exist/,
    ],
    [
      '/dev/zero as --env-file',
      () => ['--docker-image', 'i', '--env-file', '/dev/zero'],
      2,
      /--env-file \/dev\/zero: is not a regular file/,
    ],
    ['a file as --script-dir', (d) => ['--script-dir', join(d, 'train.py')], 2, /--script-dir .* is not a directory/],
    [
      'a default script directory holding node_modules, without --force',
      () => [],
      2,
      /contains node_modules[\s\S]*--force/,
    ],
    [
      'a default script directory holding node_modules, with --force',
      () => ['--force'],
      0,
      /Packing the current directory/,
    ],
  ])('%s', async (_name, extra, code, stderr) => {
    const dir = tempDir('xpk-e2e-files-')
    writeFileSync(join(dir, 'train.py'), 'print(1)\n')
    mkdirSync(join(dir, 'node_modules'))
    writeFileSync(join(dir, 'node_modules', 'x.js'), '1\n')
    const before = readdirSync(dir).sort()
    const result = await runCli(args(...extra(dir)), {cwd: dir})
    expect(result.stderr).toMatch(stderr)
    expect(result.code).toBe(code)
    if (code !== 0) expect(result.stdout).toBe('')
    expect(readdirSync(dir).sort()).toEqual(before)
  })
})
