// Benchmark: `xpk vm run` on 16 TPU VM workers (real OpenSSH servers on loopback, found through the fake TPU API)
// shipping a 50 MB script directory, side by side with what users do today with OpenSSH: tar the directory, `scp`
// the tarball to every worker in parallel, then `ssh` to every worker to unpack and run the command. Prints medians
// of several runs: wall time, the ratio, the spread of command start times across workers, and re-runs with
// --use-existing-folder. Needs /usr/sbin/sshd (.ci/setup-ssh) and a build.
// Usage: npm run bench:vm-run  [-- --runs 5 --workers 16 --mb 50]
import {spawn, spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
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
  },
})
const RUNS = Number(values.runs)
const WORKERS = Number(values.workers)
const MB = Number(values.mb)
const PER_SLICE = 4 // v4-32: 4 workers per slice
const PROJECT = 'bench-project'
const ZONE = 'us-central2-b'
const BIN = new URL('../bin/run.js', import.meta.url).pathname

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
  onMetadata: (nodeId, metadata) => {
    const slice = Number(nodeId.split('-').at(-1))
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

function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {env, stdio: ['ignore', 'pipe', 'pipe'], ...options})
    let stderr = ''
    child.stdout.resume()
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')}: exit ${code}\n${stderr}`)),
    )
  })
}

/** Command start times (ns since the epoch) the workers wrote for run `tag`; returns the spread in ms. */
function startSpread(tag) {
  const starts = ssh.workers.map((w) => BigInt(readFileSync(join(w.home, `start-${tag}`), 'utf8').trim()))
  const min = starts.reduce((a, b) => (a < b ? a : b))
  const max = starts.reduce((a, b) => (a > b ? a : b))
  return Number(max - min) / 1e6
}
const marker = (tag) => `date +%s%N > "$HOME/start-${tag}"`

const xpkArgs = (tag, ...extra) => [
  '--',
  BIN,
  'vm',
  'run',
  '--project',
  PROJECT,
  '--zone',
  ZONE,
  '--tpu-prefix',
  'b',
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

async function xpkRun(tag, ...extra) {
  const t0 = performance.now()
  await run(process.execPath, xpkArgs(tag, ...extra))
  return {ms: performance.now() - t0, spread: startSpread(tag)}
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

/** What users do to re-run in place today: `ssh` to every worker in parallel, cd and run. */
async function openSshRerun(tag) {
  const t0 = performance.now()
  await Promise.all(
    ssh.workers.map((w) =>
      run('ssh', [
        ...sshOpts,
        '-p',
        String(ssh.port),
        `${ssh.user}@${w.host}`,
        `cd "$HOME/baseline" && ${marker(tag)}`,
      ]),
    ),
  )
  return {ms: performance.now() - t0, spread: startSpread(tag)}
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  // Warm-up: adds the key to the nodes' metadata, learns host keys, warms the page cache.
  const warm = await xpkRun('warmup', '--script-dir', scriptDir)
  const warmBase = await openSshRun('warmup')
  console.error(`warm-up: xpk ${warm.ms.toFixed(0)} ms, OpenSSH ${warmBase.ms.toFixed(0)} ms`)
  const xpk = []
  const base = []
  const existing = []
  const baseRerun = []
  for (let i = 0; i < RUNS; i++) {
    xpk.push(await xpkRun(`x${i}`, '--script-dir', scriptDir))
    base.push(await openSshRun(`o${i}`))
    existing.push(await xpkRun(`e${i}`, '--use-existing-folder'))
    baseRerun.push(await openSshRerun(`r${i}`))
  }
  const row = (name, results) =>
    `${name.padEnd(42)} ${median(results.map((r) => r.ms))
      .toFixed(0)
      .padStart(7)} ms   start spread ${median(results.map((r) => r.spread))
      .toFixed(0)
      .padStart(4)} ms`
  const ratio = median(xpk.map((r) => r.ms)) / median(base.map((r) => r.ms))
  console.log(
    `xpk vm run: ${WORKERS} workers (${WORKERS / PER_SLICE} slices of v4-32), ${MB} MB script dir, median of ${RUNS} runs`,
  )
  console.log(row('xpk vm run --script-dir (ssh2, one tar)', xpk))
  console.log(row('OpenSSH: tar + parallel scp + parallel ssh', base))
  console.log(row('xpk vm run --use-existing-folder', existing))
  console.log(row('OpenSSH: parallel ssh, cd and run', baseRerun))
  console.log(
    `ratio xpk / OpenSSH: ${ratio.toFixed(2)}x (target <= 1.0x); spread target < 200 ms; re-run target < 1000 ms`,
  )
  console.log(
    JSON.stringify({
      workers: WORKERS,
      mb: MB,
      runs: RUNS,
      xpkMs: median(xpk.map((r) => r.ms)),
      openSshMs: median(base.map((r) => r.ms)),
      ratio,
      xpkSpreadMs: median(xpk.map((r) => r.spread)),
      openSshSpreadMs: median(base.map((r) => r.spread)),
      existingFolderMs: median(existing.map((r) => r.ms)),
      existingFolderSpreadMs: median(existing.map((r) => r.spread)),
      openSshRerunMs: median(baseRerun.map((r) => r.ms)),
    }),
  )
} finally {
  await fake.stop()
  await ssh.stop()
  rmSync(root, {recursive: true, force: true})
}
