import {XpkError} from '../core/errors.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import {TABLE_OUTPUT, type OutputChoice} from '../core/render/output-format.js'
import {workloadDescribeView} from '../core/render/workload-describe.js'
import type {Timing} from '../core/timing.js'
import {KUEUE_API_VERSION} from '../core/versions.js'
import {describeWorkload, readEvent, type WorkloadDescription} from '../core/workload/describe.js'
import {JOBSET_NAME_LABEL, jobSetRef, requireWorkloadName} from '../core/workload/jobsets.js'
import {WORKLOAD_KIND, readJobSet, readWorkload} from '../core/workload/observed.js'
import {pickWorkload} from '../core/workload/status.js'
import {readPod} from '../core/workload/why-observed.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import {showOutput} from './show-output.js'
import {checkInput, listAll, reachCluster, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

export interface WorkloadDescribeOptions extends WorkloadTarget {
  /** The workload's name (the JobSet's). */
  readonly workload: string
  /** Retries of every read (timing.retry). */
  readonly timing: Pick<Timing, 'retry'>
  /** How it is printed (`-o`, `--no-headers`); the description by default. */
  readonly output?: OutputChoice
}

export interface WorkloadDescribeDeps extends ClusterAccessDeps {
  readonly console: Console
}

/** The label Kueue puts on the Workload it makes for a JobSet: the JobSet's uid. */
const JOB_UID_LABEL = 'kueue.x-k8s.io/job-uid'

/**
 * `xpk workload describe NAME`: two rounds of reads, changing nothing: the JobSet, its pods (by the jobset-name
 * label) and the namespace's events at once, then the Kueue Workload made for it (by the JobSet's uid, Kueue's
 * label). Printed by src/core/render/workload-describe.ts, or as data.
 * @throws UsageErrors for bad input, before any request; XpkError `not-found` when there is no such JobSet
 */
export async function workloadDescribe(
  options: WorkloadDescribeOptions,
  deps: WorkloadDescribeDeps,
): Promise<WorkloadDescription> {
  const name = checkInput(options, () => requireWorkloadName(options.workload))
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube, gke} = await reachCluster(options, deps, retry)
  const namespace = XPK_NAMESPACE
  const [jobsetObject, podObjects, eventObjects] = await Promise.all([
    withRetries(() => kube.get(jobSetRef(name)), retry),
    listAll(kube, 'v1', 'Pod', {namespace, labelSelector: `${JOBSET_NAME_LABEL}=${name}`}, retry),
    listAll(kube, 'v1', 'Event', {namespace}, retry),
  ])
  if (!jobsetObject) {
    throw new XpkError('not-found', `Workload ${name} does not exist in namespace ${namespace}.`, {
      hints: ['`xpk workload list` shows the workloads of the cluster.'],
    })
  }
  const jobset = readJobSet(jobsetObject)
  const uid = jobset.metadata.uid
  const workloads =
    uid === undefined
      ? []
      : await listAll(
          kube,
          KUEUE_API_VERSION,
          WORKLOAD_KIND,
          {namespace, labelSelector: `${JOB_UID_LABEL}=${uid}`},
          retry,
        )
  const description = describeWorkload({
    name,
    namespace,
    now: deps.now(),
    jobsetObject,
    jobset,
    workload: pickWorkload(workloads.map(readWorkload), jobset),
    pods: podObjects.map(readPod),
    events: eventObjects.map(readEvent),
    place: gke && options.cluster ? {...gke, cluster: options.cluster} : null,
  })
  showOutput(deps.console, options.output ?? TABLE_OUTPUT, workloadDescribeView, description)
  return description
}
