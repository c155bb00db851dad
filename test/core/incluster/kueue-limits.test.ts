import {describe, expect, it} from 'vitest'

import {autocorrectLimits, memoryLimitProblem} from '../../../src/core/incluster/kueue-limits.js'

// tpu7x-standard-4t as Python xpk's dry run pretends it is ("10 10"), and ct5p-hightpu-4t as Compute Engine has it.
const TINY = {guestCpus: 10, memoryMb: 10}
const V5P = {guestCpus: 208, memoryMb: 458752}

describe('autocorrectLimits (Python _autocorrect_cpu_limit / _autocorrect_memory_limit)', () => {
  it.each([
    // Python's recipes: Cluster_create_with_CPU_and_memory_limits_above_capacity / _below_capacity.
    {given: {cpu: 20, memory: '1Gi'}, capacity: TINY, want: {cpu: 10, memory: '10Mi'}, dirs: ['above', 'above']},
    {given: {cpu: 1, memory: '1Mi'}, capacity: TINY, want: {cpu: 10, memory: '10Mi'}, dirs: ['below', 'below']},
    {given: {cpu: 208, memory: '448Gi'}, capacity: V5P, want: {cpu: 208, memory: '448Gi'}, dirs: []},
    // Equal in bytes, written another way: kept as written.
    {given: {cpu: null, memory: '469762048Ki'}, capacity: V5P, want: {cpu: null, memory: '469762048Ki'}, dirs: []},
    {given: {cpu: null, memory: '500G'}, capacity: V5P, want: {cpu: null, memory: '458752Mi'}, dirs: ['above']},
    {given: {cpu: 300, memory: null}, capacity: V5P, want: {cpu: 208, memory: null}, dirs: ['above']},
    {given: {cpu: null, memory: null}, capacity: V5P, want: {cpu: null, memory: null}, dirs: []},
  ])('$given against $capacity gives $want', ({given, capacity, want, dirs}) => {
    const {limits, corrections} = autocorrectLimits(given, capacity)
    expect(limits).toEqual(want)
    expect(corrections.map((c) => c.direction)).toEqual(dirs)
  })

  it('says which flag was replaced, by what', () => {
    expect(autocorrectLimits({cpu: 20, memory: '1Gi'}, TINY).corrections).toEqual([
      {flag: '--cpu-limit', given: '20', corrected: '10', direction: 'above'},
      {flag: '--memory-limit', given: '1Gi', corrected: '10Mi', direction: 'above'},
    ])
  })
})

describe('memoryLimitProblem', () => {
  it.each(['64Gi', '500Mi', '100G', '1.5Gi', '1e9', '1024'])('%s is a quantity', (value) => {
    expect(memoryLimitProblem(value)).toBeUndefined()
  })
  it.each(['64GB', 'lots', 'Gi', '-1Gi', '0', '0Mi', '1 Gi'])('%s is refused', (value) => {
    expect(memoryLimitProblem(value)).toMatch(/quantity|more than 0/)
  })
})
