// Real OpenSSH servers for the `xpk vm run` tests: one sshd per simulated TPU worker, each on its own loopback
// address (127.0.1.<n>) and the same free port, with a generated host key, its own $HOME and authorized_keys file.
// Everything lives in one temp dir, removed by stop(); every sshd is killed.
import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir, userInfo} from 'node:os'
import {join} from 'node:path'

export const SSHD = '/usr/sbin/sshd'

/** Why real-SSH tests cannot run here, or undefined when they can. */
export function sshdMissing(): string | undefined {
  if (!existsSync(SSHD)) return `${SSHD} is not installed (run .ci/setup-ssh)`
  if (spawnSync('ssh-keygen', ['-?'], {stdio: 'ignore'}).error) return 'ssh-keygen is not installed'
  return undefined
}

export interface SshWorker {
  readonly host: string
  /** The worker's $HOME (its remote folder and run files go here). */
  readonly home: string
  readonly authorizedKeys: string
  /** The public host key line. */
  readonly hostKey: string
}

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, host, () => {
      const {port} = server.address() as {port: number}
      server.close(() => resolve(port))
    })
  })
}

export class SshWorkers {
  readonly user = userInfo().username
  readonly dir: string
  readonly port: number
  readonly workers: SshWorker[]
  readonly logs: string[]
  private readonly processes: ChildProcess[]

  private constructor(dir: string, port: number, workers: SshWorker[], processes: ChildProcess[], logs: string[]) {
    this.dir = dir
    this.port = port
    this.workers = workers
    this.processes = processes
    this.logs = logs
  }

  /** Starts `count` sshd instances and waits until each accepts connections. */
  static async start(count: number, options: {base?: number} = {}): Promise<SshWorkers> {
    const dir = mkdtempSync(join(tmpdir(), 'xpk-sshd-'))
    mkdirSync('/run/sshd', {recursive: true})
    const base = options.base ?? 1
    const hosts = Array.from({length: count}, (_, i) => `127.0.${base + Math.floor(i / 200)}.${(i % 200) + 10}`)
    const port = await freePort(hosts[0])
    const workers: SshWorker[] = []
    const processes: ChildProcess[] = []
    const logs: string[] = []
    const instance = new SshWorkers(dir, port, workers, processes, logs)
    try {
      await Promise.all(
        hosts.map(async (host, i) => {
          const home = join(dir, `home-${i}`)
          mkdirSync(home, {recursive: true})
          const hostKeyPath = join(dir, `host-${i}`)
          const keygen = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKeyPath])
          if (keygen.status !== 0) throw new Error(`ssh-keygen failed: ${keygen.stderr}`)
          const authorizedKeys = join(dir, `authorized_keys-${i}`)
          writeFileSync(authorizedKeys, '', {mode: 0o600})
          const config = join(dir, `sshd_config-${i}`)
          writeFileSync(
            config,
            [
              `ListenAddress ${host}:${port}`,
              `HostKey ${hostKeyPath}`,
              `AuthorizedKeysFile ${authorizedKeys}`,
              'PubkeyAuthentication yes',
              'PasswordAuthentication no',
              'KbdInteractiveAuthentication no',
              'PermitRootLogin prohibit-password',
              'UsePAM no',
              'StrictModes no',
              'PidFile none',
              'MaxSessions 50',
              'MaxStartups 100',
              'LogLevel ERROR',
              'Subsystem sftp internal-sftp',
              `SetEnv HOME=${home}`,
              '',
            ].join('\n'),
          )
          const child = spawn(SSHD, ['-D', '-e', '-f', config], {stdio: ['ignore', 'ignore', 'pipe']})
          processes.push(child)
          child.stderr!.on('data', (d) => logs.push(`[${host}] ${d}`))
          workers[i] = {host, home, authorizedKeys, hostKey: readFileSync(`${hostKeyPath}.pub`, 'utf8').trim()}
        }),
      )
      await Promise.all(workers.map((w) => waitForPort(w.host, port, 10_000)))
    } catch (error) {
      await instance.stop()
      throw error
    }
    return instance
  }

  /** Installs `ssh-keys` metadata (`user:key` lines) as the guest agent would: keys for our user only. */
  authorize(indexes: readonly number[], sshKeys: string): void {
    const keys = sshKeys
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith(`${this.user}:`))
      .map((line) => line.slice(this.user.length + 1))
    for (const i of indexes) writeFileSync(this.workers[i].authorizedKeys, keys.map((k) => `${k}\n`).join(''))
  }

  /**
   * CPU time (ms, user + system) used so far by the sshd servers and the per-connection processes they have reaped
   * (connection handlers, login shells, commands): what the workers spent, for benchmarks. Linux only.
   */
  serverCpuMs(): number {
    const ticksPerSecond = 100 // USER_HZ, 100 on every Linux architecture Node runs on
    let ticks = 0
    for (const child of this.processes) {
      if (child.pid === undefined || child.exitCode !== null) continue
      // Fields after the command name: utime, stime, cutime, cstime are the 12th to 15th.
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ')
      ticks += fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0)
    }
    return (ticks * 1000) / ticksPerSecond
  }

  /**
   * Drops every SSH connection to worker `index` as a network failure would: the sshd processes serving them are
   * killed (SIGKILL), so the connections close, while the commands they started run on. Returns how many processes
   * were killed. Linux only.
   */
  dropConnections(index: number): number {
    const listener = this.processes[index]?.pid
    if (listener === undefined) return 0
    const parents = new Map<number, number>()
    const names = new Map<number, string>()
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
        const close = stat.lastIndexOf(')')
        names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close))
        parents.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]))
      } catch {
        // Gone meanwhile.
      }
    }
    const servedBy = (pid: number): boolean => {
      for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at)) if (at === listener) return true
      return false
    }
    let killed = 0
    for (const [pid, name] of names) {
      if (!name.startsWith('sshd') || !servedBy(pid)) continue
      try {
        process.kill(pid, 'SIGKILL')
        killed++
      } catch {
        // Gone meanwhile.
      }
    }
    return killed
  }

  /** PIDs of processes (on this machine, so on any worker) whose command line contains `marker`. */
  static processesMatching(marker: string): number[] {
    const result = spawnSync('pgrep', ['-f', marker], {encoding: 'utf8'})
    return result.stdout
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => pid !== process.pid)
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.processes.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve()
            child.once('exit', () => resolve())
            child.kill('SIGTERM')
          }),
      ),
    )
    rmSync(this.dir, {recursive: true, force: true})
  }
}

async function waitForPort(host: string, port: number, timeoutMs: number): Promise<void> {
  const {connect} = await import('node:net')
  const end = Date.now() + timeoutMs
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({host, port}, () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > end) throw new Error(`sshd on ${host}:${port} did not start`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
