/**
 * `cluster create-ray`'s RayCluster inside the cluster: what is live (read when the plan is made), and the one step
 * that applies it after the node pools. The step waits for the RayCluster kind to be served (GKE's Ray operator
 * addon installs KubeRay's CRD), reads one node of the head's pool and one TPU node for their allocatable CPU and
 * memory, as Python xpk does, and applies the `ray` Namespace and the RayCluster by server-side apply.
 */
import {XpkError} from '../core/errors.js'
import {KIND_TRAITS} from '../core/catalog/types.js'
import {NODE_POOL_LABEL} from '../core/incluster/describe.js'
import {
  RAY_API_VERSION,
  RAY_CLUSTER_CRD_NAME,
  RAY_CLUSTER_NAME,
  RAY_NAMESPACE,
  rayClusterObjects,
  type Allocatable,
} from '../core/incluster/ray-cluster.js'
import type {ObservedRay, RayPlan, RayTarget} from '../core/incluster/ray-plan.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import type {GraphStep, StepContext} from '../executor/step-graph.js'
import type {KubeClient, KubeObject} from '../ports/kube.js'
import {pollWithin, stepRetry, type InClusterApplyOptions, type InClusterDeps} from './in-cluster.js'

const RAY_CLUSTER_REF = {
  apiVersion: RAY_API_VERSION,
  kind: 'RayCluster',
  namespace: RAY_NAMESPACE,
  name: RAY_CLUSTER_NAME,
} as const

/** The live RayCluster and the nodes it would be sized from: three reads at once. */
export async function readRay(kube: KubeClient, target: RayTarget, retry: RetryOptions): Promise<ObservedRay> {
  const [lookup, nodes] = await Promise.all([
    withRetries(() => kube.lookup(RAY_CLUSTER_REF), retry),
    readNodes(kube, target, retry),
  ])
  return {
    served: lookup.state !== 'not-served',
    ...(lookup.state === 'found' ? {live: lookup.object} : {}),
    ...nodes,
  }
}

/** One node of the head's pool and one TPU node of the type (Python xpk's labels), with their allocatable. */
async function readNodes(
  kube: KubeClient,
  target: RayTarget,
  retry: RetryOptions,
): Promise<{headNode?: Allocatable; workerNode?: Allocatable}> {
  const first = async (labelSelector: string) => {
    const page = await withRetries(() => kube.list('v1', 'Node', {labelSelector, limit: 1}), retry)
    return allocatableOf(page.items[0])
  }
  const [headNode, workerNode] = await Promise.all([
    first(`${NODE_POOL_LABEL}=${target.headPool}`),
    first(`${KIND_TRAITS.TPU.acceleratorLabel}=${target.accelerator.gkeAccelerator}`),
  ])
  return {...(headNode ? {headNode} : {}), ...(workerNode ? {workerNode} : {})}
}

function allocatableOf(node: KubeObject | undefined): Allocatable | undefined {
  const allocatable = (node as {status?: {allocatable?: {cpu?: unknown; memory?: unknown}}} | undefined)?.status
    ?.allocatable
  const {cpu, memory} = allocatable ?? {}
  return typeof cpu === 'string' && typeof memory === 'string' ? {cpu, memory} : undefined
}

/**
 * The step that applies the RayCluster, or none when the plan leaves it as it is. `after` are the node-pool steps it
 * follows (their nodes size it); it connects to the API server itself, so it runs whether or not other in-cluster
 * steps do.
 */
export function rayClusterStep(
  plan: RayPlan,
  deps: InClusterDeps,
  options: Pick<InClusterApplyOptions, 'availableTimeoutMs' | 'poll'>,
  after: readonly string[],
): GraphStep[] {
  if (plan.change === 'none') return []
  const line = `RayCluster/${RAY_CLUSTER_NAME}`
  return [
    {
      id: 'ray:raycluster',
      line,
      name: line,
      resource: 'RayCluster',
      action: plan.change,
      announce: true,
      after,
      run: (ctx) => applyRayCluster(plan.target, deps, options, ctx),
    },
  ]
}

async function applyRayCluster(
  target: RayTarget,
  deps: InClusterDeps,
  options: Pick<InClusterApplyOptions, 'availableTimeoutMs' | 'poll'>,
  ctx: StepContext,
): Promise<void> {
  const kube = await deps.kube()
  const retry = stepRetry(deps, ctx)
  ctx.progress('waiting', `for ${RAY_CLUSTER_CRD_NAME} to be served`)
  const seconds = Math.round(options.availableTimeoutMs / 1000)
  await pollWithin(
    async () => (await kube.lookup(RAY_CLUSTER_REF)).state !== 'not-served',
    options.availableTimeoutMs,
    () =>
      new XpkError('timeout', `The cluster did not serve ${RAY_CLUSTER_CRD_NAME} within ${seconds} s.`, {
        hints: [
          "GKE's Ray operator addon installs it: check that the cluster has it (`gcloud container clusters describe CLUSTER --format='value(addonsConfig.rayOperatorConfig)'`), then re-run.",
        ],
      }),
    deps,
    {...options, manifestOverrides: {}},
    ctx,
  )
  ctx.progress('reading the nodes')
  const nodes = await readNodes(kube, target, retry)
  if (!nodes.headNode || !nodes.workerNode) {
    const missing = !nodes.headNode
      ? `no node in node pool ${target.headPool}`
      : `no ${target.accelerator.name} node (${KIND_TRAITS.TPU.acceleratorLabel}=${target.accelerator.gkeAccelerator})`
    throw new XpkError(
      'failed',
      `The RayCluster is sized from the nodes' allocatable CPU and memory, and there is ${missing}.`,
      {
        hints: [
          'Re-run the same command once the node pools have nodes (flex-start pools have none until work arrives).',
        ],
      },
    )
  }
  ctx.progress('applying')
  for (const object of rayClusterObjects({...target, headNode: nodes.headNode, workerNode: nodes.workerNode})) {
    await withRetries(() => kube.apply(object as unknown as KubeObject, {force: true}), retry)
  }
}
