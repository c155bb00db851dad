// `xpk cluster cacheimage` in process, over the in-memory GKE and Kubernetes ports: input checks before any call,
// the DaemonSet applied only when it differs, the wait with its progress, and the report of nodes that failed.
import {describe, expect, it} from 'vitest'

import type {ObservedCluster} from '../../src/core/cluster/observed.js'
import {UsageError, UsageErrors, type XpkError} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {cacheImage, type CacheImageOptions} from '../../src/services/cluster-cacheimage.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube, type MemoryKubeOptions} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const IMAGE = 'us-docker.pkg.dev/my-project/repo/trainer:v1'
const DS = {apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: 'default', name: 'containerimage'}
const TPU_NODES = ['gke-demo-np-0-a', 'gke-demo-np-0-b', 'gke-demo-np-1-a', 'gke-demo-np-1-b']

/** A cluster with four v5p nodes and two nodes of the default CPU pool. */
function aCluster(options: MemoryKubeOptions = {}): MemoryKube {
  const kube = new MemoryKube(options)
  kube.addNodes(TPU_NODES, {'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice'})
  kube.addNodes(['gke-demo-default-pool-a', 'gke-demo-default-pool-b'], {
    'cloud.google.com/gke-nodepool': 'default-pool',
  })
  return kube
}

const options = (overrides: Partial<CacheImageOptions> = {}): CacheImageOptions => ({
  project: 'test-project',
  zone: 'us-central2-b',
  cluster: 'demo',
  tpuType: 'v5p-16',
  dockerImage: IMAGE,
  dryRun: false,
  viaKubeconfig: false,
  timing: DEFAULT_TIMING,
  ...overrides,
})

/** The default timing, with the pulls given `timeoutMs`. */
const pullsWithin = (timeoutMs: number) => ({
  ...DEFAULT_TIMING,
  cacheImage: {...DEFAULT_TIMING.cacheImage, timeoutMs},
})

function run(kube: MemoryKube, overrides: Partial<CacheImageOptions> = {}, gke = new MemoryGke()) {
  const console = new RecordingConsole()
  const reached: Array<ObservedCluster | undefined> = []
  let connections = 0
  const clock = virtualClock()
  const done = cacheImage(options(overrides), {
    gke: async () => (connections++, gke),
    kube: async (cluster) => (reached.push(cluster), kube),
    console,
    signal: new AbortController().signal,
    ...clock,
  })
  return {done, console, reached, gke, clock, connections: () => connections}
}

const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as XpkError
const podImages = (kube: MemoryKube) =>
  kube
    .all('Pod')
    .map((p) => [
      (p.spec as {nodeName: string}).nodeName,
      (p.spec as {containers: {image: string}[]}).containers[0]!.image,
    ])

describe('cacheImage', () => {
  it('applies the DaemonSet and waits until every node of the type has pulled the image', async () => {
    const kube = aCluster()
    const {done, console, reached} = run(kube)
    await expect(done).resolves.toMatchObject({change: 'create', nodes: 4, pulled: 4, image: IMAGE})
    expect(reached.map((c) => c?.name)).toEqual(['demo'])
    expect(kube.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name} force=${r.force}`)).toEqual([
      'apply DaemonSet containerimage force=true',
    ])
    // Only the TPU nodes run the cache; the default pool does not.
    expect(
      podImages(kube)
        .map(([node]) => node)
        .sort(),
    ).toEqual(TPU_NODES)
    expect(console.codes()).toEqual(['cluster.cacheimage.applied'])
    expect(console.the('cluster.cacheimage.applied').data).toMatchObject({change: 'create', image: IMAGE})
    expect(console.results).toEqual([`${IMAGE}: cached on 4/4 nodes (DaemonSet default/containerimage).`])
  })

  it('shows how many nodes have pulled it as the count grows', async () => {
    const kube = aCluster({daemonSetPullsPerRead: 1})
    const {done, console} = run(kube)
    await done
    const details = [...new Set(console.boards[0]!.updates.map((u) => u.line.detail))]
    expect(details).toEqual([
      'pulled on 1/4 nodes',
      'pulled on 2/4 nodes',
      'pulled on 3/4 nodes',
      'pulled on 4/4 nodes',
    ])
    expect(console.boards[0]).toMatchObject({title: `Caching ${IMAGE}`, closed: true})
    expect(console.finalLines('Caching').get('pull')).toMatchObject({
      state: 'cached',
      status: 'done',
      current: 4,
      total: 4,
    })
  })

  it('a re-run with the same image sends no mutating request', async () => {
    const kube = aCluster()
    await run(kube).done
    kube.clearLog()
    await expect(run(kube).done).resolves.toMatchObject({change: 'none', pulled: 4})
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('another image replaces the cached one: the DaemonSet is updated and its pods pull the new image', async () => {
    const kube = aCluster()
    await run(kube).done
    kube.clearLog()
    const next = 'us-docker.pkg.dev/my-project/repo/trainer:v2'
    await expect(run(kube, {dockerImage: next}).done).resolves.toMatchObject({change: 'update', nodes: 4, pulled: 4})
    expect(kube.mutatingRequests()).toHaveLength(1)
    expect(new Set(podImages(kube).map(([, image]) => image))).toEqual(new Set([next]))
    expect(kube.peek(DS)?.metadata.generation).toBe(2)
  })

  it('a second cache key caches a second image beside the first', async () => {
    const kube = aCluster()
    await run(kube).done
    await run(kube, {cacheKey: 'jax-base', dockerImage: 'python:3.11'}).done
    expect(kube.all('DaemonSet').map((d) => d.metadata.name)).toEqual(['containerimage', 'jax-base'])
  })

  it('names each node that could not pull the image, with the cause the kubelet reported', async () => {
    const kube = aCluster()
    kube.failPullOn('gke-demo-np-1-a', {
      reason: 'ErrImagePull',
      message: `rpc error: code = NotFound desc = failed to pull and unpack image "${IMAGE}": not found`,
    })
    const error = await failure(run(kube).done)
    expect(error.kind).toBe('failed')
    expect(error.message).toBe(
      `${IMAGE} was pulled on 3/4 nodes; 1 could not pull it:\n` +
        `  gke-demo-np-1-a: ImagePullBackOff: Failed to pull image "${IMAGE}": rpc error: code = NotFound desc = failed to pull and unpack image "${IMAGE}": not found`,
    )
    expect(error.hints[0]).toMatch(/roles\/artifactregistry\.reader/)
  })

  it('gives the kubelet the grace period to recover before calling a pull failed', async () => {
    const kube = aCluster()
    kube.failPullOn('gke-demo-np-0-b')
    const {done, clock} = run(kube, {pullFailureGraceMs: 5 * 60_000})
    await done.catch(() => undefined)
    expect(clock.now()).toBeGreaterThanOrEqual(5 * 60_000)
    expect(clock.now()).toBeLessThan(30 * 60_000)
  })

  it('reports the waiting reason of a pull error that has not backed off yet', async () => {
    const kube = aCluster()
    kube.failPullOn('gke-demo-np-0-a', {reason: 'InvalidImageName', message: "couldn't parse image reference"})
    const {done} = run(kube, {pullFailureGraceMs: 0})
    const error = await failure(done)
    expect(error.message).toContain("gke-demo-np-0-a: InvalidImageName: couldn't parse image reference")
  })

  it('times out naming the nodes still waiting and why', async () => {
    const kube = aCluster({daemonSetPullsPerRead: 0})
    const {done} = run(kube, {timing: pullsWithin(10 * 60_000)})
    const error = await failure(done)
    expect(error.kind).toBe('timeout')
    expect(error.message).toBe(
      `${IMAGE} was pulled on 0/4 nodes within 10 min.\nStill waiting:\n` +
        TPU_NODES.map((n) => `  ${n}: ContainerCreating`).join('\n'),
    )
  })

  it('keeps waiting while a pod is neither pulled nor failing to pull (a crash loop), then says so', async () => {
    const kube = aCluster()
    // The first pod crashes as soon as the DaemonSet is applied, before any poll sees it ready.
    const apply = kube.apply.bind(kube)
    kube.apply = async (object, applyOptions) => {
      const result = await apply(object, applyOptions)
      const pod = kube.all('Pod')[0]!
      kube.setStatus(
        {apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: pod.metadata.name},
        {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'containerimage',
              image: IMAGE,
              ready: false,
              state: {waiting: {reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container'}},
            },
          ],
        },
      )
      return result
    }
    const {done} = run(kube, {timing: pullsWithin(5 * 60_000)})
    const error = await failure(done)
    expect(error.kind).toBe('timeout')
    expect(error.message).toMatch(
      /Still waiting:\n {2}gke-demo-np-\S+: CrashLoopBackOff: back-off 5m0s restarting failed container$/,
    )
  })

  it('warns when no node of the type is in the cluster yet, and succeeds', async () => {
    const kube = aCluster()
    const {done, console} = run(kube, {tpuType: undefined, deviceType: 'h100-80gb-8'})
    await expect(done).resolves.toMatchObject({nodes: 0, pulled: 0})
    expect(console.codes()).toEqual(['cluster.cacheimage.applied', 'cluster.cacheimage.no-nodes'])
    expect(console.results).toEqual([`${IMAGE}: no node to cache it on yet (DaemonSet default/containerimage).`])
  })

  it('rides out transient failures of the reads and the apply', async () => {
    const kube = aCluster()
    kube.failNext(1, {verb: 'get', kind: 'DaemonSet'}).failNext(1, {verb: 'apply', kind: 'DaemonSet'})
    const gke = new MemoryGke()
    const {done} = run(kube, {}, gke)
    await expect(done).resolves.toMatchObject({pulled: 4})
    expect(kube.requests.filter((r) => r.status === 503).map((r) => r.verb)).toEqual(['get', 'apply'])
  })

  it('reaches the cluster through the kubeconfig without asking GKE', async () => {
    const kube = aCluster()
    const {done, reached, connections} = run(kube, {viaKubeconfig: true, project: undefined, cluster: undefined})
    await expect(done).resolves.toMatchObject({pulled: 4})
    expect(reached).toEqual([undefined])
    expect(connections()).toBe(0)
  })

  it('a cluster GKE does not know is not found, and nothing is applied', async () => {
    const kube = aCluster()
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const error = await failure(run(kube, {}, gke).done)
    expect(error.kind).toBe('not-found')
    expect(error.message).toBe('Cluster demo not found in project test-project (us-central2 or us-central2-b).')
    expect(kube.requests).toEqual([])
  })

  it('a dry run shows the DaemonSet and makes no request', async () => {
    const kube = aCluster()
    const {done, console, connections} = run(kube, {dryRun: true})
    const result = await done
    expect(result).toMatchObject({change: 'dry-run', nodes: null, pulled: null})
    expect(kube.requests).toEqual([])
    expect(connections()).toBe(0)
    expect(console.results[0]).toContain(`image: ${IMAGE}`)
    expect(console.codes()).toEqual(['cluster.cacheimage.dry-run'])
  })

  describe('bad input is a usage error, reported before any request', () => {
    it.each([
      {
        name: 'an image reference with upper case',
        given: {dockerImage: 'gcr.io/P/Image:tag'},
        flags: ['--docker-image'],
      },
      {
        name: 'an image reference with a bad digest',
        given: {dockerImage: 'python@sha256:zz'},
        flags: ['--docker-image'],
      },
      {name: 'a cache key that is not a label', given: {cacheKey: 'My_Cache'}, flags: ['--cache-key']},
      {name: 'an unknown type', given: {tpuType: 'v9z-8'}, flags: ['--tpu-type']},
      {name: 'no cluster and no kubeconfig', given: {cluster: undefined}, flags: ['--cluster']},
      {
        name: 'several problems at once',
        given: {dockerImage: 'Not An Image', cacheKey: '-x', tpuType: undefined, deviceType: 'nope'},
        flags: ['--cache-key', '--docker-image', '--device-type'],
      },
    ])('$name', async ({given, flags}) => {
      const kube = aCluster()
      const {done, connections} = run(kube, given as Partial<CacheImageOptions>)
      const error = await failure(done)
      expect(error).toBeInstanceOf(UsageError)
      const problems = error instanceof UsageErrors ? error.problems : [error as UsageError]
      expect(problems.map((p) => p.flag)).toEqual(flags)
      expect(kube.requests).toEqual([])
      expect(connections()).toBe(0)
    })
  })
})
