// `xpk workload delete` in process over the in-memory GKE and Kubernetes ports: one workload by name (no question),
// a filter's selection (listed, confirmed, refused without a terminal), already gone, --wait, --dry-run, bad input.
import {describe, expect, it} from 'vitest'

import {UsageError, type XpkError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY, type Clock} from '../../src/executor/retry.js'
import type {GkeClient} from '../../src/ports/gke.js'
import {deleteWorkloads, type WorkloadDeleteOptions} from '../../src/services/workload-delete.js'
import {aWorkloadCluster, JOBSET_API, namesOf, seedWorkload} from '../builders/workload-cluster.js'
import {SCENARIOS, scenarioObjects} from '../builders/workload-states.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import type {MemoryKube, MemoryKubeOptions} from '../fakes/memory-kube.js'
import {manualClock} from '../helpers/manual-clock.js'
import {olderXpkPathwaysJob, pathwaysJobCrd} from '../helpers/pathways-job.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

/** A cluster running sweep-1, sweep-2, sweep-10 and run-1, each with a Kueue Workload, a Job and two pods. */
function aBusyCluster(options: MemoryKubeOptions = {}): MemoryKube {
  const kube = aWorkloadCluster(options)
  for (const name of ['sweep-1', 'sweep-2', 'sweep-10', 'run-1']) seedWorkload(kube, name)
  kube.clearLog()
  return kube
}

function run(
  kube: MemoryKube,
  options: Partial<WorkloadDeleteOptions> = {},
  answer: PromptAnswer = 'unexpected',
  clock: Clock & {sleeps?: number[]} = virtualClock(),
  gke: GkeClient = new MemoryGke(),
  console = new RecordingConsole(answer),
) {
  let gkeConnections = 0
  const done = deleteWorkloads(
    {
      project: 'my-project',
      zone: 'us-central2-b',
      cluster: 'demo',
      viaKubeconfig: false,
      wait: false,
      dryRun: false,
      timing: {
        retry: DEFAULT_RETRY_POLICY,
        workloadGone: {poll: {initialMs: 1000, maxMs: 5000, factor: 1.5}, timeoutMs: 60_000},
      },
      ...options,
    },
    {
      gke: async () => (gkeConnections++, gke),
      kube: async () => kube,
      console,
      signal: new AbortController().signal,
      ...clock,
    },
  )
  return {done, console, clock, gkeConnections: () => gkeConnections}
}

/** A client whose every call is accepted and never answered (close excepted): a server that went silent. */
function silent<T extends object>(client: T): T {
  return new Proxy(client, {
    get: (target, key, receiver) => {
      const value: unknown = Reflect.get(target, key, receiver)
      if (typeof value !== 'function' || key === 'close') return value
      return () => new Promise(() => undefined)
    },
  })
}

const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as XpkError
const deletes = (kube: MemoryKube) => kube.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name}`)

describe('workload delete --workload', () => {
  it('deletes the JobSet without asking; its Kueue Workload, Jobs and pods go with it', async () => {
    const kube = aBusyCluster()
    const {done, console} = run(kube, {workload: 'sweep-1'})
    await expect(done).resolves.toMatchObject({
      selected: ['sweep-1'],
      deleted: ['sweep-1'],
      alreadyGone: [],
      waited: false,
    })
    expect(deletes(kube)).toEqual(['delete JobSet sweep-1'])
    expect(namesOf(kube, 'JobSet')).toEqual(['run-1', 'sweep-10', 'sweep-2'])
    expect(namesOf(kube, 'Workload')).not.toContain('jobset-sweep-1-0a1b2')
    expect(namesOf(kube, 'Pod').filter((p) => p.startsWith('sweep-1-'))).toEqual([])
    expect(console.questions).toEqual([])
    expect(console.results).toEqual(['Deleted JobSet default/sweep-1.'])
  })

  it('one already gone is success with a note', async () => {
    const kube = aBusyCluster()
    const {done, console} = run(kube, {workload: 'gone-1'})
    await expect(done).resolves.toMatchObject({deleted: [], alreadyGone: ['gone-1']})
    expect(console.codes()).toEqual(['workload.delete.absent'])
    expect(console.the('workload.delete.absent').text).toBe(
      'Workload gone-1 is not in cluster demo (already deleted): nothing to do.',
    )
    expect(console.results).toEqual([])
  })

  it('--wait returns once the JobSet and its pods are gone, showing what is left', async () => {
    // Pods outlive their JobSet for a while, as they do while their containers stop.
    const kube = aBusyCluster({lingering: {Pod: 6}})
    const {done, console, clock} = run(kube, {workload: 'sweep-1', wait: true})
    await expect(done).resolves.toMatchObject({deleted: ['sweep-1'], waited: true})
    expect(namesOf(kube, 'Pod').filter((p) => p.startsWith('sweep-1-'))).toEqual([])
    expect(clock.sleeps!.length).toBeGreaterThan(0)
    const details = [...new Set(console.boards[0]!.updates.map((u) => u.line.detail))]
    expect(details).toContain('2 pods left')
    expect(console.boards[0]!.closed).toBe(true)
    expect(console.results.at(-1)).toBe('sweep-1 is gone, with its pods.')
    // One JobSet get and one pod list per check, whatever the number of pods; before them, the one read of an older
    // xpk's PathwaysJob of the name.
    const reads = kube.requests.filter((r) => !r.mutating)
    expect(reads.filter((r) => r.kind === 'PathwaysJob').map((r) => r.verb)).toEqual(['get'])
    expect(new Set(reads.map((r) => `${r.verb} ${r.kind}`))).toEqual(
      new Set(['get PathwaysJob', 'get JobSet', 'list Pod']),
    )
  })

  it('--wait times out with exit 124 naming the pods still there', async () => {
    const kube = aBusyCluster({lingering: {Pod: 1_000_000}})
    const error = await failure(run(kube, {workload: 'sweep-1', wait: true}).done)
    expect(error.exitCode).toBe(124)
    expect(error.message).toBe('Still there after 60s: 2 pods (sweep-1-slice-job-0-0-x0y, sweep-1-slice-job-0-1-x1y).')
  })

  it.each([
    ['GKE, asked where the cluster is', 'gke'],
    ['the Kubernetes API, asked to delete', 'kube'],
  ] as const)(
    "--wait's time limit bounds the whole command: %s never answers, and it is exit 124 at the limit",
    async (_, which) => {
      const kube = aBusyCluster()
      const clock = manualClock()
      const gke = new MemoryGke()
      const {done} = run(
        which === 'kube' ? silent(kube) : kube,
        {workload: 'sweep-1', wait: true},
        'unexpected',
        clock,
        which === 'gke' ? silent(gke) : gke,
      )
      const ended = failure(done)
      await clock.advance(59_999)
      expect(await Promise.race([ended, 'still waiting'])).toBe('still waiting')
      await clock.advance(1)
      const error = await ended
      expect([error.kind, error.exitCode]).toEqual(['timeout', 124])
      expect(error.message).toBe(
        'The workloads were not deleted and gone within 60 s (XPK_WORKLOAD_DELETE_TIMEOUT_S): the cluster did not answer in time.',
      )
      expect(kube.mutatingRequests()).toEqual([])
      expect(clock.sleeping).toBe(0)
    },
  )

  it('a malformed name is exit 2 before any request', async () => {
    const kube = aBusyCluster()
    const {done, gkeConnections} = run(kube, {workload: 'Sweep_1'})
    const error = await failure(done)
    expect(error).toBeInstanceOf(UsageError)
    expect(error.message).toContain('--workload "Sweep_1" is not a workload name')
    expect(gkeConnections()).toBe(0)
    expect(kube.requests).toEqual([])
  })

  it('a missing zone is exit 2 naming it, unless a kubeconfig reaches the cluster', async () => {
    const kube = aBusyCluster()
    const error = await failure(run(kube, {workload: 'sweep-1', zone: undefined}).done)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain('Missing --zone')
    expect(kube.requests).toEqual([])
    const viaKubeconfig = run(kube, {workload: 'sweep-1', zone: undefined, viaKubeconfig: true})
    await expect(viaKubeconfig.done).resolves.toMatchObject({deleted: ['sweep-1']})
    expect(viaKubeconfig.gkeConnections()).toBe(0)
  })
})

/**
 * A cluster where an older Python xpk ran Pathways: the PathwaysJob kind served, old-pw a PathwaysJob owning its
 * JobSet (and through it the Kueue Workload, Jobs and pods), new-pw and run-1 JobSets of this xpk.
 */
function aClusterWithAPathwaysJob(): MemoryKube {
  const kube = aWorkloadCluster()
  kube.seed(pathwaysJobCrd())
  kube.seed(olderXpkPathwaysJob('old-pw'), {manager: 'xpk'})
  const owner = kube.peek({...PATHWAYS_JOB, namespace: 'default', name: 'old-pw'})!
  seedWorkload(kube, 'old-pw', {ownedBy: owner})
  for (const name of ['new-pw', 'run-1']) seedWorkload(kube, name)
  kube.clearLog()
  return kube
}
const PATHWAYS_JOB = {apiVersion: 'pathways-job.pathways.domain/v1', kind: 'PathwaysJob'}

describe("workload delete of an older xpk's PathwaysJob", () => {
  it('--workload: the PathwaysJob first, then the JobSet (already gone with it is still deleted)', async () => {
    const kube = aClusterWithAPathwaysJob()
    const {done, console} = run(kube, {workload: 'old-pw'})
    await expect(done).resolves.toMatchObject({deleted: ['old-pw'], alreadyGone: []})
    expect(deletes(kube)).toEqual(['delete PathwaysJob old-pw', 'delete JobSet old-pw'])
    expect(kube.peek({...PATHWAYS_JOB, namespace: 'default', name: 'old-pw'})).toBeUndefined()
    expect(namesOf(kube, 'JobSet')).toEqual(['new-pw', 'run-1'])
    expect(namesOf(kube, 'Pod').some((p) => p.startsWith('old-pw-'))).toBe(false)
    expect(console.results).toContain('Deleted PathwaysJob default/old-pw.\nDeleted JobSet default/old-pw.')
    expect(console.messages.map((m) => m.code)).not.toContain('workload.delete.absent')
  })

  it('--filter-by-job: only the workload that has one gets a PathwaysJob delete, before its JobSet', async () => {
    const kube = aClusterWithAPathwaysJob()
    const {done} = run(kube, {filterByJob: 'pw'}, 'yes')
    await expect(done).resolves.toMatchObject({selected: ['new-pw', 'old-pw'], deleted: ['new-pw', 'old-pw']})
    const sent = deletes(kube)
    expect(sent.filter((d) => d.includes('PathwaysJob'))).toEqual(['delete PathwaysJob old-pw'])
    expect(sent.indexOf('delete PathwaysJob old-pw')).toBeLessThan(sent.indexOf('delete JobSet old-pw'))
    expect(sent).toContain('delete JobSet new-pw')
    expect(namesOf(kube, 'JobSet')).toEqual(['run-1'])
  })

  it('--dry-run: the plan names the PathwaysJob step and why; nothing is deleted', async () => {
    const kube = aClusterWithAPathwaysJob()
    const {done, console} = run(kube, {workload: 'old-pw', dryRun: true})
    const result = await done
    expect(result.steps.map((s) => `${s.action} ${s.resource} ${s.name}`)).toEqual([
      'delete pathwaysJob default/old-pw',
      'delete jobSet default/old-pw',
    ])
    expect(console.results.join('\n')).toMatch(/pathwaysjob default\/old-pw.*owns the JobSet and would make it again/)
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a cluster serving the kind without a PathwaysJob of the name, or not serving it: no extra mutating request', async () => {
    for (const kube of [aClusterWithAPathwaysJob(), aBusyCluster()]) {
      const {done} = run(kube, {workload: 'run-1'})
      await expect(done).resolves.toMatchObject({deleted: ['run-1']})
      expect(deletes(kube)).toEqual(['delete JobSet run-1'])
    }
    const kube = aBusyCluster()
    const {done} = run(kube, {filterByJob: 'sweep-'}, 'yes')
    await expect(done).resolves.toMatchObject({deleted: ['sweep-1', 'sweep-10', 'sweep-2']})
    expect(deletes(kube).every((d) => d.startsWith('delete JobSet '))).toBe(true)
  })
})

describe('workload delete --filter-by-job', () => {
  it('lists the matching workloads, asks, and deletes only those', async () => {
    const kube = aBusyCluster()
    const {done, console} = run(kube, {filterByJob: 'sweep-'}, 'yes')
    await expect(done).resolves.toMatchObject({
      selected: ['sweep-1', 'sweep-10', 'sweep-2'],
      deleted: ['sweep-1', 'sweep-10', 'sweep-2'],
    })
    expect(console.questions.map((q) => q.code)).toEqual(['workload.delete.confirm'])
    expect(console.questions[0]!.text).toBe(
      'Delete 3 workloads in cluster demo (names containing "sweep-"), stopping their pods:\n  sweep-1\n  sweep-10\n  sweep-2\nContinue?',
    )
    expect(console.questions[0]!.default).toBe(false)
    expect(deletes(kube).sort()).toEqual(['delete JobSet sweep-1', 'delete JobSet sweep-10', 'delete JobSet sweep-2'])
    expect(namesOf(kube, 'JobSet')).toEqual(['run-1'])
    // One list of JobSets selected them, however many there are, and one of an older xpk's PathwaysJobs.
    expect(kube.requests.filter((r) => r.verb === 'list').map((r) => r.kind)).toEqual(['JobSet', 'PathwaysJob'])
  })

  it('with --wait, the time a person takes to answer does not count: the limit starts again from the answer', async () => {
    const kube = aBusyCluster()
    const clock = manualClock()
    // Someone answers after 10 minutes, much longer than the 60 s limit.
    let answer: (yes: boolean) => void = () => undefined
    const console = new RecordingConsole('yes')
    console.confirm = async (asked) => {
      console.questions.push(asked)
      return {yes: await new Promise<boolean>((resolve) => (answer = resolve)), by: 'person'}
    }
    const {done} = run(kube, {filterByJob: 'sweep-1', wait: true}, 'yes', clock, new MemoryGke(), console)
    const ended = done.catch((e: unknown) => e)
    await clock.advance(0)
    expect(console.questions).toHaveLength(1)
    await clock.advance(600_000)
    answer(true)
    await clock.advance(0)
    // The deletes went out; the pods go at once in this cluster, so the wait ends well within the limit.
    for (let i = 0; i < 20 && !(await Promise.race([ended.then(() => true), false])); i++) await clock.advance(1000)
    await expect(ended).resolves.toMatchObject({deleted: ['sweep-1', 'sweep-10'], waited: true})
  })

  it('a "no" deletes nothing (exit 1)', async () => {
    const kube = aBusyCluster()
    const error = await failure(run(kube, {filterByJob: 'sweep-'}, 'no').done)
    expect(error.exitCode).toBe(1)
    expect(error.message).toBe('Nothing was deleted.')
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('with nobody to ask and no --force it refuses with exit 2 naming --force', async () => {
    const kube = aBusyCluster()
    const error = await failure(run(kube, {filterByJob: 'sweep-'}, 'no-terminal').done)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).flag).toBe('--force')
    expect(error.message).toContain('there is no terminal to ask on')
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('without a filter, every workload is selected (and confirmed)', async () => {
    const kube = aBusyCluster()
    const {done, console} = run(kube, {}, 'yes')
    await expect(done).resolves.toMatchObject({deleted: ['run-1', 'sweep-1', 'sweep-10', 'sweep-2']})
    expect(console.questions[0]!.text).toMatch(/^Delete 4 workloads in cluster demo, stopping their pods:/)
    expect(namesOf(kube, 'JobSet')).toEqual([])
  })

  it('nothing matching is a note, with no question and no delete', async () => {
    const kube = aBusyCluster()
    const {done, console} = run(kube, {filterByJob: 'nope'})
    await expect(done).resolves.toMatchObject({selected: [], deleted: []})
    expect(console.codes()).toEqual(['workload.delete.no-match'])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a workload already being deleted is not selected again', async () => {
    const kube = aBusyCluster({lingering: {JobSet: 1_000}})
    await run(kube, {workload: 'sweep-2'}).done
    const {done} = run(kube, {filterByJob: 'sweep-'}, 'yes')
    await expect(done).resolves.toMatchObject({selected: ['sweep-1', 'sweep-10']})
  })

  it('--wait waits for every selected workload with one list per kind per check', async () => {
    const kube = aBusyCluster({lingering: {Pod: 8}})
    const {done} = run(kube, {filterByJob: 'sweep-', wait: true}, 'yes')
    await expect(done).resolves.toMatchObject({waited: true})
    expect(namesOf(kube, 'Pod').every((p) => p.startsWith('run-1-'))).toBe(true)
    const kinds = new Set(kube.requests.filter((r) => !r.mutating).map((r) => `${r.verb} ${r.kind}`))
    expect(kinds).toEqual(new Set(['list JobSet', 'list PathwaysJob', 'list Pod']))
  })
})

describe('workload delete --filter-by-status', () => {
  /** Every state `workload list` tells apart, as Kueue and JobSet leave their objects, owned as they own them. */
  function aClusterInEveryState(): MemoryKube {
    const kube = aWorkloadCluster()
    for (const scenario of SCENARIOS) {
      const {jobset, workload} = scenarioObjects(scenario)
      const {status, ...spec} = jobset as {status?: Record<string, unknown>}
      kube.seed(spec, {manager: 'xpk', ...(status ? {status} : {})})
      if (workload === null) continue
      const {uid} = kube.peek({
        apiVersion: JOBSET_API,
        kind: 'JobSet',
        namespace: 'default',
        name: scenario.name,
      })!.metadata
      const {status: kueueStatus, ...rest} = workload as {
        status: Record<string, unknown>
        metadata: {ownerReferences: object[]}
      }
      rest.metadata.ownerReferences = rest.metadata.ownerReferences.map((o) => ({...o, uid}))
      kube.seed(rest, {manager: 'kueue', status: kueueStatus})
    }
    kube.clearLog()
    return kube
  }
  const named = (test: (s: (typeof SCENARIOS)[number]) => boolean) =>
    SCENARIOS.filter(test)
      .map((s) => s.name)
      .sort()

  it('selects the workloads in that state as workload list decides it (any case), reading each kind once', async () => {
    const kube = aClusterInEveryState()
    const finished = named((s) => s.expected.phase === 'FINISHED')
    expect(finished.length).toBeGreaterThan(1)
    const {done, console} = run(kube, {filterByStatus: 'finished'}, 'yes')
    await expect(done).resolves.toMatchObject({selected: finished, deleted: finished})
    expect(console.questions[0]!.text).toMatch(/in cluster demo \(status FINISHED\), stopping their pods:/)
    expect(console.questions[0]!.data).toMatchObject({filterByStatus: 'FINISHED'})
    expect(namesOf(kube, 'JobSet')).toEqual(named((s) => s.expected.phase !== 'FINISHED'))
    expect(
      kube.requests
        .filter((r) => r.verb === 'list')
        .map((r) => r.kind)
        .sort(),
    ).toEqual(['JobSet', 'PathwaysJob', 'Workload'])
  })

  it('combines with --filter-by-job', async () => {
    const kube = aClusterInEveryState()
    const {done, console} = run(kube, {filterByStatus: 'FAILED', filterByJob: 'user-'}, 'yes')
    const failedUsers = named((s) => s.expected.outcome === 'FAILED' && s.name.includes('user-'))
    expect(failedUsers).toEqual(['user-first-job-failed'])
    await expect(done).resolves.toMatchObject({deleted: failedUsers})
    expect(console.questions[0]!.text).toContain('(names containing "user-", status FAILED)')
  })

  it('nothing in that state is a note naming the filters', async () => {
    const kube = aBusyCluster()
    const {done, console} = run(kube, {filterByStatus: 'successful', filterByJob: 'sweep-'})
    await expect(done).resolves.toMatchObject({selected: []})
    expect(console.the('workload.delete.no-match').text).toBe(
      'There are no workloads whose name contains "sweep-" and whose status is SUCCESSFUL in cluster demo: nothing to delete.',
    )
  })

  it('an unknown state is exit 2 naming the valid ones, before any request', async () => {
    const kube = aBusyCluster()
    const error = await failure(run(kube, {filterByStatus: 'done'}).done)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).flag).toBe('--filter-by-status')
    expect(error.message).toContain('EVERYTHING, FINISHED, RUNNING, QUEUED, FAILED, SUCCESSFUL')
    expect(kube.requests).toEqual([])
  })
})

describe('workload delete --dry-run', () => {
  it('shows the plan of what it would delete and changes nothing, without asking', async () => {
    const kube = aBusyCluster()
    const {done, console} = run(kube, {filterByJob: 'sweep-1', dryRun: true, wait: true})
    const result = await done
    expect(result).toMatchObject({selected: ['sweep-1', 'sweep-10'], deleted: [], dryRun: true})
    expect(console.results).toEqual([
      [
        'Plan for the workloads in cluster demo:',
        '  -   delete   jobset   default/sweep-1   its name contains sweep-1; its Jobs, pods and Kueue Workload go with it',
        '  -   delete   jobset   default/sweep-10  its name contains sweep-1; its Jobs, pods and Kueue Workload go with it',
        '  ~   wait     jobset   2 workloads       --wait: until they and their pods are gone (at most 60 s, XPK_WORKLOAD_DELETE_TIMEOUT_S)',
        'Summary: 2 to delete, 0 unchanged.',
      ].join('\n'),
    ])
    expect(result.steps.map((s) => s.spec)).toEqual([
      {namespace: 'default', name: 'sweep-1', propagationPolicy: 'Background'},
      {namespace: 'default', name: 'sweep-10', propagationPolicy: 'Background'},
      {workloads: ['sweep-1', 'sweep-10'], timeoutSeconds: 60},
    ])
    expect(console.codes()).toEqual(['workload.delete.dry-run'])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a named workload that is gone says so', async () => {
    const kube = aBusyCluster()
    const {done, console} = run(kube, {workload: 'gone-1', dryRun: true})
    await expect(done).resolves.toMatchObject({alreadyGone: ['gone-1']})
    expect(console.codes()).toEqual(['workload.delete.absent', 'workload.delete.dry-run'])
    expect(kube.mutatingRequests()).toEqual([])
  })
})
