// `xpk workload list` as a user runs it: the GKE fake finds cluster demo and hands out the Kubernetes fake's
// endpoint and CA; the workloads are put there as `workload create` and Kueue leave them, and moved from state to
// state by writing the status objects Kueue and the JobSet controller write (through the status subresource, with
// the real CRDs validating them when the tests can find them). Every filter, --filter-by-job, --json, the wait
// (success 0, failure 125, timeout 124) and bad input (exit 2, no request at all).
import {beforeEach, describe, expect, it} from 'vitest'

import type {WorkloadListResult} from '../../src/services/workload-list.js'
import {
  SCENARIOS,
  at,
  jobsetStatus,
  kueueStatus,
  kueueWorkloadFor,
  submittedJobSet,
  type WorkloadScenario,
} from '../builders/workload-states.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli, startCli} from '../helpers/cli.js'
import {fakesForFile, seedDemoCluster, startKubeAndGke} from '../helpers/wire-fakes.js'
import {expectGolden} from '../helpers/golden.js'
import {workloadCrds} from '../helpers/workload-crds.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const CRDS = workloadCrds()

let gke: FakeGke
let kube: FakeKube

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire, {kube: {bookmarkIntervalMs: 1000}}))
    seedDemoCluster(gke, PROJECT)
  },
  {reset: false},
)
beforeEach(() => {
  kube.reset()
  kube.seed(...(CRDS as unknown as Obj[]))
})

const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${gke.endpoint}`, XPK_ACCESS_TOKEN: kube.token})
const list = (...args: string[]) =>
  runCli(['workload', 'list', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo', ...args], {env: env()})
const listJson = async (...args: string[]) => {
  const result = await list(...args, '--json')
  expect(result.stderr).not.toMatch(/^Error/m)
  expect(result.code).toBe(0)
  return JSON.parse(result.stdout) as WorkloadListResult
}

const jobsetRef = (name: string) => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  namespace: 'default',
  name,
})
const workloadName = new Map<string, string>()
const workloadRef = (name: string) => ({
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  kind: 'Workload',
  namespace: 'default',
  name: workloadName.get(name)!,
})

/** The JobSet as `workload create` submits it. */
function submit(name: string, priority: WorkloadScenario['priority'] = 'medium'): void {
  kube.seed(submittedJobSet(name, priority, at(0)) as unknown as Obj)
}

/** Kueue's Workload for the JobSet, owned by its real uid, as Kueue makes it when it sees the JobSet. */
function kueueTakes(name: string): void {
  const stored = kube.get(jobsetRef(name))! as unknown as ReturnType<typeof submittedJobSet>
  const workload = kueueWorkloadFor(stored, at(0)) as Obj & {metadata: {name: string}}
  kube.seed(workload)
  workloadName.set(name, workload.metadata.name)
}

function seedScenario(s: WorkloadScenario): void {
  submit(s.name, s.priority)
  if (Object.keys(s.jobset).length > 0) kube.setStatus(jobsetRef(s.name), s.jobset as Obj)
  if (s.kueue === null) return
  kueueTakes(s.name)
  kube.setStatus(workloadRef(s.name), s.kueue as Obj)
}

describe('workload list', () => {
  it('follows one workload through its life: each state Kueue and JobSet write shows as its status', async () => {
    const status = async () => (await listJson()).workloads.map((w) => [w.name, w.status, w.phase])
    submit('run-1', 'low')
    expect(await status()).toEqual([['run-1', 'Submitted', 'QUEUED']])
    kube.setStatus(jobsetRef('run-1'), jobsetStatus.suspended(1))
    kueueTakes('run-1')
    kube.setStatus(workloadRef('run-1'), kueueStatus.pending(1))
    expect(await status()).toEqual([['run-1', 'Pending', 'QUEUED']])
    kube.setStatus(workloadRef('run-1'), kueueStatus.admitted(2))
    kube.setStatus(jobsetRef('run-1'), jobsetStatus.starting(2))
    expect(await status()).toEqual([['run-1', 'Admitted', 'RUNNING']])
    kube.setStatus(workloadRef('run-1'), kueueStatus.running(3))
    kube.setStatus(jobsetRef('run-1'), jobsetStatus.running(3))
    expect(await status()).toEqual([['run-1', 'Running', 'RUNNING']])
    // A high-priority workload arrives; this one is preempted and goes back to the queue.
    kube.setStatus(workloadRef('run-1'), kueueStatus.preempted(4))
    kube.setStatus(jobsetRef('run-1'), jobsetStatus.suspended(4))
    expect(await status()).toEqual([['run-1', 'Preempted', 'QUEUED']])
    kube.setStatus(workloadRef('run-1'), kueueStatus.readmitted(6))
    kube.setStatus(jobsetRef('run-1'), jobsetStatus.running(6, 1))
    expect(await status()).toEqual([['run-1', 'Running', 'RUNNING']])
    kube.setStatus(workloadRef('run-1'), kueueStatus.succeeded(9))
    kube.setStatus(jobsetRef('run-1'), jobsetStatus.completed(9))
    const done = (await listJson()).workloads[0]!
    expect(done).toMatchObject({
      status: 'Succeeded',
      phase: 'FINISHED',
      outcome: 'SUCCESSFUL',
      vmsDone: 16,
      restarts: 0,
    })
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('prints the table of every state, and where the Cloud Console shows them', async () => {
    for (const s of SCENARIOS) seedScenario(s)
    const result = await list()
    expect(result.code).toBe(0)
    // One row per state, each with the status its fixture expects (test/core/workload/status.test.ts).
    expectGolden('cli/workload-list.txt', result.stdout)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(SCENARIOS.length + 1)
    for (const s of SCENARIOS)
      expect(lines.find((l) => l.startsWith(`${s.name} `))).toContain(`   ${s.expected.status}   `)
    expect(result.stderr).toContain(
      `See your workloads in Cloud Console: https://console.cloud.google.com/kubernetes/aiml/deployments/jobs?project=${PROJECT}`,
    )
    // One list per kind: the namespace's Workloads and JobSets (plus discovery of each API group).
    expect(kube.requestCount({verb: 'list'})).toBe(2)
  })

  it.each([
    ['everything', SCENARIOS.length],
    ['FINISHED', 5],
    ['failed', 3],
    ['Successful', 2],
    ['running', 4],
    ['QUEUED', 5],
  ])('--filter-by-status %s', async (filter, count) => {
    for (const s of SCENARIOS) seedScenario(s)
    const result = await listJson('--filter-by-status', filter)
    expect(result.workloads).toHaveLength(count)
    expect(result.filter.status).toBe(filter.toUpperCase())
    const expected = SCENARIOS.filter((s) =>
      filter.toUpperCase() === 'EVERYTHING'
        ? true
        : [s.expected.phase, s.expected.outcome].includes(filter.toUpperCase() as never),
    ).map((s) => s.name)
    expect(result.workloads.map((w) => w.name)).toEqual(expected.sort())
  })

  it('--filter-by-job keeps names containing the text', async () => {
    for (const s of SCENARIOS) seedScenario(s)
    const result = await listJson('--filter-by-job', 'kueue-behind')
    expect(result.workloads.map((w) => w.name)).toEqual(['completed-kueue-behind', 'failed-kueue-behind'])
  })

  it('reaches the cluster through a kubeconfig too', async () => {
    seedScenario(SCENARIOS[2]!)
    const {writeFileSync} = await import('node:fs')
    const {join} = await import('node:path')
    const {tempDir} = await import('../helpers/temp.js')
    const file = join(tempDir('xpk-kubeconfig-'), 'config')
    writeFileSync(file, kube.kubeconfig())
    const result = await runCli(['workload', 'list', '--kubeconfig', file, '--json'], {env: env()})
    expect(result.code).toBe(0)
    expect((JSON.parse(result.stdout) as WorkloadListResult).workloads).toMatchObject([{status: 'Running'}])
  })
})

describe('workload list --wait-for-job-completion', () => {
  /** Starts the wait on a running workload and resolves once both watches are open. */
  async function startWait(...extra: string[]) {
    seedScenario(SCENARIOS.find((s) => s.name === 'user-third-job-running')!)
    const name = 'user-third-job-running'
    const run = startCli(
      ['workload', 'list', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo'].concat([
        '--wait-for-job-completion',
        name,
        ...extra,
      ]),
      {env: env()},
    )
    for (let i = 0; i < 500 && kube.requestCount({verb: 'watch'}) < 2; i++) await new Promise((r) => setTimeout(r, 20))
    expect(kube.requestCount({verb: 'watch'})).toBe(2)
    return {name, ...run}
  }

  it('exits 0 once the workload succeeds, showing its row; it watched instead of polling', async () => {
    const {name, done} = await startWait('--timeout', '60')
    await new Promise((r) => setTimeout(r, 300))
    const before = kube.requests.length
    kube.setStatus(workloadRef(name), kueueStatus.succeeded(20))
    kube.setStatus(jobsetRef(name), jobsetStatus.completed(20))
    const result = await done
    expect(result.stderr).not.toMatch(/^Error/m)
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`^${name}\\s.*\\sSucceeded\\s`, 'm'))
    expect(result.stderr).toContain(
      `Workload ${name} finished successfully; see it here: https://console.cloud.google.com/kubernetes/service/us-central2/demo/default/${name}/details?project=${PROJECT}`,
    )
    // Nothing was asked for while it waited: the watches brought the changes.
    expect(kube.requests.length).toBe(before)
    expect(kube.requestCount({verb: 'list'})).toBe(0)
    // No terminal here: one timestamped line per state, the final one once (it came as a change and as the end).
    const states = result.stderr
      .split('\n')
      .map((line) => new RegExp(`^\\d{4}-[\\d-]+T[\\d:]+Z {2}${name} {2}(.+)`).exec(line)?.[1])
      .filter(Boolean)
    expect(states).toEqual([
      'Running  Every job of the JobSet is ready',
      'Running  All pods reached readiness and the workload is running',
      'Succeeded  jobset completed successfully',
    ])
  })

  it('carries on through a 3 s API server outage (connections cut, handshakes dropped) and exits 0 when it succeeds', async () => {
    const {name, done} = await startWait('--timeout', '60')
    const watches = kube.requestCount({verb: 'watch'})
    await kube.outage(3000)
    // The watches come back, then the workload finishes.
    for (let i = 0; i < 500 && kube.requestCount({verb: 'watch'}) < watches + 2; i++) {
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(kube.requestCount({verb: 'watch'})).toBeGreaterThanOrEqual(watches + 2)
    kube.setStatus(workloadRef(name), kueueStatus.succeeded(20))
    kube.setStatus(jobsetRef(name), jobsetStatus.completed(20))
    const result = await done
    expect(result.stderr).not.toMatch(/^Error/m)
    expect(result.stderr).not.toMatch(/certificate/i)
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`^${name}\\s.*\\sSucceeded\\s`, 'm'))
  }, 60_000)

  it('exits 125 with the reason on one line when it fails', async () => {
    const {name, done} = await startWait()
    kube.setStatus(jobsetRef(name), jobsetStatus.failed(20))
    const result = await done
    expect(result.code).toBe(125)
    expect(result.stderr).toMatch(
      new RegExp(
        `^Error: Workload ${name} finished unsuccessfully: jobset failed due to reaching max number of restarts$`,
        'm',
      ),
    )
  })

  it('exits 124 when the timeout passes first, saying where the workload is', async () => {
    const {name, done} = await startWait('--timeout', '2', '--json')
    const result = await done
    expect(result.code).toBe(124)
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        kind: 'timeout',
        exitCode: 124,
        message: `Workload ${name} did not finish within 2 s; it is Running: All pods reached readiness and the workload is running`,
        hints: ['Wait longer with --timeout SECONDS; the workload itself keeps running.'],
      },
    })
  })

  it('an unknown workload is not found (exit 4) and nothing is watched', async () => {
    const result = await list('--wait-for-job-completion', 'nope')
    expect(result.code).toBe(4)
    expect(result.stderr).toContain('Error: Workload nope does not exist in namespace default.')
    expect(kube.requestCount({verb: 'watch'})).toBe(0)
  })
})

describe('bad input exits 2 before any request', () => {
  it.each([
    [
      ['--filter-by-status', 'DONE'],
      '--filter-by-status "DONE" is not a status filter: use one of EVERYTHING, FINISHED, RUNNING, QUEUED, FAILED, SUCCESSFUL.',
    ],
    [
      ['--wait-for-job-completion', 'run-1', '--timeout', '-1'],
      '--timeout: -1 is out of range: use a whole number from 1 to 2147483',
    ],
    [['--wait-for-job-completion', 'run-1', '--timeout', '0'], '--timeout: 0 is out of range'],
    [['--wait-for-job-completion', 'run-1', '--timeout', 'soon'], '--timeout: "soon" is not a whole number'],
    [['--wait-for-job-completion', 'Run_1'], '--wait-for-job-completion "Run_1": use lowercase letters'],
    [['--timeout', '60'], '--timeout'],
    [['--wait-for-job-completion', 'run-1', '--filter-by-job', 'run'], 'cannot be used together'],
  ])('%j', async (args, text) => {
    const gkeCalls = gke.calls.length
    const result = await list(...args)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(text)
    expect(kube.requests).toEqual([])
    expect(gke.calls.length).toBe(gkeCalls)
  })
})
