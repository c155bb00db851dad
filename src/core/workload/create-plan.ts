/**
 * The plan of `xpk workload create`: the steps a submit takes, each with its reason and the value it sends, made
 * from what was read before anything is built or sent (nothing, for an offline dry run). `--dry-run` shows it,
 * `--dry-run --json` prints it as data, and a submit applies these very steps through the step graph
 * (src/services/workload-create-apply.ts): check the cluster (done while planning: the reads), build or reuse the
 * image, with `--replace` delete the JobSet that was read and wait until it is gone, apply the RBAC objects that are
 * missing or differ, create the JobSet. The storages the JobSet mounts (`--storage` and the auto-mount ones, read
 * with the cluster) are steps of their own, checked while planning, like the cluster.
 */
import {XPK_NAMESPACE} from '../incluster/namespace.js'
import type {InClusterObject} from '../incluster/types.js'
import {workloadRbacObjects} from '../incluster/workload-rbac.js'
import {applyWouldChange} from '../incluster/live-diff.js'
import type {KubeObject} from '../kube/release-manifest.js'
import {buildJobSet} from '../manifests/jobset.js'
import {buildPathwaysJobSet} from '../manifests/pathways-jobset.js'
import {PATHWAYS_CPU_POOL, pathwaysProxyAddress} from './pathways.js'
import type {JobSet, Role, RoleBinding, ServiceAccount} from '../manifests/k8s-types.js'
import {planSummary, renderPlanLines, type PlanLine} from '../render/plan.js'
import type {WorkloadStorage} from '../storage/mounts.js'
import {LOCAL_QUEUE_NAME} from '../versions.js'
import {SUB_SLICE_TOPOLOGY_NAME, SUPER_SLICE_TOPOLOGY_NAME} from '../cluster/slicing.js'
import {vmsNeeded, type CapacityVerdict} from './capacity.js'
import {RBAC_REVISION_ANNOTATION, rbacRevision} from './cluster-setup.js'
import type {WorkloadInput} from './options.js'
import {autoprovisioningNodeSelector, type AutoprovisioningCapacity} from './autoprovisioning.js'

/** The existing JobSet that --replace deletes: the one that was read, and only that one (its uid is the precondition). */
export interface ReplacedJobSet {
  readonly namespace: string
  readonly name: string
  readonly uid: string
  /** Its creationTimestamp, as the API server gave it. */
  readonly created: string | null
}

/** The workloads' ServiceAccount, Role and RoleBindings, as a submit applies them. */
export type RbacObject = ServiceAccount | Role | RoleBinding

/** What happened (or, in a dry run, would happen) to one of the RBAC objects. */
export interface RbacChange {
  readonly kind: string
  readonly name: string
  readonly change: 'create' | 'update' | 'none'
}

/** What was read of the cluster before planning. */
export type ClusterCheck =
  | {
      readonly read: true
      readonly capacity: CapacityVerdict
      /** A Kueue before v0.15 takes the workload through its v1beta1 LocalQueue. */
      readonly olderKueue: boolean
      /** Kueue says the LocalQueue cannot admit anything now (a warning was given). */
      readonly queueInactive: boolean
      /** The capacity node auto-provisioning is asked for; null on a cluster of fixed pools. */
      readonly autoprovisioning: AutoprovisioningCapacity | null
    }
  | {readonly read: false; readonly why: 'offline' | 'no-target'}

/** The image the JobSet runs, as planned. */
export type PlannedImage =
  | {readonly source: 'given'; readonly reference: string}
  /** A headless Pathways workload has no container of the user's, so no image (reference ''). */
  | {readonly source: 'none'; readonly reference: ''}
  | {
      readonly source: 'built'
      /** `repository:tag` until it is pushed (then the JobSet names it by digest), or `repository@digest`. */
      readonly reference: string
      readonly repository: string
      readonly tag: string
      /** exists, would-skip: in the registry; pushed and would-build: built (and pushed); offline: not asked. */
      readonly action: 'pushed' | 'exists' | 'would-build' | 'would-skip' | 'offline'
      readonly baseImage: string
      readonly platform: string
      readonly scriptDir: string
      readonly contextFiles: number
    }

/** The RBAC objects and what is live of each, as read before planning. */
export type RbacState =
  /** `xpk-sa` carries the current revision: everything was applied with it, nothing else was read. */
  | {readonly read: 'in-place'}
  /** Each object with its live copy (undefined: missing). */
  | {readonly read: 'live'; readonly live: readonly (KubeObject | undefined)[]}
  /** Not read (an offline dry run). */
  | {readonly read: 'no'}

/** The storages the JobSet mounts: read with the cluster, or (an offline dry run) only named. */
export type PlannedStorages =
  | {readonly read: true; readonly mounts: readonly WorkloadStorage[]}
  | {readonly read: false; readonly requested: readonly string[]}

/** Everything the plan is made from. */
export interface WorkloadPlanInputs {
  readonly input: WorkloadInput
  readonly cluster: ClusterCheck
  readonly image: PlannedImage
  /** --replace found a JobSet of the name: it is deleted first. */
  readonly replaces: ReplacedJobSet | null
  /** A JobSet of the name exists and --replace was not given (a dry run only: a submit is refused before). */
  readonly nameTaken: boolean
  readonly rbac: RbacState
  /** The GPU networks the pods attach (tcpxo and rdma GPU types), read or assumed; null for others. */
  readonly gpuNetworks: {readonly source: 'cluster' | 'assumed'; readonly names: readonly string[]} | null
  /** How long the wait for a replaced JobSet to go may take. */
  readonly goneTimeoutMs: number
  readonly storages: PlannedStorages
}

/** The cluster, read before the plan was made: nothing is sent for it. */
export interface ClusterCheckStep {
  readonly action: 'check'
  readonly resource: 'cluster'
  readonly name: string
  readonly reason: string
  readonly spec: null
}

/** A storage the JobSet mounts, read before the plan was made (or, offline, named and not read): nothing is sent. */
export interface StorageStep {
  readonly action: 'check'
  readonly resource: 'storage'
  readonly name: string
  readonly reason: string
  readonly spec: null
}

/** The image the JobSet runs: built and pushed, or used as it is. */
export interface ImageStep {
  readonly action: 'build' | 'none'
  readonly resource: 'image'
  readonly name: string
  readonly reason: string
  /** The reference the JobSet runs (by digest once a built image is pushed). */
  readonly spec: {readonly reference: string}
}

/** --replace: the JobSet that was read, deleted with its uid as the precondition. */
export interface ReplaceStep {
  readonly action: 'delete'
  readonly resource: 'jobSet'
  readonly name: string
  readonly reason: string
  readonly spec: ReplacedJobSet
}

/** --replace: the wait until the deleted JobSet and its Jobs are gone (a new Job of the name would collide). */
export interface AwaitGoneStep {
  readonly action: 'wait'
  readonly resource: 'jobSet'
  readonly name: string
  readonly reason: string
  readonly spec: {readonly timeoutSeconds: number}
}

/** One of the workloads' RBAC objects; `apply` when it was not read (an offline dry run). */
export interface RbacStep {
  readonly action: 'create' | 'update' | 'none' | 'apply'
  readonly resource: 'serviceAccount' | 'role' | 'roleBinding'
  readonly name: string
  readonly reason: string
  /** The object as applied (server-side apply, field manager xpk, forced); null when nothing is sent. */
  readonly spec: RbacObject | null
}

/** The JobSet, created (never applied over one of its name). */
export interface JobSetStep {
  readonly action: 'create'
  readonly resource: 'jobSet'
  readonly name: string
  readonly reason: string
  /** The JobSet as sent (the image by digest once a built image is pushed). */
  readonly spec: JobSet
}

export type WorkloadPlanStep =
  ClusterCheckStep | StorageStep | ImageStep | ReplaceStep | AwaitGoneStep | RbacStep | JobSetStep

export interface WorkloadCreatePlan {
  readonly workload: string
  readonly cluster: string
  readonly steps: readonly WorkloadPlanStep[]
}

/** The RBAC objects as applied: the ServiceAccount carries the revision of the set (see `rbacRevision`). */
export function desiredRbac(): RbacObject[] {
  const objects = workloadRbacObjects()
  const revision = rbacRevision(objects)
  const [serviceAccount, ...rest] = objects
  return [
    {
      ...serviceAccount,
      metadata: {
        ...serviceAccount.metadata,
        annotations: {...serviceAccount.metadata.annotations, [RBAC_REVISION_ANNOTATION]: revision},
      },
    },
    ...rest,
  ]
}

/** Whether the live ServiceAccount is as this xpk applies it: then the Role and RoleBindings need not be read. */
export function rbacInPlace(liveServiceAccount: KubeObject | undefined): boolean {
  return liveServiceAccount !== undefined && !applyWouldChange(desiredRbac()[0] as InClusterObject, liveServiceAccount)
}

/** The JobSet --replace would delete, as the plan and the result name it. */
export function replacedJobSet(existing: KubeObject): ReplacedJobSet {
  const created = existing.metadata.creationTimestamp
  return {
    namespace: XPK_NAMESPACE,
    name: existing.metadata.name,
    uid: String(existing.metadata.uid ?? ''),
    created: typeof created === 'string' ? created : null,
  }
}

/** The JobSet the workload submits, running `image`. */
export function workloadJobSet(
  inputs: Pick<WorkloadPlanInputs, 'input' | 'gpuNetworks' | 'storages' | 'cluster'>,
  image: string,
): JobSet {
  const {input, gpuNetworks, storages, cluster} = inputs
  const capacity = nodeAutoprovisioningCapacity(inputs)
  const verdict = cluster.read ? cluster.capacity : undefined
  const slicing = verdict !== undefined && 'slicing' in verdict ? verdict.slicing : undefined
  if (input.pathways !== undefined) {
    return buildPathwaysJobSet(
      {...input, image},
      input.pathways,
      capacity ? {extraNodeSelector: autoprovisioningNodeSelector(capacity)} : {},
    )
  }
  return buildJobSet(
    {...input, image},
    {
      ...(capacity ? {extraNodeSelector: autoprovisioningNodeSelector(capacity)} : {}),
      ...(slicing ? {slicing} : {}),
      ...(gpuNetworks ? {gpuNetworks: [...gpuNetworks.names]} : {}),
      ...(storages.read && storages.mounts.length > 0 ? {storages: storages.mounts} : {}),
    },
  )
}

/**
 * The capacity the pods ask node auto-provisioning for: as the cluster read decided it, or, when the cluster was not
 * read (an offline dry run), the flag's as given.
 */
function nodeAutoprovisioningCapacity(
  inputs: Pick<WorkloadPlanInputs, 'input' | 'cluster'>,
): {readonly capacity: AutoprovisioningCapacity['capacity']; readonly reservation: string | null} | null {
  return inputs.cluster.read ? inputs.cluster.autoprovisioning : inputs.input.capacity
}

/** "2 slices" or "3 VMs": a workload's size as its flags give it. */
export function describeScale(kind: string, slices: number, nodes: number): string {
  if (kind === 'GPU') return `${nodes} VM${nodes === 1 ? '' : 's'}`
  return `${slices} slice${slices === 1 ? '' : 's'}`
}

/**
 * Plans a submit from what was read: one step per thing a submit checks or sends, in the order they are applied.
 * @throws UsageError when the JobSet cannot be built from the input (a scheduler the accelerator cannot use)
 */
export function planWorkloadCreate(inputs: WorkloadPlanInputs): WorkloadCreatePlan {
  const {input} = inputs
  const jobSetName = `${XPK_NAMESPACE}/${input.name}`
  const steps: WorkloadPlanStep[] = [clusterStep(inputs), ...storageSteps(inputs.storages), imageStep(inputs)]
  if (inputs.replaces !== null) {
    const r = inputs.replaces
    steps.push(
      {
        action: 'delete',
        resource: 'jobSet',
        name: jobSetName,
        reason:
          `--replace: the workload of this name (${r.created === null ? '' : `created ${r.created}, `}uid ${r.uid}), ` +
          'stopping its pods; only that one (its uid is the precondition)',
        spec: r,
      },
      {
        action: 'wait',
        resource: 'jobSet',
        name: jobSetName,
        reason: `until it and its Jobs are gone (at most ${Math.round(inputs.goneTimeoutMs / 1000)} s, XPK_WORKLOAD_DELETE_TIMEOUT_S)`,
        spec: {timeoutSeconds: Math.round(inputs.goneTimeoutMs / 1000)},
      },
    )
  }
  steps.push(...rbacSteps(inputs.rbac))
  const image = inputs.image
  const pushedLater = image.source === 'built' && image.action !== 'exists' && image.action !== 'would-skip'
  steps.push({
    action: 'create',
    resource: 'jobSet',
    name: jobSetName,
    reason:
      `${describeScale(input.accelerator.kind, input.numSlices, input.numNodes)} of ${input.accelerator.name} ` +
      `(${vmsNeeded(input)} VMs), priority ${input.priority}, queue ${LOCAL_QUEUE_NAME}` +
      (pushedLater ? ', its image by digest once pushed' : '') +
      mountsText(inputs.storages) +
      (input.pathways === undefined
        ? ''
        : `; the Pathways head on node pool ${PATHWAYS_CPU_POOL}, its proxy at ${pathwaysProxyAddress(input.name)}` +
          (input.pathways.headless ? ' (headless)' : '')) +
      (inputs.nameTaken ? '; the name is taken, so a submit would be refused (--replace replaces it)' : ''),
    spec: workloadJobSet(inputs, image.reference),
  })
  return {workload: input.name, cluster: input.cluster, steps}
}

function clusterStep(inputs: WorkloadPlanInputs): ClusterCheckStep {
  const {cluster, input} = inputs
  const base = {action: 'check', resource: 'cluster', name: input.cluster, spec: null} as const
  if (!cluster.read) {
    const why = cluster.why === 'offline' ? '--offline' : 'no project and zone, or kubeconfig, to find it'
    const capacity = input.capacity
      ? `; ${input.capacity.flag} taken as asked of node auto-provisioning (not checked)`
      : ''
    return {
      ...base,
      reason: `not read (${why}): whether it can run the workload and is set up for it is not checked${capacity}`,
    }
  }
  const capacity = describeCapacity(cluster.capacity) + describeNapCapacity(cluster.autoprovisioning)
  const queue = cluster.olderKueue
    ? `LocalQueue ${LOCAL_QUEUE_NAME} (an older Kueue: v1beta1)`
    : `LocalQueue ${LOCAL_QUEUE_NAME}${cluster.queueInactive ? ' (inactive)' : ''}`
  return {...base, reason: `${capacity}; set up: JobSet served, ${queue}, PriorityClass ${input.priority}`}
}

function storageSteps(storages: PlannedStorages): StorageStep[] {
  const step = (name: string, reason: string): StorageStep => ({
    action: 'check',
    resource: 'storage',
    name,
    reason,
    spec: null,
  })
  if (!storages.read) {
    return storages.requested.map((name) => step(name, 'not read (--offline): not mounted in the JobSet shown'))
  }
  return storages.mounts.map((s) =>
    step(
      s.name,
      `${s.type}, claim ${s.pvc} mounted at ${s.mountPoint}${s.readonly ? ' read-only' : ''} ` +
        `(${s.by === '--storage' ? 'named by --storage' : 'auto-mount'})`,
    ),
  )
}

/** `, mounting datasets and home` on the JobSet's step. */
function mountsText(storages: PlannedStorages): string {
  if (!storages.read || storages.mounts.length === 0) return ''
  const names = storages.mounts.map((s) => s.name)
  return `, mounting ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`}`
}

function describeCapacity(verdict: CapacityVerdict): string {
  if (verdict.kind === 'fits') {
    return `room for it: ${verdict.vmsNeeded} of the cluster's ${verdict.vmsAvailable} VMs of ${verdict.deviceType}`
  }
  if (verdict.kind === 'fits-autoprovisioning') {
    const limit = verdict.maximumChips === null ? 'no chip limit' : `at most ${verdict.maximumChips} chips`
    return `nodes provisioned on demand: ${verdict.chipsNeeded} chips (${limit})`
  }
  if (verdict.kind === 'fits-sub-slicing') {
    const {sliceTopology, clusterTopology} = verdict.slicing
    return (
      `sub-slicing: ${verdict.vmsNeeded} of the cluster's ${verdict.vmsAvailable} VMs of ${verdict.deviceType}, ` +
      `as ${sliceTopology} sub-slices of its ${clusterTopology} slices, placed by Kueue (${SUB_SLICE_TOPOLOGY_NAME})`
    )
  }
  if (verdict.kind === 'fits-super-slicing') {
    return (
      `super-slicing: ${verdict.cubesNeeded} of the cluster's ${verdict.cubesAvailable} cubes of 4x4x4 ` +
      `(${verdict.vmsNeeded} of ${verdict.vmsAvailable} VMs of ${verdict.deviceType}), joined into ${verdict.slicing.topology} ` +
      `by GKE's slice controller (${SUPER_SLICE_TOPOLOGY_NAME})`
    )
  }
  return 'capacity not known'
}

/** `, on spot capacity (--spot)` for the cluster step of a workload on node auto-provisioning. */
function describeNapCapacity(capacity: AutoprovisioningCapacity | null): string {
  if (capacity === null) return ''
  const what =
    capacity.capacity === 'reservation' ? `reservation ${capacity.reservation}` : `${capacity.capacity} capacity`
  const from = capacity.from === 'cluster' ? "the cluster's own, from its metadata ConfigMap" : capacity.from
  return `, on ${what} (${from})`
}

function imageStep(inputs: WorkloadPlanInputs): ImageStep {
  const image = inputs.image
  if (image.source === 'none') {
    return {
      action: 'none',
      resource: 'image',
      name: 'none',
      reason: 'none needed: a headless Pathways workload runs no container of yours (--headless)',
      spec: {reference: ''},
    }
  }
  if (image.source === 'given') {
    return {
      action: 'none',
      resource: 'image',
      name: imageName(image.reference),
      reason: `${image.reference}, as given (--docker-image)`,
      spec: {reference: image.reference},
    }
  }
  const from = `${image.scriptDir} (${image.contextFiles} file${image.contextFiles === 1 ? '' : 's'}) onto ${image.baseImage} for ${image.platform}`
  const tagged = `${image.repository}:${image.tag}`
  const base = {resource: 'image', name: imageName(image.repository), spec: {reference: image.reference}} as const
  switch (image.action) {
    case 'exists':
    case 'would-skip':
      return {...base, action: 'none', reason: `${image.reference}: the registry has ${tagged}, built from ${from}`}
    case 'offline':
      return {
        ...base,
        action: 'build',
        reason: `${tagged} from ${from}, unless the registry has it (not asked: --offline)`,
      }
    case 'would-build':
    case 'pushed':
      return {...base, action: 'build', reason: `${tagged} from ${from}, pushed`}
  }
}

/** The last part of an image reference's path, without its tag or digest: `trainer` of `us-docker.pkg.dev/p/r/trainer:v3`. */
function imageName(reference: string): string {
  const path = reference.split('@')[0]!
  const last = path.slice(path.lastIndexOf('/') + 1)
  const colon = last.indexOf(':')
  return colon < 0 ? last : last.slice(0, colon)
}

const RBAC_RESOURCE = {ServiceAccount: 'serviceAccount', Role: 'role', RoleBinding: 'roleBinding'} as const

function rbacSteps(state: RbacState): RbacStep[] {
  const desired = desiredRbac()
  const revision = String(desired[0]!.metadata.annotations?.[RBAC_REVISION_ANNOTATION])
  // The ServiceAccount last: its revision says the others are in place.
  const order = [...desired.slice(1), desired[0]!]
  return order.map((object): RbacStep => {
    const base = {resource: RBAC_RESOURCE[object.kind], name: object.metadata.name}
    const isAccount = object.kind === 'ServiceAccount'
    if (state.read === 'in-place') {
      return {
        ...base,
        action: 'none',
        reason: isAccount
          ? `in place, with the RBAC revision ${revision}`
          : `applied with xpk-sa's revision ${revision} (not read again)`,
        spec: null,
      }
    }
    if (state.read === 'no') {
      return {
        ...base,
        action: 'apply',
        reason: 'not read (--offline): applied where missing or different',
        spec: object,
      }
    }
    const live = state.live[desired.indexOf(object)]
    if (live === undefined) return {...base, action: 'create', reason: createReason(object, revision), spec: object}
    if (applyWouldChange(object as InClusterObject, live)) {
      return {...base, action: 'update', reason: 'differs from what xpk applies (its fields taken over)', spec: object}
    }
    return {...base, action: 'none', reason: 'as xpk applies it', spec: null}
  })
}

function createReason(object: RbacObject, revision: string): string {
  if (object.kind === 'ServiceAccount') return `the workloads' service account, with the RBAC revision ${revision}`
  if (object.kind === 'Role') return "lets the workloads' pods read pods, services and Jobs"
  return `binds ${object.subjects?.[0]?.name ?? 'the account'} to the Role`
}

/** The RBAC objects' changes, as the result names them (what the apply sends, or a dry run would). */
export function rbacChanges(plan: WorkloadCreatePlan): RbacChange[] {
  const steps = plan.steps.filter((s): s is RbacStep => s.resource in RBAC_KIND)
  // The ServiceAccount first, as the objects are listed (it is applied last).
  return [
    ...steps.filter((s) => s.resource === 'serviceAccount'),
    ...steps.filter((s) => s.resource !== 'serviceAccount'),
  ].flatMap((s) => (s.action === 'apply' ? [] : [{kind: RBAC_KIND[s.resource], name: s.name, change: s.action}]))
}

const RBAC_KIND = {serviceAccount: 'ServiceAccount', role: 'Role', roleBinding: 'RoleBinding'} as const

const RESOURCE_WORD: Record<WorkloadPlanStep['resource'], string> = {
  cluster: 'cluster',
  storage: 'storage',
  image: 'image',
  jobSet: 'jobset',
  serviceAccount: 'serviceaccount',
  role: 'role',
  roleBinding: 'rolebinding',
}

/**
 * The plan as text: one line per step, then the summary. Given `yaml` (--verbose), the RBAC objects sent follow
 * their lines as YAML. The JobSet itself is printed after the plan by the dry run (see the service).
 */
export function renderWorkloadPlan(plan: WorkloadCreatePlan, yaml?: (value: unknown) => string): string {
  const lines: PlanLine[] = plan.steps.map((step) => ({
    action: step.action,
    resource: RESOURCE_WORD[step.resource],
    name: step.name,
    detail: step.reason,
    ...(yaml && step.resource in RBAC_KIND && step.spec !== null ? {more: yaml(step.spec).trimEnd().split('\n')} : {}),
  }))
  return renderPlanLines(`Plan for workload ${plan.workload} on cluster ${plan.cluster}:`, lines, [
    planSummary(
      plan.steps.map((s) => s.action),
      'No changes.',
    ),
  ])
}
