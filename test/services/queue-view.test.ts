// `xpk queue` in process, over the in-memory Kubernetes port: once (one list of each kind, the tables printed), and
// live on a recording screen: watches of the three kinds, a redraw after each change (never a list again), the
// screen given back on Ctrl-C, and a cluster without Kueue refused before any watch.
import {describe, expect, it} from 'vitest'

import type {XpkError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import type {Screen} from '../../src/ports/screen.js'
import {REFRESH_MS, viewQueue, type QueueViewOptions} from '../../src/services/queue-view.js'
import {CLUSTER_QUEUE_CRD, JOBSET_CRD, KUEUE_WORKLOAD_CRD} from '../builders/workload-cluster.js'
import {at, jobsetStatus, kueueStatus, kueueWorkloadFor, submittedJobSet} from '../builders/workload-states.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {manualClock} from '../helpers/manual-clock.js'
import {RecordingConsole} from '../helpers/recording-console.js'

type Json = Record<string, unknown>

function aCluster(): MemoryKube {
  const kube = new MemoryKube()
  for (const crd of [JOBSET_CRD, KUEUE_WORKLOAD_CRD, CLUSTER_QUEUE_CRD]) kube.seed(crd, {manager: 'xpk'})
  kube.seed(
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ClusterQueue',
      metadata: {name: 'cluster-queue'},
      spec: {
        resourceGroups: [
          {flavors: [{name: '4xv5litepod-16', resources: [{name: 'google.com/tpu', nominalQuota: 64}]}]},
        ],
      },
    },
    {manager: 'xpk'},
  )
  return kube
}

/** A workload and the Workload Kueue made for it; returns the Workload's name. */
function seed(kube: MemoryKube, name: string, kueue: Json, jobset: Json): string {
  const js = submittedJobSet(name, 'medium', at(0))
  kube.seed(js, {manager: 'xpk', status: jobset})
  const uid = String(kube.peek({apiVersion: js.apiVersion, kind: 'JobSet', namespace: 'default', name})!.metadata.uid)
  const workload = kueueWorkloadFor({...js, metadata: {...js.metadata, uid}}, at(0)) as {metadata: {name: string}}
  kube.seed(workload, {manager: 'kueue', status: kueue})
  return workload.metadata.name
}

/** A screen that keeps every frame drawn. */
function recordingScreen(rows = 30, columns = 100) {
  const frames: string[][] = []
  let closed = false
  const screen: Screen = {
    size: () => ({rows, columns}),
    draw: (lines) => void frames.push([...lines]),
    onResize: () => () => undefined,
    close: () => void (closed = true),
  }
  return {screen, frames, closed: () => closed}
}

function run(kube: MemoryKube, screen: Screen | null, overrides: Partial<QueueViewOptions> = {}) {
  const console = new RecordingConsole()
  const controller = new AbortController()
  const clock = manualClock()
  const done = viewQueue(
    {
      project: 'test-project',
      zone: 'us-central2-b',
      cluster: 'demo',
      viaKubeconfig: false,
      once: false,
      timing: {retry: DEFAULT_RETRY_POLICY},
      ...overrides,
    },
    {
      gke: async () => new MemoryGke(),
      kube: async () => kube,
      console,
      signal: controller.signal,
      screen: () => screen,
      ...clock,
    },
  )
  return {done, console, clock, stop: (reason: unknown) => controller.abort(reason)}
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
const verbs = (kube: MemoryKube) => kube.requests.map((r) => `${r.verb} ${r.kind}`)

describe('viewQueue', () => {
  it('without a terminal: one list of each kind, the tables printed, the snapshot returned', async () => {
    const kube = aCluster()
    seed(kube, 'run-1', kueueStatus.running(2), jobsetStatus.running(2))
    seed(kube, 'run-2', kueueStatus.pending(3), jobsetStatus.suspended(3))
    const {done, console} = run(kube, null)
    const snapshot = await done
    expect(snapshot.running.map((w) => w.name)).toEqual(['run-1'])
    expect(snapshot.queued.map((w) => w.name)).toEqual(['run-2'])
    expect(verbs(kube).sort()).toEqual(['list ClusterQueue', 'list JobSet', 'list Workload'])
    expect(console.results.join('\n')).toMatch(/^Queues of cluster demo at /)
    expect(console.results.join('\n')).toContain('QUEUED (1)')
  })

  it('--once prints once even on a terminal', async () => {
    const kube = aCluster()
    const {screen, frames} = recordingScreen()
    await run(kube, screen, {once: true}).done
    expect(frames).toEqual([])
  })

  it('live: draws from watches, redraws after a change without listing again, gives the screen back on Ctrl-C', async () => {
    const kube = aCluster()
    seed(kube, 'run-1', kueueStatus.running(2), jobsetStatus.running(2))
    const waiting = seed(kube, 'run-2', kueueStatus.pending(3), jobsetStatus.suspended(3))
    const {screen, frames, closed} = recordingScreen()
    const {done, clock, stop} = run(kube, screen)
    const ended = done.catch((e: unknown) => e)
    for (let i = 0; i < 5; i++) {
      await settle()
      await clock.advance(REFRESH_MS)
    }
    const first = frames.at(-1)!.join('\n')
    expect(first).toContain('QUEUED (1)')
    expect(first).toMatch(/^1 +run-2 /m)
    // Kueue admits run-2 (run-1 finished): the next frame says so.
    kube.setStatus(
      {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Workload', namespace: 'default', name: waiting},
      kueueStatus.running(5),
    )
    for (let i = 0; i < 3; i++) {
      await settle()
      await clock.advance(REFRESH_MS)
    }
    const after = frames.at(-1)!.join('\n')
    expect(after).toContain('RUNNING (2)')
    expect(after).not.toContain('QUEUED')
    expect(verbs(kube).filter((v) => v.startsWith('list'))).toEqual([])
    expect(
      verbs(kube)
        .filter((v) => v.startsWith('watch'))
        .sort(),
    ).toEqual(['watch ClusterQueue', 'watch JobSet', 'watch Workload'])
    const interrupted = new Error('Interrupted.')
    stop(interrupted)
    expect(await ended).toBe(interrupted)
    expect(closed()).toBe(true)
  })

  it('live on a cluster without Kueue: refused (exit 6) before any watch, the screen never drawn', async () => {
    const kube = new MemoryKube()
    kube.seed(JOBSET_CRD, {manager: 'xpk'})
    const {screen, frames} = recordingScreen()
    const error = (await run(kube, screen).done.catch((e: unknown) => e)) as XpkError
    expect([error.kind, error.exitCode]).toEqual(['conflict', 6])
    expect(error.message).toBe('The cluster has no Kueue (its kinds are not served), so it has no queue to show.')
    expect(verbs(kube).filter((v) => v.startsWith('watch'))).toEqual([])
    expect(frames).toEqual([])
  })
})
