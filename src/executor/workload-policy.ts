/**
 * Creating a Compute Engine workload policy, the wait included, with the one retry policy and operation watcher:
 * the adapter only sends requests. Used by the plan executor before the node pools that name the policy.
 */
import {workloadPolicyReady} from '../core/cluster/plan.js'
import type {WorkloadPolicySpec} from '../core/cluster/spec.js'
import type {ComputeClient} from '../ports/compute.js'
import {OperationWatcher, type WatchOptions} from './operation-watcher.js'
import {pollUntil, withRetries} from './retry.js'

/**
 * Inserts the policy, waits for the insert's operation, then until the policy is READY. One that exists already
 * (an earlier or parallel run, or a lost answer to our own insert, found by a retry) counts as made once READY.
 * @throws the operation's error, or a conflict when the policy vanishes or ends in a state pools cannot use
 */
export async function createWorkloadPolicy(
  compute: ComputeClient,
  spec: WorkloadPolicySpec,
  options: WatchOptions,
): Promise<void> {
  const inserted = await withRetries(() => compute.insertWorkloadPolicy(spec), options)
  if (inserted !== 'exists') {
    const watcher = new OperationWatcher(
      {
        // Compute Engine has no cheap list of one region's recent operations: each is read by name.
        list: async () => [],
        get: (name) => compute.getRegionOperation(spec.project, spec.region, name),
        name: (op) => op.name,
        isDone: (op) => op.done,
      },
      options,
    )
    const done = await watcher.wait(inserted)
    // Another creator won the race between our insert and its operation: the policy exists, as wanted.
    if (done?.error && done.error.status !== 'ALREADY_EXISTS') throw done.error
  }
  await pollUntil(
    async () => workloadPolicyReady(spec, await compute.getWorkloadPolicy(spec.project, spec.region, spec.name)),
    options,
  )
}
