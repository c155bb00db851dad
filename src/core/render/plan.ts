/**
 * How every plan is shown and printed as data: `cluster create` and `cluster delete`, `workload create` and
 * `workload delete`, `vm create`, `vm delete` and `vm run`. Shown, a plan is a title, one line per step (a mark, what
 * is done, to what, its name and why), then a summary; as data (`--json`), one object per step with the value xpk
 * sends. Each kind of plan maps its own steps onto these; there is no other plan renderer.
 */

/** One step of a plan as `--json` prints it: what is done to what, why, and the value sent (null when none is). */
export interface PlanStepJson<Action extends string = string, Resource extends string = string, Spec = unknown> {
  readonly action: Action
  readonly resource: Resource
  readonly name: string
  readonly reason: string
  readonly spec: Spec
}

/** One line of a plan as shown. */
export interface PlanLine {
  /** What is done: create, delete, recreate, update, build, wait, none, ... */
  readonly action: string
  /** What it is done to, as one word: cluster, nodepool, jobset, queued-resource, ... */
  readonly resource: string
  readonly name: string
  /** Why, and what is sent. */
  readonly detail: string
  /** Lines shown under it, indented (the object sent, as YAML, under --verbose). */
  readonly more?: readonly string[]
}

/** The mark before each line: `+` adds, `-` removes, `-/+` replaces, `~` changes or waits, `=` leaves as it is. */
const MARKS: Readonly<Record<string, string>> = {
  create: '+',
  build: '+',
  copy: '+',
  delete: '-',
  recreate: '-/+',
  none: '=',
  check: '=',
}

export function planMark(action: string): string {
  return MARKS[action] ?? '~'
}

/**
 * A plan as text: the title, then one line per step in columns (the mark, the action and the resource at least 8
 * wide, the names as wide as the longest), then the footer lines (summary, warnings).
 */
export function renderPlanLines(title: string, lines: readonly PlanLine[], footer: readonly string[] = []): string {
  const nameWidth = Math.max(0, ...lines.map((l) => l.name.length))
  const actionWidth = Math.max(8, ...lines.map((l) => l.action.length))
  const resourceWidth = Math.max(8, ...lines.map((l) => l.resource.length))
  const out = [title]
  for (const l of lines) {
    out.push(
      `  ${planMark(l.action).padEnd(3)} ${l.action.padEnd(actionWidth)} ${l.resource.padEnd(resourceWidth)} ${l.name.padEnd(nameWidth)}  ${l.detail}`,
    )
    for (const more of l.more ?? []) out.push(`      ${more}`)
  }
  return [...out, ...footer].join('\n')
}

/** Actions that change nothing: not counted as changes (`none` is counted as unchanged). */
const NOT_CHANGES = new Set(['none', 'check', 'wait', 'lock'])

/** The order changes are counted in; others follow in the order they first appear. */
const CHANGE_ORDER = ['build', 'copy', 'create', 'update', 'recreate', 'delete']

/**
 * The summary of a plan's actions: `Summary: 1 to create, 1 to delete, 3 unchanged.`, or `noChanges` when no step
 * changes anything.
 */
export function planSummary(actions: readonly string[], noChanges: string): string {
  const counts = new Map<string, number>()
  for (const action of actions) counts.set(action, (counts.get(action) ?? 0) + 1)
  const changes = [
    ...CHANGE_ORDER.filter((a) => counts.has(a)),
    ...[...counts.keys()].filter((a) => !CHANGE_ORDER.includes(a) && !NOT_CHANGES.has(a)),
  ]
  if (changes.length === 0) return noChanges
  const phrase = (a: string) => `${counts.get(a)} to ${a.replaceAll('-', ' ')}`
  return `Summary: ${changes.map(phrase).join(', ')}, ${counts.get('none') ?? 0} unchanged.`
}
