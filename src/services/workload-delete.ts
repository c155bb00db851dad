import {throwIfProblems, UsageError, XpkError} from '../core/errors.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import {collect} from '../core/kube/list-pages.js'
import {
  JOBSET_NAME_LABEL,
  PATHWAYS_JOB_API_VERSION,
  PATHWAYS_JOB_KIND,
  jobSetNameProblem,
  jobSetRef,
  namesContaining,
  pathwaysJobRef,
} from '../core/workload/jobsets.js'
import {
  workloadDeleteAbsent,
  workloadDeleteConfirm,
  workloadDeleteDryRun,
  workloadDeleteNoMatch,
} from '../core/messages/workload.js'
import {escapeInline} from '../core/text.js'
import {DEFAULT_TIMING, type Timing} from '../core/timing.js'
import {JOBSET_API_VERSION, KUEUE_API_VERSION} from '../core/versions.js'
import {JOBSET_KIND, WORKLOAD_KIND, readJobSet, readWorkload} from '../core/workload/observed.js'
import {matchesStatus, parseStatusFilter, workloadRows, type StatusFilter} from '../core/workload/status.js'
import {
  jobSetsToDelete,
  planWorkloadDelete,
  renderWorkloadDeletePlan,
  type WorkloadDeletePlan,
  type WorkloadDeleteStep,
} from '../core/workload/delete-plan.js'
import {pollUntil, startTimeLimit, withRetries, type RetryOptions, type TimeLimit} from '../executor/retry.js'
import {planStep, runStepsOrThrow, type GraphStep} from '../executor/step-graph.js'
import type {Console, ProgressBoard} from '../ports/console.js'
import type {KubeClient, KubeObject} from '../ports/kube.js'
import {confirmOrStop} from './confirm.js'
import {listAll, reachCluster, targetProblems, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

/** Deletes sent at once when many workloads match a filter. */
const DELETE_CONCURRENCY = 16

/**
 * Retries, and the wait for a deleted JobSet (and its Jobs or pods) to be gone (timing.workloadGone); shared by
 * `workload create --replace`.
 */
export type WorkloadTiming = Pick<Timing, 'retry' | 'workloadGone'>

export interface WorkloadDeleteOptions extends WorkloadTarget {
  /** `--workload NAME`: exactly this JobSet, without asking. */
  readonly workload?: string
  /** `--filter-by-job TEXT`: every JobSet whose name contains TEXT (all of them without it), after asking. */
  readonly filterByJob?: string
  /**
   * `--filter-by-status` as typed (any case): only the workloads `workload list` shows in that state (QUEUED,
   * RUNNING, FINISHED, FAILED, SUCCESSFUL); EVERYTHING or undefined: all.
   */
  readonly filterByStatus?: string
  /** `--wait`: return only once the JobSets and their pods are gone. */
  readonly wait: boolean
  /** Read and show what would be deleted; delete nothing. */
  readonly dryRun: boolean
  readonly timing?: WorkloadTiming
}

export interface WorkloadDeleteDeps extends ClusterAccessDeps {
  readonly console: Console
}

export interface WorkloadDeleteResult {
  readonly cluster: string | null
  /** The JobSets chosen: the one named, or those the filter matched. */
  readonly selected: readonly string[]
  /** Deleted by this run (none in a dry run). */
  readonly deleted: readonly string[]
  /** Named but already gone (success, with a note). */
  readonly alreadyGone: readonly string[]
  readonly dryRun: boolean
  /** Whether the command waited until the JobSets and their pods were gone. */
  readonly waited: boolean
  /** The plan, as data: one step per JobSet chosen, and with --wait the wait (empty when nothing matched). */
  readonly steps: readonly WorkloadDeleteStep[]
}

/**
 * `xpk workload delete`: deletes one JobSet by name, or every JobSet whose name contains `--filter-by-job` after
 * showing them and asking (`--force` skips the question; nobody to ask and no --force is exit 2). What JobSet and
 * Kueue made for it (Jobs, pods, the Kueue Workload) goes by owner reference, in the background. Already gone is
 * success with a note. `--wait` returns once the JobSets and their pods are gone (exit 124 after the timeout).
 * @throws UsageErrors for bad input, before any request
 */
export async function deleteWorkloads(
  options: WorkloadDeleteOptions,
  deps: WorkloadDeleteDeps,
): Promise<WorkloadDeleteResult> {
  const status = checkOptions(options)
  const timing = options.timing ?? DEFAULT_TIMING
  // --wait's time limit bounds the whole command, finding the cluster and the first reads included, so a server
  // that never answers cannot hold it longer; the time a person takes to answer the question does not count.
  const limit = options.wait
    ? startTimeLimit(
        deps.signal,
        timing.workloadGone.timeoutMs,
        deps,
        () =>
          new XpkError(
            'timeout',
            `The workloads were not deleted and gone within ${Math.round(timing.workloadGone.timeoutMs / 1000)} s (XPK_WORKLOAD_DELETE_TIMEOUT_S): the cluster did not answer in time.`,
            {
              hints: [
                'Check that the cluster answers (`xpk cluster describe`), then re-run the same command: a workload already deleted is not an error.',
              ],
            },
          ),
      )
    : undefined
  try {
    return await deleteSelected(options, status, timing, {...deps, signal: limit?.signal ?? deps.signal}, limit)
  } finally {
    limit?.dispose()
  }
}

async function deleteSelected(
  options: WorkloadDeleteOptions,
  status: StatusFilter,
  timing: WorkloadTiming,
  deps: WorkloadDeleteDeps,
  limit: TimeLimit | undefined,
): Promise<WorkloadDeleteResult> {
  const retry: RetryOptions = {policy: timing.retry, clock: deps, signal: deps.signal}
  const {console} = deps
  const {kube} = await reachCluster(options, deps, retry)
  const where = options.viaKubeconfig ? kube.target : `cluster ${options.cluster}`
  const base = {cluster: options.cluster ?? null, dryRun: options.dryRun}

  let selected: string[]
  if (options.workload !== undefined) {
    selected = [options.workload]
  } else {
    selected = namesContaining(await selectByStatus(kube, status, retry), options.filterByJob)
    if (selected.length === 0) {
      console.info(workloadDeleteNoMatch({filterByJob: options.filterByJob ?? null, filterByStatus: status, where}))
      return {...base, selected, deleted: [], alreadyGone: [], waited: false, steps: []}
    }
  }
  const pathwaysJobs = await olderPathwaysJobs(kube, selected, options.workload !== undefined, retry)
  // A dry run reads the one named JobSet, to say whether it is there; a delete finds out by deleting.
  const absent =
    options.dryRun &&
    options.workload !== undefined &&
    pathwaysJobs.length === 0 &&
    (await withRetries(() => kube.get(jobSetRef(options.workload!)), retry)) === undefined
      ? selected
      : []
  const plan = planWorkloadDelete({
    where,
    selected,
    absent,
    pathwaysJobs,
    by:
      options.workload !== undefined
        ? {workload: true}
        : {filterByJob: options.filterByJob ?? null, filterByStatus: status},
    waitSeconds: options.wait ? Math.round(timing.workloadGone.timeoutMs / 1000) : null,
  })

  if (options.dryRun) {
    for (const name of absent) noteAbsent(console, name, where)
    const present = jobSetsToDelete(plan)
    if (present.length > 0) console.result(renderWorkloadDeletePlan(plan))
    console.info(workloadDeleteDryRun({workloads: present}))
    return {...base, selected, deleted: [], alreadyGone: absent, waited: false, steps: plan.steps}
  }

  if (options.workload === undefined) {
    limit?.pause()
    await confirmOrStop(
      console,
      workloadDeleteConfirm({
        workloads: selected,
        filterByJob: options.filterByJob ?? null,
        filterByStatus: status,
        where,
      }),
      {nothingDone: 'Nothing was deleted.', hints: ['See what it would delete with --dry-run.']},
    )
    limit?.restart()
  }

  console.debug(renderWorkloadDeletePlan(plan))
  const outcomes = await applyDelete(plan, kube, timing, deps, retry)
  const deleted = selected.filter((name) => outcomes.get(name) === 'deleted')
  const alreadyGone = selected.filter((name) => outcomes.get(name) === 'absent')
  return {...base, selected, deleted, alreadyGone, waited: options.wait && deleted.length > 0, steps: plan.steps}
}

/**
 * Applies the plan through the step graph: the deletes (background propagation), a few at a time, each JobSet
 * already gone noted; then, with --wait, the wait until the JobSets deleted and their pods are gone.
 * @throws the first failure, or Ctrl-C's
 */
async function applyDelete(
  plan: WorkloadDeletePlan,
  kube: KubeClient,
  timing: WorkloadTiming,
  deps: WorkloadDeleteDeps,
  retry: RetryOptions,
): Promise<Map<string, 'deleted' | 'absent'>> {
  const {console} = deps
  const outcomes = new Map<string, 'deleted' | 'absent'>()
  // The PathwaysJobs deleted, which make their workloads deleted whether or not a JobSet was still there.
  const pathwaysJobsDeleted = new Set<string>()
  const graph: GraphStep[] = []
  for (const step of plan.steps) {
    if (step.action !== 'delete' || step.spec === null) continue
    const name = step.spec.name
    if (step.resource === 'pathwaysJob') {
      const remove = async () => {
        if ((await withRetries(() => kube.delete(pathwaysJobRef(name)), retry)) === 'deleted') {
          pathwaysJobsDeleted.add(name)
        }
      }
      graph.push({...planStep(step, `delete-pathwaysjob:${name}`, remove), lane: 'delete'})
      continue
    }
    const remove = async () => {
      const outcome = await withRetries(() => kube.delete(jobSetRef(name)), retry)
      outcomes.set(name, pathwaysJobsDeleted.has(name) ? 'deleted' : outcome)
    }
    graph.push({...planStep(step, `delete:${name}`, remove, [`delete-pathwaysjob:${name}`], graph), lane: 'delete'})
  }
  const deletes = graph.map((g) => g.id)
  let reported = false
  // What the deletes did is said once they are all done, before the wait (or the first failure) is.
  const report = () => {
    if (reported) return
    reported = true
    const names = jobSetsToDelete(plan).filter((name) => outcomes.has(name))
    for (const name of names) if (outcomes.get(name) === 'absent') noteAbsent(console, name, plan.where)
    const deleted = names.filter((name) => outcomes.get(name) === 'deleted')
    const lines = deleted.flatMap((name) => [
      ...(pathwaysJobsDeleted.has(name) ? [`Deleted PathwaysJob ${XPK_NAMESPACE}/${name}.`] : []),
      `Deleted JobSet ${XPK_NAMESPACE}/${name}.`,
    ])
    if (lines.length > 0) console.result(lines.join('\n'))
  }
  for (const step of plan.steps) {
    if (step.action !== 'wait') continue
    const wait = async () => {
      report()
      const deleted = step.spec.workloads.filter((name) => outcomes.get(name) === 'deleted')
      if (deleted.length === 0) return
      await awaitGone(kube, deleted, 'pods', timing, deps)
      console.result(
        `${deleted.length === 1 ? `${deleted[0]} is` : `All ${deleted.length} workloads are`} gone, with ${deleted.length === 1 ? 'its' : 'their'} pods.`,
      )
    }
    graph.push(planStep(step, 'wait', wait, deletes, graph))
  }
  try {
    await runStepsOrThrow(graph, {
      board: undefined,
      signal: deps.signal,
      now: deps.now,
      lanes: {delete: DELETE_CONCURRENCY},
    })
  } finally {
    report()
  }
  return outcomes
}

function noteAbsent(console: Console, name: string, where: string): void {
  console.info(workloadDeleteAbsent({workload: name, where}))
}

/**
 * Of the workloads chosen, the ones an older Python xpk submitted as a PathwaysJob: the named one read (one GET),
 * or the PathwaysJobs listed (one list per page). A cluster that does not serve the kind has none, and nothing of
 * it is deleted.
 */
async function olderPathwaysJobs(
  kube: KubeClient,
  selected: readonly string[],
  named: boolean,
  retry: RetryOptions,
): Promise<string[]> {
  if (selected.length === 0) return []
  if (named) {
    const found = await withRetries(() => kube.lookup(pathwaysJobRef(selected[0]!)), retry)
    return found.state === 'found' ? [selected[0]!] : []
  }
  const pathwaysJobs = await listAll(
    kube,
    PATHWAYS_JOB_API_VERSION,
    PATHWAYS_JOB_KIND,
    {namespace: XPK_NAMESPACE},
    retry,
  )
  const names = new Set(pathwaysJobs.map((p) => p.metadata.name))
  return selected.filter((name) => names.has(name))
}

/**
 * The names of the JobSets (not already being deleted) in the state `status` decides, as `workload list` shows it:
 * for anything but EVERYTHING that takes the Kueue Workloads too (one list per kind, in pages), since the state
 * is read from the conditions Kueue and JobSet write.
 */
async function selectByStatus(kube: KubeClient, status: StatusFilter, retry: RetryOptions): Promise<string[]> {
  const jobSetsOf = async () =>
    (await listAll(kube, JOBSET_API_VERSION, JOBSET_KIND, {namespace: XPK_NAMESPACE}, retry)).filter(
      (j) => j.metadata.deletionTimestamp === undefined,
    )
  if (status === 'EVERYTHING') return (await jobSetsOf()).map((j) => j.metadata.name)
  const [workloads, jobSets]: [KubeObject[], KubeObject[]] = await Promise.all([
    listAll(kube, KUEUE_API_VERSION, WORKLOAD_KIND, {namespace: XPK_NAMESPACE}, retry),
    jobSetsOf(),
  ])
  const live = new Set(jobSets.map((j) => j.metadata.name))
  return workloadRows(workloads.map(readWorkload), jobSets.map(readJobSet))
    .filter((row) => live.has(row.name) && matchesStatus(row, status))
    .map((row) => row.name)
}

/** Every problem with the input, before any request; the status filter to apply. */
function checkOptions(options: WorkloadDeleteOptions): StatusFilter {
  const problems: UsageError[] = [...targetProblems(options)]
  let status: StatusFilter = 'EVERYTHING'
  if (options.filterByStatus !== undefined) {
    const parsed = parseStatusFilter(options.filterByStatus)
    if ('value' in parsed) status = parsed.value
    else {
      problems.push(new UsageError(`--filter-by-status ${escapeInline(parsed.problem)}.`, {flag: '--filter-by-status'}))
    }
  }
  if (options.workload !== undefined) {
    const problem = jobSetNameProblem(options.workload)
    if (problem) {
      problems.push(
        new UsageError(`--workload "${escapeInline(options.workload)}" is not a workload name: ${problem}.`, {
          flag: '--workload',
          hints: ['`xpk workload list` shows the names of the workloads on the cluster.'],
        }),
      )
    }
  }
  throwIfProblems(problems)
  return status
}

/**
 * Waits until the JobSets are gone, and with them their Jobs (`jobs`: what a new JobSet of the same name would
 * collide with) or their pods (`pods`: what holds the accelerators). Each check reads one page per kind, whatever
 * the number of JobSets. Exit 124 after `workloadGone.timeoutMs`, naming what is still there.
 */
export async function awaitGone(
  kube: KubeClient,
  names: readonly string[],
  children: 'jobs' | 'pods',
  timing: WorkloadTiming,
  deps: ClusterAccessDeps & {readonly console: Console},
): Promise<void> {
  // Its own limit too, for `workload create --replace`; under `workload delete --wait` the command's ends first.
  const limit = startTimeLimit(
    deps.signal,
    timing.workloadGone.timeoutMs,
    deps,
    () => new XpkError('timeout', 'time is up'),
  )
  const retry: RetryOptions = {policy: timing.retry, clock: deps, signal: limit.signal}
  const wanted = new Set(names)
  const child = children === 'jobs' ? {apiVersion: 'batch/v1', kind: 'Job'} : {apiVersion: 'v1', kind: 'Pod'}
  const labelSelector = names.length === 1 ? `${JOBSET_NAME_LABEL}=${names[0]}` : JOBSET_NAME_LABEL
  const started = deps.now()
  let left = {jobSets: [...names], children: [] as string[]}
  const board: ProgressBoard = deps.console.progress(
    names.length === 1 ? `Waiting for ${names[0]} to go` : `Waiting for ${names.length} workloads to go`,
  )
  try {
    let timedOut = false
    await pollUntil(
      async () => {
        const jobSets =
          names.length === 1
            ? (await kube.get(jobSetRef(names[0]!))) === undefined
              ? []
              : [names[0]!]
            : (await collect(kube.listAll(JOBSET_API_VERSION, 'JobSet', {namespace: XPK_NAMESPACE})))
                .map((j) => j.metadata.name)
                .filter((name) => wanted.has(name))
        const dependents = (
          await collect(kube.listAll(child.apiVersion, child.kind, {namespace: XPK_NAMESPACE, labelSelector}))
        )
          .filter((o) =>
            wanted.has(String((o.metadata.labels as Record<string, string> | undefined)?.[JOBSET_NAME_LABEL])),
          )
          .map((o) => o.metadata.name)
        left = {jobSets, children: dependents}
        if (jobSets.length === 0 && dependents.length === 0) return true
        board.update('gone', {
          label: names.length === 1 ? names[0]! : `${names.length} workloads`,
          state: 'deleting',
          status: 'running',
          detail: describeLeft(left, children),
        })
        timedOut = deps.now() - started >= timing.workloadGone.timeoutMs
        return timedOut
      },
      {...retry, poll: timing.workloadGone.poll},
    ).catch((error: unknown) => {
      const reason: unknown = limit.signal.reason
      if (!(limit.signal.aborted && reason instanceof XpkError && reason.kind === 'timeout')) throw error
      timedOut = true
    })
    if (timedOut) {
      board.update('gone', {
        label: names.join(', '),
        state: 'timed out',
        status: 'failed',
        detail: describeLeft(left, children),
      })
      const sample = (list: readonly string[]) => list.slice(0, 5).join(', ') + (list.length > 5 ? ', ...' : '')
      throw new XpkError(
        'timeout',
        `Still there after ${Math.round(timing.workloadGone.timeoutMs / 1000)}s: ` +
          [
            ...(left.jobSets.length > 0 ? [`JobSet ${sample(left.jobSets)}`] : []),
            ...(left.children.length > 0
              ? [
                  `${left.children.length} ${children === 'jobs' ? 'Job' : 'pod'}${left.children.length === 1 ? '' : 's'} (${sample(left.children)})`,
                ]
              : []),
          ].join('; ') +
          '.',
        {
          hints: [
            'Deletion goes on in the cluster: re-run the same command later to wait again (already deleted is not an error).',
            `Something may hold them: finalizers, or nodes that stopped answering (\`kubectl get ${children} -l ${labelSelector}\`).`,
          ],
        },
      )
    }
    board.update('gone', {
      label: names.length === 1 ? names[0]! : `${names.length} workloads`,
      state: 'gone',
      status: 'done',
    })
  } finally {
    limit.dispose()
    board.close()
  }
}

function describeLeft(
  left: {jobSets: readonly string[]; children: readonly string[]},
  children: 'jobs' | 'pods',
): string {
  const parts = []
  if (left.jobSets.length > 0) parts.push(`${left.jobSets.length} JobSet${left.jobSets.length === 1 ? '' : 's'}`)
  if (left.children.length > 0) {
    parts.push(`${left.children.length} ${children === 'jobs' ? 'Job' : 'pod'}${left.children.length === 1 ? '' : 's'}`)
  }
  return parts.length === 0 ? 'all gone' : `${parts.join(', ')} left`
}
