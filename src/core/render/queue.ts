/**
 * `xpk queue` as a person reads it. On a terminal, one screen that fits its rows and columns exactly (the live view
 * redraws it in place): a title, a bar per ClusterQueue flavor of the quota in use, then the running, queued,
 * recently evicted and finished workloads, each section cut to the rows left with "... and N more". Without a
 * terminal (`--once`, a pipe), every workload, as tables.
 */
import type {QueueSnapshot} from '../queue/snapshot.js'
import {oneLine} from '../text.js'
import {resourceUnit} from '../workload/kueue-queue.js'
import {age} from './ages.js'
import {renderTable} from './table.js'

/** What the screen holds. */
export interface ScreenSize {
  readonly rows: number
  readonly columns: number
}

const ago = (s: number | null) => (s === null ? '-' : age(s * 1000))

/** `[█████░░░░░] 48/64 chips` in `width` cells of bar. */
export function quotaBar(used: number, nominal: number, width: number): string {
  const cells = Math.max(0, width)
  const filled = nominal > 0 ? Math.min(cells, Math.round((used / nominal) * cells)) : 0
  return `[${'█'.repeat(filled)}${'░'.repeat(cells - filled)}]`
}

function usageLines(s: QueueSnapshot, columns: number): string[] {
  const labels = s.queues.flatMap((q) => q.flavors.map((f) => `${q.name} / ${f.flavor}`))
  const labelWidth = Math.max(0, ...labels.map((l) => l.length))
  let i = 0
  const lines: string[] = []
  for (const q of s.queues) {
    for (const f of q.flavors) {
      const amount = `${trim(f.used)}/${trim(f.nominal)} ${resourceUnit(f.resource)}`
      const bar = quotaBar(f.used, f.nominal, Math.min(40, columns - labelWidth - amount.length - 6))
      lines.push(`${labels[i++].padEnd(labelWidth)}  ${bar} ${amount}`)
    }
  }
  return lines.length > 0 ? lines : ['No ClusterQueue: `xpk cluster create` makes one.']
}

const trim = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1))

interface Section {
  readonly title: string
  readonly total: number
  readonly headers: readonly string[]
  readonly rows: readonly (readonly (string | number | null)[])[]
}

function sections(s: QueueSnapshot): Section[] {
  return [
    {
      title: 'RUNNING',
      total: s.running.length,
      headers: ['name', 'priority', 'age', 'vms', 'restarts'],
      rows: s.running.map((w) => [w.name, w.priority, ago(w.seconds), w.vms, w.restarts]),
    },
    {
      title: 'QUEUED',
      total: s.queued.length,
      headers: ['#', 'name', 'priority', 'waiting', 'vms'],
      rows: s.queued.map((w) => [w.position, w.name, w.priority, ago(w.seconds), w.vmsNeeded]),
    },
    {
      title: 'EVICTED (last hour)',
      total: s.evicted.length,
      headers: ['name', 'when', 'why'],
      rows: s.evicted.map((w) => [
        w.name,
        `${ago(w.seconds)} ago`,
        `${w.reason}${w.by ? ` by ${w.by}` : ''}${w.heldSeconds ? `; back in the queue in ${age(w.heldSeconds * 1000)}` : ''}`,
      ]),
    },
    {
      title: 'FINISHED (last hour)',
      total: s.finished.length,
      headers: ['name', 'outcome', 'when'],
      rows: s.finished.map((w) => [w.name, w.outcome, `${ago(w.seconds)} ago`]),
    },
  ]
}

/** Every workload, as tables under their headings (`--once`, or no terminal). */
export function renderQueueTables(s: QueueSnapshot, cluster: string | null): string {
  const parts = [`Queues of cluster ${cluster ?? '(kubeconfig)'} at ${s.at}`, ...usageLines(s, 100)]
  for (const section of sections(s)) {
    parts.push('', `${section.title} (${section.total})`)
    parts.push(section.total > 0 ? renderTable(section.headers, section.rows) : 'None.')
  }
  return parts.join('\n')
}

/**
 * The live screen: exactly `size.rows` lines or fewer, none wider than `size.columns`. Only the rows that fit are
 * rendered (a section of 10,000 queued workloads costs what its visible rows cost).
 */
export function renderQueueScreen(s: QueueSnapshot, size: ScreenSize, cluster: string | null): string[] {
  const clip = (line: string) =>
    line.length > size.columns ? `${line.slice(0, Math.max(0, size.columns - 1))}…` : line
  const counts = `${s.running.length} running, ${s.queued.length} queued`
  const head = [
    `xpk queue: cluster ${cluster ?? '(kubeconfig)'}, ${counts}, ${s.at.slice(11, 19)} UTC (Ctrl-C to quit)`,
    ...usageLines(s, size.columns),
  ]
  const lines = head.map((l) => clip(oneLine(l)))
  let left = size.rows - lines.length
  const shown = sections(s).filter((section) => section.total > 0)
  for (const [i, section] of shown.entries()) {
    // Blank line, title, header, and at least one row; later sections keep room for their own three lines.
    // On a small screen the earlier sections come first: each takes at least its first row.
    const reserve = shown.slice(i + 1).reduce((sum, next) => sum + Math.min(4, 3 + next.total), 0)
    const budget = Math.min(left, Math.max(4, left - reserve))
    if (budget < 4) break
    const room = budget - 3
    // Cut: the last row says how many more (with room for one row only, the title's count says it).
    const cut = section.total > room && room >= 2
    const visible = section.rows.slice(0, cut ? room - 1 : room)
    lines.push('', clip(`${section.title} (${section.total})`))
    for (const line of renderTable(section.headers, visible).split('\n')) lines.push(clip(line))
    if (cut) lines.push(clip(`... and ${section.total - visible.length} more`))
    left = size.rows - lines.length
  }
  if (shown.length === 0 && left >= 2) lines.push('', 'No workloads.')
  return lines.slice(0, size.rows)
}
