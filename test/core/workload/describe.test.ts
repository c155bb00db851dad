// `workload describe`: what the JobSet asked for (type, slices, priority, image, command, restarts, storages, mounts),
// the history of conditions in time order, the pods by place, the events of the last hour about the workload only,
// the links; rendered as one screen (golden), with hostile text from the cluster kept on one line.
import {describe, expect, it} from 'vitest'

import {renderWorkloadDescription} from '../../../src/core/render/workload-describe.js'
import {describeWorkload, readEvent, type DescribeInputs} from '../../../src/core/workload/describe.js'
import {readJobSet, readWorkload} from '../../../src/core/workload/observed.js'
import {readPod} from '../../../src/core/workload/why-observed.js'
import {buildJobSet} from '../../../src/core/manifests/jobset.js'
import {at, jobsetStatus, kueueStatus, kueueWorkloadFor} from '../../builders/workload-states.js'
import {aWorkloadSpec} from '../../builders/workload-spec.js'
import {expectGolden} from '../../helpers/golden.js'

type Json = Record<string, unknown>

const NOW = Date.parse(at(60))

function aJobSet(fields: Partial<Parameters<typeof aWorkloadSpec>[0]> = {}): Json {
  const built = buildJobSet(
    aWorkloadSpec({
      name: 'run-1',
      type: 'v5litepod-16',
      numSlices: 2,
      priority: 'high',
      maxRestarts: 3,
      command: 'python3 train.py --lr=$LR # comment',
      ...fields,
    }),
  )
  return {
    ...built,
    metadata: {
      ...built.metadata,
      namespace: 'default',
      uid: 'u-1',
      creationTimestamp: at(0),
      annotations: {...built.metadata.annotations, 'xpk.x-k8s.io/storages': 'datasets,home'},
    },
    status: jobsetStatus.running(12, 1),
  }
}

const pod = (slice: number, worker: number, status: Json, node?: string): Json => ({
  metadata: {
    name: `run-1-slice-job-${slice}-${worker}-abcde`,
    labels: {'jobset.sigs.k8s.io/job-index': String(slice), 'batch.kubernetes.io/job-completion-index': String(worker)},
  },
  spec: node ? {nodeName: node} : {},
  status,
})

const event = (kind: string, name: string, minute: number, reason: string, message: string, type = 'Normal'): Json => ({
  involvedObject: {kind, name},
  type,
  reason,
  message,
  count: 2,
  lastTimestamp: at(minute),
})

function inputs(overrides: Partial<DescribeInputs> = {}): DescribeInputs {
  const jobsetObject = aJobSet()
  const jobset = readJobSet(jobsetObject)
  const workload = {
    ...kueueWorkloadFor(jobsetObject as never, at(0)),
    status: kueueStatus.running(12),
  }
  return {
    name: 'run-1',
    namespace: 'default',
    now: NOW,
    jobsetObject,
    jobset,
    workload: readWorkload(workload),
    pods: [
      pod(1, 1, {phase: 'Pending', conditions: [{type: 'PodScheduled', status: 'False', reason: 'Unschedulable'}]}),
      pod(
        0,
        0,
        {phase: 'Running', containerStatuses: [{name: 'jax-tpu', restartCount: 2, state: {running: {}}}]},
        'n0',
      ),
      pod(1, 0, {phase: 'Running', containerStatuses: [{name: 'jax-tpu', restartCount: 0}]}, 'n2'),
      pod(0, 1, {phase: 'Running'}, 'n1'),
    ].map(readPod),
    events: [
      event('Pod', 'run-1-slice-job-1-1-abcde', 50, 'FailedScheduling', '0/4 nodes are available', 'Warning'),
      event('JobSet', 'run-1', 11, 'Restarted', 'restart 1 of 3'),
      // Older than an hour: left out.
      event('Pod', 'run-1-slice-job-0-0-abcde', -5, 'Pulled', 'image pulled'),
      // About another workload: left out.
      event('Pod', 'run-10-slice-job-0-0-abcde', 55, 'Started', 'started'),
      event('Workload', 'jobset-run-1-0a1b2', 55, 'Admitted', 'admitted'),
    ].map(readEvent),
    place: {project: 'p', location: 'us-central2', cluster: 'demo'},
    ...overrides,
  }
}

describe('describeWorkload', () => {
  it('says what was asked: the type from the node selector, the command as given, restarts, storages and mounts', () => {
    const d = describeWorkload(inputs())
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
    expect(describeWorkload(inputs({jobsetObject: object})).asked.type).toBe(type)
  })

  it('orders the history by time, the pods by slice and worker, and keeps the events of the last hour about it', () => {
    const d = describeWorkload(inputs())
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
    const d = describeWorkload(inputs())
    const own = d.kueueWorkload!
    const withOwn = describeWorkload(inputs({events: [readEvent(event('Workload', own, 55, 'Admitted', 'admitted'))]}))
    expect(withOwn.events.map((e) => e.object)).toEqual([`Workload/${own}`])
  })

  it('has no links through a kubeconfig', () => {
    expect(describeWorkload(inputs({place: null})).links).toBeNull()
  })

  it('renders one screen: facts, history, pods, mounts, events, links (golden, and -o wide)', () => {
    const d = describeWorkload(inputs())
    const text = [
      renderWorkloadDescription(d, {wide: false, headers: true}),
      renderWorkloadDescription(d, {wide: true, headers: true}),
      renderWorkloadDescription(describeWorkload(inputs({pods: [], events: [], place: null})), {
        wide: false,
        headers: false,
      }),
    ].join('\n\n----\n\n')
    expectGolden('workload/describe.txt', `${text}\n`)
  })

  it('keeps text from the cluster on one line, control characters escaped', () => {
    const hostile = readEvent(event('JobSet', 'run-1', 55, 'Bad', 'line one\n\u001b[2Jline two'))
    const text = renderWorkloadDescription(describeWorkload(inputs({events: [hostile]})), {wide: true, headers: true})
    expect(text).not.toContain('\u001b')
    expect(text).toContain('line one \\x1b[2Jline two')
  })
})
