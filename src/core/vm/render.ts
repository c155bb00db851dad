import type {QueuedResource, QueuedResourceState, TpuNode} from './types.js'
import {renderTable} from '../render/table.js'

/** What each queued resource state means for the person waiting. */
export const STATE_NOTES: Readonly<Partial<Record<QueuedResourceState, string>>> = {
  CREATING: 'the request is being created',
  ACCEPTED: 'accepted, queued for capacity',
  WAITING_FOR_RESOURCES:
    'waiting for capacity in the zone (this can take a while; Ctrl-C stops waiting, the request stays queued)',
  PROVISIONING: 'capacity found, the TPU VMs are being created',
  ACTIVE: 'the TPU VMs are ready',
  FAILED: 'the request failed',
  SUSPENDING: 'the TPU VMs are being suspended (preempted or stopped)',
  SUSPENDED: 'the TPU VMs were suspended (preempted or stopped); delete the request and create it again',
  DELETING: 'being deleted',
}

/** `xpk vm list`: one table of queued resources, one of nodes (slices) with their workers' IPs. */
export function renderVmList(list: {queuedResources: readonly QueuedResource[]; nodes: readonly TpuNode[]}): string {
  const parts: string[] = []
  if (list.queuedResources.length > 0) {
    parts.push(
      renderTable(
        ['queued resource', 'state', 'type', 'slices', 'capacity', 'nodes'],
        list.queuedResources.map((q) => [
          q.id,
          q.state,
          q.acceleratorType,
          q.nodeIds.length,
          q.capacity,
          q.nodeIds.join(',') || null,
        ]),
      ),
    )
  }
  if (list.nodes.length > 0) {
    parts.push(
      renderTable(
        ['node', 'state', 'type', 'runtime', 'workers', 'internal ips', 'external ips', 'queued resource'],
        list.nodes.map((n) => [
          n.id,
          n.state,
          n.acceleratorType,
          n.runtimeVersion,
          n.workers.length,
          n.workers.map((w) => w.internalIp).join(',') || null,
          n.workers.some((w) => w.externalIp) ? n.workers.map((w) => w.externalIp ?? '-').join(',') : null,
          n.queuedResource ?? null,
        ]),
      ),
    )
  }
  return parts.length > 0 ? parts.join('\n\n') : 'No TPU VMs or queued resources.'
}
