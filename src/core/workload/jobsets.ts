/**
 * Workloads as the cluster holds them: one JobSet per workload in namespace `default`, and what JobSet and Kueue
 * make for it (Jobs, pods, a Kueue Workload), which point at it by owner reference and carry its name in the
 * `jobset.sigs.k8s.io/jobset-name` label. Deleting the JobSet lets the garbage collector delete the rest.
 */
import {XPK_NAMESPACE} from '../incluster/namespace.js'
import {Problems} from '../input.js'
import {escapeInline} from '../text.js'
import {JOBSET_API_VERSION} from '../versions.js'

/** The label JobSet's controller puts on the Jobs and pods of a JobSet, with the JobSet's name. */
export const JOBSET_NAME_LABEL = 'jobset.sigs.k8s.io/jobset-name'

/** How long `workload delete --wait` and `workload create --replace` wait for a deleted workload to go, by default. */
export const DEFAULT_GONE_TIMEOUT_MS = 10 * 60_000

/** The longest JobSet name the API server takes (its headless Service is named after it: a DNS label). */
export const MAX_JOBSET_NAME = 63

const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/

/** Where a workload's JobSet is. */
export function jobSetRef(name: string): {apiVersion: string; kind: 'JobSet'; namespace: string; name: string} {
  return {apiVersion: JOBSET_API_VERSION, kind: 'JobSet', namespace: XPK_NAMESPACE, name}
}

/**
 * The PathwaysJob (google/pathways-job) older Python xpk versions submitted a Pathways workload as; it owns the
 * JobSet of the same name, which its controller makes again while the PathwaysJob is there.
 */
export const PATHWAYS_JOB_API_VERSION = 'pathways-job.pathways.domain/v1'
export const PATHWAYS_JOB_KIND = 'PathwaysJob'

export function pathwaysJobRef(name: string): {apiVersion: string; kind: string; namespace: string; name: string} {
  return {apiVersion: PATHWAYS_JOB_API_VERSION, kind: PATHWAYS_JOB_KIND, namespace: XPK_NAMESPACE, name}
}

/**
 * Why `name` cannot be a JobSet's name, or undefined. Looser than `workload create`'s 40 characters: a JobSet made
 * by another tool (or Python xpk) may use the whole DNS label, and `workload delete` must reach it.
 */
export function jobSetNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty'
  if (name.length > MAX_JOBSET_NAME) return `it is ${name.length} characters long; JobSet names have at most 63`
  if (!DNS_LABEL.test(name)) {
    return 'use lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen (RFC 1123)'
  }
  return undefined
}

/** Adds to `problems` why a workload name given as an argument cannot be one (nothing when it can). */
export function checkWorkloadName(problems: Problems, workload: string): void {
  const problem = jobSetNameProblem(workload)
  if (problem) {
    problems.add(`Workload name "${escapeInline(workload)}": ${problem}.`, {
      hints: ['Give the name the workload was created with; `xpk workload list` shows them.'],
    })
  }
}

/** The workload name given as a command's argument, checked. @throws UsageErrors naming the problem */
export function requireWorkloadName(workload: string): string {
  const problems = new Problems()
  checkWorkloadName(problems, workload)
  problems.throwIfAny()
  return workload
}

/** `--filter-by-job TEXT`: the names that contain TEXT (a plain substring, as in Python xpk), sorted. */
export function namesContaining(names: readonly string[], text: string | undefined): string[] {
  return names.filter((name) => text === undefined || name.includes(text)).sort()
}
