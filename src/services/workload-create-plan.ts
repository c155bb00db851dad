/**
 * The plan half of `xpk workload create`: reads the cluster (can it ever run the workload, is it set up for it, is
 * the name free, what RBAC is in place, its GPU networks, the storages it mounts), plans the image (its tag, and whether the registry has
 * it) and makes the plan (src/core/workload/create-plan.ts). Nothing is built or sent here.
 */
import {ApiError, XpkError} from '../core/errors.js'
import {
  metadataConfigMapName,
  parseMetadataConfigMap,
  parseResourcesConfigMap,
  resourcesConfigMapName,
} from '../core/incluster/configmaps.js'
import {autoprovisioningCapacity} from '../core/workload/autoprovisioning.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import {makesGpuNetworks} from '../core/cluster/gpu-networks.js'
import {defaultGpuNetworks} from '../core/manifests/jobset.js'
import {
  workloadCapacity,
  workloadGpuNetworks,
  workloadGpuNetworksMissing,
  workloadGpuNetworksAbsent,
  workloadKueueOlder,
  workloadNameTaken,
  workloadQueueInactive,
} from '../core/messages/workload.js'
import {storagesToMount, type WorkloadStorage} from '../core/storage/mounts.js'
import {readStorage, STORAGE_API_VERSION, STORAGE_KIND} from '../core/storage/observed.js'
import {KUEUE_API_VERSION, KUEUE_VERSION} from '../core/versions.js'
import {capacityProblem, checkCapacity, type CapacityRequest} from '../core/workload/capacity.js'
import {
  inactiveQueue,
  missingObjects,
  referencedObjects,
  setupProblem,
  type JobSetKind,
} from '../core/workload/cluster-setup.js'
import {
  desiredRbac,
  planWorkloadCreate,
  rbacInPlace,
  replacedJobSet,
  type ClusterCheck,
  type PlannedImage,
  type RbacState,
  type ReplacedJobSet,
  type WorkloadCreatePlan,
  type WorkloadPlanInputs,
} from '../core/workload/create-plan.js'
import {
  fixedGpuNetworks,
  GKE_NETWORK_PARAM_SET,
  gpuNetworkNames,
  missingGpuNetworks,
  needsClusterGpuNetworks,
} from '../core/workload/gpu-networks.js'
import {jobSetRef} from '../core/workload/jobsets.js'
import {mightBeSliced, slicingFromTopologies} from '../core/workload/slicing.js'
import {WORKLOAD_DEFAULTS} from '../core/workload/options.js'
import {PATHWAYS_CPU_FLAVOR, PATHWAYS_CPU_POOL} from '../core/workload/pathways.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import type {KubeClient, KubeLookup, KubeObject} from '../ports/kube.js'
import type {ImageBuildResult} from './image-build.js'
import {listAll, reachCluster, type ReachedCluster} from './workload-cluster.js'
import type {CheckedCreateInputs} from './workload-create-inputs.js'
import type {WorkloadCreateDeps, WorkloadCreateOptions, WorkloadImage} from './workload-create.js'
import type {WorkloadTiming} from './workload-delete.js'

/** A submit's plan, with what its apply needs besides the plan's data: the connection and the image's build. */
export interface PlannedSubmit {
  readonly plan: WorkloadCreatePlan
  /** What the plan was made from (the apply makes the JobSet again from them once a built image is pushed). */
  readonly inputs: WorkloadPlanInputs
  readonly image: WorkloadImage
  /** Builds and pushes the image: set when the plan has a build step and this is a submit. */
  readonly buildImage: (() => Promise<ImageBuildResult>) | null
  readonly replaces: ReplacedJobSet | null
  /** The cluster as reached; undefined when it was not read (a dry run that could not or should not). */
  readonly reached: ReachedCluster | undefined
  /**
   * Set when the name was not read before the create (see {@link inspectCluster}): given the create's failure, reads
   * the name and gives the refusal the read would have given (the name taken, or JobSets not served), or undefined.
   */
  readonly explainCreateFailure: ((error: unknown) => Promise<XpkError | undefined>) | null
}

/** Reads what the plan needs and makes it. @throws the submit's refusals (capacity, set-up, a taken name) */
export async function planSubmit(
  checked: CheckedCreateInputs,
  options: WorkloadCreateOptions,
  deps: WorkloadCreateDeps,
  timing: WorkloadTiming,
): Promise<PlannedSubmit> {
  const {input} = checked
  const retry: RetryOptions = {policy: timing.retry, clock: deps, signal: deps.signal}
  // Before the image is built: a workload the cluster can never run, a cluster not set up for it, or a name
  // already taken stops here (a dry run reports the same, the name as a warning).
  const live = checked.unread === null ? await inspectCluster(checked, options, deps, retry) : undefined
  const replaces = options.replace && live?.existing !== undefined ? replacedJobSet(live.existing) : null

  let image: WorkloadImage
  let planned: PlannedImage
  let buildImage: PlannedSubmit['buildImage'] = null
  if (input.pathways?.headless === true) {
    image = {source: 'none', reference: ''}
    planned = image
  } else if (options.dockerImage !== undefined) {
    image = {source: 'given', reference: options.dockerImage}
    planned = image
  } else {
    const context = checked.scriptDir!
    const baseImage = options.baseDockerImage ?? WORKLOAD_DEFAULTS.baseDockerImage
    const plannedBuild = await deps.planImage({
      baseImage,
      scriptDir: context.dir,
      scriptDirIsDefault: context.isDefault,
      maxContextBytes: context.maxBytes,
      platform: input.accelerator.dockerPlatform,
      repository: checked.repository!,
      dryRun: options.dryRun,
      offline: options.offline,
    })
    image = {source: 'built', ...plannedBuild.result}
    buildImage = plannedBuild.build
    planned = {
      ...plannedBuild.result,
      source: 'built',
      baseImage,
      platform: input.accelerator.dockerPlatform,
      scriptDir: context.dir,
    }
  }

  const gpuNetworks = needsClusterGpuNetworks(input.accelerator)
    ? live === undefined
      ? {source: 'assumed' as const, names: defaultGpuNetworks({...input, image: image.reference})}
      : {source: 'cluster' as const, names: live.gpuNetworks ?? []}
    : null
  const cluster: ClusterCheck = live?.check ?? {
    read: false,
    why: checked.unread === '--offline' ? 'offline' : 'no-target',
  }
  const inputs: WorkloadPlanInputs = {
    input,
    cluster,
    image: planned,
    replaces,
    nameTaken: live?.existing !== undefined && !options.replace,
    rbac: live?.rbac ?? {read: 'no'},
    gpuNetworks,
    goneTimeoutMs: timing.workloadGone.timeoutMs,
    storages: live === undefined ? {read: false, requested: input.storages} : {read: true, mounts: live.storages},
  }
  return {
    plan: planWorkloadCreate(inputs),
    inputs,
    image,
    buildImage,
    replaces,
    reached: live?.reached,
    explainCreateFailure: live?.explainCreateFailure ?? null,
  }
}

/** What the cluster holds that the submit depends on. */
interface LiveCluster {
  readonly reached: ReachedCluster
  readonly check: ClusterCheck
  /** The JobSet of the same name, if any (refused unless --replace). */
  readonly existing: KubeObject | undefined
  readonly rbac: RbacState
  /** The GKENetworkParamSet names, for tcpxo and rdma GPU types; null for others. */
  readonly gpuNetworks: string[] | null
  /** The storages the workload mounts: named with --storage, and every auto-mount one. */
  readonly storages: readonly WorkloadStorage[]
  readonly explainCreateFailure: PlannedSubmit['explainCreateFailure']
}

/**
 * Connects to the cluster and reads, in one round of parallel requests, everything the submit needs: the resources
 * ConfigMap (can the cluster ever run this?), the JobSet of this name (is the name free? and, by how a 404 comes
 * back, is the JobSet kind served at v1alpha2?), what else the JobSet refers to (Kueue's LocalQueue, the
 * PriorityClass of --priority: see core/workload/cluster-setup.ts), the ServiceAccount `xpk-sa`, the Storage objects
 * (a storage named with --storage must be one of them; every auto-mount one is mounted too), and for tcpxo/rdma GPUs
 * the GKENetworkParamSets, and for v6e and tpu7x workloads Kueue's Topologies (is the cluster set up for sub- or
 * super-slicing? see core/workload/slicing.ts): six requests for a TPU workload of another type, no discovery (JobSet and Kueue kinds are known:
 * core/kube/known-kinds.ts). Only when `xpk-sa` is missing or lacks the current RBAC revision (a cluster's first
 * submit) are the Role and RoleBindings read, in a second round; only when JobSets are not served is the JobSet CRD
 * read, to say why. Nothing is sent when something is missing.
 *
 * The JobSet of the name is read in that first round only when something is done before the JobSet's create (an
 * image built, a JobSet deleted with --replace, a manifest file written) or nothing is created (a dry run); on a
 * cluster's first submit it is read in the second round, before the RBAC objects are applied, and when the queue or
 * the PriorityClass is missing, to name all that is. Otherwise (the steady-state submit of a given image) the create
 * itself is the check, as it is create-if-absent: a taken name is its 409, and only then is the name read, to refuse
 * it as the read would have (exit 6, with when it was created). That is five reads, not six.
 */
async function inspectCluster(
  checked: CheckedCreateInputs,
  options: WorkloadCreateOptions,
  deps: WorkloadCreateDeps,
  retry: RetryOptions,
): Promise<LiveCluster> {
  const {input} = checked
  const reached = await reachCluster(checked.target, deps, retry)
  const {kube} = reached
  const read = <T>(call: () => Promise<T>) => withRetries(call, retry)
  const [serviceAccount] = desiredRbac()
  const refs = referencedObjects(input.priority)
  const nameFirst =
    options.dryRun ||
    Boolean(options.replace) ||
    options.dockerImage === undefined ||
    options.outputManifestFile !== undefined
  const lookUpName = () => read(() => kube.lookup(jobSetRef(input.name)))
  const [
    configMap,
    namedFirst,
    liveServiceAccount,
    queueLookup,
    priorityClass,
    storageObjects,
    paramSets,
    topologies,
    pathwaysFlavor,
  ] = await Promise.all([
    read(() =>
      kube.get({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: XPK_NAMESPACE,
        name: resourcesConfigMapName(input.cluster),
      }),
    ),
    nameFirst ? lookUpName() : Promise.resolve(undefined),
    read(() => kube.get(refOf(serviceAccount!))),
    read(() => kube.lookup(refs.localQueue)),
    read(() => kube.get(refs.priorityClass)),
    // A cluster without the Storage kind lists none: no storage was ever attached to it.
    listAll(kube, STORAGE_API_VERSION, STORAGE_KIND, {}, retry),
    needsClusterGpuNetworks(input.accelerator) || fixedGpuNetworks(input.accelerator).length > 0
      ? listAll(kube, GKE_NETWORK_PARAM_SET.apiVersion, GKE_NETWORK_PARAM_SET.kind, {}, retry)
      : Promise.resolve(undefined),
    // v6e and tpu7x workloads may run sub- or super-sliced: the cluster is set up for it when Kueue has its
    // Topology (a Kueue without the kind lists none).
    mightBeSliced(input.accelerator)
      ? listAll(kube, KUEUE_API_VERSION, 'Topology', {}, retry)
      : Promise.resolve([] as KubeObject[]),
    // Pathways: the head's CPU and memory are admitted by Kueue's cpu-user flavor, on the cpu-np pool.
    input.pathways === undefined
      ? Promise.resolve(undefined)
      : read(() => kube.lookup({apiVersion: KUEUE_API_VERSION, kind: 'ResourceFlavor', name: PATHWAYS_CPU_FLAVOR})),
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
  const slicing = slicingFromTopologies(topologies.map((t) => t.metadata.name))
  const verdict = checkCapacity(request, configMap === undefined ? undefined : parseResourcesConfigMap(data), slicing)
  const problem = capacityProblem(request, verdict)
  if (problem) throw problem
  // On node auto-provisioning without a capacity flag, the capacity the cluster was created with (its metadata
  // ConfigMap, read only then); a capacity flag on fixed pools is refused.
  const metadata =
    verdict.kind === 'fits-autoprovisioning' && input.capacity === null
      ? await read(() =>
          kube.get({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            namespace: XPK_NAMESPACE,
            name: metadataConfigMapName(input.cluster),
          }),
        )
      : undefined
  const autoprovisioning = autoprovisioningCapacity(
    input.cluster,
    input.capacity,
    verdict,
    metadata === undefined ? undefined : parseMetadataConfigMap((metadata.data ?? {}) as Record<string, string>),
  )
  deps.console.info(workloadCapacity({request, verdict}))

  // A missing queue or PriorityClass is refused naming everything missing, JobSet's kind too; RBAC to apply first
  // needs the name checked before it (read alongside the Role and RoleBindings: still two rounds).
  const rbacToRead = !rbacInPlace(liveServiceAccount)
  const [named, rbacRead] =
    namedFirst !== undefined
      ? [namedFirst, undefined]
      : await Promise.all([
          queueLookup.state !== 'found' || priorityClass === undefined || rbacToRead ? lookUpName() : undefined,
          rbacToRead ? readRbac(kube, liveServiceAccount, retry) : undefined,
        ])
  const existing = named?.state === 'found' ? named.object : undefined
  const jobSetKind = async (lookup: KubeLookup): Promise<JobSetKind> =>
    lookup.state === 'not-served' ? {served: false, crd: await read(() => kube.get(refs.jobSetCrd))} : {served: true}
  const jobSet: JobSetKind = named === undefined ? {served: true} : await jobSetKind(named)
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
  if (pathwaysFlavor !== undefined && pathwaysFlavor.state !== 'found') {
    throw pathwaysSetupProblem(input.cluster, input.accelerator.canonical)
  }
  const storages = storagesToMount(input.storages, storageObjects.map(readStorage), input.cluster)
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
    const taken = nameTaken(input, existing)
    if (!options.dryRun) throw taken
    deps.console.warn(workloadNameTaken({workload: input.name, conflict: taken.message, hint: taken.hints[0]!}))
  }

  // A3 High pods name vpc1..vpc4: a cluster without them would leave the pods unscheduled (or on the default NIC).
  const missingNetworks = paramSets === undefined ? [] : missingGpuNetworks(input.accelerator, paramSets)
  if (missingNetworks.length > 0) {
    const problem = gpuNetworksProblem(input, missingNetworks, acceleratorFlag)
    if (!options.dryRun) throw problem
    deps.console.warn(
      workloadGpuNetworksAbsent({workload: input.name, problem: problem.message, hint: problem.hints[0]!}),
    )
  }
  let gpuNetworks: string[] | null = null
  if (paramSets !== undefined && needsClusterGpuNetworks(input.accelerator)) {
    gpuNetworks = gpuNetworkNames(paramSets)
    if (gpuNetworks.length === 0 && makesGpuNetworks(input.accelerator)) {
      // A3 Mega, A3 Ultra, A4: cluster create makes them, so a cluster without any was not made for this type.
      const problem = noGpuNetworksProblem(input, acceleratorFlag)
      if (!options.dryRun) throw problem
      deps.console.warn(
        workloadGpuNetworksAbsent({workload: input.name, problem: problem.message, hint: problem.hints[0]!}),
      )
    } else if (gpuNetworks.length === 0) {
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

  const check: ClusterCheck = {
    read: true,
    capacity: verdict,
    olderKueue: olderQueue?.state === 'found',
    queueInactive: inactive !== undefined,
    autoprovisioning,
  }
  const rbac = rbacRead ?? (await readRbac(kube, liveServiceAccount, retry))
  const setup = {
    cluster: input.cluster,
    acceleratorArgs: `${acceleratorFlag} ${input.accelerator.canonical}`,
    viaKubeconfig: options.viaKubeconfig ?? false,
  }
  const explainCreateFailure =
    named !== undefined
      ? null
      : async (error: unknown): Promise<XpkError | undefined> => {
          if (error instanceof XpkError && error.kind === 'interrupted') return undefined
          // A 409 is the name taken; any other failure may be JobSets not served (their CRD gone since).
          const taken = error instanceof ApiError && error.status === 'ALREADY_EXISTS'
          const lookup = await lookUpName()
          if (lookup.state === 'found') return taken ? nameTaken(input, lookup.object) : undefined
          if (lookup.state === 'absent') return undefined
          return setupProblem(
            setup,
            missingObjects({jobSet: await jobSetKind(lookup), localQueue, priorityClass}, input.priority),
          )
        }
  return {reached, check, existing, rbac, gpuNetworks, storages, explainCreateFailure}
}

/** The refusal of an A3 High workload on a cluster without the GPU networks its pods name (exit 6). */
function gpuNetworksProblem(
  input: CheckedCreateInputs['input'],
  missing: readonly string[],
  acceleratorFlag: string,
): XpkError {
  return new XpkError(
    'conflict',
    `Cluster ${input.cluster} has no GPU network ${missing.join(', ')} (GKENetworkParamSet), which the pods of ${input.name} (${input.accelerator.name}, GPUDirect-TCPX) attach as eth1-eth4.`,
    {
      hints: [
        `Run \`xpk cluster create --cluster ${input.cluster} ${acceleratorFlag} ${input.accelerator.canonical}\` with the cluster's other flags: it creates the networks and their objects, and changes nothing else that matches.`,
      ],
    },
  )
}

/** The refusal of an A3 Mega, A3 Ultra or A4 workload on a cluster without any GKENetworkParamSet (exit 6). */
function noGpuNetworksProblem(input: CheckedCreateInputs['input'], acceleratorFlag: string): XpkError {
  return new XpkError(
    'conflict',
    `Cluster ${input.cluster} has no GPU network (GKENetworkParamSet), which the pods of ${input.name} (${input.accelerator.name}) attach for GPUDirect; without them they would get the default network only.`,
    {
      hints: [
        `Run \`xpk cluster create --cluster ${input.cluster} ${acceleratorFlag} ${input.accelerator.canonical}\` with the cluster's other flags: it creates the networks and their objects, and changes nothing else that matches.`,
      ],
    },
  )
}

/** The refusal of a name taken by a JobSet that was read (exit 6), naming --replace and workload delete. */
function nameTaken(input: CheckedCreateInputs['input'], existing: KubeObject): XpkError {
  const deleting = existing.metadata.deletionTimestamp !== undefined ? ', being deleted' : ''
  const created = existing.metadata.creationTimestamp
  const text =
    `Workload ${input.name} already exists on cluster ${input.cluster} (JobSet ${XPK_NAMESPACE}/${input.name}` +
    `${typeof created === 'string' ? `, created ${created}` : ''}${deleting}).`
  return new XpkError('conflict', text, {
    hints: [
      'Pick another --workload name, or add --replace to delete the existing one (stopping its pods) and submit this one.',
      `\`xpk workload delete --cluster ${input.cluster} --workload ${input.name}\` deletes it.`,
    ],
  })
}

function refOf(o: {apiVersion: string; kind: string; metadata: {name: string; namespace?: string}}) {
  return {apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name}
}

/**
 * What is live of the RBAC objects: nothing more is read when the live ServiceAccount is as this xpk applies it
 * (with the current revision), since the Role and RoleBindings were applied with it; else the Role and the
 * RoleBindings (one list), beside the ServiceAccount already read.
 */
async function readRbac(
  kube: KubeClient,
  liveServiceAccount: KubeObject | undefined,
  retry: RetryOptions,
): Promise<RbacState> {
  if (rbacInPlace(liveServiceAccount)) return {read: 'in-place'}
  const desired = desiredRbac()
  const [liveRole, bindings] = await Promise.all([
    withRetries(() => kube.get(refOf(desired[1]!)), retry),
    listAll(kube, 'rbac.authorization.k8s.io/v1', 'RoleBinding', {namespace: XPK_NAMESPACE}, retry),
  ])
  const liveByName = new Map(bindings.map((b) => [b.metadata.name, b]))
  return {
    read: 'live',
    live: desired.map((object, i) =>
      i === 0 ? liveServiceAccount : i === 1 ? liveRole : liveByName.get(object.metadata.name),
    ),
  }
}

/**
 * A cluster not made with `cluster create-pathways`: Kueue could never admit the Pathways head (no flavor covers its
 * CPU and memory), so the workload would wait forever. Python xpk refuses the same, finding no cpu-np node pool.
 */
function pathwaysSetupProblem(cluster: string, tpuType: string): XpkError {
  return new XpkError(
    'conflict',
    `Cluster ${cluster} is not set up for Pathways: Kueue has no ResourceFlavor ${PATHWAYS_CPU_FLAVOR}, which admits ` +
      `the Pathways head on the ${PATHWAYS_CPU_POOL} node pool. Nothing was submitted.`,
    {
      hints: [
        `Run \`xpk cluster create-pathways --cluster ${cluster} --tpu-type ${tpuType} ...\` with the flags the cluster ` +
          `was created with: it adds the ${PATHWAYS_CPU_POOL} node pool and the ${PATHWAYS_CPU_FLAVOR} flavor, keeping what is there.`,
      ],
    },
  )
}
