import * as grpc from '@grpc/grpc-js'
import type {ClusterManagerClient} from '@google-cloud/container'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {FakeGke, gkeErrors} from './fake-gke.js'
import {gkeClientFor} from './gke-client.js'

const P = 'p1'
const L = 'us-central1'
const parent = `projects/${P}/locations/${L}`
const clusterPath = (c: string) => `${parent}/clusters/${c}`
const poolPath = (c: string, np: string) => `${clusterPath(c)}/nodePools/${np}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let fake: FakeGke
let client: ClusterManagerClient

beforeAll(async () => {
  fake = await FakeGke.start({operationMs: 20})
  client = gkeClientFor(fake)
})

afterAll(async () => {
  await client.close()
  await fake.stop()
})

beforeEach(() => fake.reset())

async function waitDone(name: string) {
  for (;;) {
    const [op] = await client.getOperation({name})
    if (op.status === 'DONE') return op
    await sleep(5)
  }
}

async function createPool(cluster: string, nodePool: Record<string, unknown>) {
  const [op] = await client.createNodePool({parent: clusterPath(cluster), nodePool})
  return op
}

describe('FakeGke clusters', () => {
  it('creates a cluster that is PROVISIONING until its operation is DONE, then RUNNING', async () => {
    // Long enough that the reads below land while the operation runs, even on a loaded machine.
    fake.settings.operationMsByType.CREATE_CLUSTER = 300
    const [op] = await client.createCluster({
      parent,
      cluster: {name: 'c1', initialNodeCount: 2, releaseChannel: {channel: 'RAPID'}, resourceLabels: {team: 'ml'}},
    })
    expect(op).toMatchObject({
      name: `${parent}/operations/operation-1`,
      operationType: 'CREATE_CLUSTER',
      status: 'RUNNING',
      location: L,
      targetLink: `https://container.googleapis.com/v1/${clusterPath('c1')}`,
      selfLink: `https://container.googleapis.com/v1/${op.name}`,
      endTime: '',
    })
    expect(Date.parse(op.startTime!)).not.toBeNaN()
    const [during] = await client.getCluster({name: clusterPath('c1')})
    expect(during.status).toBe('PROVISIONING')

    const done = await waitDone(op.name!)
    expect(done.error).toBeNull()
    expect(Date.parse(done.endTime!)).toBeGreaterThanOrEqual(Date.parse(done.startTime!))
    const [cluster] = await client.getCluster({name: clusterPath('c1')})
    expect(cluster).toMatchObject({
      name: 'c1',
      status: 'RUNNING',
      location: L,
      locations: ['us-central1-a', 'us-central1-b', 'us-central1-c'],
      currentMasterVersion: '1.35.1-gke.1000000',
      resourceLabels: {team: 'ml'},
      endpoint: '127.0.0.1',
      currentNodeCount: 6,
    })
    expect(cluster.nodePools!.map((p) => [p.name, p.status, p.initialNodeCount])).toEqual([
      ['default-pool', 'RUNNING', 2],
    ])
  })

  it('rejects bad names, duplicates and unknown versions without creating anything', async () => {
    await expect(
      client.createCluster({parent, cluster: {name: 'Bad_Name', initialNodeCount: 1}}),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringContaining('must start with a letter'),
    })
    await expect(
      client.createCluster({parent, cluster: {name: 'c1', initialNodeCount: 1, initialClusterVersion: '1.20'}}),
    ).rejects.toMatchObject({code: grpc.status.INVALID_ARGUMENT, details: 'Master version "1.20" is unsupported.'})
    expect(fake.clusterList()).toEqual([])

    fake.seedCluster({project: P, location: L, name: 'c1'})
    await expect(client.createCluster({parent, cluster: {name: 'c1', initialNodeCount: 1}})).rejects.toMatchObject({
      code: grpc.status.ALREADY_EXISTS,
    })
    await expect(client.getCluster({name: clusterPath('nope')})).rejects.toMatchObject({code: grpc.status.NOT_FOUND})
  })

  it('lists clusters across all locations with "-" and filters by one location and project', async () => {
    fake.seedCluster({project: P, location: 'us-central1', name: 'a'})
    fake.seedCluster({project: P, location: 'europe-west4-b', name: 'b'})
    fake.seedCluster({project: 'other', location: 'us-central1', name: 'c'})
    const [all] = await client.listClusters({parent: `projects/${P}/locations/-`})
    expect(all.clusters!.map((c) => c.name).sort()).toEqual(['a', 'b'])
    const [one] = await client.listClusters({parent: `projects/${P}/locations/europe-west4-b`})
    expect(one.clusters!.map((c) => [c.name, c.locations])).toEqual([['b', ['europe-west4-b']]])
  })

  it('deletes a cluster: STOPPING, then gone; a second delete meanwhile is refused', async () => {
    fake.seedCluster({project: P, location: L, name: 'c1', nodePools: [{name: 'np1', initialNodeCount: 1}]})
    fake.settings.operationMs = Infinity
    const [op] = await client.deleteCluster({name: clusterPath('c1')})
    expect(op.operationType).toBe('DELETE_CLUSTER')
    expect(fake.cluster(P, L, 'c1')?.status).toBe('STOPPING')
    expect(fake.nodePool(P, L, 'c1', 'np1')?.status).toBe('STOPPING')
    await expect(client.deleteCluster({name: clusterPath('c1')})).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
      details: expect.stringMatching(/^Operation operation-1 is currently deleting cluster c1\./),
    })
    fake.finishOperations()
    await waitDone(op.name!)
    await expect(client.getCluster({name: clusterPath('c1')})).rejects.toMatchObject({code: grpc.status.NOT_FOUND})
  })

  it('aborts running node pool operations when their cluster is deleted', async () => {
    fake.seedCluster({project: P, location: L, name: 'c1'})
    fake.settings.operationMs = Infinity
    const poolOp = await createPool('c1', {name: 'np1', initialNodeCount: 1})
    await client.deleteCluster({name: clusterPath('c1')})
    const [aborted] = await client.getOperation({name: poolOp.name})
    expect(aborted.status).toBe('DONE')
    expect(aborted.error?.code).toBe(grpc.status.ABORTED)
    fake.finishOperations()
    expect(fake.cluster(P, L, 'c1')).toBeUndefined()
  })
})

describe('FakeGke labels (SetLabels with labelFingerprint)', () => {
  it('replaces the labels only with the current fingerprint; a stale one is FAILED_PRECONDITION and changes nothing', async () => {
    fake.seedCluster({project: P, location: L, name: 'c1', fields: {resourceLabels: {team: 'ml'}}})
    const [before] = await client.getCluster({name: clusterPath('c1')})
    expect(before.resourceLabels).toEqual({team: 'ml'})
    expect(before.labelFingerprint).toMatch(/^[0-9a-f]{8}$/)
    const [op] = await client.setLabels({
      name: clusterPath('c1'),
      resourceLabels: {team: 'ml', owner: 'alice'},
      labelFingerprint: before.labelFingerprint,
    })
    expect(op).toMatchObject({operationType: 'SET_LABELS', status: 'RUNNING'})
    // The labels are changed as soon as the RPC is answered.
    const [after] = await client.getCluster({name: clusterPath('c1')})
    expect(after.resourceLabels).toEqual({team: 'ml', owner: 'alice'})
    expect(after.labelFingerprint).not.toBe(before.labelFingerprint)
    expect(after.status).toBe('RUNNING')
    const stale = await client
      .setLabels({name: clusterPath('c1'), resourceLabels: {}, labelFingerprint: before.labelFingerprint})
      .catch((e: grpc.ServiceError) => e)
    expect((stale as grpc.ServiceError).code).toBe(grpc.status.FAILED_PRECONDITION)
    expect((stale as grpc.ServiceError).details).toBe(
      `Labels could not be set due to fingerprint mismatch; try again with the proper fingerprint: incorrect fingerprint supplied was "${before.labelFingerprint}", the expected one is "${after.labelFingerprint}".`,
    )
    const missing = await client
      .setLabels({name: clusterPath('c1'), resourceLabels: {}})
      .catch((e: grpc.ServiceError) => e)
    expect((missing as grpc.ServiceError).code).toBe(grpc.status.FAILED_PRECONDITION)
    expect(fake.cluster(P, L, 'c1')!.resourceLabels).toEqual({team: 'ml', owner: 'alice'})
    expect((await waitDone(op.name!)).error).toBeFalsy()
  })

  it('fingerprints are of the content: labels put back as they were have the old fingerprint again', async () => {
    fake.seedCluster({project: P, location: L, name: 'c1', fields: {resourceLabels: {a: '1'}}})
    const first = fake.cluster(P, L, 'c1')!.labelFingerprint!
    await client.setLabels({name: clusterPath('c1'), resourceLabels: {a: '2'}, labelFingerprint: first})
    const second = fake.cluster(P, L, 'c1')!.labelFingerprint!
    await client.setLabels({name: clusterPath('c1'), resourceLabels: {a: '1'}, labelFingerprint: second})
    expect(fake.cluster(P, L, 'c1')!.labelFingerprint).toBe(first)
  })

  it('a created cluster has the labels it was created with; bad keys or values are INVALID_ARGUMENT', async () => {
    await client.createCluster({parent, cluster: {name: 'c2', initialNodeCount: 1, resourceLabels: {lock: 'x1'}}})
    const created = fake.cluster(P, L, 'c2')!
    expect(created.resourceLabels).toEqual({lock: 'x1'})
    expect(created.labelFingerprint).toMatch(/^[0-9a-f]{8}$/)
    // Refused while the cluster is being created, as node-pool work is.
    const busy = await client
      .setLabels({name: clusterPath('c2'), resourceLabels: {}, labelFingerprint: created.labelFingerprint})
      .catch((e: grpc.ServiceError) => e)
    expect((busy as grpc.ServiceError).code).toBe(grpc.status.FAILED_PRECONDITION)
    expect((busy as grpc.ServiceError).details).toMatch(/incompatible operation/)
    await fake.settled()
    for (const labels of [{Upper: 'x'}, {ok: 'Not Allowed'}, {'9key': 'x'}] as Record<string, string>[]) {
      const bad = await client
        .setLabels({name: clusterPath('c2'), resourceLabels: labels, labelFingerprint: created.labelFingerprint})
        .catch((e: grpc.ServiceError) => e)
      expect((bad as grpc.ServiceError).code).toBe(grpc.status.INVALID_ARGUMENT)
    }
    expect(fake.cluster(P, L, 'c2')!.resourceLabels).toEqual({lock: 'x1'})
  })
})

describe('FakeGke node pools', () => {
  beforeEach(() => {
    fake.seedCluster({project: P, location: L, name: 'c1'})
  })

  it('stores and echoes back every node pool field the client sent', async () => {
    const nodePool = {
      name: 'tpu-np',
      initialNodeCount: 4,
      locations: ['us-central1-b'],
      version: '1.34',
      config: {
        machineType: 'ct5p-hightpu-4t',
        spot: true,
        labels: {'cloud.google.com/gke-nodepool': 'tpu-np', team: 'ml'},
        oauthScopes: ['https://www.googleapis.com/auth/cloud-platform'],
        gvnic: {enabled: true},
        reservationAffinity: {
          consumeReservationType: 'SPECIFIC_RESERVATION',
          key: 'compute.googleapis.com/reservation-name',
          values: ['res-1'],
        },
      },
      placementPolicy: {type: 'COMPACT', tpuTopology: '2x2x4', policyName: 'pp-1'},
      maxPodsConstraint: {maxPodsPerNode: 110},
      autoscaling: {enabled: true, minNodeCount: 0, maxNodeCount: 8},
      queuedProvisioning: {enabled: true},
      networkConfig: {enablePrivateNodes: true, podRange: 'pods-2'},
    }
    fake.settings.operationMs = Infinity
    const op = await createPool('c1', nodePool)
    expect(op).toMatchObject({
      operationType: 'CREATE_NODE_POOL',
      targetLink: expect.stringMatching(/nodePools\/tpu-np$/),
    })
    const [during] = await client.getNodePool({name: poolPath('c1', 'tpu-np')})
    expect(during.status).toBe('PROVISIONING')
    fake.finishOperations()
    await waitDone(op.name!)

    const [pool] = await client.getNodePool({name: poolPath('c1', 'tpu-np')})
    expect(pool).toMatchObject({
      ...nodePool,
      status: 'RUNNING',
      version: '1.34.5-gke.1200000',
      maxPodsConstraint: {maxPodsPerNode: '110'},
      selfLink: `https://container.googleapis.com/v1/${poolPath('c1', 'tpu-np')}`,
    })
    expect(pool.config).toMatchObject({...nodePool.config, diskSizeGb: 100})
    expect(fake.nodePool(P, L, 'c1', 'tpu-np')?.placementPolicy).toEqual(nodePool.placementPolicy)
    const [list] = await client.listNodePools({parent: clusterPath('c1')})
    expect(list.nodePools!.map((p) => p.name)).toEqual(['tpu-np'])
  })

  it('rejects a pool whose workload placement policy does not exist, asking with the full policy name', async () => {
    const asked: string[] = []
    fake.settings.placementPolicyExists = (policy) => {
      asked.push(policy)
      return policy.endsWith('/pp-ok')
    }
    await expect(
      createPool('c1', {name: 'np1', initialNodeCount: 1, placementPolicy: {policyName: 'pp-missing'}}),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringMatching(/"pp-missing" was not found/),
    })
    expect(fake.nodePool(P, L, 'c1', 'np1')).toBeUndefined()
    await createPool('c1', {name: 'np2', initialNodeCount: 1, placementPolicy: {policyName: 'pp-ok'}})
    await createPool('c1', {name: 'np3', initialNodeCount: 1, placementPolicy: {type: 'COMPACT'}})
    expect(asked).toEqual([
      `projects/${P}/regions/${L}/resourcePolicies/pp-missing`,
      `projects/${P}/regions/${L}/resourcePolicies/pp-ok`,
    ])
  })

  it('rejects a pool whose additional node network subnetwork does not exist, and keeps the configs of one that does', async () => {
    const asked: string[] = []
    fake.settings.subnetworkExists = (project, region, network, subnetwork) => {
      asked.push(`${project}/${region}/${network}/${subnetwork}`)
      return subnetwork === 'ok-sub'
    }
    const networkConfig = (subnetwork: string) => ({
      additionalNodeNetworkConfigs: [{network: 'net-1', subnetwork}],
    })
    await expect(
      createPool('c1', {name: 'np1', initialNodeCount: 1, networkConfig: networkConfig('gone-sub')}),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringMatching(/gone-sub" of network "net-1" not found/),
    })
    expect(fake.nodePool(P, L, 'c1', 'np1')).toBeUndefined()
    await createPool('c1', {name: 'np2', initialNodeCount: 1, networkConfig: networkConfig('ok-sub')})
    expect(fake.nodePool(P, L, 'c1', 'np2')?.networkConfig?.additionalNodeNetworkConfigs).toEqual([
      {network: 'net-1', subnetwork: 'ok-sub'},
    ])
    expect(asked).toEqual([`${P}/${L}/net-1/gone-sub`, `${P}/${L}/net-1/ok-sub`])
  })

  it('answers ALREADY_EXISTS and NOT_FOUND like GKE', async () => {
    await createPool('c1', {name: 'np1', initialNodeCount: 1})
    await expect(createPool('c1', {name: 'np1', initialNodeCount: 1})).rejects.toMatchObject({
      code: grpc.status.ALREADY_EXISTS,
      details: `Already exists: ${poolPath('c1', 'np1')}.`,
    })
    await expect(createPool('missing', {name: 'np1'})).rejects.toMatchObject({code: grpc.status.NOT_FOUND})
    await expect(client.getNodePool({name: poolPath('c1', 'nope')})).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    })
    await expect(client.deleteNodePool({name: poolPath('c1', 'nope')})).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
      details: `Not found: ${poolPath('c1', 'nope')}.`,
    })
    await expect(createPool('c1', {name: 'x'.repeat(41)})).rejects.toMatchObject({code: grpc.status.INVALID_ARGUMENT})
  })

  it('refuses node pool work while the cluster is being created or is not RUNNING', async () => {
    fake.settings.operationMs = Infinity
    const [op] = await client.createCluster({parent, cluster: {name: 'c2', initialNodeCount: 1}})
    await expect(createPool('c2', {name: 'np1'})).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
      details: `Cluster is running incompatible operation ${op.name!.split('/').pop()}.`,
    })
    fake.finishOperations()
    await waitDone(op.name!)
    expect((await createPool('c2', {name: 'np1'})).status).toBe('RUNNING')

    fake.seedCluster({project: P, location: L, name: 'broken', status: 'ERROR'})
    await expect(createPool('broken', {name: 'np1'})).rejects.toMatchObject({code: grpc.status.FAILED_PRECONDITION})
  })

  it('enforces maxConcurrentOperationsPerCluster and refuses a second operation on the same pool', async () => {
    fake.settings.maxConcurrentOperationsPerCluster = 2
    fake.settings.operationMs = Infinity
    const results = await Promise.allSettled(['np1', 'np2', 'np3'].map((name) => createPool('c1', {name})))
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected'])
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
      details: 'Cluster is running incompatible operation operation-1.',
    })
    expect(fake.nodePool(P, L, 'c1', 'np3')).toBeUndefined()
    await expect(client.deleteNodePool({name: poolPath('c1', 'np1')})).rejects.toMatchObject({
      details: expect.stringMatching(/^Operation operation-1 is currently creating node pool np1\./),
    })
    // Another cluster has its own budget.
    fake.seedCluster({project: P, location: L, name: 'c2'})
    expect((await createPool('c2', {name: 'np1'})).status).toBe('RUNNING')

    fake.finishOperations((op) => op.name.includes('/operations/operation-1'))
    expect((await createPool('c1', {name: 'np3'})).status).toBe('RUNNING')
    await expect(createPool('c1', {name: 'np4'})).rejects.toMatchObject({code: grpc.status.FAILED_PRECONDITION})
  })

  it('resizes a pool: RECONCILING, then RUNNING with the new size', async () => {
    fake.seedNodePool(P, L, 'c1', {name: 'np1', initialNodeCount: 2})
    fake.settings.operationMs = Infinity
    const [op] = await client.setNodePoolSize({name: poolPath('c1', 'np1'), nodeCount: 5})
    expect(op.operationType).toBe('SET_NODE_POOL_SIZE')
    expect(fake.nodePool(P, L, 'c1', 'np1')?.status).toBe('RECONCILING')
    expect(fake.nodeCount(P, L, 'c1', 'np1')).toBe(2)
    fake.finishOperations()
    await waitDone(op.name!)
    expect(fake.nodePool(P, L, 'c1', 'np1')?.status).toBe('RUNNING')
    expect(fake.nodeCount(P, L, 'c1', 'np1')).toBe(5)
    await expect(client.setNodePoolSize({name: poolPath('c1', 'np1'), nodeCount: -1})).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    })
  })

  it('deletes a pool: STOPPING, then gone', async () => {
    fake.seedNodePool(P, L, 'c1', {name: 'np1', initialNodeCount: 1})
    fake.settings.operationMs = Infinity
    const [op] = await client.deleteNodePool({name: poolPath('c1', 'np1')})
    expect(op.operationType).toBe('DELETE_NODE_POOL')
    expect(fake.nodePool(P, L, 'c1', 'np1')?.status).toBe('STOPPING')
    fake.finishOperations()
    await waitDone(op.name!)
    await expect(client.getNodePool({name: poolPath('c1', 'np1')})).rejects.toMatchObject({code: grpc.status.NOT_FOUND})
    expect(fake.nodePools(P, L, 'c1')).toEqual([])
  })

  it('handles 64 concurrent pool creations with timers', async () => {
    fake.settings.operationMs = 300
    const started = Date.now()
    const ops = await Promise.all(Array.from({length: 64}, (_, i) => createPool('c1', {name: `np-${i}`})))
    expect(new Set(ops.map((op) => op.name)).size).toBe(64)
    await fake.settled()
    const elapsed = Date.now() - started
    expect(elapsed).toBeLessThan(3000)
    expect(fake.nodePools(P, L, 'c1').filter((p) => p.status === 'RUNNING')).toHaveLength(64)
  })
})

describe('FakeGke updates (UpdateCluster, UpdateNodePool)', () => {
  const WI = {desiredWorkloadIdentityConfig: {workloadPool: `${P}.svc.id.goog`}}

  it('applies one change per UpdateCluster, once DONE: addons merged, the workload pool set', async () => {
    fake.seedCluster({
      project: P,
      location: L,
      name: 'c1',
      fields: {addonsConfig: {gcePersistentDiskCsiDriverConfig: {enabled: true}}},
    })
    fake.settings.operationMs = Infinity
    const [op] = await client.updateCluster({
      name: clusterPath('c1'),
      update: {desiredAddonsConfig: {lustreCsiDriverConfig: {enabled: true, enableLegacyLustrePort: true}}},
    })
    expect(op).toMatchObject({operationType: 'UPDATE_CLUSTER', status: 'RUNNING'})
    expect(fake.cluster(P, L, 'c1')).toMatchObject({
      status: 'RECONCILING',
      addonsConfig: {gcePersistentDiskCsiDriverConfig: {enabled: true}},
    })
    expect(fake.cluster(P, L, 'c1')?.addonsConfig?.lustreCsiDriverConfig).toBeUndefined()
    fake.finishOperations()
    expect(fake.cluster(P, L, 'c1')).toMatchObject({
      status: 'RUNNING',
      addonsConfig: {
        gcePersistentDiskCsiDriverConfig: {enabled: true},
        lustreCsiDriverConfig: {enabled: true, enableLegacyLustrePort: true},
      },
    })
    await client.updateCluster({name: clusterPath('c1'), update: WI})
    fake.finishOperations()
    expect(fake.cluster(P, L, 'c1')?.workloadIdentityConfig).toEqual({workloadPool: `${P}.svc.id.goog`})
  })

  it.each([
    ['no field', {}, /this request has 0\.$/],
    ['two fields', {...WI, desiredAddonsConfig: {}}, /has 2: desiredAddonsConfig, desiredWorkloadIdentityConfig\.$/],
  ])('refuses an UpdateCluster with %s (INVALID_ARGUMENT), changing nothing', async (_, update, details) => {
    fake.seedCluster({project: P, location: L, name: 'c1'})
    await expect(client.updateCluster({name: clusterPath('c1'), update})).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringMatching(details),
    })
    expect(fake.operations()).toEqual([])
  })

  it('answers UNIMPLEMENTED for a ClusterUpdate field it does not model, and INVALID_ARGUMENT for a foreign pool', async () => {
    fake.seedCluster({project: P, location: L, name: 'c1'})
    await expect(
      client.updateCluster({name: clusterPath('c1'), update: {desiredNodeVersion: 'latest'}}),
    ).rejects.toMatchObject({code: grpc.status.UNIMPLEMENTED})
    await expect(
      client.updateCluster({
        name: clusterPath('c1'),
        update: {desiredWorkloadIdentityConfig: {workloadPool: 'p2.svc.id.goog'}},
      }),
    ).rejects.toMatchObject({code: grpc.status.INVALID_ARGUMENT, details: expect.stringContaining('"p1.svc.id.goog"')})
    expect(fake.operations()).toEqual([])
  })

  it('runs an UpdateCluster alone: not beside a pool operation, and nothing else (not even a delete) beside it', async () => {
    fake.seedCluster({project: P, location: L, name: 'c1', nodePools: [{name: 'np1', initialNodeCount: 1}]})
    fake.settings.operationMs = Infinity
    const poolOp = await createPool('c1', {name: 'np2', initialNodeCount: 1})
    await expect(client.updateCluster({name: clusterPath('c1'), update: WI})).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
      details: 'Cluster is running incompatible operation operation-1.',
    })
    fake.finishOperations()
    await waitDone(poolOp.name!)
    await client.updateCluster({name: clusterPath('c1'), update: WI})
    await expect(createPool('c1', {name: 'np3', initialNodeCount: 1})).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
      details: 'Cluster is running incompatible operation operation-2.',
    })
    await expect(client.deleteCluster({name: clusterPath('c1')})).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
      details: expect.stringMatching(/^Operation operation-2 is currently updating cluster c1\./),
    })
  })

  it('a failed update leaves the cluster in the status asked for and its pools as they were', async () => {
    fake.seedCluster({project: P, location: L, name: 'c1', nodePools: [{name: 'np1', initialNodeCount: 1}]})
    fake.failOperations({type: 'UPDATE_CLUSTER', code: grpc.status.INTERNAL, message: 'no', durationMs: 0})
    const [op] = await client.updateCluster({name: clusterPath('c1'), update: WI})
    await fake.settled()
    expect(fake.operation(op.name!)?.error).toMatchObject({code: grpc.status.INTERNAL})
    expect(fake.cluster(P, L, 'c1')).toMatchObject({status: 'ERROR', statusMessage: 'no'})
    expect(fake.cluster(P, L, 'c1')?.workloadIdentityConfig).toBeUndefined()
    expect(fake.nodePool(P, L, 'c1', 'np1')?.status).toBe('RUNNING')
  })

  it('GKE_METADATA needs Workload Identity; with it, pools get it by default and an UpdateNodePool switches one', async () => {
    fake.seedCluster({project: P, location: L, name: 'c1', nodePools: [{name: 'np1', initialNodeCount: 1}]})
    const gkeMetadata = {workloadMetadataConfig: {mode: 'GKE_METADATA' as const}}
    const refused = {
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringMatching(/Workload Identity is not enabled/),
    }
    await expect(client.updateNodePool({name: poolPath('c1', 'np1'), ...gkeMetadata})).rejects.toMatchObject(refused)
    await expect(createPool('c1', {name: 'np2', initialNodeCount: 1, config: gkeMetadata})).rejects.toMatchObject(
      refused,
    )
    await expect(
      client.createCluster({
        parent,
        cluster: {name: 'c2', nodePools: [{name: 'default-pool', initialNodeCount: 1, config: gkeMetadata}]},
      }),
    ).rejects.toMatchObject(refused)
    await waitDone((await client.updateCluster({name: clusterPath('c1'), update: WI}))[0].name!)
    expect(fake.nodePool(P, L, 'c1', 'np1')?.config?.workloadMetadataConfig).toBeUndefined()
    fake.settings.operationMs = Infinity
    const [op] = await client.updateNodePool({name: poolPath('c1', 'np1'), ...gkeMetadata})
    expect(op.operationType).toBe('UPGRADE_NODES')
    expect(fake.nodePool(P, L, 'c1', 'np1')?.status).toBe('RECONCILING')
    fake.finishOperations()
    expect(fake.nodePool(P, L, 'c1', 'np1')).toMatchObject({status: 'RUNNING', config: gkeMetadata})
    await createPool('c1', {name: 'np2', initialNodeCount: 1})
    expect(fake.nodePool(P, L, 'c1', 'np2')?.config).toMatchObject(gkeMetadata)
  })

  it('answers UNIMPLEMENTED for node-pool updates other than the workload metadata mode', async () => {
    fake.seedCluster({project: P, location: L, name: 'c1', nodePools: [{name: 'np1', initialNodeCount: 1}]})
    await expect(
      client.updateNodePool({name: poolPath('c1', 'np1'), nodeVersion: 'latest', imageType: 'COS_CONTAINERD'}),
    ).rejects.toMatchObject({code: grpc.status.UNIMPLEMENTED})
    expect(fake.operations()).toEqual([])
  })
})

describe('FakeGke fault injection', () => {
  beforeEach(() => {
    fake.seedCluster({project: P, location: L, name: 'c1'})
  })

  it('fails RPCs from fake.faults in order until consumed, then succeeds', async () => {
    fake.faults.push(
      {method: 'CreateNodePool', code: grpc.status.UNAVAILABLE, message: 'backend down', times: 2},
      {method: 'CreateNodePool', ...gkeErrors.quotaExceeded('TPU_V5P', L)},
    )
    await expect(createPool('c1', {name: 'np1'})).rejects.toMatchObject({code: 14, details: 'backend down'})
    await expect(createPool('c1', {name: 'np1'})).rejects.toMatchObject({code: 14})
    await expect(createPool('c1', {name: 'np1'})).rejects.toMatchObject({
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: expect.stringContaining("Quota 'TPU_V5P' exceeded"),
    })
    expect(fake.faults).toEqual([])
    expect((await createPool('c1', {name: 'np1'})).status).toBe('RUNNING')
    expect(fake.calls.map((c) => c.code)).toEqual([14, 14, 8, 0])
    // Failed RPCs change nothing.
    expect(fake.operations()).toHaveLength(1)
  })

  it('only applies faults whose match accepts the request', async () => {
    fake.faults.push({
      method: '*',
      code: grpc.status.PERMISSION_DENIED,
      match: (req) => (req.nodePool as {name?: string} | undefined)?.name === 'np2',
    })
    expect((await createPool('c1', {name: 'np1'})).status).toBe('RUNNING')
    await expect(createPool('c1', {name: 'np2'})).rejects.toMatchObject({code: grpc.status.PERMISSION_DENIED})
    expect(fake.nodePool(P, L, 'c1', 'np2')).toBeUndefined()
  })

  it('shows the client retrying reads on UNAVAILABLE, so one call becomes several RPCs', async () => {
    fake.faults.push({method: 'GetCluster', code: grpc.status.UNAVAILABLE, times: 2})
    const [cluster] = await client.getCluster({name: clusterPath('c1')})
    expect(cluster.name).toBe('c1')
    expect(fake.callCount('GetCluster')).toBe(3)
  })

  it('delays RPCs by rpcLatencyMs plus a fault delayMs', async () => {
    fake.settings.rpcLatencyMs = 30
    fake.faults.push({method: 'ListClusters', delayMs: 100})
    let started = Date.now()
    const [list] = await client.listClusters({parent: `projects/${P}/locations/-`})
    expect(Date.now() - started).toBeGreaterThanOrEqual(125)
    expect(list.clusters).toHaveLength(1)
    started = Date.now()
    await client.getCluster({name: clusterPath('c1')})
    expect(Date.now() - started).toBeGreaterThanOrEqual(25)
    expect(fake.calls.map((c) => c.code)).toEqual([0, 0])
  })

  it('afterApply applies the mutation and then loses the response', async () => {
    fake.settings.operationMs = Infinity
    fake.faults.push({method: 'CreateNodePool', code: grpc.status.DEADLINE_EXCEEDED, afterApply: true})
    await expect(createPool('c1', {name: 'np1'})).rejects.toMatchObject({code: grpc.status.DEADLINE_EXCEEDED})
    expect(fake.nodePool(P, L, 'c1', 'np1')?.status).toBe('PROVISIONING')
    await expect(createPool('c1', {name: 'np1'})).rejects.toMatchObject({code: grpc.status.ALREADY_EXISTS})
  })

  it('ends a stocked-out pool creation DONE with an error and the pool in ERROR', async () => {
    fake.failOperations({type: 'CREATE_NODE_POOL', match: (t) => t.nodePool === 'tpu', ...gkeErrors.stockout()})
    const bad = await createPool('c1', {name: 'tpu', locations: ['us-central1-b']})
    const good = await createPool('c1', {name: 'cpu'})
    const done = await waitDone(bad.name!)
    expect(done.error).toMatchObject({code: grpc.status.RESOURCE_EXHAUSTED})
    expect(done.error!.message).toContain(
      "The zone 'projects/p1/zones/us-central1-b' does not have enough resources available to fulfill the request. " +
        'Try a different zone, or try again later.',
    )
    expect(done.statusMessage).toBe(done.error!.message)
    expect((await waitDone(good.name!)).error).toBeNull()
    const [pool] = await client.getNodePool({name: poolPath('c1', 'tpu')})
    expect(pool).toMatchObject({status: 'ERROR', statusMessage: done.error!.message})
    expect(fake.nodePool(P, L, 'c1', 'cpu')?.status).toBe('RUNNING')
    expect(fake.operationFaults).toEqual([])
  })

  it('can fail any operation type, with a custom duration and resource status', async () => {
    fake.seedNodePool(P, L, 'c1', {name: 'np1', initialNodeCount: 1})
    fake.failOperations({
      type: 'SET_NODE_POOL_SIZE',
      code: grpc.status.INTERNAL,
      message: 'resize broke',
      durationMs: 0,
      resourceStatus: 'RUNNING',
    })
    const [op] = await client.setNodePoolSize({name: poolPath('c1', 'np1'), nodeCount: 3})
    await fake.settled()
    expect(fake.operation(op.name!)?.error).toMatchObject({code: grpc.status.INTERNAL, message: 'resize broke'})
    expect(fake.nodePool(P, L, 'c1', 'np1')?.status).toBe('RUNNING')
    expect(fake.nodeCount(P, L, 'c1', 'np1')).toBe(1)
  })
})

describe('FakeGke operations, call log and server config', () => {
  it('serves GetOperation by name and by the deprecated projectId/zone/operationId fields', async () => {
    // Long enough that the operation cannot finish between the two reads on a loaded machine.
    fake.settings.operationMs = 60_000
    fake.seedCluster({project: P, location: L, name: 'c1'})
    const op = await createPool('c1', {name: 'np1'})
    const [byName] = await client.getOperation({name: op.name})
    const [byFields] = await client.getOperation({projectId: P, zone: L, operationId: 'operation-1'})
    expect(byFields).toEqual(byName)
    await expect(client.getOperation({name: `${parent}/operations/operation-99`})).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    })
  })

  it('lists operations per location and cancels a running one', async () => {
    fake.settings.operationMs = Infinity
    fake.seedCluster({project: P, location: L, name: 'c1'})
    fake.seedCluster({project: P, location: 'us-east5', name: 'c2'})
    const op1 = await createPool('c1', {name: 'np1'})
    await client.createNodePool({parent: `projects/${P}/locations/us-east5/clusters/c2`, nodePool: {name: 'np1'}})
    const [here] = await client.listOperations({parent})
    expect(here.operations!.map((o) => o.name)).toEqual([op1.name])
    const [all] = await client.listOperations({parent: `projects/${P}/locations/-`})
    expect(all.operations).toHaveLength(2)

    await client.cancelOperation({name: op1.name})
    const [cancelled] = await client.getOperation({name: op1.name})
    expect(cancelled).toMatchObject({status: 'DONE', error: {code: grpc.status.CANCELLED}})
    await expect(client.cancelOperation({name: op1.name})).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
    })
    expect(fake.runningOperations()).toHaveLength(1)
  })

  it('records every RPC in order with its request and status code', async () => {
    fake.seedCluster({project: P, location: L, name: 'c1'})
    const before = Date.now()
    await client.listClusters({parent: `projects/${P}/locations/-`})
    const op = await createPool('c1', {name: 'np1', config: {machineType: 'n2-standard-8'}})
    await waitDone(op.name!)
    await expect(client.deleteNodePool({name: poolPath('c1', 'gone')})).rejects.toThrow()

    const methods = fake.calls.map((c) => c.method)
    expect(methods[0]).toBe('ListClusters')
    expect(methods[1]).toBe('CreateNodePool')
    expect(methods.at(-1)).toBe('DeleteNodePool')
    expect(methods.slice(2, -1).every((m) => m === 'GetOperation')).toBe(true)
    expect(fake.calls[1].request).toEqual({
      parent: clusterPath('c1'),
      nodePool: {name: 'np1', config: {machineType: 'n2-standard-8'}},
    })
    expect(fake.calls[0].at).toBeGreaterThanOrEqual(before)
    expect(fake.calls.every((c, i) => i === 0 || c.at >= fake.calls[i - 1].at)).toBe(true)
    expect(fake.mutatingCalls().map((c) => [c.method, c.code])).toEqual([
      ['CreateNodePool', 0],
      ['DeleteNodePool', grpc.status.NOT_FOUND],
    ])
    expect(fake.callCount()).toBe(methods.length)
    expect(fake.callCount('ListClusters')).toBe(1)
  })

  it('answers unimplemented RPCs with UNIMPLEMENTED and still logs them as mutating', async () => {
    await expect(client.setLegacyAbac({name: clusterPath('c1'), enabled: true})).rejects.toMatchObject({
      code: grpc.status.UNIMPLEMENTED,
    })
    expect(fake.mutatingCalls().map((c) => c.method)).toEqual(['SetLegacyAbac'])
  })

  it('returns a GetServerConfig with release channels and valid versions', async () => {
    const [config] = await client.getServerConfig({name: parent})
    expect(config.defaultClusterVersion).toBe('1.34.5-gke.1200000')
    expect(config.channels!.map((c) => [c.channel, c.defaultVersion])).toEqual([
      ['RAPID', '1.35.1-gke.1000000'],
      ['REGULAR', '1.34.5-gke.1200000'],
      ['STABLE', '1.33.8-gke.1300000'],
    ])
    for (const channel of config.channels!) {
      expect(channel.validVersions).toContain(channel.defaultVersion)
      for (const v of channel.validVersions!) expect(config.validMasterVersions).toContain(v)
    }
    expect(config.validNodeVersions!.length).toBeGreaterThan(0)
    expect(config.validMasterVersions![0]).toBe('1.35.1-gke.1000000')
    await expect(client.getServerConfig({name: `projects/${P}/locations/not a place`})).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    })
  })

  it('takes server versions from start options and uses them to resolve cluster versions', async () => {
    const custom = await FakeGke.start({
      operationMs: 0,
      serverConfig: {
        channels: {
          RAPID: {defaultVersion: '1.40.0-gke.1', validVersions: ['1.40.0-gke.1']},
          REGULAR: {defaultVersion: '1.39.2-gke.5', validVersions: ['1.39.2-gke.5', '1.39.1-gke.3']},
          STABLE: {defaultVersion: '1.38.0-gke.9', validVersions: ['1.38.0-gke.9']},
        },
      },
    })
    const customClient = gkeClientFor(custom)
    try {
      const [config] = await customClient.getServerConfig({name: 'projects/p1/locations/us-east5'})
      expect(config.defaultClusterVersion).toBe('1.39.2-gke.5')
      expect(config.validMasterVersions).toEqual(['1.40.0-gke.1', '1.39.2-gke.5', '1.39.1-gke.3', '1.38.0-gke.9'])
      await customClient.createCluster({
        parent: 'projects/p1/locations/us-east5',
        cluster: {name: 'c1', initialNodeCount: 1, initialClusterVersion: '1.39'},
      })
      expect(custom.cluster('p1', 'us-east5', 'c1')?.currentMasterVersion).toBe('1.39.2-gke.5')
    } finally {
      await customClient.close()
      await custom.stop()
    }
  })

  it('seeds state directly and hands out snapshots that do not alias it', async () => {
    const seeded = fake.seedCluster({
      project: P,
      location: 'us-east5-a',
      name: 'c1',
      nodePools: [{name: 'np1', initialNodeCount: 3, config: {machineType: 'ct6e-standard-4t'}}],
      fields: {resourceLabels: {owner: 'me'}},
    })
    expect(seeded).toMatchObject({status: 'RUNNING', locations: ['us-east5-a'], currentNodeCount: 3})
    const snapshot = fake.nodePool(P, 'us-east5-a', 'c1', 'np1')!
    snapshot.status = 'ERROR'
    expect(fake.nodePool(P, 'us-east5-a', 'c1', 'np1')?.status).toBe('RUNNING')
    const [viaApi] = await client.getCluster({name: `projects/${P}/locations/us-east5-a/clusters/c1`})
    expect(viaApi.resourceLabels).toEqual({owner: 'me'})
    expect(viaApi.nodePools![0].config!.machineType).toBe('ct6e-standard-4t')
    expect(fake.calls.map((c) => c.method)).toEqual(['GetCluster'])
  })
})
