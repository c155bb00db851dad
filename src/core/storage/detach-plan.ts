/**
 * The plan of `xpk storage detach`: the Kubernetes objects of a storage go, its data stays (the bucket, the Filestore
 * instance, the disk are not touched). In the order Python xpk deletes them (commands/storage.py
 * `delete_storage_resources`): the claim, the volume, the Filestore StorageClass `<name>-sc`, then the Storage object,
 * last, so that an interrupted detach is finished by running it again (the object that names the rest is still
 * there). Pure: made from the Storage object and what was read of the rest.
 *
 * Where we differ from Python xpk:
 *   - a volume whose reclaim policy is not Retain (a user's manifest may say Delete) is set to Retain first, so that
 *     deleting its claim cannot delete the data behind it;
 *   - the claim's `kubernetes.io/pvc-protection` finalizer is left alone: Python xpk removed it, so a claim that
 *     running workloads mount vanished under them; here Kubernetes deletes it once no pod uses it, and the plan names
 *     the workloads that still do;
 *   - a volume or claim another Storage object also names is kept (Python xpk deleted it from under that storage);
 *   - an object already gone is `none` ("already gone"), not an error printed and passed over.
 */
import {XPK_NAMESPACE} from '../incluster/namespace.js'
import {STORAGE_API_VERSION, STORAGE_KIND, type ObservedStorage} from './observed.js'
import {renderStoragePlan} from './render-plan.js'
import {storageObjectNames} from './types.js'

/** What was read of the objects a Storage names (undefined: absent). */
export interface DetachLive {
  /** The claim, with the workloads (JobSet names) whose pods mount it. */
  readonly claim: {readonly usedBy: readonly string[]} | undefined
  /** The volume, with its `spec.persistentVolumeReclaimPolicy` (null when it has none: Retain for volumes made by hand). */
  readonly volume: {readonly reclaimPolicy: string | null} | undefined
  /** The Filestore StorageClass `<name>-sc` (read for Filestore storages only). */
  readonly storageClass: boolean
}

export interface DetachPlanInputs {
  readonly cluster: string
  /** The Storage object to detach, as read. */
  readonly storage: ObservedStorage
  readonly live: DetachLive
  /** The other Storage objects of the cluster: a volume or claim one of them names too is kept. */
  readonly others: readonly ObservedStorage[]
}

/** What a delete names. */
export interface DeleteSpec {
  readonly apiVersion: string
  readonly kind: string
  readonly namespace?: string
  readonly name: string
}

export type DetachResource = 'persistentVolume' | 'persistentVolumeClaim' | 'storageClass' | 'storage'

export type DetachStep =
  | {
      readonly action: 'update'
      readonly resource: 'persistentVolume'
      readonly name: string
      readonly reason: string
      /** A merge patch of the volume. */
      readonly spec: {readonly spec: {readonly persistentVolumeReclaimPolicy: 'Retain'}}
    }
  | {
      readonly action: 'delete' | 'none'
      readonly resource: DetachResource
      readonly name: string
      readonly reason: string
      readonly spec: DeleteSpec | null
    }

export interface StorageDetachPlan {
  readonly storage: string
  readonly cluster: string
  readonly steps: readonly DetachStep[]
}

/** Plans a detach from the Storage object and what was read of what it names. */
export function planStorageDetach(inputs: DetachPlanInputs): StorageDetachPlan {
  const {storage, live, others} = inputs
  const steps: DetachStep[] = []
  const sharedBy = (field: 'pv' | 'pvc', name: string) =>
    others.filter((o) => o.name !== storage.name && o[field] === name).map((o) => o.name)

  if (storage.pvc !== null) {
    const name = `${XPK_NAMESPACE}/${storage.pvc}`
    const spec = {apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: XPK_NAMESPACE, name: storage.pvc}
    const shared = sharedBy('pvc', storage.pvc)
    if (shared.length > 0) steps.push(kept('persistentVolumeClaim', name, shared))
    else if (live.claim === undefined) steps.push(gone('persistentVolumeClaim', name))
    else {
      const {usedBy} = live.claim
      steps.push({
        action: 'delete',
        resource: 'persistentVolumeClaim',
        name,
        reason:
          usedBy.length === 0
            ? 'no workload mounts it'
            : `workloads ${usedBy.join(', ')} mount it: Kubernetes deletes it once their pods are gone ` +
              '(kubernetes.io/pvc-protection); they keep the storage until then',
        spec,
      })
    }
  }
  if (storage.pv !== null) {
    const shared = sharedBy('pv', storage.pv)
    const spec = {apiVersion: 'v1', kind: 'PersistentVolume', name: storage.pv}
    if (shared.length > 0) steps.push(kept('persistentVolume', storage.pv, shared))
    else if (live.volume === undefined) steps.push(gone('persistentVolume', storage.pv))
    else {
      const policy = live.volume.reclaimPolicy
      if (policy !== null && policy !== 'Retain') {
        // Before its claim goes: a released volume with Delete would take the data with it.
        steps.unshift({
          action: 'update',
          resource: 'persistentVolume',
          name: storage.pv,
          reason: `its reclaim policy is ${policy}: set to Retain first, so that deleting its claim keeps the data`,
          spec: {spec: {persistentVolumeReclaimPolicy: 'Retain'}},
        })
      }
      steps.push({
        action: 'delete',
        resource: 'persistentVolume',
        name: storage.pv,
        reason: 'after its claim; the data behind it stays (reclaim policy Retain)',
        spec,
      })
    }
  }
  if (storage.type === 'gcpfilestore') {
    const name = storageObjectNames(storage.name).storageClass
    steps.push(
      live.storageClass
        ? {
            action: 'delete',
            resource: 'storageClass',
            name,
            reason: "the Filestore volume's class",
            spec: {apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', name},
          }
        : gone('storageClass', name),
    )
  }
  const missing = [storage.pvc === null ? 'claim' : null, storage.pv === null ? 'volume' : null].filter((m) => m)
  steps.push({
    action: 'delete',
    resource: 'storage',
    name: storage.name,
    reason:
      'last: workloads no longer mount it' +
      (missing.length === 0 ? '' : ` (it names no ${missing.join(' and no ')}: only the object goes)`),
    spec: {apiVersion: STORAGE_API_VERSION, kind: STORAGE_KIND, name: storage.name},
  })
  return {storage: storage.name, cluster: inputs.cluster, steps}
}

function gone(resource: DetachResource, name: string): DetachStep {
  return {action: 'none', resource, name, reason: 'already gone', spec: null}
}

function kept(resource: DetachResource, name: string, sharedWith: readonly string[]): DetachStep {
  return {
    action: 'none',
    resource,
    name,
    reason: `kept: storage ${sharedWith.join(', ')} names it too`,
    spec: null,
  }
}

/** The plan as text: one line per step, then the summary. */
export function renderStorageDetachPlan(plan: StorageDetachPlan): string {
  return renderStoragePlan(
    `Plan for detaching storage ${plan.storage} from cluster ${plan.cluster} (its data stays):`,
    plan.steps,
    'Nothing to detach.',
  )
}
