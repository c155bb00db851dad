import {describe, expect, it} from 'vitest'

import {XpkError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/core/retry.js'
import type {VmApiDeps, VmTiming} from '../../src/services/vm-common.js'
import {createVms} from '../../src/services/vm-create.js'
import {deleteVms} from '../../src/services/vm-delete.js'
import {listVms} from '../../src/services/vm-list.js'
import {MemoryTpu, unavailable} from '../fakes/memory-tpu.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'

const timing: VmTiming = {
  operations: {initialMs: 100, maxMs: 1000, factor: 2, fastForMs: 0},
  retry: {...DEFAULT_RETRY_POLICY, backoff: {initialMs: 50, maxMs: 500, factor: 2}, attempts: 3},
}
const where = {project: 'p', zone: 'us-central2-b'}

function setup(answer: PromptAnswer = 'unexpected', signal = new AbortController().signal) {
  const tpu = new MemoryTpu()
  const console = new RecordingConsole(answer)
  const sleeps: number[] = []
  const deps: VmApiDeps = {
    tpu: async () => tpu,
    console,
    signal,
    sleep: async (ms) => {
      sleeps.push(ms)
      signal.throwIfAborted()
    },
    random: () => 0.5,
    now: () => 1000 * sleeps.length,
  }
  return {tpu, console, deps, sleeps}
}

const create = (extra = {}) => ({
  ...where,
  tpuPrefix: 'demo',
  tpuType: 'v4-16',
  numSlices: 2,
  capacity: 'on-demand' as const,
  async: false,
  timing,
  ...extra,
})

describe('vm create', () => {
  it('requests one queued resource, shows each state once, polls with growing waits and closes the client', async () => {
    const {tpu, console, deps, sleeps} = setup()
    tpu.script = ['ACCEPTED', 'WAITING_FOR_RESOURCES', 'WAITING_FOR_RESOURCES', 'PROVISIONING', 'ACTIVE']
    const result = await createVms(create(), deps)
    expect(result).toMatchObject({queuedResource: 'demo', state: 'ACTIVE', outcome: 'created'})
    expect(result.nodes.map((n) => n.id)).toEqual(['demo-0', 'demo-1'])
    // Once each, though WAITING_FOR_RESOURCES was read twice: without a terminal, one line per state.
    expect(console.printed('Waiting for queued resource demo')).toEqual([
      'demo  ACCEPTED  accepted, queued for capacity',
      'demo  WAITING_FOR_RESOURCES  waiting for capacity in the zone (this can take a while; Ctrl-C stops waiting, the request stays queued)',
      'demo  PROVISIONING  capacity found, the TPU VMs are being created',
      'demo  ACTIVE  the TPU VMs are ready',
    ])
    expect(console.boards[0].notes).toEqual([])
    expect(sleeps).toEqual([100, 200, 400, 800])
    expect(tpu.closed).toBe(1)
    expect(console.boards[0].closed).toBe(true)
  })

  it('retries transient failures with jittered backoff, then gives up after the attempts', async () => {
    const {tpu, deps, sleeps} = setup()
    tpu.failures.set('createQueuedResource', [unavailable()])
    await createVms(create({async: true}), deps)
    expect(sleeps).toEqual([38])
    const second = setup()
    second.tpu.failures.set('getQueuedResource', [unavailable(), unavailable(), unavailable()])
    await expect(createVms(create(), second.deps)).rejects.toMatchObject({kind: 'unavailable'})
    expect(second.tpu.log.filter((m) => m === 'getQueuedResource')).toHaveLength(3)
  })

  it('turns a FAILED request into a classified error with hints', async () => {
    const {tpu, deps} = setup()
    tpu.script = ['ACCEPTED', 'FAILED']
    const error = await createVms(create(), deps).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect(error).toMatchObject({kind: 'stockout'})
    expect((error as XpkError).hints.join(' ')).toContain('xpk vm delete')
  })

  it('refuses an existing queued resource with a different request, before creating anything', async () => {
    const {tpu, deps} = setup()
    await createVms(create({tpuType: 'v4-8', numSlices: 1, async: true}), deps)
    await expect(createVms(create(), deps)).rejects.toMatchObject({kind: 'conflict'})
    expect(tpu.log.filter((m) => m === 'createQueuedResource')).toHaveLength(1)
  })

  it('stops waiting on Ctrl-C (the signal) with the abort reason', async () => {
    const controller = new AbortController()
    const {tpu, deps} = setup('unexpected', controller.signal)
    tpu.script = ['ACCEPTED', 'WAITING_FOR_RESOURCES', 'WAITING_FOR_RESOURCES', 'ACTIVE']
    const interrupted = new XpkError('interrupted', 'Interrupted.')
    const sleep = deps.sleep
    const aborting: VmApiDeps = {
      ...deps,
      sleep: async (ms, signal) => {
        controller.abort(interrupted)
        return sleep(ms, signal)
      },
    }
    await expect(createVms(create(), aborting)).rejects.toBe(interrupted)
    expect(tpu.closed).toBe(1)
  })

  it('validates before connecting', async () => {
    const {tpu, deps} = setup()
    await expect(createVms(create({tpuType: 'v4-7', numSlices: 0}), deps)).rejects.toMatchObject({
      kind: 'usage',
      problems: [{flag: '--num-slices'}, {flag: '--tpu-type'}],
    })
    expect(tpu.log).toEqual([])
  })
})

describe('vm list and delete', () => {
  it('lists only the slices of a prefix and their queued resource', async () => {
    const {tpu, deps} = setup()
    await createVms(create(), deps)
    tpu.addNode('other', 'v4-8')
    tpu.addNode('demo-x', 'v4-8')
    const list = await listVms({...where, tpuPrefix: 'demo', timing}, deps)
    expect(list.nodes.map((n) => n.id)).toEqual(['demo-0', 'demo-1'])
    expect(list.queuedResources.map((q) => q.id)).toEqual(['demo'])
  })

  it('asks first; "no" deletes nothing; "yes" deletes and waits until gone', async () => {
    const no = setup('no')
    await createVms(create({async: true}), no.deps)
    await expect(deleteVms({...where, tpuPrefix: 'demo', async: false, timing}, no.deps)).rejects.toMatchObject({
      kind: 'declined',
    })
    expect(no.tpu.log).not.toContain('deleteQueuedResource')

    const yes = setup('yes')
    await createVms(create(), yes.deps)
    const result = await deleteVms({...where, tpuPrefix: 'demo', async: false, timing}, yes.deps)
    expect(result).toMatchObject({queuedResource: 'demo', outcome: 'deleted', nodes: ['demo-0', 'demo-1']})
    expect(yes.console.questions.map((q) => [q.code, q.data?.nodes])).toEqual([
      ['vm.delete.confirm', ['demo-0', 'demo-1']],
    ])
    expect(yes.tpu.queued.has('demo')).toBe(false)
    // DELETING was read on several polls: without a terminal, it is printed once.
    expect(yes.tpu.log.filter((m) => m === 'getQueuedResource').length).toBeGreaterThan(3)
    expect(yes.console.printed('Deleting queued resource demo')).toEqual(['demo  deleting', 'demo  deleted'])
  })

  it('treats a queued resource that is gone as success, without asking', async () => {
    const {deps, console} = setup()
    const result = await deleteVms({...where, tpuPrefix: 'gone', async: false, timing}, deps)
    expect(result.outcome).toBe('absent')
    expect(console.questions).toEqual([])
  })
})

describe('vm delete --async', () => {
  it('sends the delete and returns without waiting', async () => {
    const {tpu, deps, sleeps} = setup('yes')
    await createVms(create(), deps)
    const before = sleeps.length
    const result = await deleteVms({...where, tpuPrefix: 'demo', async: true, timing}, deps)
    expect(result).toMatchObject({queuedResource: 'demo', outcome: 'deleting', nodes: ['demo-0', 'demo-1']})
    expect(sleeps.length).toBe(before)
    expect(tpu.queued.get('demo')!.state).toBe('DELETING')
  })
})

// Issue 17: a --tpu-prefix or --queued-resource-id that `vm create` would refuse is refused by every vm command
// before any request (they become paths of the TPU API's URLs).
describe('vm create and vm delete --dry-run', () => {
  const mutations = (tpu: MemoryTpu) => tpu.log.filter((m) => !/^(get|list)/.test(m))

  it('vm create shows the request it would send and the wait, and sends nothing', async () => {
    const {tpu, console, deps} = setup()
    const result = await createVms(create({dryRun: true, reservation: undefined}), deps)
    expect(result).toMatchObject({queuedResource: 'demo', state: null, outcome: 'planned', dryRun: true, nodes: []})
    expect(result.steps).toEqual([
      {
        action: 'create',
        resource: 'queuedResource',
        name: 'demo',
        reason: '2 slices of v4-16 (2 VMs each; nodes demo-0, demo-1), tpu-ubuntu2204-base, on-demand',
        spec: {
          id: 'demo',
          nodePrefix: 'demo',
          numSlices: 2,
          acceleratorType: 'v4-16',
          runtimeVersion: 'tpu-ubuntu2204-base',
          capacity: 'on-demand',
        },
      },
      expect.objectContaining({action: 'wait', spec: {until: 'ACTIVE'}}),
    ])
    expect(console.results[0]).toMatch(/^Plan for TPU VMs in project p, zone us-central2-b:\n {2}\+ {3}create /)
    expect(console.codes()).toEqual(['vm.create.dry-run'])
    expect(mutations(tpu)).toEqual([])
    expect(tpu.closed).toBe(1)
  })

  it('vm create of a request already there plans no request, only the wait (none with --async)', async () => {
    const {tpu, deps} = setup()
    await createVms(create({async: true}), deps)
    const before = mutations(tpu).length
    const waits = await createVms(create({dryRun: true}), deps)
    expect(waits).toMatchObject({outcome: 'existing', state: 'PROVISIONING'})
    expect(waits.steps.map((s) => s.action)).toEqual(['none', 'wait'])
    expect((await createVms(create({dryRun: true, async: true}), deps)).steps.map((s) => s.action)).toEqual(['none'])
    expect(mutations(tpu)).toHaveLength(before)
  })

  it('vm delete shows what it would delete, asks nothing and deletes nothing', async () => {
    const {tpu, console, deps} = setup()
    await createVms(create({async: true}), deps)
    const before = mutations(tpu).length
    const result = await deleteVms({...where, tpuPrefix: 'demo', async: false, dryRun: true, timing}, deps)
    expect(result).toMatchObject({outcome: 'planned', dryRun: true, nodes: ['demo-0', 'demo-1']})
    expect(result.steps).toEqual([
      {
        action: 'delete',
        resource: 'queuedResource',
        name: 'demo',
        reason: 'PROVISIONING, with its nodes demo-0, demo-1 (force)',
        spec: {id: 'demo', force: true, nodes: ['demo-0', 'demo-1']},
      },
      expect.objectContaining({action: 'wait', spec: {until: 'gone'}}),
    ])
    expect(console.questions).toEqual([])
    expect(console.codes()).toContain('vm.delete.dry-run')
    expect(mutations(tpu)).toHaveLength(before)
  })
})

describe('vm list and vm delete check the names first', () => {
  const bad = ['Bad_P', '../../x', 'demo/nodes', '-demo', 'a'.repeat(62)]
  it.each(bad)('vm list --tpu-prefix %j is a usage error, with no request', async (prefix) => {
    const {tpu, deps} = setup()
    await expect(listVms({...where, tpuPrefix: prefix, timing}, deps)).rejects.toMatchObject({
      kind: 'usage',
      flag: '--tpu-prefix',
    })
    expect(tpu.log).toEqual([])
  })

  it.each(bad.flatMap((name) => [{tpuPrefix: name}, {tpuPrefix: 'demo', queuedResourceId: name}]))(
    'vm delete %j is a usage error, with no request',
    async (names) => {
      const {tpu, deps} = setup('yes')
      const error = await deleteVms({...where, ...names, async: false, timing}, deps).catch((e: unknown) => e)
      expect(error).toMatchObject({
        kind: 'usage',
        flag: 'queuedResourceId' in names ? '--queued-resource-id' : '--tpu-prefix',
      })
      expect(tpu.log).toEqual([])
    },
  )
})
