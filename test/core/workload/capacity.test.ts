// Whether a cluster can ever run a workload, from its resources ConfigMap: every verdict, and the error (exit code,
// flag, wording with the cluster's capacity) each refusal turns into.
import {describe, expect, it} from 'vitest'

import {resolveAccelerator} from '../../../src/core/catalog/lookup.js'
import {UsageError} from '../../../src/core/errors.js'
import {parseResourcesConfigMap} from '../../../src/core/incluster/configmaps.js'
import {capacityProblem, checkCapacity, type CapacityRequest} from '../../../src/core/workload/capacity.js'

function request(type: string, scale: {slices?: number; nodes?: number} = {}): CapacityRequest {
  const gpu = /gb|^l4|a100/.test(type)
  return {
    workload: 'run-1',
    cluster: 'demo',
    accelerator: resolveAccelerator(gpu ? {deviceType: type} : {tpuType: type}),
    numSlices: scale.slices ?? 1,
    numNodes: scale.nodes ?? 1,
    acceleratorFlag: gpu ? '--device-type' : '--tpu-type',
  }
}

describe('checkCapacity', () => {
  it.each<[string, CapacityRequest, Record<string, string> | undefined, Record<string, unknown>]>([
    [
      'fits exactly (4 slices of v5p-16 = 8 VMs)',
      request('v5p-16', {slices: 4}),
      {'v5p-16': '8'},
      {kind: 'fits', vmsNeeded: 8, vmsAvailable: 8},
    ],
    ['fits with room to spare', request('v5p-16', {slices: 1}), {'v5p-16': '8'}, {kind: 'fits', vmsNeeded: 2}],
    [
      'one slice too many',
      request('v5p-16', {slices: 5}),
      {'v5p-16': '8'},
      {kind: 'too-big', vmsNeeded: 10, vmsAvailable: 8},
    ],
    [
      'GPU counts --num-nodes',
      request('h100-80gb-8', {nodes: 3}),
      {'h100-80gb-8': '2'},
      {kind: 'too-big', vmsNeeded: 3, vmsAvailable: 2},
    ],
    [
      'an alias is checked under its canonical name',
      request('v5p-2x2x2'),
      {'v5p-16': '2'},
      {kind: 'fits', deviceType: 'v5p-16'},
    ],
    [
      'another device type of the same family',
      request('v5p-8'),
      {'v5p-16': '8'},
      {kind: 'wrong-type', deviceType: 'v5p-8', clusterTypes: [{deviceType: 'v5p-16', vms: 8}]},
    ],
    ['a map with no device type', request('v5p-8'), {}, {kind: 'wrong-type', clusterTypes: []}],
    ['no ConfigMap at all', request('v5p-8'), undefined, {kind: 'no-configmap'}],
    [
      'node auto-provisioning within its chip limit',
      request('v5p-16', {slices: 2}),
      {'tpu-v5p-slice': 'AUTOPROVISION', minimum_chips: '0', maximum_chips: '16'},
      {kind: 'fits-autoprovisioning', chipsNeeded: 16, maximumChips: 16},
    ],
    [
      'node auto-provisioning over its chip limit',
      request('v5p-16', {slices: 3}),
      {'tpu-v5p-slice': 'AUTOPROVISION', maximum_chips: '16'},
      {kind: 'autoprovisioning-too-big', chipsNeeded: 24, maximumChips: 16},
    ],
    [
      'node auto-provisioning of another accelerator does not count',
      request('v5p-16'),
      {'tpu-v6e-slice': 'AUTOPROVISION', maximum_chips: '64'},
      {kind: 'wrong-type'},
    ],
  ])('%s', (_name, req, data, verdict) => {
    expect(checkCapacity(req, data === undefined ? undefined : parseResourcesConfigMap(data))).toMatchObject(verdict)
  })
})

describe('capacityProblem', () => {
  const problem = (req: CapacityRequest, data: Record<string, string> | undefined) =>
    capacityProblem(req, checkCapacity(req, data === undefined ? undefined : parseResourcesConfigMap(data)))

  it('a fitting workload is no problem', () => {
    expect(problem(request('v5p-16', {slices: 4}), {'v5p-16': '8'})).toBeUndefined()
    expect(problem(request('v5p-16'), {'tpu-v5p-slice': 'AUTOPROVISION'})).toBeUndefined()
  })

  it('too big: exit 2 on --num-slices, naming what it needs, what the cluster has, and the most it can ask for', () => {
    const error = problem(request('v5p-16', {slices: 5}), {'v5p-16': '8'}) as UsageError
    expect(error).toBeInstanceOf(UsageError)
    expect(error.exitCode).toBe(2)
    expect(error.flag).toBe('--num-slices')
    expect(error.message).toBe(
      '--num-slices: workload run-1 needs 10 VMs (5 slices) of v5p-16, but cluster demo has 8 VMs (4 slices), so it could never be admitted.',
    )
    expect(error.hints[0]).toContain('--num-slices 4')
    expect(error.hints[0]).toContain('xpk cluster create --cluster demo --tpu-type v5p-16 --num-slices 5')
  })

  it('too big on a GPU cluster names --num-nodes', () => {
    const error = problem(request('h100-80gb-8', {nodes: 3}), {'h100-80gb-8': '2'}) as UsageError
    expect(error.flag).toBe('--num-nodes')
    expect(error.message).toContain('needs 3 VMs of h100-80gb-8, but cluster demo has 2 VMs')
    expect(error.hints[0]).toContain('--num-nodes 2')
  })

  it('wrong type: exit 2 on the accelerator flag, naming the type the cluster has', () => {
    const error = problem(request('v5p-8'), {'v5p-16': '8'}) as UsageError
    expect(error.exitCode).toBe(2)
    expect(error.flag).toBe('--tpu-type')
    expect(error.message).toBe(
      '--tpu-type v5p-8: cluster demo has 8 VMs of v5p-16, not v5p-8, so workload run-1 could never run there.',
    )
    expect(error.hints[0]).toContain('--tpu-type v5p-16')
  })

  it('node auto-provisioning over its limit: exit 2 naming the limit', () => {
    const error = problem(request('v5p-16', {slices: 3}), {'tpu-v5p-slice': 'AUTOPROVISION', maximum_chips: '16'})
    expect(error?.exitCode).toBe(2)
    expect(error?.message).toContain(
      'needs 24 chips of v5p-16, but node auto-provisioning of cluster demo stops at 16 chips',
    )
  })

  it('no ConfigMap: exit 6, the cluster was not set up by cluster create, and the command that sets it up', () => {
    const error = problem(request('v5p-8'), undefined)!
    expect(error).not.toBeInstanceOf(UsageError)
    expect(error.exitCode).toBe(6)
    expect(error.message).toContain('Cluster demo has no ConfigMap demo-resources-configmap')
    expect(error.message).toContain('not set up by `xpk cluster create`')
    expect(error.hints[0]).toContain('xpk cluster create --cluster demo --tpu-type v5p-8')
  })
})
