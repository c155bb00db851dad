/**
 * `xpk vm job create|list|logs|stop|resume|delete|supervise`: TPU VM jobs that survive preemption (jobman's
 * workflow). `create` checks everything, records the job and starts its supervisor in the background (or runs it
 * attached); the supervisor (vm-job-supervisor.ts) does the work; the other commands read and change the records.
 */
import {UsageError, XpkError} from '../core/errors.js'
import {WorkerFailure} from '../core/vm/exit-status.js'
import {
  vmJobConfirmDelete,
  vmJobCreated,
  vmJobDeleted,
  vmJobDryRun,
  vmJobDryRunChanges,
  vmJobDetachedLogs,
  vmJobKeyCreated,
  vmJobResumed,
  vmJobStopped,
  vmJobSupervisorGone,
} from '../core/messages/vm-job.js'
import {FINAL_STATUSES, normalizeJobId, type VmJobRecord, type VmJobView} from '../core/vmjob/record.js'

export type {VmJobView}
import type {VmJobSpec} from '../core/vmjob/spec.js'
import {vmJobLogsInputFromFlags, vmJobStatusFilter, vmJobWorkerFromFlag} from '../core/vmjob/inputs.js'
import {planDelete, planResume, planStop, renderVmJobPlan, type VmJobPlanStep} from '../core/vmjob/plan.js'
import type {CloudStorageClient} from '../ports/cloud-storage.js'
import type {RemoteSession, SshKeyPair, SshKeyStore} from '../ports/remote-shell.js'
import {confirmOrStop} from './confirm.js'
import {
  detachedLog,
  purgeDetachedObjects,
  refreshDetached,
  startDetachedJob,
  waitForDetached,
  type DetachedCreated,
  type DetachedDeps,
} from './vm-job-detached.js'
import {detachedLogObject, detachedLogsUrl} from '../core/vmjob/detached.js'
import {DETACHED_STARTUP_SCRIPT} from '../templates/detached-startup.js'
import {startTimeLimit} from '../executor/retry.js'
import {vmJobInput, type VmJobFlags, type VmJobInputDeps} from './vm-job-input.js'
import {usingTpu} from './vm-common.js'
import {
  stopOnWorkers,
  superviseVmJob,
  type VmJobSupervisorDeps,
  type VmJobSupervisorOptions,
} from './vm-job-supervisor.js'
import {deleteJobTpu, readJobTpu, type JobTpu} from './vm-job-tpu.js'

export interface VmJobDeps extends VmJobSupervisorDeps, VmJobInputDeps {
  readonly keyStore: SshKeyStore
  /** A Cloud Storage client whose requests end when `signal` aborts. */
  readonly storage: (signal: AbortSignal) => Promise<CloudStorageClient>
  /** The API base URLs a detached job's workers use (Google's, or where xpk was pointed). */
  readonly endpoints: {readonly storage: string; readonly tpu: string}
}

function detachedDeps(deps: VmJobDeps): DetachedDeps {
  return {...deps, startupScript: DETACHED_STARTUP_SCRIPT}
}

export function jobView(record: VmJobRecord, deps: Pick<VmJobDeps, 'store' | 'processes'>): VmJobView {
  const w0 = record.workers?.[0]
  const pid = record.supervisor?.pid
  const running = pid !== undefined && record.supervisor?.host === deps.processes.host && deps.processes.alive(pid)
  return {
    id: record.id,
    name: record.spec.name,
    accelerator: record.spec.tpu.accelerator,
    zone: record.spec.tpu.zone,
    host0: w0 ? (record.access.internalIp ? w0.internalIp : (w0.externalIp ?? w0.internalIp)) : null,
    status: record.status,
    recoveries: record.recoveries,
    createdAt: new Date(record.createdAt).toISOString(),
    supervisor: running ? 'running' : FINAL_STATUSES.has(record.status) || record.spec.detached ? 'none' : 'gone',
    reason: record.reason ?? null,
    dir: deps.store.logPath(record.id, '').replace(/\/logs\/\.log$/, ''),
  }
}

async function readJob(typed: string, deps: Pick<VmJobDeps, 'store'>): Promise<VmJobRecord> {
  const id = normalizeJobId(typed)
  if (!id) {
    throw new UsageError(
      `Job id ${JSON.stringify(typed)} is not a job id: give the number \`xpk vm job list\` shows.`,
      {
        flag: 'ID',
        hints: ['For example `xpk vm job logs 7`.'],
      },
    )
  }
  const record = await deps.store.read(id)
  if (!record) {
    throw new XpkError('not-found', `There is no job ${id}.`, {hints: ['`xpk vm job list` shows the jobs.']})
  }
  return record
}

export interface VmJobCreateOptions extends VmJobFlags {
  /** `--detach --wait`: wait until every worker reported; `--timeout` seconds bound the whole command. */
  readonly wait?: boolean
  /** Project and zone as the settings resolved them (flags, variables, xpk config, gcloud). */
  readonly settings: {readonly project?: string; readonly zone?: string}
  readonly foreground: boolean
  readonly dryRun: boolean
  readonly timing: VmJobSupervisorOptions['timing']
}

/** The key pair xpk logs in with, created (without asking: it destroys nothing) when missing. */
export async function jobKeys(deps: Pick<VmJobDeps, 'keyStore' | 'console'>): Promise<SshKeyPair> {
  const found = await deps.keyStore.read()
  if (found) return found
  const created = await deps.keyStore.create('xpk')
  deps.console.info(vmJobKeyCreated({privateKeyPath: created.privateKeyPath}))
  return created
}

/** The zone's region (us-central2-b is in us-central2). */
const regionOf = (zone: string) => zone.replace(/-[a-z]$/, '')

/**
 * Checks what only the APIs know before anything is created: the bucket to mount exists and is in the TPU zone's
 * region (a bucket elsewhere is slow and costs egress: jobman refuses it too).
 */
async function checkBucket(spec: VmJobSpec, deps: VmJobDeps): Promise<void> {
  if (spec.detached) {
    const client = await deps.storage(deps.signal)
    try {
      if (!(await client.getBucket(spec.detached.bucket))) {
        throw new UsageError(`--bucket: the bucket ${spec.detached.bucket} does not exist.`, {
          flag: '--bucket',
          hints: [`Create it (in ${regionOf(spec.tpu.zone)}, near the TPUs), or name an existing bucket.`],
        })
      }
    } finally {
      await client.close()
    }
    return
  }
  if (!spec.gcsfuse) return
  const client = await deps.storage(deps.signal)
  try {
    const bucket = await client.getBucket(spec.gcsfuse.bucket)
    if (!bucket) {
      throw new UsageError(`gcsfuse.bucket_name: the bucket ${spec.gcsfuse.bucket} does not exist.`, {
        flag: 'gcsfuse.bucket_name',
        hints: [`Create it in ${regionOf(spec.tpu.zone)}, or name an existing bucket.`],
      })
    }
    const region = regionOf(spec.tpu.zone)
    if (bucket.location && bucket.location.toLowerCase() !== region) {
      throw new UsageError(
        `gcsfuse.bucket_name: the bucket ${spec.gcsfuse.bucket} is in ${bucket.location.toLowerCase()}, not in the TPU's region ${region}.`,
        {
          flag: 'gcsfuse.bucket_name',
          hints: [`Use a bucket in ${region} (reading across regions is slow and costs egress).`],
        },
      )
    }
  } finally {
    await client.close()
  }
}

export interface VmJobCreateResult {
  readonly job: VmJobView | null
  readonly spec: VmJobSpec
  readonly dryRun: boolean
  readonly supervisorPid: number | null
  /** A detached job: the archive, the queued resource, the links (null for a supervised job). */
  readonly detached: DetachedCreated | null
}

/**
 * Checks everything (the config or flags, then the bucket through its API), records the job and starts its
 * supervisor (or, with --foreground, supervises it here until it ends).
 */
export async function createVmJob(options: VmJobCreateOptions, deps: VmJobDeps): Promise<VmJobCreateResult> {
  const {spec, access, configText, timeoutSeconds} = vmJobInput(options, options.settings, deps)
  if (spec.detached) return createDetached(spec, {...options, timeoutSeconds}, deps)
  await checkBucket(spec, deps)
  if (options.dryRun) return showSpec(spec, deps)
  await jobKeys(deps)
  const record = await deps.store.create(spec, access, configText, deps.now())
  await deps.store.appendEvent(record.id, {time: deps.now(), event: 'created', detail: spec.name})
  if (options.foreground) {
    const final = await superviseVmJob(record.id, {timing: options.timing}, deps)
    return {job: jobView(final, deps), spec, dryRun: false, supervisorPid: deps.processes.pid, detached: null}
  }
  const pid = await deps.processes.startSupervisor(record.id, deps.store.logPath(record.id, 'supervisor'))
  const view = jobView(record, deps)
  deps.console.info(vmJobCreated({id: record.id, name: spec.name, pid, dir: view.dir}))
  return {job: view, spec, dryRun: false, supervisorPid: pid, detached: null}
}

function showSpec(spec: VmJobSpec, deps: VmJobDeps): VmJobCreateResult {
  deps.console.result(JSON.stringify(spec, null, 2))
  deps.console.info(vmJobDryRun())
  return {job: null, spec, dryRun: true, supervisorPid: null, detached: null}
}

/**
 * `--detach`: uploads the code, requests the queued resource, records the job; with --wait, waits until every worker
 * reported (exit 0 when all succeeded, 125 otherwise; --timeout bounds the whole command: 124).
 */
async function createDetached(
  spec: VmJobSpec,
  options: VmJobCreateOptions & {readonly timeoutSeconds?: number},
  deps: VmJobDeps,
): Promise<VmJobCreateResult> {
  const detached = detachedDeps(deps)
  const limit =
    options.wait && options.timeoutSeconds !== undefined
      ? startTimeLimit(
          deps.signal,
          options.timeoutSeconds * 1000,
          deps,
          () =>
            new XpkError('timeout', `Not every worker of the job reported within ${options.timeoutSeconds} s.`, {
              hints: ['The job goes on: `xpk vm job list` shows it, `xpk vm job logs ID` reads the finished logs.'],
            }),
        )
      : undefined
  const limited = limit ? {...detached, signal: limit.signal} : detached
  try {
    await checkBucket(spec, {...deps, signal: limited.signal})
    if (options.dryRun) return showSpec(spec, deps)
    const {record, created} = await startDetachedJob(spec, options.scriptDir, options.timing, limited)
    if (!options.wait)
      return {job: jobView(record, deps), spec: record.spec, dryRun: false, supervisorPid: null, detached: created}
    const final = await waitForDetached(record, options.timing, limited)
    const result = {job: jobView(final, deps), spec: final.spec, dryRun: false, supervisorPid: null, detached: created}
    if (final.status !== 'SUCCEEDED') {
      const worst = Math.max(0, ...(final.exits ?? []).map((e) => e.code ?? 0))
      throw new XpkError(
        'unsuccessful',
        `Job ${final.id} ended ${final.status}: ${final.reason ?? `highest exit status ${worst}`}.`,
        {
          hints: [`\`xpk vm job logs ${final.id} --worker W\` reads each worker's log from the bucket.`],
        },
      )
    }
    return result
  } catch (error) {
    if (limit?.expired() && deps.signal.aborted === false) throw limit.signal.reason
    throw error
  } finally {
    limit?.dispose()
  }
}

export async function listVmJobs(
  options: {filterByStatus?: string; timing: VmJobSupervisorOptions['timing']},
  deps: VmJobDeps,
): Promise<VmJobView[]> {
  const status = vmJobStatusFilter(options.filterByStatus)
  // A detached job's state is its queued resource's and its workers' exit statuses in the bucket: read when not final.
  const records = await Promise.all(
    (await deps.store.list()).map((r) =>
      r.spec.detached && !FINAL_STATUSES.has(r.status) ? refreshDetached(r, options.timing, detachedDeps(deps)) : r,
    ),
  )
  const views = records.map((r) => jobView(r, deps)).filter((v) => status === undefined || v.status === status)
  for (const v of views) {
    if (v.supervisor === 'gone') deps.console.warn(vmJobSupervisorGone({id: v.id, status: v.status}))
  }
  return views
}

export interface VmJobLogsOptions {
  readonly id: string
  /** As typed: checked here (a worker index). */
  readonly worker?: string
  /** As typed: ssh, gcsfuse, docker, conda, venv, code, command (the default), or supervisor. */
  readonly module?: string
  readonly follow: boolean
  readonly pollMs: number
  /** Retries of a detached job's reads from the bucket. */
  readonly timing: VmJobSupervisorOptions['timing']
}

/** The log a `logs` call reads: the module's of the worker, or the command's of its latest attempt. */
export function logName(record: VmJobRecord, module: string, worker: number): string {
  if (module === 'supervisor') return 'supervisor'
  if (module === 'command') return `command_worker_${worker}.attempt-${Math.max(record.attempt, 1)}`
  return `${module}_worker_${worker}`
}

/** Prints a log (and with follow, what is appended until the job ends and its supervisor is gone). */
export async function vmJobLogs(
  options: VmJobLogsOptions,
  deps: VmJobDeps & {output: (chunk: Buffer) => void},
): Promise<{log: string; bytes: number}> {
  const input = vmJobLogsInputFromFlags(options)
  let record = await readJob(options.id, deps)
  if (record.spec.detached) return detachedLogs(record, input.worker ?? 0, options.timing, deps)
  const module = input.module
  const worker = input.worker ?? (record.spec.command.workers === 'all' ? 0 : (record.spec.command.workers[0] ?? 0))
  let name = logName(record, module, worker)
  const available = await deps.store.logs(record.id)
  if (!options.follow && !available.includes(name)) {
    throw new XpkError('not-found', `Job ${record.id} has no ${name} log yet.`, {
      hints: [`Its logs: ${available.join(', ') || 'none yet'}. --follow waits for it.`],
    })
  }
  let offset = 0
  for (;;) {
    const chunk = await deps.store.readLog(record.id, name, offset)
    if (chunk.length > 0) deps.output(chunk)
    offset += chunk.length
    if (!options.follow) return {log: deps.store.logPath(record.id, name), bytes: offset}
    record = (await deps.store.read(record.id)) ?? record
    const next = logName(record, module, worker)
    if (next !== name) {
      // A new attempt (after a recovery): its output follows the last attempt's.
      name = next
      offset = 0
      continue
    }
    const supervised = record.supervisor !== undefined && deps.processes.alive(record.supervisor.pid)
    if (FINAL_STATUSES.has(record.status) && !supervised) {
      const rest = await deps.store.readLog(record.id, name, offset)
      if (rest.length > 0) deps.output(rest)
      return {log: deps.store.logPath(record.id, name), bytes: offset + rest.length}
    }
    await deps.sleep(options.pollMs, deps.signal)
  }
}

/** A detached job's finished log of one worker (global index), from the bucket; the live logs' link on stderr. */
async function detachedLogs(
  record: VmJobRecord,
  worker: number,
  timing: VmJobSupervisorOptions['timing'],
  deps: Parameters<typeof vmJobLogs>[1],
): Promise<{log: string; bytes: number}> {
  const detached = record.spec.detached!
  const slice = Math.floor(worker / detached.workersPerSlice)
  const inSlice = worker % detached.workersPerSlice
  const live = detachedLogsUrl(record.spec.project, detached.runName, {slice, worker: inSlice})
  const object = `gs://${detached.bucket}/${detachedLogObject(detached.prefix, slice, inSlice)}`
  if (slice >= detached.numSlices) {
    throw new UsageError(
      `--worker ${worker}: job ${record.id} has ${detached.numSlices * detached.workersPerSlice} workers.`,
      {
        flag: '--worker',
      },
    )
  }
  const text = await detachedLog(record, slice, inSlice, timing, detachedDeps(deps))
  deps.console.info(vmJobDetachedLogs({id: record.id, object, live}))
  if (!text) {
    throw new XpkError(
      'not-found',
      `Worker ${worker} of job ${record.id} has not finished: ${object} is not there yet.`,
      {
        hints: [`Its live log is in Cloud Logging: ${live}`],
      },
    )
  }
  deps.output(text)
  return {log: object, bytes: text.length}
}

/** Stops the command on the workers and the supervisor; the TPU stays. */
export async function stopVmJob(
  options: {id: string; dryRun?: boolean; timing: VmJobSupervisorOptions['timing']},
  deps: VmJobDeps,
): Promise<VmJobView & {plan: VmJobPlanStep[]; dryRun: boolean}> {
  const record = await readJob(options.id, deps)
  refuseDetached(record, 'stop')
  const plan = planStop(record, supervised(record, deps))
  if (options.dryRun) {
    deps.console.result(renderVmJobPlan(plan))
    deps.console.info(vmJobDryRunChanges({command: `vm job stop ${record.id}`}))
    return {...jobView(record, deps), plan, dryRun: true}
  }
  await deps.store.update(record.id, (r) => ({...r, stopRequested: true}), deps.now())
  await deps.store.appendEvent(record.id, {time: deps.now(), event: 'stop-requested'})
  const pid = record.supervisor?.pid
  if (pid !== undefined && record.supervisor?.host === deps.processes.host) deps.processes.signal(pid, 'SIGTERM')
  const stopped = record.workers ? await stopOnWorkers(record, await deps.shell(await jobKeys(deps)), deps.signal) : 0
  // The supervisor writes STOPPED as it exits; a job without one is marked here.
  await waitForSupervisor(pid, deps)
  const final = await deps.store.update(
    record.id,
    (r) =>
      r.status === 'SUCCEEDED' || r.status === 'FAILED'
        ? undefined
        : {...r, status: 'STOPPED', supervisor: undefined, reason: 'stopped by `xpk vm job stop`'},
    deps.now(),
  )
  await deps.store.appendEvent(record.id, {time: deps.now(), event: 'stopped'})
  deps.console.info(vmJobStopped({id: record.id, workers: stopped, tpu: record.spec.tpu.name}))
  return {...jobView(final, deps), plan, dryRun: false}
}

/** A detached job has no supervisor and no recorded workers: `stop`, `resume` and `ssh` do not apply to it. */
function refuseDetached(record: VmJobRecord, verb: 'stop' | 'resume' | 'ssh'): void {
  if (!record.spec.detached) return
  const why = {
    stop: 'it stops when its queued resource goes',
    resume: 'a rescheduled worker runs its startup script again by itself',
    ssh: 'xpk does not know its workers’ addresses',
  }[verb]
  throw new XpkError('conflict', `Job ${record.id} is detached: \`vm job ${verb}\` does not apply (${why}).`, {
    hints: [
      `\`xpk vm job delete ${record.id}\` deletes its queued resource; \`xpk vm job logs ${record.id}\` reads its logs.`,
    ],
  })
}

/** Whether a live supervisor on this machine runs the job. */
function supervised(record: VmJobRecord, deps: Pick<VmJobDeps, 'processes'>): boolean {
  const pid = record.supervisor?.pid
  return pid !== undefined && record.supervisor?.host === deps.processes.host && deps.processes.alive(pid)
}

async function waitForSupervisor(pid: number | undefined, deps: Pick<VmJobDeps, 'processes' | 'sleep' | 'signal'>) {
  for (let i = 0; pid !== undefined && deps.processes.alive(pid) && i < 100; i++) await deps.sleep(100, deps.signal)
}

/** Starts a new supervisor for a job whose supervisor is gone (or that was stopped), in the background or attached. */
export async function resumeVmJob(
  options: {id: string; foreground: boolean; dryRun?: boolean; timing: VmJobSupervisorOptions['timing']},
  deps: VmJobDeps,
): Promise<VmJobView & {plan: VmJobPlanStep[]; dryRun: boolean}> {
  const record = await readJob(options.id, deps)
  refuseDetached(record, 'resume')
  const pid = record.supervisor?.pid
  if (pid !== undefined && record.supervisor?.host === deps.processes.host && deps.processes.alive(pid)) {
    throw new XpkError('conflict', `Job ${record.id} is supervised already (process ${pid}).`, {
      hints: [`\`xpk vm job logs ${record.id} --follow\` follows it.`],
    })
  }
  if (record.status === 'SUCCEEDED') {
    throw new XpkError('conflict', `Job ${record.id} has SUCCEEDED; there is nothing to resume.`, {
      hints: ['Create a new job to run it again.'],
    })
  }
  const {health, state} = await usingTpu(deps, (tpu) => readJobTpu(jobTpu(record, tpu, options.timing, deps)))
  const plan = planResume(record, health, state)
  if (options.dryRun) {
    deps.console.result(renderVmJobPlan(plan))
    deps.console.info(vmJobDryRunChanges({command: `vm job resume ${record.id}`}))
    return {...jobView(record, deps), plan, dryRun: true}
  }
  await deps.store.update(record.id, (r) => ({...r, stopRequested: false, reason: undefined}), deps.now())
  if (options.foreground) {
    const final = await superviseVmJob(record.id, {timing: options.timing}, deps)
    return {...jobView(final, deps), plan, dryRun: false}
  }
  const started = await deps.processes.startSupervisor(record.id, deps.store.logPath(record.id, 'supervisor'))
  deps.console.info(vmJobResumed({id: record.id, pid: started, status: record.status}))
  return {...jobView((await deps.store.read(record.id)) ?? record, deps), plan, dryRun: false}
}

function jobTpu(
  record: VmJobRecord,
  tpu: JobTpu['tpu'],
  timing: VmJobSupervisorOptions['timing'],
  deps: VmJobDeps,
): JobTpu {
  return {tpu, location: {project: record.spec.project, zone: record.spec.tpu.zone}, spec: record.spec, timing, deps}
}

/** Stops the job and deletes its TPU (asks first); `purge` also removes its records and logs. */
export async function deleteVmJob(
  options: {id: string; purge: boolean; dryRun?: boolean; timing: VmJobSupervisorOptions['timing']},
  deps: VmJobDeps,
): Promise<{
  id: string
  tpuDeleted: boolean
  purged: boolean
  /** A detached job's objects in the bucket removed by --purge. */
  objectsDeleted: number
  plan: VmJobPlanStep[]
  dryRun: boolean
}> {
  const record = await readJob(options.id, deps)
  const {spec} = record
  const {health} = await usingTpu(deps, (tpu) => readJobTpu(jobTpu(record, tpu, options.timing, deps)))
  const dir = jobView(record, deps).dir
  const plan = planDelete(record, supervised(record, deps), health !== 'absent', options.purge, dir)
  if (options.dryRun) {
    deps.console.result(renderVmJobPlan(plan))
    deps.console.info(vmJobDryRunChanges({command: `vm job delete ${record.id}`}))
    return {id: record.id, tpuDeleted: false, purged: false, objectsDeleted: 0, plan, dryRun: true}
  }
  await confirmOrStop(deps.console, vmJobConfirmDelete({id: record.id, tpu: spec.tpu.name, zone: spec.tpu.zone}), {
    nothingDone: `Job ${record.id} and its TPU are unchanged.`,
  })
  if (!FINAL_STATUSES.has(record.status) || record.supervisor)
    await stopVmJob({id: record.id, timing: options.timing}, deps).catch(() => undefined)
  const tpuDeleted = await usingTpu(deps, (tpu) => deleteJobTpu(jobTpu(record, tpu, options.timing, deps)))
  const objectsDeleted =
    record.spec.detached && options.purge ? await purgeDetachedObjects(record, options.timing, detachedDeps(deps)) : 0
  if (options.purge) await deps.store.remove(record.id)
  else {
    await deps.store.update(record.id, (r) => ({...r, workers: undefined}), deps.now())
  }
  deps.console.info(vmJobDeleted({id: record.id, tpu: spec.tpu.name, tpuDeleted, purged: options.purge}))
  return {id: record.id, tpuDeleted, purged: options.purge, objectsDeleted, plan, dryRun: false}
}

/** The hidden `vm job supervise ID`: the supervisor process itself. */
export async function runSupervisor(
  options: VmJobSupervisorOptions & {id: string},
  deps: VmJobDeps,
): Promise<VmJobView> {
  const record = await readJob(options.id, deps)
  return jobView(await superviseVmJob(record.id, {timing: options.timing}, deps), deps)
}

/** `vm job ssh`: a login shell on a worker of the job's TPU, as the supervisor reaches it; exits with the shell's status. */
export async function sshVmJob(
  options: {id: string; worker?: string; timing: VmJobSupervisorOptions['timing']},
  deps: VmJobDeps & {
    readonly io: Parameters<RemoteSession['interactive']>[0]
  },
): Promise<{id: string; worker: number; host: string; exitCode: number}> {
  const chosen = vmJobWorkerFromFlag(options.worker)
  const record = await readJob(options.id, deps)
  refuseDetached(record, 'ssh')
  const workers = record.workers ?? []
  if (workers.length === 0) {
    throw new XpkError('conflict', `Job ${record.id} has no TPU right now (${record.status}).`, {
      hints: [`\`xpk vm job list\` shows its state; \`xpk vm job resume ${record.id}\` requests the TPU again.`],
    })
  }
  const index = chosen ?? 0
  const w = workers.find((x) => x.worker === index)
  if (!w) {
    throw new UsageError(`--worker ${index}: the job's TPU has workers 0 to ${workers.length - 1}.`, {flag: '--worker'})
  }
  const {sshUser, sshPort, internalIp} = record.access
  const host = internalIp ? w.internalIp : (w.externalIp ?? w.internalIp)
  const login = record.spec.ssh?.login
  const keys = login
    ? {privateKeyPath: login.privateKey, publicKey: (await deps.readFile(login.publicKey)).toString().trim()}
    : await jobKeys(deps)
  const session = await (
    await deps.shell(keys)
  ).connect({host, port: sshPort, user: sshUser, identity: w.identity}, deps.signal)
  try {
    const exit = await session.interactive(deps.io)
    const exitCode = exit.code ?? 255
    if (exitCode !== 0) {
      throw new WorkerFailure(exitCode, `The shell on worker ${index} of job ${record.id} exited ${exitCode}.`, {
        id: record.id,
        worker: index,
        host,
        exitCode,
      })
    }
    return {id: record.id, worker: index, host, exitCode}
  } finally {
    session.close()
  }
}
