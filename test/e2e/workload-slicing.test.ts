// `xpk workload create` as a whole process on a cluster set up for super-slicing (its resources ConfigMap and
// Kueue's super-slice-topology, made by the cluster side's own builders), against the GKE and Kubernetes wire fakes:
// Python xpk's recipe submitted with its annotation and the accelerator selector only (the fake validates the JobSet
// against the real JobSet CRD, and the Topology against Kueue's, when the tests can find them), the dry run showing
// the same JobSet, and a workload of more cubes than the cluster has refused with exit 2 and no mutating request.
import {beforeEach, describe, expect, it} from 'vitest'

import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {jobSetCrd, releaseWithRealCrds} from '../helpers/release-files.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {fakesForFile, seedDemoCluster, startKubeAndGke} from '../helpers/wire-fakes.js'
import {resourcesConfigMap, slicedCluster, submitReadyKueueObjects} from '../builders/workload-cluster.js'
import type {JobSet} from '../../src/core/manifests/k8s-types.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const IMAGE = `us-docker.pkg.dev/e2e-project/repo/trainer@sha256:${'c'.repeat(64)}`

let gke: FakeGke
let kube: FakeKube

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    seedDemoCluster(gke, PROJECT)
  },
  {reset: false},
)

/** Python's recipe Workload_create_super-slicing.md: 5 cubes of tpu7x-4x4x4 (`map[tpu7x-128:80]`). */
beforeEach(() => {
  kube.reset()
  const made = slicedCluster('super', 'tpu7x-4x4x4', 5)
  const topologyCrd = releaseWithRealCrds('kueue').find((o) => o.metadata.name === 'topologies.kueue.x-k8s.io')!
  kube.seed(
    jobSetCrd() as unknown as Obj,
    topologyCrd as unknown as Obj,
    made.topology as unknown as Obj,
    resourcesConfigMap('demo', made.resources) as unknown as Obj,
    ...(submitReadyKueueObjects() as unknown as Obj[]),
  )
  gke.calls.length = 0
})

const create = (...args: string[]) =>
  runCli(
    [
      ...['workload', 'create', '--cluster', 'demo', '--workload', 'golden-workload', '--docker-image', IMAGE],
      ...['--command', 'bash hello', ...args],
    ],
    {
      env: isolatedEnv({
        XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
        XPK_ACCESS_TOKEN: kube.token,
        XPK_PROJECT: PROJECT,
        XPK_ZONE: ZONE,
      }),
    },
  )

describe('workload create on a super-slicing cluster, through the built CLI', () => {
  it("submits Python's recipe: the slice-topology annotation, the accelerator selector only, no exclusive topology", async () => {
    const result = await create('--tpu-type', 'tpu7x-4x4x20')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(
      'Cluster demo is set up for super-slicing: golden-workload runs on 5 of its 5 cubes of 4x4x4, joined into 4x4x20.',
    )
    expect(result.stdout).toContain('Submitted workload golden-workload on cluster demo')
    const jobSet = kube.get({
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      namespace: 'default',
      name: 'golden-workload',
    }) as unknown as JobSet & {metadata: {annotations?: Record<string, string>}}
    expect(jobSet.metadata.annotations).toBeUndefined()
    const job = jobSet.spec.replicatedJobs[0]!
    expect(job.replicas).toBe(1)
    expect(job.template.spec.parallelism).toBe(80)
    expect(job.template.spec.template.metadata?.annotations).toEqual({
      'cloud.google.com/gke-tpu-slice-topology': '4x4x20',
    })
    expect(job.template.spec.template.spec.nodeSelector).toEqual({'cloud.google.com/gke-tpu-accelerator': 'tpu7x'})
    expect(kube.requests.filter((r) => r.resource === 'topologies').map((r) => r.verb)).toEqual(['list'])
  })

  it('--dry-run prints the same JobSet and the cubes in the plan, and sends nothing', async () => {
    const mark = markRequests({gke, kube})
    const result = await create('--tpu-type', 'tpu7x-4x4x20', '--dry-run')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain("super-slicing: 5 of the cluster's 5 cubes of 4x4x4 (80 of 80 VMs of tpu7x-128)")
    expect(result.stdout).toContain('cloud.google.com/gke-tpu-slice-topology: "4x4x20"')
    expect(result.stdout).not.toContain('placement-policy-name')
    expect(result.stdout).not.toContain('exclusive-topology')
    expect(mutationsSince({gke, kube}, mark)).toEqual([])
  })

  it.each([
    [['--tpu-type', 'tpu7x-4x4x24'], /^Error: --tpu-type: workload golden-workload needs 6 cubes of 4x4x4/m],
    [['--tpu-type', 'tpu7x-4x4x12', '--num-slices', '2'], /^Error: --num-slices: .* needs 6 cubes of 4x4x4/m],
    [['--tpu-type', 'tpu7x-8'], /^Error: --tpu-type tpu7x-8: cluster demo is set up for super-slicing/m],
  ])('%j: exit 2 naming the flag, no mutating request', async (args, text) => {
    const mark = markRequests({gke, kube})
    const result = await create(...args)
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(text)
    expect(mutationsSince({gke, kube}, mark)).toEqual([])
  })
})
