// The Kueue stand-in over the Kubernetes fake, on a clock the test moves: what it writes is checked two ways, by the
// fake (the real Workload and JobSet CRDs validate every status it writes when the tests can find them) and by
// `workload list`'s own classifier (src/core/workload/status.ts), so the states it shows are the ones xpk reads.
import {request} from 'node:https'

import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {isCrd} from '../../src/core/kube/release-manifest.js'
import {kueueConfiguration} from '../../src/core/incluster/kueue.js'
import {readJobSet, readWorkload} from '../../src/core/workload/observed.js'
import {workloadRows, type WorkloadRow} from '../../src/core/workload/status.js'
import {submittedJobSet, VMS} from '../builders/workload-states.js'
import {aClusterShape} from '../core/incluster/cluster-shapes.js'
import {releaseWithRealCrds} from '../helpers/release-files.js'
import {FakeKube, type Obj} from './fake-kube.js'
import {KueueStandIn, type KueueStandInOptions} from './kueue-stand-in.js'

const CHIPS_PER_VM = 4
/** The JobSets of submittedJobSet: 4 slices of v5litepod-16, 16 VMs of 4 chips. */
const CHIPS = VMS * CHIPS_PER_VM

let kube: FakeKube
let clock: number
const now = () => clock

beforeAll(async () => {
  kube = await FakeKube.start()
}, 60_000)
afterAll(async () => {
  await kube?.stop()
})
beforeEach(() => {
  kube.reset()
  clock = Date.UTC(2026, 10, 23, 12)
})

/** Kueue and JobSet installed, and a ClusterQueue whose quota holds `clusters` x one workload's chips. */
function installKueue(clusters = 1): void {
  kube.seed(...([...releaseWithRealCrds('jobset'), ...releaseWithRealCrds('kueue')].filter(isCrd) as Obj[]))
  const config = kueueConfiguration(aClusterShape({type: 'v5litepod-16', numSlices: 4 * clusters}), {
    topologyAwareScheduling: false,
  })
  kube.seed(config.resourceFlavor as unknown as Obj, config.clusterQueue as unknown as Obj)
}

function standIn(options: KueueStandInOptions = {}): KueueStandIn {
  return new KueueStandIn(kube, {now, startMs: 300, logEveryMs: 100, ...options})
}

const submit = (name: string, priority: Parameters<typeof submittedJobSet>[1]) =>
  kube.seed(submittedJobSet(name, priority, new Date(clock).toISOString()) as unknown as Obj)

/** What `workload list` would show, by JobSet name. */
function rows(): Record<string, WorkloadRow> {
  const workloads = kube.list('kueue.x-k8s.io/v1beta2', 'Workload').map(readWorkload)
  const jobsets = kube.list('jobset.x-k8s.io/v1alpha2', 'JobSet').map(readJobSet)
  return Object.fromEntries(workloadRows(workloads, jobsets).map((r) => [r.name, r]))
}
const statuses = () => Object.fromEntries(Object.entries(rows()).map(([name, r]) => [name, r.status]))

async function advance(ms: number, stand: KueueStandIn): Promise<void> {
  clock += ms
  await stand.tick()
}

const pods = (jobset: string) =>
  kube
    .list('v1', 'Pod', 'default')
    .filter((p) => (p.metadata as {labels: Record<string, string>}).labels['jobset.sigs.k8s.io/jobset-name'] === jobset)

/** GET or DELETE over the fake's HTTPS API, as a client would; the body as text. */
function call(method: 'GET' | 'DELETE', path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${kube.url}${path}`,
      {method, ca: kube.caPem, headers: {authorization: `Bearer ${kube.token}`}},
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => (res.statusCode! < 300 ? resolve(body) : reject(new Error(`${res.statusCode}: ${body}`))))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

describe('Kueue stand-in', () => {
  it('does nothing until JobSet and Kueue are installed', async () => {
    const stand = standIn()
    await stand.tick()
    expect(stand.states()).toEqual({})
  })

  it('makes an owned Workload for a queued JobSet, admits it when it fits, and starts one pod per VM', async () => {
    installKueue()
    const stand = standIn()
    const [jobset] = submit('first', 'medium')
    await stand.tick()

    const [workload] = kube.list('kueue.x-k8s.io/v1beta2', 'Workload', 'default')
    const meta = workload!.metadata as {name: string; ownerReferences: {uid: string; controller: boolean}[]}
    expect(meta.name).toMatch(/^jobset-first-[0-9a-f]{5}$/)
    expect(meta.ownerReferences).toEqual([
      expect.objectContaining({kind: 'JobSet', uid: (jobset!.metadata as {uid: string}).uid, controller: true}),
    ])
    expect(workload!.spec).toMatchObject({queueName: 'multislice-queue', priority: 500, podSets: [{count: VMS}]})
    expect(statuses()).toEqual({first: 'Admitted'})
    expect(pods('first')).toHaveLength(VMS)
    expect(rows().first).toMatchObject({phase: 'RUNNING', vmsRunningOrRan: VMS})

    await advance(300, stand)
    expect(stand.states()).toEqual({first: 'running'})
    expect(rows().first).toMatchObject({status: 'Running', phase: 'RUNNING'})
    expect(pods('first').map((p) => (p.status as {phase: string}).phase)).toEqual(Array(VMS).fill('Running'))
  })

  it('writes log lines to every pod while running, ending with the exit code', async () => {
    installKueue()
    const stand = standIn({runMs: () => 250})
    submit('logged', 'medium')
    await stand.tick()
    await advance(300, stand)
    await advance(100, stand)
    await advance(100, stand)
    await advance(100, stand)
    const pod = (pods('logged')[5]!.metadata as {name: string}).name
    const log = await call('GET', `/api/v1/namespaces/default/pods/${pod}/log`)
    expect(log.split('\n')).toEqual([
      expect.stringMatching(/^XPK Start: /),
      expect.stringContaining('`python3 train.py` would start here'),
      expect.stringMatching(/^step 100: loss \d\.\d{3}$/),
      expect.stringMatching(/^step 200: loss \d\.\d{3}$/),
      expect.stringMatching(/^XPK End: /),
      'EXIT_CODE=0',
      '',
    ])
  })

  it('keeps what does not fit pending, saying how many chips are missing; equal priority never preempts', async () => {
    installKueue()
    const stand = standIn()
    submit('running', 'medium')
    await stand.tick()
    clock += 1000
    submit('waiting', 'medium')
    await stand.tick()
    expect(statuses()).toEqual({running: 'Running', waiting: 'Pending'})
    expect(rows().waiting).toMatchObject({
      phase: 'QUEUED',
      statusMessage: `couldn't assign flavors to pod set slice-job: insufficient unused quota for google.com/tpu in flavor 4xv5litepod-16, ${CHIPS} more needed`,
    })
    expect(pods('waiting')).toEqual([])
  })

  it('preempts a lower priority to admit a higher one: the victim is back in the queue, its pods gone', async () => {
    installKueue()
    const stand = standIn()
    submit('low-job', 'low')
    await stand.tick()
    await advance(300, stand)
    submit('high-job', 'high')
    await advance(10, stand)

    expect(statuses()).toEqual({'low-job': 'Preempted', 'high-job': 'Admitted'})
    const highUid = (
      kube
        .list('kueue.x-k8s.io/v1beta2', 'Workload')
        .find((w) => (w.metadata as {name: string}).name.startsWith('jobset-high-job-'))!.metadata as {uid: string}
    ).uid
    expect(rows()['low-job']).toMatchObject({
      phase: 'QUEUED',
      vmsRunningOrRan: null,
      statusMessage: expect.stringContaining(`Preempted to accommodate a workload (UID: ${highUid}`),
    })
    expect(pods('low-job')).toEqual([])
    expect(pods('high-job')).toHaveLength(VMS)
  })

  it('finishes after its run time, frees the quota, and readmits what was preempted', async () => {
    installKueue()
    const stand = standIn({runMs: (name) => (name === 'high-job' ? 1000 : Infinity)})
    submit('low-job', 'low')
    await stand.tick()
    await advance(300, stand)
    submit('high-job', 'high')
    await advance(10, stand)
    await advance(300, stand)
    expect(statuses()).toEqual({'low-job': 'Preempted', 'high-job': 'Running'})

    await advance(1000, stand)
    expect(rows()['high-job']).toMatchObject({
      status: 'Succeeded',
      phase: 'FINISHED',
      outcome: 'SUCCESSFUL',
      vmsDone: VMS,
    })
    await advance(10, stand)
    expect(statuses()['low-job']).toBe('Admitted')
    await advance(300, stand)
    const low = kube
      .list('kueue.x-k8s.io/v1beta2', 'Workload')
      .find((w) => (w.metadata as {name: string}).name.startsWith('jobset-low-job-')) as {
      status: {conditions: {type: string; status: string}[]}
    }
    expect(statuses()['low-job']).toBe('Running')
    expect(low.status.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({type: 'Evicted', status: 'False'}),
        expect.objectContaining({type: 'Requeued', status: 'True'}),
      ]),
    )
  })

  it('finishNow ends a running workload at the next look, whatever its run time; only a running one', async () => {
    installKueue()
    const stand = standIn()
    submit('told', 'medium')
    await stand.tick()
    expect(() => stand.finishNow('told')).toThrow(/told is not running/)
    await advance(300, stand)
    stand.finishNow('told')
    expect(rows().told).toMatchObject({phase: 'RUNNING'})
    await advance(1, stand)
    expect(rows().told).toMatchObject({status: 'Succeeded', outcome: 'SUCCESSFUL'})
  })

  it('ends a workload as Failed when told to: FINISHED and FAILED for workload list', async () => {
    installKueue()
    const stand = standIn({runMs: () => 100, outcome: () => 'Failed'})
    submit('doomed', 'medium')
    await stand.tick()
    await advance(300, stand)
    await advance(100, stand)
    expect(rows().doomed).toMatchObject({status: 'Failed', phase: 'FINISHED', outcome: 'FAILED'})
    expect(pods('doomed').map((p) => (p.status as {phase: string}).phase)).toEqual(Array(VMS).fill('Failed'))
  })

  it('frees the quota of a deleted JobSet (its Workload and pods go by owner reference)', async () => {
    installKueue()
    const stand = standIn()
    submit('first', 'medium')
    await stand.tick()
    clock += 1000
    submit('second', 'medium')
    await stand.tick()
    expect(statuses()).toEqual({first: 'Running', second: 'Pending'})

    await call('DELETE', '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/first')
    await kube.settled()
    await advance(10, stand)
    expect(statuses()).toEqual({second: 'Admitted'})
    expect(pods('first')).toEqual([])
  })

  it('until() waits for a state on the real clock and names the states when it gives up', async () => {
    installKueue()
    const stand = KueueStandIn.start(kube, {tickMs: 10, startMs: 20})
    try {
      submit('soon', 'medium')
      await stand.until((s) => s.soon === 'running', 5_000)
      expect(stand.states()).toEqual({soon: 'running'})
      await expect(stand.until((s) => s.soon === 'finished', 50)).rejects.toThrow(/still \{"soon":"running"\}/)
    } finally {
      await stand.stop()
    }
  })
})
