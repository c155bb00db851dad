/**
 * The plan of `xpk storage delete`: a Filestore storage detached (the detach plan's steps, Storage object last) and
 * then its instance deleted, with the data on it. Made from what was read; pure.
 *
 * Python xpk (commands/storage.py `storage_delete`) deletes the Storage object and the instance. Here the storage is
 * detached first, so that no workload can mount a storage whose instance is going; a storage that workloads still
 * mount is refused (exit 6, naming them) rather than deleted from under them; an instance already gone is `none`;
 * and a storage of another type is refused, since only Filestore instances are xpk's to delete.
 */
import {XpkError} from '../errors.js'
import type {FilestoreInstance} from './backends.js'
import type {DetachStep, StorageDetachPlan} from './detach-plan.js'
import type {ObservedStorage} from './observed.js'
import {renderStoragePlan} from './render-plan.js'

/** A Filestore instance, by where it is. */
export interface FilestoreInstanceRef {
  readonly project: string
  readonly location: string
  readonly id: string
}

export interface FilestoreDeleteStep {
  readonly action: 'delete' | 'none'
  readonly resource: 'filestoreInstance'
  readonly name: string
  readonly reason: string
  readonly spec: FilestoreInstanceRef | null
}

export type DeleteStep = DetachStep | FilestoreDeleteStep

export interface StorageDeletePlan {
  readonly storage: string
  readonly cluster: string
  readonly steps: readonly DeleteStep[]
}

export interface DeletePlanInputs {
  readonly storage: ObservedStorage
  /** The volume handle of the storage's PersistentVolume (null: no volume, or none with a handle). */
  readonly volumeHandle: string | null
  /** The detach of the storage, as planned from what was read. */
  readonly detach: StorageDetachPlan
  /** The workloads whose pods mount its claim. */
  readonly mountedBy: readonly string[]
  /** The instance as read (undefined: gone), when the volume names one. */
  readonly instance: FilestoreInstance | undefined
}

/** The instance a Filestore volume handle names (`projects/P/locations/L/instances/ID/volumes/V`), or undefined. */
export function filestoreInstanceOf(volumeHandle: string | null): FilestoreInstanceRef | undefined {
  const match = /^projects\/([^/]+)\/locations\/([^/]+)\/instances\/([^/]+)(?:\/|$)/.exec(volumeHandle ?? '')
  return match ? {project: match[1]!, location: match[2]!, id: match[3]!} : undefined
}

/**
 * @throws XpkError conflict (exit 6) for a storage that is not a Filestore one, whose volume names no instance, or
 *   that workloads still mount
 */
export function planStorageDelete(inputs: DeletePlanInputs): StorageDeletePlan {
  const {storage, detach} = inputs
  if (storage.type !== 'gcpfilestore') {
    throw new XpkError(
      'conflict',
      `Storage ${storage.name} is ${storage.type ?? 'of no type'}: storage delete removes Filestore instances only. Nothing was changed.`,
      {hints: [`\`xpk storage detach ${storage.name}\` removes it from the cluster and keeps its data.`]},
    )
  }
  const ref = filestoreInstanceOf(inputs.volumeHandle)
  if (ref === undefined) {
    throw new XpkError(
      'conflict',
      `Storage ${storage.name}'s volume names no Filestore instance (${inputs.volumeHandle ?? 'no volume'}), so there is none to delete. Nothing was changed.`,
      {hints: [`\`xpk storage detach ${storage.name}\` removes it from the cluster.`]},
    )
  }
  if (inputs.mountedBy.length > 0) {
    throw new XpkError(
      'conflict',
      `Workloads ${inputs.mountedBy.join(', ')} mount storage ${storage.name}: its instance is not deleted from under them. Nothing was changed.`,
      {hints: ['Delete them first (`xpk workload delete`), then run this again.']},
    )
  }
  const instance: FilestoreDeleteStep =
    inputs.instance === undefined
      ? {action: 'none', resource: 'filestoreInstance', name: ref.id, reason: 'already gone', spec: null}
      : {
          action: 'delete',
          resource: 'filestoreInstance',
          name: ref.id,
          reason: `after the detach: ${inputs.instance.tier} in ${ref.location}, with every file on it`,
          spec: ref,
        }
  return {storage: storage.name, cluster: detach.cluster, steps: [...detach.steps, instance]}
}

/** The plan as text: one line per step, then the summary. */
export function renderStorageDeletePlan(plan: StorageDeletePlan): string {
  return renderStoragePlan(
    `Plan for deleting storage ${plan.storage} of cluster ${plan.cluster} and its Filestore instance (its data goes):`,
    plan.steps,
    'Nothing to delete.',
  )
}
