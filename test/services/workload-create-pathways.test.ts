import {describe, expect, it} from 'vitest'

import type {XpkError} from '../../src/core/errors.js'
import type {JobSet} from '../../src/core/manifests/k8s-types.js'
import {resolveSettings} from '../../src/core/settings.js'
import type {PathwaysFlags} from '../../src/core/workload/pathways.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import type {ImageBuildOptions} from '../../src/services/image-build.js'
import {createWorkload, type WorkloadCreateOptions} from '../../src/services/workload-create.js'
import {NodeFiles} from '../../src/adapters/local-files.js'
import {aWorkloadCluster, JOBSET_API} from '../builders/workload-cluster.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import type {MemoryKube} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {tempDir} from '../helpers/temp.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const IMAGE = 'us-docker.pkg.dev/my-project/repo/trainer@sha256:' + 'a'.repeat(64)

function run(
  kube: MemoryKube,
  pathways: PathwaysFlags,
  flags: Partial<WorkloadCreateOptions['flags']> = {},
  patch: Partial<WorkloadCreateOptions> = {},
) {
  const console = new RecordingConsole()
  const planned: ImageBuildOptions[] = []
  const done = createWorkload(
    {
      flags: {workload: 'pw-1', tpuType: 'v5p-16', numSlices: '2', pathways, ...flags},
      dryRun: false,
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
      ...patch,
    },
    {
      console,
      files: new NodeFiles(),
      env: {},
      cwd: tempDir('xpk-cwd-'),
      planImage: async (build) => {
        planned.push(build)
        throw new Error('this test gives --docker-image or --headless: no image is planned')
      },
      gke: async () => new MemoryGke(),
      kube: async () => kube,
      signal: new AbortController().signal,
      ...virtualClock(),
    },
  )
  return {done, console, planned}
}

const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as XpkError
const jobSetOf = (kube: MemoryKube) =>
  kube.peek({apiVersion: JOBSET_API, kind: 'JobSet', namespace: 'default', name: 'pw-1'}) as unknown as
    JobSet | undefined

describe('workload create-pathways', () => {
  it('batch: submits the Pathways JobSet with the user image and prints the proxy address', async () => {
    const kube = aWorkloadCluster({pathways: true})
    const {done, console} = run(kube, {}, {command: 'python3 train.py', priority: 'high'}, {dockerImage: IMAGE})
    const result = await done
    const jobSet = jobSetOf(kube)!
    expect(jobSet.spec.replicatedJobs.map((j) => [j.name, j.replicas])).toEqual([
      ['pathways-head', 1],
      ['worker', 2],
    ])
    expect(jobSet.metadata.labels).toMatchObject({'kueue.x-k8s.io/queue-name': 'multislice-queue'})
    expect(jobSet.spec.replicatedJobs[1]!.template.spec.template.spec.priorityClassName).toBe('high')
    expect(jobSet.spec.replicatedJobs[0]!.template.spec.template.spec.containers[0]!.image).toBe(IMAGE)
    expect(result.pathways).toEqual({proxyAddress: 'grpc://pw-1-pathways-head-0-0.pw-1:29000', headless: false})
    expect(console.results.join('\n')).toContain('Pathways proxy: grpc://pw-1-pathways-head-0-0.pw-1:29000')
  })

  it('headless: plans and builds no image, and the head runs only the proxy and the resource manager', async () => {
    const kube = aWorkloadCluster({pathways: true})
    const {done, planned, console} = run(kube, {headless: true})
    const result = await done
    expect(planned).toEqual([])
    expect(result.image).toEqual({source: 'none', reference: ''})
    const head = jobSetOf(kube)!.spec.replicatedJobs[0]!.template.spec.template.spec
    expect(head.containers.map((c) => c.name)).toEqual(['pathways-proxy', 'pathways-rm'])
    expect(console.results.join('\n')).toContain('JAX_BACKEND_TARGET=grpc://127.0.0.1:29000')
    expect(result.steps.find((s) => s.resource === 'image')?.action).toBe('none')
  })

  it('a cluster without the cpu-user flavor (not made by create-pathways) is refused, exit 6, nothing sent', async () => {
    const kube = aWorkloadCluster()
    const error = await failure(run(kube, {headless: true}).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toContain('not set up for Pathways')
    expect(error.hints.join(' ')).toContain('xpk cluster create-pathways --cluster demo --tpu-type v5p-16')
    expect(kube.mutatingRequests()).toEqual([])
  })

  it.each([
    ['h100-80gb-8', 'GPU'],
    ['n2-standard-32-4', 'CPU'],
  ])('--tpu-type %s is refused: exit 2 naming --tpu-type, before any request', async (type, kind) => {
    const kube = aWorkloadCluster({pathways: true})
    const error = await failure(run(kube, {headless: true}, {tpuType: type}).done)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain(`--tpu-type=${type}: ${type} is a ${kind}; Pathways runs on TPUs only.`)
    expect(kube.requests).toEqual([])
  })

  it('without --command nor --headless: exit 2 naming --command and --headless', async () => {
    const kube = aWorkloadCluster({pathways: true})
    const error = await failure(run(kube, {}, {}, {dockerImage: IMAGE}).done)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain('Missing --command')
    expect(error.message).toContain('--headless')
    expect(kube.requests).toEqual([])
  })

  it('prints Cloud Logging links for its head pod and its first worker, named after their replicated Jobs', async () => {
    const kube = aWorkloadCluster({pathways: true})
    const {done, console} = run(kube, {headless: true})
    const result = await done
    const podFilter = (url: string | null | undefined) => decodeURIComponent(url ?? '').match(/pod_name:"[^"]*"/)?.[0]
    expect(podFilter(result.links?.headLogs)).toBe('pod_name:"pw-1-pathways-head-0-0-"')
    expect(podFilter(result.links?.logs)).toBe('pod_name:"pw-1-worker-0-0-"')
    const printed = console.results.join('\n')
    expect(printed).toContain(`Logs of the Pathways head: ${result.links!.headLogs}`)
    expect(printed).toContain(
      `Logs of worker 0 of slice 0 (adjust the pod name for other workers): ${result.links!.logs}`,
    )
    // No pod of a Pathways workload is named slice-job.
    expect(decodeURIComponent(printed)).not.toContain('slice-job')
  })

  it('dry run: the plan names the head pool and the proxy, and nothing is sent', async () => {
    const kube = aWorkloadCluster({pathways: true})
    const {done, console} = run(kube, {headless: true}, {}, {dryRun: true})
    const result = await done
    expect(result.submitted).toBe(false)
    expect(kube.mutatingRequests()).toEqual([])
    const step = result.steps.find((s) => s.resource === 'jobSet' && s.action === 'create')!
    expect(step.reason).toContain(
      'the Pathways head on node pool cpu-np, its proxy at grpc://pw-1-pathways-head-0-0.pw-1:29000 (headless)',
    )
    expect(console.results.join('\n')).toContain('name: pathways-head')
  })
})
