// The exact text of every table and view xpk prints, kept in test/golden/tables/<table>.txt: one section per input
// (typical, long names, text that needs escaping) and per form that is text (`-o wide`, `--no-headers`, `-o name`),
// so a changed column, width, order or word is a visible diff in review rather than something a regular expression
// lets through. An empty list prints no table (a note on stderr instead: test/core/render/output.test.ts).
// UPDATE_GOLDENS=1 accepts a change.
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {rayClusterState, type InClusterState} from '../../../src/core/incluster/describe.js'
import {
  acceleratorDescribeView,
  acceleratorListView,
  renderAcceleratorDetails,
  renderAcceleratorTable,
} from '../../../src/core/render/accelerators.js'
import {
  clusterDescribeView,
  clusterListView,
  renderClusterDetails,
  renderClusterList,
} from '../../../src/core/render/clusters.js'
import {configListView, renderConfigList} from '../../../src/core/render/config.js'
import {queueInfoView, renderQueueInfo} from '../../../src/core/render/info.js'
import {queueInfo} from '../../../src/core/insight/queues.js'
import type {KubeObject} from '../../../src/ports/kube.js'
import {PLAIN_TABLE, renderOutput, type OutputView} from '../../../src/core/render/output.js'
import {OUTPUT_FORMATS, type OutputChoice} from '../../../src/core/render/output-format.js'
import {renderVmList, vmListView} from '../../../src/core/render/vms.js'
import type {VmJobView} from '../../../src/core/vmjob/record.js'
import {renderVmJobList, vmJobListView} from '../../../src/core/vmjob/render.js'
import {renderWorkloadList, workloadListView} from '../../../src/core/render/workloads.js'
import {renderWorkloadDescription, workloadDescribeView} from '../../../src/core/render/workload-describe.js'
import {describeWorkload, readEvent} from '../../../src/core/workload/describe.js'
import {readPod} from '../../../src/core/workload/why-observed.js'
import {describeInputs, event, pod} from '../../builders/workload-description.js'
import type {SettingReport} from '../../../src/core/settings.js'
import {bucketOrInstance, renderStorageList, storageListView, type StorageRow} from '../../../src/core/storage/list.js'
import type {QueuedResource, TpuNode} from '../../../src/core/vm/types.js'
import {readJobSet, readWorkload, type KueueWorkload, type ObservedJobSet} from '../../../src/core/workload/observed.js'
import {workloadRow, type WorkloadRow} from '../../../src/core/workload/status.js'
import {COMMANDS} from '../../../src/index.js'
import {describeAccelerator, listAccelerators} from '../../../src/services/accelerators.js'
import {anObservedCluster, anObservedPool} from '../../builders/observed.js'
import {SCENARIOS, scenarioObjects} from '../../builders/workload-states.js'
import {REPO_ROOT} from '../../helpers/cli.js'
import {kubeRayStatus} from '../../helpers/ray.js'
import {expectGolden} from '../../helpers/golden.js'

/** Each case's name and text, as one file: `## name`, the text, a blank line. */
function expectGoldenTable(table: string, cases: readonly (readonly [string, string])[]): void {
  expectGolden(`tables/${table}.txt`, cases.map(([name, text]) => `## ${name}\n${text}\n`).join('\n'))
}

/** The forms of `-o` that print text, and --no-headers on the tables. */
const TEXT_FORMS: readonly (readonly [string, OutputChoice])[] = [
  ['-o wide', {format: 'wide', headers: true}],
  ['--no-headers', {format: 'table', headers: false}],
  ['-o wide --no-headers', {format: 'wide', headers: false}],
  ['-o name', {format: 'name', headers: true}],
]

/** The cases of `result` in each text form but the default, named after `input`. */
function textForms<T>(view: OutputView<T>, input: string, result: T): [string, string][] {
  expect(OUTPUT_FORMATS.filter((f) => f !== 'json' && f !== 'yaml')).toEqual(['name', 'wide'])
  return TEXT_FORMS.map(([form, choice]) => {
    const shown = renderOutput(view, result, choice)
    if (shown.kind !== 'text') throw new Error(`${input} ${form}: ${shown.kind}`)
    return [`${input}, ${form}`, shown.text]
  })
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
      ['one workload per state the fixtures cover', renderWorkloadList(scenarioRows)],
      ...textForms(workloadListView, 'one workload per state', scenarioRows),
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
      ...textForms(workloadListView, 'mounting storages (the JobSet names them)', [
        aRow({storages: ['datasets', 'checkpoints']}),
        aRow({name: 'no-storage', storages: []}),
      ]).filter(([form]) => form.includes('-o wide')),
      ...textForms(workloadListView, 'the same, escaped', [
        aRow({name: `n-${HOSTILE}`, priority: `p-${HOSTILE}`, kueueWorkload: `k-${HOSTILE}`, statusMessage: HOSTILE}),
      ]),
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
      additionalNodeNetworks: [1, 2, 3, 4].map((i) => `gpus-net-${i}`),
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
  rayClusters: [],
}

/** `cluster create-ray`'s RayCluster as KubeRay reports it, ready, and a second one still starting. */
const rayCluster = (name: string, status: Record<string, unknown>) =>
  rayClusterState({
    apiVersion: 'ray.io/v1',
    kind: 'RayCluster',
    metadata: {name, namespace: 'ray'},
    status,
  } as unknown as KubeObject)
const withRay: InClusterState = {
  ...inside,
  rayClusters: [
    rayCluster('raycluster', kubeRayStatus({readyWorkers: 2, desiredWorkers: 2})),
    rayCluster('starting', {desiredWorkerReplicas: 4, readyWorkerReplicas: 0}),
  ],
}

/** Every text field of KubeRay's status holds what a terminal must not be given raw. */
const hostileRay = rayCluster(`rc-${HOSTILE}`, {
  ...kubeRayStatus(),
  state: `s-${HOSTILE}`,
  reason: `r-${HOSTILE}`,
  head: {serviceName: `svc-${HOSTILE}`, serviceIP: `ip-${HOSTILE}`},
  endpoints: {dashboard: `p-${HOSTILE}`},
})

/** An API's enum field holding text no enum has: the adapter passes on what it does not know. */
const unknownValue = <T>(text: string): T => text as unknown as T

/** Every text field GKE answers with holds what a terminal must not be given raw. */
const hostileCluster = anObservedCluster({
  name: `c-${HOSTILE}`,
  location: `l-${HOSTILE}`,
  nodeLocations: [`z-${HOSTILE}`],
  status: unknownValue(`s-${HOSTILE}`),
  statusMessage: `m-${HOSTILE}`,
  version: `v-${HOSTILE}`,
  releaseChannel: `r-${HOSTILE}`,
  endpoint: `e-${HOSTILE}`,
  nodePools: [
    anObservedPool({
      name: `np-${HOSTILE}`,
      machineType: `mt-${HOSTILE}`,
      tpuTopology: `t-${HOSTILE}`,
      status: unknownValue(`s-${HOSTILE}`),
      version: `v-${HOSTILE}`,
      capacity: 'reservation',
      reservation: `r-${HOSTILE}`,
      placementType: 'COMPACT',
      placementPolicyName: `p-${HOSTILE}`,
    }),
  ],
})

describe('cluster list', () => {
  it('matches test/golden/tables/cluster-list.txt', () => {
    const clusters = [tpuCluster, gpuCluster, longCluster]
    expectGoldenTable('cluster-list', [
      ['TPU, GPU and empty clusters, with a long name', renderClusterList(clusters)],
      ...textForms(clusterListView, 'the same', clusters),
      ['line breaks, tabs, terminal controls and bidi marks in what GKE answered', renderClusterList([hostileCluster])],
      ...textForms(clusterListView, 'the same, escaped', [hostileCluster]),
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
      ...textForms(clusterDescribeView, 'GKE and the inside of the cluster', {...tpuCluster, inCluster: inside}),
      [
        'with RayClusters: one ready, one KubeRay has not reported on',
        renderClusterDetails({...tpuCluster, inCluster: withRay}),
      ],
      ...textForms(clusterDescribeView, 'with RayClusters', {...tpuCluster, inCluster: withRay}),
      [
        'line breaks, tabs, terminal controls and bidi marks in what GKE and the cluster answered',
        renderClusterDetails({
          ...hostileCluster,
          inCluster: {
            ...inside,
            kueue: {installed: true, version: `v-${HOSTILE}`, image: `i-${HOSTILE}`, available: true},
            nodePools: [{name: `np-${HOSTILE}`, expected: 2, ready: 1, total: 2}],
            rayClusters: [hostileRay],
          },
        }),
      ],
      ...textForms(clusterDescribeView, 'the RayCluster, escaped', {
        ...tpuCluster,
        inCluster: {...inside, rayClusters: [hostileRay]},
      }),
      ...textForms(clusterDescribeView, 'the same, escaped', {...hostileCluster, inCluster: inside}),
      ...textForms(clusterDescribeView, 'a GPU pool that autoscales, in a placement policy', {
        ...gpuCluster,
        nodePools: [
          {
            ...gpuCluster.nodePools[0]!,
            autoscaling: {enabled: true, minNodes: 0, maxNodes: 32},
            placementType: 'COMPACT',
            placementPolicyName: 'gpus-placement',
          },
        ],
        inCluster: {reached: false, reason: 'skipped', cause: null},
      }),
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

const NOW = Date.parse('2026-11-26T12:00:00Z')
const job = (id: string, overrides: Partial<VmJobView> = {}): VmJobView => ({
  id,
  name: `job-${id}`,
  accelerator: 'v4-16',
  zone: 'us-central2-b',
  host0: '10.0.0.2',
  status: 'RUNNING',
  recoveries: 0,
  createdAt: '2026-11-26T09:30:00Z',
  supervisor: 'running',
  reason: null,
  dir: `/home/me/.local/state/xpk/vm-jobs/${id}`,
  ...overrides,
})

describe('vm job list', () => {
  it('matches test/golden/tables/vm-job-list.txt', () => {
    const jobs = [
      job('000001', {status: 'SUCCEEDED', supervisor: 'none', createdAt: '2026-11-24T12:00:00Z'}),
      job('000002', {status: 'RECOVERING', recoveries: 3, host0: null}),
      job('000003', {status: 'FAILED', supervisor: 'none', reason: 'worker 0 exited 3'}),
      job('000004', {status: 'RUNNING', supervisor: 'gone', createdAt: '2026-11-26T11:59:30Z'}),
    ]
    expectGoldenTable('vm-job-list', [
      ['finished, recovering, failed, and running without its supervisor', renderVmJobList(jobs, NOW)],
      ...textForms(vmJobListView(NOW), 'the same', jobs),
      ...textForms(vmJobListView(NOW), 'line breaks, tabs, terminal controls and bidi marks in a config', [
        job('000005', {
          name: `n-${HOSTILE}`,
          accelerator: `a-${HOSTILE}`,
          zone: `z-${HOSTILE}`,
          reason: `r-${HOSTILE}`,
        }),
      ]),
    ])
  })
})

describe('vm list', () => {
  it('matches test/golden/tables/vm-list.txt', () => {
    const slicesAndQueue = {
      queuedResources: [
        queued('demo'),
        queued('later', {state: 'WAITING_FOR_RESOURCES', capacity: 'spot', nodeIds: []}),
        queued('broken', {
          state: 'FAILED',
          capacity: 'reserved',
          nodeIds: ['broken-0'],
          acceleratorType: 'v5p-8',
          failure: {code: 8, message: 'There is no more capacity in the zone "us-central2-b".'},
        }),
      ],
      nodes: [node('demo-0', {uid: '7301'}), node('demo-1', {uid: '7302'})],
    }
    expectGoldenTable('vm-list', [
      ['two slices of one queued resource, one waiting, one failed', renderVmList(slicesAndQueue)],
      ...textForms(vmListView, 'the same', slicesAndQueue),
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
      ...textForms(vmListView, 'line breaks, tabs, terminal controls and bidi marks in what the TPU API answered', {
        queuedResources: [
          queued(`q-${HOSTILE}`, {
            state: unknownValue(`s-${HOSTILE}`),
            nodeIds: [`n-${HOSTILE}`],
            runtimeVersion: `r-${HOSTILE}`,
            failure: {code: 8, message: `m-${HOSTILE}`},
          }),
        ],
        nodes: [
          node(`n-${HOSTILE}`, {
            state: unknownValue(`s-${HOSTILE}`),
            uid: `u-${HOSTILE}`,
            queuedResource: `q-${HOSTILE}`,
          }),
        ],
      }),
    ])
  })
})

// ---- storage list ----

const aStorageRow = (name: string, type: string, handle: string, overrides: Partial<StorageRow> = {}): StorageRow => ({
  name,
  type,
  cluster: 'demo',
  autoMount: true,
  mountPoint: `/mnt/${name}`,
  readonly: false,
  manifest: `xpkclusters/storage-manifests/my-project-us-central2-b-demo-${name}-manifest.yaml`,
  pv: `${name}-pv`,
  pvc: `${name}-pvc`,
  invalidFields: [],
  volumeHandle: handle,
  bucketOrInstance: bucketOrInstance(handle),
  ...overrides,
})

describe('storage list', () => {
  it('matches test/golden/tables/storage-list.txt', () => {
    const storages = [
      aStorageRow('checkpoints', 'gcsfuse', 'my-checkpoints-bucket'),
      aStorageRow('datasets', 'gcsfuse', 'my-datasets', {autoMount: false, readonly: true}),
      aStorageRow('fast', 'lustre', 'my-project/us-central2-b/lustre-1'),
      aStorageRow('home', 'gcpfilestore', 'projects/my-project/locations/us-central2-b/instances/home-fs/volumes/vol1'),
      aStorageRow('scratch', 'pd', 'projects/my-project/zones/us-central2-b/disks/scratch-disk', {autoMount: false}),
    ]
    expectGoldenTable('storage-list', [
      ['one of each kind of volume handle, as sorted by name', renderStorageList(storages)],
      ...textForms(storageListView, 'the same', storages),
      [
        'a long name; a Storage object without most fields, or whose PersistentVolume is gone',
        renderStorageList([
          aStorageRow(LONG, 'gcsfuse', 'b'),
          aStorageRow('bare', 'gcsfuse', 'b', {
            type: null,
            autoMount: null,
            mountPoint: null,
            readonly: null,
            manifest: null,
            pv: null,
            invalidFields: [
              'spec.type',
              'spec.auto_mount',
              'spec.mount_point',
              'spec.readonly',
              'spec.manifest',
              'spec.pv',
            ],
            volumeHandle: null,
            bucketOrInstance: null,
          }),
          aStorageRow('orphan', 'gcsfuse', 'b', {volumeHandle: null, bucketOrInstance: null}),
        ]),
      ],
      ...textForms(storageListView, 'line breaks, tabs, terminal controls and bidi marks in every text field', [
        aStorageRow(`n-${HOSTILE}`, `t-${HOSTILE}`, `h-${HOSTILE}`, {
          mountPoint: `/m-${HOSTILE}`,
          pv: `pv-${HOSTILE}`,
          pvc: `pvc-${HOSTILE}`,
          manifest: `f-${HOSTILE}`,
          bucketOrInstance: `b-${HOSTILE}`,
        }),
      ]),
    ])
  })
})

// ---- workload describe ----

describe('workload describe', () => {
  it('matches test/golden/tables/workload-describe.txt', () => {
    const running = describeWorkload(describeInputs())
    const hostile = describeWorkload(
      describeInputs({
        pods: [readPod(pod(0, 0, {phase: `P-${HOSTILE}`}, `node-${HOSTILE}`))],
        events: [readEvent(event('JobSet', 'run-1', 55, `R-${HOSTILE}`, `m-${HOSTILE}`))],
      }),
    )
    expectGoldenTable('workload-describe', [
      [
        'running on 2 slices after a restart, a pod waiting, events of the last hour',
        renderWorkloadDescription(running, PLAIN_TABLE),
      ],
      ...textForms(workloadDescribeView, 'the same', running),
      [
        'through a kubeconfig, before any pod or event',
        renderWorkloadDescription(describeWorkload(describeInputs({pods: [], events: [], place: null})), PLAIN_TABLE),
      ],
      [
        'line breaks, tabs, terminal controls and bidi marks in what the cluster answered',
        renderWorkloadDescription(hostile, {wide: true, headers: true}),
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
      ['--family v5e (a nickname)', renderAcceleratorTable(listAccelerators({family: 'v5e'}))],
      ...textForms(acceleratorListView, '--family v5e', listAccelerators({family: 'v5e'})),
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
    expectGoldenTable('accelerator-describe', [
      ...['v5p-8', 'v5p-4x4x8', 'tpu7x-16', 'v5litepod-16', 'h100-80gb-8', 'gb200-4', 'n2-standard-32-4'].map(
        (type) => [type, renderAcceleratorDetails(describeAccelerator(type))] as const,
      ),
      ...textForms(acceleratorDescribeView, 'v5p-4x4x8', describeAccelerator('v5p-4x4x8')),
      ...textForms(acceleratorDescribeView, 'h100-80gb-8', describeAccelerator('h100-80gb-8')),
    ])
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
    const settings = [
      setting('project', 'my-project', 'xpk config'),
      setting('zone', 'us-central2-b', 'gcloud property compute/zone'),
      setting('cluster', 'a-cluster-name-of-forty-characters-long', '--cluster'),
      setting('registry', undefined, ''),
    ]
    expectGoldenTable('config-list', [
      ['set from each place, and unset', renderConfigList(settings)],
      ...textForms(configListView, 'the same', settings),
    ])
  })
})

// ---- info ----

describe('info', () => {
  const usage = (flavor: string, resource: string, total: number | string) => [
    {name: flavor, resources: [{name: resource, total}]},
  ]
  const cq = (name: string, flavors: Array<[string, string, number | string]>, status?: Record<string, unknown>) =>
    ({
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ClusterQueue',
      metadata: {name},
      spec: {
        resourceGroups: [{flavors: flavors.map(([f, r, q]) => ({name: f, resources: [{name: r, nominalQuota: q}]}))}],
      },
      ...(status ? {status} : {}),
    }) as KubeObject
  const lq = (name: string, namespace: string, clusterQueue: string, status?: Record<string, unknown>) =>
    ({
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'LocalQueue',
      metadata: {name, namespace},
      spec: {clusterQueue},
      ...(status ? {status} : {}),
    }) as KubeObject
  const counts = (admitted: number, pending: number, reserving: number) => ({
    admittedWorkloads: admitted,
    pendingWorkloads: pending,
    reservingWorkloads: reserving,
  })
  const typical = queueInfo(
    {local: true, cluster: true},
    [
      cq(
        'cluster-queue',
        [
          ['1xv5p-16', 'google.com/tpu', 16],
          ['cpu-user', 'cpu', 480],
        ],
        {
          ...counts(1, 2, 1),
          flavorsReservation: usage('1xv5p-16', 'google.com/tpu', 8),
          flavorsUsage: usage('1xv5p-16', 'google.com/tpu', 8),
        },
      ),
      cq('gpu-queue', [['2xh100-80gb-8', 'nvidia.com/gpu', 16]]),
    ],
    [
      lq('multislice-queue', 'default', 'cluster-queue', {
        ...counts(1, 2, 1),
        flavorsReservation: usage('1xv5p-16', 'google.com/tpu', 8),
        flavorsUsage: usage('1xv5p-16', 'google.com/tpu', 4),
      }),
      lq('team-queue', 'team-b', 'gpu-queue'),
    ],
  )
  const longNames = queueInfo(
    {local: true, cluster: true},
    [cq(LONG, [[`${LONG}-flavor`, 'example.com/a-very-long-extended-resource-name', '1000Gi']], counts(0, 0, 0))],
    [lq(LONG, LONG, LONG, counts(0, 7, 0))],
  )
  const hostile = queueInfo(
    {local: true, cluster: true},
    [
      cq(HOSTILE, [[HOSTILE, HOSTILE, HOSTILE]], {
        ...counts(0, 0, 0),
        flavorsReservation: usage(HOSTILE, HOSTILE, HOSTILE),
      }),
    ],
    [lq(HOSTILE, HOSTILE, HOSTILE)],
  )

  it("prints Python's two tables: typical, long names, hostile text, one kind, a kind with none", () => {
    expectGoldenTable('info', [
      ['typical', renderQueueInfo(typical, PLAIN_TABLE)],
      ...textForms(queueInfoView, 'typical', typical),
      ['long names', renderQueueInfo(longNames, PLAIN_TABLE)],
      ['long names, -o wide', renderQueueInfo(longNames, {wide: true, headers: true})],
      ['hostile text', renderQueueInfo(hostile, PLAIN_TABLE)],
      ...textForms(queueInfoView, 'hostile text', hostile),
      [
        '--clusterqueue',
        renderQueueInfo(
          queueInfo({local: false, cluster: true}, [cq('cluster-queue', [['f', 'cpu', 1]])], []),
          PLAIN_TABLE,
        ),
      ],
      [
        'ClusterQueues but no LocalQueue',
        renderQueueInfo(
          queueInfo({local: true, cluster: true}, [cq('cluster-queue', [['f', 'cpu', 1]])], []),
          PLAIN_TABLE,
        ),
      ],
    ])
  })

  it('finds nothing when no queue of the kinds asked for exists', () => {
    expect(
      renderOutput(queueInfoView, queueInfo({local: true, cluster: true}, [], []), {format: 'table', headers: true}),
    ).toEqual({kind: 'none-found'})
    expect(
      renderOutput(queueInfoView, queueInfo({local: true, cluster: false}, [cq('c', [])], []), {
        format: 'table',
        headers: true,
      }),
    ).toEqual({kind: 'none-found'})
  })
})

describe('every command that prints a table', () => {
  it('has its golden here: a command with -o has test/golden/tables/<topic>-<verb>.txt', () => {
    const withOutput = (Object.keys(COMMANDS) as (keyof typeof COMMANDS)[]).filter(
      (id) => (COMMANDS[id] as unknown as {flags?: Record<string, unknown>}).flags?.output !== undefined,
    )
    expect(withOutput.length).toBeGreaterThanOrEqual(8)
    const goldens = readdirSync(join(REPO_ROOT, 'test/golden/tables')).map((f) => f.replace(/\.txt$/, ''))
    expect(withOutput.map((id) => id.replaceAll(':', '-')).sort()).toEqual(goldens.sort())
  })
})
