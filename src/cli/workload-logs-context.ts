/**
 * What `workload logs` needs once its flags are parsed, as one lazily loaded chunk: GKE (to find the cluster) and
 * the cluster's Kubernetes API connect on first use, with real timers and the retry policy.
 */
import type {ResolvedSettings} from '../core/settings.js'
import type {Console} from '../ports/console.js'
import type {WorkloadLogsDeps} from '../services/workload-logs.js'
import {gkeConnector, kubeConnector, type KubeFlags} from './cluster-context.js'
import {realTime} from './context.js'

export {resolveCommandSettings, retryTuning} from './context.js'
export {workloadLogs} from '../services/workload-logs.js'

export function workloadLogsDeps(
  settings: ResolvedSettings,
  kube: KubeFlags,
  console: Console,
  signal: AbortSignal,
): WorkloadLogsDeps {
  return {gke: gkeConnector(settings), kube: kubeConnector(kube), console, signal, ...realTime}
}
