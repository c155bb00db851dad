/**
 * `xpk storage delete`: a Filestore storage detached and its instance deleted. Everything is read first (the Storage
 * object and what it names, the pods that mount its claim, the instance its volume names), the plan made by the core
 * (core/storage/delete-plan.ts over the detach plan), shown, always asked about (the data goes; --force skips), then
 * applied on the step graph: the detach, the Storage object last, then the instance's deletion, waited for until the
 * Filestore API says it is done.
 */
import {XpkError} from '../core/errors.js'
import {
  storageDeleteConfirm,
  storageDeleteDone,
  storageDeleteDryRun,
  storageDeletePlan,
} from '../core/messages/storage.js'
import {
  filestoreInstanceOf,
  planStorageDelete,
  renderStorageDeletePlan,
  type DeleteStep,
  type FilestoreInstanceRef,
} from '../core/storage/delete-plan.js'
import {planStorageDetach} from '../core/storage/detach-plan.js'
import {readVolume} from '../core/storage/observed.js'
import type {Timing} from '../core/timing.js'
import {unlessAborted, withRetries, type RetryOptions} from '../executor/retry.js'
import {runStepsOrThrow, type StepOutcome} from '../executor/step-graph.js'
import type {Console} from '../ports/console.js'
import type {FilestoreClient} from '../ports/filestore.js'
import {confirmOrStop} from './confirm.js'
import {finishedOperation, type InstanceWork} from './filestore-operations.js'
import {checkStorageName, detachGraph, readStorageToDetach} from './storage-detach.js'
import {checkInput, reachCluster, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

export interface StorageDeleteOptions extends WorkloadTarget {
  /** The NAME argument. */
  readonly name?: string
  readonly dryRun: boolean
  readonly timing: Pick<Timing, 'retry' | 'operations'>
}

export interface StorageDeleteDeps extends ClusterAccessDeps {
  readonly console: Console
  /** Connects to the Filestore API. */
  readonly filestore: () => Promise<FilestoreClient>
}

export interface StorageDeleteResult {
  readonly storage: string
  readonly cluster: string
  /** The plan, as data: the detach's steps, then the instance's. */
  readonly steps: readonly DeleteStep[]
  readonly dryRun: boolean
  readonly applied: boolean
  readonly outcomes: readonly StepOutcome[]
}

/**
 * @throws UsageErrors for bad input (before any request); not-found (exit 4) for a storage the cluster lacks;
 *   conflict (exit 6) for a storage of another type or one that workloads mount
 */
export async function deleteStorage(
  options: StorageDeleteOptions,
  deps: StorageDeleteDeps,
): Promise<StorageDeleteResult> {
  const name = checkInput(options, () => checkStorageName(options.name, 'delete'))
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube} = await reachCluster(options, deps, retry)
  const cluster = options.cluster ?? kube.target
  const {storage, storages, live, volume} = await readStorageToDetach(kube, name, cluster, retry)
  const volumeHandle = volume === undefined ? null : readVolume(volume).volumeHandle
  const ref = storage.type === 'gcpfilestore' ? filestoreInstanceOf(volumeHandle) : undefined
  const filestore = ref === undefined ? undefined : await unlessAborted(deps.filestore(), deps.signal)
  try {
    const instance =
      ref === undefined || filestore === undefined
        ? undefined
        : await withRetries(() => filestore.getInstance({project: ref.project, location: ref.location}, ref.id), retry)
    const plan = planStorageDelete({
      storage,
      volumeHandle,
      detach: planStorageDetach({cluster, storage, live, others: storages}),
      mountedBy: live.claim?.usedBy ?? [],
      instance,
    })
    const shown = renderStorageDeletePlan(plan)
    const result = {...plan, dryRun: options.dryRun, applied: false, outcomes: [] as StepOutcome[]}
    const {console} = deps
    if (options.dryRun) {
      console.result(shown)
      console.info(storageDeleteDryRun())
      return result
    }
    console.info(storageDeletePlan({plan: shown}))
    await confirmOrStop(console, storageDeleteConfirm({storage: name, instance: ref!.id}), {
      nothingDone: 'Nothing was deleted.',
      hints: [`\`xpk storage detach ${name}\` removes it from the cluster and keeps the instance.`],
    })
    const graph = detachGraph(
      plan.steps.filter((s) => s.resource !== 'filestoreInstance'),
      kube,
      retry,
    )
    const last = graph.at(-1)
    const step = plan.steps.find((s) => s.resource === 'filestoreInstance')
    if (step?.action === 'delete' && step.spec !== null && filestore !== undefined) {
      const spec = step.spec
      graph.push({
        id: 'delete:filestoreInstance',
        line: `filestore ${spec.id}`,
        resource: step.resource,
        name: step.name,
        action: 'delete',
        needs: last ? [{id: last.id, because: 'the storage was not detached'}] : [],
        run: ({progress}) => deleteInstance({filestore, timing: options.timing, retry, progress}, spec),
      })
    }
    const outcomes = await runStepsOrThrow(graph, {board: undefined, signal: deps.signal, now: deps.now})
    console.info(storageDeleteDone({storage: name, instance: ref!.id, deleted: step?.action === 'delete'}))
    return {...result, applied: true, outcomes}
  } finally {
    await filestore?.close()
  }
}

/** Deletes the instance and waits until the Filestore API says the deletion is done (an instance gone counts). */
async function deleteInstance(work: InstanceWork, ref: FilestoreInstanceRef): Promise<void> {
  const {filestore, retry} = work
  const where = {project: ref.project, location: ref.location}
  let operation
  try {
    operation = await withRetries(() => filestore.deleteInstance(where, ref.id), retry)
  } catch (error) {
    // Gone between the read and the delete (another run): what was asked is done.
    if (error instanceof XpkError && error.kind === 'not-found') return
    throw error
  }
  work.progress('deleting')
  const failed = await finishedOperation(work, operation.name)
  if (failed) {
    throw new XpkError('failed', `Deleting Filestore instance ${ref.id} failed: ${failed.message}`, {
      hints: [
        'The storage is detached already; delete the instance with ' +
          `\`gcloud filestore instances delete ${ref.id} --location=${ref.location} --project=${ref.project}\`.`,
      ],
    })
  }
}
