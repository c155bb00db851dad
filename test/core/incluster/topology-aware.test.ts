import {describe, expect, it} from 'vitest'

import type {ClusterCreateFlags} from '../../../src/core/cluster/desired.js'
import type {ObservedNodePool} from '../../../src/core/cluster/observed.js'
import {planCluster} from '../../../src/core/cluster/plan.js'
import type {Capacity} from '../../../src/core/cluster/spec.js'
import {
  placementAfterPlan,
  topologyAwareSchedulingPossible,
  topologyAwareSchedulingReason,
} from '../../../src/core/incluster/topology-aware.js'
import {aMatchingPool, anObservedCluster, anObservedPool, desiredFor} from '../../builders/observed.js'
import {accelerator} from './cluster-shapes.js'

describe('topologyAwareSchedulingPossible (Python is_GPU_TAS_possible, without its dry-run yes)', () => {
  it.each<{type: string; capacity: Capacity; compact: boolean; possible: boolean; why: string}>([
    {type: 'v5p-16', capacity: 'flex', compact: true, possible: false, why: 'TPUs never'},
    {type: 'n2-standard-32-4', capacity: 'flex', compact: true, possible: false, why: 'CPUs never'},
    {type: 'l4-1', capacity: 'flex', compact: true, possible: false, why: 'l4 needs no topology'},
    {type: 'a100-40gb-8', capacity: 'reservation', compact: true, possible: false, why: 'a100 needs no topology'},
    {type: 'h100-80gb-8', capacity: 'on-demand', compact: true, possible: false, why: 'h100 on-demand lacks labels'},
    {type: 'h100-mega-80gb-8', capacity: 'spot', compact: true, possible: false, why: 'h100-mega on spot neither'},
    {type: 'h100-80gb-8', capacity: 'flex', compact: false, possible: true, why: 'flex always'},
    {type: 'h100-mega-80gb-8', capacity: 'reservation', compact: true, possible: true, why: 'reserved + compact'},
    {type: 'h100-80gb-8', capacity: 'reservation', compact: false, possible: false, why: 'reserved, no compact pool'},
    {type: 'h200-141gb-8', capacity: 'on-demand', compact: true, possible: true, why: 'h200 with a compact pool'},
    {type: 'b200-8', capacity: 'spot', compact: false, possible: false, why: 'b200 without a compact pool'},
    {type: 'gb200-4', capacity: 'flex', compact: false, possible: true, why: 'gb200 on flex'},
  ])('$type on $capacity, compact pool $compact: $possible ($why)', (c) => {
    expect(topologyAwareSchedulingPossible(accelerator(c.type), c.capacity, {compactPlacementPool: c.compact})).toBe(
      c.possible,
    )
  })
})

describe('placementAfterPlan: the node pools as they will be once the GKE steps are done', () => {
  const h200 = {deviceType: 'h200-141gb-8', numNodes: '2', reservation: 'res-a'}
  const compact = (name: string, overrides: Partial<ObservedNodePool> = {}) =>
    anObservedPool({name, placementType: 'COMPACT', tpuTopology: null, ...overrides})
  const loose = (name: string, overrides: Partial<ObservedNodePool> = {}) =>
    anObservedPool({name, placementType: null, tpuTopology: null, ...overrides})

  it.each<{name: string; flags: ClusterCreateFlags; pools: ObservedNodePool[] | null; compact: string[]}>([
    {name: 'new GPU cluster: xpk creates its GPU pool without COMPACT', flags: h200, pools: null, compact: []},
    {name: 'new multi-host TPU cluster: its slices are COMPACT', flags: {}, pools: null, compact: ['demo-np-0']},
    {
      name: 'a foreign COMPACT pool (Cluster Toolkit, by hand) counts, as in Python',
      flags: h200,
      pools: [compact('a3-compact'), loose('default-pool')],
      compact: ['a3-compact'],
    },
    {
      name: "xpk's own GPU pool with COMPACT is recreated as xpk makes it, without: does not count",
      flags: h200,
      pools: [aMatchingPool(desiredFor(h200), 'demo-np-0', {placementType: 'COMPACT'})],
      compact: [],
    },
    {
      name: "xpk's own TPU slice kept unchanged (COMPACT) counts",
      flags: {},
      pools: [aMatchingPool(desiredFor({}), 'demo-np-0')],
      compact: ['demo-np-0'],
    },
    {
      name: 'a COMPACT pool the plan deletes does not count',
      flags: h200,
      pools: [loose('demo-np-0'), compact('demo-np-1')],
      compact: [],
    },
    {
      name: 'a pool being deleted (STOPPING) does not count',
      flags: h200,
      pools: [compact('other', {status: 'STOPPING'})],
      compact: [],
    },
    {name: 'no pool has COMPACT placement', flags: h200, pools: [loose('default-pool')], compact: []},
  ])('$name', ({flags, pools, compact: expected}) => {
    const desired = desiredFor(flags)
    const observed = pools === null ? undefined : anObservedCluster({nodePools: pools})
    const placement = placementAfterPlan(planCluster(desired, observed), observed)
    expect(placement.compactPools).toEqual(expected)
    expect(placement.compactPlacementPool).toBe(expected.length > 0)
  })

  it('a kept pool recreated with the desired spec is judged by that spec, not by what it was', () => {
    // v5p-16 wanted; demo-np-0 is a v5e pool without COMPACT: recreated as a compact v5p slice.
    const desired = desiredFor({})
    const observed = anObservedCluster({nodePools: [loose('demo-np-0', {machineType: 'ct5lp-hightpu-4t'})]})
    const plan = planCluster(desired, observed)
    expect(plan.steps.find((s) => s.name === 'demo-np-0')?.action).toBe('recreate')
    expect(placementAfterPlan(plan, observed).compactPools).toEqual(['demo-np-0'])
  })
})

describe('topologyAwareSchedulingReason: the plan line of the Topology says why', () => {
  it.each<{type: string; capacity: Capacity; pools: string[]; reason: string | undefined}>([
    {type: 'h200-141gb-8', capacity: 'flex', pools: [], reason: 'flex-start nodes carry GKE network-topology labels'},
    {type: 'h200-141gb-8', capacity: 'spot', pools: ['a'], reason: 'node pool a has COMPACT placement'},
    {type: 'h200-141gb-8', capacity: 'spot', pools: ['a', 'b'], reason: 'node pools a, b have COMPACT placement'},
    {
      type: 'b200-8',
      capacity: 'reservation',
      pools: ['a', 'b', 'c', 'd', 'e'],
      reason: 'node pools a, b, c, 2 more have COMPACT placement',
    },
    {type: 'h200-141gb-8', capacity: 'spot', pools: [], reason: undefined},
    {type: 'v5p-16', capacity: 'flex', pools: ['a'], reason: undefined},
  ])('$type on $capacity, compact pools $pools', ({type, capacity, pools, reason}) => {
    const observed = {compactPlacementPool: pools.length > 0, compactPools: pools}
    expect(topologyAwareSchedulingReason(accelerator(type), capacity, observed)).toBe(reason)
  })
})
