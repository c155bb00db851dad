// `xpk workload logs` on a Pathways workload, in process over the in-memory GKE and Kubernetes ports. Its JobSet
// (as `workload create-pathways` builds it) has two replicated Jobs: `pathways-head` (one pod, whose own indexes are
// slice 0 and worker 0) and `worker` (one Job per slice). --head reads the head's pod; --slice/--worker pick among
// the workers only, never the head; --all reads the head too, prefixed [head]; --head on another workload, or with
// --slice/--worker/--all, is bad input (exit 2 naming --head); the Cloud Logging links name the Pathways pods.
import {describe, expect, it} from 'vitest'

import {UsageError, UsageErrors, type XpkError} from '../../src/core/errors.js'
import {Problems} from '../../src/core/input.js'
import {buildPathwaysJobSet} from '../../src/core/manifests/pathways-jobset.js'
import {pathwaysSpecFromFlags} from '../../src/core/workload/pathways.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {workloadLogs, type WorkloadLogsOptions} from '../../src/services/workload-logs.js'
import {aWorkloadSpec} from '../builders/workload-spec.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const NAME = 'pw-run'
/** v5p-16: 2 TPU VMs a slice; 2 slices, so 4 worker pods and the head. */
const WORKERS: Array<[number, number]> = [
  [0, 0],
  [0, 1],
  [1, 0],
  [1, 1],
]

const headName = (suffix = 'hhhhh') => `${NAME}-pathways-head-0-0-${suffix}`
const workerName = (slice: number, worker: number, suffix = 'abcde') => `${NAME}-worker-${slice}-${worker}-${suffix}`

/** The Pathways JobSet `workload create-pathways` builds, batch (the user's container) or headless. */
function pathwaysJobSet(headless: boolean) {
  const built = buildPathwaysJobSet(
    aWorkloadSpec({name: NAME, type: 'v5p-16', numSlices: 2, command: 'python3 train.py'}),
    pathwaysSpecFromFlags({headless}, new Problems()),
  )
  return {...built, metadata: {...built.metadata, namespace: 'default'}}
}

/**
 * A pod of the Pathways JobSet as JobSet and the Job controller label it, with its replicated Job's pod spec
 * (the head's containers: the user's, or with --headless the proxy and the resource manager).
 */
function aPod(
  jobset: ReturnType<typeof pathwaysJobSet>,
  job: 'pathways-head' | 'worker',
  slice: number,
  worker: number,
  more: {name?: string; restart?: number} = {},
) {
  const replicated = jobset.spec.replicatedJobs.find((r) => r.name === job)!
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: more.name ?? (job === 'worker' ? workerName(slice, worker) : headName()),
      namespace: 'default',
      labels: {
        'jobset.sigs.k8s.io/jobset-name': NAME,
        'jobset.sigs.k8s.io/replicatedjob-name': job,
        'jobset.sigs.k8s.io/job-index': String(slice),
        'batch.kubernetes.io/job-completion-index': String(worker),
        ...(more.restart === undefined ? {} : {'jobset.sigs.k8s.io/restart-attempt': String(more.restart)}),
      },
    },
    spec: replicated.template.spec.template.spec,
  }
}

/** Every container of a pod's spec running, as the kubelet reports it. */
function running(pod: ReturnType<typeof aPod>) {
  return {
    phase: 'Running',
    containerStatuses: pod.spec.containers.map((c) => ({
      name: c.name,
      restartCount: 0,
      ready: true,
      state: {running: {startedAt: '2026-01-01T00:00:00Z'}},
    })),
  }
}

/** A cluster with JobSet's CRD and the Pathways workload, its head's pod (unless `noHead`) and the `workers`' pods. */
function aCluster(options: {headless?: boolean; noHead?: boolean; workers?: ReadonlyArray<[number, number]>} = {}) {
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
  const jobset = pathwaysJobSet(options.headless === true)
  kube.seed(jobset, {manager: 'xpk'})
  const pods = [
    ...(options.noHead ? [] : [aPod(jobset, 'pathways-head', 0, 0)]),
    ...(options.workers ?? WORKERS).map(([s, w]) => aPod(jobset, 'worker', s, w)),
  ]
  for (const pod of pods) seedRunning(kube, pod)
  return {kube, jobset}
}

/** Seeds a pod with its containers running. */
function seedRunning(kube: MemoryKube, pod: ReturnType<typeof aPod>): void {
  kube.seed(pod, {manager: 'kubelet', status: running(pod)})
}

/** The head's log (in its first container: the user's, or the proxy's when headless) and every worker's. */
function writeLogs(kube: MemoryKube, headless = false, workers: ReadonlyArray<[number, number]> = WORKERS): void {
  kube.appendPodLog('default', headName(), 'head says hi\n', headless ? 'pathways-proxy' : undefined)
  for (const [s, w] of workers) kube.appendPodLog('default', workerName(s, w), `worker ${s}/${w}\n`)
}

function run(kube: MemoryKube, overrides: Partial<WorkloadLogsOptions> = {}) {
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
  const signal = new AbortController().signal
  const done = workloadLogs(options, {gke: async () => gke, kube: async () => kube, console, signal, ...virtualClock()})
  return {done, console}
}

const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as XpkError
const logsRead = (kube: MemoryKube) =>
  kube.requests.filter((r) => r.verb === 'logs').map((r) => [r.name, r.logs?.container])
const query = (url: string | null | undefined) => decodeURIComponent(url ?? '')

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 1))
  if (!condition()) throw new Error(`timed out waiting for ${what}`)
}

describe('workloadLogs on a Pathways workload', () => {
  it('reads worker 0 of slice 0 of the workers by default, never the head (whose own indexes are 0/0)', async () => {
    const {kube, jobset} = aCluster({noHead: true})
    // The head's pod is made a second later (each request moves the fake's clock on): it is the newest pod with the
    // indexes slice 0, worker 0, so only its replicated Job can tell it from worker 0 of slice 0.
    await kube.get({apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'default', name: NAME})
    seedRunning(kube, aPod(jobset, 'pathways-head', 0, 0))
    writeLogs(kube)
    const {done, console} = run(kube)
    const result = await done
    expect(console.results).toEqual(['worker 0/0'])
    expect(result.pods).toEqual([{name: workerName(0, 0), slice: 0, worker: 0, lines: 1}])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('--slice/--worker pick among the workers; the shape they are held to is the workers’ (2 slices of 2)', async () => {
    const {kube} = aCluster()
    writeLogs(kube)
    const picked = await run(kube, {slice: '1', worker: '1'}).done
    expect(picked.pods.map((p) => p.name)).toEqual([workerName(1, 1)])
    const beyond = await failure(run(kube, {slice: '2'}).done)
    expect(beyond).toBeInstanceOf(UsageError)
    expect(beyond.message).toMatch(/has 2 slices of 2 workers: there is no slice 2, worker 0/)
    expect((beyond as UsageError).flag).toBe('--slice')
    expect(kube.mutatingRequests()).toEqual([])
  })

  it.each([
    ['batch: its one container, the user’s', false, undefined],
    ['headless: its first container, the proxy’s', true, 'pathways-proxy'],
  ])('--head reads the head’s pod (%s)', async (_, headless, container) => {
    const {kube} = aCluster({headless})
    writeLogs(kube, headless)
    const {done, console} = run(kube, {head: true})
    const result = await done
    expect(console.results).toEqual(['head says hi'])
    expect(result.pods).toEqual([{name: headName(), head: true, slice: 0, worker: 0, lines: 1}])
    expect(logsRead(kube)).toEqual([[headName(), container]])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('--all reads the head first, prefixed [head], then every worker, prefixed with its slice and worker', async () => {
    const {kube} = aCluster()
    writeLogs(kube)
    const {done, console} = run(kube, {all: true})
    const result = await done
    expect([...console.results].sort()).toEqual(
      ['[head] head says hi', ...WORKERS.map(([s, w]) => `[slice ${s}/worker ${w}] worker ${s}/${w}`)].sort(),
    )
    expect(result.pods.map((p) => p.name)).toEqual([headName(), ...WORKERS.map(([s, w]) => workerName(s, w))])
    expect(result.pods[0]).toMatchObject({head: true})
    expect(result.pods.slice(1).every((p) => p.head === undefined)).toBe(true)
    expect(result.gone).toEqual([])
  })

  it('a missing head or worker is a note with the Cloud Logging query for its Pathways pod name', async () => {
    const {kube} = aCluster({noHead: true, workers: [[0, 0]]})
    const result = await run(kube, {all: true}).done
    expect(result.gone.map((g) => [g.head ?? false, g.slice, g.worker])).toEqual([
      [true, 0, 0],
      [false, 0, 1],
      [false, 1, 0],
      [false, 1, 1],
    ])
    expect(query(result.gone[0]!.logs)).toContain(`resource.labels.pod_name:"${NAME}-pathways-head-0-0-"`)
    expect(query(result.gone[3]!.logs)).toContain(`resource.labels.pod_name:"${NAME}-worker-1-1-"`)
    for (const gone of result.gone) expect(query(gone.logs)).not.toContain('slice-job')

    const alone = run(kube, {head: true})
    expect((await alone.done).gone).toHaveLength(1)
    const note = alone.console.the('workload.logs.gone')
    expect(note.text).toMatch(new RegExp(`^Workload ${NAME} has no pod for the Pathways head\\. Its logs are in`))
    expect(note.data).toMatchObject({head: true})
  })

  it('--head --follow goes on in the head’s new pod after a JobSet restart, not in the new worker 0/0', async () => {
    const {kube, jobset} = aCluster()
    writeLogs(kube)
    const {done, console} = run(kube, {head: true, follow: true})
    await until(() => kube.requests.filter((r) => r.verb === 'logs').length === 1, 'the head’s stream')
    // The JobSet restarts: the head's and the workers' pods are deleted, new ones made (worker 0/0 first).
    await kube.delete({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: headName()})
    await kube.delete({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: workerName(0, 0)})
    await until(() => kube.openWatches() === 2, 'the watches')
    seedRunning(kube, aPod(jobset, 'worker', 0, 0, {name: workerName(0, 0, 'fghij'), restart: 1}))
    kube.appendPodLog('default', workerName(0, 0, 'fghij'), 'a worker, not the head\n')
    seedRunning(kube, aPod(jobset, 'pathways-head', 0, 0, {name: headName('fghij'), restart: 1}))
    kube.appendPodLog('default', headName('fghij'), 'head again\n')
    await until(() => kube.requests.filter((r) => r.verb === 'logs').length === 2, 'the new head’s stream')
    kube.exitPodContainer('default', headName('fghij'))
    kube.setStatus(
      {apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'default', name: NAME},
      {conditions: [{type: 'Completed', status: 'True', reason: 'AllJobsCompleted'}]},
    )
    const result = await done
    expect(console.results).toEqual(['head says hi', 'head again'])
    expect(console.the('workload.logs.restarted').text).toBe(
      `Pathways head restarted (JobSet restart 1, new pod ${headName('fghij')}); following the new pod.`,
    )
    expect(console.the('workload.logs.restarted').data).toMatchObject({head: true, pod: headName('fghij')})
    expect(result.restarts).toEqual([
      {head: true, slice: 0, worker: 0, pod: headName('fghij'), why: 'pod', restartCount: 0},
    ])
    expect(logsRead(kube).map(([name]) => name)).toEqual([headName(), headName('fghij')])
  })

  it('--head on a workload that is not a Pathways workload is exit 2 naming --head, and sends nothing', async () => {
    const {kube} = aCluster()
    kube.seed(
      {
        apiVersion: 'jobset.x-k8s.io/v1alpha2',
        kind: 'JobSet',
        metadata: {name: 'plain', namespace: 'default'},
        spec: {replicatedJobs: [{name: 'slice-job', replicas: 1, template: {spec: {parallelism: 1}}}]},
      },
      {manager: 'xpk'},
    )
    const error = await failure(run(kube, {workload: 'plain', head: true}).done)
    expect(error).toBeInstanceOf(UsageError)
    expect(error.kind).toBe('usage')
    expect((error as UsageError).flag).toBe('--head')
    expect(error.message).toMatch(/--head .*workload plain is not a Pathways workload: it has no Pathways head/)
    expect(kube.requests.filter((r) => r.verb === 'logs')).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it.each([
    [{slice: '1'}, '--slice'],
    [{worker: '0'}, '--worker'],
    [{all: true}, '--all'],
    [{slice: '0', worker: '1'}, '--slice or --worker'],
  ] as const)('--head with %o is exit 2 naming the conflict, before any request', async (more, named) => {
    const {kube} = aCluster()
    kube.requests.length = 0
    const error = await failure(run(kube, {head: true, ...more}).done)
    // One problem is thrown alone (UsageError), as with every flag of the command.
    expect(error).toBeInstanceOf(UsageError)
    expect(error).not.toBeInstanceOf(UsageErrors)
    expect((error as UsageError).flag).toBe('--head')
    expect(error.message).toBe(`--head reads the Pathways head's pod; it cannot be combined with ${named}.`)
    expect(kube.requests).toEqual([])
  })
})
