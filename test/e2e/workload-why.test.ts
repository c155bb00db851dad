// `xpk workload why` as a user runs it, over the wire fakes: GKE finds cluster demo (and its node pools), the
// Kubernetes fake holds JobSet and Kueue as installed from their releases, the ClusterQueue, workloads in the states
// Kueue and the JobSet controller write, and serves Kueue's visibility API (pending workloads in order). The
// answer's wiring: Kueue's position is read (and worked out where that API is off), a pool in ERROR comes from GKE,
// a workload that does not exist is exit 4, bad input exit 2 with no request at all.
import {beforeEach, describe, expect, it} from 'vitest'

import type {WorkloadWhyResult} from '../../src/services/workload-why.js'
import {localQueue} from '../builders/workload-cluster.js'
import {at, jobsetStatus, kueueStatus, kueueWorkloadFor, submittedJobSet} from '../builders/workload-states.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {seedInstalledControllers, seedTpuClusterQueue} from '../helpers/cluster-inside.js'
import {fakesForFile, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'

let gke: FakeGke
let kube: FakeKube

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    gke.seedCluster({
      project: PROJECT,
      location: 'us-central2',
      name: 'demo',
      nodePools: [
        {
          name: 'demo-np-0',
          initialNodeCount: 4,
          config: {machineType: 'ct5lp-hightpu-4t'},
          placementPolicy: {tpuTopology: '4x4', type: 'COMPACT'},
        },
        {
          name: 'demo-np-1',
          initialNodeCount: 4,
          config: {machineType: 'ct5lp-hightpu-4t'},
          placementPolicy: {tpuTopology: '4x4', type: 'COMPACT'},
          status: 'ERROR',
          statusMessage: 'GCE_STOCKOUT: no capacity in us-central2-b',
        },
      ],
    })
  },
  {reset: false},
)
beforeEach(() => {
  kube.reset()
  kube.settings.visibility = true
  seedInstalledControllers(kube)
  seedTpuClusterQueue(kube, {flavor: '4xv5litepod-16', chips: 64, admitted: 1, pending: 2, reserving: 1, used: '64'})
  kube.seed(localQueue() as unknown as Obj)
})

const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${gke.endpoint}`, XPK_ACCESS_TOKEN: kube.token})
const why = (...args: string[]) =>
  runCli(['workload', 'why', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo', ...args], {env: env()})
const whyJson = async (name: string) => {
  const result = await why(name, '--json')
  expect(result.stderr).not.toMatch(/^Error/m)
  expect(result.code).toBe(0)
  return JSON.parse(result.stdout) as WorkloadWhyResult
}

const ref = (kind: 'JobSet' | 'Workload', name: string) => ({
  apiVersion: kind === 'JobSet' ? 'jobset.x-k8s.io/v1alpha2' : 'kueue.x-k8s.io/v1beta2',
  kind,
  namespace: 'default',
  name,
})

/** A JobSet as `workload create` submits it and the Workload Kueue makes for it, both in the given states. */
function workload(
  name: string,
  priority: 'low' | 'medium' | 'high',
  created: number,
  states: {kueue: Obj; jobset: Obj},
): void {
  kube.seed(submittedJobSet(name, priority, at(created)) as unknown as Obj)
  kube.setStatus(ref('JobSet', name), states.jobset)
  const stored = kube.get(ref('JobSet', name))! as unknown as ReturnType<typeof submittedJobSet>
  const made = kueueWorkloadFor(stored, at(created)) as Obj & {metadata: {name: string}}
  kube.seed(made)
  kube.setStatus(ref('Workload', made.metadata.name), states.kueue)
}

function aQueue(): void {
  workload('run-7', 'high', 1, {kueue: kueueStatus.running(2) as Obj, jobset: jobsetStatus.running(2) as Obj})
  workload('run-3', 'high', 3, {kueue: kueueStatus.pending(3) as Obj, jobset: jobsetStatus.suspended(3) as Obj})
  workload('run-1', 'medium', 5, {kueue: kueueStatus.pending(5) as Obj, jobset: jobsetStatus.suspended(5) as Obj})
}

describe('workload why', () => {
  it('a queued workload: its position from Kueue’s visibility API, who is ahead, who holds the quota', async () => {
    aQueue()
    const answer = await whyJson('run-1')
    expect(answer).toMatchObject({workload: 'run-1', status: 'Pending', phase: 'QUEUED'})
    expect(answer.findings.map((f) => f.cause)).toEqual(['waiting-for-quota', 'queue-position', 'quota-in-use'])
    expect(answer.findings[1]!.data).toMatchObject({position: 2, of: 2, source: 'kueue', ahead: ['run-3']})
    expect(answer.findings[2]!.data).toMatchObject({used: 64, nominal: 64, holders: ['run-7']})
    expect(answer.next).toMatch(/--priority very-high to preempt run-7/)
    expect(kube.requests.some((r) => r.path.endsWith('/clusterqueues/cluster-queue/pendingworkloads'))).toBe(true)
    // Reads only.
    expect(kube.requests.filter((r) => r.mutating)).toEqual([])
  })

  it('where the visibility API is off, the position is worked out as Kueue orders the queue', async () => {
    aQueue()
    kube.settings.visibility = false
    const answer = await whyJson('run-1')
    expect(answer.findings[1]!.data).toMatchObject({position: 2, of: 2, source: 'computed', ahead: ['run-3']})
  })

  it('prints a few lines and the next step; a pod that cannot be placed names its node pool in ERROR from GKE', async () => {
    workload('run-1', 'medium', 5, {kueue: kueueStatus.admitted(6) as Obj, jobset: jobsetStatus.starting(6) as Obj})
    kube.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'run-1-slice-job-1-0-abcde',
        namespace: 'default',
        labels: {'jobset.sigs.k8s.io/jobset-name': 'run-1'},
      },
      spec: {
        containers: [{name: 'jax-tpu', image: 'trainer'}],
        nodeSelector: {'cloud.google.com/gke-tpu-topology': '4x4'},
      },
    } as Obj)
    kube.setStatus({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'run-1-slice-job-1-0-abcde'}, {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
        },
      ],
    } as Obj)
    const result = await why('run-1')
    expect(result.code).toBe(0)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^run-1: STARTING on 0 of 16 VMs/)
    expect(result.stdout).toContain('1 pod cannot be scheduled: run-1-slice-job-1-0-abcde')
    expect(result.stdout).toContain('Node pool demo-np-1 is ERROR (GCE_STOCKOUT: no capacity in us-central2-b).')
    expect(lines.at(-1)).toMatch(/^Next: Re-run xpk cluster create --cluster demo/)
  })

  it('a workload that does not exist is exit 4, naming it', async () => {
    const result = await why('nope')
    expect(result.code).toBe(4)
    expect(result.stderr).toContain('Workload nope does not exist in namespace default.')
  })

  it('a name that cannot be a workload is exit 2 before any request', async () => {
    const before = kube.requests.length
    const result = await why('Not_A_Name')
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/Workload name "Not_A_Name"/)
    expect(kube.requests.length).toBe(before)
  })
})
