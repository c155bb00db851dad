import {describe, expect, it} from 'vitest'

import type {Capacity} from '../../../src/core/cluster/spec.js'
import {topologyAwareSchedulingPossible} from '../../../src/core/incluster/topology-aware.js'
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
