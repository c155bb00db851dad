// The CLI as a user meets it, for the rules of issue 7 that only show in a real process: every --help example runs,
// help spellings, stray arguments, settings checked before any request, terminal safety and output errors, the
// Node version check, and where the compile cache lives.
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ALL_PLANNED_PERMISSIONS, REQUIRED_APIS} from '../../src/core/doctor/requirements.js'
import {Problems} from '../../src/core/input.js'
import {buildPathwaysJobSet} from '../../src/core/manifests/pathways-jobset.js'
import {pathwaysSpecFromFlags} from '../../src/core/workload/pathways.js'
import {COMMANDS} from '../../src/index.js'
import {USER_MANIFESTS} from '../builders/storage.js'
import {aWorkloadSpec} from '../builders/workload-spec.js'
import {
  pathwaysCpuFlavor,
  RESOURCE_FLAVOR_CRD,
  resourcesConfigMap,
  submitReadyKueueObjects,
} from '../builders/workload-cluster.js'
import {at, jobsetStatus, kueueStatus, kueueWorkloadFor, submittedJobSet} from '../builders/workload-states.js'
import {FakeCloudStorage} from '../fakes/fake-cloud-storage.js'
import {FakeCompute} from '../fakes/fake-compute.js'
import {FakeFilestore} from '../fakes/fake-filestore.js'
import {FakeResourceManager} from '../fakes/fake-resource-manager.js'
import {FakeServiceUsage} from '../fakes/fake-service-usage.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, REPO_ROOT, runCli} from '../helpers/cli.js'
import {seedInstalledControllers} from '../helpers/cluster-inside.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {STORAGE_CRD} from '../helpers/storage-crd.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, seedDemoCluster, seedToolkitCluster, startKubeAndGke} from '../helpers/wire-fakes.js'
import {workloadCrds} from '../helpers/workload-crds.js'

const BIN = join(REPO_ROOT, 'bin/run.js')
let fake: FakeGke
let kube: FakeKube
let storage: FakeCloudStorage
let filestore: FakeFilestore
let compute: FakeCompute
let resourceManager: FakeResourceManager
let serviceUsage: FakeServiceUsage

fakesForFile(
  async (wire) => {
    // The examples' dry runs read inside the existing cluster too: it answers from the Kubernetes fake.
    ;({kube, gke: fake} = await startKubeAndGke(wire))
    seedDemoCluster(fake, 'my-project', 6)
    // `cluster adapt`'s examples adopt clusters other tools made: TPU pools on ct-cluster, a GPU pool on tf-cluster.
    seedToolkitCluster(fake, 'my-project', 'ct-cluster')
    seedToolkitCluster(fake, 'my-project', 'tf-cluster', true)
    // `storage attach`'s examples read a bucket and a Filestore instance; `storage detach`'s detach old-data.
    storage = wire.add(await FakeCloudStorage.start())
    storage.seedBucket({name: 'my-datasets', project: 'my-project'})
    filestore = wire.add(await FakeFilestore.start())
    filestore.seedInstance({project: 'my-project', location: 'us-central2-b', id: 'home-fs', shareName: 'home'})
    // `cluster create`'s reservation example reads my-res: room for its 8 slices of v5p-256 (32 VMs each).
    compute = wire.add(await FakeCompute.start())
    // `cluster create-pathways`' example asks for this CPU pool machine type.
    compute.seedMachineType('my-project', 'us-central2-b', 'n2-highmem-64', {guestCpus: 64, memoryMb: 524288})
    compute.seedReservation({
      project: 'my-project',
      zone: 'us-central2-b',
      name: 'my-res',
      specific: {machineType: 'ct5p-hightpu-4t', count: 256},
    })
    // `doctor`'s examples read the project, its APIs and permissions, the v5p quota (on demand and Spot) and
    // my-reservation, with room for what they ask.
    resourceManager = wire.add(await FakeResourceManager.start())
    resourceManager.seedProject({projectId: 'my-project', granted: ALL_PLANNED_PERMISSIONS})
    serviceUsage = wire.add(await FakeServiceUsage.start())
    serviceUsage.seedProject(
      'my-project',
      REQUIRED_APIS.map((a) => a.service),
    )
    compute.seedRegionQuotas('my-project', 'us-central2', [
      {metric: 'TPU_PODSLICE_V5', limit: 64, usage: 0},
      {metric: 'PREEMPTIBLE_TPU_PODSLICE_V5', limit: 64, usage: 0},
    ])
    compute.seedReservation({
      project: 'my-project',
      zone: 'us-central2-b',
      name: 'my-reservation',
      specific: {machineType: 'ct5p-hightpu-4t', count: 2},
    })
    kube.seed(STORAGE_CRD as Obj, {
      apiVersion: 'xpk.x-k8s.io/v1',
      kind: 'Storage',
      metadata: {name: 'old-data'},
      spec: {
        ...{type: 'gcsfuse', cluster: 'demo', auto_mount: false, mount_point: '/old', readonly: true, manifest: ''},
        ...{pv: 'old-data-pv', pvc: 'old-data-pvc'},
      },
    })
    // `storage delete`'s examples delete old-home, whose volume names the instance home-fs.
    kube.seed(
      {
        apiVersion: 'xpk.x-k8s.io/v1',
        kind: 'Storage',
        metadata: {name: 'old-home'},
        spec: {
          ...{type: 'gcpfilestore', cluster: 'demo', auto_mount: false, mount_point: '/home', readonly: false},
          ...{manifest: '', pv: 'old-home-pv', pvc: 'old-home-pvc'},
        },
      },
      {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: {name: 'old-home-pv'},
        spec: {
          ...{capacity: {storage: '1024Gi'}, accessModes: ['ReadWriteMany'], persistentVolumeReclaimPolicy: 'Retain'},
          csi: {
            driver: 'filestore.csi.storage.gke.io',
            volumeHandle: 'projects/my-project/locations/us-central2-b/instances/home-fs/volumes/home',
          },
        },
      },
    )
  },
  {reset: false},
)

const env = (extra: Record<string, string> = {}) =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${fake.endpoint}`,
    XPK_STORAGE_ENDPOINT: storage.endpoint,
    XPK_FILESTORE_ENDPOINT: filestore.endpoint,
    XPK_COMPUTE_ENDPOINT: compute.endpoint,
    XPK_RESOURCE_MANAGER_ENDPOINT: resourceManager.endpoint,
    XPK_SERVICE_USAGE_ENDPOINT: serviceUsage.endpoint,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_PROJECT: 'my-project',
    XPK_ZONE: 'us-central2-b',
    ...extra,
  })

/** Splits an example command line the way a POSIX shell would for plain words and double or single quotes. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!)
}

/**
 * The workload commands' examples (list, logs, why, describe) read workloads (and wait for run-1): JobSet and Kueue
 * with one finished workload are put in the cluster just before them, so the examples of other commands still meet a
 * cluster without either.
 */
let workloadsSeeded = false
let controllersSeeded = false
function seedWorkloads(): void {
  if (workloadsSeeded) return
  workloadsSeeded = true
  seedWorkloadKinds()
  kube.seed({...submittedJobSet('run-1', 'medium', at(0)), status: jobsetStatus.completed(9)} as unknown as Obj)
  const stored = kube.get({apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'default', name: 'run-1'})
  const workload = kueueWorkloadFor(stored as unknown as ReturnType<typeof submittedJobSet>, at(0))
  kube.seed({...workload, status: kueueStatus.succeeded(9)} as Obj)
  // `workload logs`' examples read worker 0 of slice 0 and worker 3 of slice 1 of run-1 (their containers have
  // exited, so --follow ends); the other places have no pod, which is a note, not an error.
  for (const [slice, worker] of [
    [0, 0],
    [1, 3],
  ]) {
    const pod = `run-1-slice-job-${slice}-${worker}-abcde`
    kube.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: pod,
        namespace: 'default',
        labels: {
          'jobset.sigs.k8s.io/jobset-name': 'run-1',
          'jobset.sigs.k8s.io/job-index': String(slice),
          'batch.kubernetes.io/job-completion-index': String(worker),
        },
      },
      spec: {containers: [{name: 'jax-tpu', image: 'python:3.12'}]},
    })
    kube.setPodLog('default', pod, `step 1 on slice ${slice} worker ${worker}\n`)
    kube.endPodLog('default', pod)
  }
  // The `--head` example reads the head of pw-run, a completed Pathways workload (so --follow ends).
  const pathways = buildPathwaysJobSet(
    aWorkloadSpec({name: 'pw-run', type: 'v5p-8', numSlices: 1, command: 'python3 train.py'}),
    pathwaysSpecFromFlags({}, new Problems()),
  )
  kube.seed({
    ...pathways,
    metadata: {...pathways.metadata, namespace: 'default'},
    status: jobsetStatus.completed(9),
  } as unknown as Obj)
  const head = 'pw-run-pathways-head-0-0-abcde'
  kube.seed({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: head,
      namespace: 'default',
      labels: {
        'jobset.sigs.k8s.io/jobset-name': 'pw-run',
        'jobset.sigs.k8s.io/replicatedjob-name': 'pathways-head',
        'jobset.sigs.k8s.io/job-index': '0',
        'batch.kubernetes.io/job-completion-index': '0',
      },
    },
    spec: pathways.spec.replicatedJobs[0]!.template.spec.template.spec as unknown as Obj,
  })
  kube.setPodLog('default', head, 'step 1 on the Pathways head\n')
  kube.endPodLog('default', head)
}

/**
 * `workload create`'s examples read the cluster even as dry runs: it is set up as `cluster create` leaves it for
 * them (JobSet and Kueue served, the LocalQueue and PriorityClasses, and room for 4 slices of v5litepod-256).
 */
let submitSeeded = false
function seedSubmitReady(): void {
  if (submitSeeded) return
  submitSeeded = true
  seedWorkloadKinds()
  seedMissing(
    ...(submitReadyKueueObjects() as unknown as Obj[]),
    resourcesConfigMap('demo', {'v5litepod-256': '256'}) as unknown as Obj,
  )
}

/** Seeds the objects not there yet: the CRDs `doctor`'s example installed with the controllers are. */
function seedMissing(...objects: Obj[]): void {
  const metadata = (o: Obj) => o.metadata as {name: string; namespace?: string}
  kube.seed(
    ...objects.filter(
      (o) =>
        !kube.get({
          apiVersion: o.apiVersion as string,
          kind: o.kind as string,
          name: metadata(o).name,
          ...(metadata(o).namespace ? {namespace: metadata(o).namespace} : {}),
        }),
    ),
  )
}

let kindsSeeded = false
function seedWorkloadKinds(): void {
  if (kindsSeeded) return
  kindsSeeded = true
  seedMissing(...(workloadCrds() as unknown as Obj[]))
}

type CommandId = keyof typeof COMMANDS
const examples = (Object.keys(COMMANDS) as CommandId[])
  .filter((id) => !id.startsWith('vm:'))
  .flatMap((id) => {
    const cmd = COMMANDS[id] as unknown as {examples?: string[]; flags?: Record<string, unknown>}
    return (cmd.examples ?? []).flatMap((example) => {
      const argv = words(example.replace('<%= config.bin %> ', ''))
      const flags = cmd.flags ?? {}
      // Examples that change things run as dry runs: they must be valid, and the fakes stand in for the cloud.
      if ('dry-run' in flags && !argv.includes('--dry-run')) argv.push('--dry-run')
      const run = {id, example, argv, jsonVariant: false}
      // Each runs with --json too, so what it prints is held to its command's schema (test/helpers/cli.ts); one
      // that picks its output with -o already prints its form (and --json with another -o is refused).
      if (argv.includes('--json') || argv.includes('-o')) return [run]
      return [run, {id, example: `${example} [+ --json]`, argv: [...argv, '--json'], jsonVariant: true}]
    })
  })

describe('every --help example runs', () => {
  it('covers every command but vm (its examples run against the TPU fake in test/e2e/dry-run.test.ts)', () => {
    const ids = new Set(examples.map((e) => e.id))
    for (const id of Object.keys(COMMANDS).filter((i) => !i.startsWith('vm:'))) expect(ids).toContain(id)
  })

  const shapes: Record<string, unknown> = {}
  it.each(examples)('$example', async ({id, example, argv, jsonVariant}) => {
    if (['workload:list', 'workload:logs', 'workload:why', 'workload:describe', 'info', 'inspector'].includes(id))
      seedWorkloads()
    if (id === 'workload:create') seedSubmitReady()
    // `demo` as `cluster create-pathways` leaves it: Kueue's cpu-user flavor admits the Pathways head.
    if (id === 'workload:create-pathways') {
      seedSubmitReady()
      seedMissing(RESOURCE_FLAVOR_CRD as unknown as Obj)
      seedMissing(pathwaysCpuFlavor() as unknown as Obj)
    }
    // `doctor --cluster demo` checks JobSet and Kueue: installed as `cluster create` leaves them.
    if (id === 'doctor' && !controllersSeeded) {
      controllersSeeded = true
      seedInstalledControllers(kube)
    }
    const mark = markRequests({gke: fake, kube, storage, filestore, compute})
    const cwd = tempDir('xpk-example-')
    // The manifest `storage attach`'s Lustre example names.
    if (id === 'storage:attach') writeFileSync(join(cwd, 'lustre.yaml'), USER_MANIFESTS.lustre)
    // `inspector` writes its file in TMPDIR: the example's own directory, removed with it.
    const result = await runCli(argv, {env: {...env(), TMPDIR: cwd}, cwd})
    expect(result.stderr).not.toMatch(/^Error/m)
    expect(result.code).toBe(0)
    // Examples of commands that change something run as dry runs: those, and the read-only ones, change nothing.
    expect(mutationsSince({gke: fake, kube, storage, filestore, compute}, mark)).toEqual([])
    if (jsonVariant) expect(() => JSON.parse(result.stdout), 'stdout is one JSON value').not.toThrow()
    else if (argv.includes('--json'))
      shapes[example.replace('<%= config.bin %> ', 'xpk ')] = shapeOf(JSON.parse(result.stdout))
  })

  // The JSON each --json example prints, as a shape (keys and value types), is a contract: scripts read it.
  it('keeps the --json shapes of test/golden/contract/json-shapes.json (UPDATE_GOLDENS=1 to accept a change)', () => {
    const golden = join(REPO_ROOT, 'test/golden/contract/json-shapes.json')
    const actual = `${JSON.stringify(Object.fromEntries(Object.entries(shapes).sort()), null, 2)}\n`
    expect(Object.keys(shapes).length).toBeGreaterThanOrEqual(8)
    if (process.env.UPDATE_GOLDENS) writeFileSync(golden, actual)
    expect(actual).toBe(readFileSync(golden, 'utf8'))
  })
})

// Under --json a failure is one object on stdout, `{"error": {kind, exitCode, message, hints}}`, held to
// test/golden/contract/schemas/error.json by test/helpers/cli.ts: one run per kind a user can cause here.
describe('every failure under --json is the error object', () => {
  it.each([
    ['an unknown command', ['nonsense', '--json'], 2, 'usage'],
    ['several missing flags at once', ['cluster', 'create', '--cluster', 'x', '--json'], 2, 'usage'],
    ['a bad argument', ['accelerator', 'describe', 'v9z-8', '--json'], 2, 'usage'],
    ['a cluster that does not exist', ['cluster', 'describe', '--cluster', 'nope', '--json'], 4, 'not-found'],
    ['a bulk delete nobody can confirm', ['workload', 'delete', '--cluster', 'demo', '--json'], 2, 'usage'],
    [
      'an API that cannot be reached',
      ['cluster', 'list', '--gke-endpoint', 'http://127.0.0.1:9', '--json'],
      7,
      'unavailable',
    ],
  ])('%s: xpk %j exits %i', async (_, argv, code, kind) => {
    if (argv[0] === 'workload') seedWorkloads()
    const result = await runCli(argv, {env: env()})
    expect(result.code).toBe(code)
    const {error} = JSON.parse(result.stdout) as {error: {kind: string; exitCode: number}}
    expect(error.exitCode).toBe(code)
    expect(error.kind).toBe(kind)
  })
})

/** Keys and value types of a JSON value; arrays by the shapes their elements take. */
function shapeOf(value: unknown): unknown {
  if (value === null) return 'null'
  if (Array.isArray(value)) {
    const kinds = [...new Map(value.map((v) => [JSON.stringify(shapeOf(v)), shapeOf(v)])).values()]
    return kinds.length === 0 ? '[]' : kinds.length === 1 ? [kinds[0]] : kinds
  }
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]),
    )
  }
  return typeof value
}

describe('help and stray arguments', () => {
  it.each([[['-h']], [['help']], [['help', 'cluster', 'create']], [['cluster', 'create', '-h']]])(
    'xpk %j prints help on stdout with exit 0',
    async (argv) => {
      const result = await runCli(argv, {env: env()})
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/USAGE/)
      if (argv.includes('create')) expect(result.stdout).toContain('--num-slices')
    },
  )

  it.each([
    [['cluster', 'delete', 'demo'], 'Did you mean --cluster demo?'],
    [['cluster', 'delete', '--force', 'demo'], 'Did you mean --cluster demo?'],
    [['workload', 'create', 'run-1', '--dry-run'], 'Did you mean --workload run-1?'],
  ])('xpk %j says which flag the argument belongs to, and deletes nothing', async (argv, hint) => {
    const result = await runCli(argv, {env: env()})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(hint)
    expect(fake.calls.filter((c) => c.method === 'DeleteCluster')).toEqual([])
  })

  it('accepts --cluster-cpu-machine-type, the old name in the seed README, for --default-pool-cpu-machine-type', async () => {
    const result = await runCli(
      [
        ...['cluster', 'create', '--cluster', 'old-name', '--tpu-type', 'v5p-8', '--on-demand'],
        ...['--cluster-cpu-machine-type', 'n2-standard-8', '--dry-run', '--offline', '--json'],
      ],
      {env: env()},
    )
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('"machineType": "n2-standard-8"')
  })
})

describe('an empty value never falls back to a saved one', () => {
  it('cluster delete --cluster "" --force deletes nothing, even with a saved cluster', async () => {
    const config = tempDir('xpk-config-')
    const saved = env({XDG_CONFIG_HOME: config})
    expect((await runCli(['config', 'set', 'cluster', 'demo'], {env: saved})).code).toBe(0)
    const result = await runCli(['cluster', 'delete', '--cluster', '', '--force'], {env: saved})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--cluster was given an empty value')
    expect(fake.calls.filter((c) => c.method === 'DeleteCluster')).toEqual([])
  })

  it.each(['XPK_CLUSTER', 'XPK_PROJECT', 'XPK_ZONE'])('%s="" is refused by name before any request', async (name) => {
    const before = fake.calls.length
    const result = await runCli(['cluster', 'delete', '--force'], {env: env({XPK_CLUSTER: 'demo', [name]: ''})})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`${name} is set but empty`)
    expect(fake.calls.length).toBe(before)
  })

  it('cluster list --zone US-CENTRAL2-B is refused at once instead of listing nothing', async () => {
    const started = Date.now()
    const result = await runCli(['cluster', 'list', '--zone', 'US-CENTRAL2-B'], {
      env: env({XPK_GKE_ENDPOINT: 'http://127.0.0.1:9'}),
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--zone "US-CENTRAL2-B": a zone looks like us-central2-b')
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})

describe('terminal safety', () => {
  it('escapes control characters that users put in names', async () => {
    const result = await runCli(['cluster', 'delete', '--cluster', '\u001b[2J\u001b]0;owned\u0007', '--force'], {
      env: env(),
    })
    expect(result.code).toBe(2)
    // eslint-disable-next-line no-control-regex
    expect(result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
    expect(result.stderr).toContain('\\x1b[2J')
  })

  it('escapes them in --env-file lines it quotes', async () => {
    const dir = tempDir('xpk-envfile-')
    writeFileSync(join(dir, 'run.env'), 'GOOD=1\n\u001b[31mBAD LINE\n')
    const result = await runCli(
      [
        'workload',
        'create',
        ...['--cluster', 'demo', '--workload', 'w', '--tpu-type', 'v5p-8', '--command', 'true'],
      ].concat(['--docker-image', 'python:3.10', '--env-file', 'run.env', '--dry-run', '--offline']),
      {env: env(), cwd: dir},
    )
    expect(result.code).toBe(2)
    expect(result.stderr).not.toContain('\u001b')
    expect(result.stderr).toContain('\\x1b[31mBAD LINE')
  })

  it.each([
    [
      'stdout to a full device',
      'node "$BIN" accelerator list > /dev/full',
      1,
      /^Error: could not write the results to standard output: ENOSPC\n$/,
    ],
    [
      'stdout closed early by the reader',
      'node "$BIN" accelerator list | head -c 1 > /dev/null; exit ${PIPESTATUS[0]}',
      0,
      /^$/,
    ],
    ['stderr closed, bad input', 'node "$BIN" cluster delete demo 2>&-', 2, /^$/],
    ['stderr closed, success', 'node "$BIN" accelerator list --family v5p 2>&- > /dev/null', 0, /^$/],
    ['stderr to a full device', 'node "$BIN" cluster delete demo 2>/dev/full', 2, /^$/],
  ])('%s ends cleanly with the right exit code', (_, script, code, stderr) => {
    const result = spawnSync('bash', ['-c', script], {
      env: {...env(), BIN, PATH: `${join(process.execPath, '..')}:${process.env.PATH}`},
      encoding: 'utf8',
    })
    expect(result.status).toBe(code)
    expect(result.stderr).toMatch(stderr)
    expect(result.stderr).not.toContain('    at ')
  })
})

describe('the process', () => {
  it('refuses to run on a Node older than 22, saying so', () => {
    const dir = tempDir('xpk-old-node-')
    const pretend = join(dir, 'pretend-node-20.mjs')
    writeFileSync(pretend, 'Object.defineProperty(process.versions, "node", {value: "20.11.1"})\n')
    const result = spawnSync(process.execPath, ['--import', pretend, BIN, 'accelerator', 'list'], {
      env: env(),
      encoding: 'utf8',
    })
    expect(result.status).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('xpk needs Node.js 22 or later; this is Node.js 20.11.1.')
  })

  it('points stack traces at src/ under --verbose (source maps), and prints none without it', async () => {
    const args = ['cluster', 'list', '--gke-endpoint', 'http://127.0.0.1:9']
    const verbose = await runCli([...args, '--verbose'], {env: env()})
    expect(verbose.code).toBe(7)
    expect(verbose.stderr).toMatch(/at \S+ \(\S*\/src\/adapters\/gke-container-api\.ts:\d+:\d+\)/)
    const plain = await runCli(args, {env: env()})
    expect(plain.code).toBe(7)
    expect(plain.stderr).not.toContain('    at ')
  })

  it("keeps Node's compile cache in the user's own cache directory", async () => {
    const cache = tempDir('xpk-cache-')
    const result = await runCli(['accelerator', 'list', '--family', 'v5p'], {env: env({XDG_CACHE_HOME: cache})})
    expect(result.code).toBe(0)
    expect(existsSync(join(cache, 'xpk', 'compile-cache'))).toBe(true)
  })

  it('runs without the compile cache when its directory cannot be made (Node would spin)', async () => {
    const result = await runCli(['version'], {env: env({XDG_CACHE_HOME: '/proc/xpk-cannot-exist'}), timeoutMs: 20_000})
    expect([result.code, result.signal]).toEqual([0, null])
    expect(result.stdout).toContain('xpk ')
  })
})
