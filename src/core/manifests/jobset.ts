/**
 * The JobSet `xpk workload create` submits, built from a validated {@link WorkloadSpec}.
 *
 * Three shapes, as in Python xpk (non-Pathways):
 *   - TPU and CPU: one template; `replicas` = slices, one pod per VM, nodes picked by accelerator/topology labels
 *     (TPU) or by "anything but default-pool" (CPU).
 *   - Generic GPU (l4-*, a100-*): host networking plus a scheduler block (`default-scheduler` with node affinity
 *     to the first node pool, or a `gke.io/topology-aware-auto` scheduling gate).
 *   - A3/A4 GPU (h100 tcpx, h100-mega tcpxo, h200/b200 rdma) and A4X (gb200, rdma, arm64): no host networking;
 *     the GPUDirect networking decorations (annotations, daemon sidecar, host volumes, env, tolerations) that
 *     Python xpk adds by re-parsing its YAML are built here directly.
 *
 * Deliberate differences from Python xpk (document these in the README):
 *   1. `imagePullSecrets` is omitted without `--docker-image-pull-secret`; Python renders `[{name: None}]`, a
 *      secret literally named "None".
 *   2. Generic GPU pods get one merged `nodeSelector`. Python writes two `nodeSelector:` keys in one pod spec (the
 *      scheduler block's accelerator label, then the placement-policy label); YAML parsers keep the last one, so
 *      the accelerator label was usually lost.
 *   3. CPU pods define `JOBSET_NAME` (downward API, right after `REPLICATED_JOB_NAME`) because
 *      `JAX_COORDINATOR_ADDRESS` references `$(JOBSET_NAME)`; Python leaves it undefined, so Kubernetes passed the
 *      text `$(JOBSET_NAME)` through unexpanded.
 *   4. Environment variable names are unique. A value given later (user `--env`, then `XLA_FLAGS`, then the GPU
 *      networking variables) replaces an earlier one with the same name in place. Python appends duplicates for
 *      the fixed GPU/CPU variables and the decorator variables; Kubernetes uses the last duplicate, so the
 *      effective values are the same, minus the API server's duplicate-name warnings.
 *   5. Empty fields are left out instead of rendered as null/empty: `env`, `annotations`, CPU `nodeSelector` and
 *      `tolerations`, and `serviceAccountName: ''`.
 *   6. The wrapper script receives `--command` and `--debug-dump-gcs` as arguments and runs the command with
 *      `bash -c "$1"` instead of splicing it into its text (see container-script.ts), so no command can break it;
 *      `--enable-debug-logs` exports are wrapper lines; `$(date)` is written with backquotes; no blank lines for
 *      steps that do not apply. `$` in the command (and in GPU pods' COMMAND variable) is escaped as `$$`, so
 *      Kubernetes no longer expands `$(VAR)` in it: bash gets the command exactly as given.
 *   7. Live cluster state is an input, not a lookup: the node-auto-provisioning selectors come in as
 *      `extraNodeSelector` (the placement-policy selector follows from the accelerator, as in Python), the A3/A4 Kueue topology annotation as `topologyAwareScheduling` (Python:
 *      `is_GPU_TAS_possible`), and the tcpxo/rdma network names as `gpuNetworks` (Python: the cluster's
 *      GKENetworkParamSet names). Without `gpuNetworks` the names Cluster Toolkit gives those networks are derived
 *      from the cluster name.
 *   8. The JobSet failure-policy rule carries its name, `failurePolicyRule0`, which the v0.10.1 CRD requires. Python
 *      omits it and relies on the JobSet webhook to default it to that same name, so the stored object is equal.
 *   9. Key order follows Python's templates; for A3/A4, where Python re-dumps decorated YAML, the added fields
 *      (`volumes`, `initContainers`) come after `containers` as they do there. Python's YAML comments are gone.
 *  10. Storages (`options.storages`, src/core/storage/mounts.ts) are mounted as Python xpk mounts them (a claim
 *      volume named after the PersistentVolume, a mount in every main container, the CSI drivers' annotations,
 *      `serviceAccountName: xpk-sa`), except that generic GPU pods (l4, a100) carry the annotations on the pod:
 *      Python puts them on the JobSet and the Job template, where GKE's GCS FUSE webhook, which reads the pod's,
 *      never sees them, so the bucket could not be mounted. `readOnly` is written on every storage volume and
 *      mount, false included, as Python writes it.
 */
import type {Accelerator, GpuDirect} from '../catalog/types.js'
import {KIND_TRAITS} from '../catalog/types.js'
import {UsageError} from '../errors.js'
import {JOBSET_API_VERSION, LOCAL_QUEUE_NAME} from '../versions.js'
import type {WorkloadSpec} from '../workload/spec.js'
import {
  PODSET_REQUIRED_TOPOLOGY_ANNOTATION,
  SLICE_TOPOLOGY_ANNOTATION,
  type WorkloadSlicing,
} from '../workload/slicing.js'
import {sliceTopologyLabel} from '../cluster/slicing.js'
import {SCHEDULERS} from '../workload/options.js'
import {workloadPolicyName} from '../cluster/desired.js'
import {
  checkStorageMounts,
  storageAnnotations,
  storagesAnnotation,
  storageVolumeMounts,
  storageVolumes,
  type WorkloadStorage,
} from '../storage/mounts.js'
import {XLA_DUMP_DIR, containerCommand, kubernetesLiteral} from './container-script.js'
import type {
  Affinity,
  Container,
  EnvVar,
  JobSet,
  NodeSelectorRequirement,
  PodFailurePolicyRule,
  PodSpec,
  PodTemplateSpec,
  ResourceList,
  Toleration,
  Volume,
  VolumeMount,
} from './k8s-types.js'

/** Label on the JobSet and its pods naming the workload; `workload list/delete` select by it. */
export const WORKLOAD_LABEL = 'xpk.google.com/workload'
/** Label that hands the JobSet to Kueue's LocalQueue. */
export const QUEUE_NAME_LABEL = 'kueue.x-k8s.io/queue-name'
/** JobSet annotation that places each replicated Job (slice) on its own node pool. */
export const EXCLUSIVE_TOPOLOGY_ANNOTATION = 'alpha.jobset.sigs.k8s.io/exclusive-topology'
/** Kueue annotation asking topology-aware scheduling to pack GPU pods onto nearby hosts. */
export const PREFERRED_TOPOLOGY_ANNOTATION = 'kueue.x-k8s.io/podset-preferred-topology'
/** The one replicated Job of every non-Pathways workload; pod names are `<workload>-slice-job-<slice>-<vm>-…`. */
export const SLICE_JOB_NAME = 'slice-job'
/** GPU workloads always name their main container this, whatever `--docker-name` says. */
export const GPU_CONTAINER_NAME = 'gpu-image'
/** Kubernetes service account xpk creates for workloads that need Google Cloud access. */
export const XPK_SERVICE_ACCOUNT = 'xpk-sa'

/**
 * Exit codes that make a pod failure restartable (consuming one of `--max-restarts`): 42 by convention, and
 * 127-255, which signals and crashes of the runtime produce (e.g. 137 after SIGKILL, 143 after SIGTERM).
 */
export const BUILTIN_RESTART_EXIT_CODES: readonly number[] = [42, ...range(127, 255)]

/** Live cluster facts the builder cannot know offline; all optional. */
export interface BuildJobSetOptions {
  /**
   * More node labels the pods must match (node auto-provisioning capacity labels). Merged after the accelerator and
   * placement-policy labels; a key given here wins.
   */
  readonly extraNodeSelector?: Readonly<Record<string, string>>
  /**
   * A3/A4/A4X GPUs: ask Kueue for topology-aware placement (`kueue.x-k8s.io/podset-preferred-topology:
   * kubernetes.io/hostname`). Only set it when the cluster supports it (Python xpk: `is_GPU_TAS_possible`);
   * otherwise Kueue cannot admit the workload. Default false.
   */
  readonly topologyAwareScheduling?: boolean
  /**
   * tcpxo and rdma GPUs: the cluster's extra GPU network names (GKENetworkParamSets), attached as eth1, eth2, ….
   * Default: the names Cluster Toolkit creates for the cluster ({@link defaultGpuNetworks}).
   */
  readonly gpuNetworks?: readonly string[]
  /**
   * The storages the pods mount (`--storage` and the auto-mount ones, read from the cluster's Storage objects: see
   * src/core/storage/mounts.ts). Default none.
   */
  readonly storages?: readonly WorkloadStorage[]
  /**
   * TPU workloads on a cluster set up for sub- or super-slicing, as the capacity check found (src/core/workload/
   * slicing.ts). As in Python xpk: no exclusive-topology annotation (slices are not whole node pools) and no
   * placement-policy selector; sub-slicing pods carry Kueue's required-topology and GKE's slice-topology annotations
   * and select the cluster's slice topology, super-slicing pods the slice-topology annotation and the accelerator
   * only. Default: neither.
   */
  readonly slicing?: WorkloadSlicing
}

/**
 * Builds the JobSet for a workload. Pure: everything comes from `spec` and `options`.
 *
 * @throws UsageError when the workload names a scheduler its kind of cluster does not have ({@link SCHEDULERS}).
 */
export function buildJobSet(spec: WorkloadSpec, options: BuildJobSetOptions = {}): JobSet {
  const {accelerator} = spec
  if (!SCHEDULERS[accelerator.kind].includes(spec.scheduler)) {
    throw new UsageError(
      `--scheduler=${spec.scheduler}: ${accelerator.kind} workloads need ${SCHEDULERS[accelerator.kind].map((s) => `\`${s}\``).join(' or ')}.`,
      {flag: '--scheduler'},
    )
  }
  if (accelerator.kind !== 'GPU') return tpuOrCpuJobSet(spec, options)
  return gpuVariant(accelerator) === 'generic' ? genericGpuJobSet(spec, options) : a3GpuJobSet(spec, options)
}

/**
 * The restart set for podFailurePolicy: {@link BUILTIN_RESTART_EXIT_CODES} plus `--restart-on-exit-codes`,
 * de-duplicated and sorted ascending (the order the API server requires).
 */
export function restartExitCodes(userCodes: readonly number[]): number[] {
  return [...new Set([...BUILTIN_RESTART_EXIT_CODES, ...userCodes])].sort((a, b) => a - b)
}

/**
 * Names of the main containers: `gpu-image` for GPUs; otherwise `--docker-name`, suffixed `-1`, `-2`, … when
 * the VM's chips are split across parallel containers (tpu7/tpu7x).
 */
export function mainContainerNames(spec: WorkloadSpec): string[] {
  if (spec.accelerator.kind === 'GPU') return [GPU_CONTAINER_NAME]
  if (spec.parallelContainers <= 1) return [spec.containerName]
  return range(1, spec.parallelContainers).map((i) => `${spec.containerName}-${i}`)
}

/**
 * `resources.limits` of each main container: TPU chips shared out across the parallel containers, all the VM's
 * GPUs, or 95% of the VM's vCPUs (at least 1) so the node's system pods still fit.
 */
export function mainContainerLimits(spec: WorkloadSpec): ResourceList {
  const {accelerator} = spec
  const resource = KIND_TRAITS[accelerator.kind].resource
  switch (accelerator.kind) {
    case 'TPU':
      return {[resource]: Math.floor(accelerator.chipsPerVm / Math.max(1, spec.parallelContainers))}
    case 'GPU':
      return {[resource]: accelerator.chipsPerVm}
    case 'CPU':
      return {[resource]: Math.max(1, Math.floor((accelerator.chipsPerVm * 95) / 100))}
  }
}

/**
 * Environment of the main container(s): the kind's defaults (GPU and CPU only), then the user's `--env`, then
 * `XLA_FLAGS` for `--debug-dump-gcs`. A later variable replaces an earlier one of the same name in place.
 */
export function mainContainerEnv(spec: WorkloadSpec): EnvVar[] {
  return mergeEnv([...defaultEnv(spec), ...userEnv(spec)])
}

/** How a GPU type is wired: plain (l4, a100) or one of the GPUDirect networking stacks. */
export type GpuVariant = 'generic' | Exclude<GpuDirect, 'fastrak'>

/** The GPU manifest variant of an accelerator (GPUs only). */
export function gpuVariant(accelerator: Accelerator): GpuVariant {
  const direct = accelerator.gpu?.gpuDirect ?? 'fastrak'
  return direct === 'fastrak' ? 'generic' : direct
}

/**
 * The GPU network names Cluster Toolkit creates for an A3 Mega (tcpxo: `<cluster>-gpunet-<0..7>-subnet`) or an
 * A3 Ultra/A4/A4X cluster (rdma: `<cluster>-sub-1`, then `<cluster>-rdma-sub-<0..7>`); empty for other types.
 */
export function defaultGpuNetworks(spec: WorkloadSpec): string[] {
  const variant = spec.accelerator.kind === 'GPU' ? gpuVariant(spec.accelerator) : 'generic'
  if (variant === 'tcpxo') return range(0, 7).map((i) => `${spec.cluster}-gpunet-${i}-subnet`)
  if (variant === 'rdma') return [`${spec.cluster}-sub-1`, ...range(0, 7).map((i) => `${spec.cluster}-rdma-sub-${i}`)]
  return []
}

// ---------------------------------------------------------------------------------------------------------------
// The three shapes

function tpuOrCpuJobSet(spec: WorkloadSpec, options: BuildJobSetOptions): JobSet {
  const {accelerator} = spec
  const isTpu = accelerator.kind === 'TPU'
  const traits = KIND_TRAITS[accelerator.kind]
  const slicing = isTpu ? options.slicing : undefined
  // Sub-slices run on the cluster's slices, whose topology the nodes carry; a super-slice's cubes carry 4x4x4.
  const topology = slicing?.kind === 'sub' ? slicing.clusterTopology : accelerator.topology
  const acceleratorSelector: Record<string, string> =
    isTpu && traits.acceleratorLabel && traits.topologyLabel
      ? {
          [traits.acceleratorLabel]: present(accelerator.gkeAccelerator, 'gkeAccelerator'),
          ...(slicing?.kind === 'super' ? {} : {[traits.topologyLabel]: present(topology, 'topology')}),
        }
      : {}
  const nodeSelector = {
    ...acceleratorSelector,
    ...(slicing === undefined ? placementSelector(accelerator) : {}),
    ...options.extraNodeSelector,
  }
  const storages = options.storages ?? []
  const ownMounts: VolumeMount[] = [{name: SHARED_MEMORY_VOLUME, mountPath: '/dev/shm'}]
  checkStorageMounts(storages, [SHARED_MEMORY], ownMounts)
  const containers = mainContainers(spec, [...ownMounts, ...storageVolumeMounts(storages)])
  const pod: PodSpec = {
    schedulerName: spec.scheduler,
    ...imagePullSecrets(spec),
    restartPolicy: 'Never',
    // CPU pods carry no accelerator label to select on; keeping them off default-pool keeps xpk's own system
    // pods (Kueue, JobSet) schedulable.
    ...(isTpu ? {} : {affinity: {nodeAffinity: requiredNodeAffinity([NOT_DEFAULT_POOL])}}),
    ...nonEmpty('nodeSelector', nodeSelector),
    priorityClassName: spec.priority,
    hostNetwork: true,
    dnsPolicy: 'ClusterFirstWithHostNet',
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds,
    containers,
    ...storageServiceAccount(storages),
    ...(isTpu ? {tolerations: [{operator: 'Exists', key: KIND_TRAITS.TPU.resource}]} : {}),
    volumes: [SHARED_MEMORY, ...storageVolumes(storages)],
  }
  const jobSetAnnotations = {
    ...(slicing === undefined ? {[EXCLUSIVE_TOPOLOGY_ANNOTATION]: 'cloud.google.com/gke-nodepool'} : {}),
    ...storagesAnnotation(storages),
  }
  return jobSet(spec, {
    ...nonEmpty('annotations', jobSetAnnotations),
    replicas: spec.numSlices,
    podsPerJob: accelerator.vmsPerSlice,
    containerNames: containers.map((c) => c.name),
    pod: {metadata: podMetadata(spec, {...storageAnnotations(storages), ...slicingAnnotations(slicing)}), spec: pod},
  })
}

function genericGpuJobSet(spec: WorkloadSpec, options: BuildJobSetOptions): JobSet {
  const {accelerator} = spec
  const storages = options.storages ?? []
  checkStorageMounts(storages, [SHARED_MEMORY], [])
  const containers = mainContainers(spec, storageVolumeMounts(storages))
  let scheduling: Pick<PodSpec, 'schedulerName' | 'affinity' | 'schedulingGates' | 'nodeSelector'>
  if (spec.scheduler === 'default-scheduler') {
    scheduling = {
      schedulerName: spec.scheduler,
      affinity: {
        nodeAffinity: requiredNodeAffinity([
          {key: KIND_TRAITS.GPU.acceleratorLabel, operator: 'Exists'},
          // Python xpk pins generic GPU pods to the cluster's first node pool.
          {key: 'cloud.google.com/gke-nodepool', operator: 'In', values: [`${spec.cluster}-np-0`]},
        ]),
      },
      nodeSelector: {
        [KIND_TRAITS.GPU.acceleratorLabel]: present(accelerator.gkeAccelerator, 'gkeAccelerator'),
        ...placementSelector(accelerator),
        ...options.extraNodeSelector,
      },
    }
  } else if (spec.scheduler === 'gke.io/topology-aware-auto') {
    scheduling = {
      // GKE's topology-aware scheduler lifts this gate once it has placed all the pods together.
      schedulingGates: [{name: `${spec.scheduler}-${spec.name}`}],
      ...nonEmpty('nodeSelector', {...placementSelector(accelerator), ...options.extraNodeSelector}),
    }
  } else {
    throw new UsageError(
      `--scheduler=${spec.scheduler}: GPU workloads need \`default-scheduler\` or \`gke.io/topology-aware-auto\`.`,
      {flag: '--scheduler'},
    )
  }
  const pod: PodSpec = {
    ...scheduling,
    priorityClassName: spec.priority,
    restartPolicy: 'Never',
    ...imagePullSecrets(spec),
    hostNetwork: true,
    dnsPolicy: 'ClusterFirstWithHostNet',
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds,
    ...storageServiceAccount(storages),
    tolerations: [GPU_TOLERATION],
    // Python xpk adds the shared-memory volume here but mounts it in no container; kept for parity.
    volumes: [SHARED_MEMORY, ...storageVolumes(storages)],
    containers,
  }
  return jobSet(spec, {
    ...nonEmpty('annotations', storagesAnnotation(storages)),
    replicas: 1,
    podsPerJob: spec.numNodes,
    containerNames: containers.map((c) => c.name),
    pod: {metadata: podMetadata(spec, storageAnnotations(storages)), spec: pod},
  })
}

function a3GpuJobSet(spec: WorkloadSpec, options: BuildJobSetOptions): JobSet {
  const variant = gpuVariant(spec.accelerator)
  if (variant === 'generic') throw new Error(`${spec.accelerator.name} has no GPUDirect networking.`)
  const networking = gpuNetworking(variant, options.gpuNetworks ?? defaultGpuNetworks(spec))
  const storages = options.storages ?? []
  checkStorageMounts(storages, networking.volumes, networking.volumeMounts)
  // Python xpk writes the storage mounts into the container, then its GPU decorators add theirs after them.
  const containers = mainContainers(
    spec,
    [...storageVolumeMounts(storages), ...networking.volumeMounts],
    networking.env,
  )
  const arm = spec.accelerator.dockerPlatform === 'linux/arm64'
  const annotations = {
    ...(options.topologyAwareScheduling ? {[PREFERRED_TOPOLOGY_ANNOTATION]: 'kubernetes.io/hostname'} : {}),
    ...networking.annotations,
    ...storageAnnotations(storages),
  }
  const pod: PodSpec = {
    priorityClassName: spec.priority,
    restartPolicy: 'Never',
    ...nonEmpty('nodeSelector', {...placementSelector(spec.accelerator), ...options.extraNodeSelector}),
    ...imagePullSecrets(spec),
    dnsPolicy: 'ClusterFirstWithHostNet',
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds,
    serviceAccountName: XPK_SERVICE_ACCOUNT,
    tolerations: [GPU_TOLERATION, ...(arm ? [ARM64_TOLERATION] : []), USER_WORKLOAD_TOLERATION],
    containers,
    volumes: [...networking.volumes, ...storageVolumes(storages)],
    ...(networking.initContainers.length > 0 ? {initContainers: networking.initContainers} : {}),
  }
  return jobSet(spec, {
    ...nonEmpty('annotations', storagesAnnotation(storages)),
    replicas: 1,
    podsPerJob: spec.numNodes,
    containerNames: containers.map((c) => c.name),
    pod: {metadata: podMetadata(spec, annotations), spec: pod},
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Shared pieces

/** The pods' labels, and their annotations when they have any. */
function podMetadata(spec: WorkloadSpec, annotations: Readonly<Record<string, string>>): PodTemplateSpec['metadata'] {
  return {labels: {[WORKLOAD_LABEL]: spec.name}, ...nonEmpty('annotations', annotations)}
}

/** Pods that mount storages run as `xpk-sa`, the account the storages are granted to (Python xpk's rule). */
function storageServiceAccount(storages: readonly WorkloadStorage[]): Pick<PodSpec, 'serviceAccountName'> {
  return storages.length === 0 ? {} : {serviceAccountName: XPK_SERVICE_ACCOUNT}
}

interface JobSetShape {
  readonly annotations?: Readonly<Record<string, string>>
  readonly replicas: number
  readonly podsPerJob: number
  readonly containerNames: readonly string[]
  readonly pod: PodTemplateSpec
}

function jobSet(spec: WorkloadSpec, shape: JobSetShape): JobSet {
  const restartCodes = restartExitCodes(spec.restartOnExitCodes)
  const rules: PodFailurePolicyRule[] = shape.containerNames.map((containerName) => ({
    action: 'FailJob',
    onPodConditions: [],
    onExitCodes: {containerName, operator: 'NotIn', values: restartCodes},
  }))
  return {
    apiVersion: JOBSET_API_VERSION,
    kind: 'JobSet',
    metadata: {
      name: spec.name,
      labels: {[QUEUE_NAME_LABEL]: LOCAL_QUEUE_NAME, [WORKLOAD_LABEL]: spec.name},
      ...(shape.annotations ? {annotations: shape.annotations} : {}),
    },
    spec: {
      ttlSecondsAfterFinished: spec.ttlSecondsAfterFinished,
      failurePolicy: {
        // A container exiting outside the restart set fails its Job at once (podFailurePolicy), and this rule
        // turns that into a failed JobSet instead of a restart.
        // The CRD requires a rule name; the JobSet webhook would default it to this same name (failurePolicyRule<i>).
        rules: [{name: 'failurePolicyRule0', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy']}],
        maxRestarts: spec.maxRestarts,
      },
      replicatedJobs: [
        {
          name: SLICE_JOB_NAME,
          replicas: shape.replicas,
          template: {
            spec: {
              parallelism: shape.podsPerJob,
              completions: shape.podsPerJob,
              // Any pod failure fails the whole slice; recovery happens at JobSet level.
              backoffLimit: 0,
              podFailurePolicy: {rules},
              template: shape.pod,
            },
          },
        },
      ],
    },
  }
}

function mainContainers(
  spec: WorkloadSpec,
  volumeMounts: readonly VolumeMount[],
  extraEnv: readonly EnvVar[] = [],
): Container[] {
  const isGpu = spec.accelerator.kind === 'GPU'
  const env = mergeEnv([...mainContainerEnv(spec), ...extraEnv])
  const command = containerCommand({
    command: spec.command,
    enableDebugLogs: spec.enableDebugLogs,
    debugDumpGcs: spec.debugDumpGcs,
    signalGpuTermination: isGpu,
  })
  return mainContainerNames(spec).map((name) => ({
    name,
    image: spec.image,
    ...(isGpu ? {imagePullPolicy: 'Always' as const} : {}),
    ...nonEmpty('env', env),
    securityContext: {privileged: true},
    command,
    resources: {limits: mainContainerLimits(spec)},
    ...nonEmpty('volumeMounts', volumeMounts),
  }))
}

/**
 * The user's container where another builder places it (the Pathways head, src/core/manifests/pathways-jobset.ts):
 * the wrapper script running `--command`, named `--docker-name`, with `env` before the user's variables, and the
 * given limits and mounts. Pulled every time, as Python xpk's Pathways template says.
 */
export function commandContainer(
  spec: WorkloadSpec,
  parts: {
    readonly env: readonly EnvVar[]
    readonly limits: ResourceList
    readonly volumeMounts: readonly VolumeMount[]
  },
): Container {
  return {
    name: spec.containerName,
    image: spec.image,
    imagePullPolicy: 'Always',
    ...nonEmpty('env', mergeEnv([...parts.env, ...mainContainerEnv(spec)])),
    securityContext: {privileged: true},
    command: containerCommand({
      command: spec.command,
      enableDebugLogs: spec.enableDebugLogs,
      debugDumpGcs: spec.debugDumpGcs,
      signalGpuTermination: false,
    }),
    resources: {limits: parts.limits},
    ...nonEmpty('volumeMounts', parts.volumeMounts),
  }
}

const ANNOTATION = (key: string) => `metadata.annotations['${key}']`

function fieldEnv(name: string, annotation: string): EnvVar {
  return {name, valueFrom: {fieldRef: {fieldPath: ANNOTATION(annotation)}}}
}

// Kubernetes expands $(VAR) only for variables defined earlier in the list, so these come first.
const REPLICATED_JOB_NAME_ENV = fieldEnv('REPLICATED_JOB_NAME', 'jobset.sigs.k8s.io/replicatedjob-name')
const JOBSET_NAME_ENV = fieldEnv('JOBSET_NAME', 'jobset.sigs.k8s.io/jobset-name')
const COORDINATOR_ADDRESS = '$(JOBSET_NAME)-$(REPLICATED_JOB_NAME)-0-0.$(JOBSET_NAME)'

function defaultEnv(spec: WorkloadSpec): EnvVar[] {
  const {accelerator} = spec
  switch (accelerator.kind) {
    case 'TPU':
      // JobSet and GKE inject the TPU and megascale variables themselves.
      return []
    case 'GPU':
      return [
        REPLICATED_JOB_NAME_ENV,
        JOBSET_NAME_ENV,
        {name: 'NNODES', value: String(spec.numNodes)},
        fieldEnv('NODE_RANK', 'batch.kubernetes.io/job-completion-index'),
        {name: 'USE_GPUDIRECT', value: accelerator.gpu?.gpuDirect ?? 'fastrak'},
        {name: 'GPUS_PER_NODE', value: String(accelerator.chipsPerVm)},
        // Kubernetes expands $(VAR) in env values too; escaped, the variable holds the command as given.
        {name: 'COMMAND', value: kubernetesLiteral(spec.command)},
        {name: 'JAX_COORDINATOR_PORT', value: '6002'},
        {name: 'JAX_COORDINATOR_ADDRESS', value: COORDINATOR_ADDRESS},
      ]
    case 'CPU':
      return [
        REPLICATED_JOB_NAME_ENV,
        JOBSET_NAME_ENV,
        fieldEnv('JOB_INDEX', 'jobset.sigs.k8s.io/job-index'),
        fieldEnv('JOB_COMPLETION_INDEX', 'batch.kubernetes.io/job-completion-index'),
        {name: 'PROCESSES_IN_JOB', value: String(accelerator.vmsPerSlice)},
        {name: 'JAX_PROCESS_COUNT', value: String(spec.numSlices * accelerator.vmsPerSlice)},
        {name: 'JAX_COORDINATOR_ADDRESS', value: COORDINATOR_ADDRESS},
      ]
  }
}

function userEnv(spec: WorkloadSpec): EnvVar[] {
  const env: EnvVar[] = spec.env.map(({name, value}) => ({name, value}))
  if (spec.debugDumpGcs !== null) env.push({name: 'XLA_FLAGS', value: `--xla_dump_to=${XLA_DUMP_DIR}`})
  return env
}

/** Keeps each name once, at its first position, with the value given last. */
function mergeEnv(entries: readonly EnvVar[]): EnvVar[] {
  const byName = new Map<string, EnvVar>()
  for (const entry of entries) byName.set(entry.name, entry)
  const seen = new Set<string>()
  const merged: EnvVar[] = []
  for (const {name} of entries) {
    if (seen.has(name)) continue
    seen.add(name)
    merged.push(byName.get(name) as EnvVar)
  }
  return merged
}

/** The pod annotations of a sub- or super-slicing workload (Python: create_sub_slicing_annotations, create_tpu_slice_topology_annotation). */
function slicingAnnotations(slicing: WorkloadSlicing | undefined): Record<string, string> {
  if (slicing === undefined) return {}
  if (slicing.kind === 'super') return {[SLICE_TOPOLOGY_ANNOTATION]: slicing.topology}
  return {
    [PODSET_REQUIRED_TOPOLOGY_ANNOTATION]: sliceTopologyLabel(slicing.sliceTopology),
    [SLICE_TOPOLOGY_ANNOTATION]: slicing.sliceTopology,
  }
}

/** Label GKE puts on nodes of pools created with a workload placement policy. */
export const PLACEMENT_POLICY_LABEL = 'cloud.google.com/placement-policy-name'

/**
 * Types whose pools `cluster create` puts under a workload placement policy (multi-host tpu7x/tpu7, gb200) run on
 * those nodes only: the policy name follows from the accelerator, as the cluster side names it.
 */
function placementSelector(accelerator: Accelerator): Record<string, string> {
  const policy = workloadPolicyName(accelerator)
  return policy === null ? {} : {[PLACEMENT_POLICY_LABEL]: policy}
}

function imagePullSecrets(spec: WorkloadSpec): Pick<PodSpec, 'imagePullSecrets'> {
  return spec.imagePullSecret === null ? {} : {imagePullSecrets: [{name: spec.imagePullSecret}]}
}

function requiredNodeAffinity(
  matchExpressions: readonly NodeSelectorRequirement[],
): NonNullable<Affinity['nodeAffinity']> {
  return {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions}]}}
}

const NOT_DEFAULT_POOL: NodeSelectorRequirement = {
  key: 'cloud.google.com/gke-nodepool',
  operator: 'NotIn',
  values: ['default-pool'],
}

const SHARED_MEMORY_VOLUME = 'dshm-2'
// Docker's default 64 MiB /dev/shm is too small for data loaders; a RAM-backed emptyDir lifts that limit.
const SHARED_MEMORY: Volume = {name: SHARED_MEMORY_VOLUME, emptyDir: {medium: 'Memory'}}

const GPU_TOLERATION: Toleration = {operator: 'Exists', key: KIND_TRAITS.GPU.resource}
const ARM64_TOLERATION: Toleration = {
  key: 'kubernetes.io/arch',
  operator: 'Equal',
  value: 'arm64',
  effect: 'NoSchedule',
}
// Node pools made by Cluster Toolkit (A3 Mega/Ultra, A4) are tainted so that only workloads land on them.
const USER_WORKLOAD_TOLERATION: Toleration = {
  key: 'user-workload',
  operator: 'Equal',
  value: 'true',
  effect: 'NoSchedule',
}

// ---------------------------------------------------------------------------------------------------------------
// GPUDirect networking (Python xpk: tcpx_decorator.py, tcpxo_decorator.py, rdma_decorator.py)

interface GpuNetworking {
  readonly annotations: Readonly<Record<string, string>>
  readonly volumes: readonly Volume[]
  readonly initContainers: readonly Container[]
  /** Added to the main (GPU) container. */
  readonly env: readonly EnvVar[]
  readonly volumeMounts: readonly VolumeMount[]
}

const TCPX_DAEMON_IMAGE = 'us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.11'
const TCPXO_DAEMON_IMAGE = 'us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.12'
const NVIDIA_LIB64 = '/usr/local/nvidia/lib64'
const LD_LIBRARY_PATH: EnvVar = {name: 'LD_LIBRARY_PATH', value: NVIDIA_LIB64}
const GPU_DEVICES = [...range(0, 7).map((i) => `/dev/nvidia${i}`), '/dev/nvidiactl', '/dev/nvidia-uvm']
const DEFAULT_INTERFACE = {'networking.gke.io/default-interface': 'eth0'}

function hostPath(name: string, path: string): Volume {
  return {name, hostPath: {path}}
}

/** The `devices.gke.io/container.<name>` annotation value: the host devices the daemon sidecar may open. */
function deviceList(paths: readonly string[]): string {
  return paths.map((path) => `- path: ${path}\n`).join('')
}

/** The `networking.gke.io/interfaces` annotation value: eth0 on the default network, then one NIC per network. */
function interfaces(networks: readonly string[]): string {
  // Serialised, not templated: a network name cannot change the annotation's structure.
  const entries = ['default', ...networks].map(
    (network, i) => `    ${JSON.stringify({interfaceName: `eth${i}`, network})}`,
  )
  return `[\n${entries.join(',\n')}\n]`
}

function gpuNetworking(variant: Exclude<GpuVariant, 'generic'>, networks: readonly string[]): GpuNetworking {
  switch (variant) {
    case 'tcpx':
      return {
        annotations: {
          'devices.gke.io/container.tcpx-daemon': deviceList(GPU_DEVICES),
          ...DEFAULT_INTERFACE,
          // A3 High clusters get these four networks from xpk's own network setup, whatever `networks` says.
          'networking.gke.io/interfaces': interfaces(['vpc1', 'vpc2', 'vpc3', 'vpc4']),
        },
        volumes: [
          hostPath('libraries', '/home/kubernetes/bin/nvidia/lib64'),
          hostPath('sys', '/sys'),
          hostPath('proc-sys', '/proc/sys'),
          hostPath('tcpx-socket', '/run/tcpx'),
          {name: 'dshm', emptyDir: {medium: 'Memory', sizeLimit: '128Gi'}},
        ],
        initContainers: [
          {
            name: 'tcpx-daemon',
            image: TCPX_DAEMON_IMAGE,
            imagePullPolicy: 'Always',
            restartPolicy: 'Always',
            command: [
              '/tcpgpudmarxd/build/app/tcpgpudmarxd',
              '--gpu_nic_preset',
              'a3vm',
              '--gpu_shmem_type',
              'fd',
              '--uds_path',
              '/run/tcpx',
              '--setup_param',
              '"--verbose 128 2 0 "',
            ],
            securityContext: {capabilities: {add: ['NET_ADMIN']}},
            volumeMounts: [
              {name: 'libraries', mountPath: NVIDIA_LIB64},
              {name: 'tcpx-socket', mountPath: '/run/tcpx'},
              {name: 'sys', mountPath: '/hostsysfs'},
              {name: 'proc-sys', mountPath: '/hostprocsysfs'},
            ],
            env: [LD_LIBRARY_PATH],
          },
        ],
        env: [LD_LIBRARY_PATH],
        volumeMounts: [
          {name: 'tcpx-socket', mountPath: '/tmp'},
          {name: 'libraries', mountPath: NVIDIA_LIB64},
          {name: 'dshm', mountPath: '/dev/shm'},
        ],
      }
    case 'tcpxo':
      return {
        annotations: {
          'devices.gke.io/container.tcpxo-daemon': deviceList([...GPU_DEVICES, '/dev/dmabuf_import_helper']),
          ...DEFAULT_INTERFACE,
          'networking.gke.io/interfaces': interfaces(networks),
        },
        volumes: [
          hostPath('libraries', '/home/kubernetes/bin/nvidia'),
          hostPath('sys', '/sys'),
          hostPath('proc-sys', '/proc/sys'),
          hostPath('aperture-devices', '/dev/aperture_devices'),
          {name: 'dshm', emptyDir: {medium: 'Memory', sizeLimit: '128Gi'}},
        ],
        initContainers: [
          {
            name: 'tcpxo-daemon',
            image: TCPXO_DAEMON_IMAGE,
            imagePullPolicy: 'Always',
            restartPolicy: 'Always',
            command: ['/bin/sh', '-c'],
            args: [
              [
                'set -ex',
                'chmod 755 /fts/entrypoint_rxdm_container.sh',
                '/fts/entrypoint_rxdm_container.sh --num_hops=2 --num_nics=8 --uid= --alsologtostderr',
              ].join('\n'),
            ],
            securityContext: {capabilities: {add: ['NET_ADMIN', 'NET_BIND_SERVICE']}},
            volumeMounts: [
              {name: 'libraries', mountPath: '/usr/local/nvidia'},
              {name: 'sys', mountPath: '/hostsysfs'},
              {name: 'proc-sys', mountPath: '/hostprocsysfs'},
            ],
            env: [LD_LIBRARY_PATH],
          },
        ],
        env: [LD_LIBRARY_PATH, {name: 'NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY', value: '/dev/aperture_devices'}],
        volumeMounts: [
          {name: 'aperture-devices', mountPath: '/dev/aperture_devices'},
          {name: 'libraries', mountPath: '/usr/local/nvidia'},
          {name: 'dshm', mountPath: '/dev/shm'},
        ],
      }
    case 'rdma':
      return {
        annotations: {...DEFAULT_INTERFACE, 'networking.gke.io/interfaces': interfaces(networks)},
        volumes: [
          hostPath('library-dir-host', '/home/kubernetes/bin/nvidia'),
          hostPath('gib', '/home/kubernetes/bin/gib'),
          {name: 'dshm', emptyDir: {medium: 'Memory'}},
        ],
        initContainers: [],
        env: [LD_LIBRARY_PATH],
        volumeMounts: [
          {name: 'library-dir-host', mountPath: '/usr/local/nvidia'},
          {name: 'gib', mountPath: '/usr/local/gib'},
          {name: 'dshm', mountPath: '/dev/shm'},
        ],
      }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

/** Integers from `first` to `last`, both included. */
function range(first: number, last: number): number[] {
  return Array.from({length: Math.max(0, last - first + 1)}, (_, i) => first + i)
}

/** `{[key]: value}` unless the value is an empty list or map, in which case nothing. */
function nonEmpty<K extends string, V extends object>(key: K, value: V): {[P in K]?: V} {
  const empty = Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0
  return (empty ? {} : {[key]: value}) as {[P in K]?: V}
}

/** A catalog field the accelerator kind guarantees; a null here is a catalog bug, not a user error. */
function present<T>(value: T | null, field: string): T {
  if (value === null) throw new Error(`Accelerator catalog entry lacks ${field}.`)
  return value
}
