import {describe, expect, it} from 'vitest'

import {autocorrectLimits, memoryLimitProblem} from '../../../src/core/incluster/kueue-limits.js'

// tpu7x-standard-4t as Python xpk's dry run pretends it is ("10 10"), and ct5p-hightpu-4t as Compute Engine has it.
const TINY = {guestCpus: 10, memoryMb: 10}
const V5P = {guestCpus: 208, memoryMb: 458752}

describe('autocorrectLimits: against the capacity of the cluster’s VMs (Python: of one VM)', () => {
  it.each([
    // Python's recipes (Cluster_create_with_CPU_and_memory_limits_above/below_capacity) on one VM: above is lowered;
    // below is kept, where Python raises it to the capacity.
    {
      given: {cpu: 20, memory: '1Gi'},
      capacity: TINY,
      vms: 1,
      want: {cpu: 10, memory: '10Mi'},
      dirs: ['above', 'above'],
    },
    {given: {cpu: 1, memory: '1Mi'}, capacity: TINY, vms: 1, want: {cpu: 1, memory: '1Mi'}, dirs: ['below', 'below']},
    {given: {cpu: 208, memory: '448Gi'}, capacity: V5P, vms: 1, want: {cpu: 208, memory: '448Gi'}, dirs: []},
    // Four VMs hold four times as much: Python would cut 600 vCPUs to one VM's 208.
    {
      given: {cpu: 600, memory: '1500Gi'},
      capacity: V5P,
      vms: 4,
      want: {cpu: 600, memory: '1500Gi'},
      dirs: ['below', 'below'],
    },
    {given: {cpu: 832, memory: '1792Gi'}, capacity: V5P, vms: 4, want: {cpu: 832, memory: '1792Gi'}, dirs: []},
    {
      given: {cpu: 900, memory: '2Ti'},
      capacity: V5P,
      vms: 4,
      want: {cpu: 832, memory: '1835008Mi'},
      dirs: ['above', 'above'],
    },
    // Equal in bytes, written another way: kept as written, without a note.
    {
      given: {cpu: null, memory: '469762048Ki'},
      capacity: V5P,
      vms: 1,
      want: {cpu: null, memory: '469762048Ki'},
      dirs: [],
    },
    {given: {cpu: null, memory: '500G'}, capacity: V5P, vms: 1, want: {cpu: null, memory: '458752Mi'}, dirs: ['above']},
    {given: {cpu: 300, memory: null}, capacity: V5P, vms: 1, want: {cpu: 208, memory: null}, dirs: ['above']},
    {given: {cpu: null, memory: null}, capacity: V5P, vms: 8, want: {cpu: null, memory: null}, dirs: []},
  ])('$given against $vms x $capacity gives $want', ({given, capacity, vms, want, dirs}) => {
    const {limits, corrections} = autocorrectLimits(given, capacity, vms)
    expect(limits).toEqual(want)
    expect(corrections.map((c) => c.direction)).toEqual(dirs)
  })

  it('says which flag was compared, with the capacity and the quota set', () => {
    expect(autocorrectLimits({cpu: 20, memory: '1Mi'}, TINY, 1).corrections).toEqual([
      {flag: '--cpu-limit', given: '20', corrected: '10', capacity: '10', direction: 'above'},
      {flag: '--memory-limit', given: '1Mi', corrected: '1Mi', capacity: '10Mi', direction: 'below'},
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
