/**
 * The in-cluster half of `cluster create`: what to install, resize and apply inside the cluster so it is ready to
 * queue work, decided from what is live. Everything is compared with the live objects first, so a re-run with
 * nothing to change plans no mutating request.
 */
import {findControllerDeployment, RELEASES, type KubeObject, type ReleaseComponent} from '../kube/release-manifest.js'
import {resourceFlavorName, type ClusterShape} from './cluster-shape.js'
import {clusterConfigMaps, resourcesConfigMapName} from './configmaps.js'
import {jobSetControllerPatch, kueueControllerPatch, superSlicingControllerPatch} from './controller-sizing.js'
import {decideInstall, type InstallDecision, type ObservedController} from './install-decision.js'
import {GKE_DEFAULT_TOPOLOGY_NAME, kueueConfiguration, kueueConfigurationObjects} from './kueue.js'
import {applyWouldChange, patchWouldChange} from './live-diff.js'
import {
  describeDrift,
  driftIsEmpty,
  driftObjects,
  releaseDrift,
  type ReleaseDrift,
  type ReleaseObjectRef,
} from './release-drift.js'
import {rolloutWaiting, type DeploymentStatus} from './rollout.js'
import {
  topologyAwareSchedulingPossible,
  topologyAwareSchedulingReason,
  type ObservedPlacement,
} from './topology-aware.js'
import type {DeploymentPatch, InClusterObject} from './types.js'
import {gpuNetworkObjects, type GpuNetwork} from '../cluster/gpu-networks.js'
import {coreDnsObjects, KUBE_DNS_DEPLOYMENTS, type KubeDnsSettings} from './coredns.js'
import {daemonSetWaiting, type DaemonSetStatus, type GpuInstaller, type GpuInstallerName} from './gpu-installers.js'
import {releaseObjectWouldChange} from './live-diff.js'

/** What was read from the cluster before planning. */
export interface ObservedInCluster {
  /** Nodes the cluster has now. */
  readonly nodeCount: number
  readonly controllers: Readonly<Record<ReleaseComponent, ObservedController & {readonly deployment?: unknown}>>
  /** Names of the Kueue CRDs installed (`clusterqueues.kueue.x-k8s.io`, ...), for a breaking upgrade. */
  readonly kueueCrds: readonly string[]
  /** The live objects of the kinds xpk applies (its configuration and the releases' objects), by {@link objectKey}. */
  readonly live: ReadonlyMap<string, unknown>
  /**
   * The objects of each release manifest, as loaded: each is compared with the live object of its name. A release
   * whose manifest could not be read (a download that failed) is missing here, and said in {@link releasesUnread}.
   */
  readonly releases: ReleaseObjects
  /** Why a release manifest could not be read: its objects are not compared, and a note says so. */
  readonly releasesUnread?: Readonly<Partial<Record<ReleaseComponent, string>>>
  /** The cluster's DNS, read when {@link InClusterInputs.coreDns} asks for CoreDNS. */
  readonly dns?: ObservedDns
  /**
   * Each GPU installer's manifest objects with the live object of each (undefined: not there), or why the manifest
   * could not be read (then the installer is planned as if nothing were there).
   */
  readonly installers?: Readonly<Partial<Record<GpuInstallerName, ObservedInstaller>>>
}

export type ObservedInstaller =
  {readonly objects: readonly KubeObject[]; readonly live: readonly unknown[]} | {readonly unread: string}

/** Whether kube-system runs CoreDNS, and what `deploy.sh` would read from kube-dns when it does not. */
export interface ObservedDns {
  readonly coreDnsPresent: boolean
  /** The kube-dns Service's cluster IP and ConfigMap; undefined when there is no kube-dns Service. */
  readonly kubeDns?: KubeDnsSettings
  /** Which of kube-dns-autoscaler and kube-dns exist (to scale to 0). */
  readonly kubeDnsDeployments: readonly string[]
}

/** The objects of the JobSet and Kueue release manifests. */
export type ReleaseObjects = Readonly<Partial<Record<ReleaseComponent, readonly KubeObject[]>>>

export interface InClusterInputs {
  readonly shape: ClusterShape
  readonly xpkVersion: string
  /** Nodes expected once the plan's GKE steps are done (sizes the controllers when the cluster is not live yet). */
  readonly expectedNodes: number
  /**
   * The cluster's node pools once the plan's GKE steps are done (see `placementAfterPlan`): whether one has COMPACT
   * placement decides, with the accelerator and capacity, whether a GPU cluster gets the `gke-default` Topology.
   */
  readonly placement: ObservedPlacement
  /**
   * The GKE steps create, delete or wait for node pools. The quota (ResourceFlavor, ClusterQueue, the resources
   * ConfigMap, flavors of earlier sizes) must describe the pools that are RUNNING once those steps are done, which
   * only then is known: its steps are applied after them, planned anew for the pools RUNNING then.
   */
  readonly nodePoolsChange?: boolean
  /** Replace kube-dns with CoreDNS where kube-system has no `coredns` Deployment (cluster create, as Python). */
  readonly coreDns?: {readonly replicas: number}
  /** GPU types with extra networks: their `Network` and `GKENetworkParamSet` objects are applied (gpu-networks.ts). */
  readonly gpuNetworks?: readonly GpuNetwork[]
  /** GPU types whose nodes need GPUDirect's DaemonSets (gpu-installers.ts): each is applied and waited for. */
  readonly gpuInstallers?: readonly GpuInstaller[]
}

/** One in-cluster step, in the order they depend on each other. */
export type InClusterStep =
  | {
      readonly kind: 'install'
      readonly component: ReleaseComponent
      /**
       * `install`, `upgrade` and `breaking-upgrade` as the controller's Deployment decides (see install-decision.ts);
       * `repair`: the Deployment runs the version xpk installs, but objects of its release are missing or different
       * (an install that was stopped half-way).
       */
      readonly action: InstallDecision['action'] | 'repair'
      readonly decision: InstallDecision
      /** The controller's resources for the cluster's size, applied with the release's Deployment. */
      readonly sizing: DeploymentPatch
      /** The release's objects to apply: all of them, or those missing or different from what is live. */
      readonly objects: 'all' | readonly ReleaseObjectRef[]
      readonly reason: string
    }
  | {
      readonly kind: 'resize'
      readonly component: ReleaseComponent
      readonly sizing: DeploymentPatch
      readonly reason: string
    }
  | {readonly kind: 'await'; readonly component: ReleaseComponent; readonly reason: string}
  | {
      readonly kind: 'apply'
      readonly object: InClusterObject
      readonly change: 'create' | 'update' | 'none'
      /** Needs Kueue's webhooks and CRDs (every Kueue object), or only the API server (core objects). */
      readonly needsKueue: boolean
      /** Describes the cluster's size (the ResourceFlavor, the ClusterQueue, the resources ConfigMap). */
      readonly quota: boolean
      readonly reason: string
    }
  | {
      /** A ResourceFlavor xpk made for an earlier size of the cluster, deleted once the ClusterQueue names the new one. */
      readonly kind: 'delete'
      readonly object: {readonly apiVersion: string; readonly kind: string; readonly name: string}
      readonly quota: true
      readonly reason: string
    }
  | {
      /**
       * CoreDNS in place of kube-dns (see coredns.ts): `install` applies its objects (null: built once the cluster is
       * up, from kube-dns as it is then; each run checks first that no `coredns` Deployment is there), `scale-down`
       * scales `deployments` to 0, `await` waits until CoreDNS is Available.
       */
      readonly kind: 'coredns'
      readonly action: 'install' | 'scale-down' | 'await'
      readonly objects: readonly KubeObject[] | null
      readonly deployments: readonly string[]
      readonly reason: string
    }
  | {
      /**
       * One of Google's GPUDirect manifests (gpu-installers.ts), downloaded when applied: its objects are applied
       * where they differ from what is live, then its DaemonSets are waited for until ready on every node.
       */
      readonly kind: 'gpu-installer'
      readonly installer: GpuInstaller
      /** `apply` its objects then wait; only `wait` (all applied, a DaemonSet not ready yet); `none`: all done. */
      readonly change: 'apply' | 'wait' | 'none'
      readonly reason: string
    }

export interface InClusterPlan {
  /** Whether the plan was made from the live cluster, or as if nothing were there (the cluster is new, or offline). */
  readonly fromLive: boolean
  readonly steps: readonly InClusterStep[]
  /** Notes for the user: controllers left alone, and why. */
  readonly notes: readonly string[]
  /** A breaking Kueue upgrade deletes every Kueue object: the plan needs confirmation. */
  readonly destructive: boolean
  /**
   * The quota steps wait for the GKE node-pool steps and are planned again then, for the pools RUNNING after them
   * (see {@link InClusterInputs.nodePoolsChange}); the values shown are those of every pool step succeeding.
   */
  readonly quotaAfterNodePools: boolean
  /** CoreDNS's replicas, for an install that builds its objects once the cluster is up. */
  readonly coreDnsReplicas?: number
}

/** The key of an object in {@link ObservedInCluster.live}. */
export function objectKey(object: {
  readonly kind: string
  readonly metadata: {readonly name: string; readonly namespace?: string}
}): string {
  return `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`
}

/**
 * Every object xpk applies (besides the release manifests) for a cluster of this shape. `topology`: whether the
 * flavor names the `gke-default` Topology (and the Topology is applied); by default as the node pools decide,
 * without what is live (see {@link planInCluster} for a flavor that already names it).
 */
export function desiredObjects(
  inputs: InClusterInputs,
  topology: boolean = topologyAwareSchedulingPossible(
    inputs.shape.accelerator,
    inputs.shape.capacity,
    inputs.placement,
  ),
): InClusterObject[] {
  const kueue = kueueConfiguration(inputs.shape, {topologyAwareScheduling: topology})
  const maps = clusterConfigMaps(inputs.shape, {xpkVersion: inputs.xpkVersion})
  const networks = gpuNetworkObjects(inputs.gpuNetworks ?? [])
  return [...networks, ...kueueConfigurationObjects(kueue), maps.resources, maps.metadata]
}

/**
 * The objects whose kinds are read before planning: the desired ones, plus the Topology for any GPU that can use
 * one, so that a flavor which already names it (see {@link topologyDecision}) is compared with the live Topology too.
 */
export function objectsToRead(inputs: InClusterInputs): InClusterObject[] {
  const a = inputs.shape.accelerator
  return desiredObjects(inputs, a.kind === 'GPU' && Boolean(a.gpu?.requiresTopology))
}

/** Whether the flavor names the `gke-default` Topology, why (for the plan lines), and a note when it is kept. */
interface TopologyDecision {
  readonly topology: boolean
  readonly why?: string
  readonly note?: string
}

/**
 * Decides the Topology from the node pools (Python's `is_GPU_TAS_possible`) and from the live flavor: Kueue forbids
 * removing or changing a flavor's `topologyName` once set, so a flavor that names `gke-default` keeps it (and its
 * Topology) even when no pool has COMPACT placement any more, and one naming another tool's Topology is not given
 * ours. Either is said in a note rather than sent and refused.
 */
function topologyDecision(inputs: InClusterInputs, liveFlavor: unknown): TopologyDecision {
  const {accelerator, capacity} = inputs.shape
  const why = topologyAwareSchedulingReason(accelerator, capacity, inputs.placement)
  const live = (liveFlavor as {spec?: {topologyName?: string}} | undefined)?.spec?.topologyName
  const flavor = `ResourceFlavor ${resourceFlavorName(inputs.shape)}`
  if (live === undefined) return why === undefined ? {topology: false} : {topology: true, why}
  if (live === GKE_DEFAULT_TOPOLOGY_NAME) {
    if (why !== undefined) return {topology: true, why}
    return {
      topology: true,
      why: 'kept, the flavor already names it',
      note:
        `${flavor} keeps Topology ${GKE_DEFAULT_TOPOLOGY_NAME} although topology-aware scheduling is no longer ` +
        'possible (no node pool has COMPACT placement): Kueue does not allow removing it. Delete the flavor ' +
        '(once no workload uses it) and re-run to drop it.',
    }
  }
  return {
    topology: false,
    ...(why === undefined
      ? {}
      : {
          note:
            `${flavor} names Topology ${live}, set by another tool: left as it is (Kueue does not allow changing ` +
            `it), so Topology ${GKE_DEFAULT_TOPOLOGY_NAME} is not applied.`,
        }),
  }
}

const SIZING: Readonly<Record<ReleaseComponent, (nodes: number) => DeploymentPatch>> = {
  jobset: jobSetControllerPatch,
  kueue: kueueControllerPatch,
}

/** Plans the in-cluster steps against what is live, or, with `observed` null, as if nothing were installed. */
export function planInCluster(inputs: InClusterInputs, observed: ObservedInCluster | null): InClusterPlan {
  const notes: string[] = []
  let destructive = false
  const nodes = observed ? Math.max(observed.nodeCount, inputs.expectedNodes) : inputs.expectedNodes
  const releaseSteps: Record<ReleaseComponent, InClusterStep[]> = {jobset: [], kueue: []}
  for (const component of ['jobset', 'kueue'] as const) {
    const controller: ObservedController = observed?.controllers[component] ?? {installed: false}
    const decision = decideInstall(component, controller, {crds: observed?.kueueCrds ?? []})
    const sizing = inputs.shape.slicing === 'super' ? superSlicingControllerPatch(component) : SIZING[component](nodes)
    const title = RELEASES[component].title
    const drift = observed ? driftOf(component, observed) : undefined
    const steps = releaseSteps[component]
    const awaitStep = {kind: 'await', component, reason: `wait until ${title}'s controller is Available`} as const
    switch (decision.action) {
      case 'install':
      case 'upgrade':
      case 'breaking-upgrade': {
        destructive ||= decision.action === 'breaking-upgrade'
        // After a breaking upgrade's deletions nothing of the old release is left to keep.
        const partial = drift !== undefined && decision.action !== 'breaking-upgrade'
        const objects = partial ? driftObjects(drift) : 'all'
        // An install that finds part of its release there finishes one stopped half-way: the line says what is left.
        const some = partial && decision.action === 'install' && objects.length < drift.total
        const reason = some ? `${decision.reason}: ${describeDrift(drift)}` : decision.reason
        steps.push({kind: 'install', component, action: decision.action, decision, sizing, objects, reason})
        steps.push(awaitStep)
        break
      }
      case 'skip': {
        const deployment = observed?.controllers[component].deployment
        const resize = patchWouldChange(sizing, deployment)
        const managed = controller.installed && controller.managedBy !== null
        if (drift !== undefined && !driftIsEmpty(drift) && !managed) {
          const objects = driftObjects(drift)
          // A controller too small goes along, sized for the cluster.
          const sized = resize && !objects.some((o) => isController(o, component))
          steps.push({
            kind: 'install',
            component,
            action: 'repair',
            decision,
            sizing,
            objects: sized ? [...objects, controllerRef(component)] : objects,
            reason: `repair ${title} ${decision.installed}: ${describeDrift(drift)}${sized ? `, and resize its controller for ${nodes} nodes` : ''}`,
          })
          steps.push(awaitStep)
        } else if (resize) {
          steps.push({kind: 'resize', component, sizing, reason: `resize ${title}'s controller for ${nodes} nodes`})
          steps.push(awaitStep)
        }
        const unread = observed?.releasesUnread?.[component]
        if (unread !== undefined && !managed) {
          notes.push(
            `${title}'s objects were not compared with its release (${unread}), so any that are missing stay ` +
              `missing: re-run once the manifest can be read, or pass ${RELEASES[component].overrideFlag}.`,
          )
        }
        break
      }
      default:
        notes.push(decision.note)
    }
  }
  // A breaking upgrade deletes every Kueue object before installing: what is live now will not be there to keep.
  const liveOf = (object: InClusterObject) =>
    object.apiVersion.startsWith('kueue.x-k8s.io/') && destructive ? undefined : observed?.live.get(objectKey(object))
  const flavorKey = {kind: 'ResourceFlavor', metadata: {name: resourceFlavorName(inputs.shape)}}
  const topology = topologyDecision(inputs, destructive ? undefined : observed?.live.get(objectKey(flavorKey)))
  if (topology.note) notes.push(topology.note)
  const desired = desiredObjects(inputs, topology.topology)
  const quotaAfterNodePools = inputs.nodePoolsChange === true
  const later = quotaAfterNodePools ? ' (after the node-pool steps, for the pools RUNNING then)' : ''
  const applies: InClusterStep[] = []
  for (const object of desired) {
    const needsKueue = object.apiVersion.startsWith('kueue.x-k8s.io/')
    const live = liveOf(object)
    const change = live === undefined ? 'create' : applyWouldChange(object, live) ? 'update' : 'none'
    const quota = isQuota(object, inputs.shape)
    const because =
      topology.why !== undefined && namesTopology(object) ? ` (topology-aware scheduling: ${topology.why})` : ''
    applies.push({
      kind: 'apply',
      object,
      change,
      needsKueue,
      quota,
      reason: `${describeChange(object, change, live)}${because}${quota ? later : ''}`,
    })
  }
  if (observed && !destructive) {
    applies.push(...staleFlavors(desired, observed).map((d) => ({...d, reason: `${d.reason}${later}`})))
  }
  // Kueue objects go through Kueue's webhooks: an installed Kueue that is not Available yet (a run stopped while it
  // was starting) is waited for first, even when nothing of Kueue itself is applied.
  const kueueWork = applies.some(
    (a) =>
      (a.kind === 'apply' && a.needsKueue && (a.change !== 'none' || (a.quota && quotaAfterNodePools))) ||
      a.kind === 'delete',
  )
  const kueueDeployment = observed?.controllers.kueue.deployment as DeploymentStatus | undefined
  const starting = kueueDeployment === undefined ? undefined : rolloutWaiting(kueueDeployment)
  if (releaseSteps.kueue.length === 0 && kueueWork && starting !== undefined) {
    releaseSteps.kueue.push({
      kind: 'await',
      component: 'kueue',
      reason: `wait until Kueue's controller is Available (${starting})`,
    })
  }
  const dns = coreDnsSteps(inputs, observed, notes)
  const installers = (inputs.gpuInstallers ?? []).map((installer) =>
    installerStep(installer, observed?.installers?.[installer.name]),
  )
  const steps = [...dns, ...releaseSteps.jobset, ...releaseSteps.kueue, ...applies, ...installers]
  return {
    fromLive: observed !== null,
    steps,
    notes,
    destructive,
    quotaAfterNodePools,
    ...(inputs.coreDns ? {coreDnsReplicas: inputs.coreDns.replicas} : {}),
  }
}

/**
 * A GPU installer's step: from what is live when its manifest was read (each object compared as a release's are,
 * each DaemonSet's readiness), else as if nothing were there.
 */
function installerStep(
  installer: GpuInstaller,
  observed: ObservedInstaller | undefined,
): Extract<InClusterStep, {kind: 'gpu-installer'}> {
  const all = `apply the ${installer.title} (${installer.url}, or ${installer.overrideFlag}) and wait until its DaemonSets are ready on every node they run on`
  if (observed === undefined || 'unread' in observed)
    return {kind: 'gpu-installer', installer, change: 'apply', reason: all}
  const differ = observed.objects.filter((o, i) => releaseObjectWouldChange(o, observed.live[i]))
  if (differ.length > 0) {
    const what = differ.map((o) => `${o.kind} ${o.metadata.name}`).join(', ')
    return {kind: 'gpu-installer', installer, change: 'apply', reason: `${all}: ${what} missing or different`}
  }
  const waiting = observed.objects.flatMap((o, i) => {
    if (o.kind !== 'DaemonSet') return []
    const why = daemonSetWaiting(observed.live[i] as DaemonSetStatus | undefined)
    return why === undefined ? [] : [`DaemonSet ${o.metadata.namespace ?? ''}/${o.metadata.name}: ${why}`]
  })
  if (waiting.length > 0) {
    return {
      kind: 'gpu-installer',
      installer,
      change: 'wait',
      reason: `wait until the ${installer.title} is ready on every node (${waiting.join('; ')})`,
    }
  }
  return {
    kind: 'gpu-installer',
    installer,
    change: 'none',
    reason: `unchanged: the ${installer.title}, ready on every node`,
  }
}

/**
 * CoreDNS's steps: none where kube-system has a `coredns` Deployment (or nobody asked), else install, scale kube-dns
 * down and wait, as Python's `update_coredns` does. A cluster without a kube-dns Service has no IP to give CoreDNS's
 * Service (deploy.sh stops there too): a note says so and nothing is planned.
 */
function coreDnsSteps(
  inputs: InClusterInputs,
  observed: ObservedInCluster | null,
  notes: string[],
): Extract<InClusterStep, {kind: 'coredns'}>[] {
  if (!inputs.coreDns) return []
  const dns = observed?.dns
  if (observed && (dns === undefined || dns.coreDnsPresent)) return []
  if (dns && dns.kubeDns === undefined) {
    notes.push(
      "kube-system has neither a coredns Deployment nor a kube-dns Service, so CoreDNS is not installed (its Service takes kube-dns's cluster IP).",
    )
    return []
  }
  const replicas = inputs.coreDns.replicas
  const objects = dns?.kubeDns ? coreDnsObjects(dns.kubeDns, replicas) : null
  const deployments = dns ? dns.kubeDnsDeployments : KUBE_DNS_DEPLOYMENTS
  const from = dns?.kubeDns ? `kube-dns's IP ${dns.kubeDns.clusterIp}` : "kube-dns's IP once the cluster is up"
  return [
    {
      kind: 'coredns',
      action: 'install',
      objects,
      deployments: [],
      reason: `install CoreDNS (${replicas} ${replicas === 1 ? 'replica' : 'replicas'}, ${from}): kube-system has no coredns Deployment`,
    },
    ...(deployments.length > 0
      ? [
          {
            kind: 'coredns' as const,
            action: 'scale-down' as const,
            objects: null,
            deployments,
            reason: `scale ${deployments.join(' and ')} to 0 replicas: CoreDNS answers in their place`,
          },
        ]
      : []),
    {kind: 'coredns', action: 'await', objects: null, deployments: [], reason: 'wait until CoreDNS is Available'},
  ]
}

/**
 * The release's objects compared with what is live; the controller Deployment with the Deployment observed for it,
 * leaving out its containers' resources: the cluster's size decides those (a resize, see `patchWouldChange`).
 */
function driftOf(component: ReleaseComponent, observed: ObservedInCluster): ReleaseDrift | undefined {
  const objects = observed.releases[component]
  if (objects === undefined) return undefined
  const controller = findControllerDeployment(objects, component)
  const unsized = objects.map((o) => (o === controller ? withoutResources(o) : o))
  const deployment = observed.controllers[component].deployment
  return releaseDrift(unsized, (o) =>
    isController({kind: o.kind, ...o.metadata}, component) ? deployment : observed.live.get(objectKey(o)),
  )
}

/** Whether an object (or a ref to one) is the component's controller Deployment. */
function isController(
  o: {readonly kind: string; readonly name: string; readonly namespace?: string},
  component: ReleaseComponent,
): boolean {
  const {namespace, name} = RELEASES[component].controller
  return o.kind === 'Deployment' && o.name === name && o.namespace === namespace
}

function controllerRef(component: ReleaseComponent): ReleaseObjectRef {
  return {apiVersion: 'apps/v1', kind: 'Deployment', ...RELEASES[component].controller}
}

function withoutResources(deployment: KubeObject): KubeObject {
  const copy = structuredClone(deployment) as KubeObject & {
    spec?: {template?: {spec?: {containers?: {resources?: unknown}[]}}}
  }
  for (const c of copy.spec?.template?.spec?.containers ?? []) delete c.resources
  return copy
}

/** The objects that describe the cluster's size: its flavor, the ClusterQueue's quota, the resources ConfigMap. */
function isQuota(object: InClusterObject, shape: ClusterShape): boolean {
  return (
    object.kind === 'ResourceFlavor' ||
    object.kind === 'ClusterQueue' ||
    (object.kind === 'ConfigMap' && object.metadata.name === resourcesConfigMapName(shape.clusterName))
  )
}

/** The Topology itself, and the flavor that names it: their plan lines say why. */
function namesTopology(object: InClusterObject): boolean {
  return object.kind === 'Topology' || (object.kind === 'ResourceFlavor' && object.spec.topologyName !== undefined)
}

/** Python xpk's flavor names, `<slices>x<device type>`: only those can be earlier sizes of this cluster. */
const SIZED_FLAVOR = /^\d+x[a-z0-9]([-a-z0-9]*[a-z0-9])?$/

/**
 * Flavors left by an earlier size of the cluster (`2xv5p-16` after growing to 4 slices). Only a flavor xpk applied
 * (its field manager), named like xpk's, and named by no ClusterQueue but the one being updated, is deleted: a
 * flavor another tool or another queue uses is left alone. Kueue keeps a flavor a queue still names (its
 * resource-in-use finalizer), so the delete runs after the ClusterQueue update.
 */
function staleFlavors(
  desired: readonly InClusterObject[],
  observed: ObservedInCluster,
): Extract<InClusterStep, {kind: 'delete'}>[] {
  const flavor = desired.find((o) => o.kind === 'ResourceFlavor')
  const queue = desired.find((o) => o.kind === 'ClusterQueue')
  if (!flavor || !queue) return []
  const live = [...observed.live.values()] as LiveObject[]
  const namedByOtherQueues = new Set(
    live
      .filter((o) => o.kind === 'ClusterQueue' && o.metadata?.name !== queue.metadata.name)
      .flatMap((q) => (q.spec?.resourceGroups ?? []).flatMap((g) => (g.flavors ?? []).map((f) => f.name))),
  )
  return live
    .filter(
      (o) =>
        o.kind === 'ResourceFlavor' &&
        o.metadata?.name !== flavor.metadata.name &&
        SIZED_FLAVOR.test(o.metadata?.name ?? '') &&
        (o.metadata?.managedFields ?? []).some((f) => f.manager === 'xpk') &&
        !namedByOtherQueues.has(o.metadata?.name ?? ''),
    )
    .map((o) => ({
      kind: 'delete' as const,
      object: {apiVersion: o.apiVersion ?? flavor.apiVersion, kind: 'ResourceFlavor', name: o.metadata!.name!},
      quota: true as const,
      reason: `delete ResourceFlavor ${o.metadata!.name}: left by an earlier size of the cluster`,
    }))
}

interface LiveObject {
  readonly apiVersion?: string
  readonly kind?: string
  readonly metadata?: {readonly name?: string; readonly managedFields?: readonly {readonly manager?: string}[]}
  readonly spec?: {readonly resourceGroups?: readonly {readonly flavors?: readonly {readonly name: string}[]}[]}
}

function describeChange(object: InClusterObject, change: 'create' | 'update' | 'none', live: unknown): string {
  const what = `${object.kind} ${object.metadata.name}`
  if (change === 'create') return `create ${what}`
  if (change === 'none') return `unchanged: ${what}`
  if (object.kind === 'ClusterQueue') {
    const before = quotaOf(live)
    const after = quotaOf(object)
    if (before !== undefined && after !== undefined && before !== after)
      return `update ${what}: quota ${before} -> ${after}`
  }
  return `update ${what}`
}

/** The first flavor's first quota of a ClusterQueue, as text (`16`, `32`), for the plan line. */
function quotaOf(queue: unknown): string | undefined {
  const groups = (queue as {spec?: {resourceGroups?: {flavors?: {resources?: {nominalQuota?: unknown}[]}[]}[]}})?.spec
    ?.resourceGroups
  const quota = groups?.[0]?.flavors?.[0]?.resources?.[0]?.nominalQuota
  return quota === undefined ? undefined : String(quota)
}

/**
 * The release's controller Deployment with the cluster's sizing merged into its container: applied whole, under
 * xpk's field manager, so a later resize (applied the same way) never drops a field xpk set before.
 */
export function sizedController(deployment: KubeObject, sizing: DeploymentPatch): KubeObject {
  const wanted = sizing.body.spec.template.spec.containers
  const spec = deployment.spec as {template?: {spec?: {containers?: {name: string; resources?: object}[]}}}
  const containers = (spec?.template?.spec?.containers ?? []).map((c) => {
    const size = wanted.find((w) => w.name === c.name)
    return size ? {...c, resources: {...c.resources, ...size.resources}} : c
  })
  const replicas = sizing.body.spec.replicas
  return {
    ...deployment,
    spec: {
      ...spec,
      ...(replicas === undefined ? {} : {replicas}),
      template: {...spec?.template, spec: {...spec?.template?.spec, containers}},
    },
  }
}
