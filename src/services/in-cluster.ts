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
  type ObservedDns,
  type ObservedInCluster,
  type ObservedInstaller,
  type ReleaseObjects,
} from '../core/incluster/plan.js'
import {rolloutWaiting, type DeploymentStatus} from '../core/incluster/rollout.js'
import {daemonSetWaiting, type DaemonSetStatus, type GpuInstaller} from '../core/incluster/gpu-installers.js'
import {releaseObjectWouldChange} from '../core/incluster/live-diff.js'
import type {InClusterObject} from '../core/incluster/types.js'
import {
  COREDNS_NAME,
  coreDnsObjects,
  DNS_NAMESPACE,
  KUBE_DNS_DEPLOYMENTS,
  KUBE_DNS_NAME,
  scaledToZero,
  type KubeDnsSettings,
} from '../core/incluster/coredns.js'
import {collect} from '../core/kube/list-pages.js'
import {
  applyOrder,
  installWaves,
  controllerImage,
  findControllerDeployment,
  RELEASES,
  splitApiVersion,
  type KubeObject,
  type ReleaseComponent,
} from '../core/kube/release-manifest.js'
import type {Backoff} from '../core/retry.js'
import type {GraphStep, StepContext} from '../executor/step-graph.js'
import {pollUntil, retrying, startTimeLimit, withRetries, type RetryOptions} from '../executor/retry.js'
import type {KubeClient, KubeRef} from '../ports/kube.js'
import type {ReleaseManifest, ReleaseManifestSource} from '../ports/release-manifests.js'
import type {InstallerManifest, InstallerManifestSource} from '../ports/installer-manifests.js'

/** Deletions a breaking Kueue upgrade sends at once (a cluster may hold thousands of Workloads). */
const DELETE_CONCURRENCY = 16
const CONNECT = 'connect:kubernetes'
const CRD_API = 'apiextensions.k8s.io/v1'

/** Loads a release manifest (memoized by {@link memoizedManifests}, so planning and installing read it once). */
export type ReleaseLoader = (component: ReleaseComponent) => Promise<ReleaseManifest>

/**
 * Reads what the in-cluster plan compares against: the two controller Deployments, the node count, the release
 * manifests, and the live objects of every kind xpk applies (its configuration and every kind of the releases),
 * with one list per kind (and per page), never one read per object. The Deployments come from one list in every
 * namespace; a namespaced kind is listed in its namespace when all the objects of that kind live in one, else in
 * every namespace. Cluster-scoped kinds are listed at once; the rest once the manifests say which kinds they hold.
 */
export async function readInCluster(
  kube: KubeClient,
  inputs: InClusterInputs,
  retry: RetryOptions,
  release: ReleaseLoader,
  installers?: InstallerLoader,
): Promise<ObservedInCluster> {
  const call = retrying(retry)
  const installersRead = readInstallers(kube, inputs, call, installers)
  const live = new Map<string, unknown>()
  const listed = new Set<string>([kindKey('apps/v1', 'Deployment')])
  const listInto = async (scope: ListScope) => {
    listed.add(kindKey(scope.apiVersion, scope.kind))
    const items = await collect(kube.listAll(scope.apiVersion, scope.kind, {namespace: scope.namespace, retry: call}))
    for (const item of items) live.set(objectKey(item), item)
    return items
  }
  const configuration = objectsToRead(inputs)
  const clusterScoped = [...listScopes(configuration).values()].filter((k) => !k.namespaced)
  const deploymentsRead = collect(kube.listAll('apps/v1', 'Deployment', {retry: call}))
  const nodesRead = countNodes(kube, call)
  const firstWave = Promise.all(clusterScoped.map(listInto))
  const {releases, unread} = await loadReleases(release)
  const crds: KubeObject[] = []
  const releaseObjects = [...(releases.jobset ?? []), ...(releases.kueue ?? [])]
  // kube-dns's Service and ConfigMap, which CoreDNS is built from, come with the lists of their kinds (widened to
  // kube-system) instead of two gets once the Deployments are read: one round fewer, and still one read per kind.
  const dnsObjects = inputs.coreDns ? KUBE_DNS_OBJECTS : []
  const rest = [...listScopes([...configuration, ...releaseObjects, ...dnsObjects]).values()].filter(
    (k) => !listed.has(kindKey(k.apiVersion, k.kind)),
  )
  const secondWave = Promise.all(
    rest.map(async (k) => {
      const items = await listInto(k)
      if (k.apiVersion === CRD_API && k.kind === 'CustomResourceDefinition') crds.push(...items)
    }),
  )
  const [deployments, nodeCount] = await Promise.all([deploymentsRead, nodesRead, firstWave, secondWave])
  for (const item of deployments) live.set(objectKey(item), item)
  const jobset = observeController(deployments, 'jobset')
  const kueue = observeController(deployments, 'kueue')
  // Only a Kueue old enough to need deleting needs the names of its CRDs, from the CRDs listed (or one list more).
  const breaking = decideInstall('kueue', kueue).action === 'breaking-upgrade'
  const kueueCrds = !breaking
    ? []
    : listed.has(kindKey(CRD_API, 'CustomResourceDefinition'))
      ? crds.map((c) => c.metadata.name).filter((n) => n.endsWith('.kueue.x-k8s.io'))
      : await listKueueCrds(kube, call)
  const dns = inputs.coreDns ? observeDns(deployments, live) : undefined
  const observedInstallers = await installersRead
  return {
    nodeCount,
    controllers: {jobset, kueue},
    kueueCrds,
    live,
    releases,
    releasesUnread: unread,
    dns,
    ...(observedInstallers ? {installers: observedInstallers} : {}),
  }
}

/** Loads a GPU installer's manifest (memoized by the caller, so planning and installing read it once). */
export type InstallerLoader = (installer: GpuInstaller) => Promise<InstallerManifest>

/**
 * Each GPU installer's objects with the live object of each (a few, read one by one). A manifest that cannot be had
 * leaves the installer planned as if nothing were there, with the reason; a usage error (a bad file given by flag)
 * fails here, before anything is changed.
 */
async function readInstallers(
  kube: KubeClient,
  inputs: InClusterInputs,
  call: ReturnType<typeof retrying>,
  load: InstallerLoader | undefined,
): Promise<Partial<Record<GpuInstaller['name'], ObservedInstaller>> | undefined> {
  const wanted = inputs.gpuInstallers ?? []
  if (load === undefined || wanted.length === 0) return undefined
  const entries = await Promise.all(
    wanted.map(async (installer): Promise<[GpuInstaller['name'], ObservedInstaller]> => {
      let objects: readonly KubeObject[]
      try {
        objects = (await load(installer)).objects
      } catch (error) {
        if (!(error instanceof XpkError) || error.kind === 'usage' || error.kind === 'interrupted') throw error
        return [installer.name, {unread: error.message}]
      }
      const live = await Promise.all(objects.map((o) => call(() => kube.get(refOf(o)))))
      return [installer.name, {objects, live}]
    }),
  )
  return Object.fromEntries(entries)
}

/** kube-dns's Service and ConfigMap, as list scopes and keys of what is live. */
const KUBE_DNS_OBJECTS = (['Service', 'ConfigMap'] as const).map((kind) => ({
  apiVersion: 'v1',
  kind,
  metadata: {name: KUBE_DNS_NAME, namespace: DNS_NAMESPACE},
}))

/**
 * Whether kube-system runs CoreDNS (from the Deployments listed), and, when it does not, what `deploy.sh` reads from
 * kube-dns (from the Services and ConfigMaps listed): its Service's cluster IP and its ConfigMap's upstream
 * nameservers and stub domains.
 */
function observeDns(deployments: readonly KubeObject[], live: ReadonlyMap<string, unknown>): ObservedDns {
  const inKubeSystem = (name: string) =>
    deployments.some((d) => d.metadata.namespace === DNS_NAMESPACE && d.metadata.name === name)
  const kubeDnsDeployments = KUBE_DNS_DEPLOYMENTS.filter(inKubeSystem)
  if (inKubeSystem(COREDNS_NAME)) return {coreDnsPresent: true, kubeDnsDeployments}
  const [service, config] = KUBE_DNS_OBJECTS.map((o) => live.get(objectKey(o)) as KubeObject | undefined)
  return {coreDnsPresent: false, kubeDns: kubeDnsSettings(service, config), kubeDnsDeployments}
}

async function readKubeDns(kube: KubeClient, call: ReturnType<typeof retrying>): Promise<KubeDnsSettings | undefined> {
  const ref = {namespace: DNS_NAMESPACE, name: KUBE_DNS_NAME}
  const [service, config] = await Promise.all([
    call(() => kube.get({apiVersion: 'v1', kind: 'Service', ...ref})),
    call(() => kube.get({apiVersion: 'v1', kind: 'ConfigMap', ...ref})),
  ])
  return kubeDnsSettings(service, config)
}

function kubeDnsSettings(service: KubeObject | undefined, config: KubeObject | undefined): KubeDnsSettings | undefined {
  const clusterIp = (service?.spec as {clusterIP?: string} | undefined)?.clusterIP
  if (!clusterIp || clusterIp === 'None') return undefined
  const data = (config?.data ?? {}) as {upstreamNameservers?: string; stubDomains?: string}
  return {
    clusterIp,
    ...(data.upstreamNameservers ? {upstreamNameservers: data.upstreamNameservers} : {}),
    ...(data.stubDomains ? {stubDomains: data.stubDomains} : {}),
  }
}

/**
 * One of CoreDNS's steps. The install checks again that kube-system has no `coredns` Deployment (a run planned before
 * the cluster existed, or another run meanwhile) and builds the objects from kube-dns when the plan could not; the
 * scale-down waits for the install, the wait for both.
 */
function coreDnsStep(
  s: Extract<InClusterStep, {kind: 'coredns'}>,
  plan: InClusterPlan,
  deps: InClusterDeps,
  options: InClusterApplyOptions,
  reachable: {readonly id: string; readonly because: string},
  /** Set by the install when, at run time, there is nothing to replace: the steps after it have nothing to do. */
  dnsRun: {skipped: boolean},
): GraphStep {
  const has = (action: string) => plan.steps.some((o) => o.kind === 'coredns' && o.action === action)
  const after = (action: string, because: string) => (has(action) ? [{id: `coredns:${action}`, because}] : [])
  const base = {id: `coredns:${s.action}`, line: 'CoreDNS', name: 'CoreDNS', announce: true, resource: 'coredns'}
  const ref = {apiVersion: 'apps/v1', kind: 'Deployment', namespace: DNS_NAMESPACE, name: COREDNS_NAME}
  switch (s.action) {
    case 'install':
      return {
        ...base,
        action: 'install',
        needs: [reachable],
        run: async (ctx) => {
          const kube = await deps.kube()
          const retry = stepRetry(deps, ctx)
          ctx.progress('reading kube-system')
          let objects = s.objects
          if (objects === null) {
            // Planned before the cluster could be read: what the plan would have decided, decided now.
            // kube-dns read alongside (unused when CoreDNS is there): one round, not two.
            const [coreDns, kubeDnsRead] = await Promise.all([
              withRetries(() => kube.get(ref), retry),
              readKubeDns(kube, retrying(retry)),
            ])
            const kubeDns = coreDns === undefined ? kubeDnsRead : undefined
            if (kubeDns === undefined) {
              ctx.progress('nothing to replace', 'a coredns Deployment, or no kube-dns Service')
              dnsRun.skipped = true
              return
            }
            objects = coreDnsObjects(kubeDns, plan.coreDnsReplicas ?? 1)
          }
          // All at once, as `kubectl apply -f` of deploy.sh's output would take them: none needs another to be
          // accepted (the Service's selector matches CoreDNS's pods only once they are ready, whatever the order).
          let applied = 0
          await Promise.all(
            objects.map(async (o) => {
              await withRetries(() => kube.apply(o, {force: true}), retry)
              ctx.progress('applying', `${objects!.length} objects`, {current: ++applied, total: objects!.length})
            }),
          )
        },
      }
    case 'scale-down':
      return {
        ...base,
        id: 'coredns:scale-down',
        line: s.deployments.join(', '),
        name: s.deployments.join(', '),
        action: 'scale',
        needs: [reachable, ...after('install', 'CoreDNS was not installed')],
        run: async (ctx) => {
          if (dnsRun.skipped) return
          const kube = await deps.kube()
          ctx.progress('scaling to 0', s.deployments.join(', '))
          // Both at once: neither waits for the other.
          await Promise.all(
            s.deployments.map(async (name) => {
              // A Deployment already gone (a cluster planned before it was up) is nothing to scale.
              if ((await withRetries(() => kube.get({...ref, name}), stepRetry(deps, ctx))) === undefined) return
              await withRetries(() => kube.apply(scaledToZero(name), {force: true}), stepRetry(deps, ctx))
            }),
          )
        },
      }
    case 'await':
      return {
        ...base,
        action: 'wait',
        needs: [
          reachable,
          ...after('install', 'CoreDNS was not installed'),
          ...after('scale-down', 'kube-dns was not scaled down'),
        ],
        run: async (ctx) => {
          if (!dnsRun.skipped) await awaitDeploymentAvailable(ref, 'CoreDNS', deps, options, ctx)
        },
      }
  }
}

/**
 * Both release manifests. One that cannot be had (no network, and not in the cache) leaves its release uncompared,
 * with the reason, rather than failing a run that may have nothing to install: an install that needs it fails on
 * its own. A manifest given by flag that is not one (a usage error) fails here, before anything is changed.
 */
async function loadReleases(
  release: ReleaseLoader,
): Promise<{releases: ReleaseObjects; unread: Partial<Record<ReleaseComponent, string>>}> {
  const releases: Partial<Record<ReleaseComponent, readonly KubeObject[]>> = {}
  const unread: Partial<Record<ReleaseComponent, string>> = {}
  await Promise.all(
    (['jobset', 'kueue'] as const).map(async (component) => {
      try {
        releases[component] = (await release(component)).objects
      } catch (error) {
        if (!(error instanceof XpkError) || error.kind === 'usage' || error.kind === 'interrupted') throw error
        unread[component] = error.message.replace(/\.$/, '')
      }
    }),
  )
  return {releases, unread}
}

interface ListScope {
  readonly apiVersion: string
  readonly kind: string
  /** Undefined: every namespace (or a cluster-scoped kind). */
  readonly namespace?: string
  readonly namespaced: boolean
}

/** One list per kind (by API group and kind): in the namespace all its objects share, else in every namespace. */
function listScopes(
  objects: readonly {readonly apiVersion: string; readonly kind: string; readonly metadata: object}[],
): Map<string, ListScope> {
  const namespaces = new Map<string, {apiVersion: string; kind: string; in: Set<string | undefined>}>()
  for (const o of objects) {
    const key = kindKey(o.apiVersion, o.kind)
    const namespace = (o.metadata as {namespace?: string}).namespace
    const entry = namespaces.get(key) ?? {apiVersion: o.apiVersion, kind: o.kind, in: new Set()}
    entry.in.add(namespace)
    namespaces.set(key, entry)
  }
  const scopes = new Map<string, ListScope>()
  for (const [key, entry] of namespaces) {
    const [only] = entry.in
    const namespaced = [...entry.in].some((n) => n !== undefined)
    scopes.set(key, {
      apiVersion: entry.apiVersion,
      kind: entry.kind,
      namespaced,
      ...(namespaced && entry.in.size === 1 && only !== undefined ? {namespace: only} : {}),
    })
  }
  return scopes
}

/** A kind by API group (not version) and name. */
function kindKey(apiVersion: string, kind: string): string {
  return `${splitApiVersion(apiVersion).group}/${kind}`
}

/**
 * A release manifest source that loads each manifest once per override, however many times it is asked: planning
 * compares the release's objects with what is live, and installing applies them, from one read of the file.
 */
export function memoizedManifests(source: ReleaseManifestSource): ReleaseManifestSource {
  const loads = new Map<string, Promise<ReleaseManifest>>()
  return {
    load: (component, options = {}) => {
      const key = `${component}\n${options.override ?? ''}`
      let loading = loads.get(key)
      if (!loading) {
        loading = source.load(component, options)
        loads.set(key, loading)
        // A failed load is not kept: the retry policy's next attempt (a network blip at the start of a long run)
        // must load again, not get the same rejection.
        loading.catch(() => loads.get(key) === loading && loads.delete(key))
      }
      return loading
    },
  }
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

async function countNodes(kube: KubeClient, call: ReturnType<typeof retrying>): Promise<number> {
  let count = 0
  for await (const page of kube.listAll('v1', 'Node', {retry: call})) count += page.length
  return count
}

async function listKueueCrds(kube: KubeClient, call: ReturnType<typeof retrying>): Promise<string[]> {
  const crds = await collect(kube.listAll(CRD_API, 'CustomResourceDefinition', {retry: call}))
  return crds.map((c) => c.metadata.name).filter((n) => n.endsWith('.kueue.x-k8s.io'))
}

/** What the in-cluster steps run with. */
export interface InClusterDeps {
  /** The cluster's Kubernetes API; connected on first use (after the cluster exists). */
  readonly kube: () => Promise<KubeClient>
  readonly manifests: ReleaseManifestSource
  /** Google's GPUDirect manifests; needed only by plans with `gpu-installer` steps. */
  readonly installers?: InstallerManifestSource
  readonly retry: Omit<RetryOptions, 'onRetry'>
}

export interface InClusterApplyOptions {
  /** `--jobset-manifest` / `--kueue-manifest`: a file or URL replacing the release's manifest. */
  readonly manifestOverrides: Partial<Record<ReleaseComponent, string>>
  /** `--nccl-installer-manifest` / `--nri-device-injector-manifest`, by flag: a file or URL replacing Google's. */
  readonly installerOverrides?: Partial<Record<GpuInstaller['overrideFlag'], string>>
  /** How long a controller may take to become Available. */
  readonly availableTimeoutMs: number
  readonly poll: Backoff
}

/**
 * The quota planned anew once the GKE node-pool steps are done (see `InClusterInputs.nodePoolsChange`): `after` are
 * the ids of those steps, `replan` plans again for the pools RUNNING then.
 */
export interface QuotaAfterNodePools {
  readonly after: readonly string[]
  readonly replan: () => Promise<InClusterPlan>
}

/**
 * The in-cluster plan as executor steps. Steps that change nothing (`unchanged` objects) are left out, so a
 * re-run sends no mutating request. Kueue objects wait for Kueue to be Available (its webhooks validate them);
 * ConfigMaps and PriorityClasses need only the API server. When the quota waits for the node pools, its steps
 * become two: the Kueue quota (flavor, ClusterQueue, flavors of earlier sizes) and the resources ConfigMap, each
 * applying what the plan made for the pools RUNNING then differs from what is live.
 */
export function inClusterSteps(
  plan: InClusterPlan,
  deps: InClusterDeps,
  options: InClusterApplyOptions,
  quota?: QuotaAfterNodePools,
): GraphStep[] {
  const has = new Set(plan.steps.map((s) => stepId(s)))
  const deferred = plan.quotaAfterNodePools && quota !== undefined
  const isDeferred = (s: InClusterStep) => deferred && (s.kind === 'delete' || (s.kind === 'apply' && s.quota))
  const work = plan.steps.filter(
    (s) => isDeferred(s) || (s.kind !== 'apply' && s.kind !== 'gpu-installer') || s.change !== 'none',
  )
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
  const kueueReady = has.has('await:kueue') ? [{id: 'await:kueue', because: 'Kueue is not Available'}] : []
  const manifest = prefetchManifests(plan, deps, options)
  const dnsRun = {skipped: false}
  for (const s of plan.steps) {
    if (isDeferred(s)) continue
    const id = stepId(s)
    if (s.kind === 'coredns') {
      steps.push(coreDnsStep(s, plan, deps, options, reachable, dnsRun))
      continue
    }
    if (s.kind === 'gpu-installer') {
      if (s.change !== 'none') steps.push(gpuInstallerStep(s.installer, s.change, deps, options, reachable))
      continue
    }
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
          action: s.action === 'install' || s.action === 'repair' ? s.action : 'upgrade',
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
        const title = RELEASES[s.component].title
        const before = has.has(`install:${s.component}`)
          ? [{id: `install:${s.component}`, because: `${title} was not installed`}]
          : has.has(`resize:${s.component}`)
            ? [{id: `resize:${s.component}`, because: `${title} was not resized`}]
            : []
        steps.push({
          ...base,
          resource: 'controller',
          action: 'wait',
          needs: [reachable, ...before],
          run: (ctx) => awaitAvailable(s.component, deps, options, ctx),
        })
        break
      }
      case 'apply': {
        if (s.change === 'none') break
        steps.push({
          ...base,
          resource: s.object.kind,
          action: s.change,
          needs: s.needsKueue ? [reachable, ...kueueReady] : [reachable],
          run: async (ctx) => {
            ctx.progress('applying')
            await applyObject(s.object, deps, ctx)
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
            await deleteObject(s.object, deps, ctx)
          },
        })
        break
      }
    }
  }
  if (deferred) steps.push(...quotaSteps(quota, deps, reachable, kueueReady))
  return steps
}

/**
 * The quota once the node pools are done: the plan made again for the pools RUNNING then, its quota steps applied
 * where they differ from what is live (flavor, then ClusterQueue, then the flavors of earlier sizes, which Kueue
 * keeps while a queue names them), and the resources ConfigMap beside them, needing only the API server.
 */
function quotaSteps(
  quota: QuotaAfterNodePools,
  deps: InClusterDeps,
  reachable: {readonly id: string; readonly because: string},
  kueueReady: readonly {readonly id: string; readonly because: string}[],
): GraphStep[] {
  let replanned: Promise<InClusterPlan> | undefined
  const final = async () =>
    (await (replanned ??= quota.replan())).steps.filter((s) => s.kind === 'delete' || (s.kind === 'apply' && s.quota))
  const line = 'Kueue quota'
  const resources = 'resources ConfigMap'
  return [
    {
      id: 'quota:kueue',
      line,
      name: line,
      // Not one object but several, applied only where they differ: the summary does not count it as an object.
      resource: 'quota',
      action: 'apply',
      announce: true,
      needs: [reachable, ...kueueReady],
      after: quota.after,
      run: async (ctx) => {
        ctx.progress('reading the node pools')
        for (const s of await final()) {
          if (s.kind === 'apply' && s.needsKueue && s.change !== 'none') {
            ctx.progress('applying', `${s.object.kind} ${s.object.metadata.name}`)
            await applyObject(s.object, deps, ctx)
          }
        }
        for (const s of await final()) {
          if (s.kind !== 'delete') continue
          ctx.progress('deleting', `${s.object.kind} ${s.object.name}`)
          await deleteObject(s.object, deps, ctx)
        }
      },
    },
    {
      id: 'quota:configmap',
      line: resources,
      name: resources,
      resource: 'quota',
      action: 'apply',
      announce: true,
      needs: [reachable],
      after: quota.after,
      run: async (ctx) => {
        ctx.progress('reading the node pools')
        for (const s of await final()) {
          if (s.kind === 'apply' && !s.needsKueue && s.change !== 'none') {
            ctx.progress('applying', `${s.object.kind} ${s.object.metadata.name}`)
            await applyObject(s.object, deps, ctx)
          }
        }
      },
    },
  ]
}

/**
 * A GPU installer (see gpu-installers.ts): its manifest loaded, each object applied where it differs from what is
 * live (a re-run sends nothing), then each of its DaemonSets waited for until ready on every node it runs on, within
 * the controllers' time limit. It needs only the API server, so it runs beside JobSet and Kueue.
 */
function gpuInstallerStep(
  installer: GpuInstaller,
  change: 'apply' | 'wait',
  deps: InClusterDeps,
  options: InClusterApplyOptions,
  reachable: {readonly id: string; readonly because: string},
): GraphStep {
  return {
    id: `gpu-installer:${installer.name}`,
    line: installer.title,
    name: installer.title,
    resource: 'installer',
    action: change === 'apply' ? 'install' : 'wait',
    announce: true,
    needs: [reachable],
    run: async (ctx) => {
      const source = deps.installers
      if (source === undefined) throw new XpkError('failed', `No source for the ${installer.title} manifest.`)
      ctx.progress('loading the manifest')
      const override = options.installerOverrides?.[installer.overrideFlag]
      const retry = stepRetry(deps, ctx)
      const manifest = await withRetries(() => source.load(installer, {override, signal: ctx.signal}), retry)
      const kube = await deps.kube()
      const objects = applyOrder(manifest.objects)
      let applied = 0
      for (const o of objects) {
        const live = await withRetries(() => kube.get(refOf(o)), retry)
        if (releaseObjectWouldChange(o, live)) await withRetries(() => kube.apply(o, {force: true}), retry)
        ctx.progress('applying', `${objects.length} objects`, {current: ++applied, total: objects.length})
      }
      for (const o of objects.filter((d) => d.apiVersion === 'apps/v1' && d.kind === 'DaemonSet')) {
        await awaitDaemonSetReady(refOf(o), installer.title, deps, options, ctx)
      }
    },
  }
}

function refOf(o: KubeObject): KubeRef {
  return {apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace}
}

/** Waits until a DaemonSet is ready on every node it is scheduled on, or times out saying how many are not. */
async function awaitDaemonSetReady(
  ref: KubeRef,
  title: string,
  deps: InClusterDeps,
  options: InClusterApplyOptions,
  ctx: StepContext,
): Promise<void> {
  const kube = await deps.kube()
  const where = `${ref.namespace ?? ''}/${ref.name}`
  ctx.progress('waiting for ready', `DaemonSet ${where}`)
  let waiting: string | undefined = 'no answer from the API server yet'
  await pollWithin(
    async () => {
      waiting = daemonSetWaiting((await kube.get(ref)) as DaemonSetStatus | undefined)
      return waiting === undefined
    },
    options.availableTimeoutMs,
    () =>
      new XpkError(
        'timeout',
        `DaemonSet ${where} (${title}) was not ready on every node within ` +
          `${Math.round(options.availableTimeoutMs / 1000)} s: ${waiting}.`,
        {
          hints: [
            `Its pods' events say why: \`kubectl describe daemonset -n ${ref.namespace ?? 'default'} ${ref.name}\`.`,
            'Re-run the same command once it is fixed: what is applied is kept.',
          ],
        },
      ),
    deps,
    options,
    ctx,
  )
}

async function applyObject(object: InClusterObject, deps: InClusterDeps, ctx: StepContext): Promise<void> {
  const kube = await deps.kube()
  await withRetries(() => kube.apply(object as unknown as KubeObject, {force: true}), stepRetry(deps, ctx))
}

async function deleteObject(object: KubeRef, deps: InClusterDeps, ctx: StepContext): Promise<void> {
  const kube = await deps.kube()
  await withRetries(() => kube.delete(object), stepRetry(deps, ctx))
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
  if (s.kind === 'coredns') return `coredns:${s.action}`
  if (s.kind === 'gpu-installer') return `gpu-installer:${s.installer.name}`
  return `${s.kind}:${s.component}`
}

export function stepRetry(deps: InClusterDeps, ctx: StepContext): RetryOptions {
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
  const retry = stepRetry(deps, ctx)
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
  const wanted =
    step.objects === 'all' ? undefined : new Set(step.objects.map((o) => objectKey({kind: o.kind, metadata: o})))
  const objects = applyOrder(manifest.objects)
    .filter((o) => wanted === undefined || wanted.has(objectKey(o)))
    .map((o) => (o === controller ? sizedController(o, step.sizing) : o))
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
  await withRetries(() => kube.apply(sizedController(controller, step.sizing), {force: true}), stepRetry(deps, ctx))
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
  const items = await collect(kube.listAll(apiVersion, spec.names.kind, {retry: retrying(retry)}))
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
export async function pollWithin(
  check: () => Promise<boolean>,
  timeoutMs: number,
  timedOut: () => XpkError,
  deps: InClusterDeps,
  options: InClusterApplyOptions,
  ctx: StepContext,
): Promise<void> {
  const retry = stepRetry(deps, ctx)
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
  await awaitDeploymentAvailable({namespace, name}, RELEASES[component].title, deps, options, ctx)
}

/** {@link awaitAvailable} for any Deployment, named `title` in the messages. */
async function awaitDeploymentAvailable(
  ref: {readonly namespace: string; readonly name: string},
  title: string,
  deps: InClusterDeps,
  options: InClusterApplyOptions,
  ctx: StepContext,
): Promise<void> {
  const {namespace, name} = ref
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
        `Deployment ${namespace}/${name} (${title}) did not become Available within ` +
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
