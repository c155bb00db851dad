import type {ResolvedSettings} from '../core/settings.js'
import type {Console} from '../ports/console.js'
import {
  DEFAULT_CACHE_IMAGE_TIMEOUT_MS,
  type CacheImageDeps,
  type CacheImageOptions,
} from '../services/cluster-cacheimage.js'
import {gkeConnector, kubeConnector, type KubeFlags} from './cluster-context.js'
import {pollTuning, realTime, retryTuning, timeoutTuning} from './context.js'

/** What `cluster cacheimage` needs: GKE (to find the cluster) and its Kubernetes API on first use, real timers. */
export function cacheImageDeps(
  settings: ResolvedSettings,
  kube: KubeFlags,
  console: Console,
  signal: AbortSignal,
): CacheImageDeps {
  return {gke: gkeConnector(settings), kube: kubeConnector(kube), console, signal, ...realTime}
}

/**
 * Waiting tuning. XPK_CACHE_IMAGE_TIMEOUT_S bounds the wait for every node to pull the image (default 30 min: large
 * images on many nodes take long); XPK_POLL_INTERVAL_MS and XPK_RETRY_INTERVAL_MS as for every command.
 */
export function cacheImageTuning(): Pick<CacheImageOptions, 'timeoutMs' | 'poll' | 'retry'> {
  return {
    timeoutMs: timeoutTuning('XPK_CACHE_IMAGE_TIMEOUT_S', DEFAULT_CACHE_IMAGE_TIMEOUT_MS),
    poll: pollTuning({initialMs: 2000, maxMs: 15_000, factor: 1.5}),
    retry: retryTuning(),
  }
}
