// `xpk cluster create-ray` in process (cluster create's service with --ray-version), over the in-memory GKE and
// Kubernetes ports: GKE's Ray operator addon in the plan, and the RayCluster applied after the node pools, sized
// from the nodes' allocatable CPU and memory; a re-run sends nothing, another version or slice count updates it.
import {describe, expect, it} from 'vitest'

import type {XpkError} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {createCluster, type ClusterCreateOptions} from '../../src/services/cluster-create.js'
import {MemoryCompute} from '../fakes/memory-compute.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {MemoryReleaseManifests} from '../fakes/memory-release-manifests.js'
import {kubeRayCrd, seedRayNodes} from '../helpers/ray.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const FLAGS = {
  cluster: 'demo',
  project: 'test-project',
  zone: 'us-central2-b',
  tpuType: 'v5p-16',
  spot: true,
  rayVersion: '2.38.0',
}
const TIMING = {...DEFAULT_TIMING, controllers: {poll: {initialMs: 10, maxMs: 10, factor: 1}, timeoutMs: 1000}}
const LOCK = {
  identity: {user: 'tester', host: 'test-host', pid: 4242, boot: '29500000'},
  staleSeconds: 3600,
  alive: () => true,
}
const RAY_REF = {apiVersion: 'ray.io/v1', kind: 'RayCluster', namespace: 'ray', name: 'raycluster'}

type RayClusterShape = {
  spec: {
    rayVersion: string
    headGroupSpec: {template: {spec: {containers: {image: string; resources: {requests: Record<string, string>}}[]}}}
    workerGroupSpecs: {
      groupName: string
      numOfHosts: number
      template: {spec: {containers: {resources: {requests: Record<string, string>}}[]; nodeSelector: object}}
    }[]
  }
}

/** A cluster as GKE's Ray operator addon leaves it: KubeRay's CRD served, and a node of each kind to size from. */
function aRayReadyKube(): MemoryKube {
  const kube = new MemoryKube()
  kube.seed(kubeRayCrd())
  seedRayNodes(kube)
  return kube
}

async function createRay(
  gke: MemoryGke,
  kube: MemoryKube,
  flags: Partial<ClusterCreateOptions['flags']> = {},
  mode: {dryRun?: boolean; offline?: boolean} = {},
) {
  const console = new RecordingConsole()
  const result = await createCluster(
    {
      flags: {...FLAGS, numSlices: '2', ...flags},
      dryRun: mode.dryRun ?? false,
      offline: mode.offline ?? false,
      timing: TIMING,
      inCluster: {skip: false, xpkVersion: '0.1.0', manifestOverrides: {}},
      lock: LOCK,
    },
    {
      gke: async () => gke,
      compute: async () => new MemoryCompute(),
      kube: async () => kube,
      manifests: new MemoryReleaseManifests(),
      console,
      signal: new AbortController().signal,
      ...virtualClock(),
    },
  ).catch((e: unknown) => e as XpkError)
  return {result, console, text: console.messages.map((m) => m.text).join('\n') + console.results.join('\n')}
}

const rayClusterOf = (kube: MemoryKube) => kube.peek(RAY_REF) as unknown as RayClusterShape | undefined

describe('cluster create-ray (cluster create with --ray-version)', () => {
  it('a new cluster: the addon in the CreateCluster request, the RayCluster applied after the pools, sized from the nodes', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const kube = aRayReadyKube()
    const {result, text} = await createRay(gke, kube)
    expect(result).toMatchObject({applied: true, ray: {version: '2.38.0', change: 'create', object: null}})
    expect(gke.calls.filter((c) => c.startsWith('create') || c.startsWith('update'))).toEqual([
      'createCluster',
      'createNodePool demo-np-0',
      'createNodePool demo-np-1',
    ])
    expect(gke.rayOperator).toBe(true)
    const ray = rayClusterOf(kube)!
    expect(ray.spec.rayVersion).toBe('2.38.0')
    expect(ray.spec.headGroupSpec.template.spec.containers[0]!.image).toBe('rayproject/ray:2.38.0')
    // Half of the default-pool node's 15890m and 60055592Ki; 90% of the TPU node's 207 cores and 462542412Ki.
    expect(ray.spec.headGroupSpec.template.spec.containers[0]!.resources.requests).toEqual({
      cpu: '7945m',
      memory: '30027796Ki',
    })
    expect(ray.spec.workerGroupSpecs.map((g) => [g.groupName, g.numOfHosts])).toEqual([
      ['workergroup0', 2],
      ['workergroup1', 2],
    ])
    expect(ray.spec.workerGroupSpecs[0]!.template.spec.containers[0]!.resources.requests).toEqual({
      cpu: '186300m',
      'google.com/tpu': '4',
      memory: '416288170Ki',
    })
    expect(kube.peek({apiVersion: 'v1', kind: 'Namespace', name: 'ray'})).toBeDefined()
    // The RayCluster's apply comes after the node pools (it is sized from their nodes) and is by server-side apply.
    const applies = kube.mutatingRequests().filter((r) => r.kind === 'RayCluster')
    expect(applies.map((r) => [r.verb, r.force])).toEqual([['apply', true]])
    expect(text).toContain('read at apply time')
  })

  it('a re-run of the same command sends nothing: the plan compares the RayCluster sized from the live nodes', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const kube = aRayReadyKube()
    await createRay(gke, kube)
    kube.clearLog()
    const callsBefore = gke.calls.length
    const {result, text} = await createRay(gke, kube)
    expect(result).toMatchObject({applied: true, ray: {change: 'none'}})
    expect(kube.mutatingRequests()).toEqual([])
    expect(gke.calls.slice(callsBefore).filter((c) => /^(create|update|delete|setResourceLabels)/.test(c))).toEqual([])
    expect(text).toContain('= RayCluster ray/raycluster (Ray 2.38.0, 2 worker groups of 2 VMs): unchanged')
  })

  it('another --ray-version updates the RayCluster in place (server-side apply), nothing else', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const kube = aRayReadyKube()
    await createRay(gke, kube)
    kube.clearLog()
    const dry = await createRay(gke, kube, {rayVersion: '2.40.0'}, {dryRun: true})
    expect(dry.result).toMatchObject({dryRun: true, ray: {change: 'update'}})
    expect(dry.text).toMatch(/update RayCluster ray\/raycluster \(Ray 2\.40\.0, .*\): spec\.rayVersion, .* differ/)
    expect(kube.mutatingRequests()).toEqual([])
    const {result} = await createRay(gke, kube, {rayVersion: '2.40.0'})
    expect(result).toMatchObject({applied: true, ray: {change: 'update'}})
    expect(rayClusterOf(kube)!.spec.rayVersion).toBe('2.40.0')
    expect(rayClusterOf(kube)!.spec.headGroupSpec.template.spec.containers[0]!.image).toBe('rayproject/ray:2.40.0')
    expect(kube.mutatingRequests().map((r) => `${r.verb} ${r.kind}`)).toEqual(['apply Namespace', 'apply RayCluster'])
  })

  it('another slice count: the pools change first, then the RayCluster gets one worker group per slice', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const kube = aRayReadyKube()
    await createRay(gke, kube)
    const {result} = await createRay(gke, kube, {numSlices: '3'})
    expect(result).toMatchObject({applied: true, ray: {change: 'update', object: null}})
    expect(rayClusterOf(kube)!.spec.workerGroupSpecs.map((g) => g.groupName)).toEqual([
      'workergroup0',
      'workergroup1',
      'workergroup2',
    ])
    expect(rayClusterOf(kube)!.spec.workerGroupSpecs[2]!.template.spec.nodeSelector).toMatchObject({
      'cloud.google.com/gke-nodepool': 'demo-np-2',
    })
  })

  it('an existing cluster without the addon: one UpdateCluster, and the RayCluster once its kind is served', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const kube = new MemoryKube()
    seedRayNodes(kube)
    // A cluster made by `cluster create`: no addon, no KubeRay.
    await createRay(gke, kube, {rayVersion: undefined})
    expect(gke.rayOperator).toBe(false)
    const dry = await createRay(gke, kube, {}, {dryRun: true})
    expect(dry.text).toContain('addon RayOperator')
    expect(dry.text).toContain("once GKE's Ray operator addon serves rayclusters.ray.io")
    // The addon's update installs KubeRay's CRD, as GKE's does.
    const update = gke.updateCluster.bind(gke)
    gke.updateCluster = async (ref, change) => {
      const op = await update(ref, change)
      if (change.kind === 'rayOperator') kube.seed(kubeRayCrd())
      return op
    }
    const {result} = await createRay(gke, kube)
    expect(result).toMatchObject({applied: true, ray: {change: 'create'}})
    // One update, sent again while the cluster lock's label operation is in the way (GKE: one operation at a time).
    expect(new Set(gke.calls.filter((c) => c.startsWith('updateCluster')))).toEqual(
      new Set(['updateCluster rayOperator']),
    )
    expect(gke.rayOperator).toBe(true)
    expect(rayClusterOf(kube)!.spec.rayVersion).toBe('2.38.0')
  })

  it('fails the step, naming the kind, when rayclusters.ray.io is never served', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const kube = new MemoryKube()
    seedRayNodes(kube)
    const {result} = await createRay(gke, kube)
    expect((result as XpkError).kind).toBe('timeout')
    expect((result as XpkError).message).toContain(
      'RayCluster/raycluster: The cluster did not serve rayclusters.ray.io within 1 s.',
    )
    expect(kube.mutatingRequests().filter((r) => r.kind === 'RayCluster')).toEqual([])
  })

  it('an offline plan shows the addon and the RayCluster with its sizes decided at apply time', async () => {
    const kube = aRayReadyKube()
    const {result, text} = await createRay(new MemoryGke(), kube, {}, {dryRun: true, offline: true})
    expect(result).toMatchObject({dryRun: true, ray: {change: 'create', object: null, version: '2.38.0'}})
    expect(text).toContain('addon RayOperator')
    expect(text).toContain(
      "+ create RayCluster ray/raycluster (Ray 2.38.0, 2 worker groups of 2 VMs; head and worker sizes from the nodes' allocatable CPU and memory, read at apply time",
    )
    expect(kube.mutatingRequests()).toEqual([])
  })
})
