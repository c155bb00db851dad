import type {WorkloadPolicySpec} from '../core/cluster/spec.js'
import type {Backoff} from '../core/retry.js'

export type {WorkloadPolicySpec}

/** A workload policy as Compute Engine reports it; `null` for fields it left out. */
export interface ObservedWorkloadPolicy {
  readonly name: string
  readonly acceleratorTopology: string | null
  /** e.g. `HIGH_THROUGHPUT` */
  readonly type: string | null
  /** `CREATING`, `READY`, `DELETING`, `EXPIRED` or `INVALID`; pools may name it only once it is READY. */
  readonly status: string | null
}

/**
 * The part of the Compute Engine API xpk needs. Implementations throw `ApiError` (core/errors.ts: classified,
 * with hints) for API failures and do not retry: retries are the caller's job.
 */
export interface ComputeClient {
  /** Resolves `undefined` when the policy does not exist. */
  getWorkloadPolicy(project: string, region: string, name: string): Promise<ObservedWorkloadPolicy | undefined>
  /**
   * Creates it and waits until it is READY. One that already exists (409, an earlier or parallel run, gcloud)
   * counts as made once it is READY, so a retry after a lost answer is safe. Aborting `signal` rejects with
   * `signal.reason` (the policy may still be created); `poll` spaces the checks (see core/retry.ts pollDelay).
   */
  createWorkloadPolicy(spec: WorkloadPolicySpec, options: {signal: AbortSignal; poll: Backoff}): Promise<void>
}
