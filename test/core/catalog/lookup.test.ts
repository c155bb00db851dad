import {describe, expect, it} from 'vitest'

import {acceleratorCatalog} from '../../../src/core/catalog/catalog.js'
import {findAccelerator, resolveAccelerator, suggestAcceleratorNames} from '../../../src/core/catalog/lookup.js'
import {expandTopologies} from '../../../src/core/catalog/tpu.js'
import {UsageError} from '../../../src/core/errors.js'

// Rows of section 3.4 of xpk-behaviour.md: what Python xpk derives for each name.
// name, canonical, topology, vms/slice, chips/vm, gke accelerator, machine type, kind, workload policy, containers
type Row = [string, string, string | null, number, number, string | null, string, string, boolean, number]
const rows: Row[] = [
  ['v4-8', 'v4-8', '2x2x1', 1, 4, 'tpu-v4-podslice', 'ct4p-hightpu-4t', 'TPU', false, 1],
  ['v4-16', 'v4-16', '2x2x2', 2, 4, 'tpu-v4-podslice', 'ct4p-hightpu-4t', 'TPU', false, 1],
  ['v4-32', 'v4-32', '2x2x4', 4, 4, 'tpu-v4-podslice', 'ct4p-hightpu-4t', 'TPU', false, 1],
  ['v4-128', 'v4-128', '4x4x4', 16, 4, 'tpu-v4-podslice', 'ct4p-hightpu-4t', 'TPU', false, 1],
  ['v4-2048', 'v4-2048', '8x8x16', 256, 4, 'tpu-v4-podslice', 'ct4p-hightpu-4t', 'TPU', false, 1],
  ['v4-8x4x4', 'v4-256', '8x4x4', 32, 4, 'tpu-v4-podslice', 'ct4p-hightpu-4t', 'TPU', false, 1],
  ['v5p-8', 'v5p-8', '2x2x1', 1, 4, 'tpu-v5p-slice', 'ct5p-hightpu-4t', 'TPU', false, 1],
  ['v5p-16', 'v5p-16', '2x2x2', 2, 4, 'tpu-v5p-slice', 'ct5p-hightpu-4t', 'TPU', false, 1],
  ['v5p-128', 'v5p-128', '4x4x4', 16, 4, 'tpu-v5p-slice', 'ct5p-hightpu-4t', 'TPU', false, 1],
  ['v5p-256', 'v5p-256', '4x4x8', 32, 4, 'tpu-v5p-slice', 'ct5p-hightpu-4t', 'TPU', false, 1],
  ['v5p-4x4x8', 'v5p-256', '4x4x8', 32, 4, 'tpu-v5p-slice', 'ct5p-hightpu-4t', 'TPU', false, 1],
  ['v5p-1024', 'v5p-1024', '8x8x8', 128, 4, 'tpu-v5p-slice', 'ct5p-hightpu-4t', 'TPU', false, 1],
  ['v5p-8192', 'v5p-8192', '16x16x16', 1024, 4, 'tpu-v5p-slice', 'ct5p-hightpu-4t', 'TPU', false, 1],
  ['v5litepod-8', 'v5litepod-8', '2x4', 2, 4, 'tpu-v5-lite-podslice', 'ct5lp-hightpu-4t', 'TPU', false, 1],
  ['v5litepod-16', 'v5litepod-16', '4x4', 4, 4, 'tpu-v5-lite-podslice', 'ct5lp-hightpu-4t', 'TPU', false, 1],
  ['v5litepod-256', 'v5litepod-256', '16x16', 64, 4, 'tpu-v5-lite-podslice', 'ct5lp-hightpu-4t', 'TPU', false, 1],
  ['v6e-1', 'v6e-1', '1x1', 1, 1, 'tpu-v6e-slice', 'ct6e-standard-1t', 'TPU', false, 1],
  ['v6e-4', 'v6e-4', '2x2', 1, 4, 'tpu-v6e-slice', 'ct6e-standard-4t', 'TPU', false, 1],
  ['v6e-8', 'v6e-8', '2x4', 2, 4, 'tpu-v6e-slice', 'ct6e-standard-4t', 'TPU', false, 1],
  ['v6e-2x4', 'v6e-8', '2x4', 2, 4, 'tpu-v6e-slice', 'ct6e-standard-4t', 'TPU', false, 1],
  ['v6e-16', 'v6e-16', '4x4', 4, 4, 'tpu-v6e-slice', 'ct6e-standard-4t', 'TPU', false, 1],
  ['v6e-4x4', 'v6e-16', '4x4', 4, 4, 'tpu-v6e-slice', 'ct6e-standard-4t', 'TPU', false, 1],
  ['v6e-256', 'v6e-256', '16x16', 64, 4, 'tpu-v6e-slice', 'ct6e-standard-4t', 'TPU', false, 1],
  ['tpu7x-2', 'tpu7x-2', '1x1x1', 1, 1, 'tpu7x', 'tpu7x-standard-1t', 'TPU', false, 1],
  ['tpu7x-1x1x1', 'tpu7x-2', '1x1x1', 1, 1, 'tpu7x', 'tpu7x-standard-1t', 'TPU', false, 1],
  ['tpu7x-8', 'tpu7x-8', '2x2x1', 1, 4, 'tpu7x', 'tpu7x-standard-4t', 'TPU', false, 2],
  ['tpu7x-16', 'tpu7x-16', '2x2x2', 2, 4, 'tpu7x', 'tpu7x-standard-4t', 'TPU', true, 2],
  ['tpu7x-128', 'tpu7x-128', '4x4x4', 16, 4, 'tpu7x', 'tpu7x-standard-4t', 'TPU', true, 2],
  ['tpu7x-4x4x4', 'tpu7x-128', '4x4x4', 16, 4, 'tpu7x', 'tpu7x-standard-4t', 'TPU', true, 2],
  ['tpu7x-256', 'tpu7x-256', '4x4x8', 32, 4, 'tpu7x', 'tpu7x-standard-4t', 'TPU', true, 2],
  ['tpu7x-4096', 'tpu7x-4096', '8x16x16', 512, 4, 'tpu7x', 'tpu7x-standard-4t', 'TPU', true, 2],
  ['tpu7-128', 'tpu7-128', '4x4x4', 16, 4, 'tpu7', 'tpu7-standard-4t', 'TPU', true, 2],
  ['h100-80gb-8', 'h100-80gb-8', null, 1, 8, 'nvidia-h100-80gb', 'a3-highgpu-8g', 'GPU', true, 1],
  ['h100-mega-80gb-8', 'h100-mega-80gb-8', null, 1, 8, 'nvidia-h100-mega-80gb', 'a3-megagpu-8g', 'GPU', true, 1],
  ['h200-141gb-8', 'h200-141gb-8', null, 1, 8, 'nvidia-h200-141gb', 'a3-ultragpu-8g', 'GPU', true, 1],
  ['b200-8', 'b200-8', null, 1, 8, 'nvidia-b200', 'a4-highgpu-8g', 'GPU', true, 1],
  ['gb200-4', 'gb200-4', '1x72', 1, 4, 'nvidia-gb200', 'a4x-highgpu-4g', 'GPU', true, 1],
  ['gb200-4-nolssd', 'gb200-4', '1x72', 1, 4, 'nvidia-gb200', 'a4x-highgpu-4g-nolssd', 'GPU', true, 1],
  ['a100-40gb-8', 'a100-40gb-8', null, 1, 8, 'nvidia-tesla-a100', 'a2-highgpu-8g', 'GPU', true, 1],
  ['l4-1', 'l4-1', null, 1, 1, 'nvidia-l4', 'g2-standard-12', 'GPU', true, 1],
  ['n2-standard-32-4', 'n2-standard-32-4', null, 4, 32, null, 'n2-standard-32', 'CPU', false, 1],
  ['m1-megamem-96-1', 'm1-megamem-96-1', null, 1, 96, null, 'm1-megamem-96', 'CPU', false, 1],
  ['n2-standard-4-256', 'n2-standard-4-256', null, 256, 4, null, 'n2-standard-4', 'CPU', false, 1],
  ['n2-standard-64-1', 'n2-standard-64-1', null, 1, 64, null, 'n2-standard-64', 'CPU', false, 1],
]

describe('accelerator catalog rows (xpk-behaviour.md 3.4)', () => {
  it.each(rows)('%s', (name, canonical, topology, vms, chips, gke, machine, kind, wp, containers) => {
    const a = findAccelerator(name)
    expect(a).toBeDefined()
    expect({
      canonical: a!.canonical,
      topology: a!.topology,
      vmsPerSlice: a!.vmsPerSlice,
      chipsPerVm: a!.chipsPerVm,
      gkeAccelerator: a!.gkeAccelerator,
      machineType: a!.machineType,
      kind: a!.kind,
      requiresWorkloadPolicy: a!.requiresWorkloadPolicy,
      parallelContainers: a!.parallelContainers,
    }).toEqual({
      canonical,
      topology,
      vmsPerSlice: vms,
      chipsPerVm: chips,
      gkeAccelerator: gke,
      machineType: machine,
      kind,
      requiresWorkloadPolicy: wp,
      parallelContainers: containers,
    })
  })
})

describe('generation rule edge cases', () => {
  it('puts the four small shapes first, then A <= B <= C multiples of 4 within the cube budget', () => {
    const t = expandTopologies({kind: 'cubes', maxCubes: 4, nondecreasing: true})
    expect(t).toEqual(['2x2x1', '2x2x2', '2x2x4', '2x4x4', '4x4x4', '4x4x8', '4x4x12', '4x4x16', '4x8x8'])
  })

  it('allows every permutation when the family does not require non-decreasing dimensions (v4)', () => {
    const t = expandTopologies({kind: 'cubes', maxCubes: 2, nondecreasing: false})
    expect(t.slice(4)).toEqual(['4x4x4', '4x4x8', '4x8x4', '8x4x4'])
  })

  it('gives the core-count name to the default topology when two share a core count', () => {
    // 4x4x8 (default) and 4x8x4 / 8x4x4 all have 128 chips: v4-256 must be 4x4x8.
    expect(findAccelerator('v4-256')!.topology).toBe('4x4x8')
    expect(findAccelerator('v4-4x8x4')!.canonical).toBe('v4-256')
  })

  it('lets the first topology own a core-count name when none of them is a default (v5p-896 = 4x4x28)', () => {
    expect(findAccelerator('v5p-896')!.topology).toBe('4x4x28')
    // 4x8x14 is not a multiple-of-4 shape, so no other v5p shape can claim 896 cores.
    expect(findAccelerator('v5p-4x8x14')).toBeUndefined()
  })

  it('keeps single-chip slices at one chip per VM', () => {
    expect(findAccelerator('v6e-1')).toMatchObject({chipsPerVm: 1, vmsPerSlice: 1})
  })

  it('offers no single-host v5litepod names, as Python xpk', () => {
    expect(findAccelerator('v5litepod-1')).toBeUndefined()
    expect(findAccelerator('v5litepod-4')).toBeUndefined()
  })

  it('marks workload placement only for multi-host tpu7/tpu7x and every GPU', () => {
    const wp = [...acceleratorCatalog().values()].filter((a) => a.requiresWorkloadPolicy)
    expect(new Set(wp.map((a) => (a.family === 'tpu7' || a.family === 'tpu7x' ? 'tpu7*' : a.kind)))).toEqual(
      new Set(['tpu7*', 'GPU']),
    )
    expect(wp.every((a) => a.kind === 'GPU' || a.vmsPerSlice > 1)).toBe(true)
  })

  it('marks sub-slicing on the six larger v6e shapes and super-slicing only on tpu7x 4x4x4', () => {
    const sub = [...acceleratorCatalog().values()].filter((a) => a.supportsSubSlicing).map((a) => a.topology)
    expect(new Set(sub)).toEqual(new Set(['2x4', '4x4', '4x8', '8x8', '8x16', '16x16']))
    const sup = [...acceleratorCatalog().values()].filter((a) => a.supportsSuperSlicing).map((a) => a.name)
    expect(sup.sort()).toEqual(['tpu7x-128', 'tpu7x-4x4x4'])
  })

  it('uses arm64 only for gb200', () => {
    const arm = [...acceleratorCatalog().values()].filter((a) => a.dockerPlatform === 'linux/arm64').map((a) => a.name)
    expect(arm).toEqual(['gb200-4', 'gb200-4-nolssd'])
  })
})

describe('resolveAccelerator', () => {
  const usage = (fn: () => unknown): UsageError => {
    try {
      fn()
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError)
      return error as UsageError
    }
    throw new Error('expected a usage error')
  }

  it('accepts a TPU through --tpu-type and any kind through --device-type', () => {
    expect(resolveAccelerator({tpuType: 'v5p-8'}).name).toBe('v5p-8')
    expect(resolveAccelerator({deviceType: 'h100-80gb-8'}).kind).toBe('GPU')
  })

  it('rejects a GPU given to --tpu-type and says which flag to use', () => {
    const error = usage(() => resolveAccelerator({tpuType: 'h100-80gb-8'}))
    expect(error.message).toContain('Use --device-type=h100-80gb-8')
    expect(error.flag).toBe('--tpu-type')
  })

  it('suggests the closest names for an unknown type', () => {
    const error = usage(() => resolveAccelerator({tpuType: 'v5p-7'}))
    expect(error.message).toMatch(/^--tpu-type=v5p-7: unknown accelerator type\. Did you mean v5p-8, /)
    expect(error.exitCode).toBe(2)
  })

  it('maps the v5e nickname to v5litepod in suggestions', () => {
    expect(suggestAcceleratorNames('v5e-16')[0]).toBe('v5litepod-16')
  })

  it('only suggests TPUs for --tpu-type', () => {
    const error = usage(() => resolveAccelerator({tpuType: 'h100-80gb-7'}))
    expect(error.message.split('Did you mean')[1]).not.toMatch(/h100|l4|a100/)
  })
})
