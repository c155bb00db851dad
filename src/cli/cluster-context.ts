import {readFileSync} from 'node:fs'
import {hostname, uptime, userInfo} from 'node:os'

import {createGkeClient} from '../adapters/gke-container-api.js'
import {HttpReleaseManifests} from '../adapters/release-manifests.js'
import {lockStaleSeconds} from '../core/cluster/lock.js'
import type {ObservedCluster} from '../core/cluster/observed.js'
import {XpkError} from '../core/errors.js'
import type {Backoff} from '../core/retry.js'
import type {KubeAccess, KubeClient} from '../ports/kube.js'
import {requireSetting, type ResolvedSettings} from '../core/settings.js'
import {DEFAULT_APPLY_OPTIONS, type ApplyOptions} from '../executor/apply-cluster-plan.js'
import type {ComputeClient} from '../ports/compute.js'
import type {Console} from '../ports/console.js'
import type {GkeClient} from '../ports/gke.js'
import type {ClusterCreateDeps} from '../services/cluster-create.js'
import type {ClusterDeleteDeps} from '../services/cluster-delete.js'
import type {ClusterLockOptions} from '../services/cluster-lock.js'
import type {ClusterDescribeDeps, ClusterReadDeps} from '../services/cluster-read.js'
import {accessToken, pollTuning, realTime, retryTuning, timeoutTuning} from './context.js'

/** Connects to GKE with the resolved endpoint override (gke-endpoint) and XPK_ACCESS_TOKEN, if set. */
export function gkeConnector(settings: ResolvedSettings): () => Promise<GkeClient> {
  const token = accessToken()
  return () => createGkeClient({endpoint: settings['gke-endpoint'].value, accessToken: token})
}

/** Connects to Compute Engine (once, on first use) with the compute-endpoint setting and XPK_ACCESS_TOKEN, if set. */
export function computeConnector(settings: ResolvedSettings): () => Promise<ComputeClient> {
  let client: Promise<ComputeClient> | undefined
  const token = accessToken()
  // Imported on use: only `cluster create` for types with a workload policy needs it, and start-up pays per byte.
  return () =>
    (client ??= import('../adapters/compute-rest.js').then(({createComputeClient}) =>
      createComputeClient({
        endpoint: settings['compute-endpoint'].value,
        accessToken: token,
      }),
    ))
}

/** Where the in-cluster steps reach the cluster: `--kubeconfig`/`--context` (or KUBECONFIG), else GKE. */
export interface KubeFlags {
  readonly kubeconfig?: string
  readonly context?: string
}

/**
 * Connects to a cluster's Kubernetes API: through the kubeconfig when one is named (flag, or KUBECONFIG with
 * --context), else from the GKE cluster's endpoint and CA with an access token (XPK_ACCESS_TOKEN, else
 * Application Default Credentials). The client library loads only when a command first needs it.
 */
export function kubeConnector(flags: KubeFlags): (cluster: ObservedCluster | undefined) => Promise<KubeClient> {
  return async (cluster) => {
    const {connectKube} = await import('../adapters/kube-client.js')
    if (flags.kubeconfig !== undefined || flags.context !== undefined) {
      return connectKube({kind: 'kubeconfig', path: flags.kubeconfig, context: flags.context})
    }
    if (!cluster) throw new XpkError('not-found', 'The cluster does not exist, so there is nothing to reach inside it.')
    return connectKube(gkeKubeAccess(cluster))
  }
}

function gkeKubeAccess(cluster: ObservedCluster): KubeAccess {
  // The IP endpoint with the cluster CA is what GKE hands every client; the DNS endpoint needs no CA (its
  // certificate is publicly trusted) and works from outside the VPC, so it is the fallback when there is no CA.
  const host = cluster.caCertificate ? cluster.endpoint : (cluster.dnsEndpoint ?? cluster.endpoint)
  return {
    kind: 'gke',
    server: `https://${host}`,
    caCertificate: cluster.caCertificate ?? undefined,
    token: async () => {
      // The same credentials as every GKE call (XPK_ACCESS_TOKEN, else Application Default Credentials).
      const {authorizer} = await import('../adapters/google-rest.js')
      const authorize = await authorizer({insecure: false, accessToken: accessToken()})
      const headers = await authorize(`https://${host}/`, {
        action: `reach cluster ${cluster.name}`,
        project: cluster.project,
        location: cluster.location,
      })
      const token = /^Bearer (.+)$/i.exec(headers.authorization ?? headers.Authorization ?? '')?.[1]
      if (!token) throw new XpkError('auth', `No access token to reach cluster ${cluster.name}.`)
      return token
    },
  }
}

/** Everything `cluster create` needs: GKE and Compute Engine connect on first use, real timers. */
export function clusterCreateDeps(
  settings: ResolvedSettings,
  kube: KubeFlags,
  console: Console,
  signal: AbortSignal,
): ClusterCreateDeps {
  return {
    gke: gkeConnector(settings),
    compute: computeConnector(settings),
    kube: kubeConnector(kube),
    manifests: new HttpReleaseManifests(),
    console,
    signal,
    ...realTime,
  }
}

/**
 * In-cluster tuning: XPK_CONTROLLER_TIMEOUT_S bounds the wait for JobSet and Kueue to become Available. The wait
 * reads one Deployment per poll, which costs the API server next to nothing, so the polls are short: a controller
 * that is up is noticed within a quarter second at first and within 2 s later on (bench:in-cluster measures it).
 */
export function inClusterTuning(): {availableTimeoutMs: number; poll: Backoff} {
  return {
    availableTimeoutMs: timeoutTuning('XPK_CONTROLLER_TIMEOUT_S', 600_000),
    poll: pollTuning({initialMs: 250, maxMs: 2000, factor: 1.5}),
  }
}

/** What `cluster list` and `cluster describe` need: GKE on first use, the retry policy, real timers. */
export function clusterReadDeps(settings: ResolvedSettings, signal: AbortSignal): ClusterReadDeps {
  return {gke: gkeConnector(settings), retry: retryTuning(), signal, ...realTime}
}

/** What `cluster describe` needs: GKE and the cluster's Kubernetes API on first use, a console for notes, real timers. */
export function clusterDescribeDeps(
  settings: ResolvedSettings,
  kube: KubeFlags,
  console: Console,
  signal: AbortSignal,
): ClusterDescribeDeps {
  return {...clusterReadDeps(settings, signal), kube: kubeConnector(kube), console}
}

/**
 * The GKE cluster `cluster describe` looks up: project, zone and cluster, each required (a usage error naming the
 * flag), unless `--kubeconfig` / `--context` reach the cluster without GKE (null).
 */
export function describeTarget(
  settings: ResolvedSettings,
  kube: KubeFlags,
): {project: string; zone: string; cluster: string} | null {
  if (kube.kubeconfig !== undefined || kube.context !== undefined) return null
  return {
    project: requireSetting(settings, 'project'),
    zone: requireSetting(settings, 'zone'),
    cluster: requireSetting(settings, 'cluster'),
  }
}

/** What `cluster delete` needs: GKE on first use, real timers. */
export function clusterDeleteDeps(
  settings: ResolvedSettings,
  console: Console,
  signal: AbortSignal,
): ClusterDeleteDeps {
  return {gke: gkeConnector(settings), console, signal, ...realTime}
}

/**
 * Apply tuning. XPK_POLL_INTERVAL_MS and XPK_RETRY_INTERVAL_MS set the first wait between operation polls and
 * between retries (they grow from there); the defaults suit real GKE.
 */
export function applyTuning(): Omit<ApplyOptions, 'signal'> {
  return {...DEFAULT_APPLY_OPTIONS, poll: pollTuning(DEFAULT_APPLY_OPTIONS.poll), retry: retryTuning()}
}

/**
 * The cluster lock of `cluster create` and `cluster delete`: this process as its holder (user@host, pid) and the
 * stale time from XPK_CLUSTER_LOCK_STALE_S, checked here, before any request (a bad value is exit 2 naming it).
 */
export function clusterLockTuning(): ClusterLockOptions {
  let user = process.env.USER ?? 'unknown'
  try {
    user = userInfo().username
  } catch {
    // No passwd entry for this uid (a container's arbitrary user): the environment's name, if any.
  }
  // With the host name, it says a lock was taken on this machine since it booted: Linux's boot id, else the boot
  // time to the minute.
  let boot: string
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replaceAll('-', '').trim().slice(0, 16)
  } catch {
    boot = `t${Math.round((Date.now() / 1000 - uptime()) / 60)}`
  }
  return {
    identity: {user, host: hostname(), pid: process.pid, boot},
    staleSeconds: lockStaleSeconds(process.env),
    alive: (pid) => {
      try {
        process.kill(pid, 0)
        return true
      } catch (error) {
        // EPERM: it runs, as another user.
        return (error as NodeJS.ErrnoException).code === 'EPERM'
      }
    },
  }
}
