import {LOST_CONNECTION_STATUS, shellStatus} from '../core/vm/exit-status.js'
import {vmRunLost, vmRunNotStopped, vmRunStopping, vmRunWorkerFailed} from '../core/messages/vm.js'
import {killScript, READY_MARKER, runScript, STOP_REPORT, workerEnv} from '../core/vm/remote-scripts.js'
import {progressLine, type RunWorker} from '../core/vm/run-plan.js'
import type {Console, ProgressBoard} from '../ports/console.js'
import type {RemoteExit, RemoteSession, RunLogs} from '../ports/remote-shell.js'
import type {WorkerResult} from './vm-run.js'

/** What the run on every worker needs of `vm run`'s options, checked and with their defaults. */
export interface EverywhereOptions {
  readonly tpuPrefix: string
  readonly command: string
  readonly runName: string
  readonly remoteDir: string
}

export interface EverywhereDeps {
  readonly console: Console
  readonly logs: RunLogs
  /** Where worker 0's output is streamed. */
  readonly output: (chunk: Buffer) => void
  readonly now: () => number
  readonly signal: AbortSignal
}

/** What a worker prints, once its command is set up, to say it waits for the go-ahead. */
const READY_LINE = Buffer.from(`${READY_MARKER}\n`)

/**
 * Runs the command on every worker over its open session and collects how each ended. Each worker goes through the
 * same steps, each a method of {@link EverywhereRun}: start (the command, gated: it waits for "go"), stream (its
 * output to its log, worker 0's also to the output; "go" once every worker said it is ready), stop the others (on the
 * first failure, or Ctrl-C: every worker still running, through its own connection; a lost one through a new one),
 * and collect (its result, and whether xpk stopped it). `firstFailed` is the index of the first worker that failed
 * on its own.
 */
export async function runEverywhere(
  sessions: readonly RemoteSession[],
  workers: readonly RunWorker[],
  numSlices: number,
  logDir: string,
  options: EverywhereOptions,
  deps: EverywhereDeps,
  reconnect: (w: RunWorker) => Promise<RemoteSession>,
): Promise<{results: WorkerResult[]; firstFailed?: number}> {
  deps.signal.throwIfAborted()
  const run = new EverywhereRun(sessions, workers, options, deps, reconnect)
  const onAbort = () => run.stopOthers('interrupted')
  deps.signal.addEventListener('abort', onAbort, {once: true})
  try {
    run.showProgress()
    const results = await Promise.all(workers.map((_, i) => run.runWorker(i, numSlices, logDir)))
    return {results, firstFailed: run.firstFailed}
  } finally {
    deps.signal.removeEventListener('abort', onAbort)
    run.close()
  }
}

/** One run of the command on every worker: what the workers share (the go-ahead, who still runs, who xpk stops). */
class EverywhereRun {
  /** The index of the first worker that failed on its own. */
  firstFailed: number | undefined
  private readonly running: Set<number>
  /** Workers xpk is stopping: resolves to whether the command was still running when the stop came. */
  private readonly stops = new Map<number, Promise<boolean>>()
  private stopping = false
  private readonly board: ProgressBoard
  /** Every worker says when it is ready; "go" goes to all of them at once, so the commands start together. */
  private readonly gate: Promise<'go' | 'stop'>
  private answer: (text: 'go' | 'stop') => void = () => {}
  private answered: 'go' | 'stop' | undefined
  private ready = 0

  constructor(
    private readonly sessions: readonly RemoteSession[],
    private readonly workers: readonly RunWorker[],
    private readonly options: EverywhereOptions,
    private readonly deps: EverywhereDeps,
    private readonly reconnect: (w: RunWorker) => Promise<RemoteSession>,
  ) {
    this.running = new Set(workers.map((_, i) => i))
    this.gate = new Promise<'go' | 'stop'>((resolve) => (this.answer = resolve))
    void this.gate.then((text) => (this.answered = text))
    this.board = deps.console.progress(`Run ${options.runName}:`)
  }

  /** Worker `i` from start to its result. */
  async runWorker(i: number, numSlices: number, logDir: string): Promise<WorkerResult> {
    const w = this.workers[i]
    const log = `${logDir}/slice-${w.slice}-worker-${w.worker}.log`
    const started = this.deps.now()
    const exit = await this.start(i, numSlices, log)
    return this.collect(i, exit, log, started)
  }

  /** Starts the command on worker `i` (it waits for the go-ahead) and streams its output until it ends. */
  private async start(i: number, numSlices: number, log: string): Promise<RemoteExit> {
    const w = this.workers[i]
    const {options} = this
    const env = workerEnv({
      tpuPrefix: options.tpuPrefix,
      numSlices,
      sliceId: w.slice,
      workerId: w.worker,
      coordinatorIp: this.workers[0].internalIp,
      runName: options.runName,
    })
    const script = runScript({
      remoteDir: options.remoteDir,
      ship: false,
      runName: options.runName,
      env,
      command: options.command,
      gated: true,
    })
    const stream = this.stream(i, log)
    try {
      return await this.sessions[i].exec(script, {gate: this.gate, onOutput: stream.onOutput})
    } catch {
      return {code: null, signal: 'connection lost'}
    } finally {
      await stream.close()
    }
  }

  /**
   * Where worker `i`'s output goes: its log, and for worker 0 the command's output. Its stderr is held until the
   * ready line arrives (it may come in pieces), which is cut out and counted; "go" once every worker is ready.
   */
  private stream(i: number, log: string): {onOutput: (chunk: Buffer, stream: string) => void; close(): Promise<void>} {
    const writer = this.deps.logs.writer(log)
    const emit = (chunk: Buffer) => {
      if (chunk.length === 0) return
      writer.write(chunk)
      if (i === 0) this.deps.output(chunk)
    }
    let early: Buffer | undefined = Buffer.alloc(0)
    return {
      onOutput: (chunk, stream) => {
        if (early === undefined || stream !== 'stderr') return emit(chunk)
        early = Buffer.concat([early, chunk])
        const at = early.indexOf(READY_LINE)
        if (at < 0) return
        const held = early
        early = undefined
        emit(held.subarray(0, at))
        emit(held.subarray(at + READY_LINE.length))
        if (++this.ready === this.workers.length) this.answer('go')
      },
      close: async () => {
        if (early) emit(early)
        await writer.close()
      },
    }
  }

  /** Kills the process group of every worker still running (through its own connection). */
  stopOthers(why: string): void {
    if (this.stopping) return
    this.stopping = true
    this.answer('stop')
    if (this.running.size > 0) this.board.note(vmRunStopping({running: this.running.size, why}))
    for (const i of this.running) {
      let report = ''
      const stop = this.sessions[i].exec(killScript(this.options.runName), {
        onOutput: (chunk, stream) => void (stream === 'stdout' && (report += chunk.toString())),
      })
      // When the stop cannot tell (the connection failed), the worker counts as stopped, not as a failure.
      this.stops.set(
        i,
        stop.then(
          () => !report.includes(STOP_REPORT.ended),
          () => true,
        ),
      )
    }
  }

  /**
   * Whether xpk stopped worker `i` (so its exit status is not its own): a worker still waiting for "go" when told to
   * stop exits 143; one that had started is stopped unless its command had already ended on its own (it failed, or
   * succeeded, at the same moment as the worker that stopped the others).
   */
  private async stoppedByXpk(i: number, status: number): Promise<boolean> {
    const stop = this.stops.get(i)
    if (stop === undefined) return false
    if (this.answered !== 'go' && status === 143) return true
    return stop
  }

  /**
   * Stops the command of a worker whose connection was lost, through a new connection: it goes on running there
   * otherwise (sshd does not stop a session's processes when its connection dies without a terminal).
   */
  private async stopLost(w: RunWorker): Promise<void> {
    this.board.note(vmRunLost({slice: w.slice, worker: w.worker, host: w.host}))
    try {
      const session = await this.reconnect(w)
      try {
        await session.exec(killScript(this.options.runName))
      } finally {
        session.close()
      }
    } catch (error) {
      this.deps.console.warn(
        vmRunNotStopped({slice: w.slice, worker: w.worker, host: w.host, cause: (error as Error).message}),
      )
    }
  }

  /** Worker `i`'s result; its own failure stops the others, and a lost connection stops its command. */
  private async collect(i: number, exit: RemoteExit, log: string, started: number): Promise<WorkerResult> {
    const w = this.workers[i]
    const status = shellStatus(exit)
    const stopped = await this.stoppedByXpk(i, status)
    this.running.delete(i)
    const result: WorkerResult = {
      slice: w.slice,
      worker: w.worker,
      host: w.host,
      // A signal SSH reports is given as a shell gives it (128+N); only a lost connection has no code.
      exitCode: exit.code ?? (exit.signal?.startsWith('SIG') ? status : null),
      ...(exit.code === null && exit.signal?.startsWith('SIG') ? {signal: exit.signal} : {}),
      stopped,
      seconds: Math.round(((this.deps.now() - started) / 1000) * 10) / 10,
      log,
    }
    if (status !== 0 && !stopped) {
      this.firstFailed ??= i
      this.board.note(vmRunWorkerFailed({slice: w.slice, worker: w.worker, exit}))
      this.stopOthers(`slice ${w.slice} worker ${w.worker} failed`)
    }
    if (exit.code === null && status === LOST_CONNECTION_STATUS) await this.stopLost(w)
    this.showProgress()
    return result
  }

  /** The run's progress line: how many workers completed, and which still run. */
  showProgress(): void {
    const {workers, running} = this
    this.board.update('run', {
      label: this.options.runName,
      state: progressLine(
        workers.length - running.size,
        workers.length,
        [...running].map((i) => workers[i]),
      ),
      status: running.size === 0 ? 'done' : 'running',
    })
  }

  close(): void {
    this.board.close()
  }
}
