// cluster adapt's reading of a cluster made by another tool: the type and size its accelerator pools hold, what is
// counted and why not, what the flags may change, and the refusals (exit 2) that say what was found.
import {describe, expect, it} from 'vitest'

import {
  acceleratorOfPool,
  adaptFindings,
  checkAdaptFlags,
  type ClusterAdaptFlags,
} from '../../../src/core/cluster/adapt.js'
import type {ObservedNodePool} from '../../../src/core/cluster/observed.js'
import {UsageError, UsageErrors} from '../../../src/core/errors.js'
import {anObservedCluster, anObservedPool} from '../../builders/observed.js'

const target = {cluster: 'demo', project: 'test-project', zone: 'us-central2-b'}
/** A v5p-16 slice (2 x ct5p-hightpu-4t, 2x2x2), as Cluster Toolkit names its pools. */
const v5p = (name: string, more: Partial<ObservedNodePool> = {}) => anObservedPool({name, ...more})
const h100 = (name: string, nodes: number, more: Partial<ObservedNodePool> = {}) =>
  anObservedPool({
    name,
    machineType: 'a3-highgpu-8g',
    nodeCount: nodes,
    tpuTopology: null,
    placementType: null,
    gpu: {type: 'nvidia-h100-80gb', count: 8},
    ...more,
  })
/** Single-host v5p-8 VMs (2x2x1): each VM is a slice. */
const v5p8 = (name: string, nodes: number) =>
  anObservedPool({name, tpuTopology: '2x2x1', nodeCount: nodes, placementType: null})
const cpu = anObservedPool({
  name: 'default-pool',
  machineType: 'e2-standard-16',
  nodeCount: 3,
  tpuTopology: null,
  placementType: null,
})

function find(pools: readonly ObservedNodePool[], flags: ClusterAdaptFlags = {}) {
  return adaptFindings(checkAdaptFlags({...target, ...flags}), anObservedCluster({nodePools: pools}))
}
function refused(run: () => unknown): UsageError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError)
    return error instanceof UsageErrors ? error.problems[0]! : (error as UsageError)
  }
  throw new Error('not refused')
}

describe('acceleratorOfPool', () => {
  it.each([
    [v5p('a'), 'v5p-16'],
    [v5p('a', {tpuTopology: '4x4x4', nodeCount: 16}), 'v5p-128'],
    [v5p8('a', 1), 'v5p-8'],
    [anObservedPool({machineType: 'ct5lp-hightpu-4t', tpuTopology: '4x4', nodeCount: 4}), 'v5litepod-16'],
    [anObservedPool({machineType: 'ct6e-standard-4t', tpuTopology: '4x4', nodeCount: 4}), 'v6e-16'],
    [anObservedPool({machineType: 'tpu7x-standard-4t', tpuTopology: '2x2x2', nodeCount: 2}), 'tpu7x-16'],
    [h100('g', 2), 'h100-80gb-8'],
    [h100('g', 2, {gpu: null}), 'h100-80gb-8'],
    [cpu, undefined],
    [anObservedPool({machineType: 'ct5p-hightpu-4t', tpuTopology: '3x3x3'}), undefined],
  ])('%#: %s', (pool, type) => {
    expect(acceleratorOfPool(pool)?.canonical).toBe(type)
  })
})

describe('adaptFindings: what the pools hold', () => {
  const cases: {
    name: string
    pools: ObservedNodePool[]
    flags?: ClusterAdaptFlags
    expected: {
      type: string
      slices: number
      vms: number
      numSlices: number
      numNodes: number
      capacity: string
      reservation?: string | null
    }
    counted: string[]
  }[] = [
    {
      name: 'three v5p-16 pools and the default pool: 3 slices',
      pools: [v5p('ct-a'), v5p('ct-b'), v5p('ct-c'), cpu],
      expected: {type: 'v5p-16', slices: 3, vms: 6, numSlices: 3, numNodes: 0, capacity: 'on-demand'},
      counted: ['ct-a', 'ct-b', 'ct-c'],
    },
    {
      name: 'one single-host pool of 4 VMs: 4 slices of v5p-8',
      pools: [v5p8('ct-single', 4), cpu],
      expected: {type: 'v5p-8', slices: 4, vms: 4, numSlices: 4, numNodes: 0, capacity: 'on-demand'},
      counted: ['ct-single'],
    },
    {
      name: 'a GPU pool of 2 VMs on spot',
      pools: [h100('gpu', 2, {capacity: 'spot'}), cpu],
      expected: {type: 'h100-80gb-8', slices: 1, vms: 2, numSlices: 1, numNodes: 2, capacity: 'spot'},
      counted: ['gpu'],
    },
    {
      name: 'a GPU pool in two zones that autoscales to 4: 8 VMs',
      pools: [h100('gpu', 1, {locations: ['z-a', 'z-b'], autoscaling: {enabled: true, minNodes: 0, maxNodes: 4}})],
      expected: {type: 'h100-80gb-8', slices: 1, vms: 8, numSlices: 1, numNodes: 8, capacity: 'on-demand'},
      counted: ['gpu'],
    },
    {
      name: 'pools in ERROR, being made or deleted are not counted',
      pools: [
        v5p('ok'),
        v5p('bad', {status: 'ERROR', statusMessage: 'stockout'}),
        v5p('new', {status: 'PROVISIONING'}),
        v5p('old', {status: 'STOPPING'}),
        v5p('upgrading', {status: 'RECONCILING'}),
      ],
      expected: {type: 'v5p-16', slices: 2, vms: 4, numSlices: 2, numNodes: 0, capacity: 'on-demand'},
      counted: ['ok', 'upgrading'],
    },
    {
      name: 'mixed types with --tpu-type: only those pools, the others left alone',
      pools: [v5p('p1'), v5p('p2'), h100('gpu', 2)],
      flags: {tpuType: 'v5p-16'},
      expected: {type: 'v5p-16', slices: 2, vms: 4, numSlices: 2, numNodes: 0, capacity: 'on-demand'},
      counted: ['p1', 'p2'],
    },
    {
      name: 'an alias names the same pools (v5p-2x2x2)',
      pools: [v5p('p1')],
      flags: {tpuType: 'v5p-2x2x2'},
      expected: {type: 'v5p-16', slices: 1, vms: 2, numSlices: 1, numNodes: 0, capacity: 'on-demand'},
      counted: ['p1'],
    },
    {
      name: 'pools on two reservations: both recorded',
      pools: [
        v5p('p1', {capacity: 'reservation', reservation: 'r1'}),
        v5p('p2', {capacity: 'reservation', reservation: 'r2'}),
      ],
      expected: {
        type: 'v5p-16',
        slices: 2,
        vms: 4,
        numSlices: 2,
        numNodes: 0,
        capacity: 'reservation',
        reservation: 'r1,r2',
      },
      counted: ['p1', 'p2'],
    },
    {
      name: '--num-slices below the pools: the quota covers part of them',
      pools: [v5p('p1'), v5p('p2'), v5p('p3')],
      flags: {numSlices: '1'},
      expected: {type: 'v5p-16', slices: 3, vms: 6, numSlices: 1, numNodes: 0, capacity: 'on-demand'},
      counted: ['p1', 'p2', 'p3'],
    },
    {
      name: '--num-slices above the pools with --force: a warning',
      pools: [v5p('p1')],
      flags: {numSlices: '4', force: true},
      expected: {type: 'v5p-16', slices: 1, vms: 2, numSlices: 4, numNodes: 0, capacity: 'on-demand'},
      counted: ['p1'],
    },
    {
      name: 'a capacity flag wins over the pools (with a note)',
      pools: [v5p('p1')],
      flags: {spot: true},
      expected: {type: 'v5p-16', slices: 1, vms: 2, numSlices: 1, numNodes: 0, capacity: 'spot'},
      counted: ['p1'],
    },
  ]
  it.each(cases)('$name', ({pools, flags, expected, counted}) => {
    const found = find(pools, flags)
    expect({
      type: found.accelerator.canonical,
      slices: found.slicesFound,
      vms: found.vmsFound,
      numSlices: found.shape.numSlices,
      numNodes: found.shape.numNodes,
      capacity: found.shape.capacity,
      ...(expected.reservation === undefined ? {} : {reservation: found.shape.reservation}),
    }).toEqual(expected)
    expect(found.pools.filter((p) => p.counted).map((p) => p.name)).toEqual(counted)
    expect(found.pools.map((p) => p.name)).toEqual(pools.map((p) => p.name))
  })

  it('says why each pool is not counted', () => {
    const found = find([v5p('ok'), v5p('bad', {status: 'ERROR', statusMessage: 'stockout'}), h100('gpu', 2), cpu], {
      tpuType: 'v5p-16',
    })
    expect(found.pools.map((p) => `${p.name}: ${p.note}`)).toEqual([
      'ok: 1 slice, 2 VMs, on-demand',
      'bad: ERROR (stockout): not counted',
      'gpu: another type (h100-80gb-8): left alone',
      'default-pool: no accelerator: left alone',
    ])
  })

  it('--force and a capacity flag are said in the plan', () => {
    expect(find([v5p('p1')], {numSlices: '4', force: true}).warnings).toEqual([
      '--num-slices 4 asks for more than the v5p-16 pools hold (1 slice); going on because of --force.',
    ])
    expect(find([v5p('p1')], {spot: true}).notes).toEqual([
      'The pools use on-demand; the ConfigMap records spot, as given.',
    ])
  })
})

describe('adaptFindings: refusals say what was found (exit 2)', () => {
  const cases: {name: string; pools: ObservedNodePool[]; flags?: ClusterAdaptFlags; flag: string; message: string}[] = [
    {
      name: 'several types without --tpu-type',
      pools: [v5p('p1'), v5p('p2'), h100('gpu', 2)],
      flag: '--tpu-type',
      message: 'Cluster demo has v5p-16 (2 pools), h100-80gb-8 (1 pool): say which type xpk is to schedule.',
    },
    {
      name: 'no accelerator pools',
      pools: [cpu],
      flag: '--tpu-type',
      message: 'Cluster demo has no accelerator node pools: nothing for xpk to give Kueue.',
    },
    {
      name: 'only a TPU shape xpk does not know',
      pools: [anObservedPool({name: 'odd', tpuTopology: '3x3x3'})],
      flag: '--tpu-type',
      message: 'Cluster demo has odd (ct5p-hightpu-4t 3x3x3, a type xpk does not know): nothing for xpk to give Kueue.',
    },
    {
      name: 'no pool of the type asked for',
      pools: [v5p('p1'), cpu],
      flags: {tpuType: 'v6e-16'},
      flag: '--tpu-type',
      message: 'Cluster demo has no v6e-16 node pool: it has v5p-16 (1 pool).',
    },
    {
      name: 'every pool of the type in ERROR',
      pools: [v5p('p1', {status: 'ERROR'}), v5p('p2', {status: 'PROVISIONING'})],
      flag: '--tpu-type',
      message:
        "Cluster demo's v5p-16 node pools are not in service (p1 ERROR, p2 PROVISIONING): nothing to give Kueue.",
    },
    {
      name: '--num-slices above the pools',
      pools: [v5p('p1'), v5p('p2')],
      flags: {numSlices: '3'},
      flag: '--num-slices',
      message:
        '--num-slices 3 asks for more than the v5p-16 pools hold (2 slices): Kueue would admit workloads no node can run.',
    },
    {
      name: '--num-nodes above the GPU pool',
      pools: [h100('gpu', 2)],
      flags: {numNodes: '4'},
      flag: '--num-nodes',
      message:
        '--num-nodes 4 asks for more than the h100-80gb-8 pools hold (2 VMs): Kueue would admit workloads no node can run.',
    },
    {
      name: 'pools on different capacity without a flag',
      pools: [v5p('p1', {capacity: 'spot'}), v5p('p2')],
      flag: '--on-demand',
      message: "Cluster demo's pools use different capacity (spot, on-demand): say which one workloads use.",
    },
    {
      name: '--enable-autoprovisioning where GKE does not auto-provision the type',
      pools: [v5p('p1')],
      flags: {enableAutoprovisioning: true},
      flag: '--enable-autoprovisioning',
      message:
        '--enable-autoprovisioning: GKE does not auto-provision tpu-v5p-slice on cluster demo, and cluster adapt changes nothing in GKE.',
    },
  ]
  it.each(cases)('$name', ({pools, flags, flag, message}) => {
    const error = refused(() => find(pools, flags))
    expect(error.exitCode).toBe(2)
    expect(error.flag).toBe(flag)
    expect(error.message).toBe(message)
  })
})

describe('adaptFindings: node auto-provisioning as GKE has it', () => {
  const nap = {
    resourceLimits: [
      {resourceType: 'cpu', minimum: 1, maximum: 1_000_000},
      {resourceType: 'tpu-v5p-slice', minimum: 0, maximum: 64},
    ],
    locations: ['us-central2-b'],
  }
  const cluster = (pools: ObservedNodePool[]) => anObservedCluster({nodePools: pools, autoprovisioning: nap})

  it("takes GKE's chips for the quota, with no fixed pools needed", () => {
    const found = adaptFindings(
      checkAdaptFlags({...target, tpuType: 'v5p-16', enableAutoprovisioning: true}),
      cluster([cpu]),
    )
    expect(found.shape.autoprovisioning).toEqual({minimumChips: 0, maximumChips: 64})
  })

  it('refuses chip flags that differ from GKE', () => {
    const error = refused(() =>
      adaptFindings(
        checkAdaptFlags({...target, tpuType: 'v5p-16', enableAutoprovisioning: true, autoprovisioningMaxChips: '32'}),
        cluster([cpu]),
      ),
    )
    expect(error.flag).toBe('--autoprovisioning-max-chips')
  })

  it('without the flag, a note says GKE provisions the type', () => {
    expect(adaptFindings(checkAdaptFlags(target), cluster([v5p('p1')])).notes).toEqual([
      "GKE's node auto-provisioning provides tpu-v5p-slice too: add --enable-autoprovisioning to make its maximum Kueue's quota.",
    ])
  })
})

describe('checkAdaptFlags', () => {
  it.each([
    [{numNodes: '2', tpuType: 'v5p-16'}, '--num-nodes'],
    [{numSlices: '2', deviceType: 'h100-80gb-8'}, '--num-slices'],
    [{spot: true, flex: true}, '--spot'],
    [{autoprovisioningMaxChips: '8'}, '--autoprovisioning-max-chips'],
    [{enableAutoprovisioning: true, deviceType: 'h100-80gb-8'}, '--enable-autoprovisioning'],
    [{numSlices: 'two'}, '--num-slices'],
    [{cluster: undefined}, '--cluster'],
  ] as [ClusterAdaptFlags, string][])('%o is refused naming %s', (flags, flag) => {
    expect(refused(() => checkAdaptFlags({...target, ...flags})).flag).toBe(flag)
  })
})
