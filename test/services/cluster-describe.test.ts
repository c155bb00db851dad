// `xpk cluster describe` in process, over the in-memory GKE and Kubernetes ports: what it reads inside the cluster
// and with how many requests, the v1beta1 fallback for an old Kueue, --skip-in-cluster, a control plane that cannot
// be read (a warning, not a failure), and --kubeconfig without GKE.
import {describe, expect, it} from 'vitest'

import type {ObservedCluster} from '../../src/core/cluster/observed.js'
import {XpkError} from '../../src/core/errors.js'
import type {InClusterState} from '../../src/core/incluster/describe.js'
import {kubeNetworkError} from '../../src/core/kube/kube-errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {describeCluster, type ClusterDescription, type DescribeOptions} from '../../src/services/cluster-read.js'
import type {KubeClient} from '../../src/ports/kube.js'
import {anObservedPool} from '../builders/observed.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {releaseObjects} from '../fakes/memory-release-manifests.js'
import {kubeRayCrd, kubeRayStatus} from '../helpers/ray.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const TARGET = {project: 'test-project', zone: 'us-central2-b', cluster: 'demo'}
const POOL_LABEL = 'cloud.google.com/gke-nodepool'
const CLUSTER_QUEUE = {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'cluster-queue'}

/** GKE's view: the default pool (2 nodes) and two v5p-16 slices (2 nodes each). */
const gkePools = () => [
  anObservedPool({name: 'default-pool', machineType: 'e2-standard-16', tpuTopology: null, nodeCount: 2}),
  anObservedPool({name: 'demo-np-0'}),
  anObservedPool({name: 'demo-np-1'}),
]

function installed(kube: MemoryKube, component: 'jobset' | 'kueue', version: string): void {
  for (const o of releaseObjects(component, version)) kube.seed(o, {available: o.kind === 'Deployment'})
}

function notReadyNodes(kube: MemoryKube, names: readonly string[], pool: string): void {
  for (const name of names) {
    kube.seed(
      {apiVersion: 'v1', kind: 'Node', metadata: {name, labels: {[POOL_LABEL]: pool}}},
      {manager: 'kubelet', status: {conditions: [{type: 'Ready', status: 'False', reason: 'KubeletNotReady'}]}},
    )
  }
}

/**
 * A cluster as `cluster create` leaves it, with work queued: JobSet and Kueue installed, the ClusterQueue with
 * Kueue's status, the default pool and np-1 Ready, np-0's nodes NotReady (the case that shifts Python's columns).
 */
function aWorkingCluster(): MemoryKube {
  const kube = new MemoryKube()
  installed(kube, 'jobset', 'v0.10.1')
  installed(kube, 'kueue', 'v0.17.1')
  kube.seed(
    {
      ...CLUSTER_QUEUE,
      metadata: {name: 'cluster-queue'},
      spec: {
        resourceGroups: [
          {
            coveredResources: ['google.com/tpu'],
            flavors: [{name: '2xv5p-16', resources: [{name: 'google.com/tpu', nominalQuota: 16}]}],
          },
        ],
      },
    },
    {
      manager: 'xpk',
      status: {
        admittedWorkloads: 1,
        pendingWorkloads: 3,
        reservingWorkloads: 1,
        flavorsReservation: [{name: '2xv5p-16', resources: [{name: 'google.com/tpu', total: '8', borrowed: '0'}]}],
        flavorsUsage: [{name: '2xv5p-16', resources: [{name: 'google.com/tpu', total: '8', borrowed: '0'}]}],
      },
    },
  )
  kube.addNodes(['gke-demo-default-pool-a', 'gke-demo-default-pool-b'], {[POOL_LABEL]: 'default-pool'})
  notReadyNodes(kube, ['gke-demo-np-0-a', 'gke-demo-np-0-b'], 'demo-np-0')
  kube.addNodes(['gke-demo-np-1-a', 'gke-demo-np-1-b'], {[POOL_LABEL]: 'demo-np-1'})
  kube.clearLog()
  return kube
}

interface Run {
  readonly kube?: KubeClient | (() => Promise<KubeClient>)
  readonly gke?: MemoryGke
  readonly options?: Partial<DescribeOptions>
}

function run(given: Run = {}) {
  const console = new RecordingConsole()
  const gke = given.gke ?? new MemoryGke(gkePools())
  const reached: Array<ObservedCluster | undefined> = []
  const clock = virtualClock()
  let gkeConnections = 0
  const done = describeCluster(
    {target: TARGET, skipInCluster: false, timing: DEFAULT_TIMING, ...given.options},
    {
      gke: async () => (gkeConnections++, gke),
      kube: async (cluster) => {
        reached.push(cluster)
        const kube = given.kube ?? aWorkingCluster()
        return typeof kube === 'function' ? kube() : kube
      },
      console,
      signal: new AbortController().signal,
      ...clock,
    },
  )
  return {done, console, reached, clock, gkeConnections: () => gkeConnections}
}

const insideOf = (d: ClusterDescription) => d.inCluster as InClusterState
const reads = (kube: MemoryKube) =>
  kube.requests.map((r) => `${r.verb} ${r.apiVersion} ${r.kind}${r.name ? ` ${r.name}` : ''}`)

describe('describeCluster: inside the cluster', () => {
  it('shows, per pool, how many of its nodes run a ready pod of each GPUDirect installer (only pools that have one)', async () => {
    const kube = aWorkingCluster()
    const pod = (name: string, app: string, node: string, ready: boolean) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name, namespace: 'kube-system', labels: {'k8s-app': app}},
      spec: {nodeName: node, containers: [{name: 'pause', image: 'pause'}]},
      ready,
    })
    for (const p of [
      pod('tcpx-a', 'nccl-tcpx-installer', 'gke-demo-np-1-a', true),
      pod('tcpx-b', 'nccl-tcpx-installer', 'gke-demo-np-1-b', true),
      pod('nri-a', 'device-injector', 'gke-demo-np-1-a', true),
      pod('nri-b', 'device-injector', 'gke-demo-np-1-b', false),
      // Not an installer: not listed.
      pod('proxy-a', 'kube-proxy', 'gke-demo-np-0-a', true),
    ]) {
      const {ready, ...object} = p
      kube.seed(object, {status: {conditions: [{type: 'Ready', status: ready ? 'True' : 'False'}]}})
    }
    kube.clearLog()
    const inside = insideOf(await run({kube}).done)
    expect(inside.nodePools.map((p) => [p.name, p.installers])).toEqual([
      ['default-pool', undefined],
      ['demo-np-0', undefined],
      [
        'demo-np-1',
        [
          {daemonSet: 'device-injector', ready: 1, nodes: 2},
          {daemonSet: 'nccl-tcpx-installer', ready: 2, nodes: 2},
        ],
      ],
    ])
    expect(kube.requests.filter((r) => r.kind === 'Pod').map((r) => [r.verb, r.namespace])).toEqual([
      ['list', 'kube-system'],
    ])
  })

  it('adds the controller versions, the ClusterQueue quota and usage, workload counts and nodes per pool by name', async () => {
    const kube = aWorkingCluster()
    const {done, console, reached} = run({kube})
    const description = await done
    expect(description).toMatchObject({name: 'demo', project: 'test-project'})
    expect(reached.map((c) => c?.name)).toEqual(['demo'])
    expect(description.inCluster).toEqual({
      reached: true,
      via: 'gke',
      target: 'memory://kube',
      jobset: {
        installed: true,
        version: 'v0.10.1',
        image: 'registry.k8s.io/jobset/jobset:v0.10.1',
        available: true,
      },
      kueue: {installed: true, version: 'v0.17.1', image: 'registry.k8s.io/kueue/kueue:v0.17.1', available: true},
      clusterQueues: [
        {
          name: 'cluster-queue',
          admittedWorkloads: 1,
          pendingWorkloads: 3,
          reservingWorkloads: 1,
          flavors: [
            {name: '2xv5p-16', resources: [{name: 'google.com/tpu', nominalQuota: '16', reserved: '8', used: '8'}]},
          ],
        },
      ],
      nodes: {ready: 4, total: 6},
      nodePools: [
        {name: 'default-pool', expected: 2, ready: 2, total: 2},
        // No Ready node: 0 here, and demo-np-1 keeps its own counts (Python's columns would shift).
        {name: 'demo-np-0', expected: 2, ready: 0, total: 2},
        {name: 'demo-np-1', expected: 2, ready: 2, total: 2},
      ],
      // No Ray operator: the kind is not served, and that is nothing to show rather than an error.
      rayClusters: [],
    })
    expect(console.messages).toEqual([])
    // Reads only, a fixed set: the two controllers by name, one list of ClusterQueues and of RayClusters, one page
    // of Nodes, one of the GPUDirect installers' pods.
    expect(kube.mutatingRequests()).toEqual([])
    expect(reads(kube).sort()).toEqual([
      'get apps/v1 Deployment jobset-controller-manager',
      'get apps/v1 Deployment kueue-controller-manager',
      'list kueue.x-k8s.io/v1beta2 ClusterQueue',
      'list ray.io/v1 RayCluster',
      'list v1 Node',
      'list v1 Pod',
    ])
  })

  it('lists a large cluster in pages of 500 nodes, never one request per node', async () => {
    const kube = new MemoryKube()
    const names = (pool: string, n: number) => Array.from({length: n}, (_, i) => `gke-${pool}-${i}`)
    kube.addNodes(names('demo-np-0', 1000), {[POOL_LABEL]: 'demo-np-0'})
    notReadyNodes(kube, names('demo-np-1', 201), 'demo-np-1')
    kube.clearLog()
    const pools = [anObservedPool({name: 'demo-np-0', nodeCount: 1000}), anObservedPool({name: 'demo-np-1'})]
    const description = await run({kube, gke: new MemoryGke(pools)}).done
    const nodeReads = kube.requests.filter((r) => r.kind === 'Node')
    expect(nodeReads.map((r) => [r.verb, r.list?.limit])).toEqual([
      ['list', 500],
      ['list', 500],
      ['list', 500],
    ])
    expect(insideOf(description).nodePools).toEqual([
      {name: 'demo-np-0', expected: 1000, ready: 1000, total: 1000},
      {name: 'demo-np-1', expected: 2, ready: 0, total: 201},
    ])
    expect(insideOf(description).nodes).toEqual({ready: 1000, total: 1201})
  })

  it('says "not installed" and finds no ClusterQueue on a bare cluster, without a second try in v1beta1', async () => {
    const kube = new MemoryKube()
    kube.addNodes(['n-0'], {[POOL_LABEL]: 'default-pool'})
    kube.clearLog()
    const inside = insideOf(await run({kube}).done)
    expect(inside.jobset).toEqual({installed: false, version: null, image: null, available: null})
    expect(inside.kueue.installed).toBe(false)
    expect(inside.clusterQueues).toEqual([])
    expect(kube.requests.filter((r) => r.kind === 'ClusterQueue').map((r) => r.apiVersion)).toEqual([
      'kueue.x-k8s.io/v1beta2',
    ])
    // GKE's pools with no node yet show 0 of 0.
    expect(inside.nodePools.map((p) => [p.name, p.total])).toEqual([
      ['default-pool', 1],
      ['demo-np-0', 0],
      ['demo-np-1', 0],
    ])
  })

  it('reads the ClusterQueues of a Kueue older than v0.15 in v1beta1, the only version it serves', async () => {
    const kube = new MemoryKube()
    installed(kube, 'kueue', 'v0.14.2')
    kube.seed(
      {apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'ClusterQueue', metadata: {name: 'old-queue'}, spec: {}},
      {status: {admittedWorkloads: 4, pendingWorkloads: 0}},
    )
    kube.clearLog()
    const inside = insideOf(await run({kube}).done)
    expect(inside.kueue.version).toBe('v0.14.2')
    expect(inside.clusterQueues.map((q) => [q.name, q.admittedWorkloads, q.pendingWorkloads])).toEqual([
      ['old-queue', 4, 0],
    ])
    expect(kube.requests.filter((r) => r.kind === 'ClusterQueue').map((r) => r.apiVersion)).toEqual([
      'kueue.x-k8s.io/v1beta2',
      'kueue.x-k8s.io/v1beta1',
    ])
  })

  it("shows cluster create-ray's RayCluster as KubeRay reports it: state, head, workers, dashboard address", async () => {
    const kube = aWorkingCluster()
    kube.seed(kubeRayCrd())
    for (const namespace of ['ray', 'team-a'])
      kube.seed({apiVersion: 'v1', kind: 'Namespace', metadata: {name: namespace}})
    const rayCluster = (namespace: string, name: string) => ({
      apiVersion: 'ray.io/v1',
      kind: 'RayCluster',
      metadata: {name, namespace},
      spec: {rayVersion: '2.38.0'},
    })
    kube.seed(rayCluster('ray', 'raycluster'), {status: kubeRayStatus({readyWorkers: 1, desiredWorkers: 2})})
    // Just created: KubeRay has written no status yet.
    kube.seed(rayCluster('ray', 'another'))
    // Someone else's, outside `ray`: not xpk's, not read.
    kube.seed(rayCluster('team-a', 'theirs'), {status: kubeRayStatus()})
    kube.clearLog()
    const {done, console} = run({kube})
    const inside = insideOf(await done)
    expect(inside.rayClusters).toEqual([
      {
        namespace: 'ray',
        name: 'another',
        state: null,
        reason: null,
        headReady: null,
        workers: {ready: null, desired: null},
        dashboard: null,
        headServiceIp: null,
      },
      {
        namespace: 'ray',
        name: 'raycluster',
        state: 'ready',
        reason: null,
        headReady: true,
        workers: {ready: 1, desired: 2},
        dashboard: 'raycluster-head-svc.ray.svc:8265',
        headServiceIp: '34.118.230.17',
      },
    ])
    expect(console.messages).toEqual([])
    const rayReads = kube.requests.filter((r) => r.kind === 'RayCluster')
    expect(rayReads.map((r) => [r.verb, r.apiVersion, r.list?.namespace])).toEqual([['list', 'ray.io/v1', 'ray']])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a cluster that serves the kind with no RayCluster in it shows none, without a note', async () => {
    const kube = aWorkingCluster()
    kube.seed(kubeRayCrd())
    kube.clearLog()
    const {done, console} = run({kube})
    expect(insideOf(await done).rayClusters).toEqual([])
    expect(console.messages).toEqual([])
  })

  it('--skip-in-cluster keeps to GKE: the cluster is not reached and nothing is said', async () => {
    const {done, reached, console} = run({options: {skipInCluster: true}})
    const description = await done
    expect(description.inCluster).toEqual({reached: false, reason: 'skipped', cause: null})
    expect(description).toMatchObject({name: 'demo', nodePools: gkePools()})
    expect(reached).toEqual([])
    expect(console.messages).toEqual([])
  })

  it('a control plane that keeps failing is a warning with its cause, after 3 attempts; GKE is still shown', async () => {
    const kube = aWorkingCluster().failNext(100, {kind: 'Node'})
    const {done, console, clock} = run({kube})
    const description = await done
    expect(description).toMatchObject({name: 'demo', nodePools: gkePools()})
    expect(description.inCluster).toMatchObject({reached: false, reason: 'unreachable'})
    expect((description.inCluster as {cause: string}).cause).toContain('the server is currently unable')
    expect(kube.requests.filter((r) => r.kind === 'Node')).toHaveLength(3)
    expect(clock.sleeps).toHaveLength(2)
    const warning = console.the('cluster.describe.unreachable')
    expect(console.codes('warn')).toEqual(['cluster.describe.unreachable'])
    expect(warning.data).toMatchObject({cluster: 'demo', kind: 'unavailable'})
    expect(warning.text).toContain('--skip-in-cluster')
  })

  it('one transient failure is retried and the description is complete', async () => {
    const kube = aWorkingCluster().failNext(1, {kind: 'ClusterQueue'})
    const {done, console} = run({kube})
    expect(insideOf(await done).clusterQueues).toHaveLength(1)
    expect(console.messages).toEqual([])
  })

  it('a refused connection or missing RBAC rights is a warning too, naming what failed', async () => {
    const refused = run({
      kube: async () => {
        throw kubeNetworkError(new Error('connect ECONNREFUSED 203.0.113.10:443'), 'https://203.0.113.10', 'Listing')
      },
    })
    expect((await refused.done).inCluster).toMatchObject({reached: false, reason: 'unreachable'})
    expect(refused.console.the('cluster.describe.unreachable').text).toContain('ECONNREFUSED')

    const forbidden = run({kube: aWorkingCluster().failNext(1, {kind: 'Node'}, 403, 'nodes is forbidden')})
    expect((await forbidden.done).inCluster).toMatchObject({reached: false, reason: 'unreachable'})
    expect(forbidden.console.the('cluster.describe.unreachable').data).toMatchObject({kind: 'permission'})
  })

  it('a bug is not turned into a note', async () => {
    const {done} = run({
      kube: async () => {
        throw new TypeError('undefined is not a function')
      },
    })
    await expect(done).rejects.toThrow(TypeError)
  })

  it('a cluster GKE does not know is exit 4, before anything is reached inside', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const {done, reached} = run({gke})
    const error = (await done.catch((e: unknown) => e)) as XpkError
    expect(error).toBeInstanceOf(XpkError)
    expect(error.exitCode).toBe(4)
    expect(reached).toEqual([])
  })
})

describe('describeCluster: through a kubeconfig', () => {
  it('does not ask GKE, says so, and counts nodes per pool without an expected count', async () => {
    const kube = aWorkingCluster()
    const {done, console, reached, gkeConnections} = run({kube, options: {target: null}})
    const description = await done
    expect(gkeConnections()).toBe(0)
    expect(reached).toEqual([undefined])
    expect('name' in description).toBe(false)
    expect(insideOf(description)).toMatchObject({reached: true, via: 'kubeconfig'})
    expect(insideOf(description).nodePools).toEqual([
      {name: 'default-pool', expected: null, ready: 2, total: 2},
      {name: 'demo-np-0', expected: null, ready: 0, total: 2},
      {name: 'demo-np-1', expected: null, ready: 2, total: 2},
    ])
    expect(console.codes()).toEqual(['cluster.describe.no-gke'])
  })

  it('fails when the cluster cannot be read: the inside is all there is to show', async () => {
    const kube = aWorkingCluster().failNext(100, {kind: 'Node'})
    const error = (await run({kube, options: {target: null}}).done.catch((e: unknown) => e)) as XpkError
    expect(error).toBeInstanceOf(XpkError)
    expect(error.exitCode).toBe(7)
  })
})
