// `xpk info` in process, over the in-memory GKE and Kubernetes ports: the two lists it reads (and nothing it
// changes), what --clusterqueue and --localqueue leave out, the tables printed (or nothing, as data), nothing found,
// a missing target (no request), a read retried.
import {describe, expect, it} from 'vitest'

import {UsageErrors, type XpkError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {info, type InfoOptions} from '../../src/services/info.js'
import {CLUSTER_QUEUE_CRD, LOCAL_QUEUE_CRD} from '../builders/workload-cluster.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const usage = (total: number) => [{name: '1xv5p-16', resources: [{name: 'google.com/tpu', total}]}]

function queuesCluster(): MemoryKube {
  const kube = new MemoryKube()
  kube.seed(CLUSTER_QUEUE_CRD, {manager: 'xpk'})
  kube.seed(LOCAL_QUEUE_CRD, {manager: 'xpk'})
  kube.seed(
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ClusterQueue',
      metadata: {name: 'cluster-queue'},
      spec: {
        resourceGroups: [{flavors: [{name: '1xv5p-16', resources: [{name: 'google.com/tpu', nominalQuota: 16}]}]}],
      },
    },
    {
      manager: 'xpk',
      status: {
        admittedWorkloads: 1,
        pendingWorkloads: 2,
        reservingWorkloads: 1,
        flavorsReservation: usage(8),
        flavorsUsage: usage(8),
      },
    },
  )
  kube.seed(
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'LocalQueue',
      metadata: {name: 'multislice-queue', namespace: 'default'},
      spec: {clusterQueue: 'cluster-queue'},
    },
    {
      manager: 'xpk',
      status: {
        admittedWorkloads: 1,
        pendingWorkloads: 2,
        reservingWorkloads: 1,
        flavorsReservation: usage(8),
        flavorsUsage: usage(8),
      },
    },
  )
  return kube
}

function run(kube: MemoryKube, overrides: Partial<InfoOptions> = {}) {
  const console = new RecordingConsole()
  const done = info(
    {
      project: 'test-project',
      zone: 'us-central2-b',
      cluster: 'demo',
      viaKubeconfig: false,
      timing: {retry: DEFAULT_RETRY_POLICY},
      ...overrides,
    },
    {
      gke: async () => new MemoryGke(),
      kube: async () => kube,
      console,
      signal: new AbortController().signal,
      ...virtualClock(),
    },
  )
  return {done, console}
}

const reads = (kube: MemoryKube) =>
  kube.requests.map((r) => `${r.verb} ${r.kind}${r.namespace ? ` in ${r.namespace}` : ''}`)

describe('info', () => {
  it("reads every ClusterQueue and every LocalQueue at once, changes nothing, prints Python's two tables", async () => {
    const kube = queuesCluster()
    const {done, console} = run(kube)
    const result = await done
    expect(reads(kube).sort()).toEqual(['list ClusterQueue', 'list LocalQueue'])
    expect(kube.mutatingRequests()).toEqual([])
    expect(result.localQueues).toMatchObject([
      {name: 'multislice-queue', clusterQueue: 'cluster-queue', pendingWorkloads: 2},
    ])
    expect(result.clusterQueues).toMatchObject([{name: 'cluster-queue', admittedWorkloads: 1}])
    expect(console.results.join('\n')).toBe(
      [
        'Local Queues usage',
        'QUEUE              ADMITTED_WORKLOADS   PENDING_WORKLOADS   1xv5p-16:google.com/tpu',
        'multislice-queue   1                    2                   8/16',
        '',
        'Cluster Queues usage',
        'QUEUE           ADMITTED_WORKLOADS   PENDING_WORKLOADS   1xv5p-16:google.com/tpu',
        'cluster-queue   1                    2                   8/16',
      ].join('\n'),
    )
  })

  it.each([
    [{clusterqueue: true}, ['list ClusterQueue'], 'Cluster Queues usage'],
    // The ClusterQueues are read for the LocalQueues' quota, as Python does.
    [{localqueue: true}, ['list ClusterQueue', 'list LocalQueue'], 'Local Queues usage'],
  ])('%j: one table', async (flags, listed, title) => {
    const kube = queuesCluster()
    const {done, console} = run(kube, flags)
    await done
    expect(reads(kube).sort()).toEqual(listed)
    expect(
      console.results
        .join('\n')
        .split('\n')
        .filter((l) => l.endsWith('usage')),
    ).toEqual([title])
  })

  it('prints nothing itself as data (-o json: the result is the data)', async () => {
    const {done, console} = run(queuesCluster(), {output: {format: 'json', headers: true}})
    await done
    expect(console.results).toEqual([])
  })

  it('finds nothing: no table, the note naming what was looked for', async () => {
    const {done, console} = run(new MemoryKube())
    expect(await done).toEqual({localQueues: [], clusterQueues: []})
    expect(console.results).toEqual([])
    expect(console.the('info.none-found').text).toBe(
      'No LocalQueue or ClusterQueue found in cluster demo (`xpk cluster create` or `cluster adapt` configures Kueue).',
    )
  })

  it('a read that fails once is retried', async () => {
    const kube = queuesCluster()
    kube.failNext(1, {verb: 'list', kind: 'LocalQueue'}, 503)
    await run(kube).done
    expect(reads(kube).filter((r) => r === 'list LocalQueue')).toHaveLength(2)
  })

  it('no project, zone or cluster: exit 2 naming each, before any request', async () => {
    const kube = queuesCluster()
    const error = (await run(kube, {project: undefined, cluster: undefined}).done.catch((e: unknown) => e)) as XpkError
    expect(error).toBeInstanceOf(UsageErrors)
    expect(error.message).toBe(
      'Missing --project (needed to find the cluster in GKE).\nMissing --cluster (needed to find the cluster in GKE).',
    )
    expect(kube.requests).toEqual([])
  })
})
