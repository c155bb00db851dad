// The messages of the storage commands (see ../messages.ts).
import {defineInfo, defineQuestion, defineRecreateNodesQuestion, defineWarning} from '../messages.js'
import {escapeInline} from '../text.js'

export const storageInvalidFields = defineWarning(
  'storage.invalid-fields',
  'Storage objects lack spec fields, or hold them with another type than the CRD gives: shown with what they have.',
  (p: {storages: {name: string; fields: string[]}[]}) => ({
    text:
      `${p.storages.length === 1 ? 'A Storage object lacks' : 'Storage objects lack'} fields (or hold them with another type), shown as "-": ` +
      `${p.storages.map((s) => `${escapeInline(s.name)} (${s.fields.join(', ')})`).join('; ')}.`,
    data: {...p},
  }),
)

// storage attach and detach

const s = (n: number) => (n === 1 ? '' : 's')

export const storageAttachPlan = defineInfo(
  'storage.attach.plan',
  'The plan of a storage attach about to be applied.',
  (p: {plan: string}) => p.plan,
)

export const storageAttachDryRun = defineInfo(
  'storage.attach.dry-run',
  'A dry run of storage attach ended without changing anything.',
  'Dry run: nothing was changed.',
)

export const storageAttachConfirmRecreateNodes = defineRecreateNodesQuestion(
  'storage.attach.confirm-recreate-nodes',
  'Asked before storage attach switches node pools to the GKE metadata server, for which GKE recreates their nodes.',
  'GCS FUSE',
)

export const storageAttachDone = defineInfo(
  'storage.attach.done',
  'What an applied storage attach did.',
  (p: {storage: string; cluster: string; changed: number}) =>
    p.changed === 0
      ? `Storage ${escapeInline(p.storage)} is attached to cluster ${escapeInline(p.cluster)}; nothing needed changing.`
      : `Attached storage ${escapeInline(p.storage)} to cluster ${escapeInline(p.cluster)} (${p.changed} change${s(p.changed)}).`,
)

export const storageDetachPlan = defineInfo(
  'storage.detach.plan',
  'The plan of a storage detach about to be applied.',
  (p: {plan: string}) => p.plan,
)

export const storageDetachDryRun = defineInfo(
  'storage.detach.dry-run',
  'A dry run of storage detach ended without changing anything.',
  'Dry run: nothing was changed.',
)

export const storageDetachConfirmInUse = defineQuestion(
  'storage.detach.confirm-in-use',
  'Asked before detaching a storage that running workloads still mount.',
  false,
  (p: {storage: string; workloads: readonly string[]}) => ({
    text: `Workload${s(p.workloads.length)} ${p.workloads.join(', ')} still mount${p.workloads.length === 1 ? 's' : ''} storage ${escapeInline(p.storage)}: they keep it until their pods end, and no new pod can mount it. Continue?`,
    data: {storage: p.storage, workloads: p.workloads},
  }),
)

export const storageDetachDone = defineInfo(
  'storage.detach.done',
  'What an applied storage detach did.',
  (p: {storage: string; cluster: string}) =>
    `Detached storage ${escapeInline(p.storage)} from cluster ${escapeInline(p.cluster)}; its data stays where it was.`,
)

// storage delete

export const storageDeletePlan = defineInfo(
  'storage.delete.plan',
  'The plan of a storage delete about to be applied.',
  (p: {plan: string}) => p.plan,
)

export const storageDeleteDryRun = defineInfo(
  'storage.delete.dry-run',
  'A dry run of storage delete ended without changing anything.',
  'Dry run: nothing was changed.',
)

export const storageDeleteConfirm = defineQuestion(
  'storage.delete.confirm',
  'Asked before a storage is detached and its Filestore instance deleted with its data.',
  false,
  (p: {storage: string; instance: string}) => ({
    text: `Delete Filestore instance ${escapeInline(p.instance)} of storage ${escapeInline(p.storage)}, and every file on it? This cannot be undone. Continue?`,
    data: {storage: p.storage, instance: p.instance},
  }),
)

export const storageDeleteDone = defineInfo(
  'storage.delete.done',
  'What an applied storage delete did.',
  (p: {storage: string; instance: string; deleted: boolean}) =>
    p.deleted
      ? `Deleted storage ${escapeInline(p.storage)} and Filestore instance ${escapeInline(p.instance)}.`
      : `Deleted storage ${escapeInline(p.storage)}; Filestore instance ${escapeInline(p.instance)} was already gone.`,
)

// storage create

export const storageCreatePlan = defineInfo(
  'storage.create.plan',
  'The plan of a storage create about to be applied.',
  (p: {plan: string}) => p.plan,
)

export const storageCreateDryRun = defineInfo(
  'storage.create.dry-run',
  'A dry run of storage create ended without changing anything.',
  'Dry run: nothing was changed.',
)

export const storageCreateDone = defineInfo(
  'storage.create.done',
  'What an applied storage create did.',
  (p: {storage: string; instance: string; cluster: string; created: boolean}) =>
    p.created
      ? `Created Filestore instance ${escapeInline(p.instance)} and attached it as storage ${escapeInline(p.storage)} to cluster ${escapeInline(p.cluster)}.`
      : `Filestore instance ${escapeInline(p.instance)} is attached as storage ${escapeInline(p.storage)} to cluster ${escapeInline(p.cluster)}.`,
)
