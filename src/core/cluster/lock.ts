/**
 * The lock that keeps two `cluster create` (or `cluster delete`) runs from changing one cluster at once.
 *
 * It is a set of resource labels on the GKE cluster, written with GKE's optimistic concurrency: SetLabels must name
 * the `labelFingerprint` of the labels it replaces, and GKE refuses it when they changed since (FAILED_PRECONDITION
 * "fingerprint mismatch"). A run reads the cluster, plans from what it read, and takes the lock with the
 * fingerprint of that same read, so taking it succeeds only if no other run took (or took and released) the lock
 * in between: the plan is known to have been made from state no other xpk run was changing. A new cluster gets the
 * lock in its CreateCluster request, where GKE's ALREADY_EXISTS decides between two runs creating one cluster.
 * Labels rather than a Lease inside the cluster because the GKE phase (node pools) is what races, and a cluster
 * being created has no Kubernetes API yet; labels need nothing but the GKE API (so `--skip-in-cluster` runs are
 * covered too).
 *
 * Label values allow only lowercase letters, digits, `_` and `-` (at most 63 characters), so the holder's user and
 * host are stored lowercased, other characters as `_`. `xpk-generation` counts the locks ever taken and stays
 * when a lock is released, so the labels differ after every lock and release even if GKE derived fingerprints
 * from the labels' content alone.
 */
import {XpkError} from '../errors.js'
import {integerVariable, type Environment} from '../environment.js'
import type {Plan} from './plan.js'

/** The labels of a held lock, and the generation label that outlives it. */
export const LOCK_LABEL = {
  id: 'xpk-lock',
  user: 'xpk-lock-user',
  host: 'xpk-lock-host',
  pid: 'xpk-lock-pid',
  boot: 'xpk-lock-boot',
  command: 'xpk-lock-command',
  since: 'xpk-lock-since',
} as const
export const GENERATION_LABEL = 'xpk-generation'

/** Which command holds a lock. */
export type LockCommand = 'cluster-create' | 'cluster-delete'

/** Who runs this command: the lock's holder identity. */
export interface LockIdentity {
  readonly user: string
  readonly host: string
  readonly pid: number
  /**
   * When the machine booted (a label value; '' when unknown): with the host, it says a lock was taken on this very
   * machine since it last booted, so whether its process still runs can be asked of this machine.
   */
  readonly boot: string
}

/** What this machine can tell of a lock's holder: whether a process of this machine still runs. */
export interface LocalMachine {
  readonly host: string
  readonly boot: string
  readonly pid: number
  readonly alive: (pid: number) => boolean
}

/** A lock as the labels record it. */
export interface LockHolder extends LockIdentity {
  readonly command: LockCommand
  /** When it was taken, in whole seconds since the epoch (the holder's clock). */
  readonly since: number
  /** A random token of the run that took it, so a run tells its own lock from another's. */
  readonly id: string
}

/** A lock older than this is taken to belong to a run that died, and is taken over (with a warning). */
export const DEFAULT_LOCK_STALE_SECONDS = 3 * 60 * 60
/** The environment variable that sets it, in whole seconds (its range is in src/core/environment.ts). */
export const LOCK_STALE_VARIABLE = 'XPK_CLUSTER_LOCK_STALE_S'

/**
 * The stale time from `XPK_CLUSTER_LOCK_STALE_S`: whole seconds from 0 (take over any lock at once: for when you
 * know its holder is gone) to a week. Anything else is bad input naming the variable.
 */
export function lockStaleSeconds(env: Environment): number {
  return integerVariable(env, LOCK_STALE_VARIABLE) ?? DEFAULT_LOCK_STALE_SECONDS
}

/** Text as a GKE label value: lowercase letters, digits, `_` and `-`, at most 63 characters. */
export function labelValue(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9_-]/g, '_')
      .slice(0, 63) || 'unknown'
  )
}

/** The lock a run takes now. */
export function newLockHolder(
  identity: LockIdentity,
  command: LockCommand,
  nowMs: number,
  random: () => number,
): LockHolder {
  const id = Array.from({length: 4}, () =>
    Math.floor(random() * 0x10000)
      .toString(16)
      .padStart(4, '0'),
  ).join('')
  return {
    user: labelValue(identity.user),
    host: labelValue(identity.host),
    pid: identity.pid,
    boot: labelValue(identity.boot).replace(/^unknown$/, ''),
    command,
    since: Math.floor(nowMs / 1000),
    id,
  }
}

/** The lock the labels record, or null (none, or labels that do not make one up). */
export function readLock(labels: Readonly<Record<string, string>>): LockHolder | null {
  const id = labels[LOCK_LABEL.id]
  if (!id) return null
  const since = Number(labels[LOCK_LABEL.since])
  const command = labels[LOCK_LABEL.command]
  return {
    id,
    user: labels[LOCK_LABEL.user] || 'unknown',
    host: labels[LOCK_LABEL.host] || 'unknown',
    pid: Number(labels[LOCK_LABEL.pid]) || 0,
    boot: labels[LOCK_LABEL.boot] ?? '',
    command: command === 'cluster-delete' ? 'cluster-delete' : 'cluster-create',
    // A lock without a readable time is as old as can be: it is taken over.
    since: Number.isFinite(since) ? since : 0,
  }
}

/** The labels with the lock of `holder` added and the generation counted up; other labels are kept. */
export function withLock(labels: Readonly<Record<string, string>>, holder: LockHolder): Record<string, string> {
  const generation = Number(labels[GENERATION_LABEL])
  return {
    ...withoutLock(labels),
    [LOCK_LABEL.id]: holder.id,
    [LOCK_LABEL.user]: holder.user,
    [LOCK_LABEL.host]: holder.host,
    [LOCK_LABEL.pid]: String(holder.pid),
    [LOCK_LABEL.boot]: holder.boot,
    [LOCK_LABEL.command]: holder.command,
    [LOCK_LABEL.since]: String(holder.since),
    [GENERATION_LABEL]: String(Number.isInteger(generation) && generation >= 0 ? generation + 1 : 1),
  }
}

/** The labels without the lock (the generation stays). */
export function withoutLock(labels: Readonly<Record<string, string>>): Record<string, string> {
  const lockKeys = new Set<string>(Object.values(LOCK_LABEL))
  return Object.fromEntries(Object.entries(labels).filter(([key]) => !lockKeys.has(key)))
}

/**
 * Whether a cluster's lock is free, held (by a live run, as far as can be told) or stale, to be taken over: older
 * than the stale time (`age`), or taken on this machine since it booted by a process that is gone (`gone`: killed,
 * crashed), which a re-run of the same command then takes over at once.
 */
export type LockState =
  | {readonly state: 'free'}
  | {readonly state: 'held'; readonly holder: LockHolder; readonly ageSeconds: number}
  | {
      readonly state: 'stale'
      readonly holder: LockHolder
      readonly ageSeconds: number
      readonly because: 'age' | 'gone'
    }

/**
 * The lock of a cluster with these labels, seen at `nowMs` with the stale time `staleSeconds` from `local`. The age
 * is by the two machines' clocks; one that puts the lock in the future counts as age 0 (held). A holder is known to
 * be gone only when it is of this host and this boot and its pid is not running here; a lock from another machine
 * can only age.
 */
export function lockState(
  labels: Readonly<Record<string, string>>,
  nowMs: number,
  staleSeconds: number,
  local?: LocalMachine,
): LockState {
  const holder = readLock(labels)
  if (holder === null) return {state: 'free'}
  const ageSeconds = Math.max(0, Math.floor(nowMs / 1000) - holder.since)
  if (ageSeconds >= staleSeconds) return {state: 'stale', holder, ageSeconds, because: 'age'}
  const here =
    local !== undefined &&
    holder.boot !== '' &&
    holder.host === labelValue(local.host) &&
    holder.boot === labelValue(local.boot)
  // A lock of this machine with this process's own pid is not this run's (callers recognise their own by its id
  // first): an earlier process had the pid and is gone, as every run is pid 1 in a container.
  if (here && (holder.pid === local.pid || !local.alive(holder.pid)))
    return {state: 'stale', holder, ageSeconds, because: 'gone'}
  return {state: 'held', holder, ageSeconds}
}

/** `alice@workstation (pid 4242, xpk cluster create)` */
export function describeHolder(holder: LockHolder): string {
  return `${holder.user}@${holder.host} (pid ${holder.pid}, xpk ${holder.command.replace('-', ' ')})`
}

/** `45 s`, `3 min 12 s`, `2 h 5 min` */
export function describeAge(seconds: number): string {
  if (seconds < 60) return `${seconds} s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`
}

/**
 * The refusal of a run that finds the cluster's lock held by another (exit 6): who holds it, for how long, and
 * when it would be taken over. A second run refuses rather than waits: it planned from a cluster another run is
 * changing, and its plan (a shrink's deletions, say) would be wrong by the time the other is done.
 */
export class ClusterLockedError extends XpkError {
  constructor(
    readonly cluster: string,
    readonly holder: LockHolder,
    readonly ageSeconds: number,
    staleSeconds: number,
  ) {
    super(
      'conflict',
      `Cluster ${cluster} is locked by another xpk run: ${describeHolder(holder)}, for ${describeAge(ageSeconds)}. ` +
        'Nothing was changed.',
      {
        hints: [
          `Wait for that run to finish, then run this command again (it plans from the cluster as that run leaves it).`,
          `If that run died, its lock is taken over ${staleSeconds - ageSeconds > 0 ? `in ${describeAge(staleSeconds - ageSeconds)} (${LOCK_STALE_VARIABLE}=${staleSeconds})` : 'now'}; ` +
            `when you are sure it is gone, ${LOCK_STALE_VARIABLE}=0 takes the lock over at once.`,
        ],
      },
    )
    this.name = 'ClusterLockedError'
  }
}

/**
 * The refusal of a run whose lock could not be taken because the cluster's labels changed since it was read:
 * another run took the lock (and maybe finished, or deleted the cluster) in the meantime, or another tool changed the
 * labels; or, for a new cluster, another run created it first. The plan was made from what may no longer be there: nothing is changed.
 */
export class ClusterChangedError extends XpkError {
  constructor(readonly cluster: string) {
    super(
      'conflict',
      `Cluster ${cluster} changed while this run was planning (another xpk run locked, created or deleted it, or ` +
        'its labels were changed), so the plan may no longer fit it. Nothing was changed.',
      {hints: ['Run the same command again: it plans from the cluster as it is now.']},
    )
    this.name = 'ClusterChangedError'
  }
}

/** Whether an error is one of the lock's refusals (which end a run before it changes anything, exit 6). */
export function isLockRefusal(error: unknown): error is ClusterLockedError | ClusterChangedError {
  return error instanceof ClusterLockedError || error instanceof ClusterChangedError
}

/** The lock as a plan shows it: its state when the cluster was read, or not read (an offline dry run). */
export type LockView = LockState | {readonly state: 'unread'}

/** The plan line's text for the lock, e.g. `free: taken while the plan is applied (labels xpk-lock-*), ...`. */
export function lockStepDetail(view: LockView, staleSeconds: number): string {
  const taking = 'taken while the plan is applied (labels xpk-lock-*) and released when the run ends'
  switch (view.state) {
    case 'free':
      return `free: ${taking}`
    case 'unread':
      return `not read (offline): ${taking}`
    case 'held':
      return `held by ${describeHolder(view.holder)} for ${describeAge(view.ageSeconds)}: a run now is refused (exit 6)`
    case 'stale':
      return view.because === 'gone'
        ? `held by ${describeHolder(view.holder)}, whose process has ended: a run now takes it over`
        : `held by ${describeHolder(view.holder)} for ${describeAge(view.ageSeconds)}, longer than ` +
            `${LOCK_STALE_VARIABLE}=${staleSeconds}: a run now takes it over`
  }
}

/** The lock as `--json` shows it beside the plan. */
export interface LockJson {
  readonly labels: string
  readonly state: LockView['state']
  readonly holder: Omit<LockHolder, 'id' | 'boot'> | null
  readonly ageSeconds: number | null
  readonly staleAfterSeconds: number
}

export function lockJson(view: LockView, staleSeconds: number): LockJson {
  const held = view.state === 'held' || view.state === 'stale'
  return {
    labels: 'xpk-lock-*',
    state: view.state,
    holder: held
      ? {
          user: view.holder.user,
          host: view.holder.host,
          pid: view.holder.pid,
          command: view.holder.command,
          since: view.holder.since,
        }
      : null,
    ageSeconds: held ? view.ageSeconds : null,
    staleAfterSeconds: staleSeconds,
  }
}

/** The plan with the lock of `holder` in its CreateCluster request's labels (a new cluster is made locked). */
export function planWithLock(plan: Plan, holder: LockHolder): Plan {
  return {
    ...plan,
    steps: plan.steps.map((step) =>
      step.resource === 'cluster' && step.action === 'create' && step.spec
        ? {...step, spec: {...step.spec, labels: withLock(step.spec.labels, holder)}}
        : step,
    ),
  }
}
