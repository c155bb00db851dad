// Start-up benchmark: wall time of common commands against `node -e 0` on the same Node.js, offline and against
// the local GKE fake (test/fakes/fake-gke.ts, in this process; `cluster create --dry-run` also reads the cluster's
// own API, served by test/fakes/fake-kube.ts). Every round times each case once (interleaved, so
// a noisy moment hits all cases alike), after one warm-up run each that fills Node's compile cache as a user's
// earlier runs would. Reports median times and the median of per-round ratios.
//
// Offline commands: the whole process, target <= 3x `node -e 0`. Commands that reach GKE: the time from spawning
// the process to the fake receiving its first GKE request (target <= 2.5x `node -e 0`), and the whole process. The vm
// commands likewise against the Cloud TPU fake (test/fakes/fake-tpu.ts): the time to its first TPU API request.
// Run with `npm run bench:startup` (which builds first); RUNS (default 31) sets the rounds. COMPARE=DIR also times
// another build's CLI (DIR/bin/run.js, built there) in the same rounds, each case beside this one's.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, dirname, join} from 'node:path'

import {cliEnv, loadFakeGke, loadFakeKube, loadFakeTpu} from './fake-gke.mjs'

const RUNS = Number(process.env.RUNS ?? 31)
const OFFLINE_TARGET = 3
const FIRST_REQUEST_TARGET = 2.5
const PROJECT = 'bench-project'
const ZONE = 'us-central2-b'
const node = process.execPath
const bin = new URL('../bin/run.js', import.meta.url).pathname
const scratch = mkdtempSync(join(tmpdir(), 'xpk-bench-startup-'))
const scriptDir = mkdtempSync(join(scratch, 'script-'))
writeFileSync(join(scriptDir, 'train.py'), 'print("hello")\n')

const {FakeGke, cleanup} = await loadFakeGke()
const {FakeKube, cleanup: cleanupKube} = await loadFakeKube()
const {FakeTpu, cleanup: cleanupTpu} = await loadFakeTpu()
// Two slices of v5litepod-16 under the prefix the vm commands name.
const tpu = await FakeTpu.start()
for (const slice of [0, 1]) tpu.seedNode(PROJECT, ZONE, `bench-${slice}`, {acceleratorType: 'v5litepod-16'})
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
  XPK_TPU_ENDPOINT: `http://${tpu.endpoint}`,
}

const workload = ['workload', 'create', '--project', PROJECT, '--cluster', 'bench', '--workload', 'bench-1']
const target = ['--project', PROJECT, '--zone', ZONE, '--cluster', 'bench']
const slices = ['--tpu-type', 'v5litepod-16', '--num-slices', '4', '--spot']
/** [name, argv, the fake whose first request is timed (GKE's or the TPU API's), if any] */
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
  ['xpk cluster list', [bin, 'cluster', 'list', '--project', PROJECT], fake],
  ['xpk cluster describe', [bin, 'cluster', 'describe', ...target], fake],
  ['xpk cluster create --dry-run (existing)', [bin, 'cluster', 'create', ...target, ...slices, '--dry-run'], fake],
  [
    '  the same, --skip-in-cluster',
    [bin, 'cluster', 'create', ...target, ...slices, '--dry-run', '--skip-in-cluster'],
    fake,
  ],
  ['xpk vm list', [bin, 'vm', 'list', '--project', PROJECT, '--zone', ZONE, '--tpu-prefix', 'bench'], tpu],
]

// Another build's CLI, case by case beside this one's, in the same interleaved rounds.
if (process.env.COMPARE) {
  const other = join(process.env.COMPARE, 'bin/run.js')
  for (const [name, [program, ...args], online] of [...cases]) {
    if (program === bin) cases.push([`${name.trim()} (${process.env.COMPARE})`, [other, ...args], online])
  }
}

/** Runs one case; resolves its wall time and, for commands that reach a fake, when it saw the first request. */
function timeOnce([name, [program, ...args], online]) {
  return new Promise((resolve, reject) => {
    if (online) online.calls.length = 0
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
      if (online.calls.length === 0) return reject(new Error(`${name} made no request to its API`))
      resolve({ms, firstRequestMs: online.calls[0].at - startedAt, requests: online.calls.length})
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
      const api = online === tpu ? 'TPU API' : 'GKE'
      line += `   first ${api} request at ${fmt(median(first))} ${ratio(first).toFixed(2)}x (${runs[0].requests} requests)`
    } else if (own) {
      worstOffline = Math.max(worstOffline, ratio(wall))
    }
    console.log(line)
  }
  console.log(
    `Worst offline command:        ${worstOffline.toFixed(2)}x node -e 0 (target <= ${OFFLINE_TARGET.toFixed(2)}x)`,
  )
  console.log(
    `Worst first API request:      ${worstOnline.toFixed(2)}x node -e 0 (target <= ${FIRST_REQUEST_TARGET.toFixed(2)}x)`,
  )
  console.log(
    'GKE and the TPU API are local fakes over plain http on loopback, so no credentials are loaded; with Application Default ' +
      'Credentials google-auth-library loads first (npm run bench:gke-transports measures it).',
  )
} finally {
  await fake.stop()
  await kube.stop()
  await tpu.stop()
  cleanup()
  cleanupKube()
  cleanupTpu()
  rmSync(scratch, {recursive: true, force: true})
}
