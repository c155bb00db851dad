// The workload side of sub- and super-slicing: which verdict Python xpk's check_if_workload_can_schedule reaches on
// a cluster whose Kueue has sub-slice-topology or super-slice-topology (and on the same clusters without them), the
// error each refusal turns into (exit 2, the flag, the numbers), and the rules of slicing.ts.
import {describe, expect, it} from 'vitest'

import {resolveAccelerator} from '../../../src/core/catalog/lookup.js'
import {UsageError} from '../../../src/core/errors.js'
import {parseResourcesConfigMap} from '../../../src/core/incluster/configmaps.js'
import {capacityProblem, checkCapacity, type CapacityRequest} from '../../../src/core/workload/capacity.js'
import {
  mightBeSliced,
  NO_SLICING,
  slicingFromTopologies,
  superSliceCubes,
  type ClusterSlicing,
} from '../../../src/core/workload/slicing.js'

function request(type: string, slices = 1, workload = 'run-1'): CapacityRequest {
  return {
    workload,
    cluster: 'demo',
    accelerator: resolveAccelerator({tpuType: type}),
    numSlices: slices,
    numNodes: 1,
    acceleratorFlag: '--tpu-type',
  }
}

const SUPER: ClusterSlicing = {sub: false, super: true}
const SUB: ClusterSlicing = {sub: true, super: false}
/** Python's super-slicing recipe: 5 cubes of tpu7x-4x4x4 (16 VMs each). */
const CUBES_5 = {'tpu7x-128': '80'}
/** Python's sub-slicing recipe: 2 slices of v6e-16 (4x4, 4 VMs each). */
const V6E_16 = {'v6e-16': '8'}

const verdict = (req: CapacityRequest, data: Record<string, string>, slicing: ClusterSlicing) =>
  checkCapacity(req, parseResourcesConfigMap(data), slicing)

describe('checkCapacity on sliced clusters (Python: check_if_workload_can_schedule)', () => {
  it.each<[string, CapacityRequest, Record<string, string>, ClusterSlicing, Record<string, unknown>]>([
    // Super-slicing comes first: every workload of the cluster's accelerator is a super-slice.
    [
      "Python's recipe: tpu7x-4x4x20 on 5 cubes",
      request('tpu7x-4x4x20'),
      CUBES_5,
      SUPER,
      {
        kind: 'fits-super-slicing',
        deviceType: 'tpu7x-128',
        cubesNeeded: 5,
        cubesAvailable: 5,
        vmsNeeded: 80,
        vmsAvailable: 80,
        slicing: {kind: 'super', topology: '4x4x20'},
      },
    ],
    [
      'two slices of 2 cubes',
      request('tpu7x-4x4x8', 2),
      CUBES_5,
      SUPER,
      {kind: 'fits-super-slicing', cubesNeeded: 4, slicing: {kind: 'super', topology: '4x4x8'}},
    ],
    [
      "the cluster's own type is a super-slice of one cube",
      request('tpu7x-128'),
      CUBES_5,
      SUPER,
      {kind: 'fits-super-slicing', cubesNeeded: 1, slicing: {kind: 'super', topology: '4x4x4'}},
    ],
    [
      'a 4x8x8 super-slice (4 cubes)',
      request('tpu7x-4x8x8'),
      CUBES_5,
      SUPER,
      {kind: 'fits-super-slicing', cubesNeeded: 4},
    ],
    [
      'one slice of 6 cubes on 5',
      request('tpu7x-4x4x24'),
      CUBES_5,
      SUPER,
      {kind: 'super-slicing-too-big', cubesNeeded: 6, cubesAvailable: 5, vmsNeeded: 96, vmsAvailable: 80},
    ],
    [
      'three slices of 2 cubes on 5',
      request('tpu7x-4x4x8', 3),
      CUBES_5,
      SUPER,
      {kind: 'super-slicing-too-big', cubesNeeded: 6, cubesAvailable: 5},
    ],
    [
      'less than a cube (2x2x1)',
      request('tpu7x-8'),
      CUBES_5,
      SUPER,
      {kind: 'super-slicing-topology', topology: '2x2x1', cubesAvailable: 5},
    ],
    ['a 2x4x4', request('tpu7x-2x4x4'), CUBES_5, SUPER, {kind: 'super-slicing-topology', topology: '2x4x4'}],
    ['a single chip (1x1x1)', request('tpu7x-2'), CUBES_5, SUPER, {kind: 'super-slicing-topology'}],
    // Without the Topology the cluster is an ordinary one (Python: has_super_slicing_enabled is false).
    [
      'the same cluster without super-slice-topology: the exact type only',
      request('tpu7x-128', 2),
      CUBES_5,
      NO_SLICING,
      {kind: 'fits', deviceType: 'tpu7x-128', vmsNeeded: 32},
    ],
    [
      'the same cluster without super-slice-topology: a larger type is another type',
      request('tpu7x-4x4x20'),
      CUBES_5,
      NO_SLICING,
      {kind: 'wrong-type', deviceType: 'tpu7x-640'},
    ],
    [
      'another accelerator on a super-slicing cluster',
      request('v5p-16'),
      CUBES_5,
      SUPER,
      {kind: 'wrong-type', deviceType: 'v5p-16'},
    ],
    [
      'a super-slice-topology on a cluster of a type that cannot super-slice (tpu7x-4x4x8)',
      request('tpu7x-4x4x20'),
      {'tpu7x-256': '32'},
      SUPER,
      {kind: 'wrong-type'},
    ],
    // Sub-slicing comes after the exact type.
    [
      "Python's recipe: v6e-2x4 on v6e-16 slices",
      request('v6e-2x4'),
      V6E_16,
      SUB,
      {
        kind: 'fits-sub-slicing',
        deviceType: 'v6e-16',
        vmsNeeded: 2,
        vmsAvailable: 8,
        slicing: {kind: 'sub', sliceTopology: '2x4', clusterTopology: '4x4'},
      },
    ],
    [
      'by its canonical name (v6e-8)',
      request('v6e-8', 4),
      V6E_16,
      SUB,
      {kind: 'fits-sub-slicing', vmsNeeded: 8, slicing: {kind: 'sub', sliceTopology: '2x4'}},
    ],
    [
      'more sub-slices than the VMs hold',
      request('v6e-2x4', 5),
      V6E_16,
      SUB,
      {kind: 'sub-slicing-too-big', vmsNeeded: 10, vmsAvailable: 8},
    ],
    [
      "the cluster's own type is an ordinary workload",
      request('v6e-16', 2),
      V6E_16,
      SUB,
      {kind: 'fits', deviceType: 'v6e-16', vmsNeeded: 8},
    ],
    [
      'a 2x2 is no sub-slice topology',
      request('v6e-4'),
      V6E_16,
      SUB,
      {kind: 'wrong-type', deviceType: 'v6e-4', subSliceTypes: ['v6e-8 (2x4)']},
    ],
    [
      'a sub-slice larger than the slice (4x8 on 4x4)',
      request('v6e-4x8'),
      V6E_16,
      SUB,
      {kind: 'wrong-type', subSliceTypes: ['v6e-8 (2x4)']},
    ],
    [
      '8x16 on 16x16 slices',
      request('v6e-8x16'),
      {'v6e-256': '128'},
      SUB,
      {kind: 'fits-sub-slicing', vmsNeeded: 32, slicing: {sliceTopology: '8x16', clusterTopology: '16x16'}},
    ],
    [
      'the same cluster without sub-slice-topology',
      request('v6e-2x4'),
      V6E_16,
      NO_SLICING,
      {kind: 'wrong-type', deviceType: 'v6e-8'},
    ],
  ])('%s', (_name, req, data, slicing, expected) => {
    expect(verdict(req, data, slicing)).toMatchObject(expected)
  })

  it('lists every sub-slice smaller than a 16x16 slice, smallest first', () => {
    expect(verdict(request('v6e-4'), {'v6e-256': '64'}, SUB)).toMatchObject({
      subSliceTypes: ['v6e-8 (2x4)', 'v6e-16 (4x4)', 'v6e-32 (4x8)', 'v6e-64 (8x8)', 'v6e-128 (8x16)'],
    })
  })

  it('without the Topology, no wrong-type verdict lists sub-slices', () => {
    expect(verdict(request('v6e-4'), V6E_16, NO_SLICING)).not.toHaveProperty('subSliceTypes')
  })
})

describe('capacityProblem on sliced clusters', () => {
  const problem = (req: CapacityRequest, data: Record<string, string>, slicing: ClusterSlicing) =>
    capacityProblem(req, verdict(req, data, slicing)) as UsageError | undefined

  it('fitting sub- and super-slices are no problem', () => {
    expect(problem(request('tpu7x-4x4x20'), CUBES_5, SUPER)).toBeUndefined()
    expect(problem(request('v6e-2x4'), V6E_16, SUB)).toBeUndefined()
  })

  it.each<[string, CapacityRequest, Record<string, string>, ClusterSlicing, string, string, string]>([
    [
      'one slice of more cubes than the cluster has: --tpu-type',
      request('tpu7x-4x4x24'),
      CUBES_5,
      SUPER,
      '--tpu-type',
      '--tpu-type: workload run-1 needs 6 cubes of 4x4x4 (1 slice of 4x4x24, 96 VMs), but cluster demo has 5 cubes ' +
        '(80 VMs of tpu7x-128), so it could never be admitted.',
      'Pick a topology of at most 5 cubes (tpu7x-4x4x4, tpu7x-4x4x8, tpu7x-4x4x12, tpu7x-4x4x16, ...), or add cubes ' +
        'with `xpk cluster create --cluster demo --tpu-type tpu7x-128 --super-slicing --num-cubes 6 ...`.',
    ],
    [
      'slices that each fit but not together: --num-slices',
      request('tpu7x-4x4x8', 3),
      CUBES_5,
      SUPER,
      '--num-slices',
      '--num-slices: workload run-1 needs 6 cubes of 4x4x4 (3 slices of 4x4x8, 96 VMs), but cluster demo has 5 cubes ' +
        '(80 VMs of tpu7x-128), so it could never be admitted.',
      'Ask for at most --num-slices 2, or add cubes with `xpk cluster create --cluster demo --tpu-type tpu7x-128 ' +
        '--super-slicing --num-cubes 6 ...`.',
    ],
    [
      'less than a cube: --tpu-type',
      request('tpu7x-8'),
      {'tpu7x-128': '16'},
      SUPER,
      '--tpu-type',
      "--tpu-type tpu7x-8: cluster demo is set up for super-slicing, where a workload runs on whole 4x4x4 cubes that GKE's " +
        'slice controller joins; 2x2x1 is not 4i x 4j x 4k with i <= j <= k and at most 144 cubes, so workload run-1 ' +
        'could never run there.',
      "Pick a topology of whole cubes, at most the cluster's 1 (tpu7x-4x4x4).",
    ],
    [
      'a super-slicing workload name over 28 characters: --workload',
      request('tpu7x-4x4x8', 1, 'a-workload-name-of-29-letters'),
      CUBES_5,
      SUPER,
      '--workload',
      "--workload a-workload-name-of-29-letters: a super-slicing workload's name is at most 28 characters (this one " +
        'has 29): GKE and Kueue add up to 35 to it in names limited to 63.',
      'Pick a name of at most 28 characters.',
    ],
    [
      'more sub-slices than the cluster has VMs for: --num-slices',
      request('v6e-2x4', 5),
      V6E_16,
      SUB,
      '--num-slices',
      '--num-slices: workload run-1 needs 10 VMs (5 sub-slices of 2x4), but cluster demo has 8 VMs of v6e-16 to ' +
        'share, so it could never be admitted.',
      'Ask for at most what the cluster has (--num-slices 4).',
    ],
    [
      'a type the cluster cannot sub-slice: --tpu-type, with the types it can',
      request('v6e-4x8'),
      V6E_16,
      SUB,
      '--tpu-type',
      '--tpu-type v6e-4x8: cluster demo has 8 VMs of v6e-16, set up for sub-slicing, which runs v6e-16 and the ' +
        'sub-slices that fit in its slice, not v6e-32 (4x8), so workload run-1 could never run there.',
      'Submit v6e-16 or a sub-slice of it: --tpu-type v6e-8 (2x4).',
    ],
  ])('%s', (_name, req, data, slicing, flag, message, hint) => {
    const error = problem(req, data, slicing)!
    expect(error).toBeInstanceOf(UsageError)
    expect(error.exitCode).toBe(2)
    expect(error.flag).toBe(flag)
    expect(error.message).toBe(message)
    expect(error.hints).toEqual([hint])
  })

  it('a super-slicing cluster of no cubes: the hint adds them', () => {
    const error = problem(request('tpu7x-4x4x4'), {'tpu7x-128': '0'}, SUPER)!
    expect(error.flag).toBe('--tpu-type')
    expect(error.message).toContain('but cluster demo has 0 cubes (0 VMs of tpu7x-128)')
    expect(error.hints).toEqual([
      'Add cubes first: `xpk cluster create --cluster demo --tpu-type tpu7x-128 --super-slicing --num-cubes 1 ...`.',
    ])
  })

  it('less than a cube on a cluster of no cubes: the hint names the form and adding cubes', () => {
    expect(problem(request('tpu7x-8'), {'tpu7x-128': '0'}, SUPER)!.hints).toEqual([
      'Pick a topology of whole cubes (tpu7x-4x4x4, ...); the cluster has none yet: add them with ' +
        '`xpk cluster create --cluster demo --tpu-type tpu7x-128 --super-slicing --num-cubes N ...`.',
    ])
  })

  it('a super-slicing name of exactly 28 characters is taken', () => {
    expect(problem(request('tpu7x-4x4x8', 1, 'a-workload-name-of-28-letter'), CUBES_5, SUPER)).toBeUndefined()
  })

  it('the 28-character limit is only for super-slicing workloads', () => {
    expect(problem(request('tpu7x-128', 1, 'a-workload-name-of-29-letters'), CUBES_5, NO_SLICING)).toBeUndefined()
  })
})

describe('slicing rules', () => {
  it.each<[string, number | null]>([
    ['4x4x4', 1],
    ['4x4x20', 5],
    ['4x8x8', 4],
    ['8x8x8', 8],
    ['12x12x16', 36],
    ['16x24x24', 144],
    ['24x24x20', null], // not i <= j <= k
    ['8x4x4', null],
    ['2x4x4', null],
    ['2x2x1', null],
    ['4x4x6', null], // not whole cubes
    ['4x4', null],
    ['24x24x24', null], // 216 cubes
  ])('superSliceCubes(%s) = %s (Python: _check_super_slicing_topology)', (topology, cubes) => {
    expect(superSliceCubes(topology)).toBe(cubes)
  })

  it.each<[string, boolean]>([
    ['tpu7x-128', true],
    ['tpu7x-8', true],
    ['tpu7x-2', true],
    ['v6e-8', true],
    ['v6e-1', true],
    ['v5p-16', false],
    ['tpu7-128', false],
    ['v5litepod-16', false],
    ['v4-8', false],
  ])('mightBeSliced(%s) = %s: the Topologies are read only for v6e and tpu7x', (type, expected) => {
    expect(mightBeSliced(resolveAccelerator({tpuType: type}))).toBe(expected)
  })

  it('GPU and CPU workloads are never sliced', () => {
    expect(mightBeSliced(resolveAccelerator({deviceType: 'h100-80gb-8'}))).toBe(false)
    expect(mightBeSliced(resolveAccelerator({deviceType: 'n2-standard-32-4'}))).toBe(false)
  })

  it('the cluster is set up for either by the name of its Kueue Topology, as Python xpk looks for it', () => {
    expect(slicingFromTopologies([])).toEqual(NO_SLICING)
    expect(slicingFromTopologies(['gke-default'])).toEqual(NO_SLICING)
    expect(slicingFromTopologies(['sub-slice-topology'])).toEqual({sub: true, super: false})
    expect(slicingFromTopologies(['super-slice-topology', 'gke-default'])).toEqual({sub: false, super: true})
  })
})
