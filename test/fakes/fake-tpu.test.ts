import * as grpc from '@grpc/grpc-js'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {createTpuClient} from '../../src/adapters/tpu-api.js'
import {ApiError} from '../../src/core/errors.js'
import type {TpuClient} from '../../src/ports/tpu.js'
import {FakeTpu, workersOf} from './fake-tpu.js'

const LOC = {project: 'p', zone: 'us-central2-b'}
let fake: FakeTpu
let client: TpuClient

const until = async (check: () => Promise<boolean>, ms = 3000) => {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached')
    await new Promise((r) => setTimeout(r, 5))
  }
}

const request = (id: string, numSlices = 1, extra = {}) => ({
  id,
  nodePrefix: id,
  numSlices,
  acceleratorType: 'v4-16',
  runtimeVersion: 'tpu-ubuntu2204-base',
  capacity: 'on-demand' as const,
  ...extra,
})

beforeAll(async () => {
  fake = await FakeTpu.start({stepMs: 10, deleteMs: 10})
  client = await createTpuClient({endpoint: `http://${fake.endpoint}`})
})
afterAll(async () => {
  await client.close()
  await fake.stop()
})
afterEach(() => {
  fake.calls.length = 0
})

describe('fake TPU API through the production client', () => {
  it('walks a multislice queued resource ACCEPTED -> PROVISIONING -> ACTIVE with READY nodes and endpoints', async () => {
    const op = await client.createQueuedResource(LOC, request('ms', 2))
    expect(op.name).toMatch(/^projects\/p\/locations\/us-central2-b\/operations\/operation-\d+$/)
    const seen = new Set<string>()
    await until(async () => {
      const qr = await client.getQueuedResource(LOC, 'ms')
      seen.add(qr!.state)
      return qr!.state === 'ACTIVE'
    })
    expect([...seen]).toContain('ACTIVE')
    const qr = await client.getQueuedResource(LOC, 'ms')
    expect(qr).toMatchObject({id: 'ms', nodeIds: ['ms-0', 'ms-1'], acceleratorType: 'v4-16', capacity: 'on-demand'})
    const nodes = (await client.listNodes(LOC)).filter((n) => n.queuedResource === 'ms')
    expect(nodes.map((n) => [n.id, n.state, n.workers.length])).toEqual([
      ['ms-0', 'READY', 2],
      ['ms-1', 'READY', 2],
    ])
    expect(nodes[1].workers[0]).toEqual({internalIp: '10.1.0.2'})
  })

  it('names a single slice after the prefix and stores capacity choices', async () => {
    await client.createQueuedResource(LOC, request('spotty', 1, {capacity: 'spot'}))
    await client.createQueuedResource(LOC, request('resv', 1, {capacity: 'reserved'}))
    await client.createQueuedResource(LOC, request('be', 1, {capacity: 'best-effort'}))
    expect((await client.getQueuedResource(LOC, 'spotty'))!).toMatchObject({nodeIds: ['spotty'], capacity: 'spot'})
    await until(async () => (await client.getQueuedResource(LOC, 'resv'))!.state === 'ACTIVE')
    expect((await client.getQueuedResource(LOC, 'resv'))!.capacity).toBe('reserved')
    expect((await client.getQueuedResource(LOC, 'be'))!.capacity).toBe('best-effort')
  })

  it('rejects a duplicate id with ALREADY_EXISTS and a bad type with INVALID_ARGUMENT, classified', async () => {
    await client.createQueuedResource(LOC, request('dup'))
    const dup = await client.createQueuedResource(LOC, request('dup')).catch((e: unknown) => e)
    expect(dup).toBeInstanceOf(ApiError)
    expect(dup).toMatchObject({kind: 'conflict', status: 'ALREADY_EXISTS'})
    const bad = await client.createQueuedResource(LOC, request('bad', 1, {acceleratorType: 'v9-8'})).catch((e) => e)
    expect(bad).toMatchObject({kind: 'usage', status: 'INVALID_ARGUMENT'})
  })

  it('reports a provisioning fault as FAILED with the error', async () => {
    fake.injectProvisioningFault({match: (id) => id === 'nocap'})
    await client.createQueuedResource(LOC, request('nocap'))
    await until(async () => (await client.getQueuedResource(LOC, 'nocap'))!.state === 'FAILED')
    const qr = await client.getQueuedResource(LOC, 'nocap')
    expect(qr!.failure).toEqual({
      code: grpc.status.RESOURCE_EXHAUSTED,
      message: 'There is no more capacity in the zone; you can try again later.',
    })
    expect(await client.getNode(LOC, 'nocap')).toBeUndefined()
  })

  it('deletes with force: DELETING, then the queued resource and its nodes are gone; without force it refuses', async () => {
    const held = await FakeTpu.start({stepMs: 5, deleteMs: Infinity})
    const c = await createTpuClient({endpoint: `http://${held.endpoint}`})
    try {
      await c.createQueuedResource(LOC, request('gone', 2))
      await until(async () => (await c.getQueuedResource(LOC, 'gone'))!.state === 'ACTIVE')
      const refused = await c.deleteQueuedResource(LOC, 'gone', false).catch((e) => e)
      expect(refused).toMatchObject({kind: 'conflict', status: 'FAILED_PRECONDITION'})
      const op = await c.deleteQueuedResource(LOC, 'gone', true)
      expect((await c.getQueuedResource(LOC, 'gone'))!.state).toBe('DELETING')
      expect((await c.getNode(LOC, 'gone-0'))!.state).toBe('DELETING')
      expect((await c.getOperation(op.name)).done).toBe(false)
      held.completeOperations()
      expect((await c.getOperation(op.name)).done).toBe(true)
      expect(await c.getQueuedResource(LOC, 'gone')).toBeUndefined()
      expect(await c.getNode(LOC, 'gone-1')).toBeUndefined()
    } finally {
      await c.close()
      await held.stop()
    }
  })

  it('updates metadata through UpdateNode and tells the test through onMetadata', async () => {
    const seen: [string, Record<string, string>][] = []
    const local = await FakeTpu.start({onMetadata: (id, m) => seen.push([id, m]), updateMs: 5})
    const c = await createTpuClient({endpoint: `http://${local.endpoint}`})
    try {
      local.seedNode('p', 'us-central2-b', 'seeded', {acceleratorType: 'v5litepod-16', metadata: {a: '1'}})
      expect((await c.getNode(LOC, 'seeded'))!.workers).toHaveLength(4)
      const op = await c.setNodeMetadata(LOC, 'seeded', {a: '1', 'ssh-keys': 'root:ssh-ed25519 AAAA root'})
      expect(op.done).toBe(false)
      await until(async () => (await c.getOperation(op.name)).done)
      expect((await c.getNode(LOC, 'seeded'))!.metadata).toEqual({a: '1', 'ssh-keys': 'root:ssh-ed25519 AAAA root'})
      expect(seen).toEqual([['seeded', {a: '1', 'ssh-keys': 'root:ssh-ed25519 AAAA root'}]])
      expect(local.calls.find((call) => call.method === 'UpdateNode')!.request.updateMask).toEqual({
        paths: ['metadata'],
      })
    } finally {
      await c.close()
      await local.stop()
    }
  })

  it('injects RPC faults, classified as retryable or not', async () => {
    fake.injectFault({method: 'ListNodes', code: grpc.status.UNAVAILABLE, message: 'try later'})
    const e = await client.listNodes(LOC).catch((err) => err)
    expect(e).toMatchObject({kind: 'unavailable', retryable: true})
    // The adapter does not retry on its own: exactly one ListNodes reached the server.
    expect(fake.calls.filter((c) => c.method === 'ListNodes')).toHaveLength(1)
    expect(await client.listNodes(LOC)).toBeInstanceOf(Array)
  })

  it('preempts a node on demand: PREEMPTED node, SUSPENDED queued resource', async () => {
    await client.createQueuedResource(LOC, request('pre'))
    await until(async () => (await client.getQueuedResource(LOC, 'pre'))!.state === 'ACTIVE')
    fake.preempt('p', 'us-central2-b', 'pre')
    expect((await client.getNode(LOC, 'pre'))!.state).toBe('PREEMPTED')
    expect((await client.getQueuedResource(LOC, 'pre'))!.state).toBe('SUSPENDED')
  })

  it('holds states with stepMs Infinity until advance(), and can wait for resources', async () => {
    const held = await FakeTpu.start({stepMs: Infinity, waitForResources: true})
    const c = await createTpuClient({endpoint: `http://${held.endpoint}`})
    try {
      await c.createQueuedResource(LOC, request('slow'))
      const states = [(await c.getQueuedResource(LOC, 'slow'))!.state]
      for (let i = 0; i < 3; i++) {
        held.advance('p', 'us-central2-b', 'slow')
        states.push((await c.getQueuedResource(LOC, 'slow'))!.state)
      }
      expect(states).toEqual(['ACCEPTED', 'WAITING_FOR_RESOURCES', 'PROVISIONING', 'ACTIVE'])
    } finally {
      await c.close()
      await held.stop()
    }
  })

  it('pages lists at pageSize with a next page token, which the client follows to the end', async () => {
    const paged = await FakeTpu.start({pageSize: 2})
    const c = await createTpuClient({endpoint: `http://${paged.endpoint}`})
    try {
      for (const id of ['n1', 'n2', 'n3', 'n4', 'n5'])
        paged.seedNode('p', 'us-central2-b', id, {acceleratorType: 'v4-8'})
      paged.seedNode('p', 'elsewhere', 'n6', {acceleratorType: 'v4-8'})
      expect((await c.listNodes(LOC)).map((n) => n.id)).toEqual(['n1', 'n2', 'n3', 'n4', 'n5'])
      const lists = paged.calls.filter((call) => call.method === 'ListNodes')
      expect(lists.map((call) => call.request.pageToken ?? null)).toEqual([
        null,
        expect.any(String),
        expect.any(String),
      ])
      await c.createQueuedResource(LOC, request('q1'))
      await c.createQueuedResource(LOC, request('q2'))
      await c.createQueuedResource(LOC, request('q3'))
      expect((await c.listQueuedResources(LOC)).map((q) => q.id)).toEqual(['q1', 'q2', 'q3'])
      expect(paged.calls.filter((call) => call.method === 'ListQueuedResources')).toHaveLength(2)
    } finally {
      await c.close()
      await paged.stop()
    }
  })

  it('creates a node directly: CREATING at once, READY with endpoints when its operation ends (held by stepMs Infinity)', async () => {
    const held = await FakeTpu.start({stepMs: Infinity, deleteMs: Infinity})
    const c = await createTpuClient({endpoint: `http://${held.endpoint}`})
    const request = {id: 'vm', acceleratorType: 'v4-32', runtimeVersion: 'v2-alpha', capacity: 'spot' as const}
    try {
      const op = await c.createNode(LOC, {...request, startupScript: 'echo hi', tags: ['ml']})
      expect(op.done).toBe(false)
      expect(held.node('p', 'us-central2-b', 'vm')).toMatchObject({
        state: 'CREATING',
        schedulingConfig: {spot: true},
        tags: ['ml'],
        metadata: {'startup-script': 'echo hi'},
        health: 'HEALTHY',
      })
      expect(held.node('p', 'us-central2-b', 'vm')?.queuedResource).toBeUndefined()
      held.completeOperations()
      expect(await c.getOperation(op.name)).toEqual({name: op.name, done: true})
      const node = await c.getNode(LOC, 'vm')
      expect([node?.state, node?.workers]).toEqual([
        'READY',
        [0, 1, 2, 3].map((w) => ({internalIp: `10.0.0.${w + 2}`})),
      ])
      const dup = await c.createNode(LOC, request).catch((e: unknown) => e)
      expect(dup).toMatchObject({kind: 'conflict', status: 'ALREADY_EXISTS'})
      const del = await c.deleteNode(LOC, 'vm')
      expect((await c.getNode(LOC, 'vm'))?.state).toBe('DELETING')
      held.completeOperations()
      expect((await c.getOperation(del.name)).done).toBe(true)
      expect(await c.getNode(LOC, 'vm')).toBeUndefined()
      // Deleted while CREATING: the creation's end does not bring it back.
      const again = await c.createNode(LOC, request)
      await c.deleteNode(LOC, 'vm')
      held.completeOperations()
      expect((await c.getOperation(again.name)).done).toBe(true)
      expect(await c.getNode(LOC, 'vm')).toBeUndefined()
    } finally {
      await c.close()
      await held.stop()
    }
  })

  it('ends a node creation with a fault: the operation carries the error, and the node is gone', async () => {
    fake.injectNodeCreationFault({match: (id) => id === 'nocapvm'})
    const op = await client.createNode(LOC, {
      id: 'nocapvm',
      acceleratorType: 'v4-8',
      runtimeVersion: 'v2-alpha',
      capacity: 'on-demand',
    })
    await until(async () => (await client.getOperation(op.name)).done)
    expect((await client.getOperation(op.name)).error).toEqual({
      code: grpc.status.RESOURCE_EXHAUSTED,
      message: 'There is no more capacity in the zone; you can try again later.',
    })
    expect(await client.getNode(LOC, 'nocapvm')).toBeUndefined()
  })

  it('refuses a node asking for both spot and preemptible scheduling, and bad tags or labels, as INVALID_ARGUMENT', async () => {
    const post = (id: string, node: object) =>
      fetch(`http://${fake.endpoint}/v2/projects/p/locations/us-central2-b/nodes?nodeId=${id}`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({acceleratorType: 'v4-8', runtimeVersion: 'v2-alpha', ...node}),
      }).then(async (r) => [r.status, ((await r.json()) as {error: {status: string; message: string}}).error])
    expect(await post('both', {schedulingConfig: {spot: true, preemptible: true}})).toEqual([
      400,
      expect.objectContaining({status: 'INVALID_ARGUMENT', message: expect.stringContaining('spot and preemptible')}),
    ])
    expect(await post('tagged', {tags: ['-bad']})).toEqual([400, expect.objectContaining({status: 'INVALID_ARGUMENT'})])
    expect(await post('labelled', {labels: {ok: 'Upper'}})).toEqual([
      400,
      expect.objectContaining({status: 'INVALID_ARGUMENT'}),
    ])
    expect(fake.nodes().map((n) => n.name.split('/').at(-1))).not.toContain('both')
  })

  it('preempts, terminates or stops a node created directly, leaving queued resources alone', async () => {
    for (const id of ['solo-p', 'solo-t', 'solo-s']) {
      await client.createNode(LOC, {id, acceleratorType: 'v4-8', runtimeVersion: 'v2-alpha', capacity: 'spot'})
    }
    await until(async () => (await client.getNode(LOC, 'solo-s'))!.state === 'READY')
    fake.preempt('p', 'us-central2-b', 'solo-p')
    fake.terminate('p', 'us-central2-b', 'solo-t')
    fake.stopNode('p', 'us-central2-b', 'solo-s')
    const states = (await client.listNodes(LOC)).filter((n) => n.id.startsWith('solo-')).map((n) => [n.id, n.state])
    expect(states).toEqual([
      ['solo-p', 'PREEMPTED'],
      ['solo-t', 'TERMINATED'],
      ['solo-s', 'STOPPED'],
    ])
    await client.createQueuedResource(LOC, request('qterm'))
    await until(async () => (await client.getQueuedResource(LOC, 'qterm'))!.state === 'ACTIVE')
    fake.terminate('p', 'us-central2-b', 'qterm')
    expect((await client.getNode(LOC, 'qterm'))!.state).toBe('TERMINATED')
    expect((await client.getQueuedResource(LOC, 'qterm'))!.state).toBe('ACTIVE')
    expect(() => fake.stopNode('p', 'us-central2-b', 'absent')).toThrow(/no node absent/)
  })

  it('counts workers per slice like the TPU API', () => {
    expect([workersOf('v4-8'), workersOf('v4-32'), workersOf('v5litepod-16'), workersOf('v6e-8')]).toEqual([1, 4, 4, 1])
  })
})
