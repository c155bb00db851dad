/**
 * `xpk storage create`: a Filestore instance created on the cluster's VPC network, waited for until READY, then
 * attached as `storage attach --type gcpfilestore --instance I` attaches it. Every input is checked first; then
 * everything is read (the cluster from GKE, the instance in the tier's location, what the cluster holds of the name),
 * the plan made by the core (core/storage/create-plan.ts over the attach plan), shown, and applied: the instance's
 * steps on the step graph (its progress, the retry policy, Ctrl-C), then the attach's steps, planned again with the
 * instance as read once READY (its address is the one value known only then), through the attach's own executor.
 * A re-run of a create that is done sends nothing.
 */
import {planStorageClusterUpdates} from '../core/cluster/storage-needs.js'
import {XpkError} from '../core/errors.js'
import {storageCreateDone, storageCreateDryRun, storageCreatePlan} from '../core/messages/storage.js'
import {planStorageAttach, renderStorageAttachPlan, type AttachLive} from '../core/storage/attach-plan.js'
import type {FilestoreInstance} from '../core/storage/backends.js'
import {
  createRequestFromFlags,
  filestoreLocation,
  instanceToAttach,
  planStorageCreate,
  type CreateFlags,
  type CreateStep,
  type FilestoreCreateSpec,
  type InstanceStep,
} from '../core/storage/create-plan.js'
import type {FilestoreInstanceRef} from '../core/storage/delete-plan.js'
import type {Timing} from '../core/timing.js'
import {pollUntil, unlessAborted, withRetries, type RetryOptions} from '../executor/retry.js'
import {runStepsOrThrow, type GraphStep, type StepOutcome} from '../executor/step-graph.js'
import type {FilestoreClient} from '../ports/filestore.js'
import {requireCluster, type ClusterName} from './cluster-lookup.js'
import {applyAttach, readLive, readManifest, type StorageAttachDeps} from './storage-attach.js'
import {checkInput, type WorkloadTarget} from './workload-cluster.js'
import {finishedOperation, type InstanceWork} from './filestore-operations.js'

export interface StorageCreateOptions extends WorkloadTarget {
  /** The flags as given (NAME included), checked by core/storage/create-plan.ts. */
  readonly flags: CreateFlags
  readonly dryRun: boolean
  readonly timing: Pick<Timing, 'retry' | 'operations'>
}

/** The attach's: GKE, the cluster's API, the Filestore API, the --manifest file; no Cloud Storage. */
export type StorageCreateDeps = Omit<StorageAttachDeps, 'cloudStorage'>

/** A Filestore attach plans no bucket grant, so it never connects to Cloud Storage. */
const NO_CLOUD_STORAGE = () => Promise.reject(new Error('A Filestore storage has no bucket to grant.'))

export interface StorageCreateResult {
  readonly storage: string
  readonly cluster: string
  /** Where the instance is. */
  readonly instance: FilestoreInstanceRef
  /** The plan, as data: the instance's steps, then the attach's (as applied, once the instance had its address). */
  readonly steps: readonly CreateStep[]
  readonly warnings: readonly string[]
  readonly dryRun: boolean
  readonly applied: boolean
  readonly outcomes: readonly StepOutcome[]
}

/**
 * @throws UsageErrors for bad input (before any request); not-found (exit 4) for a cluster that does not exist;
 *   conflict (exit 6) for an instance of the id that differs or is not usable, or objects of the name that differ;
 *   failed for a create the Filestore API reports failed (nothing is attached then)
 */
export async function createStorage(
  options: StorageCreateOptions,
  deps: StorageCreateDeps,
): Promise<StorageCreateResult> {
  const request = checkInput(options, () => createRequestFromFlags(options.flags))
  const manifest = await readManifest(request.attach, deps.files)
  const {console} = deps
  const target = options as ClusterName
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}

  const cluster = await requireCluster(deps.gke, target, retry)
  const kube = await unlessAborted(deps.kube(cluster), deps.signal)
  const where = {project: target.project, location: filestoreLocation(request.tier, target.zone)}
  const filestore = await unlessAborted(deps.filestore(), deps.signal)
  try {
    const existing = await withRetries(() => filestore.getInstance(where, request.instance), retry)
    const clusterUpdates = planStorageClusterUpdates('gcpfilestore', cluster, {lustreLegacyPort: false})
    const attachOf = (instance: FilestoreInstance, live: AttachLive | null) =>
      planStorageAttach({
        request: request.attach,
        cluster: target.cluster,
        project: target.project,
        projectNumber: '',
        network: cluster.network,
        backend: {kind: 'filestore', instance},
        manifest,
        clusterUpdates,
        live,
      })
    const inputs = {
      request,
      project: target.project,
      cluster: target.cluster,
      location: where.location,
      network: cluster.network,
      existing,
    }
    const live = await readLive(kube, attachOf(instanceToAttach(inputs), null), retry)
    const plan = planStorageCreate({...inputs, attach: (instance) => attachOf(instance, live)})
    const shown = renderStorageAttachPlan(plan)
    const result = {...plan, dryRun: options.dryRun, applied: false, outcomes: [] as StepOutcome[]}
    if (options.dryRun) {
      console.result(shown)
      console.info(storageCreateDryRun())
      return result
    }
    console.info(storageCreatePlan({plan: shown}))
    const created = plan.steps.some((s) => s.resource === 'filestoreInstance' && s.action === 'create')
    const done = {storage: plan.storage, instance: request.instance, cluster: plan.cluster, created}
    if (plan.steps.every((s) => s.action === 'none' || s.action === 'check')) {
      console.info(storageCreateDone(done))
      return {...result, applied: true}
    }
    const instanceSteps = plan.steps.filter((s): s is InstanceStep => s.resource === 'filestoreInstance')
    const graph = instanceGraph(instanceSteps, filestore, options.timing, retry)
    // The wait takes minutes at Filestore: its line says how far it is.
    const board = graph.length === 0 ? undefined : console.progress(`Filestore instance ${request.instance}:`)
    let instanceOutcomes: StepOutcome[]
    try {
      instanceOutcomes = await runStepsOrThrow(graph, {board, signal: deps.signal, now: deps.now})
    } finally {
      board?.close()
    }
    // Read again once READY: the volume names the address Filestore gave it.
    const ready = existing?.state === 'READY' ? existing : await readReady(filestore, plan.instance, retry)
    const attach = attachOf(ready, live)
    const outcomes = await applyAttach(
      attach,
      clusterUpdates,
      {kube, target, cluster: cluster.location},
      {...deps, cloudStorage: NO_CLOUD_STORAGE},
      options,
    )
    console.info(storageCreateDone(done))
    return {
      ...result,
      steps: [...instanceSteps, ...attach.steps.filter((s) => s.resource !== 'filestoreInstance')],
      applied: true,
      outcomes: [...instanceOutcomes, ...outcomes],
    }
  } finally {
    await filestore.close()
  }
}

/** The instance's create and wait, one after the other, on the step graph. */
function instanceGraph(
  steps: readonly InstanceStep[],
  filestore: FilestoreClient,
  timing: Pick<Timing, 'operations'>,
  retry: RetryOptions,
): GraphStep[] {
  const graph: GraphStep[] = []
  for (const step of steps) {
    if (step.action === 'none' || step.spec === null) continue
    const previous = graph.at(-1)
    const spec = step.spec
    graph.push({
      id: `${step.action}:filestoreInstance`,
      line: `filestore ${step.name}`,
      resource: step.resource,
      name: step.name,
      action: step.action,
      needs: previous ? [{id: previous.id, because: 'the instance was not created'}] : [],
      run: ({progress}) =>
        step.action === 'create'
          ? createInstance({filestore, timing, retry, progress}, spec as FilestoreCreateSpec)
          : waitUntilReady({filestore, timing, retry, progress}, spec),
    })
  }
  return graph
}

/** Sends the create and waits until the Filestore API says its operation is done. @throws its error */
async function createInstance(work: InstanceWork, spec: FilestoreCreateSpec): Promise<void> {
  const where = {project: spec.project, location: spec.location}
  const operation = await withRetries(() => work.filestore.createInstance(where, spec.id, spec.request), work.retry)
  work.progress('creating')
  const failed = await finishedOperation(work, operation.name)
  if (failed) {
    throw new XpkError('failed', `Creating Filestore instance ${spec.id} failed: ${failed.message}`, {
      hints: ['Nothing was attached. Fix the cause, then run the same command again.'],
    })
  }
}

/** Waits until the instance is READY (one made by an earlier, interrupted create). */
async function waitUntilReady(work: InstanceWork, ref: FilestoreInstanceRef): Promise<void> {
  work.progress('waiting for READY')
  await pollUntil(
    async () => {
      const instance = await work.filestore.getInstance({project: ref.project, location: ref.location}, ref.id)
      if (instance === undefined) {
        throw new XpkError('failed', `Filestore instance ${ref.id} is gone: its creation failed or it was deleted.`, {
          hints: ['Nothing was attached. Run the same command again to create it.'],
        })
      }
      return instance.state === 'READY'
    },
    {...work.retry, poll: work.timing.operations},
  )
}

/** The instance once READY, with its address. @throws failed when it is not */
async function readReady(
  filestore: FilestoreClient,
  ref: FilestoreInstanceRef,
  retry: RetryOptions,
): Promise<FilestoreInstance> {
  const instance = await withRetries(
    () => filestore.getInstance({project: ref.project, location: ref.location}, ref.id),
    retry,
  )
  if (instance?.state !== 'READY' || instance.ipAddress === null) {
    throw new XpkError(
      'failed',
      `Filestore instance ${ref.id} is ${instance?.state ?? 'gone'} after its creation, not READY with an address.`,
      {hints: ['Nothing was attached. Run the same command again once it is READY.']},
    )
  }
  return instance
}
