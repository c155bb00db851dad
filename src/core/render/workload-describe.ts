import type {WorkloadDescription} from '../workload/describe.js'
import type {OutputView, TableStyle} from './output.js'
import {renderKeyValues, renderTable} from './table.js'

/**
 * `workload describe` on one screen: the facts, then the history, the pods, the mounts, the recent events and the
 * links, each under its heading (a section with nothing to show says so in one line). `-o wide` adds the
 * conditions' messages and the events' counts; `--no-headers` drops the tables' header lines.
 */
export function renderWorkloadDescription(d: WorkloadDescription, style: TableStyle): string {
  const a = d.asked
  const vms = a.slices * a.vmsPerSlice
  const facts = renderKeyValues([
    ['Workload', d.name],
    ['Cluster', d.cluster],
    ['Kueue Workload', d.kueueWorkload],
    [
      'Status',
      `${d.status} (${d.phase}${d.outcome ? `, ${d.outcome}` : ''})${d.statusTime ? ` since ${d.statusTime}` : ''}`,
    ],
    ['Message', d.statusMessage || null],
    [
      'Type',
      `${a.type ?? 'unknown'}: ${a.slices} slice${a.slices === 1 ? '' : 's'} of ${a.vmsPerSlice} VM${a.vmsPerSlice === 1 ? '' : 's'} (${vms})`,
    ],
    ['Priority', a.priority],
    ['Image', a.image],
    ['Command', a.command],
    ['Restarts', `${d.restarts ?? 0}${a.maxRestarts === null ? '' : ` of ${a.maxRestarts}`}`],
    ['Storages', a.storages.length > 0 ? a.storages.join(', ') : null],
    ['Created', a.created],
  ])
  const section = (title: string, body: string, empty: string) => `\n${title}\n${body === '' ? empty : body}`
  const history = renderTable(
    ['time', 'object', 'condition', 'status', 'reason', ...(style.wide ? ['message'] : [])],
    d.history.map((h) => [h.time, h.object, h.type, h.status, h.reason, ...(style.wide ? [h.message] : [])]),
    {headers: style.headers},
  )
  const pods = renderTable(
    ['slice', 'worker', 'pod', 'phase', 'node', 'restarts', 'waiting'],
    d.pods.map((p) => [p.slice, p.worker, p.name, p.phase, p.node, p.restarts, p.waiting]),
    {headers: style.headers},
  )
  const mounts = renderTable(
    ['name', 'mount path', 'read-only', 'source'],
    d.mounts.map((m) => [m.name, m.mountPath, m.readOnly ? 'yes' : 'no', m.source]),
    {headers: style.headers},
  )
  const events = renderTable(
    ['time', 'object', 'type', 'reason', 'message', ...(style.wide ? ['count'] : [])],
    d.events.map((e) => [e.time, e.object, e.type, e.reason, e.message, ...(style.wide ? [e.count] : [])]),
    {headers: style.headers},
  )
  const links = d.links ? renderKeyValues(linkRows(d.links)) : ''
  return [
    facts,
    section('History', d.history.length > 0 ? history : '', 'No condition yet.'),
    section('Pods', d.pods.length > 0 ? pods : '', 'No pod (queued, or not created yet).'),
    section('Mounts', d.mounts.length > 0 ? mounts : '', 'None.'),
    section('Events (last hour)', d.events.length > 0 ? events : '', 'None.'),
    section('Links', links, 'None (the cluster was reached through a kubeconfig).'),
  ].join('\n')
}

export const workloadDescribeView: OutputView<WorkloadDescription> = {
  text: renderWorkloadDescription,
  names: (d) => [d.name],
}

/** The console link and the logs link, or for a Pathways workload its head's and its first worker's logs links. */
function linkRows(links: NonNullable<WorkloadDescription['links']>): [string, string][] {
  const logs: [string, string][] =
    links.headLogs === null
      ? [['Logs', links.logs]]
      : [
          ['Head logs', links.headLogs],
          ['Worker logs', links.logs],
        ]
  return [['Console', links.console], ...logs]
}
