// The plans of `vm create` and `vm delete` from the queued resource the TPU API reports.
import {describe, expect, it} from 'vitest'

import {XpkError} from '../../../src/core/errors.js'
import {checkVmCreateInput} from '../../../src/core/vm/create-options.js'
import {planVmCreate, planVmDelete, renderVmPlan} from '../../../src/core/vm/manage-plan.js'
import type {QueuedResource} from '../../../src/core/vm/types.js'

const where = {project: 'p', zone: 'us-central2-b', async: false}
const request = checkVmCreateInput({
  tpuPrefix: 'demo',
  tpuType: 'v4-16',
  numSlices: 2,
  capacity: 'reserved',
  reservation: 'res-1',
})
const found = (patch: Partial<QueuedResource> = {}): QueuedResource => ({
  id: 'demo',
  state: 'ACTIVE',
  nodeIds: ['demo-0', 'demo-1'],
  acceleratorType: 'v4-16',
  runtimeVersion: 'tpu-ubuntu2204-base',
  capacity: 'reserved',
  ...patch,
})

describe('planVmCreate', () => {
  it('absent: the request xpk sends, then the wait until ACTIVE', () => {
    const plan = planVmCreate(request, undefined, where)
    expect(plan.steps).toEqual([
      {
        action: 'create',
        resource: 'queuedResource',
        name: 'demo',
        reason:
          '2 slices of v4-16 (2 VMs each; nodes demo-0, demo-1), tpu-ubuntu2204-base, reserved (reservation res-1)',
        spec: {
          id: 'demo',
          nodePrefix: 'demo',
          numSlices: 2,
          acceleratorType: 'v4-16',
          runtimeVersion: 'tpu-ubuntu2204-base',
          capacity: 'reserved',
          reservation: 'res-1',
        },
      },
      {
        action: 'wait',
        resource: 'queuedResource',
        name: 'demo',
        reason: 'until it is ACTIVE (each state it passes is reported; Ctrl-C stops waiting, the request stays queued)',
        spec: {until: 'ACTIVE'},
      },
    ])
    expect(renderVmPlan(plan).split('\n')).toEqual([
      'Plan for TPU VMs in project p, zone us-central2-b:',
      '  +   create   queued-resource demo  2 slices of v4-16 (2 VMs each; nodes demo-0, demo-1), tpu-ubuntu2204-base, reserved (reservation res-1)',
      '  ~   wait     queued-resource demo  until it is ACTIVE (each state it passes is reported; Ctrl-C stops waiting, the request stays queued)',
      'Summary: 1 to create, 0 unchanged.',
    ])
  })

  it('the same request found: nothing sent, waited for; --async: not even that', () => {
    expect(planVmCreate(request, found({state: 'PROVISIONING'}), where).steps.map((s) => s.action)).toEqual([
      'none',
      'wait',
    ])
    expect(planVmCreate(request, found(), {...where, async: true}).steps.map((s) => s.action)).toEqual(['none'])
  })

  it('another request of the id, or a FAILED one, is a conflict before anything is planned', () => {
    for (const other of [found({acceleratorType: 'v4-8'}), found({nodeIds: ['demo']}), found({state: 'FAILED'})]) {
      expect(() => planVmCreate(request, other, where)).toThrow(XpkError)
    }
  })
})

describe('planVmDelete', () => {
  it('the queued resource with its nodes (force), then the wait until gone', () => {
    const plan = planVmDelete('demo', found(), where)
    expect(plan.steps.map((s) => [s.action, s.reason, s.spec])).toEqual([
      [
        'delete',
        'ACTIVE, with its nodes demo-0, demo-1 (force)',
        {id: 'demo', force: true, nodes: ['demo-0', 'demo-1']},
      ],
      ['wait', 'until it and its nodes are gone', {until: 'gone'}],
    ])
  })

  it('being deleted: nothing sent, waited for; gone: nothing at all', () => {
    expect(planVmDelete('demo', found({state: 'DELETING'}), where).steps.map((s) => s.action)).toEqual(['none', 'wait'])
    expect(planVmDelete('demo', undefined, where).steps).toEqual([
      {action: 'none', resource: 'queuedResource', name: 'demo', reason: 'already gone', spec: null},
    ])
  })
})
