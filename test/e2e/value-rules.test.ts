// Issue 17, class 2: a value given is the value meant, and nothing unsafe reaches a remote system. The built CLI
// against the wire fakes (GKE, Kubernetes, Cloud TPU, Compute Engine): every option flag of every command (from the
// command definitions) given a value the shape rule refuses, every XPK_* variable given a bad value, every endpoint
// without a scheme or host, bad config files; each is exit 2 naming what to fix, and none sent a mutating request
// (test/helpers/mutations.ts). Each command's other flags would change something if the bad value got through
// (cluster delete --force, vm create, workload create with an image, ...).
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ENVIRONMENT, type VariableDefinition} from '../../src/core/environment.js'
import type {ValueShape} from '../../src/core/input.js'
import {COMMANDS} from '../../src/index.js'
import {FakeCompute} from '../fakes/fake-compute.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube} from '../fakes/fake-kube.js'
import {FakeTpu} from '../fakes/fake-tpu.js'
import {isolatedEnv, runCli, type CliResult} from '../helpers/cli.js'
import {markRequests, mutationsSince, type WireFakes} from '../helpers/mutations.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, seedDemoCluster, startKubeAndGke} from '../helpers/wire-fakes.js'

type CommandId = keyof typeof COMMANDS
type Definition = {type: 'option' | 'boolean'; valueShape?: ValueShape; multiple?: boolean}

let gke: FakeGke
let kube: FakeKube
let tpu: FakeTpu
let compute: FakeCompute
let fakes: WireFakes

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    seedDemo()
    tpu = wire.add(await FakeTpu.start())
    compute = wire.add(await FakeCompute.start())
    fakes = {gke, kube, tpu, compute}
  },
  {reset: false},
)
beforeAll(async () => {
  // The check has teeth: the same command with good values sends the request the refused ones must not. Run first,
  // alone: the refusals run side by side, so a mutation in any of them would show in every window open then.
  const sure = await attempt(BASE_DELETE)
  expect([sure.code, sure.mutations]).toEqual([0, ['gke SetLabels', 'gke DeleteCluster']])
  seedDemo()
  start = markRequests(fakes)
})
afterAll(async () => {
  // And over the whole run: not one mutating request since.
  if (fakes) expect(mutationsSince(fakes, start)).toEqual([])
})

let start: ReturnType<typeof markRequests>
function seedDemo(): void {
  seedDemoCluster(gke, 'my-project', 3)
}

const env = (extra: Record<string, string | undefined> = {}) =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_COMPUTE_ENDPOINT: compute.endpoint,
    XPK_TPU_ENDPOINT: `http://${tpu.endpoint}`,
    // No fake of these here: a closed port on loopback, so nothing could reach Google if a refusal failed.
    XPK_FILESTORE_ENDPOINT: 'http://127.0.0.1:9',
    XPK_STORAGE_ENDPOINT: 'http://127.0.0.1:9',
    XPK_RESOURCE_MANAGER_ENDPOINT: 'http://127.0.0.1:9',
    XPK_SERVICE_USAGE_ENDPOINT: 'http://127.0.0.1:9',
    XPK_ACCESS_TOKEN: kube.token,
    XPK_PROJECT: 'my-project',
    XPK_ZONE: 'us-central2-b',
    ...extra,
  })

/**
 * What each command runs with besides the flag under test: a complete command that changes something where the
 * command can (so a bad value that got through would show as a mutating request).
 */
const BASE: Record<CommandId, string[]> = {
  'accelerator:describe': ['v5p-8'],
  'accelerator:list': [],
  'cluster:adapt': ['--cluster', 'demo', '--force'],
  'cluster:cacheimage': ['--cluster', 'demo', '--tpu-type', 'v5p-8', '--docker-image', 'python:3.10'],
  'cluster:create': ['--cluster', 'demo', '--tpu-type', 'v5p-8', '--on-demand', '--force'],
  'cluster:create-pathways': ['--cluster', 'demo', '--tpu-type', 'v5p-8', '--on-demand', '--force'],
  'cluster:create-ray': [
    '--cluster',
    'demo',
    '--tpu-type',
    'v5p-8',
    '--on-demand',
    '--ray-version',
    '2.38.0',
    '--force',
  ],
  'cluster:delete': ['--cluster', 'demo', '--force'],
  'cluster:describe': ['--cluster', 'demo'],
  'cluster:list': [],
  'config:get': ['zone'],
  'config:list': [],
  'config:set': ['zone', 'us-central2-b'],
  'config:unset': ['zone'],
  doctor: ['--cluster', 'demo', '--tpu-type', 'v5p-8'],
  'storage:attach': [
    ...['scratch', '--cluster', 'demo', '--type', 'gcpfilestore', '--instance', 'fs-1', '--vol', 'v1'],
    ...['--auto-mount', 'false', '--mount-point', '/scratch', '--readonly', 'false', '--force'],
  ],
  'storage:create': [
    ...['scratch', '--cluster', 'demo', '--type', 'gcpfilestore', '--instance', 'fs-1', '--vol', 'v1'],
    ...[
      '--size',
      '1024',
      '--tier',
      'ZONAL',
      '--auto-mount',
      'false',
      '--mount-point',
      '/scratch',
      '--readonly',
      'false',
    ],
    '--force',
  ],
  info: ['--cluster', 'demo'],
  inspector: ['--cluster', 'demo', '--workload', 'w'],
  'storage:delete': ['scratch', '--cluster', 'demo', '--force'],
  'storage:detach': ['scratch', '--cluster', 'demo', '--force'],
  'storage:list': ['--cluster', 'demo'],
  version: [],
  queue: ['--cluster', 'demo', '--once'],
  'vm:create': ['--tpu-prefix', 'p', '--tpu-type', 'v4-8'],
  'vm:delete': ['--tpu-prefix', 'p', '--force'],
  'vm:job:create': ['--tpu-type', 'v4-8', '--command', 'true'],
  'vm:job:delete': ['7', '--force'],
  'vm:job:list': [],
  'vm:job:logs': ['7'],
  'vm:job:resume': ['7'],
  'vm:job:ssh': ['7'],
  'vm:job:stop': ['7'],
  'vm:job:supervise': ['7'],
  'vm:list': [],
  'vm:run': ['--tpu-prefix', 'p', '--command', 'true', '--force'],
  'workload:create': [
    ...['--cluster', 'demo', '--workload', 'w', '--tpu-type', 'v5p-8', '--command', 'true'],
    ...['--docker-image', 'python:3.10'],
  ],
  'workload:create-pathways': [
    ...['--cluster', 'demo', '--workload', 'w', '--tpu-type', 'v5p-8', '--command', 'true'],
    ...['--docker-image', 'python:3.10'],
  ],
  'workload:delete': ['--cluster', 'demo', '--workload', 'w'],
  'workload:list': ['--cluster', 'demo'],
  'workload:logs': ['--cluster', 'demo', 'w'],
  'workload:why': ['--cluster', 'demo', 'w'],
  'workload:describe': ['--cluster', 'demo', 'w'],
}

/** The base command with `--name value` in place of the base's own value of that flag, if it has one. */
function withFlag(id: CommandId, name: string, value: string): string[] {
  const argv = [...BASE[id]]
  const at = argv.indexOf(`--${name}`)
  if (at >= 0) argv.splice(at, 2)
  return [...id.split(':'), ...argv, `--${name}`, value]
}

const ids = Object.keys(COMMANDS) as CommandId[]
function flagsOf(id: CommandId): Record<string, Definition> {
  const cmd = COMMANDS[id] as unknown as {flags?: Record<string, Definition>; baseFlags?: Record<string, Definition>}
  return {...cmd.baseFlags, ...cmd.flags}
}

/** The values each shape refuses, with the words the message holds. */
function refused(shape: ValueShape): {value: string; why: string}[] {
  if (shape === 'text') return []
  const good = shape === 'integer' ? '1' : shape === 'list' ? 'a,b' : 'a'
  const out = [
    {value: ` ${good}`, why: 'starts with white space'},
    {value: `${good} `, why: 'ends with white space'},
    {value: `${good}\nx-injected`, why: 'line break'},
  ]
  if (shape === 'integer') out.push({value: '+1', why: 'has a plus sign'})
  if (shape === 'list') out.push({value: 'a,,b', why: 'has an empty item'})
  return out
}

/**
 * One defect per flag through the process, taking each shape's defects in turn from flag to flag, so every defect
 * of every shape goes through the built CLI many times. Every flag with every defect is checked in process by
 * test/cli/value-rules.test.ts (the same parse, in a twentieth of the time); here it is the wiring: exit 2 and
 * nothing sent.
 */
const turns: Partial<Record<ValueShape, number>> = {}
const flagCases = ids
  .flatMap((id) =>
    Object.entries(flagsOf(id))
      .filter(([, def]) => def.type === 'option' && refused(def.valueShape ?? 'word').length > 0)
      .map(([name, def]) => ({id, name, shape: def.valueShape ?? 'word'})),
  )
  .map(({id, name, shape}) => {
    const defects = refused(shape)
    const turn = (turns[shape] = (turns[shape] ?? -1) + 1)
    // From the last defect back: the shape's own (a sign, an empty item) first, since a shape may have few flags.
    const {value, why} = defects[defects.length - 1 - (turn % defects.length)]!
    return {id, name, value, why, shown: JSON.stringify(value)}
  })

/** Runs the CLI and returns what it did, with the mutating requests it sent to any fake. */
async function attempt(argv: string[], extraEnv: Record<string, string | undefined> = {}, configYaml?: string) {
  const runEnv = env(extraEnv)
  const configFile = join(runEnv.XDG_CONFIG_HOME!, 'xpk', 'config.yaml')
  if (configYaml !== undefined) {
    mkdirSync(join(runEnv.XDG_CONFIG_HOME!, 'xpk'), {recursive: true})
    writeFileSync(configFile, configYaml)
  }
  const mark = markRequests(fakes)
  const started = Date.now()
  const result: CliResult = await runCli(argv, {env: runEnv, cwd: tempDir('xpk-cwd-'), timeoutMs: 30_000})
  const config = existsSync(configFile) ? readFileSync(configFile, 'utf8') : undefined
  return {...result, mutations: mutationsSince(fakes, mark), ms: Date.now() - started, config}
}

/** A refusal as the rule wants it: exit 2 at once, the culprit named, the value never echoed raw, nothing changed. */
function expectRefused(outcome: Awaited<ReturnType<typeof attempt>>, named: string, why: string) {
  expect(outcome.stderr).toContain(named)
  expect(outcome.stderr).toContain(why)
  expect(outcome.code).toBe(2)
  expect(outcome.mutations).toEqual([])
  // A line break in a value is shown as \n: no line of the output starts with what followed it.
  expect(outcome.stderr).not.toMatch(/^x-injected/m)
  // eslint-disable-next-line no-control-regex
  expect(outcome.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
}

describe.concurrent(
  'every option flag of every command: a value that breaks its shape is refused, nothing sent',
  () => {
    it('covers every option flag that is not free text, with each defect', () => {
      expect(new Set(flagCases.map((c) => `${c.id} --${c.name}`)).size).toBeGreaterThan(70)
      // Every defect goes through the process, for integers and lists too.
      const whys = new Set(flagCases.map((c) => c.why))
      for (const why of ['starts with white space', 'ends with white space', 'line break', 'has a plus sign'])
        expect(whys).toContain(why)
      expect(whys).toContain('has an empty item')
    })

    it.each(flagCases)('xpk $id --$name $shown: $why', async ({id, name, value, why}) => {
      expectRefused(await attempt(withFlag(id, name, value)), `--${name} "`, why)
    })
  },
)

describe.concurrent('arguments follow the same rule', () => {
  const cases = [
    {argv: ['accelerator', 'describe', ' v5p-8'], why: 'starts with white space'},
    {argv: ['config', 'set', 'zone', 'us-central2-b '], why: 'ends with white space'},
    {argv: ['config', 'set', 'zone\nx-injected', 'us-central2-b'], why: 'line break'},
    {argv: ['workload', 'logs', '--cluster', 'demo', 'w\nx-injected'], why: 'line break'},
  ]
  it.each(cases)('xpk $argv: $why', async ({argv, why}) => {
    const outcome = await attempt(argv)
    expectRefused(outcome, 'The argument ', why)
    expect(outcome.config).toBeUndefined()
  })

  it('a stray argument to a command that takes one says which it takes', async () => {
    const outcome = await attempt(['accelerator', 'describe', 'v5p-8', 'v5p-16'])
    expectRefused(outcome, 'Unexpected argument "v5p-16"', 'takes one argument, TYPE, and flags')
    expect(outcome.stderr).not.toContain('flags only')
  })
})

const BASE_DELETE = ['cluster', 'delete', '--cluster', 'demo', '--force']
const variables = Object.entries(ENVIRONMENT as Record<string, VariableDefinition>)
/**
 * Empty, and two of the other bad integers in turn from variable to variable, through the process; every integer
 * variable with every bad value is checked in process (test/core/environment.test.ts, test/core/timing.test.ts).
 */
let integerTurn = 0
function badIntegers(max: number): string[] {
  const others = ['abc', '+5', ' 5', '5 ', '0x10', String(max + 1)]
  const turn = integerTurn++
  return ['', others[(2 * turn) % others.length]!, others[(2 * turn + 1) % others.length]!]
}
const variableCases = variables.flatMap(([name, def]) => {
  const values =
    def.kind === 'integer'
      ? badIntegers(def.range!.max)
      : def.kind === 'endpoint' || name.endsWith('_ENDPOINT')
        ? ['', 'tpu.googleapis.com', 'https://', 'http://example.com', 'https://u:s3cret@example.com/']
        : def.kind === 'token'
          ? ['', ' tok', 'tok\n']
          : def.kind === 'setting'
            ? ['', ' value', 'value ']
            : []
  // A vm command for the TPU endpoint, cluster delete --force for the rest: both change things if they run. A
  // setting's variable is used only without its flag, so the cluster comes from XPK_CLUSTER there.
  const argv =
    name === 'XPK_TPU_ENDPOINT' ? ['vm', 'delete', '--tpu-prefix', 'p', '--force'] : ['cluster', 'delete', '--force']
  const extra = name === 'XPK_CLUSTER' ? {} : {XPK_CLUSTER: 'demo'}
  return values.map((value) => ({name, value, argv, extra, shown: JSON.stringify(value)}))
})

describe.concurrent('every XPK_* variable: a bad or empty value is refused by name, nothing sent', () => {
  it('covers every variable xpk checks', () => {
    const covered = new Set(variableCases.map((c) => c.name))
    for (const [name, def] of variables) if (def.kind !== 'standard') expect(covered).toContain(name)
  })

  it.each(variableCases)('$name=$shown', async ({name, value, argv, extra}) => {
    const outcome = await attempt(argv, {...extra, [name]: value})
    expect(outcome.stderr).toContain(name)
    expect(outcome.code).toBe(2)
    expect(outcome.mutations).toEqual([])
    expect(outcome.stderr).not.toContain('s3cret')
    // Refused before any retry: not 36 s of retries against a host that cannot be reached.
    expect(outcome.ms).toBeLessThan(15_000)
  })

  it('an empty XPK_ACCESS_TOKEN names it, not "no Google credentials"', async () => {
    const outcome = await attempt(['cluster', 'list'], {XPK_ACCESS_TOKEN: ''})
    expect(outcome.stderr).toContain('XPK_ACCESS_TOKEN is set but empty')
    expect(outcome.stderr).not.toMatch(/credentials were found|no Google credentials/i)
    expect(outcome.code).toBe(2)
  })
})

describe.concurrent(
  'endpoint flags: no scheme, no host, credentials or plain http elsewhere are refused at once',
  () => {
    const cases = [
      ['cluster', 'list', '--gke-endpoint'],
      ['cluster', 'create', '--cluster', 'demo', '--tpu-type', 'tpu7x-16', '--spot', '--force', '--compute-endpoint'],
      ['vm', 'list', '--tpu-endpoint'],
    ].flatMap((argv) =>
      [
        ['container.googleapis.com', 'no scheme'],
        ['localhost:8080', 'no scheme'],
        ['https://', 'no host'],
        ['https:///v1', 'no host'],
        ['http://example.com', 'only allowed on loopback'],
        ['https://admin:s3cret@example.com', 'credentials'],
      ].map(([value, why]) => ({argv: [...argv, value!], flag: argv[argv.length - 1]!, why: why!})),
    )
    it.each(cases)('$argv: $why', async ({argv, flag, why}) => {
      const outcome = await attempt(argv)
      expectRefused(outcome, flag, why)
      expect(outcome.stderr).not.toContain('s3cret')
      expect(outcome.ms).toBeLessThan(15_000)
    })
  },
)

describe('config files', () => {
  it.each([
    ['an empty file', ''],
    ['comments only', '# nothing yet\n'],
    ['configs: with no value', 'version: v1\nconfigs:\n'],
  ])('%s means no settings: commands run', async (_name, yaml) => {
    const outcome = await attempt(
      ['cluster', 'create', '--cluster', 'c', '--tpu-type', 'v5p-8', '--on-demand', '--dry-run', '--offline'],
      {},
      yaml,
    )
    expect(outcome.stderr).not.toMatch(/^Error/m)
    expect(outcome.code).toBe(0)
    const list = await attempt(['config', 'list', '--json'], {XPK_PROJECT: undefined, XPK_ZONE: undefined}, yaml)
    expect(list.code).toBe(0)
    expect(JSON.parse(list.stdout).every((e: {source: string}) => e.source !== 'config')).toBe(true)
  })

  it('config set keeps comments and the keys it does not know', async () => {
    const yaml =
      '# mine\nversion: v1\nconfigs:\n  # billing\n  project: old-project  # keep\n  send-telemetry: "false"\n'
    const outcome = await attempt(['config', 'set', 'zone', 'us-east5-a'], {}, yaml)
    expect(outcome.code).toBe(0)
    expect(outcome.config).toBe(`${yaml}  zone: us-east5-a\n`)
  })

  it.each([
    ['configs: 5', 'version: v1\nconfigs: 5\n', ':2: "configs" should be a mapping'],
    ['a list', '# list\nconfigs:\n  - zone\n', ':3: "configs" should be a mapping'],
  ])('config set refuses to rewrite %s, naming the file and line; the file is unchanged', async (_n, yaml, why) => {
    const outcome = await attempt(['config', 'set', 'zone', 'us-east5-a'], {}, yaml)
    expectRefused(outcome, 'config.yaml', why)
    expect(outcome.config).toBe(yaml)
  })

  it.each([
    ['zone: " us-central2-b"', 'zone', 'starts with white space'],
    ['cluster: "demo "', 'cluster', 'ends with white space'],
    ['gke-endpoint: container.googleapis.com', 'gke-endpoint', 'no scheme'],
  ])('a saved %s is refused naming xpk config, nothing sent', async (line, key, why) => {
    const yaml = key === 'cluster' ? `configs:\n  ${line}\n` : `configs:\n  cluster: demo\n  ${line}\n`
    const outcome = await attempt(
      ['cluster', 'delete', '--force'],
      {XPK_ZONE: undefined, XPK_GKE_ENDPOINT: undefined},
      yaml,
    )
    expectRefused(outcome, `--${key} "`, why)
    expect(outcome.stderr).toContain('(from xpk config)')
  })
})
