// The cluster's size as its node pools provide it after the GKE steps: what the quota and the resources ConfigMap
// describe (see src/core/incluster/running-pools.ts).
import {describe, expect, it} from 'vitest'

import type {ObservedNodePool} from '../../../src/core/cluster/observed.js'
import {shapeOfRunningPools} from '../../../src/core/incluster/running-pools.js'
import {desiredFor, observedPoolFrom} from '../../builders/observed.js'
import {aClusterShape} from './cluster-shapes.js'

const desired = desiredFor({tpuType: 'v5p-16', numSlices: '4'})
const pool = (name: string, overrides: Partial<ObservedNodePool> = {}) =>
  observedPoolFrom({...desired.poolTemplate, name, reservation: null}, overrides)
const shape = aClusterShape({numSlices: 4})

describe('shapeOfRunningPools', () => {
  it.each([
    {name: 'all four RUNNING', pools: [0, 1, 2, 3].map((i) => pool(`demo-np-${i}`)), slices: 4},
    {
      name: 'two of four in ERROR (a stockout)',
      pools: [
        pool('demo-np-0'),
        pool('demo-np-1'),
        pool('demo-np-2', {status: 'ERROR'}),
        pool('demo-np-3', {status: 'ERROR'}),
      ],
      slices: 2,
    },
    {
      name: 'one RUNNING_WITH_ERROR (counted as created, as the pool steps count it)',
      pools: [pool('demo-np-0'), pool('demo-np-1', {status: 'RUNNING_WITH_ERROR'})],
      slices: 2,
    },
    {
      name: 'pools still PROVISIONING, RECONCILING or STOPPING provide nothing',
      pools: [
        pool('demo-np-0'),
        pool('demo-np-1', {status: 'PROVISIONING'}),
        pool('demo-np-2', {status: 'RECONCILING'}),
        pool('demo-np-3', {status: 'STOPPING'}),
      ],
      slices: 1,
    },
    {
      name: "others' pools and the default pool do not count",
      pools: [pool('demo-np-0'), pool('default-pool'), pool('team-tpus')],
      slices: 1,
    },
    {
      name: 'a pool of another machine type (a recreate that failed) does not count',
      pools: [pool('demo-np-0'), pool('demo-np-1', {machineType: 'ct6e-standard-4t'})],
      slices: 1,
    },
    {
      name: 'more RUNNING than requested (a deletion that failed): all of them run, all count',
      pools: [0, 1, 2, 3, 4].map((i) => pool(`demo-np-${i}`)),
      slices: 5,
    },
    {name: 'none', pools: [], slices: 0},
  ])('$name: $slices slices', ({pools, slices}) => {
    expect(shapeOfRunningPools(shape, desired, pools)).toEqual({...shape, numSlices: slices})
  })

  it.each([
    {status: 'RUNNING', nodes: 2},
    {status: 'ERROR', nodes: 0},
  ] as const)('a GPU cluster whose pool is $status has $nodes VMs', ({status, nodes}) => {
    const gpu = desiredFor({deviceType: 'h100-80gb-8', numNodes: '2', reservation: 'res-a'})
    const gpuShape = aClusterShape({type: 'h100-80gb-8', numNodes: 2, capacity: 'reservation'})
    const gpuPool = observedPoolFrom(
      {...gpu.poolTemplate, name: 'demo-np-0', reservation: gpu.reservations[0]!},
      {status},
    )
    expect(shapeOfRunningPools(gpuShape, gpu, [gpuPool])).toEqual({...gpuShape, numNodes: nodes})
  })
})
