// kubectl's output conventions on every list and describe command (README, "Output"), through the built CLI against
// the wire fakes, table-driven from the command definitions (a command whose id ends in `list` or `describe`):
// - each form's exact stdout (test/golden/cli/output/<command>.txt; UPDATE_GOLDENS=1 accepts a change), with
//   -o json byte for byte what --json prints and -o yaml the same value (both held to the command's JSON Schema by
//   test/helpers/cli.ts);
// - a list that finds nothing: empty stdout, exit 0, the note on stderr; as data, the empty result and no note;
// - an unknown -o, or -o other than json with --json: exit 2 naming the flag and the forms, and no request at all.
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {load} from 'js-yaml'
import {beforeAll, describe, expect, it} from 'vitest'

import {SCENARIOS, at, kueueWorkloadFor, submittedJobSet, type WorkloadScenario} from '../builders/workload-states.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import {FakeKube, type Obj} from '../fakes/fake-kube.js'
import {FakeTpu} from '../fakes/fake-tpu.js'
import {COMMANDS} from '../../src/index.js'
import {resolveAccelerator} from '../../src/core/catalog/lookup.js'
import {
  RAY_API_VERSION,
  RAY_CLUSTER_NAME,
  RAY_NAMESPACE,
  rayClusterObjects,
} from '../../src/core/incluster/ray-cluster.js'
import {isolatedEnv, runCli, type CliResult} from '../helpers/cli.js'
import {expectGolden} from '../helpers/golden.js'
import {markRequests} from '../helpers/mutations.js'
import {poolNode, seedInstalledControllers, seedTpuClusterQueue} from '../helpers/cluster-inside.js'
import {kubeRayCrd, kubeRayStatus} from '../helpers/ray.js'
import {STORAGE_CRD} from '../helpers/storage-crd.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, startKubeAndGke} from '../helpers/wire-fakes.js'

type CommandId = keyof typeof COMMANDS

const PROJECT = 'output-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'

let gke: FakeGke
let kube: FakeKube
let tpu: FakeTpu
/** TPU VM job records, as `vm job create` and its supervisor leave them (for `vm job list`). */
const JOB_STATE = tempDir('xpk-output-jobs-')
/** When the seeded jobs were created: two days before the run (shown as <two days ago> in goldens). */
const JOBS_CREATED = Date.now() - 2 * 86_400_000
/** A kubeconfig reaching a second, empty cluster: where a list without filters (storage list) finds nothing. */
const BARE_KUBECONFIG = join(tempDir('xpk-bare-'), 'config')

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    tpu = wire.add(await FakeTpu.start({stepMs: 1, deleteMs: 1}))
    writeFileSync(BARE_KUBECONFIG, wire.add(await FakeKube.start()).kubeconfig())
  },
  {reset: false},
)

const env = () =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_TPU_ENDPOINT: `http://${tpu.endpoint}`,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_PROJECT: PROJECT,
    XPK_ZONE: ZONE,
    XPK_CLUSTER: 'demo',
    XDG_STATE_HOME: JOB_STATE,
  })
const xpk = (...args: string[]): Promise<CliResult> => runCli(args, {env: env()})

/** The list and describe commands, by their ids (and `info`, a list of queues by Python's name). */
const LIST_AND_DESCRIBE = (Object.keys(COMMANDS) as CommandId[]).filter((id) => /(^|:)(list|describe)$|^info$/.test(id))

/** What each command is run with (project, zone and cluster come from XPK_*): the seeded data below. */
const ARGS: Partial<Record<CommandId, string[]>> = {
  'accelerator:describe': ['v5p-4x4x8'],
  'accelerator:list': ['--family', 'v5e'],
  'cluster:describe': [],
  'cluster:list': [],
  'config:list': [],
  info: [],
  'storage:list': [],
  'vm:list': [],
  'vm:job:list': [],
  'workload:list': [],
  'workload:describe': ['user-third-job-running'],
}

/** The forms printed for each command, in the order of its golden. */
const FORMS = [[], ['-o', 'wide'], ['--no-headers'], ['-o', 'wide', '--no-headers'], ['-o', 'name'], ['-o', 'yaml']]

/** A list that finds nothing, and the note it says so with. */
const NONE_FOUND: Partial<Record<CommandId, [string[], string]>> = {
  'workload:list': [
    ['--filter-by-job', 'nothing-'],
    'No workloads found in namespace default of cluster demo (--filter-by-job "nothing-").',
  ],
  'cluster:list': [['--project', 'empty-project'], 'No clusters found in project empty-project.'],
  'vm:list': [
    ['--tpu-prefix', 'nothing'],
    `No TPU VMs or queued resources found in project ${PROJECT}, zone ${ZONE} (--tpu-prefix "nothing").`,
  ],
  'vm:job:list': [
    ['--filter-by-status', 'recovering'],
    'No TPU VM jobs found on this machine (--filter-by-status "recovering").',
  ],
  'accelerator:list': [
    ['--family', 'v5p', '--kind', 'GPU'],
    'No accelerator types found (--family "v5p", --kind "GPU").',
  ],
  info: [
    ['--kubeconfig', BARE_KUBECONFIG],
    'No LocalQueue or ClusterQueue found (`xpk cluster create` or `cluster adapt` configures Kueue).',
  ],
  'storage:list': [
    ['--kubeconfig', BARE_KUBECONFIG],
    'No storages found: the cluster has no Storage kind (CRD storages.xpk.x-k8s.io), so no storage was ever attached to it.',
  ],
}

/** Addresses and the CA of fakes started on free ports, the same in every run's golden. */
const stable = (text: string) =>
  text
    .replaceAll(kube.endpoint, '<kube>')
    .replaceAll(gke.endpoint, '<gke>')
    .replaceAll(tpu.endpoint, '<tpu>')
    .replaceAll(JOB_STATE, '<state>')
    .replaceAll(new Date(JOBS_CREATED).toISOString(), '<two days ago>')
    .replace(/(caCertificate"?: )("?)[A-Za-z0-9+/=]{40,}\2/g, '$1$2<ca>$2')

beforeAll(async () => {
  gke.seedCluster({
    project: PROJECT,
    location: REGION,
    name: 'demo',
    nodePools: [
      {name: 'default-pool', locations: [ZONE], initialNodeCount: 1, config: {machineType: 'e2-standard-16'}},
      {
        name: 'demo-np-0',
        locations: [ZONE],
        initialNodeCount: 2,
        config: {machineType: 'ct5p-hightpu-4t', spot: true},
        placementPolicy: {type: 'COMPACT', tpuTopology: '2x2x2'},
      },
    ],
  })
  seedInstalledControllers(kube)
  seedTpuClusterQueue(kube, {flavor: '1xv5p-16', chips: 8, admitted: 1, pending: 1, reserving: 1, used: '8'})
  // The LocalQueue workloads are submitted to, as `cluster create` makes it (for `xpk info`).
  const localQueue = {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'LocalQueue',
    namespace: 'default',
    name: 'multislice-queue',
  }
  kube.seed({
    ...localQueue,
    metadata: {name: localQueue.name, namespace: 'default'},
    spec: {clusterQueue: 'cluster-queue'},
  } as unknown as Obj)
  const lqUsage = [{name: '1xv5p-16', resources: [{name: 'google.com/tpu', total: '8'}]}]
  kube.setStatus(localQueue, {
    admittedWorkloads: 1,
    pendingWorkloads: 1,
    reservingWorkloads: 1,
    flavorsReservation: lqUsage,
    flavorsUsage: lqUsage,
  } as Obj)
  kube.seed(poolNode('gke-demo-default-pool-a', 'default-pool'), poolNode('gke-demo-np-0-a', 'demo-np-0'))
  for (const s of SCENARIOS.slice(0, 5)) seedScenario(s)
  seedStorages()
  seedRayCluster()
  // TPU VMs: a queued resource of two slices, as `vm create` makes it, and a node made outside any.
  tpu.seedNode(PROJECT, ZONE, 'solo', {acceleratorType: 'v5litepod-8'})
  const created = await xpk('vm', 'create', '--tpu-prefix', 'demo', '--tpu-type', 'v4-16', '--num-slices', '2')
  expect(created.code, created.stderr).toBe(0)
  seedJobs()
})

/**
 * Two finished TPU VM jobs two days old (whole days: their age reads 2d however long the run takes), as their
 * supervisors leave them: one that succeeded after a recovery, one that failed.
 */
function seedJobs(): void {
  const twoDaysAgo = JOBS_CREATED
  const jobs = [
    {id: '000001', name: 'pretrain', status: 'SUCCEEDED', recoveries: 1, reason: undefined},
    {id: '000002', name: 'eval', status: 'FAILED', recoveries: 0, reason: 'worker 0 exited 3'},
  ]
  for (const job of jobs) {
    const dir = join(JOB_STATE, 'xpk', 'vm-jobs', job.id)
    mkdirSync(join(dir, 'logs'), {recursive: true})
    const record = {
      ...job,
      spec: {
        name: job.name,
        project: PROJECT,
        envType: 'none',
        loop: true,
        tpu: {allocationMode: 'queued-resources', accelerator: 'v4-16', name: job.name, zone: ZONE},
        modules: [],
        command: {run: 'python3 train.py', workers: 'all'},
      },
      access: {sshUser: 'me', sshPort: 22, internalIp: false, pollMs: 5000},
      createdAt: twoDaysAgo,
      updatedAt: twoDaysAgo,
      attempt: job.recoveries + 1,
      workers: [
        {
          slice: 0,
          worker: 0,
          nodeId: job.name,
          identity: `${job.name}/1/0`,
          internalIp: '10.0.0.2',
          externalIp: '34.1.2.3',
        },
      ],
    }
    writeFileSync(join(dir, 'job.json'), JSON.stringify(record))
  }
}

/** `cluster create-ray`'s RayCluster (one v5p-16 slice) with the status KubeRay writes once its pods are ready. */
function seedRayCluster(): void {
  kube.seed(kubeRayCrd() as unknown as Obj)
  const objects = rayClusterObjects({
    version: '2.38.0',
    accelerator: resolveAccelerator({tpuType: 'v5p-16'}),
    slicePools: ['demo-np-0'],
    headPool: 'default-pool',
    headNode: {cpu: '15890m', memory: '60055592Ki'},
    workerNode: {cpu: '207', memory: '462542412Ki'},
  })
  kube.seed(...(objects as unknown as Obj[]))
  kube.setStatus(
    {apiVersion: RAY_API_VERSION, kind: 'RayCluster', namespace: RAY_NAMESPACE, name: RAY_CLUSTER_NAME},
    kubeRayStatus({readyWorkers: 1, desiredWorkers: 1}) as Obj,
  )
}

/** Two storages as `storage attach` leaves them: the Storage CRD, each Storage object and its PersistentVolume. */
function seedStorages(): void {
  kube.seed(STORAGE_CRD as unknown as Obj)
  for (const [name, type, handle] of [
    ['datasets', 'gcsfuse', 'my-datasets'],
    ['home', 'gcpfilestore', `projects/${PROJECT}/locations/${ZONE}/instances/home-fs/volumes/vol1`],
  ] as const) {
    kube.seed(
      {
        apiVersion: 'xpk.x-k8s.io/v1',
        kind: 'Storage',
        metadata: {name},
        spec: {
          ...{type, cluster: 'demo', auto_mount: type === 'gcsfuse', mount_point: `/mnt/${name}`, readonly: false},
          ...{manifest: `xpkclusters/storage-manifests/${name}-manifest.yaml`, pv: `${name}-pv`, pvc: `${name}-pvc`},
        },
      },
      {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: {name: `${name}-pv`},
        spec: {
          capacity: {storage: '64Gi'},
          accessModes: ['ReadWriteMany'],
          csi: {driver: `${type === 'gcsfuse' ? 'gcsfuse' : 'filestore'}.csi.storage.gke.io`, volumeHandle: handle},
        },
      },
    )
  }
}

/** A workload as `workload create` submits it and Kueue and the JobSet controller move it on. */
function seedScenario(s: WorkloadScenario): void {
  const ref = {apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'default', name: s.name}
  kube.seed(submittedJobSet(s.name, s.priority, at(0)) as unknown as Obj)
  if (Object.keys(s.jobset).length > 0) kube.setStatus(ref, s.jobset as Obj)
  if (s.kueue === null) return
  const stored = kube.get(ref)! as unknown as ReturnType<typeof submittedJobSet>
  const workload = kueueWorkloadFor(stored, at(0)) as Obj & {metadata: {name: string}}
  kube.seed(workload)
  kube.setStatus(
    {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Workload', namespace: 'default', name: workload.metadata.name},
    s.kueue as Obj,
  )
}

describe('the output forms of every list and describe command', () => {
  it('are run here for each of them (a new one needs its arguments in ARGS)', () => {
    expect(Object.keys(ARGS).sort()).toEqual([...LIST_AND_DESCRIBE].sort())
  })

  it.each(LIST_AND_DESCRIBE)('%s: each form, as test/golden/cli/output/<command>.txt', async (id) => {
    const command = [...id.split(':'), ...ARGS[id]!]
    const json = await xpk(...command, '--json')
    expect(json.code, json.stderr).toBe(0)
    const sections: string[] = []
    for (const form of FORMS) {
      const result = await xpk(...command, ...form)
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).not.toMatch(/^Error|^Warning/m)
      expect(result.stdout).not.toBe('')
      sections.push(`## xpk ${[...command, ...form].join(' ')}\n${stable(result.stdout)}`)
      if (form.includes('yaml')) expect(load(result.stdout)).toEqual(JSON.parse(json.stdout))
    }
    // -o json is --json, byte for byte; its text is in the golden once.
    const asJson = await xpk(...command, '-o', 'json')
    expect(asJson).toMatchObject({code: 0, stdout: json.stdout})
    sections.push(`## xpk ${[...command, '-o', 'json'].join(' ')}\n${stable(asJson.stdout)}`)
    expectGolden(`cli/output/${id.replaceAll(':', '-')}.txt`, sections.join('\n'))
  })
})

describe('a list that finds nothing', () => {
  const lists = LIST_AND_DESCRIBE.filter((id) => (id.endsWith('list') || id === 'info') && id !== 'config:list')

  it('is every list (info too) but config list, which lists every setting set or not', () => {
    expect(Object.keys(NONE_FOUND).sort()).toEqual([...lists].sort())
  })

  it.each(lists)('%s: nothing on stdout, exit 0, the note on stderr; -o name the same', async (id) => {
    const [args, note] = NONE_FOUND[id]!
    for (const form of [[], ['-o', 'wide'], ['--no-headers'], ['-o', 'name']]) {
      const result = await xpk(...id.split(':'), ...args, ...form)
      expect({code: result.code, stdout: result.stdout}).toEqual({code: 0, stdout: ''})
      expect(stable(result.stderr).split('\n')).toContain(note)
    }
    // --quiet keeps stderr for errors only, as for every note.
    const quiet = await xpk(...id.split(':'), ...args, '--quiet')
    expect(quiet).toMatchObject({code: 0, stdout: '', stderr: ''})
  })

  it.each(lists)('%s as data: the empty result and no note', async (id) => {
    const [args, note] = NONE_FOUND[id]!
    for (const form of [['--json'], ['-o', 'json'], ['-o', 'yaml']]) {
      const result = await xpk(...id.split(':'), ...args, ...form)
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).not.toBe('')
      expect(result.stderr).not.toContain(note)
    }
  })
})

describe('refused before any request', () => {
  const fakes = () => ({gke, kube, tpu})

  it.each(LIST_AND_DESCRIBE)('%s -o xml: exit 2 naming --output and the forms', async (id) => {
    const mark = markRequests(fakes())
    const result = await xpk(...id.split(':'), ...ARGS[id]!, '-o', 'xml')
    expect(result).toMatchObject({code: 2, stdout: ''})
    expect(result.stderr).toContain(
      'Error: --output "xml" is not an output format: use one of json, yaml, name, wide (or leave -o out for the table).',
    )
    expect(markRequests(fakes())).toEqual(mark)
  })

  it.each(LIST_AND_DESCRIBE)('%s --json -o yaml: exit 2, the error as JSON', async (id) => {
    const mark = markRequests(fakes())
    const result = await xpk(...id.split(':'), ...ARGS[id]!, '--json', '-o', 'yaml')
    expect(result.code).toBe(2)
    expect(JSON.parse(result.stdout).error.message).toBe(
      '--json and -o yaml cannot be used together: --json is the same as -o json.',
    )
    expect(markRequests(fakes())).toEqual(mark)
  })

  it('-o yaml with a bad --filter-by-status: exit 2, the error as YAML', async () => {
    const mark = markRequests(fakes())
    const result = await xpk('workload', 'list', '-o', 'yaml', '--filter-by-status', 'sleeping')
    expect(result.code).toBe(2)
    expect(load(result.stdout)).toEqual({
      error: {
        kind: 'usage',
        exitCode: 2,
        message:
          '--filter-by-status "sleeping" is not a status filter: use one of EVERYTHING, FINISHED, RUNNING, QUEUED, FAILED, SUCCESSFUL.',
        hints: [],
      },
    })
    expect(result.stderr).toBe('')
    expect(markRequests(fakes())).toEqual(mark)
  })
})
