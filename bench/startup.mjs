// Start-up benchmark: wall time of common commands against `node -e 0` on the same Node.js, offline and against
// the local GKE fake (test/fakes/fake-gke.ts, in this process; `cluster create --dry-run` also reads the cluster's
// own API, served by test/fakes/fake-kube.ts). Every round times each case once (interleaved, so
// a noisy moment hits all cases alike), after one warm-up run each that fills Node's compile cache as a user's
// earlier runs would. Reports median times and the median of per-round ratios.
//
// Offline commands: the whole process, target <= 3x `node -e 0`. Commands that reach GKE: the time from spawning
// the process to the fake receiving its first GKE request (target <= 4x `node -e 0`), and the whole process.
// Run with `npm run bench:startup` (which builds first); RUNS (default 31) sets the rounds. COMPARE=DIR also times
// another build's CLI (DIR/bin/run.js, built there) in the same rounds, each case beside this one's.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, dirname, join} from 'node:path'

import {cliEnv, loadFakeGke, loadFakeKube} from './fake-gke.mjs'

const RUNS = Number(process.env.RUNS ?? 31)
const OFFLINE_TARGET = 3
const FIRST_REQUEST_TARGET = 4
const PROJECT = 'bench-project'
const ZONE = 'us-central2-b'
const node = process.execPath
const bin = new URL('../bin/run.js', import.meta.url).pathname
const scratch = mkdtempSync(join(tmpdir(), 'xpk-bench-startup-'))
const scriptDir = mkdtempSync(join(scratch, 'script-'))
writeFileSync(join(scriptDir, 'train.py'), 'print("hello")\n')

const {FakeGke, cleanup} = await loadFakeGke()
const {FakeKube, cleanup: cleanupKube} = await loadFakeKube()
// The cluster's own API, which `cluster create --dry-run` reads to plan what it installs inside (JobSet, Kueue).
const kube = await FakeKube.start()
const fake = await FakeGke.start(kube.gkeClusterOptions())
// An existing cluster with 4 slices of v5litepod-16, so `cluster create --dry-run` plans against live state.
fake.seedCluster({
  project: PROJECT,
  location: 'us-central2',
  name: 'bench',
  nodePools: [
    {name: 'default-pool', initialNodeCount: 6, config: {machineType: 'e2-standard-16'}},
    ...[0, 1, 2, 3].map((i) => ({
      name: `bench-np-${i}`,
      initialNodeCount: 4,
      locations: [ZONE],
      config: {machineType: 'ct5lp-hightpu-4t', spot: true},
      placementPolicy: {type: 'COMPACT', tpuTopology: '4x4'},
    })),
  ],
})

// Isolated from the user's own config so every run does the same work; this Node first on PATH, because the
// commands run the way a shell runs them: bin/run.js through its shebang (`env -S node <flags> --`). The compile
// cache lives in a scratch directory that the warm-up runs fill.
const env = {
  ...cliEnv(fake, scratch, mkdtempSync(join(scratch, 'cache-'))),
  PATH: `${dirname(node)}${delimiter}${process.env.PATH}`,
  // The fake cluster's token; plain http to the GKE fake never carries it.
  XPK_ACCESS_TOKEN: kube.token,
}

const workload = ['workload', 'create', '--project', PROJECT, '--cluster', 'bench', '--workload', 'bench-1']
const target = ['--project', PROJECT, '--zone', ZONE, '--cluster', 'bench']
const slices = ['--tpu-type', 'v5litepod-16', '--num-slices', '4', '--spot']
/** [name, argv, reaches GKE] */
const cases = [
  ['node -e 0', [node, '-e', '0'], false],
  ['xpk --help', [bin, '--help'], false],
  ['xpk accelerator list', [bin, 'accelerator', 'list'], false],
  [
    'xpk workload create --dry-run --offline',
    [
      bin,
      ...workload,
      ...['--tpu-type', 'v5p-256', '--num-slices', '4', '--command', 'python3 train.py'],
      ...['--script-dir', scriptDir, '--dry-run', '--offline'],
    ],
    false,
  ],
  ['xpk cluster list', [bin, 'cluster', 'list', '--project', PROJECT], true],
  ['xpk cluster describe', [bin, 'cluster', 'describe', ...target], true],
  ['xpk cluster create --dry-run (existing)', [bin, 'cluster', 'create', ...target, ...slices, '--dry-run'], true],
  [
    '  the same, --skip-in-cluster',
    [bin, 'cluster', 'create', ...target, ...slices, '--dry-run', '--skip-in-cluster'],
    true,
  ],
]

// Another build's CLI, case by case beside this one's, in the same interleaved rounds.
if (process.env.COMPARE) {
  const other = join(process.env.COMPARE, 'bin/run.js')
  for (const [name, [program, ...args], online] of [...cases]) {
    if (program === bin) cases.push([`${name.trim()} (${process.env.COMPARE})`, [other, ...args], online])
  }
}

/** Runs one case; resolves its wall time and, for GKE commands, when the fake saw the first request. */
function timeOnce([name, [program, ...args], online]) {
  return new Promise((resolve, reject) => {
    fake.calls.length = 0
    const startedAt = Date.now()
    const start = process.hrtime.bigint()
    const child = spawn(program, args, {env, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      if (code !== 0) return reject(new Error(`${name} exited ${code}: ${stderr}`))
      if (!online) return resolve({ms})
      if (fake.calls.length === 0) return reject(new Error(`${name} made no GKE request`))
      resolve({ms, firstRequestMs: fake.calls[0].at - startedAt, requests: fake.calls.length})
    })
  })
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  for (const c of cases) await timeOnce(c)
  const samples = new Map(cases.map(([name]) => [name, []]))
  for (let round = 0; round < RUNS; round++) {
    for (const c of cases) samples.get(c[0]).push(await timeOnce(c))
  }
  const base = samples.get('node -e 0').map((s) => s.ms)
  const ratio = (values) => median(values.map((ms, round) => ms / base[round]))
  const fmt = (ms) => `${ms.toFixed(1).padStart(7)} ms`
  console.log(`Start-up, median of ${RUNS} interleaved rounds (Node ${process.version}).`)
  console.log('Each ratio is the median, over the rounds, of (this command / `node -e 0` in the same round).')
  let worstOffline = 0
  let worstOnline = 0
  for (const [name, , online] of cases) {
    const runs = samples.get(name)
    const wall = runs.map((r) => r.ms)
    let line = `  ${name.padEnd(40)} whole process ${fmt(median(wall))} ${ratio(wall).toFixed(2)}x`
    const own = !name.endsWith(`(${process.env.COMPARE})`)
    if (online) {
      const first = runs.map((r) => r.firstRequestMs)
      if (own) worstOnline = Math.max(worstOnline, ratio(first))
      line += `   first GKE request at ${fmt(median(first))} ${ratio(first).toFixed(2)}x (${runs[0].requests} requests)`
    } else if (own) {
      worstOffline = Math.max(worstOffline, ratio(wall))
    }
    console.log(line)
  }
  console.log(
    `Worst offline command:        ${worstOffline.toFixed(2)}x node -e 0 (target <= ${OFFLINE_TARGET.toFixed(2)}x)`,
  )
  console.log(
    `Worst first GKE request:      ${worstOnline.toFixed(2)}x node -e 0 (target <= ${FIRST_REQUEST_TARGET.toFixed(2)}x)`,
  )
  console.log(
    'GKE is the local fake over plain http on loopback, so no credentials are loaded; with Application Default ' +
      'Credentials google-auth-library loads first (npm run bench:gke-transports measures it).',
  )
} finally {
  await fake.stop()
  await kube.stop()
  cleanup()
  cleanupKube()
  rmSync(scratch, {recursive: true, force: true})
}
