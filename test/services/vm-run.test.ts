import {describe, expect, it} from 'vitest'

import {XpkError} from '../../src/core/errors.js'
import type {
  RemoteExit,
  RemoteSession,
  RemoteShell,
  RunLogs,
  SshKeyPair,
  SshKeyStore,
  SshTarget,
} from '../../src/ports/remote-shell.js'
import {READY_MARKER} from '../../src/core/vm/remote-scripts.js'
import type {VmTiming} from '../../src/services/vm-common.js'
import {runOnVms, type VmRunDeps, type VmRunOptions} from '../../src/services/vm-run.js'
import {MemoryTpu} from '../fakes/memory-tpu.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'

const timing: VmTiming = {
  poll: {initialMs: 10, maxMs: 100, factor: 2},
  retry: {initialMs: 10, maxMs: 100, factor: 2},
  attempts: 3,
}
const KEY: SshKeyPair = {privateKeyPath: '/home/me/.ssh/google_compute_engine', publicKey: 'ssh-ed25519 AAAAkey me'}

/** What a simulated worker does with the command: exit with a code, or run until killed. */
type Behaviour = {code: number; output?: string} | 'hang'

/** In-memory workers: records every script, answers ship and kill scripts, runs commands per `behave`. */
class FakeWorkers implements RemoteShell {
  readonly scripts: {host: string; kind: 'ship' | 'run' | 'kill'; stdin?: number}[] = []
  readonly refusals = new Map<string, number>()
  readonly started: string[] = []
  private readonly pending = new Map<string, (exit: RemoteExit) => void>()
  constructor(private readonly behave: (host: string) => Behaviour) {}

  async connect(target: SshTarget): Promise<RemoteSession> {
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
          this.pending.get(target.host)?.({code: 143})
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
        if (behaviour === 'hang') return new Promise((resolve) => this.pending.set(target.host, resolve))
        await new Promise((r) => setTimeout(r, 1))
        if (behaviour.output) options.onOutput?.(Buffer.from(behaviour.output), 'stdout')
        return {code: behaviour.code}
      },
      close: () => {},
    }
  }
}

class MemoryLogs implements RunLogs {
  readonly files = new Map<string, string>()
  async open(runName: string) {
    return `/logs/${runName}`
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

function setup(behave: (host: string) => Behaviour, options: {answer?: PromptAnswer; key?: boolean} = {}) {
  const tpu = new MemoryTpu()
  tpu.addNode('demo-0', 'v4-16')
  tpu.addNode('demo-1', 'v4-16')
  const workers = new FakeWorkers(behave)
  const logs = new MemoryLogs()
  const console = new RecordingConsole(options.answer ?? 'unexpected')
  const output: string[] = []
  const created: string[] = []
  const keys: SshKeyStore = {
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
    now: Date.now,
    keys,
    shell: async () => workers,
    pack: async () => ({tar: Buffer.alloc(1000), files: 3, bytes: 900}),
    logs,
    output: (chunk) => output.push(chunk.toString()),
  }
  return {tpu, workers, logs, console, output, created, deps, controller}
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
  keyPropagationMs: 1000,
  ...extra,
})

describe('vm run (in-process, in-memory TPU and workers)', () => {
  it('adds the key to each node, ships to all four workers before running anything, streams worker 0', async () => {
    const {tpu, workers, logs, output, deps} = setup((host) => ({code: 0, output: `hello from ${host}\n`}))
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
  })

  it('stops the other workers when one fails and reports it with its log (exit 125)', async () => {
    const {workers, deps} = setup((host) => (host.endsWith('.1.3') ? {code: 3, output: 'Traceback\nboom\n'} : 'hang'))
    const error = await runOnVms(options({useExistingFolder: true}), deps).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect(error).toMatchObject({kind: 'unsuccessful', exitCode: 125})
    expect((error as Error).message).toContain('The command failed on slice 1 worker 1 with exit code 3')
    expect((error as Error).message).toContain('highest exit code of the failed workers: 3')
    expect((error as Error).message).toContain('  | boom')
    expect(workers.scripts.filter((s) => s.kind === 'kill')).toHaveLength(3)
    expect(workers.scripts.some((s) => s.kind === 'ship')).toBe(false)
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
    expect(error).toMatchObject({kind: 'unsuccessful', message: expect.stringContaining('exit code 127')})
    expect(workers.started).toEqual([])
  })
})
