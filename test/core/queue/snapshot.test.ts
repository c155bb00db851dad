// `xpk queue`: the snapshot of a cluster's queues from its Kueue Workloads, JobSets and ClusterQueues (usage per
// flavor, running, queued in Kueue's order, evicted and finished in the last hour), and its two renderings: the
// live screen, which fits any terminal exactly and cuts long sections, and the tables printed once (goldens).
import {describe, expect, it} from 'vitest'

import {queueSnapshot, type SnapshotInputs} from '../../../src/core/queue/snapshot.js'
import {quotaBar, renderQueueScreen, renderQueueTables} from '../../../src/core/render/queue.js'
import {readJobSet, readWorkload} from '../../../src/core/workload/observed.js'
import type {Priority} from '../../../src/core/workload/priority.js'
import {readClusterQueue} from '../../../src/core/workload/why-observed.js'
import {at, jobsetStatus, kueueStatus, kueueWorkloadFor, submittedJobSet} from '../../builders/workload-states.js'
import {expectGolden} from '../../helpers/golden.js'

type Json = Record<string, unknown>

const NOW = Date.parse(at(30))

/** A workload of 4 x v5litepod-16 (64 chips) in a state, as Kueue and the JobSet controller leave it. */
function member(name: string, priority: Priority, created: number, kueue: Json, jobset: Json, uid?: string) {
  const stored = submittedJobSet(name, priority, at(created), uid)
  return {
    workload: readWorkload({...kueueWorkloadFor(stored, at(created)), status: kueue}),
    jobset: readJobSet({...stored, status: jobset}),
  }
}

const clusterQueue = (nominal: number) =>
  readClusterQueue({
    metadata: {name: 'cluster-queue'},
    spec: {
      resourceGroups: [
        {flavors: [{name: '4xv5litepod-16', resources: [{name: 'google.com/tpu', nominalQuota: nominal}]}]},
      ],
    },
  })

function world(members: ReturnType<typeof member>[], nominal = 128): SnapshotInputs {
  return {
    now: NOW,
    workloads: members.map((m) => m.workload),
    jobsets: members.map((m) => m.jobset),
    clusterQueues: [clusterQueue(nominal)],
  }
}

const PREEMPTOR_JOB_UID = '0d2b7a64-51c3-4d6e-8b0f-6f1f7c9e2a10'

/** Two running (one after preempting another), three queued of two priorities, one preempted, two finished. */
const A_DAY = [
  member('train', 'medium', 1, kueueStatus.running(2), jobsetStatus.running(2, 1)),
  member('urgent', 'very-high', 20, kueueStatus.running(21), jobsetStatus.running(21), PREEMPTOR_JOB_UID),
  member('pretrain', 'medium', 3, kueueStatus.preempted(21), jobsetStatus.suspended(21)),
  member('sweep-1', 'low', 5, kueueStatus.pending(5), jobsetStatus.suspended(5)),
  member('sweep-2', 'low', 6, kueueStatus.pending(6), jobsetStatus.suspended(6)),
  member('eval', 'high', 25, kueueStatus.pending(25), jobsetStatus.suspended(25)),
  member('done', 'medium', 0, kueueStatus.succeeded(10), jobsetStatus.completed(10)),
  member('broke', 'medium', 0, kueueStatus.failed(28), jobsetStatus.failed(28)),
]

describe('queueSnapshot', () => {
  it('splits the workloads, counts the quota held, and orders the queue as Kueue does', () => {
    const s = queueSnapshot(world(A_DAY))
    expect(s.queues).toEqual([
      {
        name: 'cluster-queue',
        admitted: 2,
        flavors: [{flavor: '4xv5litepod-16', resource: 'google.com/tpu', used: 128, nominal: 128}],
      },
    ])
    expect(s.running.map((w) => [w.name, w.priority, w.seconds, w.vms, w.restarts])).toEqual([
      ['urgent', 'very-high', 600, 16, 0],
      ['train', 'medium', 1740, 16, 1],
    ])
    // Higher priority first, then the older queue time: pretrain's is its eviction (minute 21), later than the sweeps.
    expect(s.queued.map((w) => [w.position, w.name, w.priority, w.seconds])).toEqual([
      [1, 'eval', 'high', 300],
      [2, 'pretrain', 'medium', 540],
      [3, 'sweep-1', 'low', 1500],
      [4, 'sweep-2', 'low', 1440],
    ])
    expect(s.evicted).toEqual([{name: 'pretrain', seconds: 540, reason: 'Preempted', by: 'urgent', heldSeconds: null}])
    expect(s.finished.map((w) => [w.name, w.outcome, w.seconds])).toEqual([
      ['broke', 'FAILED', 120],
      ['done', 'SUCCESSFUL', 1200],
    ])
  })

  it('leaves out evictions and finishes older than an hour, and says how long a backoff holds one out', () => {
    const later = queueSnapshot({...world(A_DAY), now: Date.parse(at(85))})
    expect(later.finished.map((w) => w.name)).toEqual(['broke'])
    expect(later.evicted).toEqual([])
    const backoff = queueSnapshot(
      world([member('w', 'low', 1, kueueStatus.evictedBackoff(29.5), jobsetStatus.suspended(1))]),
    )
    expect(backoff.evicted).toEqual([{name: 'w', seconds: 30, reason: 'PodsReadyTimeout', by: null, heldSeconds: 30}])
    // Held out of the queue: not queued.
    expect(backoff.queued).toEqual([])
  })

  it('shows a ClusterQueue with nothing in it, and no queue at all', () => {
    expect(queueSnapshot(world([])).queues[0]!.flavors[0]).toMatchObject({used: 0, nominal: 128})
    expect(queueSnapshot({...world(A_DAY), clusterQueues: []}).queues).toEqual([])
  })
})

describe('the live screen', () => {
  const s = queueSnapshot(world(A_DAY))

  it.each([
    [40, 120],
    [24, 80],
    [12, 60],
    [6, 40],
    [3, 20],
  ])('fits %i rows of %i columns exactly', (rows, columns) => {
    const lines = renderQueueScreen(s, {rows, columns}, 'demo')
    expect(lines.length).toBeLessThanOrEqual(rows)
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns)
  })

  it('cuts a long section to the rows left, saying how many more, and keeps room for the next', () => {
    const many = Array.from({length: 10_000}, (_, i) =>
      member(`sweep-${i}`, 'low', 5, kueueStatus.pending(5), jobsetStatus.suspended(5)),
    )
    const big = queueSnapshot(world([...A_DAY, ...many]))
    const lines = renderQueueScreen(big, {rows: 30, columns: 100}, 'demo')
    expect(lines).toHaveLength(30)
    const more = lines.map((l) => /^\.\.\. and (\d+) more$/.exec(l)).find(Boolean)
    const shown = lines.filter((l) => /^\d+ +(eval|pretrain|sweep-)/.test(l)).length
    expect(Number(more![1]) + shown).toBe(10_004)
    expect(lines).toContain('EVICTED (last hour) (1)')
    expect(lines).toContain('FINISHED (last hour) (2)')
  })

  it('draws a bar of the quota in use', () => {
    expect(quotaBar(48, 64, 8)).toBe('[██████░░]')
    expect(quotaBar(0, 64, 4)).toBe('[░░░░]')
    expect(quotaBar(80, 64, 4)).toBe('[████]')
    expect(quotaBar(1, 0, 3)).toBe('[░░░]')
  })

  it('renders as the goldens say: a screen of 24 x 100, a small one, and the tables printed once', () => {
    const text = [
      '## 24 rows x 100 columns',
      ...renderQueueScreen(s, {rows: 24, columns: 100}, 'demo'),
      '',
      '## 10 rows x 60 columns',
      ...renderQueueScreen(s, {rows: 10, columns: 60}, 'demo'),
      '',
      '## once, through a kubeconfig',
      renderQueueTables(s, null),
      '',
    ].join('\n')
    expectGolden('queue/screens.txt', text)
  })

  it('keeps hostile names on one line', () => {
    const hostile = queueSnapshot(world([member('ok', 'low', 5, kueueStatus.pending(5), jobsetStatus.suspended(5))]))
    const renamed = {...hostile, queued: hostile.queued.map((w) => ({...w, name: 'a\nb\u001b[2J'}))}
    const lines = renderQueueScreen(renamed, {rows: 20, columns: 80}, 'demo')
    expect(lines.join('\n')).not.toContain('\u001b')
    expect(lines.some((l) => l.includes('a b\\x1b[2J'))).toBe(true)
  })
})
