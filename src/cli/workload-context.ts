import {imageBuildDeps} from './image-build-deps.js'
import {NodeFiles} from '../adapters/local-files.js'
import type {ResolvedSettings} from '../core/settings.js'
import type {Console} from '../ports/console.js'
import {buildImage} from '../services/image-build.js'
import type {WorkloadCreateDeps} from '../services/workload-create.js'
import {DEFAULT_GONE_TIMEOUT_MS, DEFAULT_WORKLOAD_TIMING, type WorkloadTiming} from '../services/workload-delete.js'
import type {WorkloadDeleteDeps} from '../services/workload-delete.js'
import type {KubeFlags} from './cluster-context.js'
import {pollTuning, realTime, retryTuning, timeoutTuning} from './context.js'

/**
 * GKE and Kubernetes connectors, imported on first use: cluster-context.ts brings the GKE adapter and the cluster
 * executor with it, which a dry run of `workload create` never needs and should not load.
 */
function connectors(settings: ResolvedSettings, kube: KubeFlags): Pick<WorkloadCreateDeps, 'gke' | 'kube'> {
  const context = () => import('./cluster-context.js')
  return {
    gke: async () => (await context()).gkeConnector(settings)(),
    kube: async (cluster) => (await context()).kubeConnector(kube)(cluster),
  }
}

/**
 * Everything `workload create` needs; the image build's SDKs load only if an image is actually built, GKE and the
 * Kubernetes client only when the workload is submitted.
 */
export function workloadCreateDeps(
  settings: ResolvedSettings,
  kube: KubeFlags,
  console: Console,
  signal: AbortSignal,
): WorkloadCreateDeps {
  return {
    console,
    files: new NodeFiles(),
    env: process.env,
    cwd: process.cwd(),
    buildImage: async (options) =>
      buildImage(options, {
        ...(await imageBuildDeps(console)),
        retry: {policy: retryTuning(), clock: realTime, signal},
      }),
    ...connectors(settings, kube),
    signal,
    ...realTime,
  }
}

/** What `workload delete` needs: GKE (to find the cluster) and its Kubernetes API on first use, real timers. */
export function workloadDeleteDeps(
  settings: ResolvedSettings,
  kube: KubeFlags,
  console: Console,
  signal: AbortSignal,
): WorkloadDeleteDeps {
  return {...connectors(settings, kube), console, signal, ...realTime}
}

/**
 * Waiting tuning. XPK_WORKLOAD_DELETE_TIMEOUT_S bounds the wait for a deleted workload to go (`workload delete
 * --wait`, `workload create --replace`; default 10 min); XPK_POLL_INTERVAL_MS and XPK_RETRY_INTERVAL_MS as for every
 * command.
 */
export function workloadTiming(): WorkloadTiming {
  return {
    retry: retryTuning(),
    poll: pollTuning(DEFAULT_WORKLOAD_TIMING.poll),
    goneTimeoutMs: timeoutTuning('XPK_WORKLOAD_DELETE_TIMEOUT_S', DEFAULT_GONE_TIMEOUT_MS),
  }
}
