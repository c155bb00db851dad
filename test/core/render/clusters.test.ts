// The `cluster describe` text: GKE's facts and node-pool table as before, then a section read inside the cluster.
// Every variant's exact text is in test/golden/tables/cluster-describe.txt (test/core/render/tables-golden.test.ts).
import {describe, expect, it} from 'vitest'

import type {InClusterState} from '../../../src/core/incluster/describe.js'
import {renderClusterDetails} from '../../../src/core/render/clusters.js'
import {PLAIN_TABLE} from '../../../src/core/render/output.js'
import {anObservedCluster, anObservedPool} from '../../builders/observed.js'

const cluster = anObservedCluster({
  nodePools: [
    anObservedPool({name: 'default-pool', machineType: 'e2-standard-16', tpuTopology: null, nodeCount: 2}),
    anObservedPool({name: 'demo-np-0'}),
  ],
})

const inside: InClusterState = {
  reached: true,
  via: 'gke',
  target: 'https://203.0.113.10',
  jobset: {installed: true, version: 'v0.10.1', image: 'registry.k8s.io/jobset/jobset:v0.10.1', available: true},
  kueue: {installed: true, version: 'v0.17.1', image: 'registry.k8s.io/kueue/kueue:v0.17.1', available: false},
  clusterQueues: [
    {
      name: 'cluster-queue',
      admittedWorkloads: 1,
      pendingWorkloads: 2,
      reservingWorkloads: 1,
      flavors: [{name: '1xv5p-16', resources: [{name: 'google.com/tpu', nominalQuota: '8', reserved: '8', used: '8'}]}],
    },
  ],
  nodes: {ready: 2, total: 4},
  nodePools: [
    {name: 'default-pool', expected: 2, ready: 2, total: 2},
    {name: 'demo-np-0', expected: 2, ready: 0, total: 2},
  ],
  rayClusters: [],
}

const today = renderClusterDetails(cluster)

describe('renderClusterDetails', () => {
  it('puts the inside of the cluster after the node-pool table, leaving what came before unchanged', () => {
    const text = renderClusterDetails({...cluster, inCluster: inside})
    expect(text.startsWith(`${today}\n\n`)).toBe(true)
    expect(text.slice(today.length + 2)).toBe(
      [
        'Inside the cluster, at https://203.0.113.10:',
        'JobSet:                      v0.10.1',
        'Kueue:                       v0.17.1, not Available',
        'Workloads in cluster-queue:  1 admitted, 2 pending, 1 reserving quota',
        'Nodes:                       2 of 4 ready',
        '',
        'CLUSTER QUEUE   FLAVOR     RESOURCE         QUOTA   RESERVED   USED',
        'cluster-queue   1xv5p-16   google.com/tpu   8       8          8',
        '',
        'NODE POOL      EXPECTED   READY   TOTAL',
        'default-pool   2          2       2',
        'demo-np-0      2          0       2',
      ].join('\n'),
    )
  })

  it.each(['skipped', 'unreachable'] as const)('shows only what GKE reports when the inside was %s', (reason) => {
    const text = renderClusterDetails({...cluster, inCluster: {reached: false, reason, cause: null}})
    expect(text).toBe(today)
    expect(text).not.toContain('Inside the cluster')
  })

  it('through a kubeconfig shows only the inside, without the expected column GKE would have given', () => {
    const text = renderClusterDetails({
      inCluster: {
        ...inside,
        via: 'kubeconfig',
        target: 'https://127.0.0.1:6443 (context kind-demo)',
        nodePools: [{name: 'pool-a', expected: null, ready: 1, total: 3}],
      },
    })
    expect(text).not.toContain('Cluster:')
    expect(text.split('\n\n').at(-1)).toBe(['NODE POOL   READY   TOTAL', 'pool-a      1       3'].join('\n'))
    expect(text.split('\n')[0]).toBe('Inside the cluster, at https://127.0.0.1:6443 (context kind-demo):')
  })
})

describe('the GPUDIRECT INSTALLERS READY column', () => {
  it('shows, on the pools that have one, how many nodes run a ready pod of each installer; - on the others', () => {
    const text = renderClusterDetails({
      inCluster: {
        ...inside,
        nodePools: [
          {name: 'default-pool', expected: 2, ready: 2, total: 2},
          {
            name: 'demo-np-0',
            expected: 2,
            ready: 2,
            total: 2,
            installers: [
              {daemonSet: 'device-injector', ready: 1, nodes: 2},
              {daemonSet: 'nccl-tcpx-installer', ready: 2, nodes: 2},
            ],
          },
        ],
      },
    })
    expect(
      text
        .split('\n\n')
        .at(-1)!
        .split('\n')
        .map((l) => l.trimEnd()),
    ).toEqual([
      'NODE POOL      EXPECTED   READY   TOTAL   GPUDIRECT INSTALLERS READY',
      'default-pool   2          2       2       -',
      'demo-np-0      2          2       2       device-injector 1/2, nccl-tcpx-installer 2/2',
    ])
  })
})

describe('the GPU NETWORKS column (-o wide)', () => {
  it('names each network once, with its NIC count where several NICs share it (the RDMA network)', () => {
    const ultra = anObservedCluster({
      nodePools: [
        anObservedPool({
          name: 'u-np-0',
          additionalNodeNetworks: ['u-net-1', ...Array.from({length: 8}, () => 'u-rdma-net')],
        }),
      ],
    })
    expect(renderClusterDetails(ultra, {...PLAIN_TABLE, wide: true})).toContain('u-net-1,u-rdma-net (8 NICs)')
  })
})
