import {desiredClusterFromFlags, type ClusterCreateFlags, type DesiredCluster} from '../core/cluster/desired.js'
import type {ObservedCluster} from '../core/cluster/observed.js'
import {
  destructiveSteps,
  isDestructive,
  ownPoolIndex,
  planCluster,
  summarize,
  type PlacementPolicyState,
  type Plan,
} from '../core/cluster/plan.js'
import {planToJson, renderPlan, type PlanJson} from '../core/cluster/render-plan.js'
import {
  checkReservations,
  maintenanceIntervalMismatches,
  partUnusable,
  reservationShortage,
  subBlockCapacities,
  subBlockPath,
  subBlockShortage,
  type ReservationCapacity,
  type ReservationTarget,
} from '../core/cluster/reservations.js'
import {SLICING_FLAGS} from '../core/cluster/slicing.js'
import {
  firewallsOf,
  gpuNetworkDifferences,
  uniqueNetworks,
  type ObservedGpuNetworks,
} from '../core/cluster/gpu-networks.js'
import {DEFAULT_PATHWAYS_MACHINE_TYPE, PATHWAYS_CPU_POOL, pathwaysMachineProblem} from '../core/cluster/pathways.js'
import {chooseControlPlaneVersion, chooseNodeVersion} from '../core/cluster/versions.js'
import {combinedKind, UsageError, XpkError} from '../core/errors.js'
import {Problems} from '../core/input.js'
import {
  parseManifestOverride,
  RELEASE_COMPONENTS,
  RELEASES,
  type ReleaseComponent,
} from '../core/kube/release-manifest.js'
import {DEFAULT_APPLY_CONCURRENCY} from '../core/retry.js'
import {escapeControl} from '../core/text.js'
import type {Timing} from '../core/timing.js'
import type {ComputeClient} from '../ports/compute.js'
import type {Console} from '../ports/console.js'
import type {GkeClient} from '../ports/gke.js'
import {
  applyClusterPlan,
  nodePoolStepIds,
  type ApplyDeps,
  type ApplyResult,
  type StepOutcome,
} from '../executor/apply-cluster-plan.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import {findCluster} from './cluster-lookup.js'
import {inClusterSteps, memoizedManifests, readInCluster, type InClusterApplyOptions} from './in-cluster.js'
import {readReservationItems, type ReservationsRead} from './reservation-reads.js'
import {
  planInCluster,
  type InClusterInputs,
  type InClusterPlan,
  type ObservedInCluster,
} from '../core/incluster/plan.js'
import {shapeOfRunningPools} from '../core/incluster/running-pools.js'
import {
  changesSomething,
  inClusterPlanToJson,
  renderInClusterPlan,
  type InClusterPlanJson,
} from '../core/incluster/render.js'
import type {ClusterShape} from '../core/incluster/cluster-shape.js'
import {clusterVmCount} from '../core/incluster/cluster-shape.js'
import {placementAfterPlan} from '../core/incluster/topology-aware.js'
import {coreDnsReplicas} from '../core/incluster/coredns.js'
import {CLUSTER_DEFAULTS} from '../core/cluster/defaults.js'
import type {KubeClient} from '../ports/kube.js'
import type {ReleaseManifest, ReleaseManifestSource} from '../ports/release-manifests.js'
import {
  clusterCreateConfirmDeletePools,
  clusterCreateConfirmKueueUpgrade,
  clusterCreateConfirmRecreateNodes,
  clusterCreateDryRun,
  clusterCreateOfflinePlan,
  clusterCreateOfflineReservations,
  clusterCreatePlan,
  clusterCreateReading,
  clusterCreateSummary,
  clusterCreateLimitCorrected,
  clusterCreateLimitsUnverified,
} from '../core/messages/cluster.js'
import {autocorrectLimits, hasKueueLimits, type KueueLimits} from '../core/incluster/kueue-limits.js'
import {confirmOrStop} from './confirm.js'
import {
  claimNewCluster,
  lockOf,
  noteDryRunLock,
  refuseIfHeld,
  newLock,
  releaseLock,
  takeLock,
  type ClusterLockOptions,
} from './cluster-lock.js'
import {isLockRefusal, lockJson, planWithLock, type LockJson} from '../core/cluster/lock.js'
import {
  planRay,
  rayPlanToJson,
  rayTargetAfter,
  renderRayPlan,
  type RayPlan,
  type RayPlanJson,
} from '../core/incluster/ray-plan.js'
import {rayClusterStep, readRay} from './ray-cluster.js'
import {gpuInstallersFor, type GpuInstaller} from '../core/incluster/gpu-installers.js'
import type {InstallerManifest, InstallerManifestSource} from '../ports/installer-manifests.js'

export interface ClusterCreateOptions {
  readonly flags: ClusterCreateFlags
  readonly dryRun: boolean
  /** Plan against an empty project without any network call (requires dryRun). */
  readonly offline: boolean
  /** Show the in-cluster objects as YAML in the plan. */
  readonly verbose?: boolean
  /** Retries, the polls of GKE operations, the wait for the JobSet and Kueue controllers. */
  readonly timing: Pick<Timing, 'retry' | 'operations' | 'controllers'>
  /** The in-cluster half (JobSet, Kueue, queues, ConfigMaps); `skip` leaves the cluster's inside alone. */
  readonly inCluster: Pick<InClusterApplyOptions, 'manifestOverrides' | 'installerOverrides'> & {
    readonly skip: boolean
    readonly xpkVersion: string
    /** `--kubeconfig` / `--context` reach the cluster: the kubeconfig is read and checked with the other inputs. */
    readonly viaKubeconfig?: boolean
  }
  /** Who holds the cluster lock this run takes, and when another run's lock counts as abandoned. */
  readonly lock: ClusterLockOptions
}

export interface ClusterCreateDeps extends Omit<ApplyDeps, 'gke' | 'compute'> {
  /** Connects to GKE; never called for offline plans. */
  readonly gke: () => Promise<GkeClient>
  /** Connects to Compute Engine: to read reservations, the GPU networks (and create them), or make a workload placement policy. */
  readonly compute: () => Promise<ComputeClient>
  /**
   * Connects to the cluster's Kubernetes API: through `--kubeconfig` when given, else from the GKE cluster's
   * endpoint and CA (the cluster as GKE reports it now).
   */
  readonly kube: (cluster: ObservedCluster | undefined) => Promise<KubeClient>
  readonly manifests: ReleaseManifestSource
  /** Google's GPUDirect manifests, for the GPU types that install them. */
  readonly installers?: InstallerManifestSource
  readonly signal: AbortSignal
}

/** The plan as data (`steps` etc., see planToJson) plus what was applied. */
export interface ClusterCreateResult extends PlanJson {
  readonly dryRun: boolean
  readonly applied: boolean
  readonly outcomes: readonly StepOutcome[]
  /** The in-cluster plan (null with --skip-in-cluster). */
  readonly inCluster: InClusterPlanJson | null
  /** The cluster lock as the cluster was read (`unread` offline). */
  readonly lock: LockJson
  /** `cluster create-ray`: the RayCluster's plan. */
  readonly ray?: RayPlanJson
}

/**
 * `xpk cluster create`: validate, read what exists, plan, show the plan, confirm destructive steps, then apply
 * exactly that plan. A dry run stops after showing it; an offline dry run plans as if nothing exists.
 */
export async function createCluster(
  options: ClusterCreateOptions,
  deps: ClusterCreateDeps,
): Promise<ClusterCreateResult> {
  const checked = await checkInputs(options, deps)
  let desired = checked.desired
  const {console} = deps
  // The override manifests were read and checked above; planning and the install steps use those very objects.
  // The releases' own are loaded once (memoized) for both.
  const manifests = memoizedManifests(preloaded(deps.manifests, checked.manifests))
  const installers = memoizedInstallers(preloadedInstallers(deps.installers, checked.installers ?? new Map()))
  const installer = installers
    ? (i: GpuInstaller) =>
        installers.load(i, {override: options.inCluster.installerOverrides?.[i.overrideFlag], signal: deps.signal})
    : undefined
  const staleSeconds = options.lock.staleSeconds
  if (options.offline) {
    const plan = planCluster(desired, undefined)
    if (hasKueueLimits(desired.kueueLimits) && !options.inCluster.skip) {
      console.warn(clusterCreateLimitsUnverified({machineType: desired.accelerator.machineType, cause: '--offline'}))
    }
    const inputs = inClusterInputs(desired, options, plan, undefined)
    const inPlan = options.inCluster.skip ? null : planInCluster(inputs, null)
    const rayPlan = planRayFor(desired, plan, options, null)
    const unread = {state: 'unread'} as const
    console.result(withRay(withInCluster(renderPlan(plan, {view: unread, staleSeconds}), inPlan, options), rayPlan))
    console.info(clusterCreateOfflinePlan())
    if (desired.reservations.length > 0) {
      console.info(clusterCreateOfflineReservations({reservations: desired.reservations}))
    }
    return {
      ...planToJson(plan),
      dryRun: true,
      applied: false,
      outcomes: [],
      inCluster: inJson(inPlan),
      lock: lockJson(unread, staleSeconds),
      ...rayJson(rayPlan),
    }
  }

  const gke = await deps.gke()
  // The reads that planning needs go through the same retry policy as every change: one 429 is no reason to stop.
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  // Planning a live cluster compares the releases' objects with what is live, and installing applies them: one load
  // of each, started now so that reading them (2.4 MB) overlaps the GKE reads (a dry run loads them only to compare).
  // A failure surfaces where the manifest is used.
  const release = (component: ReleaseComponent) =>
    manifests.load(component, {override: options.inCluster.manifestOverrides[component], signal: deps.signal})
  if (!options.inCluster.skip && !options.dryRun) {
    for (const component of RELEASE_COMPONENTS) release(component).catch(() => undefined)
  }
  try {
    const spec = desired.spec
    console.info(clusterCreateReading({cluster: spec.name, region: spec.region}))
    const [observed, serverConfig, reservations, kueueLimits] = await Promise.all([
      checkPathwaysMachine(desired, deps, retry),
      withRetries(() => findCluster(gke, spec.project, spec.zone, spec.name), retry).then((cluster) =>
        withHostMaintenance(cluster, gke, retry),
      ),
      withRetries(() => gke.getServerConfig(spec.project, spec.region), retry),
      readReservations(desired, deps, retry),
      options.inCluster.skip
        ? desired.kueueLimits
        : correctKueueLimits(
            {
              limits: desired.kueueLimits,
              machineType: desired.accelerator.machineType,
              project: desired.spec.project,
              zone: desired.spec.zone,
            },
            acceleratorVms(desired, options),
            deps,
            retry,
          ),
    ]).then(([, ...rest]) => rest)
    desired = {...desired, kueueLimits}
    if (!options.inCluster.skip) refusePathwaysConflicts(desired, observed)
    // A reservation that is missing, not READY or of another type is refused before anything else (exit 2).
    const reservationTarget = targetOf(desired)
    const room =
      reservations.reads.length > 0 ? withReservationRoom(desired, reservations, reservationTarget) : undefined
    if (room) desired = room.desired
    // Another run changing the cluster: refused before anything else is read (a dry run only says so).
    const lock = lockOf(observed, options.lock, deps.now())
    if (!options.dryRun) refuseIfHeld(spec.name, lock, options.lock)
    const lockShown = {view: lock, staleSeconds}
    desired = withVersions(desired, observed, serverConfig)
    const gpuNetworks = await lookUpGpuNetworks(desired, deps, retry)
    let plan = planCluster(desired, observed, undefined, gpuNetworks)
    // Only a plan that creates pools naming a workload policy needs to know whether that policy exists.
    if (plan.steps.some((s) => s.resource === 'placementPolicy')) {
      plan = planCluster(desired, observed, await lookUpPlacementPolicy(desired, deps, retry), gpuNetworks)
    }
    if (room) plan = refuseOrNoteShortage(plan, room.capacities, reservationTarget, options.flags.force, desired)
    const inputs = inClusterInputs(desired, options, plan, observed)

    const kube = memoize(async () => {
      if (checked.kube) return checked.kube
      const live =
        observed &&
        observed.status !== 'STOPPING' &&
        !plan.steps.some((s) => s.resource === 'cluster' && s.action === 'create')
      return deps.kube(
        live ? observed : await withRetries(() => findCluster(gke, spec.project, spec.zone, spec.name), retry),
      )
    })
    const observedIn: ObservedInCluster | null =
      !options.inCluster.skip && observed && (observed.status === 'RUNNING' || observed.status === 'RECONCILING')
        ? await readInCluster(await kube(), inputs, retry, release, installer)
        : null
    const inPlan = options.inCluster.skip ? null : planInCluster(inputs, observedIn)
    const rayTarget = options.inCluster.skip ? null : rayTargetAfter(desired, plan)
    const rayPlan = planRayFor(
      desired,
      plan,
      options,
      observedIn && rayTarget ? await readRay(await kube(), rayTarget, retry) : null,
    )
    const shown = withRay(withInCluster(renderPlan(plan, lockShown), inPlan, options), rayPlan)
    const json = {
      ...planToJson(plan),
      inCluster: inJson(inPlan),
      lock: lockJson(lock, staleSeconds),
      ...rayJson(rayPlan),
    }

    if (options.dryRun) {
      console.result(shown)
      noteDryRunLock(spec.name, lock, options.lock, console)
      console.info(clusterCreateDryRun())
      return {...json, dryRun: true, applied: false, outcomes: []}
    }
    const counts = summarize(plan)
    const waits = plan.steps.some((s) => s.wait)
    const inClusterWork = [
      ...(inPlan?.steps.filter(changesSomething) ?? []),
      ...(rayPlan && rayPlan.change !== 'none' ? [rayPlan] : []),
    ]
    if (counts.create + counts.recreate + counts.delete + counts.update === 0 && !waits && inClusterWork.length === 0) {
      console.info(clusterCreatePlan({plan: shown}))
      // Nothing to change, but a stale lock (its run died) is cleared, so others are not refused because of it.
      if (lock.state === 'stale') {
        const lockDeps = {...deps, gke, retry: options.timing.retry}
        const held = newLock('cluster-create', options.lock, deps)
        await takeLock(observed!, held, options.lock, lockDeps)
        await releaseLock(
          {project: plan.project, location: plan.location, name: plan.cluster},
          held,
          options.lock,
          lockDeps,
        )
      }
      return {...json, dryRun: false, applied: true, outcomes: []}
    }
    console.info(clusterCreatePlan({plan: shown}))
    if (observed?.status === 'ERROR') {
      throw new XpkError('conflict', `Cluster ${observed.name} is in ERROR, so its node pools cannot be changed.`, {
        hints: [
          `The cause is on the cluster's page: https://console.cloud.google.com/kubernetes/clusters/details/${observed.location}/${observed.name}/details?project=${observed.project}`,
          'If it cannot be repaired, `xpk cluster delete` it and run `xpk cluster create` again.',
        ],
      })
    }
    if (isDestructive(plan)) {
      const lost = destructiveSteps(plan).map((s) => s.name)
      await confirmOrStop(console, clusterCreateConfirmDeletePools({nodePools: lost}), {
        nothingDone: 'Nothing was changed.',
        hints: ['Adjust --num-slices or the type, or re-run with --force; --dry-run shows the whole plan.'],
      })
    }
    const recreatesNodes = plan.steps.filter((s) => s.resource === 'nodePoolUpdate' && s.action === 'update')
    if (recreatesNodes.length > 0) {
      await confirmOrStop(console, clusterCreateConfirmRecreateNodes({nodePools: recreatesNodes.map((s) => s.name)}), {
        nothingDone: 'Nothing was changed.',
        hints: ['Re-run with --force when the workloads may restart; --dry-run shows the whole plan.'],
      })
    }
    if (inPlan?.destructive) {
      await confirmOrStop(console, clusterCreateConfirmKueueUpgrade(), {
        nothingDone: 'Nothing was changed.',
        hints: ['Re-run with --force to upgrade Kueue, or --skip-in-cluster; --dry-run shows the whole plan.'],
      })
    }
    // The lock, taken with the fingerprint of the read the plan was made from (an existing cluster), or sent with
    // the CreateCluster request (a new one); released however the apply ends.
    const lockDeps = {...deps, gke, retry: options.timing.retry}
    const creates = plan.steps.some((s) => s.resource === 'cluster' && s.action === 'create')
    const held = newLock('cluster-create', options.lock, deps)
    const ref = {project: plan.project, location: plan.location, name: plan.cluster}
    try {
      // Inside the try: Ctrl-C while the SetLabels is on the wire may still leave the lock set, and the release
      // (which removes only this run's lock) must then run.
      if (!creates) await takeLock(observed!, held, options.lock, lockDeps)
      // The RayCluster, after every node-pool step: its sizes come from their nodes.
      const withRaySteps = () =>
        rayPlan
          ? rayClusterStep(
              rayPlan,
              {kube, manifests, retry},
              {availableTimeoutMs: options.timing.controllers.timeoutMs, poll: options.timing.controllers.poll},
              nodePoolStepIds(plan),
            )
          : []
      const result = await applyClusterPlan(
        creates ? planWithLock(plan, held.holder) : plan,
        {...deps, gke},
        {
          timing: options.timing,
          concurrency: desired.maxParallel ?? DEFAULT_APPLY_CONCURRENCY,
          signal: deps.signal,
          claimCluster: creates ? claimNewCluster(spec.name, held, options.lock, deps.now) : undefined,
          inCluster: inPlan
            ? inClusterSteps(
                inPlan,
                {kube, manifests, installers, retry},
                {
                  manifestOverrides: options.inCluster.manifestOverrides,
                  installerOverrides: options.inCluster.installerOverrides,
                  availableTimeoutMs: options.timing.controllers.timeoutMs,
                  poll: options.timing.controllers.poll,
                },
                {
                  after: nodePoolStepIds(plan),
                  // The quota is made for the pools RUNNING once the node-pool steps are done, failed ones or not.
                  replan: async () => {
                    const pools = await withRetries(() => gke.listNodePools(ref), retry)
                    const shape = shapeOfRunningPools(inputs.shape, desired, pools)
                    return planInCluster({...inputs, shape}, observedIn)
                  },
                },
              ).concat(withRaySteps())
            : [],
        },
      )
      // Another run created the cluster first: this one changed nothing and says whose it is.
      const refused = result.outcomes.find((o) => isLockRefusal(o.error))
      if (refused) throw refused.error
      report(plan, result, console)
      if (result.interrupted) {
        const message = result.sentChanges
          ? 'Interrupted: operations already sent to GKE (and Compute Engine) keep running.'
          : 'Interrupted before any change was sent to GKE.'
        throw new XpkError('interrupted', message, {
          hints: ['Re-run the same command to finish: it picks up what exists and does only the rest.'],
        })
      }
      const failures = result.outcomes.filter((o) => o.status === 'failed' || o.status === 'skipped')
      if (failures.length > 0) throw failureError(failures, result.poolsCreated, result.poolsWanted)
      return {...json, dryRun: false, applied: true, outcomes: result.outcomes}
    } finally {
      await releaseLock(ref, held, options.lock, lockDeps)
    }
  } finally {
    await gke.close()
  }
}

/** The inputs of a run, each read and checked. */
export interface CheckedInputs {
  readonly desired: DesiredCluster
  /** The `--jobset-manifest` / `--kueue-manifest` files or downloads, parsed and checked. */
  readonly manifests: Partial<Record<ReleaseComponent, ReleaseManifest>>
  /** The cluster's Kubernetes API through `--kubeconfig` / `--context`, its kubeconfig read and checked. */
  readonly kube?: KubeClient
  /** The GPU installer manifests given by flag, read and checked, by installer name. */
  readonly installers?: ReadonlyMap<string, InstallerManifest>
}

/**
 * Every input `cluster create` reads, read and checked before anything is planned or sent (issue 17): the flags,
 * the manifest files or URLs that replace the releases' (read, downloaded and parsed now, in an offline dry run
 * too, where a URL cannot be read and is refused), and the kubeconfig. Usage problems are reported together.
 */
async function checkInputs(options: ClusterCreateOptions, deps: ClusterCreateDeps): Promise<CheckedInputs> {
  const problems = new Problems()
  const desired = problems.attempt(() => desiredClusterFromFlags(options.flags))
  const overrides = {...(options.inCluster.skip ? {} : options.inCluster.manifestOverrides)}
  // An offline dry run reads no URL: such an override is refused here, and not read below.
  for (const component of RELEASE_COMPONENTS) {
    const override = overrides[component]
    const flag = RELEASES[component].overrideFlag
    if (override === undefined || !options.offline) continue
    const form = parseManifestOverride(override)
    if ('problem' in form || form.kind !== 'url') continue
    problems.add(`${flag} ${escapeControl(override)}: --offline makes no network call, so the URL cannot be read.`, {
      flag,
      hints: [`Download it and pass the file (${flag} <file>), or leave out --offline.`],
    })
    delete overrides[component]
  }
  // Before the access check, which throws every problem found so far: a bad installer file is said with the rest.
  const installers = await checkInstallerOverrides(problems, desired, options, deps)
  const access = await checkInClusterAccess(
    problems,
    {overrides, viaKubeconfig: !options.inCluster.skip && options.inCluster.viaKubeconfig === true},
    deps,
  )
  return {desired: desired as DesiredCluster, ...access, installers}
}

/**
 * `--nccl-installer-manifest` / `--nri-device-injector-manifest`: refused for a type that installs no such thing,
 * and (a URL offline aside) read and checked now, so a bad file is exit 2 before anything is sent.
 */
async function checkInstallerOverrides(
  problems: Problems,
  desired: DesiredCluster | undefined,
  options: ClusterCreateOptions,
  deps: ClusterCreateDeps,
): Promise<ReadonlyMap<string, InstallerManifest>> {
  const loaded = new Map<string, InstallerManifest>()
  const given = Object.entries(options.inCluster.installerOverrides ?? {}).filter(
    (e): e is [GpuInstaller['overrideFlag'], string] => e[1] !== undefined,
  )
  if (given.length === 0 || options.inCluster.skip || desired === undefined) return loaded
  const installers = gpuInstallersFor(desired.accelerator)
  await Promise.all(
    given.map(async ([flag, override]) => {
      const installer = installers.find((i) => i.overrideFlag === flag)
      if (installer === undefined) {
        const what = flag === '--nri-device-injector-manifest' ? 'NRI device injector' : 'NCCL installer'
        problems.add(`${flag}: ${desired.accelerator.canonical} clusters get no ${what}.`, {
          flag,
          hints: [`Leave out ${flag}: ${describeInstallerTypes(flag)}.`],
        })
        return
      }
      const form = parseManifestOverride(override)
      if ('problem' in form) {
        problems.add(`${flag} ${escapeControl(override)}: ${form.problem}.`, {flag})
        return
      }
      if (options.offline && form.kind === 'url') {
        problems.add(
          `${flag} ${escapeControl(override)}: --offline makes no network call, so the URL cannot be read.`,
          {
            flag,
            hints: [`Download it and pass the file (${flag} <file>), or leave out --offline.`],
          },
        )
        return
      }
      if (deps.installers === undefined) return
      try {
        loaded.set(installer.name, await deps.installers.load(installer, {override, signal: deps.signal}))
      } catch (error) {
        if (error instanceof UsageError) problems.push(error)
        else throw error
      }
    }),
  )
  return loaded
}

function describeInstallerTypes(flag: GpuInstaller['overrideFlag']): string {
  return flag === '--nri-device-injector-manifest'
    ? 'only h100-80gb-8 and h100-mega-80gb-8 clusters install the NRI device injector'
    : 'only h100-80gb-8, h100-mega-80gb-8, h200-141gb-8 and b200-8 clusters install an NCCL plugin'
}

/** An installer source that loads each manifest once per override: planning compares it, installing applies it. */
function memoizedInstallers(source: InstallerManifestSource | undefined): InstallerManifestSource | undefined {
  if (source === undefined) return undefined
  const loads = new Map<string, Promise<InstallerManifest>>()
  return {
    load: (installer, options = {}) => {
      const key = `${installer.name}\n${options.override ?? ''}`
      let loading = loads.get(key)
      if (!loading) {
        loading = source.load(installer, options)
        loads.set(key, loading)
        // A failed load is not kept: the retry policy's next attempt loads again.
        loading.catch(() => loads.get(key) === loading && loads.delete(key))
      }
      return loading
    },
  }
}

/** An installer source that answers with the override manifests already read, and asks `source` for the others. */
function preloadedInstallers(
  source: InstallerManifestSource | undefined,
  loaded: ReadonlyMap<string, InstallerManifest>,
): InstallerManifestSource | undefined {
  if (source === undefined) return undefined
  return {load: (installer, options) => Promise.resolve(loaded.get(installer.name) ?? source.load(installer, options))}
}

/**
 * The manifest files or URLs that replace the releases' (read, downloaded and parsed now) and the kubeconfig,
 * checked with the other inputs (`problems`, thrown here with theirs), so a bad file is exit 2 before anything is
 * sent. Shared by `cluster create` and `cluster adapt`.
 */
export async function checkInClusterAccess(
  problems: Problems,
  options: {
    readonly overrides: Partial<Record<ReleaseComponent, string>>
    readonly viaKubeconfig: boolean
  },
  deps: Pick<ClusterCreateDeps, 'manifests' | 'kube' | 'signal'>,
): Promise<Omit<CheckedInputs, 'desired'>> {
  const overrides = options.overrides
  const loads: Promise<readonly [ReleaseComponent, ReleaseManifest]>[] = []
  for (const component of RELEASE_COMPONENTS) {
    const override = overrides[component]
    if (override === undefined) continue
    const flag = RELEASES[component].overrideFlag
    const form = parseManifestOverride(override)
    if ('problem' in form) {
      problems.add(`${flag} ${escapeControl(override)}: ${form.problem}.`, {flag})
    } else {
      loads.push(deps.manifests.load(component, {override, signal: deps.signal}).then((m) => [component, m] as const))
    }
  }
  const [loaded, kube] = await Promise.all([
    Promise.allSettled(loads),
    options.viaKubeconfig
      ? deps.kube(undefined).then(
          (client) => ({client}),
          (error: unknown) => ({error}),
        )
      : undefined,
  ])
  const failures: unknown[] = []
  for (const result of [...loaded, ...(kube && 'error' in kube ? [{status: 'rejected', reason: kube.error}] : [])]) {
    if (result.status !== 'rejected') continue
    if (result.reason instanceof UsageError) problems.push(result.reason)
    else failures.push(result.reason)
  }
  problems.throwIfAny()
  if (failures.length > 0) throw failures[0]
  const manifests = Object.fromEntries(
    loaded.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
  ) as CheckedInputs['manifests']
  return {manifests, kube: kube && 'client' in kube ? kube.client : undefined}
}

/** A manifest source that answers with the manifests already read, and asks `source` for the others. */
export function preloaded(source: ReleaseManifestSource, manifests: CheckedInputs['manifests']): ReleaseManifestSource {
  return {load: (component, options) => Promise.resolve(manifests[component] ?? source.load(component, options))}
}

/** The VMs of one node pool, for the reservation check: the slice's (TPU, CPU) or --num-nodes (GPU). */
function targetOf(desired: DesiredCluster): ReservationTarget {
  const a = desired.accelerator
  return {
    accelerator: a,
    zone: desired.spec.zone,
    vmsPerPool: a.kind === 'GPU' ? desired.poolTemplate.nodeCount || 1 : a.vmsPerSlice,
    ...(desired.slicing ? {denseFor: SLICING_FLAGS[desired.slicing]} : {}),
  }
}

/**
 * Reads every `--reservation` item in the cluster's zone (reservation-reads.ts, which `xpk doctor` shares), or
 * nothing for other capacity.
 */
async function readReservations(
  desired: DesiredCluster,
  deps: ClusterCreateDeps,
  retry: RetryOptions,
): Promise<ReservationsRead> {
  if (desired.poolTemplate.capacity !== 'reservation' || desired.reservations.length === 0) {
    return {reads: [], subBlocks: []}
  }
  const {project, zone} = desired.spec
  return readReservationItems(await deps.compute(), {project, zone}, desired.reservations, {
    subBlocks: desired.slicing === 'super',
    retry,
  })
}

/**
 * Refuses reservations that cannot be used at all (missing, not READY, another zone or type: exit 2 naming
 * --reservation, --force or not, since GKE would refuse every pool), and gives the planner each one's room.
 */
/**
 * The cluster with its own pools' host maintenance intervals, which only GKE's v1beta1 API reports: one more read
 * (a v1beta1 ListNodePools), only when the cluster has pools of its own that the plan compares with the request, so
 * that a pool of the other interval is recreated and one of the same is kept, whichever interval is asked. A new
 * cluster, or one without xpk's pools, costs nothing more.
 */
async function withHostMaintenance(
  observed: ObservedCluster | undefined,
  gke: GkeClient,
  retry: RetryOptions,
): Promise<ObservedCluster | undefined> {
  const compared = observed?.nodePools.some(
    (p) => p.status !== 'STOPPING' && ownPoolIndex(observed.name, p.name) !== undefined,
  )
  if (!observed || !compared || observed.status === 'STOPPING') return observed
  const ref = {project: observed.project, location: observed.location, name: observed.name}
  const read = await withRetries(() => gke.listNodePools(ref, {hostMaintenance: true}), retry)
  const intervals = new Map(read.map((p) => [p.name, p.hostMaintenanceInterval]))
  return {
    ...observed,
    nodePools: observed.nodePools.map((p) => {
      const interval = intervals.get(p.name)
      return interval ? {...p, hostMaintenanceInterval: interval} : p
    }),
  }
}

function withReservationRoom(
  desired: DesiredCluster,
  {reads, subBlocks}: ReservationsRead,
  target: ReservationTarget,
): {desired: DesiredCluster; capacities: readonly ReservationCapacity[]} {
  const verdict = checkReservations(reads, target)
  const problems = new Problems()
  for (const problem of verdict.problems) {
    problems.add(`--reservation: ${problem}.`, {
      flag: '--reservation',
      hints: [
        `xpk looks for reservations in the cluster's zone (${target.zone}); \`gcloud compute reservations list --project=PROJECT\` lists them with their zones, types and status.`,
        ...(target.denseFor
          ? ['`gcloud compute reservations list --filter="deploymentType=DENSE"` lists Cluster Director reservations.']
          : []),
      ],
    })
  }
  const asked = desired.poolTemplate.hostMaintenanceInterval
  for (const m of maintenanceIntervalMismatches(reads, asked)) {
    const reserved = m.reserved ?? 'unset (AS_NEEDED)'
    problems.add(
      `--host-maintenance-interval ${asked}: reservation ${m.reservation} has maintenance interval ${reserved}, and GKE gives a reservation's VMs only to node pools of the same interval.`,
      {
        flag: '--host-maintenance-interval',
        hints: [
          m.reserved === 'PERIODIC'
            ? `Add --host-maintenance-interval PERIODIC, reservation ${m.reservation}'s.`
            : `Leave --host-maintenance-interval out (AS_NEEDED) for reservation ${m.reservation}, or use a reservation whose VMs have maintenance interval PERIODIC.`,
        ],
      },
    )
  }
  problems.throwIfAny()
  if (desired.slicing !== 'super') {
    const reservationRoom = new Map(verdict.capacities.map((c) => [c.path, c.freeSlices]))
    return {desired: {...desired, reservationRoom}, capacities: verdict.capacities}
  }
  // Super-slicing: each pool goes on one healthy sub-block, those an item names or those listed under it.
  const named = reads.filter((r) => r.ref.subBlock !== null)
  const capacities = [
    ...verdict.capacities.filter((c) => named.some((r) => r.ref.path === c.path)),
    ...subBlockCapacities(subBlocks, target.vmsPerPool),
  ]
  const healthy = [
    ...named.filter((r) => r.subBlock && partUnusable(r.subBlock) === null).map((r) => r.ref.path),
    ...subBlocks.filter((s) => partUnusable(s.subBlock) === null).map(subBlockPath),
  ]
  const reservationRoom = new Map(capacities.map((c) => [c.path, c.freeSlices]))
  return {desired: {...desired, reservationRoom, poolReservations: healthy}, capacities}
}

/**
 * The pools the plan creates must fit the reservations' room: a shortage is exit 2 with the numbers, before any
 * change, unless --force, which goes on and says so in the plan (pools that find no room fail or wait in GKE).
 */
function refuseOrNoteShortage(
  plan: Plan,
  capacities: readonly ReservationCapacity[],
  target: ReservationTarget,
  force: boolean | undefined,
  desired: DesiredCluster,
): Plan {
  const newPools = plan.steps.filter(
    (s) => s.resource === 'nodePool' && (s.action === 'create' || s.action === 'recreate'),
  ).length
  const shortage =
    desired.slicing === 'super'
      ? subBlockShortage(desired.reservations, capacities, target, newPools)
      : reservationShortage(capacities, target, newPools)
  if (shortage === null) return plan
  if (!force) {
    throw new UsageError(`--reservation: ${shortage}.`, {
      flag: '--reservation',
      hints: [
        'Ask for fewer slices (--num-slices), add a reservation with room (--reservation r1,r2), or free VMs in it.',
        'To create the pools anyway (those without room fail or wait in GKE until VMs are free), re-run with --force.',
      ],
    })
  }
  return {...plan, warnings: [...plan.warnings, `${shortage}; going on because of --force.`]}
}

/**
 * `--cpu-limit` / `--memory-limit` against the capacity of the cluster's accelerator VMs (see kueue-limits.ts: not
 * one VM's, as Python xpk has it), each difference said in a note. A machine type that cannot be read leaves them as given, with a
 * warning, as Python does; an interrupt stops the run.
 */
export async function correctKueueLimits(
  {limits, machineType, project, zone}: {limits: KueueLimits; machineType: string; project: string; zone: string},
  vms: number,
  deps: Pick<ClusterCreateDeps, 'compute' | 'console'>,
  retry: RetryOptions,
): Promise<KueueLimits> {
  if (!hasKueueLimits(limits)) return limits
  let capacity
  try {
    const compute = await deps.compute()
    capacity = await withRetries(() => compute.getMachineType(project, zone, machineType), retry)
  } catch (error) {
    if (!(error instanceof XpkError) || error.kind === 'interrupted' || error.kind === 'usage') throw error
    deps.console.warn(clusterCreateLimitsUnverified({machineType, cause: error.message.replace(/\.$/, '')}))
    return limits
  }
  if (capacity === undefined) {
    deps.console.warn(clusterCreateLimitsUnverified({machineType, cause: `zone ${zone} has no such machine type`}))
    return limits
  }
  const corrected = autocorrectLimits(limits, capacity, vms)
  for (const c of corrected.corrections) deps.console.info(clusterCreateLimitCorrected({...c, machineType, vms}))
  return corrected.limits
}

/**
 * `--pathways-gce-machine-type` against the zone's machine types, as Python xpk checks it (present, and at least
 * 49 vCPUs and 233 GiB): exit 2 naming the flag, before anything is sent. Nothing to read without Pathways.
 */
async function checkPathwaysMachine(
  desired: DesiredCluster,
  deps: ClusterCreateDeps,
  retry: RetryOptions,
): Promise<void> {
  const request = desired.pathways
  if (!request) return
  const {project, zone} = desired.spec
  const compute = await deps.compute()
  const found = await withRetries(() => compute.getMachineType(project, zone, request.machineType), retry)
  const problem = pathwaysMachineProblem(request.machineType, zone, found)
  if (problem === undefined) return
  throw new UsageError(`--pathways-gce-machine-type "${escapeControl(request.machineType)}" ${problem}.`, {
    flag: '--pathways-gce-machine-type',
    hints: [
      `\`gcloud compute machine-types list --filter="zone=${zone} AND guestCpus>=49 AND memoryMb>=238592"\` lists those that fit; ${DEFAULT_PATHWAYS_MACHINE_TYPE} is the default.`,
    ],
  })
}

/**
 * A cluster that has the Pathways CPU pool stays a Pathways cluster under `cluster create`: its ClusterQueue keeps
 * the `cpu-user` group, which covers cpu and memory. A `--cpu-limit` / `--memory-limit`, or a CPU type (whose
 * quota is cpu), would make Kueue refuse the ClusterQueue: exit 2 naming the flag, before anything is sent.
 */
function refusePathwaysConflicts(desired: DesiredCluster, observed: ObservedCluster | undefined): void {
  if (desired.pathways || !hasPathwaysPool(observed)) return
  const problems = new Problems()
  const cluster = desired.spec.name
  const why = `cluster ${cluster} is a Pathways cluster (node pool ${PATHWAYS_CPU_POOL}), whose ClusterQueue gives cpu and memory to the Pathways heads' group`
  for (const [flag, given] of [
    ['--cpu-limit', desired.kueueLimits.cpu],
    ['--memory-limit', desired.kueueLimits.memory],
  ] as const) {
    if (given === null) continue
    problems.add(`${flag}: ${why}; Kueue refuses a resource two groups cover.`, {
      flag,
      hints: [`Leave ${flag} out for this cluster.`],
    })
  }
  if (desired.accelerator.kind === 'CPU') {
    problems.add(`${desired.accelerator.name} is a CPU type, counted in cpu, and ${why}.`, {
      flag: '--device-type',
      hints: ['Keep the cluster on TPUs, or delete node pool cpu-np first to make it a CPU cluster.'],
    })
  }
  problems.throwIfAny()
}

/** Whether the cluster has the Pathways CPU pool (not being deleted). */
function hasPathwaysPool(observed: ObservedCluster | undefined): boolean {
  return (
    observed !== undefined &&
    observed.status !== 'STOPPING' &&
    observed.nodePools.some((p) => p.name === PATHWAYS_CPU_POOL && p.status !== 'STOPPING')
  )
}

/** The VMs of the accelerator pools the cluster is to hold: GPU `--num-nodes`, else slices x VMs per slice. */
function acceleratorVms(desired: DesiredCluster, options: ClusterCreateOptions): number {
  const a = desired.accelerator
  return a.kind === 'GPU'
    ? Number(options.flags.numNodes ?? CLUSTER_DEFAULTS.gpuNumNodes)
    : desired.poolCount * a.vmsPerSlice
}

/** Whether the workload policy the pools name exists and is usable; a different policy under its name is an error. */
async function lookUpPlacementPolicy(
  desired: DesiredCluster,
  deps: ClusterCreateDeps,
  retry: RetryOptions,
): Promise<PlacementPolicyState> {
  const placement = desired.poolTemplate.placementPolicy
  if (placement?.type !== 'workload-policy') return undefined
  const {project, region} = desired.spec
  const compute = await deps.compute()
  const found = await withRetries(() => compute.getWorkloadPolicy(project, region, placement.name), retry)
  if (found === undefined) return 'missing'
  const problems = [
    found.acceleratorTopology && found.acceleratorTopology !== placement.topology
      ? `accelerator topology ${found.acceleratorTopology} instead of ${placement.topology}`
      : undefined,
    found.type && found.type !== 'HIGH_THROUGHPUT' ? `type ${found.type} instead of HIGH_THROUGHPUT` : undefined,
    placement.mode && found.acceleratorTopologyMode !== placement.mode
      ? `accelerator topology mode ${found.acceleratorTopologyMode ?? 'unset'} instead of ${placement.mode}`
      : undefined,
    found.status && !['READY', 'CREATING'].includes(found.status) ? `status ${found.status}` : undefined,
  ].filter((p) => p !== undefined)
  if (problems.length > 0) {
    throw new XpkError(
      'conflict',
      `Workload policy ${placement.name} in ${region} cannot be used: it has ${problems.join(', ')}.`,
      {
        hints: [
          `Delete it (\`gcloud compute resource-policies delete ${placement.name} --project=${project} --region=${region}\`) once no node pool uses it, and re-run: xpk creates it as needed.`,
        ],
      },
    )
  }
  return found.status === 'CREATING' ? 'creating' : 'exists'
}

/**
 * The GPU networks, subnetworks and firewall rules the pools need, read by name (none for other types). One of those
 * names that holds something else than xpk would make (another MTU, range or rule) is a conflict: xpk never changes
 * or replaces a network others may use, so it is refused (exit 6) before anything is sent.
 */
async function lookUpGpuNetworks(
  desired: DesiredCluster,
  deps: ClusterCreateDeps,
  retry: RetryOptions,
): Promise<ObservedGpuNetworks | undefined> {
  const networks = desired.gpuNetworks ?? []
  if (networks.length === 0) return undefined
  const compute = await deps.compute()
  const {project, region} = desired.spec
  const read = <T>(call: () => Promise<T | undefined>) => withRetries(call, retry)
  const [nets, subs, rules] = await Promise.all([
    Promise.all(uniqueNetworks(networks).map((n) => read(() => compute.getNetwork(project, n.name)))),
    Promise.all(networks.map((n) => read(() => compute.getSubnetwork(project, region, n.subnetwork.name)))),
    Promise.all(firewallsOf(networks).map((f) => read(() => compute.getFirewall(project, f.name)))),
  ])
  const byName = <T extends {name: string}>(found: readonly (T | undefined)[]) =>
    new Map(found.filter((x): x is T => x !== undefined).map((x) => [x.name, x]))
  const observed = {networks: byName(nets), subnetworks: byName(subs), firewalls: byName(rules)}
  const differences = gpuNetworkDifferences(networks, observed)
  if (differences.length > 0) {
    throw new XpkError(
      'conflict',
      `The GPU networks of cluster ${desired.spec.name} exist with other settings than ${desired.accelerator.name} needs: ${differences.join('; ')}.`,
      {
        hints: [
          'xpk does not change networks others may use. Delete them (`gcloud compute firewall-rules delete`, `gcloud compute networks subnets delete`, `gcloud compute networks delete`) once nothing uses them and re-run, or pick another --cluster name.',
        ],
      },
    )
  }
  return observed
}

/** Fills in the control-plane and node versions from the server config (or the existing cluster). */
function withVersions(
  desired: DesiredCluster,
  observed: ObservedCluster | undefined,
  serverConfig: {
    validNodeVersions: readonly string[]
    channels: Readonly<Record<string, {defaultVersion: string; validVersions: readonly string[]}>>
  },
): DesiredCluster {
  const spec = desired.spec
  const pinned = spec.version ?? undefined
  const channel = serverConfig.channels[spec.releaseChannel] ?? {defaultVersion: '', validVersions: []}
  // A cluster being deleted is about to be replaced: its version says nothing about the new one.
  const live = observed && observed.status !== 'STOPPING' ? observed : undefined
  const controlPlane = live?.version || chooseControlPlaneVersion(channel, pinned)
  const nodeVersion = pinned ?? (controlPlane ? chooseNodeVersion(controlPlane, serverConfig.validNodeVersions) : null)
  return {
    ...desired,
    spec: {...spec, version: live ? spec.version : controlPlane || null},
    poolTemplate: {...desired.poolTemplate, version: nodeVersion || null},
  }
}

function report(plan: Plan, result: ApplyResult, console: Console): void {
  const {outcomes, poolsCreated, poolsFound, poolsWanted} = result
  const deleted = outcomes.filter(
    (o) => o.resource === 'nodePool' && o.action === 'delete' && o.status === 'done',
  ).length
  const parts: string[] = []
  if (outcomes.some((o) => o.resource === 'cluster' && o.action === 'create' && o.status === 'done'))
    parts.push('created the cluster')
  if (outcomes.some((o) => o.resource === 'placementPolicy' && o.status === 'done'))
    parts.push('created the placement policy')
  const networkParts = outcomes.filter((o) => NETWORK_RESOURCES.has(o.resource) && o.status === 'done').length
  if (networkParts > 0) parts.push(`created ${networkParts} GPU network resource${networkParts === 1 ? '' : 's'}`)
  for (const o of outcomes.filter((o) => o.resource === 'clusterUpdate' && o.status === 'done'))
    parts.push(`enabled ${o.name}`)
  // Counts say what this run did: nothing to create is not "created 0/0", and pools another run made are not ours.
  if (poolsWanted > 0) parts.push(`created ${poolsCreated}/${poolsWanted} node pools`)
  if (poolsFound > 0) parts.push(`found ${poolsFound} already made by another run`)
  if (deleted > 0) parts.push(`deleted ${deleted} node pool${deleted === 1 ? '' : 's'}`)
  const switched = outcomes.filter((o) => o.resource === 'nodePoolUpdate' && o.status === 'done').length
  if (switched > 0) {
    parts.push(`switched ${switched} node pool${switched === 1 ? '' : 's'} to the GKE metadata server`)
  }
  const done = (o: StepOutcome) => o.status === 'done'
  for (const o of outcomes.filter((o) => o.resource === 'release' && done(o)))
    parts.push(`${o.action}ed ${o.name}`.replace('eed', 'ed'))
  const objects = outcomes.filter((o) => !GKE_RESOURCES.has(o.resource) && done(o)).length
  if (objects > 0) parts.push(`applied ${objects} object${objects === 1 ? '' : 's'} inside the cluster`)
  if (parts.length === 0) parts.push('waited for the node pools to be ready')
  console.info(
    clusterCreateSummary({
      cluster: plan.cluster,
      did: parts,
      poolsCreated,
      poolsWanted,
      poolsFound,
      poolsDeleted: deleted,
    }),
  )
}

/** One error for all failed steps: each failure's cause listed, hints merged, and the causes' shared kind's exit code. */
function failureError(failures: readonly StepOutcome[], created: number, wanted: number): XpkError {
  // Skipped steps are consequences: the exit code follows the failures that caused them.
  const causes = failures.filter((f) => f.status === 'failed')
  const kind = combinedKind((causes.length > 0 ? causes : failures).map((f) => f.error?.kind ?? 'failed'))
  const lines = failures.map((f) => `  ${f.name}: ${f.error?.message ?? 'failed'}`)
  const hints = [...new Set(failures.flatMap((f) => f.error?.hints ?? []))]
  // One story for what a re-run does, told the same way the re-run's plan will tell it.
  const clusterFailed = causes.some((f) => f.resource === 'cluster')
  const poolsFailed = failures.some(
    (f) => f.resource === 'nodePool' || f.resource === 'placementPolicy' || NETWORK_RESOURCES.has(f.resource),
  )
  const updatesFailed = failures.some((f) => f.resource === 'clusterUpdate' || f.resource === 'nodePoolUpdate')
  const rerun = clusterFailed
    ? 'The cluster itself did not come up, so a re-run cannot repair it: `xpk cluster delete` it, then run the same `xpk cluster create` again.'
    : poolsFailed
      ? 'Re-run the same command: it creates the pools that are missing and replaces those in ERROR (a pool whose creation failed for capacity had no nodes, so that asks nothing); pools that are ready are kept.'
      : updatesFailed
        ? 'Re-run the same command once the cause is fixed: it sends only the updates the cluster and its pools still lack.'
        : 'Re-run the same command once the cause is fixed: it applies only what is still missing or different inside the cluster.'
  return new XpkError(
    kind,
    `${failures.length} step${failures.length === 1 ? '' : 's'} failed (created ${created}/${wanted} node pools):\n${lines.join('\n')}`,
    {hints: [...hints, rerun]},
  )
}

/** The GPU networks' steps (Compute Engine). */
const NETWORK_RESOURCES = new Set(['network', 'subnetwork', 'firewall'])

/** Resources of the GKE half and the in-cluster steps that are not objects applied. */
const GKE_RESOURCES = new Set([
  ...NETWORK_RESOURCES,
  'cluster',
  'clusterUpdate',
  'nodePool',
  'nodePoolUpdate',
  'placementPolicy',
  'release',
  'controller',
  'kubernetes',
  'quota',
  'coredns',
  'installer',
])

/** What the cluster holds once `plan` is applied, as the in-cluster objects see it. */
function inClusterInputs(
  desired: DesiredCluster,
  options: ClusterCreateOptions,
  plan: Plan,
  observed: ObservedCluster | undefined,
): InClusterInputs {
  const flags = options.flags
  const gpu = desired.accelerator.kind === 'GPU'
  const shape: ClusterShape = {
    clusterName: desired.spec.name,
    accelerator: desired.accelerator,
    numSlices: gpu ? 1 : desired.poolCount,
    numNodes: gpu ? Number(flags.numNodes ?? CLUSTER_DEFAULTS.gpuNumNodes) : 0,
    capacity: desired.poolTemplate.capacity,
    reservation: flags.reservation ?? null,
    cpuQuota: desired.kueueLimits.cpu,
    memoryQuota: desired.kueueLimits.memory,
    autoprovisioning: desired.autoprovisioning,
    ...(desired.slicing ? {slicing: desired.slicing} : {}),
    ...(desired.pathways || hasPathwaysPool(observed) ? {pathways: true} : {}),
  }
  const installers = gpuInstallersFor(desired.accelerator)
  return {
    shape,
    xpkVersion: options.inCluster.xpkVersion,
    expectedNodes: clusterVmCount(shape) + desired.spec.defaultPool.nodeCount + (shape.pathways ? 1 : 0),
    placement: placementAfterPlan(plan, observed),
    nodePoolsChange: nodePoolStepIds(plan).length > 0,
    coreDns: {replicas: coreDnsReplicas(desired.spec.defaultPool.nodeCount)},
    ...(desired.gpuNetworks?.length ? {gpuNetworks: desired.gpuNetworks} : {}),
    ...(installers.length > 0 ? {gpuInstallers: installers} : {}),
  }
}

function withInCluster(text: string, plan: InClusterPlan | null, options: ClusterCreateOptions): string {
  return plan ? `${text}\n${renderInClusterPlan(plan, {verbose: options.verbose})}` : text
}

/** `cluster create-ray`'s RayCluster, planned beside the in-cluster objects (null without --ray-version). */
function planRayFor(
  desired: DesiredCluster,
  plan: Plan,
  options: ClusterCreateOptions,
  observed: Parameters<typeof planRay>[1],
): RayPlan | null {
  const target = options.inCluster.skip ? null : rayTargetAfter(desired, plan)
  return target ? planRay(target, observed, nodePoolStepIds(plan).length > 0) : null
}

function withRay(text: string, plan: RayPlan | null): string {
  return plan ? `${text}\n${renderRayPlan(plan)}` : text
}

function rayJson(plan: RayPlan | null): {ray?: RayPlanJson} {
  return plan ? {ray: rayPlanToJson(plan)} : {}
}

function inJson(plan: InClusterPlan | null): InClusterPlanJson | null {
  return plan ? inClusterPlanToJson(plan) : null
}

function memoize<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined
  return () => (made ??= make())
}
