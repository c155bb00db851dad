// The fake's REST front against Google's own REST transport of the client library (google-gax's `fallback`
// mode, which builds paths, query and body from the same google.api.http annotations): if the front mapped a
// path, a body or an error differently from GKE's REST API, the library's client would fail here.
import {ClusterManagerClient, v1beta1} from '@google-cloud/container'
import {OAuth2Client} from 'google-auth-library'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {FakeGke} from './fake-gke.js'

let fake: FakeGke
let client: ClusterManagerClient
let beta: v1beta1.ClusterManagerClient

beforeAll(async () => {
  fake = await FakeGke.start({operationMs: Infinity})
  // A static token: the REST transport asks its auth client for headers, and this one never looks for ADC.
  const authClient = new OAuth2Client()
  authClient.setCredentials({access_token: 'fake-token'})
  const options = {
    fallback: true,
    protocol: 'http',
    apiEndpoint: '127.0.0.1',
    port: fake.restPort,
    authClient,
    universeDomain: 'googleapis.com',
  }
  client = new ClusterManagerClient(options)
  beta = new v1beta1.ClusterManagerClient(options)
})
afterAll(async () => {
  await beta?.close()
  await client?.close()
  await fake?.stop()
})
beforeEach(() => fake.reset())

const parent = 'projects/p/locations/us-central2'

describe("the fake's REST front, through the client library's REST transport", () => {
  it('creates, reads, lists and deletes with the same requests and state as over gRPC', async () => {
    const [operation] = await client.createCluster({
      parent,
      cluster: {name: 'c', initialNodeCount: 1, resourceLabels: {team: 'ml'}, releaseChannel: {channel: 'RAPID'}},
    })
    expect(operation).toMatchObject({operationType: 'CREATE_CLUSTER', status: 'RUNNING'})
    const [cluster] = await client.getCluster({name: `${parent}/clusters/c`})
    expect(cluster).toMatchObject({name: 'c', status: 'PROVISIONING', resourceLabels: {team: 'ml'}})
    const [list] = await client.listClusters({parent: 'projects/p/locations/-'})
    expect(list.clusters?.map((c) => c.name)).toEqual(['c'])
    fake.finishOperations()
    await client.createNodePool({
      parent: `${parent}/clusters/c`,
      nodePool: {name: 'np', initialNodeCount: 2, maxPodsConstraint: {maxPodsPerNode: 15}},
    })
    const [operations] = await client.listOperations({parent})
    expect(operations.operations?.map((o) => o.operationType)).toEqual(['CREATE_CLUSTER', 'CREATE_NODE_POOL'])
    expect(fake.calls.map((c) => c.method)).toEqual([
      'CreateCluster',
      'GetCluster',
      'ListClusters',
      'CreateNodePool',
      'ListOperations',
    ])
    // What `serve` saw is the gRPC decoding: enums by name, int64 as strings.
    expect(fake.calls[0]?.request).toEqual({
      parent,
      cluster: {name: 'c', initialNodeCount: 1, resourceLabels: {team: 'ml'}, releaseChannel: {channel: 'RAPID'}},
    })
    expect(fake.calls[3]?.request).toMatchObject({nodePool: {maxPodsConstraint: {maxPodsPerNode: '15'}}})
  })

  it('answers errors as Google JSON errors that the library reads back into their gRPC codes', async () => {
    const missing = await client.getCluster({name: `${parent}/clusters/nope`}).catch((e: unknown) => e)
    expect(missing).toMatchObject({code: 5, message: expect.stringContaining('Not found')})
    fake.faults.push({
      method: 'ListClusters',
      code: 9,
      message: 'Cluster is running incompatible operation operation-3.',
    })
    const busy = await client.listClusters({parent}, {retry: null}).catch((e: unknown) => e)
    expect(busy).toMatchObject({code: 9, message: expect.stringContaining('incompatible operation')})
  })
})

describe("the fake's v1beta1 node-pool methods, through the library's v1beta1 REST transport", () => {
  const cluster = `${parent}/clusters/c`
  const periodic = {maintenanceInterval: 'PERIODIC' as const}

  it('creates a pool with hostMaintenancePolicy, which v1beta1 reads give back and v1 reads leave out', async () => {
    fake.seedCluster({project: 'p', location: 'us-central2', name: 'c'})
    const [operation] = await beta.createNodePool({
      parent: cluster,
      nodePool: {
        name: 'np',
        initialNodeCount: 2,
        config: {machineType: 'ct5p-hightpu-4t', hostMaintenancePolicy: periodic},
      },
    })
    expect(operation).toMatchObject({operationType: 'CREATE_NODE_POOL', status: 'RUNNING'})
    await client.createNodePool({parent: cluster, nodePool: {name: 'plain', initialNodeCount: 1}})
    fake.finishOperations()

    const [betaPool] = await beta.getNodePool({name: `${cluster}/nodePools/np`})
    // `_maintenanceInterval` is the library's marker of an optional field it decoded.
    expect(betaPool.config?.hostMaintenancePolicy).toMatchObject(periodic)
    const [betaList] = await beta.listNodePools({parent: cluster})
    expect(
      betaList.nodePools?.map((p) => [p.name, p.config?.hostMaintenancePolicy?.maintenanceInterval ?? null]),
    ).toEqual([
      ['np', 'PERIODIC'],
      ['plain', null],
    ])
    const [v1Pool] = await client.getNodePool({name: `${cluster}/nodePools/np`})
    expect(v1Pool.config?.machineType).toBe('ct5p-hightpu-4t')
    expect(v1Pool.config).not.toHaveProperty('hostMaintenancePolicy')
    const [v1List] = await client.listNodePools({parent: cluster})
    expect(v1List.nodePools?.some((p) => p.config && 'hostMaintenancePolicy' in p.config)).toBe(false)
    expect(fake.nodePool('p', 'us-central2', 'c', 'np')?.config).toMatchObject({hostMaintenancePolicy: periodic})

    expect(fake.calls.map((c) => [c.method, c.api ?? 'v1'])).toEqual([
      ['CreateNodePool', 'v1beta1'],
      ['CreateNodePool', 'v1'],
      ['GetNodePool', 'v1beta1'],
      ['ListNodePools', 'v1beta1'],
      ['GetNodePool', 'v1'],
      ['ListNodePools', 'v1'],
    ])
    expect(fake.mutatingCalls().map((c) => c.method)).toEqual(['CreateNodePool', 'CreateNodePool'])
  })

  it('serves no other v1beta1 method: 404, not logged', async () => {
    fake.seedCluster({project: 'p', location: 'us-central2', name: 'c'})
    const other = await beta.getCluster({name: cluster}, {retry: null}).catch((e: unknown) => e)
    expect(other).toMatchObject({code: 5, message: expect.stringContaining('was not found on this server')})
    expect(fake.calls).toEqual([])
  })
})
