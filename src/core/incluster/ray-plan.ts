/**
 * The RayCluster step of `cluster create-ray`'s plan. The RayCluster's sizes come from live nodes' allocatable CPU
 * and memory (as Python xpk reads them), so they are known at plan time only for a running cluster whose node pools
 * the plan leaves alone; otherwise the plan says they are decided when the step runs, after the node pools. A live
 * RayCluster equal to the one xpk would apply is left alone (a re-run sends nothing); any other is applied by
 * server-side apply, so another --ray-version or slice count updates it in place.
 */
import type {Accelerator} from '../catalog/types.js'
import type {DesiredCluster} from '../cluster/desired.js'
import {ownPoolIndex, type NodePoolStep, type Plan} from '../cluster/plan.js'
import {liveDifferences} from './live-diff.js'
import {RAY_CLUSTER_NAME, RAY_NAMESPACE, rayCluster, type Allocatable, type RayObject} from './ray-cluster.js'

/** GKE's CPU pool of every cluster, where the head runs (Python xpk reads its nodes' allocatable by this name). */
export const DEFAULT_POOL = 'default-pool'

/** What the RayCluster is made of, before the nodes' sizes are known. */
export interface RayTarget {
  readonly version: string
  readonly accelerator: Accelerator
  /** The node pools of the slices, in order (`<cluster>-np-0`, ...). */
  readonly slicePools: readonly string[]
  /** The CPU pool the head runs on. */
  readonly headPool: string
}

/** What the cluster holds of Ray, read when the plan is made. */
export interface ObservedRay {
  /** Whether the API server serves the RayCluster kind (GKE's Ray operator addon is on and has installed it). */
  readonly served: boolean
  /** The live RayCluster `ray/raycluster`, when there is one. */
  readonly live?: unknown
  /** One node of the head's pool and one TPU node of the type, when there are such nodes. */
  readonly headNode?: Allocatable
  readonly workerNode?: Allocatable
}

export interface RayPlan {
  readonly target: RayTarget
  readonly change: 'create' | 'update' | 'none'
  /** The RayCluster as it would be applied, when the nodes' sizes are known now; null when decided at apply time. */
  readonly object: RayObject | null
  /** The plan line. */
  readonly reason: string
}

const NAME = `RayCluster ${RAY_NAMESPACE}/${RAY_CLUSTER_NAME}`

/**
 * Plans the RayCluster: `observed` is null when the cluster's inside cannot be read now (offline, a cluster not
 * created or not running yet); `poolsChange` says the plan changes node pools, whose nodes the sizes come from.
 */
export function planRay(target: RayTarget, observed: ObservedRay | null, poolsChange: boolean): RayPlan {
  const what = `Ray ${target.version}, ${groups(target)}`
  const atApply = "head and worker sizes from the nodes' allocatable CPU and memory, read at apply time"
  const live = observed?.served ? observed.live : undefined
  if (live === undefined || live === null) {
    const after = observed?.served ? '' : ", once GKE's Ray operator addon serves rayclusters.ray.io"
    return {target, change: 'create', object: null, reason: `create ${NAME} (${what}; ${atApply}${after})`}
  }
  if (poolsChange || !observed?.headNode || !observed.workerNode) {
    const why = poolsChange ? 'the node pools change' : 'no node to size it from yet'
    return {target, change: 'update', object: null, reason: `apply ${NAME} (${what}; ${atApply}: ${why})`}
  }
  const object = rayCluster({...target, headNode: observed.headNode, workerNode: observed.workerNode})
  const differences = liveDifferences(object, live)
  if (differences.length === 0) return {target, change: 'none', object, reason: `${NAME} (${what}): unchanged`}
  const paths = differences.map((d) => d.path)
  const shown = paths.length > 3 ? [...paths.slice(0, 3), `${paths.length - 3} more`] : paths
  return {target, change: 'update', object, reason: `update ${NAME} (${what}): ${shown.join(', ')} differ`}
}

function groups(target: RayTarget): string {
  const n = target.slicePools.length
  const vms = target.accelerator.vmsPerSlice
  return `${n} worker group${n === 1 ? '' : 's'} of ${vms} VM${vms === 1 ? '' : 's'}`
}

/** The plan's Ray section, after the in-cluster one. */
export function renderRayPlan(plan: RayPlan): string {
  return `Ray:\n  ${plan.change === 'none' ? '=' : '+'} ${plan.reason}`
}

/** What `--json` says of it. */
export function rayPlanToJson(plan: RayPlan) {
  return {version: plan.target.version, change: plan.change, reason: plan.reason, object: plan.object}
}

export type RayPlanJson = ReturnType<typeof rayPlanToJson>

/** The RayCluster's target once `plan` is applied: the cluster's own slice pools then, in index order. */
export function rayTargetAfter(desired: DesiredCluster, plan: Plan): RayTarget | null {
  if (!desired.ray) return null
  const cluster = desired.spec.name
  const pools = plan.steps
    .filter((s): s is NodePoolStep => s.resource === 'nodePool' && s.action !== 'delete' && s.spec !== null)
    .map((s) => ({name: s.name, index: ownPoolIndex(cluster, s.name)}))
    .filter((p): p is {name: string; index: number} => p.index !== undefined)
    .sort((a, b) => a.index - b.index)
  return {
    version: desired.ray.version,
    accelerator: desired.accelerator,
    slicePools: pools.map((p) => p.name),
    headPool: DEFAULT_POOL,
  }
}
