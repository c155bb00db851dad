// Pathways end to end: the built CLI against the wire fakes of GKE, Compute Engine and Kubernetes. `cluster
// create-pathways` makes the cluster (its cpu-np pool's machine type read from the Compute fake, Kueue's cpu-user
// flavor applied to the Kubernetes fake), then `workload create-pathways` submits a batch workload and a headless one
// there, `workload list` shows both, `workload logs` reads the head's log (--head) and a worker's, and `workload
// delete` deletes them. No controller runs in the fakes: the list shows the JobSets as submitted, and the test makes
// the pods the JobSet controller would (labelled as it labels them) and writes their logs.
import {describe, expect, it} from 'vitest'

import type {FakeCompute} from '../fakes/fake-compute.js'
import {FakeCompute as Compute} from '../fakes/fake-compute.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {writeReleaseManifest} from '../helpers/release-files.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const IMAGE = `us-docker.pkg.dev/e2e-project/repo/trainer@sha256:${'d'.repeat(64)}`
const JOBSET = 'jobset.x-k8s.io/v1alpha2'

let gke: FakeGke
let kube: FakeKube
let compute: FakeCompute
const manifests: {jobset?: string; kueue?: string} = {}

fakesForFile(async (fakes) => {
  ;({kube, gke} = await startKubeAndGke(fakes, {kube: {rolloutMs: 30}, gke: {operationMs: 20}}))
  compute = fakes.add(await Compute.start())
  manifests.jobset = writeReleaseManifest('jobset', tempDir('xpk-release-'))
  manifests.kueue = writeReleaseManifest('kueue', tempDir('xpk-release-'))
})

const env = () =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_COMPUTE_ENDPOINT: compute.endpoint,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_PROJECT: PROJECT,
    XPK_ZONE: ZONE,
    XPK_POLL_INTERVAL_MS: '20',
    XPK_RETRY_INTERVAL_MS: '20',
    XPK_CONTROLLER_TIMEOUT_S: '3',
  })
const xpk = (...args: string[]) => runCli(args, {env: env()})

type JobSetShape = {
  spec: {replicatedJobs: {name: string; replicas: number; template: {spec: {template: {spec: Obj}}}}[]}
}
type Obj = Record<string, unknown>
const jobSet = (name: string) =>
  kube.get({apiVersion: JOBSET, kind: 'JobSet', namespace: 'default', name}) as unknown as JobSetShape | undefined

/**
 * The pod the JobSet controller makes for `job`'s Job `slice`, completion index `worker`, named and labelled as it
 * does, with the replicated Job's pod spec; returns its name.
 */
function seedPod(workload: string, job: 'pathways-head' | 'worker', slice: number, worker: number): string {
  const name = `${workload}-${job}-${slice}-${worker}-x${slice}${worker}`
  const replicated = jobSet(workload)!.spec.replicatedJobs.find((r) => r.name === job)!
  kube.seed({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      labels: {
        'jobset.sigs.k8s.io/jobset-name': workload,
        'jobset.sigs.k8s.io/replicatedjob-name': job,
        'jobset.sigs.k8s.io/job-index': String(slice),
        'batch.kubernetes.io/job-completion-index': String(worker),
      },
    },
    spec: replicated.template.spec.template.spec,
  })
  return name
}

/** The pod-name prefix a Cloud Logging link filters on, decoded. */
const podFilter = (text: string, label: string) =>
  decodeURIComponent(new RegExp(`${label}[^\\n]*?(https://\\S+)`).exec(text)?.[1] ?? '').match(/pod_name:"[^"]*"/)?.[0]

describe('Pathways over the wire', () => {
  it('cluster create-pathways, then a batch and a headless workload: listed, their logs read, then deleted', async () => {
    const cluster = await xpk(
      ...['cluster', 'create-pathways', '--cluster', 'demo', '--tpu-type', 'v5p-8', '--num-slices', '2'],
      ...['--on-demand', '--force', '--jobset-manifest', manifests.jobset!, '--kueue-manifest', manifests.kueue!],
    )
    expect(cluster.code, cluster.stderr).toBe(0)
    // The cpu-np pool's machine type was read from the zone, and the pool created with it.
    expect(compute.calls.map((c) => `${c.method} ${c.path}`)).toContain(
      `GET projects/${PROJECT}/zones/${ZONE}/machineTypes/n2-standard-64`,
    )
    const pools = gke.calls.filter((c) => c.method === 'CreateNodePool')
    expect(pools.map((c) => (c.request as {nodePool: {name: string}}).nodePool.name)).toContain('cpu-np')
    expect(kube.get({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ResourceFlavor', name: 'cpu-user'})).toBeDefined()

    const batch = await xpk(
      ...['workload', 'create-pathways', '--cluster', 'demo', '--workload', 'pw-batch', '--tpu-type', 'v5p-8'],
      ...['--num-slices', '2', '--docker-image', IMAGE, '--command', 'python3 train.py'],
    )
    expect(batch.code, batch.stderr).toBe(0)
    expect(batch.stdout).toContain('Pathways proxy: grpc://pw-batch-pathways-head-0-0.pw-batch:29000')
    // The Cloud Logging links name the Pathways pods: its head, and its workers (not `slice-job`).
    expect(podFilter(batch.stdout, 'Logs of the Pathways head:')).toBe('pod_name:"pw-batch-pathways-head-0-0-"')
    expect(podFilter(batch.stdout, 'Logs of worker 0 of slice 0')).toBe('pod_name:"pw-batch-worker-0-0-"')
    expect(jobSet('pw-batch')!.spec.replicatedJobs.map((r) => [r.name, r.replicas])).toEqual([
      ['pathways-head', 1],
      ['worker', 2],
    ])

    const headless = await xpk(
      ...['workload', 'create-pathways', '--cluster', 'demo', '--workload', 'pw-nb', '--tpu-type', 'v5p-8'],
      ...['--num-slices', '2', '--headless'],
    )
    expect(headless.code, headless.stderr).toBe(0)
    expect(headless.stdout).toContain('Pathways proxy: grpc://pw-nb-pathways-head-0-0.pw-nb:29000')
    expect(headless.stdout).toContain('JAX_BACKEND_TARGET=grpc://127.0.0.1:29000')
    expect(jobSet('pw-nb')).toBeDefined()

    // Python names the rows by JobSet; the head's CPU pod set is not counted among the VMs (2 slices of 1 VM).
    const list = await xpk('workload', 'list', '--cluster', 'demo', '--json')
    expect(list.code, list.stderr).toBe(0)
    const rows = (JSON.parse(list.stdout) as {workloads: {name: string; vmsNeeded: number; priority: string}[]})
      .workloads
    expect(rows.map((r) => [r.name, r.vmsNeeded, r.priority])).toEqual([
      ['pw-batch', 2, 'medium'],
      ['pw-nb', 2, 'medium'],
    ])
    const table = await xpk('workload', 'list', '--cluster', 'demo')
    expect(table.stdout.split('\n')[0]).toMatch(/^JOBSET NAME/)

    // The logs: the head's pod (--head: the user's container; a headless head's first container, the proxy's), a
    // worker's by --slice/--worker (worker 0 of slice 0 by default, never the head, whose own indexes are 0/0),
    // and with --all every pod, the head's lines prefixed [head].
    const batchHead = seedPod('pw-batch', 'pathways-head', 0, 0)
    kube.appendPodLog('default', batchHead, 'training step 1\n')
    const nbHead = seedPod('pw-nb', 'pathways-head', 0, 0)
    kube.appendPodLog('default', nbHead, 'IFRT proxy server started with status OK\n', 'pathways-proxy')
    kube.appendPodLog('default', nbHead, 'resource manager up\n', 'pathways-rm')
    for (const [slice, worker] of [
      [0, 0],
      [1, 0],
    ] as const) {
      kube.appendPodLog('default', seedPod('pw-batch', 'worker', slice, worker), `worker ${slice}/${worker} ready\n`)
    }
    const logs = (workload: string, ...rest: string[]) =>
      xpk('workload', 'logs', '--cluster', 'demo', workload, ...rest)
    const head = await logs('pw-batch', '--head')
    expect([head.code, head.stdout], head.stderr).toEqual([0, 'training step 1\n'])
    const proxy = await logs('pw-nb', '--head')
    expect([proxy.code, proxy.stdout], proxy.stderr).toEqual([0, 'IFRT proxy server started with status OK\n'])
    const first = await logs('pw-batch')
    expect([first.code, first.stdout], first.stderr).toEqual([0, 'worker 0/0 ready\n'])
    const second = await logs('pw-batch', '--slice', '1')
    expect([second.code, second.stdout], second.stderr).toEqual([0, 'worker 1/0 ready\n'])
    const all = await logs('pw-batch', '--all')
    expect(all.code, all.stderr).toBe(0)
    expect(all.stdout.split('\n').filter(Boolean).sort()).toEqual([
      '[head] training step 1',
      '[slice 0/worker 0] worker 0/0 ready',
      '[slice 1/worker 0] worker 1/0 ready',
    ])
    // --head with --slice is refused by the flag parser (exit 2 naming both), before any request.
    const both = await logs('pw-batch', '--head', '--slice', '1')
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/--head/)
    expect(both.stderr).toMatch(/--slice/)

    const removed = await xpk('workload', 'delete', '--cluster', 'demo', '--filter-by-job', 'pw-', '--force')
    expect(removed.code, removed.stderr).toBe(0)
    expect(removed.stdout).toContain('Deleted JobSet default/pw-batch.')
    expect(removed.stdout).toContain('Deleted JobSet default/pw-nb.')
    expect(jobSet('pw-batch')).toBeUndefined()
    expect(jobSet('pw-nb')).toBeUndefined()
    expect((await xpk('workload', 'list', '--cluster', 'demo', '--json')).stdout).toContain('"workloads": []')
  })
})
