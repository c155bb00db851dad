// Pathways end to end: the built CLI against the wire fakes of GKE, Compute Engine and Kubernetes. `cluster
// create-pathways` makes the cluster (its cpu-np pool's machine type read from the Compute fake, Kueue's cpu-user
// flavor applied to the Kubernetes fake), then `workload create-pathways` submits a batch workload and a headless one
// there, `workload list` shows both and `workload delete` deletes them. No controller runs in the fakes: the list
// shows the JobSets as submitted.
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

type JobSetShape = {spec: {replicatedJobs: {name: string; replicas: number}[]}}
const jobSet = (name: string) =>
  kube.get({apiVersion: JOBSET, kind: 'JobSet', namespace: 'default', name}) as unknown as JobSetShape | undefined

describe('Pathways over the wire', () => {
  it('cluster create-pathways, then a batch and a headless workload: listed, then deleted', async () => {
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

    const removed = await xpk('workload', 'delete', '--cluster', 'demo', '--filter-by-job', 'pw-', '--force')
    expect(removed.code, removed.stderr).toBe(0)
    expect(removed.stdout).toContain('Deleted JobSet default/pw-batch.')
    expect(removed.stdout).toContain('Deleted JobSet default/pw-nb.')
    expect(jobSet('pw-batch')).toBeUndefined()
    expect(jobSet('pw-nb')).toBeUndefined()
    expect((await xpk('workload', 'list', '--cluster', 'demo', '--json')).stdout).toContain('"workloads": []')
  })
})
