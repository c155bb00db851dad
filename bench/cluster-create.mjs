// Cluster-create benchmark: wall time of `xpk cluster create --num-slices N` against the GKE fake
// (test/fakes/fake-gke.ts) with every GKE operation taking OPERATION_MS (2 s), median of RUNS runs (default 5).
// The CLI runs with its real settings (no XPK_POLL_INTERVAL_MS), so the figure includes its poll schedule and, when
// GKE refuses operations, its retry schedule.
// Run with `npm run bench:cluster` (which builds first). Target: wall / one operation <= 1.5 with 64 slices on an
// existing cluster, i.e. creating 64 node pools costs about one GKE operation, not 64.
//
// Besides that case: 64 slices from scratch (cluster, then pools); one run each of 8 to 1,000 slices; and runs
// where GKE accepts at most LIMIT (default 16) running operations per cluster and refuses the rest with its 429
// ("Too many operations ... concurrent operations quota"), which xpk waits out and retries. Those are judged
// against the floor the API sets: ceil(slices / min(LIMIT, --max-parallel)) operations one after another.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {cliEnv, loadFakeGke} from './fake-gke.mjs'

const RUNS = Number(process.env.RUNS ?? 5)
const OPERATION_MS = 2000
const SLICES = 64
const SCALING = [8, 16, 32, 64, 256, 1000]
const LIMIT = Number(process.env.LIMIT ?? 16)
const LIMITED = [64, 256]
// xpk's default --max-parallel: at most this many node-pool operations in flight.
const MAX_PARALLEL = 100
const TARGET = 1.5
const PROJECT = 'bench-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin/run.js')
const scratch = mkdtempSync(join(tmpdir(), 'xpk-bench-cluster-'))

// One compile cache for all runs, as a user's runs share theirs; the warm-up run fills it.
const cacheHome = mkdtempSync(join(scratch, 'cache-'))

/** Runs the CLI asynchronously (the fake lives in this process and must keep answering). */
function runCli(fake, args) {
  return new Promise((resolve, reject) => {
    const startedAt = Date.now()
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, ['--', bin, ...args], {
      env: cliEnv(fake, scratch, cacheHome),
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      if (code !== 0) reject(new Error(`xpk ${args.join(' ')} exited ${code}:\n${stderr}`))
      else resolve({ms, startedAt, endedAt: Date.now()})
    })
  })
}

const createArgs = (cluster, slices) => [
  'cluster',
  'create',
  '--project',
  PROJECT,
  '--zone',
  ZONE,
  '--cluster',
  cluster,
  '--tpu-type',
  'v5litepod-16',
  '--num-slices',
  String(slices),
  '--spot',
  // GKE only: the in-cluster setup (JobSet, Kueue) talks to the cluster's own API, which this fake does not serve.
  '--skip-in-cluster',
]

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/**
 * One create against a fresh fake; `seeded` pre-creates the cluster (RUNNING) so only the pools are timed, `limit`
 * caps the operations GKE runs at once per cluster (the rest are refused with RESOURCE_EXHAUSTED).
 */
async function measure(fake, cluster, slices, seeded, limit = Infinity) {
  fake.reset()
  fake.settings.maxConcurrentOperationsPerCluster = limit
  fake.settings.concurrencyLimitError = 'too-many-operations'
  if (seeded) {
    fake.seedCluster({
      project: PROJECT,
      location: REGION,
      name: cluster,
      nodePools: [{name: 'default-pool', initialNodeCount: 6, config: {machineType: 'e2-standard-16'}}],
    })
  }
  const run = await runCli(fake, createArgs(cluster, slices))
  const byMethod = {}
  for (const c of fake.calls) byMethod[c.method] = (byMethod[c.method] ?? 0) + 1
  const pools = fake.nodePools(PROJECT, REGION, cluster).filter((p) => p.name.startsWith(`${cluster}-np-`))
  if (pools.length !== slices || pools.some((p) => p.status !== 'RUNNING')) {
    throw new Error(`${cluster}: expected ${slices} RUNNING pools, found ${pools.length}`)
  }
  // SetLabels: the cluster lock, taken (an existing cluster) and released.
  const expected = new Set(['CreateNodePool', 'CreateCluster', 'SetLabels'])
  const unexpected = fake.mutatingCalls().filter((c) => !expected.has(c.method))
  if (unexpected.length > 0) throw new Error(`${cluster}: unexpected ${unexpected.map((c) => c.method).join(', ')}`)
  const refused = fake.calls.filter((c) => c.code === 8).length
  return {...run, slices, calls: fake.calls.length, refused, byMethod, timeline: timeline(fake, run)}
}

/** Where the time went: start-up, reads, GKE's operations, the CLI's lag in noticing they were done, exit. */
function timeline(fake, run) {
  const calls = fake.calls
  const firstCreate = calls.find((c) => c.method === 'CreateNodePool' || c.method === 'CreateCluster')
  const lags = []
  for (const op of fake.operations()) {
    const done = Date.parse(op.endTime)
    // The CLI watches every operation with one ListOperations call per tick (GetOperation only for ones GKE no
    // longer lists), so the first such call after an operation finished is when the CLI could notice it.
    const seen = calls.find(
      (c) =>
        c.at >= done && (c.method === 'ListOperations' || (c.method === 'GetOperation' && c.request.name === op.name)),
    )
    if (seen) lags.push(seen.at - done)
  }
  // The poll schedule as one pool saw it: the watch calls while its operation ran, relative to its CreateNodePool.
  const create = calls.find((c) => c.method === 'CreateNodePool')
  const pool = create?.request.nodePool?.name
  const op = fake.operations().find((o) => pool && o.targetLink.endsWith(`/nodePools/${pool}`))
  const polls = op
    ? calls.filter(
        (c) =>
          c.at >= create.at &&
          (c.method === 'ListOperations' || (c.method === 'GetOperation' && c.request.name === op.name)) &&
          calls.indexOf(c) <= calls.findIndex((d) => d.at >= Date.parse(op.endTime) && d.method === 'ListOperations'),
      )
    : []
  return {
    pool,
    polls: polls.map((c) => c.at - create.at),
    poolDone: op ? Date.parse(op.endTime) - create.at : NaN,
    startup: calls[0].at - run.startedAt,
    reads: (firstCreate?.at ?? calls[0].at) - calls[0].at,
    lastOpDone:
      Math.max(
        ...fake
          .operations()
          .filter((op) => op.endTime)
          .map((op) => Date.parse(op.endTime)),
      ) - (firstCreate?.at ?? 0),
    pollLagMedian: median(lags),
    pollLagMax: Math.max(...lags),
    exit: run.endedAt - calls.at(-1).at,
  }
}

function formatCalls(r) {
  return Object.entries(r.byMethod)
    .sort((a, b) => b[1] - a[1])
    .map(([m, n]) => `${m} ${n}`)
    .join(', ')
}

async function scenario(fake, label, seeded, operations) {
  const results = []
  // One warm-up run fills Node's compile cache, as a user's second run would.
  await measure(fake, 'bench-warmup', SLICES, seeded)
  for (let i = 0; i < RUNS; i++) results.push(await measure(fake, `bench-${i}`, SLICES, seeded))
  const sorted = [...results].sort((a, b) => a.ms - b.ms)
  const mid = sorted[Math.floor((sorted.length - 1) / 2)]
  const wall = median(results.map((r) => r.ms))
  const ratio = wall / OPERATION_MS
  const t = mid.timeline
  console.log(`\n${label}: ${SLICES} slices, median of ${RUNS} runs`)
  console.log(`  runs (ms):            ${results.map((r) => r.ms.toFixed(0)).join(', ')}`)
  console.log(`  median wall:          ${wall.toFixed(0)} ms`)
  console.log(
    `  wall / one operation: ${ratio.toFixed(2)}x (the whole command over one ${OPERATION_MS} ms GKE operation; ` +
      'the pools are created at once, so 1.00x would be a command that costs nothing but the operation)',
  )
  if (operations > 1) {
    console.log(
      `  wall / ${operations} operations:   ${(wall / (operations * OPERATION_MS)).toFixed(2)}x (cluster, then pools)`,
    )
  }
  console.log(`  API calls (median run): ${mid.calls} total, ${(mid.calls / SLICES).toFixed(2)} per pool`)
  console.log(`    ${formatCalls(mid)}`)
  console.log(
    `  timeline (median run): start-up to first RPC ${t.startup} ms, reads ${t.reads} ms, ` +
      `first create to last operation done ${t.lastOpDone} ms, poll lag after an operation is done ` +
      `${t.pollLagMedian} ms median / ${t.pollLagMax} ms max, last RPC to exit ${t.exit} ms`,
  )
  console.log(
    `  one pool (${t.pool}): operation done at +${t.poolDone} ms, polled at ${t.polls.map((ms) => `+${ms}`).join(', ')} ms`,
  )
  return ratio
}

/** What every run pays whatever it does: Node and CLI start-up, then loading the GKE client and one RPC. */
async function fixedCosts(fake) {
  const version = []
  const list = []
  for (let i = 0; i < RUNS; i++) {
    fake.reset()
    version.push((await runCli(fake, ['version'])).ms)
    list.push((await runCli(fake, ['cluster', 'list', '--project', PROJECT])).ms)
  }
  console.log(`\nFixed costs, median of ${RUNS} runs:`)
  console.log(`  xpk version (Node and CLI start-up, no RPC):      ${median(version).toFixed(0)} ms`)
  console.log(`  xpk cluster list (start-up, GKE client, one RPC): ${median(list).toFixed(0)} ms`)
}

const {FakeGke, cleanup} = await loadFakeGke()
const fake = await FakeGke.start({operationMs: OPERATION_MS})
try {
  console.log(`Cluster create benchmark (Node ${process.version}), every GKE operation takes ${OPERATION_MS} ms.`)
  await fixedCosts(fake)
  const seededRatio = await scenario(fake, 'Existing cluster (seeded RUNNING), only node pools created', true, 1)
  await scenario(fake, 'From scratch (cluster, then node pools)', false, 2)

  console.log(
    '\nRatio below = wall time / the floor GKE sets: ceil(slices / operations at once) operations of ' +
      `${OPERATION_MS} ms one after another, where operations at once = min(--max-parallel ${MAX_PARALLEL}, ` +
      "GKE's per-cluster limit). 1.00x is as fast as the API allows; the rest is start-up, reads, the poll lag " +
      'and, with a limit, the waits before retrying refused operations.',
  )
  const floor = (slices, limit) => Math.ceil(slices / Math.min(MAX_PARALLEL, limit)) * OPERATION_MS
  const header = () =>
    console.log(
      `  ${'slices'.padStart(6)} ${'wall ms'.padStart(8)} ${'floor ms'.padStart(8)} ${'ratio'.padStart(6)} ` +
        `${'calls'.padStart(6)} ${'per pool'.padStart(8)} ${'refused'.padStart(7)}   by method`,
    )
  const row = (r, limit) =>
    console.log(
      `  ${String(r.slices).padStart(6)} ${r.ms.toFixed(0).padStart(8)} ${String(floor(r.slices, limit)).padStart(8)} ` +
        `${`${(r.ms / floor(r.slices, limit)).toFixed(2)}x`.padStart(6)} ${String(r.calls).padStart(6)} ` +
        `${(r.calls / r.slices).toFixed(2).padStart(8)} ${String(r.refused).padStart(7)}   ${formatCalls(r)}`,
    )
  console.log('\nExisting cluster, no per-cluster limit, one run each:')
  header()
  for (const slices of SCALING) row(await measure(fake, `bench-scale-${slices}`, slices, true), Infinity)
  console.log(`\nExisting cluster, GKE runs at most ${LIMIT} operations per cluster at once (LIMIT), one run each:`)
  header()
  for (const slices of LIMITED) row(await measure(fake, `bench-limit-${slices}`, slices, true, LIMIT), LIMIT)

  const verdict = seededRatio <= TARGET ? 'meets' : 'MISSES'
  console.log(
    `\n${SLICES} slices on an existing cluster: ${seededRatio.toFixed(2)}x, ${verdict} the target (<= ${TARGET}x).`,
  )
} finally {
  await fake.stop()
  cleanup()
  rmSync(scratch, {recursive: true, force: true})
}
