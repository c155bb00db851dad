// The cluster lock of `cluster create` and `cluster delete`, in process over the in-memory GKE port: taken with the
// fingerprint of the read the plan was made from, refused while another run holds it, taken over once stale,
// released however a run ends; and two runs at once (grow and shrink, two creates of a new cluster, create and
// delete) end in exactly one request's canonical state.
import {describe, expect, it} from 'vitest'

import {gkeApiError} from '../../src/core/cluster/gke-errors.js'
import {newLockHolder, readLock, withLock, type LockIdentity} from '../../src/core/cluster/lock.js'
import {XpkError} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {createCluster, type ClusterCreateOptions} from '../../src/services/cluster-create.js'
import {deleteCluster} from '../../src/services/cluster-delete.js'
import {releaseLock} from '../../src/services/cluster-lock.js'
import {desiredFor, observedPoolFrom} from '../builders/observed.js'
import {MemoryCompute} from '../fakes/memory-compute.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {manualClock} from '../helpers/manual-clock.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

/** 2026-01-01T12:00:00Z on every run's clock (each run has its own virtual clock starting there). */
const START = Date.UTC(2026, 0, 1, 12)
const STALE = 3600
const ME: LockIdentity = {user: 'tester', host: 'test-host', pid: 4242, boot: '29500000'}
const OTHER: LockIdentity = {user: 'bob', host: 'other-box', pid: 77, boot: '29400000'}
/** Processes running on this (test) machine. */
const RUNNING = new Set([4242, 100, 101, 1, 2])
const context = {action: 'x', project: 'test-project', location: 'us-central2'}

interface RunOptions {
  readonly slices?: number
  readonly answer?: PromptAnswer
  readonly identity?: LockIdentity
  readonly signal?: AbortSignal
  readonly options?: Partial<ClusterCreateOptions>
}

/** A run's clock; `random` differs per run as Math.random does, so two runs' lock ids differ. */
function clock(random = 0.5) {
  const c = virtualClock(random)
  return {...c, now: () => START + c.now()}
}

function create(gke: MemoryGke, run: RunOptions = {}) {
  const console = new RecordingConsole(run.answer ?? 'yes')
  const done = createCluster(
    {
      flags: {
        cluster: 'demo',
        project: 'test-project',
        zone: 'us-central2-b',
        tpuType: 'v5p-16',
        spot: true,
        numSlices: String(run.slices ?? 2),
      },
      dryRun: false,
      offline: false,
      timing: DEFAULT_TIMING,
      inCluster: {skip: true, xpkVersion: '0.1.0', manifestOverrides: {}},
      lock: {identity: run.identity ?? ME, staleSeconds: STALE, alive: (pid) => RUNNING.has(pid)},
      ...run.options,
    },
    {
      gke: async () => gke,
      compute: async () => new MemoryCompute(),
      kube: () => Promise.reject(new Error('not reached with --skip-in-cluster')),
      manifests: {load: () => Promise.reject(new Error('not loaded with --skip-in-cluster'))},
      console,
      signal: run.signal ?? new AbortController().signal,
      ...clock((((run.identity ?? ME).pid % 89) + 1) / 100),
    },
  )
  return {console, done}
}

function remove(gke: MemoryGke, answer: PromptAnswer = 'yes', dryRun = false, signal?: AbortSignal) {
  const console = new RecordingConsole(answer)
  const done = deleteCluster(
    {
      project: 'test-project',
      zone: 'us-central2-b',
      cluster: 'demo',
      dryRun,
      timing: DEFAULT_TIMING,
      lock: {identity: ME, staleSeconds: STALE, alive: (pid) => RUNNING.has(pid)},
    },
    {
      gke: async () => gke,
      compute: async () => new MemoryCompute(),
      console,
      signal: signal ?? new AbortController().signal,
      ...clock(),
    },
  )
  return {console, done}
}

const pool = (name: string) =>
  observedPoolFrom({...desiredFor({tpuType: 'v5p-16'}).poolTemplate, name, reservation: null})
const slices = (n: number) => Array.from({length: n}, (_, i) => pool(`demo-np-${i}`))
const poolNames = (gke: MemoryGke) => [...gke.pools.keys()].sort()
const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as XpkError
/** Calls that change something (SetLabels, creates, deletes). */
const changes = (gke: MemoryGke) => gke.calls.filter((c) => /^(create|delete|set)/.test(c))
/** Seeds the lock of another run, taken `ageSeconds` before START. */
function lockedByOther(gke: MemoryGke, ageSeconds: number) {
  const holder = newLockHolder(OTHER, 'cluster-create', START - ageSeconds * 1000, () => 0.25)
  gke.labels = withLock(gke.labels, holder)
}

describe('cluster create takes the cluster lock', () => {
  it('takes it with the fingerprint it planned from, holds it while the plan is applied, releases it at the end', async () => {
    const gke = new MemoryGke(slices(2))
    const read = gke.fingerprint
    const setLabels = gke.setResourceLabels.bind(gke)
    const sent: string[] = []
    gke.setResourceLabels = async (ref, labels, fingerprint) => (
      sent.push(fingerprint),
      setLabels(ref, labels, fingerprint)
    )
    const createPool = gke.createNodePool.bind(gke)
    const locksAtCreate: Array<string | undefined> = []
    gke.createNodePool = async (ref, spec) => {
      locksAtCreate.push(readLock(gke.labels)?.host)
      return createPool(ref, spec)
    }
    const {done, console} = create(gke, {slices: 4})
    const result = await done
    expect(poolNames(gke)).toEqual(['demo-np-0', 'demo-np-1', 'demo-np-2', 'demo-np-3'])
    expect(changes(gke)).toEqual([
      'setResourceLabels',
      'createNodePool demo-np-2',
      'createNodePool demo-np-3',
      'setResourceLabels',
    ])
    expect(sent[0]).toBe(read)
    expect(locksAtCreate).toEqual(['test-host', 'test-host'])
    // Released: the lock labels are gone, the generation stays.
    expect(gke.labels).toEqual({gke_product_type: 'xpk', 'xpk-generation': '1'})
    expect(result.lock).toEqual({
      labels: 'xpk-lock-*',
      state: 'free',
      holder: null,
      ageSeconds: null,
      staleAfterSeconds: STALE,
    })
    expect(console.the('cluster.create.plan').text).toMatch(
      /^ {2}~ {3}lock {5}cluster {2}demo\s+free: taken while the plan is applied \(labels xpk-lock-\*\)/m,
    )
  })

  it('a new cluster is created with the lock among its labels, released once the run is done', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const createCluster = gke.createCluster.bind(gke)
    let sentLabels: Record<string, string> = {}
    gke.createCluster = async (spec) => ((sentLabels = {...spec.labels}), createCluster(spec))
    await create(gke).done
    expect(readLock(sentLabels)).toMatchObject({
      user: 'tester',
      host: 'test-host',
      pid: 4242,
      command: 'cluster-create',
    })
    expect(sentLabels.gke_product_type).toBe('xpk')
    expect(changes(gke)).toEqual([
      'createCluster',
      'createNodePool demo-np-0',
      'createNodePool demo-np-1',
      'setResourceLabels',
    ])
    expect(gke.labels).toEqual({gke_product_type: 'xpk', 'xpk-generation': '1'})
  })

  it('Ctrl-C while a new cluster is being created: no wait for GKE to allow labels again, a warning says how the lock is cleared', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const controller = new AbortController()
    const createCluster = gke.createCluster.bind(gke)
    gke.createCluster = async (spec) => {
      const operation = await createCluster(spec)
      controller.abort(new XpkError('interrupted', 'Interrupted.'))
      return operation
    }
    const {done, console} = create(gke, {signal: controller.signal})
    const stopped = await failure(done)
    expect(stopped.exitCode).toBe(130)
    expect(console.codes('info')).toContain('cluster.lock.releasing')
    expect(console.the('cluster.lock.not-released').text).toMatch(
      /^Could not release the lock of cluster demo \(the cluster is still being created\)\. A re-run on this machine takes it over at once/,
    )
    expect(changes(gke)).toEqual(['createCluster'])
    expect(readLock(gke.labels)?.pid).toBe(ME.pid)
  })

  it('a run that changes nothing takes no lock, but clears a stale one (its run died) so it refuses nobody', async () => {
    const gke = new MemoryGke(slices(2))
    await create(gke).done
    expect(changes(gke)).toEqual([])
    lockedByOther(gke, STALE + 1)
    const {done, console} = create(gke)
    await done
    expect(console.codes('warn')).toEqual(['cluster.lock.taken-over'])
    expect(changes(gke)).toEqual(['setResourceLabels', 'setResourceLabels'])
    expect(readLock(gke.labels)).toBeNull()
  })

  it('is refused (exit 6) while another run holds the lock, naming it and its age, before asking or changing anything', async () => {
    const gke = new MemoryGke(slices(4))
    lockedByOther(gke, 75)
    const {done, console} = create(gke, {slices: 2, answer: 'unexpected'})
    const error = await failure(done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toBe(
      'Cluster demo is locked by another xpk run: bob@other-box (pid 77, xpk cluster create), for 1 min 15 s. Nothing was changed.',
    )
    expect(error.hints.join('\n')).toContain('taken over in 58 min 45 s (XPK_CLUSTER_LOCK_STALE_S=3600)')
    expect(console.questions).toEqual([])
    expect(changes(gke)).toEqual([])
    expect(readLock(gke.labels)?.user).toBe('bob')
  })

  it('takes over a lock older than the stale time, with a warning naming the old holder', async () => {
    const gke = new MemoryGke(slices(2))
    lockedByOther(gke, STALE + 5)
    const {done, console} = create(gke, {slices: 3})
    await done
    expect(console.the('cluster.lock.taken-over').text).toMatch(
      /^Taking over the lock of cluster demo from bob@other-box \(pid 77, xpk cluster create\): held for 1 h 0 min, longer than XPK_CLUSTER_LOCK_STALE_S=3600/,
    )
    expect(poolNames(gke)).toEqual(['demo-np-0', 'demo-np-1', 'demo-np-2'])
    expect(readLock(gke.labels)).toBeNull()
    expect(gke.labels['xpk-generation']).toBe('2')
  })

  it('a lock taken on this machine by a process that has ended (killed) is taken over at once; a running one is not', async () => {
    const gke = new MemoryGke(slices(2))
    const killed = newLockHolder({...ME, pid: 999}, 'cluster-create', START - 20_000, () => 0.3)
    gke.labels = withLock(gke.labels, killed)
    const {done, console} = create(gke, {slices: 3})
    await done
    expect(console.the('cluster.lock.taken-over').text).toBe(
      'Taking over the lock of cluster demo from tester@test-host (pid 999, xpk cluster create), taken 20 s ago on ' +
        'this machine by a process that has ended (killed or crashed) without releasing it.',
    )
    expect(poolNames(gke)).toEqual(['demo-np-0', 'demo-np-1', 'demo-np-2'])

    const busy = new MemoryGke(slices(2))
    busy.labels = withLock(
      busy.labels,
      newLockHolder({...ME, pid: 101}, 'cluster-create', START, () => 0.3),
    )
    const error = await failure(create(busy, {slices: 3}).done)
    expect(error.message).toMatch(/^Cluster demo is locked by another xpk run: tester@test-host \(pid 101/)
  })

  it("a lock of this machine with this very pid that is not this run's (every run is pid 1 in a container) is taken over at once", async () => {
    const gke = new MemoryGke(slices(2))
    gke.labels = withLock(
      gke.labels,
      newLockHolder(ME, 'cluster-create', START - 5_000, () => 0.3),
    )
    const {done, console} = create(gke, {slices: 3})
    await done
    expect(console.the('cluster.lock.taken-over').data).toMatchObject({because: 'gone'})
    expect(poolNames(gke)).toEqual(['demo-np-0', 'demo-np-1', 'demo-np-2'])
    expect(readLock(gke.labels)).toBeNull()
  })

  it('a SetLabels retried after its answer was lost finds its own lock there and goes on', async () => {
    const gke = new MemoryGke(slices(2))
    const setLabels = gke.setResourceLabels.bind(gke)
    let lost = true
    gke.setResourceLabels = async (ref, labels, fingerprint) => {
      const operation = await setLabels(ref, labels, fingerprint)
      if (readLock(labels) !== null && lost) {
        lost = false
        // GKE applied it, but the answer never arrived: the retry sends it again with the old fingerprint.
        throw gkeApiError({code: 14, message: 'connection reset by peer'}, context)
      }
      return operation
    }
    const {done} = create(gke, {slices: 3})
    await expect(done).resolves.toMatchObject({applied: true})
    expect(poolNames(gke)).toEqual(['demo-np-0', 'demo-np-1', 'demo-np-2'])
    expect(readLock(gke.labels)).toBeNull()
  })

  it("Ctrl-C while the lock's SetLabels is on the wire: the run ends 130 and the lock it may have set is released", async () => {
    for (const command of ['create', 'delete'] as const) {
      const gke = new MemoryGke(slices(2))
      const setLabels = gke.setResourceLabels.bind(gke)
      const controller = new AbortController()
      gke.setResourceLabels = async (ref, labels, fingerprint) => {
        const operation = await setLabels(ref, labels, fingerprint)
        // The request reached GKE and took effect; Ctrl-C comes before its answer.
        if (readLock(labels) !== null) controller.abort(new XpkError('interrupted', 'Interrupted.'))
        return operation
      }
      const run =
        command === 'create'
          ? create(gke, {slices: 3, signal: controller.signal}).done
          : remove(gke, 'yes', false, controller.signal).done
      const stopped = await failure(run)
      expect([command, stopped.exitCode]).toEqual([command, 130])
      expect([command, readLock(gke.labels)]).toEqual([command, null])
      expect(poolNames(gke)).toEqual(['demo-np-0', 'demo-np-1'])
    }
  })

  it('labels changed between the read and the lock (another run came and went): exit 6, nothing changed', async () => {
    const gke = new MemoryGke(slices(2))
    const setLabels = gke.setResourceLabels.bind(gke)
    let first = true
    gke.setResourceLabels = async (ref, labels, fingerprint) => {
      if (first) {
        first = false
        // Another run locks and releases the cluster just before this one's SetLabels.
        await setLabels(ref, {...gke.labels, 'xpk-generation': '7'}, gke.fingerprint)
      }
      return setLabels(ref, labels, fingerprint)
    }
    const error = await failure(create(gke, {slices: 4}).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(/^Cluster demo changed while this run was planning/)
    expect(error.hints).toEqual(['Run the same command again: it plans from the cluster as it is now.'])
    expect(changes(gke)).toEqual(['setResourceLabels', 'setResourceLabels'])
    expect(poolNames(gke)).toEqual(['demo-np-0', 'demo-np-1'])
  })

  it('another run took the lock between the read and this one taking it: exit 6 naming that run', async () => {
    const gke = new MemoryGke(slices(2))
    const setLabels = gke.setResourceLabels.bind(gke)
    let first = true
    gke.setResourceLabels = async (ref, labels, fingerprint) => {
      if (first) {
        first = false
        const other = newLockHolder(OTHER, 'cluster-delete', START, () => 0.75)
        await setLabels(ref, withLock(gke.labels, other), gke.fingerprint)
      }
      return setLabels(ref, labels, fingerprint)
    }
    const error = await failure(create(gke, {slices: 4}).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(
      /^Cluster demo is locked by another xpk run: bob@other-box \(pid 77, xpk cluster delete\)/,
    )
    expect(poolNames(gke)).toEqual(['demo-np-0', 'demo-np-1'])
  })

  it('a cluster deleted between the read and the lock (a delete that ran meanwhile): exit 6, nothing changed', async () => {
    const gke = new MemoryGke(slices(1))
    const setLabels = gke.setResourceLabels.bind(gke)
    gke.setResourceLabels = async (ref, labels, fingerprint) => {
      gke.cluster = 'gone'
      return setLabels(ref, labels, fingerprint)
    }
    const error = await failure(create(gke, {slices: 3}).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(
      /^Cluster demo changed while this run was planning \(another xpk run locked, created or deleted it/,
    )
    expect(gke.calls.filter((c) => c.startsWith('createNodePool'))).toEqual([])
  })

  it('is released when the apply fails (exit 5 for a stockout) and when it is interrupted (exit 130)', async () => {
    const gke = new MemoryGke(slices(2))
    gke.createNodePool = async () => {
      throw gkeApiError({code: 8, message: 'The zone does not have enough resources available (stockout)'}, context)
    }
    const failed = await failure(create(gke, {slices: 3}).done)
    expect(failed.exitCode).toBe(5)
    expect(readLock(gke.labels)).toBeNull()

    const interrupted = new MemoryGke(slices(2))
    const controller = new AbortController()
    interrupted.createNodePool = async () => {
      controller.abort(new Error('Ctrl-C'))
      throw gkeApiError({code: 14, message: 'unavailable'}, context)
    }
    const stopped = await failure(create(interrupted, {slices: 3, signal: controller.signal}).done)
    expect(stopped.exitCode).toBe(130)
    expect(interrupted.calls.filter((c) => c === 'setResourceLabels')).toHaveLength(2)
    expect(readLock(interrupted.labels)).toBeNull()
  })

  it('a lock that cannot be released is a warning saying how it is taken over; the run still succeeds', async () => {
    const gke = new MemoryGke(slices(2))
    const setLabels = gke.setResourceLabels.bind(gke)
    gke.setResourceLabels = async (ref, labels, fingerprint) => {
      if (readLock(labels) === null) throw gkeApiError({code: 7, message: 'Permission denied on labels'}, context)
      return setLabels(ref, labels, fingerprint)
    }
    const {done, console} = create(gke, {slices: 3})
    await expect(done).resolves.toMatchObject({applied: true})
    expect(console.the('cluster.lock.not-released').text).toMatch(
      /^Could not release the lock of cluster demo \(.*Permission denied.*\)\. A re-run on this machine takes it over at once; other xpk runs are refused until it is taken over, 1 h 0 min after it was taken/,
    )
    expect(readLock(gke.labels)?.user).toBe('tester')
  })

  it.each([
    {when: 'after Ctrl-C', interrupted: true, seconds: 10},
    {when: 'after the run', interrupted: false, seconds: 60},
  ])(
    'releasing $when has its own deadline on the clock ($seconds s): GKE not answering is a warning',
    async ({interrupted, seconds}) => {
      const gke = new MemoryGke(slices(1))
      const holder = newLockHolder(ME, 'cluster-create', START, () => 0.5)
      gke.labels = withLock(gke.labels, holder)
      // A control plane that takes the request and never answers.
      gke.getCluster = () => new Promise(() => undefined)
      const console = new RecordingConsole()
      const clock = manualClock()
      const command = new AbortController()
      if (interrupted) command.abort(new XpkError('interrupted', 'Interrupted.'))
      let done = false
      const releasing = releaseLock(
        {project: 'test-project', location: 'us-central2', name: 'demo'},
        {holder},
        {identity: ME, staleSeconds: STALE, alive: () => true},
        {gke, console, signal: command.signal, retry: DEFAULT_TIMING.retry, ...clock},
      ).then(() => (done = true))
      await clock.advance(seconds * 1000 - 1)
      expect(done).toBe(false)
      await clock.advance(1)
      await releasing
      expect(console.the('cluster.lock.not-released').text).toContain(`(no answer from GKE within ${seconds} s)`)
      expect(readLock(gke.labels)?.id).toBe(holder.id)
    },
  )

  it('--dry-run takes no lock, shows it in the plan and --json, and warns when another run holds it', async () => {
    const gke = new MemoryGke(slices(2))
    lockedByOther(gke, 30)
    const {done, console} = create(gke, {slices: 4, options: {dryRun: true}})
    const result = await done
    expect(changes(gke)).toEqual([])
    expect(result.lock).toEqual({
      labels: 'xpk-lock-*',
      state: 'held',
      holder: {user: 'bob', host: 'other-box', pid: 77, command: 'cluster-create', since: START / 1000 - 30},
      ageSeconds: 30,
      staleAfterSeconds: STALE,
    })
    expect(console.results.join('\n')).toContain(
      'lock     cluster  demo       held by bob@other-box (pid 77, xpk cluster create) for 30 s: a run now is refused (exit 6)',
    )
    expect(console.the('cluster.lock.held').text).toBe(
      'Dry run: cluster demo is locked by another xpk run (bob@other-box (pid 77, xpk cluster create), for 30 s): a run now would be refused (exit 6).',
    )
  })
})

describe("two runs at once end in exactly one request's canonical state", () => {
  it.each([
    ['grow to 4 and shrink to 1 from 2', 2, [4, 1]],
    ['shrink to 1 and grow to 4 from 2', 2, [1, 4]],
    ['grow to 3 and grow to 5 from 1', 1, [3, 5]],
  ])('%s', async (_name, from, sizes) => {
    const gke = new MemoryGke(slices(from))
    const runs = sizes.map((n, i) => create(gke, {slices: n, identity: {...ME, pid: 100 + i}}))
    const outcomes = await Promise.allSettled(runs.map((r) => r.done))
    const won = outcomes.findIndex((o) => o.status === 'fulfilled')
    const lost = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
    expect((lost!.reason as XpkError).exitCode).toBe(6)
    expect((lost!.reason as XpkError).message).toMatch(
      /^Cluster demo (changed while this run was planning|is locked by another xpk run)/,
    )
    // The winner's canonical pools, <cluster>-np-0..N-1, and nothing of the loser's.
    expect(poolNames(gke)).toEqual(
      slices(sizes[won]!)
        .map((p) => p.name)
        .sort(),
    )
    expect(readLock(gke.labels)).toBeNull()
  })

  it('two creates of one new cluster: one creates it, the other is exit 6 naming it, and changes nothing', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const runs = [
      create(gke, {slices: 2, identity: {...ME, pid: 1}}),
      create(gke, {slices: 3, identity: {...ME, pid: 2}}),
    ]
    const outcomes = await Promise.allSettled(runs.map((r) => r.done))
    const won = outcomes.findIndex((o) => o.status === 'fulfilled')
    const lost = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')!.reason as XpkError
    expect(won).toBeGreaterThanOrEqual(0)
    expect(lost.exitCode).toBe(6)
    expect(lost.message).toMatch(
      new RegExp(
        `^Cluster demo is locked by another xpk run: tester@test-host \\(pid ${won + 1}, xpk cluster create\\)`,
      ),
    )
    expect(gke.calls.filter((c) => c === 'createCluster')).toHaveLength(2)
    // GKE makes the cluster with its default pool.
    expect(poolNames(gke)).toEqual(['default-pool', ...slices([2, 3][won]!).map((p) => p.name)].sort())
  })

  it('cluster delete while a create holds the lock: refused (exit 6) before asking, nothing deleted', async () => {
    const gke = new MemoryGke(slices(2))
    lockedByOther(gke, 10)
    const {done, console} = remove(gke, 'unexpected')
    const error = await failure(done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(
      /^Cluster demo is locked by another xpk run: bob@other-box \(pid 77, xpk cluster create\), for 10 s/,
    )
    expect(console.questions).toEqual([])
    expect(changes(gke)).toEqual([])
  })

  it('cluster delete takes the lock before deleting, so a create that read the cluster before is refused', async () => {
    const gke = new MemoryGke(slices(2))
    const deletion = remove(gke)
    const growing = create(gke, {slices: 4})
    const [deleted, grown] = await Promise.allSettled([deletion.done, growing.done])
    const outcomes = [deleted.status, grown.status]
    expect(outcomes.filter((s) => s === 'fulfilled')).toHaveLength(1)
    if (deleted.status === 'fulfilled') {
      // The delete locked the cluster before deleting it; the create, which read it before, changed nothing.
      expect(gke.cluster).toBe('gone')
      expect(((grown as PromiseRejectedResult).reason as XpkError).exitCode).toBe(6)
      expect(gke.calls.filter((c) => c.startsWith('createNodePool'))).toEqual([])
      expect(gke.calls.indexOf('setResourceLabels')).toBeLessThan(gke.calls.indexOf('deleteCluster'))
    } else {
      expect(((deleted as PromiseRejectedResult).reason as XpkError).exitCode).toBe(6)
      expect(poolNames(gke)).toEqual(slices(4).map((p) => p.name))
      expect(gke.calls).not.toContain('deleteCluster')
    }
  })

  it('a dry run of cluster delete shows the lock and takes none', async () => {
    const gke = new MemoryGke(slices(1))
    lockedByOther(gke, 5)
    const {done, console} = remove(gke, 'unexpected', true)
    await expect(done).resolves.toMatchObject({outcome: 'planned', lock: {state: 'held', ageSeconds: 5}})
    expect(console.codes('warn')).toEqual(['cluster.lock.held'])
    expect(changes(gke)).toEqual([])
  })
})
