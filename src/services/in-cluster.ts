import {XpkError} from '../core/errors.js'
import {
  decideInstall,
  MANAGED_BY_LABEL,
  type BreakingDeletion,
  type ObservedController,
} from '../core/incluster/install-decision.js'
import {
  objectsToRead,
  objectKey,
  sizedController,
  type InClusterInputs,
  type InClusterPlan,
  type InClusterStep,
  type ObservedInCluster,
} from '../core/incluster/plan.js'
import {
  applyOrder,
  installWaves,
  controllerImage,
  findControllerDeployment,
  RELEASES,
  type KubeObject,
  type ReleaseComponent,
} from '../core/kube/release-manifest.js'
import type {Backoff} from '../core/retry.js'
import type {GraphStep, StepContext} from '../executor/step-graph.js'
import {pollUntil, startTimeLimit, withRetries, type RetryOptions} from '../executor/retry.js'
import type {KubeClient, KubeRef} from '../ports/kube.js'
import type {ReleaseManifest, ReleaseManifestSource} from '../ports/release-manifests.js'

const NODE_PAGE = 500
const LIST_PAGE = 500
/** Deletions a breaking Kueue upgrade sends at once (a cluster may hold thousands of Workloads). */
const DELETE_CONCURRENCY = 16
const CONNECT = 'connect:kubernetes'
const CRD_API = 'apiextensions.k8s.io/v1'

/**
 * Reads what the in-cluster plan compares against: the two controller Deployments, the node count, and the live
 * objects of every kind xpk applies, with one list per kind (and per page), never one read per object. Both
 * controllers come from one list of Deployments in every namespace, so a re-run reads each kind once.
 */
export async function readInCluster(
  kube: KubeClient,
  inputs: InClusterInputs,
  retry: RetryOptions,
): Promise<ObservedInCluster> {
  const call = <T>(read: () => Promise<T>) => withRetries(read, retry)
  const kinds = new Map<string, {apiVersion: string; kind: string; namespace?: string}>()
  for (const o of objectsToRead(inputs)) {
    const namespace = 'namespace' in o.metadata ? (o.metadata.namespace as string) : undefined
    kinds.set(`${o.apiVersion}/${o.kind}/${namespace ?? ''}`, {apiVersion: o.apiVersion, kind: o.kind, namespace})
  }
  const [deployments, nodeCount, lists] = await Promise.all([
    call(() => listAll(kube, 'apps/v1', 'Deployment')),
    countNodes(kube, call),
    Promise.all([...kinds.values()].map((k) => call(() => listAll(kube, k.apiVersion, k.kind, k.namespace)))),
  ])
  const live = new Map<string, unknown>()
  for (const items of lists) for (const item of items) live.set(objectKey(item), item)
  const jobset = observeController(deployments, 'jobset')
  const kueue = observeController(deployments, 'kueue')
  // Only a Kueue old enough to need deleting makes the CRD list worth a request.
  const breaking = decideInstall('kueue', kueue).action === 'breaking-upgrade'
  const kueueCrds = breaking ? await call(() => listKueueCrds(kube)) : []
  return {nodeCount, controllers: {jobset, kueue}, kueueCrds, live}
}

function observeController(
  deployments: readonly KubeObject[],
  component: ReleaseComponent,
): ObservedController & {deployment?: unknown} {
  const {namespace, name} = RELEASES[component].controller
  const deployment = deployments.find((d) => d.metadata.namespace === namespace && d.metadata.name === name)
  if (!deployment) return {installed: false}
  const labels = (deployment.metadata.labels ?? {}) as Record<string, string>
  return {
    installed: true,
    image: controllerImage(deployment) ?? '',
    managedBy: labels[MANAGED_BY_LABEL] || null,
    deployment,
  }
}

async function countNodes(kube: KubeClient, call: <T>(read: () => Promise<T>) => Promise<T>): Promise<number> {
  let count = 0
  let token: string | undefined
  do {
    const page = await call(() => kube.list('v1', 'Node', {limit: NODE_PAGE, continue: token}))
    count += page.items.length
    token = page.continue
  } while (token)
  return count
}

async function listAll(kube: KubeClient, apiVersion: string, kind: string, namespace?: string): Promise<KubeObject[]> {
  const items: KubeObject[] = []
  let token: string | undefined
  do {
    const page = await kube.list(apiVersion, kind, {namespace, limit: LIST_PAGE, continue: token})
    items.push(...page.items)
    token = page.continue
  } while (token)
  return items
}

async function listKueueCrds(kube: KubeClient): Promise<string[]> {
  const crds = await listAll(kube, CRD_API, 'CustomResourceDefinition')
  return crds.map((c) => c.metadata.name).filter((n) => n.endsWith('.kueue.x-k8s.io'))
}

/** What the in-cluster steps run with. */
export interface InClusterDeps {
  /** The cluster's Kubernetes API; connected on first use (after the cluster exists). */
  readonly kube: () => Promise<KubeClient>
  readonly manifests: ReleaseManifestSource
  readonly retry: Omit<RetryOptions, 'onRetry'>
}

export interface InClusterApplyOptions {
  /** `--jobset-manifest` / `--kueue-manifest`: a file or URL replacing the release's manifest. */
  readonly manifestOverrides: Partial<Record<ReleaseComponent, string>>
  /** How long a controller may take to become Available. */
  readonly availableTimeoutMs: number
  readonly poll: Backoff
}

/**
 * The in-cluster plan as executor steps. Steps that change nothing (`unchanged` objects) are left out, so a
 * re-run sends no mutating request. Kueue objects wait for Kueue to be Available (its webhooks validate them);
 * ConfigMaps and PriorityClasses need only the API server.
 */
export function inClusterSteps(plan: InClusterPlan, deps: InClusterDeps, options: InClusterApplyOptions): GraphStep[] {
  const has = new Set(plan.steps.map((s) => stepId(s)))
  const work = plan.steps.filter((s) => s.kind !== 'apply' || s.change !== 'none')
  if (work.length === 0) return []
  // One connection for every step: when the API cannot be reached, that is said once, not once per object.
  const steps: GraphStep[] = [
    {
      id: CONNECT,
      line: 'Kubernetes API',
      resource: 'kubernetes',
      name: 'Kubernetes API',
      action: 'connect',
      run: async (ctx) => {
        ctx.progress('connecting')
        await deps.kube()
      },
    },
  ]
  const reachable = {id: CONNECT, because: "the cluster's Kubernetes API could not be reached"}
  const manifest = prefetchManifests(plan, deps, options)
  for (const s of plan.steps) {
    const id = stepId(s)
    const line =
      s.kind === 'apply'
        ? `${s.object.kind}/${s.object.metadata.name}`
        : s.kind === 'delete'
          ? `${s.object.kind}/${s.object.name}`
          : RELEASES[s.component].title
    const base = {id, line, name: line, announce: true, needs: [reachable]}
    switch (s.kind) {
      case 'install':
        steps.push({
          ...base,
          resource: 'release',
          action: s.decision.action === 'install' ? 'install' : 'upgrade',
          run: (ctx) => install(s, deps, options, ctx, manifest(s.component)),
        })
        break
      case 'resize':
        steps.push({
          ...base,
          resource: 'release',
          action: 'resize',
          run: (ctx) => resize(s, deps, ctx, manifest(s.component)),
        })
        break
      case 'await': {
        const installs = has.has(`install:${s.component}`)
        const before = installs ? `install:${s.component}` : `resize:${s.component}`
        const title = RELEASES[s.component].title
        steps.push({
          ...base,
          resource: 'controller',
          action: 'wait',
          needs: [reachable, {id: before, because: `${title} was not ${installs ? 'installed' : 'resized'}`}],
          run: (ctx) => awaitAvailable(s.component, deps, options, ctx),
        })
        break
      }
      case 'apply': {
        if (s.change === 'none') break
        const kueueReady = has.has('await:kueue') ? [{id: 'await:kueue', because: 'Kueue is not Available'}] : []
        steps.push({
          ...base,
          resource: s.object.kind,
          action: s.change,
          needs: s.needsKueue ? [reachable, ...kueueReady] : [reachable],
          run: async (ctx) => {
            ctx.progress('applying')
            const kube = await deps.kube()
            await withRetries(() => kube.apply(s.object as unknown as KubeObject, {force: true}), retrying(deps, ctx))
          },
        })
        break
      }
      case 'delete': {
        // Kueue holds a flavor while a queue names it: delete only once the ClusterQueue names the new one.
        const queue = plan.steps.find(
          (q) => q.kind === 'apply' && q.object.kind === 'ClusterQueue' && q.change !== 'none',
        )
        steps.push({
          ...base,
          resource: s.object.kind,
          action: 'delete',
          needs: [reachable, ...(queue ? [{id: stepId(queue), because: 'the ClusterQueue still names it'}] : [])],
          run: async (ctx) => {
            ctx.progress('deleting')
            const kube = await deps.kube()
            await withRetries(() => kube.delete(s.object), retrying(deps, ctx))
          },
        })
        break
      }
    }
  }
  return steps
}

/**
 * Starts loading the release manifests the plan installs or resizes with as soon as the steps are made, so reading
 * and parsing them (2.4 MB together) happens while the GKE steps run or the cluster is read, not on the way to the
 * first apply. A load that fails fails the step that needs it, with the source's own message.
 */
function prefetchManifests(
  plan: InClusterPlan,
  deps: InClusterDeps,
  options: InClusterApplyOptions,
): (component: ReleaseComponent) => Promise<ReleaseManifest> {
  const loads = new Map<ReleaseComponent, Promise<ReleaseManifest>>()
  const load = (component: ReleaseComponent) => {
    let loading = loads.get(component)
    if (!loading) {
      // A download the network cut short goes through the retry policy like any other request.
      loading = withRetries(
        () =>
          deps.manifests.load(component, {
            override: options.manifestOverrides[component],
            signal: deps.retry.signal,
          }),
        deps.retry,
      )
      // Awaited by the step; until then a failure must not count as unhandled.
      loading.catch(() => undefined)
      loads.set(component, loading)
    }
    return loading
  }
  for (const s of plan.steps) if (s.kind === 'install' || s.kind === 'resize') void load(s.component)
  return load
}

function stepId(s: InClusterStep): string {
  if (s.kind === 'apply') return `apply:${s.object.kind}/${s.object.metadata.name}`
  if (s.kind === 'delete') return `delete:${s.object.kind}/${s.object.name}`
  return `${s.kind}:${s.component}`
}

function retrying(deps: InClusterDeps, ctx: StepContext): RetryOptions {
  return {
    ...deps.retry,
    signal: ctx.signal,
    onRetry: (error, delay) => ctx.progress('retrying', `${error.status}, again in ${(delay / 1000).toFixed(1)}s`),
  }
}

async function install(
  step: Extract<InClusterStep, {kind: 'install'}>,
  deps: InClusterDeps,
  options: InClusterApplyOptions,
  ctx: StepContext,
  loading: Promise<ReleaseManifest>,
): Promise<void> {
  const {component, decision} = step
  ctx.progress('loading the release manifest')
  const manifest = await loading
  const kube = await deps.kube()
  const retry = retrying(deps, ctx)
  if (decision.action === 'breaking-upgrade') {
    ctx.progress('deleting the old Kueue')
    for (const deletion of decision.deletions) await deleteForUpgrade(kube, deletion, retry)
    // A deleted CRD lingers until its objects' finalizers are done; an apply to it meanwhile would be lost with it.
    ctx.progress('waiting for the old CRDs to go')
    for (const deletion of decision.deletions) {
      if (deletion.kind !== 'crd') continue
      await awaitGone(
        kube,
        {apiVersion: CRD_API, kind: 'CustomResourceDefinition', name: deletion.name},
        deps,
        options,
        ctx,
      )
    }
  }
  const controller = findControllerDeployment(manifest.objects, component)
  const objects = applyOrder(manifest.objects).map((o) => (o === controller ? sizedController(o, step.sizing) : o))
  const waves = installWaves(objects)
  let applied = 0
  const applyAll = (batch: readonly KubeObject[]) =>
    Promise.all(
      batch.map(async (o) => {
        await withRetries(() => kube.apply(o, {force: true}), retry)
        ctx.progress('applying', `${objects.length} objects`, {current: ++applied, total: objects.length})
      }),
    )
  // Two chains side by side, each as short as what it must wait for: the namespaced objects (the controller's
  // Deployment among them) after their Namespace, and the CRDs and cluster-wide RBAC, which wait for nothing. A
  // CRD takes the API server longest (the Kueue Workload CRD is 0.7 MB), and nothing here needs it: the controller
  // does, and the step after this one waits for the controller.
  // The Namespaces are sent first: the API server takes requests in the order they arrive, and the big CRDs would
  // hold the one the controller's chain starts with.
  const namespaced = applyAll(waves.namespaces).then(() => applyAll(waves.namespaced))
  await Promise.all([namespaced, applyAll(waves.clusterWide)])
}

async function resize(
  step: Extract<InClusterStep, {kind: 'resize'}>,
  deps: InClusterDeps,
  ctx: StepContext,
  loading: Promise<ReleaseManifest>,
): Promise<void> {
  ctx.progress('resizing')
  const manifest = await loading
  const controller = findControllerDeployment(manifest.objects, step.component)
  if (!controller) {
    throw new XpkError('failed', `The ${RELEASES[step.component].title} release manifest has no controller Deployment.`)
  }
  const kube = await deps.kube()
  await withRetries(() => kube.apply(sizedController(controller, step.sizing), {force: true}), retrying(deps, ctx))
}

async function deleteForUpgrade(kube: KubeClient, deletion: BreakingDeletion, retry: RetryOptions): Promise<void> {
  if (deletion.kind === 'deployment') {
    await withRetries(
      () =>
        kube.delete({apiVersion: 'apps/v1', kind: 'Deployment', namespace: deletion.namespace, name: deletion.name}),
      retry,
    )
    return
  }
  const crdName = deletion.kind === 'crd' ? deletion.name : deletion.crd
  if (deletion.kind === 'crd') {
    await withRetries(() => kube.delete({apiVersion: CRD_API, kind: 'CustomResourceDefinition', name: crdName}), retry)
    return
  }
  const crd = await withRetries(
    () => kube.get({apiVersion: CRD_API, kind: 'CustomResourceDefinition', name: crdName}),
    retry,
  )
  if (!crd) return
  const spec = crd.spec as {group: string; names: {kind: string}; versions: {name: string; served: boolean}[]}
  const version = spec.versions.find((v) => v.served)?.name
  if (!version) return
  const apiVersion = `${spec.group}/${version}`
  const items = await withRetries(() => listAll(kube, apiVersion, spec.names.kind), retry)
  for (let i = 0; i < items.length; i += DELETE_CONCURRENCY) {
    await Promise.all(
      items.slice(i, i + DELETE_CONCURRENCY).map((item) =>
        withRetries(
          () =>
            kube.delete({
              apiVersion,
              kind: spec.names.kind,
              name: item.metadata.name,
              namespace: item.metadata.namespace,
            }),
          retry,
        ),
      ),
    )
  }
}

/**
 * Polls `check` until it says done, for at most `timeoutMs`: its reads included, so an API server that stops
 * answering cannot stretch the wait. `timedOut` makes the error once the time is up (checked between polls, and
 * when the time limit cuts a read or a pause short).
 */
async function pollWithin(
  check: () => Promise<boolean>,
  timeoutMs: number,
  timedOut: () => XpkError,
  deps: InClusterDeps,
  options: InClusterApplyOptions,
  ctx: StepContext,
): Promise<void> {
  const retry = retrying(deps, ctx)
  const {clock} = retry
  const started = clock.now()
  const limit = startTimeLimit(retry.signal, timeoutMs, clock, timedOut)
  try {
    await pollUntil(
      async () => {
        if (await check()) return true
        if (clock.now() - started >= timeoutMs) throw timedOut()
        return false
      },
      {...retry, signal: limit.signal, poll: options.poll},
    )
  } catch (error) {
    if (limit.expired()) throw timedOut()
    throw error
  } finally {
    limit.dispose()
  }
}

/** Waits until a deleted object is gone, or times out naming it. */
async function awaitGone(
  kube: KubeClient,
  ref: KubeRef,
  deps: InClusterDeps,
  options: InClusterApplyOptions,
  ctx: StepContext,
): Promise<void> {
  await pollWithin(
    async () => (await kube.get(ref)) === undefined,
    options.availableTimeoutMs,
    () =>
      new XpkError(
        'timeout',
        `${ref.kind} ${ref.name} was deleted but is still there after ${Math.round(options.availableTimeoutMs / 1000)} s.`,
        {
          hints: [
            `Something holds its finalizers: \`kubectl get ${ref.kind.toLowerCase()} ${ref.name} -o yaml\` shows them.`,
            'Re-run the same command once it is gone: the rest of the upgrade follows.',
          ],
        },
      ),
    deps,
    options,
    ctx,
  )
}

interface DeploymentStatus {
  readonly metadata: {readonly generation?: number}
  readonly spec?: {readonly replicas?: number}
  readonly status?: {
    readonly observedGeneration?: number
    readonly replicas?: number
    readonly updatedReplicas?: number
    readonly availableReplicas?: number
    readonly conditions?: readonly {
      readonly type: string
      readonly status: string
      readonly reason?: string
      readonly message?: string
    }[]
  }
}

/**
 * Waits until the controller's Deployment is Available with its rollout complete (what `kubectl rollout status`
 * waits for), or times out naming why. Available alone is not enough after an upgrade: the old pod keeps the
 * Deployment Available while the new one starts, and it is the new one that must serve the webhooks.
 */
async function awaitAvailable(
  component: ReleaseComponent,
  deps: InClusterDeps,
  options: InClusterApplyOptions,
  ctx: StepContext,
): Promise<void> {
  const {namespace, name} = RELEASES[component].controller
  const kube = await deps.kube()
  ctx.progress('waiting for Available')
  let last: DeploymentStatus | undefined
  let waiting: string | undefined = 'no answer from the API server yet'
  await pollWithin(
    async () => {
      last = (await kube.get({apiVersion: 'apps/v1', kind: 'Deployment', namespace, name})) as unknown as
        DeploymentStatus | undefined
      waiting = rolloutWaiting(last)
      return waiting === undefined
    },
    options.availableTimeoutMs,
    () => {
      const conditions = (last?.status?.conditions ?? [])
        .map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`)
        .join('; ')
      return new XpkError(
        'timeout',
        `Deployment ${namespace}/${name} (${RELEASES[component].title}) did not become Available within ` +
          `${Math.round(options.availableTimeoutMs / 1000)} s: ${waiting}.` +
          (last ? ` Its conditions: ${conditions || 'none yet'}.` : ''),
        {
          hints: [
            `Its pods' events say why: look at the Deployment in the Cloud Console, or \`kubectl describe deployment -n ${namespace} ${name}\`.`,
            'Re-run the same command once it is fixed: what is installed is kept.',
          ],
        },
      )
    },
    deps,
    options,
    ctx,
  )
}

/** What the rollout still waits for, or undefined when the Deployment is Available with every replica updated. */
function rolloutWaiting(deployment: DeploymentStatus | undefined): string | undefined {
  if (!deployment) return 'it does not exist'
  const status = deployment.status ?? {}
  if ((status.observedGeneration ?? 0) < (deployment.metadata.generation ?? 1)) {
    return 'its controller has not seen the latest change yet'
  }
  const wanted = deployment.spec?.replicas ?? 1
  const updated = status.updatedReplicas ?? 0
  const old = (status.replicas ?? 0) - updated
  const available = status.availableReplicas ?? 0
  if (updated < wanted) return `${updated} of ${wanted} replicas updated`
  if (old > 0) return `${old} old ${old === 1 ? 'replica' : 'replicas'} still running`
  if (available < updated) return `${available} of ${updated} updated replicas available`
  const availableCondition = (status.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True')
  return availableCondition ? undefined : 'not Available'
}
