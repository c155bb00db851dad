// `xpk workload describe` in process, over the in-memory GKE and Kubernetes ports: what it reads (two rounds, and
// nothing it changes), the Kueue Workload found by the JobSet's uid, the description printed (or not, as data), a
// missing workload, a bad name (no request at all), a read retried, and no links through a kubeconfig.
import {describe, expect, it} from 'vitest'

import type {XpkError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {workloadDescribe, type WorkloadDescribeOptions} from '../../src/services/workload-describe.js'
import {JOBSET_CRD, KUEUE_WORKLOAD_CRD} from '../builders/workload-cluster.js'
import {at, jobsetStatus, kueueStatus, kueueWorkloadFor, submittedJobSet} from '../builders/workload-states.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

function aCluster(): MemoryKube {
  const kube = new MemoryKube()
  kube.seed(JOBSET_CRD, {manager: 'xpk'})
  kube.seed(KUEUE_WORKLOAD_CRD, {manager: 'xpk'})
  return kube
}

/** run-1 as submitted, the Workload Kueue made for it, and an older Workload of another JobSet of that name. */
function seedRun1(kube: MemoryKube): string {
  const js = submittedJobSet('run-1', 'high', at(0))
  kube.seed(js, {manager: 'xpk', status: jobsetStatus.running(5)})
  const uid = String(
    kube.peek({apiVersion: js.apiVersion, kind: 'JobSet', namespace: 'default', name: 'run-1'})!.metadata.uid,
  )
  const own = kueueWorkloadFor({...js, metadata: {...js.metadata, uid}}, at(0)) as {metadata: {name: string}}
  kube.seed(own, {manager: 'kueue', status: kueueStatus.running(5)})
  const stale = kueueWorkloadFor({...js, metadata: {...js.metadata, uid: 'an-older-uid'}}, at(0))
  kube.seed(stale, {manager: 'kueue', status: kueueStatus.failed(1)})
  kube.seed(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'run-1-slice-job-0-0-abcde',
        namespace: 'default',
        labels: {
          'jobset.sigs.k8s.io/jobset-name': 'run-1',
          'jobset.sigs.k8s.io/job-index': '0',
          'batch.kubernetes.io/job-completion-index': '0',
        },
      },
      spec: {containers: [{name: 'jax-tpu', image: 'trainer'}], nodeName: 'n0'},
    },
    {manager: 'kubelet', status: {phase: 'Running'}},
  )
  return own.metadata.name
}

function run(kube: MemoryKube, overrides: Partial<WorkloadDescribeOptions> = {}) {
  const console = new RecordingConsole()
  let gkeConnections = 0
  const done = workloadDescribe(
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
      gke: async () => (gkeConnections++, new MemoryGke()),
      kube: async () => kube,
      console,
      signal: new AbortController().signal,
      ...virtualClock(),
      now: () => Date.parse(at(30)),
    },
  )
  return {done, console, gkeConnections: () => gkeConnections}
}

const reads = (kube: MemoryKube) =>
  kube.requests.map(
    (r) =>
      `${r.verb} ${r.kind}${r.name ? ` ${r.name}` : ''}${r.list?.labelSelector ? ` [${r.list.labelSelector}]` : ''}`,
  )

describe('workloadDescribe', () => {
  it('reads the JobSet, its pods and the events, then its own Kueue Workload by uid; changes nothing; prints it', async () => {
    const kube = aCluster()
    const own = seedRun1(kube)
    const {done, console} = run(kube)
    const d = await done
    expect(d).toMatchObject({name: 'run-1', kueueWorkload: own, status: 'Running', cluster: 'demo'})
    expect(d.pods.map((p) => p.name)).toEqual(['run-1-slice-job-0-0-abcde'])
    const uid = kube.peek({
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      namespace: 'default',
      name: 'run-1',
    })!.metadata.uid
    expect(reads(kube)).toEqual([
      'get JobSet run-1',
      'list Pod [jobset.sigs.k8s.io/jobset-name=run-1]',
      'list Event',
      `list Workload [kueue.x-k8s.io/job-uid=${uid}]`,
    ])
    expect(kube.mutatingRequests()).toEqual([])
    expect(console.results.join('\n')).toMatch(/^Workload: {8}run-1\n/)
    expect(d.links?.console).toContain('/demo/default/run-1/details')
  })

  it('prints nothing itself for -o json (the result is the data)', async () => {
    const kube = aCluster()
    seedRun1(kube)
    const {done, console} = run(kube, {output: {format: 'json', headers: true}})
    await done
    expect(console.results).toEqual([])
  })

  it('a read that fails once is retried', async () => {
    const kube = aCluster()
    seedRun1(kube)
    kube.failNext(1, {verb: 'list', kind: 'Event'}, 503)
    await run(kube).done
    expect(reads(kube).filter((r) => r === 'list Event')).toHaveLength(2)
  })

  it('through a kubeconfig: GKE is not asked and there are no links', async () => {
    const kube = aCluster()
    seedRun1(kube)
    const {done, gkeConnections} = run(kube, {
      viaKubeconfig: true,
      project: undefined,
      zone: undefined,
      cluster: undefined,
    })
    expect((await done).links).toBeNull()
    expect(gkeConnections()).toBe(0)
  })

  it('a workload that does not exist is not-found (exit 4)', async () => {
    const error = (await run(aCluster()).done.catch((e: unknown) => e)) as XpkError
    expect([error.kind, error.exitCode, error.message]).toEqual([
      'not-found',
      4,
      'Workload run-1 does not exist in namespace default.',
    ])
  })

  it('a bad name is refused before any request', async () => {
    const kube = aCluster()
    const {done, gkeConnections} = run(kube, {workload: '-x'})
    const error = (await done.catch((e: unknown) => e)) as XpkError
    expect([error.kind, error.exitCode, error.message]).toEqual([
      'usage',
      2,
      expect.stringMatching(/^Workload name "-x": /),
    ])
    expect(kube.requests).toEqual([])
    expect(gkeConnections()).toBe(0)
  })
})
