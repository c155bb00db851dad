// `xpk cluster create-pathways` in process, over the in-memory GKE, Compute and Kubernetes ports: cluster create's
// service with the Pathways CPU pool cpu-np and Kueue's cpu-user flavor and resource group; the machine type read
// from the zone (exit 2 naming the flag, nothing sent); re-runs keep the pool; `cluster create` keeps it and the
// cpu-user group; the inputs a Pathways cluster cannot take are refused.
import {describe, expect, it} from 'vitest'

import {UsageError, UsageErrors} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {createCluster, type ClusterCreateOptions} from '../../src/services/cluster-create.js'
import {MemoryCompute} from '../fakes/memory-compute.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {MemoryReleaseManifests} from '../fakes/memory-release-manifests.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const base = {cluster: 'demo', project: 'test-project', zone: 'us-central2-b', tpuType: 'v5p-8', numSlices: '2'}
const pathways = {...base, spot: true, pathwaysGceMachineType: 'n2-standard-64'}
const TIMING = {...DEFAULT_TIMING, controllers: {poll: {initialMs: 10, maxMs: 10, factor: 1}, timeoutMs: 1000}}
const LOCK = {
  identity: {user: 'tester', host: 'test-host', pid: 4242, boot: '29500000'},
  staleSeconds: 3600,
  alive: () => true,
}
const inCluster = {skip: false, xpkVersion: '0.1.0', manifestOverrides: {}}

function run(
  flags: ClusterCreateOptions['flags'],
  fakes: {gke?: MemoryGke; kube?: MemoryKube; compute?: MemoryCompute} = {},
  options: Partial<ClusterCreateOptions> = {},
  answer: PromptAnswer = 'unexpected',
) {
  const gke = fakes.gke ?? new MemoryGke()
  const kube = fakes.kube ?? new MemoryKube()
  const compute = fakes.compute ?? new MemoryCompute()
  const console = new RecordingConsole(answer)
  const done = createCluster(
    {flags, dryRun: false, offline: false, timing: TIMING, inCluster, lock: LOCK, ...options},
    {
      gke: async () => gke,
      compute: async () => compute,
      kube: async () => kube,
      manifests: new MemoryReleaseManifests(),
      console,
      signal: new AbortController().signal,
      ...virtualClock(),
    },
  )
  return {done, gke, kube, compute, console}
}

const changes = (gke: MemoryGke) => gke.calls.filter((c) => /^(create|delete|update|set)/.test(c))
const poolSteps = (result: Awaited<ReturnType<typeof createCluster>>) =>
  result.steps.filter((s) => s.resource === 'nodePool').map((s) => `${s.name} ${s.action}: ${s.reason}`)
const QUEUE = {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'cluster-queue'}
const CPU_USER = {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ResourceFlavor', name: 'cpu-user'}
const groups = (kube: MemoryKube) =>
  (kube.peek(QUEUE) as {spec: {resourceGroups: unknown[]}} | undefined)?.spec.resourceGroups ?? []
const PATHWAYS_GROUP = {
  coveredResources: ['cpu', 'memory'],
  flavors: [
    {
      name: 'cpu-user',
      resources: [
        {name: 'cpu', nominalQuota: 480},
        {name: 'memory', nominalQuota: '2000G'},
      ],
    },
  ],
}

async function refusal(promise: Promise<unknown>): Promise<UsageError[]> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(UsageError)
  expect((error as UsageError).exitCode).toBe(2)
  return error instanceof UsageErrors ? [...error.problems] : [error as UsageError]
}

describe('cluster create-pathways', () => {
  it('creates the slices and cpu-np as Python xpk does, and the cpu-user flavor and group inside', async () => {
    const fresh = new MemoryGke()
    fresh.cluster = 'gone'
    const computeLog: string[] = []
    const {done, gke, kube} = run(pathways, {gke: fresh, compute: new MemoryCompute(computeLog)})
    const result = await done
    expect(poolSteps(result)).toEqual([
      'cpu-np create: the Pathways CPU pool (heads: proxy, resource manager, client)',
      'demo-np-0 create: new slice',
      'demo-np-1 create: new slice',
    ])
    const cpuNp = result.steps.find((s) => s.name === 'cpu-np')!.spec
    expect(cpuNp).toMatchObject({
      machineType: 'n2-standard-64',
      nodeCount: 1,
      capacity: 'on-demand',
      locations: ['us-central2-b'],
      autoscaling: {minNodes: 1, maxNodes: 20},
      placementPolicy: null,
      tpuTopology: null,
    })
    expect((cpuNp as unknown as {oauthScopes: readonly string[]}).oauthScopes).toContain(
      'https://www.googleapis.com/auth/cloud-platform',
    )
    expect(changes(gke).filter((c) => c.startsWith('create'))).toEqual([
      'createCluster',
      'createNodePool cpu-np',
      'createNodePool demo-np-0',
      'createNodePool demo-np-1',
    ])
    expect(computeLog).toContain('getMachineType n2-standard-64')
    expect(kube.peek(CPU_USER)).toMatchObject({spec: {nodeLabels: {'cloud.google.com/gke-nodepool': 'cpu-np'}}})
    expect(groups(kube)).toHaveLength(2)
    expect(groups(kube)[1]).toEqual(PATHWAYS_GROUP)
    expect(result.applied).toBe(true)

    // A re-run changes nothing: the pool matches, the flavor and queue are as applied.
    const before = gke.calls.length
    const again = await run(pathways, {gke, kube}).done
    expect(poolSteps(again)).toEqual([
      'demo-np-0 none: matches the request',
      'demo-np-1 none: matches the request',
      'cpu-np none: matches the request',
      'default-pool none: not managed by xpk (only demo-np-* pools are)',
    ])
    expect(changes({calls: gke.calls.slice(before)} as MemoryGke)).toEqual([])
  })

  it('cluster create on it keeps cpu-np and the cpu-user group, saying why', async () => {
    const {done, gke, kube} = run(pathways)
    await done
    const plain = await run({...base, spot: true}, {gke, kube}).done
    expect(poolSteps(plain)).toContain(
      'cpu-np none: the Pathways CPU pool (xpk cluster create-pathways): kept, Pathways heads run there',
    )
    expect(gke.pools.has('cpu-np')).toBe(true)
    expect(groups(kube)[1]).toEqual(PATHWAYS_GROUP)
    expect(kube.peek(CPU_USER)).toBeDefined()
    // Growing the cluster changes only the slices' quota.
    await run({...base, spot: true, numSlices: '3'}, {gke, kube}).done
    expect(gke.pools.has('cpu-np')).toBe(true)
    expect(groups(kube)[1]).toEqual(PATHWAYS_GROUP)
  })

  it('another --pathways-gce-machine-type recreates cpu-np after asking; the dry run only says so', async () => {
    const {done, gke, kube} = run(pathways)
    await done
    const other = {...pathways, pathwaysGceMachineType: 'n2-standard-96'}
    const compute = new MemoryCompute()
    compute.machineTypes.set('n2-standard-96', {guestCpus: 96, memoryMb: 393216})
    const before = changes(gke).length
    const dry = await run(other, {gke, kube, compute}, {dryRun: true}).done
    expect(poolSteps(dry)).toContain(
      'cpu-np recreate: differs from the request: machine type n2-standard-64 → n2-standard-96',
    )
    expect(changes(gke).length).toBe(before)
    await run(other, {gke, kube, compute}, {}, 'yes').done
    expect(gke.pools.get('cpu-np')?.machineType).toBe('n2-standard-96')
  })

  it('a machine type the zone lacks, or one too small, is exit 2 naming the flag, with nothing sent', async () => {
    const tried = [
      {machine: 'n2-standard-640', message: 'is not a machine type of zone us-central2-b'},
      {machine: 'n2-standard-32', message: 'has 32 vCPUs and 128 GiB; the Pathways head needs at least 49 vCPUs'},
      {machine: 'e2-standard-16', message: 'has 16 vCPUs and 64 GiB'},
    ]
    for (const {machine, message} of tried) {
      const gke = new MemoryGke()
      gke.cluster = 'gone'
      const {done, kube} = run({...pathways, pathwaysGceMachineType: machine}, {gke})
      const [problem] = await refusal(done)
      expect(problem.flag).toBe('--pathways-gce-machine-type')
      expect(problem.message).toContain(`--pathways-gce-machine-type "${machine}" ${message}`)
      expect(changes(gke)).toEqual([])
      expect(kube.peek(QUEUE)).toBeUndefined()
    }
  })

  it('refuses what a Pathways cluster cannot be, before anything is read', async () => {
    const cases = [
      {flags: {...pathways, tpuType: undefined, deviceType: 'h100-80gb-8'}, flag: '--device-type'},
      {flags: {...pathways, tpuType: undefined, deviceType: 'n2-standard-32-4'}, flag: '--device-type'},
      {flags: {...pathways, cpuLimit: '100'}, flag: '--cpu-limit'},
      {flags: {...pathways, memoryLimit: '100Gi'}, flag: '--memory-limit'},
      {flags: {...pathways, pathwaysGceMachineType: 'a3-highgpu-8g'}, flag: '--pathways-gce-machine-type'},
      {flags: {...pathways, pathwaysGceMachineType: 'not a type'}, flag: '--pathways-gce-machine-type'},
    ]
    for (const c of cases) {
      const {done, gke} = run(c.flags as ClusterCreateOptions['flags'])
      const problems = await refusal(done)
      expect(
        problems.map((p) => p.flag),
        JSON.stringify(c.flags),
      ).toContain(c.flag)
      expect(gke.calls).toEqual([])
    }
  })

  it('cluster create with --cpu-limit or --memory-limit on a Pathways cluster is exit 2, nothing changed', async () => {
    const {done, gke, kube} = run(pathways)
    await done
    const before = changes(gke).length
    for (const [key, value, flag] of [
      ['cpuLimit', '100', '--cpu-limit'],
      ['memoryLimit', '100Gi', '--memory-limit'],
    ] as const) {
      const [problem] = await refusal(run({...base, spot: true, [key]: value}, {gke, kube}).done)
      expect(problem.flag).toBe(flag)
      expect(problem.message).toContain('is a Pathways cluster (node pool cpu-np)')
    }
    expect(changes(gke).length).toBe(before)
  })

  it('the offline dry run shows cpu-np and the cpu-user objects', async () => {
    const result = await run(pathways, {}, {dryRun: true, offline: true}).done
    expect(poolSteps(result)[0]).toBe('cpu-np create: the Pathways CPU pool (heads: proxy, resource manager, client)')
    const objects = JSON.stringify(result.inCluster)
    expect(objects).toContain('"cloud.google.com/gke-nodepool":"cpu-np"')
    expect(objects).toContain(JSON.stringify(PATHWAYS_GROUP))
  })
})
