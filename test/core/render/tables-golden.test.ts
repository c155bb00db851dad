// The exact text of every table and view xpk prints, kept in test/golden/tables/<table>.txt: one section per input
// (empty, typical, long names, text that needs escaping), so a changed column, width, order or word is a visible
// diff in review rather than something a regular expression lets through. UPDATE_GOLDENS=1 accepts a change.
import {describe, expect, it} from 'vitest'

import type {InClusterState} from '../../../src/core/incluster/describe.js'
import {renderAcceleratorDetails, renderAcceleratorTable} from '../../../src/core/render/accelerators.js'
import {renderClusterDetails, renderClusterList} from '../../../src/core/render/clusters.js'
import {renderConfigList} from '../../../src/core/render/config.js'
import {renderWorkloadList} from '../../../src/core/render/workloads.js'
import type {SettingReport} from '../../../src/core/settings.js'
import {renderVmList} from '../../../src/core/vm/render.js'
import type {QueuedResource, TpuNode} from '../../../src/core/vm/types.js'
import {readJobSet, readWorkload, type KueueWorkload, type ObservedJobSet} from '../../../src/core/workload/observed.js'
import {workloadRow, type WorkloadRow} from '../../../src/core/workload/status.js'
import {describeAccelerator, listAccelerators} from '../../../src/services/accelerators.js'
import {anObservedCluster, anObservedPool} from '../../builders/observed.js'
import {SCENARIOS, scenarioObjects} from '../../builders/workload-states.js'
import {expectGolden} from '../../helpers/golden.js'

/** Each case's name and text, as one file: `## name`, the text, a blank line. */
function expectGoldenTable(table: string, cases: readonly (readonly [string, string])[]): void {
  expectGolden(`tables/${table}.txt`, cases.map(([name, text]) => `## ${name}\n${text}\n`).join('\n'))
}

const LONG = 'a-workload-name-that-takes-all-sixty-three-characters-allowed-x'
const HOSTILE = 'line one\r\nline two\ttabbed \u001b[2J\u0007 \u0000\u007f \u202eevil\u2069 \u0085end'

// ---- workload list ----

const scenarioRows: WorkloadRow[] = SCENARIOS.map((scenario) => {
  const {jobset, workload} = scenarioObjects(scenario)
  return workloadRow(
    workload ? readWorkload(workload as unknown as KueueWorkload) : undefined,
    readJobSet(jobset as unknown as ObservedJobSet),
  )
})

const aRow = (overrides: Partial<WorkloadRow>): WorkloadRow => ({...scenarioRows[2]!, ...overrides})

describe('workload list', () => {
  it('matches test/golden/tables/workload-list.txt', () => {
    expect(scenarioRows.length).toBeGreaterThanOrEqual(14)
    expectGoldenTable('workload-list', [
      ['no workloads: the header only', renderWorkloadList([])],
      ['one workload per state the fixtures cover', renderWorkloadList(scenarioRows)],
      [
        'a 63-character name, a long message and nothing known (every "-")',
        renderWorkloadList([
          aRow({name: LONG, statusMessage: Array.from({length: 16}, (_, i) => `Reason number ${i + 1}.`).join(' ')}),
          aRow({
            name: 'bare',
            created: null,
            priority: null,
            vmsNeeded: null,
            vmsRunningOrRan: null,
            vmsDone: null,
            restarts: null,
            statusMessage: '',
            statusTime: null,
          }),
        ]),
      ],
      [
        'line breaks, tabs, terminal controls and bidi marks in name, priority and message',
        renderWorkloadList([aRow({name: `n-${HOSTILE}`, priority: `p-${HOSTILE}`, statusMessage: `m-${HOSTILE}`})]),
      ],
    ])
  })
})

// ---- cluster list and cluster describe ----

const tpuCluster = anObservedCluster({
  nodePools: [
    anObservedPool({name: 'default-pool', machineType: 'e2-standard-16', tpuTopology: null, placementType: null}),
    anObservedPool({name: 'demo-np-0'}),
    anObservedPool({name: 'demo-np-1', capacity: 'spot'}),
    anObservedPool({name: 'demo-np-2', capacity: 'reservation', reservation: 'my-reservation', status: 'PROVISIONING'}),
  ],
})

const gpuCluster = anObservedCluster({
  name: 'gpus',
  location: 'us-east5',
  nodeLocations: ['us-east5-a', 'us-east5-b'],
  status: 'RECONCILING',
  statusMessage: 'Upgrading node pool gpus-np-0.',
  releaseChannel: null,
  privateNodes: true,
  endpoint: '',
  nodePools: [
    anObservedPool({
      name: 'gpus-np-0',
      machineType: 'a3-highgpu-8g',
      tpuTopology: null,
      placementType: null,
      gpu: {type: 'nvidia-h100-80gb', count: 8},
      nodeCount: 16,
      capacity: 'flex',
    }),
  ],
})

const longCluster = anObservedCluster({
  name: 'a-cluster-name-of-forty-characters-long',
  location: 'europe-west4',
  nodeLocations: ['europe-west4-a'],
  status: 'ERROR',
  version: '1.33.5-gke.1162000',
  nodePools: [],
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
      flavors: [
        {
          name: '1xv5p-16',
          resources: [
            {name: 'google.com/tpu', nominalQuota: '24', reserved: '8', used: '8'},
            {name: 'cpu', nominalQuota: '1000', reserved: null, used: null},
          ],
        },
        {name: 'spot-1xv5p-16', resources: [{name: 'google.com/tpu', nominalQuota: '8', reserved: '0', used: '0'}]},
      ],
    },
  ],
  nodes: {ready: 6, total: 8},
  nodePools: [
    {name: 'default-pool', expected: 2, ready: 2, total: 2},
    {name: 'demo-np-0', expected: 2, ready: 2, total: 2},
    {name: 'demo-np-1', expected: 2, ready: 2, total: 2},
    {name: 'demo-np-2', expected: 2, ready: 0, total: 2},
  ],
}

describe('cluster list', () => {
  it('matches test/golden/tables/cluster-list.txt', () => {
    expectGoldenTable('cluster-list', [
      ['no clusters', renderClusterList([])],
      ['TPU, GPU and empty clusters, with a long name', renderClusterList([tpuCluster, gpuCluster, longCluster])],
    ])
  })
})

describe('cluster describe', () => {
  it('matches test/golden/tables/cluster-describe.txt', () => {
    const notRead = {reached: false, reason: 'unreachable', cause: 'connect ECONNREFUSED'} as const
    expectGoldenTable('cluster-describe', [
      ['GKE and the inside of the cluster', renderClusterDetails({...tpuCluster, inCluster: inside})],
      ['the inside could not be read: what GKE reports', renderClusterDetails({...gpuCluster, inCluster: notRead})],
      [
        'no node pools; --skip-in-cluster',
        renderClusterDetails({...longCluster, inCluster: {reached: false, reason: 'skipped', cause: null}}),
      ],
      [
        'through a kubeconfig: only the inside, without the expected column',
        renderClusterDetails({
          inCluster: {
            ...inside,
            via: 'kubeconfig',
            target: 'https://127.0.0.1:6443 (context kind-demo)',
            nodePools: [{name: 'pool-a', expected: null, ready: 1, total: 3}],
          },
        }),
      ],
      [
        'nothing installed inside, no node in a pool',
        renderClusterDetails({
          ...tpuCluster,
          inCluster: {
            ...inside,
            jobset: {installed: false, version: null, image: null, available: null},
            kueue: {installed: false, version: null, image: null, available: null},
            clusterQueues: [],
            nodes: {ready: 0, total: 0},
            nodePools: [],
          },
        }),
      ],
      [
        'Kueue installed without a ClusterQueue',
        renderClusterDetails({...tpuCluster, inCluster: {...inside, clusterQueues: []}}),
      ],
      [
        'Kueue of unknown version, its queue not reported yet',
        renderClusterDetails({
          ...tpuCluster,
          inCluster: {
            ...inside,
            kueue: {installed: true, version: null, image: 'example.com/kueue@sha256:abc', available: true},
            clusterQueues: [{...inside.clusterQueues[0]!, admittedWorkloads: null, pendingWorkloads: null}],
          },
        }),
      ],
    ] as const)
  })
})

// ---- vm list ----

const worker = (i: number, external: boolean) => ({
  internalIp: `10.130.0.${i + 2}`,
  ...(external ? {externalIp: `203.0.113.${i + 20}`} : {}),
})
const node = (id: string, overrides: Partial<TpuNode> = {}): TpuNode => ({
  id,
  acceleratorType: 'v4-16',
  runtimeVersion: 'tpu-ubuntu2204-base',
  state: 'READY',
  queuedResource: 'demo',
  workers: [0, 1].map((i) => worker(i, true)),
  metadata: {},
  ...overrides,
})
const queued = (id: string, overrides: Partial<QueuedResource> = {}): QueuedResource => ({
  id,
  state: 'ACTIVE',
  nodeIds: [`${id}-0`, `${id}-1`],
  acceleratorType: 'v4-16',
  runtimeVersion: 'tpu-ubuntu2204-base',
  capacity: 'on-demand',
  ...overrides,
})

describe('vm list', () => {
  it('matches test/golden/tables/vm-list.txt', () => {
    expectGoldenTable('vm-list', [
      ['nothing', renderVmList({queuedResources: [], nodes: []})],
      [
        'two slices of one queued resource, one waiting, one failed',
        renderVmList({
          queuedResources: [
            queued('demo'),
            queued('later', {state: 'WAITING_FOR_RESOURCES', capacity: 'spot', nodeIds: []}),
            queued('broken', {state: 'FAILED', capacity: 'reserved', nodeIds: ['broken-0'], acceleratorType: 'v5p-8'}),
          ],
          nodes: [node('demo-0'), node('demo-1')],
        }),
      ],
      [
        'nodes without a queued resource; internal IPs only, or some external ones missing; no workers yet',
        renderVmList({
          queuedResources: [],
          nodes: [
            node('solo', {queuedResource: undefined, workers: [0, 1, 2, 3].map((i) => worker(i, false))}),
            node('mixed', {workers: [worker(0, true), worker(1, false)]}),
            node('a-tpu-node-name-of-forty-characters-long', {state: 'CREATING', workers: []}),
          ],
        }),
      ],
    ])
  })
})

// ---- accelerator list and describe, config list ----

describe('accelerator list', () => {
  it('matches test/golden/tables/accelerator-list.txt', () => {
    const aliasesOnly = (family: string) =>
      listAccelerators({family, aliases: true}).filter((a) => a.name !== a.canonical)
    expectGoldenTable('accelerator-list', [
      ['no match', renderAcceleratorTable([])],
      ['--family v5e (a nickname)', renderAcceleratorTable(listAccelerators({family: 'v5e'}))],
      ['--kind gpu', renderAcceleratorTable(listAccelerators({kind: 'gpu'}))],
      ['--kind cpu', renderAcceleratorTable(listAccelerators({kind: 'cpu'}))],
      [
        'the aliases --aliases adds: the first 8 of tpu7x and of v4',
        renderAcceleratorTable([...aliasesOnly('tpu7x').slice(0, 8), ...aliasesOnly('v4').slice(0, 8)]),
      ],
    ])
  })
})

describe('accelerator describe', () => {
  it('matches test/golden/tables/accelerator-describe.txt', () => {
    expectGoldenTable(
      'accelerator-describe',
      ['v5p-8', 'v5p-4x4x8', 'tpu7x-16', 'v5litepod-16', 'h100-80gb-8', 'gb200-4', 'n2-standard-32-4'].map(
        (type) => [type, renderAcceleratorDetails(describeAccelerator(type))] as const,
      ),
    )
  })
})

describe('config list', () => {
  it('matches test/golden/tables/config-list.txt', () => {
    const setting = (key: SettingReport['key'], value: string | undefined, origin: string): SettingReport => ({
      key,
      env: `XPK_${key.toUpperCase().replaceAll('-', '_')}`,
      description: `The ${key}.`,
      value,
      source: value === undefined ? 'unset' : 'config',
      origin,
    })
    expectGoldenTable('config-list', [
      [
        'set from each place, and unset',
        renderConfigList([
          setting('project', 'my-project', 'xpk config'),
          setting('zone', 'us-central2-b', 'gcloud property compute/zone'),
          setting('cluster', 'a-cluster-name-of-forty-characters-long', '--cluster'),
          setting('registry', undefined, ''),
        ]),
      ],
    ])
  })
})
