/**
 * Detached TPU VM jobs (`xpk vm job create --detach`, MaxText's multihost_job): nothing of the user's stays
 * connected. The code goes to the bucket as one content-addressed archive (an unchanged directory is not uploaded
 * again), one queued resource is requested whose nodes carry the startup script and its metadata, and the job is
 * recorded; its state is read back from the queued resource and the exit statuses the workers leave in the bucket.
 */
import {createHash} from 'node:crypto'

import {XpkError} from '../core/errors.js'
import {
  vmJobDetachedCreated,
  vmJobDetachedUnchanged,
  vmJobDetachedUploaded,
  vmJobDetachedWaiting,
} from '../core/messages/vm-job.js'
import {
  archiveObject,
  bucketUrl,
  detachedLogObject,
  detachedLogsUrl,
  detachedMetadata,
  detachedStatus,
  detachedStatusPrefix,
  gsPath,
} from '../core/vmjob/detached.js'
import type {VmJobRecord} from '../core/vmjob/record.js'
import type {VmJobDetached, VmJobSpec} from '../core/vmjob/spec.js'
import {withRetries} from '../executor/retry.js'
import type {CloudStorageClient} from '../ports/cloud-storage.js'
import type {ScriptDirEntries, ScriptDirListing} from '../ports/remote-shell.js'
import type {TpuClient} from '../ports/tpu.js'
import type {VmJobStore} from '../ports/vm-jobs.js'
import {pollWait, tpuRetry, usingTpu, type VmApiDeps, type VmTiming} from './vm-common.js'

export interface DetachedDeps extends VmApiDeps {
  readonly store: VmJobStore
  readonly storage: (signal: AbortSignal) => Promise<CloudStorageClient>
  readonly list: (dir: string) => Promise<ScriptDirListing>
  readonly pack: (listing: ScriptDirEntries) => Promise<{tar: Buffer; files: number; bytes: number}>
  /** The startup script (src/templates) and the API base URLs the workers use. */
  readonly startupScript: string
  readonly endpoints: {readonly storage: string; readonly tpu: string}
}

/** What a detached create did: the archive (uploaded, or found unchanged), the queued resource, the links. */
export interface DetachedCreated {
  readonly archive: {readonly object: string; readonly uploaded: boolean; readonly bytes: number} | null
  readonly queuedResource: string
  readonly links: {readonly logs: string; readonly worker0Logs: string; readonly bucket: string}
}

async function usingStorage<T>(deps: DetachedDeps, use: (client: CloudStorageClient) => Promise<T>): Promise<T> {
  const client = await deps.storage(deps.signal)
  try {
    return await use(client)
  } finally {
    await client.close()
  }
}

/**
 * Uploads the code (when a directory is shipped), requests the queued resource, and records the job. Every check of
 * the input happened before (vm-job-input.ts and the bucket's existence in `checkDetachedBucket`).
 */
export async function startDetachedJob(
  spec: VmJobSpec,
  scriptDir: string | undefined,
  timing: VmTiming,
  deps: DetachedDeps,
): Promise<{record: VmJobRecord; created: DetachedCreated}> {
  const detached = spec.detached!
  let archive: DetachedCreated['archive'] = null
  if (scriptDir !== undefined) {
    const listing = await deps.list(scriptDir)
    if ('missing' in listing) throw new XpkError('failed', `The script directory ${scriptDir} is ${listing.missing}.`)
    const {tar} = await deps.pack(listing)
    const object = archiveObject(detached, createHash('sha256').update(tar).digest('hex'))
    archive = await usingStorage(deps, async (storage) => {
      const found = await withRetries(() => storage.getObject(detached.bucket, object), tpuRetry(timing, deps))
      if (found && found.size === tar.length) {
        deps.console.info(vmJobDetachedUnchanged({object: `gs://${detached.bucket}/${object}`}))
        return {object, uploaded: false, bytes: tar.length}
      }
      await withRetries(
        () => storage.uploadObject(detached.bucket, object, tar, {contentType: 'application/x-tar'}),
        tpuRetry(timing, deps),
      )
      deps.console.info(vmJobDetachedUploaded({object: `gs://${detached.bucket}/${object}`, bytes: tar.length}))
      return {object, uploaded: true, bytes: tar.length}
    })
  }
  const withArchive: VmJobSpec = {...spec, detached: {...detached, archive: archive?.object ?? null}}
  const metadata = detachedMetadata(withArchive, withArchive.detached!, {
    startupScript: deps.startupScript,
    storageEndpoint: deps.endpoints.storage,
    tpuEndpoint: deps.endpoints.tpu,
  })
  await usingTpu(deps, async (tpu) => {
    try {
      await withRetries(
        () =>
          tpu.createQueuedResource(location(spec), {
            id: detached.runName,
            nodePrefix: detached.runName,
            numSlices: detached.numSlices,
            acceleratorType: spec.tpu.accelerator,
            runtimeVersion: spec.tpu.runtimeVersion,
            capacity: detached.capacity,
            ...(detached.reservation ? {reservation: detached.reservation} : {}),
            metadata,
          }),
        tpuRetry(timing, deps),
      )
    } catch (error) {
      if (error instanceof XpkError && error.kind === 'conflict' && /already exists/i.test(error.message)) {
        throw new XpkError('conflict', `A queued resource ${detached.runName} exists already.`, {
          hints: ['Pick another --run-name (each run is its own queued resource), or delete the old one first.'],
          cause: error,
        })
      }
      throw error
    }
  })
  const record = await deps.store.create(
    withArchive,
    {sshUser: '-', sshPort: 22, internalIp: false, pollMs: 0},
    undefined,
    deps.now(),
  )
  await deps.store.appendEvent(record.id, {time: deps.now(), event: 'requested', detail: detached.runName})
  const links = {
    logs: detachedLogsUrl(spec.project, detached.runName),
    worker0Logs: detachedLogsUrl(spec.project, detached.runName, {slice: 0, worker: 0}),
    bucket: bucketUrl(detached.bucket, detached.prefix),
  }
  deps.console.info(
    vmJobDetachedCreated({
      id: record.id,
      queuedResource: detached.runName,
      numSlices: detached.numSlices,
      type: spec.tpu.accelerator,
      bucket: gsPath(detached.bucket, detached.prefix),
      logs: links.logs,
      worker0Logs: links.worker0Logs,
    }),
  )
  return {record, created: {archive, queuedResource: detached.runName, links}}
}

const location = (spec: VmJobSpec) => ({project: spec.project, zone: spec.tpu.zone})

/** The exit statuses the workers left in the bucket, by `slice-S-worker-W`. */
async function exitStatuses(storage: CloudStorageClient, detached: VmJobDetached): Promise<Map<string, number>> {
  const listing = await storage.listObjects(detached.bucket, {prefix: detachedStatusPrefix(detached.prefix)})
  const found = new Map<string, number>()
  await Promise.all(
    listing.objects.map(async (o) => {
      const text = (await storage.downloadObject(detached.bucket, o.name))?.toString().trim() ?? ''
      if (/^\d+$/.test(text)) found.set(o.name.slice(o.name.lastIndexOf('/') + 1), Number(text))
    }),
  )
  return found
}

/** Reads a detached job's state from its queued resource and the bucket, and records it when it changed. */
export async function refreshDetached(record: VmJobRecord, timing: VmTiming, deps: DetachedDeps): Promise<VmJobRecord> {
  const detached = record.spec.detached!
  const [queued, statuses] = await Promise.all([
    usingTpu(deps, (tpu: TpuClient) =>
      withRetries(() => tpu.getQueuedResource(location(record.spec), detached.runName), tpuRetry(timing, deps)),
    ),
    usingStorage(deps, (storage) => withRetries(() => exitStatuses(storage, detached), tpuRetry(timing, deps))),
  ])
  const expected = detached.numSlices * detached.workersPerSlice
  const {status, reason} = detachedStatus(queued, [...statuses.values()], expected)
  const exits = [...statuses.entries()].map(([name, code]) => ({worker: workerIndex(name, detached), code}))
  if (status === record.status && reason === record.reason && exits.length === (record.exits?.length ?? 0))
    return record
  const updated = await deps.store.update(
    record.id,
    (current) => ({...current, status, ...(reason ? {reason} : {reason: undefined}), exits}),
    deps.now(),
  )
  if (status !== record.status)
    await deps.store.appendEvent(record.id, {time: deps.now(), event: eventOf(status), detail: reason})
  return updated
}

/** The global worker index of `slice-S-worker-W` (slices in order). */
function workerIndex(name: string, detached: VmJobDetached): number {
  const m = /^slice-(\d+)-worker-(\d+)$/.exec(name)
  return m ? Number(m[1]) * detached.workersPerSlice + Number(m[2]) : -1
}

function eventOf(status: VmJobRecord['status']) {
  if (status === 'SUCCEEDED') return 'finished' as const
  if (status === 'FAILED') return 'failed' as const
  if (status === 'PREEMPTED') return 'preempted' as const
  if (status === 'STOPPED') return 'stopped' as const
  return status === 'RUNNING' ? ('running' as const) : ('requested' as const)
}

/**
 * `--wait`: polls until every worker reported its exit status. Resolves the final record; the caller maps it to the
 * exit code (0 when every worker succeeded, 125 otherwise); the time limit is the caller's (exit 124).
 */
export async function waitForDetached(record: VmJobRecord, timing: VmTiming, deps: DetachedDeps): Promise<VmJobRecord> {
  let current = record
  let reported = -1
  for (let poll = 0; ; poll++) {
    current = await refreshDetached(current, timing, deps)
    const detached = current.spec.detached!
    const done = current.exits?.length ?? 0
    if (done !== reported) {
      reported = done
      deps.console.info(
        vmJobDetachedWaiting({
          id: current.id,
          done,
          expected: detached.numSlices * detached.workersPerSlice,
          status: current.status,
        }),
      )
    }
    if (['SUCCEEDED', 'FAILED', 'STOPPED'].includes(current.status)) return current
    await pollWait(poll, timing, deps)
  }
}

/** A detached job's finished logs from the bucket: one worker's (slice, worker), or undefined when not there yet. */
export async function detachedLog(
  record: VmJobRecord,
  slice: number,
  worker: number,
  timing: VmTiming,
  deps: DetachedDeps,
): Promise<Buffer | undefined> {
  const detached = record.spec.detached!
  return usingStorage(deps, (storage) =>
    withRetries(
      () => storage.downloadObject(detached.bucket, detachedLogObject(detached.prefix, slice, worker)),
      tpuRetry(timing, deps),
    ),
  )
}

/** Deletes every object under a detached job's prefix (its code, logs and exit statuses): `vm job delete --purge`. */
export async function purgeDetachedObjects(record: VmJobRecord, timing: VmTiming, deps: DetachedDeps): Promise<number> {
  const detached = record.spec.detached!
  return usingStorage(deps, async (storage) => {
    const listing = await withRetries(
      () => storage.listObjects(detached.bucket, {prefix: `${detached.prefix}/`}),
      tpuRetry(timing, deps),
    )
    let deleted = 0
    for (const o of listing.objects) {
      if (await withRetries(() => storage.deleteObject(detached.bucket, o.name), tpuRetry(timing, deps))) deleted++
    }
    return deleted
  })
}
