/**
 * How long xpk waits, and how often it looks: the one retry policy's backoff, the polls of long operations and of
 * objects being waited for, each wait's time limit. One value, read once from the environment when a command starts
 * (src/cli/wiring.ts) and handed to the services, which take from it what they wait on. The defaults suit real
 * APIs; the XPK_* variables below change them (tests shorten the waits), each checked by the environment table's
 * rule (a set but invalid value is bad input naming it, exit 2) and listed in the README from that table.
 */
import {DEFAULT_LOCK_STALE_SECONDS, lockStaleSeconds} from './cluster/lock.js'
import {integerVariable, type Environment, type VariableName} from './environment.js'
import {DEFAULT_RETRY_POLICY, type Backoff, type RetryPolicy} from './retry.js'
import {DEFAULT_GONE_TIMEOUT_MS} from './workload/jobsets.js'

/** A wait for something to reach a state: how often to look, and for how long at most. */
export interface Wait {
  readonly poll: Backoff
  readonly timeoutMs: number
}

/**
 * The polls of GKE and Cloud TPU long-running operations: one ListOperations call per tick watches every operation
 * in flight. Ticks come every `initialMs` for the first `fastForMs` (quick operations finish with little lag), then
 * back off.
 */
export type OperationPolls = Backoff & {readonly fastForMs: number}

export interface Timing {
  /** Retries of calls that failed transiently (XPK_RETRY_INTERVAL_MS: the first wait). */
  readonly retry: RetryPolicy
  /** `cluster create` and `delete`, the `vm` commands: GKE and TPU operations (XPK_POLL_INTERVAL_MS: first tick). */
  readonly operations: OperationPolls
  /**
   * `cluster create`: the JobSet and Kueue controllers becoming Available (XPK_CONTROLLER_TIMEOUT_S). The wait reads
   * one Deployment per poll, which costs the API server next to nothing, so the polls are short: a controller that
   * is up is noticed within a quarter second at first and within 2 s later on (bench:in-cluster measures it).
   */
  readonly controllers: Wait
  /** `cluster cacheimage`: every node pulling the image (XPK_CACHE_IMAGE_TIMEOUT_S; large images on many nodes). */
  readonly cacheImage: Wait
  /** `workload delete --wait`, `workload create --replace`: a deleted workload going (XPK_WORKLOAD_DELETE_TIMEOUT_S). */
  readonly workloadGone: Wait
  readonly ssh: {
    /** `vm run`: how long a worker may take to complete the SSH handshake (XPK_SSH_HANDSHAKE_TIMEOUT_MS). */
    readonly handshakeMs: number
    /** `vm run`: how long SSH may keep refusing after xpk added the key to the nodes' metadata (the VMs pick it up). */
    readonly keyPropagationMs: number
  }
  /** `cluster create` and `delete`: how old another run's cluster lock must be to be taken over. */
  readonly lockStaleSeconds: number
}

export const DEFAULT_TIMING: Timing = {
  retry: DEFAULT_RETRY_POLICY,
  operations: {initialMs: 250, maxMs: 10_000, factor: 1.5, fastForMs: 30_000},
  controllers: {poll: {initialMs: 250, maxMs: 2000, factor: 1.5}, timeoutMs: 10 * 60_000},
  cacheImage: {poll: {initialMs: 2000, maxMs: 15_000, factor: 1.5}, timeoutMs: 30 * 60_000},
  workloadGone: {poll: {initialMs: 1000, maxMs: 5000, factor: 1.5}, timeoutMs: DEFAULT_GONE_TIMEOUT_MS},
  ssh: {handshakeMs: 20_000, keyPropagationMs: 90_000},
  lockStaleSeconds: DEFAULT_LOCK_STALE_SECONDS,
}

/** Every variable {@link readTiming} reads (a test holds each to the environment table and the README). */
export const TIMING_VARIABLES = [
  'XPK_RETRY_INTERVAL_MS',
  'XPK_POLL_INTERVAL_MS',
  'XPK_CONTROLLER_TIMEOUT_S',
  'XPK_CACHE_IMAGE_TIMEOUT_S',
  'XPK_WORKLOAD_DELETE_TIMEOUT_S',
  'XPK_SSH_HANDSHAKE_TIMEOUT_MS',
  'XPK_CLUSTER_LOCK_STALE_S',
] as const satisfies readonly VariableName[]

/**
 * The timing the environment asks for: XPK_RETRY_INTERVAL_MS and XPK_POLL_INTERVAL_MS set the first wait of every
 * retry and poll (they grow from there, to each one's cap), the other variables one wait each.
 * @throws UsageError naming the first variable that is set but not a whole number in its range
 */
export function readTiming(env: Environment): Timing {
  const base = DEFAULT_TIMING
  const retryMs = integerVariable(env, 'XPK_RETRY_INTERVAL_MS')
  const pollMs = integerVariable(env, 'XPK_POLL_INTERVAL_MS')
  const poll = <T extends Backoff>(backoff: T): T => (pollMs === undefined ? backoff : {...backoff, initialMs: pollMs})
  const wait = (defaults: Wait, seconds: number | undefined): Wait => ({
    poll: poll(defaults.poll),
    timeoutMs: seconds === undefined ? defaults.timeoutMs : seconds * 1000,
  })
  return {
    retry: retryMs === undefined ? base.retry : {...base.retry, backoff: {...base.retry.backoff, initialMs: retryMs}},
    operations: poll(base.operations),
    controllers: wait(base.controllers, integerVariable(env, 'XPK_CONTROLLER_TIMEOUT_S')),
    cacheImage: wait(base.cacheImage, integerVariable(env, 'XPK_CACHE_IMAGE_TIMEOUT_S')),
    workloadGone: wait(base.workloadGone, integerVariable(env, 'XPK_WORKLOAD_DELETE_TIMEOUT_S')),
    ssh: {
      ...base.ssh,
      handshakeMs: integerVariable(env, 'XPK_SSH_HANDSHAKE_TIMEOUT_MS') ?? base.ssh.handshakeMs,
    },
    lockStaleSeconds: lockStaleSeconds(env),
  }
}
