import {ApiError, XpkError} from '../core/errors.js'
import {pollDelay, type Backoff} from '../core/retry.js'
import {zoneToRegion} from '../core/settings.js'
import type {Console} from '../ports/console.js'
import type {GkeClient, GkeOperation} from '../ports/gke.js'
import {findCluster} from './cluster-lookup.js'

export interface ClusterDeleteOptions {
  readonly project: string
  readonly zone: string
  readonly cluster: string
  readonly dryRun: boolean
  readonly poll: Backoff
}

export interface ClusterDeleteDeps {
  readonly gke: () => Promise<GkeClient>
  readonly console: Console
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>
  readonly now: () => number
  readonly signal: AbortSignal
}

export interface ClusterDeleteResult {
  readonly cluster: string
  readonly location: string | null
  /** `deleted`, `absent` (nothing to do) or `planned` (dry run). */
  readonly outcome: 'deleted' | 'absent' | 'planned'
  readonly nodePools: readonly string[]
}

const ATTEMPTS = 6

/** Sends the delete, retrying transient failures; a cluster already gone (NOT_FOUND) needs no operation. */
async function deleteWithRetries(
  gke: GkeClient,
  ref: {project: string; location: string; name: string},
  options: ClusterDeleteOptions,
  deps: ClusterDeleteDeps,
): Promise<GkeOperation | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await gke.deleteCluster(ref)
    } catch (error) {
      if (error instanceof XpkError && error.kind === 'not-found') return undefined
      if (!(error instanceof ApiError && error.retryable) || attempt + 1 >= ATTEMPTS) throw error
      await deps.sleep(pollDelay(attempt, options.poll), deps.signal)
    }
  }
}

/** A read that rides out transient failures: they are no reason to give up on a deletion GKE is carrying out. */
async function readWithRetries<T>(
  read: () => Promise<T>,
  options: ClusterDeleteOptions,
  deps: ClusterDeleteDeps,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read()
    } catch (error) {
      if (!(error instanceof ApiError && error.retryable) || attempt + 1 >= ATTEMPTS) throw error
      await deps.sleep(pollDelay(attempt, options.poll), deps.signal)
    }
  }
}

/**
 * `xpk cluster delete`: asks for confirmation (or --force), deletes the cluster and waits for GKE to finish,
 * with progress. A cluster that is already gone is success, with a note.
 */
export async function deleteCluster(
  options: ClusterDeleteOptions,
  deps: ClusterDeleteDeps,
): Promise<ClusterDeleteResult> {
  const gke = await deps.gke()
  try {
    const {project, zone, cluster} = options
    const found = await findCluster(gke, project, zone, cluster)
    if (!found) {
      deps.console.info(
        `Cluster ${cluster} does not exist in project ${project} (${zoneToRegion(zone) ?? zone} or ${zone}): nothing to delete.`,
      )
      return {cluster, location: null, outcome: 'absent', nodePools: []}
    }
    const pools = found.nodePools.map((p) => p.name)
    const summary = `Delete cluster ${cluster} in ${found.location} with its ${pools.length} node pool${pools.length === 1 ? '' : 's'} (${pools.join(', ') || 'none'}) and every workload on it.`
    if (options.dryRun) {
      deps.console.result(`Plan: ${summary}`)
      deps.console.info('Dry run: nothing was changed.')
      return {cluster, location: found.location, outcome: 'planned', nodePools: pools}
    }
    if (!(await deps.console.confirm(`${summary} This cannot be undone. Continue?`, {default: false}))) {
      throw new XpkError('declined', 'Nothing was deleted.')
    }
    const ref = {project, location: found.location, name: cluster}
    const board = deps.console.progress(`Deleting cluster ${cluster}:`)
    const started = deps.now()
    try {
      board.update(cluster, {label: cluster, state: 'deleting', status: 'running'})
      const operation = found.status === 'STOPPING' ? undefined : await deleteWithRetries(gke, ref, options, deps)
      // Until the cluster is gone, or stops being deleted (GKE gave up, or the operation failed).
      for (let poll = 0; ; poll++) {
        const current = await readWithRetries(() => gke.getCluster(ref), options, deps)
        if (current === undefined) break
        const failed = operation
          ? await readWithRetries(() => gke.getOperation(project, found.location, operation.name), options, deps)
          : undefined
        if (failed?.status === 'DONE' && failed.error) throw failed.error
        if (current.status !== 'STOPPING' && (failed === undefined || failed.status === 'DONE')) {
          throw new XpkError(
            'failed',
            `Cluster ${cluster} is ${current.status}, not deleted${current.statusMessage ? `: ${current.statusMessage}` : ''}.`,
            {
              hints: ['Run `xpk cluster delete` again, or look at the cluster in the Cloud Console.'],
            },
          )
        }
        await deps.sleep(pollDelay(poll, options.poll), deps.signal)
        board.update(cluster, {label: cluster, state: 'deleting', status: 'running'})
      }
      board.update(cluster, {label: cluster, state: 'deleted', status: 'done'})
    } catch (error) {
      board.update(cluster, {label: cluster, state: 'failed', status: 'failed', detail: (error as Error).message})
      throw error
    } finally {
      board.close()
    }
    deps.console.info(`Deleted cluster ${cluster} in ${Math.round((deps.now() - started) / 1000)}s.`)
    return {cluster, location: found.location, outcome: 'deleted', nodePools: pools}
  } finally {
    await gke.close()
  }
}
