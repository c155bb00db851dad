import {
  adaptFindings,
  adaptFindingsToJson,
  checkAdaptFlags,
  nodesOfPools,
  placementOfPools,
  renderAdaptFindings,
  type AdaptFindings,
  type AdaptRequest,
  type ClusterAdaptFlags,
} from '../core/cluster/adapt.js'
import type {ObservedCluster} from '../core/cluster/observed.js'
import type {Plan} from '../core/cluster/plan.js'
import {combinedKind, XpkError} from '../core/errors.js'
import {Problems} from '../core/input.js'
import {clusterVmCount} from '../core/incluster/cluster-shape.js'
import {planInCluster, type InClusterInputs, type InClusterPlan} from '../core/incluster/plan.js'
import {
  changesSomething,
  inClusterPlanToJson,
  renderInClusterPlan,
  type InClusterPlanJson,
} from '../core/incluster/render.js'
import {RELEASE_COMPONENTS, type ReleaseComponent} from '../core/kube/release-manifest.js'
import {
  clusterAdaptConfirmKueueUpgrade,
  clusterAdaptDryRun,
  clusterAdaptPlan,
  clusterAdaptReading,
  clusterAdaptSummary,
} from '../core/messages/cluster.js'
import {zoneToRegion} from '../core/settings.js'
import type {Timing} from '../core/timing.js'
import {applyClusterPlan, type StepOutcome} from '../executor/apply-cluster-plan.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {GkeClient} from '../ports/gke.js'
import type {KubeClient} from '../ports/kube.js'
import type {ReleaseManifestSource} from '../ports/release-manifests.js'
import {
  checkInClusterAccess,
  correctKueueLimits,
  preloaded,
  type ClusterCreateDeps,
  type ClusterCreateOptions,
} from './cluster-create.js'
import {lockOf, noteDryRunLock, refuseIfHeld, type ClusterLockOptions} from './cluster-lock.js'
import {findCluster} from './cluster-lookup.js'
import {confirmOrStop} from './confirm.js'
import {inClusterSteps, memoizedManifests, readInCluster} from './in-cluster.js'

export interface ClusterAdaptOptions {
  readonly flags: ClusterAdaptFlags
  readonly dryRun: boolean
  /** Show the in-cluster objects as YAML in the plan. */
  readonly verbose?: boolean
  readonly timing: Pick<Timing, 'retry' | 'operations' | 'controllers'>
  /** What it installs inside the cluster, and how it reaches it (`--kubeconfig` / `--context`). */
  readonly inCluster: Omit<ClusterCreateOptions['inCluster'], 'skip'>
  /** The cluster lock of `cluster create` and `cluster delete`: adapt takes none (it would be a GKE change), but
   * refuses to work beside a run that holds it. */
  readonly lock: ClusterLockOptions
}

/** What adapt needs: GKE to read the cluster (never to change it), Compute for --cpu/--memory-limit, the cluster. */
export type ClusterAdaptDeps = ClusterCreateDeps

export interface ClusterAdaptResult {
  readonly project: string
  readonly location: string
  readonly cluster: string
  /** What the node pools say and the quota made from them. */
  readonly found: ReturnType<typeof adaptFindingsToJson>
  readonly inCluster: InClusterPlanJson
  readonly dryRun: boolean
  readonly applied: boolean
  readonly outcomes: readonly StepOutcome[]
}

/** Cluster states whose Kubernetes API answers. */
const REACHABLE = new Set(['RUNNING', 'RECONCILING', 'DEGRADED'])

/**
 * `xpk cluster adapt`: makes a GKE cluster that another tool created ready for xpk. Reads the cluster and its node
 * pools (it must exist: exit 4), derives the accelerator type and size from its accelerator pools, plans only the
 * in-cluster half of `cluster create` (JobSet, Kueue, queues, priorities, ConfigMaps) against what is live, shows
 * what it found and what it adds, confirms a destructive Kueue upgrade, and applies through the same executor. It
 * sends no request that changes GKE: no cluster update, no node pool, not even the cluster lock's labels.
 */
export async function adaptCluster(options: ClusterAdaptOptions, deps: ClusterAdaptDeps): Promise<ClusterAdaptResult> {
  const problems = new Problems()
  const request = problems.attempt(() => checkAdaptFlags(options.flags))
  const access = await checkInClusterAccess(
    problems,
    {
      overrides: options.inCluster.manifestOverrides,
      viaKubeconfig: options.inCluster.viaKubeconfig === true,
    },
    deps,
  )
  const asked = request as AdaptRequest
  const {console} = deps
  const manifests = memoizedManifests(preloaded(deps.manifests, access.manifests))
  const release = (component: ReleaseComponent) =>
    manifests.load(component, {override: options.inCluster.manifestOverrides[component], signal: deps.signal})
  if (!options.dryRun) for (const component of RELEASE_COMPONENTS) release(component).catch(() => undefined)
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const gke = await deps.gke()
  try {
    console.info(clusterAdaptReading({cluster: asked.cluster, region: zoneToRegion(asked.zone) ?? asked.zone}))
    const observed = await withRetries(() => findCluster(gke, asked.project, asked.zone, asked.cluster), retry)
    if (!observed) {
      throw new XpkError(
        'not-found',
        `Cluster ${asked.cluster} not found in project ${asked.project} (${asked.region} or ${asked.zone}).`,
        {hints: ['Check --project and --zone; `xpk cluster list` shows your clusters.']},
      )
    }
    if (!REACHABLE.has(observed.status)) {
      throw new XpkError(
        'conflict',
        `Cluster ${observed.name} is ${observed.status}, so nothing can be installed inside it now.`,
        {hints: ['Re-run once GKE reports it RUNNING (`xpk cluster list` shows its status).']},
      )
    }
    const lock = lockOf(observed, options.lock, deps.now())
    if (!options.dryRun) refuseIfHeld(observed.name, lock, options.lock)
    let findings = adaptFindings(asked, observed)
    const shape = findings.shape
    const limits = await correctKueueLimits(
      {
        limits: asked.kueueLimits,
        machineType: shape.accelerator.machineType,
        project: asked.project,
        zone: asked.zone,
      },
      clusterVmCount(shape),
      deps,
      retry,
    )
    findings = {...findings, shape: {...shape, cpuQuota: limits.cpu, memoryQuota: limits.memory}}
    const inputs: InClusterInputs = {
      shape: findings.shape,
      xpkVersion: options.inCluster.xpkVersion,
      expectedNodes: nodesOfPools(observed),
      placement: placementOfPools(observed),
    }
    const kube = memoize(() => (access.kube ? Promise.resolve(access.kube) : deps.kube(observed)))
    const observedIn = await readInCluster(await kube(), inputs, retry, release)
    const inPlan = planInCluster(inputs, observedIn)
    const shown = `${renderAdaptFindings(findings, observed)}\n${renderInClusterPlan(inPlan, {verbose: options.verbose})}`
    const json = {
      project: observed.project,
      location: observed.location,
      cluster: observed.name,
      found: adaptFindingsToJson(findings),
      inCluster: inClusterPlanToJson(inPlan),
    }
    if (options.dryRun) {
      console.result(shown)
      noteDryRunLock(observed.name, lock, options.lock, console)
      console.info(clusterAdaptDryRun())
      return {...json, dryRun: true, applied: false, outcomes: []}
    }
    console.info(clusterAdaptPlan({plan: shown}))
    if (!inPlan.steps.some(changesSomething)) return {...json, dryRun: false, applied: true, outcomes: []}
    if (inPlan.destructive) {
      await confirmOrStop(console, clusterAdaptConfirmKueueUpgrade(), {
        nothingDone: 'Nothing was changed.',
        hints: ['Re-run with --force to upgrade Kueue; --dry-run shows the whole plan.'],
      })
    }
    const outcomes = await apply(observed, inPlan, findings, options, {...deps, gke, kube, manifests, retry})
    return {...json, dryRun: false, applied: true, outcomes}
  } finally {
    await gke.close()
  }
}

/**
 * Runs the in-cluster steps through the executor of `cluster create`, with a GKE plan of no steps: nothing of GKE is
 * changed, and the steps get the same retries, waits and Ctrl-C handling.
 */
async function apply(
  observed: ObservedCluster,
  inPlan: InClusterPlan,
  findings: AdaptFindings,
  options: ClusterAdaptOptions,
  deps: Omit<ClusterAdaptDeps, 'gke' | 'kube' | 'manifests'> & {
    gke: GkeClient
    kube: () => Promise<KubeClient>
    manifests: ReleaseManifestSource
    retry: RetryOptions
  },
): Promise<readonly StepOutcome[]> {
  const plan: Plan = {
    project: observed.project,
    location: observed.location,
    cluster: observed.name,
    steps: [],
    warnings: [],
  }
  const result = await applyClusterPlan(plan, deps, {
    timing: options.timing,
    concurrency: 1,
    signal: deps.signal,
    inCluster: inClusterSteps(
      inPlan,
      {kube: deps.kube, manifests: deps.manifests, retry: deps.retry},
      {
        manifestOverrides: options.inCluster.manifestOverrides,
        availableTimeoutMs: options.timing.controllers.timeoutMs,
        poll: options.timing.controllers.poll,
      },
    ),
  })
  report(observed.name, result.outcomes, findings, deps.console)
  if (result.interrupted) {
    throw new XpkError(
      'interrupted',
      'Interrupted: GKE was not changed; objects already applied inside the cluster stay.',
      {
        hints: ['Re-run the same command to finish: it applies only what is still missing or different.'],
      },
    )
  }
  const failures = result.outcomes.filter((o) => o.status === 'failed' || o.status === 'skipped')
  if (failures.length > 0) {
    const causes = failures.filter((f) => f.status === 'failed')
    const kind = combinedKind((causes.length > 0 ? causes : failures).map((f) => f.error?.kind ?? 'failed'))
    throw new XpkError(
      kind,
      `${failures.length} step${failures.length === 1 ? '' : 's'} failed:\n${failures.map((f) => `  ${f.name}: ${f.error?.message ?? 'failed'}`).join('\n')}`,
      {
        hints: [
          ...new Set(failures.flatMap((f) => f.error?.hints ?? [])),
          'Re-run the same command once the cause is fixed: it applies only what is still missing or different inside the cluster.',
        ],
      },
    )
  }
  return result.outcomes
}

function report(cluster: string, outcomes: readonly StepOutcome[], findings: AdaptFindings, console: Console): void {
  const done = outcomes.filter((o) => o.status === 'done')
  const did: string[] = done
    .filter((o) => o.resource === 'release')
    .map((o) => `${o.action}ed ${o.name}`.replace('eed', 'ed'))
  const objects = done.filter(
    (o) => !['release', 'controller', 'kubernetes', 'quota', 'coredns'].includes(o.resource),
  ).length
  if (objects > 0)
    did.push(`applied ${objects} object${objects === 1 ? '' : 's'} for ${findings.accelerator.canonical}`)
  if (did.length === 0) did.push('waited for the controllers')
  console.info(clusterAdaptSummary({cluster, did}))
}

function memoize<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined
  return () => (made ??= make())
}
