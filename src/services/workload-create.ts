import {dirname, join, resolve} from 'node:path'

import {imageRepository} from '../core/image/naming.js'
import {ApiError, UsageError, XpkError} from '../core/errors.js'
import {textFileProblem} from '../core/text-file.js'
import {DEFAULT_TIMING} from '../core/timing.js'
import {parseResourcesConfigMap, resourcesConfigMapName} from '../core/incluster/configmaps.js'
import {applyWouldChange} from '../core/incluster/live-diff.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import type {InClusterObject} from '../core/incluster/types.js'
import {workloadRbacObjects} from '../core/incluster/workload-rbac.js'
import {Problems} from '../core/input.js'
import {buildJobSet, defaultGpuNetworks} from '../core/manifests/jobset.js'
import type {JobSet} from '../core/manifests/k8s-types.js'
import {
  workloadCapacity,
  workloadClusterUnchecked,
  workloadConfirmReplace,
  workloadDryRun,
  workloadGpuNetworks,
  workloadGpuNetworksAssumed,
  workloadGpuNetworksMissing,
  workloadKueueOlder,
  workloadManifestWritten,
  workloadNameTaken,
  workloadQueueInactive,
  workloadRbacApplied,
  workloadReplacePlanned,
  workloadReplacing,
} from '../core/messages/workload.js'
import {type ResolvedSettings, zoneToRegion} from '../core/settings.js'
import {KUEUE_VERSION} from '../core/versions.js'
import {capacityProblem, checkCapacity, type CapacityRequest} from '../core/workload/capacity.js'
import {
  inactiveQueue,
  type JobSetKind,
  missingObjects,
  RBAC_REVISION_ANNOTATION,
  rbacRevision,
  referencedObjects,
  setupProblem,
} from '../core/workload/cluster-setup.js'
import {GKE_NETWORK_PARAM_SET, gpuNetworkNames, needsClusterGpuNetworks} from '../core/workload/gpu-networks.js'
import {jobSetRef} from '../core/workload/jobsets.js'
import {nextCommands, workloadLinks, type WorkloadLinks} from '../core/workload/links.js'
import {
  WORKLOAD_DEFAULTS,
  workloadInputFromFlags,
  type WorkloadFlags,
  type WorkloadInput,
} from '../core/workload/options.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {LocalFiles} from '../ports/files.js'
import type {KubeClient, KubeObject} from '../ports/kube.js'
import {confirmOrStop} from './confirm.js'
import type {ImageBuildOptions, ImageBuildResult} from './image-build.js'
import {scriptDirLimit} from './script-dir.js'
import {listAll, reachCluster, targetProblems, type ClusterAccessDeps, type ReachedCluster} from './workload-cluster.js'
import {awaitGone, type WorkloadTiming} from './workload-delete.js'

export interface WorkloadCreateOptions {
  readonly flags: WorkloadFlags
  readonly envFile?: string
  readonly dockerImage?: string
  readonly baseDockerImage?: string
  readonly scriptDir?: string
  readonly outputManifestFile?: string
  readonly dryRun: boolean
  readonly offline: boolean
  /** Project, zone, cluster and registry, resolved from flags, environment, xpk config and gcloud. */
  readonly settings: ResolvedSettings
  /**
   * `--replace`: delete the JobSet of the same name that was read (asking first, unless --force), wait until it is
   * gone, then create this one, instead of refusing.
   */
  readonly replace?: boolean
  /** `--kubeconfig` / `--context` reach the cluster: GKE is not asked where it is. */
  readonly viaKubeconfig?: boolean
  /** @default DEFAULT_TIMING */
  readonly timing?: WorkloadTiming
}

export interface WorkloadCreateDeps extends ClusterAccessDeps {
  readonly console: Console
  readonly files: LocalFiles
  /** The caller's environment (bare KEY lines of --env-file copy from it). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The default --script-dir. */
  readonly cwd: string
  /** Builds and pushes (or, in a dry run, only checks) the image; see src/services/image-build.ts. */
  readonly buildImage: (options: ImageBuildOptions) => Promise<ImageBuildResult>
}

/** How the workload's image was obtained. */
export type WorkloadImage =
  {readonly source: 'given'; readonly reference: string} | ({readonly source: 'built'} & ImageBuildResult)

/** The existing JobSet that --replace deletes. */
export interface ReplacedJobSet {
  readonly namespace: string
  readonly name: string
  readonly uid: string
  /** Its creationTimestamp, as the API server gave it. */
  readonly created: string | null
}

/** What happened to one of the workloads' ServiceAccount and RBAC objects. */
export interface RbacChange {
  readonly kind: string
  readonly name: string
  readonly change: 'create' | 'update' | 'none'
}

export interface WorkloadCreateResult {
  readonly workload: string
  readonly cluster: string
  readonly accelerator: string
  readonly dryRun: boolean
  readonly submitted: boolean
  readonly image: WorkloadImage
  readonly manifestFile: string | null
  /** The JobSet as built (applied in namespace `default`). */
  readonly manifest: JobSet
  readonly jobSet: {readonly namespace: string; readonly name: string}
  /** Whether --replace deleted an existing JobSet of the name first. */
  readonly replaced: boolean
  /**
   * With --replace, the JobSet of the name that was read: the one deleted (or, in a dry run, that would be), and
   * only that one (its uid is a precondition of the delete); null when the name was free.
   */
  readonly replaces: ReplacedJobSet | null
  /** The ServiceAccount, Role and RoleBindings, compared with the cluster's; empty in a dry run. */
  readonly rbac: readonly RbacChange[]
  /** tcpxo and rdma GPU types: the networks the pods attach, read from the cluster or (dry run) assumed. */
  readonly gpuNetworks: {readonly source: 'cluster' | 'assumed'; readonly names: readonly string[]} | null
  /** The Cloud Console and Cloud Logging links; null when the cluster's project and location are unknown. */
  readonly links: WorkloadLinks | null
  /** The xpk commands to follow the workload. */
  readonly next: readonly string[]
}

/**
 * `xpk workload create`: validates every flag first (usage errors before any network call), checks that the
 * cluster can ever run the workload (its resources ConfigMap) and that the name is free, obtains the image (given,
 * or built from --script-dir on --base-docker-image), builds the JobSet and creates it (create-if-absent: a name
 * another submit took in the meantime is refused, never overwritten), setting up the workloads' ServiceAccount and
 * RBAC when they are missing or differ. With --dry-run the JobSet is
 * printed instead, and the cluster is not read.
 */
export async function createWorkload(
  options: WorkloadCreateOptions,
  deps: WorkloadCreateDeps,
): Promise<WorkloadCreateResult> {
  // Every problem with the input is reported at once, before anything is built or sent.
  const problems = new Problems()
  const collect = <T>(check: () => T): T | undefined => problems.attempt(check)
  const envFile = options.envFile === undefined ? undefined : await readEnvFile(options.envFile, deps.files)
  if (envFile instanceof UsageError) problems.push(envFile)
  const flags = {...options.flags, cluster: options.settings.cluster.value}
  const parsed = collect(() =>
    workloadInputFromFlags(flags, envFile instanceof UsageError ? undefined : envFile, deps.env),
  )
  const repository =
    options.dockerImage === undefined
      ? collect(() =>
          imageRepository({
            registry: options.settings.registry.value,
            project: options.settings.project.value,
            // A bad --docker-name is already reported with the other flags; name the image after the default then.
            dockerName: parsed?.containerName ?? WORKLOAD_DEFAULTS.dockerName,
          }),
        )
      : undefined
  const outputProblem = await checkOutputManifestFile(options.outputManifestFile, deps.files)
  if (outputProblem) problems.push(outputProblem)
  const scriptDir = options.dockerImage === undefined ? await checkScriptDir(options, deps) : undefined
  if (Array.isArray(scriptDir)) for (const problem of scriptDir) problems.push(problem)
  const target = {
    project: options.settings.project.value,
    zone: options.settings.zone.value,
    cluster: options.settings.cluster.value,
    viaKubeconfig: options.viaKubeconfig ?? false,
  }
  // A missing --cluster is already among the flag problems. A dry run reads the cluster when it can find it (not
  // --offline, and a kubeconfig or a project and zone); a submit must.
  const targetMissing = targetProblems(target).filter((problem) => problem.flag !== '--cluster')
  if (!options.dryRun) for (const problem of targetMissing) problems.push(problem)
  problems.throwIfAny()
  const input = parsed as NonNullable<typeof parsed>
  // Checked above whenever there is an image to build.
  const context = scriptDir as CheckedScriptDir
  const timing = options.timing ?? DEFAULT_TIMING
  const retry: RetryOptions = {policy: timing.retry, clock: deps, signal: deps.signal}

  // Before the image is built: a workload the cluster can never run, a cluster not set up for it, or a name
  // already taken stops here (a dry run reports the same, the name as a warning).
  const unread = options.dryRun ? (options.offline ? '--offline' : targetMissing.length > 0 ? 'target' : null) : null
  const live = unread === null ? await inspectCluster(input, options, deps, retry) : undefined
  const replaces = options.replace && live?.existing !== undefined ? replacedJobSet(live.existing) : null
  if (replaces !== null) await confirmReplace(input, replaces, options.dryRun, deps)

  let image: WorkloadImage
  if (options.dockerImage !== undefined) {
    image = {source: 'given', reference: options.dockerImage}
  } else {
    const built = await deps.buildImage({
      baseImage: options.baseDockerImage ?? WORKLOAD_DEFAULTS.baseDockerImage,
      scriptDir: context.dir,
      scriptDirIsDefault: context.isDefault,
      maxContextBytes: context.maxBytes,
      platform: input.accelerator.dockerPlatform,
      repository: repository as string,
      dryRun: options.dryRun,
      offline: options.offline,
    })
    image = {source: 'built', ...built}
  }

  const gpuNetworks = needsClusterGpuNetworks(input.accelerator)
    ? live === undefined
      ? {source: 'assumed' as const, names: defaultGpuNetworks({...input, image: image.reference})}
      : {source: 'cluster' as const, names: live.gpuNetworks ?? []}
    : null
  const manifest = buildJobSet({...input, image: image.reference}, gpuNetworks ? {gpuNetworks: gpuNetworks.names} : {})
  // The YAML is made only where it is written or printed (not on a plain submit, nor for --dry-run --json), and its
  // emitter loaded only then.
  const emitter = () => import('../core/manifests/to-yaml.js')
  if (options.outputManifestFile !== undefined) {
    await deps.files.writeText(options.outputManifestFile, (await emitter()).toYaml(manifest))
    deps.console.info(workloadManifestWritten({workload: input.name, file: options.outputManifestFile}))
  }

  const place = live
    ? live.reached.gke
    : target.project !== undefined && target.zone !== undefined && !target.viaKubeconfig
      ? {project: target.project, location: zoneToRegion(target.zone) ?? target.zone}
      : null
  const base = {
    workload: input.name,
    cluster: input.cluster,
    accelerator: input.accelerator.name,
    dryRun: options.dryRun,
    image,
    manifestFile: options.outputManifestFile ?? null,
    manifest,
    jobSet: {namespace: XPK_NAMESPACE, name: input.name},
    gpuNetworks,
    links: place === null ? null : workloadLinks({...place, cluster: input.cluster, workload: input.name}),
    next: nextCommands(input.cluster, input.name),
  }
  if (options.dryRun) {
    const {toYaml} = await emitter()
    deps.console.result(() => toYaml(manifest))
    if (unread !== null) {
      deps.console.info(
        workloadClusterUnchecked({cluster: input.cluster, reason: unread === '--offline' ? 'offline' : 'no-target'}),
      )
    }
    if (gpuNetworks) {
      deps.console.info(workloadGpuNetworksAssumed({networks: gpuNetworks.names}))
    }
    deps.console.info(
      workloadDryRun({
        workload: input.name,
        cluster: input.cluster,
        accelerator: input.accelerator.name,
        scale: describeScale(input.accelerator.kind, input.numSlices, input.numNodes),
        priority: input.priority,
      }),
    )
    return {...base, submitted: false, replaced: false, replaces, rbac: []}
  }

  const {replaced, rbac} = await submit(input, manifest, live as LiveCluster, replaces, timing, deps, retry)
  const result: WorkloadCreateResult = {...base, submitted: true, replaced, replaces, rbac}
  deps.console.result(() => submittedText(result, input))
  return result
}

/** What the cluster holds that the submit depends on, read in one round of parallel requests. */
interface LiveCluster {
  readonly reached: ReachedCluster
  /** The JobSet of the same name, if any (refused unless --replace). */
  readonly existing: KubeObject | undefined
  /**
   * The RBAC objects to apply, each with the live object of its name; null when `xpk-sa` carries the current
   * revision (everything in place, nothing read but the ServiceAccount) and in a dry run.
   */
  readonly rbac: ReadonlyArray<{readonly object: InClusterObject; readonly live: KubeObject | undefined}> | null
  /** The GKENetworkParamSet names, for tcpxo and rdma GPU types; null for others. */
  readonly gpuNetworks: string[] | null
}

/**
 * Connects to the cluster and reads, in one round of parallel requests, everything the submit needs: the resources
 * ConfigMap (can the cluster ever run this?), the JobSet of this name (is the name free? and, by how a 404 comes
 * back, is the JobSet kind served at v1alpha2?), what else the JobSet refers to (Kueue's LocalQueue, the
 * PriorityClass of --priority: see core/workload/cluster-setup.ts), the ServiceAccount `xpk-sa`, and for tcpxo/rdma
 * GPUs the GKENetworkParamSets: five requests for a TPU workload, no discovery (JobSet and Kueue kinds are known:
 * core/kube/known-kinds.ts). Only when `xpk-sa` is missing or lacks the current RBAC revision (a cluster's first
 * submit) are the Role and RoleBindings read, in a second round; only when JobSets are not served is the JobSet CRD
 * read, to say why. Nothing is sent when something is missing.
 */
async function inspectCluster(
  input: WorkloadInput,
  options: WorkloadCreateOptions,
  deps: WorkloadCreateDeps,
  retry: RetryOptions,
): Promise<LiveCluster> {
  const reached = await reachCluster(
    {
      project: options.settings.project.value,
      zone: options.settings.zone.value,
      cluster: input.cluster,
      viaKubeconfig: options.viaKubeconfig ?? false,
    },
    deps,
    retry,
  )
  const {kube} = reached
  const read = <T>(call: () => Promise<T>) => withRetries(call, retry)
  const objects = workloadRbacObjects()
  const [serviceAccount] = objects
  const refs = referencedObjects(input.priority)
  const [configMap, named, liveServiceAccount, queueLookup, priorityClass, paramSets] = await Promise.all([
    read(() =>
      kube.get({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: XPK_NAMESPACE,
        name: resourcesConfigMapName(input.cluster),
      }),
    ),
    read(() => kube.lookup(jobSetRef(input.name))),
    read(() => kube.get(refOf(serviceAccount))),
    read(() => kube.lookup(refs.localQueue)),
    read(() => kube.get(refs.priorityClass)),
    needsClusterGpuNetworks(input.accelerator)
      ? listAll(kube, GKE_NETWORK_PARAM_SET.apiVersion, GKE_NETWORK_PARAM_SET.kind, {}, retry)
      : Promise.resolve(undefined),
  ])

  const acceleratorFlag = options.flags.tpuType === undefined ? '--device-type' : '--tpu-type'
  const request: CapacityRequest = {
    workload: input.name,
    cluster: input.cluster,
    accelerator: input.accelerator,
    numSlices: input.numSlices,
    numNodes: input.numNodes,
    acceleratorFlag,
  }
  const data = (configMap?.data ?? {}) as Readonly<Record<string, string>>
  const verdict = checkCapacity(request, configMap === undefined ? undefined : parseResourcesConfigMap(data))
  const problem = capacityProblem(request, verdict)
  if (problem) throw problem
  deps.console.info(workloadCapacity({request, verdict}))

  const existing = named.state === 'found' ? named.object : undefined
  const jobSet: JobSetKind =
    named.state === 'not-served' ? {served: false, crd: await read(() => kube.get(refs.jobSetCrd))} : {served: true}
  // A Kueue before v0.15 serves only v1beta1: its LocalQueue takes the JobSet all the same (the queue-name label is
  // all it reads), so it is looked for there before the queue is called missing.
  const olderQueue =
    queueLookup.state === 'not-served' ? await read(() => kube.lookup(refs.olderLocalQueue)) : undefined
  const localQueue =
    queueLookup.state === 'found' ? queueLookup.object : olderQueue?.state === 'found' ? olderQueue.object : undefined
  if (olderQueue?.state === 'found') {
    deps.console.warn(
      workloadKueueOlder({
        workload: input.name,
        cluster: input.cluster,
        served: refs.olderLocalQueue.apiVersion,
        installs: KUEUE_VERSION,
      }),
    )
  }
  const missing = missingObjects({jobSet, localQueue, priorityClass}, input.priority)
  if (missing.length > 0) {
    throw setupProblem(
      {
        cluster: input.cluster,
        acceleratorArgs: `${acceleratorFlag} ${input.accelerator.canonical}`,
        viaKubeconfig: options.viaKubeconfig ?? false,
      },
      missing,
    )
  }
  const inactive = inactiveQueue(localQueue)
  if (inactive) {
    deps.console.warn(
      workloadQueueInactive({
        workload: input.name,
        cluster: input.cluster,
        queue: `${XPK_NAMESPACE}/${localQueue!.metadata.name}`,
        inactive,
      }),
    )
  }

  if (existing !== undefined && !options.replace) {
    const deleting = existing.metadata.deletionTimestamp !== undefined ? ', being deleted' : ''
    const created = existing.metadata.creationTimestamp
    const text =
      `Workload ${input.name} already exists on cluster ${input.cluster} (JobSet ${XPK_NAMESPACE}/${input.name}` +
      `${typeof created === 'string' ? `, created ${created}` : ''}${deleting}).`
    const hints = [
      'Pick another --workload name, or add --replace to delete the existing one (stopping its pods) and submit this one.',
      `\`xpk workload delete --cluster ${input.cluster} --workload ${input.name}\` deletes it.`,
    ]
    if (!options.dryRun) throw new XpkError('conflict', text, {hints})
    deps.console.warn(workloadNameTaken({workload: input.name, conflict: text, hint: hints[0]!}))
  }

  let gpuNetworks: string[] | null = null
  if (paramSets !== undefined) {
    gpuNetworks = gpuNetworkNames(paramSets)
    if (gpuNetworks.length === 0) {
      deps.console.warn(
        workloadGpuNetworksMissing({
          workload: input.name,
          cluster: input.cluster,
          accelerator: input.accelerator.name,
        }),
      )
    } else {
      deps.console.info(workloadGpuNetworks({cluster: input.cluster, networks: gpuNetworks}))
    }
  }

  const rbac = options.dryRun ? null : await readRbac(kube, objects, liveServiceAccount, retry)
  return {reached, existing, rbac, gpuNetworks}
}

function refOf(o: InClusterObject) {
  return {apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name}
}

/** The RBAC objects as applied: the ServiceAccount carries the revision of the set (see `rbacRevision`). */
function desiredRbac(): InClusterObject[] {
  const objects = workloadRbacObjects()
  const revision = rbacRevision(objects)
  const [serviceAccount, ...rest] = objects
  return [
    {
      ...serviceAccount,
      metadata: {
        ...serviceAccount.metadata,
        annotations: {...serviceAccount.metadata.annotations, [RBAC_REVISION_ANNOTATION]: revision},
      },
    },
    ...rest,
  ]
}

/**
 * The RBAC objects with their live state, or null when the live ServiceAccount is as this xpk applies it (with the
 * current revision): then the Role and RoleBindings were applied with it and are not read again.
 */
async function readRbac(
  kube: KubeClient,
  objects: readonly InClusterObject[],
  liveServiceAccount: KubeObject | undefined,
  retry: RetryOptions,
): Promise<LiveCluster['rbac']> {
  const desired = desiredRbac()
  const [serviceAccount, role] = desired
  if (liveServiceAccount !== undefined && !applyWouldChange(serviceAccount!, liveServiceAccount)) return null
  const [liveRole, bindings] = await Promise.all([
    withRetries(() => kube.get(refOf(objects[1]!)), retry),
    listAll(kube, 'rbac.authorization.k8s.io/v1', 'RoleBinding', {namespace: XPK_NAMESPACE}, retry),
  ])
  const liveByName = new Map(bindings.map((b) => [b.metadata.name, b]))
  return desired.map((object) => ({
    object,
    live:
      object === serviceAccount
        ? liveServiceAccount
        : object === role
          ? liveRole
          : liveByName.get(object.metadata.name),
  }))
}

/**
 * Sends what the submit changes: with --replace, deletes the JobSet that was read (only that one: its uid is the
 * delete's precondition) and waits until it and its Jobs are gone (a new Job of the same name would collide with one
 * still terminating); applies the RBAC objects that are missing or differ, the ServiceAccount (with the revision
 * that says the others are in place) last; then creates the JobSet. The create is create-if-absent: when another
 * submit took the name since it was read, the API server answers 409 AlreadyExists and this one is refused (exit 6),
 * where an apply would have silently replaced the other's workload.
 */
async function submit(
  input: WorkloadInput,
  manifest: JobSet,
  live: LiveCluster,
  replaces: ReplacedJobSet | null,
  timing: WorkloadTiming,
  deps: WorkloadCreateDeps,
  retry: RetryOptions,
): Promise<{replaced: boolean; rbac: RbacChange[]}> {
  const {kube} = live.reached
  let replaced = false
  if (replaces !== null) {
    deps.console.info(workloadReplacing({namespace: XPK_NAMESPACE, workload: input.name}))
    try {
      await withRetries(() => kube.delete(jobSetRef(input.name), {uid: replaces.uid}), retry)
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 'CONFLICT')) throw error
      throw nameTaken(input, 'was replaced by another submit after it was read, so it was not deleted', error)
    }
    await awaitGone(kube, [input.name], 'jobs', timing, deps)
    replaced = true
  }

  const current = live.rbac ?? desiredRbac().map((object) => ({object, live: object as unknown as KubeObject}))
  const rbac: RbacChange[] = current.map(({object, live: found}) => ({
    kind: object.kind,
    name: object.metadata.name,
    change: found === undefined ? 'create' : live.rbac !== null && applyWouldChange(object, found) ? 'update' : 'none',
  }))
  const changed = current.filter((_, i) => rbac[i]!.change !== 'none')
  if (changed.length > 0) {
    // The objects are xpk's by name (Python xpk wrote the same ones with kubectl): take over any field that differs.
    const send = (object: InClusterObject) =>
      withRetries(() => kube.apply(object as unknown as KubeObject, {force: true}), retry)
    const isServiceAccount = (object: InClusterObject) => object.kind === 'ServiceAccount'
    await Promise.all(changed.filter(({object}) => !isServiceAccount(object)).map(({object}) => send(object)))
    await Promise.all(changed.filter(({object}) => isServiceAccount(object)).map(({object}) => send(object)))
    deps.console.info(workloadRbacApplied({namespace: XPK_NAMESPACE, changed: rbac.filter((r) => r.change !== 'none')}))
  }

  const created = {...manifest, metadata: {...manifest.metadata, namespace: XPK_NAMESPACE}} as unknown as KubeObject
  let attempts = 0
  try {
    await withRetries(() => (attempts++, kube.create(created)), retry)
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 'ALREADY_EXISTS')) throw error
    // After a failed attempt whose answer was lost, the JobSet there may be this very submit's: it is when it holds
    // exactly what was sent (and is not the one --replace deleted).
    const mine =
      attempts > 1 &&
      (await withRetries(() => kube.get(jobSetRef(input.name)), retry).then(
        (found) =>
          found !== undefined &&
          found.metadata.uid !== replaces?.uid &&
          !applyWouldChange(created as unknown as InClusterObject, found),
      ))
    if (!mine) throw nameTaken(input, 'was created by another submit after the name was read as free', error)
  }
  return {replaced, rbac}
}

/** The refusal of a name another submit took between the read and the create: exit 6, as for a name taken before. */
function nameTaken(input: WorkloadInput, what: string, cause: unknown): XpkError {
  return new XpkError(
    'conflict',
    `Workload ${input.name} already exists on cluster ${input.cluster}: JobSet ${XPK_NAMESPACE}/${input.name} ${what}. Nothing of it was changed.`,
    {
      hints: [
        `Someone else submitted a workload of this name at the same time: pick another --workload name, or look at theirs ` +
          `(\`xpk workload list --cluster ${input.cluster} --filter-by-job ${input.name}\`) and add --replace to delete it and submit this one.`,
        `\`xpk workload delete --cluster ${input.cluster} --workload ${input.name}\` deletes it.`,
      ],
      cause,
    },
  )
}

/** The JobSet --replace would delete, as the result names it. */
function replacedJobSet(existing: KubeObject): ReplacedJobSet {
  const created = existing.metadata.creationTimestamp
  return {
    namespace: XPK_NAMESPACE,
    name: existing.metadata.name,
    uid: String(existing.metadata.uid ?? ''),
    created: typeof created === 'string' ? created : null,
  }
}

/**
 * --replace deletes a workload that may be running (its pods are stopped; a JobSet cannot be changed in place, as
 * its spec is immutable): asked first like every destructive step, --force skips the question, and with nobody to
 * ask it stops (exit 2 naming --force). A dry run says what would be deleted instead.
 */
async function confirmReplace(
  input: WorkloadInput,
  replaces: ReplacedJobSet,
  dryRun: boolean,
  deps: WorkloadCreateDeps,
): Promise<void> {
  if (dryRun) {
    deps.console.info(workloadReplacePlanned({workload: input.name, cluster: input.cluster, replaces}))
    return
  }
  await confirmOrStop(deps.console, workloadConfirmReplace({workload: input.name, cluster: input.cluster, replaces}), {
    nothingDone: 'Nothing was deleted or submitted.',
    hints: ['Pick another --workload name, or re-run with --force.'],
  })
}

/** The submit's report on stdout: what was sent, where to follow it, what to run next. */
function submittedText(result: WorkloadCreateResult, input: WorkloadInput): string {
  const lines = [
    `${result.replaced ? 'Replaced' : 'Submitted'} workload ${result.workload} on cluster ${result.cluster}: ` +
      `JobSet ${result.jobSet.namespace}/${result.jobSet.name}, ${describeScale(input.accelerator.kind, input.numSlices, input.numNodes)} ` +
      `of ${input.accelerator.name}, priority ${input.priority}.`,
    `Image: ${result.image.reference}`,
  ]
  if (result.links) {
    lines.push(
      `Follow it: ${result.links.console}`,
      `Logs of slice 0, worker 0 (adjust the pod name for other workers): ${result.links.logs}`,
    )
  }
  lines.push('Next:', ...result.next.map((command) => `  ${command}`))
  return lines.join('\n')
}

/** Env files are a few lines; anything bigger is a mistake (a data file, a device) and is not read. */
export const ENV_FILE_MAX_BYTES = 1 << 20

async function readEnvFile(path: string, files: LocalFiles): Promise<{path: string; text: string} | UsageError> {
  if (path.trim() === '')
    return new UsageError('--env-file is empty: give the path of a file of KEY=VALUE lines.', {flag: '--env-file'})
  const read = await files.readText(path, {maxBytes: ENV_FILE_MAX_BYTES})
  if (read.kind === 'text') return {path, text: read.text}
  return textFileProblem(read, {
    flag: '--env-file',
    path,
    what: 'a file of KEY=VALUE lines',
    maxBytes: ENV_FILE_MAX_BYTES,
    hints:
      read.kind === 'too-large'
        ? ['Pass only the variables the workload needs; large data belongs in the image or in storage.']
        : [],
  })
}

/**
 * Checks --output-manifest-file before any work, so a long image build never ends in a write that was bound to
 * fail. The directory must already exist: creating directories the user may have mistyped hides the mistake.
 */
async function checkOutputManifestFile(path: string | undefined, files: LocalFiles): Promise<UsageError | undefined> {
  if (path === undefined) return undefined
  const problem = (message: string, hint: string) =>
    new UsageError(`--output-manifest-file ${message}`, {flag: '--output-manifest-file', hints: [hint]})
  if (path.trim() === '') {
    return problem('is empty.', 'Give the path of the YAML file to write, e.g. --output-manifest-file jobset.yaml.')
  }
  try {
    const target = await files.stat(path)
    if (target?.type === 'directory' || (target === undefined && path.endsWith('/'))) {
      return problem(
        `${path} is a directory.`,
        `Name a file in it, e.g. --output-manifest-file ${join(path, 'jobset.yaml')}.`,
      )
    }
    if (target?.type === 'other') {
      return problem(
        `${path} is not a regular file (a device, pipe or socket), and it would be replaced.`,
        'Name a regular file; to see the manifest on stdout, use --dry-run.',
      )
    }
    const parent = dirname(resolve(path))
    const folder = await files.stat(parent)
    if (folder === undefined) {
      return problem(
        `${path}: the directory ${parent} does not exist.`,
        `Create it first (mkdir -p ${parent}), or name a file in an existing directory.`,
      )
    }
    if (folder.type !== 'directory') {
      return problem(`${path}: ${parent} is not a directory.`, 'Name a file in an existing directory.')
    }
    if (!(await files.canWriteIn(parent))) {
      return problem(
        `${path}: no permission to create files in ${parent}.`,
        'Name a file in a directory you can write to.',
      )
    }
  } catch (error) {
    if (!(error instanceof XpkError)) throw error
    return problem(`${path}: ${error.message}`, 'Name a file in a directory you can write to.')
  }
  return undefined
}

interface CheckedScriptDir {
  readonly dir: string
  readonly isDefault: boolean
  readonly maxBytes: number | null
}

/** Checks --script-dir (and the size limit) before any work: it must be a directory. */
async function checkScriptDir(
  options: WorkloadCreateOptions,
  deps: WorkloadCreateDeps,
): Promise<CheckedScriptDir | readonly UsageError[]> {
  const problems: UsageError[] = []
  const hints = [
    'Pass the directory holding your training code with --script-dir, or run a ready image with --docker-image.',
  ]
  const dir = options.scriptDir ?? deps.cwd
  if (dir.trim() === '') {
    problems.push(new UsageError('--script-dir is empty.', {flag: '--script-dir', hints}))
  } else {
    try {
      const found = await deps.files.stat(dir)
      if (found === undefined) {
        problems.push(new UsageError(`--script-dir ${dir}: no such directory.`, {flag: '--script-dir', hints}))
      } else if (found.type !== 'directory') {
        problems.push(new UsageError(`--script-dir ${dir} is not a directory.`, {flag: '--script-dir', hints}))
      }
    } catch (error) {
      if (!(error instanceof XpkError)) throw error
      problems.push(new UsageError(`--script-dir ${dir}: ${error.message}`, {flag: '--script-dir', hints}))
    }
  }
  const maxBytes = scriptDirLimit(deps.env)
  if (maxBytes instanceof UsageError) problems.push(maxBytes)
  if (problems.length > 0) return problems
  return {dir, isDefault: options.scriptDir === undefined, maxBytes: maxBytes as number | null}
}

function describeScale(kind: string, slices: number, nodes: number): string {
  if (kind === 'GPU') return `${nodes} VM${nodes === 1 ? '' : 's'}`
  return `${slices} slice${slices === 1 ? '' : 's'}`
}
