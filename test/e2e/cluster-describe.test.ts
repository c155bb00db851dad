// `xpk cluster describe` as a process: GKE from the gRPC fake, the inside of the cluster from the Kubernetes fake
// over HTTPS (the GKE fake hands out its endpoint and CA, as GKE does). The Kueue CRDs are the real ones when the
// tests can find them, so the ClusterQueue status seeded here is one the real schema accepts.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {FakeGke, type SeedNodePool} from '../fakes/fake-gke.js'
import {FakeKube} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {expectGolden} from '../helpers/golden.js'
import {poolNode, seedInstalledControllers, seedTpuClusterQueue} from '../helpers/cluster-inside.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'

let gke: FakeGke
let kube: FakeKube
let kubeconfig: string

const env = () =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_RETRY_INTERVAL_MS: '20',
  })
/** The text with the Kubernetes fake's address (a free port, new each run) as `<kube>`, for the goldens. */
const atEndpoint = (text: string) => text.replaceAll(kube.endpoint, '<kube>')
const describeCluster = (...extra: string[]) =>
  runCli(['cluster', 'describe', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo', ...extra], {env: env()})

// Nodes in one zone, as xpk's pools are (a pool without locations spans the region's zones: 2 nodes in each).
const slice = (name: string): SeedNodePool => ({
  name,
  locations: [ZONE],
  initialNodeCount: 2,
  config: {machineType: 'ct5p-hightpu-4t', spot: true},
  placementPolicy: {type: 'COMPACT', tpuTopology: '2x2x2'},
})

/**
 * GKE: the default pool and two v5p-16 slices. Inside: JobSet and Kueue installed and Available, the
 * ClusterQueue with Kueue's status, demo-np-0's nodes NotReady (Python's columns would shift there).
 */
function seedWorkingCluster(): void {
  gke.seedCluster({
    project: PROJECT,
    location: REGION,
    name: 'demo',
    nodePools: [
      {name: 'default-pool', locations: [ZONE], initialNodeCount: 2, config: {machineType: 'e2-standard-16'}},
      slice('demo-np-0'),
      slice('demo-np-1'),
    ],
  })
  seedInstalledControllers(kube)
  seedTpuClusterQueue(kube, {flavor: '2xv5p-16', chips: 16, admitted: 1, pending: 2, reserving: 1, used: '8'})
  kube.seed(
    poolNode('gke-demo-default-pool-a', 'default-pool'),
    poolNode('gke-demo-default-pool-b', 'default-pool'),
    poolNode('gke-demo-np-0-a', 'demo-np-0', false),
    poolNode('gke-demo-np-0-b', 'demo-np-0', false),
    poolNode('gke-demo-np-1-a', 'demo-np-1'),
    poolNode('gke-demo-np-1-b', 'demo-np-1'),
  )
  kube.requests.length = 0
}

const wire = fakesForFile(async (fakes) => {
  ;({kube, gke} = await startKubeAndGke(fakes, {gke: {operationMs: 20}}))
  kubeconfig = join(tempDir('xpk-kubeconfig-'), 'config')
  writeFileSync(kubeconfig, kube.kubeconfig())
})

describe('cluster describe: inside the cluster', () => {
  it('adds versions, queue quota and usage, workload counts and nodes per pool after the node-pool table', async () => {
    seedWorkingCluster()
    const result = await describeCluster()
    expect(result.code, result.stderr).toBe(0)
    // GKE's facts and node pools, then the inside: versions, workload counts, queue quota and usage, nodes per pool.
    expectGolden('cli/cluster-describe-inside.txt', atEndpoint(result.stdout))
    expect(result.stderr).toBe('')
    // Reads only, each kind once: no request per node.
    expect(kube.mutatingRequests()).toEqual([])
    expect(kube.requestCount({resource: 'nodes'})).toBe(1)
    expect(kube.requestCount({resource: 'clusterqueues'})).toBe(1)
    expect(kube.requestCount({resource: 'deployments'})).toBe(2)
  })

  it('--json adds an inCluster object and keeps the GKE fields', async () => {
    seedWorkingCluster()
    const result = await describeCluster('--json')
    expect(result.code, result.stderr).toBe(0)
    const json = JSON.parse(result.stdout)
    expect(json).toMatchObject({project: PROJECT, name: 'demo', location: REGION, status: 'RUNNING'})
    expect(json.nodePools.map((p: {name: string}) => p.name)).toEqual(['default-pool', 'demo-np-0', 'demo-np-1'])
    expect(json.inCluster).toEqual({
      reached: true,
      via: 'gke',
      target: kube.url,
      jobset: {installed: true, version: 'v0.10.1', image: 'registry.k8s.io/jobset/jobset:v0.10.1', available: true},
      kueue: {installed: true, version: 'v0.17.1', image: 'registry.k8s.io/kueue/kueue:v0.17.1', available: true},
      clusterQueues: [
        {
          name: 'cluster-queue',
          admittedWorkloads: 1,
          pendingWorkloads: 2,
          reservingWorkloads: 1,
          flavors: [
            {name: '2xv5p-16', resources: [{name: 'google.com/tpu', nominalQuota: '16', reserved: '8', used: '8'}]},
          ],
        },
      ],
      nodes: {ready: 4, total: 6},
      nodePools: [
        {name: 'default-pool', expected: 2, ready: 2, total: 2},
        {name: 'demo-np-0', expected: 2, ready: 0, total: 2},
        {name: 'demo-np-1', expected: 2, ready: 2, total: 2},
      ],
      // No Ray operator: the API server answers the list of RayClusters with a 404, which is none, not an error.
      rayClusters: [],
    })
    expect(result.stderr).not.toMatch(/ray/i)
  })

  it('--skip-in-cluster prints what GKE reports and sends nothing to the cluster', async () => {
    seedWorkingCluster()
    const result = await describeCluster('--skip-in-cluster')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.trim().split('\n\n')).toHaveLength(2)
    expect(result.stdout).not.toContain('Inside the cluster')
    expect(kube.requests).toEqual([])
  })

  it('a control plane that refuses the token is a warning with the cause, not a failure', async () => {
    seedWorkingCluster()
    const result = await runCli(['cluster', 'describe', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo'], {
      env: {...env(), XPK_ACCESS_TOKEN: 'not-the-token'},
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^Cluster:\s+demo$/m)
    expect(result.stdout).not.toContain('Inside the cluster')
    expect(result.stderr).toMatch(/^Warning: Could not read inside cluster demo.*Unauthorized/m)
  })

  it('a control plane that cannot be reached at all is a warning too', async () => {
    await kube.stop()
    try {
      seedWorkingClusterInGkeOnly()
      const result = await describeCluster('--json')
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout).inCluster).toMatchObject({reached: false, reason: 'unreachable'})
      expect(JSON.parse(result.stdout).inCluster.cause).toMatch(
        /could not reach the Kubernetes API at https:\/\/127\.0\.0\.1:\d+/,
      )
      expect(result.stderr).toMatch(/^Warning: Could not read inside cluster demo/m)
    } finally {
      kube = wire.add(await FakeKube.start({token: kube.token}))
      await gke.stop()
      gke = wire.add(await FakeGke.start({operationMs: 20, ...kube.gkeClusterOptions()}))
      writeFileSync(kubeconfig, kube.kubeconfig())
    }
  })

  it('--kubeconfig reads inside any cluster without the GKE API, and says there is no GKE node-pool info', async () => {
    seedWorkingCluster()
    const result = await runCli(['cluster', 'describe', '--kubeconfig', kubeconfig], {env: env()})
    expect(result.code, result.stderr).toBe(0)
    expect(gke.calls).toEqual([])
    // Only the inside, and its node pools without the expected count GKE would have given.
    expectGolden('cli/cluster-describe-kubeconfig.txt', atEndpoint(result.stdout))
    expect(result.stderr).toContain('GKE was not asked')

    const json = await runCli(['cluster', 'describe', '--kubeconfig', kubeconfig, '--json'], {env: env()})
    expect(json.code, json.stderr).toBe(0)
    expect(Object.keys(JSON.parse(json.stdout))).toEqual(['inCluster'])
  })

  it('--kubeconfig with --skip-in-cluster is a usage error', async () => {
    const result = await runCli(['cluster', 'describe', '--kubeconfig', kubeconfig, '--skip-in-cluster'], {env: env()})
    expect(result.code).toBe(2)
    expect(kube.requests).toEqual([])
  })
})

/** Only GKE's side of the cluster (the Kubernetes fake is down). */
function seedWorkingClusterInGkeOnly(): void {
  gke.seedCluster({
    project: PROJECT,
    location: REGION,
    name: 'demo',
    nodePools: [{name: 'default-pool', initialNodeCount: 2, config: {machineType: 'e2-standard-16'}}],
  })
}
