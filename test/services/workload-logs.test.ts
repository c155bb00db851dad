// `xpk workload logs` in process, over the in-memory GKE and Kubernetes ports: the pods come from one list by
// label selector, worker 0 of slice 0 by default, --slice/--worker pick another, --all prefixes every line with
// its place, a place with no pod is a note with its Cloud Logging query, and bad input stops before any request.
import {describe, expect, it} from 'vitest'

import {UsageErrors, type XpkError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {workloadLogs, type WorkloadLogsOptions} from '../../src/services/workload-logs.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const NAME = 'run-1'

/** A cluster with JobSet's CRD and a 2-slice, 2-worker JobSet named run-1, with the pods of `places`. */
function aCluster(places: ReadonlyArray<readonly [number, number]>): MemoryKube {
  const kube = new MemoryKube()
  kube.seed(
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {name: 'jobsets.jobset.x-k8s.io'},
      spec: {
        group: 'jobset.x-k8s.io',
        scope: 'Namespaced',
        names: {kind: 'JobSet', plural: 'jobsets'},
        versions: [{name: 'v1alpha2', served: true, storage: true}],
      },
    },
    {manager: 'xpk'},
  )
  kube.seed(
    {
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: {name: NAME, namespace: 'default'},
      spec: {replicatedJobs: [{name: 'slice-job', replicas: 2, template: {spec: {parallelism: 2, completions: 2}}}]},
    },
    {manager: 'xpk'},
  )
  for (const [slice, worker] of places) kube.seed(aPod(NAME, slice, worker), {manager: 'kubelet'})
  // Another workload's pod, which the label selector must leave out.
  kube.seed(aPod('other', 0, 0), {manager: 'kubelet'})
  kube.appendPodLog('default', podName('other', 0, 0), 'not mine\n')
  return kube
}

const podName = (workload: string, slice: number, worker: number) => `${workload}-slice-job-${slice}-${worker}-abcde`

/** A pod as JobSet and the Job controller label it. */
function aPod(workload: string, slice: number, worker: number) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(workload, slice, worker),
      namespace: 'default',
      labels: {
        'jobset.sigs.k8s.io/jobset-name': workload,
        'jobset.sigs.k8s.io/job-index': String(slice),
        'batch.kubernetes.io/job-completion-index': String(worker),
      },
    },
    spec: {containers: [{name: 'jax-tpu', image: 'python'}]},
  }
}

function run(kube: MemoryKube, overrides: Partial<WorkloadLogsOptions> = {}, signal = new AbortController().signal) {
  const console = new RecordingConsole()
  const options: WorkloadLogsOptions = {
    project: 'test-project',
    zone: 'us-central2-b',
    cluster: 'demo',
    viaKubeconfig: false,
    workload: NAME,
    retry: DEFAULT_RETRY_POLICY,
    ...overrides,
  }
  const gke = new MemoryGke()
  const done = workloadLogs(options, {gke: async () => gke, kube: async () => kube, console, signal, ...virtualClock()})
  return {done, console}
}

const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as XpkError
const ALL: Array<[number, number]> = [
  [0, 0],
  [0, 1],
  [1, 0],
  [1, 1],
]

describe('workloadLogs', () => {
  it('prints the log of worker 0 of slice 0 by default, from one pod list by label selector', async () => {
    const kube = aCluster(ALL)
    for (const [s, w] of ALL) kube.appendPodLog('default', podName(NAME, s, w), `hello from ${s}/${w}\nbye ${s}/${w}\n`)
    const {done, console} = run(kube)
    const result = await done
    expect(console.results).toEqual(['hello from 0/0', 'bye 0/0'])
    expect(result.pods).toEqual([{name: podName(NAME, 0, 0), slice: 0, worker: 0, lines: 2}])
    const lists = kube.requests.filter((r) => r.verb === 'list')
    expect(lists.map((r) => [r.kind, r.list?.labelSelector])).toEqual([['Pod', 'jobset.sigs.k8s.io/jobset-name=run-1']])
    expect(kube.requests.filter((r) => r.verb === 'logs').map((r) => r.name)).toEqual([podName(NAME, 0, 0)])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('--slice and --worker pick another pod; --tail passes on', async () => {
    const kube = aCluster(ALL)
    kube.appendPodLog('default', podName(NAME, 1, 1), 'a\nb\nc\n')
    kube.appendPodLog('default', podName(NAME, 0, 0), 'wrong pod\n')
    const {done, console} = run(kube, {slice: '1', worker: '1', tail: '2'})
    await done
    expect(console.results).toEqual(['b', 'c'])
  })

  it('--all prefixes every line with its slice and worker', async () => {
    const kube = aCluster(ALL)
    for (const [s, w] of ALL) kube.appendPodLog('default', podName(NAME, s, w), `line 1\nline 2`)
    const {done, console} = run(kube, {all: true})
    const result = await done
    expect([...console.results].sort()).toEqual(
      ALL.flatMap(([s, w]) => [`[slice ${s}/worker ${w}] line 1`, `[slice ${s}/worker ${w}] line 2`]).sort(),
    )
    expect(result.pods).toHaveLength(4)
    expect(result.gone).toEqual([])
  })

  it('--all --follow prints lines as pods write them, each pod in order, until every container exits', async () => {
    const kube = aCluster(ALL)
    const {done, console} = run(kube, {all: true, follow: true})
    // Writes start once all four streams are open, so every line written is one a follower must pass on.
    while (kube.requests.filter((r) => r.verb === 'logs').length < 4) await new Promise((r) => setTimeout(r, 1))
    // Pieces that cut lines anywhere, from every pod in turn.
    for (let i = 0; i < 20; i++) {
      for (const [s, w] of ALL) kube.appendPodLog('default', podName(NAME, s, w), i % 2 ? `${i}\n` : `step `)
    }
    for (const [s, w] of ALL) kube.endPodLog('default', podName(NAME, s, w))
    await done
    for (const [s, w] of ALL) {
      const prefix = `[slice ${s}/worker ${w}] `
      const mine = console.results.filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length))
      expect(mine).toEqual(Array.from({length: 10}, (_, k) => `step ${2 * k + 1}`))
    }
  })

  it('says which pod is missing and prints its Cloud Logging query', async () => {
    const kube = aCluster([[0, 0]])
    const {done, console} = run(kube, {slice: '1', worker: '0'})
    const result = await done
    expect(console.results).toEqual([])
    expect(result.gone).toHaveLength(1)
    const note = console.the('workload.logs.gone')
    expect(note.text).toMatch(/no pod for slice 1, worker 0/)
    // The query names slice 1 worker 1's pod-name prefix, in the project and region GKE reported.
    expect(result.gone[0]!.logs).toContain(encodeURIComponent(`resource.labels.pod_name:"${NAME}-slice-job-1-0-"`))
    expect(note.text).toContain(result.gone[0]!.logs!)
  })

  it('--all notes every place without a pod and reads the rest', async () => {
    const kube = aCluster([
      [0, 0],
      [1, 1],
    ])
    kube.appendPodLog('default', podName(NAME, 1, 1), 'x\n')
    const result = await run(kube, {all: true}).done
    expect(result.gone.map((g) => [g.slice, g.worker])).toEqual([
      [0, 1],
      [1, 0],
    ])
    expect(result.pods.map((p) => [p.slice, p.worker, p.lines])).toEqual([
      [0, 0, 0],
      [1, 1, 1],
    ])
  })

  it('--all: a pod whose container has not started (400) is a note and the others are read; alone it is an error', async () => {
    const kube = aCluster(ALL)
    for (const [s, w] of ALL) kube.appendPodLog('default', podName(NAME, s, w), `ok ${s}/${w}\n`)
    kube.failNext(1, {verb: 'logs', name: podName(NAME, 1, 0)}, 400, 'container "jax-tpu" is waiting to start')
    const {done, console} = run(kube, {all: true})
    const result = await done
    expect(result.pods.map((p) => p.lines)).toEqual([1, 1, 0, 1])
    expect(console.the('workload.logs.unreadable').text).toMatch(/slice-job-1-0-abcde: .*waiting to start/)
    kube.failNext(1, {verb: 'logs', name: podName(NAME, 0, 0)}, 400, 'container "jax-tpu" is waiting to start')
    const error = await failure(run(kube).done)
    expect(error.message).toMatch(/waiting to start/)
  })

  it('an unknown workload is not-found (exit 4)', async () => {
    const kube = aCluster(ALL)
    const error = await failure(run(kube, {workload: 'nope'}).done)
    expect(error.kind).toBe('not-found')
    expect(error.message).toMatch(/Workload nope does not exist/)
  })

  it('a --slice beyond the workload is a usage error naming its shape', async () => {
    const error = await failure(run(aCluster(ALL), {slice: '2'}).done)
    expect(error.kind).toBe('usage')
    expect(error.message).toMatch(/2 slices of 2 workers/)
  })

  it('bad input exits 2 before any request', async () => {
    const kube = aCluster(ALL)
    kube.requests.length = 0
    const error = await failure(run(kube, {slice: '-1', since: 'soon'}).done)
    expect(error).toBeInstanceOf(UsageErrors)
    expect((error as UsageErrors).problems).toHaveLength(2)
    expect(kube.requests).toEqual([])
  })
})
