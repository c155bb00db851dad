// --dry-run on every command that changes something (issue 18), from the command definitions (src/index.ts
// COMMANDS): every command but those declared read-only below has --dry-run, and each one's dry run, against a state
// in which the same command without it does change something, sends no mutating request to any wire fake and leaves
// the config file as it is, while the real run does change it (so each case can fail). The read-only commands
// Python xpk accepts --dry-run on accept it and run as usual, with a note; the others do not have it. Every --help
// example of the vm commands runs as a dry run against the TPU fake (test/e2e/input-safety.test.ts runs the
// others' examples, holding each to the same rule).
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {COMMANDS} from '../../src/index.js'
import {USER_MANIFESTS} from '../builders/storage.js'
import {
  resourcesConfigMap,
  submitReadyKueueObjects,
  pathwaysCpuFlavor,
  RESOURCE_FLAVOR_CRD,
} from '../builders/workload-cluster.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {FakeCompute} from '../fakes/fake-compute.js'
import {FakeFilestore} from '../fakes/fake-filestore.js'
import {FakeTpu} from '../fakes/fake-tpu.js'
import {isolatedEnv, runCli, type CliResult} from '../helpers/cli.js'
import {markRequests, mutationsSince, type WireFakes} from '../helpers/mutations.js'
import {tempDir} from '../helpers/temp.js'
import {writeReleaseManifest} from '../helpers/release-files.js'
import {fakesForFile, seedDemoCluster, seedToolkitCluster, startKubeAndGke} from '../helpers/wire-fakes.js'
import {STORAGE_CRD} from '../helpers/storage-crd.js'
import {workloadCrds} from '../helpers/workload-crds.js'

type CommandId = keyof typeof COMMANDS

/** The commands that change nothing: anything else must have --dry-run. */
const READ_ONLY: readonly CommandId[] = [
  'accelerator:describe',
  'accelerator:list',
  'cluster:describe',
  'cluster:list',
  'config:get',
  'config:list',
  'info',
  'inspector',
  'doctor',
  'storage:list',
  'version',
  'queue',
  'vm:list',
  // A job's records and logs, and a shell on a worker (what the shell's user does is theirs, as with ssh).
  'vm:job:list',
  'vm:job:logs',
  'vm:job:ssh',
  'workload:list',
  'workload:logs',
  'workload:why',
  'workload:describe',
]

/** Of those, the ones Python xpk takes --dry-run on: they accept it, and say it changes nothing. */
const ACCEPTED_AS_IN_PYTHON: readonly CommandId[] = [
  'cluster:describe',
  'cluster:list',
  'info',
  'inspector',
  'storage:list',
  'workload:list',
]

const PROJECT = 'my-project'
const ZONE = 'us-central2-b'

let gke: FakeGke
let kube: FakeKube
let tpu: FakeTpu
let filestore: FakeFilestore
/** `cluster create-pathways` reads --pathways-gce-machine-type from the zone's machine types. */
let compute: FakeCompute
let fakes: WireFakes
let env: Record<string, string>
let cwd: string

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    seedDemoCluster(gke, PROJECT, 2)
    // `cluster adapt` adopts `adopted`, which another tool made (its objects go to the same Kubernetes fake).
    seedToolkitCluster(gke, PROJECT, 'adopted')
    gke.seedCluster({project: PROJECT, location: 'us-central2', name: 'doomed'})
    kube.seed(
      ...(workloadCrds() as unknown as Obj[]),
      ...(submitReadyKueueObjects() as unknown as Obj[]),
      resourcesConfigMap('demo', {'v5litepod-256': '256'}) as unknown as Obj,
      // `demo` was made with `cluster create-pathways`: Pathways workloads can run on it.
      RESOURCE_FLAVOR_CRD as unknown as Obj,
      pathwaysCpuFlavor() as unknown as Obj,
    )
    tpu = wire.add(await FakeTpu.start({stepMs: 20, deleteMs: 20}))
    // The slices of `vm run`: READY, their workers on a port nothing listens on (a dry run connects to none).
    for (const prefix of ['demo', 'runner']) {
      tpu.seedNode(PROJECT, ZONE, prefix, {
        acceleratorType: 'v4-8',
        networkEndpoints: [{ipAddress: '127.0.0.1', port: 8470}],
        metadata: {'ssh-keys': 'someone:ssh-ed25519 AAAA someone'},
      })
    }
    // `storage delete` deletes storage home and its Filestore instance home-fs.
    filestore = wire.add(await FakeFilestore.start({operationMs: 20}))
    filestore.seedInstance({project: PROJECT, location: ZONE, id: 'home-fs'})
    kube.seed(STORAGE_CRD as Obj, {
      apiVersion: 'xpk.x-k8s.io/v1',
      kind: 'Storage',
      metadata: {name: 'home'},
      spec: {
        ...{type: 'gcpfilestore', cluster: 'demo', auto_mount: false, mount_point: '/home', readonly: false},
        ...{manifest: '', pv: 'home-pv', pvc: 'home-pvc'},
      },
    })
    kube.seed({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {name: 'home-pv'},
      spec: {
        ...{capacity: {storage: '1024Gi'}, accessModes: ['ReadWriteMany'], persistentVolumeReclaimPolicy: 'Retain'},
        csi: {
          driver: 'filestore.csi.storage.gke.io',
          volumeHandle: `projects/${PROJECT}/locations/${ZONE}/instances/home-fs/volumes/vol1`,
        },
      },
    })
    compute = wire.add(await FakeCompute.start())
    fakes = {gke, kube, tpu, filestore, compute}
    env = isolatedEnv({
      XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
      XPK_TPU_ENDPOINT: `http://${tpu.endpoint}`,
      XPK_FILESTORE_ENDPOINT: filestore.endpoint,
      XPK_COMPUTE_ENDPOINT: compute.endpoint,
      XPK_ACCESS_TOKEN: kube.token,
      XPK_PROJECT: PROJECT,
      XPK_ZONE: ZONE,
    })
    cwd = tempDir('xpk-dry-run-cwd-')
    // The persistent disk `storage attach` attaches (relative to the runs' working directory).
    writeFileSync(join(cwd, 'pd.yaml'), USER_MANIFESTS.pd)
    // The releases `cluster adapt` installs, as files (nothing is downloaded).
    for (const component of ['jobset', 'kueue'] as const) writeReleaseManifest(component, cwd)
  },
  {reset: false},
)

const flagsOf = (id: CommandId) =>
  (COMMANDS[id] as unknown as {flags?: Record<string, {type?: string; changesNothing?: boolean}>}).flags ?? {}
/**
 * The changing commands whose dry run is compared with their real run in test/e2e/vm-job.test.ts, which has the SSH
 * workers a real run needs (their records are on this machine, their TPU's workers reached over SSH).
 */
const COMPARED_ELSEWHERE: readonly CommandId[] = ['vm:job:create', 'vm:job:delete', 'vm:job:resume', 'vm:job:stop']

/** A hidden command is xpk's own (`vm job supervise`, which `vm job create` and `resume` start), never typed. */
const hidden = (id: CommandId) => (COMMANDS[id] as unknown as {hidden?: boolean}).hidden === true
const changing = (Object.keys(COMMANDS) as CommandId[]).filter((id) => !READ_ONLY.includes(id) && !hidden(id))
const configFile = () => join(env.XDG_CONFIG_HOME!, 'xpk', 'config.yaml')
const configText = () => (existsSync(configFile()) ? readFileSync(configFile(), 'utf8') : null)
const xpk = (argv: readonly string[]) => runCli(argv, {env, cwd})

describe('--dry-run, from the command definitions', () => {
  it.each(changing)('%s changes something, so it has --dry-run', (id) => {
    expect(flagsOf(id)['dry-run']).toMatchObject({type: 'boolean'})
    expect(flagsOf(id)['dry-run']?.changesNothing).toBeUndefined()
  })

  it.each(READ_ONLY)('%s changes nothing: --dry-run only where Python xpk takes it, with a note', (id) => {
    if (ACCEPTED_AS_IN_PYTHON.includes(id)) expect(flagsOf(id)['dry-run']).toMatchObject({changesNothing: true})
    else expect(flagsOf(id)['dry-run']).toBeUndefined()
  })
})

/**
 * For each command that changes something: the command line, and what to add for the real run (--force, so nothing
 * is asked; null when the real run cannot be made here: `vm run` needs SSH servers, so its plan says what it would
 * change). The cases run in order: the workload and queued resource the real runs make are what the delete cases
 * delete, the setting `config set` saves is what `config unset` removes.
 */
interface Case {
  readonly argv: readonly string[]
  readonly real: readonly string[] | null
  /** The real run's exit code, when not 0, and the environment it needs. */
  readonly realCode?: number
  readonly realEnv?: Record<string, string>
}

const CASES: Readonly<Record<string, Case>> = {
  'cluster:create': {
    argv: ['cluster', 'create', '--cluster', 'fresh', '--tpu-type', 'v5p-8', '--on-demand', '--skip-in-cluster'],
    real: [],
  },
  'cluster:create-pathways': {
    argv: ['cluster', 'create-pathways', '--cluster', 'fresh-pw', '--tpu-type', 'v5p-8', '--on-demand'],
    real: ['--skip-in-cluster'],
  },
  'cluster:create-ray': {
    argv: [
      ...['cluster', 'create-ray', '--cluster', 'fresh', '--tpu-type', 'v5p-8', '--on-demand'],
      ...['--ray-version', '2.38.0', '--skip-in-cluster'],
    ],
    real: [],
  },
  'cluster:delete': {argv: ['cluster', 'delete', '--cluster', 'doomed'], real: ['--force']},
  'cluster:cacheimage': {
    argv: ['cluster', 'cacheimage', '--cluster', 'demo', '--tpu-type', 'v5p-8', '--docker-image', 'python:3.11'],
    real: [],
    // The DaemonSet is applied; no controller runs its pods in the fake, so the wait for the pulls times out.
    realCode: 124,
    realEnv: {XPK_CACHE_IMAGE_TIMEOUT_S: '1'},
  },
  'workload:create': {
    argv: [
      ...['workload', 'create', '--cluster', 'demo', '--workload', 'dry-1', '--tpu-type', 'v5litepod-256'],
      ...['--docker-image', 'python:3.10', '--command', 'python3 train.py'],
    ],
    real: [],
  },
  'workload:create-pathways': {
    argv: [
      ...['workload', 'create-pathways', '--cluster', 'demo', '--workload', 'dry-pw', '--tpu-type', 'v5litepod-256'],
      ...['--headless'],
    ],
    real: [],
  },
  'workload:delete': {argv: ['workload', 'delete', '--cluster', 'demo', '--workload', 'dry-1'], real: []},
  'vm:create': {argv: ['vm', 'create', '--tpu-prefix', 'dry', '--tpu-type', 'v4-8', '--async'], real: []},
  'vm:delete': {argv: ['vm', 'delete', '--tpu-prefix', 'dry', '--async'], real: ['--force']},
  'vm:run': {argv: ['vm', 'run', '--tpu-prefix', 'runner', '--command', 'python3 train.py'], real: null},
  'config:set': {argv: ['config', 'set', 'zone', 'us-east5-a'], real: []},
  'config:unset': {argv: ['config', 'unset', 'zone'], real: []},
  // The real attach turns on the PD CSI driver and creates the CRD, volume, claim and Storage; detach deletes them.
  'storage:attach': {
    argv: [
      ...['storage', 'attach', 'disk', '--cluster', 'demo', '--type', 'pd', '--manifest', 'pd.yaml'],
      ...['--auto-mount', 'false', '--mount-point', '/disk', '--readonly', 'false'],
    ],
    real: [],
  },
  'storage:detach': {argv: ['storage', 'detach', 'disk', '--cluster', 'demo'], real: []},
  'storage:delete': {argv: ['storage', 'delete', 'home', '--cluster', 'demo'], real: ['--force']},
  // The real create makes Filestore instance made-fs, waits until READY, and attaches it as storage made.
  'storage:create': {
    argv: [
      ...['storage', 'create', 'made', '--cluster', 'demo', '--type', 'gcpfilestore', '--instance', 'made-fs'],
      ...['--size', '1024', '--tier', 'BASIC_HDD', '--vol', 'vol1'],
      ...['--auto-mount', 'false', '--mount-point', '/made', '--readonly', 'false'],
    ],
    real: [],
  },
  // Last: its real run replaces the queue the workload cases use with one for adopted's 2 v5p-16 slices.
  'cluster:adapt': {
    argv: [
      'cluster',
      'adapt',
      '--cluster',
      'adopted',
      '--jobset-manifest',
      'jobset.yaml',
      '--kueue-manifest',
      'kueue.yaml',
    ],
    real: ['--force'],
    // JobSet and Kueue are applied; no controller rolls their Deployments out in this fake, so the wait times out.
    realCode: 124,
    realEnv: {XPK_CONTROLLER_TIMEOUT_S: '1'},
  },
}

/** What a run changed: the mutating requests the fakes received after the mark, and the config file if it changed. */
async function changesOf(
  argv: readonly string[],
  extraEnv: Record<string, string> = {},
): Promise<{result: CliResult; changes: string[]}> {
  const mark = markRequests(fakes)
  const before = configText()
  const result = await runCli(argv, {env: {...env, ...extraEnv}, cwd})
  const changes = mutationsSince(fakes, mark)
  if (configText() !== before) changes.push(`config file ${configFile()}`)
  return {result, changes}
}

describe('a dry run changes nothing where the real run changes something', () => {
  it('has a case for every command that changes something', () => {
    expect([...Object.keys(CASES), ...COMPARED_ELSEWHERE].sort()).toEqual([...changing].sort())
  })

  it.each(Object.entries(CASES))('%s', async (_id, {argv, real, realCode, realEnv}) => {
    const dry = await changesOf([...argv, '--dry-run', '--json'])
    expect(dry.result.code, dry.result.stderr).toBe(0)
    expect(dry.changes).toEqual([])
    if (real === null) {
      // Its plan says what a run would change: the key added to the slice's metadata.
      const plan = JSON.parse(dry.result.stdout) as {plan: {steps: {action: string; resource: string}[]}}
      expect(plan.plan.steps).toContainEqual(expect.objectContaining({action: 'update', resource: 'node'}))
      return
    }
    const done = await changesOf([...argv, ...real], realEnv)
    expect(done.result.code, done.result.stderr).toBe(realCode ?? 0)
    expect(done.changes).not.toEqual([])
  })
})

describe('read-only commands that Python xpk takes --dry-run on', () => {
  it.each<[CommandId, string[]]>([
    ['workload:list', ['workload', 'list', '--cluster', 'demo']],
    ['cluster:list', ['cluster', 'list']],
    ['cluster:describe', ['cluster', 'describe', '--cluster', 'demo', '--skip-in-cluster']],
    ['storage:list', ['storage', 'list', '--cluster', 'demo']],
  ])('%s --dry-run runs as usual and says so', async (id, argv) => {
    const plain = await xpk(argv)
    const {result, changes} = await changesOf([...argv, '--dry-run'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe(plain.stdout)
    expect(result.stderr).toContain(`--dry-run: xpk ${id.replaceAll(':', ' ')} changes nothing, so it runs as usual.`)
    expect(changes).toEqual([])
  })
})

/** Splits an example command line the way a POSIX shell would for plain words and double or single quotes. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!)
}

// The examples of `vm job` name jobs of the machine running xpk: they run in test/e2e/vm-job.test.ts, against a job.
const vmExamples = (Object.keys(COMMANDS) as CommandId[])
  .filter((id) => id.startsWith('vm:') && !id.startsWith('vm:job:'))
  .flatMap((id) =>
    ((COMMANDS[id] as unknown as {examples?: string[]}).examples ?? []).map((example) => {
      const argv = words(example.replace('<%= config.bin %> ', ''))
      if ('dry-run' in flagsOf(id) && !argv.includes('--dry-run')) argv.push('--dry-run')
      return {example, argv}
    }),
  )

describe('every --help example of the vm commands runs as a dry run against the TPU fake', () => {
  it.each(vmExamples)('$example', async ({argv}) => {
    const {result, changes} = await changesOf(argv)
    expect(result.stderr).not.toMatch(/^Error/m)
    expect(result.code).toBe(0)
    expect(changes).toEqual([])
  })
})
