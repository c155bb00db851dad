/**
 * Taking and releasing the cluster lock of `cluster create` and `cluster delete` (what it is and why:
 * src/core/cluster/lock.ts). A run checks the lock in the cluster it read, plans, asks, then takes the lock with
 * the fingerprint of that read; it releases the lock when it ends, whether it succeeded, failed or was interrupted.
 */
import {isLabelFingerprintMismatch} from '../core/cluster/gke-errors.js'
import {
  ClusterLockedError,
  ClusterChangedError,
  describeHolder,
  lockState,
  newLockHolder,
  readLock,
  withLock,
  withoutLock,
  type LockCommand,
  type LockHolder,
  type LockIdentity,
  type LockState,
} from '../core/cluster/lock.js'
import type {ObservedCluster} from '../core/cluster/observed.js'
import {ApiError, XpkError} from '../core/errors.js'
import {
  clusterLockHeld,
  clusterLockNotReleased,
  clusterLockReleasing,
  clusterLockTakenOver,
} from '../core/messages/cluster.js'
import type {Console} from '../ports/console.js'
import type {ClusterRef, GkeClient} from '../ports/gke.js'
import {startTimeLimit, withRetries, type Clock, type RetryPolicy} from '../executor/retry.js'

/** Who this run is, and after how long another run's lock counts as abandoned. */
export interface ClusterLockOptions {
  readonly identity: LockIdentity
  /** `XPK_CLUSTER_LOCK_STALE_S` (core/cluster/lock.ts: lockStaleSeconds). */
  readonly staleSeconds: number
  /** Whether a process of this machine runs: a lock taken here by one that is gone is taken over at once. */
  readonly alive: (pid: number) => boolean
}

function local(options: ClusterLockOptions) {
  return {...options.identity, alive: options.alive}
}

export interface LockDeps extends Clock {
  readonly gke: GkeClient
  readonly console: Console
  readonly signal: AbortSignal
  readonly retry: RetryPolicy
}

/** A lock this run holds. */
export interface HeldLock {
  readonly holder: LockHolder
}

/**
 * The lock as a run that read `cluster` finds it. A cluster being deleted has none that counts (it is going away;
 * a create waits for it to go and makes the cluster anew with its own lock), nor has a cluster that does not exist.
 */
export function lockOf(cluster: ObservedCluster | undefined, options: ClusterLockOptions, now: number): LockState {
  if (cluster === undefined || cluster.status === 'STOPPING') return {state: 'free'}
  return lockState(cluster.labels, now, options.staleSeconds, local(options))
}

/** Refuses (exit 6, naming the holder and the lock's age) when another run holds the cluster's lock. */
export function refuseIfHeld(cluster: string, state: LockState, options: ClusterLockOptions): void {
  if (state.state === 'held')
    throw new ClusterLockedError(cluster, state.holder, state.ageSeconds, options.staleSeconds)
}

/** The note a dry run adds when the lock is held or stale: what a real run would do now. */
export function noteDryRunLock(cluster: string, state: LockState, options: ClusterLockOptions, console: Console) {
  if (state.state === 'free') return
  console.warn(clusterLockHeld({cluster, lock: state, staleSeconds: options.staleSeconds}))
}

/**
 * The lock this run takes: put into the CreateCluster request of a cluster that does not exist yet, or set on an
 * existing one by {@link takeLock}. Made before it is sent, so that whatever happens to the request (a lost answer,
 * Ctrl-C while it is on the wire) the release in a `finally` can tell whether the lock on the cluster is this one.
 */
export function newLock(command: LockCommand, options: ClusterLockOptions, deps: Clock): HeldLock {
  return {holder: newLockHolder(options.identity, command, deps.now(), deps.random)}
}

/**
 * Takes the lock of an existing cluster: SetLabels with the lock added, naming the fingerprint of the read the
 * plan was made from. A lock held by another run is refused (exit 6); a stale one is taken over with a warning.
 * When the labels changed since the read, either another run holds the lock now (refused, naming it) or one came
 * and went, or another tool changed the labels: the plan may be stale, so nothing is done (exit 6, re-run).
 * The SetLabels operation is not waited for: the labels, and the fingerprint check, take effect when GKE answers
 * the request; a change of the plan that GKE refuses while the operation runs is retried like any "another
 * operation is running".
 */
export async function takeLock(
  cluster: ObservedCluster,
  lock: HeldLock,
  options: ClusterLockOptions,
  deps: LockDeps,
): Promise<void> {
  const ref: ClusterRef = {project: cluster.project, location: cluster.location, name: cluster.name}
  const retry = {policy: deps.retry, clock: deps, signal: deps.signal}
  const state = lockOf(cluster, options, deps.now())
  refuseIfHeld(cluster.name, state, options)
  if (state.state === 'stale') {
    deps.console.warn(
      clusterLockTakenOver({
        cluster: cluster.name,
        holder: state.holder,
        ageSeconds: state.ageSeconds,
        because: state.because,
        staleSeconds: options.staleSeconds,
      }),
    )
  }
  const {holder} = lock
  let operation
  try {
    operation = await withRetries(
      () => deps.gke.setResourceLabels(ref, withLock(cluster.labels, holder), cluster.labelFingerprint),
      retry,
    )
  } catch (error) {
    // Deleted since it was read (by a cluster delete that took the lock and finished): the plan is void too.
    if (error instanceof ApiError && error.status === 'NOT_FOUND') throw new ClusterChangedError(cluster.name)
    if (!isLabelFingerprintMismatch(error)) throw error
    const now = await withRetries(() => deps.gke.getCluster(ref), retry)
    // A retried SetLabels whose first answer was lost: the first one landed, and the lock on the cluster is ours.
    if (now !== undefined && readLock(now.labels)?.id === holder.id) return
    const current = lockOf(now, options, deps.now())
    refuseIfHeld(cluster.name, current, options)
    throw new ClusterChangedError(cluster.name)
  }
  deps.console.debug(
    `Took the lock of cluster ${cluster.name} (${describeHolder(holder)}, id ${holder.id}; ${operation.name}).`,
  )
}

/** How long releasing may take: GKE may still be busy with operations the run sent. */
const RELEASE_BUDGET_MS = 60_000
/**
 * After Ctrl-C the user is waiting for the prompt, and a re-run on this machine takes the lock over at once (its
 * holder is gone), so releasing gets only a few seconds.
 */
const INTERRUPTED_RELEASE_BUDGET_MS = 10_000

/**
 * Releases the lock this run holds: SetLabels without it, if the cluster still carries this run's lock (nothing
 * when the cluster is gone or being deleted, or another run took the lock over). Runs after success, failure and
 * Ctrl-C alike, so it has its own deadline rather than the command's (already aborted) signal. A lock that cannot be
 * released is a warning saying how it is cleared.
 */
export async function releaseLock(
  ref: ClusterRef,
  lock: HeldLock,
  options: ClusterLockOptions,
  deps: LockDeps,
): Promise<void> {
  const interrupted = deps.signal.aborted
  const budgetMs = interrupted ? INTERRUPTED_RELEASE_BUDGET_MS : RELEASE_BUDGET_MS
  const deadline = startTimeLimit(
    new AbortController().signal,
    budgetMs,
    deps,
    () => new XpkError('timeout', `no answer from GKE within ${budgetMs / 1000} s`),
  )
  const retry = {policy: {...deps.retry, conflictBudgetMs: budgetMs}, clock: deps, signal: deadline.signal}
  if (interrupted) deps.console.info(clusterLockReleasing({cluster: ref.name}))
  try {
    // A mismatch means the labels changed between the read and the write (another tool's labels): read again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const cluster = await withRetries(() => deps.gke.getCluster(ref), retry)
      if (cluster === undefined || cluster.status === 'STOPPING') return
      if (readLock(cluster.labels)?.id !== lock.holder.id) return
      // GKE changes no labels while it creates the cluster: waiting for that would hold the user's prompt.
      if (interrupted && cluster.status === 'PROVISIONING') throw new Error('the cluster is still being created')
      try {
        await withRetries(
          () => deps.gke.setResourceLabels(ref, withoutLock(cluster.labels), cluster.labelFingerprint),
          retry,
        )
        deps.console.debug(`Released the lock of cluster ${ref.name}.`)
        return
      } catch (error) {
        if (!isLabelFingerprintMismatch(error)) throw error
      }
    }
    throw new Error('its labels kept changing')
  } catch (error) {
    deps.console.warn(
      clusterLockNotReleased({
        cluster: ref.name,
        cause: (error as Error).message,
        staleSeconds: options.staleSeconds,
      }),
    )
  } finally {
    deadline.dispose()
  }
}

/**
 * For the executor, when CreateCluster finds the cluster already there: fine when it carries this run's lock (an
 * earlier attempt's answer was lost); otherwise another run created it first, and this one stops (exit 6), naming
 * that run when its lock says who it is.
 */
export function claimNewCluster(
  name: string,
  lock: HeldLock,
  options: ClusterLockOptions,
  now: () => number,
): (found: ObservedCluster | undefined) => void {
  return (found) => {
    if (found !== undefined && readLock(found.labels)?.id === lock.holder.id) return
    const state =
      found === undefined
        ? ({state: 'free'} as const)
        : lockState(found.labels, now(), options.staleSeconds, local(options))
    if (state.state === 'held') throw new ClusterLockedError(name, state.holder, state.ageSeconds, options.staleSeconds)
    throw new ClusterChangedError(name)
  }
}
