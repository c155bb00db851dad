import {describe, expect, it} from 'vitest'

import {UsageError} from '../../../src/core/errors.js'
import {resolveTpuVmType, validateRuntimeVersion} from '../../../src/core/vm/catalog.js'
import {capacityFromFlags, checkVmCreateInput} from '../../../src/core/vm/create-options.js'
import {defaultRunName, idProblem, runNameProblem, sliceIndex, sliceNodeIds} from '../../../src/core/vm/naming.js'

describe('TPU VM types', () => {
  it('knows hosts per slice', () => {
    const hosts = ['v4-8', 'v4-16', 'v4-32', 'v5litepod-8', 'v5litepod-16', 'v5p-8', 'v5p-128', 'v6e-256', 'v2-32']
    expect(hosts.map((t) => resolveTpuVmType(t).hosts)).toEqual([1, 2, 4, 1, 4, 1, 16, 64, 4])
  })

  it('suggests the closest names and maps nicknames', () => {
    expect(() => resolveTpuVmType('v4-9')).toThrow(/--tpu-type=v4-9: unknown TPU VM type\. Did you mean v4-8/)
    expect(() => resolveTpuVmType('v5e-16')).toThrow(/Did you mean v5litepod-16\?/)
  })

  it('checks runtime versions by name and generation', () => {
    const v6e = resolveTpuVmType('v6e-8')
    expect(() => validateRuntimeVersion('v2-alpha-tpuv6e', v6e)).not.toThrow()
    expect(() => validateRuntimeVersion('v2-alpha-tpuv6', v6e)).toThrow(/Did you mean v2-alpha-tpuv6e/)
    expect(() => validateRuntimeVersion('tpu-vm-v4-base', v6e)).toThrow(
      /does not run on v6e TPUs .* Use v2-alpha-tpuv6e/,
    )
  })
})

describe('names', () => {
  it('names slices and finds them back', () => {
    expect(sliceNodeIds('p', 1)).toEqual(['p'])
    expect(sliceNodeIds('p', 3)).toEqual(['p-0', 'p-1', 'p-2'])
    expect(['p', 'p-0', 'p-12', 'p-01', 'p-x', 'px', 'q'].map((id) => sliceIndex('p', id))).toEqual([
      0,
      0,
      12,
      undefined,
      undefined,
      undefined,
      undefined,
    ])
  })

  it('validates ids, run names and makes default run names', () => {
    expect(idProblem('my-tpu', '--tpu-prefix')).toBeUndefined()
    expect(idProblem('', '--tpu-prefix')).toBeInstanceOf(UsageError)
    expect(idProblem('My_TPU', '--tpu-prefix')?.flag).toBe('--tpu-prefix')
    expect(idProblem('a'.repeat(60), '--tpu-prefix', 2)).toBeInstanceOf(UsageError)
    expect(runNameProblem('run-1.2_x')).toBeUndefined()
    expect(runNameProblem('../etc')).toBeInstanceOf(UsageError)
    expect(defaultRunName(new Date('2026-01-23T17:45:01Z'))).toBe('run-20260123-174501')
  })

  it('reports every create problem at once', () => {
    expect(() =>
      checkVmCreateInput({tpuPrefix: '-x', tpuType: 'v4-8', numSlices: 300, capacity: 'spot', reservation: 'r'}),
    ).toThrow(
      /--num-slices: 300 is out of range: use a whole number from 1 to 256[\s\S]*--tpu-prefix "-x"[\s\S]*--reservation needs --reserved/,
    )
    expect(checkVmCreateInput({tpuPrefix: 'x', tpuType: 'v5p-8', numSlices: 2, capacity: 'reserved'})).toMatchObject({
      queuedResourceId: 'x',
      runtimeVersion: 'v2-alpha-tpuv5',
    })
  })

  it('maps the capacity flags', () => {
    expect([{}, {reserved: true}, {spot: true}, {'best-effort': true}].map((f) => capacityFromFlags(f))).toEqual([
      'on-demand',
      'reserved',
      'spot',
      'best-effort',
    ])
  })
})
