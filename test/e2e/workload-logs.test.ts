// `xpk workload logs` as a user runs it: the GKE fake finds cluster demo and hands out the Kubernetes fake's
// endpoint; the JobSet is there as `workload create` leaves it, with pods labelled as JobSet and the Job
// controller label them, and the test writes their container logs through the fake while the CLI follows them.
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {at, submittedJobSet, SLICES} from '../builders/workload-states.js'
import {FakeGke} from '../fakes/fake-gke.js'
import {FakeKube, type Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli, startCli} from '../helpers/cli.js'
import {workloadCrds} from '../helpers/workload-crds.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const NAME = 'train-1'
/** v5litepod-16: 4 VMs (workers) per slice. */
const WORKERS = 4

let gke: FakeGke
let kube: FakeKube

beforeAll(async () => {
  kube = await FakeKube.start()
  gke = await FakeGke.start({...kube.gkeClusterOptions()})
  gke.seedCluster({project: PROJECT, location: 'us-central2', name: 'demo'})
}, 60_000)
afterAll(async () => {
  await gke?.stop()
  await kube?.stop()
})
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

function seedPod(slice: number, worker: number): void {
  kube.seed({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(slice, worker),
      namespace: 'default',
      labels: {
        'jobset.sigs.k8s.io/jobset-name': NAME,
        'jobset.sigs.k8s.io/job-index': String(slice),
        'batch.kubernetes.io/job-completion-index': String(worker),
      },
    },
    spec: {containers: [{name: 'jax-tpu', image: 'python:3.12'}]},
  })
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
