import {idProblem, sliceIndex} from '../core/vm/naming.js'
import type {QueuedResource, TpuLocation, TpuNode} from '../ports/tpu.js'
import {withRetries} from '../executor/retry.js'
import {tpuRetry, usingTpu, type VmApiDeps, type VmTiming} from './vm-common.js'

export interface VmListOptions extends TpuLocation {
  /** Only the slices named P or P-<n>, and the queued resources that created them or are named P. */
  readonly tpuPrefix?: string
  readonly timing: VmTiming
}

export interface VmListResult {
  readonly queuedResources: readonly QueuedResource[]
  readonly nodes: readonly TpuNode[]
}

/** `xpk vm list`: queued resources and nodes of the zone, optionally only those of one prefix. */
export async function listVms(options: VmListOptions, deps: VmApiDeps): Promise<VmListResult> {
  const prefixProblem = options.tpuPrefix === undefined ? undefined : idProblem(options.tpuPrefix, '--tpu-prefix')
  if (prefixProblem) throw prefixProblem
  const location = {project: options.project, zone: options.zone}
  return usingTpu(deps, async (tpu) => {
    const [queuedResources, nodes] = await Promise.all([
      withRetries(() => tpu.listQueuedResources(location), tpuRetry(options.timing, deps)),
      withRetries(() => tpu.listNodes(location), tpuRetry(options.timing, deps)),
    ])
    const prefix = options.tpuPrefix
    if (prefix === undefined) return {queuedResources, nodes}
    const mine = nodes.filter((n) => sliceIndex(prefix, n.id) !== undefined)
    const owners = new Set(mine.map((n) => n.queuedResource))
    return {
      queuedResources: queuedResources.filter(
        (q) => q.id === prefix || owners.has(q.id) || q.nodeIds.some((id) => sliceIndex(prefix, id) !== undefined),
      ),
      nodes: mine.sort((a, b) => (sliceIndex(prefix, a.id) ?? 0) - (sliceIndex(prefix, b.id) ?? 0)),
    }
  })
}
