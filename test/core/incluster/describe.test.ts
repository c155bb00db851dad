// What `cluster describe` computes from the objects it lists inside the cluster: controller versions, ClusterQueue
// quota joined with its usage, and node counts per pool keyed by name (Python's positional counts shift columns).
import {describe, expect, it} from 'vitest'

import {
  clusterQueueState,
  controllerState,
  needsV1beta1Fallback,
  nodeHealth,
  nodeTotals,
  poolNodes,
  rayClusterState,
  type NodeHealth,
} from '../../../src/core/incluster/describe.js'
import type {KubeObject} from '../../../src/core/kube/release-manifest.js'
import {anObservedPool} from '../../builders/observed.js'
import {kubeRayStatus} from '../../helpers/ray.js'

const deployment = (image: string, available: boolean): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {name: 'kueue-controller-manager', namespace: 'kueue-system'},
  spec: {
    template: {
      spec: {
        containers: [
          {name: 'kube-rbac-proxy', image: 'proxy:v1'},
          {name: 'manager', image},
        ],
      },
    },
  },
  status: {conditions: [{type: 'Available', status: available ? 'True' : 'False'}]},
})

const node = (name: string, pool: string | undefined, ready: 'True' | 'False' | 'Unknown' | null): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {name, labels: pool === undefined ? {} : {'cloud.google.com/gke-nodepool': pool}},
  status:
    ready === null
      ? {}
      : {
          conditions: [
            {type: 'MemoryPressure', status: 'False'},
            {type: 'Ready', status: ready},
          ],
        },
})

describe('controllerState', () => {
  it('is "not installed" without a Deployment', () => {
    expect(controllerState(undefined)).toEqual({installed: false, version: null, image: null, available: null})
  })

  it("reads the manager container's image tag and the Available condition", () => {
    expect(controllerState(deployment('registry.k8s.io/kueue/kueue:v0.17.1', true))).toEqual({
      installed: true,
      version: 'v0.17.1',
      image: 'registry.k8s.io/kueue/kueue:v0.17.1',
      available: true,
    })
    expect(controllerState(deployment('registry.k8s.io/kueue/kueue:v0.14.2', false))).toMatchObject({
      version: 'v0.14.2',
      available: false,
    })
  })

  it('has no version for an image pinned only by digest, but keeps the image', () => {
    const image = `registry.k8s.io/kueue/kueue@sha256:${'a'.repeat(64)}`
    expect(controllerState(deployment(image, true))).toMatchObject({installed: true, version: null, image})
  })
})

describe('needsV1beta1Fallback', () => {
  const kueue = (version: string | null, installed = true) => ({installed, version, image: 'x', available: true})
  it.each([
    ['not installed', kueue(null, false), false],
    ['v0.17.1 serves v1beta2', kueue('v0.17.1'), false],
    ['v0.15.0 serves v1beta2', kueue('v0.15.0'), false],
    ['v0.14.2 serves only v1beta1', kueue('v0.14.2'), true],
    ['v0.9.0 (not "after" v0.15 as a string would be)', kueue('v0.9.0'), true],
    ['an unknown version may be old', kueue(null), true],
    ['a custom tag may be old', kueue('main-abc123'), true],
  ])('%s: %s', (_, state, expected) => {
    expect(needsV1beta1Fallback(state)).toBe(expected)
  })
})

describe('clusterQueueState', () => {
  const queue = (status?: Record<string, unknown>): KubeObject => ({
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'ClusterQueue',
    metadata: {name: 'cluster-queue'},
    spec: {
      resourceGroups: [
        {
          coveredResources: ['google.com/tpu', 'memory'],
          flavors: [
            {
              name: '2xv5p-16',
              resources: [
                {name: 'google.com/tpu', nominalQuota: 16},
                {name: 'memory', nominalQuota: '512Gi'},
              ],
            },
            {name: 'spare', resources: [{name: 'google.com/tpu', nominalQuota: '8'}]},
          ],
        },
      ],
    },
    ...(status === undefined ? {} : {status}),
  })

  it('joins the quota of each flavor and resource with what is reserved and used, as quantities', () => {
    const state = clusterQueueState(
      queue({
        admittedWorkloads: 2,
        pendingWorkloads: 5,
        reservingWorkloads: 3,
        flavorsReservation: [{name: '2xv5p-16', resources: [{name: 'google.com/tpu', total: '12', borrowed: '0'}]}],
        flavorsUsage: [{name: '2xv5p-16', resources: [{name: 'google.com/tpu', total: 8}]}],
      }),
    )
    expect(state).toEqual({
      name: 'cluster-queue',
      admittedWorkloads: 2,
      pendingWorkloads: 5,
      reservingWorkloads: 3,
      flavors: [
        {
          name: '2xv5p-16',
          resources: [
            {name: 'google.com/tpu', nominalQuota: '16', reserved: '12', used: '8'},
            // The status lists no memory: nothing holds any.
            {name: 'memory', nominalQuota: '512Gi', reserved: '0', used: '0'},
          ],
        },
        {name: 'spare', resources: [{name: 'google.com/tpu', nominalQuota: '8', reserved: '0', used: '0'}]},
      ],
    })
  })

  it('says nothing about usage or counts before Kueue has written a status', () => {
    const state = clusterQueueState(queue())
    expect(state).toMatchObject({admittedWorkloads: null, pendingWorkloads: null, reservingWorkloads: null})
    expect(state.flavors[0]!.resources[0]).toEqual({
      name: 'google.com/tpu',
      nominalQuota: '16',
      reserved: null,
      used: null,
    })
  })

  it('counts missing from a written status are 0 (Kueue leaves zeros out)', () => {
    expect(clusterQueueState(queue({flavorsUsage: []}))).toMatchObject({
      admittedWorkloads: 0,
      pendingWorkloads: 0,
      reservingWorkloads: 0,
    })
  })

  it('keeps a flavor only the status names (quota removed while workloads still hold it), after the spec ones', () => {
    const state = clusterQueueState(
      queue({flavorsUsage: [{name: '1xv5p-16', resources: [{name: 'google.com/tpu', total: '8'}]}]}),
    )
    expect(state.flavors.map((f) => f.name)).toEqual(['2xv5p-16', 'spare', '1xv5p-16'])
    expect(state.flavors[2]).toEqual({
      name: '1xv5p-16',
      resources: [{name: 'google.com/tpu', nominalQuota: null, reserved: '0', used: '8'}],
    })
  })
})

describe('nodeHealth', () => {
  it.each<[string, KubeObject, NodeHealth]>([
    ['a Ready node of a pool', node('a', 'np-0', 'True'), {pool: 'np-0', ready: true}],
    ['NotReady', node('b', 'np-0', 'False'), {pool: 'np-0', ready: false}],
    ['Unknown (the kubelet stopped reporting)', node('c', 'np-0', 'Unknown'), {pool: 'np-0', ready: false}],
    ['no conditions yet', node('d', 'np-0', null), {pool: 'np-0', ready: false}],
    ['no pool label', node('e', undefined, 'True'), {pool: null, ready: true}],
  ])('%s', (_, object, expected) => {
    expect(nodeHealth(object)).toEqual(expected)
  })
})

describe('rayClusterState', () => {
  const rayCluster = (status?: Record<string, unknown>) =>
    ({
      apiVersion: 'ray.io/v1',
      kind: 'RayCluster',
      metadata: {name: 'raycluster', namespace: 'ray'},
      ...(status ? {status} : {}),
    }) as KubeObject

  it("reads KubeRay's state, the head's HeadPodReady condition, the workers and the head service's dashboard port", () => {
    expect(rayClusterState(rayCluster(kubeRayStatus({readyWorkers: 1, desiredWorkers: 3})))).toEqual({
      namespace: 'ray',
      name: 'raycluster',
      state: 'ready',
      reason: null,
      headReady: true,
      workers: {ready: 1, desired: 3},
      dashboard: 'raycluster-head-svc.ray.svc:8265',
      headServiceIp: '34.118.230.17',
    })
  })

  it('says nothing it was not told before KubeRay writes a status', () => {
    expect(rayClusterState(rayCluster())).toEqual({
      namespace: 'ray',
      name: 'raycluster',
      state: null,
      reason: null,
      headReady: null,
      workers: {ready: null, desired: null},
      dashboard: null,
      headServiceIp: null,
    })
  })

  it("has no dashboard address while the head service's dashboard port is not reported, and keeps the reason", () => {
    const status = {...kubeRayStatus({headReady: false}), endpoints: {client: '10001'}, reason: 'HeadPodFailed'}
    expect(rayClusterState(rayCluster(status))).toMatchObject({
      headReady: false,
      reason: 'HeadPodFailed',
      dashboard: null,
      headServiceIp: '34.118.230.17',
    })
  })
})

describe('poolNodes', () => {
  const ready = (pool: string | null, n: number): NodeHealth[] => Array.from({length: n}, () => ({pool, ready: true}))
  const notReady = (pool: string | null, n: number): NodeHealth[] =>
    Array.from({length: n}, () => ({pool, ready: false}))

  it('counts by pool name: a pool with no ready node shows 0 and the next pool keeps its own counts', () => {
    // Python appends `uniq -c` counts by position: np-0's missing ready count would take np-1's 4, and np-1
    // would get nothing. Here each row is keyed by its pool.
    const pools = [
      anObservedPool({name: 'default-pool', nodeCount: 2}),
      anObservedPool({name: 'np-0', nodeCount: 4}),
      anObservedPool({name: 'np-1', nodeCount: 4}),
    ]
    const nodes = [...ready('default-pool', 2), ...notReady('np-0', 4), ...ready('np-1', 4)]
    expect(poolNodes(pools, nodes)).toEqual([
      {name: 'default-pool', expected: 2, ready: 2, total: 2},
      {name: 'np-0', expected: 4, ready: 0, total: 4},
      {name: 'np-1', expected: 4, ready: 4, total: 4},
    ])
  })

  it('shows a pool GKE lists but with no node yet as 0 of 0, and keeps GKE order', () => {
    const pools = [anObservedPool({name: 'zz-pool', nodeCount: 1}), anObservedPool({name: 'aa-pool', nodeCount: 2})]
    expect(poolNodes(pools, [...ready('aa-pool', 1), ...notReady('aa-pool', 1)])).toEqual([
      {name: 'zz-pool', expected: 1, ready: 0, total: 0},
      {name: 'aa-pool', expected: 2, ready: 1, total: 2},
    ])
  })

  it('expects the node count in every zone of a multi-zone pool', () => {
    const pools = [anObservedPool({name: 'cpu', nodeCount: 3, locations: ['us-central2-a', 'us-central2-b']})]
    expect(poolNodes(pools, [])[0]).toMatchObject({expected: 6})
  })

  it('adds pools only the nodes name (GKE does not list them), sorted, with no expected count', () => {
    const pools = [anObservedPool({name: 'np-0', nodeCount: 1})]
    const nodes = [...ready('np-0', 1), ...ready('stale-b', 1), ...notReady('stale-a', 2), ...ready(null, 3)]
    expect(poolNodes(pools, nodes)).toEqual([
      {name: 'np-0', expected: 1, ready: 1, total: 1},
      {name: 'stale-a', expected: null, ready: 0, total: 2},
      {name: 'stale-b', expected: null, ready: 1, total: 1},
    ])
  })

  it('without GKE, lists the pools the nodes name, sorted, with no expected count', () => {
    expect(poolNodes(null, [...notReady('b', 1), ...ready('a', 2), ...ready(null, 1)])).toEqual([
      {name: 'a', expected: null, ready: 2, total: 2},
      {name: 'b', expected: null, ready: 0, total: 1},
    ])
  })

  it('nodeTotals counts every node, in a pool or not', () => {
    expect(nodeTotals([...ready('a', 2), ...notReady('a', 1), ...ready(null, 1), ...notReady(null, 1)])).toEqual({
      ready: 3,
      total: 5,
    })
  })
})
