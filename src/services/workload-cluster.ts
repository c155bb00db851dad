/**
 * How the workload commands reach a cluster's Kubernetes API: through GKE (find the cluster by project, zone and
 * name, then connect to its endpoint), or through a kubeconfig (`--kubeconfig` / `--context`) without asking GKE.
 */
import type {ObservedCluster} from '../core/cluster/observed.js'
import {UsageError} from '../core/errors.js'
import {Problems} from '../core/input.js'
import {collect} from '../core/kube/list-pages.js'
import {retrying, unlessAborted, type Clock, type RetryOptions} from '../executor/retry.js'
import type {GkeClient} from '../ports/gke.js'
import type {KubeClient, KubeListAllOptions, KubeObject} from '../ports/kube.js'
import {requireCluster, type ClusterName} from './cluster-lookup.js'

/** Which cluster: by name in GKE, or whatever the kubeconfig points at. */
export interface WorkloadTarget {
  readonly project?: string
  readonly zone?: string
  readonly cluster?: string
  /** `--kubeconfig` / `--context` reach the cluster: GKE is not asked where it is. */
  readonly viaKubeconfig: boolean
}

export interface ClusterAccessDeps extends Clock {
  readonly gke: () => Promise<GkeClient>
  /** Connects to the cluster's Kubernetes API: through the kubeconfig, else from the GKE cluster. */
  readonly kube: (cluster: ObservedCluster | undefined) => Promise<KubeClient>
  readonly signal: AbortSignal
}

/** A connected cluster, and where GKE says it is (null when reached through a kubeconfig). */
export interface ReachedCluster {
  readonly kube: KubeClient
  readonly gke: {readonly project: string; readonly location: string} | null
  /** The cluster and its node pools as GKE reported them on the way in; null through a kubeconfig. */
  readonly cluster: ObservedCluster | null
}

/** Usage problems with the target: GKE needs a project, a zone and a cluster name. */
export function targetProblems(target: WorkloadTarget): UsageError[] {
  if (target.viaKubeconfig) return []
  const missing = (['project', 'zone', 'cluster'] as const).filter((key) => target[key] === undefined)
  return missing.map(
    (flag) =>
      new UsageError(`Missing --${flag} (needed to find the cluster in GKE).`, {
        flag: `--${flag}`,
        hints: [
          `Pass --${flag} or set a default with \`xpk config set ${flag} VALUE\`; or reach the cluster with --kubeconfig.`,
        ],
      }),
  )
}

/**
 * Every problem with a workload command's input at once, before any request: the target's, and those `read` finds
 * in the flags (it throws usage errors).
 * @throws UsageError or UsageErrors
 */
export function checkInput<T>(target: WorkloadTarget, read: () => T): T {
  const problems = new Problems()
  for (const problem of targetProblems(target)) problems.push(problem)
  const input = problems.attempt(read)
  problems.throwIfAny()
  return input as T
}

/** Finds the cluster in GKE (unless a kubeconfig reaches it) and connects to its Kubernetes API. */
export async function reachCluster(
  target: WorkloadTarget,
  deps: ClusterAccessDeps,
  retry: RetryOptions,
): Promise<ReachedCluster> {
  // Connecting may ask for a token (Application Default Credentials): a time limit or Ctrl-C ends that too.
  if (target.viaKubeconfig) {
    return {kube: await unlessAborted(deps.kube(undefined), deps.signal), gke: null, cluster: null}
  }
  const found = await requireCluster(deps.gke, target as ClusterName, retry)
  return {
    kube: await unlessAborted(deps.kube(found), deps.signal),
    gke: {project: found.project, location: found.location},
    cluster: found,
  }
}

/** Every object of a kind (all pages), each page through the retry policy. */
export function listAll(
  kube: KubeClient,
  apiVersion: string,
  kind: string,
  options: Omit<KubeListAllOptions, 'retry'>,
  retry: RetryOptions,
): Promise<KubeObject[]> {
  return collect(kube.listAll(apiVersion, kind, {...options, retry: retrying(retry)}))
}
