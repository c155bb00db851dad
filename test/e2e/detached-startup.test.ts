// The detached job's startup script (src/templates/detached-startup.ts), run unchanged on real SSH workers (sshd on
// loopback, each worker its own $HOME) as the test user, against the fake Cloud Storage, the fake TPU API and one fake
// metadata server per worker. The harness sets only the script's documented overrides (DETACHED_SCRIPT_OVERRIDES):
// the metadata server, the log file and run directory under the worker's $HOME (the defaults are /var/log and
// /var/lib, root's), and short poll and retry delays. The Ops Agent is off through its metadata key. Skipped only
// when sshd is not installed (CI installs it with .ci/setup-ssh, so CI never skips).
import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {
  DETACHED_METADATA as KEY,
  DETACHED_NOT_RUN_STATUS,
  detachedLogObject,
  detachedStatusObject,
} from '../../src/core/vmjob/detached.js'
import {DETACHED_SCRIPT_OVERRIDES, DETACHED_STARTUP_SCRIPT} from '../../src/templates/detached-startup.js'
import {FakeCloudStorage} from '../fakes/fake-cloud-storage.js'
import {FakeMetadata} from '../fakes/fake-metadata.js'
import {FakeTpu} from '../fakes/fake-tpu.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {sshdMissing, SshWorkers} from '../helpers/sshd.js'
import {tempDir} from '../helpers/temp.js'

const PROJECT = 'p'
const ZONE = 'us-central2-b'
const BUCKET = 'jobs'
const missing = sshdMissing()
if (missing) console.warn(`SKIPPING detached startup script tests: ${missing}.`)

let ssh: SshWorkers
let storage: FakeCloudStorage
let tpu: FakeTpu
const metadata: FakeMetadata[] = []
let key: string

/** Slice s worker w of a job of `workers` workers per slice runs on SSH worker s * workers + w. */
interface Job {
  /** The run name (the queued resource's id), also the case's folder on each worker. */
  readonly run: string
  readonly prefix: string
  readonly slices: number
  readonly workers: number
  readonly command: string
  /** Files of the script directory shipped as the archive; undefined: no archive (the attribute is empty). */
  readonly files?: Readonly<Record<string, string>>
  readonly keep?: boolean
}

const queuedResourceName = (run: string) => `projects/${PROJECT}/locations/${ZONE}/queuedResources/${run}`
const archiveName = (job: Job) => `${job.prefix}/code-0123abcd.tar`
const scriptPath = (index: number) => join(ssh.workers[index]!.home, 'detached-startup.sh')
const caseDir = (index: number, job: Job) => join(ssh.workers[index]!.home, job.run)
const localLog = (index: number, job: Job) => join(caseDir(index, job), 'xpk-job.log')
const text = (name: string) => storage.object(BUCKET, name)?.data.toString('utf8')
const deletes = () => tpu.calls.filter((c) => c.method === 'DeleteQueuedResource')
const archiveGets = (job: Job) =>
  storage.calls.filter(
    (c) => c.method === 'GET' && c.query.alt === 'media' && c.path.endsWith(encodeURIComponent(archiveName(job))),
  )

/** Creates the queued resource, uploads the archive, and sets every worker's metadata. */
async function setUp(job: Job): Promise<void> {
  const parent = `projects/${PROJECT}/locations/${ZONE}`
  const node = {acceleratorType: job.workers === 1 ? 'v4-8' : 'v4-16', runtimeVersion: 'tpu-ubuntu2204-base'}
  const spec =
    job.slices > 1
      ? {parent, node, multisliceParams: {nodeCount: job.slices, nodeIdPrefix: job.run}}
      : {parent, node, nodeId: job.run}
  const created = await fetch(`http://${tpu.endpoint}/v2/${parent}/queuedResources?queuedResourceId=${job.run}`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({tpu: {nodeSpec: [spec]}}),
  })
  expect(created.status, await created.text()).toBe(200)
  if (job.files) {
    const dir = tempDir('xpk-detached-code-')
    for (const [path, content] of Object.entries(job.files)) {
      mkdirSync(join(dir, path, '..'), {recursive: true})
      writeFileSync(join(dir, path), content)
    }
    const tar = spawnSync('tar', ['-cf', '-', '-C', dir, '.'])
    expect(tar.status).toBe(0)
    storage.seedObject(BUCKET, archiveName(job), tar.stdout)
  }
  for (let slice = 0; slice < job.slices; slice++) {
    for (let worker = 0; worker < job.workers; worker++) {
      const fake = metadata[slice * job.workers + worker]!
      fake.attributes.clear()
      fake.calls.length = 0
      const tpuEnv = [`ACCELERATOR_TYPE: '${node.acceleratorType}'`, `NODE_ID: '${job.run}'`, `WORKER_ID: '${worker}'`]
      if (job.slices > 1) {
        tpuEnv.push(
          `MEGASCALE_COORDINATOR_ADDRESS: '10.0.0.2:8080'`,
          `MEGASCALE_NUM_SLICES: '${job.slices}'`,
          `MEGASCALE_PORT: '8080'`,
          `MEGASCALE_SLICE_ID: '${slice}'`,
        )
      }
      const endpoints = Array.from({length: job.workers}, (_, w) => `9876:${w}:10.${slice}.0.${w + 2}`).join(',')
      const attributes: Record<string, string> = {
        'tpu-env': `${tpuEnv.join('\n')}\n`,
        'worker-network-endpoints': endpoints,
        [KEY.run]: job.run,
        [KEY.bucket]: BUCKET,
        [KEY.prefix]: job.prefix,
        [KEY.archive]: job.files ? archiveName(job) : '',
        [KEY.command]: job.command,
        [KEY.numSlices]: String(job.slices),
        [KEY.workersPerSlice]: String(job.workers),
        [KEY.keep]: job.keep ? 'true' : 'false',
        [KEY.queuedResource]: queuedResourceName(job.run),
        [KEY.storageEndpoint]: storage.endpoint,
        [KEY.tpuEndpoint]: `http://${tpu.endpoint}`,
        [KEY.opsAgent]: 'false',
      }
      for (const [name, value] of Object.entries(attributes)) fake.attributes.set(name, value)
    }
  }
}

interface Ended {
  readonly code: number | null
  readonly stderr: string
}

/** Runs the startup script on SSH worker `index` as its boot would, with the harness's overrides. */
function boot(index: number, job: Job): Promise<Ended> {
  const worker = ssh.workers[index]!
  const dir = caseDir(index, job)
  mkdirSync(join(dir, 'tmp'), {recursive: true})
  const overrides: Record<(typeof DETACHED_SCRIPT_OVERRIDES)[number], string> = {
    GCE_METADATA_HOST: metadata[index]!.host,
    XPK_JOB_LOG_FILE: localLog(index, job),
    XPK_JOB_DIR: join(dir, 'job'),
    XPK_JOB_POLL_SECONDS: '0.1',
    XPK_JOB_RETRY_SECONDS: '0.05',
  }
  expect(Object.keys(overrides)).toEqual([...DETACHED_SCRIPT_OVERRIDES])
  const env = Object.entries({...overrides, TMPDIR: join(dir, 'tmp')}).map(([k, v]) => `${k}=${v}`)
  const remote = `cd / && exec env ${env.join(' ')} bash ${scriptPath(index)}`
  const child = spawn(
    'ssh',
    [
      '-F',
      '/dev/null',
      '-i',
      key,
      '-p',
      String(ssh.port),
      '-o',
      'BatchMode=yes',
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      'StrictHostKeyChecking=no',
      '-o',
      'UserKnownHostsFile=/dev/null',
      '-o',
      'LogLevel=ERROR',
      `${ssh.user}@${worker.host}`,
      remote,
    ],
    {stdio: ['ignore', 'ignore', 'pipe']},
  )
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000)
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard)
      resolve({code, stderr})
    }),
  )
}

/** Stops the script on SSH worker `index` as a lost VM would: its whole process group (the command too), SIGKILL. */
function killScript(index: number): void {
  const own = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[2])
  // The script's subshells (command substitutions) match too and may be gone by the time their stat is read.
  const groupOf = (pid: number): number[] => {
    try {
      return [Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2])]
    } catch {
      return []
    }
  }
  const groups = new Set(SshWorkers.processesMatching(`^bash ${scriptPath(index)}`).flatMap(groupOf))
  expect(groups.size).toBe(1)
  const [group] = groups
  expect(group).not.toBe(own)
  process.kill(-group!, 'SIGKILL')
}

async function eventually(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`not reached in time: ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const logLines = (log: string | undefined) => (log ?? '').trimEnd().split('\n')

describe.skipIf(missing)('the detached startup script on real SSH workers', () => {
  beforeAll(async () => {
    ssh = await SshWorkers.start(4)
    storage = await FakeCloudStorage.start()
    storage.seedBucket({name: BUCKET, project: PROJECT})
    tpu = await FakeTpu.start({stepMs: 10, deleteMs: 10})
    for (let i = 0; i < 4; i++) {
      metadata.push(await FakeMetadata.start({token: `token-${i}`}))
      writeFileSync(scriptPath(i), DETACHED_STARTUP_SCRIPT)
    }
    key = join(tempDir('xpk-detached-key-'), 'id')
    expect(spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]).status).toBe(0)
    ssh.authorize([0, 1, 2, 3], `${ssh.user}:${readFileSync(`${key}.pub`, 'utf8').trim()}`)
  }, 60_000)

  afterAll(async () => {
    await Promise.all(metadata.map((m) => m.stop()))
    await tpu?.stop()
    await storage?.stop()
    await ssh?.stop()
  })

  it('2 slices x 2 workers: each downloads and runs the code with the multislice environment, uploads its log and status; slice 0 worker 0 deletes the queued resource once, after all four are done', async () => {
    const job: Job = {
      run: 'two-by-two',
      prefix: 'team runs/été/two-by-two',
      slices: 2,
      workers: 2,
      files: {'data.txt': 'shipped data\n', 'sub dir/run.sh': 'echo "run.sh: $(cat data.txt)"\n'},
      command:
        'bash "sub dir/run.sh"; echo "slice=$MEGASCALE_SLICE_ID worker=$XPK_WORKER_ID xslice=$XPK_SLICE_ID n=$MEGASCALE_NUM_SLICES coord=$MEGASCALE_COORDINATOR_ADDRESS port=$MEGASCALE_PORT prefix=$TPU_PREFIX run=$XPK_RUN_NAME"; echo to-stderr >&2; if [ "$XPK_SLICE_ID$XPK_WORKER_ID" = 11 ]; then sleep 1.5; fi',
    }
    await setUp(job)
    // One status a page: slice 0 worker 0 must read every page of the listing to count four.
    storage.pageSize = 1
    const ended = await Promise.all([0, 1, 2, 3].map((i) => boot(i, job))).finally(() => (storage.pageSize = 1000))
    expect(ended.map((e) => e.code)).toEqual([0, 0, 0, 0])
    const lists = storage.calls.filter((c) => c.query.prefix === `${job.prefix}/status/`)
    // The last round (the one that counted four): a first page, then three more by their tokens.
    expect(lists.slice(-4).map((c) => c.query.pageToken === undefined)).toEqual([true, false, false, false])

    for (const [slice, worker, index] of [
      [0, 0, 0],
      [0, 1, 1],
      [1, 0, 2],
      [1, 1, 3],
    ] as const) {
      const log = text(detachedLogObject(job.prefix, slice, worker))
      const lines = logLines(log)
      expect(lines[0]).toMatch(
        new RegExp(
          `^xpk-job: run two-by-two, slice ${slice} worker ${worker}, starting at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC$`,
        ),
      )
      expect(lines.slice(1)).toEqual([
        'run.sh: shipped data',
        `slice=${slice} worker=${worker} xslice=${slice} n=2 coord=10.0.0.2:8080 port=8080 prefix=two-by-two run=two-by-two`,
        'to-stderr',
        'xpk-exit-status 0',
      ])
      expect(readFileSync(localLog(index, job), 'utf8')).toBe(log)
      expect(text(detachedStatusObject(job.prefix, slice, worker))).toBe('0\n')
      // Its own token, on every upload; the Ops Agent was not started (xpk-ops-agent: false).
      const uploads = storage.calls.filter(
        (c) => c.method === 'POST' && c.query.name?.includes(`slice-${slice}-worker-${worker}`),
      )
      expect(uploads.map((c) => [c.query.name, c.authorization])).toEqual([
        [detachedLogObject(job.prefix, slice, worker), `Bearer token-${index}`],
        [detachedStatusObject(job.prefix, slice, worker), `Bearer token-${index}`],
      ])
      expect(existsSync(join(caseDir(index, job), 'job', 'ops-agent.log'))).toBe(false)
      expect(metadata[index]!.calls.every((c) => c.flavored && c.status === 200)).toBe(true)
    }
    expect(archiveGets(job)).toHaveLength(4)

    expect(deletes().map((c) => c.request)).toEqual([{name: queuedResourceName(job.run), force: true}])
    const lastStatus = Math.max(
      ...storage.calls.filter((c) => c.method === 'POST' && c.query.name?.includes('/status/')).map((c) => c.at),
    )
    expect(deletes()[0]!.at).toBeGreaterThanOrEqual(lastStatus)
    expect(ended[0]!.stderr).toContain(`deleting the queued resource ${queuedResourceName(job.run)}`)
    for (const other of ended.slice(1)) expect(other.stderr).not.toContain('queued resource')
    await eventually(() => tpu.queuedResource(PROJECT, ZONE, job.run) === undefined, 'the queued resource is gone')
  })

  it('xpk-keep true keeps the queued resource; a failing command is its status; a re-run after the job finished does nothing (no download, no upload, no delete)', async () => {
    const job: Job = {
      run: 'keep-fail',
      prefix: 'keep-fail',
      slices: 2,
      workers: 2,
      keep: true,
      command:
        'echo "hello from $XPK_SLICE_ID/$XPK_WORKER_ID in $(basename "$PWD")"; [ "$XPK_SLICE_ID$XPK_WORKER_ID" != 10 ] || exit 7',
    }
    await setUp(job)
    const deletesBefore = deletes().length
    const ended = await Promise.all([0, 1, 2, 3].map((i) => boot(i, job)))
    expect(ended.map((e) => e.code)).toEqual([0, 0, 0, 0])
    const statuses = [0, 1, 2, 3].map((i) => text(detachedStatusObject(job.prefix, Math.floor(i / 2), i % 2)))
    expect(statuses).toEqual(['0\n', '0\n', '7\n', '0\n'])
    // No archive: the command runs in the (empty) code directory.
    expect(logLines(text(detachedLogObject(job.prefix, 1, 0))).slice(1)).toEqual([
      'hello from 1/0 in code',
      'xpk-exit-status 7',
    ])
    expect(deletes()).toHaveLength(deletesBefore)
    expect(tpu.queuedResource(PROJECT, ZONE, job.run)?.state).toBeDefined()

    // Re-runs (a reboot after the job ended): slice 0 worker 0 (the one that would delete) and the failed worker.
    for (const index of [0, 2]) {
      const mark = storage.calls.length
      const logBefore = readFileSync(localLog(index, job), 'utf8')
      const again = await boot(index, job)
      expect(again.code).toBe(0)
      expect(again.stderr).toContain('finished before')
      const calls = storage.calls.slice(mark)
      expect(calls.map((c) => [c.method, c.query.alt])).toEqual([['GET', undefined]])
      expect(calls[0]!.path).toBe(
        `b/${BUCKET}/o/${encodeURIComponent(detachedStatusObject(job.prefix, Math.floor(index / 2), index % 2))}`,
      )
      expect(readFileSync(localLog(index, job), 'utf8')).toBe(logBefore)
    }
    expect(deletes()).toHaveLength(deletesBefore)
  })

  it('retries an archive download that fails twice (and a metadata read that fails once); a missing archive is status 126, not retried, and the job still ends', async () => {
    const job: Job = {
      run: 'flaky',
      prefix: 'runs/flaky',
      slices: 1,
      workers: 1,
      files: {'x.txt': 'x\n'},
      command: 'cat x.txt',
    }
    await setUp(job)
    storage.faults.push({method: 'GET', path: encodeURIComponent(archiveName(job)), status: 503, times: 2})
    metadata[0]!.faults.push({path: 'tpu-env', status: 503})
    const ended = await boot(0, job)
    expect(ended.code, ended.stderr).toBe(0)
    expect(archiveGets(job).map((c) => c.status)).toEqual([503, 503, 200])
    expect(metadata[0]!.callsTo('instance/attributes/tpu-env').map((c) => c.status)).toEqual([503, 200])
    expect(logLines(text(detachedLogObject(job.prefix, 0, 0))).slice(1)).toEqual(['x', 'xpk-exit-status 0'])
    expect(deletes().at(-1)!.request).toEqual({name: queuedResourceName(job.run), force: true})

    const lost: Job = {run: 'lost', prefix: 'runs/lost', slices: 1, workers: 1, command: 'echo never'}
    await setUp(lost)
    metadata[0]!.attributes.set(KEY.archive, archiveName(lost))
    const deletesBefore = deletes().length
    const ended2 = await boot(0, lost)
    expect(ended2.code, ended2.stderr).toBe(0)
    expect(archiveGets(lost).map((c) => c.status)).toEqual([404])
    const lines = logLines(text(detachedLogObject(lost.prefix, 0, 0)))
    expect(lines[1]).toMatch(`could not download gs://${BUCKET}/${archiveName(lost)}: HTTP 404`)
    expect(lines.at(-1)).toBe(`xpk-exit-status ${DETACHED_NOT_RUN_STATUS}`)
    expect(text(detachedStatusObject(lost.prefix, 0, 0))).toBe(`${DETACHED_NOT_RUN_STATUS}\n`)
    expect(deletes()).toHaveLength(deletesBefore + 1)
  })

  it('an interrupted worker re-runs and completes, its log holding both runs; slice 0 worker 0 interrupted while it waits resumes the wait without running again, and deletes once', async () => {
    const job: Job = {
      run: 'resumed',
      prefix: 'runs/resumed',
      slices: 1,
      workers: 2,
      files: {'train.sh': 'echo "step on worker $XPK_WORKER_ID"\n'},
      command:
        'echo "attempt on worker $XPK_WORKER_ID coord=$MEGASCALE_COORDINATOR_ADDRESS n=$MEGASCALE_NUM_SLICES slice=$MEGASCALE_SLICE_ID"; if [ "$XPK_WORKER_ID" = 1 ] && [ ! -e started-before ]; then touch started-before; sleep 60; fi; bash train.sh',
    }
    await setUp(job)
    const deletesBefore = deletes().length
    const leader = boot(0, job)
    await eventually(() => text(detachedStatusObject(job.prefix, 0, 0)) === '0\n', 'slice 0 worker 0 reported')
    const leaderLog = text(detachedLogObject(job.prefix, 0, 0))
    // One slice: the coordinator is worker 0 of worker-network-endpoints, MEGASCALE_PORT's default.
    expect(logLines(leaderLog).slice(1)).toEqual([
      'attempt on worker 0 coord=10.0.0.2:8080 n=1 slice=0',
      'step on worker 0',
      'xpk-exit-status 0',
    ])
    await eventually(
      () => storage.calls.filter((c) => c.query.prefix === `${job.prefix}/status/`).length >= 2,
      'it waits',
    )
    killScript(0)
    expect((await leader).code).not.toBe(0)

    const first = boot(1, job)
    await eventually(
      () => existsSync(localLog(1, job)) && readFileSync(localLog(1, job), 'utf8').includes('attempt on worker 1'),
      'worker 1 started its command',
    )
    killScript(1)
    expect((await first).code).not.toBe(0)
    expect(SshWorkers.processesMatching(`^bash ${scriptPath(1)}`)).toEqual([])
    expect(text(detachedStatusObject(job.prefix, 0, 1))).toBeUndefined()
    expect(deletes()).toHaveLength(deletesBefore)

    const second = await boot(1, job)
    expect(second.code, second.stderr).toBe(0)
    const log = text(detachedLogObject(job.prefix, 0, 1))!
    expect(readFileSync(localLog(1, job), 'utf8')).toBe(log)
    expect(logLines(log).filter((l) => !l.startsWith('xpk-job: run resumed'))).toEqual([
      'attempt on worker 1 coord=10.0.0.2:8080 n=1 slice=0',
      'attempt on worker 1 coord=10.0.0.2:8080 n=1 slice=0',
      'step on worker 1',
      'xpk-exit-status 0',
    ])
    expect(logLines(log).filter((l) => l.startsWith('xpk-job: run resumed'))).toHaveLength(2)
    expect(text(detachedStatusObject(job.prefix, 0, 1))).toBe('0\n')
    expect(deletes()).toHaveLength(deletesBefore)

    const downloadsBefore = archiveGets(job).length
    const resumed = await boot(0, job)
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toContain('finished before')
    expect(archiveGets(job)).toHaveLength(downloadsBefore)
    expect(text(detachedLogObject(job.prefix, 0, 0))).toBe(leaderLog)
    expect(
      deletes()
        .slice(deletesBefore)
        .map((c) => c.request),
    ).toEqual([{name: queuedResourceName(job.run), force: true}])
  })

  it('end to end: what `xpk vm job create --detach` uploads and requests is what the workers run (the script and the metadata it sent), up to the logs in the bucket, the self-teardown, `vm job list` and `logs`', async () => {
    const state = tempDir('xpk-detached-state-')
    const code = tempDir('xpk-detached-src-')
    writeFileSync(join(code, 'train.sh'), 'echo "trained on slice $MEGASCALE_SLICE_ID worker $XPK_WORKER_ID"\n')
    const env = isolatedEnv({
      XPK_TPU_ENDPOINT: `http://${tpu.endpoint}`,
      XPK_STORAGE_ENDPOINT: storage.endpoint,
      XPK_ACCESS_TOKEN: 'token',
      XPK_PROJECT: 'detached-e2e',
      XPK_ZONE: ZONE,
      XDG_STATE_HOME: state,
    })
    const created = await runCli(
      [
        ...['vm', 'job', 'create', '--detach', '--tpu-type', 'v4-16', '--num-slices', '2', '--bucket', BUCKET],
        ...['--bucket-dir', 'e2e', '--run-name', 'whole', '--script-dir', code, '--command', 'bash train.sh', '--json'],
      ],
      {env},
    )
    expect(created.code, created.stderr + created.stdout).toBe(0)
    const id = JSON.parse(created.stdout).job.id as string
    // The nodes as the queued resource made them, with the metadata xpk sent.
    await eventually(() => tpu.node('detached-e2e', ZONE, 'whole-1')?.state === 'READY', 'the nodes are READY')
    for (const [slice, worker] of [
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ] as const) {
      const index = slice * 2 + worker
      const sent = tpu.node('detached-e2e', ZONE, `whole-${slice}`)!.metadata as Record<string, string>
      // The script each worker runs is the one xpk sent, byte for byte.
      writeFileSync(scriptPath(index), sent['startup-script']!)
      const fake = metadata[index]!
      fake.attributes.clear()
      for (const [name, value] of Object.entries(sent)) if (name !== 'startup-script') fake.attributes.set(name, value)
      // What the TPU runtime writes on each worker; and the Ops Agent off (its install would reach the internet).
      fake.attributes.set(
        'tpu-env',
        [
          `WORKER_ID: '${worker}'`,
          `MEGASCALE_COORDINATOR_ADDRESS: '10.0.0.2:8080'`,
          `MEGASCALE_NUM_SLICES: '2'`,
          `MEGASCALE_PORT: '8080'`,
          `MEGASCALE_SLICE_ID: '${slice}'`,
        ].join('\n') + '\n',
      )
      fake.attributes.set(KEY.opsAgent, 'false')
    }
    const job: Job = {run: 'whole', prefix: 'e2e/whole', slices: 2, workers: 2, command: 'bash train.sh'}
    const waiting = runCli(['vm', 'job', 'list', '--json'], {env})
    const ended = await Promise.all([0, 1, 2, 3].map((i) => boot(i, job)))
    await waiting
    expect(ended.map((e) => e.code)).toEqual([0, 0, 0, 0])
    expect(text(detachedLogObject('e2e/whole', 1, 1))).toContain('trained on slice 1 worker 1')
    expect(text(detachedStatusObject('e2e/whole', 1, 0))?.trim()).toBe('0')
    await eventually(
      () => tpu.queuedResource('detached-e2e', ZONE, 'whole') === undefined,
      'the queued resource is gone',
    )
    const list = await runCli(['vm', 'job', 'list', '--json'], {env})
    expect(JSON.parse(list.stdout).find((j: {id: string}) => j.id === id)).toMatchObject({status: 'SUCCEEDED'})
    const logs = await runCli(['vm', 'job', 'logs', id, '--worker', '2'], {env})
    expect(logs.code, logs.stderr).toBe(0)
    expect(logs.stdout).toContain('trained on slice 1 worker 0')
  }, 60_000)
})
