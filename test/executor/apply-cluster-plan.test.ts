import {describe, expect, it} from 'vitest'

import {planCluster} from '../../src/core/cluster/plan.js'
import {gkeApiError} from '../../src/core/cluster/gke-errors.js'
import {ApiError} from '../../src/core/errors.js'
import {DEFAULT_APPLY_CONCURRENCY} from '../../src/core/retry.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {planStorageClusterUpdates} from '../../src/core/cluster/storage-needs.js'
import {applyClusterPlan, type ApplyOptions} from '../../src/executor/apply-cluster-plan.js'
import type {GraphStep} from '../../src/executor/step-graph.js'
import type {ComputeClient} from '../../src/ports/compute.js'
import {anObservedCluster, desiredFor, observedPoolFrom} from '../builders/observed.js'
import {MemoryCompute} from '../fakes/memory-compute.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {RecordingConsole} from '../helpers/recording-console.js'

const context = {action: 'x', project: 'test-project', location: 'us-central2'}
const unavailable = () => gkeApiError({code: 14, message: 'connection reset'}, context)
const busy = () => gkeApiError({code: 9, message: 'Cluster is running incompatible operation operation-1.'}, context)

const unusedCompute = async (): Promise<ComputeClient> => {
  throw new Error('this plan needs no placement policy')
}

/** Virtual time: sleeping advances the clock at once, so retries and budgets run in microseconds. */
function virtualTime() {
  let clock = 0
  return {
    sleep: async (ms: number, signal: AbortSignal) => {
      if (signal.aborted) throw signal.reason
      clock += ms
    },
    now: () => clock,
    random: () => 0.5,
  }
}

const desired = desiredFor({tpuType: 'v5litepod-16', numSlices: 4})
const options = (overrides: Partial<ApplyOptions> = {}): ApplyOptions => ({
  concurrency: DEFAULT_APPLY_CONCURRENCY,
  timing: DEFAULT_TIMING,
  signal: new AbortController().signal,
  ...overrides,
})

async function apply(gke: MemoryGke, overrides: Partial<ApplyOptions> = {}, console = new RecordingConsole()) {
  const plan = planCluster(desired, anObservedCluster({nodePools: [...gke.pools.values()]}))
  return applyClusterPlan(plan, {gke, compute: unusedCompute, console, ...virtualTime()}, options(overrides))
}

describe('applyClusterPlan', () => {
  it('creates a pool under the name of one still being deleted only once it is gone, keeping canonical names', async () => {
    const stopping = {
      ...observedPoolFrom({...desired.poolTemplate, name: 'demo-np-0', reservation: null}),
      status: 'STOPPING' as const,
    }
    const gke = new MemoryGke([stopping])
    const getNodePool = gke.getNodePool.bind(gke)
    let reads = 0
    gke.getNodePool = async (ref, name) => {
      if (name === 'demo-np-0' && gke.pools.get(name)?.status === 'STOPPING' && ++reads >= 3) gke.pools.delete(name)
      return getNodePool(ref, name)
    }
    const result = await apply(gke)
    expect(result.poolsCreated).toBe(4)
    expect([...gke.pools.keys()].sort()).toEqual(['demo-np-0', 'demo-np-1', 'demo-np-2', 'demo-np-3'])
    const create0 = gke.calls.indexOf('createNodePool demo-np-0')
    expect(create0).toBeGreaterThan(gke.calls.lastIndexOf('getNodePool demo-np-0', create0))
    expect(reads).toBeGreaterThanOrEqual(3)
  })

  it('counts pools another run made as found, not as created (every create answered ALREADY_EXISTS)', async () => {
    const gke = new MemoryGke()
    const create = gke.createNodePool.bind(gke)
    gke.createNodePool = async (ref, spec) => {
      await create(ref, spec)
      for (const entry of gke.ops.values()) entry.finish()
      gke.pools.set(spec.name, {...gke.pools.get(spec.name)!, status: 'RUNNING'})
      throw gkeApiError({code: 6, message: `node pool ${spec.name} already exists`}, context)
    }
    const result = await apply(gke)
    expect([result.poolsWanted, result.poolsCreated, result.poolsFound]).toEqual([4, 0, 4])
    expect(result.outcomes.every((o) => o.status === 'done')).toBe(true)
  })

  it('says changes were sent when it was interrupted during deletions', async () => {
    const gke = new MemoryGke(
      ['demo-np-0', 'demo-np-1', 'demo-np-2', 'demo-np-3', 'demo-np-4'].map((name) =>
        observedPoolFrom({...desired.poolTemplate, name, reservation: null}),
      ),
    )
    const controller = new AbortController()
    const deletePool = gke.deleteNodePool.bind(gke)
    gke.deleteNodePool = async (ref, name) => {
      const op = await deletePool(ref, name)
      controller.abort(new Error('Ctrl-C'))
      return op
    }
    const result = await apply(gke, {signal: controller.signal})
    expect([result.interrupted, result.sentChanges]).toEqual([true, true])
  })

  it('creates every missing pool and watches all operations with one list call per tick', async () => {
    const gke = new MemoryGke()
    const result = await apply(gke)
    expect(result).toMatchObject({poolsWanted: 4, poolsCreated: 4, interrupted: false, sentChanges: true})
    expect([...gke.pools.values()].map((p) => p.status)).toEqual(['RUNNING', 'RUNNING', 'RUNNING', 'RUNNING'])
    expect(gke.calls.filter((c) => c === 'listOperations')).toHaveLength(2)
    expect(gke.calls.filter((c) => c === 'getOperation')).toHaveLength(0)
  })

  it('never has more node-pool operations in flight than the concurrency allows', async () => {
    const gke = new MemoryGke()
    const result = await apply(gke, {concurrency: 2})
    expect(result.poolsCreated).toBe(4)
    expect(gke.maxInFlight).toBe(2)
  })

  it('falls back to reading the pools when operations cannot be watched', async () => {
    const gke = new MemoryGke()
    gke.listOperations = async () => {
      throw gkeApiError({code: 7, message: 'Required "container.operations.list" permission'}, context)
    }
    // Without the watcher, pools still become RUNNING: GKE finishes them on its own.
    const original = gke.getNodePool.bind(gke)
    gke.getNodePool = async (ref, name) => {
      for (const [opName] of gke.ops) await gke.getOperation('', '', opName)
      return original(ref, name)
    }
    const console = new RecordingConsole()
    const result = await apply(gke, {}, console)
    expect(result.poolsCreated).toBe(4)
    expect(result.outcomes.every((o) => o.status === 'done')).toBe(true)
    expect(console.debugs.join('\n')).toContain('checking resources instead')
  })

  it('retries transient failures and counts a create that already happened as done', async () => {
    const gke = new MemoryGke()
    const create = gke.createNodePool.bind(gke)
    let failures = 0
    gke.createNodePool = async (ref, spec) => {
      if (spec.name === 'demo-np-1' && failures++ < 3) {
        // The first attempt reaches GKE but its answer is lost; the retries then find the pool.
        if (failures === 1) await create(ref, spec)
        throw failures === 1 ? unavailable() : gkeApiError({code: 6, message: 'Already exists: demo-np-1'}, context)
      }
      return create(ref, spec)
    }
    const result = await apply(gke)
    expect(result.poolsCreated).toBe(4)
    expect(gke.calls.filter((c) => c === 'createNodePool demo-np-1')).toHaveLength(1)
  })

  it('gives up on "another operation is running" once the conflict budget is spent, and keeps the other pools', async () => {
    const gke = new MemoryGke()
    const create = gke.createNodePool.bind(gke)
    gke.createNodePool = async (ref, spec) => {
      if (spec.name === 'demo-np-2') throw busy()
      return create(ref, spec)
    }
    const result = await apply(gke, {
      timing: {...DEFAULT_TIMING, retry: {...DEFAULT_TIMING.retry, conflictBudgetMs: 60_000}},
    })
    expect(result.poolsCreated).toBe(3)
    const failed = result.outcomes.filter((o) => o.status === 'failed')
    expect(failed.map((o) => o.name)).toEqual(['demo-np-2'])
    expect(failed[0].error).toBeInstanceOf(ApiError)
    expect((failed[0].error as ApiError).status).toBe('FAILED_PRECONDITION')
  })

  it('does not retry a cluster in ERROR: the pool fails at once', async () => {
    const gke = new MemoryGke()
    let attempts = 0
    gke.createNodePool = async () => {
      attempts++
      throw gkeApiError({code: 9, message: 'Cluster demo is not ready: its status is ERROR.'}, context)
    }
    const result = await apply(gke)
    expect(result.poolsCreated).toBe(0)
    expect(attempts).toBe(4)
  })

  it('stops when aborted, marks unfinished steps interrupted and says whether changes were sent', async () => {
    const gke = new MemoryGke()
    gke.ticks = 1_000_000
    const controller = new AbortController()
    const time = virtualTime()
    let sleeps = 0
    const plan = planCluster(desired, anObservedCluster({nodePools: []}))
    const result = await applyClusterPlan(
      plan,
      {
        gke,
        compute: unusedCompute,
        console: new RecordingConsole(),
        now: time.now,
        random: time.random,
        sleep: async (ms, signal) => {
          if (++sleeps === 5) controller.abort(new Error('Ctrl-C'))
          await time.sleep(ms, signal)
        },
      },
      options({signal: controller.signal}),
    )
    expect(result.interrupted).toBe(true)
    expect(result.sentChanges).toBe(true)
    expect(result.outcomes.filter((o) => o.status === 'interrupted')).toHaveLength(4)
  })

  it('deletes extra pools before creating, and waits until they are gone', async () => {
    const existing = ['demo-np-0', 'demo-np-1', 'demo-np-2', 'demo-np-3', 'demo-np-4', 'demo-np-5'].map((name) =>
      observedPoolFrom({...desired.poolTemplate, name, reservation: null}),
    )
    const gke = new MemoryGke(existing)
    const result = await apply(gke)
    expect(result.poolsWanted).toBe(0)
    expect([...gke.pools.keys()]).toEqual(['demo-np-0', 'demo-np-1', 'demo-np-2', 'demo-np-3'])
    expect(result.outcomes.filter((o) => o.action === 'delete' && o.status === 'done').map((o) => o.name)).toEqual([
      'demo-np-4',
      'demo-np-5',
    ])
  })

  describe('workload placement policy', () => {
    const tpu7x = desiredFor({tpuType: 'tpu7x-16', numSlices: 2})

    async function applyWithPolicy(gke: MemoryGke, compute: MemoryCompute, existing: 'exists' | 'missing') {
      const plan = planCluster(tpu7x, anObservedCluster({nodePools: [...gke.pools.values()]}), existing)
      const deps = {gke, compute: async () => compute, console: new RecordingConsole(), ...virtualTime()}
      return applyClusterPlan(plan, deps, options())
    }

    it('creates the missing policy before any pool that names it', async () => {
      const gke = new MemoryGke()
      const compute = new MemoryCompute(gke.calls)
      const result = await applyWithPolicy(gke, compute, 'missing')
      expect(compute.created).toEqual([
        {
          project: tpu7x.spec.project,
          region: tpu7x.spec.region,
          name: 'tpu7x-16-2x2x2-placement-policy',
          acceleratorTopology: '2x2x2',
        },
      ])
      const policyAt = gke.calls.indexOf('createWorkloadPolicy tpu7x-16-2x2x2-placement-policy')
      const firstPoolAt = gke.calls.findIndex((c) => c.startsWith('createNodePool'))
      expect(policyAt).toBeGreaterThanOrEqual(0)
      expect(policyAt).toBeLessThan(firstPoolAt)
      expect(result).toMatchObject({poolsWanted: 2, poolsCreated: 2})
      expect(result.outcomes.find((o) => o.resource === 'placementPolicy')).toMatchObject({status: 'done'})
    })

    it('does not call Compute Engine when the policy exists', async () => {
      const gke = new MemoryGke()
      const compute = new MemoryCompute(gke.calls)
      const result = await applyWithPolicy(gke, compute, 'exists')
      expect(gke.calls.filter((c) => c.startsWith('createWorkloadPolicy'))).toEqual([])
      expect(result.poolsCreated).toBe(2)
    })

    it('retries a transient failure, and skips the pools that need the policy when it cannot be made', async () => {
      const gke = new MemoryGke()
      const compute = new MemoryCompute(gke.calls)
      compute.failWith = new ApiError('permission', 'compute.resourcePolicies.create denied', {
        status: 'PERMISSION_DENIED',
        retryable: false,
      })
      const result = await applyWithPolicy(gke, compute, 'missing')
      expect(gke.calls.filter((c) => c.startsWith('createNodePool'))).toEqual([])
      expect(result.poolsCreated).toBe(0)
      expect(result.outcomes.filter((o) => o.status === 'skipped').map((o) => o.error?.message)).toEqual([
        'Skipped demo-np-0: its placement policy could not be created.',
        'Skipped demo-np-1: its placement policy could not be created.',
      ])

      const flaky = new MemoryCompute(gke.calls)
      let failures = 0
      const create = flaky.insertWorkloadPolicy.bind(flaky)
      flaky.insertWorkloadPolicy = async (spec) => {
        if (failures++ < 2) throw unavailable()
        return create(spec)
      }
      expect((await applyWithPolicy(new MemoryGke(), flaky, 'missing')).poolsCreated).toBe(2)
      expect(flaky.created).toHaveLength(1)
    })

    it('keeps a pool to be recreated when the policy cannot be made, while plain deletions go ahead', async () => {
      const v5p = desiredFor({tpuType: 'v5p-16', numSlices: 3})
      const existing = ['demo-np-0', 'demo-np-1', 'demo-np-2'].map((name) =>
        observedPoolFrom({...v5p.poolTemplate, name, reservation: null}),
      )
      const gke = new MemoryGke(existing)
      const compute = new MemoryCompute(gke.calls)
      compute.failWith = new ApiError('quota', "Quota 'RESOURCE_POLICIES' exceeded.", {
        status: 'RESOURCE_EXHAUSTED',
        retryable: false,
      })
      const shrinkAndRetype = desiredFor({tpuType: 'tpu7x-16', numSlices: 2})
      const plan = planCluster(shrinkAndRetype, anObservedCluster({nodePools: existing}), 'missing')
      expect(plan.steps.filter((s) => s.action === 'recreate').map((s) => s.name)).toEqual(['demo-np-0', 'demo-np-1'])
      const deps = {gke, compute: async () => compute, console: new RecordingConsole(), ...virtualTime()}
      const result = await applyClusterPlan(plan, deps, options())
      expect(gke.calls.filter((c) => c.startsWith('deleteNodePool'))).toEqual(['deleteNodePool demo-np-2'])
      expect([...gke.pools.keys()]).toEqual(['demo-np-0', 'demo-np-1'])
      expect(result.outcomes.filter((o) => o.status === 'skipped').map((o) => o.error?.message)).toEqual([
        'Skipped demo-np-0: kept as it is: the placement policy could not be created.',
        'Skipped demo-np-1: kept as it is: the placement policy could not be created.',
      ])
    })
  })
})

describe('applyClusterPlan: cluster and node-pool updates', () => {
  const storage = desiredFor({tpuType: 'v5litepod-16', numSlices: 2, enableGcsfuseCsiDriver: true})
  const ownPool = (name: string) =>
    observedPoolFrom({...storage.poolTemplate, name, reservation: null}, {workloadMetadataMode: 'GCE_METADATA'})

  async function applyStorage(gke: MemoryGke) {
    const observed = await gke.getCluster({project: 'test-project', location: 'us-central2', name: 'demo'})
    const plan = planCluster(storage, observed)
    const console = new RecordingConsole()
    const result = await applyClusterPlan(plan, {gke, compute: unusedCompute, console, ...virtualTime()}, options())
    return {plan, result}
  }

  it('sends the cluster updates one at a time, then the pool operations, and GKE refuses none of them', async () => {
    // MemoryGke refuses an update beside any operation, and any change beside an update, as GKE does.
    const gke = new MemoryGke([ownPool('demo-np-0')])
    const failures: string[] = []
    for (const call of ['updateCluster', 'createNodePool', 'updateNodePool'] as const) {
      const original = gke[call].bind(gke) as (...args: unknown[]) => Promise<unknown>
      ;(gke as unknown as Record<string, unknown>)[call] = async (...args: unknown[]) =>
        original(...args).catch((error: unknown) => {
          failures.push(`${call}: ${(error as Error).message}`)
          throw error
        })
    }
    const {result} = await applyStorage(gke)
    expect(failures).toEqual([])
    expect(result.outcomes.every((o) => o.status === 'done')).toBe(true)
    expect(gke.calls.filter((c) => /^(update|create)/.test(c))).toEqual([
      'updateCluster workloadIdentity',
      'updateCluster addons',
      'createNodePool demo-np-1',
      'updateNodePool demo-np-0',
    ])
    expect([gke.workloadPool, gke.csiDrivers]).toEqual(['test-project.svc.id.goog', ['GcsFuseCsiDriver']])
    expect([...gke.pools.values()].map((p) => `${p.name} ${p.status} ${p.workloadMetadataMode}`)).toEqual([
      'demo-np-0 RUNNING GKE_METADATA',
      'demo-np-1 RUNNING GKE_METADATA',
    ])
    expect(result.sentChanges).toBe(true)
  })

  it('a second apply of a fresh plan sends nothing', async () => {
    const gke = new MemoryGke([ownPool('demo-np-0')])
    await applyStorage(gke)
    const before = gke.calls.length
    const {plan, result} = await applyStorage(gke)
    expect(plan.steps.filter((s) => s.action !== 'none')).toEqual([])
    expect(gke.calls.slice(before).filter((c) => /^(update|create|delete)/.test(c))).toEqual([])
    expect(result.sentChanges).toBe(false)
  })

  it('when Workload Identity cannot be enabled, skips what needs it and still enables the addons', async () => {
    const gke = new MemoryGke([ownPool('demo-np-0')])
    gke.failNextOperation('UPDATE_CLUSTER', {status: 'INTERNAL', message: 'the update broke'})
    const {result} = await applyStorage(gke)
    const status = Object.fromEntries(result.outcomes.map((o) => [`${o.action} ${o.name}`, o.status]))
    expect(status).toEqual({
      'update workload identity (pool test-project.svc.id.goog)': 'failed',
      'update addons GcsFuseCsiDriver': 'failed',
      'create demo-np-1': 'skipped',
      'update demo-np-0': 'skipped',
    })
    // The failed update left the cluster in ERROR (the fault's default), so the addons were refused too.
    expect(result.outcomes.find((o) => o.name === 'demo-np-1')?.error?.message).toBe(
      'Skipped demo-np-1: Workload Identity could not be enabled on the cluster.',
    )
  })

  it('applies a plan of updates alone, as storage attach plans them, before the steps that follow them', async () => {
    const gke = new MemoryGke([ownPool('demo-np-0')])
    const observed = await gke.getCluster({project: 'test-project', location: 'us-central2', name: 'demo'})
    const updates = planStorageClusterUpdates('gcsfuse', observed!)
    const plan = {project: 'test-project', location: 'us-central2', cluster: 'demo', ...updates}
    const order: string[] = []
    const attach: GraphStep = {
      id: 'attach',
      line: 'attach',
      resource: 'storage',
      name: 'attach',
      action: 'apply',
      run: async () => {
        order.push(`attach with ${gke.csiDrivers.join()} and ${gke.workloadPool}`)
      },
    }
    const deps = {gke, console: new RecordingConsole(), ...virtualTime()}
    const result = await applyClusterPlan(plan, deps, options({inCluster: [attach]}))
    expect(result.outcomes.map((o) => `${o.action} ${o.name} ${o.status}`).sort()).toEqual([
      'apply attach done',
      'update addons GcsFuseCsiDriver done',
      'update demo-np-0 done',
      'update workload identity (pool test-project.svc.id.goog) done',
    ])
    // After the cluster updates; beside the pools' own (those objects need no node), unless `after` says so.
    expect(order).toEqual(['attach with GcsFuseCsiDriver and test-project.svc.id.goog'])
  })

  it('fails a cluster update the cluster does not show once it is no longer RECONCILING', async () => {
    const gke = new MemoryGke([ownPool('demo-np-0')])
    const update = gke.updateCluster.bind(gke)
    gke.updateCluster = async (ref, u) => {
      const op = await update(ref, u)
      gke.ops.get(op.name)!.finish = () => {
        gke.cluster = 'RUNNING'
      }
      return op
    }
    const {result} = await applyStorage(gke)
    expect(result.outcomes.find((o) => o.resource === 'clusterUpdate')?.error?.message).toBe(
      'Cluster demo is RUNNING without workload identity (pool test-project.svc.id.goog) after the update.',
    )
  })
})
