// Field masks: what a list's items are cut down to where they are parsed. The masks of `workload list` must keep
// everything its readers use: reading a cut object gives what reading the whole one gives, in every state.
import {describe, expect, it} from 'vitest'

import {cutterFor, projectFields, type FieldMask} from '../../../src/core/kube/field-mask.js'
import {
  JOBSET_FIELDS,
  WORKLOAD_FIELDS,
  readJobSet,
  readWorkload,
  workloadRows,
} from '../../../src/core/workload/status.js'
import {SCENARIOS, scenarioObjects} from '../../builders/workload-states.js'

describe('projectFields', () => {
  const mask: FieldMask = {metadata: {name: true, labels: true}, spec: {items: {name: true}}}

  it('keeps what the mask names, whole where it says true, element by element in arrays', () => {
    const object = {
      apiVersion: 'v1',
      metadata: {name: 'a', uid: 'u', labels: {x: '1', y: '2'}},
      spec: {items: [{name: 'i', big: 'x'.repeat(100)}, {other: 1}], dropped: true},
    }
    expect(projectFields(object, mask)).toEqual({
      metadata: {name: 'a', labels: {x: '1', y: '2'}},
      spec: {items: [{name: 'i'}, {}]},
    })
    // The source is left as it was.
    expect(object.spec.dropped).toBe(true)
  })

  it('keeps scalars and nulls where objects were expected, and leaves out keys that are not there', () => {
    expect(projectFields({metadata: 'text', spec: null}, mask)).toEqual({metadata: 'text', spec: null})
    expect(projectFields({}, mask)).toEqual({})
    expect(projectFields(7, mask)).toBe(7)
  })

  it("never takes a key from the object's prototype", () => {
    const inherited: FieldMask = JSON.parse('{"constructor": true, "toString": true}') as FieldMask
    expect(projectFields({}, inherited)).toEqual({})
  })

  it('makes one cutter per mask', () => {
    expect(cutterFor(mask)).toBe(cutterFor(mask))
  })
})

describe('the masks of workload list', () => {
  const objects = SCENARIOS.map(scenarioObjects)

  it('reading a cut Workload or JobSet gives what reading the whole one gives, in every state', () => {
    for (const {jobset, workload} of objects) {
      expect(readJobSet(projectFields(jobset, JOBSET_FIELDS))).toEqual(readJobSet(jobset))
      if (workload) expect(readWorkload(projectFields(workload, WORKLOAD_FIELDS))).toEqual(readWorkload(workload))
    }
  })

  it('the rows from cut objects are the rows from whole ones', () => {
    const workloads = objects.flatMap((o) => (o.workload ? [o.workload] : []))
    const jobsets = objects.map((o) => o.jobset)
    const cut = workloadRows(
      workloads.map((w) => readWorkload(projectFields(w, WORKLOAD_FIELDS))),
      jobsets.map((j) => readJobSet(projectFields(j, JOBSET_FIELDS))),
    )
    expect(cut).toEqual(workloadRows(workloads.map(readWorkload), jobsets.map(readJobSet)))
    expect(cut.length).toBe(SCENARIOS.length)
  })

  it('cuts away the bulk of each object (the pod templates)', () => {
    const {jobset, workload} = objects[0]
    expect(JSON.stringify(projectFields(jobset, JOBSET_FIELDS)).length).toBeLessThan(JSON.stringify(jobset).length / 2)
    expect(JSON.stringify(projectFields(workload, WORKLOAD_FIELDS)).length).toBeLessThan(
      JSON.stringify(workload).length,
    )
  })
})
