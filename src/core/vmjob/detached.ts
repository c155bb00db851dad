/**
 * Detached TPU VM jobs (`xpk vm job create --detach`, MaxText's multihost_job): the code goes to a bucket, a queued
 * resource's nodes carry a startup script (src/templates/detached-startup.ts, static text) that fetches and runs it,
 * and the logs go back to the bucket. Every value the script needs reaches it as node metadata, named here: the
 * script reads them from the metadata server, so no user value is ever spliced into shell text.
 */

/** The metadata attributes the startup script reads (besides `tpu-env`, which the TPU runtime writes). */
export const DETACHED_METADATA = {
  /** The run name (R): names the queued resource and the objects' prefix. */
  run: 'xpk-run',
  /** The bucket (B), without gs://. */
  bucket: 'xpk-bucket',
  /** The objects' prefix, `D/R` (or `R` without --bucket-dir), without a trailing slash. */
  prefix: 'xpk-prefix',
  /** The object name of the code archive (a tar, content-addressed: `<prefix>/code-<sha256>.tar`); empty: no code. */
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
