/**
 * Where to follow a submitted workload, as Python xpk prints it at the end of `workload create` (non-Pathways): the
 * workload's Cloud Console page, and a Cloud Logging query for the container logs of one worker (slice 0, worker 0
 * unless told otherwise), plus the xpk commands to run next.
 */
import {SLICE_JOB_NAME} from '../manifests/jobset.js'
import {XPK_NAMESPACE} from '../incluster/namespace.js'

/** Where the workload runs: the cluster's project and location (region for xpk's clusters, or a zone). */
export interface WorkloadPlace {
  readonly project: string
  readonly location: string
  readonly cluster: string
  readonly workload: string
}

export interface WorkloadLinks {
  /** The workload's page in the Cloud Console (GKE workloads). */
  readonly console: string
  /** Cloud Logging, filtered to the containers of slice 0, worker 0, for the last day. */
  readonly logs: string
}

/** Both links for `place`. */
export function workloadLinks(place: WorkloadPlace): WorkloadLinks {
  return {console: workloadConsoleUrl(place), logs: workerLogsUrl(place)}
}

/** `https://console.cloud.google.com/kubernetes/service/<location>/<cluster>/default/<workload>/details?project=<p>` */
export function workloadConsoleUrl(place: WorkloadPlace): string {
  const path = [place.location, place.cluster, XPK_NAMESPACE, place.workload].map(quoteAll).join('/')
  return `https://console.cloud.google.com/kubernetes/service/${path}/details?project=${quoteAll(place.project)}`
}

/**
 * The Cloud Logging query for one worker's containers. Pods are named `<workload>-slice-job-<slice>-<worker>-<suffix>`,
 * so the filter matches that prefix; the query text is percent-encoded whole, as Python's `quote(..., safe='')`.
 */
export function workerLogsUrl(place: WorkloadPlace, slice = 0, worker = 0): string {
  const filter = [
    'resource.type="k8s_container"',
    `resource.labels.project_id="${place.project}"`,
    `resource.labels.location="${place.location}"`,
    `resource.labels.cluster_name="${place.cluster}"`,
    `resource.labels.namespace_name="${XPK_NAMESPACE}"`,
    `resource.labels.pod_name:"${place.workload}-${SLICE_JOB_NAME}-${slice}-${worker}-"`,
    'severity>=DEFAULT',
  ].join('\n')
  return (
    `https://console.cloud.google.com/logs/query;query=${quoteAll(filter)};storageScope=project;duration=P1D` +
    `?project=${quoteAll(place.project)}`
  )
}

/** The xpk commands to run after a submit: see it in the queue, then read its logs. */
export function nextCommands(cluster: string, workload: string): string[] {
  return [
    `xpk workload list --cluster ${cluster} --filter-by-job ${workload}`,
    `xpk workload logs --cluster ${cluster} ${workload}`,
  ]
}

/**
 * Percent-encodes everything but `A-Z a-z 0-9 - _ . ~` (Python's `quote(s, safe='')`); encodeURIComponent would
 * leave `!'()*` as they are.
 */
function quoteAll(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}
