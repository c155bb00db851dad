// Command tests check only what a command does: its flags (through camelCaseFlags, the one mapping every command
// uses) and its topic's wiring (src/cli/<topic>.ts: settings, timing, adapters) become the options of one service
// call. The services are replaced, so nothing runs and nothing is sent; settings come from the flags and an isolated
// environment (no xpk config, no gcloud configuration).
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'

import {DEFAULT_TIMING, readTiming} from '../../src/core/timing.js'
import {COMMANDS} from '../../src/index.js'
import {REPO_ROOT} from '../helpers/cli.js'
import {tempDir} from '../helpers/temp.js'

type CommandId = keyof typeof COMMANDS

const {calls, recorder} = vi.hoisted(() => {
  const calls: Array<{service: string; options: unknown; deps: unknown}> = []
  /** A service that records how it was called and answers `result`. */
  const recorder =
    (service: string, result: unknown = {}) =>
    async (...args: unknown[]) => {
      // (options, deps); the arguments before the deps are the options.
      calls.push({service, options: args.length > 2 ? args.slice(0, -1) : args[0], deps: args.at(-1)})
      return result
    }
  return {calls, recorder}
})

vi.mock('../../src/services/accelerators.js', () => ({
  listAccelerators: (options: unknown) => (calls.push({service: 'listAccelerators', options, deps: undefined}), []),
  describeAccelerator: (options: unknown) => (
    calls.push({service: 'describeAccelerator', options, deps: undefined}),
    {}
  ),
}))
vi.mock('../../src/services/version.js', () => ({
  versionReport: (...options: unknown[]) => (
    calls.push({service: 'versionReport', options, deps: undefined}),
    {report: {}, text: ''}
  ),
}))
vi.mock('../../src/services/config.js', () => ({
  getConfig: recorder('getConfig', {value: null}),
  listConfig: recorder('listConfig', []),
  setConfig: recorder('setConfig'),
  unsetConfig: recorder('unsetConfig'),
}))
vi.mock('../../src/services/cluster-create.js', () => ({createCluster: recorder('createCluster')}))
vi.mock('../../src/services/doctor.js', () => ({
  runDoctor: recorder('runDoctor', {checks: [], summary: {pass: 0, warn: 0, fail: 0}}),
}))
vi.mock('../../src/services/cluster-adapt.js', () => ({adaptCluster: recorder('adaptCluster')}))
vi.mock('../../src/services/cluster-delete.js', () => ({deleteCluster: recorder('deleteCluster')}))
vi.mock('../../src/services/cluster-read.js', () => ({
  listClusters: recorder('listClusters', []),
  describeCluster: recorder('describeCluster'),
}))
vi.mock('../../src/services/cluster-cacheimage.js', async (original) => ({
  ...(await original()),
  cacheImage: recorder('cacheImage'),
}))
vi.mock('../../src/services/workload-create.js', () => ({createWorkload: recorder('createWorkload')}))
vi.mock('../../src/services/workload-delete.js', async (original) => ({
  ...(await original()),
  deleteWorkloads: recorder('deleteWorkloads'),
}))
vi.mock('../../src/services/workload-list.js', () => ({listWorkloads: recorder('listWorkloads')}))
vi.mock('../../src/services/workload-logs.js', () => ({workloadLogs: recorder('workloadLogs')}))
vi.mock('../../src/services/workload-why.js', () => ({workloadWhy: recorder('workloadWhy')}))
vi.mock('../../src/services/queue-view.js', () => ({viewQueue: recorder('viewQueue')}))
vi.mock('../../src/services/workload-describe.js', () => ({workloadDescribe: recorder('workloadDescribe')}))
vi.mock('../../src/services/info.js', () => ({info: recorder('info', {localQueues: [], clusterQueues: []})}))
vi.mock('../../src/services/inspector.js', () => ({inspector: recorder('inspector')}))
vi.mock('../../src/services/storage-list.js', () => ({listStorages: recorder('listStorages')}))
vi.mock('../../src/services/storage-attach.js', () => ({attachStorage: recorder('attachStorage')}))
vi.mock('../../src/services/storage-detach.js', () => ({detachStorage: recorder('detachStorage')}))
vi.mock('../../src/services/storage-create.js', () => ({createStorage: recorder('createStorage')}))
vi.mock('../../src/services/storage-delete.js', () => ({deleteStorage: recorder('deleteStorage')}))
vi.mock('../../src/services/vm-create.js', () => ({createVms: recorder('createVms')}))
vi.mock('../../src/services/vm-delete.js', () => ({deleteVms: recorder('deleteVms')}))
vi.mock('../../src/services/vm-list.js', () => ({listVms: recorder('listVms')}))
vi.mock('../../src/services/vm-run.js', () => ({runOnVms: recorder('runOnVms')}))
vi.mock('../../src/services/vm-job.js', () => ({
  createVmJob: recorder('createVmJob'),
  deleteVmJob: recorder('deleteVmJob'),
  listVmJobs: recorder('listVmJobs', []),
  vmJobLogs: recorder('vmJobLogs'),
  resumeVmJob: recorder('resumeVmJob'),
  sshVmJob: recorder('sshVmJob'),
  stopVmJob: recorder('stopVmJob'),
  runSupervisor: recorder('superviseVmJob'),
}))

const STUB_CONFIG = {
  bin: 'xpk',
  version: '9.9.9',
  runHook: async () => ({successes: [], failures: []}),
  scopedEnvVar: () => undefined,
  scopedEnvVarTrue: () => false,
  findCommand: () => undefined,
}

/** Runs a command in process (under --json, so nothing is rendered) and answers the one service call it made. */
async function run(id: CommandId, argv: string[]) {
  const Cmd = COMMANDS[id] as unknown as new (argv: string[], config: unknown) => {id: string; run(): Promise<unknown>}
  const command = new Cmd([...argv, '--json'], STUB_CONFIG)
  command.id = id
  const before = calls.length
  await command.run()
  expect(calls.length - before).toBe(1)
  return calls.at(-1)!
}

beforeEach(() => {
  calls.length = 0
  const home = tempDir('xpk-mapping-')
  vi.stubEnv('XDG_CONFIG_HOME', home)
  vi.stubEnv('CLOUDSDK_CONFIG', home)
  vi.stubEnv('XPK_PROJECT', 'env-project')
  vi.stubEnv('XPK_ZONE', 'us-central2-b')
  vi.stubEnv('XPK_CLUSTER', 'env-cluster')
})
afterEach(() => {
  vi.unstubAllEnvs()
})

/** Each command with the least it needs to run, and the one service it calls. */
const SERVICE_OF: Record<CommandId, [string[], string]> = {
  'accelerator:describe': [['v5p-8'], 'describeAccelerator'],
  'accelerator:list': [[], 'listAccelerators'],
  'cluster:adapt': [[], 'adaptCluster'],
  'cluster:cacheimage': [['--tpu-type', 'v5p-8', '--docker-image', 'python:3.11'], 'cacheImage'],
  'cluster:create': [['--tpu-type', 'v5p-8', '--spot'], 'createCluster'],
  'cluster:create-pathways': [['--tpu-type', 'v5p-8', '--spot'], 'createCluster'],
  'cluster:create-ray': [['--tpu-type', 'v5p-8', '--spot', '--ray-version', '2.38.0'], 'createCluster'],
  'cluster:delete': [[], 'deleteCluster'],
  'cluster:describe': [[], 'describeCluster'],
  'cluster:list': [[], 'listClusters'],
  'config:get': [['zone'], 'getConfig'],
  'config:list': [[], 'listConfig'],
  'config:set': [['zone', 'us-east5-a'], 'setConfig'],
  'config:unset': [['zone'], 'unsetConfig'],
  info: [['--localqueue'], 'info'],
  inspector: [['--workload', 'run-1'], 'inspector'],
  doctor: [['--tpu-type', 'v5p-8'], 'runDoctor'],
  'storage:attach': [['datasets', '--type', 'gcsfuse'], 'attachStorage'],
  'storage:create': [['home'], 'createStorage'],
  'storage:delete': [['home'], 'deleteStorage'],
  'storage:detach': [['datasets'], 'detachStorage'],
  'storage:list': [[], 'listStorages'],
  version: [[], 'versionReport'],
  queue: [[], 'viewQueue'],
  'vm:create': [['--tpu-prefix', 'demo', '--tpu-type', 'v4-8'], 'createVms'],
  'vm:delete': [['--tpu-prefix', 'demo'], 'deleteVms'],
  'vm:job:create': [['--config', 'job.yaml'], 'createVmJob'],
  'vm:job:delete': [['7'], 'deleteVmJob'],
  'vm:job:list': [[], 'listVmJobs'],
  'vm:job:logs': [['7'], 'vmJobLogs'],
  'vm:job:resume': [['7'], 'resumeVmJob'],
  'vm:job:ssh': [['7'], 'sshVmJob'],
  'vm:job:stop': [['7'], 'stopVmJob'],
  'vm:job:supervise': [['7'], 'superviseVmJob'],
  'vm:list': [[], 'listVms'],
  'vm:run': [['--tpu-prefix', 'demo', '--command', 'true'], 'runOnVms'],
  'workload:create': [['--workload', 'w', '--tpu-type', 'v5p-8', '--command', 'true'], 'createWorkload'],
  'workload:create-pathways': [['--workload', 'w', '--tpu-type', 'v5p-8', '--headless'], 'createWorkload'],
  'workload:delete': [['--workload', 'w'], 'deleteWorkloads'],
  'workload:list': [[], 'listWorkloads'],
  'workload:logs': [['run-1'], 'workloadLogs'],
  'workload:why': [['run-1'], 'workloadWhy'],
  'workload:describe': [['run-1'], 'workloadDescribe'],
}

describe('every command calls one service through its topic', () => {
  it('src/index.ts registers every file of src/commands under its id (src/commands/<topic>/<verb>.ts is topic:verb)', async () => {
    const dir = join(REPO_ROOT, 'src/commands')
    const files = readdirSync(dir, {recursive: true, encoding: 'utf8'}).filter((f) => f.endsWith('.ts'))
    const idOf = (file: string) => file.slice(0, -3).replaceAll('/', ':') as CommandId
    expect(Object.keys(COMMANDS).sort()).toEqual(files.map(idOf).sort())
    for (const file of files) {
      const id = idOf(file)
      expect((await import(join(dir, file))).default, id).toBe(COMMANDS[id])
    }
  })

  it.each(Object.keys(COMMANDS) as CommandId[])('%s', async (id) => {
    expect(SERVICE_OF[id], `add ${id} to SERVICE_OF`).toBeDefined()
    const [argv, service] = SERVICE_OF[id]
    expect((await run(id, argv)).service).toBe(service)
  })
})

describe('the timing: one value read from the environment, handed to every service that waits', () => {
  /** Every variable the timing reads, set to something other than its default. */
  const TUNED = {
    XPK_RETRY_INTERVAL_MS: '3',
    XPK_POLL_INTERVAL_MS: '7',
    XPK_CONTROLLER_TIMEOUT_S: '11',
    XPK_CACHE_IMAGE_TIMEOUT_S: '13',
    XPK_WORKLOAD_DELETE_TIMEOUT_S: '17',
    XPK_SSH_HANDSHAKE_TIMEOUT_MS: '19',
    XPK_CLUSTER_LOCK_STALE_S: '23',
  }
  /** The commands that only read local tables and files: nothing to wait for. */
  const OFFLINE = /^(accelerator|config):|^version$/
  const WAITING = (Object.keys(COMMANDS) as CommandId[]).filter((id) => !OFFLINE.test(id))

  it.each(WAITING)('%s', async (id) => {
    for (const [name, value] of Object.entries(TUNED)) vi.stubEnv(name, value)
    const tuned = readTiming(process.env)
    expect(tuned).not.toEqual(DEFAULT_TIMING)
    const [argv] = SERVICE_OF[id]
    const {options} = await run(id, argv)
    expect((options as {timing?: unknown}).timing).toEqual(tuned)
  })

  it('the cluster lock takes its stale time from it', async () => {
    vi.stubEnv('XPK_CLUSTER_LOCK_STALE_S', '23')
    for (const id of ['cluster:adapt', 'cluster:create', 'cluster:delete'] as const) {
      expect((await run(id, SERVICE_OF[id][0])).options).toMatchObject({lock: {staleSeconds: 23}})
    }
  })
})

describe('command flag mapping', () => {
  it('cluster create: every flag reaches its option; project, zone and cluster come from the resolved settings', async () => {
    const call = await run('cluster:create', [
      ...['--tpu-type', 'v5p-16', '--num-slices', '4', '--spot', '--gke-version', '1.35.1-gke.1000000'],
      ...['--default-pool-cpu-machine-type', 'n2-standard-8', '--default-pool-cpu-num-nodes', '3'],
      ...['--network', 'net', '--subnetwork', 'sub', '--private', '--authorized-networks', '10.0.0.0/8'],
      ...['--private-endpoint-subnetwork', 'pe', '--enable-master-global-access', '--max-pods-per-node', '32'],
      ...['--custom-nodepool-arguments', '--disk-size=200', '--custom-tpu-nodepool-arguments', '--tags=a'],
      ...['--max-parallel', '8', '--dry-run', '--cluster', 'from-flag'],
      ...['--jobset-manifest', 'js.yaml', '--kueue-manifest', 'https://mirror/kueue.yaml'],
    ])
    expect(call.service).toBe('createCluster')
    expect(call.options).toMatchObject({
      flags: {
        cluster: 'from-flag',
        project: 'env-project',
        zone: 'us-central2-b',
        tpuType: 'v5p-16',
        numSlices: '4',
        spot: true,
        gkeVersion: '1.35.1-gke.1000000',
        defaultPoolCpuMachineType: 'n2-standard-8',
        defaultPoolCpuNumNodes: '3',
        network: 'net',
        subnetwork: 'sub',
        private: true,
        authorizedNetworks: ['10.0.0.0/8'],
        privateEndpointSubnetwork: 'pe',
        enableMasterGlobalAccess: true,
        maxPodsPerNode: '32',
        customNodepoolArguments: '--disk-size=200',
        customTpuNodepoolArguments: '--tags=a',
        maxParallel: '8',
      },
      dryRun: true,
      offline: false,
      timing: DEFAULT_TIMING,
      inCluster: {
        skip: false,
        viaKubeconfig: false,
        xpkVersion: '9.9.9',
        manifestOverrides: {jobset: 'js.yaml', kueue: 'https://mirror/kueue.yaml'},
      },
      lock: {identity: {pid: process.pid}},
    })
  })

  it('cluster adapt: every flag reaches its option; project, zone and cluster come from the resolved settings', async () => {
    const call = await run('cluster:adapt', [
      ...['--tpu-type', 'v5p-16', '--num-slices', '2', '--reservation', 'r1', '--cpu-limit', '100'],
      ...['--memory-limit', '64Gi', '--enable-autoprovisioning', '--autoprovisioning-min-chips', '0'],
      ...['--autoprovisioning-max-chips', '64', '--dry-run', '--force', '--cluster', 'from-flag'],
      ...['--jobset-manifest', 'js.yaml', '--kueue-manifest', 'https://mirror/kueue.yaml'],
    ])
    expect(call.service).toBe('adaptCluster')
    expect(call.options).toMatchObject({
      flags: {
        cluster: 'from-flag',
        project: 'env-project',
        zone: 'us-central2-b',
        tpuType: 'v5p-16',
        numSlices: '2',
        reservation: 'r1',
        cpuLimit: '100',
        memoryLimit: '64Gi',
        enableAutoprovisioning: true,
        autoprovisioningMinChips: '0',
        autoprovisioningMaxChips: '64',
        force: true,
      },
      dryRun: true,
      timing: DEFAULT_TIMING,
      inCluster: {
        viaKubeconfig: false,
        xpkVersion: '9.9.9',
        manifestOverrides: {jobset: 'js.yaml', kueue: 'https://mirror/kueue.yaml'},
      },
      lock: {identity: {pid: process.pid}},
    })
    const gpu = await run('cluster:adapt', ['--device-type', 'h100-80gb-8', '--num-nodes', '2', '--flex'])
    expect(gpu.options).toMatchObject({flags: {deviceType: 'h100-80gb-8', numNodes: '2', flex: true}})
  })

  it('cluster create: the old --cluster-cpu-machine-type reaches defaultPoolCpuMachineType', async () => {
    const call = await run('cluster:create', [
      '--tpu-type',
      'v5p-8',
      '--on-demand',
      '--cluster-cpu-machine-type',
      'n2-standard-4',
    ])
    expect(call.options).toMatchObject({flags: {defaultPoolCpuMachineType: 'n2-standard-4', onDemand: true}})
  })

  it('cluster delete and describe: the target from the resolved settings; describe through a kubeconfig has none', async () => {
    expect((await run('cluster:delete', ['--force'])).options).toMatchObject({
      project: 'env-project',
      zone: 'us-central2-b',
      cluster: 'env-cluster',
      dryRun: false,
    })
    expect((await run('cluster:describe', ['--skip-in-cluster'])).options).toEqual({
      target: {project: 'env-project', zone: 'us-central2-b', cluster: 'env-cluster'},
      skipInCluster: true,
      timing: DEFAULT_TIMING,
    })
    expect((await run('cluster:describe', ['--context', 'kind'])).options).toEqual({
      target: null,
      skipInCluster: false,
      timing: DEFAULT_TIMING,
    })
  })

  it('cluster cacheimage: every flag reaches its option; the target from the resolved settings', async () => {
    const call = await run('cluster:cacheimage', [
      ...['--cluster', 'from-flag', '--tpu-type', 'v5p-16', '--docker-image', 'python:3.11'],
      ...['--cache-key', 'py', '--dry-run'],
    ])
    expect(call.options).toMatchObject({
      project: 'env-project',
      zone: 'us-central2-b',
      cluster: 'from-flag',
      tpuType: 'v5p-16',
      dockerImage: 'python:3.11',
      cacheKey: 'py',
      dryRun: true,
      viaKubeconfig: false,
      timing: DEFAULT_TIMING,
    })
  })

  it.each([[['--kubeconfig', '/tmp/kind.yaml']], [['--context', 'kind-xpk']]])(
    'cluster cacheimage %j reaches the cluster through the kubeconfig',
    async (flags) => {
      const call = await run('cluster:cacheimage', [
        '--device-type',
        'h100-80gb-8',
        '--docker-image',
        'python:3.11',
        ...flags,
      ])
      expect(call.options).toMatchObject({viaKubeconfig: true, deviceType: 'h100-80gb-8'})
    },
  )

  it('cluster cacheimage requires --docker-image, before any service', async () => {
    await expect(run('cluster:cacheimage', ['--tpu-type', 'v5p-16'])).rejects.toThrow(/docker-image/)
    expect(calls).toEqual([])
  })

  it('workload create: every flag reaches its option', async () => {
    const call = await run('workload:create', [
      ...['--workload', 'w', '--command', 'python3 train.py', '--device-type', 'h100-80gb-8', '--num-nodes', '2'],
      ...['--priority', 'high', '--max-restarts', '3', '--restart-on-exit-codes', '3,5-7'],
      ...['--ttl-seconds-after-finished', '60', '--termination-grace-period-seconds', '10', '--env', 'A=1'],
      ...['--debug-dump-gcs', 'gs://b/d', '--enable-debug-logs', '--scheduler', 'default-scheduler'],
      ...['--no-use-parallel-containers', '--docker-image', 'python:3.10', '--docker-name', 'img'],
      ...['--docker-image-pull-secret', 'pull', '--output-manifest-file', 'out.yaml', '--dry-run', '--offline'],
      ...['--replace', '--context', 'kind-xpk', '--verbose'],
    ])
    expect(call.service).toBe('createWorkload')
    expect(call.options).toMatchObject({
      flags: {
        workload: 'w',
        command: 'python3 train.py',
        deviceType: 'h100-80gb-8',
        numNodes: '2',
        priority: 'high',
        maxRestarts: '3',
        restartOnExitCodes: '3,5-7',
        ttlSecondsAfterFinished: '60',
        terminationGracePeriodSeconds: '10',
        env: ['A=1'],
        debugDumpGcs: 'gs://b/d',
        enableDebugLogs: true,
        scheduler: 'default-scheduler',
        useParallelContainers: false,
        dockerImage: 'python:3.10',
        dockerName: 'img',
        imagePullSecret: 'pull',
      },
      dockerImage: 'python:3.10',
      outputManifestFile: 'out.yaml',
      dryRun: true,
      offline: true,
      settings: {project: {value: 'env-project', source: 'env'}, cluster: {value: 'env-cluster', source: 'env'}},
      replace: true,
      viaKubeconfig: true,
      verbose: true,
      timing: DEFAULT_TIMING,
    })
  })

  it('workload create: without --kubeconfig or --context the cluster is found through GKE, and nothing is replaced', async () => {
    const call = await run('workload:create', ['--workload', 'w', '--command', 'c', '--tpu-type', 'v5p-8'])
    expect(call.options).toMatchObject({replace: false, viaKubeconfig: false, dryRun: false, offline: false})
    expect((call.options as {flags: {useParallelContainers?: boolean}}).flags.useParallelContainers).toBeUndefined()
  })

  it('workload delete: by name, with the target from the resolved settings', async () => {
    const call = await run('workload:delete', ['--workload', 'run-1', '--wait', '--kubeconfig', 'kc.yaml'])
    expect(call.service).toBe('deleteWorkloads')
    expect(call.options).toMatchObject({
      project: 'env-project',
      zone: 'us-central2-b',
      cluster: 'env-cluster',
      viaKubeconfig: true,
      workload: 'run-1',
      wait: true,
      dryRun: false,
      timing: DEFAULT_TIMING,
    })
  })

  it('workload delete: by filter, as a dry run', async () => {
    const call = await run('workload:delete', [
      '--filter-by-job',
      'sweep-',
      '--filter-by-status',
      'failed',
      '--dry-run',
    ])
    expect(call.options).toMatchObject({
      filterByJob: 'sweep-',
      filterByStatus: 'failed',
      wait: false,
      dryRun: true,
      viaKubeconfig: false,
    })
  })

  it('workload list: filters and the wait go to the service as typed, checked there', async () => {
    const call = await run('workload:list', ['--filter-by-status', 'queued', '--filter-by-job', 'sweep-'])
    expect(call.service).toBe('listWorkloads')
    expect(call.options).toMatchObject({
      project: 'env-project',
      zone: 'us-central2-b',
      cluster: 'env-cluster',
      viaKubeconfig: false,
      filterByStatus: 'queued',
      filterByJob: 'sweep-',
      timing: DEFAULT_TIMING,
    })
    const waiting = await run('workload:list', [
      '--wait-for-job-completion',
      'run-1',
      '--timeout',
      '-1',
      '--context',
      'c',
    ])
    expect(waiting.options).toMatchObject({waitForJobCompletion: 'run-1', timeout: '-1', viaKubeconfig: true})
  })

  it('workload logs: the name and every flag go to the service as typed, checked there', async () => {
    const call = await run('workload:logs', [
      'run-1',
      ...['--follow', '--slice', '-1', '--worker', '3', '--tail', '20', '--since', '10m', '--kubeconfig', 'kc'],
    ])
    expect(call.service).toBe('workloadLogs')
    expect(call.options).toMatchObject({
      project: 'env-project',
      zone: 'us-central2-b',
      cluster: 'env-cluster',
      viaKubeconfig: true,
      workload: 'run-1',
      follow: true,
      slice: '-1',
      worker: '3',
      all: false,
      tail: '20',
      since: '10m',
      timing: DEFAULT_TIMING,
    })
    const all = await run('workload:logs', ['run-2', '--all'])
    expect(all.options).toMatchObject({workload: 'run-2', all: true, follow: false, viaKubeconfig: false})
  })

  it('vm create: every flag reaches its option; project and zone from the resolved settings', async () => {
    const call = await run('vm:create', [
      ...['--tpu-prefix', 'demo', '--tpu-type', 'v5litepod-16', '--num-slices', '2', '--best-effort', '--async'],
      ...['--runtime-version', 'v2-alpha', '--queued-resource-id', 'qr', '--zone', 'us-east5-a'],
    ])
    expect(call.options).toMatchObject({
      project: 'env-project',
      zone: 'us-east5-a',
      tpuPrefix: 'demo',
      tpuType: 'v5litepod-16',
      numSlices: '2',
      capacity: 'best-effort',
      runtimeVersion: 'v2-alpha',
      queuedResourceId: 'qr',
      async: true,
      timing: DEFAULT_TIMING,
    })
    expect((await run('vm:create', ['--tpu-prefix', 'd', '--tpu-type', 'v4-8'])).options).toMatchObject({
      numSlices: 1,
      capacity: 'on-demand',
      async: false,
      dryRun: false,
    })
    expect((await run('vm:create', ['--tpu-prefix', 'd', '--tpu-type', 'v4-8', '--dry-run'])).options).toMatchObject({
      dryRun: true,
    })
  })

  it('vm run: every flag reaches its option; the login is the local user unless --ssh-user names one', async () => {
    vi.stubEnv('USER', 'alice')
    const call = await run('vm:run', [
      ...['--tpu-prefix', 'demo', '--command', 'python3 train.py', '--run-name', 'r1', '--internal-ip'],
      ...['--use-existing-folder', '--ssh-port', '2222', '--log-dir', '/tmp', '--dry-run'],
    ])
    expect(call.options).toMatchObject({
      project: 'env-project',
      zone: 'us-central2-b',
      tpuPrefix: 'demo',
      command: 'python3 train.py',
      runName: 'r1',
      internalIp: true,
      useExistingFolder: true,
      sshPort: '2222',
      logDir: '/tmp',
      sshUser: 'alice',
      sshUserSource: '--ssh-user (default: $USER)',
      dryRun: true,
    })
    const named = await run('vm:run', ['--tpu-prefix', 'demo', '--command', 'true', '--ssh-user', 'bob'])
    expect(named.options).toMatchObject({sshUser: 'bob', sshPort: 22, internalIp: false, useExistingFolder: false})
    expect(named.options).not.toHaveProperty('sshUserSource')
  })

  it('vm list and delete: the prefix, and project and zone from the resolved settings', async () => {
    expect((await run('vm:list', ['--tpu-prefix', 'demo'])).options).toMatchObject({
      project: 'env-project',
      zone: 'us-central2-b',
      tpuPrefix: 'demo',
    })
    expect((await run('vm:delete', ['--tpu-prefix', 'demo', '--force', '--dry-run'])).options).toMatchObject({
      tpuPrefix: 'demo',
      async: false,
      dryRun: true,
    })
  })

  it('accelerator, config and version: arguments and flags reach the service', async () => {
    expect((await run('accelerator:list', ['--family', 'v5p', '--kind', 'tpu'])).options).toMatchObject({
      family: 'v5p',
      kind: 'tpu',
      aliases: false,
    })
    expect((await run('accelerator:describe', ['v5p-256'])).options).toBe('v5p-256')
    expect((await run('config:set', ['zone', 'us-east5-a'])).options).toMatchObject({
      key: 'zone',
      value: 'us-east5-a',
      dryRun: false,
    })
    expect((await run('config:unset', ['zone', '--dry-run'])).options).toMatchObject({key: 'zone', dryRun: true})
    expect((await run('config:get', ['project'])).options).toBe('project')
    expect((await run('version', [])).options).toEqual(['9.9.9', process.version])
  })
})

/** Where the storage commands below run: the environment's project and zone, --cluster from-flag. */
const STORAGE_TARGET = {project: 'env-project', zone: 'us-central2-b', cluster: 'from-flag', viaKubeconfig: false}
/** The flags every storage has, as typed and as they reach the service. */
const SETTINGS_ARGV = ['--auto-mount', 'true', '--mount-point', '/data', '--readonly', 'false']
const SETTINGS = {autoMount: 'true', mountPoint: '/data', readonly: 'false'}

describe('storage attach and detach: every flag reaches its option', () => {
  it('storage attach', async () => {
    const call = await run('storage:attach', [
      ...['datasets', '--type', 'gcsfuse', ...SETTINGS_ARGV],
      ...['--bucket', 'b-1', '--size', '64', '--mount-options', 'implicit-dirs,ro', '--no-prefetch-metadata'],
      ...['--instance', 'fs', '--vol', 'v', '--access-mode', 'ReadOnlyMany', '--manifest', 'm.yaml'],
      ...['--enable-legacy-lustre-port', '--project-number', '123', '--dry-run', '--cluster', 'from-flag'],
    ])
    expect(call.service).toBe('attachStorage')
    expect(call.options).toEqual({
      ...STORAGE_TARGET,
      flags: {
        name: 'datasets',
        type: 'gcsfuse',
        ...SETTINGS,
        bucket: 'b-1',
        size: '64',
        mountOptions: 'implicit-dirs,ro',
        prefetchMetadata: false,
        instance: 'fs',
        vol: 'v',
        accessMode: 'ReadOnlyMany',
        manifest: 'm.yaml',
        enableLegacyLustrePort: true,
      },
      projectNumber: '123',
      dryRun: true,
      timing: DEFAULT_TIMING,
    })
  })

  it('storage create', async () => {
    const call = await run('storage:create', [
      ...['home', '--type', 'gcpfilestore', ...SETTINGS_ARGV],
      ...['--instance', 'fs', '--size', '1T', '--tier', 'ZONAL', '--vol', 'v', '--access-mode', 'ReadOnlyMany'],
      ...['--mount-options', 'a,b', '--manifest', 'm.yaml', '--dry-run', '--cluster', 'from-flag'],
    ])
    expect(call.service).toBe('createStorage')
    expect(call.options).toEqual({
      ...STORAGE_TARGET,
      flags: {
        name: 'home',
        type: 'gcpfilestore',
        ...SETTINGS,
        instance: 'fs',
        size: '1T',
        tier: 'ZONAL',
        vol: 'v',
        accessMode: 'ReadOnlyMany',
        mountOptions: 'a,b',
        manifest: 'm.yaml',
      },
      dryRun: true,
      timing: DEFAULT_TIMING,
    })
  })

  it('storage delete', async () => {
    const call = await run('storage:delete', ['home', '--force', '--context', 'kind'])
    expect(call.options).toMatchObject({name: 'home', dryRun: false, viaKubeconfig: true})
  })

  it('storage detach', async () => {
    const call = await run('storage:detach', ['datasets', '--dry-run'])
    expect(call.options).toMatchObject({
      name: 'datasets',
      project: 'env-project',
      zone: 'us-central2-b',
      cluster: 'env-cluster',
      dryRun: true,
      viaKubeconfig: false,
    })
  })
})
