// `xpk vm job` end to end: the built CLI, its supervisor as a real background process, the fake TPU API (which
// preempts on demand) and real OpenSSH servers on loopback as the TPU's workers. Skipped only when sshd is not
// installed (CI installs it with .ci/setup-ssh, so CI never skips).
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {FakeCloudStorage} from '../fakes/fake-cloud-storage.js'
import {FakeTpu} from '../fakes/fake-tpu.js'
import {makeBaseImage} from '../helpers/base-image.js'
import {dockerAvailable, explainDockerSkip, removeImages} from '../helpers/docker.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {sshdMissing, SshWorkers} from '../helpers/sshd.js'

const PROJECT = 'job-project'
const ZONE = 'us-central2-b'
const missing = sshdMissing()
if (missing) console.warn(`SKIPPING xpk vm job tests: ${missing}.`)
if (!dockerAvailable) explainDockerSkip('xpk vm job with the docker environment')

let fake: FakeTpu
let storage: FakeCloudStorage
let ssh: SshWorkers
let home: string
let state: string
const temps: string[] = []

const env = () =>
  isolatedEnv({
    XPK_TPU_ENDPOINT: `http://${fake.endpoint}`,
    XPK_STORAGE_ENDPOINT: storage.endpoint,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'xdg'),
    XDG_STATE_HOME: state,
    USER: ssh.user,
  })
const xpk = (...args: string[]) => runCli(args, {env: env(), timeoutMs: 90_000})
const create = (tpuName: string, command: string, ...extra: string[]) =>
  xpk(
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
    tpuName,
    '--command',
    command,
    '--ssh-port',
    String(ssh.port),
    '--poll-interval',
    '1',
    ...extra,
  )

interface JobRecord {
  status: string
  recoveries: number
  attempt: number
  supervisor?: {pid: number}
}
const record = (id: string): JobRecord =>
  JSON.parse(readFileSync(join(state, 'xpk', 'vm-jobs', id, 'job.json'), 'utf8'))
const events = (id: string): string[] =>
  readFileSync(join(state, 'xpk', 'vm-jobs', id, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).event)
const log = (id: string, name: string) => readFileSync(join(state, 'xpk', 'vm-jobs', id, 'logs', `${name}.log`), 'utf8')

/** Waits until `check` holds; a check that throws (a file the job has not written yet) does not hold yet. */
async function eventually(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms
  const holds = () => {
    try {
      return check()
    } catch {
      return false
    }
  }
  while (!holds()) {
    if (Date.now() > end) throw new Error('condition not reached in time')
    await new Promise((r) => setTimeout(r, 100))
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Kills what a job left running on the workers (a real preempted VM takes its processes with it; ours do not). */
function killLeftovers() {
  for (const w of ssh.workers) {
    const jobs = join(w.home, '.xpk', 'jobs')
    if (!existsSync(jobs)) continue
    for (const pidFile of listPidFiles(jobs)) {
      const pid = Number(readFileSync(pidFile, 'utf8'))
      try {
        process.kill(-pid, 'SIGKILL')
      } catch {
        // gone already
      }
    }
  }
}
function listPidFiles(dir: string): string[] {
  return readdirSync(dir, {recursive: true, encoding: 'utf8'})
    .filter((p) => p.endsWith('/pid'))
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile())
}

const supervisors: number[] = []

describe.skipIf(missing)('xpk vm job against real sshd workers and the fake TPU API', () => {
  beforeAll(async () => {
    ssh = await SshWorkers.start(2)
    fake = await FakeTpu.start({
      stepMs: 50,
      deleteMs: 50,
      endpoints: (_nodeId, _slice, count) =>
        Array.from({length: count}, (_, w) => ({ipAddress: ssh.workers[w].host, port: 8470})),
      onMetadata: (_nodeId, metadata) => ssh.authorize([0, 1], metadata['ssh-keys'] ?? ''),
    })
    storage = await FakeCloudStorage.start()
    storage.seedBucket({name: 'ckpt-us-central2', location: 'us-central2'})
    storage.seedBucket({name: 'ckpt-europe', location: 'europe-west4'})
    home = mkdtempSync(join(tmpdir(), 'xpk-job-home-'))
    state = mkdtempSync(join(tmpdir(), 'xpk-job-state-'))
    temps.push(home, state)
  }, 60_000)

  afterEach(() => {
    for (const pid of supervisors.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL')
    killLeftovers()
  })

  afterAll(async () => {
    await fake?.stop()
    await storage?.stop()
    await ssh?.stop()
    for (const dir of temps) rmSync(dir, {recursive: true, force: true})
  })

  it('runs a job in the foreground: requests the queued resource, runs the command on every worker, SUCCEEDED', async () => {
    const result = await create('fg', 'echo "hello from $XPK_WORKER_ID of $TPU_PREFIX"', '--foreground', '--json')
    expect(result.code, result.stderr).toBe(0)
    const out = JSON.parse(result.stdout)
    expect(out.job.status).toBe('SUCCEEDED')
    const id = out.job.id
    expect(log(id, 'command_worker_0.attempt-1')).toContain('hello from 0 of fg')
    expect(log(id, 'command_worker_1.attempt-1')).toContain('hello from 1 of fg')
    expect(events(id)).toEqual(
      expect.arrayContaining([
        'created',
        'supervisor-started',
        'requested',
        'ready',
        'setup-done',
        'running',
        'finished',
      ]),
    )
    const list = await xpk('vm', 'job', 'list', '--json')
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout).find((j: {id: string}) => j.id === id)).toMatchObject({
      status: 'SUCCEEDED',
      supervisor: 'none',
    })
    const logs = await xpk('vm', 'job', 'logs', id, '--worker', '1')
    expect(logs.code, logs.stderr).toBe(0)
    expect(logs.stdout).toContain('hello from 1 of fg')
  })

  it('ssh opens a shell on a worker as the supervisor logs in; with input piped in, the shell runs it and its status is the exit code', async () => {
    const result = await create('shell', 'true', '--foreground', '--json')
    expect(result.code, result.stderr).toBe(0)
    const id = JSON.parse(result.stdout).job.id
    const shell = await runCli(['vm', 'job', 'ssh', id, '--worker', '1'], {
      env: env(),
      input: 'echo "on $HOME"; exit 7\n',
      timeoutMs: 30_000,
    })
    expect(shell.stdout).toContain(`on ${ssh.workers[1].home}`)
    expect(shell.code).toBe(7)
    const absent = await xpk('vm', 'job', 'ssh', id, '--worker', '5')
    expect(absent.code).toBe(2)
    expect(absent.stderr).toContain('--worker 5')
  })

  it('a command failing on a healthy TPU is FAILED, not a preemption', async () => {
    const result = await create('failing', 'exit 3', '--foreground', '--loop', '--json')
    expect(result.code, result.stderr).toBe(0)
    const out = JSON.parse(result.stdout)
    expect(out.job).toMatchObject({status: 'FAILED', recoveries: 0})
    expect(out.job.reason).toContain('exited 3')
  })

  it('recovers from a preemption in the background: deletes, requests again, sets up again, re-runs; counts it', async () => {
    const command = 'if [ "$XPK_JOB_ATTEMPT" = 1 ]; then echo first; sleep 120; else echo "second run"; fi'
    const result = await create('pre', command, '--loop', '--json')
    expect(result.code, result.stderr).toBe(0)
    const id = JSON.parse(result.stdout).job.id
    supervisors.push(JSON.parse(result.stdout).supervisorPid)
    await eventually(() => record(id).status === 'RUNNING')
    await eventually(() => log(id, 'command_worker_0.attempt-1').includes('first'))
    const requestsBefore = fake.calls.filter((c) => c.method === 'CreateQueuedResource').length
    fake.preempt(PROJECT, ZONE, 'pre')
    await eventually(() => record(id).status === 'SUCCEEDED', 60_000)
    expect(record(id)).toMatchObject({recoveries: 1, attempt: 2})
    expect(fake.calls.filter((c) => c.method === 'CreateQueuedResource').length).toBe(requestsBefore + 1)
    expect(fake.calls.some((c) => c.method === 'DeleteQueuedResource')).toBe(true)
    expect(log(id, 'command_worker_0.attempt-2')).toContain('second run')
    expect(events(id)).toEqual(expect.arrayContaining(['preempted', 'recovering', 'recovered', 'finished']))
  }, 90_000)

  it('a supervisor killed with SIGKILL mid-run is replaced by resume, which follows the same run (no second request)', async () => {
    const result = await create('killed', 'sleep 4; echo "done after the kill"', '--json')
    expect(result.code, result.stderr).toBe(0)
    const id = JSON.parse(result.stdout).job.id
    await eventually(() => record(id).status === 'RUNNING')
    const pid = record(id).supervisor!.pid
    process.kill(pid, 'SIGKILL')
    await eventually(() => !alive(pid))
    const list = await xpk('vm', 'job', 'list', '--json')
    expect(list.stderr).toContain(`Job ${id} is RUNNING but its supervisor is not running`)
    const requests = fake.calls.filter((c) => c.method === 'CreateQueuedResource').length
    const resumed = await xpk('vm', 'job', 'resume', id, '--foreground', '--json')
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(JSON.parse(resumed.stdout)).toMatchObject({status: 'SUCCEEDED'})
    expect(fake.calls.filter((c) => c.method === 'CreateQueuedResource').length).toBe(requests)
    expect(events(id)).toContain('reattached')
    expect(record(id).attempt).toBe(1)
    expect(log(id, 'command_worker_0.attempt-1')).toContain('done after the kill')
  }, 60_000)

  it('stop ends the command and the supervisor and keeps the TPU; delete deletes the TPU and --purge the records', async () => {
    const result = await create('stopped', 'echo running; sleep 120', '--json')
    expect(result.code, result.stderr).toBe(0)
    const id = JSON.parse(result.stdout).job.id
    await eventually(() => record(id).status === 'RUNNING')
    await eventually(() => log(id, 'command_worker_0.attempt-1').includes('running'))
    const jobs = join(ssh.workers[0].home, '.xpk', 'jobs')
    const remoteDir = readdirSync(jobs).find((d) => d.startsWith(`${id}-`))!
    const pidFile = join(jobs, remoteDir, 'attempt-1', 'pid')
    const remote = Number(readFileSync(pidFile, 'utf8'))
    expect(alive(remote)).toBe(true)
    const stopped = await xpk('vm', 'job', 'stop', id, '--json')
    expect(stopped.code, stopped.stderr).toBe(0)
    expect(JSON.parse(stopped.stdout)).toMatchObject({status: 'STOPPED', supervisor: 'none'})
    await eventually(() => !alive(remote), 10_000)
    expect(fake.node(PROJECT, ZONE, 'stopped')).toBeDefined()
    const refused = await xpk('vm', 'job', 'delete', id)
    expect(refused.code).not.toBe(0)
    expect(fake.node(PROJECT, ZONE, 'stopped')).toBeDefined()
    const deleted = await xpk('vm', 'job', 'delete', id, '--force', '--purge', '--json')
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(JSON.parse(deleted.stdout)).toMatchObject({tpuDeleted: true, purged: true})
    expect(fake.queuedResource(PROJECT, ZONE, 'stopped')).toBeUndefined()
    expect(existsSync(join(state, 'xpk', 'vm-jobs', id))).toBe(false)
  }, 60_000)

  describe.skipIf(!dockerAvailable)(
    'from a jobman config file, with the docker environment on the real Docker engine',
    () => {
      let image: string
      let configDir: string
      beforeAll(async () => {
        // A bash that is busybox's sh: jobman runs the command with `bash -c` in the container.
        image = await makeBaseImage({executables: {'bin/bash': '#!/bin/sh\nexec /bin/sh "$@"\n'}})
        configDir = mkdtempSync(join(tmpdir(), 'xpk-job-config-'))
        temps.push(configDir)
        mkdirSync(join(home, '.ssh'), {recursive: true})
        const keygen = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(home, '.ssh', 'id_job')])
        expect(keygen.status).toBe(0)
      }, 60_000)
      afterAll(async () => {
        if (image) await removeImages([image])
      })

      it("runs jobman's config unchanged: a TPU VM node on Spot, the ssh and docker modules on every worker, the command on worker 0 only", async () => {
        const config = join(configDir, 'job.yaml')
        writeFileSync(
          config,
          [
            'job:',
            '  name: docker-job',
            '  env_type: docker # docker | conda | venv',
            '  loop: false',
            'tpu:',
            '  allocation_mode: "tpu-vm"',
            '  accelerator: v4-16',
            '  name: ${job.name}-${tpu.accelerator}',
            `  zone: ${ZONE}`,
            '  version: tpu-ubuntu2204-base',
            '  pricing: spot',
            '  startup_script: null',
            '  tags: ["jobman", "experiment"]',
            '  metadata:',
            '    owner: "yufeng"',
            'ssh:',
            '  private_key: ~/.ssh/id_job',
            '  identities:',
            '    - private_key: ~/.ssh/id_job',
            '      public_key: ~/.ssh/id_job.pub',
            '      config_entry: |',
            '        Host 10.*',
            '          IdentityFile ~/.ssh/id_job',
            '          IdentitiesOnly yes',
            'docker:',
            `  image: ${image}`,
            '  env_vars:',
            '    - GREETING=hello',
            '  mount_dirs:',
            '    - /tmp',
            '  workdir: /tmp',
            '  flags: ["--network=host"]',
            'setup:',
            '  modules:',
            '    - ssh',
            '    - docker',
            '    - command',
            'command:',
            '  cmd: |',
            '    echo "$GREETING from worker $XPK_WORKER_ID in $(pwd) on ${tpu.name}"',
            '  workers: [0] # int | list | "all"',
            '',
          ].join('\n'),
        )
        const result = await xpk(
          'vm',
          'job',
          'create',
          '--config',
          config,
          '--project',
          PROJECT,
          '--ssh-port',
          String(ssh.port),
          '--foreground',
          '--json',
        )
        expect(result.code, result.stderr).toBe(0)
        const out = JSON.parse(result.stdout)
        expect(
          out.job.status,
          JSON.stringify(out.job) +
            readdirSync(join(state, 'xpk', 'vm-jobs', out.job.id, 'logs'))
              .map((f) => f + ': ' + readFileSync(join(state, 'xpk', 'vm-jobs', out.job.id, 'logs', f), 'utf8'))
              .join('\n'),
        ).toBe('SUCCEEDED')
        const id = out.job.id
        const create = fake.calls.find((c) => c.method === 'CreateNode')
        expect(JSON.stringify(create?.request)).toContain('docker-job-v4-16')
        expect(JSON.stringify(create?.request)).toMatch(/"spot":\s*true|spot/)
        expect(log(id, 'command_worker_0.attempt-1')).toContain('hello from worker 0 in /tmp on docker-job-v4-16')
        expect(existsSync(join(state, 'xpk', 'vm-jobs', id, 'logs', 'command_worker_1.attempt-1.log'))).toBe(false)
        for (const w of [0, 1]) {
          expect(log(id, `ssh_worker_${w}`)).toContain('xpk: ssh set up')
          expect(log(id, `docker_worker_${w}`)).toContain('ready')
          expect(readFileSync(join(ssh.workers[w].home, '.ssh', 'config'), 'utf8')).toContain('Host 10.*')
          expect(readFileSync(join(ssh.workers[w].home, '.ssh', 'id_job'), 'utf8')).toContain('PRIVATE KEY')
        }
        expect(readFileSync(join(state, 'xpk', 'vm-jobs', id, 'config.yaml'), 'utf8')).toContain('env_type: docker')
      }, 90_000)

      it('a config with problems is exit 2 with file, line and key of each, and sends nothing that changes anything', async () => {
        const config = join(configDir, 'bad.yaml')
        writeFileSync(
          config,
          [
            'job:',
            '  name: bad',
            '  env_type: docker',
            'tpu:',
            '  acelerator: v4-8',
            `  zone: ${ZONE}`,
            'command:',
            '  cmd: true',
            '',
          ].join('\n'),
        )
        const mark = markRequests({tpu: fake})
        const result = await xpk('vm', 'job', 'create', '--config', config, '--project', PROJECT)
        expect(result.code).toBe(2)
        expect(result.stderr).toContain(`${config}:5`)
        expect(result.stderr).toContain('accelerator')
        expect(mutationsSince({tpu: fake}, mark)).toEqual([])
      })
    },
  )

  describe('the gcsfuse module', () => {
    const gcsfuseConfig = (bucket: string) =>
      [
        'job:',
        '  name: fuse-job',
        '  loop: false',
        'tpu:',
        '  allocation_mode: queued-resources',
        '  accelerator: v4-16',
        '  name: ${job.name}',
        `  zone: ${ZONE}`,
        '  version: tpu-ubuntu2204-base',
        '  pricing: ondemand',
        'gcsfuse:',
        `  bucket_name: ${bucket}`,
        '  mount_path: /tmp/xpk-job-gcs-${job.name}',
        'setup:',
        '  modules: [gcsfuse, command]',
        'command:',
        '  cmd: cat /tmp/xpk-job-gcs-fuse-job/mounted-by',
        '  workers: all',
        '',
      ].join('\n')

    it("refuses a bucket outside the TPU zone's region before anything is created (exit 2, no mutation)", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'xpk-job-fuse-'))
      temps.push(dir)
      writeFileSync(join(dir, 'job.yaml'), gcsfuseConfig('ckpt-europe'))
      const mark = markRequests({tpu: fake, storage})
      const result = await xpk('vm', 'job', 'create', '--config', join(dir, 'job.yaml'), '--project', PROJECT)
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(
        "gcsfuse.bucket_name: the bucket ckpt-europe is in europe-west4, not in the TPU's region us-central2",
      )
      expect(mutationsSince({tpu: fake, storage}, mark)).toEqual([])
      const missing = join(dir, 'missing.yaml')
      writeFileSync(missing, gcsfuseConfig('no-such-bucket'))
      const absent = await xpk('vm', 'job', 'create', '--config', missing, '--project', PROJECT)
      expect(absent.code).toBe(2)
      expect(absent.stderr).toContain('the bucket no-such-bucket does not exist')
    })

    it('mounts the bucket on every worker (gcsfuse stands in as a script: it cannot run here) before the command', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'xpk-job-fuse-'))
      temps.push(dir)
      writeFileSync(join(dir, 'job.yaml'), gcsfuseConfig('ckpt-us-central2'))
      for (const w of ssh.workers) {
        mkdirSync(join(w.home, 'bin'), {recursive: true})
        // Records what it was asked; the real one mounts the bucket at the path.
        writeFileSync(
          join(w.home, 'bin', 'gcsfuse'),
          '#!/bin/sh\nfor a; do last=$a; done\nmkdir -p "$last" && echo "gcsfuse $*" > "$last/mounted-by"\n',
          {mode: 0o755},
        )
      }
      rmSync('/tmp/xpk-job-gcs-fuse-job', {recursive: true, force: true})
      const result = await xpk(
        'vm',
        'job',
        'create',
        '--config',
        join(dir, 'job.yaml'),
        '--project',
        PROJECT,
        '--ssh-port',
        String(ssh.port),
        '--foreground',
        '--json',
      )
      rmSync('/tmp/xpk-job-gcs-fuse-job', {recursive: true, force: true})
      expect(result.code, result.stderr).toBe(0)
      const out = JSON.parse(result.stdout)
      expect(out.job.status).toBe('SUCCEEDED')
      expect(log(out.job.id, 'gcsfuse_worker_0')).toContain('mounted at')
      expect(log(out.job.id, 'command_worker_1.attempt-1')).toContain(
        'gcsfuse --implicit-dirs ckpt-us-central2 /tmp/xpk-job-gcs-fuse-job',
      )
    }, 60_000)
  })

  describe('dry runs and the --help examples', () => {
    /**
     * What changed: the TPU API's mutating requests and the job records (every file under the state directory but
     * the logs, which the running job itself writes as its command prints).
     */
    function snapshot(): string {
      const dir = join(state, 'xpk', 'vm-jobs')
      if (!existsSync(dir)) return ''
      return readdirSync(dir, {recursive: true, encoding: 'utf8'})
        .filter((f) => !/(^|\/)logs(\/|$)/.test(f))
        .sort()
        .map((f) => (statSync(join(dir, f)).isFile() ? `${f}\n${readFileSync(join(dir, f), 'utf8')}` : f))
        .join('\n')
    }
    async function changesOf(...args: string[]) {
      const mark = markRequests({tpu: fake})
      const before = snapshot()
      const result = await xpk(...args)
      return {result, api: mutationsSince({tpu: fake}, mark), records: snapshot() !== before}
    }

    it('create, stop, resume and delete: the dry run changes nothing, the real run does', async () => {
      const base = ['vm', 'job', 'create', '--project', PROJECT, '--zone', ZONE, '--tpu-type', 'v4-16']
      const args = [...base, '--name', 'dry', '--command', 'echo up; sleep 120', '--ssh-port', String(ssh.port)]
      const dryCreate = await changesOf(...args, '--dry-run', '--json')
      expect(dryCreate.result.code, dryCreate.result.stderr).toBe(0)
      expect([dryCreate.api, dryCreate.records]).toEqual([[], false])
      expect(JSON.parse(dryCreate.result.stdout).spec.tpu.name).toBe('dry')
      const created = await changesOf(...args, '--json')
      expect(created.result.code, created.result.stderr).toBe(0)
      expect(created.records).toBe(true)
      const id = JSON.parse(created.result.stdout).job.id
      await eventually(() => record(id).status === 'RUNNING' && log(id, 'command_worker_0.attempt-1').includes('up'))

      const dryStop = await changesOf('vm', 'job', 'stop', id, '--dry-run', '--json')
      expect(dryStop.result.code, dryStop.result.stderr).toBe(0)
      expect(
        JSON.parse(dryStop.result.stdout).plan.map(
          (s: {action: string; resource: string}) => `${s.action} ${s.resource}`,
        ),
      ).toEqual(['stop command', 'stop supervisor'])
      expect([dryStop.api, dryStop.records, record(id).status]).toEqual([[], false, 'RUNNING'])
      const stopped = await changesOf('vm', 'job', 'stop', id)
      expect(stopped.result.code, stopped.result.stderr).toBe(0)
      expect([stopped.records, record(id).status]).toEqual([true, 'STOPPED'])

      const dryResume = await changesOf('vm', 'job', 'resume', id, '--dry-run')
      expect(dryResume.result.code, dryResume.result.stderr).toBe(0)
      expect(dryResume.result.stdout).toContain('= reuse tpu dry')
      expect(dryResume.result.stdout).toContain('+ start command attempt-2')
      expect([dryResume.api, dryResume.records]).toEqual([[], false])
      const resumed = await changesOf('vm', 'job', 'resume', id, '--json')
      expect(resumed.result.code, resumed.result.stderr).toBe(0)
      await eventually(() => record(id).supervisor !== undefined)
      supervisors.push(record(id).supervisor!.pid)
      // The supervisor's own writes (events, then the log) come first: the dry run below must see them done.
      await eventually(
        () =>
          record(id).status === 'RUNNING' &&
          record(id).attempt === 2 &&
          log(id, 'command_worker_0.attempt-2').includes('up'),
      )

      const dryDelete = await changesOf('vm', 'job', 'delete', id, '--purge', '--dry-run')
      expect(dryDelete.result.code, dryDelete.result.stderr).toBe(0)
      expect(dryDelete.result.stdout).toContain('- delete tpu dry')
      expect([dryDelete.api, dryDelete.records]).toEqual([[], false])
      const deleted = await changesOf('vm', 'job', 'delete', id, '--purge', '--force')
      expect(deleted.result.code, deleted.result.stderr).toBe(0)
      expect(deleted.api).not.toEqual([])
      expect(deleted.records).toBe(true)
    }, 90_000)

    it('every --help example of the vm job commands runs against a job of this machine', async () => {
      const {COMMANDS} = await import('../../src/index.js')
      const dir = mkdtempSync(join(tmpdir(), 'xpk-job-examples-'))
      temps.push(dir)
      mkdirSync(join(home, '.ssh'), {recursive: true})
      if (!existsSync(join(home, '.ssh', 'id_example')))
        expect(
          spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(home, '.ssh', 'id_example')]).status,
        ).toBe(0)
      // job.yaml, as the examples name it: a job that failed (so it can be resumed), run by a background supervisor
      // (so it has a supervisor log), with the ssh module (so it has an ssh log).
      writeFileSync(
        join(dir, 'job.yaml'),
        [
          'job: {name: example}',
          `tpu: {accelerator: v4-16, zone: ${ZONE}, version: tpu-ubuntu2204-base}`,
          'ssh: {identities: [{private_key: ~/.ssh/id_example, public_key: ~/.ssh/id_example.pub}]}',
          'setup: {modules: [ssh, command]}',
          "command: {cmd: 'echo example; exit 1'}",
          '',
        ].join('\n'),
      )
      const made = await runCli(
        ['vm', 'job', 'create', '--config', 'job.yaml', '--project', PROJECT, '--ssh-port', String(ssh.port), '--json'],
        {env: env(), cwd: dir, timeoutMs: 60_000},
      )
      expect(made.code, made.stderr).toBe(0)
      const id = JSON.parse(made.stdout).job.id
      await eventually(() => record(id).status === 'FAILED' && record(id).supervisor === undefined)
      const ids = Object.keys(COMMANDS).filter((c) => c.startsWith('vm:job:'))
      let ran = 0
      for (const commandId of ids) {
        const command = COMMANDS[commandId as keyof typeof COMMANDS] as unknown as {
          examples?: string[]
          flags: Record<string, unknown>
        }
        for (const example of command.examples ?? []) {
          const argv = [...example.replace('<%= config.bin %> ', '').matchAll(/"([^"]*)"|(\S+)/g)].map(
            (m) => m[1] ?? m[2]!,
          )
          const args = argv.map((a) => (a === '7' ? String(Number(id)) : a))
          // Every change is shown, not made; the real runs are compared above. Where to find it all: --project etc.
          if ('dry-run' in command.flags && !args.includes('--dry-run')) args.push('--dry-run')
          if ('project' in command.flags && !args.includes('--project')) args.push('--project', PROJECT)
          if ('zone' in command.flags && !args.includes('--zone') && !args.includes('--config'))
            args.push('--zone', ZONE)
          const result = await runCli(args, {env: env(), cwd: dir, timeoutMs: 60_000, input: ''})
          expect(
            result.code,
            `${example}\n${result.stderr}\n${readdirSync(join(state, 'xpk', 'vm-jobs', id, 'logs')).join(' ')}`,
          ).toBe(0)
          ran++
        }
      }
      expect(ran).toBeGreaterThanOrEqual(15)
    }, 120_000)
  })
})
