// Deadlines and signals as a user meets them, against a server that accepts connections and never answers (GKE, the
// Kubernetes API and the Cloud TPU API all pointed at it), so every command hangs in its first read:
// - every time limit of a command bounds the whole command, first reads included: exit 124 at the limit;
// - Ctrl-C, SIGTERM and SIGHUP end any long-running command with exit 130 and one line, at any moment: right after
//   the process starts, as soon as xpk's handlers are in (while the CLI loads), and in the middle of a read.
// Both tables are held to the command definitions (src/index.ts COMMANDS): a new flag that waits fails the
// coverage test until it has a row.
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer, type AddressInfo, type Server, type Socket} from 'node:net'
import {join} from 'node:path'

import {dump} from 'js-yaml'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {COMMANDS} from '../../src/index.js'
import {isolatedEnv, startCli, type CliResult} from '../helpers/cli.js'
import {tempDir} from '../helpers/temp.js'

type CommandId = keyof typeof COMMANDS

/** A server that accepts connections and never answers, counting them. */
interface Silent {
  readonly port: number
  readonly accepted: () => number
  close(): Promise<void>
}

async function startSilent(): Promise<Silent> {
  const sockets = new Set<Socket>()
  let accepted = 0
  const server: Server = createServer((socket) => {
    accepted++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

let silent: Silent
let kubeconfig: string
/** The state directory holding a running TPU VM job without a supervisor, whose logs `vm job logs --follow` follows. */
let jobState: string

beforeAll(async () => {
  silent = await startSilent()
  jobState = tempDir('xpk-silent-jobs-')
  const jobDir = join(jobState, 'xpk', 'vm-jobs', '000001')
  mkdirSync(join(jobDir, 'logs'), {recursive: true})
  writeFileSync(
    join(jobDir, 'job.json'),
    JSON.stringify({
      id: '000001',
      spec: {
        name: 'j',
        project: 'p',
        tpu: {name: 'j', zone: 'us-central2-b', accelerator: 'v4-8'},
        command: {run: 'true', workers: 'all'},
      },
      access: {sshUser: 'me', sshPort: 22, internalIp: false, pollMs: 5000},
      status: 'RUNNING',
      createdAt: 0,
      updatedAt: 0,
      recoveries: 0,
      attempt: 1,
    }),
  )
  kubeconfig = join(tempDir('xpk-silent-kube-'), 'config')
  writeFileSync(
    kubeconfig,
    dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'silent', cluster: {server: `https://127.0.0.1:${silent.port}`}}],
      users: [{name: 'me', user: {token: 'token'}}],
      contexts: [{name: 'silent', context: {cluster: 'silent', user: 'me'}}],
      'current-context': 'silent',
    }),
  )
})
afterAll(async () => {
  await silent?.close()
})

/** Every API pointed at a silent server. */
const env = (extra: Record<string, string> = {}, port = silent.port) =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://127.0.0.1:${port}`,
    XPK_COMPUTE_ENDPOINT: `http://127.0.0.1:${port}`,
    XPK_TPU_ENDPOINT: `http://127.0.0.1:${port}`,
    XPK_STORAGE_ENDPOINT: `http://127.0.0.1:${port}`,
    XPK_ACCESS_TOKEN: 'token',
    ...extra,
  })
const target = ['--project', 'my-project', '--zone', 'us-central2-b']

/**
 * Flags that make a command wait, or say for how long, by name: a new one (say `--wait-until`) must get a row in
 * {@link WAITS}.
 */
const WAIT_FLAG = /wait|timeout|async|follow|replace|until|deadline/

/**
 * Every command that waits, and what bounds it. `limit`: the command's time limit and how a test sets it to 3 s;
 * the row's `args` then run against the silent server. Without one, the command waits until what it waits for
 * happens or Ctrl-C; each request then has its own time limit and retries (60 s per request, six attempts).
 */
const WAITS: ReadonlyArray<{
  readonly id: CommandId
  /** The flags of the row: every flag of the command that matches WAIT_FLAG is in one row. */
  readonly flags: readonly string[]
  readonly args: readonly string[]
  readonly limit?: {readonly how: string; readonly env?: Record<string, string>}
  /** Waits on local files only: no --project/--zone, no first read of an API, the job records in `jobState`. */
  readonly local?: true
}> = [
  {
    id: 'workload:list',
    flags: ['wait-for-job-completion', 'timeout'],
    args: ['workload', 'list', '--cluster', 'demo', '--wait-for-job-completion', 'run-1', '--timeout', '3'],
    limit: {how: '--timeout 3'},
  },
  {
    id: 'workload:delete',
    flags: ['wait'],
    args: ['workload', 'delete', '--cluster', 'demo', '--workload', 'run-1', '--wait'],
    limit: {how: 'XPK_WORKLOAD_DELETE_TIMEOUT_S=3', env: {XPK_WORKLOAD_DELETE_TIMEOUT_S: '3'}},
  },
  {
    id: 'cluster:cacheimage',
    flags: [],
    args: ['cluster', 'cacheimage', '--cluster', 'demo', '--tpu-type', 'v5p-8', '--docker-image', 'python:3.12'],
    limit: {how: 'XPK_CACHE_IMAGE_TIMEOUT_S=3', env: {XPK_CACHE_IMAGE_TIMEOUT_S: '3'}},
  },
  // The wait for the replaced workload to go has XPK_WORKLOAD_DELETE_TIMEOUT_S, its reads included (in process:
  // test/services/workload-create.test.ts); the command itself has no time limit.
  {
    id: 'workload:create',
    flags: ['replace'],
    args: [
      ...['workload', 'create', '--cluster', 'demo', '--workload', 'run-1', '--tpu-type', 'v5p-8'],
      ...['--docker-image', 'python:3.12', '--command', 'true', '--replace'],
    ],
  },
  {
    id: 'workload:create-pathways',
    flags: ['replace'],
    args: [
      ...['workload', 'create-pathways', '--cluster', 'demo', '--workload', 'run-1', '--tpu-type', 'v5p-8'],
      ...['--headless', '--replace'],
    ],
  },
  {id: 'workload:logs', flags: ['follow'], args: ['workload', 'logs', 'run-1', '--cluster', 'demo', '--follow']},
  {id: 'vm:create', flags: ['async'], args: ['vm', 'create', '--tpu-prefix', 'demo', '--tpu-type', 'v4-8']},
  {id: 'vm:delete', flags: ['async'], args: ['vm', 'delete', '--tpu-prefix', 'demo', '--force']},
  {
    id: 'vm:job:create',
    flags: ['wait', 'timeout'],
    args: [
      ...['vm', 'job', 'create', '--detach', '--bucket', 'runs', '--tpu-type', 'v4-8', '--command', 'true'],
      ...['--wait', '--timeout', '3'],
    ],
    limit: {how: '--timeout 3'},
  },
  // Follows a job's log on this machine until the job ends (or Ctrl-C); it reads no API.
  {id: 'vm:job:logs', flags: ['follow'], args: ['vm', 'job', 'logs', '1', '--follow'], local: true},
  {id: 'vm:run', flags: [], args: ['vm', 'run', '--tpu-prefix', 'demo', '--command', 'true', '--use-existing-folder']},
  {
    id: 'cluster:create',
    flags: [],
    args: ['cluster', 'create', '--cluster', 'demo', '--tpu-type', 'v5litepod-16', '--spot', '--force'],
  },
  {id: 'cluster:delete', flags: [], args: ['cluster', 'delete', '--cluster', 'demo', '--force']},
]

const run = (args: readonly string[], extra: Record<string, string> = {}, port = silent.port, local = false) =>
  local
    ? startCli(args, {env: env({XDG_STATE_HOME: jobState, ...extra}, port), timeoutMs: 60_000})
    : startCli([...args, ...target], {env: env(extra, port), timeoutMs: 60_000})

describe('the tables cover the command definitions', () => {
  it('every flag that makes a command wait has a row, and every row names real flags', () => {
    const waitFlags = Object.entries(COMMANDS).flatMap(([id, command]) =>
      Object.keys((command as unknown as {flags?: Record<string, unknown>}).flags ?? {})
        .filter((name) => WAIT_FLAG.test(name))
        .map((name) => `${id} --${name}`),
    )
    const rows = WAITS.flatMap((row) => row.flags.map((name) => `${row.id} --${name}`))
    expect(rows.sort()).toEqual(waitFlags.sort())
    expect(waitFlags.length).toBeGreaterThanOrEqual(7)
  })
})

describe('a time limit bounds the whole command, its first reads included: exit 124 at the limit', () => {
  const limited = WAITS.filter((row) => row.limit !== undefined)
  it.each(limited.map((row) => [`${row.id} (${row.limit!.how})`, row] as const))('%s', async (_, row) => {
    const before = silent.accepted()
    const started = Date.now()
    const result = await run(row.args, row.limit!.env).done
    const seconds = (Date.now() - started) / 1000
    expect(result.code, result.stderr).toBe(124)
    expect(silent.accepted()).toBeGreaterThan(before)
    // At the limit: not before it, and not a retry's worth of minutes after.
    expect(seconds).toBeGreaterThanOrEqual(3)
    expect(seconds).toBeLessThan(10)
    expect(result.stderr.split('\n').filter((line) => line.startsWith('Error: '))).toHaveLength(1)
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  it('--wait-for-job-completion --timeout 3 through a kubeconfig whose API server never answers (TLS never starts)', async () => {
    const started = Date.now()
    const result = await startCli(
      ['workload', 'list', '--kubeconfig', kubeconfig, '--wait-for-job-completion', 'run-1', '--timeout', '3'],
      {env: env(), timeoutMs: 60_000},
    ).done
    expect(result.code, result.stderr).toBe(124)
    expect((Date.now() - started) / 1000).toBeLessThan(10)
    expect(result.stderr).toMatch(/^Error: Workload run-1 did not finish within 3 s/m)
  })
})

/** Whether the process has xpk's signal handlers in: SIGHUP caught (Node catches SIGINT and SIGTERM itself). */
function handlersIn(pid: number): boolean {
  try {
    const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return caught !== undefined && (BigInt(`0x${caught}`) & 1n) === 1n
  } catch {
    return false
  }
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (!condition()) {
    if (Date.now() > end) return false
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  return true
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
const said = (signal: (typeof SIGNALS)[number]) => (signal === 'SIGINT' ? 'Interrupted.' : `Stopped by ${signal}.`)

/**
 * When the signal comes: right at spawn (Node may not have started running xpk yet), as soon as xpk's handlers
 * are in (the CLI is still loading), and during the first read (the silent server has the connection).
 */
const MOMENTS = ['at spawn', 'as the handlers are in', 'during the first read'] as const
const outcomes: Record<string, number> = {}
/** How long after spawn xpk's handlers were in, for the note below. */
const handlersAfterMs: number[] = []

describe('Ctrl-C, SIGTERM and SIGHUP end every long-running command with exit 130 and one line, at any moment', () => {
  const cases = WAITS.flatMap((row) =>
    MOMENTS.filter((moment) => !(row.local && moment === 'during the first read')).flatMap((moment) =>
      SIGNALS.map((signal) => [row.id, moment, signal, row] as const),
    ),
  )
  it.concurrent.each(cases)('%s, %s: %s', async (_, moment, signal, row) => {
    // A server of its own: its first connection is this process's first read.
    const own = await startSilent()
    const spawned = Date.now()
    const {child, done} = run(row.args, row.limit?.env, own.port, row.local)
    if (moment === 'as the handlers are in') {
      expect(await until(() => handlersIn(child.pid!), 10_000)).toBe(true)
      handlersAfterMs.push(Date.now() - spawned)
    }
    if (moment === 'during the first read') expect(await until(() => own.accepted() > 0, 20_000)).toBe(true)
    const sent = Date.now()
    child.kill(signal)
    const result: CliResult = await done
    await own.close()
    expect(Date.now() - sent).toBeLessThan(5000)
    const outcome = result.signal ? `killed by ${result.signal}` : `exit ${result.code}`
    outcomes[`${moment}: ${outcome}`] = (outcomes[`${moment}: ${outcome}`] ?? 0) + 1
    if (moment === 'at spawn' && result.signal !== null) {
      // Documented: before Node.js runs xpk's first line, the signal has its default effect.
      expect([result.signal, result.stderr]).toEqual([signal, ''])
      return
    }
    expect([result.code, result.signal], result.stderr).toEqual([130, null])
    expect(result.stderr).toMatch(new RegExp(`^Error: ${said(signal).slice(0, -1)}`, 'm'))
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  afterAll(() => {
    console.log(`signal outcomes over ${WAITS.length} commands x ${SIGNALS.length} signals:`, outcomes)
    const sorted = handlersAfterMs.sort((a, b) => a - b)
    console.log(
      `xpk's handlers were in ${sorted[0]}-${sorted.at(-1)} ms after spawn (median ${sorted[sorted.length >> 1]})`,
    )
  })
})
