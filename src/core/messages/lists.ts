// The notes of the list commands when nothing is found (see ../messages.ts). Said on stderr instead of an empty
// table, as kubectl's "No resources found", so stdout stays empty for pipes (README, "Output").
import {defineInfo} from '../messages.js'
import {escapeInline} from '../text.js'

/** The filters a list was given, as typed flags: `--filter-by-job "sweep-"`. */
type Filters = Readonly<Record<string, string | undefined>>

function filtered(filters: Filters): string {
  const given = Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined)
  return given.length === 0 ? '' : ` (${given.map(([flag, value]) => `${flag} "${escapeInline(value)}"`).join(', ')})`
}

export const workloadListNoneFound = defineInfo(
  'workload.list.none-found',
  '`workload list` found no workload (matching its filters).',
  (p: {cluster: string | null; namespace: string; filters: Filters}) => ({
    text: `No workloads found in namespace ${p.namespace}${p.cluster ? ` of cluster ${p.cluster}` : ''}${filtered(p.filters)}.`,
    data: {...p},
  }),
)

export const clusterListNoneFound = defineInfo(
  'cluster.list.none-found',
  '`cluster list` found no cluster in the project (or the region of --zone).',
  (p: {project: string; zone: string | null}) => ({
    text: `No clusters found in project ${p.project}${p.zone ? ` in the region of zone ${p.zone}` : ''}.`,
    data: {...p},
  }),
)

export const vmListNoneFound = defineInfo(
  'vm.list.none-found',
  '`vm list` found no queued resource or TPU VM (of --tpu-prefix).',
  (p: {project: string; zone: string; tpuPrefix: string | null}) => ({
    text:
      `No TPU VMs or queued resources found in project ${p.project}, zone ${p.zone}` +
      `${filtered({'--tpu-prefix': p.tpuPrefix ?? undefined})}.`,
    data: {...p},
  }),
)

export const acceleratorListNoneFound = defineInfo(
  'accelerator.list.none-found',
  '`accelerator list` found no type matching its filters.',
  (p: {filters: Filters}) => ({text: `No accelerator types found${filtered(p.filters)}.`, data: {...p}}),
)

export const storageListNoneFound = defineInfo(
  'storage.list.none-found',
  '`storage list` found no Storage object; or the cluster does not serve the kind, so none was ever attached to it.',
  (p: {cluster: string | null; kindServed: boolean}) => {
    const cluster = p.cluster ? `cluster ${p.cluster}` : 'the cluster'
    return {
      text: p.kindServed
        ? `No storages found in ${cluster}.`
        : `No storages found: ${cluster} has no Storage kind (CRD storages.xpk.x-k8s.io), so no storage was ever attached to it.`,
      data: {...p},
    }
  },
)

export const vmJobListNoneFound = defineInfo(
  'vm.job.list.none-found',
  '`vm job list` found no job records on this machine (of --filter-by-status).',
  (p: {dir: string; status: string | null}) => ({
    text: `No TPU VM jobs found on this machine${filtered({'--filter-by-status': p.status ?? undefined})}.`,
    data: {...p},
  }),
)
