// `xpk cluster adapt` in process, over the in-memory GKE, Compute and Kubernetes ports: a cluster another tool made
// (pools named by Cluster Toolkit, the default pool) gets JobSet, Kueue, the queues sized for its pools, the priority
// classes and the ConfigMaps; GKE is only read; a re-run changes nothing; a dry run and --json show what was found;
// refusals (exit 2, 4) send nothing; and `cluster create` afterwards leaves the pools it did not make alone.
import {describe, expect, it} from 'vitest'

import {newLockHolder, withLock} from '../../src/core/cluster/lock.js'
import type {ObservedNodePool} from '../../src/core/cluster/observed.js'
import {XpkError} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {adaptCluster, type ClusterAdaptOptions} from '../../src/services/cluster-adapt.js'
import {createCluster} from '../../src/services/cluster-create.js'
import {anObservedPool} from '../builders/observed.js'
import {MemoryCompute} from '../fakes/memory-compute.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {MemoryReleaseManifests} from '../fakes/memory-release-manifests.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const TIMING = {...DEFAULT_TIMING, controllers: {poll: {initialMs: 10, maxMs: 10, factor: 1}, timeoutMs: 1000}}
const LOCK = {
  identity: {user: 'tester', host: 'test-host', pid: 4242, boot: '29500000'},
  staleSeconds: 3600,
  alive: () => true,
}
const target = {cluster: 'demo', project: 'test-project', zone: 'us-central2-b'}
const inCluster = {xpkVersion: '0.1.0', manifestOverrides: {}}

/** A cluster Cluster Toolkit made: two v5p-16 slices on spot, its default pool, and a pool of another machine. */
function toolkitCluster(extra: ObservedNodePool[] = []): MemoryGke {
  const gke = new MemoryGke([
    anObservedPool({name: 'ct-v5p-a', capacity: 'spot'}),
    anObservedPool({name: 'ct-v5p-b', capacity: 'spot'}),
    anObservedPool({
      name: 'default-pool',
      machineType: 'e2-standard-16',
      nodeCount: 3,
      tpuTopology: null,
      placementType: null,
    }),
    ...extra,
  ])
  gke.labels = {}
  return gke
}

/** The GKE calls that change something. */
const gkeChanges = (gke: MemoryGke) => gke.calls.filter((c) => /^(create|delete|update|set)/.test(c))

function adapt(gke: MemoryGke, kube: MemoryKube, overrides: Partial<ClusterAdaptOptions> = {}) {
  const console = new RecordingConsole()
  let kubeReached = 0
  const done = adaptCluster(
    {flags: target, dryRun: false, timing: TIMING, inCluster, lock: LOCK, ...overrides},
    {
      gke: async () => gke,
      compute: async () => new MemoryCompute(),
      kube: async () => (kubeReached++, kube),
      manifests: new MemoryReleaseManifests(),
      console,
      signal: new AbortController().signal,
      ...virtualClock(),
    },
  )
  return {console, done, kubeReached: () => kubeReached}
}

const queueOf = (kube: MemoryKube) => {
  const queue = kube.peek({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'cluster-queue'}) as
    {spec: {resourceGroups: {flavors: {name: string; resources: {nominalQuota: unknown}[]}[]}[]}} | undefined
  const flavor = queue?.spec.resourceGroups[0]?.flavors[0]
  return `${flavor?.name} ${String(flavor?.resources[0]?.nominalQuota)}`
}
const configMap = (kube: MemoryKube, name: string) =>
  (kube.peek({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name}) as {data?: unknown} | undefined)?.data

describe('cluster adapt on a cluster made by another tool', () => {
  it('installs JobSet and Kueue, sizes the queue for the pools it found, and changes nothing in GKE', async () => {
    const gke = toolkitCluster()
    const kube = new MemoryKube()
    const {done, console} = adapt(gke, kube)
    const result = await done
    expect(result).toMatchObject({applied: true, dryRun: false, found: {accelerator: 'v5p-16', slicesFound: 2}})
    expect(gkeChanges(gke)).toEqual([])
    expect(queueOf(kube)).toBe('2xv5p-16 16')
    expect(configMap(kube, 'demo-resources-configmap')).toEqual({'v5p-16': '4'})
    expect(configMap(kube, 'demo-metadata-configmap')).toEqual({xpk_version: 'v0.1.0', capacity_type: 'SPOT'})
    expect(kube.all('PriorityClass').map((p) => p.metadata.name)).toEqual(
      expect.arrayContaining(['very-low', 'low', 'medium', 'high', 'very-high']),
    )
    expect(kube.all('LocalQueue').map((q) => q.metadata.name)).toContain('multislice-queue')
    const deployments = kube.all('Deployment').map((d) => d.metadata.name)
    expect(deployments).toEqual(expect.arrayContaining(['jobset-controller-manager', 'kueue-controller-manager']))
    // The pools are as they were.
    expect([...gke.pools.keys()]).toEqual(['ct-v5p-a', 'ct-v5p-b', 'default-pool'])
    const plan = console.messages.find((m) => m.code === 'cluster.adapt.plan')?.text ?? ''
    expect(plan).toContain('Kueue gets v5p-16: 2 slices (4 VMs, 16 chips), spot.')
    expect(console.codes('info')).toContain('cluster.adapt.summary')
  })

  it('a second run sends no changing request, to GKE or inside the cluster', async () => {
    const gke = toolkitCluster()
    const kube = new MemoryKube()
    await adapt(gke, kube).done
    kube.clearLog()
    const again = await adapt(gke, kube).done
    expect(again.outcomes).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
    expect(gkeChanges(gke)).toEqual([])
  })

  it('--dry-run shows what it found and what it would add, and changes nothing', async () => {
    const gke = toolkitCluster([anObservedPool({name: 'ct-v5p-broken', status: 'ERROR', statusMessage: 'stockout'})])
    const kube = new MemoryKube()
    const {done, console} = adapt(gke, kube, {dryRun: true})
    const result = await done
    expect(result).toMatchObject({dryRun: true, applied: false, outcomes: []})
    expect(kube.mutatingRequests()).toEqual([])
    expect(gkeChanges(gke)).toEqual([])
    const text = console.results.join('\n')
    expect(text).toContain('* ct-v5p-a')
    expect(text).toContain('    ct-v5p-broken  v5p-16  ERROR    ERROR (stockout): not counted')
    expect(text).toContain('    default-pool   -       RUNNING  no accelerator: left alone')
    expect(text).toContain('+ create ClusterQueue cluster-queue')
    expect(console.codes('info')).toContain('cluster.adapt.dry-run')
  })

  it('--json: the pools, the type, the quota and the in-cluster plan as data', async () => {
    const result = await adapt(toolkitCluster(), new MemoryKube(), {dryRun: true}).done
    expect(result.found).toMatchObject({
      accelerator: 'v5p-16',
      kind: 'TPU',
      slicesFound: 2,
      vmsFound: 4,
      quota: {slices: 2, vms: 4, total: 16, resource: 'google.com/tpu', capacity: 'spot', reservation: null},
    })
    expect(result.found.pools.map((p) => [p.name, p.counted])).toEqual([
      ['ct-v5p-a', true],
      ['ct-v5p-b', true],
      ['default-pool', false],
    ])
    expect(result.inCluster.fromLive).toBe(true)
    expect(result.inCluster.steps.some((s) => s.kind === 'install')).toBe(true)
    expect(JSON.parse(JSON.stringify(result))).toEqual(result)
  })

  it('a GPU cluster: the VMs of its GPU pool', async () => {
    const gke = new MemoryGke([
      anObservedPool({
        name: 'a3-pool',
        machineType: 'a3-highgpu-8g',
        nodeCount: 2,
        tpuTopology: null,
        placementType: null,
        gpu: {type: 'nvidia-h100-80gb', count: 8},
      }),
    ])
    const kube = new MemoryKube()
    const result = await adapt(gke, kube).done
    expect(result.found).toMatchObject({accelerator: 'h100-80gb-8', vmsFound: 2})
    expect(queueOf(kube)).toBe('1xh100-80gb-8 16')
    expect(gkeChanges(gke)).toEqual([])
  })
})

describe('cluster adapt: refusals send nothing', () => {
  it.each([
    {
      name: 'no such cluster',
      gke: () => Object.assign(toolkitCluster(), {cluster: 'gone' as const}),
      flags: {},
      exit: 4,
    },
    {
      name: 'several accelerator types',
      gke: () =>
        toolkitCluster([
          anObservedPool({
            name: 'gpu',
            machineType: 'a3-highgpu-8g',
            tpuTopology: null,
            gpu: {type: 'nvidia-h100-80gb', count: 8},
          }),
        ]),
      flags: {},
      exit: 2,
    },
    {name: '--num-slices above the pools', gke: () => toolkitCluster(), flags: {numSlices: '3'}, exit: 2},
    {name: 'a bad --num-slices', gke: () => toolkitCluster(), flags: {numSlices: '-1'}, exit: 2},
    {
      name: 'a cluster being made',
      gke: () => Object.assign(toolkitCluster(), {cluster: 'PROVISIONING' as const}),
      flags: {},
      exit: 6,
    },
  ])('$name: exit $exit', async ({gke: make, flags, exit}) => {
    for (const dryRun of [false, true]) {
      const gke = make()
      const kube = new MemoryKube()
      const {done, kubeReached} = adapt(gke, kube, {flags: {...target, ...flags}, dryRun})
      const error = await done.then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(XpkError)
      expect((error as XpkError).exitCode).toBe(exit)
      expect(gkeChanges(gke)).toEqual([])
      expect(kubeReached()).toBe(0)
      expect(kube.mutatingRequests()).toEqual([])
    }
  })

  it('another run holding the cluster lock: exit 6, nothing changed', async () => {
    const gke = toolkitCluster()
    // bob's cluster create on another machine, taken a minute ago (virtual clocks start at 0).
    gke.labels = withLock(
      {},
      newLockHolder({user: 'bob', host: 'other-box', pid: 77, boot: '29400000'}, 'cluster-create', -60_000, () => 0.25),
    )
    const kube = new MemoryKube()
    const error = (await adapt(gke, kube).done.catch((e: unknown) => e)) as XpkError
    expect(error).toBeInstanceOf(XpkError)
    expect(error.exitCode).toBe(6)
    expect(error.message).toContain('bob@other-box')
    expect(kube.mutatingRequests()).toEqual([])
    expect(gkeChanges(gke)).toEqual([])
  })
})

describe('cluster create after cluster adapt', () => {
  it("keeps the pools it did not make: no delete or recreate of another tool's pools", async () => {
    const gke = toolkitCluster([anObservedPool({name: 'ct-v5p-broken', status: 'ERROR'})])
    const kube = new MemoryKube()
    await adapt(gke, kube).done
    for (const numSlices of ['0', '1']) {
      const console = new RecordingConsole()
      const result = await createCluster(
        {
          flags: {...target, tpuType: 'v5p-16', spot: true, numSlices, force: true},
          dryRun: false,
          offline: false,
          timing: TIMING,
          inCluster: {...inCluster, skip: true},
          lock: LOCK,
        },
        {
          gke: async () => gke,
          compute: async () => new MemoryCompute(),
          kube: async () => kube,
          manifests: new MemoryReleaseManifests(),
          console,
          signal: new AbortController().signal,
          ...virtualClock(),
        },
      )
      for (const name of ['ct-v5p-a', 'ct-v5p-b', 'ct-v5p-broken', 'default-pool']) {
        expect(result.steps.find((s) => s.name === name)).toMatchObject({action: 'none'})
        expect(gke.pools.has(name)).toBe(true)
      }
    }
    expect(gke.calls.filter((c) => c === 'deleteNodePool')).toEqual([])
    expect([...gke.pools.keys()]).toEqual(['ct-v5p-a', 'ct-v5p-b', 'default-pool', 'ct-v5p-broken', 'demo-np-0'])
  })
})
