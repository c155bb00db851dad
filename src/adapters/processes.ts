/** The {@link Processes} port: this machine's processes, and the supervisors xpk starts in the background. */
import {spawn} from 'node:child_process'
import {openSync, closeSync, mkdirSync} from 'node:fs'
import {hostname} from 'node:os'
import {dirname} from 'node:path'

import type {Processes} from '../ports/vm-jobs.js'

export class LocalProcesses implements Processes {
  readonly host = hostname()
  readonly pid = process.pid

  /**
   * @param cli the argv that starts xpk itself (node and its entry script), so the supervisor runs the same xpk
   * @param env the supervisor's environment (this process's, with the endpoints given as flags)
   */
  constructor(
    private readonly cli: readonly string[],
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  alive(pid: number): boolean {
    try {
      process.kill(pid, 0)
      return true
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM'
    }
  }

  async startSupervisor(jobId: string, logPath: string): Promise<number> {
    mkdirSync(dirname(logPath), {recursive: true})
    const log = openSync(logPath, 'a')
    try {
      // A session of its own (detached), stdin closed and output to the log: closing the terminal does not stop it.
      const child = spawn(this.cli[0], [...this.cli.slice(1), 'vm', 'job', 'supervise', jobId], {
        detached: true,
        stdio: ['ignore', log, log],
        env: this.env,
      })
      const pid = await new Promise<number>((resolve, reject) => {
        child.once('error', reject)
        child.once('spawn', () => resolve(child.pid!))
      })
      child.unref()
      return pid
    } finally {
      closeSync(log)
    }
  }

  signal(pid: number, signal: NodeJS.Signals): boolean {
    try {
      process.kill(pid, signal)
      return true
    } catch {
      return false
    }
  }
}
