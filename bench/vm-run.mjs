// Benchmark: `xpk vm run` on 16 TPU VM workers (real OpenSSH servers on loopback, found through the fake TPU API)
// shipping a 50 MB script directory, side by side with what users do today with OpenSSH: tar the directory, `scp`
// the tarball to every worker in parallel, then `ssh` to every worker to unpack and run the command. Prints medians
// of several runs: wall time, the ratio, the spread of command start times across workers, and re-runs with
// --use-existing-folder. Needs /usr/sbin/sshd (.ci/setup-ssh) and a build.
// The re-runs are also broken down, since on a small machine the 16 sshd servers share the CPU with the client: the
// CPU the servers used (per-connection sshd processes, login shells, the command) and the CPU xpk itself used (with
// /usr/bin/time, when installed); and re-runs on the first 4 workers only (one slice), nearer to what a client sees
// when the servers are other machines. Every run asks the TPU API for the workers first.
// --api-latency-ms N delays every TPU API answer by N ms, as a far-away API (and its token exchange) would.
// Usage: npm run bench:vm-run  [-- --runs 5 --workers 16 --mb 50 --api-latency-ms 0]
import {spawn, spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {parseArgs} from 'node:util'

import {FakeTpu} from '../test/fakes/fake-tpu.ts'
import {sshdMissing, SshWorkers} from '../test/helpers/sshd.ts'

const {values} = parseArgs({
  options: {
    runs: {type: 'string', default: '5'},
    workers: {type: 'string', default: '16'},
    mb: {type: 'string', default: '50'},
    'api-latency-ms': {type: 'string', default: '0'},
  },
})
const RUNS = Number(values.runs)
const WORKERS = Number(values.workers)
const MB = Number(values.mb)
const API_LATENCY_MS = Number(values['api-latency-ms'])
const PER_SLICE = 4 // v4-32: 4 workers per slice
const PROJECT = 'bench-project'
const ZONE = 'us-central2-b'
const BIN = new URL('../bin/run.js', import.meta.url).pathname
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined

const missing = sshdMissing()
if (missing) {
  console.error(`Cannot benchmark: ${missing}.`)
  process.exit(1)
}

const root = mkdtempSync(join(tmpdir(), 'xpk-bench-vm-'))
const home = join(root, 'home')
const scriptDir = join(root, 'script')
mkdirSync(join(home, '.ssh'), {recursive: true})
mkdirSync(join(scriptDir, 'src'), {recursive: true})
// --log-dir must exist (a typo is not hidden by making it).
mkdirSync(join(root, 'logs'))
// 50 MB: one large incompressible file (a checkpoint or dataset shard) plus 200 small source files.
const small = 200
const smallBytes = 8 * 1024
writeFileSync(join(scriptDir, 'data.bin'), randomBytes(MB * 1024 * 1024 - small * smallBytes))
for (let i = 0; i < small; i++)
  writeFileSync(join(scriptDir, 'src', `m${i}.py`), randomBytes(smallBytes / 2).toString('hex'))
const key = join(home, '.ssh', 'google_compute_engine')
spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key])

const ssh = await SshWorkers.start(WORKERS, {base: 2})
const fake = await FakeTpu.start({
  rpcLatencyMs: API_LATENCY_MS,
  onMetadata: (nodeId, metadata) => {
    // Slices b-<n> and c (the first 4 workers again) carry the same key.
    const slice = nodeId === 'c' ? 0 : Number(nodeId.split('-').at(-1))
    ssh.authorize(
      Array.from({length: PER_SLICE}, (_, w) => slice * PER_SLICE + w),
      metadata['ssh-keys'] ?? '',
    )
  },
})
for (let slice = 0; slice < WORKERS / PER_SLICE; slice++) {
  fake.seedNode(PROJECT, ZONE, `b-${slice}`, {
    acceleratorType: 'v4-32',
    networkEndpoints: Array.from({length: PER_SLICE}, (_, w) => ({ipAddress: ssh.workers[slice * PER_SLICE + w].host})),
  })
}
// One slice on the first 4 servers, for the small re-runs.
fake.seedNode(PROJECT, ZONE, 'c', {
  acceleratorType: 'v4-32',
  networkEndpoints: Array.from({length: PER_SLICE}, (_, w) => ({ipAddress: ssh.workers[w].host})),
})
const env = {
  PATH: process.env.PATH,
  HOME: home,
  USER: ssh.user,
  XDG_CONFIG_HOME: join(home, '.config'),
  CLOUDSDK_CONFIG: join(root, 'no-gcloud'),
  METADATA_SERVER_DETECTION: 'none',
  GCE_METADATA_HOST: '127.0.0.1:9',
  XPK_TPU_ENDPOINT: `http://${fake.endpoint}`,
  XPK_POLL_INTERVAL_MS: '20',
  NO_COLOR: '1',
}

/** Runs a command to its end; resolves with its stderr. */
function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {env, stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    child.stdout.resume()
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) =>
      code === 0 ? resolve(stderr) : reject(new Error(`${command} ${args.join(' ')}: exit ${code}\n${stderr}`)),
    )
  })
}

/** Runs under /usr/bin/time when there is one; resolves with the CPU time (user + system, ms) it used, or NaN. */
async function runTimed(command, args) {
  if (!TIME) return (await run(command, args), NaN)
  const stderr = await run(TIME, ['-f', 'xpk-bench-cpu %U %S', command, ...args])
  const [, user, system] = /xpk-bench-cpu (\S+) (\S+)\s*$/.exec(stderr) ?? []
  return (Number(user) + Number(system)) * 1000
}

/** Adds the CPU the SSH servers used during `measure`, counted once their per-connection processes are reaped. */
async function withServerCpu(measure) {
  const before = ssh.serverCpuMs()
  const result = await measure()
  await new Promise((r) => setTimeout(r, 300))
  return {...result, serverCpuMs: ssh.serverCpuMs() - before}
}

/** Command start times (ns since the epoch) the first `count` workers wrote for run `tag`; the spread in ms. */
function startSpread(tag, count = WORKERS) {
  const starts = ssh.workers
    .slice(0, count)
    .map((w) => BigInt(readFileSync(join(w.home, `start-${tag}`), 'utf8').trim()))
  const min = starts.reduce((a, b) => (a < b ? a : b))
  const max = starts.reduce((a, b) => (a > b ? a : b))
  return Number(max - min) / 1e6
}
const marker = (tag) => `date +%s%N > "$HOME/start-${tag}"`

/** `xpk vm run` on prefix `b` (all workers), or `c` (the first slice's 4 workers) with `oneSlice`. */
const xpkArgs = (tag, oneSlice, extra) => [
  '--',
  BIN,
  'vm',
  'run',
  '--project',
  PROJECT,
  '--zone',
  ZONE,
  '--tpu-prefix',
  oneSlice ? 'c' : 'b',
  '--ssh-port',
  String(ssh.port),
  '--log-dir',
  join(root, 'logs'),
  '--run-name',
  tag,
  '--command',
  marker(tag),
  ...extra,
]

async function xpkRun(tag, extra, {oneSlice = false} = {}) {
  const t0 = performance.now()
  const clientCpuMs = await runTimed(process.execPath, xpkArgs(tag, oneSlice, extra))
  return {ms: performance.now() - t0, spread: startSpread(tag, oneSlice ? PER_SLICE : WORKERS), clientCpuMs}
}

const sshOpts = [
  '-i',
  key,
  '-o',
  'StrictHostKeyChecking=no',
  '-o',
  'UserKnownHostsFile=/dev/null',
  '-o',
  'LogLevel=ERROR',
]
async function openSshRun(tag) {
  const t0 = performance.now()
  const tarball = join(root, `bundle-${tag}.tar`)
  await run('tar', ['-cf', tarball, '-C', scriptDir, '.'])
  await Promise.all(
    ssh.workers.map((w) =>
      run('scp', [...sshOpts, '-q', '-P', String(ssh.port), tarball, `${ssh.user}@${w.host}:${w.home}/bundle.tar`]),
    ),
  )
  await Promise.all(
    ssh.workers.map((w) =>
      run('ssh', [
        ...sshOpts,
        '-p',
        String(ssh.port),
        `${ssh.user}@${w.host}`,
        `rm -rf "$HOME/baseline" && mkdir -p "$HOME/baseline" && tar -xf "$HOME/bundle.tar" -C "$HOME/baseline" && cd "$HOME/baseline" && ${marker(tag)}`,
      ]),
    ),
  )
  rmSync(tarball)
  return {ms: performance.now() - t0, spread: startSpread(tag)}
}

/** What users do to re-run in place today: `ssh` to the first `count` workers in parallel, cd and run. */
async function openSshRerun(tag, count = WORKERS) {
  const t0 = performance.now()
  await Promise.all(
    ssh.workers
      .slice(0, count)
      .map((w) =>
        run('ssh', [
          ...sshOpts,
          '-p',
          String(ssh.port),
          `${ssh.user}@${w.host}`,
          `cd "$HOME/baseline" && ${marker(tag)}`,
        ]),
      ),
  )
  return {ms: performance.now() - t0, spread: startSpread(tag, count)}
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  // Warm-up: adds the key to the nodes' metadata, learns host keys, warms the page cache.
  const warm = await xpkRun('warmup', ['--script-dir', scriptDir])
  const warmBase = await openSshRun('warmup')
  await xpkRun('warmup-c', ['--script-dir', join(scriptDir, 'src')], {oneSlice: true})
  console.error(`warm-up: xpk ${warm.ms.toFixed(0)} ms, OpenSSH ${warmBase.ms.toFixed(0)} ms`)
  const rows = {xpk: [], base: [], existing: [], baseRerun: [], existing4: [], baseRerun4: []}
  for (let i = 0; i < RUNS; i++) {
    rows.xpk.push(await xpkRun(`x${i}`, ['--script-dir', scriptDir]))
    rows.base.push(await openSshRun(`o${i}`))
    // The edit and re-run loop.
    rows.existing.push(await withServerCpu(() => xpkRun(`e${i}`, ['--use-existing-folder'])))
    rows.baseRerun.push(await withServerCpu(() => openSshRerun(`r${i}`)))
    // Slice c is the first 4 servers again, known under b's node names until a run on c learns them: the measured
    // run finds their host keys known, as a re-run does.
    await xpkRun(`g${i}`, ['--use-existing-folder'], {oneSlice: true})
    rows.existing4.push(await xpkRun(`f${i}`, ['--use-existing-folder'], {oneSlice: true}))
    rows.baseRerun4.push(await openSshRerun(`s${i}`, PER_SLICE))
  }
  const med = (results, field) => median(results.map((r) => r[field]))
  const row = (name, results) =>
    `${name.padEnd(56)} ${med(results, 'ms').toFixed(0).padStart(6)} ms   start spread ${med(results, 'spread')
      .toFixed(0)
      .padStart(4)} ms` +
    (Number.isFinite(results[0].clientCpuMs) ? `   xpk CPU ${med(results, 'clientCpuMs').toFixed(0)} ms` : '') +
    (results[0].serverCpuMs === undefined ? '' : `   sshd CPU ${med(results, 'serverCpuMs').toFixed(0)} ms`)
  const ratio = med(rows.xpk, 'ms') / med(rows.base, 'ms')
  console.log(
    `xpk vm run: ${WORKERS} workers (${WORKERS / PER_SLICE} slices of v4-32), ${MB} MB script dir, median of ${RUNS} runs` +
      (API_LATENCY_MS ? `, TPU API answers after ${API_LATENCY_MS} ms` : ''),
  )
  console.log(row('xpk vm run --script-dir (ssh2, one tar)', rows.xpk))
  console.log(row('OpenSSH: tar + parallel scp + parallel ssh', rows.base))
  console.log(row('xpk vm run --use-existing-folder', rows.existing))
  console.log(row('OpenSSH: parallel ssh, cd and run', rows.baseRerun))
  console.log(row(`xpk vm run --use-existing-folder, ${PER_SLICE} workers`, rows.existing4))
  console.log(row(`OpenSSH: parallel ssh, cd and run, ${PER_SLICE} workers`, rows.baseRerun4))
  console.log(
    `ratio xpk / OpenSSH: ${ratio.toFixed(2)}x (target <= 1.0x); spread target < 200 ms; re-run target < 1000 ms`,
  )
  console.log(
    JSON.stringify({
      workers: WORKERS,
      mb: MB,
      runs: RUNS,
      apiLatencyMs: API_LATENCY_MS,
      xpkMs: med(rows.xpk, 'ms'),
      openSshMs: med(rows.base, 'ms'),
      ratio,
      xpkSpreadMs: med(rows.xpk, 'spread'),
      openSshSpreadMs: med(rows.base, 'spread'),
      existingFolderMs: med(rows.existing, 'ms'),
      existingFolderSpreadMs: med(rows.existing, 'spread'),
      existingFolderClientCpuMs: med(rows.existing, 'clientCpuMs'),
      existingFolderServerCpuMs: med(rows.existing, 'serverCpuMs'),
      openSshRerunMs: med(rows.baseRerun, 'ms'),
      openSshRerunServerCpuMs: med(rows.baseRerun, 'serverCpuMs'),
      existingFolder4Ms: med(rows.existing4, 'ms'),
      openSshRerun4Ms: med(rows.baseRerun4, 'ms'),
    }),
  )
} finally {
  await fake.stop()
  await ssh.stop()
  rmSync(root, {recursive: true, force: true})
}
