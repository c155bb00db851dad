import * as grpc from '@grpc/grpc-js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createGkeClient, toApiCluster, toApiNodePool} from '../../src/adapters/gke-container-api.js'
import type {ClusterSpec, NodePoolSpec} from '../../src/core/cluster/spec.js'
import {ApiError} from '../../src/core/errors.js'
import {desiredFor} from '../builders/observed.js'
import {FakeGke} from '../fakes/fake-gke.js'

let fake: FakeGke
beforeAll(async () => {
  fake = await FakeGke.start()
})
afterAll(async () => fake?.stop())

describe('the GKE adapter', () => {
  // The library's own policy retries reads and deletes on UNAVAILABLE/DEADLINE_EXCEEDED for up to 600 s, under
  // xpk's policy and deaf to Ctrl-C; xpk's executor must be the only one that retries.
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
  ])('node pool: %s', (_, change, read, expected) => {
    expect(read(toApiNodePool({...pool, ...change}))).toEqual(expected)
  })

  it('flex-start pools get auto-repair off from the core, and the plan shows it', () => {
    const flex = desiredFor({tpuType: 'v5p-16', flex: true}).poolTemplate
    expect(flex.management).toEqual({autoRepair: false, autoUpgrade: true})
    expect(toApiNodePool({...flex, name: 'demo-np-0', reservation: null}).management).toEqual(flex.management)
  })
})
