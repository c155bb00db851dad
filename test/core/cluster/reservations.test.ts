import {describe, expect, it} from 'vitest'

import {resolveAccelerator} from '../../../src/core/catalog/lookup.js'
import {
  checkReservations,
  reservationRef,
  reservationShortage,
  type ObservedReservation,
  type ObservedReservationBlock,
  type ReservationRead,
  type ReservationTarget,
} from '../../../src/core/cluster/reservations.js'

const ZONE = 'us-east5-a'
const v5p128 = resolveAccelerator({tpuType: 'v5p-128'}) // 16 VMs of ct5p-hightpu-4t, 4 chips each
const h100 = resolveAccelerator({deviceType: 'h100-80gb-8'})
const cpu = resolveAccelerator({deviceType: 'n2-standard-32-4'})
const tpu: ReservationTarget = {accelerator: v5p128, zone: ZONE, vmsPerPool: 16}

function specific(count: number, inUseCount: number, more: Partial<ObservedReservation> = {}): ObservedReservation {
  return {
    name: 'r1',
    zone: ZONE,
    status: 'READY',
    specific: {machineType: 'ct5p-hightpu-4t', guestAccelerators: [], count, inUseCount, maintenanceInterval: null},
    aggregate: null,
    deploymentType: null,
    resourcePolicies: [],
    specificReservationRequired: false,
    shareType: null,
    ...more,
  }
}
const read = (path: string, reservation: ObservedReservation | undefined, more: Partial<ReservationRead> = {}) => ({
  ref: reservationRef(path, 'p1'),
  reservation,
  ...more,
})
const block = (count: number, inUseCount: number, more: Partial<ObservedReservationBlock> = {}) => ({
  name: 'b',
  count,
  inUseCount,
  status: 'READY',
  health: 'HEALTHY',
  ...more,
})

describe('reservationRef', () => {
  it.each([
    ['r1', {project: 'p1', name: 'r1', block: null, subBlock: null}],
    ['projects/other/reservations/r1', {project: 'other', name: 'r1', block: null, subBlock: null}],
    ['r1/reservationBlocks/b1', {project: 'p1', name: 'r1', block: 'b1', subBlock: null}],
    [
      'projects/other/reservations/r1/reservationBlocks/b1/reservationSubBlocks/s1',
      {project: 'other', name: 'r1', block: 'b1', subBlock: 's1'},
    ],
  ])('%s', (path, want) => {
    expect(reservationRef(path, 'p1')).toEqual({path, ...want})
  })
})

describe('checkReservations: one verdict per item', () => {
  const ok = (free: string, freeSlices: number) => ({free, freeSlices})
  const cases: [string, ReservationRead, ReservationTarget, {problem: string} | {free: string; freeSlices: number}][] =
    [
      ['missing', read('r1', undefined), tpu, {problem: 'no reservation r1 in project p1, zone us-east5-a'}],
      [
        'missing, shared',
        read('projects/other/reservations/r1', undefined),
        tpu,
        {problem: 'no reservation r1 in project other, zone us-east5-a'},
      ],
      [
        'not READY',
        read('r1', specific(64, 0, {status: 'CREATING'})),
        tpu,
        {problem: 'reservation r1 is CREATING, not READY'},
      ],
      [
        'in another zone',
        read('r1', specific(64, 0, {zone: 'us-east5-b'})),
        tpu,
        {problem: 'reservation r1 is in zone us-east5-b; the node pools are in us-east5-a'},
      ],
      [
        'another machine type',
        read('r1', specific(64, 0, {specific: {...specific(64, 0).specific!, machineType: 'ct6e-standard-4t'}})),
        tpu,
        {problem: 'reservation r1 reserves ct6e-standard-4t VMs; v5p-128 needs ct5p-hightpu-4t'},
      ],
      ['specific, room for 3 slices', read('r1', specific(64, 12)), tpu, ok('52 of 64 VMs free', 3)],
      ['specific, in use beyond its count', read('r1', specific(4, 9)), tpu, ok('0 of 4 VMs free', 0)],
      [
        'GPU without the GPU',
        read('g', specific(4, 0, {specific: {...specific(4, 0).specific!, machineType: 'a3-highgpu-8g'}})),
        {accelerator: h100, zone: ZONE, vmsPerPool: 2},
        {problem: 'reservation g reserves no nvidia-h100-80gb GPUs (it has none), which h100-80gb-8 needs'},
      ],
      [
        'GPU with the GPU: --num-nodes VMs per pool',
        read(
          'g',
          specific(5, 0, {
            specific: {
              ...specific(5, 0).specific!,
              machineType: 'a3-highgpu-8g',
              guestAccelerators: [{type: 'nvidia-h100-80gb', count: 8}],
            },
          }),
        ),
        {accelerator: h100, zone: ZONE, vmsPerPool: 2},
        ok('5 of 5 VMs free', 2),
      ],
      [
        'CPU by machine type',
        read('c', specific(8, 0, {specific: {...specific(8, 0).specific!, machineType: 'n2-standard-32'}})),
        {accelerator: cpu, zone: ZONE, vmsPerPool: 4},
        ok('8 of 8 VMs free', 2),
      ],
      [
        'aggregate TPU by zone and type prefix, counted in chips',
        read('agg', {
          ...specific(0, 0),
          specific: null,
          aggregate: {
            reserved: [
              {
                type: `https://compute.googleapis.com/compute/v1/projects/1234/zones/${ZONE}/acceleratorTypes/ct5p`,
                count: 200,
              },
            ],
            inUse: [
              {
                type: `https://compute.googleapis.com/compute/v1/projects/1234/zones/${ZONE}/acceleratorTypes/ct5p`,
                count: 64,
              },
            ],
          },
        }),
        tpu,
        ok('136 of 200 ct5p chips free', 2),
      ],
      [
        'aggregate of another accelerator',
        read('agg', {
          ...specific(0, 0),
          specific: null,
          aggregate: {reserved: [{type: `projects/p1/zones/${ZONE}/acceleratorTypes/tpu7x`, count: 512}], inUse: []},
        }),
        tpu,
        {problem: 'reservation agg reserves no ct5p accelerators, which v5p-128 needs'},
      ],
      [
        'aggregate in another zone',
        read('agg', {
          ...specific(0, 0),
          specific: null,
          aggregate: {reserved: [{type: `projects/p1/zones/us-east5-b/acceleratorTypes/ct5p`, count: 512}], inUse: []},
        }),
        tpu,
        {problem: 'reservation agg reserves no ct5p accelerators, which v5p-128 needs'},
      ],
      [
        'neither kind',
        read('r1', {...specific(0, 0), specific: null}),
        tpu,
        {problem: 'reservation r1 reserves neither VMs nor accelerators that xpk can count'},
      ],
      [
        'a block counts its own hosts',
        read('r1/reservationBlocks/b', specific(64, 0), {block: block(32, 10)}),
        tpu,
        ok('block b: 22 of 32 hosts free', 1),
      ],
      [
        'a missing block',
        read('r1/reservationBlocks/b', specific(64, 0), {block: null}),
        tpu,
        {problem: 'reservation r1 has no block b'},
      ],
      [
        'a sub-block',
        read('r1/reservationBlocks/b/reservationSubBlocks/s', specific(64, 0), {
          block: block(32, 0),
          subBlock: block(16, 0),
        }),
        tpu,
        ok('sub-block s of block b: 16 of 16 hosts free', 1),
      ],
      [
        'a degraded sub-block holds nothing',
        read('r1/reservationBlocks/b/reservationSubBlocks/s', specific(64, 0), {
          block: block(32, 0),
          subBlock: block(16, 0, {health: 'DEGRADED'}),
        }),
        tpu,
        ok('sub-block s of block b: 16 of 16 hosts free, but DEGRADED', 0),
      ],
      [
        'a missing sub-block',
        read('r1/reservationBlocks/b/reservationSubBlocks/s', specific(64, 0), {block: block(32, 0), subBlock: null}),
        tpu,
        {problem: 'reservation r1 has no sub-block s of block b'},
      ],
    ]
  it.each(cases)('%s', (_name, item, target, want) => {
    const verdict = checkReservations([item], target)
    if ('problem' in want) {
      expect(verdict).toEqual({problems: [want.problem], capacities: []})
    } else {
      expect(verdict).toEqual({problems: [], capacities: [{path: item.ref.path, ...want}]})
    }
  })
})

describe('reservationShortage', () => {
  const cap = (path: string, freeSlices: number, free: string) => ({path, freeSlices, free})

  it('gives the numbers for one reservation that cannot hold the new slices', () => {
    expect(reservationShortage([cap('r1', 0, '12 of 64 VMs free')], tpu, 4)).toBe(
      'reservation r1 has 12 of 64 VMs free; 4 new slices of v5p-128 need 64 (16 VMs each)',
    )
  })

  it('adds the slices of several reservations, as Python xpk does, and lists each', () => {
    const caps = [cap('r1', 1, '20 of 64 VMs free'), cap('projects/o/reservations/r2', 2, '32 of 32 VMs free')]
    expect(reservationShortage(caps, tpu, 3)).toBeNull()
    expect(reservationShortage(caps, tpu, 4)).toBe(
      'reservations r1 and projects/o/reservations/r2 hold 3 slices together (r1: 20 of 64 VMs free, 1 slice; projects/o/reservations/r2: 32 of 32 VMs free, 2 slices); 4 new slices of v5p-128 need 64 (16 VMs each)',
    )
  })

  it('speaks of a pool of --num-nodes VMs for GPUs', () => {
    expect(
      reservationShortage([cap('g', 0, '1 of 4 VMs free')], {accelerator: h100, zone: ZONE, vmsPerPool: 2}, 1),
    ).toBe('reservation g has 1 of 4 VMs free; a pool of 2 h100-80gb-8 VMs needs 2')
  })

  it('has nothing to say when no pool is created or there is room', () => {
    expect(reservationShortage([cap('r1', 0, '0 of 64 VMs free')], tpu, 0)).toBeNull()
    expect(reservationShortage([cap('r1', 4, '64 of 64 VMs free')], tpu, 4)).toBeNull()
  })
})
