/**
 * The supervisor of a TPU VM job: the process that `xpk vm job create` starts in the background (or runs attached
 * with --foreground) and `resume` starts again. It requests the TPU, sets it up, starts the command detached on the
 * workers and follows it; when the TPU is lost (preempted, terminated, stopped; the queued resource failed or
 * suspended) and the job loops, it deletes the TPU, requests it again, sets it up again and starts the command
 * again. Everything it learns goes to the job's record and events before it acts on it, so a supervisor killed at
 * any point is replaced by `resume` without a second TPU request.
 */
import {XpkError} from '../core/errors.js'
import {vmJobEvent, vmJobTpuState} from '../core/messages/vm-job.js'
import {
  commandWorkers,
  remoteKey,
  type VmJobRecord,
  type VmJobStatus,
  type VmJobWorkerAddress,
} from '../core/vmjob/record.js'
import {
  commandLine,
  condaModuleScript,
  dockerModuleScript,
  followScript,
  gcsfuseModuleScript,
  jobCodeDir,
  jobRemoteDir,
  parseProbe,
  probeScript,
  shipCodeScript,
  sshModuleScript,
  startScript,
  stopScript,
  venvModuleScript,
  type RunProbe,
} from '../core/vmjob/scripts.js'
import type {VmJobModule} from '../core/vmjob/spec.js'
import {hasSshKey, sshKeyEntry, withSshKey, workerEnv} from '../core/vm/remote-scripts.js'
import {pollUntil, withRetries, type RetryOptions} from '../executor/retry.js'
import type {RemoteSession, RemoteShell, ScriptDirEntries, ScriptDirListing, SshKeyPair} from '../ports/remote-shell.js'
import type {Processes, VmJobStore} from '../ports/vm-jobs.js'
import type {Timing} from '../core/timing.js'
import {tpuRetry, usingTpu, type VmApiDeps, type VmTiming} from './vm-common.js'
import {deleteJobTpu, readJobTpu, requestJobTpu, waitForJobTpu, type JobTpu} from './vm-job-tpu.js'

export interface VmJobSupervisorDeps extends VmApiDeps {
  readonly store: VmJobStore
  readonly processes: Processes
  /** The key pair xpk logs in with (created by `create` when missing). */
  readonly keys: () => Promise<SshKeyPair>
  readonly shell: (keys: SshKeyPair) => Promise<RemoteShell>
  readonly list: (dir: string) => Promise<ScriptDirListing>
  readonly pack: (listing: ScriptDirEntries) => Promise<{tar: Buffer; files: number; bytes: number}>
  /** Reads a file of the machine running xpk (keys, environment and requirement files). */
  readonly readFile: (path: string) => Promise<Buffer>
}

export interface VmJobSupervisorOptions {
  readonly timing: VmTiming & Pick<Timing, 'ssh'>
}

/** How one run of the command ended. */
type RunOutcome =
  | {readonly kind: 'exited'; readonly exits: {worker: number; code: number | null}[]}
  | {readonly kind: 'lost'; readonly why: string}

/** Supervises the job until it ends (SUCCEEDED, FAILED, STOPPED, PREEMPTED without loop) or the signal aborts. */
export async function superviseVmJob(
  id: string,
  options: VmJobSupervisorOptions,
  deps: VmJobSupervisorDeps,
): Promise<VmJobRecord> {
  const record = await claim(id, deps)
  return usingTpu(deps, async (tpu) => {
    const supervisor = new Supervisor(record, tpu, options, deps)
    try {
      return await supervisor.run()
    } finally {
      await supervisor.release()
    }
  })
}

/** Records this process as the job's supervisor; refused when another live one holds it. */
async function claim(id: string, deps: VmJobSupervisorDeps): Promise<VmJobRecord> {
  const now = deps.now()
  const record = await deps.store.update(
    id,
    (current) => {
      const other = current.supervisor
      if (other && other.pid !== deps.processes.pid && other.host === deps.processes.host) {
        if (deps.processes.alive(other.pid)) {
          throw new XpkError('conflict', `Job ${id} already has a supervisor (process ${other.pid}).`, {
            hints: [`\`xpk vm job stop ${id}\` stops it; \`xpk vm job logs ${id} --follow\` follows the job.`],
          })
        }
      }
      return {...current, supervisor: {pid: deps.processes.pid, host: deps.processes.host, startedAt: now}}
    },
    now,
  )
  await deps.store.appendEvent(id, {time: now, event: 'supervisor-started', detail: `pid ${deps.processes.pid}`})
  return record
}

class Supervisor {
  private record: VmJobRecord
  private readonly at: JobTpu
  private sessions = new Map<number, RemoteSession>()
  private shell?: RemoteShell
  private keyPair?: SshKeyPair

  constructor(
    record: VmJobRecord,
    tpu: JobTpu['tpu'],
    private readonly options: VmJobSupervisorOptions,
    private readonly deps: VmJobSupervisorDeps,
  ) {
    this.record = record
    this.at = {
      tpu,
      location: {project: record.spec.project, zone: record.spec.tpu.zone},
      spec: record.spec,
      timing: options.timing,
      deps,
    }
  }

  private get id(): string {
    return this.record.id
  }

  /** The job's name on its workers. */
  private get key(): string {
    return remoteKey(this.record)
  }

  private async event(event: Parameters<VmJobStore['appendEvent']>[1]['event'], detail?: string): Promise<void> {
    await this.deps.store.appendEvent(this.id, {time: this.deps.now(), event, ...(detail ? {detail} : {})})
    this.deps.console.info(vmJobEvent({id: this.id, event, detail: detail ?? null}))
  }

  private async set(change: Partial<VmJobRecord>): Promise<void> {
    this.record = await this.deps.store.update(this.id, (current) => ({...current, ...change}), this.deps.now())
  }

  private async status(status: VmJobStatus, change: Partial<VmJobRecord> = {}): Promise<void> {
    await this.set({...change, status})
  }

  async run(): Promise<VmJobRecord> {
    for (;;) {
      if (await this.stopAsked()) return this.record
      const workers = await this.ensureTpu()
      if (!workers) continue
      await this.connect(workers)
      const resumed = await this.reattach(workers)
      if (!resumed) {
        await this.setUp(workers)
        await this.start(workers)
      }
      const outcome = await this.follow(workers)
      this.closeSessions()
      if (outcome.kind === 'exited') {
        const failed = outcome.exits.filter((e) => e.code !== 0)
        if (failed.length === 0) {
          await this.status('SUCCEEDED', {exits: outcome.exits})
          await this.event('finished', 'every worker exited 0')
          return this.record
        }
        // A failure on a TPU that is still healthy is the command's; on a lost one it is the preemption's.
        const {health, state} = await readJobTpu(this.at)
        if (health === 'ready') {
          const reason = failed.map((e) => `worker ${e.worker} exited ${e.code ?? 'without a status'}`).join(', ')
          await this.status('FAILED', {exits: outcome.exits, reason})
          await this.event('failed', reason)
          return this.record
        }
        if (!(await this.recover(`the command ended when the TPU was ${state}`))) return this.record
      } else if (!(await this.recover(outcome.why))) {
        return this.record
      }
    }
  }

  /** After the TPU was lost: PREEMPTED, and with loop (within --max-recoveries) on to the next round. */
  private async recover(why: string): Promise<boolean> {
    await this.status('PREEMPTED', {workers: undefined})
    await this.event('preempted', why)
    const {loop, maxRecoveries} = this.record.spec
    if (!loop || (maxRecoveries !== undefined && this.record.recoveries >= maxRecoveries)) {
      const reason = loop ? `the TPU was lost after ${this.record.recoveries} recoveries (--max-recoveries)` : why
      await this.set({reason})
      return false
    }
    await this.status('RECOVERING', {recoveries: this.record.recoveries + 1})
    await this.event('recovering', `recovery ${this.record.recoveries}`)
    const deleted = await deleteJobTpu(this.at)
    await this.event('deleted', deleted ? this.at.spec.tpu.name : 'already gone')
    // The first recovery starts at once (a preemption says nothing about capacity); repeated ones back off, so that
    // a zone that keeps taking the TPU back is not hammered.
    const recoveries = this.record.recoveries
    if (recoveries > 1) {
      await this.deps.sleep(Math.min(60_000, 1000 * 2 ** Math.min(recoveries - 2, 6)), this.deps.signal)
    }
    return true
  }

  private async stopAsked(): Promise<boolean> {
    const current = await this.deps.store.read(this.id)
    if (!current?.stopRequested) return false
    this.record = current
    return true
  }

  /** The TPU, ready: reused when healthy, else (deleted when lost and) requested, then waited for. */
  private async ensureTpu(): Promise<VmJobWorkerAddress[] | undefined> {
    const found = await readJobTpu(this.at)
    if (found.health === 'ready' && found.node) {
      await this.ensureKey(found.node.id, found.node.metadata)
    } else {
      if (found.health === 'lost') await deleteJobTpu(this.at)
      if (found.health !== 'pending') {
        await this.status(this.record.recoveries > 0 ? 'RECOVERING' : 'QUEUEING')
        await requestJobTpu(this.at, sshKeyEntry(this.record.access.sshUser, (await this.keys()).publicKey))
        await this.event('requested', `${this.record.spec.tpu.accelerator} ${this.record.spec.tpu.allocationMode}`)
      }
    }
    const ready = await waitForJobTpu(this.at, (state) =>
      this.deps.console.info(vmJobTpuState({tpu: this.at.spec.tpu.name, state})),
    )
    if (!ready) {
      await this.event('preempted', 'lost while waiting for it')
      await deleteJobTpu(this.at)
      return undefined
    }
    await this.ensureKey(ready.node.id, ready.node.metadata)
    await this.set({workers: ready.workers})
    await this.event('ready', ready.workers.map((w) => w.externalIp ?? w.internalIp).join(' '))
    return ready.workers
  }

  /** The config's login key (jobman's ssh.private_key) when it names one, else xpk's own. */
  private async keys(): Promise<SshKeyPair> {
    const login = this.record.spec.ssh?.login
    if (login && !this.keyPair) {
      const publicKey = (await this.deps.readFile(login.publicKey)).toString().trim()
      this.keyPair = {privateKeyPath: login.privateKey, publicKey}
    }
    return (this.keyPair ??= await this.deps.keys())
  }

  /** A TPU not created by this job's request (or whose metadata was replaced) gets xpk's key added. */
  private async ensureKey(nodeId: string, metadata: Readonly<Record<string, string>>): Promise<void> {
    const {sshUser} = this.record.access
    const keys = await this.keys()
    if (hasSshKey(metadata, sshUser, keys.publicKey)) return
    const retry = tpuRetry(this.options.timing, this.deps)
    const op = await withRetries(
      () => this.at.tpu.setNodeMetadata(this.at.location, nodeId, withSshKey(metadata, sshUser, keys.publicKey)),
      retry,
    )
    let polled = false
    await pollUntil(
      async () => {
        const current = polled ? await this.at.tpu.getOperation(op.name) : op
        polled = true
        if (current.error)
          throw new XpkError('failed', `Could not add the SSH key to ${nodeId}: ${current.error.message}`)
        return current.done
      },
      {...retry, poll: this.options.timing.operations},
    )
  }

  private host(w: VmJobWorkerAddress): string {
    return this.record.access.internalIp ? w.internalIp : (w.externalIp ?? w.internalIp)
  }

  /** One connection per worker; refusals are retried while the key reaches a new TPU. */
  private async connect(workers: readonly VmJobWorkerAddress[]): Promise<void> {
    this.shell ??= await this.deps.shell(await this.keys())
    const retry: RetryOptions = {
      policy: this.options.timing.retry,
      clock: this.deps,
      signal: this.deps.signal,
      retryable: (error) =>
        error instanceof XpkError &&
        (error.kind === 'unavailable' || error.kind === 'auth') &&
        !/host key|private key/.test(error.message),
      retryUntil: this.deps.now() + this.options.timing.ssh.keyPropagationMs,
    }
    const {sshUser, sshPort} = this.record.access
    await Promise.all(
      workers.map(async (w) => {
        const session = await withRetries(
          () =>
            this.shell!.connect(
              {host: this.host(w), port: sshPort, user: sshUser, identity: w.identity},
              this.deps.signal,
            ),
          retry,
        )
        this.sessions.set(w.worker, session)
      }),
    )
  }

  private closeSessions(): void {
    for (const s of this.sessions.values()) s.close()
    this.sessions.clear()
  }

  /** Runs a script on a worker; its output goes to the log `name`. Throws when it fails. */
  private async exec(w: VmJobWorkerAddress, script: string, log: string, stdin?: Buffer): Promise<string> {
    const session = this.sessions.get(w.worker)!
    const out = this.deps.store.appendLog(this.id, log)
    const stdout: Buffer[] = []
    try {
      const exit = await session.exec(script, {
        ...(stdin ? {stdin} : {}),
        onOutput: (chunk, stream) => {
          out.write(chunk)
          if (stream === 'stdout') stdout.push(chunk)
        },
      })
      if (exit.code !== 0) {
        throw new XpkError(
          'failed',
          `${log.replace(/_worker_\d+$/, '')} failed on worker ${w.worker} (${exit.code === null ? `signal ${exit.signal ?? 'or lost connection'}` : `exit ${exit.code}`}).`,
          {hints: [`Its output is in ${this.deps.store.logPath(this.id, log)}.`]},
        )
      }
      return Buffer.concat(stdout).toString()
    } finally {
      await out.close()
    }
  }

  /**
   * After a resume: the command of the current attempt, when it started on every worker that runs it (running or
   * ended), is followed again instead of being set up and started anew.
   */
  private async reattach(workers: readonly VmJobWorkerAddress[]): Promise<boolean> {
    const {attempt} = this.record
    if (attempt === 0 || this.record.status !== 'RUNNING') return false
    const chosen = commandWorkers(workers, this.record.spec.command.workers)
    const probes = await Promise.all(
      chosen.map(async (w) =>
        parseProbe(await this.exec(w, probeScript(this.key, attempt), `probe_worker_${w.worker}`)),
      ),
    )
    if (!probes.every((p: RunProbe) => p.state === 'running' || p.state === 'exited')) return false
    await this.event('reattached', `attempt ${attempt}`)
    return true
  }

  /** Ships the script directory, then runs the setup modules in order on every worker (each to its own log). */
  private async setUp(workers: readonly VmJobWorkerAddress[]): Promise<void> {
    await this.status(this.record.recoveries > 0 ? 'RECOVERING' : 'SETTING_UP')
    const {spec} = this.record
    if (spec.scriptDir) {
      const listing = await this.deps.list(spec.scriptDir)
      if ('missing' in listing)
        throw new XpkError('failed', `The script directory ${spec.scriptDir} is ${listing.missing}.`)
      const {tar} = await this.deps.pack(listing)
      await Promise.all(workers.map((w) => this.exec(w, shipCodeScript(this.key), `code_worker_${w.worker}`, tar)))
    }
    for (const module of spec.modules) {
      const script = await this.moduleScript(module)
      await Promise.all(workers.map((w) => this.exec(w, script, `${module}_worker_${w.worker}`)))
    }
    await this.event('setup-done', spec.modules.join(', ') || 'no modules')
  }

  private async moduleScript(module: VmJobModule): Promise<string> {
    const {spec} = this.record
    const remote = (name: string) => `${jobRemoteDir(this.key)}/files/${name}`
    if (module === 'ssh') {
      const identities = spec.ssh?.identities ?? []
      const keys = await Promise.all(
        identities.map(async (identity, i) => {
          const publicLine = (await this.deps.readFile(identity.publicKey)).toString().trim()
          const base = `.ssh/${identity.privateKey.replace(/.*\//, '')}`
          return {
            privateKey: {path: base, content: await this.deps.readFile(identity.privateKey), mode: 0o600},
            publicKey: {path: `${base}.pub`, content: Buffer.from(`${publicLine}\n`), mode: 0o644},
            publicLine,
            index: i,
          }
        }),
      )
      return sshModuleScript(
        this.id,
        keys,
        identities.flatMap((identity) => (identity.configEntry ? [identity.configEntry] : [])),
      )
    }
    if (module === 'gcsfuse') return gcsfuseModuleScript(spec.gcsfuse!)
    if (module === 'docker') return dockerModuleScript(spec.docker!)
    const file = module === 'conda' ? spec.conda!.configFile : spec.venv!.requirementsFile
    const target = remote(file.replace(/.*\//, ''))
    const content = await this.deps.readFile(file)
    const write = `mkdir -p "$HOME"/${JSON.stringify(target.replace(/\/[^/]*$/, ''))} && printf %s '${content.toString('base64')}' | base64 -d > "$HOME"/${JSON.stringify(target)}`
    return `${write}\n${module === 'conda' ? condaModuleScript(spec.conda!, target) : venvModuleScript(spec.venv!, target)}`
  }

  /** Starts the command, detached, on the workers that run it (a new attempt). */
  private async start(workers: readonly VmJobWorkerAddress[]): Promise<void> {
    const attempt = this.record.attempt + 1
    const {spec} = this.record
    const coordinator = workers[0].internalIp
    const chosen = commandWorkers(workers, spec.command.workers)
    await Promise.all(
      chosen.map((w) => {
        const env = {
          ...workerEnv({
            tpuPrefix: spec.tpu.name,
            numSlices: 1,
            sliceId: 0,
            workerId: w.worker,
            coordinatorIp: coordinator,
            runName: `job-${this.id}-${attempt}`,
          }),
          XPK_JOB_ID: this.id,
          XPK_JOB_ATTEMPT: String(attempt),
        }
        const workdir = spec.scriptDir ? jobCodeDir(this.key) : undefined
        return this.exec(
          w,
          startScript(this.key, attempt, workdir, commandLine(spec, this.id, attempt, env)),
          `start_worker_${w.worker}`,
        )
      }),
    )
    const recovered = this.record.status === 'RECOVERING'
    await this.status('RUNNING', {attempt, exits: undefined})
    await this.event('running', `attempt ${attempt} on ${chosen.length} worker(s)`)
    if (recovered) await this.event('recovered', `recovery ${this.record.recoveries}`)
  }

  /**
   * Follows the command on every worker that runs it (its output to command_worker_W.attempt-N) while watching the
   * TPU every pollMs. Ends when every worker's run ended, or as soon as the TPU is lost, or on a stop.
   */
  private async follow(workers: readonly VmJobWorkerAddress[]): Promise<RunOutcome> {
    const {attempt} = this.record
    const chosen = commandWorkers(workers, this.record.spec.command.workers)
    const watchEnd = new AbortController()
    const lost = this.watch(watchEnd.signal)
    const runs = Promise.all(chosen.map((w) => this.followWorker(w, attempt)))
    try {
      return await Promise.race([runs.then((exits): RunOutcome => ({kind: 'exited', exits})), lost])
    } finally {
      watchEnd.abort()
      // A lost TPU: the follows end when their connections are closed.
      this.closeSessions()
      await runs.catch(() => {})
    }
  }

  /** Resolves when the TPU is lost (never otherwise, until `end`). */
  private async watch(end: AbortSignal): Promise<RunOutcome> {
    const pollMs = this.record.access.pollMs
    while (!end.aborted) {
      await this.deps.sleep(pollMs, end).catch(() => {})
      if (end.aborted) return new Promise<never>(() => {})
      const {health, state} = await readJobTpu(this.at).catch(() => ({health: 'ready' as const, state: ''}))
      if (health === 'lost' || health === 'absent') return {kind: 'lost', why: `the TPU is ${state}`}
    }
    return new Promise<never>(() => {})
  }

  /** Follows one worker's run to its end, reconnecting after a dropped connection while the TPU is healthy. */
  private async followWorker(w: VmJobWorkerAddress, attempt: number): Promise<{worker: number; code: number | null}> {
    const log = `command_worker_${w.worker}.attempt-${attempt}`
    for (let reconnects = 0; ; reconnects++) {
      const offset = (await this.deps.store.readLog(this.id, log, 0)).length
      const session = this.sessions.get(w.worker)
      if (!session) return {worker: w.worker, code: null}
      const out = this.deps.store.appendLog(this.id, log)
      let exit
      try {
        exit = await session.exec(followScript(this.key, attempt, offset), {onOutput: (chunk) => out.write(chunk)})
      } catch {
        exit = {code: null}
      } finally {
        await out.close()
      }
      if (exit.code !== null && exit.code !== 255) return {worker: w.worker, code: exit.code}
      if (this.deps.signal.aborted || !this.sessions.has(w.worker) || reconnects >= 5) {
        return {worker: w.worker, code: exit.code}
      }
      // The connection dropped, or the run ended without a status: ask the worker what became of it.
      const probe = await this.reprobe(w, attempt)
      if (probe?.state === 'exited') return {worker: w.worker, code: probe.code}
      if (probe?.state !== 'running') return {worker: w.worker, code: null}
    }
  }

  private async reprobe(w: VmJobWorkerAddress, attempt: number): Promise<RunProbe | undefined> {
    try {
      this.sessions.get(w.worker)?.close()
      const {sshUser, sshPort} = this.record.access
      const session = await this.shell!.connect(
        {host: this.host(w), port: sshPort, user: sshUser, identity: w.identity},
        this.deps.signal,
      )
      this.sessions.set(w.worker, session)
      return parseProbe(await this.exec(w, probeScript(this.key, attempt), `probe_worker_${w.worker}`))
    } catch {
      return undefined
    }
  }

  /** Clears the supervisor from the record (a stop asked meanwhile ends the job STOPPED). */
  async release(): Promise<void> {
    this.closeSessions()
    await this.deps.store
      .update(
        this.id,
        (current) => {
          if (current.supervisor?.pid !== this.deps.processes.pid) return undefined
          const stopped = current.stopRequested && !['SUCCEEDED', 'FAILED'].includes(current.status)
          return {
            ...current,
            supervisor: undefined,
            ...(stopped ? {status: 'STOPPED' as const, reason: current.reason ?? 'stopped by `xpk vm job stop`'} : {}),
          }
        },
        this.deps.now(),
      )
      .catch(() => {})
  }
}

/** Stops the command of the job's current attempt on its workers (used by `stop` and `delete`). */
export async function stopOnWorkers(record: VmJobRecord, shell: RemoteShell, signal: AbortSignal): Promise<number> {
  if (!record.workers || record.attempt === 0) return 0
  const chosen = commandWorkers(record.workers, record.spec.command.workers)
  const {sshUser, sshPort, internalIp} = record.access
  const results = await Promise.allSettled(
    chosen.map(async (w) => {
      const session = await shell.connect(
        {
          host: internalIp ? w.internalIp : (w.externalIp ?? w.internalIp),
          port: sshPort,
          user: sshUser,
          identity: w.identity,
        },
        signal,
      )
      try {
        await session.exec(stopScript(remoteKey(record), record.attempt, record.spec.envType === 'docker'))
      } finally {
        session.close()
      }
    }),
  )
  return results.filter((r) => r.status === 'fulfilled').length
}
