// `xpk workload create` on clusters set up for sub- and super-slicing, in process over the in-memory Kubernetes
// port: the cluster's slicing read from Kueue's Topology (made here by the cluster side's own builders), Python xpk's
// recipes submitted with its annotations and node selectors, the refusals (exit 2, the flag, nothing built or
// sent, dry run or not), and clusters without the Topology unchanged.
import {describe, expect, it} from 'vitest'

import type {UsageError} from '../../src/core/errors.js'
import type {JobSet, PodTemplateSpec} from '../../src/core/manifests/k8s-types.js'
import {resolveSettings} from '../../src/core/settings.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import type {ImageBuildOptions} from '../../src/services/image-build.js'
import {createWorkload, type WorkloadCreateOptions} from '../../src/services/workload-create.js'
import {NodeFiles} from '../../src/adapters/local-files.js'
import {aWorkloadCluster, JOBSET_API, slicedCluster, TOPOLOGY_CRD} from '../builders/workload-cluster.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import type {MemoryKube} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {tempDir} from '../helpers/temp.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const IMAGE = 'us-docker.pkg.dev/my-project/repo/trainer@sha256:' + 'a'.repeat(64)

/** Cluster `demo` as `cluster create --sub-slicing` / `--super-slicing` leaves it (without the Topology: `bare`). */
function cluster(slicing: 'sub' | 'super', tpuType: string, slices: number, options: {bare?: boolean} = {}) {
  const made = slicedCluster(slicing, tpuType, slices)
  const kube = aWorkloadCluster({resources: made.resources})
  kube.seed(TOPOLOGY_CRD)
  if (!options.bare) kube.seed(made.topology)
  return kube
}
/** Python's recipe Workload_create_super-slicing.md: `map[tpu7x-128:80]`, 5 cubes. */
const superCluster = (options: {bare?: boolean} = {}) => cluster('super', 'tpu7x-4x4x4', 5, options)
/** Python's recipe Workload_create_sub-slicing.md: `map[v6e-16:8]`, 2 slices of 4x4. */
const subCluster = (options: {bare?: boolean} = {}) => cluster('sub', 'v6e-4x4', 2, options)

interface Run {
  readonly flags: Partial<WorkloadCreateOptions['flags']>
  readonly dryRun?: boolean
  readonly build?: boolean
}

function run(kube: MemoryKube, options: Run) {
  const console = new RecordingConsole()
  const builds: ImageBuildOptions[] = []
  const done = createWorkload(
    {
      flags: {workload: 'golden-workload', numSlices: '1', command: 'bash hello', ...options.flags},
      ...(options.build ? {scriptDir: tempDir('xpk-script-')} : {dockerImage: IMAGE}),
      dryRun: options.dryRun ?? false,
      offline: false,
      settings: resolveSettings({
        flags: {project: 'my-project', zone: 'us-central2-b', cluster: 'demo'},
        env: {},
        config: {},
        gcloud: {},
      }),
      timing: {
        retry: DEFAULT_RETRY_POLICY,
        workloadGone: {poll: {initialMs: 1000, maxMs: 5000, factor: 1.5}, timeoutMs: 60_000},
      },
    },
    {
      console,
      files: new NodeFiles(),
      env: {},
      cwd: tempDir('xpk-cwd-'),
      planImage: async (build) => ({
        result: {
          repository: build.repository,
          tag: 'ctx-0',
          reference: `${build.repository}:ctx-0`,
          digest: null,
          action: 'would-build',
          layersPushed: 0,
          layersSkipped: 0,
          contextFiles: 1,
          baseDigest: null,
          baseDigestSource: 'unresolved',
          seconds: 0,
        },
        build: build.dryRun ? null : async () => (builds.push(build), Promise.reject(new Error('not in this test'))),
      }),
      gke: async () => new MemoryGke(),
      kube: async () => kube,
      signal: new AbortController().signal,
      ...virtualClock(),
    },
  )
  return {done, console, builds}
}

const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as UsageError
const submitted = (kube: MemoryKube) =>
  kube.peek({apiVersion: JOBSET_API, kind: 'JobSet', namespace: 'default', name: 'golden-workload'}) as
    (JobSet & {metadata: {annotations?: Record<string, string>}}) | undefined
const podOf = (jobSet: JobSet): PodTemplateSpec => jobSet.spec.replicatedJobs[0]!.template.spec.template
const topologyReads = (kube: MemoryKube) => kube.requests.filter((r) => r.kind === 'Topology').map((r) => r.verb)

describe('workload create on a super-slicing cluster', () => {
  it("Python's recipe: tpu7x-4x4x20 on 5 cubes, with the slice-topology annotation and the accelerator selector only", async () => {
    const kube = superCluster()
    const {done, console} = run(kube, {flags: {tpuType: 'tpu7x-4x4x20'}})
    await expect(done).resolves.toMatchObject({submitted: true})
    const jobSet = submitted(kube)!
    expect(jobSet.metadata.annotations).toBeUndefined()
    const pod = podOf(jobSet)
    expect(pod.metadata?.annotations).toEqual({'cloud.google.com/gke-tpu-slice-topology': '4x4x20'})
    expect(pod.spec.nodeSelector).toEqual({'cloud.google.com/gke-tpu-accelerator': 'tpu7x'})
    expect(jobSet.spec.replicatedJobs[0]).toMatchObject({replicas: 1, template: {spec: {parallelism: 80}}})
    expect(topologyReads(kube)).toEqual(['list'])
    expect(console.the('workload.capacity').text).toBe(
      'Cluster demo is set up for super-slicing: golden-workload runs on 5 of its 5 cubes of 4x4x4, joined into 4x4x20.',
    )
  })

  it("the cluster's own type is a super-slice too: no selector of the plain placement policy, which no node has", async () => {
    const kube = superCluster()
    await expect(run(kube, {flags: {tpuType: 'tpu7x-4x4x4', numSlices: '2'}}).done).resolves.toMatchObject({
      submitted: true,
    })
    const pod = podOf(submitted(kube)!)
    expect(pod.spec.nodeSelector).toEqual({'cloud.google.com/gke-tpu-accelerator': 'tpu7x'})
    expect(pod.metadata?.annotations).toEqual({'cloud.google.com/gke-tpu-slice-topology': '4x4x4'})
  })

  it('the dry run shows the cubes in the plan and the JobSet, and sends nothing', async () => {
    const kube = superCluster()
    const {done, console} = run(kube, {flags: {tpuType: 'tpu7x-4x4x8', numSlices: '2'}, dryRun: true})
    const result = await done
    expect(result.steps[0]!.reason).toContain(
      "super-slicing: 4 of the cluster's 5 cubes of 4x4x4 (64 of 80 VMs of tpu7x-128), joined into 4x4x8 by GKE's slice controller (super-slice-topology)",
    )
    expect(console.results.join('\n')).toContain('cloud.google.com/gke-tpu-slice-topology: "4x4x8"')
    expect(kube.mutatingRequests()).toEqual([])
  })

  it.each<[string, Partial<WorkloadCreateOptions['flags']>, string, RegExp]>([
    [
      'one slice of more cubes than the cluster has',
      {tpuType: 'tpu7x-4x4x24'},
      '--tpu-type',
      /needs 6 cubes of 4x4x4 \(1 slice of 4x4x24, 96 VMs\), but cluster demo has 5 cubes \(80 VMs of tpu7x-128\)/,
    ],
    [
      'slices that do not fit together',
      {tpuType: 'tpu7x-4x4x12', numSlices: '2'},
      '--num-slices',
      /needs 6 cubes of 4x4x4 \(2 slices of 4x4x12, 96 VMs\)/,
    ],
    ['less than a cube', {tpuType: 'tpu7x-2x4x4'}, '--tpu-type', /2x4x4 is not 4i x 4j x 4k/],
    [
      'a name over 28 characters',
      {tpuType: 'tpu7x-4x4x8', workload: 'a-workload-name-of-29-letters'},
      '--workload',
      /at most 28 characters \(this one has 29\)/,
    ],
    ['another accelerator', {tpuType: 'v5p-16'}, '--tpu-type', /cluster demo has 80 VMs of tpu7x-128, not v5p-16/],
  ])('%s: exit 2 naming %s, nothing built or sent (submit and dry run)', async (_name, flags, flag, text) => {
    for (const dryRun of [false, true]) {
      const kube = superCluster()
      const {done, builds} = run(kube, {flags, dryRun, build: true})
      const error = await failure(done)
      expect(error.exitCode, `dry run ${dryRun}`).toBe(2)
      expect(error.flag).toBe(flag)
      expect(error.message).toMatch(text)
      expect(builds).toEqual([])
      expect(kube.mutatingRequests()).toEqual([])
    }
  })

  it('without super-slice-topology the cluster is an ordinary one: the exact type, with its placement policy', async () => {
    const kube = superCluster({bare: true})
    await expect(run(kube, {flags: {tpuType: 'tpu7x-4x4x4'}}).done).resolves.toMatchObject({submitted: true})
    const jobSet = submitted(kube)!
    expect(jobSet.metadata.annotations).toEqual({
      'alpha.jobset.sigs.k8s.io/exclusive-topology': 'cloud.google.com/gke-nodepool',
    })
    expect(podOf(jobSet).spec.nodeSelector).toEqual({
      'cloud.google.com/gke-tpu-accelerator': 'tpu7x',
      'cloud.google.com/gke-tpu-topology': '4x4x4',
      'cloud.google.com/placement-policy-name': 'tpu7x-128-4x4x4-placement-policy',
    })
    const error = await failure(run(superCluster({bare: true}), {flags: {tpuType: 'tpu7x-4x4x20'}}).done)
    expect(error.message).toContain('cluster demo has 80 VMs of tpu7x-128, not tpu7x-640')
  })
})

describe('workload create on a sub-slicing cluster', () => {
  it("Python's recipe: v6e-2x4 on v6e-16 slices, placed by Kueue's sub-slice level, selecting the slices' 4x4", async () => {
    const kube = subCluster()
    const {done, console} = run(kube, {flags: {tpuType: 'v6e-2x4'}})
    await expect(done).resolves.toMatchObject({submitted: true})
    const jobSet = submitted(kube)!
    expect(jobSet.metadata.annotations).toBeUndefined()
    const pod = podOf(jobSet)
    expect(pod.metadata?.annotations).toEqual({
      'kueue.x-k8s.io/podset-required-topology': 'cloud.google.com/gke-tpu-slice-2x4-id',
      'cloud.google.com/gke-tpu-slice-topology': '2x4',
    })
    expect(pod.spec.nodeSelector).toEqual({
      'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice',
      'cloud.google.com/gke-tpu-topology': '4x4',
    })
    expect(jobSet.spec.replicatedJobs[0]).toMatchObject({replicas: 1, template: {spec: {parallelism: 2}}})
    expect(console.the('workload.capacity').text).toBe(
      'Cluster demo is set up for sub-slicing: golden-workload runs on 2x4 sub-slices of its 4x4 slices (2 of 8 VMs of v6e-16).',
    )
  })

  it("the cluster's own type is an ordinary workload (Python checks the exact type before sub-slicing)", async () => {
    const kube = subCluster()
    await expect(run(kube, {flags: {tpuType: 'v6e-16', numSlices: '2'}}).done).resolves.toMatchObject({
      submitted: true,
    })
    const jobSet = submitted(kube)!
    expect(jobSet.metadata.annotations).toEqual({
      'alpha.jobset.sigs.k8s.io/exclusive-topology': 'cloud.google.com/gke-nodepool',
    })
    expect(podOf(jobSet).metadata?.annotations).toBeUndefined()
  })

  it.each<[string, Partial<WorkloadCreateOptions['flags']>, string, RegExp]>([
    [
      'a type the cluster cannot sub-slice (4x8 on 4x4 slices)',
      {tpuType: 'v6e-4x8'},
      '--tpu-type',
      /set up for sub-slicing, which runs v6e-16 and the sub-slices that fit in its slice, not v6e-32 \(4x8\)/,
    ],
    ['no sub-slice topology (2x2)', {tpuType: 'v6e-4'}, '--tpu-type', /not v6e-4 \(2x2\)/],
    [
      'more sub-slices than the VMs hold',
      {tpuType: 'v6e-2x4', numSlices: '5'},
      '--num-slices',
      /needs 10 VMs \(5 sub-slices of 2x4\), but cluster demo has 8 VMs of v6e-16 to share/,
    ],
  ])('%s: exit 2 naming %s, nothing built or sent (submit and dry run)', async (_name, flags, flag, text) => {
    for (const dryRun of [false, true]) {
      const kube = subCluster()
      const {done, builds} = run(kube, {flags, dryRun, build: true})
      const error = await failure(done)
      expect(error.exitCode, `dry run ${dryRun}`).toBe(2)
      expect(error.flag).toBe(flag)
      expect(error.message).toMatch(text)
      if (flag === '--tpu-type')
        expect(error.hints).toEqual(['Submit v6e-16 or a sub-slice of it: --tpu-type v6e-8 (2x4).'])
      expect(builds).toEqual([])
      expect(kube.mutatingRequests()).toEqual([])
    }
  })

  it('without sub-slice-topology a sub-slice is another type, as before', async () => {
    const error = await failure(run(subCluster({bare: true}), {flags: {tpuType: 'v6e-2x4'}}).done)
    expect(error.exitCode).toBe(2)
    expect(error.message).toBe(
      '--tpu-type v6e-2x4: cluster demo has 8 VMs of v6e-16, not v6e-8, so workload golden-workload could never run there.',
    )
  })
})

describe('workload create reads the Topologies only for types that may be sliced', () => {
  it.each([
    ['v5p-16', {'v5p-16': '8'}, []],
    ['v6e-16', {'v6e-16': '8'}, ['list']],
    ['tpu7x-8', {'tpu7x-8': '2'}, ['list']],
  ] as const)('%s: %j', async (tpuType, resources, reads) => {
    const kube = aWorkloadCluster({resources: {...resources}})
    await expect(run(kube, {flags: {tpuType}}).done).resolves.toMatchObject({submitted: true})
    expect(topologyReads(kube)).toEqual(reads)
  })
})
