// Issue 17, "every check before the first change": the built CLI against the wire fakes (FakeGke, FakeKube, FakeTpu,
// and real sshd for the one `vm run` that goes through). Every input a command reads is read and checked before the
// plan is shown and before any request that changes something: each refused input below exits 2, names its flag (or
// file), is never "a bug in xpk", and leaves the fakes without a single mutating request.
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {PATH_KINDS} from '../../src/cli/flag-kinds.js'
import {COMMANDS} from '../../src/index.js'
import {USER_MANIFESTS} from '../builders/storage.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube} from '../fakes/fake-kube.js'
import {FakeTpu} from '../fakes/fake-tpu.js'
import {isolatedEnv, runCli, type CliResult} from '../helpers/cli.js'
import {markRequests, mutationsSince, type WireFakes} from '../helpers/mutations.js'
import {sshdMissing, SshWorkers} from '../helpers/sshd.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, seedDemoCluster, startKubeAndGke} from '../helpers/wire-fakes.js'

const TPU_PROJECT = 'run-project'
const ZONE = 'us-central2-b'
let gke: FakeGke
let kube: FakeKube
let tpu: FakeTpu
let fakes: WireFakes
let files: string

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    seedDemoCluster(gke, 'my-project', 1)
    tpu = wire.add(await FakeTpu.start({stepMs: 20}))
    tpu.seedNode(TPU_PROJECT, ZONE, 'demo', {
      acceleratorType: 'v4-8',
      networkEndpoints: [{ipAddress: '127.0.0.1', port: 8470}],
      metadata: {'ssh-keys': 'someone:ssh-ed25519 AAAA someone'},
    })
    fakes = {gke, kube, tpu}
  },
  {reset: false},
)
beforeAll(() => {
  files = tempDir('xpk-checks-first-')
  mkdirSync(join(files, 'a-directory'))
  writeFileSync(join(files, 'a-file'), 'just a file\n')
  // A good storage manifest, for `storage attach` when another of its path flags is under test.
  writeFileSync(join(files, 'pd.yaml'), USER_MANIFESTS.pd)
  writeFileSync(join(files, 'binary'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2]))
  writeFileSync(join(files, 'text-garbage'), '{{{ not: [valid\n')
  writeFileSync(
    join(files, 'not-a-manifest.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n- a list\n',
  )
  mkdirSync(join(files, 'cwd'))
  writeFileSync(join(files, 'cwd', 'train.py'), 'print(1)\n')
})

const env = (extra: Record<string, string> = {}) =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_TPU_ENDPOINT: `http://${tpu.endpoint}`,
    XPK_ACCESS_TOKEN: kube.token,
    ...extra,
  })

/** Runs the CLI and returns its result with the mutating requests it sent to any fake. */
async function run(
  argv: readonly string[],
  extra: Record<string, string> = {},
  cwd = join(files, 'cwd'),
): Promise<CliResult & {mutations: string[]}> {
  const mark = markRequests(fakes)
  const result = await runCli(argv, {env: env(extra), cwd})
  return {...result, mutations: mutationsSince(fakes, mark)}
}

/** The refusal every test below expects: exit 2, the flag (or file) named, no "bug", nothing changed. */
function expectRefused(result: CliResult & {mutations: string[]}, named: string | RegExp): void {
  expect(result.stderr).not.toContain('This is a bug in xpk')
  expect(result.stderr).toMatch(typeof named === 'string' ? new RegExp(escapeRegExp(named)) : named)
  expect(result.code, result.stderr).toBe(2)
  expect(result.mutations).toEqual([])
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

type CommandId = keyof typeof COMMANDS
const target = ['--project', 'my-project', '--zone', ZONE]

/**
 * For each command with a path flag: arguments that are otherwise valid, so that with a good value the command
 * would go on to change something (or read, for the read-only ones). `flag` is the path flag about to be tried.
 */
const BASE_ARGS: Partial<Record<CommandId, (flag: string) => string[]>> = {
  'cluster:adapt': () => [...target, '--cluster', 'demo', '--force'],
  'cluster:create': () => [...target, '--cluster', 'fresh', '--tpu-type', 'v5p-8', '--on-demand', '--force'],
  'cluster:create-pathways': () => [...target, '--cluster', 'fresh', '--tpu-type', 'v5p-8', '--on-demand', '--force'],
  'cluster:create-ray': () => [
    ...[...target, '--cluster', 'fresh', '--tpu-type', 'v5p-8', '--on-demand', '--ray-version', '2.38.0', '--force'],
  ],
  'cluster:describe': () => [...target, '--cluster', 'demo'],
  doctor: () => [...target],
  'cluster:cacheimage': () => [...target, '--cluster', 'demo', '--tpu-type', 'v5p-8', '--docker-image', 'python:3.12'],
  'workload:create': (flag) => [
    ...[...target, '--cluster', 'demo', '--workload', 'w1', '--tpu-type', 'v5p-8', '--command', 'true'],
    ...(flag === 'script-dir' ? [] : ['--docker-image', 'python:3.12']),
  ],
  'workload:create-pathways': (flag) => [
    ...[...target, '--cluster', 'demo', '--workload', 'w1', '--tpu-type', 'v5p-8', '--command', 'true'],
    ...(flag === 'script-dir' ? [] : ['--docker-image', 'python:3.12']),
  ],
  'workload:delete': () => [...target, '--cluster', 'demo', '--workload', 'w1', '--force'],
  'workload:list': () => [...target, '--cluster', 'demo'],
  'storage:list': () => [...target, '--cluster', 'demo'],
  'storage:detach': () => [...target, '--cluster', 'demo', 'datasets', '--force'],
  'storage:delete': () => [...target, '--cluster', 'demo', 'home', '--force'],
  'storage:create': () => [
    ...[...target, '--cluster', 'demo', 'scratch', '--type', 'gcpfilestore', '--size', '1024', '--tier', 'BASIC_HDD'],
    ...['--auto-mount', 'false', '--mount-point', '/scratch', '--readonly', 'false', '--force'],
  ],
  'storage:attach': (flag) => [
    ...[...target, '--cluster', 'demo', 'scratch', '--type', 'pd', '--force'],
    ...(flag === 'manifest' ? [] : ['--manifest', join(files, 'pd.yaml')]),
    ...['--auto-mount', 'false', '--mount-point', '/scratch', '--readonly', 'false'],
  ],
  'workload:logs': () => ['w1', ...target, '--cluster', 'demo'],
  'workload:why': () => ['w1', ...target, '--cluster', 'demo'],
  'workload:describe': () => ['w1', ...target, '--cluster', 'demo'],
  queue: () => [...target, '--cluster', 'demo', '--once'],
  info: () => [...target, '--cluster', 'demo'],
  inspector: () => [...target, '--cluster', 'demo', '--workload', 'w1'],
  'vm:job:create': (flag) => [
    ...['--project', TPU_PROJECT, '--zone', ZONE],
    ...(flag === 'config' ? [] : ['--tpu-type', 'v4-8', '--command', 'true']),
  ],
  'vm:run': () => ['--project', TPU_PROJECT, '--zone', ZONE, '--tpu-prefix', 'demo', '--command', 'true', '--force'],
}

/** The bad values tried on every flag of each path kind. */
const BAD_VALUES: Record<keyof typeof PATH_KINDS, {what: string; value: () => string}[]> = {
  file: [
    {what: 'missing', value: () => join(files, 'missing')},
    {what: 'a directory', value: () => join(files, 'a-directory')},
    {what: 'a device', value: () => '/dev/zero'},
    {what: 'below a file', value: () => join(files, 'a-file', 'below')},
    {what: 'binary garbage', value: () => join(files, 'binary')},
    {what: 'text garbage', value: () => join(files, 'text-garbage')},
  ],
  directory: [
    {what: 'missing', value: () => join(files, 'missing')},
    {what: 'a file', value: () => join(files, 'a-file')},
    {what: 'below a file', value: () => join(files, 'a-file', 'below')},
  ],
  'output-file': [
    {what: 'a directory', value: () => join(files, 'a-directory')},
    {what: 'in a missing directory', value: () => join(files, 'missing', 'out.yaml')},
    {what: 'a device', value: () => '/dev/null'},
  ],
  manifest: [
    {what: 'missing', value: () => '/missing.yaml'},
    {what: 'a directory', value: () => join(files, 'a-directory')},
    {what: 'binary garbage', value: () => join(files, 'binary')},
    {what: 'text garbage (not YAML)', value: () => join(files, 'text-garbage')},
    {what: 'YAML that is not the release', value: () => join(files, 'not-a-manifest.yaml')},
    {what: 'a file:// URL of a missing file', value: () => 'file:///missing.yaml'},
    {what: 'a file:// URL on another host', value: () => 'file://other-host/jobset.yaml'},
    {what: 'plain http:// off loopback', value: () => 'http://mirror.example/jobset.yaml'},
    {what: 'another scheme', value: () => 'ftp://mirror.example/jobset.yaml'},
    {what: 'an http:// URL that is not found', value: () => `http://${gke.endpoint}/no/such/manifest.yaml`},
  ],
}

const KINDS = Object.fromEntries(Object.entries(PATH_KINDS).map(([kind, help]) => [help, kind])) as Record<
  string,
  keyof typeof PATH_KINDS
>

const pathFlags = (Object.keys(COMMANDS) as CommandId[]).flatMap((id) =>
  Object.entries((COMMANDS[id] as unknown as {flags?: Record<string, {helpValue?: string}>}).flags ?? {})
    .filter(([, def]) => def.helpValue !== undefined && def.helpValue in KINDS)
    .map(([name, def]) => ({id, name, kind: KINDS[def.helpValue!]!})),
)

describe('every path flag of every command is checked before anything changes', () => {
  it('finds the path flags from the command definitions, and every one has a base command line', () => {
    const found = pathFlags.map((f) => `${f.id} --${f.name}`)
    for (const expected of [
      'cluster:create --jobset-manifest',
      'cluster:create --kueue-manifest',
      'cluster:create --kubeconfig',
      'workload:create --env-file',
      'workload:create --script-dir',
      'workload:create --output-manifest-file',
      'vm:run --script-dir',
      'vm:run --log-dir',
    ])
      expect(found).toContain(expected)
    for (const f of pathFlags) expect(BASE_ARGS[f.id], `${f.id} has no base arguments`).toBeDefined()
  })

  it('declares every option flag that names a file, directory or manifest with pathFlag', () => {
    const undeclared = (Object.keys(COMMANDS) as CommandId[]).flatMap((id) =>
      Object.entries(
        (COMMANDS[id] as unknown as {flags?: Record<string, {type: string; helpValue?: string}>}).flags ?? {},
      )
        // A place in a bucket (`vm job create --bucket-dir`, multihost_job's BUCKET_DIR) is not a local path.
        .filter(([name]) => !name.startsWith('bucket-'))
        .filter(([name, def]) => def.type === 'option' && /(^|-)(file|dir|manifest|kubeconfig)(-|$)|ssh-key/.test(name))
        .filter(([, def]) => !(def.helpValue !== undefined && def.helpValue in KINDS))
        .map(([name]) => `${id} --${name}`),
    )
    expect(undeclared).toEqual([])
  })

  // Every bad value of its kind on the first command that has a flag; on each further command with the same flag
  // (--kubeconfig is on thirteen), one of them in turn: what is checked is the flag's one check, what each command
  // adds is when it runs it (before anything changes).
  const seen = new Map<string, number>()
  const cases = pathFlags.flatMap((f) => {
    const bad = BAD_VALUES[f.kind]
    const turn = seen.get(f.name)
    seen.set(f.name, (turn ?? -1) + 1)
    return (turn === undefined ? bad : [bad[turn % bad.length]!]).map((value) => ({...f, ...value}))
  })
  it.each(cases)('$id --$name $what: exit 2 naming the flag, nothing changed', async ({id, name, value}) => {
    const argv = [...id.split(':'), ...BASE_ARGS[id]!(name), `--${name}`, value()]
    expectRefused(await run(argv), `--${name}`)
  })
})

describe('values GKE or Kubernetes would refuse are refused by the plan, offline and before any change', () => {
  const cluster = ['cluster', 'create', ...target, '--cluster', 'fresh', '--tpu-type', 'v5p-8', '--on-demand']
  const workload = ['workload', 'create', ...target, '--cluster', 'demo', '--workload', 'w1', '--command', 'true']
  const image = ['--docker-image', 'python:3.12']
  const cases: {case: string; argv: string[]; flag: string}[] = [
    {
      case: 'a machine type of no CPU family',
      argv: [...cluster, '--default-pool-cpu-machine-type', 'foo-standard-8'],
      flag: '--default-pool-cpu-machine-type',
    },
    {
      case: 'not a machine type',
      argv: [...cluster, '--default-pool-cpu-machine-type', 'fast'],
      flag: '--default-pool-cpu-machine-type',
    },
    {
      case: 'max pods beyond the flag range in the custom arguments',
      argv: [...cluster, '--custom-nodepool-arguments=--max-pods-per-node=9999'],
      flag: '--custom-nodepool-arguments',
    },
    {
      case: 'a boot disk GKE does not make',
      argv: [...cluster, '--custom-tpu-nodepool-arguments=--disk-size=5'],
      flag: '--custom-tpu-nodepool-arguments',
    },
    {
      case: 'a private endpoint without --private',
      argv: [...cluster, '--enable-private-endpoint'],
      flag: '--enable-private-endpoint',
    },
    {
      case: 'a private endpoint subnetwork without --private',
      argv: [...cluster, '--private-endpoint-subnetwork', 'cp'],
      flag: '--private-endpoint-subnetwork',
    },
    {
      case: "GPU's topology-aware scheduler on TPU",
      argv: [...workload, '--tpu-type', 'v5p-8', ...image, '--scheduler', 'gke.io/topology-aware-auto'],
      flag: '--scheduler',
    },
    {
      case: 'a scheduler no xpk cluster has, on CPU',
      argv: [...workload, '--device-type', 'n2-standard-32-4', ...image, '--scheduler', 'volcano'],
      flag: '--scheduler',
    },
    {
      case: 'a scheduler no GPU cluster has',
      argv: [...workload, '--device-type', 'l4-1', ...image, '--scheduler', 'volcano'],
      flag: '--scheduler',
    },
  ]
  it.each(cases)('$case: refused with --dry-run --offline', async ({argv, flag}) => {
    expectRefused(await run([...argv, '--dry-run', '--offline']), flag)
  })
  it.each(cases)('$case: refused before any change when applied', async ({argv, flag}) => {
    expectRefused(await run([...argv, '--force']), flag)
  })
})

describe('TPU VM inputs are checked before anything is sent', () => {
  const vmRun = ['vm', 'run', '--project', TPU_PROJECT, '--zone', ZONE, '--tpu-prefix', 'demo', '--command', 'true']
  it.each([
    ['root;id', '--ssh-user'],
    ['-oProxyCommand=id', '--ssh-user'],
    ['me\nroot:ssh-ed25519 AAAA evil', '--ssh-user'],
    ['Me', '--ssh-user'],
    ['me:x', '--ssh-user'],
  ])('vm run --ssh-user %j is refused', async (user, flag) => {
    expectRefused(await run([...vmRun, '--ssh-user', user, '--force']), flag)
  })

  it('a $USER that is not a user name is refused naming --ssh-user and $USER', async () => {
    expectRefused(await run([...vmRun, '--force'], {USER: 'John Doe'}), /--ssh-user \(default: \$USER\) "John Doe"/)
  })

  it('--use-existing-folder with --script-dir is an error, not a silent choice', async () => {
    expectRefused(
      await run([...vmRun, '--use-existing-folder', '--script-dir', '.']),
      /--script-dir.*--use-existing-folder|--use-existing-folder.*--script-dir/,
    )
  })

  it.each([
    [
      'a directory',
      (home: string) => mkdirSync(join(home, '.ssh', 'google_compute_engine'), {recursive: true}),
      /google_compute_engine cannot be used: it is a directory/,
    ],
    [
      'garbage',
      (home: string) => {
        mkdirSync(join(home, '.ssh'))
        writeFileSync(join(home, '.ssh', 'google_compute_engine'), 'garbage\n')
        writeFileSync(join(home, '.ssh', 'google_compute_engine.pub'), 'ssh-ed25519 AAAA me\n')
      },
      /google_compute_engine cannot be used: it is not an SSH private key/,
    ],
  ])('a key path that is %s is refused', async (_, make, message) => {
    const home = tempDir('xpk-home-')
    make(home)
    expectRefused(await run([...vmRun, '--force'], {HOME: home}), message)
  })

  it('without --script-dir and without a terminal, a current directory holding .git stops naming --force', async () => {
    const cwd = tempDir('xpk-repo-')
    mkdirSync(join(cwd, '.git'))
    writeFileSync(join(cwd, '.git', 'HEAD'), 'ref: refs/heads/main\n')
    const result = await run(vmRun, {}, cwd)
    expectRefused(result, /contains \.git; all of it would be copied to every worker/)
    expect(result.stderr).toContain('--force')
    expect(result.stderr).toContain(`Packing the current directory ${cwd} (no --script-dir given)`)
  })

  it.each([
    [['vm', 'list', '--tpu-prefix', 'Bad_P'], '--tpu-prefix'],
    [['vm', 'delete', '--tpu-prefix', 'Bad_P', '--force'], '--tpu-prefix'],
    [['vm', 'delete', '--tpu-prefix', 'demo', '--queued-resource-id', '../x', '--force'], '--queued-resource-id'],
  ])('%j is refused', async (argv, flag) => {
    const before = tpu.calls.length
    expectRefused(await run([...argv, '--project', TPU_PROJECT, '--zone', ZONE]), flag)
    expect(tpu.calls.length).toBe(before)
  })
})

const missing = sshdMissing()
describe.skipIf(missing)('the same vm run goes through once the inputs are fine (real sshd)', () => {
  let ssh: SshWorkers
  let runTpu: FakeTpu
  beforeAll(async () => {
    ssh = await SshWorkers.start(1)
    runTpu = await FakeTpu.start({
      stepMs: 20,
      onMetadata: (_id, metadata) => ssh.authorize([0], metadata['ssh-keys'] ?? ''),
    })
    runTpu.seedNode(TPU_PROJECT, ZONE, 'solo', {
      acceleratorType: 'v4-8',
      networkEndpoints: [{ipAddress: ssh.workers[0].host, port: 8470}],
    })
  }, 60_000)
  afterAll(async () => {
    await runTpu?.stop()
    await ssh?.stop()
  })

  it('--force copies a current directory holding .git, and the command runs', async () => {
    const cwd = tempDir('xpk-repo-')
    mkdirSync(join(cwd, '.git'))
    writeFileSync(join(cwd, 'train.sh'), 'echo trained\n')
    const home = tempDir('xpk-home-')
    const result = await runCli(
      [
        'vm',
        'run',
        '--project',
        TPU_PROJECT,
        '--zone',
        ZONE,
        '--tpu-prefix',
        'solo',
        '--command',
        'bash train.sh',
      ].concat(['--ssh-port', String(ssh.port), '--ssh-user', ssh.user, '--log-dir', tempDir('xpk-logs-'), '--force']),
      {env: env({XPK_TPU_ENDPOINT: `http://${runTpu.endpoint}`, HOME: home, XDG_CONFIG_HOME: join(home, 'xdg')}), cwd},
    )
    expect(result.stderr).not.toContain('This is a bug in xpk')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('trained')
    expect(runTpu.mutatingCalls().map((c) => c.method)).toEqual(['UpdateNode'])
  })
})
