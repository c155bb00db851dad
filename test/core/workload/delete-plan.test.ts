// The plan of `workload delete`: one step per JobSet chosen, with why, and with --wait the wait.
import {describe, expect, it} from 'vitest'

import {jobSetsToDelete, planWorkloadDelete, renderWorkloadDeletePlan} from '../../../src/core/workload/delete-plan.js'

describe('planWorkloadDelete', () => {
  it('by filter: each JobSet deleted with its propagation, then the wait for those deleted', () => {
    const plan = planWorkloadDelete({
      where: 'cluster demo',
      selected: ['a', 'b'],
      absent: [],
      pathwaysJobs: [],
      by: {filterByJob: 'sweep', filterByStatus: 'FAILED'},
      waitSeconds: 600,
    })
    expect(plan.steps.map((s) => [s.action, s.name, s.reason])).toEqual([
      [
        'delete',
        'default/a',
        'its name contains sweep and it is FAILED (--filter-by-status); its Jobs, pods and Kueue Workload go with it',
      ],
      [
        'delete',
        'default/b',
        'its name contains sweep and it is FAILED (--filter-by-status); its Jobs, pods and Kueue Workload go with it',
      ],
      [
        'wait',
        '2 workloads',
        '--wait: until they and their pods are gone (at most 600 s, XPK_WORKLOAD_DELETE_TIMEOUT_S)',
      ],
    ])
    expect(jobSetsToDelete(plan)).toEqual(['a', 'b'])
  })

  it('a named workload already gone: nothing to delete, nothing to wait for', () => {
    const plan = planWorkloadDelete({
      where: 'cluster demo',
      selected: ['gone'],
      absent: ['gone'],
      pathwaysJobs: [],
      by: {workload: true},
      waitSeconds: 60,
    })
    expect(plan.steps).toEqual([
      {action: 'none', resource: 'jobSet', name: 'default/gone', reason: 'already gone', spec: null},
    ])
    expect(jobSetsToDelete(plan)).toEqual([])
    expect(renderWorkloadDeletePlan(plan).split('\n').at(-1)).toBe('Nothing to delete.')
  })

  it('every workload without a filter says so', () => {
    const plan = planWorkloadDelete({
      where: 'kind-dev',
      selected: ['a'],
      absent: [],
      pathwaysJobs: [],
      by: {filterByJob: null, filterByStatus: 'EVERYTHING'},
      waitSeconds: null,
    })
    expect(plan.steps.map((s) => s.reason)).toEqual([
      'every workload (no filter); its Jobs, pods and Kueue Workload go with it',
    ])
    expect(renderWorkloadDeletePlan(plan).split('\n')[0]).toBe('Plan for the workloads in kind-dev:')
  })

  it("an older xpk's PathwaysJob goes before its JobSet; the wait is for the JobSets", () => {
    const plan = planWorkloadDelete({
      where: 'cluster demo',
      selected: ['old-pw', 'new-pw'],
      absent: [],
      pathwaysJobs: ['old-pw'],
      by: {filterByJob: 'pw', filterByStatus: 'EVERYTHING'},
      waitSeconds: 60,
    })
    expect(plan.steps.map((s) => [s.action, s.resource, s.name])).toEqual([
      ['delete', 'pathwaysJob', 'default/old-pw'],
      ['delete', 'jobSet', 'default/old-pw'],
      ['delete', 'jobSet', 'default/new-pw'],
      ['wait', 'jobSet', '2 workloads'],
    ])
    expect(plan.steps[0]).toMatchObject({spec: {namespace: 'default', name: 'old-pw', propagationPolicy: 'Background'}})
    expect(jobSetsToDelete(plan)).toEqual(['old-pw', 'new-pw'])
    expect(renderWorkloadDeletePlan(plan)).toContain('pathwaysjob default/old-pw')
  })
})
