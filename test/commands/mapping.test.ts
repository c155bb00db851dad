// Command tests check only what a command does: map its flags to the options of one service call. The runtime
// modules the commands import lazily are replaced, so no service, adapter or network runs here.
import {beforeEach, describe, expect, it, vi} from 'vitest'

import {COMMANDS} from '../../src/index.js'

const calls: Array<{service: string; options: unknown}> = []
const settings = {
  project: {value: 'settings-project'},
  zone: {value: 'us-central2-b'},
  cluster: {value: 'settings-cluster'},
  registry: {value: undefined},
}

vi.mock('../../src/cli/runtime.js', () => ({
  resolveCommandSettings: async () => settings,
  applyTuning: () => ({tuning: true}),
  inClusterTuning: () => ({availableTimeoutMs: 1234}),
  clusterLockTuning: () => ({lock: true}),
  clusterCreateDeps: () => ({deps: true}),
  createCluster: async (options: unknown) => (calls.push({service: 'createCluster', options}), {}),
}))
vi.mock('../../src/cli/workload-runtime.js', () => ({
  resolveCommandSettings: async () => settings,
  workloadCreateDeps: () => ({deps: true}),
  workloadDeleteDeps: () => ({deps: true}),
  workloadTiming: () => ({timing: true}),
  createWorkload: async (options: unknown) => (calls.push({service: 'createWorkload', options}), {}),
  deleteWorkloads: async (options: unknown) => (calls.push({service: 'deleteWorkloads', options}), {}),
}))

vi.mock('../../src/cli/workload-list-context.js', () => ({
  resolveCommandSettings: async () => settings,
  retryTuning: () => ({retry: true}),
  workloadListDeps: () => ({deps: true}),
  listWorkloads: async (options: unknown) => (calls.push({service: 'listWorkloads', options}), {}),
}))

vi.mock('../../src/cli/workload-logs-context.js', () => ({
  resolveCommandSettings: async () => settings,
  retryTuning: () => ({retry: true}),
  workloadLogsDeps: () => ({deps: true}),
  workloadLogs: async (options: unknown) => (calls.push({service: 'workloadLogs', options}), {}),
}))

const STUB_CONFIG = {
  bin: 'xpk',
  runHook: async () => ({successes: [], failures: []}),
  scopedEnvVar: () => undefined,
  scopedEnvVarTrue: () => false,
  findCommand: () => undefined,
}

async function run(id: keyof typeof COMMANDS, argv: string[]) {
  const Cmd = COMMANDS[id] as unknown as new (argv: string[], config: unknown) => {id: string; run(): Promise<unknown>}
  const command = new Cmd(argv, STUB_CONFIG)
  command.id = id
  await command.run()
  return calls.at(-1)
}

beforeEach(() => {
  calls.length = 0
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
    expect(call?.service).toBe('createCluster')
    expect(call?.options).toMatchObject({
      flags: {
        cluster: 'settings-cluster',
        project: 'settings-project',
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
      apply: {tuning: true},
      inCluster: {
        skip: false,
        manifestOverrides: {jobset: 'js.yaml', kueue: 'https://mirror/kueue.yaml'},
        availableTimeoutMs: 1234,
      },
    })
  })

  it('cluster create: the old --cluster-cpu-machine-type reaches defaultPoolCpuMachineType', async () => {
    const call = await run('cluster:create', [
      '--tpu-type',
      'v5p-8',
      '--on-demand',
      '--cluster-cpu-machine-type',
      'n2-standard-4',
    ])
    expect(call?.options).toMatchObject({flags: {defaultPoolCpuMachineType: 'n2-standard-4', onDemand: true}})
  })

  it('workload create: every flag reaches its option', async () => {
    const call = await run('workload:create', [
      ...['--workload', 'w', '--command', 'python3 train.py', '--device-type', 'h100-80gb-8', '--num-nodes', '2'],
      ...['--priority', 'high', '--max-restarts', '3', '--restart-on-exit-codes', '3,5-7'],
      ...['--ttl-seconds-after-finished', '60', '--termination-grace-period-seconds', '10', '--env', 'A=1'],
      ...['--debug-dump-gcs', 'gs://b/d', '--enable-debug-logs', '--scheduler', 'default-scheduler'],
      ...['--no-use-parallel-containers', '--docker-image', 'python:3.10', '--docker-name', 'img'],
      ...['--docker-image-pull-secret', 'pull', '--output-manifest-file', 'out.yaml', '--dry-run', '--offline'],
      ...['--replace', '--context', 'kind-xpk'],
    ])
    expect(call?.service).toBe('createWorkload')
    expect(call?.options).toMatchObject({
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
      settings,
      replace: true,
      viaKubeconfig: true,
      timing: {timing: true},
    })
  })

  it('workload create: without --kubeconfig or --context the cluster is found through GKE, and nothing is replaced', async () => {
    const call = await run('workload:create', ['--workload', 'w', '--command', 'c', '--tpu-type', 'v5p-8'])
    expect(call?.options).toMatchObject({replace: false, viaKubeconfig: false, dryRun: false})
  })

  it('workload delete: by name, with the target from the resolved settings', async () => {
    const call = await run('workload:delete', ['--workload', 'run-1', '--wait', '--kubeconfig', 'kc.yaml'])
    expect(call?.service).toBe('deleteWorkloads')
    expect(call?.options).toEqual({
      project: 'settings-project',
      zone: 'us-central2-b',
      cluster: 'settings-cluster',
      viaKubeconfig: true,
      workload: 'run-1',
      filterByJob: undefined,
      filterByStatus: undefined,
      wait: true,
      dryRun: false,
      timing: {timing: true},
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
    expect(call?.options).toMatchObject({
      workload: undefined,
      filterByJob: 'sweep-',
      filterByStatus: 'failed',
      wait: false,
      dryRun: true,
      viaKubeconfig: false,
    })
  })

  it('workload list: filters and the wait go to the service as typed, checked there', async () => {
    const call = await run('workload:list', ['--filter-by-status', 'queued', '--filter-by-job', 'sweep-'])
    expect(call?.service).toBe('listWorkloads')
    expect(call?.options).toEqual({
      project: 'settings-project',
      zone: 'us-central2-b',
      cluster: 'settings-cluster',
      viaKubeconfig: false,
      filterByStatus: 'queued',
      filterByJob: 'sweep-',
      waitForJobCompletion: undefined,
      timeout: undefined,
      retry: {retry: true},
    })
    const waiting = await run('workload:list', [
      '--wait-for-job-completion',
      'run-1',
      '--timeout',
      '-1',
      '--context',
      'c',
    ])
    expect(waiting?.options).toMatchObject({waitForJobCompletion: 'run-1', timeout: '-1', viaKubeconfig: true})
  })

  it('workload logs: the name and every flag go to the service as typed, checked there', async () => {
    const call = await run('workload:logs', [
      'run-1',
      ...['--follow', '--slice', '-1', '--worker', '3', '--tail', '20', '--since', '10m', '--kubeconfig', 'kc'],
    ])
    expect(call?.service).toBe('workloadLogs')
    expect(call?.options).toEqual({
      project: 'settings-project',
      zone: 'us-central2-b',
      cluster: 'settings-cluster',
      viaKubeconfig: true,
      workload: 'run-1',
      follow: true,
      slice: '-1',
      worker: '3',
      all: false,
      tail: '20',
      since: '10m',
      retry: {retry: true},
    })
    const all = await run('workload:logs', ['run-2', '--all'])
    expect(all?.options).toMatchObject({workload: 'run-2', all: true, follow: false, viaKubeconfig: false})
  })
})
