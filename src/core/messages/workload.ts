// The messages of workload create, delete, list and logs (see ../messages.ts).
import {defineInfo, defineQuestion, defineWarning} from '../messages.js'
import type {CapacityRequest, CapacityVerdict} from '../workload/capacity.js'
import {describeSeconds} from '../workload/list-options.js'
import {placeText, restartNote, type FollowEnd, type LogPlace, type NextContainer} from '../workload/logs.js'
import type {StatusFilter} from '../workload/status.js'

const s = (n: number) => (n === 1 ? '' : 's')

/** The JobSet --replace deletes, as `workload create` reports it. */
interface ReplacedJobSet {
  readonly namespace: string
  readonly name: string
  readonly uid: string
  readonly created: string | null
}

/** A workload and the cluster it is on. */
interface OnCluster {
  readonly workload: string
  readonly cluster: string
}

// workload create

export const workloadManifestWritten = defineInfo(
  'workload.manifest-written',
  'The JobSet manifest was written to a file.',
  (p: {workload: string; file: string}) => `Wrote the JobSet manifest of ${p.workload} to ${p.file}.`,
)

export const workloadDryRun = defineInfo(
  'workload.dry-run',
  'A dry run ended without submitting anything.',
  (p: OnCluster & {accelerator: string; scale: string; priority: string}) =>
    `Dry run: nothing was submitted. Workload ${p.workload} would run on cluster ${p.cluster} ` +
    `(${p.accelerator}, ${p.scale}, priority ${p.priority}).`,
)

export const workloadCapacity = defineInfo(
  'workload.capacity',
  "The cluster's resources ConfigMap has room for the workload (or node auto-provisioning does).",
  (p: {request: CapacityRequest; verdict: CapacityVerdict}) => ({
    text: describeFit(p.request, p.verdict),
    data: {...p.verdict},
  }),
)

function describeFit(request: CapacityRequest, verdict: CapacityVerdict): string {
  if (verdict.kind === 'fits-autoprovisioning') {
    const limit = verdict.maximumChips === null ? 'without a chip limit' : `up to ${verdict.maximumChips} chips`
    return `Cluster ${request.cluster} provisions ${request.accelerator.canonical} nodes on demand (${limit}); ${request.workload} needs ${verdict.chipsNeeded} chips.`
  }
  if (verdict.kind === 'fits-sub-slicing') {
    return (
      `Cluster ${request.cluster} is set up for sub-slicing: ${request.workload} runs on ${verdict.slicing.sliceTopology} ` +
      `sub-slices of its ${verdict.slicing.clusterTopology} slices (${verdict.vmsNeeded} of ${verdict.vmsAvailable} VMs of ${verdict.deviceType}).`
    )
  }
  if (verdict.kind === 'fits-super-slicing') {
    return (
      `Cluster ${request.cluster} is set up for super-slicing: ${request.workload} runs on ${verdict.cubesNeeded} of its ` +
      `${verdict.cubesAvailable} cubes of 4x4x4, joined into ${verdict.slicing.topology}.`
    )
  }
  if (verdict.kind !== 'fits') return ''
  return `Cluster ${request.cluster} has ${verdict.vmsAvailable} VM${s(verdict.vmsAvailable)} of ${verdict.deviceType}; ${request.workload} needs ${verdict.vmsNeeded}.`
}

export const workloadGpuNetworks = defineInfo(
  'workload.gpu-networks',
  "The GPU networks read from the cluster's GKENetworkParamSets.",
  (p: {cluster: string; networks: readonly string[]}) => ({
    text: `GPU networks of cluster ${p.cluster} (GKENetworkParamSets), attached as eth1-eth${p.networks.length}: ${p.networks.join(', ')}.`,
    data: {networks: p.networks},
  }),
)

export const workloadGpuNetworksMissing = defineWarning(
  'workload.gpu-networks-missing',
  'A GB200 workload on a cluster without GKENetworkParamSets: its pods get the default network only.',
  (p: OnCluster & {accelerator: string}) => ({
    text:
      `Cluster ${p.cluster} has no GKENetworkParamSet, so the pods of ${p.workload} get the default network only ` +
      `and ${p.accelerator}'s GPUDirect networking cannot be used (NCCL falls back to slower paths).`,
    data: {accelerator: p.accelerator},
  }),
)

export const workloadGpuNetworksAbsent = defineWarning(
  'workload.gpu-networks-absent',
  'A dry run of a GPUDirect workload on a cluster without the GPU networks cluster create makes for its type; a real run is refused.',
  (p: {workload: string; problem: string; hint: string}) => ({
    text: `${p.problem} A real run is refused (exit 6). ${p.hint}`,
    data: {workload: p.workload},
  }),
)

export const workloadGpuNetworksAssumed = defineInfo(
  'workload.gpu-networks-assumed',
  'A dry run assumed the GPU network names instead of reading them from the cluster.',
  (p: {networks: readonly string[]}) => ({
    text: `Dry run: the cluster's GPU networks (GKENetworkParamSets) were not read; assumed ${p.networks.join(', ')}.`,
    data: {networks: p.networks},
  }),
)

export const workloadReplacing = defineInfo(
  'workload.replacing',
  '--replace: the existing JobSet of the name is deleted and waited for before the submit.',
  (p: {namespace: string; workload: string}) => ({
    text: `--replace: deleting the existing JobSet ${p.namespace}/${p.workload} and waiting until it and its Jobs are gone.`,
    data: {workload: p.workload},
  }),
)

/** `JobSet default/run-1 (created 2026-01-01T00:00:00Z)` */
const describeReplaced = (r: ReplacedJobSet) =>
  `JobSet ${r.namespace}/${r.name}${r.created ? ` (created ${r.created})` : ''}`

export const workloadConfirmReplace = defineQuestion(
  'workload.confirm-replace',
  '--replace: asked before the existing JobSet of the name (and its running pods) is deleted.',
  false,
  (p: OnCluster & {replaces: ReplacedJobSet}) => ({
    text: `Replace workload ${p.workload} on cluster ${p.cluster}? Its ${describeReplaced(p.replaces)} is deleted, stopping its pods, and this one is submitted. Continue?`,
    data: {...p.replaces},
  }),
)

export const workloadReplacePlanned = defineInfo(
  'workload.replace-planned',
  'A dry run with --replace: which existing JobSet a submit would delete.',
  (p: OnCluster & {replaces: ReplacedJobSet}) => ({
    text:
      `Dry run: --replace would delete workload ${p.workload} on cluster ${p.cluster}, ${describeReplaced(p.replaces)}, stopping its pods, ` +
      'then submit this one (after asking, or with --force).',
    data: {...p.replaces},
  }),
)

export const workloadRbacApplied = defineInfo(
  'workload.rbac-applied',
  "The workloads' ServiceAccount, Role or RoleBindings were missing or differed, and were applied.",
  (p: {
    namespace: string
    /** The objects that were created or updated. */
    changed: readonly {readonly kind: string; readonly name: string; readonly change: 'create' | 'update' | 'none'}[]
  }) => ({
    text:
      `Set up the workloads' service account and RBAC in namespace ${p.namespace}: ` +
      `${p.changed.map((r) => `${r.change === 'create' ? 'created' : 'updated'} ${r.kind} ${r.name}`).join(', ')}.`,
    data: {objects: p.changed},
  }),
)

export const workloadQueueInactive = defineWarning(
  'workload.queue-inactive',
  "Kueue reports the cluster's LocalQueue as not active (e.g. its ClusterQueue is missing): the workload waits.",
  (p: OnCluster & {queue: string; inactive: {readonly reason: string; readonly message: string}}) => ({
    text:
      `Kueue reports LocalQueue ${p.queue} of cluster ${p.cluster} as not active ` +
      `(${p.inactive.reason}${p.inactive.message ? `: ${p.inactive.message}` : ''}): ${p.workload} waits until it is. ` +
      `Re-running \`xpk cluster create --cluster ${p.cluster} ...\` recreates its ClusterQueue.`,
    data: {...p.inactive},
  }),
)

export const workloadKueueOlder = defineWarning(
  'workload.kueue-older',
  'The cluster runs a Kueue before v0.15 (v1beta1 only): the workload is queued, and cluster create upgrades it.',
  (p: OnCluster & {served: string; installs: string}) => ({
    text:
      `Kueue on cluster ${p.cluster} serves only ${p.served} (a release before v0.15): ` +
      `${p.workload} is queued as usual. \`xpk cluster create --cluster ${p.cluster} ...\` upgrades it to ` +
      `${p.installs} (after asking, as the upgrade deletes Kueue's objects).`,
    data: {served: p.served, installs: p.installs},
  }),
)

export const workloadNameTaken = defineWarning(
  'workload.name-taken',
  'A dry run found a workload of the name: a submit without --replace would be refused.',
  (p: {workload: string; conflict: string; hint: string}) => ({
    text: `Dry run: ${p.conflict} A submit would be refused: ${p.hint}`,
    data: {workload: p.workload},
  }),
)

export const workloadClusterUnchecked = defineInfo(
  'workload.cluster-unchecked',
  'A dry run did not read the cluster (--offline, or nothing to find it by): its set-up was not checked.',
  (p: {cluster: string; reason: 'offline' | 'no-target'}) => ({
    text:
      `Dry run: cluster ${p.cluster} was not read (${p.reason === 'offline' ? '--offline' : 'no --project and --zone to find it, nor --kubeconfig'}), ` +
      'so whether it is set up for workloads, has room for this one and the name is free was not checked.',
    data: {reason: p.reason},
  }),
)

// workload delete

/** The filters of a bulk delete, in words, or '' without filters. */
interface DeleteFilters {
  readonly filterByJob: string | null
  readonly filterByStatus: StatusFilter
}

/** ` whose name contains "x" and status is FAILED` (or `with` ...), or '' without filters. */
function describeFilters(filters: DeleteFilters, lead: 'whose' | 'with'): string {
  const job = filters.filterByJob
  const status = filters.filterByStatus
  const parts = [
    ...(job === null ? [] : [lead === 'whose' ? `whose name contains "${job}"` : `names containing "${job}"`]),
    ...(status === 'EVERYTHING' ? [] : [lead === 'whose' ? `whose status is ${status}` : `status ${status}`]),
  ]
  return parts.length === 0 ? '' : ` ${parts.join(lead === 'whose' ? ' and ' : ', ')}`
}

export const workloadDeleteNoMatch = defineInfo(
  'workload.delete.no-match',
  'No workload matches the filter: nothing to delete.',
  (p: DeleteFilters & {where: string}) => ({
    text: `There are no workloads${describeFilters(p, 'whose')} in ${p.where}: nothing to delete.`,
    data: {filterByJob: p.filterByJob, filterByStatus: p.filterByStatus},
  }),
)

export const workloadDeleteAbsent = defineInfo(
  'workload.delete.absent',
  'A workload to delete is already gone: nothing to do for it.',
  (p: {workload: string; where: string}) => ({
    text: `Workload ${p.workload} is not in ${p.where} (already deleted): nothing to do.`,
    data: {workload: p.workload},
  }),
)

export const workloadDeleteDryRun = defineInfo(
  'workload.delete.dry-run',
  'A dry run showed what would be deleted without deleting it.',
  (p: {workloads: readonly string[]}) => ({text: 'Dry run: nothing was deleted.', data: {workloads: p.workloads}}),
)

export const workloadDeleteConfirm = defineQuestion(
  'workload.delete.confirm',
  'Asked before the workloads a filter selected are deleted (their names are listed).',
  false,
  (p: DeleteFilters & {workloads: readonly string[]; where: string}) => {
    const filters = describeFilters(p, 'with')
    const filter = filters === '' ? '' : ` (${filters.trim()})`
    return {
      text:
        `Delete ${p.workloads.length} workload${s(p.workloads.length)} in ${p.where}${filter}, stopping their pods:\n` +
        `${p.workloads.map((name) => `  ${name}`).join('\n')}\nContinue?`,
      data: {workloads: p.workloads, filterByJob: p.filterByJob, filterByStatus: p.filterByStatus},
    }
  },
)

// workload list

export const workloadListConsole = defineInfo(
  'workload.list.console',
  "Where the project's workloads are in the Cloud Console.",
  (p: {project: string}) => ({
    text: `See your workloads in Cloud Console: https://console.cloud.google.com/kubernetes/aiml/deployments/jobs?project=${p.project}`,
    data: {project: p.project},
  }),
)

export const workloadListWaiting = defineInfo(
  'workload.list.waiting',
  '--wait-for-job-completion: the workload is watched until it finishes or the timeout passes.',
  (p: {workload: string; status: string; timeoutSeconds: number}) => ({
    text: `Waiting up to ${describeSeconds(p.timeoutSeconds)} for workload ${p.workload} to finish; it is ${p.status}.`,
    data: {workload: p.workload, status: p.status, timeoutSeconds: p.timeoutSeconds},
  }),
)

export const workloadListFinished = defineInfo(
  'workload.list.finished',
  'The awaited workload finished successfully.',
  (p: {workload: string; status: string; link: string | null}) => ({
    text: `Workload ${p.workload} finished successfully${p.link ? `; see it here: ${p.link}` : '.'}`,
    data: {workload: p.workload, status: p.status, link: p.link},
  }),
)

// workload logs

/** A place of the workload: slice and worker. */
/** A place of a workload's pods: a slice and worker, or the Pathways head. */
interface Place extends LogPlace {
  readonly workload: string
}

/** A place in a message's data: its slice and worker, and `head: true` for the Pathways head. */
const placeData = (p: LogPlace) => ({...(p.head ? {head: true} : {}), slice: p.slice, worker: p.worker})

export const workloadLogsGone = defineWarning(
  'workload.logs.gone',
  'A pod whose log was asked for does not exist (any more, or yet): where its logs are in Cloud Logging.',
  (p: Place & {why: string; logs: string | null}) => ({
    text: `${p.why} Its logs are in Cloud Logging${p.logs ? `: ${p.logs}` : ' (reach the cluster through GKE for the link).'}`,
    data: {workload: p.workload, ...placeData(p), logs: p.logs},
  }),
)

export const workloadLogsUnreadable = defineWarning(
  'workload.logs.unreadable',
  "A pod's log could not be read (its container has not started, or the server refused); others go on.",
  (p: LogPlace & {pod: string; cause: string}) => ({
    text: `Could not read the log of pod ${p.pod}: ${p.cause}`,
    data: {pod: p.pod, ...placeData(p)},
  }),
)

export const workloadLogsReading = defineInfo(
  'workload.logs.reading',
  'Which pods are read, and whether they are followed.',
  (p: {workload: string; pods: readonly string[]; follow: boolean}) => ({
    text: `${p.follow ? 'Following' : 'Reading'} the log${s(p.pods.length)} of ${p.pods.length} pod${s(p.pods.length)} of workload ${p.workload}.`,
    data: {workload: p.workload, pods: p.pods, follow: p.follow},
  }),
)

/** The container a followed log moves on to, of the workload. */
interface NextOf {
  readonly workload: string
  readonly next: NextContainer
}

/** Where the container a followed log moves on to is: its workload, slice, worker and pod. */
const nextPlace = ({workload, next: {pod}}: NextOf) => ({workload, ...placeData(pod), pod: pod.name})

export const workloadLogsRestarted = defineWarning(
  'workload.logs.restarted',
  "A followed pod's container restarted, or the JobSet made a new pod for its place: following that one.",
  (p: NextOf) => {
    const {pod} = p.next
    return {
      text: restartNote(p.next),
      data: {
        ...nextPlace(p),
        why: p.next.why,
        restartCount: pod.restarts,
        ...(pod.restartAttempt === undefined ? {} : {restartAttempt: pod.restartAttempt}),
      },
    }
  },
)

export const workloadLogsStarted = defineInfo(
  'workload.logs.started',
  'The container of a followed pod whose log could not be read yet has started: following it.',
  (p: NextOf) => ({text: restartNote(p.next), data: nextPlace(p)}),
)

export const workloadLogsReconnected = defineInfo(
  'workload.logs.reconnected',
  "A followed pod's log stream was cut short while its container runs (idle, reset, timed out): read on from its last line.",
  (p: Place & {pod: string; sinceTime: string | undefined}) => ({
    text:
      `The log stream of pod ${p.pod} (${placeText(p)}) was cut short while its ` +
      `container runs; reading on${p.sinceTime ? ` from ${p.sinceTime}` : ''}.`,
    data: {
      workload: p.workload,
      ...placeData(p),
      pod: p.pod,
      ...(p.sinceTime ? {sinceTime: p.sinceTime} : {}),
    },
  }),
)

export const workloadLogsWaiting = defineInfo(
  'workload.logs.waiting',
  'With --follow, a place has no pod (a JobSet restart deleted it): waiting for the new pod.',
  (p: Place & {why: string}) => ({
    text: `${p.why} Waiting for the workload to make its new pod.`,
    data: {workload: p.workload, ...placeData(p)},
  }),
)

export const workloadLogsEnded = defineInfo(
  'workload.logs.ended',
  'Following stopped: the workload completed or failed, or its JobSet was deleted.',
  (p: {workload: string; end: FollowEnd}) => ({
    text: `Workload ${p.workload} ${p.end === 'deleted' ? 'was deleted' : p.end}; stopped following its logs.`,
    data: {workload: p.workload, end: p.end},
  }),
)
