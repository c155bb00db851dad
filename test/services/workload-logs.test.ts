// `xpk workload logs` in process, over the in-memory GKE and Kubernetes ports: the pods come from one list by
// label selector, worker 0 of slice 0 by default, --slice/--worker pick another, --all prefixes every line with
// its place, a place with no pod is a note with its Cloud Logging query, and bad input stops before any request.
// --follow goes on in a container that restarts and in the new pod a JobSet restart makes for the place (found by a
// watch), and stops when the JobSet completes, fails or is deleted, or on Ctrl-C.
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
  for (const [slice, worker] of places) kube.seed(aPod(NAME, slice, worker), {manager: 'kubelet', status: RUNNING})
  // Another workload's pod, which the label selector must leave out.
  kube.seed(aPod('other', 0, 0), {manager: 'kubelet'})
  kube.appendPodLog('default', podName('other', 0, 0), 'not mine\n')
  return kube
}

const podName = (workload: string, slice: number, worker: number) => `${workload}-slice-job-${slice}-${worker}-abcde`

/** A pod as JobSet and the Job controller label it (`attempt`: the JobSet restart that made it, and its name). */
function aPod(workload: string, slice: number, worker: number, attempt?: {restart: number; name: string}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: attempt?.name ?? podName(workload, slice, worker),
      namespace: 'default',
      labels: {
        'jobset.sigs.k8s.io/jobset-name': workload,
        'jobset.sigs.k8s.io/job-index': String(slice),
        'batch.kubernetes.io/job-completion-index': String(worker),
        ...(attempt ? {'jobset.sigs.k8s.io/restart-attempt': String(attempt.restart)} : {}),
      },
    },
    spec: {containers: [{name: 'jax-tpu', image: 'python'}]},
  }
}

/** A pod's status as the kubelet writes it while its container runs, and before it starts. */
const RUNNING = {
  phase: 'Running',
  containerStatuses: [
    {name: 'jax-tpu', restartCount: 0, ready: true, state: {running: {startedAt: '2026-01-01T00:00:00Z'}}},
  ],
}
const PENDING = {
  phase: 'Pending',
  containerStatuses: [
    {name: 'jax-tpu', restartCount: 0, ready: false, state: {waiting: {reason: 'ContainerCreating'}}},
  ],
}
const JOBSET = {apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'default', name: NAME}
const podRef = (name: string) => ({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name})

/** The JobSet controller marking the workload done. */
function finish(kube: MemoryKube, end: 'Completed' | 'Failed'): void {
  kube.setStatus(JOBSET, {
    conditions: [{type: end, status: 'True', reason: end === 'Failed' ? 'ReachedMaxRestarts' : 'AllJobsCompleted'}],
  })
}

/** Waits (in real time: the streams and watches answer on later turns) until `condition` holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 1))
  if (!condition()) throw new Error(`timed out waiting for ${what}`)
}

const logsOpened = (kube: MemoryKube) => kube.requests.filter((r) => r.verb === 'logs').length
/** Whether the promise has settled yet, without waiting for it. */
const settled = async (p: Promise<unknown>) =>
  Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise((r) => setTimeout(() => r(false), 10)),
  ])

function run(kube: MemoryKube, overrides: Partial<WorkloadLogsOptions> = {}, signal = new AbortController().signal) {
  const console = new RecordingConsole()
  const options: WorkloadLogsOptions = {
    project: 'test-project',
    zone: 'us-central2-b',
    cluster: 'demo',
    viaKubeconfig: false,
    workload: NAME,
    timing: {retry: DEFAULT_RETRY_POLICY},
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
    // Without --follow nothing is watched, and no JobSet end is looked for.
    expect(kube.requests.filter((r) => r.verb === 'watch')).toEqual([])
    expect(result.restarts).toEqual([])
    expect(console.codes()).not.toContain('workload.logs.ended')
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

  it('--all --follow prints lines as pods write them, each pod in order, until the workload completes', async () => {
    const kube = aCluster(ALL)
    const {done, console} = run(kube, {all: true, follow: true})
    // Writes start once all four streams are open, so every line written is one a follower must pass on.
    while (kube.requests.filter((r) => r.verb === 'logs').length < 4) await new Promise((r) => setTimeout(r, 1))
    // Pieces that cut lines anywhere, from every pod in turn.
    for (let i = 0; i < 20; i++) {
      for (const [s, w] of ALL) kube.appendPodLog('default', podName(NAME, s, w), i % 2 ? `${i}\n` : `step `)
    }
    for (const [s, w] of ALL) kube.exitPodContainer('default', podName(NAME, s, w))
    // Every container has exited; following goes on until the JobSet says the workload is done.
    expect(await settled(done)).toBe(false)
    finish(kube, 'Completed')
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

  describe('--follow across restarts', () => {
    it('goes on in the new container when the container restarts in its pod, whole and after the old lines', async () => {
      const kube = aCluster(ALL)
      const pod = podName(NAME, 0, 0)
      kube.appendPodLog('default', pod, 'old 0\nold 1\n')
      const {done, console} = run(kube, {follow: true, tail: '1'})
      await until(() => logsOpened(kube) === 1, 'the first stream')
      kube.appendPodLog('default', pod, 'old 2\nold 3 without a newline')
      kube.restartPodContainer('default', pod)
      // Written before the new container's log is opened: --tail applies to the first container only.
      kube.appendPodLog('default', pod, 'new 1\nnew 2\n')
      await until(() => logsOpened(kube) === 2, 'the new container')
      kube.appendPodLog('default', pod, 'new 3\n')
      kube.restartPodContainer('default', pod)
      await until(() => logsOpened(kube) === 3, 'the third container')
      kube.appendPodLog('default', pod, 'newest\n')
      kube.exitPodContainer('default', pod)
      finish(kube, 'Completed')
      const result = await done
      expect(console.results).toEqual([
        'old 1',
        'old 2',
        'old 3 without a newline',
        'new 1',
        'new 2',
        'new 3',
        'newest',
      ])
      expect(console.messages.filter((m) => m.code === 'workload.logs.restarted').map((m) => m.text)).toEqual([
        'slice 0/worker 0 restarted (container restart 1); following the new container.',
        'slice 0/worker 0 restarted (container restart 2); following the new container.',
      ])
      expect(console.messages.find((m) => m.code === 'workload.logs.restarted')?.level).toBe('warn')
      expect(result.restarts).toEqual([
        {slice: 0, worker: 0, pod, why: 'container', restartCount: 1},
        {slice: 0, worker: 0, pod, why: 'container', restartCount: 2},
      ])
      expect(result.pods).toEqual([{name: pod, slice: 0, worker: 0, lines: 7}])
      expect(console.the('workload.logs.ended').text).toBe('Workload run-1 completed; stopped following its logs.')
      // One watch of the workload's pods by label selector and one of its JobSet by name, closed at the end.
      const watches = kube.requests.filter((r) => r.verb === 'watch')
      expect(watches.map((r) => [r.kind, r.watch?.labelSelector ?? r.watch?.fieldSelector])).toEqual([
        ['JobSet', 'metadata.name=run-1'],
        ['Pod', 'jobset.sigs.k8s.io/jobset-name=run-1'],
      ])
      expect(kube.openWatches()).toBe(0)
      expect(kube.mutatingRequests()).toEqual([])
    })

    it('goes on in the new pod a JobSet restart makes for the place, once its container runs', async () => {
      const kube = aCluster(ALL)
      const old = podName(NAME, 0, 1)
      const renewed = `${NAME}-slice-job-0-1-fghij`
      kube.appendPodLog('default', old, 'attempt 0\n')
      const {done, console} = run(kube, {follow: true, slice: '0', worker: '1'})
      await until(() => logsOpened(kube) === 1, 'the first stream')
      // The JobSet restarts: its pods are deleted (their logs end) and new ones made for the same places.
      await kube.delete(podRef(old))
      await until(() => kube.openWatches() === 2, 'the watches')
      kube.seed(aPod(NAME, 0, 1, {restart: 1, name: renewed}), {manager: 'kubelet', status: PENDING})
      kube.seed(aPod(NAME, 0, 0, {restart: 1, name: `${NAME}-slice-job-0-0-fghij`}), {
        manager: 'kubelet',
        status: RUNNING,
      })
      kube.appendPodLog('default', renewed, 'attempt 1, line 1\n')
      // Its container has not started: its log is not asked for yet.
      expect(await settled(done)).toBe(false)
      expect(logsOpened(kube)).toBe(1)
      kube.setStatus(podRef(renewed), RUNNING)
      await until(() => logsOpened(kube) === 2, 'the new pod')
      kube.appendPodLog('default', renewed, 'attempt 1, line 2\n')
      kube.exitPodContainer('default', renewed)
      finish(kube, 'Failed')
      const result = await done
      expect(console.results).toEqual(['attempt 0', 'attempt 1, line 1', 'attempt 1, line 2'])
      expect(console.the('workload.logs.restarted').text).toBe(
        `slice 0/worker 1 restarted (JobSet restart 1, new pod ${renewed}); following the new pod.`,
      )
      expect(console.the('workload.logs.restarted').data).toMatchObject({pod: renewed, why: 'pod', restartAttempt: 1})
      expect(kube.requests.filter((r) => r.verb === 'logs').map((r) => r.name)).toEqual([old, renewed])
      expect(result.pods.map((p) => [p.name, p.lines])).toEqual([
        [old, 1],
        [renewed, 2],
      ])
      expect(console.the('workload.logs.ended').text).toBe('Workload run-1 failed; stopped following its logs.')
    })

    it('waits after a container exits until the JobSet completes, fails or is deleted, then stops cleanly', async () => {
      const ends = [
        ['Completed', (kube: MemoryKube) => finish(kube, 'Completed'), 'completed'],
        ['Failed', (kube: MemoryKube) => finish(kube, 'Failed'), 'failed'],
        ['deleted', (kube: MemoryKube) => void kube.delete(JOBSET), 'was deleted'],
      ] as const
      for (const [end, how, said] of ends) {
        const kube = aCluster(ALL)
        const pod = podName(NAME, 1, 0)
        kube.appendPodLog('default', pod, 'done\n')
        const {done, console} = run(kube, {follow: true, slice: '1', worker: '0'})
        await until(() => logsOpened(kube) === 1, 'the stream')
        kube.exitPodContainer('default', pod)
        await until(() => kube.openWatches() === 2, 'the watches')
        expect(await settled(done), end).toBe(false)
        how(kube)
        const result = await done
        expect(console.results, end).toEqual(['done'])
        expect(result.restarts, end).toEqual([])
        expect(console.the('workload.logs.ended').text, end).toBe(`Workload run-1 ${said}; stopped following its logs.`)
        expect(kube.openWatches(), end).toBe(0)
      }
    })

    it('a restart seen only after the JobSet finished is still read: one last look at the pods', async () => {
      const kube = aCluster(ALL)
      const pod = podName(NAME, 0, 0)
      const {done, console} = run(kube, {follow: true})
      await until(() => logsOpened(kube) === 1, 'the stream')
      // All at once, before the follower has seen any of it: a restart, the new container's whole life, the end.
      kube.appendPodLog('default', pod, 'first\n')
      kube.restartPodContainer('default', pod)
      kube.appendPodLog('default', pod, 'second\n')
      kube.exitPodContainer('default', pod)
      finish(kube, 'Completed')
      await done
      expect(console.results).toEqual(['first', 'second'])
      expect(console.codes()).toEqual(['workload.logs.reading', 'workload.logs.restarted', 'workload.logs.ended'])
    })

    it('a workload already finished is read and left at once, without watching', async () => {
      const kube = aCluster(ALL)
      kube.appendPodLog('default', podName(NAME, 0, 0), 'all done\n')
      kube.exitPodContainer('default', podName(NAME, 0, 0))
      finish(kube, 'Completed')
      const {done, console} = run(kube, {follow: true})
      await done
      expect(console.results).toEqual(['all done'])
      expect(kube.requests.filter((r) => r.verb === 'watch')).toEqual([])
      expect(console.the('workload.logs.ended').text).toMatch(/completed/)
    })

    it('--all: a pod not started at first (400) is followed once its container starts; a restart elsewhere goes on', async () => {
      const kube = aCluster(ALL.filter(([s, w]) => s !== 1 || w !== 0))
      const late = podName(NAME, 1, 0)
      kube.seed(aPod(NAME, 1, 0), {manager: 'kubelet', status: PENDING})
      kube.failNext(1, {verb: 'logs', name: late}, 400, 'container "jax-tpu" is waiting to start: ContainerCreating')
      for (const [s, w] of ALL) kube.appendPodLog('default', podName(NAME, s, w), `hello ${s}/${w}\n`)
      const {done, console} = run(kube, {all: true, follow: true})
      await until(() => logsOpened(kube) === 4 && kube.openWatches() === 2, 'the streams and watches')
      expect(console.the('workload.logs.unreadable').text).toMatch(/waiting to start/)
      kube.setStatus(podRef(late), RUNNING)
      await until(() => logsOpened(kube) === 5, 'the started pod')
      kube.restartPodContainer('default', podName(NAME, 0, 1))
      kube.appendPodLog('default', podName(NAME, 0, 1), 'again 0/1\n')
      await until(() => logsOpened(kube) === 6, 'the restarted container')
      for (const [s, w] of ALL) kube.exitPodContainer('default', podName(NAME, s, w))
      finish(kube, 'Completed')
      const result = await done
      expect(console.results.filter((l) => l.startsWith('[slice 1/worker 0] '))).toEqual([
        '[slice 1/worker 0] hello 1/0',
      ])
      expect(console.results.filter((l) => l.startsWith('[slice 0/worker 1] '))).toEqual([
        '[slice 0/worker 1] hello 0/1',
        '[slice 0/worker 1] again 0/1',
      ])
      expect(console.the('workload.logs.started').text).toBe(
        `slice 1/worker 0: the container of pod ${late} started; following it.`,
      )
      expect(console.the('workload.logs.restarted').text).toMatch(
        /^slice 0\/worker 1 restarted \(container restart 1\)/,
      )
      expect(result.restarts.map((r) => [r.slice, r.worker, r.why])).toEqual([
        [1, 0, 'started'],
        [0, 1, 'container'],
      ])
    })

    it("a watch that fails for good (403) is the command's error, ending the streams still open", async () => {
      const kube = aCluster(ALL)
      kube.failNext(1, {verb: 'watch', kind: 'Pod'}, 403, 'pods is forbidden: cannot watch resource "pods"')
      const {done, console} = run(kube, {all: true, follow: true})
      await until(() => logsOpened(kube) === 4, 'the streams')
      kube.appendPodLog('default', podName(NAME, 1, 1), 'written\n')
      kube.exitPodContainer('default', podName(NAME, 0, 0))
      const error = await failure(done)
      expect(error.message).toMatch(/cannot watch resource "pods"/)
      // The other pods' streams were ended: what they write now is not printed.
      kube.appendPodLog('default', podName(NAME, 1, 1), 'after the failure\n')
      expect(console.results).toEqual(['[slice 1/worker 1] written'])
      expect(kube.openWatches()).toBe(0)
    })

    it('a stream cut short while the container runs is read on from its last line: nothing missed, nothing twice', async () => {
      const kube = aCluster(ALL)
      const pod = podName(NAME, 0, 0)
      kube.setLogTime('2026-01-01T00:00:05.25Z')
      kube.appendPodLog('default', pod, 'one\ntwo\n')
      const {done, console} = run(kube, {follow: true})
      await until(() => console.results.length === 2, 'the first lines')
      // Half a line, then the connection goes (an idle limit, a reset): the container runs on, still writing.
      kube.appendPodLog('default', pod, 'thr')
      kube.cutPodLogs('default', pod)
      kube.appendPodLog('default', pod, 'ee\n')
      // Another line with the very same time as the last one printed, then later ones.
      kube.appendPodLog('default', pod, 'four\n')
      kube.setLogTime('2026-01-01T00:00:06Z')
      kube.appendPodLog('default', pod, 'five\n')
      await until(() => console.results.length === 5, 'the lines after the cut')
      // Quiet for a while: cut again, with nothing new since.
      kube.cutPodLogs('default', pod)
      await until(() => logsOpened(kube) === 3, 'the third stream')
      kube.setLogTime('2026-01-01T00:00:07.000000001Z')
      kube.appendPodLog('default', pod, 'six\n')
      await until(() => console.results.length === 6, 'the last line')
      kube.exitPodContainer('default', pod)
      finish(kube, 'Completed')
      const result = await done
      expect(console.results).toEqual(['one', 'two', 'three', 'four', 'five', 'six'])
      expect(result.pods).toEqual([{name: pod, slice: 0, worker: 0, lines: 6}])
      expect(result.restarts).toEqual([])
      const asked = kube.requests.filter((r) => r.verb === 'logs').map((r) => r.logs)
      expect(asked).toEqual([
        {follow: true, timestamps: true},
        {follow: true, timestamps: true, sinceTime: '2026-01-01T00:00:05Z'},
        {follow: true, timestamps: true, sinceTime: '2026-01-01T00:00:06Z'},
      ])
      const notes = console.messages.filter((m) => m.code === 'workload.logs.reconnected')
      expect(notes.map((m) => m.text)).toEqual([
        `The log stream of pod ${pod} (slice 0, worker 0) was cut short while its container runs; reading on from 2026-01-01T00:00:05Z.`,
        `The log stream of pod ${pod} (slice 0, worker 0) was cut short while its container runs; reading on from 2026-01-01T00:00:06Z.`,
      ])
      expect(notes[0]!.level).toBe('info')
      // Asked whether the container still runs each time its stream ended.
      const podReads = kube.requests.filter((r) => r.verb === 'get' && r.kind === 'Pod')
      expect(podReads.length).toBeGreaterThanOrEqual(2)
      expect(podReads.every((r) => r.name === pod)).toBe(true)
      expect(console.codes()).not.toContain('workload.logs.restarted')
    })

    it('a stream cut before any line is read on as first asked: --tail 0 from when it was opened', async () => {
      const kube = aCluster(ALL)
      const pod = podName(NAME, 0, 0)
      kube.appendPodLog('default', pod, 'before\n')
      const {done, console} = run(kube, {follow: true, tail: '0'})
      await until(() => logsOpened(kube) === 1, 'the stream')
      kube.cutPodLogs('default', pod)
      await until(() => logsOpened(kube) === 2, 'the stream again')
      kube.appendPodLog('default', pod, 'after\n')
      await until(() => console.results.includes('after'), 'the new line')
      kube.exitPodContainer('default', pod)
      finish(kube, 'Completed')
      await done
      // (MemoryKube does not model sinceSeconds: every line is recent, so the old line comes again here.)
      expect(kube.requests.filter((r) => r.verb === 'logs').map((r) => r.logs)).toEqual([
        {follow: true, timestamps: true, tailLines: 0},
        {follow: true, timestamps: true, sinceSeconds: 1},
      ])
      expect(console.codes()).toContain('workload.logs.reconnected')
    })

    it('streams that end at once while the status still says running are spaced out, not a tight loop', async () => {
      const kube = aCluster(ALL)
      const pod = podName(NAME, 0, 0)
      kube.appendPodLog('default', pod, 'last words\n')
      // The container exited (its log ended) but the kubelet has not said so yet.
      kube.endPodLog('default', pod)
      const virtual = virtualClock()
      // Its sleeps take no time but let the test's timers run.
      const clock = {
        ...virtual,
        sleep: async (ms: number, signal: AbortSignal) => {
          await new Promise((r) => setTimeout(r, 1))
          return virtual.sleep(ms, signal)
        },
      }
      const console = new RecordingConsole()
      const done = workloadLogs(
        {viaKubeconfig: true, workload: NAME, follow: true, timing: {retry: DEFAULT_RETRY_POLICY}},
        {
          gke: async () => new MemoryGke(),
          kube: async () => kube,
          console,
          signal: new AbortController().signal,
          ...clock,
        },
      )
      await until(() => logsOpened(kube) >= 4, 'a few streams')
      kube.exitPodContainer('default', pod)
      finish(kube, 'Completed')
      await done
      expect(console.results).toEqual(['last words'])
      // Every stream after the second waited first, longer each time.
      expect(virtual.sleeps.length).toBeGreaterThanOrEqual(2)
      expect(virtual.sleeps[1]!).toBeGreaterThan(virtual.sleeps[0]!)
      // Nothing came again: no note that the log was read on.
      expect(console.codes()).not.toContain('workload.logs.reconnected')
    })

    it("a watch that fails for good is the command's error at once, while every stream is still open", async () => {
      const kube = aCluster(ALL)
      const pod = podName(NAME, 0, 0)
      const {done, console} = run(kube, {follow: true})
      await until(() => logsOpened(kube) === 1, 'the stream')
      // A container restart starts the watches; the new container is being read.
      kube.restartPodContainer('default', pod)
      await until(() => logsOpened(kube) === 2 && kube.openWatches() === 2, 'the new container')
      kube.failNext(100, {verb: 'watch'}, 403, 'jobsets is forbidden')
      kube.failWatches(403, 'jobsets is forbidden: cannot watch')
      const error = await Promise.race([failure(done), new Promise((r) => setTimeout(() => r('still running'), 500))])
      expect(error).not.toBe('still running')
      expect((error as XpkError).message).toMatch(/forbidden/)
      kube.appendPodLog('default', pod, 'after the failure\n')
      expect(console.results).toEqual([])
      expect(kube.openWatches()).toBe(0)
    })

    it('a JobSet deleted while its watch was starting over (410) ends following', async () => {
      const kube = aCluster(ALL)
      const pod = podName(NAME, 0, 0)
      const {done, console} = run(kube, {follow: true})
      await until(() => logsOpened(kube) === 1, 'the stream')
      kube.exitPodContainer('default', pod)
      await until(() => kube.openWatches() === 2, 'the watches')
      // The watches' history is gone (410), and the JobSet is deleted before they start over: no DELETED comes.
      kube.forgetHistory()
      kube.failWatches(410)
      await kube.delete(JOBSET)
      await until(() => kube.openWatches() === 2, 'the watches again')
      expect(await settled(done)).toBe(false)
      // The API server's next bookmark says every current object has come: the JobSet did not.
      kube.bookmarkWatches()
      await done
      expect(console.the('workload.logs.ended').text).toBe('Workload run-1 was deleted; stopped following its logs.')
    })

    it('a pod deleted while the pods watch was starting over (410) is not followed into', async () => {
      const kube = aCluster(ALL)
      const pod = podName(NAME, 0, 0)
      const stale = `${NAME}-slice-job-0-0-stale`
      const {done, console} = run(kube, {follow: true})
      await until(() => logsOpened(kube) === 1, 'the stream')
      kube.restartPodContainer('default', pod)
      await until(() => logsOpened(kube) === 2 && kube.openWatches() === 2, 'the new container')
      // Another pod for the place, seen by the watch while the container is read, then deleted while the watch
      // starts over.
      kube.seed(aPod(NAME, 0, 0, {restart: 1, name: stale}), {manager: 'kubelet', status: RUNNING})
      await new Promise((r) => setTimeout(r, 5))
      kube.forgetHistory()
      kube.failWatches(410)
      await kube.delete(podRef(stale))
      await until(() => kube.openWatches() === 2, 'the watches again')
      kube.bookmarkWatches()
      await new Promise((r) => setTimeout(r, 5))
      kube.exitPodContainer('default', pod)
      await new Promise((r) => setTimeout(r, 5))
      finish(kube, 'Completed')
      await done
      expect(kube.requests.filter((r) => r.verb === 'logs').map((r) => r.name)).toEqual([pod, pod])
      expect(console.codes()).not.toContain('workload.logs.gone')
    })

    it('a place whose pod a JobSet restart deleted waits for the new pod instead of saying it is gone', async () => {
      const renewed = `${NAME}-slice-job-0-1-fghij`
      const kube2 = aCluster(ALL.filter(([s, w]) => s !== 0 || w !== 1))
      const followed = run(kube2, {follow: true, slice: '0', worker: '1'})
      await until(() => kube2.openWatches() === 2, 'the watches')
      expect(followed.console.the('workload.logs.waiting').text).toBe(
        'Workload run-1 has no pod for slice 0, worker 1. Waiting for the workload to make its new pod.',
      )
      expect(followed.console.codes()).not.toContain('workload.logs.gone')
      expect(await settled(followed.done)).toBe(false)
      kube2.seed(aPod(NAME, 0, 1, {restart: 1, name: renewed}), {manager: 'kubelet', status: RUNNING})
      kube2.appendPodLog('default', renewed, 'attempt 1\n')
      await until(() => followed.console.results.length === 1, 'the new pod')
      kube2.exitPodContainer('default', renewed)
      finish(kube2, 'Completed')
      const result = await followed.done
      expect(followed.console.results).toEqual(['attempt 1'])
      expect(result.gone).toEqual([])
      expect(result.pods).toEqual([{name: renewed, slice: 0, worker: 1, lines: 1}])
      expect(followed.console.codes()).not.toContain('workload.logs.gone')
    })

    it('--all --follow: a place with no pod when the workload ends is said gone then, once', async () => {
      const kube = aCluster(ALL.filter(([s, w]) => s !== 1 || w !== 1))
      const {done, console} = run(kube, {follow: true, all: true})
      await until(() => logsOpened(kube) === 3, 'the streams')
      expect(console.codes()).toContain('workload.logs.waiting')
      expect(console.codes()).not.toContain('workload.logs.gone')
      for (const [s, w] of ALL.filter(([s, w]) => s !== 1 || w !== 1)) {
        kube.exitPodContainer('default', podName(NAME, s, w))
      }
      finish(kube, 'Completed')
      const result = await done
      expect(result.gone.map((g) => [g.slice, g.worker])).toEqual([[1, 1]])
      expect(console.messages.filter((m) => m.code === 'workload.logs.gone').map((m) => m.text)).toEqual([
        expect.stringMatching(/^Workload run-1 has no pod for slice 1, worker 1\. Its logs are in Cloud Logging/),
      ])
      // Without --follow the note comes at once, and nothing waits.
      const plain = await run(kube, {all: true}).done
      expect(plain.gone.map((g) => [g.slice, g.worker])).toEqual([[1, 1]])
    })

    it('Ctrl-C stops following, while a log streams and while waiting for a restart', async () => {
      for (const when of ['streaming', 'waiting'] as const) {
        const kube = aCluster(ALL)
        const abort = new AbortController()
        const {done, console} = run(kube, {follow: true}, abort.signal)
        await until(() => logsOpened(kube) === 1, 'the stream')
        kube.appendPodLog('default', podName(NAME, 0, 0), 'working\n')
        if (when === 'waiting') {
          kube.exitPodContainer('default', podName(NAME, 0, 0))
          await until(() => kube.openWatches() === 2, 'the watches')
        }
        expect(await settled(done), when).toBe(false)
        abort.abort()
        const result = await done
        expect(console.results, when).toEqual(['working'])
        expect(
          result.pods.map((p) => p.lines),
          when,
        ).toEqual([1])
        expect(console.codes(), when).not.toContain('workload.logs.ended')
        expect(kube.openWatches(), when).toBe(0)
      }
    })
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
