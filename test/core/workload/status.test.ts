// What `workload list` says about a workload, from the Kueue Workload and JobSet as the controllers write them: one
// fixture per state (test/builders/workload-states.ts), each validated against the real CRDs, and the status,
// phase, outcome and columns each must give; then the filters, the join and the input checks.
import {describe, expect, it} from 'vitest'

import {UsageError, UsageErrors} from '../../../src/core/errors.js'
import {DEFAULT_WAIT_TIMEOUT_SECONDS, workloadListInputFromFlags} from '../../../src/core/workload/list-options.js'
import {readJobSet, readWorkload, type KueueWorkload, type ObservedJobSet} from '../../../src/core/workload/observed.js'
import {
  STATUS_FILTERS,
  isAcceleratorPodSet,
  joinWorkloads,
  matchesStatus,
  parseStatusFilter,
  pickWorkload,
  workloadRow,
  workloadRows,
  type StatusFilter,
  type WorkloadRow,
} from '../../../src/core/workload/status.js'
import {buildPathwaysJobSet} from '../../../src/core/manifests/pathways-jobset.js'
import {Problems} from '../../../src/core/input.js'
import {pathwaysSpecFromFlags} from '../../../src/core/workload/pathways.js'
import {aWorkloadSpec} from '../../builders/workload-spec.js'
import {
  SCENARIOS,
  VMS,
  at,
  kueueStatus,
  kueueWorkloadFor,
  jobsetStatus,
  scenarioObjects,
  submittedJobSet,
  uidOf,
  type WorkloadScenario,
} from '../../builders/workload-states.js'
import {SKIP_CRD_TESTS, validateAgainstCrd} from '../../helpers/crd-schema.js'

const asWorkload = (o: unknown) => o as KueueWorkload
const asJobSet = (o: unknown) => o as ObservedJobSet

function rowOf(scenario: WorkloadScenario): WorkloadRow {
  const {jobset, workload} = scenarioObjects(scenario)
  return workloadRow(workload ? asWorkload(workload) : undefined, asJobSet(jobset))
}

describe.skipIf(SKIP_CRD_TESTS)('the fixtures are what the API server would store', () => {
  it.each(SCENARIOS)('$name: the JobSet and the Workload (with status) validate against their CRDs', (scenario) => {
    const {jobset, workload} = scenarioObjects(scenario)
    expect(validateAgainstCrd(jobset)).toEqual([])
    if (workload) expect(validateAgainstCrd(workload)).toEqual([])
  })
})

describe('workloadRow: one scenario per state', () => {
  it.each(SCENARIOS)('$name is $expected.status ($expected.phase)', (scenario) => {
    const row = rowOf(scenario)
    const {statusMessage, ...expected} = scenario.expected
    expect(row).toMatchObject({name: scenario.name, ...expected, priority: scenario.priority, vmsNeeded: VMS})
    if (typeof statusMessage === 'string') expect(row.statusMessage).toBe(statusMessage)
    else expect(row.statusMessage).toMatch(statusMessage)
    expect(row.created).toBe(at(scenario.created))
    expect(row.kueueWorkload).toEqual(scenario.kueue === null ? null : expect.stringMatching(/^jobset-.+-[0-9a-f]{5}$/))
  })

  it('covers every status and the five states of the Python xpk README example', () => {
    const statuses = new Set(SCENARIOS.map((s) => rowOf(s).status))
    expect([...statuses].sort()).toEqual(
      [
        'Admitted',
        'Evicted',
        'Failed',
        'Pending',
        'Preempted',
        'QuotaReserved',
        'Running',
        'Submitted',
        'Succeeded',
      ].sort(),
    )
    expect(SCENARIOS.slice(0, 5).map((s) => rowOf(s).status)).toEqual([
      'Failed',
      'Succeeded',
      'Running',
      'Pending',
      'Preempted',
    ])
  })

  it('an eviction in progress (Admitted still True) is already on its way back to the queue', () => {
    const jobset = submittedJobSet('w', 'low', at(0))
    const running = kueueStatus.running(1) as {conditions: object[]}
    const evicting = {
      ...running,
      conditions: [
        ...running.conditions,
        {
          type: 'Evicted',
          status: 'True',
          reason: 'Preempted',
          message: 'Preempted to accommodate',
          lastTransitionTime: at(2),
        },
      ],
    }
    const row = workloadRow(asWorkload({...kueueWorkloadFor(jobset, at(0)), status: evicting}), asJobSet(jobset))
    expect(row).toMatchObject({status: 'Preempted', phase: 'QUEUED', statusTime: at(2)})
  })

  it('a Finished reason other than Succeeded is a failure, whatever its message says', () => {
    const jobset = submittedJobSet('w', 'medium', at(0))
    const status = {
      conditions: [
        {
          type: 'Finished',
          status: 'True',
          reason: 'MaximumExecutionTimeExceeded',
          message: 'finished',
          lastTransitionTime: at(9),
        },
      ],
    }
    const row = workloadRow(asWorkload({...kueueWorkloadFor(jobset, at(0)), status}), undefined)
    expect(row).toMatchObject({status: 'Failed', outcome: 'FAILED', restarts: null, name: 'w'})
  })

  it('a JobSet without Kueue that runs is Running from its own counts; one without a status is Submitted', () => {
    const plain = submittedJobSet('plain', 'medium', at(0))
    const {labels: _, ...metadata} = plain.metadata
    const unqueued = {...plain, metadata}
    expect(workloadRow(undefined, asJobSet({...unqueued, status: jobsetStatus.running(3)}))).toMatchObject({
      status: 'Running',
      phase: 'RUNNING',
      vmsNeeded: VMS,
      vmsRunningOrRan: null,
    })
    expect(workloadRow(undefined, asJobSet({...unqueued, status: jobsetStatus.starting(3)}))).toMatchObject({
      status: 'Admitted',
    })
    expect(workloadRow(undefined, asJobSet(unqueued))).toMatchObject({
      status: 'Submitted',
      statusMessage: 'The JobSet has not started its jobs yet',
    })
  })

  it('needs a Workload or a JobSet', () => {
    expect(() => workloadRow(undefined, undefined)).toThrow(/needs a Workload or a JobSet/)
  })
})

describe('reading objects from the API', () => {
  it.each(SCENARIOS)('$name: the fields kept give the same row as the whole objects', (scenario) => {
    const {jobset, workload} = scenarioObjects(scenario)
    const slim = workloadRow(workload ? readWorkload(workload) : undefined, readJobSet(jobset))
    expect(slim).toEqual(rowOf(scenario))
  })

  it.each([
    [{'xpk.x-k8s.io/storages': 'datasets,checkpoints', 'other/annotation': 'x'}, ['datasets', 'checkpoints']],
    [{'alpha.jobset.sigs.k8s.io/exclusive-topology': 'cloud.google.com/gke-nodepool'}, []],
    [undefined, []],
  ])("a JobSet annotated %j mounts the storages %j; only xpk's own annotation is kept", (annotations, storages) => {
    const {jobset, workload} = scenarioObjects(SCENARIOS[0]!)
    const annotated = {...jobset, metadata: {...(jobset as {metadata: object}).metadata, annotations}}
    const read = readJobSet(annotated)
    expect(Object.keys(read.metadata.annotations ?? {})).toEqual(storages.length ? ['xpk.x-k8s.io/storages'] : [])
    expect(workloadRow(workload ? readWorkload(workload) : undefined, read).storages).toEqual(storages)
  })

  it('drops what it does not read: containers keep only their resources', () => {
    const {workload} = scenarioObjects(SCENARIOS[0]!)
    const slim = readWorkload(workload)
    const template = (o: unknown) =>
      JSON.stringify((o as {spec: {podSets: {template: unknown}[]}}).spec.podSets[0]!.template)
    // The pod template (image, command, env, volumes, ...) is most of a Workload; a few hundred bytes remain of it.
    expect(template(slim).length).toBeLessThan(template(workload).length / 3)
    expect(slim.spec?.podSets?.[0]?.template?.spec?.containers).toEqual([
      {resources: {limits: {'google.com/tpu': 4}, requests: undefined}},
    ])
  })

  it('takes malformed objects without throwing (anything missing is simply not there)', () => {
    const row = workloadRow(readWorkload({metadata: {name: 'w'}, spec: 'nonsense', status: {conditions: 7}}), undefined)
    expect(row).toMatchObject({name: 'w', status: 'Pending', vmsNeeded: null})
  })
})

describe('filters', () => {
  // Which scenarios each filter keeps: FAILED and SUCCESSFUL are kinds of FINISHED; preempted is QUEUED.
  const kept: Record<StatusFilter, string[]> = {
    EVERYTHING: SCENARIOS.map((s) => s.name),
    FINISHED: [
      'user-first-job-failed',
      'user-second-job-success',
      'completed-kueue-behind',
      'failed-kueue-behind',
      'admission-check-rejected',
    ],
    FAILED: ['user-first-job-failed', 'failed-kueue-behind', 'admission-check-rejected'],
    SUCCESSFUL: ['user-second-job-success', 'completed-kueue-behind'],
    RUNNING: ['user-third-job-running', 'pods-starting', 'running-without-podsready', 'readmitted-after-preemption'],
    QUEUED: [
      'user-forth-job-in-queue',
      'user-fifth-job-preempted',
      'quota-reserved',
      'evicted-backoff',
      'just-submitted',
    ],
  }
  it.each(STATUS_FILTERS)('--filter-by-status %s', (filter) => {
    const names = SCENARIOS.filter((s) => matchesStatus(rowOf(s), filter)).map((s) => s.name)
    expect(names.sort()).toEqual([...kept[filter]].sort())
  })

  it('every workload is in exactly one of QUEUED, RUNNING and FINISHED', () => {
    for (const s of SCENARIOS) {
      expect((['QUEUED', 'RUNNING', 'FINISHED'] as const).filter((f) => matchesStatus(rowOf(s), f))).toHaveLength(1)
    }
  })

  it.each([
    ['queued', 'QUEUED'],
    [' Running ', 'RUNNING'],
    ['successful', 'SUCCESSFUL'],
    ['everything', 'EVERYTHING'],
  ])('%j is %s (any case)', (text, value) => {
    expect(parseStatusFilter(text)).toEqual({value})
  })

  it.each(['DONE', '', 'PREEMPTED', 'RUNNING,QUEUED'])('%j is refused, naming every valid value', (text) => {
    const parsed = parseStatusFilter(text)
    expect(parsed).toEqual({
      problem: expect.stringContaining('EVERYTHING, FINISHED, RUNNING, QUEUED, FAILED, SUCCESSFUL'),
    })
  })
})

describe('joining Workloads to JobSets', () => {
  const objects = SCENARIOS.map((s) => scenarioObjects(s))
  const workloads = objects.flatMap((o) => (o.workload ? [asWorkload(o.workload)] : []))
  const jobsets = objects.map((o) => asJobSet(o.jobset))

  it('gives one row per name, sorted, with JobSets that have no Workload yet', () => {
    const rows = workloadRows(workloads, jobsets)
    expect(rows.map((r) => r.name)).toEqual(SCENARIOS.map((s) => s.name).sort())
    expect(rows.find((r) => r.name === 'just-submitted')?.kueueWorkload).toBeNull()
  })

  it('keeps a Workload whose JobSet is gone (being deleted), from the Workload alone', () => {
    const pairs = joinWorkloads(workloads, jobsets.slice(1))
    expect(pairs.find((p) => p.name === SCENARIOS[0]!.name)).toEqual({
      name: SCENARIOS[0]!.name,
      workload: workloads[0],
    })
  })

  it("prefers the JobSet's own Workload (by uid) over one left behind by an earlier JobSet of the same name", () => {
    const now = submittedJobSet('again', 'medium', at(10), 'uid-new')
    const before = submittedJobSet('again', 'medium', at(0), 'uid-old')
    const old = asWorkload({...kueueWorkloadFor(before, at(20)), status: kueueStatus.failed(5)})
    const own = asWorkload({...kueueWorkloadFor(now, at(10)), status: kueueStatus.running(12)})
    expect(pickWorkload([old, own], asJobSet(now))).toBe(own)
    expect(workloadRows([old, own], [asJobSet(now)])).toMatchObject([{name: 'again', status: 'Running'}])
    // Without the JobSet to tell, the newest one speaks.
    expect(pickWorkload([own, old], undefined)).toBe(old)
  })

  it('names a Workload owned by something else (a batch Job) after its owner', () => {
    const jobset = submittedJobSet('x', 'medium', at(0))
    const workload = kueueWorkloadFor(jobset, at(0)) as {metadata: Record<string, unknown>}
    const byJob = {
      ...workload,
      metadata: {
        ...workload.metadata,
        ownerReferences: [{apiVersion: 'batch/v1', kind: 'Job', name: 'batch-1', uid: 'u'}],
      },
    }
    expect(workloadRows([asWorkload(byJob)], [])).toMatchObject([{name: 'batch-1', restarts: null}])
  })
})

describe('accelerator pod sets', () => {
  it.each([
    ['a TPU limit', {containers: [{resources: {limits: {'google.com/tpu': 4}}}]}, true],
    ['a GPU request', {containers: [{resources: {requests: {'nvidia.com/gpu': '8'}}}]}, true],
    ['an init container asking for a TPU', {initContainers: [{resources: {limits: {'google.com/tpu': 1}}}]}, true],
    ['a TPU topology node selector', {nodeSelector: {'cloud.google.com/gke-tpu-topology': '4x4'}}, true],
    ['a CPU-only head (Pathways)', {containers: [{resources: {limits: {cpu: '8'}}}]}, false],
    ['a node-pool selector only', {nodeSelector: {'cloud.google.com/gke-nodepool': 'cpu-np'}}, false],
  ])('%s: %s', (_, spec, expected) => {
    expect(isAcceleratorPodSet({spec})).toBe(expected)
  })

  it('counts only accelerator pod sets; none at all is shown as "-"', () => {
    const jobset = submittedJobSet('w', 'medium', at(0))
    const workload = kueueWorkloadFor(jobset, at(0)) as {spec: {podSets: object[]}}
    const head = {name: 'head', count: 1, template: {spec: {containers: [{name: 'c', image: 'i'}]}}}
    const both = {...workload, spec: {...workload.spec, podSets: [...workload.spec.podSets, head]}}
    const admission = {
      podSetAssignments: [
        {name: 'slice-job', count: VMS},
        {name: 'head', count: 1},
      ],
    }
    expect(workloadRow(asWorkload({...both, status: {admission}}), undefined)).toMatchObject({
      vmsNeeded: VMS,
      vmsRunningOrRan: VMS,
    })
    const cpuOnly = {...workload, spec: {...workload.spec, podSets: [head]}}
    expect(workloadRow(asWorkload(cpuOnly), undefined)).toMatchObject({vmsNeeded: null, vmsRunningOrRan: null})
  })
})

describe('a Pathways workload (the JobSet `workload create-pathways` builds)', () => {
  // v5litepod-16 is 4 VMs a slice: 3 slices are 12 VMs; the head's CPU pod on cpu-np is not one of them.
  const built = buildPathwaysJobSet(
    aWorkloadSpec({name: 'pw', type: 'v5litepod-16', numSlices: 3, priority: 'high', command: 'python3 train.py'}),
    pathwaysSpecFromFlags({}, new Problems()),
  )
  const stored = {
    ...built,
    metadata: {...built.metadata, namespace: 'default', uid: uidOf('pw'), creationTimestamp: at(0)},
  }
  const kueue = kueueWorkloadFor(stored, at(0)) as {spec: {podSets: {name: string}[]}}

  it('its head is not an accelerator pod set, its workers are', () => {
    expect(built.spec.replicatedJobs.map((r) => [r.name, isAcceleratorPodSet(r.template.spec.template)])).toEqual([
      ['pathways-head', false],
      ['worker', true],
    ])
  })

  it.each([
    ['the JobSet alone (before Kueue makes its Workload)', undefined],
    ["Kueue's Workload and the JobSet", kueue],
  ])("from %s: the workers' VMs only, and their priority", (_, workload) => {
    if (workload) expect(workload.spec.podSets.map((p) => p.name)).toEqual(['pathways-head', 'worker'])
    const row = workloadRow(workload ? asWorkload(workload) : undefined, asJobSet(stored))
    expect(row).toMatchObject({name: 'pw', vmsNeeded: 12, priority: 'high'})
  })

  it("admitted: the running VMs are the workers' pods, the head's pod left out", () => {
    const admission = {
      podSetAssignments: [
        {name: 'pathways-head', count: 1},
        {name: 'worker', count: 12},
      ],
    }
    const row = workloadRow(asWorkload({...kueue, status: {admission}}), asJobSet(stored))
    expect(row).toMatchObject({vmsNeeded: 12, vmsRunningOrRan: 12})
  })
})

// The table's exact text, for every state above, is test/golden/tables/workload-list.txt (test/core/render).

describe('workloadListInputFromFlags', () => {
  it('defaults: everything, no job filter, no wait', () => {
    expect(workloadListInputFromFlags({})).toEqual({status: 'EVERYTHING', job: null, wait: null})
  })

  it('waits a week unless --timeout says otherwise', () => {
    expect(workloadListInputFromFlags({waitForJobCompletion: 'run-1'}).wait).toEqual({
      name: 'run-1',
      timeoutSeconds: DEFAULT_WAIT_TIMEOUT_SECONDS,
    })
    expect(DEFAULT_WAIT_TIMEOUT_SECONDS).toBe(604_800)
    expect(workloadListInputFromFlags({waitForJobCompletion: 'run-1', timeout: '90'}).wait?.timeoutSeconds).toBe(90)
  })

  it('reports every problem at once, each naming its flag', () => {
    let error: unknown
    try {
      workloadListInputFromFlags({filterByStatus: 'DONE', waitForJobCompletion: 'Bad_Name', timeout: '-1'})
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(UsageErrors)
    expect((error as UsageErrors).problems.map((p) => p.flag)).toEqual([
      '--filter-by-status',
      '--timeout',
      '--wait-for-job-completion',
    ])
    expect((error as UsageErrors).message).toContain(
      'use one of EVERYTHING, FINISHED, RUNNING, QUEUED, FAILED, SUCCESSFUL',
    )
  })

  it.each(['0', '-1', 'soon', '1.5', '2147484'])('--timeout %s is refused', (timeout) => {
    expect(() => workloadListInputFromFlags({waitForJobCompletion: 'w', timeout})).toThrow(UsageError)
  })

  it('--timeout without a workload to wait for is refused', () => {
    expect(() => workloadListInputFromFlags({timeout: '60'})).toThrow(
      /--timeout only applies with --wait-for-job-completion/,
    )
  })
})
