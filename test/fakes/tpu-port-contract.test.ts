// The TPU port as the vm services rely on it, run the same way against the in-memory fake (MemoryTpu, which the
// service tests use) and against the real adapter talking to the wire-level fake (FakeTpu, over REST), so the two
// cannot drift apart: names and slices of a queued resource, its way to ACTIVE or FAILED, the nodes it makes, the
// metadata update and its operation, deletes with and without force, TPU VMs created and deleted directly (and
// their creation failing for lack of capacity), preemption and the other interruptions, what "missing" looks like,
// the classified errors, and that another zone sees none of it.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createTpuClient} from '../../src/adapters/tpu-api.js'
import {ApiError} from '../../src/core/errors.js'
import {tpuApiError} from '../../src/core/vm/tpu-errors.js'
import type {
  NodeRequest,
  QueuedResourceRequest,
  QueuedResourceState,
  TpuClient,
  TpuLocation,
  TpuOperation,
} from '../../src/ports/tpu.js'
import {FakeTpu} from './fake-tpu.js'
import {MemoryTpu} from './memory-tpu.js'

const LOC: TpuLocation = {project: 'p', zone: 'us-central2-b'}
const ELSEWHERE: TpuLocation = {project: 'p', zone: 'us-east5-a'}

type Mutating = 'createQueuedResource' | 'deleteQueuedResource' | 'setNodeMetadata' | 'createNode' | 'deleteNode'
type Interruption = 'PREEMPTED' | 'TERMINATED' | 'STOPPED'
type Method = keyof Omit<TpuClient, 'close'>

interface Subject {
  readonly tpu: TpuClient
  /** Adds a READY node of `type` outside any queued resource. */
  seedNode(id: string, type: string, metadata?: Record<string, string>): void
  /** The queued resource to be created with this id ends FAILED for lack of capacity. */
  failProvisioning(id: string): void
  /** The node to be created directly with this id finds no capacity: its operation ends with the error. */
  failNodeCreation(id: string): void
  /** The node is preempted, terminated or stopped now (the fakes' preempt, terminate, stopNode). */
  interrupt(id: string, state: Interruption): void
  /** The next call of `method` fails as the API fails when it is briefly unavailable. */
  failNext(method: Method): void
  /** The mutating calls that reached the fake, by port method, in order. */
  mutations(): Mutating[]
  stop(): Promise<void>
}

const RPC: Record<Method, string> = {
  listNodes: 'ListNodes',
  getNode: 'GetNode',
  createNode: 'CreateNode',
  deleteNode: 'DeleteNode',
  listQueuedResources: 'ListQueuedResources',
  getQueuedResource: 'GetQueuedResource',
  createQueuedResource: 'CreateQueuedResource',
  deleteQueuedResource: 'DeleteQueuedResource',
  setNodeMetadata: 'UpdateNode',
  getOperation: 'GetOperation',
}
const MUTATING: readonly Mutating[] = [
  'createQueuedResource',
  'deleteQueuedResource',
  'setNodeMetadata',
  'createNode',
  'deleteNode',
]

const subjects: ReadonlyArray<[string, () => Promise<Subject>]> = [
  [
    'MemoryTpu',
    async () => {
      const tpu = new MemoryTpu(LOC)
      return {
        tpu,
        seedNode: (id, type, metadata = {}) => {
          tpu.addNode(id, type)
          tpu.nodes.set(id, {...tpu.nodes.get(id)!, metadata})
        },
        failProvisioning: (id) => void tpu.scripts.set(id, ['ACCEPTED', 'PROVISIONING', 'FAILED']),
        failNodeCreation: (id) => tpu.failNodeCreation(id),
        interrupt: (id, state) =>
          ({PREEMPTED: () => tpu.preempt(id), TERMINATED: () => tpu.terminate(id), STOPPED: () => tpu.stopNode(id)})[
            state
          ](),
        failNext: (method) =>
          tpu.failures.set(method, [
            tpuApiError({code: 14, message: 'try later'}, {action: 'do it', project: LOC.project, zone: LOC.zone}),
          ]),
        mutations: () => tpu.log.filter((m): m is Mutating => MUTATING.includes(m as Mutating)),
        stop: async () => {},
      }
    },
  ],
  [
    'the adapter against FakeTpu',
    async () => {
      const fake = await FakeTpu.start({stepMs: 2, deleteMs: 500, updateMs: 2})
      const tpu = await createTpuClient({endpoint: `http://${fake.endpoint}`})
      const byRpc = Object.fromEntries(Object.entries(RPC).map(([method, rpc]) => [rpc, method]))
      return {
        tpu,
        seedNode: (id, type, metadata = {}) =>
          void fake.seedNode(LOC.project, LOC.zone, id, {acceleratorType: type, metadata}),
        failProvisioning: (id) => fake.injectProvisioningFault({match: (created) => created === id}),
        failNodeCreation: (id) => fake.injectNodeCreationFault({match: (created) => created === id}),
        interrupt: (id, state) =>
          ({
            PREEMPTED: () => fake.preempt(LOC.project, LOC.zone, id),
            TERMINATED: () => fake.terminate(LOC.project, LOC.zone, id),
            STOPPED: () => fake.stopNode(LOC.project, LOC.zone, id),
          })[state](),
        failNext: (method) => fake.injectFault({method: RPC[method], code: 14, message: 'try later'}),
        mutations: () => fake.mutatingCalls().map((c) => byRpc[c.method] as Mutating),
        stop: () => fake.stop(),
      }
    },
  ],
]

const request = (id: string, extra: Partial<QueuedResourceRequest> = {}): QueuedResourceRequest => ({
  id,
  nodePrefix: id,
  numSlices: 1,
  acceleratorType: 'v4-16',
  runtimeVersion: 'tpu-ubuntu2204-base',
  capacity: 'on-demand',
  ...extra,
})

const nodeRequest = (id: string, extra: Partial<NodeRequest> = {}): NodeRequest => ({
  id,
  acceleratorType: 'v4-16',
  runtimeVersion: 'tpu-ubuntu2204-base',
  capacity: 'spot',
  ...extra,
})

/** Reads an operation until it is done. */
async function finished(tpu: TpuClient, op: TpuOperation): Promise<TpuOperation> {
  let current = op
  for (let read = 0; !current.done && read < 400; read++) {
    await new Promise((resolve) => setTimeout(resolve, 2))
    current = await tpu.getOperation(op.name)
  }
  return current
}

/** Reads a node until it is gone; the states seen on the way. */
async function readUntilGone(tpu: TpuClient, id: string): Promise<string[]> {
  const seen: string[] = []
  for (let read = 0; read < 400; read++) {
    const state = (await tpu.getNode(LOC, id))?.state
    if (state === undefined) return seen
    if (seen.at(-1) !== state) seen.push(state)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  throw new Error(`${id} never went; seen ${seen.join(', ')}`)
}

/** Reads a queued resource until it is in `final` (or gone, for undefined); the states seen on the way. */
async function readUntil(tpu: TpuClient, id: string, final: QueuedResourceState | undefined): Promise<string[]> {
  const seen: string[] = []
  for (let read = 0; read < 400; read++) {
    const state = (await tpu.getQueuedResource(LOC, id))?.state
    if (seen.at(-1) !== state) seen.push(state ?? 'gone')
    if (state === final) return seen
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  throw new Error(`${id} never reached ${final ?? 'gone'}; seen ${seen.join(', ')}`)
}

/** The error a call rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(outcome).toBeInstanceOf(ApiError)
  return outcome as ApiError
}

const classified = (e: ApiError) => ({kind: e.kind, status: e.status, retryable: e.retryable, exitCode: e.exitCode})

describe.each(subjects)('the TPU port: %s', (_, make) => {
  let subject: Subject
  let tpu: TpuClient
  beforeAll(async () => {
    subject = await make()
    tpu = subject.tpu
  })
  afterAll(async () => {
    await tpu?.close()
    await subject?.stop()
  })

  it('names the nodes of one slice after the prefix and of N slices P-0 ... P-(N-1), and keeps the request', async () => {
    await tpu.createQueuedResource(LOC, request('one', {capacity: 'spot'}))
    await tpu.createQueuedResource(LOC, request('many', {numSlices: 3, nodePrefix: 'pre', capacity: 'reserved'}))
    expect(await tpu.getQueuedResource(LOC, 'one')).toMatchObject({
      id: 'one',
      nodeIds: ['one'],
      acceleratorType: 'v4-16',
      runtimeVersion: 'tpu-ubuntu2204-base',
      capacity: 'spot',
    })
    expect(await tpu.getQueuedResource(LOC, 'many')).toMatchObject({
      id: 'many',
      nodeIds: ['pre-0', 'pre-1', 'pre-2'],
      capacity: 'reserved',
    })
    expect((await tpu.listQueuedResources(LOC)).map((q) => q.id).sort()).toEqual(['many', 'one'])
  })

  it('goes to ACTIVE in order, and then lists READY nodes of the queued resource with a worker per VM', async () => {
    await tpu.createQueuedResource(LOC, request('up', {numSlices: 2}))
    const seen = await readUntil(tpu, 'up', 'ACTIVE')
    const order = ['CREATING', 'ACCEPTED', 'WAITING_FOR_RESOURCES', 'PROVISIONING', 'ACTIVE']
    expect(seen.map((s) => order.indexOf(s))).toEqual([...seen.map((s) => order.indexOf(s))].sort())
    expect(
      seen.every((s) => order.includes(s)),
      seen.join(),
    ).toBe(true)
    const nodes = (await tpu.listNodes(LOC)).filter((n) => n.queuedResource === 'up')
    expect(nodes.map((n) => [n.id, n.state, n.acceleratorType, n.workers.length])).toEqual([
      ['up-0', 'READY', 'v4-16', 2],
      ['up-1', 'READY', 'v4-16', 2],
    ])
    expect(await tpu.getNode(LOC, 'up-1')).toEqual(nodes[1])
  })

  it('ends FAILED with the failure, leaving no nodes, when there is no capacity', async () => {
    subject.failProvisioning('nocap')
    await tpu.createQueuedResource(LOC, request('nocap'))
    expect((await readUntil(tpu, 'nocap', 'FAILED')).at(-1)).toBe('FAILED')
    const failed = await tpu.getQueuedResource(LOC, 'nocap')
    expect(failed?.failure).toEqual({code: 8, message: expect.stringContaining('no more capacity')})
    expect(await tpu.getNode(LOC, 'nocap')).toBeUndefined()
    // A FAILED queued resource without nodes goes without force.
    await tpu.deleteQueuedResource(LOC, 'nocap', false)
    await readUntil(tpu, 'nocap', undefined)
  })

  it('refuses a queued resource or node name that exists, as a conflict, creating nothing', async () => {
    await tpu.createQueuedResource(LOC, request('dup'))
    const again = await rejection(tpu.createQueuedResource(LOC, request('dup', {acceleratorType: 'v4-8'})))
    expect(classified(again)).toEqual({kind: 'conflict', status: 'ALREADY_EXISTS', retryable: false, exitCode: 6})
    expect((await tpu.getQueuedResource(LOC, 'dup'))?.acceleratorType).toBe('v4-16')
    subject.seedNode('taken', 'v4-8')
    const node = await rejection(tpu.createQueuedResource(LOC, request('other', {nodePrefix: 'taken'})))
    expect(classified(node)).toMatchObject({kind: 'conflict', status: 'ALREADY_EXISTS'})
    expect(await tpu.getQueuedResource(LOC, 'other')).toBeUndefined()
  })

  it('refuses an id or an accelerator type the API does not take, as bad input', async () => {
    const id = await rejection(tpu.createQueuedResource(LOC, request('Bad_Id')))
    const type = await rejection(tpu.createQueuedResource(LOC, request('badtype', {acceleratorType: 'v9-8'})))
    for (const e of [id, type]) {
      expect(classified(e)).toEqual({kind: 'usage', status: 'INVALID_ARGUMENT', retryable: false, exitCode: 2})
    }
    expect(await tpu.getQueuedResource(LOC, 'badtype')).toBeUndefined()
  })

  it('replaces the metadata of a node through an operation that ends done', async () => {
    subject.seedNode('keyed', 'v4-8', {a: '1', 'ssh-keys': 'old:ssh-ed25519 AAAA old'})
    const op = await tpu.setNodeMetadata(LOC, 'keyed', {a: '1', 'ssh-keys': 'me:ssh-ed25519 BBBB me'})
    expect(op.name).toMatch(/^projects\/p\/locations\/us-central2-b\/operations\/[^/]+$/)
    let current = op
    for (let read = 0; !current.done && read < 400; read++) current = await tpu.getOperation(op.name)
    expect(current).toEqual({name: op.name, done: true})
    expect((await tpu.getNode(LOC, 'keyed'))?.metadata).toEqual({a: '1', 'ssh-keys': 'me:ssh-ed25519 BBBB me'})
  })

  it('deletes an ACTIVE queued resource only with force, and then it and its nodes are gone', async () => {
    await tpu.createQueuedResource(LOC, request('bye', {numSlices: 2}))
    await readUntil(tpu, 'bye', 'ACTIVE')
    const refused = await rejection(tpu.deleteQueuedResource(LOC, 'bye', false))
    expect(classified(refused)).toEqual({
      kind: 'conflict',
      status: 'FAILED_PRECONDITION',
      retryable: false,
      exitCode: 6,
    })
    expect((await tpu.getQueuedResource(LOC, 'bye'))?.state).toBe('ACTIVE')
    const op = await tpu.deleteQueuedResource(LOC, 'bye', true)
    expect(op.name).toMatch(/^projects\/p\/locations\/us-central2-b\/operations\/[^/]+$/)
    expect((await tpu.getQueuedResource(LOC, 'bye'))?.state).toBe('DELETING')
    await readUntil(tpu, 'bye', undefined)
    expect(await tpu.getNode(LOC, 'bye-0')).toBeUndefined()
    expect(await tpu.getNode(LOC, 'bye-1')).toBeUndefined()
  })

  it('reads what does not exist as undefined, and changes to it as not-found errors', async () => {
    expect(await tpu.getNode(LOC, 'absent')).toBeUndefined()
    expect(await tpu.getQueuedResource(LOC, 'absent')).toBeUndefined()
    const notFound = {kind: 'not-found', status: 'NOT_FOUND', retryable: false, exitCode: 4}
    expect(classified(await rejection(tpu.deleteQueuedResource(LOC, 'absent', true)))).toEqual(notFound)
    expect(classified(await rejection(tpu.setNodeMetadata(LOC, 'absent', {})))).toEqual(notFound)
    const op = `projects/${LOC.project}/locations/${LOC.zone}/operations/operation-999999`
    expect(classified(await rejection(tpu.getOperation(op)))).toEqual(notFound)
  })

  it('creates a TPU VM directly: CREATING at once, READY with a worker per VM once its operation is done', async () => {
    const op = await tpu.createNode(
      LOC,
      nodeRequest('direct', {
        metadata: {a: '1'},
        startupScript: '#!/bin/bash\necho up',
        tags: ['ml'],
        labels: {j: 'x'},
      }),
    )
    expect(op.name).toMatch(/^projects\/p\/locations\/us-central2-b\/operations\/[^/]+$/)
    expect(['CREATING', 'READY']).toContain((await tpu.getNode(LOC, 'direct'))?.state)
    expect(await finished(tpu, op)).toEqual({name: op.name, done: true})
    const node = await tpu.getNode(LOC, 'direct')
    expect(node).toMatchObject({
      id: 'direct',
      state: 'READY',
      acceleratorType: 'v4-16',
      runtimeVersion: 'tpu-ubuntu2204-base',
      metadata: {a: '1', 'startup-script': '#!/bin/bash\necho up'},
    })
    expect(node?.queuedResource).toBeUndefined()
    expect(node?.workers).toHaveLength(2)
    expect((await tpu.listNodes(LOC)).map((n) => n.id)).toContain('direct')
  })

  it('refuses a node name that exists (conflict), and a bad id, type, tag or label (bad input), creating nothing', async () => {
    subject.seedNode('held', 'v4-8')
    const taken = await rejection(tpu.createNode(LOC, nodeRequest('held')))
    expect(classified(taken)).toEqual({kind: 'conflict', status: 'ALREADY_EXISTS', retryable: false, exitCode: 6})
    expect((await tpu.getNode(LOC, 'held'))?.acceleratorType).toBe('v4-8')
    const bad: NodeRequest[] = [
      nodeRequest('Bad_Node'),
      nodeRequest('badtype', {acceleratorType: 'v9-8'}),
      nodeRequest('badtag', {tags: ['Not A Tag']}),
      nodeRequest('badlabel', {labels: {Key: 'v'}}),
      nodeRequest('noversion', {runtimeVersion: ''}),
    ]
    for (const request of bad) {
      const error = await rejection(tpu.createNode(LOC, request))
      expect(classified(error), request.id).toEqual({
        kind: 'usage',
        status: 'INVALID_ARGUMENT',
        retryable: false,
        exitCode: 2,
      })
      expect(await tpu.getNode(LOC, request.id)).toBeUndefined()
    }
  })

  it('ends a creation without capacity with the operation error RESOURCE_EXHAUSTED, leaving no node', async () => {
    subject.failNodeCreation('nocapnode')
    const op = await tpu.createNode(LOC, nodeRequest('nocapnode'))
    const done = await finished(tpu, op)
    expect(done).toEqual({name: op.name, done: true, error: {code: 8, message: expect.stringContaining('capacity')}})
    expect(await readUntilGone(tpu, 'nocapnode')).not.toContain('READY')
    expect(await tpu.getNode(LOC, 'nocapnode')).toBeUndefined()
  })

  it('deletes a node: DELETING (a second delete is refused), then gone once its operation is done', async () => {
    subject.seedNode('doomed', 'v4-8')
    const op = await tpu.deleteNode(LOC, 'doomed')
    expect(op.name).toMatch(/^projects\/p\/locations\/us-central2-b\/operations\/[^/]+$/)
    const again = await rejection(tpu.deleteNode(LOC, 'doomed'))
    // "is being deleted": it ends by itself, so a retry may pass.
    expect(classified(again)).toEqual({kind: 'conflict', status: 'FAILED_PRECONDITION', retryable: true, exitCode: 6})
    expect((await tpu.getNode(LOC, 'doomed'))?.state).toBe('DELETING')
    expect((await finished(tpu, op)).done).toBe(true)
    expect(await readUntilGone(tpu, 'doomed')).not.toContain('READY')
    const missing = await rejection(tpu.deleteNode(LOC, 'doomed'))
    expect(classified(missing)).toEqual({kind: 'not-found', status: 'NOT_FOUND', retryable: false, exitCode: 4})
  })

  it('reads an interrupted node as PREEMPTED, TERMINATED or STOPPED; a preempted node suspends its queued resource', async () => {
    await tpu.createQueuedResource(LOC, request('spotq', {capacity: 'spot'}))
    await readUntil(tpu, 'spotq', 'ACTIVE')
    subject.interrupt('spotq', 'PREEMPTED')
    expect((await tpu.getNode(LOC, 'spotq'))?.state).toBe('PREEMPTED')
    expect((await tpu.getQueuedResource(LOC, 'spotq'))?.state).toBe('SUSPENDED')
    const states: Interruption[] = ['PREEMPTED', 'TERMINATED', 'STOPPED']
    for (const state of states) {
      const id = `lost-${state.toLowerCase()}`
      await finished(tpu, await tpu.createNode(LOC, nodeRequest(id)))
      subject.interrupt(id, state)
      expect((await tpu.getNode(LOC, id))?.state).toBe(state)
      expect((await tpu.listNodes(LOC)).find((n) => n.id === id)?.state).toBe(state)
    }
    // An interrupted node is deleted as any other, to be created again.
    await finished(tpu, await tpu.deleteNode(LOC, 'lost-preempted'))
    await readUntilGone(tpu, 'lost-preempted')
    await finished(tpu, await tpu.createNode(LOC, nodeRequest('lost-preempted')))
    expect((await tpu.getNode(LOC, 'lost-preempted'))?.state).toBe('READY')
  })

  it('shows nothing of this zone in another one', async () => {
    subject.seedNode('here', 'v4-8')
    expect((await tpu.listNodes(LOC)).map((n) => n.id)).toContain('here')
    expect(await tpu.listNodes(ELSEWHERE)).toEqual([])
    expect(await tpu.listQueuedResources(ELSEWHERE)).toEqual([])
    expect(await tpu.getNode(ELSEWHERE, 'here')).toBeUndefined()
    expect(await tpu.getQueuedResource(ELSEWHERE, 'one')).toBeUndefined()
  })

  it.each(Object.keys(RPC) as Method[])(
    'fails one %s as retryable when the API is briefly unavailable, and answers the next',
    async (method) => {
      subject.seedNode('flaky', 'v4-8')
      if (method === 'deleteNode') subject.seedNode('flaky-gone', 'v4-8')
      await tpu.createQueuedResource(LOC, request(`flaky-${method.toLowerCase()}`)).catch(() => undefined)
      const calls: Record<Method, () => Promise<unknown>> = {
        listNodes: () => tpu.listNodes(LOC),
        getNode: () => tpu.getNode(LOC, 'flaky'),
        createNode: () => tpu.createNode(LOC, nodeRequest(`made-${method.toLowerCase()}`)),
        deleteNode: () => tpu.deleteNode(LOC, 'flaky-gone'),
        listQueuedResources: () => tpu.listQueuedResources(LOC),
        getQueuedResource: () => tpu.getQueuedResource(LOC, 'one'),
        createQueuedResource: () => tpu.createQueuedResource(LOC, request(`again-${method.toLowerCase()}`)),
        deleteQueuedResource: () => tpu.deleteQueuedResource(LOC, `flaky-${method.toLowerCase()}`, true),
        setNodeMetadata: () => tpu.setNodeMetadata(LOC, 'flaky', {b: '2'}),
        getOperation: async () => tpu.getOperation((await tpu.setNodeMetadata(LOC, 'flaky', {c: '3'})).name),
      }
      subject.failNext(method)
      const before = subject.mutations().length
      const error = await rejection(calls[method]())
      expect(classified(error)).toEqual({kind: 'unavailable', status: 'UNAVAILABLE', retryable: true, exitCode: 7})
      // One call, one request: the port never retries by itself (getOperation's case also updated the metadata).
      const sent = MUTATING.includes(method as Mutating) || method === 'getOperation' ? 1 : 0
      expect(subject.mutations().length - before).toBe(sent)
      await calls[method]()
    },
  )

  it('counts every change it was sent, and nothing else', async () => {
    const before = subject.mutations()
    await tpu.listNodes(LOC)
    await tpu.listQueuedResources(LOC)
    await tpu.getQueuedResource(LOC, 'one')
    expect(subject.mutations()).toEqual(before)
    await tpu.createQueuedResource(LOC, request('counted'))
    await tpu.setNodeMetadata(LOC, 'here', {x: 'y'})
    await tpu.deleteQueuedResource(LOC, 'counted', true)
    await tpu.createNode(LOC, nodeRequest('counted-node'))
    await tpu.deleteNode(LOC, 'counted-node')
    expect(subject.mutations().slice(before.length)).toEqual([
      'createQueuedResource',
      'setNodeMetadata',
      'deleteQueuedResource',
      'createNode',
      'deleteNode',
    ])
  })
})
