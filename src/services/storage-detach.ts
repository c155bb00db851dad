/**
 * `xpk storage detach`: the Storage object read with what it names (its claim and the workloads whose pods mount it,
 * its volume and reclaim policy, a Filestore class) and every other Storage object, the plan made by the core
 * (core/storage/detach-plan.ts), shown, asked about when workloads still mount the storage, then applied one step
 * after the other on the step graph, the Storage object last. The data behind the storage is never touched.
 */
import {UsageError, XpkError} from '../core/errors.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import type {KubeObject} from '../core/kube/release-manifest.js'
import {
  storageDetachConfirmInUse,
  storageDetachDone,
  storageDetachDryRun,
  storageDetachPlan,
} from '../core/messages/storage.js'
import {
  planStorageDetach,
  renderStorageDetachPlan,
  type DetachLive,
  type DetachStep,
  type StorageDetachPlan,
} from '../core/storage/detach-plan.js'
import {
  readStorage,
  servesStorage,
  STORAGE_API_VERSION,
  STORAGE_CRD_NAME,
  STORAGE_KIND,
  type ObservedStorage,
} from '../core/storage/observed.js'
import {storageNameProblem} from '../core/storage/rules.js'
import {storageObjectNames, storageResourceWord} from '../core/storage/types.js'
import {escapeInline} from '../core/text.js'
import type {Timing} from '../core/timing.js'
import {JOBSET_NAME_LABEL} from '../core/workload/jobsets.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import {runStepsOrThrow, type GraphStep, type StepOutcome} from '../executor/step-graph.js'
import type {Console} from '../ports/console.js'
import type {KubeClient} from '../ports/kube.js'
import {confirmOrStop} from './confirm.js'
import {checkInput, listAll, reachCluster, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

export interface StorageDetachOptions extends WorkloadTarget {
  /** The NAME argument. */
  readonly name?: string
  readonly dryRun: boolean
  readonly timing: Pick<Timing, 'retry'>
}

export interface StorageDetachDeps extends ClusterAccessDeps {
  readonly console: Console
}

export interface StorageDetachResult {
  readonly storage: string
  readonly cluster: string
  /** The plan, as data. */
  readonly steps: readonly DetachStep[]
  readonly dryRun: boolean
  readonly applied: boolean
  readonly outcomes: readonly StepOutcome[]
}

const CRD_REF = {apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: STORAGE_CRD_NAME}

/**
 * @throws UsageErrors for bad input (before any request); not-found (exit 4) for a storage the cluster does not hold
 */
export async function detachStorage(
  options: StorageDetachOptions,
  deps: StorageDetachDeps,
): Promise<StorageDetachResult> {
  const name = checkInput(options, () => checkStorageName(options.name))
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube} = await reachCluster(options, deps, retry)
  const cluster = options.cluster ?? kube.target
  const {storage, storages, live} = await readStorageToDetach(kube, name, cluster, retry)
  const plan = planStorageDetach({cluster, storage, live, others: storages})
  const shown = renderStorageDetachPlan(plan)
  const result = {...plan, dryRun: options.dryRun, applied: false, outcomes: [] as StepOutcome[]}
  const {console} = deps
  if (options.dryRun) {
    console.result(shown)
    console.info(storageDetachDryRun())
    return result
  }
  console.info(storageDetachPlan({plan: shown}))
  const mounting = live.claim?.usedBy ?? []
  if (mounting.length > 0 && plan.steps.some((s) => s.resource === 'persistentVolumeClaim' && s.action === 'delete')) {
    await confirmOrStop(console, storageDetachConfirmInUse({storage: name, workloads: mounting}), {
      nothingDone: 'Nothing was changed.',
      hints: ['Delete the workloads first (`xpk workload delete`), or re-run with --force; --dry-run shows the plan.'],
    })
  }
  const outcomes = await applyDetach(plan, kube, deps, retry)
  console.info(storageDetachDone({storage: name, cluster}))
  return {...result, applied: true, outcomes}
}

/** The NAME argument of `storage detach` and `storage delete` (`verb`), checked. @throws UsageError naming NAME */
export function checkStorageName(name: string | undefined, verb = 'detach'): string {
  if (name === undefined) {
    throw new UsageError(`Missing NAME: name the storage to ${verb}, e.g. \`xpk storage ${verb} datasets\`.`, {
      flag: 'NAME',
      hints: ['`xpk storage list` shows the storages of the cluster.'],
    })
  }
  const problem = storageNameProblem(name)
  if (problem) throw new UsageError(`NAME "${escapeInline(name)}": ${problem}.`, {flag: 'NAME'})
  return name
}

/** What a detach (or a delete) of storage `name` is planned from. */
export interface StorageToDetach {
  readonly storage: ObservedStorage
  /** Every Storage object of the cluster. */
  readonly storages: readonly ObservedStorage[]
  readonly live: DetachLive
  /** The storage's PersistentVolume as read (undefined: none). */
  readonly volume: KubeObject | undefined
}

/**
 * The Storage object `name` with what it names, and the cluster's other storages.
 * @throws XpkError not-found (exit 4) naming the storages the cluster has, when it has none of that name
 */
export async function readStorageToDetach(
  kube: KubeClient,
  name: string,
  cluster: string,
  retry: RetryOptions,
): Promise<StorageToDetach> {
  const crd = await withRetries(() => kube.get(CRD_REF), retry)
  const storages = servesStorage(crd)
    ? (await listAll(kube, STORAGE_API_VERSION, STORAGE_KIND, {}, retry)).map(readStorage)
    : []
  const storage = storages.find((s) => s.name === name)
  if (storage === undefined) {
    const names = storages.map((s) => s.name)
    throw new XpkError('not-found', `Storage ${name} is not attached to cluster ${cluster}.`, {
      hints: [
        names.length === 0 ? 'The cluster holds no storage.' : `It holds ${names.join(', ')} (\`xpk storage list\`).`,
      ],
    })
  }
  return {storage, storages, ...(await readLive(kube, storage, retry))}
}

/** The claim (and the workloads whose pods mount it), the volume and its reclaim policy, the Filestore class. */
async function readLive(
  kube: KubeClient,
  storage: ObservedStorage,
  retry: RetryOptions,
): Promise<{live: DetachLive; volume: KubeObject | undefined}> {
  const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
    withRetries(() => kube.get({apiVersion, kind, name, ...(namespace ? {namespace} : {})}), retry)
  const [claim, volume, storageClass] = await Promise.all([
    storage.pvc === null ? undefined : get('v1', 'PersistentVolumeClaim', storage.pvc, XPK_NAMESPACE),
    storage.pv === null ? undefined : get('v1', 'PersistentVolume', storage.pv),
    storage.type === 'gcpfilestore'
      ? get('storage.k8s.io/v1', 'StorageClass', storageObjectNames(storage.name).storageClass)
      : undefined,
  ])
  const usedBy =
    claim === undefined
      ? []
      : mountersOf(await listAll(kube, 'v1', 'Pod', {namespace: XPK_NAMESPACE}, retry), storage.pvc!)
  const policy = (volume?.spec as {persistentVolumeReclaimPolicy?: unknown} | undefined)?.persistentVolumeReclaimPolicy
  const live = {
    claim: claim === undefined ? undefined : {usedBy},
    volume: volume === undefined ? undefined : {reclaimPolicy: typeof policy === 'string' ? policy : null},
    storageClass: storageClass !== undefined,
  }
  return {live, volume}
}

/** The workloads (JobSet names; a pod's own name when no JobSet made it) whose running pods mount the claim. */
function mountersOf(pods: readonly KubeObject[], claim: string): string[] {
  const names = new Set<string>()
  for (const pod of pods) {
    const phase = (pod.status as {phase?: string} | undefined)?.phase
    if (phase === 'Succeeded' || phase === 'Failed') continue
    const volumes = (pod.spec as {volumes?: {persistentVolumeClaim?: {claimName?: string}}[]} | undefined)?.volumes
    if (!volumes?.some((v) => v.persistentVolumeClaim?.claimName === claim)) continue
    const labels = pod.metadata.labels as Record<string, string> | undefined
    names.add(labels?.[JOBSET_NAME_LABEL] ?? pod.metadata.name)
  }
  return [...names].sort()
}

/** The detach steps of a plan, one after the other, each needing the one before: the Storage object goes last. */
export function detachGraph(steps: readonly DetachStep[], kube: KubeClient, retry: RetryOptions): GraphStep[] {
  const graph: GraphStep[] = []
  for (const step of steps) {
    if (step.action === 'none' || step.spec === null) continue
    const previous = graph.at(-1)
    const run =
      step.action === 'update'
        ? async () =>
            void (await withRetries(
              () =>
                kube.apply(
                  {apiVersion: 'v1', kind: 'PersistentVolume', metadata: {name: step.name}, spec: step.spec.spec},
                  {force: true},
                ),
              retry,
            ))
        : async () => {
            const {apiVersion, kind, name, namespace} = step.spec!
            await withRetries(() => kube.delete({apiVersion, kind, name, ...(namespace ? {namespace} : {})}), retry)
          }
    graph.push({
      id: `${step.action}:${step.resource}:${step.name}`,
      line: `${storageResourceWord(step.resource)} ${step.name}`,
      resource: step.resource,
      name: step.name,
      action: step.action,
      needs: previous ? [{id: previous.id, because: `${previous.name} was not ${previous.action}d`}] : [],
      run,
    })
  }
  return graph
}

async function applyDetach(
  plan: StorageDetachPlan,
  kube: KubeClient,
  deps: StorageDetachDeps,
  retry: RetryOptions,
): Promise<StepOutcome[]> {
  return runStepsOrThrow(detachGraph(plan.steps, kube, retry), {board: undefined, signal: deps.signal, now: deps.now})
}
