// `xpk vm run` end to end: the built CLI, the fake TPU API over gRPC, and real OpenSSH servers on loopback (one per
// simulated worker). Skipped only when sshd is not installed (CI installs it with .ci/setup-ssh, so CI never skips).
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Socket} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {FakeTpu} from '../fakes/fake-tpu.js'
import {isolatedEnv, runCli, startCli} from '../helpers/cli.js'
import {sshdMissing, SshWorkers} from '../helpers/sshd.js'

const PROJECT = 'run-project'
const ZONE = 'us-central2-b'
const missing = sshdMissing()
if (missing) console.warn(`SKIPPING xpk vm run tests: ${missing}.`)

let fake: FakeTpu
let ssh: SshWorkers
let home: string
let logs: string
let scriptDir: string
const temps: string[] = []

/** 2 slices of v4-16 (2 workers each): slice s worker w is SSH server 2s+w. */
function seedSlices(prefix: string) {
  for (const slice of [0, 1]) {
    fake.seedNode(PROJECT, ZONE, `${prefix}-${slice}`, {
      acceleratorType: 'v4-16',
      networkEndpoints: [0, 1].map((w) => ({ipAddress: ssh.workers[slice * 2 + w].host, port: 8470})),
      metadata: {'ssh-keys': 'someone:ssh-rsa AAAAB3Nza someone', 'startup-script': 'echo hi'},
    })
  }
}

const env = (extra: Record<string, string> = {}) =>
  isolatedEnv({
    XPK_TPU_ENDPOINT: `http://${fake.endpoint}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'xdg'),
    USER: ssh.user,
    ...extra,
  })
const runArgs = (...args: string[]) => [
  'vm',
  'run',
  '--project',
  PROJECT,
  '--zone',
  ZONE,
  '--ssh-port',
  String(ssh.port),
  '--log-dir',
  logs,
  ...args,
]
const xpk = (...args: string[]) => runCli(runArgs(...args), {env: env(), timeoutMs: 60_000})
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}

async function eventually(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time')
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe.skipIf(missing)('xpk vm run against real sshd workers and the fake TPU API', () => {
  beforeAll(async () => {
    ssh = await SshWorkers.start(4)
    fake = await FakeTpu.start({
      stepMs: 50,
      // Slices created through `xpk vm create` land on the same SSH servers: slice s worker w is server 2s+w.
      endpoints: (_nodeId, slice, count) =>
        Array.from({length: count}, (_, w) => ({ipAddress: ssh.workers[slice * 2 + w].host, port: 8470})),
      onMetadata: (nodeId, metadata) => {
        const slice = Number(nodeId.split('-').at(-1))
        ssh.authorize([slice * 2, slice * 2 + 1], metadata['ssh-keys'] ?? '')
      },
    })
    home = temp('xpk-run-home-')
    logs = temp('xpk-run-logs-')
    scriptDir = temp('xpk-run-script-')
    writeFileSync(join(scriptDir, 'train.sh'), 'echo "training on slice $MEGASCALE_SLICE_ID"\n')
    mkdirSync(join(scriptDir, 'pkg'))
    writeFileSync(join(scriptDir, 'pkg', 'model.py'), 'print(1)\n')
    writeFileSync(join(scriptDir, 'secret.txt'), 'not shipped\n')
    writeFileSync(join(scriptDir, '.xpkignore'), 'secret.txt\n')
    seedSlices('demo')
  }, 60_000)

  afterAll(async () => {
    await fake?.stop()
    await ssh?.stop()
    for (const dir of temps) rmSync(dir, {recursive: true, force: true})
  })

  it('creates the key without a terminal (the question defaults to yes: it destroys nothing), adds it to ssh-keys, ships the folder and runs everywhere with the multislice environment', async () => {
    expect(existsSync(join(home, '.ssh', 'google_compute_engine'))).toBe(false)
    const command =
      'bash train.sh; echo "slice=$MEGASCALE_SLICE_ID worker=$XPK_WORKER_ID n=$MEGASCALE_NUM_SLICES coord=$MEGASCALE_COORDINATOR_ADDRESS prefix=$TPU_PREFIX"; ls -a | tr "\\n" " "'
    const result = await xpk(
      '--tpu-prefix',
      'demo',
      '--command',
      command,
      '--script-dir',
      scriptDir,
      '--run-name',
      'first',
      '--json',
    )
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(`Created ${join(home, '.ssh', 'google_compute_engine')}`)
    expect(fake.calls.some((c) => c.method === 'UpdateNode')).toBe(true)
    const json = JSON.parse(result.stdout)
    expect(json).toMatchObject({runName: 'first', logDir: join(logs, 'first'), shipped: {files: 3}})
    expect(
      json.workers.map((w: {slice: number; worker: number; exitCode: number}) => [w.slice, w.worker, w.exitCode]),
    ).toEqual([
      [0, 0, 0],
      [0, 1, 0],
      [1, 0, 0],
      [1, 1, 0],
    ])
    // Worker 0's output is streamed (to stderr under --json); every worker has its log.
    expect(result.stderr).toContain('training on slice 0')
    const coordinator = `${ssh.workers[0].host}:8080`
    for (const [i, [slice, worker]] of [
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ].entries()) {
      const log = readFileSync(join(logs, 'first', `slice-${slice}-worker-${worker}.log`), 'utf8')
      expect(log).toContain(`slice=${slice} worker=${worker} n=2 coord=${coordinator} prefix=demo`)
      expect(log).toMatch(/\btrain\.sh\b/)
      expect(log).not.toContain('secret.txt')
      expect(readdirSync(join(ssh.workers[i].home, 'xpk-demo')).sort()).toEqual(['.xpkignore', 'pkg', 'train.sh'])
    }
    // The key was created and put in each node's metadata, keeping the other entries.
    const publicKey = readFileSync(join(home, '.ssh', 'google_compute_engine.pub'), 'utf8').trim()
    expect(fake.node(PROJECT, ZONE, 'demo-1')!.metadata).toEqual({
      'ssh-keys': `someone:ssh-rsa AAAAB3Nza someone\n${ssh.user}:${publicKey}`,
      'startup-script': 'echo hi',
    })
    expect(fake.calls.filter((c) => c.method === 'UpdateNode')).toHaveLength(2)
    // Host keys were learnt, one per worker, with the node's identity.
    const known = readFileSync(join(home, 'xdg', 'xpk', 'known_hosts'), 'utf8')
      .trim()
      .split('\n')
      .sort()
    expect(known).toHaveLength(4)
    expect(known[0]).toBe(
      `[${ssh.workers[0].host}]:${ssh.port} demo-0/${fake.node(PROJECT, ZONE, 'demo-0')!.id}/0 ${ssh.workers[0].hostKey.split(' ')[1]}`,
    )
  })

  it('re-runs in the existing folder without copying, and streams worker 0 to stdout; one listing, no update', async () => {
    fake.calls.length = 0
    const knownHosts = readFileSync(join(home, 'xdg', 'xpk', 'known_hosts'), 'utf8')
    const result = await xpk('--tpu-prefix', 'demo', '--command', 'cat train.sh', '--use-existing-folder')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('echo "training on slice $MEGASCALE_SLICE_ID"\n')
    expect(result.stderr).toContain('Running on 4 workers of 2 slices in the existing folder: cat train.sh')
    // The key is in every node's metadata already: the TPU API is only asked for the workers.
    expect(fake.calls.map((c) => c.method)).toEqual(['ListNodes'])
    expect(readFileSync(join(home, 'xdg', 'xpk', 'known_hosts'), 'utf8')).toBe(knownHosts)
  })

  it("fails fast: the first failing worker stops the others (no process left anywhere); exit 3, the worker's code", async () => {
    const marker = 'sleep 9871'
    const command = `echo started; if [ "$XPK_SLICE_ID$XPK_WORKER_ID" = 11 ]; then sleep 0.5; echo boom >&2; exit 3; fi; ${marker}`
    const started = Date.now()
    const result = await xpk('--tpu-prefix', 'demo', '--command', command, '--use-existing-folder', '--run-name', 'ff')
    expect(result.code, result.stderr).toBe(3)
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(result.stderr).toContain('The command failed on slice 1 worker 1 with exit code 3. xpk stopped the other 3')
    expect(result.stderr).toContain('| boom')
    expect(result.stderr).toContain("xpk exits with 3, the worker's own exit status")
    expect(result.stderr).toContain(join(logs, 'ff'))
    const summary = JSON.parse(readFileSync(join(logs, 'ff', 'summary.json'), 'utf8'))
    expect(summary.workers.filter((w: {stopped: boolean}) => w.stopped)).toHaveLength(3)
    await eventually(() => SshWorkers.processesMatching(`^${marker}`).length === 0, 5000)
  })

  it('exits with the highest code of the failed workers (2 and 7: 7) and names that worker; --json has every code', async () => {
    // Slice 1 worker 0 fails first (7), but a background process it leaves holds its SSH channel open, so xpk sees
    // slice 0 worker 1 fail (2) first. The stop then finds worker 1-0's command already ended: both failures count.
    const [marker, leftover] = ['sleep 9874', 'sleep 9875']
    const command = [
      'case "$XPK_SLICE_ID$XPK_WORKER_ID" in',
      `  01) sleep 1.5; echo two; exit 2 ;;`,
      `  10) ${leftover} & sleep 0.2; echo seven; exit 7 ;;`,
      `  *) ${marker} ;;`,
      'esac',
    ].join('\n')
    const result = await xpk(
      ...['--tpu-prefix', 'demo', '--command', command, '--use-existing-folder', '--run-name', 'two', '--json'],
    )
    expect(result.code, result.stderr).toBe(7)
    const json = JSON.parse(result.stdout)
    expect(json.error).toMatchObject({kind: 'unsuccessful', exitCode: 7})
    expect(json.error.message).toContain(
      'The command failed on slice 1 worker 0 with exit code 7, the highest of 2 failed workers (the first failure xpk saw: slice 0 worker 1, exit code 2). xpk stopped the other 2 workers.',
    )
    expect(json.error.message).toMatch(/slice-1-worker-0\.log:\n {2}\| seven\n/)
    expect(json.workers.map((w: {exitCode: number; stopped: boolean}) => [w.exitCode, w.stopped])).toEqual([
      [143, true],
      [2, false],
      [7, false],
      [143, true],
    ])
    expect(json).toMatchObject({runName: 'two', logDir: join(logs, 'two')})
    await eventually(() => SshWorkers.processesMatching(`^(${marker}|${leftover})`).length === 0, 5000)
  })

  it('counts a worker killed by a signal as 128+N, as shells do (SIGKILL: 137)', async () => {
    const marker = 'sleep 9876'
    // $$ is the run's own shell on the worker: the command kills it outright, as the OOM killer would.
    const command = `if [ "$XPK_SLICE_ID$XPK_WORKER_ID" = 10 ]; then sleep 0.3; kill -KILL $$; fi; ${marker}`
    const result = await xpk('--tpu-prefix', 'demo', '--command', command, '--use-existing-folder', '--run-name', 'sig')
    expect(result.code, result.stderr).toBe(137)
    expect(result.stderr).toContain('The command failed on slice 1 worker 0 with exit code 137 (SIGKILL).')
    const summary = JSON.parse(readFileSync(join(logs, 'sig', 'summary.json'), 'utf8'))
    expect(summary.workers[2]).toMatchObject({exitCode: 137, stopped: false})
    await eventually(() => SshWorkers.processesMatching(`^${marker}`).length === 0, 5000)
  })

  it('Ctrl-C stops every worker process and exits 130', async () => {
    const marker = 'sleep 9872'
    const {child, done} = startCli(
      runArgs(
        '--tpu-prefix',
        'demo',
        '--command',
        `touch "$HOME/started-$XPK_SLICE_ID$XPK_WORKER_ID"; ${marker}`,
        '--use-existing-folder',
      ),
      {env: env(), timeoutMs: 60_000},
    )
    await eventually(() => ssh.workers.every((w) => readdirSync(w.home).some((f) => f.startsWith('started-'))))
    await eventually(() => SshWorkers.processesMatching(`^${marker}`).length === 4, 5000)
    child.kill('SIGINT')
    const result = await done
    expect(result.code).toBe(130)
    await eventually(() => SshWorkers.processesMatching(`^${marker}`).length === 0, 5000)
  })

  it("a worker whose connection drops mid-run is 255, and its command is stopped like the others'", async () => {
    const marker = 'sleep 9877'
    const {done} = startCli(
      runArgs('--tpu-prefix', 'demo', '--command', marker, '--use-existing-folder', '--run-name', 'drop'),
      {env: env(), timeoutMs: 60_000},
    )
    await eventually(() => SshWorkers.processesMatching(`^${marker}`).length === 4, 10_000)
    // Slice 1 worker 0's connection dies (its sshd processes are killed); the command goes on there by itself.
    expect(ssh.dropConnections(2)).toBeGreaterThan(0)
    const result = await done
    expect(result.code, result.stderr).toBe(255)
    expect(result.stderr).toContain('The connection to slice 1 worker 0 was lost: stopping its command')
    expect(result.stderr).toContain(
      'The command failed on slice 1 worker 0 with a lost connection. xpk stopped the other 3',
    )
    expect(result.stderr).not.toMatch(/\n\s+at /)
    await eventually(() => SshWorkers.processesMatching(`^${marker}`).length === 0, 5000)
  })

  it('a worker whose sshd accepts connections and never sends its banner is exit 255 with a message', async () => {
    // A fifth "worker" on its own loopback address, at the SSH port: it accepts and says nothing.
    const accepted: Socket[] = []
    const mute = createServer((socket) => {
      accepted.push(socket)
      socket.on('error', () => undefined)
    })
    await new Promise<void>((resolve) => mute.listen(ssh.port, '127.0.9.9', resolve))
    try {
      const publicKey = readFileSync(join(home, '.ssh', 'google_compute_engine.pub'), 'utf8').trim()
      fake.seedNode(PROJECT, ZONE, 'mute', {
        acceleratorType: 'v4-8',
        networkEndpoints: [{ipAddress: '127.0.9.9', port: 8470}],
        metadata: {'ssh-keys': `${ssh.user}:${publicKey}`},
      })
      const started = Date.now()
      const result = await runCli(runArgs('--tpu-prefix', 'mute', '--command', 'true', '--use-existing-folder'), {
        env: env({XPK_SSH_HANDSHAKE_TIMEOUT_MS: '300'}),
        timeoutMs: 60_000,
      })
      expect(result.code, result.stderr).toBe(255)
      expect(result.stderr).toMatch(
        /^Error: Slice 0 worker 0 \(mute\): Could not connect to .*127\.0\.9\.9.*handshake/m,
      )
      expect(result.stderr).not.toMatch(/\n\s+at /)
      expect(accepted.length).toBeGreaterThan(0)
      expect(Date.now() - started).toBeLessThan(30_000)
    } finally {
      for (const socket of accepted) socket.destroy()
      mute.close()
    }
  })

  it('refuses a worker whose host key changed', async () => {
    const knownHosts = join(home, 'xdg', 'xpk', 'known_hosts')
    const text = readFileSync(knownHosts, 'utf8')
    const address = `[${ssh.workers[2].host}]:${ssh.port}`
    const line = text.split('\n').find((l) => l.startsWith(address))!
    const forged = line.replace(/\S+$/, Buffer.from('forged').toString('base64'))
    writeFileSync(knownHosts, text.replace(line, forged))
    fake.calls.length = 0
    const result = await xpk('--tpu-prefix', 'demo', '--command', 'true', '--use-existing-folder')
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/Slice 1 worker 0 \(demo-1\): The SSH host key of .* has changed/)
    // Listed, then refused when connecting: before any command ran.
    expect(fake.calls.map((c) => c.method)).toEqual(['ListNodes'])
    expect(readFileSync(knownHosts, 'utf8')).toBe(text.replace(line, forged))
    writeFileSync(knownHosts, text)
  })

  it('runs the whole workflow: vm create, vm run on what it made, vm delete', async () => {
    const target = ['--project', PROJECT, '--zone', ZONE]
    const cli = (...args: string[]) => runCli([...args, ...target], {env: env(), timeoutMs: 60_000})
    const created = await cli('vm', 'create', '--tpu-prefix', 'wf', '--tpu-type', 'v4-16', '--num-slices', '2')
    expect(created.code, created.stderr).toBe(0)
    expect(created.stderr).toContain('Queued resource wf is ACTIVE: wf-0 (2 workers), wf-1 (2 workers).')
    const ran = await xpk(
      '--tpu-prefix',
      'wf',
      '--command',
      'echo "$TPU_PREFIX $MEGASCALE_SLICE_ID/$MEGASCALE_NUM_SLICES"',
      '--script-dir',
      scriptDir,
      '--json',
    )
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stderr).toContain('wf 0/2')
    expect(JSON.parse(ran.stdout).workers).toHaveLength(4)
    const deleted = await cli('vm', 'delete', '--tpu-prefix', 'wf', '--force')
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(fake.node(PROJECT, ZONE, 'wf-0')).toBeUndefined()
  })

  it('names the slices it could not find', async () => {
    const result = await xpk('--tpu-prefix', 'nothing', '--command', 'true', '--use-existing-folder')
    expect(result.code, result.stderr).toBe(4)
    expect(result.stderr).toContain('No TPU VMs named nothing or nothing-<n>')
    expect(spawnSync('true').status).toBe(0)
  })
})
