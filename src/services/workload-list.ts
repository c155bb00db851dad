import {XpkError} from '../core/errors.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import {workloadListNoneFound} from '../core/messages/lists.js'
import {workloadListConsole, workloadListFinished, workloadListWaiting} from '../core/messages/workload.js'
import {TABLE_OUTPUT, type OutputChoice} from '../core/render/output-format.js'
import {workloadListView} from '../core/render/workloads.js'
import {oneLine} from '../core/text.js'
import type {Timing} from '../core/timing.js'
import {JOBSET_API_VERSION, KUEUE_API_VERSION} from '../core/versions.js'
import {jobSetRef} from '../core/workload/jobsets.js'
import {workloadConsoleUrl} from '../core/workload/links.js'
import {
  describeSeconds,
  workloadListInputFromFlags,
  type WorkloadListFlags,
  type WorkloadListInput,
} from '../core/workload/list-options.js'
import {
  JOBSET_KIND,
  WORKLOAD_KIND,
  readJobSet,
  readWorkload,
  type KueueWorkload,
  type ObservedJobSet,
} from '../core/workload/observed.js'
import {
  matchesStatus,
  ownerName,
  pickWorkload,
  workloadRow,
  workloadRows,
  type StatusFilter,
  type WorkloadRow,
} from '../core/workload/status.js'
import {retrying, startTimeLimit, withRetries, type RetryOptions, type TimeLimit} from '../executor/retry.js'
import {followChanges} from '../executor/watch.js'
import type {Console} from '../ports/console.js'
import type {KubeClient, KubeObject} from '../ports/kube.js'
import {showOutput} from './show-output.js'
import {checkInput, reachCluster, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

export interface WorkloadListOptions extends WorkloadTarget, WorkloadListFlags {
  /** Retries of every read (timing.retry). */
  readonly timing: Pick<Timing, 'retry'>
  /** How the rows are printed (`-o`, `--no-headers`); the table by default. */
  readonly output?: OutputChoice
}

export interface WorkloadListDeps extends ClusterAccessDeps {
  readonly console: Console
}

export interface WorkloadListResult {
  /** The filters applied (none while waiting: the awaited workload is shown). */
  readonly filter: {readonly status: StatusFilter; readonly job: string | null}
  /** The rows, sorted by name. */
  readonly workloads: readonly WorkloadRow[]
  /** With `--wait-for-job-completion`: the workload waited for, which succeeded (a failure is exit 125). */
  readonly waited: {readonly name: string; readonly seconds: number} | null
}

/**
 * `xpk workload list`: every workload of the cluster's xpk namespace, from one list per kind and page (Kueue
 * Workloads and JobSets, read in parallel and joined by owner), filtered by status and name. With
 * `--wait-for-job-completion NAME`, watches that workload until it finishes instead and shows it.
 * @throws UsageErrors for bad input, before any request; XpkError `not-found` for a workload to wait for that does
 * not exist, `unsuccessful` (exit 125) when it failed, `timeout` (exit 124) when it did not finish in time
 */
export async function listWorkloads(options: WorkloadListOptions, deps: WorkloadListDeps): Promise<WorkloadListResult> {
  const input = checkInput(options, () => workloadListInputFromFlags(options))
  if (input.wait) return waitForWorkload(options, input.wait, deps)
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube, gke} = await reachCluster(options, deps, retry)
  const {console} = deps
  // Both kinds at once: each is a chain of pages (every page names the next), so two chains halve the wait.
  const [workloads, jobsets] = await Promise.all([
    readAll(kube, KUEUE_API_VERSION, WORKLOAD_KIND, readWorkload, retry),
    readAll(kube, JOBSET_API_VERSION, JOBSET_KIND, readJobSet, retry),
  ])
  const rows = workloadRows(workloads, jobsets).filter(
    (row) => matchesStatus(row, input.status) && (input.job === null || row.name.includes(input.job)),
  )
  showOutput(console, options.output ?? TABLE_OUTPUT, workloadListView, rows, () =>
    workloadListNoneFound({
      // Through a kubeconfig, the cluster setting does not name the cluster reached.
      cluster: options.viaKubeconfig ? null : (options.cluster ?? null),
      namespace: XPK_NAMESPACE,
      filters: {
        '--filter-by-status': input.status === 'EVERYTHING' ? undefined : input.status,
        '--filter-by-job': input.job ?? undefined,
      },
    }),
  )
  if (gke) {
    console.info(workloadListConsole({project: gke.project}))
  }
  return {filter: {status: input.status, job: input.job}, workloads: rows, waited: null}
}

/**
 * `--wait-for-job-completion NAME`: the `--timeout` bounds the whole command, as `kubectl wait --timeout` does:
 * finding the cluster and the first reads count, so a server that accepts connections and never answers cannot hold
 * the command past it.
 */
async function waitForWorkload(
  options: WorkloadListOptions,
  wait: NonNullable<WorkloadListInput['wait']>,
  deps: WorkloadListDeps,
): Promise<WorkloadListResult> {
  const started = deps.now()
  const limit = startTimeLimit(
    deps.signal,
    wait.timeoutSeconds * 1000,
    deps,
    () =>
      new XpkError(
        'timeout',
        `Workload ${wait.name} did not finish within ${describeSeconds(wait.timeoutSeconds)}: its state could not be read in that time.`,
        {
          hints: [
            'Check that the cluster answers (`xpk cluster describe`), then wait again; the workload itself keeps running.',
          ],
        },
      ),
  )
  try {
    const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: limit.signal}
    const {kube, gke} = await reachCluster(options, {...deps, signal: limit.signal}, retry)
    const row = await awaitCompletion(kube, wait, deps, retry, limit)
    const {console} = deps
    showOutput(console, options.output ?? TABLE_OUTPUT, workloadListView, [row])
    const link =
      gke && options.cluster ? workloadConsoleUrl({...gke, cluster: options.cluster, workload: row.name}) : null
    if (row.outcome !== 'SUCCESSFUL') {
      throw new XpkError(
        'unsuccessful',
        `Workload ${row.name} finished unsuccessfully: ${oneLine(row.statusMessage)}`,
        {
          hints: [
            link
              ? `See its pods and events: ${link}`
              : `See it with \`xpk workload list --filter-by-job ${row.name}\`.`,
          ],
        },
      )
    }
    console.info(workloadListFinished({workload: row.name, status: row.status, link}))
    return {
      filter: {status: 'EVERYTHING', job: null},
      workloads: [row],
      waited: {name: row.name, seconds: Math.round((deps.now() - started) / 1000)},
    }
  } finally {
    limit.dispose()
  }
}

/**
 * Every object of a kind in the namespace, a page at a time (each through the retry policy), each reduced by `read`
 * to the fields xpk uses as soon as its page arrives.
 */
async function readAll<T>(
  kube: KubeClient,
  apiVersion: string,
  kind: string,
  read: (object: KubeObject) => T,
  retry: RetryOptions,
): Promise<T[]> {
  const out: T[] = []
  for await (const page of kube.listAll(apiVersion, kind, {namespace: XPK_NAMESPACE, retry: retrying(retry)})) {
    for (const item of page) out.push(read(item))
  }
  return out
}

/**
 * Watches the JobSet and its Kueue Workloads (two streams, resumed whenever they end) until the workload finishes or
 * the time limit passes, showing its status as it changes. The JobSet stream starts after the JobSet as just read;
 * the Workload stream starts with the JobSet's current Workloads (by Kueue's job-uid label), then follows changes.
 * `retry.signal` is the limit's.
 */
async function awaitCompletion(
  kube: KubeClient,
  wait: NonNullable<WorkloadListInput['wait']>,
  deps: WorkloadListDeps,
  retry: RetryOptions,
  limit: TimeLimit,
): Promise<WorkloadRow> {
  const {name, timeoutSeconds} = wait
  const ref = jobSetRef(name)
  const live = await withRetries(() => kube.get(ref), retry)
  if (!live) {
    throw new XpkError('not-found', `Workload ${name} does not exist in namespace ${XPK_NAMESPACE}.`, {
      hints: ['`xpk workload list` shows the workloads of the cluster; wait for one by the name it was created with.'],
    })
  }
  const found = readJobSet(live)
  // Once waiting, an API server that stops answering for a while (restarting, upgraded) is retried until the time
  // limit: only the first reads give up after the policy's attempts.
  const waiting: RetryOptions = {...retry, untilAborted: true}
  let jobset: ObservedJobSet = found
  const owned = new Map<string, KueueWorkload>()
  const current = (): WorkloadRow => workloadRow(pickWorkload([...owned.values()], jobset), jobset)
  /**
   * The row as shown at the end. The JobSet can say it finished before the Workload stream has delivered its
   * Workload (or before it started): the Workload's columns (VMs that ran, done) are read once more then.
   */
  const final = async (): Promise<WorkloadRow> => {
    if (owned.size > 0 || !jobset.metadata.uid) return current()
    const page = await withRetries(
      () =>
        kube.list(KUEUE_API_VERSION, WORKLOAD_KIND, {
          namespace: XPK_NAMESPACE,
          labelSelector: ownedWorkloadsSelector(jobset),
        }),
      waiting,
    )
    for (const workload of page.items.map(readWorkload))
      owned.set(workload.metadata.uid ?? workload.metadata.name, workload)
    return current()
  }
  let row = current()
  if (row.phase === 'FINISHED') return final()

  const board = deps.console.progress(`Waiting for workload ${name}`)
  const show = (state: 'running' | 'done' | 'failed') =>
    board.update('wait', {label: name, state: row.status, status: state, detail: oneLine(row.statusMessage)})
  show('running')
  deps.console.info(workloadListWaiting({workload: name, status: row.status, timeoutSeconds}))
  const stop = new AbortController()
  const interrupt = () => stop.abort(limit.signal.reason)
  if (limit.signal.aborted) interrupt()
  limit.signal.addEventListener('abort', interrupt, {once: true})
  const follow = {...waiting, signal: stop.signal, namespace: XPK_NAMESPACE}
  try {
    row = await new Promise<WorkloadRow>((resolve, reject) => {
      const changed = () => {
        const next = current()
        const moved = next.status !== row.status || next.statusMessage !== row.statusMessage
        row = next
        if (moved) show('running')
        if (row.phase === 'FINISHED') resolve(row)
      }
      followChanges(
        kube,
        {
          ...follow,
          apiVersion: ref.apiVersion,
          kind: JOBSET_KIND,
          fieldSelector: `metadata.name=${name}`,
          resourceVersion: found.metadata.resourceVersion,
        },
        (change) => {
          if (change.type === 'DELETED') {
            reject(
              new XpkError('failed', `Workload ${name} was deleted before it finished; it was ${row.status}.`, {
                hints: ['Someone (or its TTL) deleted the JobSet; `xpk workload list` shows what is left.'],
              }),
            )
            return
          }
          jobset = readJobSet(change.object)
          changed()
        },
      ).catch(reject)
      // Only this JobSet's Workloads (Kueue labels each with its job's uid), not every Workload of the namespace.
      const selector = jobset.metadata.uid ? {labelSelector: ownedWorkloadsSelector(jobset)} : {}
      followChanges(kube, {...follow, ...selector, apiVersion: KUEUE_API_VERSION, kind: WORKLOAD_KIND}, (change) => {
        const workload = readWorkload(change.object)
        if (ownerName(workload) !== name) return
        const key = workload.metadata.uid ?? workload.metadata.name
        if (change.type === 'DELETED') owned.delete(key)
        else owned.set(key, workload)
        changed()
      }).catch(reject)
    })
    row = await final()
    show(row.outcome === 'SUCCESSFUL' ? 'done' : 'failed')
    return row
  } catch (error) {
    board.update('wait', {label: name, state: row.status, status: 'failed', detail: oneLine(row.statusMessage)})
    if (limit.expired()) {
      throw new XpkError(
        'timeout',
        `Workload ${name} did not finish within ${describeSeconds(timeoutSeconds)}; it is ${row.status}` +
          (row.statusMessage ? `: ${oneLine(row.statusMessage)}` : '.'),
        {hints: ['Wait longer with --timeout SECONDS; the workload itself keeps running.'], cause: error},
      )
    }
    throw error
  } finally {
    limit.signal.removeEventListener('abort', interrupt)
    stop.abort()
    board.close()
  }
}

/** The label selector of the Kueue Workloads made for a JobSet: Kueue labels each with its job's uid. */
function ownedWorkloadsSelector(jobset: ObservedJobSet): string {
  return `kueue.x-k8s.io/job-uid=${jobset.metadata.uid}`
}
