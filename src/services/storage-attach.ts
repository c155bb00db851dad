/**
 * `xpk storage attach`: every input checked, then everything read (the cluster from GKE with its add-ons, Workload
 * Identity and pools; the bucket and its IAM policy, or the Filestore instance; what the cluster holds of the name),
 * the plan made by the core (core/storage/attach-plan.ts with core/cluster/storage-needs.ts), shown, asked about when
 * GKE would recreate nodes, then applied step for step: the cluster updates through the cluster plan executor, the
 * storage's own steps after them on the same step graph. A re-run of an attach that is done sends nothing.
 */
import {planStorageClusterUpdates} from '../core/cluster/storage-needs.js'
import type {Plan} from '../core/cluster/plan.js'
import {XpkError} from '../core/errors.js'
import {Problems} from '../core/input.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import type {KubeObject} from '../core/kube/release-manifest.js'
import {
  storageAttachConfirmRecreateNodes,
  storageAttachDone,
  storageAttachDryRun,
  storageAttachPlan,
} from '../core/messages/storage.js'
import {zoneToRegion} from '../core/settings.js'
import {
  planStorageAttach,
  renderStorageAttachPlan,
  type AttachBackend,
  type AttachLive,
  type AttachStep,
  type BucketGrant,
  type StorageAttachPlan,
  type StorageStep,
} from '../core/storage/attach-plan.js'
import type {FilestoreInstance, IamPolicy} from '../core/storage/backends.js'
import {STORAGE_API_VERSION, STORAGE_CRD_NAME, STORAGE_KIND} from '../core/storage/observed.js'
import {attachRequestFromFlags, type AttachFlags, type AttachRequest} from '../core/storage/rules.js'
import {readStorageManifest, type StorageManifest} from '../core/storage/user-manifest.js'
import {textFileProblem} from '../core/text-file.js'
import {escapeInline} from '../core/text.js'
import type {Timing} from '../core/timing.js'
import {applyClusterPlan, type StepOutcome} from '../executor/apply-cluster-plan.js'
import {unlessAborted, withRetries, type RetryOptions} from '../executor/retry.js'
import type {GraphStep} from '../executor/step-graph.js'
import type {CloudStorageClient} from '../ports/cloud-storage.js'
import type {Console} from '../ports/console.js'
import type {LocalFiles} from '../ports/files.js'
import type {FilestoreClient} from '../ports/filestore.js'
import type {KubeClient} from '../ports/kube.js'
import {requireCluster, type ClusterName} from './cluster-lookup.js'
import {confirmOrStop} from './confirm.js'
import {checkInput, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'
import {storageResourceWord} from '../core/storage/types.js'

/** A storage manifest is a few objects; anything bigger is a mistake and is not read. */
export const STORAGE_MANIFEST_MAX_BYTES = 1 << 20

export interface StorageAttachOptions extends WorkloadTarget {
  /** The flags as given (NAME included), checked by core/storage/rules.ts. */
  readonly flags: AttachFlags
  /**
   * `--project-number`: the number of the project (GCS FUSE only): the workloads' Workload Identity principal names
   * it, and none of the APIs xpk speaks hands it out.
   */
  readonly projectNumber?: string
  readonly dryRun: boolean
  readonly timing: Pick<Timing, 'retry' | 'operations'>
}

export interface StorageAttachDeps extends ClusterAccessDeps {
  readonly console: Console
  readonly files: Pick<LocalFiles, 'readText'>
  /** Connects to the Filestore API: only a gcpfilestore storage reads an instance. */
  readonly filestore: () => Promise<FilestoreClient>
  /** Connects to the Cloud Storage JSON API: only a gcsfuse storage reads a bucket. */
  readonly cloudStorage: () => Promise<CloudStorageClient>
}

export interface StorageAttachResult {
  readonly storage: string
  readonly cluster: string
  /** The plan, as data: every step with its reason and the value it sends. */
  readonly steps: readonly AttachStep[]
  readonly warnings: readonly string[]
  readonly dryRun: boolean
  readonly applied: boolean
  readonly outcomes: readonly StepOutcome[]
}

/** How many times a bucket grant is read and written again when another writer changed the policy in between. */
const GRANT_ATTEMPTS = 3

/**
 * @throws UsageErrors for bad input (before any request), not-found (exit 4) for a cluster, bucket or instance that
 *   does not exist, conflict (exit 6) for objects of the name that differ
 */
export async function attachStorage(
  options: StorageAttachOptions,
  deps: StorageAttachDeps,
): Promise<StorageAttachResult> {
  const {request, projectNumber} = checkInput(options, () => checkFlags(options))
  const manifest = await readManifest(request, deps.files)
  const {console} = deps
  const target = options as ClusterName
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}

  const cluster = await requireCluster(deps.gke, target, retry)
  // Connected before the bucket or instance is read: a kubeconfig that cannot be used is bad input, found first.
  const kube = await unlessAborted(deps.kube(cluster), deps.signal)
  const backend = await readBackend(request, target, deps, retry)
  const clusterUpdates = planStorageClusterUpdates(request.type, cluster, {
    lustreLegacyPort: request.enableLegacyLustrePort,
  })
  const planWith = (live: AttachLive | null) =>
    planStorageAttach({
      request,
      cluster: target.cluster,
      project: target.project,
      projectNumber,
      network: cluster.network,
      backend,
      manifest,
      clusterUpdates,
      live,
    })
  // Planned once without the cluster's objects to learn which objects the attach writes, then with them as read.
  const plan = planWith(await readLive(kube, planWith(null), retry))
  const shown = renderStorageAttachPlan(plan)
  const result = {...plan, dryRun: options.dryRun, applied: false, outcomes: []}
  if (options.dryRun) {
    console.result(shown)
    console.info(storageAttachDryRun())
    return result
  }
  console.info(storageAttachPlan({plan: shown}))
  const changes = plan.steps.filter((s) => s.action !== 'none' && s.action !== 'check')
  if (changes.length === 0) {
    console.info(storageAttachDone({storage: plan.storage, cluster: plan.cluster, changed: 0}))
    return {...result, applied: true}
  }
  const recreated = clusterUpdates.steps.filter((s) => s.resource === 'nodePoolUpdate' && s.action === 'update')
  if (recreated.length > 0) {
    await confirmOrStop(console, storageAttachConfirmRecreateNodes({nodePools: recreated.map((s) => s.name)}), {
      nothingDone: 'Nothing was changed.',
      hints: ['Re-run with --force when the workloads may restart; --dry-run shows the whole plan.'],
    })
  }
  const outcomes = await applyAttach(plan, clusterUpdates, {kube, target, cluster: cluster.location}, deps, options)
  console.info(storageAttachDone({storage: plan.storage, cluster: plan.cluster, changed: changes.length}))
  return {...result, applied: true, outcomes}
}

/** The flags checked, with --project-number (GCS FUSE only): every problem at once. @throws UsageError(s) */
function checkFlags(options: StorageAttachOptions): {request: AttachRequest; projectNumber: string} {
  const problems = new Problems()
  const request = problems.attempt(() => attachRequestFromFlags(options.flags))
  const {type} = options.flags
  const number = options.projectNumber
  const flag = '--project-number'
  if (type === 'gcsfuse' && number === undefined) {
    problems.add(
      `--type gcsfuse needs ${flag}: the workloads reach the bucket as a Workload Identity principal that names the number of the project.`,
      {
        flag,
        hints: [
          `Find it with \`gcloud projects describe ${options.project ?? 'PROJECT'} --format='value(projectNumber)'\`.`,
        ],
      },
    )
  } else if (number !== undefined && type !== undefined && type !== 'gcsfuse') {
    problems.add(`${flag} applies to --type gcsfuse, not ${escapeInline(type)}; leave it out.`, {flag})
  } else if (number !== undefined && !/^[1-9]\d{0,18}$/.test(number)) {
    problems.add(`${flag} "${escapeInline(number)}": a project number is digits only, like 123456789012.`, {flag})
  }
  problems.throwIfAny()
  return {request: request!, projectNumber: number ?? ''}
}

/** The checked --manifest of a storage attached from one (null otherwise). @throws UsageError naming --manifest */
export async function readManifest(
  request: AttachRequest,
  files: Pick<LocalFiles, 'readText'>,
): Promise<StorageManifest | null> {
  if (request.source.kind !== 'manifest') return null
  const path = request.source.path
  const read = await files.readText(path, {maxBytes: STORAGE_MANIFEST_MAX_BYTES})
  if (read.kind !== 'text') {
    throw textFileProblem(read, {
      flag: '--manifest',
      path,
      what: 'a YAML file of a PersistentVolume and its claim',
      maxBytes: STORAGE_MANIFEST_MAX_BYTES,
    })
  }
  return readStorageManifest(read.text, path, request.name, request.type)
}

/** The bucket and its policy, the Filestore instance (in the zone, else the region), or nothing to read. */
async function readBackend(
  request: AttachRequest,
  target: ClusterName,
  deps: StorageAttachDeps,
  retry: RetryOptions,
): Promise<AttachBackend> {
  const {source} = request
  if (source.kind === 'gcsfuse') {
    const storage = await unlessAborted(deps.cloudStorage(), deps.signal)
    try {
      const bucket = await withRetries(() => storage.getBucket(source.bucket), retry)
      const policy: IamPolicy | null =
        bucket === undefined ? null : await withRetries(() => storage.getBucketIamPolicy(source.bucket), retry)
      return {kind: 'bucket', bucket, policy}
    } finally {
      await storage.close()
    }
  }
  const instance = source.kind === 'gcpfilestore' ? source.instance : source.instance
  if (instance === null) return {kind: 'none'}
  const filestore = await unlessAborted(deps.filestore(), deps.signal)
  try {
    return {kind: 'filestore', instance: await findInstance(filestore, target, instance, retry)}
  } finally {
    await filestore.close()
  }
}

/** Zonal tiers live in a zone, regional and enterprise ones in a region: the zone is looked in first. */
async function findInstance(
  filestore: FilestoreClient,
  target: ClusterName,
  id: string,
  retry: RetryOptions,
): Promise<FilestoreInstance | undefined> {
  const locations = [target.zone, zoneToRegion(target.zone)].filter((l): l is string => l !== undefined)
  for (const location of locations) {
    const found = await withRetries(() => filestore.getInstance({project: target.project, location}, id), retry)
    if (found !== undefined) return found
  }
  return undefined
}

const CRD_REF = {apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: STORAGE_CRD_NAME}

/** What the cluster holds of the objects `draft` (planned without reading them) writes. */
export async function readLive(kube: KubeClient, draft: StorageAttachPlan, retry: RetryOptions): Promise<AttachLive> {
  const written = draft.steps.flatMap((s) => {
    if (!isStorageStep(s) || s.spec === null || !('metadata' in s.spec)) return []
    const object = s.spec as unknown as KubeObject
    return object.kind === 'CustomResourceDefinition' || object.kind === STORAGE_KIND ? [] : [object]
  })
  const read = (object: KubeObject) =>
    withRetries(
      () =>
        kube.get({
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name,
          ...(object.kind === 'PersistentVolumeClaim' ? {namespace: object.metadata.namespace ?? XPK_NAMESPACE} : {}),
        }),
      retry,
    )
  const [crd, ...objects] = await Promise.all([withRetries(() => kube.get(CRD_REF), retry), ...written.map(read)])
  // Without the kind there is no Storage object to read (the API would answer 404 for the resource itself).
  const storage =
    crd === undefined
      ? undefined
      : await withRetries(
          () => kube.get({apiVersion: STORAGE_API_VERSION, kind: STORAGE_KIND, name: draft.storage}),
          retry,
        )
  return {
    crd,
    storage,
    objects: Object.fromEntries(written.map((o, i) => [`${o.kind}/${o.metadata.name}`, objects[i]])),
  }
}

/**
 * Applies the plan: the cluster updates (GKE) through the cluster plan executor, and after them, one after the other,
 * the bucket grant, the CRD, the class, the volume, the claim and the Storage object last, which needs the cluster
 * updates to have succeeded (a storage whose driver is missing is never announced to workloads).
 * @throws the first step's failure, or the interruption
 */
export async function applyAttach(
  plan: StorageAttachPlan,
  clusterUpdates: ReturnType<typeof planStorageClusterUpdates>,
  where: {readonly kube: KubeClient; readonly target: ClusterName; readonly cluster: string},
  deps: StorageAttachDeps,
  options: Pick<StorageAttachOptions, 'timing'>,
): Promise<StepOutcome[]> {
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube} = where
  const updateIds = clusterUpdates.steps.flatMap((s) =>
    s.resource === 'clusterUpdate' && s.action === 'update' ? [`update:${(s.spec as {kind: string}).kind}`] : [],
  )
  const graph: GraphStep[] = []
  for (const step of plan.steps) {
    if (!isStorageStep(step) || (step.action !== 'create' && step.action !== 'update') || step.spec === null) continue
    const id = `${step.resource}:${step.name}`
    const previous = graph.at(-1)
    const spec = step.spec
    const run =
      step.resource === 'bucketIam'
        ? () => grantBucket(deps, spec as BucketGrant, retry)
        : async () => void (await withRetries(() => kube.apply(spec as unknown as KubeObject), retry))
    graph.push({
      id,
      line: `${storageResourceWord(step.resource)} ${step.name}`,
      resource: step.resource,
      name: step.name,
      action: step.action,
      needs: [
        ...(previous ? [{id: previous.id, because: `${previous.name} was not ${previous.action}d`}] : []),
        ...(step.resource === 'storage'
          ? updateIds.map((u) => ({id: u, because: 'the cluster lacks what the storage needs'}))
          : []),
      ],
      run,
    })
  }
  const gke = await unlessAborted(deps.gke(), deps.signal)
  try {
    const clusterPlan: Plan = {
      project: where.target.project,
      location: where.cluster,
      cluster: where.target.cluster,
      steps: clusterUpdates.steps,
      warnings: clusterUpdates.warnings,
    }
    const result = await applyClusterPlan(
      clusterPlan,
      {...deps, gke},
      {concurrency: 1, timing: options.timing, signal: deps.signal, inCluster: graph},
    )
    if (result.interrupted) {
      throw new XpkError(
        'interrupted',
        result.sentChanges || result.outcomes.some((o) => o.status === 'done')
          ? 'Interrupted: changes already sent keep going.'
          : 'Interrupted before any change was sent.',
        {hints: ['Re-run the same command to finish: it does only what is left.']},
      )
    }
    const failed =
      result.outcomes.find((o) => o.status === 'failed') ?? result.outcomes.find((o) => o.status !== 'done')
    if (failed?.error) throw failed.error
    return [...result.outcomes]
  } finally {
    await gke.close()
  }
}

function isStorageStep(step: AttachStep): step is StorageStep {
  return step.resource !== 'clusterUpdate' && step.resource !== 'nodePoolUpdate'
}

/**
 * Adds the binding to the bucket's policy, read again just before (its etag guards the write): a policy another
 * writer changed in between is read and written again; one that already holds the binding is left as it is.
 */
async function grantBucket(deps: StorageAttachDeps, grant: BucketGrant, retry: RetryOptions): Promise<void> {
  const storage = await unlessAborted(deps.cloudStorage(), deps.signal)
  try {
    for (let attempt = 1; ; attempt++) {
      const policy = await withRetries(() => storage.getBucketIamPolicy(grant.bucket), retry)
      const held = policy.bindings.some(
        (b) => b.role === grant.role && b.condition === undefined && b.members.includes(grant.member),
      )
      if (held) return
      const at = policy.bindings.findIndex((b) => b.role === grant.role && b.condition === undefined)
      const bindings =
        at === -1
          ? [...policy.bindings, {role: grant.role, members: [grant.member]}]
          : policy.bindings.map((b, i) => (i === at ? {...b, members: [...b.members, grant.member]} : b))
      try {
        await withRetries(() => storage.setBucketIamPolicy(grant.bucket, {...policy, bindings}), retry)
        return
      } catch (error) {
        if (!(error instanceof XpkError && error.kind === 'conflict') || attempt >= GRANT_ATTEMPTS) throw error
      }
    }
  } finally {
    await storage.close()
  }
}
