/**
 * Where to follow a submitted workload, as Python xpk prints it at the end of `workload create` (non-Pathways): the
 * workload's Cloud Console page, and a Cloud Logging query for the container logs of one worker (slice 0, worker 0
 * unless told otherwise), plus the xpk commands to run next. A Pathways workload's pods are named after its two
 * replicated Jobs (`<workload>-pathways-head-0-0-…`, `<workload>-worker-<slice>-<worker>-…`), so it gets a query for
 * its head and one for its workers; Python prints one query for every pod whose name starts with `<workload>-`, which
 * also matches other workloads whose names start so (`run` matches `run-2`'s pods).
 */
import {SLICE_JOB_NAME} from '../manifests/jobset.js'
import {XPK_NAMESPACE} from '../incluster/namespace.js'
import {PATHWAYS_HEAD_JOB, PATHWAYS_WORKER_JOB} from './pathways.js'

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
  /** Cloud Logging, filtered to the containers of slice 0, worker 0 (of the workers, for Pathways), for the last day. */
  readonly logs: string
  /** A Pathways workload's: Cloud Logging filtered to its head pod's containers; null for other workloads. */
  readonly headLogs: string | null
}

/** The links for `place`; `pathways`: the workload is a Pathways one (its head and workers named so). */
export function workloadLinks(place: WorkloadPlace, pathways = false): WorkloadLinks {
  return {
    console: workloadConsoleUrl(place),
    logs: workerLogsUrl(place, 0, 0, pathways),
    headLogs: pathways ? headLogsUrl(place) : null,
  }
}

/** `https://console.cloud.google.com/kubernetes/service/<location>/<cluster>/default/<workload>/details?project=<p>` */
export function workloadConsoleUrl(place: WorkloadPlace): string {
  const path = [place.location, place.cluster, XPK_NAMESPACE, place.workload].map(quoteAll).join('/')
  return `https://console.cloud.google.com/kubernetes/service/${path}/details?project=${quoteAll(place.project)}`
}

/**
 * The Cloud Logging query for one worker's containers. Pods are named `<workload>-slice-job-<slice>-<worker>-<suffix>`
 * (a Pathways worker's `<workload>-worker-<slice>-<worker>-<suffix>`), so the filter matches that prefix.
 */
export function workerLogsUrl(place: WorkloadPlace, slice = 0, worker = 0, pathways = false): string {
  const job = pathways ? PATHWAYS_WORKER_JOB : SLICE_JOB_NAME
  return podLogsUrl(place, `${place.workload}-${job}-${slice}-${worker}-`)
}

/** The Cloud Logging query for a Pathways workload's head pod (`<workload>-pathways-head-0-0-<suffix>`). */
export function headLogsUrl(place: WorkloadPlace): string {
  return podLogsUrl(place, `${place.workload}-${PATHWAYS_HEAD_JOB}-0-0-`)
}

/**
 * The Cloud Logging query for the containers of the pods whose names start with `podPrefix`, for the last day; the
 * query text is percent-encoded whole, as Python's `quote(..., safe='')`.
 */
function podLogsUrl(place: WorkloadPlace, podPrefix: string): string {
  const filter = [
    'resource.type="k8s_container"',
    `resource.labels.project_id="${place.project}"`,
    `resource.labels.location="${place.location}"`,
    `resource.labels.cluster_name="${place.cluster}"`,
    `resource.labels.namespace_name="${XPK_NAMESPACE}"`,
    `resource.labels.pod_name:"${podPrefix}"`,
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
