// `xpk workload logs` as a user runs it: the GKE fake finds cluster demo and hands out the Kubernetes fake's
// endpoint; the JobSet is there as `workload create` leaves it, with pods labelled as JobSet and the Job
// controller label them, and the test writes their container logs through the fake while the CLI follows them,
// restarts containers, and replaces pods as a JobSet restart does.
import * as k8s from '@kubernetes/client-node'
import {beforeEach, describe, expect, it} from 'vitest'

import {at, submittedJobSet, SLICES} from '../builders/workload-states.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli, startCli} from '../helpers/cli.js'
import {fakesForFile, seedDemoCluster, startKubeAndGke} from '../helpers/wire-fakes.js'
import {workloadCrds} from '../helpers/workload-crds.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const NAME = 'train-1'
/** v5litepod-16: 4 VMs (workers) per slice. */
const WORKERS = 4

let gke: FakeGke
let kube: FakeKube

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    seedDemoCluster(gke, PROJECT)
  },
  {reset: false},
)
beforeEach(() => {
  kube.reset()
  kube.seed(...(workloadCrds() as unknown as Obj[]))
  kube.seed(submittedJobSet(NAME, 'medium', at(0)) as unknown as Obj)
})

const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${gke.endpoint}`, XPK_ACCESS_TOKEN: kube.token})
const args = (...rest: string[]) => [
  'workload',
  'logs',
  NAME,
  '--project',
  PROJECT,
  '--zone',
  ZONE,
  '--cluster',
  'demo',
  ...rest,
]
const podName = (slice: number, worker: number) => `${NAME}-slice-job-${slice}-${worker}-x${slice}${worker}`

function seedPod(
  slice: number,
  worker: number,
  more: {name?: string; restartAttempt?: number; status?: Obj} = {},
): void {
  kube.seed({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: more.name ?? podName(slice, worker),
      namespace: 'default',
      labels: {
        'jobset.sigs.k8s.io/jobset-name': NAME,
        'jobset.sigs.k8s.io/job-index': String(slice),
        'batch.kubernetes.io/job-completion-index': String(worker),
        ...(more.restartAttempt === undefined
          ? {}
          : {'jobset.sigs.k8s.io/restart-attempt': String(more.restartAttempt)}),
      },
    },
    spec: {containers: [{name: 'jax-tpu', image: 'python:3.12'}]},
    ...(more.status ? {status: more.status} : {}),
  })
}

/** A pod's status while its container runs, as the kubelet reports it. */
const RUNNING: Obj = {
  phase: 'Running',
  containerStatuses: [
    {name: 'jax-tpu', restartCount: 0, ready: true, state: {running: {startedAt: '2026-01-01T00:00:00Z'}}},
  ],
}
const JOBSET = {apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'default', name: NAME}
/** The container exits: its log ends and the kubelet says it terminated. */
function exitContainer(pod: string): void {
  kube.endPodLog('default', pod)
  kube.setStatus({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: pod}, (status) => ({
    ...status,
    phase: 'Succeeded',
    containerStatuses: [
      {name: 'jax-tpu', restartCount: 0, ready: false, state: {terminated: {exitCode: 0, reason: 'Completed'}}},
    ],
  }))
}
const followedLogs = () => kube.requests.filter((r) => r.verb === 'log' && r.query.follow === 'true')

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  if (!condition()) throw new Error(`timed out waiting for ${what}`)
}

describe('xpk workload logs', () => {
  it('--all --follow: many pods writing at once, every line arrives prefixed, in order within its pod', async () => {
    const places: Array<[number, number]> = []
    for (let s = 0; s < SLICES; s++) for (let w = 0; w < WORKERS; w++) places.push([s, w])
    for (const [s, w] of places) {
      seedPod(s, w)
      kube.setPodLog('default', podName(s, w), 'start\n')
    }
    const run = startCli(args('--all', '--follow'), {env: env()})
    // Write once every pod's stream is open, so each line written is one the CLI must pass on.
    const opened = () => kube.requests.filter((r) => r.verb === 'log' && r.query.follow === 'true').length
    const deadline = Date.now() + 30_000
    while (opened() < places.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    expect(opened()).toBe(places.length)
    const LINES = 50
    for (let i = 0; i < LINES; i++) {
      // Every pod writes each step, some in two pieces that cut the line.
      for (const [s, w] of places) {
        if ((i + s + w) % 3 === 0) {
          kube.appendPodLog('default', podName(s, w), `step ${i} `)
          kube.appendPodLog('default', podName(s, w), `loss=${s}.${w}\n`)
        } else kube.appendPodLog('default', podName(s, w), `step ${i} loss=${s}.${w}\n`)
      }
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 5))
    }
    for (const [s, w] of places) kube.endPodLog('default', podName(s, w))
    // Following stops once the JobSet says the workload is done.
    kube.setCondition(JOBSET, {type: 'Completed', status: 'True', reason: 'AllJobsCompleted'})
    const result = await run.done
    expect(result.stderr).not.toMatch(/^Error/m)
    expect(result.code).toBe(0)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(places.length * (LINES + 1))
    for (const [s, w] of places) {
      const prefix = `[slice ${s}/worker ${w}] `
      const mine = lines.filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length))
      expect(mine).toEqual(['start', ...Array.from({length: LINES}, (_, i) => `step ${i} loss=${s}.${w}`)])
    }
  }, 60_000)

  it('--follow goes on in a restarted container and in the new pod of a JobSet restart, then stops when the JobSet completes', async () => {
    seedPod(0, 0, {status: RUNNING})
    kube.setPodLog('default', podName(0, 0), 'attempt 0, container 0\n')
    const run = startCli(args('--follow'), {env: env()})
    await until(() => followedLogs().length === 1, 'the first stream')
    kube.appendPodLog('default', podName(0, 0), 'exiting\n')
    // The container exits and the kubelet starts it again in the same pod.
    kube.restartPodContainer('default', podName(0, 0))
    kube.appendPodLog('default', podName(0, 0), 'attempt 0, container 1\n')
    await until(() => followedLogs().length === 2, 'the restarted container')
    // The JobSet restarts: the pod is deleted and a new one made for slice 0, worker 0.
    const kc = new k8s.KubeConfig()
    kc.loadFromString(kube.kubeconfig())
    await kc.makeApiClient(k8s.CoreV1Api).deleteNamespacedPod({name: podName(0, 0), namespace: 'default'})
    const renewed = `${NAME}-slice-job-0-0-r1`
    seedPod(0, 0, {name: renewed, restartAttempt: 1, status: RUNNING})
    kube.setPodLog('default', renewed, 'attempt 1\n')
    await until(() => followedLogs().some((r) => r.name === renewed), 'the new pod')
    kube.appendPodLog('default', renewed, 'done\n')
    exitContainer(renewed)
    kube.setCondition(JOBSET, {type: 'Completed', status: 'True', reason: 'AllJobsCompleted'})
    const result = await run.done
    expect(result.stderr).not.toMatch(/^Error/m)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('attempt 0, container 0\nexiting\nattempt 0, container 1\nattempt 1\ndone\n')
    expect(result.stderr).toContain('slice 0/worker 0 restarted (container restart 1); following the new container.')
    expect(result.stderr).toContain(
      `slice 0/worker 0 restarted (JobSet restart 1, new pod ${renewed}); following the new pod.`,
    )
    expect(result.stderr).toMatch(/Workload train-1 completed; stopped following its logs\./)
    // The new pod was found by a watch of the workload's pods, not by polling lists.
    const watches = kube.requests.filter((r) => r.verb === 'watch' && r.resource === 'pods')
    expect(watches.map((r) => r.query.labelSelector)).toContain('jobset.sigs.k8s.io/jobset-name=train-1')
    // Pods are listed twice: at the start, and one last look once the JobSet completed, after the new pod was read.
    const order = (r: (typeof kube.requests)[number]) => kube.requests.indexOf(r)
    const lists = kube.requests.filter((r) => r.verb === 'list' && r.resource === 'pods')
    expect(lists).toHaveLength(2)
    expect(order(lists[1]!)).toBeGreaterThan(order(followedLogs().find((r) => r.name === renewed)!))
  }, 60_000)

  it('--follow carries on through a 3 s API server outage (connections cut, handshakes dropped), nothing lost or twice', async () => {
    seedPod(0, 0, {status: RUNNING})
    kube.setPodLog('default', podName(0, 0), 'before\n')
    const run = startCli(args('--follow'), {env: env()})
    await until(() => followedLogs().length === 1, 'the stream')
    const opened = kube.requests.length
    // The API server restarts: for 3 s every connection is cut during its TLS handshake. The container writes on.
    const outage = kube.outage(3000)
    kube.appendPodLog('default', podName(0, 0), 'during\n')
    await outage
    await until(() => followedLogs().length >= 2, 'the stream reopened')
    expect(kube.requests.length).toBeGreaterThan(opened)
    kube.appendPodLog('default', podName(0, 0), 'after\n')
    exitContainer(podName(0, 0))
    kube.setCondition(JOBSET, {type: 'Completed', status: 'True', reason: 'AllJobsCompleted'})
    const result = await run.done
    expect(result.stderr).not.toMatch(/^Error/m)
    expect(result.stderr).not.toMatch(/certificate/i)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('before\nduring\nafter\n')
  }, 60_000)

  it('--follow: Ctrl-C while it waits for a restart stops it with exit 130, with the lines so far printed', async () => {
    seedPod(0, 0, {status: RUNNING})
    kube.setPodLog('default', podName(0, 0), 'step 1\n')
    const run = startCli(args('--follow'), {env: env()})
    await until(() => followedLogs().length === 1, 'the stream')
    exitContainer(podName(0, 0))
    // The container exited; the workload runs on, so the CLI watches for what comes next in the place.
    await until(() => kube.requests.some((r) => r.verb === 'watch' && r.resource === 'pods'), 'the watch')
    run.child.kill('SIGINT')
    const result = await run.done
    expect(result.signal).toBeNull()
    expect(result.code).toBe(130)
    expect(result.stdout).toBe('step 1\n')
    expect(result.stderr).toContain('Error: Interrupted.')
    expect(result.stderr).not.toMatch(/stopped following/)
  }, 60_000)

  it('by default reads worker 0 of slice 0; a missing pod is a note with its Cloud Logging query', async () => {
    seedPod(0, 0)
    kube.setPodLog('default', podName(0, 0), 'hello\nworld\n')
    const first = await runCli(args(), {env: env()})
    expect(first.code).toBe(0)
    expect(first.stdout).toBe('hello\nworld\n')
    const missing = await runCli(args('--slice', '1', '--worker', '2'), {env: env()})
    expect(missing.code).toBe(0)
    expect(missing.stdout).toBe('')
    expect(missing.stderr).toMatch(/no pod for slice 1, worker 2/)
    expect(missing.stderr).toContain('https://console.cloud.google.com/logs/query;query=')
  }, 60_000)

  it('an unknown workload exits 4; a bad --slice exits 2 before any request', async () => {
    const unknown = await runCli(
      ['workload', 'logs', 'nope', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo'],
      {
        env: env(),
      },
    )
    expect(unknown.code).toBe(4)
    kube.requests.length = 0
    const bad = await runCli(args('--slice', '-1'), {env: env()})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--slice/)
    expect(kube.requests).toEqual([])
  }, 60_000)
})
