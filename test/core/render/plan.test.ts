// The one plan renderer every plan maps onto (cluster, workload, vm): marks, columns, the summary, lines under a step.
import {describe, expect, it} from 'vitest'

import {planMark, planSummary, renderPlanLines} from '../../../src/core/render/plan.js'

describe('renderPlanLines', () => {
  it('lines up the mark, the action and the resource (at least 8 wide) and the names (the longest)', () => {
    const text = renderPlanLines(
      'Plan for x:',
      [
        {action: 'create', resource: 'jobset', name: 'default/a', detail: 'why a'},
        {action: 'none', resource: 'serviceaccount', name: 'xpk-sa', detail: 'why b'},
        {action: 'recreate', resource: 'nodepool', name: 'p', detail: 'why c', more: ['kind: X', 'a: 1']},
      ],
      ['Summary: ...'],
    )
    expect(text).toBe(
      [
        'Plan for x:',
        '  +   create   jobset         default/a  why a',
        '  =   none     serviceaccount xpk-sa     why b',
        '  -/+ recreate nodepool       p          why c',
        '      kind: X',
        '      a: 1',
        'Summary: ...',
      ].join('\n'),
    )
  })

  it('marks what adds, removes, replaces, changes or waits, and what is left alone', () => {
    expect(
      ['create', 'build', 'copy', 'delete', 'recreate', 'update', 'apply', 'wait', 'run', 'lock', 'none', 'check'].map(
        planMark,
      ),
    ).toEqual(['+', '+', '+', '-', '-/+', '~', '~', '~', '~', '~', '=', '='])
  })
})

describe('planSummary', () => {
  it('counts the changes in one order whatever the order of the steps, then the unchanged', () => {
    expect(planSummary(['delete', 'none', 'recreate', 'create', 'none', 'none'], 'nothing')).toBe(
      'Summary: 1 to create, 1 to recreate, 1 to delete, 3 unchanged.',
    )
    expect(planSummary(['run', 'copy', 'update', 'run', 'create', 'none'], 'nothing')).toBe(
      'Summary: 1 to copy, 1 to create, 1 to update, 2 to run, 1 unchanged.',
    )
  })

  it('waits, checks and locks change nothing: a plan of only those (and unchanged steps) says so', () => {
    expect(planSummary(['check', 'wait', 'lock', 'none'], 'No changes.')).toBe('No changes.')
  })
})
