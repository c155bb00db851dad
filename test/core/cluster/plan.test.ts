import {describe, expect, it} from 'vitest'

import type {ClusterCreateFlags, DesiredCluster} from '../../../src/core/cluster/desired.js'
import type {NodePoolStatus, ObservedNodePool} from '../../../src/core/cluster/observed.js'
import {
  differencesFrom,
  isDestructive,
  planCluster,
  planNodePools,
  summarize,
  type NodePoolStep,
  type Plan,
  type PlanAction,
} from '../../../src/core/cluster/plan.js'
import {
  aMatchingPool,
  anObservedCluster,
  anObservedPool,
  desiredFor,
  observedPoolFrom,
} from '../../builders/observed.js'

type Expected = readonly [action: PlanAction, name: string, reason: string]

/** Steps as [action, name, reason] with the reason matched as a substring. */
function expectSteps(steps: readonly {action: string; name: string; reason: string}[], expected: readonly Expected[]) {
  expect(steps.map((s) => ({action: s.action, name: s.name, reason: s.reason}))).toEqual(
    expected.map(([action, name, reason]) => ({action, name, reason: expect.stringContaining(reason)})),
  )
}

const v5p = (numSlices: number, flags: ClusterCreateFlags = {}) => desiredFor({numSlices, ...flags})
/** Pools that match `desired`, named demo-np-<index>. */
const matching = (desired: DesiredCluster, ...indices: number[]) =>
  indices.map((i) => aMatchingPool(desired, `demo-np-${i}`))

interface PoolCase {
  readonly case: string
  readonly desired: DesiredCluster
  readonly pools: readonly ObservedNodePool[]
  readonly steps: readonly Expected[]
}

const d1 = v5p(1)
const d2 = v5p(2)
const d3 = v5p(3)

const CASES: readonly PoolCase[] = [
  {
    case: 'fresh cluster: one create per slice',
    desired: d2,
    pools: [],
    steps: [
      ['create', 'demo-np-0', 'new slice'],
      ['create', 'demo-np-1', 'new slice'],
    ],
  },
  {
    case: 'exact match: nothing to do',
    desired: d2,
    pools: matching(d2, 0, 1),
    steps: [
      ['none', 'demo-np-0', 'matches the request'],
      ['none', 'demo-np-1', 'matches the request'],
    ],
  },
  {
    case: 'grow from 1 to 3',
    desired: d3,
    pools: matching(d3, 0),
    steps: [
      ['none', 'demo-np-0', 'matches the request'],
      ['create', 'demo-np-1', 'new slice'],
      ['create', 'demo-np-2', 'new slice'],
    ],
  },
  {
    case: 'shrink from 3 to 1 keeps the lowest index',
    desired: d1,
    pools: matching(d1, 2, 0, 1),
    steps: [
      ['none', 'demo-np-0', 'matches the request'],
      ['delete', 'demo-np-1', 'not needed: 1 pool requested'],
      ['delete', 'demo-np-2', 'not needed: 1 pool requested'],
    ],
  },
  {
    case: 'shrink from 3 to 2 deletes the highest index',
    desired: d2,
    pools: matching(d2, 0, 1, 2),
    steps: [
      ['none', 'demo-np-0', 'matches'],
      ['none', 'demo-np-1', 'matches'],
      ['delete', 'demo-np-2', 'not needed: 2 pools requested'],
    ],
  },
  {
    case: '--num-slices 0 deletes every pool of ours',
    desired: v5p(0),
    pools: matching(v5p(0), 0, 1),
    steps: [
      ['delete', 'demo-np-0', 'not needed: 0 pools requested'],
      ['delete', 'demo-np-1', 'not needed: 0 pools requested'],
    ],
  },
  {
    case: 'shrink deletes an ERROR pool before healthy matching ones',
    desired: d2,
    pools: [
      aMatchingPool(d2, 'demo-np-0', {status: 'ERROR', statusMessage: 'Instance group has no instances'}),
      ...matching(d2, 1, 2),
    ],
    steps: [
      ['delete', 'demo-np-0', 'in ERROR state (Instance group has no instances) and not needed: 2 pools requested'],
      ['none', 'demo-np-1', 'matches'],
      ['none', 'demo-np-2', 'matches'],
    ],
  },
  {
    case: 'shrink deletes a mismatching pool before a matching one',
    desired: d1,
    pools: [aMatchingPool(d1, 'demo-np-0', {capacity: 'on-demand'}), aMatchingPool(d1, 'demo-np-1')],
    steps: [
      ['delete', 'demo-np-0', 'not needed: 1 pool requested'],
      ['none', 'demo-np-1', 'matches'],
    ],
  },
  {
    case: 'shrink deletes an ERROR pool before a mismatching one, which is recreated',
    desired: d1,
    pools: [aMatchingPool(d1, 'demo-np-0', {status: 'ERROR'}), aMatchingPool(d1, 'demo-np-1', {capacity: 'on-demand'})],
    steps: [
      ['delete', 'demo-np-0', 'in ERROR state and not needed'],
      ['recreate', 'demo-np-1', 'capacity on-demand → spot'],
    ],
  },
  {
    case: 'gaps in names: np-0 and np-3, want 3 -> keep both, create np-1',
    desired: d3,
    pools: matching(d3, 0, 3),
    steps: [
      ['none', 'demo-np-0', 'matches'],
      ['create', 'demo-np-1', 'new slice'],
      ['none', 'demo-np-3', 'matches'],
    ],
  },
  {
    case: 'gaps in names: np-0 and np-3, want 2 -> keep both',
    desired: d2,
    pools: matching(d2, 3, 0),
    steps: [
      ['none', 'demo-np-0', 'matches'],
      ['none', 'demo-np-3', 'matches'],
    ],
  },
  {
    case: 'type change (v5p-16 pools, v6e-16 wanted): every kept pool is recreated',
    desired: v5p(2, {tpuType: 'v6e-16'}),
    pools: matching(d2, 0, 1, 2),
    steps: [
      ['recreate', 'demo-np-0', 'machine type ct5p-hightpu-4t → ct6e-standard-4t'],
      ['recreate', 'demo-np-1', 'placement compact 2x2x2 → compact 4x4'],
      ['delete', 'demo-np-2', 'not needed: 2 pools requested'],
    ],
  },
  {
    case: 'capacity change spot -> on-demand recreates',
    desired: v5p(1, {onDemand: true}),
    pools: matching(d1, 0),
    steps: [['recreate', 'demo-np-0', 'differs from the request: capacity spot → on-demand']],
  },
  {
    case: 'reservation change recreates',
    desired: v5p(1, {reservation: 'new-res'}),
    pools: [aMatchingPool(v5p(1, {reservation: 'old-res'}), 'demo-np-0')],
    steps: [['recreate', 'demo-np-0', 'reservation old-res → new-res']],
  },
  {
    case: 'a pool on any of the listed reservations matches',
    desired: v5p(1, {reservation: 'r1,r2'}),
    pools: [aMatchingPool(v5p(1, {reservation: 'r2'}), 'demo-np-0')],
    steps: [['none', 'demo-np-0', 'matches']],
  },
  {
    case: 'a pool in the wrong zone is recreated',
    desired: d1,
    pools: [aMatchingPool(d1, 'demo-np-0', {locations: ['us-central2-a']})],
    steps: [['recreate', 'demo-np-0', 'zone us-central2-a → us-central2-b']],
  },
  {
    case: 'GPU --num-nodes change recreates',
    desired: desiredFor({deviceType: 'h100-80gb-8', numNodes: 4}),
    pools: [aMatchingPool(desiredFor({deviceType: 'h100-80gb-8', numNodes: 2}), 'demo-np-0')],
    steps: [['recreate', 'demo-np-0', 'node count 2 → 4']],
  },
  {
    case: 'GPU type change recreates with the GPU difference',
    desired: desiredFor({deviceType: 'a100-40gb-8'}),
    pools: [aMatchingPool(desiredFor({deviceType: 'a100-40gb-4'}), 'demo-np-0')],
    steps: [['recreate', 'demo-np-0', 'GPUs 4x nvidia-tesla-a100 → 8x nvidia-tesla-a100']],
  },
  {
    case: 'flex pools ignore the node count (they scale)',
    desired: v5p(1, {flex: true}),
    pools: [aMatchingPool(v5p(1, {flex: true}), 'demo-np-0', {nodeCount: 2})],
    steps: [['none', 'demo-np-0', 'matches']],
  },
  {
    case: 'a PROVISIONING pool that matches is waited for',
    desired: d1,
    pools: [aMatchingPool(d1, 'demo-np-0', {status: 'PROVISIONING'})],
    steps: [['none', 'demo-np-0', 'matches the request; provisioning, waiting for it']],
  },
  {
    case: 'a RECONCILING pool that matches is waited for',
    desired: d1,
    pools: [aMatchingPool(d1, 'demo-np-0', {status: 'RECONCILING'})],
    steps: [['none', 'demo-np-0', 'reconciling, waiting for it']],
  },
  {
    case: 'a kept ERROR pool is recreated',
    desired: d1,
    pools: [aMatchingPool(d1, 'demo-np-0', {status: 'ERROR', statusMessage: 'GCE_STOCKOUT'})],
    steps: [['recreate', 'demo-np-0', 'in ERROR state: GCE_STOCKOUT']],
  },
  {
    case: 'a STOPPING pool keeps its name: the new slice takes it once the deletion finishes',
    desired: d2,
    pools: [aMatchingPool(d2, 'demo-np-0', {status: 'STOPPING'}), aMatchingPool(d2, 'demo-np-1')],
    steps: [
      ['create', 'demo-np-0', 'new slice, once GKE has finished deleting the earlier pool of this name'],
      ['none', 'demo-np-1', 'matches'],
    ],
  },
  {
    case: 'a STOPPING pool that is not needed is left to finish',
    desired: d1,
    pools: [aMatchingPool(d1, 'demo-np-0'), aMatchingPool(d1, 'demo-np-1', {status: 'STOPPING'})],
    steps: [
      ['none', 'demo-np-0', 'matches'],
      ['none', 'demo-np-1', 'is being deleted already'],
    ],
  },
  {
    case: 'foreign pools are never touched and come last',
    desired: d1,
    pools: [
      anObservedPool({name: 'othercluster-np-0'}),
      anObservedPool({name: 'default-pool', machineType: 'e2-standard-16', tpuTopology: null, placementType: null}),
      anObservedPool({name: 'demo-gpu', status: 'ERROR'}),
    ],
    steps: [
      ['create', 'demo-np-0', 'new slice'],
      ['none', 'default-pool', 'not managed by xpk (only demo-np-* pools are)'],
      ['none', 'demo-gpu', 'not managed by xpk'],
      ['none', 'othercluster-np-0', 'not managed by xpk'],
    ],
  },
  {
    // A cluster another tool made (Terraform, Cluster Toolkit) and xpk configured inside: its accelerator pools are
    // of the very type asked for, healthy or not, and stay; even --num-slices 0 deletes none of them.
    case: 'an adapted cluster: pools another tool made of the same type are kept, whatever --num-slices says',
    desired: v5p(0),
    pools: [
      aMatchingPool(d1, 'tf-v5p-a'),
      aMatchingPool(d1, 'tf-v5p-b', {status: 'ERROR'}),
      aMatchingPool(d1, 'demo-tpu-0'),
      anObservedPool({name: 'default-pool', machineType: 'e2-standard-16', tpuTopology: null, placementType: null}),
    ],
    steps: [
      ['none', 'default-pool', 'not managed by xpk (only demo-np-* pools are)'],
      ['none', 'demo-tpu-0', 'not managed by xpk'],
      ['none', 'tf-v5p-a', 'not managed by xpk'],
      ['none', 'tf-v5p-b', 'not managed by xpk'],
    ],
  },
  {
    case: 'a non-numeric pool of ours ranks after numbered ones',
    desired: d1,
    pools: [aMatchingPool(d1, 'demo-np-extra'), aMatchingPool(d1, 'demo-np-7')],
    steps: [
      ['none', 'demo-np-7', 'matches'],
      ['delete', 'demo-np-extra', 'not needed'],
    ],
  },
]

describe('planNodePools', () => {
  it.each(CASES)('$case', ({desired, pools, steps}) => {
    expectSteps(planNodePools(desired, pools), steps)
  })

  it('marks own pools managed and foreign pools unmanaged, with specs only for pools that will exist', () => {
    const steps = planNodePools(d2, [
      ...matching(d2, 0, 5),
      aMatchingPool(d2, 'demo-np-1', {status: 'STOPPING'}),
      anObservedPool({name: 'default-pool'}),
    ])
    const view = steps.map((s) => ({name: s.name, action: s.action, managed: s.managed, hasSpec: s.spec !== null}))
    expect(view).toEqual([
      {name: 'demo-np-0', action: 'none', managed: true, hasSpec: true},
      {name: 'demo-np-1', action: 'none', managed: true, hasSpec: false},
      {name: 'demo-np-5', action: 'none', managed: true, hasSpec: true},
      {name: 'default-pool', action: 'none', managed: false, hasSpec: false},
    ])
  })

  it('gives created and recreated pools the desired spec under their own name', () => {
    const desired = v5p(2, {onDemand: true})
    const steps = planNodePools(desired, matching(d1, 0))
    expect(steps.map((s) => s.spec)).toEqual([
      {...desired.poolTemplate, name: 'demo-np-0', reservation: null},
      {...desired.poolTemplate, name: 'demo-np-1', reservation: null},
    ])
  })

  it('keeps the observed reservation in the spec of an unchanged pool', () => {
    const desired = v5p(1, {reservation: 'r1,r2'})
    const [step] = planNodePools(desired, [aMatchingPool(v5p(1, {reservation: 'r2'}), 'demo-np-0')])
    expect(step.spec?.reservation).toBe('r2')
  })

  it.each<{status: NodePoolStatus; wait: boolean}>([
    {status: 'RUNNING', wait: false},
    {status: 'RUNNING_WITH_ERROR', wait: false},
    {status: 'PROVISIONING', wait: true},
    {status: 'RECONCILING', wait: true},
  ])('waits for a matching $status pool: $wait', ({status, wait}) => {
    const [step] = planNodePools(d1, [aMatchingPool(d1, 'demo-np-0', {status})])
    expect(step.action).toBe('none')
    expect(step.wait).toBe(wait)
  })

  it('creates a pool again under the name of one still being deleted, once it is gone (an interrupted recreate)', () => {
    const [step] = planNodePools(d1, [aMatchingPool(d1, 'demo-np-0', {status: 'STOPPING'})])
    expect(step).toMatchObject({action: 'create', name: 'demo-np-0', afterDeletion: true})
  })

  it.each([
    ['Instance could not be created: ZONE_RESOURCE_POOL_EXHAUSTED', true],
    ['The zone does not have enough resources available to fulfill the request.', true],
    ["Quota 'TPUS_PER_PROJECT_PER_ZONE' exceeded. Limit: 8.0 in zone us-central2-b.", true],
    ['Node pool is unhealthy: 3 nodes are NotReady', false],
    ['', false],
  ])('replacing a pool in ERROR with %j loses nothing: %s', (statusMessage, nothingToLose) => {
    const plan = planCluster(
      d1,
      anObservedCluster({nodePools: [aMatchingPool(d1, 'demo-np-0', {status: 'ERROR', statusMessage})]}),
    )
    const step = plan.steps.find((s) => s.name === 'demo-np-0')
    expect(step).toMatchObject({action: 'recreate'})
    expect(isDestructive(plan)).toBe(!nothingToLose)
  })

  it('never waits on changes', () => {
    const steps = planNodePools(v5p(3, {onDemand: true}), [
      aMatchingPool(d1, 'demo-np-0', {status: 'PROVISIONING'}),
      aMatchingPool(d1, 'demo-np-1', {status: 'ERROR'}),
    ])
    expect(steps.map((s) => [s.action, s.wait])).toEqual([
      ['recreate', false],
      ['recreate', false],
      ['create', false],
    ])
  })

  it('orders own pools by number (np-2 before np-10), then foreign pools by name', () => {
    const desired = v5p(4)
    const pools = [
      anObservedPool({name: 'zeta-pool'}),
      ...matching(desired, 10, 2),
      anObservedPool({name: 'default-pool'}),
      aMatchingPool(desired, 'demo-np-1'),
      aMatchingPool(desired, 'demo-np-11'),
    ]
    expect(planNodePools(desired, pools).map((s) => s.name)).toEqual([
      'demo-np-1',
      'demo-np-2',
      'demo-np-10',
      'demo-np-11',
      'default-pool',
      'zeta-pool',
    ])
  })

  it('does not modify its inputs', () => {
    // Frozen inputs make any mutation throw (test files are ES modules, so strict mode).
    const pools: readonly ObservedNodePool[] = Object.freeze(
      [aMatchingPool(d1, 'demo-np-1'), aMatchingPool(d1, 'demo-np-0', {status: 'ERROR'})].map((p) => Object.freeze(p)),
    )
    const desired = v5p(3, {reservation: 'r1,r2'})
    const before = JSON.stringify([pools, desired])
    expect(() => planNodePools(Object.freeze(desired), pools)).not.toThrow()
    expect(JSON.stringify([pools, desired])).toBe(before)
  })
})

describe('planNodePools reservations', () => {
  const desired = (n: number) => v5p(n, {reservation: 'r1,r2,r3'})
  const on = (reservation: string, index: number, overrides: Partial<ObservedNodePool> = {}) =>
    aMatchingPool(desired(1), `demo-np-${index}`, {reservation, ...overrides})
  const reservationsOf = (steps: readonly NodePoolStep[]) => steps.map((s) => [s.action, s.name, s.spec?.reservation])

  it('spreads new pools over the reservations in the order given', () => {
    expect(reservationsOf(planNodePools(desired(4), []))).toEqual([
      ['create', 'demo-np-0', 'r1'],
      ['create', 'demo-np-1', 'r2'],
      ['create', 'demo-np-2', 'r3'],
      ['create', 'demo-np-3', 'r1'],
    ])
  })

  it('puts new pools on the least-used reservations first, counting kept pools', () => {
    expect(reservationsOf(planNodePools(desired(4), [on('r2', 0)]))).toEqual([
      ['none', 'demo-np-0', 'r2'],
      ['create', 'demo-np-1', 'r1'],
      ['create', 'demo-np-2', 'r3'],
      ['create', 'demo-np-3', 'r1'],
    ])
    expect(reservationsOf(planNodePools(desired(4), [on('r1', 0), on('r1', 1)]))).toEqual([
      ['none', 'demo-np-0', 'r1'],
      ['none', 'demo-np-1', 'r1'],
      ['create', 'demo-np-2', 'r2'],
      ['create', 'demo-np-3', 'r3'],
    ])
  })

  it('does not count a pool that is recreated on the reservation it used', () => {
    expect(reservationsOf(planNodePools(desired(2), [on('r1', 0, {status: 'ERROR'}), on('r2', 1)]))).toEqual([
      ['recreate', 'demo-np-0', 'r1'],
      ['none', 'demo-np-1', 'r2'],
    ])
  })

  it('gives pools no reservation for other capacities', () => {
    expect(planNodePools(v5p(2), []).map((s) => s.spec?.reservation)).toEqual([null, null])
  })
})

describe('differencesFrom', () => {
  const desired = v5p(1)
  const template = desired.poolTemplate
  const pool = (overrides: Partial<ObservedNodePool>) => aMatchingPool(desired, 'demo-np-0', overrides)

  it.each<{case: string; overrides: Partial<ObservedNodePool>; differences: string[]}>([
    {case: 'a matching pool', overrides: {}, differences: []},
    {
      case: 'version and status are not compared',
      overrides: {version: '1.30.0-gke.1', status: 'ERROR'},
      differences: [],
    },
    {case: 'no locations reported', overrides: {locations: []}, differences: []},
    {
      case: 'machine type',
      overrides: {machineType: 'ct4p-hightpu-4t'},
      differences: ['machine type ct4p-hightpu-4t → ct5p-hightpu-4t'],
    },
    {case: 'no placement', overrides: {placementType: null}, differences: ['placement none → compact 2x2x2']},
    {
      case: 'other topology',
      overrides: {tpuTopology: '2x2x4'},
      differences: ['placement compact 2x2x4 → compact 2x2x2'],
    },
    {
      case: 'compact without topology',
      overrides: {tpuTopology: null},
      differences: ['placement compact → compact 2x2x2'],
    },
    {
      case: 'a workload policy instead',
      overrides: {placementPolicyName: 'some-policy'},
      differences: ['placement workload policy some-policy → compact 2x2x2'],
    },
    {case: 'capacity', overrides: {capacity: 'flex'}, differences: ['capacity flex → spot']},
    {case: 'GPUs', overrides: {gpu: {type: 'nvidia-l4', count: 1}}, differences: ['GPUs 1x nvidia-l4 → none']},
    {
      case: 'zones',
      overrides: {locations: ['us-central2-b', 'us-central2-c']},
      differences: ['zone us-central2-b,us-central2-c → us-central2-b'],
    },
    {case: 'node count', overrides: {nodeCount: 4}, differences: ['node count 4 → 2']},
    {
      case: 'several at once, in a fixed order',
      overrides: {machineType: 'n2-standard-32', capacity: 'on-demand', nodeCount: 1},
      differences: ['machine type n2-standard-32 → ct5p-hightpu-4t', 'capacity on-demand → spot', 'node count 1 → 2'],
    },
  ])('$case', ({overrides, differences}) => {
    expect(differencesFrom(template, desired.reservations, pool(overrides))).toEqual(differences)
  })

  it.each<{case: string; reservation: string | null; differences: string[]}>([
    {case: 'listed', reservation: 'r2', differences: []},
    {case: 'not listed', reservation: 'r9', differences: ['reservation r9 → r1 or r2']},
    {case: 'missing', reservation: null, differences: ['reservation none → r1 or r2']},
  ])('reservation $case', ({reservation, differences}) => {
    const reserved = v5p(1, {reservation: 'r1,r2'})
    const observed = aMatchingPool(reserved, 'demo-np-0', {reservation})
    expect(differencesFrom(reserved.poolTemplate, reserved.reservations, observed)).toEqual(differences)
  })

  it('compares workload policies by name', () => {
    const tpu7x = desiredFor({tpuType: 'tpu7x-16'})
    const observed = aMatchingPool(tpu7x, 'demo-np-0')
    expect(differencesFrom(tpu7x.poolTemplate, [], observed)).toEqual([])
    expect(differencesFrom(tpu7x.poolTemplate, [], {...observed, placementPolicyName: 'old-policy'})).toEqual([
      'placement workload policy old-policy → workload policy tpu7x-16-2x2x2-placement-policy',
    ])
  })
})

describe('planCluster', () => {
  it("creates a missing cluster in the zone's region, then its pools", () => {
    const desired = v5p(2)
    const plan = planCluster(desired, undefined)
    expect(plan).toMatchObject({project: 'test-project', location: 'us-central2', cluster: 'demo'})
    expect(plan.steps[0]).toEqual({
      action: 'create',
      resource: 'cluster',
      name: 'demo',
      reason: 'does not exist yet',
      spec: desired.spec,
      wait: false,
    })
    expectSteps(plan.steps, [
      ['create', 'demo', 'does not exist yet'],
      ['create', 'demo-np-0', 'new slice'],
      ['create', 'demo-np-1', 'new slice'],
    ])
  })

  it('leaves a RUNNING cluster alone and plans its pools', () => {
    const desired = v5p(2)
    const plan = planCluster(desired, anObservedCluster({nodePools: matching(desired, 0)}))
    expect(plan.steps[0]).toEqual({
      action: 'none',
      resource: 'cluster',
      name: 'demo',
      reason: 'exists (RUNNING, version 1.35.1-gke.1000000, us-central2)',
      spec: null,
      wait: false,
    })
    expectSteps(plan.steps.slice(1), [
      ['none', 'demo-np-0', 'matches'],
      ['create', 'demo-np-1', 'new slice'],
    ])
  })

  it('says "unknown" for a cluster without a version', () => {
    expect(planCluster(d1, anObservedCluster({version: ''})).steps[0].reason).toBe(
      'exists (RUNNING, version unknown, us-central2)',
    )
  })

  it('waits for a PROVISIONING cluster', () => {
    const plan = planCluster(d1, anObservedCluster({status: 'PROVISIONING'}))
    expect(plan.steps[0]).toMatchObject({
      action: 'none',
      wait: true,
      reason: 'exists and is still provisioning; waiting for it',
    })
    expectSteps(plan.steps.slice(1), [['create', 'demo-np-0', 'new slice']])
  })

  it('re-creates a STOPPING cluster once the deletion finishes, ignoring its dying pools', () => {
    const plan = planCluster(d2, anObservedCluster({status: 'STOPPING', nodePools: matching(d2, 0, 1, 2)}))
    expect(plan.steps[0]).toMatchObject({
      action: 'create',
      resource: 'cluster',
      wait: true,
      spec: d2.spec,
      reason: 'is being deleted; it is created again once the deletion finishes',
    })
    expectSteps(plan.steps.slice(1), [
      ['create', 'demo-np-0', 'new slice'],
      ['create', 'demo-np-1', 'new slice'],
    ])
  })

  describe('workload placement policy', () => {
    const tpu7x = (slices: number) => desiredFor({tpuType: 'tpu7x-16', numSlices: slices})
    const policySteps = (plan: Plan) => plan.steps.filter((s) => s.resource === 'placementPolicy')

    it('creates a missing policy when pools that name it are created or recreated', () => {
      const desired = tpu7x(2)
      const grow = planCluster(desired, anObservedCluster({nodePools: matching(desired, 0)}), 'missing')
      expect(policySteps(grow)).toMatchObject([{action: 'create', name: 'tpu7x-16-2x2x2-placement-policy'}])
      const broken = [aMatchingPool(desired, 'demo-np-0', {status: 'ERROR'})]
      const recreate = planCluster(tpu7x(1), anObservedCluster({nodePools: broken}), 'missing')
      expect(policySteps(recreate)).toMatchObject([{action: 'create'}])
    })

    it('plans nothing for it when no pool is created, or the type needs no policy', () => {
      const desired = tpu7x(2)
      const unchanged = planCluster(desired, anObservedCluster({nodePools: matching(desired, 0, 1)}), 'missing')
      expect(policySteps(unchanged)).toEqual([])
      expect(policySteps(planCluster(tpu7x(0), undefined, 'missing'))).toEqual([])
      expect(policySteps(planCluster(v5p(2), undefined, 'missing'))).toEqual([])
    })

    it('counts the policy among the creations', () => {
      expect(summarize(planCluster(tpu7x(2), undefined, 'missing')).create).toBe(4)
      expect(summarize(planCluster(tpu7x(2), undefined, 'exists'))).toMatchObject({create: 3, none: 1})
    })
  })

  it('uses the observed location (e.g. a zonal cluster)', () => {
    expect(planCluster(d1, anObservedCluster({location: 'us-central2-b'})).location).toBe('us-central2-b')
  })
})

describe('planCluster with CSI drivers and Workload Identity', () => {
  const storage = v5p(2, {enableGcsfuseCsiDriver: true, enablePdCsiDriver: true})
  const resources = (plan: Plan) => plan.steps.map((s) => `${s.action} ${s.resource} ${s.name}`)

  it('sends them with a new cluster (its spec), with no update step', () => {
    const plan = planCluster(storage, undefined)
    expect(resources(plan)).toEqual(['create cluster demo', 'create nodePool demo-np-0', 'create nodePool demo-np-1'])
    const created = plan.steps[0].spec as typeof storage.spec
    expect([created.csiDrivers, created.workloadPool]).toEqual([
      ['GcsFuseCsiDriver', 'GcePersistentDiskCsiDriver'],
      'test-project.svc.id.goog',
    ])
    expect(plan.steps.slice(1).map((s) => (s.spec as {workloadMetadataMode: string}).workloadMetadataMode)).toEqual([
      'GKE_METADATA',
      'GKE_METADATA',
    ])
  })

  it('a cluster being deleted is created again with them', () => {
    const plan = planCluster(storage, anObservedCluster({status: 'STOPPING', nodePools: matching(storage, 0)}))
    expect(resources(plan).filter((r) => r.includes('Update'))).toEqual([])
  })

  it('updates an existing cluster after its own step, then the kept pools after theirs', () => {
    const plan = planCluster(storage, anObservedCluster({nodePools: matching(v5p(1), 0)}))
    expect(resources(plan)).toEqual([
      'none cluster demo',
      'update clusterUpdate demo',
      'update clusterUpdate demo',
      'none nodePool demo-np-0',
      'create nodePool demo-np-1',
      'update nodePoolUpdate demo-np-0',
    ])
  })

  it('switches only kept pools of its own: not those it deletes or recreates, nor others’', () => {
    const observed = anObservedCluster({
      nodePools: [
        ...matching(v5p(1), 0),
        aMatchingPool(v5p(1), 'demo-np-1', {machineType: 'ct5p-hightpu-8t'}),
        ...matching(v5p(1), 2),
        anObservedPool({name: 'default-pool', tpuTopology: null}),
      ],
    })
    const switched = (plan: Plan) => plan.steps.filter((s) => s.resource === 'nodePoolUpdate').map((s) => s.name)
    // Three slices: np-1 (another machine type) is recreated, with GKE_METADATA in its create request.
    const three = planCluster(v5p(3, {enableGcsfuseCsiDriver: true}), observed)
    expect(switched(three)).toEqual(['demo-np-0', 'demo-np-2'])
    const recreated = three.steps.find((s) => s.name === 'demo-np-1' && s.resource === 'nodePool') as NodePoolStep
    expect([recreated.action, recreated.spec?.workloadMetadataMode]).toEqual(['recreate', 'GKE_METADATA'])
    expect(three.warnings).toEqual([expect.stringMatching(/^Node pool default-pool keeps the VM's metadata server/)])
    // One slice: np-1 and np-2 are deleted.
    expect(switched(planCluster(v5p(1, {enableGcsfuseCsiDriver: true}), observed))).toEqual(['demo-np-0'])
  })

  it('does not switch pools a custom --workload-metadata=GCE_METADATA keeps on the VM’s metadata server', () => {
    const desired = v5p(1, {enableWorkloadIdentity: true, customNodepoolArguments: '--workload-metadata=GCE_METADATA'})
    const plan = planCluster(desired, anObservedCluster({nodePools: matching(desired, 0)}))
    expect(resources(plan)).toEqual(['none cluster demo', 'update clusterUpdate demo', 'none nodePool demo-np-0'])
  })

  it('a re-run on a cluster that has them sends nothing', () => {
    const done = anObservedCluster({
      csiDrivers: ['GcsFuseCsiDriver', 'GcePersistentDiskCsiDriver'],
      workloadPool: 'test-project.svc.id.goog',
      nodePools: matching(storage, 0, 1).map((p) => ({...p, workloadMetadataMode: 'GKE_METADATA' as const})),
    })
    const plan = planCluster(storage, done)
    expect(summarize(plan)).toEqual({create: 0, delete: 0, recreate: 0, update: 0, none: 5})
    expect(plan.warnings).toEqual([])
  })

  it('without the flags, a cluster with or without them gets no update step', () => {
    for (const observed of [anObservedCluster(), anObservedCluster({workloadPool: 'test-project.svc.id.goog'})]) {
      expect(planCluster(v5p(0), observed).steps.map((s) => s.resource)).toEqual(['cluster'])
    }
  })
})

describe('isDestructive and summarize', () => {
  const plan = (actions: PlanAction[]): Plan => ({
    project: 'test-project',
    location: 'us-central2',
    cluster: 'demo',
    warnings: [],
    steps: actions.map((action, i) => ({
      action,
      resource: 'nodePool',
      name: `demo-np-${i}`,
      reason: '',
      spec: null,
      managed: true,
      wait: false,
    })),
  })

  it.each<{actions: PlanAction[]; destructive: boolean}>([
    {actions: [], destructive: false},
    {actions: ['none', 'none'], destructive: false},
    {actions: ['create', 'none'], destructive: false},
    {actions: ['none', 'delete'], destructive: true},
    {actions: ['create', 'recreate'], destructive: true},
  ])('$actions -> destructive $destructive', ({actions, destructive}) => {
    expect(isDestructive(plan(actions))).toBe(destructive)
  })

  it('counts steps by action, including zeros', () => {
    expect(summarize(plan(['none', 'create', 'create', 'delete', 'none', 'recreate', 'none']))).toEqual({
      create: 2,
      delete: 1,
      recreate: 1,
      update: 0,
      none: 3,
    })
    expect(summarize(plan([]))).toEqual({create: 0, delete: 0, recreate: 0, update: 0, none: 0})
  })

  it('sees the cluster step too', () => {
    expect(isDestructive(planCluster(d1, undefined))).toBe(false)
    expect(summarize(planCluster(d1, undefined))).toEqual({create: 2, delete: 0, recreate: 0, update: 0, none: 0})
    expect(isDestructive(planCluster(d1, anObservedCluster({nodePools: matching(d1, 0, 1)})))).toBe(true)
  })
})

/** A small deterministic pseudo-random generator (Numerical Recipes LCG), so failures reproduce. */
function lcg(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

describe('planNodePools properties (200 seeded random clusters)', () => {
  const VARIANTS: readonly ClusterCreateFlags[] = [
    {tpuType: 'v5p-16'},
    {tpuType: 'v5p-16', onDemand: true},
    {tpuType: 'v5p-16', reservation: 'r1,r2,r3'},
    {tpuType: 'v5p-16', flex: true},
    {tpuType: 'v5p-8'},
    {tpuType: 'tpu7x-16', reservation: 'r1'},
    {deviceType: 'h100-80gb-8', numNodes: 2},
    {deviceType: 'gb200-4', flex: true},
    {deviceType: 'n2-standard-32-4', onDemand: true},
  ]
  const STATUSES: readonly NodePoolStatus[] = [
    'RUNNING',
    'RUNNING',
    'RUNNING',
    'PROVISIONING',
    'RECONCILING',
    'RUNNING_WITH_ERROR',
    'ERROR',
    'STOPPING',
  ]
  const MUTATIONS: readonly Partial<ObservedNodePool>[] = [
    {},
    {},
    {},
    {machineType: 'e2-standard-8'},
    {capacity: 'on-demand'},
    {capacity: 'spot'},
    {locations: ['us-central2-a']},
    {nodeCount: 7},
    {reservation: 'stale-res'},
    {placementType: null, placementPolicyName: null},
  ]
  const FOREIGN = ['default-pool', 'demo-gpu', 'othercluster-np-0', 'cpu-np']

  interface World {
    readonly seed: number
    readonly desired: DesiredCluster
    readonly pools: readonly ObservedNodePool[]
  }

  function randomWorld(seed: number): World {
    const random = lcg(seed)
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]
    const variant = pick(VARIANTS)
    const slices = Math.floor(random() * 6)
    // A GPU cluster is one pool, so only 0 or 1 slices are valid for it.
    const isGpu = variant.deviceType !== undefined && !variant.deviceType.startsWith('n2-')
    const desired = desiredFor({...variant, numSlices: isGpu ? Math.min(slices, 1) : slices})
    const pools: ObservedNodePool[] = []
    const ownNames = [0, 1, 2, 3, 4, 5, 6, 7, 10, 11].map((i) => `demo-np-${i}`).concat('demo-np-extra')
    for (const name of ownNames) {
      if (random() < 0.35) {
        const reservation = desired.reservations.length > 0 ? pick(desired.reservations) : null
        pools.push(
          aMatchingPool(desired, name, {status: pick(STATUSES), statusMessage: 'msg', reservation, ...pick(MUTATIONS)}),
        )
      }
    }
    for (const name of FOREIGN) if (random() < 0.3) pools.push(anObservedPool({name, status: pick(STATUSES)}))
    for (let i = pools.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[pools[i], pools[j]] = [pools[j], pools[i]]
    }
    return {seed, desired, pools}
  }

  const isOwn = (name: string) => name.startsWith('demo-np-')
  const WORLDS = Array.from({length: 200}, (_, i) => randomWorld(i * 7919 + 1))

  it('generates varied worlds (the property tests below are not vacuous)', () => {
    const steps = WORLDS.flatMap((w) => planNodePools(w.desired, w.pools))
    const actions = new Set(steps.map((s) => s.action))
    expect([...actions].sort()).toEqual(['create', 'delete', 'none', 'recreate'])
    expect(steps.some((s) => !s.managed)).toBe(true)
    expect(WORLDS.some((w) => w.pools.some((p) => p.status === 'STOPPING' && isOwn(p.name)))).toBe(true)
  })

  it.each(WORLDS)('seed $seed: invariants hold', ({desired, pools}) => {
    const steps = planNodePools(desired, pools)
    const observedNames = new Set(pools.map((p) => p.name))

    // One step per observed pool plus one per new pool, no name twice.
    expect(new Set(steps.map((s) => s.name)).size).toBe(steps.length)
    for (const name of observedNames) expect(steps.filter((s) => s.name === name)).toHaveLength(1)

    // Exactly poolCount pools of ours remain: kept (none with a spec), recreated and created ones.
    const remaining = steps.filter((s) => s.spec !== null)
    expect(remaining).toHaveLength(desired.poolCount)
    for (const s of remaining) {
      expect(s.managed).toBe(true)
      expect(s.spec?.name).toBe(s.name)
    }

    // Foreign pools are never changed.
    for (const s of steps.filter((s) => !isOwn(s.name))) {
      expect(s).toMatchObject({action: 'none', managed: false, spec: null})
    }

    // STOPPING pools of ours are left to finish, or their name is taken by a new pool once they are gone.
    const stopping = new Set(pools.filter((p) => isOwn(p.name) && p.status === 'STOPPING').map((p) => p.name))
    for (const name of stopping) {
      const step = steps.find((s) => s.name === name)!
      if (step.action === 'create') expect(step.afterDeletion).toBe(true)
      else expect(step).toMatchObject({action: 'none', spec: null})
    }

    // Created pools get unique, numbered names: fresh ones, or those of pools still being deleted.
    const created = steps.filter((s) => s.action === 'create').map((s) => s.name)
    expect(new Set(created).size).toBe(created.length)
    for (const name of created) {
      expect(observedNames.has(name) && !stopping.has(name)).toBe(false)
      expect(name).toMatch(/^demo-np-\d+$/)
    }
    // The lowest indexes are used first: no created pool's index is above a free one (canonical names).
    const indexOf = (n: string) => Number(n.slice('demo-np-'.length))
    const used = new Set(steps.filter((s) => s.spec !== null).map((s) => s.name))
    for (const name of created) {
      for (let i = 0; i < indexOf(name); i++) {
        const lower = `demo-np-${i}`
        expect(used.has(lower) || (observedNames.has(lower) && !stopping.has(lower))).toBe(true)
      }
    }

    // Deletions and recreations only ever touch our own pools that exist and are not already stopping.
    for (const s of steps.filter((s) => s.action === 'delete' || s.action === 'recreate')) {
      const pool = pools.find((p) => p.name === s.name)
      expect(pool && isOwn(pool.name) && pool.status !== 'STOPPING').toBe(true)
    }

    // Nothing left unchanged is broken or different from the request.
    for (const s of steps.filter((s) => s.action === 'none' && s.spec !== null)) {
      const pool = pools.find((p) => p.name === s.name)!
      expect(pool.status).not.toBe('ERROR')
      expect(differencesFrom(desired.poolTemplate, desired.reservations, pool)).toEqual([])
    }

    // Reservation capacity: every pool we create is on one of the requested reservations.
    if (desired.poolTemplate.capacity === 'reservation') {
      for (const s of remaining) expect(desired.reservations).toContain(s.spec?.reservation)
    }

    // Applying the plan and planning again changes nothing.
    const after: ObservedNodePool[] = [
      ...remaining.map((s) => observedPoolFrom(s.spec!)),
      ...pools.filter((p) => !isOwn(p.name) || (p.status === 'STOPPING' && !created.includes(p.name))),
    ]
    const replanned = planNodePools(desired, after)
    expect(replanned.filter((s) => s.action !== 'none')).toEqual([])
    expect(replanned.filter((s) => s.spec !== null).map((s) => s.name)).toEqual(remaining.map((s) => s.name))
  })
})

describe('planCluster: super-slicing', () => {
  const BLOCK = 'r/reservationBlocks/b'
  const desired = {
    ...desiredFor({tpuType: 'tpu7x-4x4x4', superSlicing: true, numCubes: 2, reservation: BLOCK}),
    poolReservations: [`${BLOCK}/reservationSubBlocks/s2`],
    reservationRoom: new Map([[`${BLOCK}/reservationSubBlocks/s2`, 1]]),
  }

  it('keeps a cube on any sub-block of the item (even one now full) and puts a new one where there is room', () => {
    const kept = aMatchingPool(desired, 'demo-np-0', {reservation: `${BLOCK}/reservationSubBlocks/s1`})
    const plan = planCluster(desired, anObservedCluster({nodePools: [kept]}), 'exists')
    expect(plan.steps.filter((s) => s.resource === 'nodePool').map((s) => [s.name, s.action])).toEqual([
      ['demo-np-0', 'none'],
      ['demo-np-1', 'create'],
    ])
    const created = plan.steps.find((s) => s.name === 'demo-np-1')?.spec as {reservation: string}
    expect(created.reservation).toBe(`${BLOCK}/reservationSubBlocks/s2`)
  })

  it('recreates a pool on another reservation, and a cube of the plain (not -ss) policy', () => {
    const elsewhere = aMatchingPool(desired, 'demo-np-0', {
      reservation: 'other/reservationBlocks/b/reservationSubBlocks/s1',
    })
    const plain = aMatchingPool(desired, 'demo-np-1', {
      reservation: `${BLOCK}/reservationSubBlocks/s1`,
      placementPolicyName: 'tpu7x-128-4x4x4-placement-policy',
    })
    expect(differencesFrom(desired.poolTemplate, desired.reservations, elsewhere, true)).toEqual([
      `reservation other/reservationBlocks/b/reservationSubBlocks/s1 → ${BLOCK}`,
    ])
    expect(differencesFrom(desired.poolTemplate, desired.reservations, plain, true)).toEqual([
      'placement workload policy tpu7x-128-4x4x4-placement-policy → workload policy tpu7x-128-4x4x4-ss-placement-policy',
    ])
    // Without super-slicing a sub-block is not the item.
    expect(differencesFrom(desired.poolTemplate, desired.reservations, plain, false)).toHaveLength(2)
  })

  it('warns that an existing cluster without the slice controller keeps running without it', () => {
    const plan = planCluster(desired, anObservedCluster(), 'exists')
    expect(plan.warnings.join('\n')).toContain("--super-slicing needs GKE's slice controller")
    expect(planCluster(desired, anObservedCluster({sliceController: true}), 'exists').warnings).toEqual([])
  })
})

describe('cluster create-ray: GKE’s Ray operator addon', () => {
  const ray = v5p(2, {rayVersion: '2.38.0'})
  it('a new cluster asks for it in the create request, not by an update', () => {
    const plan = planCluster(ray, undefined)
    const create = plan.steps.find((s) => s.resource === 'cluster')
    expect(create).toMatchObject({action: 'create', spec: {rayOperator: true}})
    expect(plan.steps.filter((s) => s.resource === 'clusterUpdate')).toEqual([])
    expect(ray.ray).toEqual({version: '2.38.0'})
  })
  it.each([
    {case: 'without the addon: one update', addon: {}, action: 'update'},
    {case: 'with it: nothing sent (a re-run)', addon: {rayOperator: true}, action: 'none'},
  ])('an existing cluster $case', ({addon, action}) => {
    const plan = planCluster(ray, anObservedCluster({...addon, nodePools: matching(ray, 0, 1)}))
    const updates = plan.steps.filter((s) => s.resource === 'clusterUpdate')
    expect(updates).toEqual([expect.objectContaining({action, spec: {kind: 'rayOperator'}})])
  })
  it('cluster create (no --ray-version) asks for no addon and leaves one that is on alone', () => {
    expect(v5p(1).spec.rayOperator).toBeUndefined()
    const plan = planCluster(v5p(1), anObservedCluster({rayOperator: true, nodePools: matching(v5p(1), 0)}))
    expect(plan.steps.filter((s) => s.resource === 'clusterUpdate')).toEqual([])
  })
})
