import {noQueues, usageCell, usageColumns, type QueueInfo, type QueueUsage} from '../insight/queues.js'
import {oneLine} from '../text.js'
import type {OutputView, TableStyle} from './output.js'
import {renderTable} from './table.js'

/**
 * One of Python xpk's tables, with its headers: QUEUE, ADMITTED_WORKLOADS, PENDING_WORKLOADS, then one column per `<flavor>:<resource>`
 * of the queues' quota, each cell `<reserved>/<nominal quota>`. Those columns are named by Kueue's objects, so they
 * are printed as named (not upper-cased) and on one line. `-o wide` adds, before them, the queue's namespace and
 * ClusterQueue (LocalQueues) and its reserving workloads, and after them, per column, what admitted workloads use.
 */
function renderQueues(rows: readonly QueueUsage[], local: boolean, style: TableStyle): string {
  type Cell = (r: QueueUsage) => string | number | null
  const keys = usageColumns(rows)
  const columns: Array<[string, Cell]> = [['QUEUE', (r) => r.name]]
  if (style.wide && local) columns.push(['NAMESPACE', (r) => r.namespace], ['CLUSTER_QUEUE', (r) => r.clusterQueue])
  columns.push(['ADMITTED_WORKLOADS', (r) => r.admittedWorkloads], ['PENDING_WORKLOADS', (r) => r.pendingWorkloads])
  if (style.wide) columns.push(['RESERVING_WORKLOADS', (r) => r.reservingWorkloads])
  for (const k of keys) columns.push([oneLine(k), (r) => usageCell(r, k)])
  if (style.wide) for (const k of keys) columns.push([`USED_${oneLine(k)}`, (r) => usageCell(r, k, 'used')])
  return renderTable(
    columns.map(([h]) => h),
    rows.map((r) => columns.map(([, cell]) => cell(r))),
    {headers: style.headers, verbatimHeaders: true},
  )
}

/**
 * `xpk info`: Python's two tables, "Local Queues usage" then "Cluster Queues usage", each under its title (dropped
 * with --no-headers, as the header lines); a kind asked for with no queue says so in one line.
 */
export function renderQueueInfo(info: QueueInfo, style: TableStyle): string {
  const parts: string[] = []
  const section = (title: string, rows: readonly QueueUsage[] | null, local: boolean, none: string) => {
    if (rows === null) return
    if (rows.length === 0) {
      if (style.headers) parts.push(`${title}\n${none}`)
      return
    }
    const table = renderQueues(rows, local, style)
    parts.push(style.headers ? `${title}\n${table}` : table)
  }
  section('Local Queues usage', info.localQueues, true, 'No LocalQueue.')
  section('Cluster Queues usage', info.clusterQueues, false, 'No ClusterQueue.')
  return parts.join('\n\n')
}

/**
 * `xpk info`: two kinds, so `-o name` says each name's kind as kubectl does: `localqueue/NAME`, then
 * `clusterqueue/NAME`. Nothing found when no queue of the kinds asked for exists.
 */
export const queueInfoView: OutputView<QueueInfo> = {
  text: renderQueueInfo,
  names: (info) => [
    ...(info.localQueues ?? []).map((q) => `localqueue/${q.name}`),
    ...(info.clusterQueues ?? []).map((q) => `clusterqueue/${q.name}`),
  ],
  isEmpty: noQueues,
}
