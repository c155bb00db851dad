// Names `workload delete` accepts and the --filter-by-job selection.
import {describe, expect, it} from 'vitest'

import {jobSetNameProblem, jobSetRef, namesContaining} from '../../../src/core/workload/jobsets.js'

describe('jobSetNameProblem', () => {
  it.each([
    ['run-1', undefined],
    // Longer than workload create's 40: a JobSet made elsewhere may use the whole DNS label.
    ['a'.repeat(63), undefined],
    ['a'.repeat(64), /64 characters long/],
    ['', /empty/],
    ['Run-1', /lowercase/],
    ['run_1', /lowercase/],
    ['run-', /not ending with a hyphen/],
    ['1run', /starting with a letter/],
  ])('%j', (name, problem) => {
    const found = jobSetNameProblem(name)
    if (problem === undefined) expect(found).toBeUndefined()
    else expect(found).toMatch(problem)
  })
})

describe('namesContaining', () => {
  it('keeps names containing the text as a plain substring (no pattern), sorted', () => {
    expect(namesContaining(['sweep-2', 'run-1', 'sweep-10', 'my-sweep-x', 'a.b'], 'sweep-')).toEqual([
      'my-sweep-x',
      'sweep-10',
      'sweep-2',
    ])
    expect(namesContaining(['a.b', 'axb'], '.')).toEqual(['a.b'])
  })

  it('without a filter, every name', () => {
    expect(namesContaining(['b', 'a'], undefined)).toEqual(['a', 'b'])
  })
})

describe('jobSetRef', () => {
  it('the JobSet of a workload in namespace default', () => {
    expect(jobSetRef('run-1')).toEqual({
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      namespace: 'default',
      name: 'run-1',
    })
  })
})
