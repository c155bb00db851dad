/**
 * Creating and deleting the VPC networks, subnetworks and firewall rules of GPU clusters, each operation waited for,
 * with the one retry policy and operation watcher: the adapter only sends requests. Used by the plan executor, before
 * the node pools that attach the networks (cluster create) and after the cluster (cluster delete).
 */
import type {GpuNetworkStep} from '../core/cluster/plan.js'
import type {FirewallSpec, NetworkSpec, SubnetworkSpec} from '../core/cluster/vpc.js'
import type {ComputeClient, ComputeOperation} from '../ports/compute.js'
import {OperationWatcher, type WatchOptions} from './operation-watcher.js'
import {withRetries} from './retry.js'

/**
 * Sends the step's insert or delete and waits for its operation. A name already taken (another run made it, or our
 * own insert's answer was lost and a retry found it) counts as created; nothing of the name left counts as deleted.
 * @returns whether a request that changes something was sent and acted on (false: found as wanted)
 * @throws the operation's error (a network still used by a subnetwork or firewall rule is a conflict)
 */
export async function applyGpuNetworkStep(
  compute: ComputeClient,
  project: string,
  step: GpuNetworkStep,
  options: WatchOptions,
): Promise<boolean> {
  const answer = await withRetries(() => send(compute, project, step), options)
  if (answer === 'exists' || answer === 'gone') return false
  const region = step.resource === 'subnetwork' ? (step.region ?? (step.spec as SubnetworkSpec).region) : undefined
  const watcher = new OperationWatcher(
    {
      // Compute Engine has no cheap list of one scope's recent operations: each is read by name.
      list: async () => [],
      get: (name) =>
        region === undefined
          ? compute.getGlobalOperation(project, name)
          : compute.getRegionOperation(project, region, name),
      name: (op: ComputeOperation) => op.name,
      isDone: (op) => op.done,
    },
    options,
  )
  const done = await watcher.wait(answer)
  if (done?.error && !(step.action === 'create' && done.error.status === 'ALREADY_EXISTS')) throw done.error
  return true
}

function send(compute: ComputeClient, project: string, step: GpuNetworkStep) {
  if (step.action === 'create') {
    if (step.resource === 'network') return compute.insertNetwork(step.spec as NetworkSpec)
    if (step.resource === 'subnetwork') return compute.insertSubnetwork(step.spec as SubnetworkSpec)
    return compute.insertFirewall(step.spec as FirewallSpec)
  }
  if (step.resource === 'network') return compute.deleteNetwork(project, step.name)
  if (step.resource === 'subnetwork') return compute.deleteSubnetwork(project, step.region ?? '', step.name)
  return compute.deleteFirewall(project, step.name)
}
