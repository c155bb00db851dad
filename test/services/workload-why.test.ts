// `xpk workload why` in process, over the in-memory GKE and Kubernetes ports: what it reads (and only reads), when
// it reads the nodes (only for pods that cannot be placed), the node pools from GKE (none through a kubeconfig), a
// visibility API that is off or failing, a retried read, a missing workload and a bad name (no request at all).
import {describe, expect, it} from 'vitest'

import type {ObservedNodePool} from '../../src/core/cluster/observed.js'
import {UsageErrors, type XpkError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {workloadWhy, type WorkloadWhyOptions} from '../../src/services/workload-why.js'
import {
  CLUSTER_QUEUE_CRD,
  localQueue,
  LOCAL_QUEUE_CRD,
  KUEUE_WORKLOAD_CRD,
  JOBSET_CRD,
} from '../builders/workload-cluster.js'
import {at, jobsetStatus, kueueStatus, kueueWorkloadFor, submittedJobSet} from '../builders/workload-states.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube, type MemoryKubeOptions} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

type Json = Record<string, unknown>

function aCluster(options: MemoryKubeOptions = {}): MemoryKube {
  const kube = new MemoryKube(options)
  for (const crd of [JOBSET_CRD, KUEUE_WORKLOAD_CRD, LOCAL_QUEUE_CRD, CLUSTER_QUEUE_CRD])
    kube.seed(crd, {manager: 'xpk'})
  kube.seed(localQueue(), {manager: 'xpk'})
  kube.seed(
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ClusterQueue',
      metadata: {name: 'cluster-queue'},
      spec: {
        resourceGroups: [
          {
            coveredResources: ['google.com/tpu'],
            flavors: [{name: '4xv5litepod-16', resources: [{name: 'google.com/tpu', nominalQuota: 64}]}],
          },
        ],
      },
    },
    {manager: 'xpk'},
  )
  return kube
}

function seedWorkload(kube: MemoryKube, name: string, priority: 'low' | 'high', t: number, kueue: Json, jobset: Json) {
  const js = submittedJobSet(name, priority, at(t))
  kube.seed(js, {manager: 'xpk', status: jobset})
  const uid = String(kube.peek({apiVersion: js.apiVersion, kind: 'JobSet', namespace: 'default', name})!.metadata.uid)
  kube.seed(kueueWorkloadFor({...js, metadata: {...js.metadata, uid}}, at(t)), {manager: 'kueue', status: kueue})
}

const aPod = (name: string, status: Json): [Json, Json] => [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name, namespace: 'default', labels: {'jobset.sigs.k8s.io/jobset-name': 'run-1'}},
    spec: {
      containers: [{name: 'jax-tpu', image: 'trainer'}],
      nodeSelector: {'cloud.google.com/gke-tpu-topology': '4x4'},
    },
  },
  status,
]

const UNSCHEDULABLE = {
  phase: 'Pending',
  conditions: [{type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/4 nodes are available'}],
}

const pool = (name: string, status: ObservedNodePool['status']): ObservedNodePool => ({
  name,
  status,
  statusMessage: status === 'RUNNING' ? '' : 'GCE_STOCKOUT',
  machineType: 'ct5lp-hightpu-4t',
  nodeCount: 4,
  locations: ['us-central2-b'],
  version: '1.33.5-gke.1000000',
  tpuTopology: '4x4',
  placementType: 'COMPACT',
  placementPolicyName: null,
  capacity: 'on-demand',
  reservation: null,
  gpu: null,
  autoscaling: null,
  workloadMetadataMode: null,
})

function run(kube: MemoryKube, overrides: Partial<WorkloadWhyOptions> = {}, gke = new MemoryGke()) {
  const console = new RecordingConsole()
  let gkeConnections = 0
  const done = workloadWhy(
    {
      project: 'test-project',
      zone: 'us-central2-b',
      cluster: 'demo',
      viaKubeconfig: false,
      workload: 'run-1',
      timing: {retry: DEFAULT_RETRY_POLICY},
      ...overrides,
    },
    {
      gke: async () => (gkeConnections++, gke),
      kube: async () => kube,
      console,
      signal: new AbortController().signal,
      ...virtualClock(),
      now: () => Date.parse(at(30)),
    },
  )
  return {done, console, gkeConnections: () => gkeConnections}
}

const reads = (kube: MemoryKube) => kube.requests.map((r) => `${r.verb} ${r.kind}${r.name ? ` ${r.name}` : ''}`)

describe('workloadWhy', () => {
  it('reads the JobSet, the Workloads, the pods, the queue and Kueue’s order of it, changes nothing, prints the answer', async () => {
    const kube = aCluster()
    seedWorkload(kube, 'run-7', 'high', 1, kueueStatus.running(2), jobsetStatus.running(2))
    seedWorkload(kube, 'run-1', 'low', 5, kueueStatus.pending(5), jobsetStatus.suspended(5))
    const {done, console} = run(kube)
    const answer = await done
    expect(answer.findings.map((f) => f.cause)).toEqual(['waiting-for-quota', 'queue-position', 'quota-in-use'])
    expect(answer.findings[1]!.data).toMatchObject({position: 1, of: 1, source: 'kueue'})
    expect(reads(kube).sort()).toEqual(
      [
        'get JobSet run-1',
        'list Workload',
        'list Pod',
        'get LocalQueue multislice-queue',
        'get ClusterQueue cluster-queue',
        'get PendingWorkloadsSummary cluster-queue',
      ].sort(),
    )
    expect(kube.mutatingRequests()).toEqual([])
    expect(console.results.join('\n')).toMatch(/^run-1: QUEUED, position 1 of 1 in cluster-queue/)
    expect(console.results.join('\n')).toMatch(/\nNext: .*--priority very-high to preempt run-7\.$/)
  })

  it.each([
    ['turned off', {visibility: false}, 0],
    ['answering 503 (its server down)', {}, 1],
  ] as const)('Kueue’s visibility API %s: the order is worked out, and read once', async (_, options, failures) => {
    const kube = aCluster(options)
    if (failures) kube.failNext(failures, {kind: 'PendingWorkloadsSummary'}, 503)
    seedWorkload(kube, 'run-1', 'low', 5, kueueStatus.pending(5), jobsetStatus.suspended(5))
    const answer = await run(kube).done
    expect(answer.findings[1]!.data).toMatchObject({position: 1, of: 1, source: 'computed'})
    expect(reads(kube).filter((r) => r.includes('PendingWorkloadsSummary'))).toHaveLength(1)
  })

  it('another read that fails once is retried', async () => {
    const kube = aCluster()
    seedWorkload(kube, 'run-1', 'low', 5, kueueStatus.pending(5), jobsetStatus.suspended(5))
    kube.failNext(1, {verb: 'list', kind: 'Workload'}, 503)
    const answer = await run(kube).done
    expect(answer.status).toBe('Pending')
    expect(reads(kube).filter((r) => r === 'list Workload')).toHaveLength(2)
  })

  it('lists the nodes only when a pod cannot be placed, and names the node pool GKE reports in ERROR', async () => {
    const kube = aCluster()
    seedWorkload(kube, 'run-1', 'low', 5, kueueStatus.admitted(20), jobsetStatus.starting(20))
    const [waiting, status] = aPod('run-1-slice-job-0-0-abcde', {phase: 'Pending'})
    kube.seed(waiting, {manager: 'kubelet', status})
    await run(kube, {}, new MemoryGke([pool('demo-np-0', 'ERROR')])).done
    expect(reads(kube).some((r) => r.startsWith('list Node'))).toBe(false)

    const [stuck, unschedulable] = aPod('run-1-slice-job-0-1-abcde', UNSCHEDULABLE)
    kube.seed(stuck, {manager: 'kubelet', status: unschedulable})
    kube.seed(
      {apiVersion: 'v1', kind: 'Node', metadata: {name: 'n1', labels: {'cloud.google.com/gke-nodepool': 'demo-np-1'}}},
      {manager: 'kubelet', status: {conditions: [{type: 'Ready', status: 'True'}]}},
    )
    const answer = await run(kube, {}, new MemoryGke([pool('demo-np-0', 'ERROR'), pool('demo-np-1', 'RUNNING')])).done
    expect(reads(kube).filter((r) => r.startsWith('list Node'))).toHaveLength(1)
    expect(answer.findings.map((f) => [f.cause, f.data.nodePool ?? null])).toEqual([
      ['pods-unschedulable', null],
      ['node-pool-unhealthy', 'demo-np-0'],
      ['node-pool-unhealthy', 'demo-np-1'],
    ])
    expect(answer.findings[2]!.text).toBe('Node pool demo-np-1 has 1 of 4 nodes ready.')
  })

  it('through a kubeconfig: GKE is not asked, so no node pool is named, and the advice names no cluster', async () => {
    const kube = aCluster()
    seedWorkload(kube, 'run-1', 'low', 5, kueueStatus.admitted(20), jobsetStatus.starting(20))
    const [stuck, unschedulable] = aPod('run-1-slice-job-0-1-abcde', UNSCHEDULABLE)
    kube.seed(stuck, {manager: 'kubelet', status: unschedulable})
    const {done, gkeConnections} = run(kube, {
      viaKubeconfig: true,
      project: undefined,
      zone: undefined,
      cluster: undefined,
    })
    const answer = await done
    expect(gkeConnections()).toBe(0)
    expect(answer.findings.map((f) => f.cause)).toEqual(['pods-unschedulable'])
    expect(reads(kube).some((r) => r.startsWith('list Node'))).toBe(false)
    expect(answer.next).not.toContain('--cluster')
  })

  it('a workload that does not exist is not-found (exit 4), naming it and the way to see what exists', async () => {
    const kube = aCluster()
    const error = (await run(kube).done.catch((e: unknown) => e)) as XpkError
    expect([error.kind, error.exitCode, error.message]).toEqual([
      'not-found',
      4,
      'Workload run-1 does not exist in namespace default.',
    ])
    expect(error.hints).toEqual(['`xpk workload list` shows the workloads of the cluster.'])
  })

  it('a bad name, and a missing cluster, are refused together before any request', async () => {
    const kube = aCluster()
    const {done, gkeConnections} = run(kube, {workload: 'Run_1', cluster: undefined})
    const error = await done.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageErrors)
    expect((error as UsageErrors).problems.map((p) => p.message)).toEqual([
      'Missing --cluster (needed to find the cluster in GKE).',
      expect.stringMatching(/^Workload name "Run_1": /),
    ])
    expect(kube.requests).toEqual([])
    expect(gkeConnections()).toBe(0)
  })
})
