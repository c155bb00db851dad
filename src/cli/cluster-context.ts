import {createGkeClient} from '../adapters/gke-container-api.js'
import type {ResolvedSettings} from '../core/settings.js'
import {DEFAULT_APPLY_OPTIONS, type ApplyOptions} from '../executor/apply-cluster-plan.js'
import type {ComputeClient} from '../ports/compute.js'
import type {Console} from '../ports/console.js'
import type {GkeClient} from '../ports/gke.js'
import type {ClusterCreateDeps} from '../services/cluster-create.js'
import type {ClusterDeleteDeps} from '../services/cluster-delete.js'
import type {ClusterReadDeps} from '../services/cluster-read.js'
import {pollTuning, realTime, retryTuning} from './context.js'

/** Connects to GKE with the resolved endpoint override (gke-endpoint) and XPK_ACCESS_TOKEN, if set. */
export function gkeConnector(settings: ResolvedSettings): () => Promise<GkeClient> {
  return () =>
    createGkeClient({endpoint: settings['gke-endpoint'].value, accessToken: process.env.XPK_ACCESS_TOKEN || undefined})
}

/** Connects to Compute Engine (once, on first use) with the compute-endpoint setting and XPK_ACCESS_TOKEN, if set. */
export function computeConnector(settings: ResolvedSettings): () => Promise<ComputeClient> {
  let client: Promise<ComputeClient> | undefined
  // Imported on use: only `cluster create` for types with a workload policy needs it, and start-up pays per byte.
  return () =>
    (client ??= import('../adapters/compute-rest.js').then(({createComputeClient}) =>
      createComputeClient({
        endpoint: settings['compute-endpoint'].value,
        accessToken: process.env.XPK_ACCESS_TOKEN || undefined,
      }),
    ))
}

/** Everything `cluster create` needs: GKE and Compute Engine connect on first use, real timers. */
export function clusterCreateDeps(
  settings: ResolvedSettings,
  console: Console,
  signal: AbortSignal,
): ClusterCreateDeps {
  return {gke: gkeConnector(settings), compute: computeConnector(settings), console, signal, ...realTime}
}

/** What `cluster list` and `cluster describe` need: GKE on first use, the retry policy, real timers. */
export function clusterReadDeps(settings: ResolvedSettings, signal: AbortSignal): ClusterReadDeps {
  return {gke: gkeConnector(settings), retry: retryTuning(), signal, ...realTime}
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
