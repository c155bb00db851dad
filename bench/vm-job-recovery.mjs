// Benchmark: how fast a TPU VM job comes back after a preemption. A job (--loop) runs under its background supervisor
// on real OpenSSH workers (loopback), found through the fake TPU API answering every call after --api-latency-ms
// (50 by default, as the issue asks). Once its command runs, the fake preempts the node; the supervisor's events
// (events.jsonl, times in ms) split the recovery into detection (preempted: from the node turning PREEMPTED to the
// supervisor seeing it), delete (the queued resource and its node gone), re-request (requested to ready: the
// fake's provisioning steps of --step-ms each, and the polls), setup (ready to setup-done) and start (to the
// command running again). Prints the median of each phase over --runs jobs, and the poll interval the detection is
// bounded by (--poll-interval, default 5 s: the target is detection within 10 s).
// Usage: npm run bench:vm-job  [-- --runs 5 --api-latency-ms 50 --step-ms 50 --poll-interval 5]
import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseArgs} from 'node:util'

import {FakeTpu} from '../test/fakes/fake-tpu.ts'
import {sshdMissing, SshWorkers} from '../test/helpers/sshd.ts'

const {values} = parseArgs({
  options: {
    runs: {type: 'string', default: '5'},
    'api-latency-ms': {type: 'string', default: '50'},
    'step-ms': {type: 'string', default: '50'},
    'poll-interval': {type: 'string', default: '5'},
  },
})
const RUNS = Number(values.runs)
const PROJECT = 'bench-project'
const ZONE = 'us-central2-b'
const BIN = new URL('../bin/run.js', import.meta.url).pathname

const missing = sshdMissing()
if (missing) {
  console.error(`Cannot benchmark: ${missing}.`)
  process.exit(1)
}

const root = mkdtempSync(join(tmpdir(), 'xpk-bench-job-'))
const home = join(root, 'home')
const state = join(root, 'state')
mkdirSync(home, {recursive: true})
const ssh = await SshWorkers.start(2)
const fake = await FakeTpu.start({
  stepMs: Number(values['step-ms']),
  deleteMs: Number(values['step-ms']),
  rpcLatencyMs: Number(values['api-latency-ms']),
  endpoints: (_id, _slice, count) =>
    Array.from({length: count}, (_, w) => ({ipAddress: ssh.workers[w].host, port: 8470})),
  onMetadata: (_id, metadata) => ssh.authorize([0, 1], metadata['ssh-keys'] ?? ''),
})
const env = {
  PATH: process.env.PATH,
  HOME: home,
  USER: ssh.user,
  XDG_CONFIG_HOME: join(home, 'xdg'),
  XDG_STATE_HOME: state,
  XPK_TPU_ENDPOINT: `http://${fake.endpoint}`,
  XPK_ACCESS_TOKEN: 'bench-token',
}
// Asynchronous: the fake TPU API answers from this process's event loop, which spawnSync would block.
const xpk = (...args) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {env})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (status) => resolve({status, stdout, stderr}))
  })
const jobDir = (id) => join(state, 'xpk', 'vm-jobs', id)
const events = (id) =>
  existsSync(join(jobDir(id), 'events.jsonl'))
    ? readFileSync(join(jobDir(id), 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : []
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
async function until(check, ms = 120_000) {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out')
    await sleep(20)
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const phases = {detection: [], delete: [], 'request to ready': [], setup: [], start: [], total: []}
try {
  for (let run = 0; run < RUNS; run++) {
    const name = `bench-${run}`
    const created = await xpk(
      'vm',
      'job',
      'create',
      '--project',
      PROJECT,
      '--zone',
      ZONE,
      '--tpu-type',
      'v4-16',
      '--name',
      name,
      '--command',
      'if [ "$XPK_JOB_ATTEMPT" = 1 ]; then sleep 300; fi',
      '--loop',
      '--ssh-port',
      String(ssh.port),
      '--poll-interval',
      values['poll-interval'],
      '--json',
    )
    if (created.status !== 0) throw new Error(created.stderr)
    const {job} = JSON.parse(created.stdout)
    await until(() => events(job.id).some((e) => e.event === 'running'))
    const preemptedAt = Date.now()
    fake.preempt(PROJECT, ZONE, name)
    await until(() => events(job.id).filter((e) => e.event === 'running').length === 2)
    const ev = events(job.id)
    const at = (event, after = 0) => ev.find((e) => e.event === event && e.time >= after).time
    const seen = at('preempted', preemptedAt)
    const deleted = at('deleted', seen)
    const requested = at('requested', deleted)
    const ready = at('ready', requested)
    const setup = at('setup-done', ready)
    const running = at('running', setup)
    phases.detection.push(seen - preemptedAt)
    phases.delete.push(deleted - seen)
    phases['request to ready'].push(ready - requested)
    phases.setup.push(setup - ready)
    phases.start.push(running - setup)
    phases.total.push(running - preemptedAt)
    // The job's second attempt ends at once: SUCCEEDED. Its TPU goes.
    await until(() => JSON.parse(readFileSync(join(jobDir(job.id), 'job.json'), 'utf8')).status === 'SUCCEEDED')
    const removed = await xpk('vm', 'job', 'delete', job.id, '--force', '--purge')
    if (removed.status !== 0) throw new Error(removed.stderr)
  }
  console.log(
    `Recovery after a preemption: ${RUNS} jobs, TPU API latency ${values['api-latency-ms']} ms, provisioning steps ${values['step-ms']} ms, --poll-interval ${values['poll-interval']} s (medians, ms)`,
  )
  for (const [phase, xs] of Object.entries(phases))
    console.log(`  ${phase.padEnd(18)} ${String(Math.round(median(xs))).padStart(7)}`)
  console.log(
    `  detection bound    ${String(Number(values['poll-interval']) * 1000 + Number(values['api-latency-ms']) * 2).padStart(7)}  (the poll interval plus one read of the node and queued resource)`,
  )
} finally {
  for (const w of ssh.workers) spawnSync('pkill', ['-f', `${w.home}/.xpk/jobs`])
  await fake.stop()
  await ssh.stop()
  rmSync(root, {recursive: true, force: true})
}
