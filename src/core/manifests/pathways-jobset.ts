/**
 * The JobSet `xpk workload create-pathways` submits, as Python xpk's pathways_workload_create.yaml.j2 renders it:
 *
 *   - `pathways-head` (one pod on the `cpu-np` pool): the proxy and the resource manager as sidecars, and the user's
 *     container running `--command` (with `--headless` there is no user container, and the two run as the pod's
 *     containers); the JobSet's coordinator, so every pod finds it through the `jobset.sigs.k8s.io/coordinator`
 *     label.
 *   - `worker` (one Job per slice, one pod per TPU VM): the Pathways server on the TPU chips, optionally with the
 *     colocated Python sidecar.
 *
 * Deliberate differences from Python xpk (also in the README, section "Pathways"):
 *   1. `--ttl-seconds-after-finished` and `--max-restarts` take effect (`ttlSecondsAfterFinished`,
 *      `failurePolicy.maxRestarts`); Python accepts both flags and renders neither.
 *   2. `--docker-image-pull-secret` is written on the head pod, whose user container pulls the image; Python drops it.
 *   3. `--custom-pathways-*-args` split on any run of whitespace (Python: on single spaces, so two spaces made an
 *      empty argument).
 *   4. Empty `resources: {}` of the sidecar and Python's YAML comments are left out; sub- and super-slicing are not
 *      offered for Pathways.
 */
import {KIND_TRAITS} from '../catalog/types.js'
import {workloadPolicyName} from '../cluster/desired.js'
import {JOBSET_API_VERSION, LOCAL_QUEUE_NAME} from '../versions.js'
import {
  PATHWAYS_CPU_POOL,
  PATHWAYS_HEAD_JOB,
  PATHWAYS_PROXY_PORT,
  PATHWAYS_WORKER_JOB,
  type PathwaysSpec,
} from '../workload/pathways.js'
import type {WorkloadSpec} from '../workload/spec.js'
import {
  commandContainer,
  EXCLUSIVE_TOPOLOGY_ANNOTATION,
  PLACEMENT_POLICY_LABEL,
  QUEUE_NAME_LABEL,
  WORKLOAD_LABEL,
} from './jobset.js'
import type {Container, EnvVar, JobSet, PodSpec, Volume, VolumeMount} from './k8s-types.js'

/** Live cluster facts the builder cannot know offline. */
export interface BuildPathwaysJobSetOptions {
  /** Node auto-provisioning capacity labels for the workers, merged after the accelerator's. */
  readonly extraNodeSelector?: Readonly<Record<string, string>>
}

const RESOURCE_MANAGER_PORT = 29001
const WORKER_PORT = 29005
const COORDINATOR_LABEL = "metadata.labels['jobset.sigs.k8s.io/coordinator']"
const SHARED_TMP: Volume = {hostPath: {path: '/tmp', type: 'DirectoryOrCreate'}, name: 'shared-tmp'} as Volume
const SHARED_TMP_MOUNT: VolumeMount = {mountPath: '/tmp', name: 'shared-tmp'} as VolumeMount

const fromField = (name: string, fieldPath: string): EnvVar => ({name, valueFrom: {fieldRef: {fieldPath}}})
const tcp = (...ports: number[]) => ports.map((containerPort) => ({containerPort, protocol: 'TCP' as const}))
const PATHWAYS_HEAD_ENV = fromField('PATHWAYS_HEAD', COORDINATOR_LABEL)
const RESOURCE_MANAGER = `$(PATHWAYS_HEAD):${RESOURCE_MANAGER_PORT}`

/**
 * Builds the Pathways JobSet. Pure: everything comes from `spec` (the workload's; `command` is unused when
 * headless) and `pathways`.
 */
export function buildPathwaysJobSet(
  spec: WorkloadSpec,
  pathways: PathwaysSpec,
  options: BuildPathwaysJobSetOptions = {},
): JobSet {
  const {accelerator} = spec
  if (accelerator.kind !== 'TPU')
    throw new Error(`Pathways runs on TPUs; ${accelerator.name} is a ${accelerator.kind}.`)
  const headless = pathways.headless
  const sidecars = [proxyContainer(pathways), resourceManagerContainer(spec, pathways)].map((c): Container =>
    headless ? c : {...c, restartPolicy: 'Always'},
  )
  const headPod: PodSpec = {
    hostNetwork: true,
    dnsPolicy: 'ClusterFirstWithHostNet',
    nodeSelector: {'cloud.google.com/gke-nodepool': PATHWAYS_CPU_POOL},
    ...(spec.imagePullSecret === null || headless ? {} : {imagePullSecrets: [{name: spec.imagePullSecret}]}),
    ...(headless ? {containers: sidecars} : {initContainers: sidecars, containers: [userContainer(spec)]}),
    restartPolicy: 'Never',
    volumes: [SHARED_TMP],
  }
  const vms = accelerator.vmsPerSlice
  const policy = workloadPolicyName(accelerator)
  const workerPod: PodSpec = {
    hostNetwork: true,
    dnsPolicy: 'ClusterFirstWithHostNet',
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds,
    priorityClassName: spec.priority,
    nodeSelector: {
      [KIND_TRAITS.TPU.acceleratorLabel]: accelerator.gkeAccelerator ?? '',
      [KIND_TRAITS.TPU.topologyLabel]: accelerator.topology ?? '',
      ...(policy === null ? {} : {[PLACEMENT_POLICY_LABEL]: policy}),
      ...options.extraNodeSelector,
    },
    ...(pathways.colocatedPythonSidecarImage === null
      ? {}
      : {initContainers: [colocatedPythonSidecar(pathways.colocatedPythonSidecarImage)]}),
    containers: [workerContainer(spec, pathways)],
    restartPolicy: 'OnFailure',
    tolerations: [{operator: 'Exists', key: KIND_TRAITS.TPU.resource}],
    volumes: [SHARED_TMP],
  }
  return {
    apiVersion: JOBSET_API_VERSION,
    kind: 'JobSet',
    metadata: {name: spec.name, labels: {[QUEUE_NAME_LABEL]: LOCAL_QUEUE_NAME, [WORKLOAD_LABEL]: spec.name}},
    spec: {
      ttlSecondsAfterFinished: spec.ttlSecondsAfterFinished,
      coordinator: {replicatedJob: PATHWAYS_HEAD_JOB},
      network: {enableDNSHostnames: true, publishNotReadyAddresses: true},
      failurePolicy: {restartStrategy: 'Recreate', maxRestarts: spec.maxRestarts},
      replicatedJobs: [
        {
          name: PATHWAYS_HEAD_JOB,
          replicas: 1,
          template: {
            metadata: {annotations: {[EXCLUSIVE_TOPOLOGY_ANNOTATION]: 'kubernetes.io/hostname'}},
            spec: {
              backoffLimit: 0,
              completionMode: 'Indexed',
              completions: 1,
              parallelism: 1,
              template: {spec: headPod},
            },
          },
        },
        {
          name: PATHWAYS_WORKER_JOB,
          replicas: spec.numSlices,
          template: {
            metadata: {annotations: {[EXCLUSIVE_TOPOLOGY_ANNOTATION]: 'cloud.google.com/gke-nodepool'}},
            spec: {
              // Elastic workloads survive losing slices: each slice restarts at most --max-slice-restarts times.
              backoffLimit: pathways.elasticSlices > 0 ? pathways.maxSliceRestarts * vms : vms * 4,
              completionMode: 'Indexed',
              completions: vms,
              parallelism: vms,
              template: {metadata: {labels: {[WORKLOAD_LABEL]: spec.name}}, spec: workerPod},
            },
          },
        },
      ],
      startupPolicy: {startupPolicyOrder: 'InOrder'},
      // A batch workload is done when the user's container is; a headless one runs until it is deleted.
      ...(headless ? {} : {successPolicy: {operator: 'All', targetReplicatedJobs: [PATHWAYS_HEAD_JOB]}}),
      suspend: false,
    },
  }
}

function proxyContainer(pathways: PathwaysSpec): Container {
  return {
    name: 'pathways-proxy',
    image: pathways.proxyServerImage,
    imagePullPolicy: 'Always',
    args: [
      `--server_port=${PATHWAYS_PROXY_PORT}`,
      `--resource_manager_address=${RESOURCE_MANAGER}`,
      `--gcs_scratch_location=${pathways.gcsLocation}`,
      ...(pathways.elasticSlices > 0 ? [`--num_elastic_slices=${pathways.elasticSlices}`] : []),
      ...pathways.proxyServerArgs,
    ],
    env: [PATHWAYS_HEAD_ENV],
    ports: tcp(PATHWAYS_PROXY_PORT),
    resources: {limits: {cpu: '16', memory: '100G'}},
  }
}

function resourceManagerContainer(spec: WorkloadSpec, pathways: PathwaysSpec): Container {
  return {
    name: 'pathways-rm',
    image: pathways.serverImage,
    imagePullPolicy: 'Always',
    args: [
      `--server_port=${RESOURCE_MANAGER_PORT}`,
      `--gcs_scratch_location=${pathways.gcsLocation}`,
      '--node_type=resource_manager',
      `--instance_count=${spec.numSlices}`,
      `--instance_type=${pathwaysInstanceType(spec)}`,
      ...pathways.serverArgs,
    ],
    env: [
      fromField('REPLICATED_JOB_NAME', "metadata.annotations['jobset.sigs.k8s.io/replicatedjob-name']"),
      fromField('JOBSET_NAME', "metadata.annotations['jobset.sigs.k8s.io/jobset-name']"),
      fromField('HOST_ADDRESS', COORDINATOR_LABEL),
      {name: 'TPU_SKIP_MDS_QUERY', value: 'true'},
    ],
    ports: tcp(RESOURCE_MANAGER_PORT, RESOURCE_MANAGER_PORT + 1),
    resources: {limits: {cpu: '8', memory: '32G'}},
  }
}

/** `tpuv5:2x2x1`: Pathways' name of the TPU generation and the slice topology (Python: instance_type). */
export function pathwaysInstanceType(spec: Pick<WorkloadSpec, 'accelerator'>): string {
  const {pathwaysVersion, topology} = spec.accelerator
  return pathwaysVersion === null ? `${topology}` : `${pathwaysVersion}:${topology}`
}

function userContainer(spec: WorkloadSpec): Container {
  return commandContainer(spec, {
    env: [
      PATHWAYS_HEAD_ENV,
      {name: 'JAX_PLATFORMS', value: 'proxy'},
      {name: 'XCLOUD_ENVIRONMENT', value: 'GCP'},
      {name: 'JAX_BACKEND_TARGET', value: `grpc://$(PATHWAYS_HEAD):${PATHWAYS_PROXY_PORT}`},
    ],
    limits: {cpu: '24', memory: '100G'},
    volumeMounts: [SHARED_TMP_MOUNT],
  })
}

function colocatedPythonSidecar(image: string): Container {
  return {
    name: 'colocated-python-sidecar',
    image,
    imagePullPolicy: 'Always',
    env: [
      {name: 'GRPC_SERVER_ADDRESS', value: '0.0.0.0:50051'},
      {name: 'PYTHONUNBUFFERED', value: '1'},
    ],
    ports: tcp(50051),
    restartPolicy: 'Always',
    volumeMounts: [SHARED_TMP_MOUNT],
  }
}

function workerContainer(spec: WorkloadSpec, pathways: PathwaysSpec): Container {
  const label = (name: string, key: string) => fromField(name, `metadata.labels['${key}']`)
  const annotation = (name: string, key: string) => fromField(name, `metadata.annotations['${key}']`)
  return {
    name: 'pathways-worker',
    image: pathways.serverImage,
    imagePullPolicy: 'Always',
    args: [
      `--server_port=${WORKER_PORT}`,
      `--resource_manager_address=${RESOURCE_MANAGER}`,
      `--gcs_scratch_location=${pathways.gcsLocation}`,
      ...pathways.workerArgs,
    ],
    env: [
      {name: 'TPU_MIN_LOG_LEVEL', value: '0'},
      {name: 'TF_CPP_MIN_LOG_LEVEL', value: '0'},
      {name: 'XCLOUD_ENVIRONMENT', value: 'GCP'},
      {name: 'MEGASCALE_GRPC_ENABLE_XOR_TRACER', value: 'false'},
      label('MEGASCALE_NUM_SLICES', 'jobset.sigs.k8s.io/replicatedjob-replicas'),
      annotation('JOBSET_NAME', 'jobset.sigs.k8s.io/jobset-name'),
      annotation('REPLICATED_JOB_NAME', 'jobset.sigs.k8s.io/replicatedjob-name'),
      label('MEGASCALE_SLICE_ID', 'jobset.sigs.k8s.io/job-index'),
      PATHWAYS_HEAD_ENV,
      fromField('MEGASCALE_COORDINATOR_ADDRESS', COORDINATOR_LABEL),
    ],
    ports: tcp(WORKER_PORT, WORKER_PORT + 1, 8471, 8080),
    resources: {limits: {[KIND_TRAITS.TPU.resource]: String(spec.accelerator.chipsPerVm)}},
    volumeMounts: [SHARED_TMP_MOUNT],
  }
}
