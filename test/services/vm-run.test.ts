import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {NodeFiles} from '../../src/adapters/local-files.js'

import {UsageError, UsageErrors, XpkError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/core/retry.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import type {
  RemoteExit,
  RemoteSession,
  RemoteShell,
  RunLogs,
  ScriptDirEntries,
  ScriptDirListing,
  SshKeyPair,
  SshKeyStore,
  SshTarget,
} from '../../src/ports/remote-shell.js'
import {READY_MARKER} from '../../src/core/vm/remote-scripts.js'
import {WorkerFailure} from '../../src/core/vm/exit-status.js'
import {runOnVms, type VmRunDeps, type VmRunOptions, type VmRunResult} from '../../src/services/vm-run.js'
import {MemoryTpu} from '../fakes/memory-tpu.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'

const timing: VmRunOptions['timing'] = {
  operations: {initialMs: 10, maxMs: 100, factor: 2, fastForMs: 0},
  retry: {...DEFAULT_RETRY_POLICY, backoff: {initialMs: 10, maxMs: 100, factor: 2}, attempts: 3},
  // SSH refusals are retried this long after xpk added the key to the nodes.
  ssh: {...DEFAULT_TIMING.ssh, keyPropagationMs: 1000},
}
const KEY: SshKeyPair = {privateKeyPath: '/home/me/.ssh/google_compute_engine', publicKey: 'ssh-ed25519 AAAAkey me'}

/**
 * What a simulated worker does with the command: exit (with a code, or killed by a signal) after `afterMs`, run
 * until stopped ('hang'), or lose the connection ('lost'). With `heldMs`, the command ends but its exit reaches xpk
 * only that much later, as when a leftover background process keeps the SSH channel open.
 */
type Behaviour =
  | {code: number | null; signal?: string; output?: string; afterMs?: number; heldMs?: number}
  | 'hang'
  | 'lost'
  | 'cut'
  | 'unreachable'

/** In-memory workers: records every script, answers ship and kill scripts, runs commands per `behave`. */
class FakeWorkers implements RemoteShell {
  readonly scripts: {host: string; kind: 'ship' | 'run' | 'kill'; stdin?: number}[] = []
  readonly refusals = new Map<string, number>()
  readonly started: string[] = []
  /** Every connection: to whom, and how many listings preceded it. */
  readonly connects: {host: string; identity: string; listingsBefore: number}[] = []
  readonly closed: string[] = []
  /** The TPU API's calls so far, to tell when a connection was made. */
  tpuLog: readonly string[] = []
  /** Commands xpk has not heard the end of: whether each has ended on its own, and how a stop finishes it. */
  readonly pending = new Map<string, {ended: boolean; stop: () => void}>()
  constructor(private readonly behave: (host: string) => Behaviour) {}

  async connect(target: SshTarget): Promise<RemoteSession> {
    const listingsBefore = this.tpuLog.filter((c) => c === 'listNodes').length
    this.connects.push({host: target.host, identity: target.identity, listingsBefore})
    if (this.behave(target.host) === 'unreachable') {
      throw new XpkError('unavailable', `Could not connect to ${target.host}: Timed out while waiting for handshake.`)
    }
    const left = this.refusals.get(target.host) ?? 0
    if (left > 0) {
      this.refusals.set(target.host, left - 1)
      throw new XpkError('auth', `SSH to ${target.host} refused the key.`)
    }
    return {
      exec: async (script, options = {}) => {
        const kind = script.startsWith('f=') ? 'kill' : script.includes('tar -xf') ? 'ship' : 'run'
        this.scripts.push({host: target.host, kind, ...(options.stdin ? {stdin: options.stdin.length} : {})})
        if (kind === 'kill') {
          // As killScript does: says whether the command was still running, and stops what is left either way.
          const pending = this.pending.get(target.host)
          options.onOutput?.(Buffer.from(`${pending?.ended === false ? 'xpk-stopping' : 'xpk-ended'}\n`), 'stdout')
          pending?.stop()
          return {code: 0}
        }
        if (kind === 'ship') return {code: 0}
        if (options.gate) {
          // Ready in two pieces, as a network may deliver it.
          options.onOutput?.(Buffer.from(`warming up\n${READY_MARKER.slice(0, 5)}`), 'stderr')
          options.onOutput?.(Buffer.from(`${READY_MARKER.slice(5)}\n`), 'stderr')
          if ((await options.gate) !== 'go') return {code: 143}
        }
        this.started.push(target.host)
        const behaviour = this.behave(target.host)
        if (behaviour === 'hang') {
          return new Promise((resolve) =>
            this.pending.set(target.host, {ended: false, stop: () => resolve({code: 143})}),
          )
        }
        if (behaviour === 'lost') throw new XpkError('unavailable', 'SSH exec failed: connection lost')
        if (behaviour === 'unreachable') throw new Error('never connected')
        if (behaviour === 'cut') {
          // The connection dies after a moment; the command goes on running on the worker until something stops it.
          this.pending.set(target.host, {ended: false, stop: () => this.pending.delete(target.host)})
          await new Promise((r) => setTimeout(r, 5))
          return {code: null, signal: 'connection lost'}
        }
        await new Promise((r) => setTimeout(r, behaviour.afterMs ?? 1))
        if (behaviour.output) options.onOutput?.(Buffer.from(behaviour.output), 'stdout')
        const exit: RemoteExit = behaviour.signal ? {code: null, signal: behaviour.signal} : {code: behaviour.code}
        if (behaviour.heldMs === undefined) return exit
        return new Promise((resolve) => {
          const timer = setTimeout(() => resolve(exit), behaviour.heldMs)
          this.pending.set(target.host, {ended: true, stop: () => (clearTimeout(timer), resolve(exit))})
        })
      },
      interactive: async () => {
        throw new Error('vm run opens no interactive shell')
      },
      close: () => void this.closed.push(target.host),
    }
  }
}

/** The default run-logs directory of these tests: under the run's temporary root, and never made (logs are kept in memory). */
const LOG_BASE = join(tmpdir(), 'xpk-vm-run-logs-never-made')

/** Run logs in memory; the default directory shows as /logs. */
class MemoryLogs implements RunLogs {
  readonly files = new Map<string, string>()
  async open(dir: string) {
    return dir.startsWith(`${LOG_BASE}/`) ? `/logs/${dir.slice(LOG_BASE.length + 1)}` : dir
  }
  writer(path: string) {
    return {
      write: (chunk: Buffer) => void this.files.set(path, (this.files.get(path) ?? '') + chunk.toString()),
      close: async () => {},
    }
  }
  async writeFile(path: string, text: string) {
    this.files.set(path, text)
  }
  async tail(path: string, lines: number) {
    return (this.files.get(path) ?? '').trimEnd().split('\n').slice(-lines)
  }
}

function setup(
  behave: (host: string) => Behaviour,
  options: {answer?: PromptAnswer; key?: boolean; env?: Record<string, string>} = {},
) {
  const listings = new Map<string, ScriptDirListing>()
  const tpu = new MemoryTpu()
  tpu.addNode('demo-0', 'v4-16')
  tpu.addNode('demo-1', 'v4-16')
  const workers = new FakeWorkers(behave)
  workers.tpuLog = tpu.log
  const logs = new MemoryLogs()
  const clock = {now: Date.now()}
  const console = new RecordingConsole(options.answer ?? 'unexpected')
  const output: string[] = []
  const created: string[] = []
  const keys: SshKeyStore = {
    privateKeyPath: KEY.privateKeyPath,
    read: async () => (options.key === false && created.length === 0 ? undefined : KEY),
    create: async (comment) => {
      created.push(comment)
      return KEY
    },
  }
  const controller = new AbortController()
  const deps: VmRunDeps = {
    tpu: async () => tpu,
    console,
    signal: controller.signal,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason)
        const timer = setTimeout(resolve, Math.min(ms, 5))
        signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), {once: true})
      }),
    random: () => 0.5,
    now: () => clock.now,
    keys,
    shell: async () => workers,
    list: async (dir) =>
      listings.get(dir) ?? {dir, entries: [{path: 'train.py', type: 'file', mode: 0o644, size: 900}]},
    pack: async () => ({tar: Buffer.alloc(1000), files: 3, bytes: 900}),
    logs,
    defaultLogDir: LOG_BASE,
    files: new NodeFiles(),
    cwd: '/work/cwd',
    env: options.env ?? {},
    output: (chunk) => output.push(chunk.toString()),
  }
  return {tpu, workers, logs, console, output, created, deps, controller, clock, listings}
}

const options = (extra: Partial<VmRunOptions> = {}): VmRunOptions => ({
  project: 'p',
  zone: 'us-central2-b',
  tpuPrefix: 'demo',
  command: 'python3 train.py',
  scriptDir: '/src',
  runName: 'r1',
  internalIp: false,
  useExistingFolder: false,
  sshUser: 'me',
  sshPort: 22,
  remoteDir: 'xpk-demo',
  timing,
  ...extra,
})

describe('vm run (in-process, in-memory TPU and workers)', () => {
  it('adds the key to each node, ships to all four workers before running anything, streams worker 0', async () => {
    const {tpu, workers, logs, output, deps, console} = setup((host) => ({code: 0, output: `hello from ${host}\n`}))
    const result = await runOnVms(options(), deps)
    expect(result.workers.map((w) => [w.slice, w.worker, w.exitCode, w.stopped])).toEqual([
      [0, 0, 0, false],
      [0, 1, 0, false],
      [1, 0, 0, false],
      [1, 1, 0, false],
    ])
    expect(tpu.nodes.get('demo-1')!.metadata['ssh-keys']).toBe('me:ssh-ed25519 AAAAkey me')
    const kinds = workers.scripts.map((s) => s.kind)
    expect(kinds.slice(0, 4)).toEqual(['ship', 'ship', 'ship', 'ship'])
    expect(kinds.slice(4)).toEqual(['run', 'run', 'run', 'run'])
    expect(workers.scripts[0].stdin).toBe(1000)
    expect(output.join('')).toBe(`warming up\nhello from ${result.workers[0].host}\n`)
    expect(logs.files.get('/logs/r1/slice-1-worker-1.log')).toBe(`warming up\nhello from ${result.workers[3].host}\n`)
    expect(workers.started).toHaveLength(4)
    expect(JSON.parse(logs.files.get('/logs/r1/summary.json')!).workers).toHaveLength(4)
    // Without a terminal, each progress state is printed once: the last copy count and the end of the run too,
    // though each came as progress and again as done.
    expect(console.printed('Copying')).toEqual([1, 2, 3, 4].map((n) => `copy  ${n}/4 workers`))
    const run = console.printed('Run r1')
    expect(run.at(-1)).toBe('r1  completed 4/4')
    expect(new Set(run).size).toBe(run.length)
  })

  it("stops the other workers when one fails and exits with that worker's code (3), naming it with its log", async () => {
    const {workers, deps, logs} = setup((host) =>
      host.endsWith('.1.3') ? {code: 3, output: 'Traceback\nboom\n'} : 'hang',
    )
    const error = await runOnVms(options({useExistingFolder: true}), deps).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WorkerFailure)
    // The stopped workers' 143 does not count: the code is the failed worker's own.
    expect(error).toMatchObject({kind: 'unsuccessful', exitCode: 3})
    const text = (error as Error).message
    expect(text).toContain('The command failed on slice 1 worker 1 with exit code 3.')
    expect(text).toContain('xpk stopped the other 3 workers.')
    expect(text).toContain('Last lines of /logs/r1/slice-1-worker-1.log:\n  | warming up\n  | Traceback\n  | boom')
    expect((error as XpkError).hints[0]).toContain("xpk exits with 3, the worker's own exit status")
    expect(workers.scripts.filter((s) => s.kind === 'kill')).toHaveLength(3)
    expect(workers.scripts.some((s) => s.kind === 'ship')).toBe(false)
    // --json prints the run with the error: per-worker codes, and which workers xpk stopped.
    const details = (error as WorkerFailure<VmRunResult>).details
    expect(details.workers.map((w) => [w.exitCode, w.stopped])).toEqual([
      [143, true],
      [143, true],
      [143, true],
      [3, false],
    ])
    expect(JSON.parse(logs.files.get('/logs/r1/summary.json')!).workers).toEqual(details.workers)
  })

  it('with two workers failing together, exits with the highest code and names that worker and the first to fail', async () => {
    // Slice 0 worker 1 fails first (2); slice 1 worker 0 has failed (7) by the time the stop reaches it, but a
    // leftover process holds its channel open, so xpk hears of it only from the stop.
    const {workers, deps} = setup((host) =>
      host.endsWith('.0.3')
        ? {code: 2, output: 'first failure\n', afterMs: 5}
        : host.endsWith('.1.2')
          ? {code: 7, output: 'worst failure\n', afterMs: 1, heldMs: 60_000}
          : 'hang',
    )
    const error = await runOnVms(options({useExistingFolder: true}), deps).catch((e: unknown) => e)
    expect(error).toMatchObject({exitCode: 7})
    const text = (error as Error).message
    expect(text).toContain(
      'The command failed on slice 1 worker 0 with exit code 7, the highest of 2 failed workers (the first failure xpk saw: slice 0 worker 1, exit code 2). xpk stopped the other 2 workers.',
    )
    expect(text).toContain('slice-1-worker-0.log:\n  | warming up\n  | worst failure\n')
    expect(text).toMatch(/slice-0-worker-1.log:\n {2}\| warming up\n {2}\| first failure$/)
    expect(workers.scripts.filter((s) => s.kind === 'kill')).toHaveLength(3)
  })

  it.each([
    ['killed by a signal', {code: null, signal: 'SIGKILL'} as const, 137, 'exit code 137 (SIGKILL)'],
    ['whose command a signal killed (its shell says 128+N)', {code: 139}, 139, 'exit code 139 (SIGSEGV)'],
    ['whose connection was lost', 'lost' as const, 255, 'a lost connection'],
  ])('a worker %s counts as its shell status', async (_, behaviour, status, described) => {
    const {deps} = setup((host) => (host.endsWith('.0.2') ? behaviour : 'hang'))
    const error = await runOnVms(options({useExistingFolder: true}), deps).catch((e: unknown) => e)
    expect(error).toMatchObject({exitCode: status})
    expect((error as Error).message).toContain(`The command failed on slice 0 worker 0 with ${described}.`)
    const [first] = (error as WorkerFailure<VmRunResult>).details.workers
    expect(first.exitCode).toBe(behaviour === 'lost' ? null : status)
  })

  it("a worker whose connection is lost mid-run is 255, and its command is stopped through a new connection, as the others'", async () => {
    const {workers, deps, console} = setup((host) => (host.endsWith('.1.2') ? 'cut' : 'hang'))
    const error = await runOnVms(options({useExistingFolder: true}), deps).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WorkerFailure)
    expect(error).toMatchObject({exitCode: 255})
    expect((error as Error).message).toContain('The command failed on slice 1 worker 0 with a lost connection.')
    const cut = (error as WorkerFailure<VmRunResult>).details.workers.find((w) => w.slice === 1 && w.worker === 0)!
    expect([cut.exitCode, cut.stopped]).toEqual([null, false])
    // Its command was stopped on a connection of its own, opened after the one that was lost.
    const host = cut.host
    expect(workers.connects.filter((c) => c.host === host)).toHaveLength(2)
    expect(workers.scripts.filter((s) => s.kind === 'kill').map((s) => s.host)).toContain(host)
    expect(workers.pending.has(host)).toBe(false)
    expect(console.boards.flatMap((b) => b.notes).map((n) => n.code)).toContain('vm.run.lost')
    // Every worker's command is stopped: the three others through their own connections.
    expect(workers.scripts.filter((s) => s.kind === 'kill')).toHaveLength(4)
  })

  it('a worker that cannot be reached over SSH (no banner, dropped) is exit 255 with a message, after the retries', async () => {
    const {workers, deps, clock} = setup((host) => (host.endsWith('.1.3') ? 'unreachable' : {code: 0}))
    // Time passes while xpk waits between attempts (past the wait for a freshly added key to reach the VMs).
    const sleep = deps.sleep
    const run = runOnVms(options({useExistingFolder: true}), {
      ...deps,
      sleep: (ms, signal) => ((clock.now += ms), sleep(ms, signal)),
    })
    const error = await run.catch((e: unknown) => e)
    expect(error).toMatchObject({kind: 'unavailable', exitCode: 255})
    expect((error as Error).message).toMatch(/^Slice 1 worker 1 \(demo-1\): Could not connect to .*handshake/)
    expect(workers.connects.filter((c) => c.host.endsWith('.1.3')).length).toBeGreaterThanOrEqual(timing.retry.attempts)
    // No command started anywhere.
    expect(workers.started).toEqual([])
  })

  it('on abort (Ctrl-C) kills every running worker and rethrows the reason', async () => {
    const {workers, deps, controller} = setup(() => 'hang')
    const interrupted = new XpkError('interrupted', 'Interrupted.')
    const running = runOnVms(options({useExistingFolder: true}), deps)
    while (workers.scripts.filter((s) => s.kind === 'run').length < 4) await new Promise((r) => setTimeout(r, 1))
    controller.abort(interrupted)
    await expect(running).rejects.toBe(interrupted)
    expect(workers.scripts.filter((s) => s.kind === 'kill').map((s) => s.host)).toHaveLength(4)
  })

  it('asks before creating a key; "no" stops before any request', async () => {
    const no = setup(() => ({code: 0}), {answer: 'no', key: false})
    await expect(runOnVms(options(), no.deps)).rejects.toMatchObject({kind: 'declined'})
    expect(no.tpu.log).toEqual([])
    const yes = setup(() => ({code: 0}), {answer: 'yes', key: false})
    await runOnVms(options(), yes.deps)
    expect(yes.created).toEqual(['xpk'])
  })

  it.each(['no-terminal', 'quiet'] as const)(
    "creates the key with nobody to ask (%s): the host answers the question's default, yes",
    async (answer) => {
      const {deps, created, console} = setup(() => ({code: 0}), {answer, key: false})
      await runOnVms(options(), deps)
      expect(console.questions.map((q) => [q.code, q.default])).toEqual([['vm.run.confirm-create-key', true]])
      expect(created).toEqual(['xpk'])
    },
  )

  it('retries refused connections while a freshly added key propagates', async () => {
    const {workers, deps, tpu} = setup(() => ({code: 0}))
    const host = tpu.nodes.get('demo-0')!.workers[0].internalIp
    workers.refusals.set(host, 4)
    const result = await runOnVms(options(), deps)
    expect(result.workers.every((w) => w.exitCode === 0)).toBe(true)
    expect(workers.refusals.get(host)).toBe(0)
  })

  describe('SSH connections go through the one retry policy', () => {
    /** A run whose sleeps move its clock on and are recorded. */
    function timed(refusals: number, keyOnNodes: boolean) {
      const run = setup(() => ({code: 0}))
      const {workers, deps, tpu, clock} = run
      if (keyOnNodes) {
        for (const id of ['demo-0', 'demo-1']) {
          const node = tpu.nodes.get(id)!
          tpu.nodes.set(id, {...node, metadata: {'ssh-keys': 'me:ssh-ed25519 AAAAkey me'}})
        }
      }
      const host = tpu.nodes.get('demo-0')!.workers[0].internalIp
      workers.refusals.set(host, refusals)
      const sleeps: number[] = []
      const sleep = deps.sleep
      const done = runOnVms(options(), {
        ...deps,
        sleep: (ms, signal) => (sleeps.push(ms), (clock.now += ms), sleep(ms, signal)),
      })
      return {...run, host, sleeps, done}
    }

    it('while a freshly added key propagates: past the attempts, with the jittered backoff, until it is there', async () => {
      const {done, sleeps, workers, host} = timed(5, false)
      await done
      // Backoff 10 ms doubling to 100, jitter 0.5: three quarters of each ceiling (the last one capped).
      expect(sleeps).toEqual([8, 15, 30, 60, 75])
      expect(workers.connects.filter((c) => c.host === host)).toHaveLength(6)
    })

    it('with the key there before the run: the policy’s attempts, then the refusal is the error', async () => {
      const {done, sleeps, workers, host} = timed(5, true)
      await expect(done).rejects.toMatchObject({kind: 'auth', message: expect.stringContaining('refused the key')})
      expect(sleeps).toEqual([8, 15])
      expect(workers.connects.filter((c) => c.host === host)).toHaveLength(timing.retry.attempts)
    })

    it('no longer than the key takes to propagate, however many refusals', async () => {
      const {done, sleeps, clock} = timed(1000, false)
      const start = clock.now
      await expect(done).rejects.toMatchObject({kind: 'auth'})
      const waited = sleeps.reduce((a, b) => a + b, 0)
      expect(waited).toBeGreaterThanOrEqual(timing.ssh.keyPropagationMs)
      expect(waited).toBeLessThan(timing.ssh.keyPropagationMs + timing.retry.backoff.maxMs)
      expect(clock.now - start).toBe(waited)
    })

    it('Ctrl-C while waiting to connect again ends the run at once with its reason', async () => {
      const {done, sleeps, controller, workers} = timed(1000, false)
      while (sleeps.length < 2) await new Promise((resolve) => setTimeout(resolve, 1))
      const interrupted = new XpkError('interrupted', 'Interrupted.')
      controller.abort(interrupted)
      await expect(done).rejects.toBe(interrupted)
      const connects = workers.connects.length
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(workers.connects).toHaveLength(connects)
      expect(workers.started).toEqual([])
    })
  })

  it('does not touch metadata that already has the key, and rejects bad input before any request', async () => {
    const {tpu, deps} = setup(() => ({code: 0}))
    for (const id of ['demo-0', 'demo-1']) {
      const node = tpu.nodes.get(id)!
      tpu.nodes.set(id, {...node, metadata: {'ssh-keys': 'me:ssh-ed25519 AAAAkey other-comment'}})
    }
    await runOnVms(options(), deps)
    expect(tpu.log).not.toContain('setNodeMetadata')
    const bad = setup(() => ({code: 0}))
    await expect(runOnVms(options({command: ' ', runName: '../x'}), bad.deps)).rejects.toMatchObject({
      problems: [{flag: '--command'}, {flag: '--run-name'}],
    })
    expect(bad.tpu.log).toEqual([])
  })
})

describe('vm run interrupted while copying', () => {
  it('closes the connections, never starts the command and rethrows the reason', async () => {
    const {workers, deps, controller} = setup(() => ({code: 0}))
    const interrupted = new XpkError('interrupted', 'Interrupted.')
    const closed: string[] = []
    const slowShip: RemoteShell = {
      connect: async (target) => {
        const session = await workers.connect(target)
        return {
          exec: (script, opts) =>
            script.includes('tar -xf')
              ? new Promise<RemoteExit>(() => controller.abort(interrupted))
              : session.exec(script, opts),
          interactive: (io) => session.interactive(io),
          close: () => void closed.push(target.host),
        }
      },
    }
    await expect(runOnVms(options(), {...deps, shell: async () => slowShip})).rejects.toBe(interrupted)
    expect(workers.scripts.filter((s) => s.kind === 'run')).toEqual([])
    expect(closed.length).toBeGreaterThanOrEqual(4)
  })
})

describe('vm run start gate', () => {
  it('starts no command when a worker fails before every worker is ready', async () => {
    const {workers, deps} = setup(() => ({code: 0}))
    const failing: RemoteShell = {
      connect: async (target) => {
        const session = await workers.connect(target)
        const first = target.host
        return {
          ...session,
          exec: (script, opts) =>
            first.endsWith('.0.2') && !script.startsWith('f=') && !script.includes('tar -xf')
              ? Promise.resolve({code: 127})
              : session.exec(script, opts),
        }
      },
    }
    const error = await runOnVms(options({useExistingFolder: true}), {...deps, shell: async () => failing}).catch(
      (e: unknown) => e,
    )
    expect(error).toMatchObject({
      kind: 'unsuccessful',
      exitCode: 127,
      message: expect.stringContaining('exit code 127'),
    })
    expect(workers.started).toEqual([])
  })
})

describe('vm run re-runs', () => {
  const rerun = options({useExistingFolder: true, runName: 'r2'})

  it('ask the TPU API for the workers every time, and connect once it has answered', async () => {
    const {tpu, workers, console, deps} = setup(() => ({code: 0}))
    await runOnVms(options(), deps)
    workers.connects.length = 0
    const result = await runOnVms(rerun, deps)
    expect(result.workers.map((w) => w.exitCode)).toEqual([0, 0, 0, 0])
    expect(tpu.log.filter((c) => c === 'listNodes')).toHaveLength(2)
    expect(workers.connects.map((c) => c.listingsBefore)).toEqual([2, 2, 2, 2])
    expect(console.messages.filter((m) => m.code === 'vm.run.starting').map((m) => m.text)).toEqual([
      'Running on 4 workers of 2 slices after copying 3 files (1.0 kB) to each: python3 train.py',
      'Running on 4 workers of 2 slices in the existing folder: python3 train.py',
    ])
  })

  it('connect to a node the listing shows replaced under its new identity', async () => {
    const {tpu, workers, deps} = setup(() => ({code: 0}))
    await runOnVms(options(), deps)
    // demo-1 was deleted and created again: same addresses, a new unique id.
    tpu.nodes.set('demo-1', {...tpu.nodes.get('demo-1')!, uid: '42'})
    workers.connects.length = 0
    await runOnVms(rerun, deps)
    expect(workers.connects.filter((c) => c.identity.startsWith('demo-1/')).map((c) => c.identity)).toEqual([
      'demo-1/42/0',
      'demo-1/42/1',
    ])
  })
})

// Issue 17: every input of `vm run` is read and checked before any request: nothing reaches the TPU API (not even a
// listing), no key is created, no worker is connected to when one of them is refused.
describe('vm run checks every input before any request', () => {
  const bulky = (dir: string, entries: ScriptDirEntries['entries']): ScriptDirListing => ({dir, entries})
  const file = (path: string, size = 10) => ({path, type: 'file' as const, mode: 0o644, size})
  const folder = (path: string) => ({path, type: 'directory' as const, mode: 0o755, size: 0})
  const refused: {
    case: string
    options?: Partial<VmRunOptions>
    env?: Record<string, string>
    listing?: ScriptDirListing
    keys?: () => Promise<SshKeyPair | undefined>
    answer?: PromptAnswer
    flag?: string
    message: RegExp
  }[] = [
    {
      case: 'a user with a semicolon',
      options: {sshUser: 'root;id'},
      flag: '--ssh-user',
      message: /"root;id" is not a user name/,
    },
    {
      case: 'a user that is an ssh option',
      options: {sshUser: '-oProxyCommand=id'},
      flag: '--ssh-user',
      message: /not a user name/,
    },
    {
      case: 'a user with a newline',
      options: {sshUser: 'me\nroot:ssh-rsa AAAA x'},
      flag: '--ssh-user',
      message: /"me\\nroot/,
    },
    {case: 'a user with a colon', options: {sshUser: 'me:x'}, flag: '--ssh-user', message: /not a user name/},
    {case: 'an upper-case user', options: {sshUser: 'Me'}, flag: '--ssh-user', message: /not a user name/},
    {case: 'a user of 33 characters', options: {sshUser: 'a'.repeat(33)}, flag: '--ssh-user', message: /at most 32/},
    {
      case: 'a bad $USER, named as the default',
      options: {sshUser: 'John Doe', sshUserSource: '--ssh-user (default: $USER)'},
      flag: '--ssh-user',
      message: /^--ssh-user \(default: \$USER\) "John Doe"/,
    },
    {
      case: 'a missing --log-dir',
      options: {logDir: '/nonexistent/xpk-logs'},
      flag: '--log-dir',
      message: /no such directory/,
    },
    {
      case: 'a --log-dir that is a file',
      options: {logDir: '/etc/hostname'},
      flag: '--log-dir',
      message: /is not a directory/,
    },
    {
      case: 'a missing --script-dir',
      listing: {dir: '/src', missing: 'absent'},
      flag: '--script-dir',
      message: /--script-dir \/src: no such directory/,
    },
    {
      case: 'a --script-dir that is a file',
      listing: {dir: '/src', missing: 'not-a-directory'},
      flag: '--script-dir',
      message: /--script-dir \/src is not a directory/,
    },
    {
      case: 'an unreadable --script-dir',
      keys: undefined,
      listing: undefined,
      options: {scriptDir: '/unreadable'},
      flag: '--script-dir',
      message: /--script-dir \/unreadable: EACCES/,
    },
    {
      case: 'a key path that is a directory',
      keys: () =>
        Promise.reject(
          new UsageError(
            'The SSH key /home/me/.ssh/google_compute_engine cannot be used: it is a directory, not a key file.',
          ),
        ),
      message: /it is a directory/,
    },
    {
      case: 'a bad XPK_SCRIPT_DIR_MAX_MB',
      env: {XPK_SCRIPT_DIR_MAX_MB: 'lots'},
      message: /XPK_SCRIPT_DIR_MAX_MB: "lots" is not a whole number/,
    },
    {
      case: 'a script directory with node_modules, nobody to ask',
      listing: bulky('/src', [folder('node_modules'), file('node_modules/x.js')]),
      answer: 'no-terminal',
      flag: '--force',
      message: /contains node_modules; all of it would be copied to every worker/,
    },
    {
      case: 'a script directory over the size limit, --quiet',
      listing: bulky('/src', [file('data.bin', 2_000_000)]),
      env: {XPK_SCRIPT_DIR_MAX_MB: '1'},
      answer: 'quiet',
      flag: '--force',
      message: /holds 2\.0 MB, more than the 1\.0 MB limit/,
    },
  ]

  it.each(refused)('refuses $case as a usage error, with no request', async (c) => {
    const {tpu, workers, deps, created, listings, console} = setup(() => ({code: 0}), {
      answer: c.answer,
      env: c.env,
    })
    if (c.listing) listings.set('/src', c.listing)
    const run = {
      ...deps,
      keys: c.keys ? {...deps.keys, read: c.keys} : deps.keys,
      list:
        c.options?.scriptDir === '/unreadable'
          ? () =>
              Promise.reject(
                new UsageError('--script-dir /unreadable: EACCES: permission denied.', {flag: '--script-dir'}),
              )
          : deps.list,
    }
    const error = await runOnVms(options(c.options), run).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    const problems = error instanceof UsageErrors ? error.problems : [error as UsageError]
    expect(problems.some((p) => p.message.match(c.message) && (c.flag === undefined || p.flag === c.flag))).toBe(true)
    expect((error as UsageError).exitCode).toBe(2)
    expect(tpu.log).toEqual([])
    expect(workers.connects).toEqual([])
    expect(created).toEqual([])
    if (c.answer === undefined) expect(console.questions).toEqual([])
  })

  it('reports every problem at once', async () => {
    const {deps, listings, tpu} = setup(() => ({code: 0}))
    listings.set('/src', {dir: '/src', missing: 'absent'})
    const error = await runOnVms(options({sshUser: 'root;id', logDir: '/nonexistent/xpk-logs'}), deps).catch(
      (e: unknown) => e,
    )
    expect((error as UsageErrors).problems.map((p) => p.flag)).toEqual(['--ssh-user', '--log-dir', '--script-dir'])
    expect(tpu.log).toEqual([])
  })

  it('without --script-dir, says it copies the current directory, and asks first when it holds .git (yes goes on)', async () => {
    const {deps, listings, console, workers} = setup(() => ({code: 0}), {answer: 'yes'})
    listings.set('/work/cwd', bulky('/work/cwd', [folder('.git'), file('.git/HEAD'), file('train.py')]))
    await runOnVms(options({scriptDir: undefined}), deps)
    expect(console.the('vm.run.default-script-dir').text).toBe(
      'Packing the current directory /work/cwd (no --script-dir given): 2 files, 20 bytes after .dockerignore and .xpkignore.',
    )
    expect(console.questions.map((q) => q.code)).toEqual(['vm.run.confirm-large-script-dir'])
    expect(console.questions[0].text).toContain('The script directory /work/cwd contains .git')
    expect(workers.scripts.filter((s) => s.kind === 'ship')).toHaveLength(4)
  })

  it('a "no" copies nothing and sends nothing (exit 1)', async () => {
    const {deps, listings, tpu} = setup(() => ({code: 0}), {answer: 'no'})
    listings.set('/src', bulky('/src', [folder('node_modules')]))
    const error = await runOnVms(options(), deps).catch((e: unknown) => e)
    expect(error).toMatchObject({kind: 'declined', message: 'Nothing was copied or run.'})
    expect(tpu.log).toEqual([])
  })

  it('--use-existing-folder lists no directory and asks nothing', async () => {
    const {deps, listings, console} = setup(() => ({code: 0}))
    listings.set('/work/cwd', bulky('/work/cwd', [folder('node_modules')]))
    await runOnVms(options({scriptDir: undefined, useExistingFolder: true}), deps)
    expect(console.questions).toEqual([])
    expect(console.codes()).not.toContain('vm.run.default-script-dir')
  })
})

describe('vm run --dry-run', () => {
  const mutations = (tpu: MemoryTpu) => tpu.log.filter((m) => !/^(get|list)/.test(m))

  it('shows the key, the metadata to update, the copy and each worker with its environment; changes nothing', async () => {
    const {tpu, workers, deps, console, created} = setup(() => ({code: 0}), {key: false})
    let shellLoaded = false
    const result = await runOnVms(options({dryRun: true}), {
      ...deps,
      shell: async () => ((shellLoaded = true), workers),
    })
    expect(shellLoaded).toBe(false)
    expect(created).toEqual([])
    expect(mutations(tpu)).toEqual([])
    expect(workers.scripts).toEqual([])
    expect(console.questions).toEqual([])
    expect(result).toMatchObject({runName: 'r1', workers: [], shipped: null})
    const steps = result.plan!.steps
    expect(steps.map((s) => `${s.action} ${s.resource} ${s.name}`)).toEqual([
      'create sshKey /home/me/.ssh/google_compute_engine',
      'update node demo-0',
      'update node demo-1',
      'copy scriptDir /src',
      'run worker slice 0 worker 0',
      'run worker slice 0 worker 1',
      'run worker slice 1 worker 0',
      'run worker slice 1 worker 1',
    ])
    const last = steps.at(-1)!
    expect(last.spec).toMatchObject({
      slice: 1,
      worker: 1,
      node: 'demo-1',
      port: 22,
      user: 'me',
      env: {MEGASCALE_NUM_SLICES: '2', MEGASCALE_SLICE_ID: '1', XPK_WORKER_ID: '1', XPK_RUN_NAME: 'r1'},
    })
    expect(console.results[0]).toMatch(/^Plan for run r1 on demo:\n/)
    expect(console.results[0]).toMatch(/\nSummary: 1 to copy, 1 to create, 2 to update, 4 to run, 0 unchanged\.$/)
    expect(console.codes()).toEqual(['vm.run.dry-run'])
  })

  it('with the key on the nodes and --use-existing-folder: nothing to add, nothing copied', async () => {
    const {tpu, deps} = setup(() => ({code: 0}))
    await runOnVms(options({useExistingFolder: true}), deps)
    const before = mutations(tpu).length
    const result = await runOnVms(options({useExistingFolder: true, dryRun: true}), deps)
    expect(result.plan!.steps.filter((s) => s.action !== 'run').map((s) => s.action)).toEqual([
      'none',
      'none',
      'none',
      'none',
    ])
    expect(mutations(tpu)).toHaveLength(before)
  })
})
