// Two users at once on one cluster: the built CLI as two real processes against the GKE fake. GKE operations are
// held until both processes have read the cluster, then take 0.3 s, so the second always plans while the first is
// still applying, and every pair below races: grow and shrink of one cluster, two creates of one new cluster, create and delete. Each must end
// in exactly one request's canonical state (pools <cluster>-np-0..N-1 for its N), the other refused with exit 6
// naming the run that holds the lock. Then the lock of a run that died: taken over at once when it was this
// machine's (its process is gone), after XPK_CLUSTER_LOCK_STALE_S when it was another machine's.
import {describe, expect, it} from 'vitest'

import {createGkeClient} from '../../src/adapters/gke-container-api.js'
import {newLockHolder, readLock, withLock} from '../../src/core/cluster/lock.js'
import {FakeGke} from '../fakes/fake-gke.js'
import {isolatedEnv, runCli, startCli, type CliResult} from '../helpers/cli.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {fakesForFile} from '../helpers/wire-fakes.js'
import {FakeCompute} from '../fakes/fake-compute.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'
const SLOW_MS = 300

let fake: FakeGke
// cluster delete looks for the cluster's GPU networks in Compute Engine.
let compute: FakeCompute
const env = (extra: Record<string, string> = {}) =>
  isolatedEnv({XPK_GKE_ENDPOINT: `http://${fake.endpoint}`, XPK_COMPUTE_ENDPOINT: compute.endpoint, ...extra})
const createArgs = (cluster: string, slices: number, ...extra: string[]) => [
  ...['cluster', 'create', '--project', PROJECT, '--zone', ZONE, '--cluster', cluster],
  ...['--tpu-type', 'v5litepod-16', '--spot', '--num-slices', String(slices), '--skip-in-cluster', '--force', ...extra],
]
const deleteArgs = (cluster: string) => [
  ...['cluster', 'delete', '--project', PROJECT, '--zone', ZONE, '--cluster', cluster, '--force'],
]
const ownPools = (cluster: string) =>
  fake
    .nodePools(PROJECT, REGION, cluster)
    .map((p) => p.name)
    .filter((n) => n.startsWith(`${cluster}-np-`))
    .sort()
const canonical = (cluster: string, n: number) => Array.from({length: n}, (_, i) => `${cluster}-np-${i}`).sort()
const labels = (cluster: string) =>
  (fake.cluster(PROJECT, REGION, cluster)?.resourceLabels ?? {}) as Record<string, string>

/** A cluster of `slices` slices as `cluster create` makes it (operations quick), with `extraLabels` added. */
async function seedCluster(cluster: string, slices: number, extraLabels: Record<string, string> = {}) {
  const made = await runCli(createArgs(cluster, slices), {env: env()})
  expect(made.code, made.stderr).toBe(0)
  if (Object.keys(extraLabels).length > 0) {
    const gke = await createGkeClient({endpoint: `http://${fake.endpoint}`})
    const found = fake.cluster(PROJECT, REGION, cluster)!
    await gke.setResourceLabels(
      {project: PROJECT, location: REGION, name: cluster},
      {...(found.resourceLabels as Record<string, string>), ...extraLabels},
      found.labelFingerprint!,
    )
    await fake.settled()
  }
  fake.calls.length = 0
}

/**
 * Starts two commands at once and waits for both. GKE operations (the lock's SetLabels among them) do not finish
 * until both commands have read the cluster, however late the second process starts on a busy machine: so the two
 * really overlap, and the first cannot be done before the second has planned. A create reads the cluster (GetCluster,
 * twice when it is in neither the region nor the zone) and the server config; a delete reads the cluster. Until the
 * operations finish, neither reads it again.
 */
async function race(a: string[], b: string[]): Promise<CliResult[]> {
  fake.settings.operationMs = Infinity
  fake.settings.operationMsByType = {}
  const creates = [a, b].filter((args) => args[1] === 'create').length
  const runs = Promise.all([startCli(a, {env: env()}).done, startCli(b, {env: env()}).done])
  let finished = false
  void runs.finally(() => (finished = true))
  const count = (method: string) => fake.calls.filter((c) => c.method === method).length
  while (!finished && (count('GetServerConfig') < creates || count('GetCluster') < 2)) {
    await new Promise((r) => setTimeout(r, 20))
  }
  // From here operations take SLOW_MS, and those already running finish that long from now.
  fake.settings.operationMs = SLOW_MS
  setTimeout(() => fake.finishOperations(), SLOW_MS)
  return runs
}

const LOCKED =
  /Cluster (\S+) (is locked by another xpk run: \S+@\S+ \(pid \d+, xpk cluster (create|delete)\)|changed while this run was planning)/

fakesForFile(async (fakes) => {
  fake = fakes.add(await FakeGke.start({operationMs: 30}))
  compute = fakes.add(await FakeCompute.start({operationMs: 20}))
})

describe('two cluster commands on one cluster at once', () => {
  it("grow 2 -> 4 and shrink 2 -> 1: one is applied, the other refused (exit 6); the pools are the winner's, canonically named", async () => {
    await seedCluster('gs', 2)
    const results = await race(createArgs('gs', 4), createArgs('gs', 1))
    expect(results.map((r) => r.code).sort(), results.map((r) => r.stderr).join('\n---\n')).toEqual([0, 6])
    const winner = results.findIndex((r) => r.code === 0)
    expect(results[1 - winner]!.stderr).toMatch(LOCKED)
    expect(results[1 - winner]!.stderr).toContain('Nothing was changed.')
    await fake.settled()
    expect(ownPools('gs')).toEqual(canonical('gs', [4, 1][winner]!))
    expect(readLock(labels('gs'))).toBeNull()
  })

  it('two creates of one new cluster (2 and 3 slices): one creates it, the other is exit 6 naming it', async () => {
    const results = await race(createArgs('fresh', 2), createArgs('fresh', 3))
    expect(results.map((r) => r.code).sort(), results.map((r) => r.stderr).join('\n---\n')).toEqual([0, 6])
    const winner = results.findIndex((r) => r.code === 0)
    expect(results[1 - winner]!.stderr).toMatch(LOCKED)
    expect(results[winner]!.stderr).toContain(
      `created the cluster, created ${[2, 3][winner]}/${[2, 3][winner]} node pools`,
    )
    await fake.settled()
    expect(ownPools('fresh')).toEqual(canonical('fresh', [2, 3][winner]!))
    expect(readLock(labels('fresh'))).toBeNull()
  })

  it('create (grow) and delete: never both applied to one cluster; the end state is one of them, or delete then create', async () => {
    await seedCluster('cd', 1)
    const [grow, remove] = await race(createArgs('cd', 3), deleteArgs('cd'))
    const log = [grow, remove].map((r) => r!.stderr).join('\n---\n')
    await fake.settled()
    if (grow!.code === 0 && remove!.code === 0) {
      // The create started once the deletion was under way: it waited for it, then made the cluster anew (in order,
      // not at once), so the end state is the create's.
      expect(grow!.stderr, log).toContain('is being deleted; it is created again once the deletion finishes')
      expect(ownPools('cd')).toEqual(canonical('cd', 3))
    } else {
      expect([grow!.code, remove!.code].sort(), log).toEqual([0, 6])
      expect((grow!.code === 6 ? grow : remove)!.stderr).toMatch(LOCKED)
      if (remove!.code === 0) {
        expect(fake.cluster(PROJECT, REGION, 'cd')).toBeUndefined()
        expect(fake.calls.filter((c) => c.method === 'CreateNodePool')).toEqual([])
      } else {
        expect(ownPools('cd')).toEqual(canonical('cd', 3))
        expect(fake.calls.filter((c) => c.method === 'DeleteCluster')).toEqual([])
      }
    }
    expect(readLock(labels('cd'))).toBeNull()
  })
})

describe('the lock of a run that is stopped or dies', () => {
  it('a killed run on this machine: its lock is taken over at once by the re-run, which converges', async () => {
    await seedCluster('killed', 1)
    fake.settings.operationMsByType = {CREATE_NODE_POOL: 60_000}
    // One pool at a time: killed while the first of three new pools is being created.
    const run = startCli(createArgs('killed', 4, '--max-parallel', '1'), {env: env()})
    for (let i = 0; i < 1000 && fake.calls.filter((c) => c.method === 'CreateNodePool').length < 1; i++) {
      await new Promise((r) => setTimeout(r, 10))
    }
    const holder = readLock(labels('killed'))
    expect(holder).toMatchObject({command: 'cluster-create', pid: run.child.pid})
    run.child.kill('SIGKILL')
    expect((await run.done).signal).toBe('SIGKILL')
    expect(readLock(labels('killed'))?.id).toBe(holder!.id)

    fake.finishOperations()
    fake.settings.operationMsByType = {}
    expect(ownPools('killed')).toEqual(canonical('killed', 2))
    const resumed = await runCli(createArgs('killed', 4), {env: env()})
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toContain(
      `Taking over the lock of cluster killed from ${holder!.user}@${holder!.host} (pid ${holder!.pid}, xpk cluster create), taken`,
    )
    expect(resumed.stderr).toContain('on this machine by a process that has ended (killed or crashed)')
    expect(ownPools('killed')).toEqual(canonical('killed', 4))
    expect(readLock(labels('killed'))).toBeNull()
  })

  it('Ctrl-C releases the lock (exit 130), so the next run, from anywhere, is not refused', async () => {
    await seedCluster('ctrlc', 1)
    fake.settings.operationMsByType = {CREATE_NODE_POOL: 60_000}
    const run = startCli(createArgs('ctrlc', 3), {env: env()})
    for (let i = 0; i < 1000 && fake.calls.filter((c) => c.method === 'CreateNodePool').length < 2; i++) {
      await new Promise((r) => setTimeout(r, 10))
    }
    expect(readLock(labels('ctrlc'))).toMatchObject({pid: run.child.pid})
    run.child.kill('SIGINT')
    const stopped = await run.done
    expect(stopped.code, stopped.stderr).toBe(130)
    expect(readLock(labels('ctrlc'))).toBeNull()
    expect(fake.calls.filter((c) => c.method === 'SetLabels')).toHaveLength(2)
  })

  it("another machine's lock: refused (exit 6, holder and age) until XPK_CLUSTER_LOCK_STALE_S has passed, then taken over", async () => {
    const elsewhere = newLockHolder(
      {user: 'bob', host: 'far-away', pid: 31337, boot: 'feedbeef'},
      'cluster-create',
      Date.now(),
      Math.random,
    )
    await seedCluster('stale', 2, withLock({}, elsewhere))
    fake.settings.operationMsByType = {}
    const staleEnv = {XPK_CLUSTER_LOCK_STALE_S: '3'}
    const mark = markRequests({gke: fake})
    const refused = await runCli(createArgs('stale', 3), {env: env(staleEnv)})
    expect(refused.code).toBe(6)
    expect(refused.stderr).toMatch(
      /Cluster stale is locked by another xpk run: bob@far-away \(pid 31337, xpk cluster create\), for \d s\. Nothing was changed\./,
    )
    expect(refused.stderr).toMatch(/taken over in \d s \(XPK_CLUSTER_LOCK_STALE_S=3\)/)
    expect(mutationsSince({gke: fake}, mark)).toEqual([])

    // A dry run meanwhile says so and takes nothing.
    const dry = await runCli(createArgs('stale', 3, '--dry-run'), {env: env(staleEnv)})
    expect(dry.code).toBe(0)
    expect(dry.stdout).toMatch(/~ {3}lock {5}cluster {2}stale\s+held by bob@far-away \(pid 31337, xpk cluster create\)/)
    expect(dry.stderr).toContain('a run now would be refused (exit 6)')
    expect(mutationsSince({gke: fake}, mark)).toEqual([])

    await new Promise((r) => setTimeout(r, Math.max(0, elsewhere.since * 1000 + 3100 - Date.now())))
    const taken = await runCli(createArgs('stale', 3), {env: env(staleEnv)})
    expect(taken.code, taken.stderr).toBe(0)
    expect(taken.stderr).toMatch(
      /Taking over the lock of cluster stale from bob@far-away \(pid 31337, xpk cluster create\): held for \d s, longer than XPK_CLUSTER_LOCK_STALE_S=3/,
    )
    expect(ownPools('stale')).toEqual(canonical('stale', 3))
    expect(readLock(labels('stale'))).toBeNull()
  })

  it.each(['soon', '-1', '1.5', '604801', ''])(
    'XPK_CLUSTER_LOCK_STALE_S=%j is exit 2 naming it, before any request',
    async (value) => {
      const mark = markRequests({gke: fake})
      for (const args of [createArgs('any', 1), deleteArgs('any')]) {
        const result = await runCli(args, {env: env({XPK_CLUSTER_LOCK_STALE_S: value})})
        expect(result.code).toBe(2)
        expect(result.stderr).toMatch(
          /Error: XPK_CLUSTER_LOCK_STALE_S(: .* a whole number from 0 to 604800| is set but empty)/,
        )
      }
      expect(fake.calls).toEqual([])
      expect(mutationsSince({gke: fake}, mark)).toEqual([])
    },
  )
})
