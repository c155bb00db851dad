/**
 * The plan of `xpk storage attach`: the steps an attach takes, each with its reason and the value it sends, made from
 * what was read before anything is sent (the bucket or the Filestore instance, the bucket's IAM policy, and what the
 * cluster already holds), with the cluster updates the storage type needs (its CSI driver, Workload Identity for GCS
 * FUSE) as the cluster side plans them (src/core/cluster/storage-needs.ts `planStorageClusterUpdates`, passed in as
 * they are). `--dry-run` shows it, `--json` prints it, and the attach applies these very steps. Pure.
 *
 * Python xpk (commands/storage.py `storage_attach`) installs the CRD, creates the Storage object, turns on the CSI
 * driver, then applies the volume and claim; it grants the workloads' service account access to a bucket on every
 * `workload create` instead (core/storage.py `add_bucket_iam_members`, a binding added each time). Here:
 *   - the Storage object comes last: every workload mounts an auto-mount storage as soon as its object exists, so it
 *     must not exist before its volume and claim do (an interrupted Python attach left workloads that never start);
 *     re-running the same attach finishes what an interrupted one left undone;
 *   - the bucket access is granted once, here, and only when the policy lacks it;
 *   - a volume, claim, class or Storage object of the name that exists and differs is a conflict (exit 6) naming it:
 *     their specs cannot be changed in place (the CRD makes a Storage immutable), so detach first. One that is as
 *     xpk would write it is left as it is (`none`).
 */
import {XpkError} from '../errors.js'
import {liveDifferences} from '../incluster/live-diff.js'
import {XPK_NAMESPACE} from '../incluster/namespace.js'
import type {KubeObject} from '../kube/release-manifest.js'
import {XPK_SERVICE_ACCOUNT} from '../manifests/jobset.js'
import type {UpdateStep} from '../cluster/updates.js'
import type {PlanStepJson} from '../render/plan.js'
import type {Bucket, FilestoreInstance, IamPolicy} from './backends.js'
import {storageCrd} from './crd.js'
import {
  filestoreObjects,
  gcsFuseObjects,
  storageObject,
  type StorageObject,
  type StorageVolumeObject,
} from './manifests.js'
import {servesStorage, STORAGE_CRD_NAME} from './observed.js'
import type {AttachRequest} from './rules.js'
import type {StorageManifest} from './user-manifest.js'
import {renderStoragePlan} from './render-plan.js'

/** What an attach read of the service behind the storage. */
export type AttachBackend =
  /** GCS FUSE: the bucket (undefined: it does not exist, or the caller cannot see it) and its IAM policy. */
  | {readonly kind: 'bucket'; readonly bucket: Bucket | undefined; readonly policy: IamPolicy | null}
  /** Filestore: the instance (undefined: it does not exist). */
  | {readonly kind: 'filestore'; readonly instance: FilestoreInstance | undefined}
  /** Parallelstore, persistent disks and Lustre: nothing is read; the manifest says it all. */
  | {readonly kind: 'none'}

/**
 * The cluster updates a storage type needs, planned by the cluster side (`planStorageClusterUpdates`: Workload
 * Identity, the CSI add-on, xpk's pools on the GKE metadata server), and the warnings that come with them. Its steps
 * are taken into the attach plan as they are, before anything of the storage is sent.
 */
export interface AttachClusterUpdates {
  readonly steps: readonly UpdateStep[]
  readonly warnings: readonly string[]
}

/** The objects of the name the cluster holds (undefined: absent), or null when the cluster was not read. */
export interface AttachLive {
  readonly crd: KubeObject | undefined
  readonly storage: KubeObject | undefined
  /** By `kind/name` of each object the attach writes. */
  readonly objects: Readonly<Record<string, KubeObject | undefined>>
}

/** Everything the plan is made from. */
export interface AttachPlanInputs {
  readonly request: AttachRequest
  readonly cluster: string
  readonly project: string
  /** The project's number: the workloads' Workload Identity principal names it (GCS FUSE). */
  readonly projectNumber: string
  /** The cluster's VPC network (its name): a Filestore StorageClass names it. */
  readonly network: string
  readonly backend: AttachBackend
  /** The checked --manifest, for a storage attached from one. */
  readonly manifest: StorageManifest | null
  /** Null: the cluster was not read (an offline dry run). */
  readonly clusterUpdates: AttachClusterUpdates | null
  /** Null: not read (an offline dry run). */
  readonly live: AttachLive | null
}

/** The binding a bucket's IAM policy gets. */
export interface BucketGrant {
  readonly bucket: string
  readonly role: string
  readonly member: string
}

export type AttachResource =
  | 'bucket'
  | 'filestoreInstance'
  | 'cluster'
  | 'bucketIam'
  | 'customResourceDefinition'
  | 'storageClass'
  | 'persistentVolume'
  | 'persistentVolumeClaim'
  | 'storage'

/** One step of the storage's own. `spec` is what is sent: the object created, the binding added; null when nothing is. */
export interface StorageStep {
  readonly action: 'check' | 'create' | 'update' | 'none'
  readonly resource: AttachResource
  readonly name: string
  readonly reason: string
  readonly spec: StorageVolumeObject | StorageObject | KubeObject | BucketGrant | null
}

/** A step of the plan: the storage's own, or one of the cluster updates (as the cluster side planned it). */
export type AttachStep = StorageStep | UpdateStep

export interface StorageAttachPlan {
  readonly storage: string
  readonly cluster: string
  readonly steps: readonly AttachStep[]
  /** What xpk leaves to the user (from the cluster updates: pools of others without the GKE metadata server, ...). */
  readonly warnings: readonly string[]
}

/** The Workload Identity principal of the workloads' service account (Python xpk's `add_bucket_iam_members`). */
export function workloadPrincipal(project: string, projectNumber: string): string {
  return (
    `principal://iam.googleapis.com/projects/${projectNumber}/locations/global/workloadIdentityPools/` +
    `${project}.svc.id.goog/subject/ns/${XPK_NAMESPACE}/sa/${XPK_SERVICE_ACCOUNT}`
  )
}

/** The role a storage's workloads get on its bucket: read only, or read and write. */
export function bucketRole(readonly: boolean): string {
  return readonly ? 'roles/storage.objectViewer' : 'roles/storage.objectUser'
}

/**
 * Plans an attach from what was read.
 * @throws XpkError not-found (exit 4) for a bucket or Filestore instance that does not exist; conflict (exit 6) for
 *   an instance that is not READY or an object of the name that differs from what xpk would write; UsageError naming
 *   --vol for a file share the instance lacks
 */
export function planStorageAttach(inputs: AttachPlanInputs): StorageAttachPlan {
  const {request} = inputs
  const objects = volumeObjects(inputs)
  const manifest = request.source.kind === 'manifest' ? request.source.path : ''
  const storage = storageObject(request, inputs.cluster, objects, manifest)
  const steps: AttachStep[] = [
    ...backendSteps(inputs),
    ...(inputs.clusterUpdates?.steps ?? [unreadCluster(inputs.cluster)]),
    ...grantSteps(inputs),
    crdStep(inputs.live),
    // The class before the volume that names it, the volume before its claim, the Storage object last.
    ...objectSteps(inputs.live, request.name, [
      ...[...objects].sort((a, b) => APPLY_ORDER[a.kind] - APPLY_ORDER[b.kind]),
      storage,
    ]),
  ]
  return {storage: request.name, cluster: inputs.cluster, steps, warnings: inputs.clusterUpdates?.warnings ?? []}
}

function unreadCluster(cluster: string): StorageStep {
  return check(
    'cluster',
    cluster,
    'not read (--offline): the CSI driver and Workload Identity it needs are not checked',
  )
}

const APPLY_ORDER: Readonly<Record<StorageVolumeObject['kind'], number>> = {
  StorageClass: 0,
  PersistentVolume: 1,
  PersistentVolumeClaim: 2,
}

/** The volume, claim and (Filestore) class: built by xpk, or the user's manifest as checked. */
function volumeObjects(inputs: AttachPlanInputs): readonly StorageVolumeObject[] {
  const {request, backend} = inputs
  const {source} = request
  if (backend.kind === 'filestore' && backend.instance === undefined) {
    const instance = source.kind === 'gcsfuse' ? request.name : (source.instance ?? request.name)
    throw new XpkError('not-found', `Filestore instance ${instance} does not exist in project ${inputs.project}.`, {
      hints: [
        `Create it with \`xpk storage create ${request.name} --type gcpfilestore ...\`, or name another with --instance.`,
      ],
    })
  }
  if (source.kind === 'manifest') {
    if (inputs.manifest === null) throw new Error('An attach from a manifest is planned with the checked manifest.')
    return inputs.manifest.objects
  }
  if (source.kind === 'gcsfuse') return gcsFuseObjects({name: request.name, ...source})
  if (backend.kind !== 'filestore') throw new Error('A Filestore attach is planned with the instance read.')
  return filestoreObjects({
    name: request.name,
    project: inputs.project,
    instance: backend.instance!,
    vol: source.vol,
    accessMode: source.accessMode,
    network: inputs.network,
  })
}

function backendSteps(inputs: AttachPlanInputs): StorageStep[] {
  const {backend, request} = inputs
  if (backend.kind === 'bucket') {
    const name = request.source.kind === 'gcsfuse' ? request.source.bucket : request.name
    if (backend.bucket === undefined) {
      throw new XpkError('not-found', `Bucket ${name} does not exist, or your account cannot see it.`, {
        hints: [
          `Create it (\`gcloud storage buckets create gs://${name}\`), or name another with \`xpk storage attach --bucket\`.`,
          'An account without storage.buckets.get on it cannot attach it: ask for roles/storage.admin on the bucket.',
        ],
      })
    }
    const {location, locationType} = backend.bucket
    return [check('bucket', name, `exists (${location}, ${locationType})`)]
  }
  if (backend.kind === 'filestore' && backend.instance !== undefined) {
    const i = backend.instance
    const shares = i.fileShares.map((s) => `${s.name} ${s.capacityGb} GiB`).join(', ')
    return [
      check(
        'filestoreInstance',
        i.id,
        `${i.state}, ${i.tier} in ${i.location}, ${i.ipAddress ?? 'no address'}; file shares: ${shares}`,
      ),
    ]
  }
  return []
}

function check(resource: AttachResource, name: string, reason: string): StorageStep {
  return {action: 'check', resource, name, reason, spec: null}
}

/** GCS FUSE: the workloads' service account gets the bucket, read-only or read-write as the storage is. */
function grantSteps(inputs: AttachPlanInputs): StorageStep[] {
  const {backend, request} = inputs
  if (backend.kind !== 'bucket' || backend.bucket === undefined) return []
  const grant: BucketGrant = {
    bucket: backend.bucket.name,
    role: bucketRole(request.readonly),
    member: workloadPrincipal(inputs.project, inputs.projectNumber),
  }
  const held =
    backend.policy?.bindings.some(
      (b) => b.role === grant.role && b.condition === undefined && b.members.includes(grant.member),
    ) ?? false
  const who = `${XPK_NAMESPACE}/${XPK_SERVICE_ACCOUNT}, the workloads' service account`
  return [
    {
      action: held ? 'none' : 'update',
      resource: 'bucketIam',
      name: grant.bucket,
      reason: held
        ? `${who}, has ${grant.role}`
        : `grant ${grant.role} to ${who} (its Workload Identity principal)` +
          (backend.policy === null ? ' (policy not read: --offline)' : ''),
      spec: held ? null : grant,
    },
  ]
}

function crdStep(live: AttachLive | null): StorageStep {
  const crd = storageCrd()
  const step = (action: StorageStep['action'], reason: string): StorageStep => ({
    action,
    resource: 'customResourceDefinition',
    name: STORAGE_CRD_NAME,
    reason,
    spec: action === 'none' ? null : crd,
  })
  if (live === null) return step('create', 'the Storage kind, created if absent (not read: --offline)')
  if (servesStorage(live.crd)) return step('none', 'serves Storage xpk.x-k8s.io/v1 (installed by xpk or Python xpk)')
  return live.crd === undefined
    ? step('create', 'the Storage kind, the same schema as Python xpk')
    : step('update', 'does not serve Storage xpk.x-k8s.io/v1: applied as xpk writes it')
}

const RESOURCES: Readonly<Record<string, AttachResource>> = {
  StorageClass: 'storageClass',
  PersistentVolume: 'persistentVolume',
  PersistentVolumeClaim: 'persistentVolumeClaim',
  Storage: 'storage',
}

const CREATE_REASONS: Readonly<Record<string, string>> = {
  StorageClass: 'the Filestore tier and network the volume names',
  PersistentVolume: 'what the CSI driver mounts',
  PersistentVolumeClaim: `how pods in ${XPK_NAMESPACE} mount the volume, bound to it by name`,
  Storage: 'last: workloads find it from now on',
}

function objectSteps(
  live: AttachLive | null,
  storageName: string,
  objects: readonly (StorageVolumeObject | StorageObject)[],
): StorageStep[] {
  return objects.map((object) => {
    const {kind} = object
    // A claim without a namespace in a user's manifest is applied where workloads run.
    const namespace = kind === 'PersistentVolumeClaim' ? (object.metadata.namespace ?? XPK_NAMESPACE) : undefined
    const name = namespace === undefined ? object.metadata.name : `${namespace}/${object.metadata.name}`
    const step = (action: StorageStep['action'], reason: string): StorageStep => ({
      action,
      resource: RESOURCES[kind]!,
      name,
      reason,
      spec: action === 'none' ? null : object,
    })
    const existing =
      live === null ? null : kind === 'Storage' ? live.storage : live.objects[`${kind}/${object.metadata.name}`]
    if (existing === null) return step('create', `${CREATE_REASONS[kind]} (not read: --offline)`)
    if (existing === undefined) return step('create', CREATE_REASONS[kind]!)
    const differences = liveDifferences(object, existing)
    if (differences.length === 0) return step('none', 'exists as xpk would write it')
    const fields = differences.slice(0, 3).map((d) => d.path)
    throw new XpkError(
      'conflict',
      `${kind} ${name} exists and differs from what this attach writes (${fields.join(', ')}${differences.length > 3 ? ', ...' : ''}).` +
        ' Nothing was changed.',
      {
        hints: [
          kind === 'Storage' || kind === 'PersistentVolumeClaim' || kind === 'PersistentVolume'
            ? `Detach it first (\`xpk storage detach ${storageName}\` keeps the data), or attach under another name.`
            : 'Attach under another name, or delete the object first.',
        ],
      },
    )
  })
}

/**
 * The plan as text: one line per step, then the summary and the warnings. `storage create` shows its plan (the
 * instance's steps, then these) with it too.
 */
export function renderStorageAttachPlan(
  plan: Omit<StorageAttachPlan, 'steps'> & {readonly steps: readonly PlanStepJson[]},
): string {
  return renderStoragePlan(
    `Plan for storage ${plan.storage} on cluster ${plan.cluster}:`,
    plan.steps,
    'No changes: the storage is attached as asked.',
    plan.warnings,
  )
}
