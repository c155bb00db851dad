import * as grpc from '@grpc/grpc-js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {
  betaBase,
  createGkeClient,
  toApiCluster,
  toApiClusterUpdate,
  toApiNodePool,
  toBetaApiNodePool,
} from '../../src/adapters/gke-container-api.js'
import type {ClusterSpec, NodePoolSpec} from '../../src/core/cluster/spec.js'
import {ApiError, XpkError} from '../../src/core/errors.js'
import {desiredFor} from '../builders/observed.js'
import {FakeGke} from '../fakes/fake-gke.js'
import {tempDir} from '../helpers/temp.js'

let fake: FakeGke
beforeAll(async () => {
  fake = await FakeGke.start()
})
afterAll(async () => fake?.stop())

describe('the GKE adapter', () => {
  // xpk's executor must be the only one that retries (the client library this adapter replaced retried reads and
  // deletes for up to 600 s on its own, under xpk's policy and deaf to Ctrl-C): one failure, one request.
  it.each([
    ['GetCluster', grpc.status.UNAVAILABLE],
    ['ListClusters', grpc.status.UNAVAILABLE],
    ['GetServerConfig', grpc.status.DEADLINE_EXCEEDED],
    ['DeleteCluster', grpc.status.UNAVAILABLE],
    ['ListOperations', grpc.status.UNAVAILABLE],
  ])('does not retry %s itself (%s): one request, one classified, retryable error', async (method, code) => {
    const gke = await createGkeClient({endpoint: `http://${fake.endpoint}`})
    const before = fake.calls.filter((c) => c.method === method).length
    fake.faults.push({method, code, message: 'injected', times: 5})
    const ref = {project: 'adapter-project', location: 'us-central2', name: 'c'}
    const call = {
      GetCluster: () => gke.getCluster(ref),
      ListClusters: () => gke.listClusters('adapter-project'),
      GetServerConfig: () => gke.getServerConfig('adapter-project', 'us-central2'),
      DeleteCluster: () => gke.deleteCluster(ref),
      ListOperations: () => gke.listOperations('adapter-project', 'us-central2'),
    }[method]!
    const error = await call().catch((e: unknown) => e)
    fake.faults.length = 0
    await gke.close()
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).retryable).toBe(true)
    expect(fake.calls.filter((c) => c.method === method).length - before).toBe(1)
  })
})

/** A fetch that sends requests for https://container.example.test to the fake over http, recording URL and token. */
function redirectingFetch(seen: [string, string | undefined][]): typeof fetch {
  return (input, init) => {
    const url = String(input)
    seen.push([url, new Headers(init?.headers).get('authorization') ?? undefined])
    return fetch(url.replace(/^https:\/\/container\.example\.test(:\d+)?/, `http://${fake.endpoint}`), init)
  }
}

/** The error a promise rejects with (fails the test if it resolves). */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(outcome).toBeInstanceOf(XpkError)
  return outcome as ApiError
}

describe('the GKE adapter over REST', () => {
  const ref = {project: 'rest-project', location: 'us-central2', name: 'rest'}

  // FAILED_PRECONDITION and INVALID_ARGUMENT are both HTTP 400: only the status GKE names tells "another operation
  // is running" (wait and retry) from a bad request (stop).
  it.each([
    [
      grpc.status.FAILED_PRECONDITION,
      'Cluster is running incompatible operation operation-7.',
      'FAILED_PRECONDITION',
      true,
    ],
    [grpc.status.INVALID_ARGUMENT, 'Invalid value for field "node_pool.name".', 'INVALID_ARGUMENT', false],
    [
      grpc.status.RESOURCE_EXHAUSTED,
      'Too many operations: cluster "rest" hits the concurrent operations quota 5.',
      'RESOURCE_EXHAUSTED',
      true,
    ],
  ])('classifies a failure by the status GKE names (%s)', async (code, message, status, retryable) => {
    const gke = await createGkeClient({endpoint: `http://${fake.endpoint}`})
    fake.faults.push({method: 'GetCluster', code, message})
    const error = await failure(gke.getCluster(ref))
    expect([error.status, error.retryable]).toEqual([status, retryable])
    expect(error.message).toBe(`Could not read cluster rest: ${message}`)
  })

  it('reads a missing cluster or pool as undefined, and other reads as the port says', async () => {
    fake.reset()
    const gke = await createGkeClient({endpoint: `http://${fake.endpoint}`})
    expect(await gke.getCluster(ref)).toBeUndefined()
    expect(await gke.getNodePool(ref, 'np')).toBeUndefined()
    fake.seedCluster({
      project: ref.project,
      location: ref.location,
      name: ref.name,
      nodePools: [{name: 'default-pool'}],
    })
    expect(await gke.getCluster(ref)).toMatchObject({name: 'rest', status: 'RUNNING', location: 'us-central2'})
    expect((await gke.listNodePools(ref)).map((p) => p.name)).toEqual(['default-pool'])
    expect(fake.calls.map((c) => [c.method, c.request, c.code])).toEqual([
      ['GetCluster', {name: 'projects/rest-project/locations/us-central2/clusters/rest'}, grpc.status.NOT_FOUND],
      [
        'GetNodePool',
        {name: 'projects/rest-project/locations/us-central2/clusters/rest/nodePools/np'},
        grpc.status.NOT_FOUND,
      ],
      ['GetCluster', {name: 'projects/rest-project/locations/us-central2/clusters/rest'}, grpc.status.OK],
      ['ListNodePools', {parent: 'projects/rest-project/locations/us-central2/clusters/rest'}, grpc.status.OK],
    ])
  })

  it('sends the token as a Bearer header over https, under v1/ or the path the endpoint gives', async () => {
    fake.reset()
    const seen: [string, string | undefined][] = []
    const bare = await createGkeClient({
      endpoint: 'https://container.example.test:8443',
      accessToken: 'tok-123',
      fetch: redirectingFetch(seen),
    })
    await bare.listClusters('rest-project')
    const pathed = await createGkeClient({
      endpoint: 'https://container.example.test/v1/',
      accessToken: 'tok-123',
      fetch: redirectingFetch(seen),
    })
    await pathed.listOperations('rest-project', 'us-central2')
    expect(seen).toEqual([
      ['https://container.example.test:8443/v1/projects/rest-project/locations/-/clusters', 'Bearer tok-123'],
      ['https://container.example.test/v1/projects/rest-project/locations/us-central2/operations', 'Bearer tok-123'],
    ])
  })

  it('sends no credentials to a loopback http endpoint, even when given a token', async () => {
    const seen: [string, string | undefined][] = []
    const loopback = await createGkeClient({
      endpoint: `http://${fake.endpoint}`,
      accessToken: 'do-not-leak',
      fetch: (input, init) => {
        seen.push([String(input), new Headers(init?.headers).get('authorization') ?? undefined])
        return fetch(input, init)
      },
    })
    await loopback.listClusters('rest-project')
    expect(seen).toEqual([[`http://${fake.endpoint}/v1/projects/rest-project/locations/-/clusters`, undefined]])
  })

  it('falls back to Application Default Credentials over https, and says how to log in when there are none', async () => {
    const seen: [string, string | undefined][] = []
    const saved = process.env.CLOUDSDK_CONFIG
    // An empty gcloud config dir: Application Default Credentials find no credential file on this machine.
    process.env.CLOUDSDK_CONFIG = tempDir('xpk-gke-adc-')
    try {
      const adc = await createGkeClient({endpoint: 'https://container.example.test/', fetch: redirectingFetch(seen)})
      const error = await failure(adc.listClusters('rest-project'))
      expect([error.kind, error.exitCode]).toEqual(['auth', 3])
      expect(error.message).toContain('No Google credentials to list clusters')
      expect(error.hints.join(' ')).toContain('gcloud auth application-default login')
    } finally {
      if (saved === undefined) delete process.env.CLOUDSDK_CONFIG
      else process.env.CLOUDSDK_CONFIG = saved
    }
    expect(seen).toEqual([])
  })

  it('gives up on a request that takes longer than requestTimeoutMs, as a retryable error', async () => {
    const gke = await createGkeClient({endpoint: `http://${fake.endpoint}`, requestTimeoutMs: 50})
    fake.faults.push({method: 'ListClusters', delayMs: 1_000})
    const error = await failure(gke.listClusters('rest-project'))
    expect([error.status, error.retryable]).toEqual(['DEADLINE_EXCEEDED', true])
    expect(error.message).toContain('within 50 ms')
  })

  it('sends what the spec says: the created pool is echoed back with its API values', async () => {
    fake.reset()
    fake.seedCluster({project: ref.project, location: ref.location, name: ref.name})
    const gke = await createGkeClient({endpoint: `http://${fake.endpoint}`})
    const desired = desiredFor({tpuType: 'v5p-16'})
    const operation = await gke.createNodePool(ref, {...desired.poolTemplate, name: 'rest-np-0', reservation: null})
    expect(operation).toMatchObject({type: 'CREATE_NODE_POOL', status: 'RUNNING', error: null})
    // int64 and enum fields travel as proto3 JSON and reach the server as the message gRPC would carry: enums by
    // name, int64 as decimal strings (the fake decodes them so), everything else as sent.
    const sent = toApiNodePool({...desired.poolTemplate, name: 'rest-np-0', reservation: null})
    expect(fake.calls.at(-1)?.request).toMatchObject({
      parent: 'projects/rest-project/locations/us-central2/clusters/rest',
      nodePool: {
        name: 'rest-np-0',
        initialNodeCount: sent.initialNodeCount,
        config: {machineType: 'ct5p-hightpu-4t', oauthScopes: sent.config?.oauthScopes, gvnic: {enabled: true}},
        placementPolicy: {type: 'COMPACT', tpuTopology: '2x2x2'},
        maxPodsConstraint: {maxPodsPerNode: '15'},
        management: {autoRepair: true, autoUpgrade: true},
      },
    })
  })
})

describe("the GKE adapter's v1beta1 requests (--host-maintenance-interval PERIODIC)", () => {
  const ref = {project: 'beta-project', location: 'us-central2', name: 'beta'}
  const pool = (interval: 'AS_NEEDED' | 'PERIODIC', name: string): NodePoolSpec => ({
    ...desiredFor({tpuType: 'v5p-16'}).poolTemplate,
    hostMaintenanceInterval: interval,
    name,
    reservation: null,
  })

  it('creates PERIODIC pools through v1beta1 with the policy, AS_NEEDED ones through v1 without it', async () => {
    fake.reset()
    fake.seedCluster({project: ref.project, location: ref.location, name: ref.name})
    const seen: [string, string | undefined][] = []
    const gke = await createGkeClient({
      endpoint: 'https://container.example.test/',
      accessToken: 'tok-b',
      fetch: redirectingFetch(seen),
    })
    const periodic = await gke.createNodePool(ref, pool('PERIODIC', 'beta-np-0'))
    await gke.createNodePool(ref, pool('AS_NEEDED', 'beta-np-1'))
    // The operation of a v1beta1 create is watched through v1, like every other.
    await gke.getOperation(ref.project, ref.location, periodic.name)
    const pools =
      'https://container.example.test/%s/projects/beta-project/locations/us-central2/clusters/beta/nodePools'
    expect(seen.map(([url, token]) => [url.replace(/operation-\d+$/, 'operation-N'), token])).toEqual([
      [pools.replace('%s', 'v1beta1'), 'Bearer tok-b'],
      [pools.replace('%s', 'v1'), 'Bearer tok-b'],
      [
        'https://container.example.test/v1/projects/beta-project/locations/us-central2/operations/operation-N',
        'Bearer tok-b',
      ],
    ])
    const [betaCreate, v1Create] = fake.calls.filter((c) => c.method === 'CreateNodePool')
    expect(betaCreate).toMatchObject({api: 'v1beta1', request: {nodePool: {name: 'beta-np-0'}}})
    expect(betaCreate?.request).toMatchObject({
      nodePool: {config: {hostMaintenancePolicy: {maintenanceInterval: 'PERIODIC'}}},
    })
    expect(v1Create?.api).toBeUndefined()
    expect(v1Create?.request).not.toMatchObject({nodePool: {config: {hostMaintenancePolicy: {}}}})
    // The v1beta1 body is the v1 one plus the policy, nothing else.
    const {config: betaConfig, ...betaRest} = toBetaApiNodePool(pool('PERIODIC', 'x'))
    const {config: v1Config, ...v1Rest} = toApiNodePool(pool('PERIODIC', 'x'))
    expect(betaRest).toEqual(v1Rest)
    expect(betaConfig).toEqual({...v1Config, hostMaintenancePolicy: {maintenanceInterval: 'PERIODIC'}})
  })

  it('reads the interval only when asked, through v1beta1: AS_NEEDED for a pool without one', async () => {
    fake.finishOperations()
    const gke = await createGkeClient({endpoint: `http://${fake.endpoint}`})
    const before = fake.calls.length
    const v1 = await gke.listNodePools(ref)
    const beta = await gke.listNodePools(ref, {hostMaintenance: true})
    const one = await gke.getNodePool(ref, 'beta-np-0', {hostMaintenance: true})
    const missing = await gke.getNodePool(ref, 'nope', {hostMaintenance: true})
    expect(v1.map((p) => [p.name, 'hostMaintenanceInterval' in p])).toEqual([
      ['beta-np-0', false],
      ['beta-np-1', false],
    ])
    expect(beta.map((p) => [p.name, p.hostMaintenanceInterval])).toEqual([
      ['beta-np-0', 'PERIODIC'],
      ['beta-np-1', 'AS_NEEDED'],
    ])
    // Everything else reads the same through either version.
    expect(beta.map(({hostMaintenanceInterval: _, ...rest}) => rest)).toEqual(v1)
    expect(one?.hostMaintenanceInterval).toBe('PERIODIC')
    expect(missing).toBeUndefined()
    expect(fake.calls.slice(before).map((c) => [c.method, c.api ?? 'v1'])).toEqual([
      ['ListNodePools', 'v1'],
      ['ListNodePools', 'v1beta1'],
      ['GetNodePool', 'v1beta1'],
      ['GetNodePool', 'v1beta1'],
    ])
  })

  it.each([
    ['https://container.googleapis.com/v1/', 'https://container.googleapis.com/v1beta1/'],
    ['https://proxy.example.test/gke/v1/', 'https://proxy.example.test/gke/v1beta1/'],
    ['https://proxy.example.test/gke/', null],
    ['https://proxy.example.test/gke/xv1/', null],
  ])('puts v1beta1 beside the v1 root %s: %s', (base, beta) => {
    expect(betaBase(base)).toBe(beta)
  })

  it('refuses a v1beta1 request, sending nothing, when the endpoint path has no v1 to replace', async () => {
    const seen: [string, string | undefined][] = []
    const gke = await createGkeClient({
      endpoint: 'https://container.example.test/gke/',
      accessToken: 't',
      fetch: redirectingFetch(seen),
    })
    const error = await failure(gke.createNodePool(ref, pool('PERIODIC', 'beta-np-2')))
    expect([error.exitCode, error.message]).toEqual([2, expect.stringContaining('--gke-endpoint')])
    expect(error.message).toContain('--host-maintenance-interval PERIODIC')
    expect(seen).toEqual([])
  })
})

describe('the GKE adapter maps the spec and decides nothing', () => {
  const desired = desiredFor({tpuType: 'v5p-16'})
  const cluster = desired.spec
  const pool: NodePoolSpec = {...desired.poolTemplate, name: 'demo-np-0', reservation: null}

  // Each row flips one decision in the spec; the API message must follow it, proving the value comes from the core.
  it.each<[string, Partial<ClusterSpec>, (api: ReturnType<typeof toApiCluster>) => unknown, unknown]>([
    ['Dataplane V2 on', {}, (api) => api.networkConfig?.datapathProvider, 'ADVANCED_DATAPATH'],
    [
      'Dataplane V2 off',
      {networking: {...cluster.networking, dataplaneV2: false}},
      (api) => api.networkConfig?.datapathProvider,
      'LEGACY_DATAPATH',
    ],
    [
      'multi-networking',
      {networking: {...cluster.networking, multiNetworking: false}},
      (api) => api.networkConfig?.enableMultiNetworking,
      false,
    ],
    [
      'IP aliases',
      {networking: {...cluster.networking, ipAliases: false}},
      (api) => api.ipAllocationPolicy?.useIpAliases,
      false,
    ],
    ['autoscaling profile', {autoscalingProfile: 'BALANCED'}, (api) => api.autoscaling?.autoscalingProfile, 'BALANCED'],
    [
      "default pool's location policy",
      {defaultPool: {...cluster.defaultPool, locationPolicy: 'ANY'}},
      (api) => api.nodePools?.[0]?.autoscaling?.locationPolicy,
      'ANY',
    ],
    [
      "default pool's auto-repair",
      {defaultPool: {...cluster.defaultPool, autoRepair: false}},
      (api) => api.nodePools?.[0]?.management?.autoRepair,
      false,
    ],
    [
      'no addons, no Workload Identity',
      {},
      (api) => [api.addonsConfig, api.workloadIdentityConfig],
      [undefined, undefined],
    ],
    [
      'CSI drivers',
      {csiDrivers: ['GcsFuseCsiDriver', 'GcePersistentDiskCsiDriver', 'LustreCsiDriver']},
      (api) => api.addonsConfig,
      {
        gcsFuseCsiDriverConfig: {enabled: true},
        gcePersistentDiskCsiDriverConfig: {enabled: true},
        lustreCsiDriverConfig: {enabled: true},
      },
    ],
    [
      'the Lustre legacy port',
      {csiDrivers: ['LustreCsiDriver'], lustreLegacyPort: true},
      (api) => api.addonsConfig,
      {lustreCsiDriverConfig: {enabled: true, enableLegacyLustrePort: true}},
    ],
    [
      "GKE's slice controller (super-slicing), beside a CSI driver",
      {sliceController: true, csiDrivers: ['GcsFuseCsiDriver']},
      (api) => api.addonsConfig,
      {gcsFuseCsiDriverConfig: {enabled: true}, sliceControllerConfig: {enabled: true}},
    ],
    [
      'Workload Identity',
      {workloadPool: 'test-project.svc.id.goog'},
      (api) => api.workloadIdentityConfig,
      {workloadPool: 'test-project.svc.id.goog'},
    ],
  ])('cluster: %s', (_, change, read, expected) => {
    expect(read(toApiCluster({...cluster, ...change}))).toEqual(expected)
  })

  it.each<[string, Partial<NodePoolSpec>, (api: ReturnType<typeof toApiNodePool>) => unknown, unknown]>([
    [
      'GPU driver version',
      {gpu: {type: 'nvidia-h100-80gb', count: 8, driverVersion: 'DEFAULT'}},
      (api) => api.config?.accelerators?.[0]?.gpuDriverInstallationConfig?.gpuDriverVersion,
      'DEFAULT',
    ],
    ['auto-repair', {management: {autoRepair: false, autoUpgrade: true}}, (api) => api.management?.autoRepair, false],
    ['auto-upgrade', {management: {autoRepair: true, autoUpgrade: false}}, (api) => api.management?.autoUpgrade, false],
    [
      'flex autoscaling',
      {flexMaxNodes: 4, autoscalingLocationPolicy: 'BALANCED'},
      (api) => api.autoscaling,
      {enabled: true, minNodeCount: 0, maxNodeCount: 4, locationPolicy: 'BALANCED'},
    ],
    ['no autoscaling without flex', {flexMaxNodes: null}, (api) => api.autoscaling, undefined],
    ['no workload metadata mode', {}, (api) => api.config?.workloadMetadataConfig, undefined],
    [
      'workload metadata mode',
      {workloadMetadataMode: 'GKE_METADATA'},
      (api) => api.config?.workloadMetadataConfig,
      {mode: 'GKE_METADATA'},
    ],
  ])('node pool: %s', (_, change, read, expected) => {
    expect(read(toApiNodePool({...pool, ...change}))).toEqual(expected)
  })

  it.each<[string, Parameters<typeof toApiClusterUpdate>[0], unknown]>([
    [
      'addons, the others left out (unchanged)',
      {kind: 'addons', enable: ['GcpFilestoreCsiDriver', 'ParallelstoreCsiDriver'], lustreLegacyPort: false},
      {
        desiredAddonsConfig: {
          gcpFilestoreCsiDriverConfig: {enabled: true},
          parallelstoreCsiDriverConfig: {enabled: true},
        },
      },
    ],
    [
      'Lustre with its legacy port',
      {kind: 'addons', enable: ['LustreCsiDriver'], lustreLegacyPort: true},
      {desiredAddonsConfig: {lustreCsiDriverConfig: {enabled: true, enableLegacyLustrePort: true}}},
    ],
    [
      'Workload Identity',
      {kind: 'workloadIdentity', workloadPool: 'p.svc.id.goog'},
      {desiredWorkloadIdentityConfig: {workloadPool: 'p.svc.id.goog'}},
    ],
  ])('cluster update: %s, one ClusterUpdate field', (_, update, api) => {
    expect(toApiClusterUpdate(update)).toEqual(api)
  })

  it('flex-start pools get auto-repair off from the core, and the plan shows it', () => {
    const flex = desiredFor({tpuType: 'v5p-16', flex: true}).poolTemplate
    expect(flex.management).toEqual({autoRepair: false, autoUpgrade: true})
    expect(toApiNodePool({...flex, name: 'demo-np-0', reservation: null}).management).toEqual(flex.management)
  })
})
