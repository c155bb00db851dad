import {lockStepDetail, type LockView} from './lock.js'
import {
  SCOPES,
  type AutoprovisioningSpec,
  type ClusterSpec,
  type ClusterUpdate,
  type NodePoolSpec,
  type NodePoolUpdate,
  type WorkloadPolicySpec,
} from './spec.js'
import {planSummary, renderPlanLines, type PlanLine} from '../render/plan.js'
import {nicNetworksText} from './gpu-networks.js'
import {isGpuNetworkStep, type Plan, type PlanAction, type PlanStep} from './plan.js'
import type {FirewallSpec, NetworkSpec, SubnetworkSpec} from './vpc.js'

const RESOURCE_WORD: Record<PlanStep['resource'], string> = {
  cluster: 'cluster',
  clusterUpdate: 'cluster',
  placementPolicy: 'policy',
  nodePool: 'nodepool',
  nodePoolUpdate: 'nodepool',
  network: 'network',
  subnetwork: 'subnet',
  firewall: 'firewall',
}

/** One line describing a desired node pool, e.g. "ct5p-hightpu-4t x2, compact 2x2x2, spot". */
export function describeNodePool(spec: NodePoolSpec): string {
  const parts = [`${spec.machineType} x${spec.nodeCount}`]
  if (spec.gpu) parts.push(`${spec.gpu.count}x ${spec.gpu.type}`)
  if (spec.additionalNodeNetworks?.length) {
    parts.push(`NICs on ${nicNetworksText(spec.additionalNodeNetworks.map((n) => n.network))}`)
  }
  if (spec.placementPolicy?.type === 'compact') parts.push(`compact ${spec.placementPolicy.tpuTopology}`)
  if (spec.placementPolicy?.type === 'workload-policy') parts.push(`policy ${spec.placementPolicy.name}`)
  parts.push(spec.capacity === 'reservation' ? `reservation ${spec.reservation}` : spec.capacity)
  if (spec.flexMaxNodes !== null) parts.push(`scales 0-${spec.flexMaxNodes}`)
  if (spec.autoscaling) parts.push(`scales ${spec.autoscaling.minNodes}-${spec.autoscaling.maxNodes}`)
  return parts.join(', ')
}

/** A GPU network, subnetwork or firewall rule to create, in one line. */
function describeVpcResource(spec: NetworkSpec | SubnetworkSpec | FirewallSpec): string {
  if ('mtu' in spec) {
    return `custom subnets, MTU ${spec.mtu}${spec.networkProfile ? `, network profile ${spec.networkProfile}` : ''}`
  }
  if ('ipCidrRange' in spec) return `${spec.ipCidrRange} on network ${spec.network}, region ${spec.region}`
  const rules = spec.allowed.map((a) => `${a.protocol}${a.ports.length > 0 ? `:${a.ports.join(',')}` : ''}`)
  return `allow ${rules.join(',')} from ${spec.sourceRanges.join(',')} on network ${spec.network}`
}

/** OAuth scopes as gcloud's `--scopes` spells them: `storage-full,gke-default` rather than eight URLs. */
export function scopeNames(scopes: readonly string[]): string {
  const gkeDefault: readonly string[] = SCOPES.gkeDefault
  const hasGkeDefault = gkeDefault.every((scope) => scopes.includes(scope))
  const names: string[] = []
  for (const scope of scopes) {
    if (hasGkeDefault && gkeDefault.includes(scope)) {
      if (!names.includes('gke-default')) names.push('gke-default')
    } else if (scope === SCOPES.storageFull) names.push('storage-full')
    else names.push(scope.replace(/^https:\/\/www\.googleapis\.com\/auth\//, ''))
  }
  return names.length === 0 ? 'none' : names.join(',')
}

/** What a cluster update changes, e.g. "addons GcsFuseCsiDriver, LustreCsiDriver (legacy port 6988)". */
export function describeClusterUpdate(update: ClusterUpdate): string {
  if (update.kind === 'workloadIdentity') return `workload identity (pool ${update.workloadPool})`
  if (update.kind === 'autoprovisioning') return describeAutoprovisioning(update.autoprovisioning)
  if (update.kind === 'rayOperator') return 'addon RayOperator'
  return `addons ${update.enable.join(', ')}${update.lustreLegacyPort ? ' (Lustre on its legacy port 6988)' : ''}`
}

/** Node auto-provisioning in a plan line: "node auto-provisioning of tpu7x 0-4 chips in us-central1-a". */
export function describeAutoprovisioning(spec: AutoprovisioningSpec): string {
  const chips = spec.resourceLimits.filter((l) => l.resourceType !== 'cpu' && l.resourceType !== 'memory')
  const limits = chips.map((l) => `${l.resourceType} ${l.minimum}-${l.maximum} chips`).join(', ')
  return `node auto-provisioning of ${limits} in ${spec.locations.join(',')}`
}

/** What a new cluster is created with beyond its shape: Workload Identity and CSI drivers, in the create request. */
function createdWith(s: ClusterSpec): string {
  const extras = [
    ...(s.workloadPool ? [`workload identity (pool ${s.workloadPool})`] : []),
    ...(s.autoprovisioning ? [describeAutoprovisioning(s.autoprovisioning)] : []),
    ...(s.csiDrivers.length > 0
      ? [describeClusterUpdate({kind: 'addons', enable: s.csiDrivers, lustreLegacyPort: s.lustreLegacyPort})]
      : []),
    ...(s.sliceController ? ["GKE's slice controller (super-slicing)"] : []),
    ...(s.rayOperator ? [describeClusterUpdate({kind: 'rayOperator'})] : []),
  ]
  return extras.length > 0 ? `, ${extras.join(', ')} in the create request` : ''
}

function stepDetail(step: PlanStep): string {
  if (step.resource === 'cluster') {
    if (step.action !== 'create' || !step.spec) return step.reason
    const s = step.spec
    const version = s.version ?? `${s.releaseChannel.toLowerCase()} channel default`
    const pool = `default pool ${s.defaultPool.machineType} x${s.defaultPool.nodeCount} (scopes ${scopeNames(s.defaultPool.oauthScopes)})`
    return `${step.reason}: regional in ${s.region}, nodes in ${s.zone}, ${version}, ${pool}${s.private ? ', private nodes' : ''}${createdWith(s)}`
  }
  if (step.resource === 'clusterUpdate') return `${describeClusterUpdate(step.spec)}: ${step.reason}`
  if (step.resource === 'nodePoolUpdate') return `workload metadata ${step.spec.workloadMetadataMode}: ${step.reason}`
  if (step.resource === 'placementPolicy') {
    if (!step.spec) return step.reason
    const mode = step.spec.acceleratorTopologyMode === 'PROVISION_ONLY' ? ' (provision only: super-slicing)' : ''
    return `${step.reason}: workload policy, high throughput, topology ${step.spec.acceleratorTopology}${mode}, region ${step.spec.region}`
  }
  if (isGpuNetworkStep(step)) return step.spec ? `${step.reason}: ${describeVpcResource(step.spec)}` : step.reason
  if (step.spec && (step.action === 'create' || step.action === 'recreate')) {
    return `${step.reason}: ${describeNodePool(step.spec)}`
  }
  return step.reason
}

/**
 * Renders a plan for people: one line per step, the cluster lock's line when given, then a summary. Pure; used by
 * --dry-run and before prompts.
 */
export function renderPlan(plan: Plan, lock?: {readonly view: LockView; readonly staleSeconds: number}): string {
  const lines: PlanLine[] = plan.steps.map((step) => ({
    action: step.action,
    resource: RESOURCE_WORD[step.resource],
    name: step.name,
    detail: stepDetail(step),
  }))
  if (lock) {
    lines.push({
      action: 'lock',
      resource: RESOURCE_WORD.cluster,
      name: plan.cluster,
      detail: lockStepDetail(lock.view, lock.staleSeconds),
    })
  }
  return renderPlanLines(`Plan for cluster ${plan.cluster} (project ${plan.project}, ${plan.location}):`, lines, [
    planSummary(
      plan.steps.map((s) => s.action),
      'No changes: the cluster already matches.',
    ),
    ...plan.warnings.map((warning) => `Warning: ${warning}`),
  ])
}

/** A plan as `--json` prints it. */
export interface PlanJson {
  readonly project: string
  readonly location: string
  readonly cluster: string
  readonly warnings: readonly string[]
  readonly steps: readonly {
    readonly action: PlanAction
    readonly resource: PlanStep['resource']
    readonly name: string
    readonly reason: string
    readonly spec:
      | ClusterSpec
      | ClusterUpdate
      | NodePoolUpdate
      | WorkloadPolicySpec
      | NodePoolSpecJson
      | NetworkSpec
      | SubnetworkSpec
      | FirewallSpec
      | null
  }[]
}

/** A node pool's spec as `--json` prints it: its placement as a string (`COMPACT` or the policy's name). */
export type NodePoolSpecJson = Omit<NodePoolSpec, 'placementPolicy'> & {readonly placementPolicy: string | null}

/** The plan as data for `--json`: {steps:[{action, resource, name, reason, spec}]}, placement as a string. */
export function planToJson(plan: Plan): PlanJson {
  return {
    project: plan.project,
    location: plan.location,
    cluster: plan.cluster,
    warnings: plan.warnings,
    steps: plan.steps.map((step) => ({
      action: step.action,
      resource: step.resource,
      name: step.name,
      reason: step.reason,
      spec:
        step.spec === null ? null : step.resource === 'nodePool' ? nodePoolJson(step.spec as NodePoolSpec) : step.spec,
    })),
  }
}

function nodePoolJson(spec: NodePoolSpec): NodePoolSpecJson {
  const placement = spec.placementPolicy
  return {
    ...spec,
    placementPolicy: placement === null ? null : placement.type === 'compact' ? 'COMPACT' : placement.name,
  }
}
