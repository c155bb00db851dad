import type {QueuedResource, TpuNode} from '../vm/types.js'
import {PLAIN_TABLE, renderColumns, type Column, type OutputView, type TableStyle} from './output.js'

/** What `xpk vm list` shows: the zone's queued resources and TPU nodes (slices). */
export interface VmListing {
  readonly queuedResources: readonly QueuedResource[]
  readonly nodes: readonly TpuNode[]
}

/** The queued resources; `-o wide` adds the runtime they ask for and why one FAILED. */
const QUEUED_RESOURCE_COLUMNS: readonly Column<QueuedResource>[] = [
  {header: 'queued resource', cell: (q) => q.id},
  {header: 'state', cell: (q) => q.state},
  {header: 'type', cell: (q) => q.acceleratorType},
  {header: 'runtime', cell: (q) => q.runtimeVersion, wide: true},
  {header: 'slices', cell: (q) => q.nodeIds.length},
  {header: 'capacity', cell: (q) => q.capacity},
  {header: 'nodes', cell: (q) => q.nodeIds.join(',') || null},
  {header: 'failure', cell: (q) => (q.failure ? `${q.failure.code}: ${q.failure.message}` : null), wide: true},
]

/** The nodes (slices), with their workers' IPs; `-o wide` adds the API's unique id of each. */
const NODE_COLUMNS: readonly Column<TpuNode>[] = [
  {header: 'node', cell: (n) => n.id},
  {header: 'state', cell: (n) => n.state},
  {header: 'type', cell: (n) => n.acceleratorType},
  {header: 'runtime', cell: (n) => n.runtimeVersion},
  {header: 'workers', cell: (n) => n.workers.length},
  {header: 'internal ips', cell: (n) => n.workers.map((w) => w.internalIp).join(',') || null},
  {
    header: 'external ips',
    cell: (n) => (n.workers.some((w) => w.externalIp) ? n.workers.map((w) => w.externalIp ?? '-').join(',') : null),
  },
  {header: 'queued resource', cell: (n) => n.queuedResource ?? null},
  {header: 'uid', cell: (n) => n.uid ?? null, wide: true},
]

/** `xpk vm list`: one table of queued resources, one of nodes (slices) with their workers' IPs. */
export function renderVmList(list: VmListing, style: TableStyle = PLAIN_TABLE): string {
  const parts: string[] = []
  if (list.queuedResources.length > 0) parts.push(renderColumns(QUEUED_RESOURCE_COLUMNS, list.queuedResources, style))
  if (list.nodes.length > 0) parts.push(renderColumns(NODE_COLUMNS, list.nodes, style))
  return parts.join('\n\n')
}

/**
 * `xpk vm list`: two kinds in one list, so `-o name` says each name's kind as kubectl does for several kinds:
 * `queuedresource/ID` (what `--queued-resource-id` takes), then `node/ID` (a slice `--tpu-prefix` names).
 */
export const vmListView: OutputView<VmListing> = {
  text: renderVmList,
  names: (list) => [
    ...list.queuedResources.map((q) => `queuedresource/${q.id}`),
    ...list.nodes.map((n) => `node/${n.id}`),
  ],
  isEmpty: (list) => list.queuedResources.length === 0 && list.nodes.length === 0,
}
