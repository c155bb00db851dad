/**
 * What xpk's commands need of a project, written down once for `xpk doctor`: the APIs they call, the IAM permissions
 * they use (asked with `testIamPermissions`), the Compute Engine quota metric an accelerator counts against, and the
 * CRDs of JobSet and Kueue that xpk reads and writes. Pure data.
 */
import type {Accelerator} from '../catalog/types.js'
import {JOBSET_API_GROUP, KUEUE_API_GROUP} from '../versions.js'

/** An API xpk calls; `required` ones fail the check when off, the others (one topic's commands) warn. */
export interface RequiredApi {
  readonly service: string
  readonly title: string
  readonly usedBy: string
  readonly required: boolean
}

export const REQUIRED_APIS: readonly RequiredApi[] = [
  {
    service: 'container.googleapis.com',
    title: 'Kubernetes Engine',
    usedBy: 'every cluster and workload command',
    required: true,
  },
  {
    service: 'compute.googleapis.com',
    title: 'Compute Engine',
    usedBy: 'cluster create (reservations, placement, quotas)',
    required: true,
  },
  {service: 'tpu.googleapis.com', title: 'Cloud TPU', usedBy: 'the vm commands', required: false},
  {
    service: 'file.googleapis.com',
    title: 'Filestore',
    usedBy: 'storage create and attach of gcpfilestore',
    required: false,
  },
  {
    service: 'storage.googleapis.com',
    title: 'Cloud Storage',
    usedBy: 'storage attach of gcsfuse buckets',
    required: false,
  },
]

/** Permissions one group of commands uses, and the predefined role that grants them. */
export interface PermissionGroup {
  readonly usedBy: string
  readonly role: string
  /** Missing ones fail the check (cluster and workload commands); the others warn. */
  readonly required: boolean
  readonly permissions: readonly string[]
}

export const PLANNED_PERMISSIONS: readonly PermissionGroup[] = [
  {
    usedBy: 'cluster create and delete',
    role: 'roles/container.admin',
    required: true,
    permissions: [
      'container.clusters.create',
      'container.clusters.delete',
      'container.clusters.get',
      'container.clusters.update',
      'container.operations.get',
    ],
  },
  {
    usedBy: 'cluster create (node pools run as the node service account)',
    role: 'roles/iam.serviceAccountUser',
    required: true,
    permissions: ['iam.serviceAccounts.actAs'],
  },
  {
    usedBy: 'cluster create (reservations and quotas)',
    role: 'roles/compute.viewer',
    required: true,
    permissions: ['compute.regions.get', 'compute.reservations.get'],
  },
  {
    usedBy: 'workload create, list, logs and delete',
    role: 'roles/container.developer',
    required: true,
    permissions: [
      'container.pods.getLogs',
      'container.pods.list',
      'container.thirdPartyObjects.create',
      'container.thirdPartyObjects.delete',
      'container.thirdPartyObjects.list',
    ],
  },
  {
    usedBy: 'workload create (pushing the image to Artifact Registry)',
    role: 'roles/artifactregistry.writer',
    required: false,
    permissions: ['artifactregistry.repositories.uploadArtifacts'],
  },
  {
    usedBy: 'vm create and delete',
    role: 'roles/tpu.admin',
    required: false,
    permissions: ['tpu.nodes.list', 'tpu.queuedResources.create', 'tpu.queuedResources.delete'],
  },
  {
    usedBy: 'storage create of gcpfilestore',
    role: 'roles/file.editor',
    required: false,
    permissions: ['file.instances.create', 'file.instances.get'],
  },
  {
    usedBy: 'storage attach of gcsfuse (granting the workloads access)',
    role: 'roles/storage.admin',
    required: false,
    permissions: ['storage.buckets.getIamPolicy', 'storage.buckets.setIamPolicy'],
  },
]

/** Every permission asked for, once, sorted (one `testIamPermissions` call: the API takes up to 100). */
export const ALL_PLANNED_PERMISSIONS: readonly string[] = [
  ...new Set(PLANNED_PERMISSIONS.flatMap((g) => g.permissions)),
].sort()

/**
 * The regional Compute Engine quota metrics a TPU family's chips count against, in the order they are looked for
 * (the first one the region reports is used). Names are Compute Engine's; a family whose metric a region does not
 * report is a warning, not a failure: the quota may be kept elsewhere (Cloud Quotas) for new generations.
 */
const TPU_QUOTA_METRICS: Readonly<Record<string, readonly string[]>> = {
  v4: ['TPU_PODSLICE_V4', 'TPU_V4_PODSLICE'],
  v5p: ['TPU_PODSLICE_V5', 'TPU_V5P_PODSLICE'],
  v5litepod: ['TPU_LITE_PODSLICE_V5'],
  v6e: ['TPU_V6E_PODSLICE', 'TPU_PODSLICE_V6E'],
  tpu7x: ['TPU7X_PODSLICE', 'TPU_PODSLICE_TPU7X'],
  tpu7: ['TPU7_PODSLICE', 'TPU_PODSLICE_TPU7'],
}

const GPU_QUOTA_METRICS: Readonly<Record<string, string>> = {
  l4: 'NVIDIA_L4_GPUS',
  'a100-40gb': 'NVIDIA_A100_GPUS',
  'a100-80gb': 'NVIDIA_A100_80GB_GPUS',
  'h100-80gb': 'NVIDIA_H100_GPUS',
  'h100-mega-80gb': 'NVIDIA_H100_MEGA_GPUS',
  'h200-141gb': 'NVIDIA_H200_GPUS',
  b200: 'NVIDIA_B200_GPUS',
  gb200: 'NVIDIA_GB200_GPUS',
}

/**
 * The quota metrics the accelerator counts against, most likely first (Spot VMs: the PREEMPTIBLE_ ones), and the
 * unit of the count: TPU chips, GPUs, or vCPUs (CPU machine families, e.g. N2_CPUS).
 */
export function quotaMetrics(accelerator: Accelerator, spot: boolean): {metrics: readonly string[]; unit: string} {
  const prefix = spot ? 'PREEMPTIBLE_' : ''
  if (accelerator.kind === 'TPU') {
    const names = TPU_QUOTA_METRICS[accelerator.family] ?? [`TPU_PODSLICE_${accelerator.family.toUpperCase()}`]
    return {metrics: names.map((n) => prefix + n), unit: 'chips'}
  }
  if (accelerator.kind === 'GPU') {
    const name = GPU_QUOTA_METRICS[accelerator.family] ?? `NVIDIA_${accelerator.family.toUpperCase()}_GPUS`
    return {metrics: [prefix + name], unit: 'GPUs'}
  }
  // CPUs: the machine family's own vCPU quota (n2-standard-32: N2_CPUS), Spot VMs' PREEMPTIBLE_CPUS.
  const family = accelerator.machineType.split('-')[0]!.toUpperCase()
  return {metrics: spot ? ['PREEMPTIBLE_CPUS'] : [`${family}_CPUS`, 'CPUS'], unit: 'vCPUs'}
}

/** The CRDs xpk relies on, by component: the JobSet kind it writes, and every Kueue kind it configures or reads. */
export const REQUIRED_CRDS: Readonly<Record<'jobset' | 'kueue', readonly string[]>> = {
  jobset: [`jobsets.${JOBSET_API_GROUP}`],
  kueue: [
    'admissionchecks',
    'clusterqueues',
    'localqueues',
    'provisioningrequestconfigs',
    'resourceflavors',
    'topologies',
    'workloads',
  ].map((plural) => `${plural}.${KUEUE_API_GROUP}`),
}
