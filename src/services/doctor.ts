/**
 * `xpk doctor`: every check in one round, each read with its own time limit and few retries, the in-cluster reads
 * after the cluster is found; core/doctor/checks.ts decides each one. Reads only: no request changes anything.
 */
import {checkReservations, reservationShortage} from '../core/cluster/reservations.js'
import type {ObservedCluster} from '../core/cluster/observed.js'
import {
  apisCheck,
  clusterCheck,
  credentialsCheck,
  dockerCheck,
  isFailure,
  kubernetesCheck,
  nodeCheck,
  permissionsCheck,
  projectCheck,
  quotaCheck,
  registryCheck,
  releaseCheck,
  report,
  reservationsCheck,
  xpkVersionCheck,
  type Check,
  type DoctorReport,
  type Read,
  type ReadFailure,
} from '../core/doctor/checks.js'
import type {DoctorCapacity} from '../core/doctor/inputs.js'
import {ALL_PLANNED_PERMISSIONS, REQUIRED_CRDS} from '../core/doctor/requirements.js'
import {UsageError, XpkError} from '../core/errors.js'
import {controllerState} from '../core/incluster/describe.js'
import {metadataConfigMapName, parseMetadataConfigMap} from '../core/incluster/configmaps.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import {RELEASES} from '../core/kube/release-manifest.js'
import {zoneToRegion} from '../core/settings.js'
import type {Timing} from '../core/timing.js'
import {JOBSET_VERSION, KUEUE_VERSION} from '../core/versions.js'
import {withRetries, type Clock, type RetryOptions} from '../executor/retry.js'
import type {ComputeClient} from '../ports/compute.js'
import type {GoogleCredentialsProbe} from '../ports/credentials.js'
import type {GkeClient} from '../ports/gke.js'
import type {EngineProbe, RegistryCredentials} from '../ports/images.js'
import type {KubeClient} from '../ports/kube.js'
import type {ResourceManagerClient} from '../ports/resource-manager.js'
import type {ServiceUsageClient} from '../ports/service-usage.js'
import {findCluster} from './cluster-lookup.js'
import {readReservationItems} from './reservation-reads.js'

export type {DoctorReport} from '../core/doctor/checks.js'

export interface DoctorOptions {
  readonly project?: string
  readonly zone?: string
  readonly cluster?: string
  /** `--kubeconfig` / `--context`: the cluster is reached through them, GKE is not asked about it. */
  readonly viaKubeconfig: boolean
  readonly capacity: DoctorCapacity
  /** The registry setting (`--registry`, XPK_REGISTRY, xpk config); gcr.io/PROJECT without it. */
  readonly registry?: string
  readonly xpkVersion: string
  readonly nodeVersion: string
  readonly timing: Pick<Timing, 'retry'>
  /** How long each check may take before it fails as unanswered. */
  readonly checkTimeLimitMs: number
}

export interface DoctorDeps extends Clock {
  readonly signal: AbortSignal
  readonly credentials: () => Promise<GoogleCredentialsProbe>
  readonly resourceManager: () => Promise<ResourceManagerClient>
  readonly serviceUsage: () => Promise<ServiceUsageClient>
  readonly compute: () => Promise<ComputeClient>
  readonly gke: () => Promise<GkeClient>
  readonly kube: (cluster: ObservedCluster | undefined) => Promise<KubeClient>
  readonly engine: () => Promise<EngineProbe>
  readonly registryCredentials: () => Promise<RegistryCredentials>
}

/** Attempts per read: a doctor says what is wrong rather than wait it out. */
const DOCTOR_READ_ATTEMPTS = 2

/** Runs every check that applies and returns them in a fixed order, whatever order they finished in. */
export async function runDoctor(options: DoctorOptions, deps: DoctorDeps): Promise<DoctorReport> {
  const run = <T>(read: (retry: RetryOptions) => Promise<T>) => timed(options, deps, read)
  const lazy = connections(deps)
  // A kubeconfig is read first: a bad one (missing, no such context) is bad input, refused before any request.
  const viaKubeconfig = options.viaKubeconfig ? await kubeconfigClient(deps) : undefined
  const groups: Promise<readonly Check[]>[] = [
    run(async () => (await deps.credentials()).inspect()).then((found) => [credentialsCheck(found)]),
    projectChecks(options, run, lazy),
    capacityChecks(options, run, lazy),
    clusterChecks(options, run, lazy, deps, viaKubeconfig),
    run(async () => (await deps.engine()).version()).then((engine) => [dockerCheck(engine)]),
    registryChecks(options, run, deps),
    Promise.resolve([nodeCheck(options.nodeVersion)]),
  ]
  try {
    return report((await Promise.all(groups)).flat())
  } finally {
    await lazy.closeAll()
  }
}

type Run = <T>(read: (retry: RetryOptions) => Promise<T>) => Promise<Read<T>>

const memo = <T>(make: () => Promise<T>) => {
  let made: Promise<T> | undefined
  return () => (made ??= make())
}

/** One connection per API, made on first use and closed at the end. */
function connections(deps: DoctorDeps) {
  const made: Promise<{close(): Promise<void>}>[] = []
  const once = <T extends {close(): Promise<void>}>(connect: () => Promise<T>) => {
    let client: Promise<T> | undefined
    return () => {
      if (!client) {
        client = connect()
        made.push(client)
      }
      return client
    }
  }
  return {
    resourceManager: once(deps.resourceManager),
    serviceUsage: once(deps.serviceUsage),
    // Compute Engine's client holds nothing to close.
    compute: memo(deps.compute),
    gke: once(deps.gke),
    closeAll: async () => {
      await Promise.allSettled(made.map(async (client) => (await client).close()))
    },
  }
}

async function projectChecks(options: DoctorOptions, run: Run, lazy: ReturnType<typeof connections>) {
  const {project} = options
  if (project === undefined) return [projectCheck(undefined, undefined)]
  const [found, enabled, granted] = await Promise.all([
    run(async (retry) => withRetries(async () => (await lazy.resourceManager()).getProject(project), retry)),
    run(async (retry) => withRetries(async () => (await lazy.serviceUsage()).listEnabledServices(project), retry)),
    run(async (retry) =>
      withRetries(
        async () => (await lazy.resourceManager()).testIamPermissions(project, ALL_PLANNED_PERMISSIONS),
        retry,
      ),
    ),
  ])
  return [projectCheck(project, found), apisCheck(project, enabled), permissionsCheck(project, granted)]
}

const needsTarget = (name: string, what: string): Check => ({
  name,
  status: 'fail',
  detail: `${what} needs a project and a zone`,
  fix: 'Pass --project and --zone (or set them: `xpk config set project P`, `xpk config set zone Z`).',
})

async function capacityChecks(
  options: DoctorOptions,
  run: Run,
  lazy: ReturnType<typeof connections>,
): Promise<readonly Check[]> {
  const {request, reservations} = options.capacity
  if (request === null) return []
  const name = reservations.length > 0 ? 'reservations' : 'quota'
  const {project, zone} = options
  if (project === undefined || zone === undefined) return [needsTarget(name, 'checking capacity')]
  if (reservations.length > 0) {
    // Reservations hold VMs already counted against the quota when reserved: only their room is checked.
    const target = {accelerator: request.accelerator, zone, vmsPerPool: request.accelerator.vmsPerSlice}
    const verdict = await run(async (retry) => {
      const {reads} = await readReservationItems(await lazy.compute(), {project, zone}, reservations, {
        subBlocks: false,
        retry,
      })
      const {problems, capacities} = checkReservations(reads, target)
      return {
        items: reservations,
        problems,
        free: capacities.map((c) => `${c.path}: ${c.free}`),
        shortage: problems.length > 0 ? null : reservationShortage(capacities, target, request.numSlices),
      }
    })
    return [reservationsCheck(verdict)]
  }
  const region = zoneToRegion(zone) ?? zone
  const quotas = await run(async (retry) =>
    withRetries(async () => (await lazy.compute()).getRegionQuotas(project, region), retry),
  )
  return [quotaCheck(request, {project, region}, quotas)]
}

async function clusterChecks(
  options: DoctorOptions,
  run: Run,
  lazy: ReturnType<typeof connections>,
  deps: DoctorDeps,
  kubeconfig: Read<KubeClient> | undefined,
): Promise<readonly Check[]> {
  const {project, zone, cluster, viaKubeconfig} = options
  if (!viaKubeconfig && cluster === undefined) return []
  const checks: Check[] = []
  let observed: ObservedCluster | undefined
  if (!viaKubeconfig) {
    if (project === undefined || zone === undefined) return [needsTarget('cluster', `cluster ${cluster}`)]
    const region = zoneToRegion(zone) ?? zone
    const found = await run(async (retry) =>
      withRetries(async () => findCluster(await lazy.gke(), project, zone, cluster!), retry),
    )
    checks.push(clusterCheck({project, cluster: cluster!, region}, found))
    if (isFailure(found) || found === undefined) return checks
    observed = found
  }
  const connected = await run(async (retry) => {
    if (kubeconfig !== undefined && isFailure(kubeconfig)) throw new XpkError(kubeconfig.kind, kubeconfig.message)
    const kube = kubeconfig ?? (await deps.kube(observed))
    await withRetries(() => kube.get({apiVersion: 'v1', kind: 'Namespace', name: XPK_NAMESPACE}), retry)
    return {kube, target: kube.target}
  })
  checks.push(kubernetesCheck(connected, viaKubeconfig))
  if (isFailure(connected)) return checks
  const {kube} = connected
  const release = (component: 'jobset' | 'kueue') =>
    run(async (retry) => {
      const {namespace, name} = RELEASES[component].controller
      const [deployment, ...crds] = await Promise.all([
        withRetries(() => kube.get({apiVersion: 'apps/v1', kind: 'Deployment', namespace, name}), retry),
        ...REQUIRED_CRDS[component].map((crd) =>
          withRetries(
            () => kube.get({apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd}),
            retry,
          ),
        ),
      ])
      return {controller: controllerState(deployment), crds: crds.flatMap((c) => (c ? [c.metadata.name] : []))}
    })
  const clusterName = cluster ?? observed?.name
  const [jobset, kueue, configured] = await Promise.all([
    release('jobset'),
    release('kueue'),
    clusterName === undefined
      ? undefined
      : run(async (retry) => {
          const ref = {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            namespace: XPK_NAMESPACE,
            name: metadataConfigMapName(clusterName),
          }
          const map = await withRetries(() => kube.get(ref), retry)
          const data = (map?.data ?? {}) as Record<string, string>
          return map === undefined ? null : parseMetadataConfigMap(data).xpkVersion
        }),
  ])
  checks.push(releaseCheck('jobset', JOBSET_VERSION, jobset), releaseCheck('kueue', KUEUE_VERSION, kueue))
  if (configured !== undefined) checks.push(xpkVersionCheck(configured, options.xpkVersion))
  return checks
}

async function registryChecks(options: DoctorOptions, run: Run, deps: DoctorDeps): Promise<readonly Check[]> {
  const registry = options.registry ?? (options.project === undefined ? undefined : 'gcr.io')
  if (registry === undefined) return []
  const host = registry.split('/')[0]!
  const found = await run(async () => {
    const credential = await (await deps.registryCredentials()).forRegistry(host)
    return {found: credential.auth !== null, source: credential.source, problem: credential.problem ?? null}
  })
  return [registryCheck(host, found)]
}

/** The client of a cluster reached through a kubeconfig; its usage errors thrown, its other failures kept. */
async function kubeconfigClient(deps: DoctorDeps): Promise<Read<KubeClient>> {
  try {
    return await deps.kube(undefined)
  } catch (error) {
    if (error instanceof UsageError || !(error instanceof XpkError)) throw error
    return {failed: true, kind: error.kind, message: error.message, hint: error.hints[0] ?? null}
  }
}

const TIMED_OUT: unique symbol = Symbol('timed out')

/**
 * One check's read, with its own time limit (then it fails as unanswered, and its retries stop) and its failures
 * turned into what the check says. Ctrl-C stops every check: that is the command's failure, not a check's.
 */
async function timed<T>(
  options: DoctorOptions,
  deps: DoctorDeps,
  read: (retry: RetryOptions) => Promise<T>,
): Promise<Read<T>> {
  const stop = new AbortController()
  const signal = AbortSignal.any([deps.signal, stop.signal])
  const retry: RetryOptions = {
    policy: {...options.timing.retry, attempts: Math.min(options.timing.retry.attempts, DOCTOR_READ_ATTEMPTS)},
    clock: deps,
    signal,
  }
  // A time limit runs alongside the read (the clock's timer); a clock without one (tests' virtual time) sets none.
  const limit = deps.timer
    ? deps.timer(options.checkTimeLimitMs, signal).then(
        (): typeof TIMED_OUT => TIMED_OUT,
        () => undefined,
      )
    : new Promise<undefined>(() => undefined)
  try {
    const outcome: {value: T} | typeof TIMED_OUT | undefined = await Promise.race([
      read(retry).then((value) => ({value})),
      limit,
    ])
    if (outcome === TIMED_OUT) return timeout(options.checkTimeLimitMs)
    if (outcome === undefined) throw deps.signal.reason
    return outcome.value
  } catch (error) {
    if (deps.signal.aborted) throw deps.signal.reason
    // Bad input is the command's failure (exit 2), never one check's.
    if (error instanceof XpkError && !(error instanceof UsageError)) {
      return {failed: true, kind: error.kind, message: error.message, hint: error.hints[0] ?? null}
    }
    throw error
  } finally {
    stop.abort()
  }
}

function timeout(ms: number): ReadFailure {
  return {
    failed: true,
    kind: 'timeout',
    message: `no answer within ${ms / 1000} s`,
    hint: 'Check the network and the endpoint; re-run to try again.',
  }
}
