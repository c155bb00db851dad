// The messages of cluster create, delete, describe and cacheimage, and of the cluster lock (see ../messages.ts).
import {describeAge, describeHolder, LOCK_STALE_VARIABLE, type LockHolder, type LockState} from '../cluster/lock.js'
import {defineInfo, defineQuestion, defineRecreateNodesQuestion, defineWarning} from '../messages.js'

const s = (n: number) => (n === 1 ? '' : 's')

/** Defines the note that shows a command's plan, as rendered (src/core/render/plan.ts), before it is applied. */
function definePlanNote<const C extends string>(code: C, summary: string) {
  return defineInfo(code, summary, (p: {plan: string}) => p.plan)
}

// cluster create

export const clusterCreateOfflinePlan = defineInfo(
  'cluster.create.offline-plan',
  'An offline dry run planned as if nothing exists.',
  'Offline dry run: planned as if nothing exists; versions are chosen from the server config when applied.',
)

export const clusterCreateOfflineReservations = defineInfo(
  'cluster.create.offline-reservations',
  'An offline dry run could not read the reservations, so their existence and room were not checked.',
  (p: {reservations: readonly string[]}) => ({
    text: `Offline dry run: reservation${s(p.reservations.length)} ${p.reservations.join(', ')} not read; whether ${p.reservations.length === 1 ? 'it exists and holds' : 'they exist and hold'} the new pools is checked when run without --offline.`,
    data: {reservations: p.reservations},
  }),
)

export const clusterCreateReading = defineInfo(
  'cluster.create.reading',
  'Reading the live cluster and GKE versions before planning.',
  (p: {cluster: string; region: string}) => `Reading cluster ${p.cluster} and GKE versions in ${p.region}...`,
)

export const clusterCreatePlan = definePlanNote(
  'cluster.create.plan',
  'The plan about to be applied (or shown by --dry-run).',
)

export const clusterCreateDryRun = defineInfo(
  'cluster.create.dry-run',
  'A dry run ended without changing anything.',
  'Dry run: nothing was changed.',
)

export const clusterCreateSummary = defineInfo(
  'cluster.create.summary',
  'What the applied plan did, in counts.',
  (p: {
    cluster: string
    /** What this run did, in words ("created the cluster", "created 2/2 node pools"). */
    did: readonly string[]
    poolsCreated: number
    poolsWanted: number
    poolsFound: number
    poolsDeleted: number
  }) => ({
    text: `Cluster ${p.cluster}: ${p.did.join(', ')}.`,
    data: {
      cluster: p.cluster,
      poolsCreated: p.poolsCreated,
      poolsWanted: p.poolsWanted,
      poolsFound: p.poolsFound,
      poolsDeleted: p.poolsDeleted,
    },
  }),
)

export const clusterCreateConfirmDeletePools = defineQuestion(
  'cluster.create.confirm-delete-pools',
  'Asked before the plan deletes node pools that have nodes.',
  false,
  (p: {nodePools: readonly string[]}) => ({
    text: `This deletes ${p.nodePools.length} node pool${s(p.nodePools.length)} (${p.nodePools.join(', ')}) and the workloads running on them. Continue?`,
    data: {nodePools: p.nodePools},
  }),
)

export const clusterCreateConfirmRecreateNodes = defineRecreateNodesQuestion(
  'cluster.create.confirm-recreate-nodes',
  'Asked before node pools are switched to the GKE metadata server, for which GKE recreates their nodes.',
  'Workload Identity',
)

export const clusterCreateConfirmKueueUpgrade = defineQuestion(
  'cluster.create.confirm-kueue-upgrade',
  'Asked before a Kueue older than v0.15 and every Kueue object are deleted to install the new one.',
  false,
  'The installed Kueue is older than v0.15, which cannot be upgraded in place: every Kueue object (queues, ' +
    'workloads, flavors) and Kueue itself are deleted, then Kueue is installed again. Continue?',
)

// cluster adapt

export const clusterAdaptReading = defineInfo(
  'cluster.adapt.reading',
  'Reading the cluster and its node pools from GKE before planning what cluster adapt adds.',
  (p: {cluster: string; region: string}) => `Reading cluster ${p.cluster} and its node pools in ${p.region}...`,
)

export const clusterAdaptPlan = definePlanNote(
  'cluster.adapt.plan',
  'What cluster adapt found in the node pools and what it adds inside the cluster (or shows by --dry-run).',
)

export const clusterAdaptDryRun = defineInfo(
  'cluster.adapt.dry-run',
  'A dry run of cluster adapt ended without changing anything.',
  'Dry run: nothing was changed.',
)

export const clusterAdaptSummary = defineInfo(
  'cluster.adapt.summary',
  'What cluster adapt did inside the cluster; GKE is never changed.',
  (p: {cluster: string; did: readonly string[]}) => ({
    text: `Cluster ${p.cluster}: ${p.did.join(', ')}; its node pools were left as they are.`,
    data: {cluster: p.cluster, did: p.did},
  }),
)

export const clusterAdaptConfirmKueueUpgrade = defineQuestion(
  'cluster.adapt.confirm-kueue-upgrade',
  'Asked before cluster adapt deletes a Kueue older than v0.15 and every Kueue object to install the new one.',
  false,
  'The installed Kueue is older than v0.15, which cannot be upgraded in place: every Kueue object (queues, ' +
    'workloads, flavors) and Kueue itself are deleted, then Kueue is installed again. Continue?',
)

// the cluster lock of cluster create and cluster delete

export const clusterLockHeld = defineWarning(
  'cluster.lock.held',
  'A dry run found the cluster locked by another xpk run (or its lock stale): what a real run would do.',
  (p: {cluster: string; lock: Exclude<LockState, {state: 'free'}>; staleSeconds: number}) => {
    const {lock} = p
    const whose = `${describeHolder(lock.holder)}, for ${describeAge(lock.ageSeconds)}`
    return {
      text:
        lock.state === 'held'
          ? `Dry run: cluster ${p.cluster} is locked by another xpk run (${whose}): a run now would be refused (exit 6).`
          : `Dry run: cluster ${p.cluster} has a stale lock (${whose}, longer than ${LOCK_STALE_VARIABLE}=${p.staleSeconds}): a run now would take it over.`,
      data: {cluster: p.cluster, state: lock.state, holder: {...lock.holder}, ageSeconds: lock.ageSeconds},
    }
  },
)

export const clusterLockTakenOver = defineWarning(
  'cluster.lock.taken-over',
  "Another run's lock was taken over: older than XPK_CLUSTER_LOCK_STALE_S, or taken on this machine by a process that has ended.",
  (p: {cluster: string; holder: LockHolder; ageSeconds: number; because: 'age' | 'gone'; staleSeconds: number}) => ({
    text:
      p.because === 'gone'
        ? `Taking over the lock of cluster ${p.cluster} from ${describeHolder(p.holder)}, taken ` +
          `${describeAge(p.ageSeconds)} ago on this machine by a process that has ended (killed or crashed) ` +
          'without releasing it.'
        : `Taking over the lock of cluster ${p.cluster} from ${describeHolder(p.holder)}: held for ` +
          `${describeAge(p.ageSeconds)}, longer than ${LOCK_STALE_VARIABLE}=${p.staleSeconds}, so that run is taken to have ended ` +
          'without releasing it. If it is still running, the two runs may undo each other.',
    data: {cluster: p.cluster, holder: {...p.holder}, ageSeconds: p.ageSeconds, because: p.because},
  }),
)

export const clusterLockReleasing = defineInfo(
  'cluster.lock.releasing',
  'An interrupted run releases its cluster lock before it exits (a few seconds at most).',
  (p: {cluster: string}) => `Releasing the lock of cluster ${p.cluster}...`,
)

export const clusterLockNotReleased = defineWarning(
  'cluster.lock.not-released',
  "This run's cluster lock could not be released; it stays until taken over.",
  (p: {cluster: string; cause: string; staleSeconds: number}) => ({
    text:
      `Could not release the lock of cluster ${p.cluster} (${p.cause}). A re-run on this machine ` +
      `takes it over at once; other xpk runs are refused until it is taken over, ` +
      `${describeAge(p.staleSeconds)} after it was taken (${LOCK_STALE_VARIABLE}); ` +
      `${LOCK_STALE_VARIABLE}=0 on the next run takes it over at once.`,
    data: {cluster: p.cluster},
  }),
)

// cluster delete

export const clusterDeleteAbsent = defineInfo(
  'cluster.delete.absent',
  'The cluster to delete does not exist: nothing to do.',
  (p: {cluster: string; project: string; region: string; zone: string}) =>
    `Cluster ${p.cluster} does not exist in project ${p.project} (${p.region} or ${p.zone}): nothing to delete.`,
)

export const clusterDeletePlan = definePlanNote('cluster.delete.plan', 'The deletion plan about to be applied.')

export const clusterDeleteDryRun = defineInfo(
  'cluster.delete.dry-run',
  'A dry run ended without deleting anything.',
  'Dry run: nothing was changed.',
)

export const clusterDeleteConfirmNetworks = defineQuestion(
  'cluster.delete.confirm-networks',
  "Asked before what is left of a deleted cluster's GPU networks is deleted.",
  false,
  (p: {cluster: string; networks: readonly string[]}) => ({
    text: `Cluster ${p.cluster} is gone, but its GPU networks are left (${p.networks.join(', ') || 'subnetworks and firewall rules only'}). Delete them with their subnetworks and firewall rules? This cannot be undone. Continue?`,
    data: {cluster: p.cluster, networks: p.networks},
  }),
)

export const clusterDeleteConfirm = defineQuestion(
  'cluster.delete.confirm',
  'Asked before a cluster and its node pools are deleted.',
  false,
  (p: {cluster: string; location: string; nodePools: readonly string[]}) => {
    const pools = `${p.nodePools.length} node pool${s(p.nodePools.length)} (${p.nodePools.join(', ') || 'none'})`
    return {
      text: `Delete cluster ${p.cluster} in ${p.location} with its ${pools} and every workload on it. This cannot be undone. Continue?`,
      data: {cluster: p.cluster, location: p.location, nodePools: p.nodePools},
    }
  },
)

export const clusterDeleteDone = defineInfo(
  'cluster.delete.done',
  'The cluster was deleted.',
  (p: {cluster: string; seconds: number}) => `Deleted cluster ${p.cluster} in ${p.seconds}s.`,
)

// cluster describe

export const clusterDescribeUnreachable = defineWarning(
  'cluster.describe.unreachable',
  'The inside of the cluster could not be read; only what GKE reports is shown.',
  (p: {cluster: string; cause: string; kind: string}) => ({
    text: `Could not read inside cluster ${p.cluster}, so only what GKE reports is shown (--skip-in-cluster skips this read): ${p.cause}`,
    data: {cluster: p.cluster, cause: p.cause, kind: p.kind},
  }),
)

export const clusterDescribeNoGke = defineInfo(
  'cluster.describe.no-gke',
  'Reached through a kubeconfig: GKE was not asked, so there is no node-pool information from it.',
  'Reached through the kubeconfig: GKE was not asked, so there is no node-pool information from it (machine types, expected node counts).',
)

// cluster cacheimage

export const clusterCacheimageDryRun = defineInfo(
  'cluster.cacheimage.dry-run',
  'A dry run showed the image-cache DaemonSet without applying it.',
  'Dry run: nothing was applied.',
)

export const clusterCacheimageApplied = defineInfo(
  'cluster.cacheimage.applied',
  'The image-cache DaemonSet was created, updated or found unchanged; its nodes pull the image.',
  (p: {change: 'create' | 'update' | 'none'; namespace: string; name: string; image: string}) => {
    const verb = {create: 'created', update: 'updated', none: 'unchanged'}[p.change]
    return {
      text: `DaemonSet ${p.namespace}/${p.name} ${verb}: caching ${p.image} on every node of its type.`,
      data: {change: p.change, namespace: p.namespace, name: p.name, image: p.image},
    }
  },
)

export const clusterCacheimageNoNodes = defineWarning(
  'cluster.cacheimage.no-nodes',
  'No node of the type is in the cluster to pull the image.',
  (p: {image: string}) => ({
    text: `No node of this type is in the cluster yet, so nothing pulled ${p.image}; nodes that join later pull it when they start.`,
    data: {image: p.image},
  }),
)

// --cpu-limit / --memory-limit (cluster create)

export const clusterCreateLimitCorrected = defineInfo(
  'cluster.create.limit-corrected',
  "A --cpu-limit or --memory-limit compared with the cluster's capacity: lowered to it when above, kept when below.",
  (p: {
    flag: string
    given: string
    corrected: string
    capacity: string
    direction: 'above' | 'below'
    machineType: string
    vms: number
  }) => ({
    text:
      p.direction === 'above'
        ? `${p.flag} ${p.given} is above what the cluster holds (${p.vms} x ${p.machineType}: ${p.capacity}): ` +
          `the ClusterQueue's ${p.flag === '--cpu-limit' ? 'cpu' : 'memory'} quota is ${p.corrected}.`
        : `${p.flag} ${p.given} is below what the cluster holds (${p.vms} x ${p.machineType}: ${p.capacity}): ` +
          `Kueue admits workloads up to ${p.given} only.`,
    data: {
      flag: p.flag,
      given: p.given,
      corrected: p.corrected,
      capacity: p.capacity,
      direction: p.direction,
      machineType: p.machineType,
      vms: p.vms,
    },
  }),
)

export const clusterCreateLimitsUnverified = defineWarning(
  'cluster.create.limits-unverified',
  '--cpu-limit / --memory-limit could not be checked against the machine type, so they are used as given.',
  (p: {machineType: string; cause: string}) => ({
    text: `Could not read the capacity of ${p.machineType} (${p.cause}): --cpu-limit and --memory-limit are used as given.`,
    data: {machineType: p.machineType, cause: p.cause},
  }),
)
