// Workloads in every state `xpk workload list` tells apart, as the cluster holds them: the JobSet `workload create`
// builds (the real builder), the Workload Kueue v0.17 makes for it (kueue.x-k8s.io/v1beta2: one pod set per
// replicated job, the owner reference, the priority class reference), and the status objects Kueue and the JobSet
// controller write at each step, with their condition types, reasons and messages. One scenario per row of the
// example table in Python xpk's README (failed, succeeded, running, queued, preempted) and the states that table
// leaves out. Shared by the core tests, the service tests over memory-kube, the e2e tests over the Kubernetes fake
// (which write these statuses as the controllers would) and the list benchmark.
import {createHash} from 'node:crypto'

import {buildJobSet} from '../../src/core/manifests/jobset.js'
import type {JobSet} from '../../src/core/manifests/k8s-types.js'
import {PRIORITIES, type Priority} from '../../src/core/workload/priority.js'
import type {WorkloadOutcome, WorkloadPhase, WorkloadStatus} from '../../src/core/workload/status.js'
import {aWorkloadSpec} from './workload-spec.js'

type Json = Record<string, unknown>

export const NAMESPACE = 'default'
/** The accelerator of every scenario: 4 slices of v5litepod-16, 4 VMs each, so 16 VMs in one pod set. */
export const TPU_TYPE = 'v5litepod-16'
export const SLICES = 4
export const VMS = 16
const FLAVOR = `${SLICES}x${TPU_TYPE}`
const POD_SET = 'slice-job'

/** An RFC 3339 time `minutes` after 2026-01-01T01:00:00Z, as the API server writes them (whole seconds). */
export function at(minutes: number): string {
  return new Date(Date.UTC(2026, 0, 1, 1, 0, 0) + minutes * 60_000).toISOString().replace('.000Z', 'Z')
}

function condition(type: string, status: 'True' | 'False', reason: string, message: string, time: string): Json {
  return {type, status, reason, message, lastTransitionTime: time}
}

const admission = (): Json => ({
  clusterQueue: 'cluster-queue',
  podSetAssignments: [
    {
      name: POD_SET,
      count: VMS,
      flavors: {'google.com/tpu': FLAVOR},
      resourceUsage: {'google.com/tpu': String(VMS * 4)},
    },
  ],
})

const QUOTA_MESSAGE = 'Quota reserved in ClusterQueue cluster-queue'
const ADMITTED_MESSAGE = 'The workload is admitted'
const PENDING_MESSAGE = `couldn't assign flavors to pod set ${POD_SET}: insufficient unused quota for google.com/tpu in flavor ${FLAVOR}, 64 more needed`
const PREEMPTED_MESSAGE =
  'Preempted to accommodate a workload (UID: 6b1d5c9e-0c4e-4c1e-9d55-2f8f0a3f7c21, JobUID: 0d2b7a64-51c3-4d6e-8b0f-6f1f7c9e2a10) due to prioritization in the ClusterQueue'
const PODS_READY_MESSAGE = 'All pods reached readiness and the workload is running'
const COMPLETED_MESSAGE = 'jobset completed successfully'
const FAILED_MESSAGE = 'jobset failed due to reaching max number of restarts'

/** Kueue Workload statuses, one per step Kueue takes; `t` is the minute of the step. */
export const kueueStatus = {
  /** Queued: no quota yet, and Kueue says why. */
  pending: (t: number): Json => ({
    conditions: [condition('QuotaReserved', 'False', 'Pending', PENDING_MESSAGE, at(t))],
  }),
  /** Quota held while an admission check (provisioning request) is pending. */
  quotaReserved: (t: number): Json => ({
    conditions: [condition('QuotaReserved', 'True', 'QuotaReserved', QUOTA_MESSAGE, at(t))],
    admission: admission(),
    admissionChecks: [{name: 'dws-prov', state: 'Pending', message: '', lastTransitionTime: at(t)}],
  }),
  /** Admitted; the pods are starting (waitForPodsReady on: PodsReady=False until they are up). */
  admitted: (t: number): Json => ({
    conditions: [
      condition('QuotaReserved', 'True', 'QuotaReserved', QUOTA_MESSAGE, at(t)),
      condition('Admitted', 'True', 'Admitted', ADMITTED_MESSAGE, at(t)),
      condition('PodsReady', 'False', 'WaitForStart', 'Not all pods are ready or succeeded', at(t)),
    ],
    admission: admission(),
  }),
  /** Admitted without waitForPodsReady: Kueue never writes PodsReady. */
  admittedNoPodsReady: (t: number): Json => ({
    conditions: [
      condition('QuotaReserved', 'True', 'QuotaReserved', QUOTA_MESSAGE, at(t)),
      condition('Admitted', 'True', 'Admitted', ADMITTED_MESSAGE, at(t)),
    ],
    admission: admission(),
  }),
  running: (t: number): Json => ({
    conditions: [
      condition('QuotaReserved', 'True', 'QuotaReserved', QUOTA_MESSAGE, at(t - 1)),
      condition('Admitted', 'True', 'Admitted', ADMITTED_MESSAGE, at(t - 1)),
      condition('PodsReady', 'True', 'PodsReady', PODS_READY_MESSAGE, at(t)),
    ],
    admission: admission(),
  }),
  /** Preempted by a higher priority workload and back in the queue: quota released, requeued at once. */
  preempted: (t: number): Json => ({
    conditions: [
      condition('QuotaReserved', 'False', 'Pending', PREEMPTED_MESSAGE, at(t)),
      condition('Admitted', 'False', 'NoReservation', 'The workload has no reservation', at(t)),
      condition('PodsReady', 'False', 'Preempted', PREEMPTED_MESSAGE, at(t)),
      condition('Evicted', 'True', 'Preempted', PREEMPTED_MESSAGE, at(t)),
      condition('Preempted', 'True', 'InClusterQueue', PREEMPTED_MESSAGE, at(t)),
      condition('Requeued', 'True', 'Preempted', PREEMPTED_MESSAGE, at(t)),
    ],
    schedulingStats: {evictions: [{reason: 'Preempted', underlyingCause: 'InClusterQueue', count: 1}]},
  }),
  /** Evicted because its pods were not ready in time, held out of the queue for a backoff. */
  evictedBackoff: (t: number): Json => ({
    conditions: [
      condition('QuotaReserved', 'False', 'Pending', 'Exceeded the PodsReady timeout default/w', at(t)),
      condition('Admitted', 'False', 'NoReservation', 'The workload has no reservation', at(t)),
      condition('Evicted', 'True', 'PodsReadyTimeout', 'Exceeded the PodsReady timeout default/w', at(t)),
      condition('Requeued', 'False', 'PodsReadyTimeout', 'Exceeded the PodsReady timeout default/w', at(t)),
    ],
    requeueState: {count: 1, requeueAt: at(t + 1)},
  }),
  /** Readmitted after a preemption: Kueue turns Evicted and Preempted False, keeping the old message. */
  readmitted: (t: number): Json => ({
    conditions: [
      condition('QuotaReserved', 'True', 'QuotaReserved', QUOTA_MESSAGE, at(t)),
      condition('Admitted', 'True', 'Admitted', ADMITTED_MESSAGE, at(t)),
      condition('PodsReady', 'True', 'PodsReady', PODS_READY_MESSAGE, at(t)),
      condition('Evicted', 'False', 'QuotaReserved', `Previously: ${PREEMPTED_MESSAGE}`, at(t)),
      condition('Preempted', 'False', 'QuotaReserved', `Previously: ${PREEMPTED_MESSAGE}`, at(t)),
      condition('Requeued', 'True', 'Preempted', PREEMPTED_MESSAGE, at(t - 1)),
    ],
    admission: admission(),
  }),
  succeeded: (t: number): Json => ({
    conditions: [
      condition('QuotaReserved', 'True', 'QuotaReserved', QUOTA_MESSAGE, at(t - 4)),
      condition('Admitted', 'True', 'Admitted', ADMITTED_MESSAGE, at(t - 4)),
      condition('PodsReady', 'True', 'PodsReady', PODS_READY_MESSAGE, at(t - 3)),
      condition('Finished', 'True', 'Succeeded', COMPLETED_MESSAGE, at(t)),
    ],
    admission: admission(),
    reclaimablePods: [{name: POD_SET, count: VMS}],
  }),
  failed: (t: number): Json => ({
    conditions: [
      condition('QuotaReserved', 'True', 'QuotaReserved', QUOTA_MESSAGE, at(t - 5)),
      condition('Admitted', 'True', 'Admitted', ADMITTED_MESSAGE, at(t - 5)),
      condition('PodsReady', 'False', 'WaitForRecovery', 'At least one pod has failed, waiting for recovery', at(t)),
      condition('Finished', 'True', 'Failed', FAILED_MESSAGE, at(t)),
    ],
    admission: admission(),
  }),
  /** Finished by Kueue itself: the provisioning request was rejected, the JobSet never ran. */
  checkRejected: (t: number): Json => ({
    conditions: [
      condition('QuotaReserved', 'False', 'Pending', 'The workload has failed admission checks', at(t)),
      condition(
        'Finished',
        'True',
        'AdmissionChecksRejected',
        "Admission checks [dws-prov] are rejected: Provisioning request rejected: the capacity isn't available",
        at(t),
      ),
    ],
  }),
}

const replicated = (fields: Json): Json[] => [
  {name: POD_SET, ready: 0, succeeded: 0, failed: 0, active: 0, suspended: 0, ...fields},
]

/** JobSet statuses as the JobSet controller writes them. */
export const jobsetStatus = {
  suspended: (t: number): Json => ({
    conditions: [condition('Suspended', 'True', 'SuspendedJobs', 'jobset is suspended', at(t))],
    replicatedJobsStatus: replicated({suspended: SLICES}),
    restarts: 0,
  }),
  starting: (t: number): Json => ({
    conditions: [condition('Suspended', 'False', 'ResumeJobs', 'jobset is resumed', at(t))],
    replicatedJobsStatus: replicated({active: SLICES}),
    restarts: 0,
  }),
  running: (t: number, restarts = 0): Json => ({
    conditions: [condition('Suspended', 'False', 'ResumeJobs', 'jobset is resumed', at(t))],
    replicatedJobsStatus: replicated({active: SLICES, ready: SLICES}),
    restarts,
  }),
  completed: (t: number): Json => ({
    conditions: [
      condition('Suspended', 'False', 'ResumeJobs', 'jobset is resumed', at(t - 4)),
      condition('Completed', 'True', 'AllJobsCompleted', COMPLETED_MESSAGE, at(t)),
    ],
    replicatedJobsStatus: replicated({succeeded: SLICES}),
    restarts: 0,
    terminalState: 'Completed',
  }),
  failed: (t: number, restarts = 2): Json => ({
    conditions: [
      condition('Suspended', 'False', 'ResumeJobs', 'jobset is resumed', at(t - 5)),
      condition('Failed', 'True', 'ReachedMaxRestarts', FAILED_MESSAGE, at(t)),
    ],
    replicatedJobsStatus: replicated({failed: 1, active: 0}),
    restarts,
    terminalState: 'Failed',
  }),
}

/** A JobSet as the API server stores it: with its namespace, uid and creation time. */
export type StoredJobSet = Omit<JobSet, 'metadata'> & {
  readonly metadata: JobSet['metadata'] & {
    readonly namespace: string
    readonly uid: string
    readonly creationTimestamp: string
  }
}

/** The JobSet `workload create --tpu-type v5litepod-16 --num-slices 4 --priority P` submits, as stored. */
export function submittedJobSet(name: string, priority: Priority, created: string, uid = uidOf(name)): StoredJobSet {
  const built = buildJobSet(aWorkloadSpec({name, type: TPU_TYPE, numSlices: SLICES, priority}))
  return {
    ...built,
    metadata: {...built.metadata, namespace: NAMESPACE, uid, creationTimestamp: created},
  }
}

/** A stable, uuid-shaped uid per name. */
export function uidOf(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/**
 * The Workload Kueue makes for a JobSet: named `jobset-<name>-<5 hex>`, owned by it (controller reference with its
 * uid), one pod set per replicated job counting every pod, the priority class the pods name, and the queue.
 */
export function kueueWorkloadFor(jobset: StoredJobSet, created: string): Json {
  const {name} = jobset.metadata
  const {uid} = jobset.metadata
  const hash = createHash('sha1').update(`${name}/${uid}`).digest('hex').slice(0, 5)
  // The first replicated job that names a priority class gives it (a Pathways head names none).
  const named = jobset.spec.replicatedJobs.find((r) => r.template.spec.template.spec.priorityClassName)
  const priority = PRIORITIES.find((p) => p.name === named?.template.spec.template.spec.priorityClassName)
  return {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'Workload',
    metadata: {
      name: `jobset-${name}-${hash}`,
      namespace: NAMESPACE,
      creationTimestamp: created,
      labels: {'kueue.x-k8s.io/job-uid': uid},
      ownerReferences: [
        {apiVersion: jobset.apiVersion, kind: 'JobSet', name, uid, controller: true, blockOwnerDeletion: true},
      ],
    },
    spec: {
      active: true,
      queueName: jobset.metadata.labels?.['kueue.x-k8s.io/queue-name'],
      ...(priority
        ? {
            priority: priority.value,
            priorityClassRef: {group: 'scheduling.k8s.io', kind: 'PriorityClass', name: priority.name},
          }
        : {}),
      podSets: jobset.spec.replicatedJobs.map((r) => ({
        name: r.name,
        count: r.replicas * (r.template.spec.parallelism ?? 1),
        template: r.template.spec.template,
      })),
    },
  }
}

/** One workload in one state, with what `workload list` must say about it. */
export interface WorkloadScenario {
  readonly name: string
  /** The minute (see {@link at}) the JobSet and its Workload were created. */
  readonly created: number
  readonly priority: Priority
  /** The Workload's status; null: Kueue has made no Workload for the JobSet yet. */
  readonly kueue: Json | null
  readonly jobset: Json
  readonly expected: {
    readonly status: WorkloadStatus
    readonly phase: WorkloadPhase
    readonly outcome: WorkloadOutcome | null
    readonly vmsRunningOrRan: number | null
    readonly vmsDone: number | null
    readonly restarts: number
    readonly statusMessage: string | RegExp
    readonly statusTime: string
  }
}

/**
 * Every state, oldest first. The first five are the example of Python xpk's README (its fourth is queued for
 * quota, its fifth preempted and back in the queue).
 */
export const SCENARIOS: readonly WorkloadScenario[] = [
  {
    name: 'user-first-job-failed',
    created: 0,
    priority: 'medium',
    kueue: kueueStatus.failed(5),
    jobset: jobsetStatus.failed(5),
    expected: {
      status: 'Failed',
      phase: 'FINISHED',
      outcome: 'FAILED',
      vmsRunningOrRan: VMS,
      vmsDone: null,
      restarts: 2,
      statusMessage: FAILED_MESSAGE,
      statusTime: at(5),
    },
  },
  {
    name: 'user-second-job-success',
    created: 10,
    priority: 'medium',
    kueue: kueueStatus.succeeded(14),
    jobset: jobsetStatus.completed(14),
    expected: {
      status: 'Succeeded',
      phase: 'FINISHED',
      outcome: 'SUCCESSFUL',
      vmsRunningOrRan: VMS,
      vmsDone: VMS,
      restarts: 0,
      statusMessage: COMPLETED_MESSAGE,
      statusTime: at(14),
    },
  },
  {
    name: 'user-third-job-running',
    created: 15,
    priority: 'medium',
    kueue: kueueStatus.running(16),
    jobset: jobsetStatus.running(16),
    expected: {
      status: 'Running',
      phase: 'RUNNING',
      outcome: null,
      vmsRunningOrRan: VMS,
      vmsDone: null,
      restarts: 0,
      statusMessage: PODS_READY_MESSAGE,
      statusTime: at(16),
    },
  },
  {
    name: 'user-forth-job-in-queue',
    created: 16,
    priority: 'medium',
    kueue: kueueStatus.pending(17),
    jobset: jobsetStatus.suspended(17),
    expected: {
      status: 'Pending',
      phase: 'QUEUED',
      outcome: null,
      vmsRunningOrRan: null,
      vmsDone: null,
      restarts: 0,
      statusMessage: PENDING_MESSAGE,
      statusTime: at(17),
    },
  },
  {
    name: 'user-fifth-job-preempted',
    created: 10,
    priority: 'low',
    kueue: kueueStatus.preempted(18),
    jobset: jobsetStatus.suspended(18),
    expected: {
      status: 'Preempted',
      phase: 'QUEUED',
      outcome: null,
      vmsRunningOrRan: null,
      vmsDone: null,
      restarts: 0,
      statusMessage: PREEMPTED_MESSAGE,
      statusTime: at(18),
    },
  },
  {
    name: 'quota-reserved',
    created: 19,
    priority: 'high',
    kueue: kueueStatus.quotaReserved(20),
    jobset: jobsetStatus.suspended(20),
    expected: {
      status: 'QuotaReserved',
      phase: 'QUEUED',
      outcome: null,
      vmsRunningOrRan: VMS,
      vmsDone: null,
      restarts: 0,
      statusMessage: QUOTA_MESSAGE,
      statusTime: at(20),
    },
  },
  {
    name: 'pods-starting',
    created: 20,
    priority: 'high',
    kueue: kueueStatus.admitted(21),
    jobset: jobsetStatus.starting(21),
    expected: {
      status: 'Admitted',
      phase: 'RUNNING',
      outcome: null,
      vmsRunningOrRan: VMS,
      vmsDone: null,
      restarts: 0,
      statusMessage: 'Not all pods are ready or succeeded',
      statusTime: at(21),
    },
  },
  {
    name: 'running-without-podsready',
    created: 21,
    priority: 'very-high',
    kueue: kueueStatus.admittedNoPodsReady(22),
    jobset: jobsetStatus.running(22),
    expected: {
      status: 'Running',
      phase: 'RUNNING',
      outcome: null,
      vmsRunningOrRan: VMS,
      vmsDone: null,
      restarts: 0,
      statusMessage: ADMITTED_MESSAGE,
      statusTime: at(22),
    },
  },
  {
    name: 'readmitted-after-preemption',
    created: 12,
    priority: 'low',
    kueue: kueueStatus.readmitted(23),
    jobset: jobsetStatus.running(23, 1),
    expected: {
      status: 'Running',
      phase: 'RUNNING',
      outcome: null,
      vmsRunningOrRan: VMS,
      vmsDone: null,
      restarts: 1,
      statusMessage: PODS_READY_MESSAGE,
      statusTime: at(23),
    },
  },
  {
    name: 'evicted-backoff',
    created: 22,
    priority: 'medium',
    kueue: kueueStatus.evictedBackoff(24),
    jobset: jobsetStatus.suspended(24),
    expected: {
      status: 'Evicted',
      phase: 'QUEUED',
      outcome: null,
      vmsRunningOrRan: null,
      vmsDone: null,
      restarts: 0,
      statusMessage: `Exceeded the PodsReady timeout default/w (back in the queue at ${at(25)})`,
      statusTime: at(24),
    },
  },
  {
    name: 'just-submitted',
    created: 26,
    priority: 'medium',
    kueue: null,
    jobset: {},
    expected: {
      status: 'Submitted',
      phase: 'QUEUED',
      outcome: null,
      vmsRunningOrRan: null,
      vmsDone: null,
      restarts: 0,
      statusMessage: 'Waiting for Kueue to queue it in multislice-queue',
      statusTime: at(26),
    },
  },
  {
    // Kueue has not caught up with the JobSet yet: the JobSet's Completed decides.
    name: 'completed-kueue-behind',
    created: 26,
    priority: 'medium',
    kueue: kueueStatus.running(27),
    jobset: jobsetStatus.completed(30),
    expected: {
      status: 'Succeeded',
      phase: 'FINISHED',
      outcome: 'SUCCESSFUL',
      vmsRunningOrRan: VMS,
      vmsDone: null,
      restarts: 0,
      statusMessage: COMPLETED_MESSAGE,
      statusTime: at(30),
    },
  },
  {
    name: 'failed-kueue-behind',
    created: 29,
    priority: 'medium',
    kueue: kueueStatus.running(31),
    jobset: jobsetStatus.failed(33, 3),
    expected: {
      status: 'Failed',
      phase: 'FINISHED',
      outcome: 'FAILED',
      vmsRunningOrRan: VMS,
      vmsDone: null,
      restarts: 3,
      statusMessage: FAILED_MESSAGE,
      statusTime: at(33),
    },
  },
  {
    // Kueue finished it without the JobSet ever running: only the Workload knows.
    name: 'admission-check-rejected',
    created: 33,
    priority: 'medium',
    kueue: kueueStatus.checkRejected(34),
    jobset: jobsetStatus.suspended(34),
    expected: {
      status: 'Failed',
      phase: 'FINISHED',
      outcome: 'FAILED',
      vmsRunningOrRan: null,
      vmsDone: null,
      restarts: 0,
      statusMessage: /^Admission checks \[dws-prov\] are rejected/,
      statusTime: at(34),
    },
  },
]

/** The scenario's objects with their statuses: the JobSet and, unless Kueue has made none, its Workload. */
export function scenarioObjects(scenario: WorkloadScenario): {jobset: Json; workload: Json | null} {
  const created = at(scenario.created)
  const jobset = submittedJobSet(scenario.name, scenario.priority, created)
  const hasStatus = Object.keys(scenario.jobset).length > 0
  return {
    jobset: hasStatus ? {...jobset, status: scenario.jobset} : jobset,
    workload: scenario.kueue === null ? null : {...kueueWorkloadFor(jobset, created), status: scenario.kueue},
  }
}
