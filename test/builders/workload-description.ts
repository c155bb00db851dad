// `workload describe`'s inputs as the service reads them for run-1: a JobSet of 2 slices of v5litepod-16 as `workload
// create` builds it (priority high, 3 restarts, storages datasets and home) running after one restart, the Workload
// Kueue made for it, four pods (one waiting to be scheduled), and events about it, about another workload and from
// more than an hour ago. Shared by the describe tests and the tables' goldens.
import {buildJobSet} from '../../src/core/manifests/jobset.js'
import {readEvent, type DescribeInputs} from '../../src/core/workload/describe.js'
import {readJobSet, readWorkload} from '../../src/core/workload/observed.js'
import {readPod} from '../../src/core/workload/why-observed.js'
import {at, jobsetStatus, kueueStatus, kueueWorkloadFor} from './workload-states.js'
import {aWorkloadSpec} from './workload-spec.js'

type Json = Record<string, unknown>

export const NOW = Date.parse(at(60))

export function aJobSet(fields: Partial<Parameters<typeof aWorkloadSpec>[0]> = {}): Json {
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

export const pod = (slice: number, worker: number, status: Json, node?: string): Json => ({
  metadata: {
    name: `run-1-slice-job-${slice}-${worker}-abcde`,
    labels: {'jobset.sigs.k8s.io/job-index': String(slice), 'batch.kubernetes.io/job-completion-index': String(worker)},
  },
  spec: node ? {nodeName: node} : {},
  status,
})

export const event = (
  kind: string,
  name: string,
  minute: number,
  reason: string,
  message: string,
  type = 'Normal',
): Json => ({
  involvedObject: {kind, name},
  type,
  reason,
  message,
  count: 2,
  lastTimestamp: at(minute),
})

export function describeInputs(overrides: Partial<DescribeInputs> = {}): DescribeInputs {
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
