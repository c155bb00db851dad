// `workload describe`: what the JobSet asked for (type, slices, priority, image, command, restarts, storages, mounts),
// the history of conditions in time order, the pods by place, the events of the last hour about the workload only,
// the links; hostile text from the cluster kept on one line (the rendered screens are goldens of tables-golden.test.ts).
import {describe, expect, it} from 'vitest'

import {renderWorkloadDescription} from '../../../src/core/render/workload-describe.js'
import {describeWorkload, readEvent} from '../../../src/core/workload/describe.js'
import {aJobSet, describeInputs, event} from '../../builders/workload-description.js'
import {at} from '../../builders/workload-states.js'

type Json = Record<string, unknown>

describe('describeWorkload', () => {
  it('says what was asked: the type from the node selector, the command as given, restarts, storages and mounts', () => {
    const d = describeWorkload(describeInputs())
    expect(d.asked).toEqual({
      type: 'v5litepod-16',
      slices: 2,
      vmsPerSlice: 4,
      priority: 'high',
      image: 'gcr.io/test-project/jax-tpu:ctx-0123456789abcdef',
      command: 'python3 train.py --lr=$LR # comment',
      maxRestarts: 3,
      storages: ['datasets', 'home'],
      created: at(0),
    })
    expect(d.mounts.map((m) => `${m.name} ${m.mountPath} ${m.source}`)).toContain('dshm-2 /dev/shm emptyDir')
    expect([d.status, d.phase, d.restarts]).toEqual(['Running', 'RUNNING', 1])
  })

  it.each([
    [{'cloud.google.com/gke-accelerator': 'nvidia-h100-80gb'}, 'h100-80gb-8'],
    [{'node.kubernetes.io/instance-type': 'n2-standard-32'}, 'n2-standard-32-1'],
    [{'cloud.google.com/gke-tpu-accelerator': 'tpu-v9', 'cloud.google.com/gke-tpu-topology': '2x2'}, 'tpu-v9 2x2'],
    [{}, null],
  ])('names the accelerator %o as %s', (selector, type) => {
    const object = aJobSet()
    const job = ((object.spec as Json).replicatedJobs as Json[])[0]!
    ;(((job.template as Json).spec as Json).template as {spec: Json}).spec.nodeSelector = selector
    expect(describeWorkload(describeInputs({jobsetObject: object})).asked.type).toBe(type)
  })

  it('orders the history by time, the pods by slice and worker, and keeps the events of the last hour about it', () => {
    const d = describeWorkload(describeInputs())
    const times = d.history.map((h) => h.time ?? '')
    expect(times).toEqual([...times].sort())
    expect(d.history.map((h) => `${h.object}/${h.type}`)).toContain('JobSet/Suspended')
    expect(d.pods.map((p) => `${p.slice}/${p.worker} ${p.node ?? '-'} ${p.restarts} ${p.waiting ?? '-'}`)).toEqual([
      '0/0 n0 2 -',
      '0/1 n1 0 -',
      '1/0 n2 0 -',
      '1/1 - 0 Unschedulable',
    ])
    expect(d.events.map((e) => `${e.object} ${e.reason}`)).toEqual([
      'JobSet/run-1 Restarted',
      'Pod/run-1-slice-job-1-1-abcde FailedScheduling',
    ])
  })

  it('counts the Workload’s events when it is the one Kueue made for this JobSet', () => {
    const d = describeWorkload(describeInputs())
    const own = d.kueueWorkload!
    const withOwn = describeWorkload(
      describeInputs({events: [readEvent(event('Workload', own, 55, 'Admitted', 'admitted'))]}),
    )
    expect(withOwn.events.map((e) => e.object)).toEqual([`Workload/${own}`])
  })

  it('has no links through a kubeconfig', () => {
    expect(describeWorkload(describeInputs({place: null})).links).toBeNull()
  })

  it('a Pathways workload links its head pod’s logs and its first worker’s, named after their replicated Jobs', () => {
    const plain = describeWorkload(describeInputs())
    expect(plain.links?.headLogs).toBeNull()
    const jobset = aJobSet() as {spec: {replicatedJobs: {name: string}[]}}
    const pathwaysJobSet = {
      ...jobset,
      spec: {
        ...jobset.spec,
        replicatedJobs: [
          {...jobset.spec.replicatedJobs[0]!, name: 'pathways-head'},
          {...jobset.spec.replicatedJobs[0]!, name: 'worker'},
        ],
      },
    }
    const d = describeWorkload(describeInputs({jobsetObject: pathwaysJobSet}))
    expect(decodeURIComponent(d.links!.headLogs!)).toContain('pod_name:"run-1-pathways-head-0-0-"')
    expect(decodeURIComponent(d.links!.logs)).toContain('pod_name:"run-1-worker-0-0-"')
    const text = renderWorkloadDescription(d, {wide: false, headers: true})
    expect(text).toContain(`Head logs:    ${d.links!.headLogs}`)
    expect(text).toContain(`Worker logs:  ${d.links!.logs}`)
    expect(renderWorkloadDescription(plain, {wide: false, headers: true})).toMatch(/Logs: +https/)
  })

  it('keeps text from the cluster on one line, control characters escaped', () => {
    const hostile = readEvent(event('JobSet', 'run-1', 55, 'Bad', 'line one\n\u001b[2Jline two'))
    const text = renderWorkloadDescription(describeWorkload(describeInputs({events: [hostile]})), {
      wide: true,
      headers: true,
    })
    expect(text).not.toContain('\u001b')
    expect(text).toContain('line one \\x1b[2Jline two')
  })
})
