/**
 * Detached TPU VM jobs (`xpk vm job create --detach`, MaxText's multihost_job): the code goes to a bucket, a queued
 * resource's nodes carry a startup script (src/templates/detached-startup.ts, static text) that fetches and runs it,
 * and the logs go back to the bucket. Every value the script needs reaches it as node metadata, named here: the
 * script reads them from the metadata server, so no user value is ever spliced into shell text.
 */

import {throwIfProblems, UsageError} from '../errors.js'
import {INTEGER_FLAGS, parseInteger} from '../input.js'
import {idProblem} from '../vm/naming.js'
import type {VmJobStatus} from './record.js'
import type {VmJobDetached, VmJobSpec} from './spec.js'

/** The metadata attributes the startup script reads (besides `tpu-env`, which the TPU runtime writes). */
export const DETACHED_METADATA = {
  /** The run name (R): names the queued resource and the objects' prefix. */
  run: 'xpk-run',
  /** The bucket (B), without gs://. */
  bucket: 'xpk-bucket',
  /** The objects' prefix, `D/R` (or `R` without --bucket-dir), without a trailing slash. */
  prefix: 'xpk-prefix',
  /** The object name of the code archive (a tar, content-addressed: `D/xpk-code/<sha256>.tar`); empty: no code. */
  archive: 'xpk-archive',
  /** The command, run by bash in the unpacked code's directory. */
  command: 'xpk-command',
  /** Slices and workers per slice: how many status objects mean every worker is done. */
  numSlices: 'xpk-num-slices',
  workersPerSlice: 'xpk-workers-per-slice',
  /** `true` keeps the queued resource when every worker is done; otherwise slice 0 worker 0 deletes it. */
  keep: 'xpk-keep',
  /** The queued resource's full name, `projects/P/locations/Z/queuedResources/R` (what slice 0 worker 0 deletes). */
  queuedResource: 'xpk-queued-resource',
  /** Base URLs of the APIs (Google's unless xpk was pointed elsewhere): `https://storage.googleapis.com`. */
  storageEndpoint: 'xpk-storage-endpoint',
  tpuEndpoint: 'xpk-tpu-endpoint',
  /** `false` skips installing the Ops Agent that streams the log to Cloud Logging. */
  opsAgent: 'xpk-ops-agent',
} as const

/** Where a worker's log goes: `<prefix>/logs/slice-S-worker-W.log`, its last line `xpk-exit-status N`. */
export const detachedLogObject = (prefix: string, slice: number, worker: number) =>
  `${prefix}/logs/slice-${slice}-worker-${worker}.log`

/** A worker's exit status, written when its command ended: `<prefix>/status/slice-S-worker-W` holding `N`. */
export const detachedStatusObject = (prefix: string, slice: number, worker: number) =>
  `${prefix}/status/slice-${slice}-worker-${worker}`

/** The prefix of every status object of a run. */
export const detachedStatusPrefix = (prefix: string) => `${prefix}/status/`

/** The log file on the worker that the Ops Agent streams to Cloud Logging (one file per worker). */
export const DETACHED_LOG_FILE = '/var/log/xpk-job.log'

/** `--detach`'s flags, as typed. */
export interface DetachedFlags {
  readonly bucket?: string
  readonly bucketDir?: string
  readonly runName?: string
  readonly numSlices?: string
  readonly reserved?: boolean
  readonly reservation?: string
  readonly spot?: boolean
  readonly bestEffort?: boolean
  readonly keep?: boolean
}

// Cloud Storage bucket names (the dotted, domain-named form aside): 3-63 of these, starting and ending alphanumeric.
const BUCKET = /^[a-z0-9][a-z0-9_.-]{1,61}[a-z0-9]$/

/** The default run name, multihost_job's `$USER-<timestamp>` as a queued resource id takes it. */
export function defaultRunName(user: string, now: Date): string {
  const stamp = now.toISOString().slice(0, 19).replace(/[-:T]/g, '').toLowerCase()
  const who =
    user
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-')
      .replace(/^[^a-z]+/, '') || 'xpk'
  return `${who.slice(0, 40)}-${stamp}`
}

/** Checks `--detach`'s flags into the detached part of the spec (the archive is decided when the code is packed). */
export function detachedFromFlags(
  flags: DetachedFlags,
  context: {readonly user: string; readonly now: Date; readonly workersPerSlice: number},
): Omit<VmJobDetached, 'archive'> {
  const problems: UsageError[] = []
  if (flags.bucket === undefined) {
    problems.push(
      new UsageError('--bucket is required with --detach: the code and the logs go to the bucket.', {
        flag: '--bucket',
        hints: ['For example --bucket my-bucket (in the TPU zone’s region).'],
      }),
    )
  } else if (!BUCKET.test(flags.bucket)) {
    problems.push(
      new UsageError(
        `--bucket ${JSON.stringify(flags.bucket)} is not a bucket name (3-63 lowercase letters, digits, -, _ and .; no gs://).`,
        {
          flag: '--bucket',
        },
      ),
    )
  }
  const dir = flags.bucketDir?.replace(/^\/+|\/+$/g, '')
  if (flags.bucketDir !== undefined && (dir === '' || /(^|\/)\.\.?(\/|$)|\/\//.test(dir!))) {
    problems.push(
      new UsageError(`--bucket-dir ${JSON.stringify(flags.bucketDir)}: give a folder of the bucket, like runs/llama.`, {
        flag: '--bucket-dir',
      }),
    )
  }
  const runName = flags.runName ?? defaultRunName(context.user, context.now)
  const runProblem = idProblem(runName, '--run-name', 3)
  if (runProblem) problems.push(runProblem)
  let numSlices = 1
  if (flags.numSlices !== undefined) {
    const parsed = parseInteger(flags.numSlices, INTEGER_FLAGS['vm:num-slices'])
    if ('problem' in parsed) problems.push(new UsageError(`--num-slices: ${parsed.problem}.`, {flag: '--num-slices'}))
    else numSlices = parsed.value
  }
  if (flags.reservation !== undefined && !flags.reserved) {
    problems.push(
      new UsageError('--reservation names the reservation of --reserved: add --reserved.', {flag: '--reservation'}),
    )
  }
  throwIfProblems(problems)
  const capacity = flags.reserved ? 'reserved' : flags.spot ? 'spot' : flags.bestEffort ? 'best-effort' : 'on-demand'
  return {
    bucket: flags.bucket!,
    prefix: dir ? `${dir}/${runName}` : runName,
    runName,
    numSlices,
    workersPerSlice: context.workersPerSlice,
    capacity,
    ...(flags.reservation ? {reservation: flags.reservation} : {}),
    keep: flags.keep ?? false,
  }
}

/**
 * The content-addressed name of a code archive, shared by the runs of one --bucket-dir: the same directory is the
 * same object, uploaded once however many runs use it (`vm job delete --purge` leaves it: other runs may).
 */
export function archiveObject(detached: {readonly prefix: string; readonly runName: string}, sha256: string): string {
  const dir = detached.prefix.slice(0, -detached.runName.length)
  return `${dir}xpk-code/${sha256.slice(0, 32)}.tar`
}

/** The metadata of the queued resource's nodes: the startup script and every value it reads. */
export function detachedMetadata(
  spec: VmJobSpec,
  detached: VmJobDetached,
  context: {readonly startupScript: string; readonly storageEndpoint: string; readonly tpuEndpoint: string},
): Record<string, string> {
  const m = DETACHED_METADATA
  return {
    ...spec.tpu.metadata,
    'startup-script': context.startupScript,
    [m.run]: detached.runName,
    [m.bucket]: detached.bucket,
    [m.prefix]: detached.prefix,
    [m.archive]: detached.archive ?? '',
    [m.command]: spec.command.run,
    [m.numSlices]: String(detached.numSlices),
    [m.workersPerSlice]: String(detached.workersPerSlice),
    [m.keep]: String(detached.keep),
    [m.queuedResource]: `projects/${spec.project}/locations/${spec.tpu.zone}/queuedResources/${detached.runName}`,
    [m.storageEndpoint]: context.storageEndpoint.replace(/\/+$/, ''),
    [m.tpuEndpoint]: context.tpuEndpoint.replace(/\/+$/, ''),
  }
}

/** A job's state, from its queued resource (undefined when gone) and the exit statuses found in the bucket. */
export function detachedStatus(
  queued: {readonly state: string} | undefined,
  statuses: readonly number[],
  expected: number,
): {status: VmJobStatus; reason?: string} {
  if (statuses.length >= expected) {
    const failed = statuses.filter((s) => s !== 0)
    return failed.length === 0
      ? {status: 'SUCCEEDED'}
      : {
          status: 'FAILED',
          reason: `${failed.length} of ${expected} workers exited non-zero (highest ${Math.max(...failed)})`,
        }
  }
  if (!queued) {
    return {
      status: 'STOPPED',
      reason: `the queued resource is gone with ${statuses.length} of ${expected} workers done`,
    }
  }
  if (queued.state === 'FAILED') return {status: 'FAILED', reason: 'the queued resource FAILED'}
  if (queued.state === 'SUSPENDED' || queued.state === 'SUSPENDING') return {status: 'PREEMPTED'}
  if (queued.state === 'ACTIVE') return {status: 'RUNNING'}
  return {status: 'QUEUEING'}
}

/** The Cloud Logging query of a detached job's log files (every worker, or one), for the last week. */
export function detachedLogsUrl(project: string, runName: string, worker?: {slice: number; worker: number}): string {
  const node = (slice: number) => (slice === 0 && worker === undefined ? runName : `${runName}-${slice}`)
  const filter = [
    'resource.type="tpu_worker"',
    `log_id("${detachedLogName(runName)}")`,
    worker
      ? `resource.labels.node_id="${node(worker.slice)}" OR resource.labels.node_id="${runName}"`
      : `resource.labels.node_id=~"^${runName}(-[0-9]+)?$"`,
    ...(worker ? [`resource.labels.worker_id="${worker.worker}"`] : []),
  ].join('\n')
  const quote = (text: string) =>
    encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `https://console.cloud.google.com/logs/query;query=${quote(filter)};duration=P7D?project=${quote(project)}`
}

/** The bucket folder of a job in the Cloud Console. */
export function bucketUrl(bucket: string, prefix: string): string {
  return `https://console.cloud.google.com/storage/browser/${bucket}/${prefix}`
}

/** For messages: the job's objects as gs:// (quoted only when needed). */
export const gsPath = (bucket: string, prefix: string) => `gs://${bucket}/${prefix}/`

/** A worker's status when its command could not be run (the archive could not be downloaded or unpacked). */
export const DETACHED_NOT_RUN_STATUS = 126

/**
 * The Cloud Logging log name the Ops Agent gives a worker's log (its receiver id): the run name, any character other
 * than an ASCII letter, digit, `_` or `-` as `_`, then `_log` (as multihost_job names it). Every worker's log has it; the
 * label `agent.googleapis.com/log_file_path` is {@link DETACHED_LOG_FILE}.
 */
export function detachedLogName(run: string): string {
  // Byte by byte, as the script's `tr` does: a letter outside ASCII is one `_` per byte of its UTF-8.
  const kept = [...new TextEncoder().encode(run)].map((byte) => {
    const char = String.fromCharCode(byte)
    return /^[A-Za-z0-9_-]$/.test(char) ? char : '_'
  })
  return `${kept.join('')}_log`
}
