// `xpk workload list` in process, over the in-memory GKE and Kubernetes ports: one list per kind and page, the
// join and the filters, input checked before any request, and --wait-for-job-completion watching (not polling)
// until the workload succeeds (0), fails (125) or the time runs out (124), with a clock the test moves.
import {describe, expect, it} from 'vitest'

import type {ObservedCluster} from '../../src/core/cluster/observed.js'
import {UsageErrors, type XpkError} from '../../src/core/errors.js'
import {STATUS_FILTERS} from '../../src/core/workload/status.js'
import {DEFAULT_RETRY_POLICY, type Clock} from '../../src/executor/retry.js'
import {listWorkloads, type WorkloadListOptions} from '../../src/services/workload-list.js'
import {
  SCENARIOS,
  at,
  jobsetStatus,
  kueueStatus,
  kueueWorkloadFor,
  scenarioObjects,
  submittedJobSet,
  VMS,
  type WorkloadScenario,
} from '../builders/workload-states.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {manualClock} from '../helpers/manual-clock.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

type Json = Record<string, unknown>

const crd = (group: string, kind: string, plural: string, version: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {name: `${plural}.${group}`},
  spec: {group, scope: 'Namespaced', names: {kind, plural}, versions: [{name: version, served: true, storage: true}]},
})

/** A cluster with JobSet and Kueue installed (their CRDs) and no workloads. */
function aCluster(options: ConstructorParameters<typeof MemoryKube>[0] = {}): MemoryKube {
  const kube = new MemoryKube(options)
  kube.seed(crd('jobset.x-k8s.io', 'JobSet', 'jobsets', 'v1alpha2'), {manager: 'xpk'})
  kube.seed(crd('kueue.x-k8s.io', 'Workload', 'workloads', 'v1beta2'), {manager: 'xpk'})
  return kube
}

const jobsetRef = (name: string) => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  namespace: 'default',
  name,
})

/**
 * Puts a workload in place as the cluster would hold it: the JobSet xpk submitted, then the Workload Kueue made
 * for it (owned by the JobSet's real uid), each with the status its controller wrote.
 */
function seedWorkload(kube: MemoryKube, name: string, jobset: Json, kueue: Json | null): {workload?: string} {
  const js = submittedJobSet(name, 'medium', at(0))
  kube.seed(js, {manager: 'xpk', ...(Object.keys(jobset).length > 0 ? {status: jobset} : {})})
  if (kueue === null) return {}
  const uid = String(kube.peek(jobsetRef(name))!.metadata.uid)
  const workload = kueueWorkloadFor({...js, metadata: {...js.metadata, uid}}, at(0)) as {metadata: {name: string}}
  kube.seed(workload, {manager: 'kueue', status: kueue})
  return {workload: workload.metadata.name}
}

function seedScenario(kube: MemoryKube, s: WorkloadScenario): void {
  seedWorkload(kube, s.name, s.jobset, s.kueue)
}

const workloadRef = (name: string) => ({
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  kind: 'Workload',
  namespace: 'default',
  name,
})

const options = (overrides: Partial<WorkloadListOptions> = {}): WorkloadListOptions => ({
  project: 'test-project',
  zone: 'us-central2-b',
  cluster: 'demo',
  viaKubeconfig: false,
  timing: {retry: DEFAULT_RETRY_POLICY},
  ...overrides,
})

/** A client whose every call is accepted and never answered (close excepted): a server that went silent. */
function silent<T extends object>(client: T): T {
  return new Proxy(client, {
    get: (target, key, receiver) => {
      const value: unknown = Reflect.get(target, key, receiver)
      if (typeof value !== 'function' || key === 'close') return value
      return () => new Promise(() => undefined)
    },
  })
}

function run(
  kube: MemoryKube,
  overrides: Partial<WorkloadListOptions> = {},
  clock: Clock = virtualClock(),
  gke: MemoryGke = new MemoryGke(),
) {
  const console = new RecordingConsole()
  const reached: Array<ObservedCluster | undefined> = []
  const controller = new AbortController()
  let connections = 0
  const done = listWorkloads(options(overrides), {
    gke: async () => (connections++, gke),
    kube: async (cluster) => (reached.push(cluster), kube),
    console,
    signal: controller.signal,
    ...clock,
  })
  return {done, console, reached, gke, connections: () => connections, interrupt: (r: unknown) => controller.abort(r)}
}

const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as XpkError
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
const reads = (kube: MemoryKube) => kube.requests.map((r) => `${r.verb} ${r.kind}`)

describe('listWorkloads', () => {
  it('lists every workload from one list per kind, joined, with the status each state gives', async () => {
    const kube = aCluster()
    for (const s of SCENARIOS) seedScenario(kube, s)
    const {done, console, reached} = run(kube)
    const result = await done
    expect(result.workloads.map((r) => [r.name, r.status])).toEqual(
      [...SCENARIOS].sort((a, b) => a.name.localeCompare(b.name)).map((s) => [s.name, s.expected.status]),
    )
    expect(result).toMatchObject({filter: {status: 'EVERYTHING', job: null}, waited: null})
    expect(reached.map((c) => c?.name)).toEqual(['demo'])
    expect(reads(kube).sort()).toEqual(['list JobSet', 'list Workload'])
    expect(kube.requests.map((r) => r.list)).toEqual([
      {namespace: 'default', limit: 500},
      {namespace: 'default', limit: 500},
    ])
    expect(kube.mutatingRequests()).toEqual([])
    expect(console.results[0]!.split('\n')).toHaveLength(SCENARIOS.length + 1)
    expect(console.the('workload.list.console').data).toEqual({project: 'test-project'})
  })

  const kept: Record<string, string[]> = {
    FINISHED: [
      'admission-check-rejected',
      'completed-kueue-behind',
      'failed-kueue-behind',
      'user-first-job-failed',
      'user-second-job-success',
    ],
    FAILED: ['admission-check-rejected', 'failed-kueue-behind', 'user-first-job-failed'],
    SUCCESSFUL: ['completed-kueue-behind', 'user-second-job-success'],
    RUNNING: ['pods-starting', 'readmitted-after-preemption', 'running-without-podsready', 'user-third-job-running'],
    QUEUED: [
      'evicted-backoff',
      'just-submitted',
      'quota-reserved',
      'user-fifth-job-preempted',
      'user-forth-job-in-queue',
    ],
  }
  it.each(STATUS_FILTERS.filter((f) => f !== 'EVERYTHING'))(
    '--filter-by-status %s (given in lower case)',
    async (filter) => {
      const kube = aCluster()
      for (const s of SCENARIOS) seedScenario(kube, s)
      const result = await run(kube, {filterByStatus: filter.toLowerCase()}).done
      expect(result.filter.status).toBe(filter)
      expect(result.workloads.map((r) => r.name)).toEqual(kept[filter])
    },
  )

  it('--filter-by-job keeps the names that contain the text, with the status filter', async () => {
    const kube = aCluster()
    for (const s of SCENARIOS) seedScenario(kube, s)
    const result = await run(kube, {filterByJob: 'user-', filterByStatus: 'QUEUED'}).done
    expect(result.workloads.map((r) => r.name)).toEqual(['user-fifth-job-preempted', 'user-forth-job-in-queue'])
    expect(result.filter).toEqual({status: 'QUEUED', job: 'user-'})
  })

  it('reads 1,201 workloads in pages of 500: three requests per kind, every row there', async () => {
    const kube = aCluster()
    for (let i = 0; i < 1201; i++) {
      seedWorkload(kube, `w-${String(i).padStart(4, '0')}`, jobsetStatus.running(1), kueueStatus.running(1))
    }
    const result = await run(kube).done
    expect(result.workloads).toHaveLength(1201)
    expect(result.workloads.every((r) => r.status === 'Running' && r.kueueWorkload !== null)).toBe(true)
    const lists = kube.requests.filter((r) => r.verb === 'list')
    expect(lists).toHaveLength(6)
    expect(lists.filter((r) => r.kind === 'Workload').map((r) => r.list?.continue === undefined)).toEqual([
      true,
      false,
      false,
    ])
  })

  it('an empty namespace, or a cluster without JobSet and Kueue, is an empty table', async () => {
    const result = await run(new MemoryKube()).done
    expect(result.workloads).toEqual([])
  })

  it('prints the rows in the chosen form: -o name one name per line, -o wide more columns, JSON and YAML nothing', async () => {
    const kube = aCluster()
    for (const s of SCENARIOS.slice(0, 3)) seedScenario(kube, s)
    const printed = async (output: WorkloadListOptions['output']) => {
      const {done, console} = run(kube, {output})
      await done
      return {results: console.results, codes: console.codes()}
    }
    const names = SCENARIOS.slice(0, 3)
      .map((s) => s.name)
      .sort()
    expect(await printed({format: 'name', headers: true})).toEqual({
      results: [names.join('\n')],
      codes: ['workload.list.console'],
    })
    const wide = (await printed({format: 'wide', headers: false})).results[0]!.split('\n')
    expect(wide).toHaveLength(3)
    expect(wide[0]).toMatch(
      // Phase, outcome, the Kueue Workload and the storages (none: "-"), then the message.
      /^user-first-job-failed .* FINISHED +FAILED +jobset-user-first-job-failed-\w+ +- +jobset failed/,
    )
    for (const format of ['json', 'yaml'] as const) {
      expect(await printed({format, headers: true})).toEqual({results: [], codes: ['workload.list.console']})
    }
  })

  it('says on stderr that nothing was found, naming the cluster and the filters, and prints no table', async () => {
    const kube = aCluster()
    seedScenario(kube, SCENARIOS[0]!)
    const {done, console} = run(kube, {filterByStatus: 'running', filterByJob: 'sweep-'})
    expect((await done).workloads).toEqual([])
    expect(console.results).toEqual([])
    expect(console.the('workload.list.none-found').text).toBe(
      'No workloads found in namespace default of cluster demo (--filter-by-status "RUNNING", --filter-by-job "sweep-").',
    )
    // As data, an empty list is the answer itself: no note.
    const json = run(kube, {filterByJob: 'sweep-', output: {format: 'json', headers: true}})
    await json.done
    expect(json.console.codes()).toEqual(['workload.list.console'])
  })

  it('rides out a transient failure of a list', async () => {
    const kube = aCluster()
    seedScenario(kube, SCENARIOS[0]!)
    kube.failNext(1, {verb: 'list', kind: 'Workload'})
    const result = await run(kube).done
    expect(result.workloads).toHaveLength(1)
    expect(kube.requests.filter((r) => r.status === 503)).toHaveLength(1)
  })

  it('reaches the cluster through a kubeconfig without asking GKE, and names no console page', async () => {
    const kube = aCluster()
    const {done, reached, connections, console} = run(kube, {
      viaKubeconfig: true,
      project: undefined,
      cluster: 'saved-cluster',
    })
    await done
    expect(reached).toEqual([undefined])
    expect(connections()).toBe(0)
    // Nothing found is said, without the cluster setting: a kubeconfig reached some other cluster.
    expect(console.codes()).toEqual(['workload.list.none-found'])
    expect(console.the('workload.list.none-found').text).toBe('No workloads found in namespace default.')
    expect(console.results).toEqual([])
  })
})

describe('bad input stops before any request', () => {
  it.each([
    [
      {filterByStatus: 'DONE'},
      '--filter-by-status "DONE" is not a status filter: use one of EVERYTHING, FINISHED, RUNNING, QUEUED, FAILED, SUCCESSFUL.',
    ],
    [{waitForJobCompletion: 'run-1', timeout: '-1'}, '--timeout: -1 is out of range'],
    [{waitForJobCompletion: 'run-1', timeout: '0'}, '--timeout: 0 is out of range'],
    [{waitForJobCompletion: 'run-1', timeout: 'soon'}, '--timeout: "soon" is not a whole number'],
    [{waitForJobCompletion: 'Run_1'}, '--wait-for-job-completion "Run_1": use lowercase letters'],
    [{project: undefined}, 'Missing --project'],
  ])('%j', async (overrides, text) => {
    const kube = aCluster()
    const {done, connections} = run(kube, overrides)
    const error = await failure(done)
    expect(error.kind).toBe('usage')
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain(text)
    expect(connections()).toBe(0)
    expect(kube.requests).toEqual([])
  })

  it('reports all problems together', async () => {
    const error = await failure(run(aCluster(), {filterByStatus: 'x', cluster: undefined, timeout: '5'}).done)
    expect(error).toBeInstanceOf(UsageErrors)
    expect((error as UsageErrors).problems.map((p) => p.flag)).toEqual(['--cluster', '--filter-by-status', '--timeout'])
  })
})

describe('--wait-for-job-completion', () => {
  /** A workload that is starting, and a wait for it with a clock the test moves. */
  async function waiting(overrides: Partial<WorkloadListOptions> = {}) {
    const kube = aCluster()
    const {workload} = seedWorkload(kube, 'run-1', jobsetStatus.starting(1), kueueStatus.admitted(1))
    seedWorkload(kube, 'other', jobsetStatus.running(1), kueueStatus.running(1))
    const clock = manualClock()
    const r = run(kube, {waitForJobCompletion: 'run-1', timeout: '3600', ...overrides}, clock)
    await settle()
    return {kube, clock, workload: workload!, ...r}
  }

  it('watches until the workload succeeds: exit 0, its row shown, and no request while it waits', async () => {
    const {kube, clock, workload, done, console} = await waiting()
    await clock.advance(60_000)
    kube.setStatus(workloadRef(workload), kueueStatus.running(2))
    await settle()
    // Time passes without any request: the two watches carry every change.
    const before = kube.requests.length
    await clock.advance(600_000)
    expect(kube.requests.length).toBe(before)
    kube.setStatus(jobsetRef('run-1'), jobsetStatus.completed(9))
    const result = await done
    expect(result.workloads).toMatchObject([{name: 'run-1', status: 'Succeeded', outcome: 'SUCCESSFUL'}])
    expect(result.waited).toEqual({name: 'run-1', seconds: 660})
    expect(reads(kube)).toEqual(['get JobSet', 'watch JobSet', 'watch Workload'])
    expect(kube.requests[1]!.watch).toMatchObject({fieldSelector: 'metadata.name=run-1'})
    // Only this JobSet's Workloads are streamed, by the job-uid label Kueue puts on them.
    const uid = String(kube.peek(jobsetRef('run-1'))!.metadata.uid)
    expect(kube.requests[2]!.watch).toMatchObject({labelSelector: `kueue.x-k8s.io/job-uid=${uid}`})
    expect(console.codes()).toEqual(['workload.list.waiting', 'workload.list.finished'])
    expect(console.the('workload.list.waiting').data).toEqual({
      workload: 'run-1',
      status: 'Admitted',
      timeoutSeconds: 3600,
    })
    const states = console.boards[0]!.updates.map((u) => u.line.state)
    expect([...new Set(states)]).toEqual(['Admitted', 'Running', 'Succeeded'])
    // Succeeded came as a change and again as the end: without a terminal, each state (and message) prints once.
    expect(states.filter((state) => state === 'Succeeded').length).toBeGreaterThan(1)
    expect(console.printed('Waiting for workload run-1')).toEqual([
      'run-1  Admitted  The JobSet is starting its jobs',
      'run-1  Admitted  Not all pods are ready or succeeded',
      'run-1  Running  All pods reached readiness and the workload is running',
      'run-1  Succeeded  jobset completed successfully',
    ])
    expect(console.boards[0]!.closed).toBe(true)
    expect(console.results[0]).toMatch(/\nrun-1 .* Succeeded /)
    expect(kube.openWatches()).toBe(0)
    expect(clock.sleeping).toBe(0)
  })

  it('a workload that fails is exit 125 with the reason on one line, its row shown first', async () => {
    const {kube, workload, done, console} = await waiting()
    kube.setStatus(workloadRef(workload), kueueStatus.failed(8))
    kube.setStatus(jobsetRef('run-1'), jobsetStatus.failed(8))
    const error = await failure(done)
    expect(error.kind).toBe('unsuccessful')
    expect(error.exitCode).toBe(125)
    expect(error.message).toBe(
      'Workload run-1 finished unsuccessfully: jobset failed due to reaching max number of restarts',
    )
    expect(console.results[0]).toMatch(/\nrun-1 .* Failed /)
    expect(kube.openWatches()).toBe(0)
  })

  it('Kueue finishing it on its own (admission check rejected, JobSet never ran) is a failure too', async () => {
    const {kube, workload, done} = await waiting()
    kube.setStatus(workloadRef(workload), kueueStatus.checkRejected(3))
    expect((await failure(done)).exitCode).toBe(125)
  })

  it.each([
    ['GKE, asked where the cluster is', 'gke'],
    ['the Kubernetes API, asked for the JobSet', 'kube'],
  ] as const)(
    '--timeout bounds the whole command: %s never answers, and it is exit 124 at the time limit',
    async (_, which) => {
      const kube = aCluster()
      seedWorkload(kube, 'run-1', jobsetStatus.starting(1), kueueStatus.admitted(1))
      const clock = manualClock()
      const gke = new MemoryGke()
      const {done, console} = run(
        which === 'kube' ? silent(kube) : kube,
        {waitForJobCompletion: 'run-1', timeout: '3'},
        clock,
        which === 'gke' ? silent(gke) : gke,
      )
      const ended = failure(done)
      await clock.advance(2999)
      await settle()
      expect(await Promise.race([ended, 'still waiting'])).toBe('still waiting')
      await clock.advance(1)
      const error = await ended
      expect([error.kind, error.exitCode]).toEqual(['timeout', 124])
      expect(error.message).toBe('Workload run-1 did not finish within 3 s: its state could not be read in that time.')
      expect(console.boards).toEqual([])
      expect(clock.sleeping).toBe(0)
    },
  )

  it('runs out of time: exit 124 naming where the workload is, watches closed', async () => {
    const {kube, clock, done} = await waiting({timeout: '90'})
    const ended = failure(done)
    await clock.advance(89_000)
    expect(kube.openWatches()).toBe(2)
    await clock.advance(1000)
    const error = await ended
    expect(error.kind).toBe('timeout')
    expect(error.exitCode).toBe(124)
    expect(error.message).toBe(
      'Workload run-1 did not finish within 90 s; it is Admitted: Not all pods are ready or succeeded',
    )
    expect(kube.openWatches()).toBe(0)
  })

  it('keeps watching across streams the server ends and history it forgets', async () => {
    const {kube, clock, workload, done} = await waiting()
    // Streams end after a while (minutes on a real server), not the moment they start.
    await clock.advance(300_000)
    kube.endWatches()
    await settle()
    kube.setStatus(workloadRef(workload), kueueStatus.running(2))
    await settle()
    await clock.advance(300_000)
    kube.forgetHistory()
    kube.failWatches(410)
    await settle()
    kube.setStatus(jobsetRef('run-1'), jobsetStatus.completed(9))
    await expect(done).resolves.toMatchObject({workloads: [{status: 'Succeeded'}]})
    const watches = kube.requests.filter((r) => r.verb === 'watch')
    // Two at first, two resumed after the clean end, two started over after the 410.
    expect(watches).toHaveLength(6)
    expect(watches.slice(4).map((r) => r.watch?.resourceVersion)).toEqual([undefined, undefined])
  })

  it('a Workload Kueue makes after the wait began is picked up', async () => {
    const kube = aCluster()
    const js = submittedJobSet('late', 'medium', at(0))
    kube.seed(js, {manager: 'xpk'})
    const clock = manualClock()
    const {done} = run(kube, {waitForJobCompletion: 'late'}, clock)
    await settle()
    const uid = String(kube.peek(jobsetRef('late'))!.metadata.uid)
    const workload = kueueWorkloadFor({...js, metadata: {...js.metadata, uid}}, at(1))
    kube.seed(workload, {manager: 'kueue', status: kueueStatus.succeeded(5)})
    await expect(done).resolves.toMatchObject({workloads: [{name: 'late', status: 'Succeeded'}]})
  })

  it('a workload that already finished is shown at once, with the Workload columns, without watching', async () => {
    const kube = aCluster()
    seedWorkload(kube, 'done-1', jobsetStatus.completed(5), kueueStatus.succeeded(5))
    seedWorkload(kube, 'other', jobsetStatus.completed(5), kueueStatus.succeeded(5))
    const result = await run(kube, {waitForJobCompletion: 'done-1'}).done
    expect(result.workloads).toMatchObject([{name: 'done-1', status: 'Succeeded', vmsRunningOrRan: VMS, vmsDone: VMS}])
    expect(reads(kube)).toEqual(['get JobSet', 'list Workload'])
  })

  it('the JobSet finishing before its Workload was streamed: the Workload is read once more for its columns', async () => {
    const kube = aCluster()
    const js = submittedJobSet('late', 'medium', at(0))
    kube.seed(js, {manager: 'xpk'})
    // The Workload stream is slow: nothing it carries has arrived when the JobSet's completion does.
    const watch = kube.watch.bind(kube)
    kube.watch = (apiVersion, kind, watchOptions, onEvent) =>
      watch(apiVersion, kind, watchOptions, kind === 'Workload' ? () => undefined : onEvent)
    const clock = manualClock()
    const {done} = run(kube, {waitForJobCompletion: 'late'}, clock)
    await settle()
    const uid = String(kube.peek(jobsetRef('late'))!.metadata.uid)
    const workload = kueueWorkloadFor({...js, metadata: {...js.metadata, uid}}, at(1))
    kube.seed(workload, {manager: 'kueue', status: kueueStatus.succeeded(9)})
    kube.setStatus(jobsetRef('late'), jobsetStatus.completed(9))
    const result = await done
    expect(result.workloads).toMatchObject([{name: 'late', status: 'Succeeded', vmsRunningOrRan: VMS, vmsDone: VMS}])
    expect(reads(kube)).toEqual(['get JobSet', 'watch JobSet', 'watch Workload', 'list Workload'])
    expect(kube.requests.at(-1)!.list).toMatchObject({labelSelector: `kueue.x-k8s.io/job-uid=${uid}`})
  })

  it('an unknown workload is not found (exit 4), with a hint, and nothing is watched', async () => {
    const kube = aCluster()
    const error = await failure(run(kube, {waitForJobCompletion: 'nope'}).done)
    expect(error.kind).toBe('not-found')
    expect(error.exitCode).toBe(4)
    expect(error.message).toBe('Workload nope does not exist in namespace default.')
    expect(error.hints[0]).toContain('xpk workload list')
    expect(reads(kube)).toEqual(['get JobSet'])
  })

  it('a JobSet deleted while waited for ends the wait (exit 1)', async () => {
    const {kube, done} = await waiting()
    await kube.delete(jobsetRef('run-1'))
    const error = await failure(done)
    expect(error.kind).toBe('failed')
    expect(error.message).toBe('Workload run-1 was deleted before it finished; it was Admitted.')
  })

  it('Ctrl-C stops the wait at once (exit 130) and closes the watches', async () => {
    const {kube, done, interrupt} = await waiting()
    const {XpkError} = await import('../../src/core/errors.js')
    interrupt(new XpkError('interrupted', 'Interrupted.'))
    const error = await failure(done)
    expect(error.exitCode).toBe(130)
    expect(kube.openWatches()).toBe(0)
  })
})

describe('fixture sanity', () => {
  it('every scenario seeds into the memory cluster and lists back as its expected status', async () => {
    for (const s of SCENARIOS) {
      const kube = aCluster()
      seedScenario(kube, s)
      const result = await run(kube).done
      expect([s.name, result.workloads[0]?.status]).toEqual([s.name, s.expected.status])
      expect(scenarioObjects(s).jobset).toMatchObject({metadata: {name: s.name}})
    }
  })
})
