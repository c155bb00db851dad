// `xpk workload create` submitting, in process over the in-memory GKE and Kubernetes ports: the capacity check and
// the name check before the image is built, the RBAC objects applied once, the JobSet applied with server-side
// apply, --replace, the GPU networks read from the cluster, the requests a submit makes, the links it prints, and the
// storages it mounts (named with --storage, or auto-mount; a missing one refused before anything is built).
import {describe, expect, it} from 'vitest'

import type {ObservedCluster} from '../../src/core/cluster/observed.js'
import {ApiError, UsageError, type XpkError} from '../../src/core/errors.js'
import {resolveSettings} from '../../src/core/settings.js'
import {DEFAULT_RETRY_POLICY, type Clock} from '../../src/executor/retry.js'
import type {PodSpec} from '../../src/core/manifests/k8s-types.js'
import type {AttachFlags} from '../../src/core/storage/rules.js'
import type {KubeObject} from '../../src/ports/kube.js'
import type {ImageBuildOptions, ImageBuildResult} from '../../src/services/image-build.js'
import {createWorkload, type WorkloadCreateOptions} from '../../src/services/workload-create.js'
import {
  aWorkloadCluster,
  type ClusterOptions,
  JOBSET_API,
  jobSetCrdServing,
  LOCAL_QUEUE_CRD,
  localQueue,
  namesOf,
  seedWorkload,
} from '../builders/workload-cluster.js'
import {attachObjects, DATASETS_FLAGS, HOME_FLAGS} from '../builders/storage.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import type {MemoryKube} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {STORAGE_CRD} from '../helpers/storage-crd.js'
import {tempDir} from '../helpers/temp.js'
import {manualClock} from '../helpers/manual-clock.js'
import {virtualClock} from '../helpers/virtual-clock.js'
import {NodeFiles} from '../../src/adapters/local-files.js'

const IMAGE = 'us-docker.pkg.dev/my-project/repo/trainer@sha256:' + 'a'.repeat(64)
const JOBSET = (name: string) => ({apiVersion: JOBSET_API, kind: 'JobSet', namespace: 'default', name})

interface RunOptions {
  readonly flags?: Partial<WorkloadCreateOptions['flags']>
  readonly patch?: Partial<WorkloadCreateOptions>
  readonly settings?: Record<string, string>
  readonly gke?: MemoryGke
  readonly console?: RecordingConsole
  readonly clock?: Clock & {readonly sleeps?: number[]}
}

function run(kube: MemoryKube, options: RunOptions = {}) {
  const console = options.console ?? new RecordingConsole()
  const gke = options.gke ?? new MemoryGke()
  const builds: ImageBuildOptions[] = []
  const reached: Array<ObservedCluster | undefined> = []
  let gkeConnections = 0
  const clock = options.clock ?? virtualClock()
  const done = createWorkload(
    {
      flags: {workload: 'run-1', tpuType: 'v5p-16', numSlices: '2', command: 'python3 train.py', ...options.flags},
      dockerImage: IMAGE,
      dryRun: false,
      offline: false,
      settings: resolveSettings({
        flags: {project: 'my-project', zone: 'us-central2-b', cluster: 'demo', ...options.settings},
        env: {},
        config: {},
        gcloud: {},
      }),
      timing: {
        retry: DEFAULT_RETRY_POLICY,
        workloadGone: {poll: {initialMs: 1000, maxMs: 5000, factor: 1.5}, timeoutMs: 60_000},
      },
      ...options.patch,
    },
    {
      console,
      files: new NodeFiles(),
      env: {},
      cwd: tempDir('xpk-cwd-'),
      // The registry lacks the tag: a submit builds and pushes it (recorded in `builds`), a dry run only plans it.
      planImage: async (build) => ({
        result: {...builtImage(build), action: 'would-build', digest: null, reference: `${build.repository}:ctx-0`},
        build: build.dryRun ? null : async () => (builds.push(build), builtImage(build)),
      }),
      gke: async () => (gkeConnections++, gke),
      kube: async (cluster) => (reached.push(cluster), kube),
      signal: new AbortController().signal,
      ...clock,
    },
  )
  return {done, console, builds, reached, clock, gkeConnections: () => gkeConnections}
}

function builtImage(build: ImageBuildOptions): ImageBuildResult {
  return {
    repository: build.repository,
    tag: 'ctx-0000000000000000',
    reference: `${build.repository}@sha256:${'b'.repeat(64)}`,
    digest: `sha256:${'b'.repeat(64)}`,
    action: 'pushed',
    layersPushed: 0,
    layersSkipped: 1,
    contextFiles: 1,
    baseDigest: null,
    baseDigestSource: 'unresolved',
    seconds: 0,
  }
}

const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as XpkError
const requestLines = (kube: MemoryKube) =>
  kube.requests.map((r) => `${r.verb} ${r.kind}${r.name ? ` ${r.name}` : ''}`).sort()

describe('workload create: submitting', () => {
  it('reads the cluster once, applies the RBAC objects and the JobSet, and says where to follow it', async () => {
    const kube = aWorkloadCluster()
    const {done, console, reached} = run(kube)
    const result = await done
    expect(reached.map((c) => c?.name)).toEqual(['demo'])

    const jobSet = kube.peek(JOBSET('run-1'))!
    expect(jobSet.metadata.labels).toMatchObject({'kueue.x-k8s.io/queue-name': 'multislice-queue'})
    expect((jobSet.spec as {replicatedJobs: {replicas: number}[]}).replicatedJobs[0]!.replicas).toBe(2)
    // The ServiceAccount last: its revision annotation says the Role and RoleBindings are in place.
    expect(kube.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name} force=${r.force}`)).toEqual([
      'apply Role pod-reader force=true',
      'apply RoleBinding default-pod-reader-binding force=true',
      'apply RoleBinding xpk-sa-pod-reader-binding force=true',
      'apply ServiceAccount xpk-sa force=true',
      'create JobSet run-1 force=undefined',
    ])
    // The reads: one each, the two RoleBindings in one list; the Role and RoleBindings only because xpk-sa is new.
    expect(requestLines(kube).filter((l) => !l.startsWith('apply') && !l.startsWith('create'))).toEqual([
      'get ConfigMap demo-resources-configmap',
      'get JobSet run-1',
      'get LocalQueue multislice-queue',
      'get PriorityClass medium',
      'get Role pod-reader',
      'get ServiceAccount xpk-sa',
      'list RoleBinding',
      'list Storage',
    ])
    expect(
      kube.peek({apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'default', name: 'xpk-sa'})!.metadata.annotations,
    ).toEqual({'xpk.google.com/rbac-revision': expect.stringMatching(/^[0-9a-f]{16}$/)})

    expect(result).toMatchObject({
      workload: 'run-1',
      cluster: 'demo',
      submitted: true,
      replaced: false,
      image: {source: 'given', reference: IMAGE},
      jobSet: {namespace: 'default', name: 'run-1'},
      gpuNetworks: null,
      links: {
        console:
          'https://console.cloud.google.com/kubernetes/service/us-central2/demo/default/run-1/details?project=my-project',
      },
      next: ['xpk workload list --cluster demo --filter-by-job run-1', 'xpk workload logs --cluster demo run-1'],
    })
    expect(result.rbac.map((r) => r.change)).toEqual(['create', 'create', 'create', 'create'])
    expect(console.codes()).toEqual(['workload.capacity', 'workload.rbac-applied'])
    expect(console.the('workload.capacity').data).toMatchObject({kind: 'fits', vmsNeeded: 4, vmsAvailable: 8})
    const text = console.results.join('\n')
    expect(text).toContain(
      'Submitted workload run-1 on cluster demo: JobSet default/run-1, 2 slices of v5p-16, priority medium.',
    )
    expect(text).toContain(`Image: ${IMAGE}`)
    expect(text).toContain(
      'Follow it: https://console.cloud.google.com/kubernetes/service/us-central2/demo/default/run-1/details',
    )
    expect(text).toMatch(/Logs of slice 0, worker 0 .*: https:\/\/console\.cloud\.google\.com\/logs\/query;query=/)
    expect(text).toContain('  xpk workload list --cluster demo --filter-by-job run-1')
  })

  it('applies the RBAC objects once: the next submit reads five kinds in one round and sends only its JobSet: six requests', async () => {
    const kube = aWorkloadCluster()
    await run(kube).done
    kube.clearLog()
    const result = await run(kube, {flags: {workload: 'run-2', priority: 'high'}}).done
    expect(kube.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name}`)).toEqual(['create JobSet run-2'])
    // No Role or RoleBinding read: xpk-sa carries the revision of the RBAC set applied with it.
    expect(requestLines(kube)).toEqual([
      'create JobSet run-2',
      'get ConfigMap demo-resources-configmap',
      'get LocalQueue multislice-queue',
      'get PriorityClass high',
      'get ServiceAccount xpk-sa',
      // The storages the workload mounts: a cluster without the Storage kind lists none.
      'list Storage',
    ])
    expect(result.rbac.map((r) => r.change)).toEqual(['none', 'none', 'none', 'none'])
    // The name is not read first: the create is create-if-absent, so a taken name is its 409 (see "a name that is
    // taken"). Nor is the JobSet CRD read.
    expect(kube.requests).toHaveLength(6)
  })

  it('an RBAC set-up without the current revision (an older xpk) is read in full and only what differs applied', async () => {
    const kube = aWorkloadCluster()
    await run(kube).done
    // As an older xpk left it: xpk-sa without the annotation, and the Role with a rule edited away.
    kube.seed(
      {apiVersion: 'v1', kind: 'ServiceAccount', metadata: {name: 'xpk-sa', namespace: 'default'}},
      {manager: 'xpk'},
    )
    kube.seed(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: {name: 'pod-reader', namespace: 'default'},
        rules: [{apiGroups: [''], resources: ['pods'], verbs: ['get']}],
      },
      {manager: 'xpk'},
    )
    kube.clearLog()
    const result = await run(kube, {flags: {workload: 'run-2'}}).done
    expect(kube.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name}`)).toEqual([
      'apply Role pod-reader',
      'apply ServiceAccount xpk-sa',
      'create JobSet run-2',
    ])
    expect(result.rbac.map((r) => `${r.kind} ${r.change}`)).toEqual([
      'ServiceAccount update',
      'Role update',
      'RoleBinding none',
      'RoleBinding none',
    ])
  })

  it('a deleted xpk-sa (which the pods name) is created again with the rest checked', async () => {
    const kube = aWorkloadCluster()
    await run(kube).done
    await kube.delete({apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'default', name: 'xpk-sa'})
    kube.clearLog()
    const result = await run(kube, {flags: {workload: 'run-2'}}).done
    expect(kube.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name}`)).toEqual([
      'apply ServiceAccount xpk-sa',
      'create JobSet run-2',
    ])
    expect(result.rbac.map((r) => r.change)).toEqual(['create', 'none', 'none', 'none'])
  })

  it('retries a read that fails transiently', async () => {
    const kube = aWorkloadCluster()
    kube.failNext(2, {verb: 'get', kind: 'ConfigMap'})
    const {done, clock} = run(kube)
    await expect(done).resolves.toMatchObject({submitted: true})
    expect(clock.sleeps!).toHaveLength(2)
  })

  it('a given --docker-image is not built; without it the image is built after the checks pass', async () => {
    const kube = aWorkloadCluster()
    const built = run(kube, {patch: {dockerImage: undefined, scriptDir: tempDir('xpk-script-')}})
    const result = await built.done
    expect(built.builds).toHaveLength(1)
    expect(result.image).toMatchObject({source: 'built'})
    const container = (
      kube.peek(JOBSET('run-1'))!.spec as {
        replicatedJobs: {template: {spec: {template: {spec: {containers: {image: string}[]}}}}}[]
      }
    ).replicatedJobs[0]!.template.spec.template.spec.containers[0]!
    expect(container.image).toBe(result.image.reference)
    expect(container.image).toMatch(/@sha256:b{64}$/)
  })

  it('--kubeconfig: GKE is not asked, and without its project and location there are no links', async () => {
    const kube = aWorkloadCluster()
    const {done, reached, gkeConnections} = run(kube, {patch: {viaKubeconfig: true}, settings: {}})
    const result = await done
    expect(gkeConnections()).toBe(0)
    expect(reached).toEqual([undefined])
    expect(result.links).toBeNull()
    expect(result.submitted).toBe(true)
  })

  it('a cluster GKE does not know is exit 4, before any Kubernetes request', async () => {
    const kube = aWorkloadCluster()
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const {done, builds} = run(kube, {gke})
    const error = await failure(done)
    expect(error.exitCode).toBe(4)
    expect(error.message).toContain('Cluster demo not found in project my-project')
    expect(kube.requests).toEqual([])
    expect(builds).toEqual([])
  })
})

describe('workload create: can the cluster ever run it? (checked before the image is built)', () => {
  it.each<[string, RunOptions, Record<string, string> | null, number, RegExp]>([
    [
      'more slices than the cluster has',
      {flags: {numSlices: '5'}},
      {'v5p-16': '8'},
      2,
      /needs 10 VMs \(5 slices\) of v5p-16, but cluster demo has 8 VMs \(4 slices\)/,
    ],
    [
      'another device type',
      {flags: {tpuType: 'v5p-8'}},
      {'v5p-16': '8'},
      2,
      /--tpu-type v5p-8: cluster demo has 8 VMs of v5p-16, not v5p-8/,
    ],
    [
      'more GPU nodes than the cluster has',
      {flags: {tpuType: undefined, deviceType: 'a100-40gb-1', numNodes: '3', numSlices: undefined}},
      {'a100-40gb-1': '2'},
      2,
      /needs 3 VMs of a100-40gb-1, but cluster demo has 2 VMs/,
    ],
    ['no resources ConfigMap: not set up by cluster create', {}, null, 6, /not set up by `xpk cluster create`/],
  ])('%s: exit %#', async (_name, options, resources, code, text) => {
    const kube = aWorkloadCluster({resources})
    const {done, builds} = run(kube, {...options, patch: {dockerImage: undefined, scriptDir: tempDir('xpk-script-')}})
    const error = await failure(done)
    expect(error.message).toMatch(text)
    expect(error.exitCode).toBe(code)
    expect(builds).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a request that fits exactly goes through', async () => {
    const kube = aWorkloadCluster()
    await expect(run(kube, {flags: {numSlices: '4'}}).done).resolves.toMatchObject({submitted: true})
  })
})

describe('workload create: a name that is taken', () => {
  it('is refused (exit 6) before the image is built, naming --replace and workload delete', async () => {
    const kube = aWorkloadCluster()
    seedWorkload(kube, 'run-1')
    const {done, builds} = run(kube, {patch: {dockerImage: undefined, scriptDir: tempDir('xpk-script-')}})
    const error = await failure(done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(/^Workload run-1 already exists on cluster demo \(JobSet default\/run-1, created /)
    expect(error.hints.join('\n')).toContain('--replace')
    expect(error.hints.join('\n')).toContain('xpk workload delete --cluster demo --workload run-1')
    expect(builds).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('on a set-up cluster with a given image, the create is the check (its 409), refused as the read would be', async () => {
    const kube = aWorkloadCluster()
    await run(kube, {flags: {workload: 'run-0'}}).done
    seedWorkload(kube, 'run-1')
    const theirs = JSON.stringify(kube.peek(JOBSET('run-1')))
    kube.clearLog()
    const error = await failure(run(kube).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(/^Workload run-1 already exists on cluster demo \(JobSet default\/run-1, created /)
    expect(error.hints.join('\n')).toContain('--replace')
    expect(error.hints.join('\n')).toContain('xpk workload delete --cluster demo --workload run-1')
    // The create was refused by the API server, and only then was the name read, to say when it was created.
    const jobSetRequests = kube.requests.filter((r) => r.kind === 'JobSet').map((r) => `${r.verb} ${r.status}`)
    expect(jobSetRequests).toEqual(['create 409', 'get 200'])
    expect(JSON.stringify(kube.peek(JOBSET('run-1')))).toBe(theirs)
  })

  it('on a set-up cluster whose JobSet CRD is gone since, the failed create is explained as the read would be', async () => {
    const kube = aWorkloadCluster()
    await run(kube, {flags: {workload: 'run-0'}}).done
    await kube.delete({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: 'jobsets.jobset.x-k8s.io',
    })
    kube.clearLog()
    const error = await failure(run(kube).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toBe(
      'Cluster demo is not set up for workloads: it has no CustomResourceDefinition jobsets.jobset.x-k8s.io ' +
        '(JobSet is not installed, so the API server cannot take a JobSet). Nothing was submitted.',
    )
    expect(kube.mutatingRequests().filter((r) => r.status !== 404)).toEqual([])
  })

  it('--replace deletes the old JobSet, waits until it and its Jobs are gone, then applies the new one', async () => {
    // The old JobSet and its Jobs stay terminating for a few requests, as the garbage collector takes a moment.
    const kube = aWorkloadCluster({lingering: {JobSet: 2, Job: 4}})
    seedWorkload(kube, 'run-1', {slices: 2})
    const oldUid = kube.peek(JOBSET('run-1'))!.metadata.uid
    const jobsAtCreate: string[][] = []
    const create = kube.create.bind(kube)
    kube.create = async (object: KubeObject) => {
      if (object.kind === 'JobSet') jobsAtCreate.push(namesOf(kube, 'Job'))
      return create(object)
    }
    const {done, console} = run(kube, {patch: {replace: true}, console: new RecordingConsole('yes')})
    const result = await done
    expect(result).toMatchObject({
      replaced: true,
      submitted: true,
      replaces: {namespace: 'default', name: 'run-1', uid: oldUid, created: expect.any(String)},
    })
    expect(console.questions.map((q) => q.code)).toEqual(['workload.confirm-replace'])
    expect(jobsAtCreate).toEqual([[]])
    expect(kube.peek(JOBSET('run-1'))!.metadata.uid).not.toBe(oldUid)
    const mutating = kube.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name}`)
    expect(mutating[0]).toBe('delete JobSet run-1')
    expect(mutating.at(-1)).toBe('create JobSet run-1')
    // Only the JobSet that was read and confirmed is deleted: its uid is the delete's precondition.
    expect(kube.requests.find((r) => r.verb === 'delete')).toMatchObject({kind: 'JobSet', name: 'run-1', status: 200})
    expect(console.codes()).toContain('workload.replacing')
    expect(console.results.join('\n')).toContain('Replaced workload run-1 on cluster demo')
    // Kueue's Workload and the old pods went with the old JobSet (owner references).
    expect(namesOf(kube, 'Workload')).toEqual([])
    expect(namesOf(kube, 'Pod')).toEqual([])
  })

  it('--replace times out (exit 124) when the old Jobs never go, naming them, and submits nothing', async () => {
    const kube = aWorkloadCluster({lingering: {Job: 1_000_000}})
    seedWorkload(kube, 'run-1')
    const {done} = run(kube, {patch: {replace: true}, console: new RecordingConsole('yes')})
    const error = await failure(done)
    expect(error.exitCode).toBe(124)
    expect(error.message).toMatch(/Still there after 60s: 1 Job \(run-1-slice-job-0\)/)
    expect(kube.mutatingRequests().map((r) => `${r.verb} ${r.kind}`)).toEqual(['delete JobSet'])
  })

  it('--replace: the wait for the old workload to go has its time limit, its reads included (a silent API server)', async () => {
    const kube = aWorkloadCluster()
    seedWorkload(kube, 'run-1')
    // Once the delete is sent, the API server stops answering: every read hangs.
    const remove = kube.delete.bind(kube)
    let deleted = false
    kube.delete = async (ref) => {
      const outcome = await remove(ref)
      deleted = true
      return outcome
    }
    for (const read of ['get', 'list'] as const) {
      const original = kube[read].bind(kube) as (...args: unknown[]) => Promise<unknown>
      ;(kube as unknown as Record<string, unknown>)[read] = (...args: unknown[]) =>
        deleted ? new Promise(() => undefined) : original(...args)
    }
    const clock = manualClock()
    const ended = failure(run(kube, {patch: {replace: true}, clock, console: new RecordingConsole('yes')}).done)
    for (let i = 0; i < 50 && !deleted; i++) await new Promise((r) => setTimeout(r, 1))
    expect(deleted).toBe(true)
    await clock.advance(59_999)
    expect(await Promise.race([ended, 'still waiting'])).toBe('still waiting')
    await clock.advance(1)
    const error = await ended
    expect(error.exitCode).toBe(124)
    expect(error.message).toMatch(/^Still there after 60s: JobSet run-1/)
    expect(kube.mutatingRequests().map((r) => `${r.verb} ${r.kind}`)).toEqual(['delete JobSet'])
    expect(clock.sleeping).toBe(0)
  })

  it('--replace with no workload of the name simply submits', async () => {
    const kube = aWorkloadCluster()
    const {done, console} = run(kube, {patch: {replace: true}})
    await expect(done).resolves.toMatchObject({replaced: false, submitted: true})
    expect(console.codes()).not.toContain('workload.replacing')
  })
})

/** The command of the JobSet's first container: which submit a JobSet came from. */
const commandOf = (kube: MemoryKube, name: string) =>
  JSON.stringify(
    (kube.peek(JOBSET(name))!.spec as {replicatedJobs: {template: unknown}[]}).replicatedJobs[0]!.template,
  ).match(/python3 [a-z.]+ --run=\d/)?.[0]

describe('workload create: two submits at once (create-if-absent)', () => {
  it('two submits of one name at once: exactly one is submitted, the other is exit 6 and changes nothing of it', async () => {
    const kube = aWorkloadCluster()
    const a = run(kube, {flags: {command: 'python3 train.py --run=1'}})
    const b = run(kube, {flags: {command: 'python3 train.py --run=2'}})
    const outcomes = await Promise.allSettled([a.done, b.done])
    const won = outcomes.findIndex((o) => o.status === 'fulfilled')
    const lost = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')!.reason as XpkError
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
    expect(lost.exitCode).toBe(6)
    expect(lost.message).toMatch(
      /^Workload run-1 already exists on cluster demo: JobSet default\/run-1 was created by another submit/,
    )
    expect(lost.hints.join('\n')).toMatch(/--replace/)
    expect(lost.hints.join('\n')).toContain('xpk workload delete --cluster demo --workload run-1')
    // The JobSet is the winner's, as it sent it: nothing of the loser's reached it.
    expect(commandOf(kube, 'run-1')).toBe(`python3 train.py --run=${won + 1}`)
    expect(kube.requests.filter((r) => r.verb === 'create' && r.kind === 'JobSet').map((r) => r.status)).toEqual(
      expect.arrayContaining([201, 409]),
    )
    expect(kube.requests.filter((r) => r.kind === 'JobSet' && r.verb !== 'get' && r.verb !== 'create')).toEqual([])
  })

  it("a name taken between the read and the create is refused (the API server's 409), never overwritten", async () => {
    const kube = aWorkloadCluster()
    const create = kube.create.bind(kube)
    kube.create = async (object: KubeObject) => {
      // Another submit of the same name lands just before this one's create.
      if (object.kind === 'JobSet') seedWorkload(kube, 'run-1')
      return create(object)
    }
    const theirs = () => kube.peek(JOBSET('run-1'))
    const error = await failure(run(kube).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toContain('already exists')
    expect((theirs()!.spec as {replicatedJobs: unknown[]}).replicatedJobs).toEqual([{name: 'slice-job', replicas: 1}])
  })

  it('a create whose answer was lost and that is retried finds its own JobSet: submitted, not refused', async () => {
    const kube = aWorkloadCluster()
    const create = kube.create.bind(kube)
    let calls = 0
    kube.create = async (object: KubeObject) => {
      const made = await create(object)
      if (object.kind === 'JobSet' && calls++ === 0) {
        throw new ApiError('unavailable', 'connection reset', {status: 'UNAVAILABLE', retryable: true})
      }
      return made
    }
    await expect(run(kube).done).resolves.toMatchObject({submitted: true})
    expect(kube.requests.filter((r) => r.verb === 'create' && r.kind === 'JobSet').map((r) => r.status)).toEqual([
      201, 409,
    ])
  })

  it("a retried create that finds another submit's JobSet there is still refused", async () => {
    const kube = aWorkloadCluster()
    const create = kube.create.bind(kube)
    kube.create = async (object: KubeObject) => {
      if (object.kind === 'JobSet' && kube.peek(JOBSET('run-1')) === undefined) {
        seedWorkload(kube, 'run-1')
        throw new ApiError('unavailable', 'connection reset', {status: 'UNAVAILABLE', retryable: true})
      }
      return create(object)
    }
    const error = await failure(run(kube).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toContain('was created by another submit')
  })
})

describe('workload create --replace: asked first, and only the JobSet that was read is deleted', () => {
  it('with nobody to ask and no --force it stops with exit 2 naming --force, before the image is built', async () => {
    const kube = aWorkloadCluster()
    seedWorkload(kube, 'run-1')
    const {done, builds} = run(kube, {
      patch: {replace: true, dockerImage: undefined, scriptDir: tempDir('xpk-script-')},
      console: new RecordingConsole('no-terminal'),
    })
    const error = await failure(done)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).flag).toBe('--force')
    expect(error.message).toMatch(/^Replace workload run-1 on cluster demo\? Its JobSet default\/run-1/)
    expect(builds).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a person who answers no gets exit 1 and nothing is deleted', async () => {
    const kube = aWorkloadCluster()
    seedWorkload(kube, 'run-1')
    const error = await failure(run(kube, {patch: {replace: true}, console: new RecordingConsole('no')}).done)
    expect(error.exitCode).toBe(1)
    expect(error.message).toBe('Nothing was deleted or submitted.')
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('--dry-run says which JobSet would be deleted (result.replaces), asks nothing and sends nothing', async () => {
    const kube = aWorkloadCluster()
    seedWorkload(kube, 'run-1')
    const uid = kube.peek(JOBSET('run-1'))!.metadata.uid
    const {done, console} = run(kube, {patch: {replace: true, dryRun: true}})
    const result = await done
    expect(result).toMatchObject({submitted: false, replaced: false, replaces: {name: 'run-1', uid}})
    expect(console.the('workload.replace-planned').text).toMatch(
      /^Dry run: --replace would delete workload run-1 on cluster demo, JobSet default\/run-1 \(created /,
    )
    expect(console.questions).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a JobSet replaced by another submit after it was read is not deleted: exit 6, theirs kept', async () => {
    const kube = aWorkloadCluster()
    seedWorkload(kube, 'run-1')
    const del = kube.delete.bind(kube)
    let theirs: string | undefined
    kube.delete = async (ref, options) => {
      if (ref.kind === 'JobSet' && theirs === undefined) {
        // Someone else replaced it first: deleted the one this run read, and created their own.
        await del(ref)
        seedWorkload(kube, 'run-1')
        theirs = kube.peek(JOBSET('run-1'))!.metadata.uid as string
      }
      return del(ref, options)
    }
    const error = await failure(run(kube, {patch: {replace: true}, console: new RecordingConsole('yes')}).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toContain('was replaced by another submit after it was read, so it was not deleted')
    expect(kube.peek(JOBSET('run-1'))!.metadata.uid).toBe(theirs)
    expect(kube.requests.filter((r) => r.verb === 'delete' && r.kind === 'JobSet').map((r) => r.status)).toEqual([
      200, 409,
    ])
    expect(kube.requests.some((r) => r.verb === 'create' && r.kind === 'JobSet')).toBe(false)
  })
})

describe('workload create: bad input is found before any request', () => {
  it.each<[string, Partial<WorkloadCreateOptions['flags']>, 'zone' | 'project' | undefined, RegExp]>([
    ['a malformed --workload', {workload: 'Run_1'}, undefined, /--workload/],
    ['no --zone to find the cluster in GKE', {}, 'zone', /Missing --zone/],
    ['no --project', {}, 'project', /Missing --project/],
  ])('%s', async (_name, flags, without, text) => {
    const kube = aWorkloadCluster()
    const target: Record<string, string> = {project: 'my-project', zone: 'us-central2-b', cluster: 'demo'}
    if (without) delete target[without]
    const settings = resolveSettings({flags: target, env: {}, config: {}, gcloud: {}})
    const {done, reached, gkeConnections} = run(kube, {flags, patch: {settings}})
    const error = await failure(done)
    expect(error).toBeInstanceOf(UsageError)
    expect(error.exitCode).toBe(2)
    expect(error.message).toMatch(text)
    expect(gkeConnections()).toBe(0)
    expect(reached).toEqual([])
    expect(kube.requests).toEqual([])
  })
})

describe('workload create: GPUDirect networks', () => {
  const mega = {flags: {tpuType: undefined, deviceType: 'h100-mega-80gb-8', numNodes: '2', numSlices: undefined}}
  const interfacesOf = (kube: MemoryKube) => {
    const template = (
      kube.peek(JOBSET('run-1'))!.spec as {
        replicatedJobs: {template: {spec: {template: {metadata: {annotations: Record<string, string>}}}}}[]
      }
    ).replicatedJobs[0]!.template.spec.template
    return (JSON.parse(template.metadata.annotations['networking.gke.io/interfaces']!) as {network: string}[]).map(
      (i) => i.network,
    )
  }

  it("names the cluster's GKENetworkParamSets in the interfaces annotation", async () => {
    const kube = aWorkloadCluster({
      resources: {'h100-mega-80gb-8': '2'},
      gpuNetworks: Array.from({length: 8}, (_, i) => ({name: `gpunet-${i}-subnet`, deviceMode: 'NetDevice'})),
    })
    const {done, console} = run(kube, mega)
    const result = await done
    const names = Array.from({length: 8}, (_, i) => `gpunet-${i}-subnet`)
    expect(result.gpuNetworks).toEqual({source: 'cluster', names})
    expect(interfacesOf(kube)).toEqual(['default', ...names])
    expect(console.the('workload.gpu-networks').data).toEqual({networks: names})
    expect(kube.requests.filter((r) => r.kind === 'GKENetworkParamSet').map((r) => r.verb)).toEqual(['list'])
  })

  it.each([
    {type: 'h100-mega-80gb-8', flag: '--device-type h100-mega-80gb-8'},
    {type: 'h200-141gb-8', flag: '--device-type h200-141gb-8'},
    {type: 'b200-8', flag: '--device-type b200-8'},
  ])(
    'refuses (exit 6) $type on a cluster with none, before any change, naming the cluster create that makes them',
    async ({type, flag}) => {
      const kube = aWorkloadCluster({resources: {[type]: '2'}})
      const flags = {flags: {tpuType: undefined, deviceType: type, numNodes: '2', numSlices: undefined}}
      const error = (await run(kube, flags).done.catch((e: unknown) => e)) as XpkError
      expect(error.exitCode).toBe(6)
      expect(error.message).toContain('has no GPU network (GKENetworkParamSet)')
      expect(error.hints[0]).toContain(`xpk cluster create --cluster demo ${flag}`)
      expect(kube.mutatingRequests()).toEqual([])
    },
  )

  it('a dry run of an A3 Mega workload on a cluster with none says a real run is refused', async () => {
    const kube = aWorkloadCluster({resources: {'h100-mega-80gb-8': '2'}})
    const {done, console} = run(kube, {...mega, patch: {dryRun: true}})
    await done
    expect(console.codes('warn')).toEqual(['workload.gpu-networks-absent'])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it("names an A3 Ultra cluster's networks as cluster create makes them: the gVNIC one, then the 8 RDMA ones", async () => {
    const rdma = Array.from({length: 8}, (_, i) => ({name: `demo-rdma-sub-${i}`, deviceMode: 'RDMA'}))
    const kube = aWorkloadCluster({
      resources: {'h200-141gb-8': '2'},
      gpuNetworks: [...rdma.reverse(), {name: 'demo-sub-1', deviceMode: 'NetDevice'}],
    })
    const ultra = {flags: {tpuType: undefined, deviceType: 'h200-141gb-8', numNodes: '2', numSlices: undefined}}
    await run(kube, ultra).done
    expect(interfacesOf(kube)).toEqual([
      'default',
      'demo-sub-1',
      ...Array.from({length: 8}, (_, i) => `demo-rdma-sub-${i}`),
    ])
  })

  it('warns for GB200 on a cluster with none (GKE makes its networks): the pods get the default network only', async () => {
    const kube = aWorkloadCluster({resources: {'gb200-4': '2'}})
    const gb200 = {flags: {tpuType: undefined, deviceType: 'gb200-4', numNodes: '2', numSlices: undefined}}
    const {done, console} = run(kube, gb200)
    await expect(done).resolves.toMatchObject({gpuNetworks: {source: 'cluster', names: []}})
    expect(console.codes('warn')).toEqual(['workload.gpu-networks-missing'])
    expect(interfacesOf(kube)).toEqual(['default'])
  })

  describe('A3 High (h100-80gb-8): the pods name vpc1..vpc4, which cluster create makes', () => {
    const a3 = {flags: {tpuType: undefined, deviceType: 'h100-80gb-8', numNodes: '2', numSlices: undefined}}
    const vpcs = (names: string[]) => names.map((name) => ({name, deviceMode: 'NetDevice'}))

    it.each([
      {case: 'none of them', networks: [] as string[], missing: 'vpc1, vpc2, vpc3, vpc4'},
      {case: 'vpc3 missing', networks: ['vpc1', 'vpc2', 'vpc4'], missing: 'vpc3'},
    ])(
      'refuses (exit 6) a cluster with $case, before any change, naming cluster create',
      async ({networks, missing}) => {
        const kube = aWorkloadCluster({resources: {'h100-80gb-8': '2'}, gpuNetworks: vpcs(networks)})
        const error = (await run(kube, a3).done.catch((e: unknown) => e)) as XpkError
        expect(error.exitCode).toBe(6)
        expect(error.message).toContain(`has no GPU network ${missing} (GKENetworkParamSet)`)
        expect(error.hints[0]).toContain('xpk cluster create --cluster demo --device-type h100-80gb-8')
        expect(kube.mutatingRequests()).toEqual([])
      },
    )

    it('submits on a cluster that has them, its pods attached to vpc1..vpc4', async () => {
      const kube = aWorkloadCluster({
        resources: {'h100-80gb-8': '2'},
        gpuNetworks: vpcs(['vpc1', 'vpc2', 'vpc3', 'vpc4']),
      })
      await run(kube, a3).done
      expect(interfacesOf(kube)).toEqual(['default', 'vpc1', 'vpc2', 'vpc3', 'vpc4'])
    })

    it('a dry run says a real run would be refused, and sends nothing', async () => {
      const kube = aWorkloadCluster({resources: {'h100-80gb-8': '2'}, gpuNetworks: []})
      const {done, console} = run(kube, {...a3, patch: {dryRun: true}})
      await done
      expect(console.codes('warn')).toEqual(['workload.gpu-networks-absent'])
      expect(kube.mutatingRequests()).toEqual([])
    })
  })

  it('TPU workloads do not list them', async () => {
    const kube = aWorkloadCluster()
    await run(kube).done
    expect(kube.requests.filter((r) => r.kind === 'GKENetworkParamSet')).toEqual([])
  })
})

describe('workload create: what the JobSet refers to must be in the cluster (checked before anything is sent)', () => {
  it.each<[string, ClusterOptions, Partial<WorkloadCreateOptions['flags']>, RegExp]>([
    [
      'no JobSet CRD',
      {without: ['jobset-crd']},
      {},
      /no CustomResourceDefinition jobsets\.jobset\.x-k8s\.io \(JobSet is not installed/,
    ],
    [
      'no Kueue',
      {without: ['kueue-crds']},
      {},
      /no LocalQueue default\/multislice-queue \(Kueue or its queue is not set up/,
    ],
    ['no LocalQueue', {without: ['local-queue']}, {}, /no LocalQueue default\/multislice-queue/],
    [
      'no PriorityClass of --priority',
      {without: ['priority-classes']},
      {priority: 'very-high'},
      /no PriorityClass very-high \(--priority very-high names it/,
    ],
  ])('%s: exit 6 naming it and the fix, nothing built or sent', async (_name, cluster, flags, text) => {
    const kube = aWorkloadCluster(cluster)
    const {done, builds} = run(kube, {flags, patch: {dockerImage: undefined, scriptDir: tempDir('xpk-script-')}})
    const error = await failure(done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(/^Cluster demo is not set up for workloads: /)
    expect(error.message).toMatch(text)
    expect(error.message).toContain('Nothing was submitted.')
    expect(error.hints[0]).toMatch(/^Run `xpk cluster create --cluster demo --tpu-type v5p-16 \.\.\.`/)
    expect(error.hints[1]).toContain('--kubeconfig')
    expect(builds).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a Kueue before v0.15 (v1beta1 only) with the queue: submitted, with a warning that cluster create upgrades it', async () => {
    const kube = aWorkloadCluster({without: ['kueue-crds']})
    const older = (o: KubeObject) => JSON.parse(JSON.stringify(o).replaceAll('v1beta2', 'v1beta1')) as KubeObject
    kube.seed(older(LOCAL_QUEUE_CRD as KubeObject))
    kube.seed(older(localQueue()))
    const {done, console} = run(kube)
    await done
    expect(console.the('workload.kueue-older').data).toEqual({served: 'kueue.x-k8s.io/v1beta1', installs: 'v0.17.1'})
    expect(kube.mutatingRequests().map((r) => r.kind)).toContain('JobSet')
  })

  it('neither Kueue version serving LocalQueues is no Kueue: exit 6, after one more read', async () => {
    const kube = aWorkloadCluster({without: ['kueue-crds']})
    const error = await failure(run(kube).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(/no LocalQueue default\/multislice-queue/)
    const queueReads = kube.requests.filter((r) => r.kind === 'LocalQueue').map((r) => r.apiVersion)
    expect(queueReads).toEqual(['kueue.x-k8s.io/v1beta2', 'kueue.x-k8s.io/v1beta1'])
  })

  it('names every missing object at once, and through --kubeconfig says to check it', async () => {
    const kube = aWorkloadCluster({without: ['jobset-crd', 'local-queue', 'priority-classes']})
    const error = await failure(run(kube, {patch: {viaKubeconfig: true}, settings: {}}).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(
      /CustomResourceDefinition jobsets.*; no LocalQueue default\/multislice-queue.*; no PriorityClass medium/,
    )
    expect(error.hints[1]).toBe('Check that --kubeconfig and --context point at the cluster you meant.')
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a JobSet CRD that does not serve v1alpha2 (too old a JobSet) is refused too', async () => {
    const kube = aWorkloadCluster({without: ['jobset-crd']})
    kube.seed(jobSetCrdServing('v1alpha1'))
    const error = await failure(run(kube).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toContain(
      'no CustomResourceDefinition jobsets.jobset.x-k8s.io serving v1alpha2 (the installed JobSet does not serve ' +
        'jobset.x-k8s.io/v1alpha2, the version xpk writes)',
    )
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('JobSets not served: the read of the name says so (no CRD read on a set-up cluster), then the CRD says why', async () => {
    const kube = aWorkloadCluster({without: ['jobset-crd']})
    const error = await failure(run(kube).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toBe(
      'Cluster demo is not set up for workloads: it has no CustomResourceDefinition jobsets.jobset.x-k8s.io ' +
        '(JobSet is not installed, so the API server cannot take a JobSet). Nothing was submitted.',
    )
    // The round of reads; then, as xpk-sa is missing (RBAC to apply before the JobSet), the name with the Role and
    // RoleBindings; then the CRD, read only because the JobSet kind is not served.
    expect(kube.requests.map((r) => `${r.verb} ${r.kind} ${r.name} ${r.status}`)).toEqual([
      'get ConfigMap demo-resources-configmap 200',
      'get ServiceAccount xpk-sa 404',
      'get LocalQueue multislice-queue 200',
      'get PriorityClass medium 200',
      'list Storage undefined 404',
      'get JobSet run-1 404',
      'get Role pod-reader 404',
      'list RoleBinding undefined 200',
      'get CustomResourceDefinition jobsets.jobset.x-k8s.io 404',
    ])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a capacity problem is reported before the set-up (the resources ConfigMap is read first)', async () => {
    const kube = aWorkloadCluster({without: ['local-queue'], resources: null})
    const error = await failure(run(kube).done)
    expect(error.message).toContain('has no ConfigMap demo-resources-configmap')
  })

  it('warns when Kueue reports the LocalQueue inactive (its ClusterQueue missing), and still submits', async () => {
    const kube = aWorkloadCluster()
    kube.setStatus(
      {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'LocalQueue', namespace: 'default', name: 'multislice-queue'},
      {
        conditions: [
          {type: 'Active', status: 'False', reason: 'ClusterQueueDoesNotExist', message: "Can't submit new workloads"},
        ],
      },
    )
    const {done, console} = run(kube)
    await expect(done).resolves.toMatchObject({submitted: true})
    expect(console.codes('warn')).toEqual(['workload.queue-inactive'])
    expect(console.the('workload.queue-inactive').data).toEqual({
      reason: 'ClusterQueueDoesNotExist',
      message: "Can't submit new workloads",
    })
  })

  it('an active LocalQueue is no warning', async () => {
    const kube = aWorkloadCluster()
    kube.setStatus(
      {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'LocalQueue', namespace: 'default', name: 'multislice-queue'},
      {conditions: [{type: 'Active', status: 'True', reason: 'Ready'}]},
    )
    const {done, console} = run(kube)
    await done
    expect(console.codes('warn')).toEqual([])
  })
})

describe('workload create --dry-run', () => {
  it('--offline: reaches no cluster, says so, says the GPU networks are assumed, and still gives the links', async () => {
    const kube = aWorkloadCluster()
    const {done, console, reached, gkeConnections} = run(kube, {
      flags: {tpuType: undefined, deviceType: 'h200-141gb-8', numNodes: '1', numSlices: undefined},
      patch: {dryRun: true, offline: true},
    })
    const result = await done
    expect(gkeConnections()).toBe(0)
    expect(reached).toEqual([])
    expect(kube.requests).toEqual([])
    expect(result).toMatchObject({submitted: false, rbac: [], gpuNetworks: {source: 'assumed'}})
    expect(result.gpuNetworks?.names[0]).toBe('demo-sub-1')
    expect(result.links?.console).toContain('/us-central2/demo/default/run-1/details?project=my-project')
    expect(console.codes()).toEqual(['workload.cluster-unchecked', 'workload.gpu-networks-assumed', 'workload.dry-run'])
    expect(console.the('workload.cluster-unchecked').data).toEqual({reason: 'offline'})
  })

  it('without a way to find the cluster: not read, and says so', async () => {
    const kube = aWorkloadCluster()
    const settings = resolveSettings({flags: {cluster: 'demo'}, env: {}, config: {}, gcloud: {}})
    const {done, console, gkeConnections} = run(kube, {patch: {dryRun: true, settings}})
    await expect(done).resolves.toMatchObject({submitted: false})
    expect(gkeConnections()).toBe(0)
    expect(kube.requests).toEqual([])
    expect(console.the('workload.cluster-unchecked').data).toEqual({reason: 'no-target'})
  })

  it('reads the cluster as a submit does and sends nothing; the plan has what a submit would send', async () => {
    const kube = aWorkloadCluster()
    const {done, console} = run(kube, {patch: {dryRun: true}})
    const result = await done
    // A first submit: xpk-sa is missing, so the Role and RoleBindings are read too, to plan what would be applied.
    expect(result).toMatchObject({submitted: false, rbac: [{kind: 'ServiceAccount', change: 'create'}, {}, {}, {}]})
    expect(requestLines(kube)).toEqual([
      'get ConfigMap demo-resources-configmap',
      'get JobSet run-1',
      'get LocalQueue multislice-queue',
      'get PriorityClass medium',
      'get Role pod-reader',
      'get ServiceAccount xpk-sa',
      'list RoleBinding',
      'list Storage',
    ])
    expect(kube.mutatingRequests()).toEqual([])
    expect(result.steps.map((s) => `${s.action} ${s.resource} ${s.name}`)).toEqual([
      'check cluster demo',
      'none image trainer',
      'create role pod-reader',
      'create roleBinding default-pod-reader-binding',
      'create roleBinding xpk-sa-pod-reader-binding',
      'create serviceAccount xpk-sa',
      'create jobSet default/run-1',
    ])
    expect(result.steps.at(-1)!.spec).toEqual(result.manifest)
    expect(console.results[0]).toMatch(/^Plan for workload run-1 on cluster demo:\n {2}= {3}check {4}cluster /)
    expect(console.codes()).toEqual(['workload.capacity', 'workload.dry-run'])
  })

  it('on a cluster set up by an earlier submit, reads as a steady-state submit does (six reads)', async () => {
    const kube = aWorkloadCluster()
    await run(kube, {flags: {workload: 'run-0'}}).done
    kube.requests.length = 0
    const result = await run(kube, {patch: {dryRun: true}}).done
    expect(requestLines(kube)).toEqual([
      'get ConfigMap demo-resources-configmap',
      'get JobSet run-1',
      'get LocalQueue multislice-queue',
      'get PriorityClass medium',
      'get ServiceAccount xpk-sa',
      'list Storage',
    ])
    expect(result.rbac.map((r) => r.change)).toEqual(['none', 'none', 'none', 'none'])
    expect(result.steps.filter((s) => s.action !== 'none').map((s) => s.action)).toEqual(['check', 'create'])
  })

  it.each<[string, ClusterOptions, RegExp, number]>([
    ['a missing LocalQueue', {without: ['local-queue']}, /no LocalQueue default\/multislice-queue/, 6],
    ['a missing PriorityClass', {without: ['priority-classes']}, /no PriorityClass medium/, 6],
    ['a missing JobSet CRD', {without: ['jobset-crd']}, /no CustomResourceDefinition jobsets/, 6],
    ['too few VMs', {resources: {'v5p-16': '2'}}, /needs 4 VMs/, 2],
  ])('reports %s with the exit code of a submit, sending nothing', async (_name, cluster, text, code) => {
    const kube = aWorkloadCluster(cluster)
    const {done, console} = run(kube, {patch: {dryRun: true}})
    const error = await failure(done)
    expect(error.exitCode).toBe(code)
    expect(error.message).toMatch(text)
    expect(console.results).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a name already taken is a warning in a dry run (a submit would be refused), not an error', async () => {
    const kube = aWorkloadCluster()
    seedWorkload(kube, 'run-1')
    const {done, console} = run(kube, {patch: {dryRun: true}})
    await expect(done).resolves.toMatchObject({submitted: false})
    expect(console.codes('warn')).toEqual(['workload.name-taken'])
    expect(console.the('workload.name-taken').text).toMatch(/already exists .* A submit would be refused: .*--replace/)
    expect(kube.mutatingRequests()).toEqual([])
  })
})

describe('workload create: storages (--storage and auto-mount)', () => {
  /** A cluster set up for workloads that serves the Storage kind and holds these storages. */
  function withStorages(...flags: AttachFlags[]): MemoryKube {
    const kube = aWorkloadCluster()
    kube.seed(STORAGE_CRD)
    for (const f of flags) kube.seed(attachObjects(f).at(-1) as unknown as KubeObject)
    return kube
  }
  const podOf = (kube: MemoryKube) =>
    (
      kube.peek(JOBSET('run-1'))!.spec as {
        replicatedJobs: {template: {spec: {template: {metadata: {annotations?: object}; spec: PodSpec}}}}[]
      }
    ).replicatedJobs[0]!.template.spec.template

  it('mounts the storages named and every auto-mount one, and says so in the plan', async () => {
    const kube = withStorages(DATASETS_FLAGS, {...HOME_FLAGS, autoMount: 'true'}, {...HOME_FLAGS, name: 'other'})
    const result = await run(kube, {flags: {storage: ['datasets']}}).done
    expect(result.steps.filter((s) => s.resource === 'storage').map((s) => `${s.name}: ${s.reason}`)).toEqual([
      'datasets: gcsfuse, claim datasets-pvc mounted at /data read-only (named by --storage)',
      'home: gcpfilestore, claim home-pvc mounted at /home/shared (auto-mount)',
    ])
    expect(result.steps.at(-1)!.reason).toMatch(/, mounting datasets and home$/)
    const pod = podOf(kube)
    expect(pod.spec.containers[0]!.volumeMounts).toEqual([
      {name: 'dshm-2', mountPath: '/dev/shm'},
      {name: 'datasets-pv', mountPath: '/data', readOnly: true},
      {name: 'home-pv', mountPath: '/home/shared', readOnly: false},
    ])
    expect(pod.spec.volumes!.map((v) => v.persistentVolumeClaim?.claimName)).toEqual([
      undefined,
      'datasets-pvc',
      'home-pvc',
    ])
    expect(pod.spec.serviceAccountName).toBe('xpk-sa')
    expect(pod.metadata.annotations).toMatchObject({'gke-gcsfuse/volumes': 'true'})
  })

  it('a storage the cluster lacks is exit 6 naming those it has: nothing built, nothing sent', async () => {
    const kube = withStorages(DATASETS_FLAGS, HOME_FLAGS)
    const built = run(kube, {
      flags: {storage: ['datasets', 'ckpt']},
      patch: {dockerImage: undefined, scriptDir: tempDir('xpk-script-')},
    })
    const error = await failure(built.done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toBe('No storage named ckpt: cluster demo has datasets, home. Nothing was submitted.')
    expect(built.builds).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a cluster without the Storage kind: --storage is exit 6, and without it nothing is mounted', async () => {
    const kube = aWorkloadCluster()
    const error = await failure(run(kube, {flags: {storage: ['datasets']}}).done)
    expect(error.message).toBe('No storage named datasets: cluster demo has no storages. Nothing was submitted.')
    expect(kube.mutatingRequests()).toEqual([])
    await run(kube).done
    expect(podOf(kube).spec.serviceAccountName).toBeUndefined()
  })

  it('a bad --storage name is exit 2 before the cluster is reached', async () => {
    const kube = aWorkloadCluster()
    const {done, reached} = run(kube, {flags: {storage: ['Data_Sets']}})
    const error = await failure(done)
    expect(error).toBeInstanceOf(UsageError)
    expect(error.message).toMatch(/^--storage "Data_Sets": a storage is named with lowercase letters/)
    expect(reached).toEqual([])
    expect(kube.requests).toEqual([])
  })

  it('--dry-run shows the storages and their mounts in the JobSet; --offline says they were not read', async () => {
    const kube = withStorages(DATASETS_FLAGS)
    const dry = run(kube, {flags: {storage: ['datasets']}, patch: {dryRun: true}})
    await dry.done
    expect(dry.console.results[0]).toMatch(
      /\n {2}= {3}check {4}storage +datasets +gcsfuse, claim datasets-pvc mounted at \/data read-only/,
    )
    expect(dry.console.results[0]).toContain('mountPath: /data\n')
    const offline = run(kube, {flags: {storage: ['datasets']}, patch: {dryRun: true, offline: true}})
    const result = await offline.done
    expect(result.steps.filter((s) => s.resource === 'storage')).toEqual([
      {
        action: 'check',
        resource: 'storage',
        name: 'datasets',
        reason: 'not read (--offline): not mounted in the JobSet shown',
        spec: null,
      },
    ])
    expect(JSON.stringify(result.manifest)).not.toContain('datasets-pv')
    expect(kube.mutatingRequests()).toEqual([])
  })
})

describe('workload create on node auto-provisioning: the capacity as a node selector', () => {
  const NAP_RESOURCES = {'tpu-v5p-slice': 'AUTOPROVISION', minimum_chips: '0', maximum_chips: '64'}
  const nodeSelector = (kube: MemoryKube) =>
    (kube.peek(JOBSET('run-1'))!.spec as {replicatedJobs: {template: {spec: {template: {spec: PodSpec}}}}[]})
      .replicatedJobs[0]!.template.spec.template.spec.nodeSelector

  it('--spot asks GKE for Spot nodes (cloud.google.com/gke-spot), the metadata ConfigMap not read', async () => {
    const kube = aWorkloadCluster({resources: NAP_RESOURCES})
    await expect(run(kube, {flags: {spot: true}}).done).resolves.toMatchObject({submitted: true})
    expect(nodeSelector(kube)).toMatchObject({'cloud.google.com/gke-spot': 'true'})
    expect(requestLines(kube).filter((l) => l.includes('metadata-configmap'))).toEqual([])
  })

  it('without a flag, the capacity the cluster was created with (its metadata ConfigMap): a reservation', async () => {
    const kube = aWorkloadCluster({resources: NAP_RESOURCES})
    kube.seed({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {name: 'demo-metadata-configmap', namespace: 'default'},
      data: {xpk_version: 'v1.0.0', capacity_type: 'RESERVATION', reservation_id: 'r1'},
    })
    await expect(run(kube).done).resolves.toMatchObject({submitted: true})
    expect(nodeSelector(kube)).toMatchObject({'cloud.google.com/reservation-name': 'r1'})
  })

  it.each([
    ['--spot', {spot: true}],
    ['--on-demand', {onDemand: true}],
    ['--reservation', {reservation: 'r1'}],
    ['--flex', {flex: true}],
  ] as const)('%s on a cluster of fixed pools: exit 2 naming it, nothing built or sent', async (flag, flags) => {
    const kube = aWorkloadCluster()
    const {done, builds} = run(kube, {flags, patch: {dockerImage: undefined, scriptDir: tempDir('xpk-script-')}})
    const error = await failure(done)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain(flag)
    expect(builds).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })
})
