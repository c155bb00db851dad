/**
 * `xpk workload logs`: which pods of a workload to read, and how their lines are shown. A JobSet's pods carry the
 * JobSet's name (`jobset.sigs.k8s.io/jobset-name`), their slice (`jobset.sigs.k8s.io/job-index`, the index of the
 * slice's Job) and their worker (`batch.kubernetes.io/job-completion-index`, the pod's index in its indexed Job; a
 * label since Kubernetes 1.28, an annotation before), so one list by label selector finds them all. A Pathways
 * workload's pods also carry their replicated Job (`jobset.sigs.k8s.io/replicatedjob-name`): the head
 * (`pathways-head`, one pod, slice 0 and worker 0 of its own Job) or a worker (`worker`, slice and worker as above).
 */
import {escapeInline} from '../text.js'
import {INTEGER_FLAGS, Problems} from '../input.js'
import {checkWorkloadName} from './jobsets.js'
import {PATHWAYS_HEAD_JOB} from './pathways.js'

export const JOB_INDEX_LABEL = 'jobset.sigs.k8s.io/job-index'
export const COMPLETION_INDEX_KEY = 'batch.kubernetes.io/job-completion-index'
/** The replicated Job a JobSet's pod belongs to (a label and an annotation). */
export const REPLICATED_JOB_KEY = 'jobset.sigs.k8s.io/replicatedjob-name'
/** Which of the JobSet's restarts (failurePolicy) made the pod: 0 for the first run. */
export const RESTART_ATTEMPT_LABEL = 'jobset.sigs.k8s.io/restart-attempt'

/** The flags as typed (numbers are accepted too, from in-process callers). */
export interface WorkloadLogsFlags {
  readonly workload: string
  readonly follow?: boolean
  readonly slice?: string | number
  readonly worker?: string | number
  readonly all?: boolean
  /** The Pathways head's pod instead of a worker's. */
  readonly head?: boolean
  readonly tail?: string | number
  readonly since?: string
}

/** Which pods to read: every one, the Pathways head's, or one slice and worker's (of the workers, on Pathways). */
export type LogsSelect =
  | {readonly all: true}
  | {readonly all: false; readonly head: true}
  | {readonly all: false; readonly head?: false; readonly slice: number; readonly worker: number}

export interface WorkloadLogsInput {
  readonly workload: string
  readonly follow: boolean
  readonly select: LogsSelect
  readonly tailLines?: number
  readonly sinceSeconds?: number
}

/**
 * Where a pod sits: a slice and worker, or the Pathways head (`head`, with its own Job's indexes, slice 0 and
 * worker 0, which a worker's pod also has).
 */
export interface LogPlace {
  readonly head?: boolean
  readonly slice: number
  readonly worker: number
}

/** A pod of the workload and where it sits. */
export interface WorkloadPod extends LogPlace {
  readonly name: string
  /** Its main container, named when the pod has several (the first one listed). */
  readonly container?: string
  /** Its creation time, to pick the newest when a restart left two pods for one place. */
  readonly created: string
}

/** The longest `--since` (one week: logs that old are Cloud Logging's job). */
const MAX_SINCE_SECONDS = 7 * 24 * 3600
const SINCE_UNITS: Record<string, number> = {s: 1, m: 60, h: 3600, d: 86_400}

/** `--since 10m` / `90s` / `2h` / `1h30m` in seconds, or the reason it is not a duration. */
export function parseSince(text: string): {value: number} | {problem: string} {
  const trimmed = text.trim()
  const expected = 'a duration like 30s, 10m, 2h or 1h30m (at most 7d)'
  if (!/^(\d+[smhd])+$/.test(trimmed)) return {problem: `"${escapeInline(text)}" is not ${expected}`}
  let seconds = 0
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([smhd])/g)) seconds += Number(amount) * SINCE_UNITS[unit!]!
  if (seconds < 1 || seconds > MAX_SINCE_SECONDS) return {problem: `${trimmed} is out of range: use ${expected}`}
  return {value: seconds}
}

/**
 * Checks the flags of `workload logs`.
 * @throws UsageError or UsageErrors with every problem at once
 */
export function workloadLogsInputFromFlags(flags: WorkloadLogsFlags): WorkloadLogsInput {
  const problems = new Problems()
  checkWorkloadName(problems, flags.workload)
  const slice = problems.integer('--slice', flags.slice, INTEGER_FLAGS['workload:slice'])
  const worker = problems.integer('--worker', flags.worker, INTEGER_FLAGS['workload:worker'])
  const tailLines = problems.integer('--tail', flags.tail, INTEGER_FLAGS['workload:tail'])
  let sinceSeconds: number | undefined
  if (flags.since !== undefined) {
    const parsed = parseSince(flags.since)
    if ('value' in parsed) sinceSeconds = parsed.value
    else problems.add(`--since ${parsed.problem}.`, {flag: '--since'})
  }
  const all = flags.all === true
  const head = flags.head === true
  if (head && (all || flags.slice !== undefined || flags.worker !== undefined)) {
    const others = [
      all ? '--all' : '',
      flags.slice === undefined ? '' : '--slice',
      flags.worker === undefined ? '' : '--worker',
    ]
    problems.add(
      `--head reads the Pathways head's pod; it cannot be combined with ${others.filter(Boolean).join(' or ')}.`,
      {flag: '--head'},
    )
  } else if (all && (flags.slice !== undefined || flags.worker !== undefined)) {
    problems.add('--all reads every pod; it cannot be combined with --slice or --worker.', {flag: '--all'})
  }
  problems.throwIfAny()
  const select: LogsSelect = all
    ? {all: true}
    : head
      ? {all: false, head: true}
      : {all: false, slice: slice ?? 0, worker: worker ?? 0}
  return {
    workload: flags.workload,
    follow: flags.follow === true,
    select,
    ...(tailLines === undefined ? {} : {tailLines}),
    ...(sinceSeconds === undefined ? {} : {sinceSeconds}),
  }
}

interface PodLike {
  readonly metadata: {
    readonly name: string
    readonly creationTimestamp?: string
    readonly deletionTimestamp?: unknown
    readonly labels?: Readonly<Record<string, string>>
    readonly annotations?: Readonly<Record<string, string>>
  }
  readonly spec?: unknown
  readonly status?: unknown
}

/** Where a pod of a JobSet sits; undefined for a pod without the JobSet's indexes. */
export function readWorkloadPod(pod: PodLike): WorkloadPod | undefined {
  const {labels = {}, annotations = {}} = pod.metadata
  const slice = index(labels[JOB_INDEX_LABEL] ?? annotations[JOB_INDEX_LABEL])
  const worker = index(labels[COMPLETION_INDEX_KEY] ?? annotations[COMPLETION_INDEX_KEY])
  if (slice === undefined || worker === undefined) return undefined
  const containers = (pod.spec as {containers?: {name?: string}[]} | undefined)?.containers ?? []
  const container = containers.length > 1 ? containers[0]?.name : undefined
  const head = (labels[REPLICATED_JOB_KEY] ?? annotations[REPLICATED_JOB_KEY]) === PATHWAYS_HEAD_JOB
  return {
    name: pod.metadata.name,
    ...(head ? {head} : {}),
    slice,
    worker,
    ...(container ? {container} : {}),
    created: pod.metadata.creationTimestamp ?? '',
  }
}

function index(text: string | undefined): number | undefined {
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined
}

/** Whether two places are the same: the head, or the same slice and worker of the workers. */
export function samePlace(a: LogPlace, b: LogPlace): boolean {
  return Boolean(a.head) === Boolean(b.head) && a.slice === b.slice && a.worker === b.worker
}

/** Whether `place` is the one `select` asks for (every place for --all). */
export function selected(place: LogPlace, select: LogsSelect): boolean {
  if (select.all) return true
  if (select.head) return place.head === true
  return !place.head && place.slice === select.slice && place.worker === select.worker
}

/**
 * The pods to read: the Pathways head's, the one at `slice`/`worker` (never the head, whose own indexes are 0/0),
 * or every one, the head first, then by slice and worker. Where a restart left more than one pod in a place, the
 * newest is read.
 */
export function selectPods<P extends WorkloadPod>(pods: readonly P[], select: LogsSelect): P[] {
  const newest = new Map<string, P>()
  for (const pod of pods) {
    const key = pod.head ? 'head' : `${pod.slice}/${pod.worker}`
    const seen = newest.get(key)
    if (!seen || seen.created < pod.created || (seen.created === pod.created && seen.name < pod.name)) {
      newest.set(key, pod)
    }
  }
  const chosen = [...newest.values()].sort(
    (a, b) => Number(Boolean(b.head)) - Number(Boolean(a.head)) || a.slice - b.slice || a.worker - b.worker,
  )
  return chosen.filter((p) => selected(p, select))
}

/** `[slice 3/worker 1] ` or `[head] `: what `--all` puts before each line. */
export function podPrefix(place: LogPlace): string {
  return place.head ? '[head] ' : `[slice ${place.slice}/worker ${place.worker}] `
}

/** `slice 3, worker 1` or `the Pathways head`: a place in a sentence. */
export function placeText(place: LogPlace): string {
  return place.head ? 'the Pathways head' : `slice ${place.slice}, worker ${place.worker}`
}

/**
 * Cuts a stream of text pieces into whole lines, in order: `push` returns the lines completed by a piece, `flush`
 * the last one when the stream ends without a newline. One per pod, so a line split across pieces stays whole.
 */
export class LineSplitter {
  private pending = ''

  push(text: string): string[] {
    this.pending += text
    const lines = this.pending.split('\n')
    this.pending = lines.pop() ?? ''
    return lines.map((line) => line.replace(/\r$/, ''))
  }

  flush(): string[] {
    const rest = this.pending
    this.pending = ''
    return rest ? [rest.replace(/\r$/, '')] : []
  }
}

/**
 * A pod of the workload as `--follow` sees it: where it sits, and how its main container is doing. A container
 * that restarts in its pod has its restartCount go up (the new container's log is then the pod's log); a JobSet
 * that restarts (failurePolicy) deletes its pods and makes new ones for the same places.
 */
export interface FollowedPod extends WorkloadPod {
  /** The main container's restartCount: 0 until it first restarts. */
  readonly restarts: number
  /** The main container has run (it is running or has terminated), so its log can be read. */
  readonly started: boolean
  /** The main container is running now (it has started and not terminated). */
  readonly running: boolean
  /** Being deleted (deletionTimestamp set): its log ends, and nothing new will run in it. */
  readonly terminating: boolean
  /** The JobSet restart that made the pod (its restart-attempt label), when labelled. */
  readonly restartAttempt?: number
}

interface ContainerStatusLike {
  readonly name?: string
  readonly restartCount?: number
  readonly state?: {readonly running?: unknown; readonly terminated?: unknown; readonly waiting?: unknown}
}

/** A pod of a JobSet with the state of its main container (the first one listed); undefined without indexes. */
export function readFollowedPod(pod: PodLike): FollowedPod | undefined {
  const placed = readWorkloadPod(pod)
  if (!placed) return undefined
  const containers = (pod.spec as {containers?: {name?: string}[]} | undefined)?.containers ?? []
  const main = containers[0]?.name
  const status = (pod.status ?? {}) as {phase?: string; containerStatuses?: ContainerStatusLike[]}
  const statuses = Array.isArray(status.containerStatuses) ? status.containerStatuses : []
  const mine = statuses.find((c) => c.name === main) ?? (main === undefined ? statuses[0] : undefined)
  // Without container statuses (a pod written by hand, or a kubelet not reporting yet), the phase says it ran.
  const started = mine
    ? Boolean(mine.state?.running ?? mine.state?.terminated)
    : status.phase === 'Running' || status.phase === 'Succeeded' || status.phase === 'Failed'
  const running = mine ? Boolean(mine.state?.running) && !mine.state?.terminated : status.phase === 'Running'
  const attempt = index(pod.metadata.labels?.[RESTART_ATTEMPT_LABEL])
  return {
    ...placed,
    restarts: typeof mine?.restartCount === 'number' ? mine.restartCount : 0,
    started,
    running,
    terminating: pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null,
    ...(attempt === undefined ? {} : {restartAttempt: attempt}),
  }
}

/** What to follow after a followed log ended: the same pod's new container, or a new pod in the same place. */
export interface NextContainer {
  readonly pod: FollowedPod
  /** A new pod in the place, a restarted container in the same pod, or the first container of a pod not read yet. */
  readonly why: 'pod' | 'container' | 'started'
}

/**
 * The container to follow next in `current`'s place, from the pods seen now, or undefined (wait for more news):
 *
 * - a pod new to the place (not among `read`, not older than `current`), not being deleted, whose container has
 *   started: the JobSet restarted and made it (the newest one, when there are several);
 * - else `current` itself with a higher restartCount and its new container started: the container restarted;
 * - or, when `current` could not be read because its container had not started (`started` false), `current` once
 *   its container has started.
 *
 * A pod whose container has not started yet is waited for: its log cannot be read before (400).
 */
export function nextContainer(
  current: FollowedPod,
  read: ReadonlySet<string>,
  pods: Iterable<FollowedPod>,
): NextContainer | undefined {
  const here = [...pods].filter((p) => samePlace(p, current) && p.started && !p.terminating)
  const fresh = here
    .filter((p) => !read.has(p.name) && p.name !== current.name && p.created >= current.created)
    .sort((a, b) => b.created.localeCompare(a.created) || b.name.localeCompare(a.name))
  if (fresh[0]) return {pod: fresh[0], why: 'pod'}
  const same = here.find((p) => p.name === current.name)
  if (!same) return undefined
  if (same.restarts > current.restarts) return {pod: same, why: 'container'}
  return current.started ? undefined : {pod: same, why: 'started'}
}

/**
 * Whether `now` (the pod as it is now; undefined when it is gone) still runs the container `followed` read: the same
 * pod, the same restartCount, running, not being deleted. A followed log that ends while it does was cut short (an
 * idle connection closed, a reset, the kubelet's streaming timeout), not ended by the container: it is read on.
 */
export function stillRunning(followed: FollowedPod, now: FollowedPod | undefined): boolean {
  return (
    now !== undefined &&
    now.name === followed.name &&
    now.restarts === followed.restarts &&
    now.running &&
    !now.terminating
  )
}

/** An RFC 3339 time, any fraction of a second, any offset: whole seconds, fraction, offset. */
const RFC3339 = /(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)/
const TIME_ONLY = new RegExp(`^${RFC3339.source}$`)
/** The time before a line of a log read with `timestamps`, and its space. */
const LINE_TIME = new RegExp(`^${RFC3339.source} `)

/** An RFC 3339 time in nanoseconds since the epoch, exactly (any offset; any fraction, to nanoseconds). */
export function logTimeNanos(text: string): bigint | undefined {
  const m = TIME_ONLY.exec(text)
  if (!m) return undefined
  const ms = Date.parse(`${m[1]}${m[3]}`)
  if (Number.isNaN(ms)) return undefined
  return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'))
}

/**
 * Cuts a log into whole lines as {@link LineSplitter} does, and, for a log asked with `timestamps`, takes the time off
 * each line, keeping where the log has been printed to: the time of the newest line printed and how many lines
 * printed have that very time. {@link reopen} says where to read on from after the stream was cut short (sinceTime:
 * that line's second, as the API server passes sinceTime to the second), and the lines that come again, at or
 * before that line, are dropped, so nothing is printed twice and nothing is missed, however many lines share a time.
 */
export class LogLines {
  private splitter = new LineSplitter()
  private last: bigint | undefined
  /** Lines printed with the time `last`. */
  private atLast = 0
  /** While reading on after {@link reopen}: how many lines with the time `last` have come again. */
  private again: number | undefined

  /** `timed`: the log was asked with timestamps (a log asked without keeps lines that start with a time whole). */
  constructor(private readonly timed: boolean) {}

  /** The lines a piece of the stream completes, without their times, those already printed dropped. */
  push(text: string): string[] {
    return this.take(this.splitter.push(text))
  }

  /** The last line when the log ends without a newline. */
  flush(): string[] {
    return this.take(this.splitter.flush())
  }

  /**
   * The stream was cut short: a line it left unfinished is dropped (it comes again whole), and the lines that come
   * again will be. Returns the sinceTime to ask for, or undefined when no line with a time was printed yet.
   */
  reopen(): string | undefined {
    this.splitter = new LineSplitter()
    if (this.last === undefined) return undefined
    this.again = 0
    const second = this.last / 1_000_000_000n
    return new Date(Number(second) * 1000).toISOString().replace('.000Z', 'Z')
  }

  private take(lines: string[]): string[] {
    if (!this.timed) return lines
    const out: string[] = []
    for (const line of lines) {
      const m = LINE_TIME.exec(line)
      const time = m ? logTimeNanos(m[0].slice(0, -1)) : undefined
      if (!m || time === undefined) {
        out.push(line)
        continue
      }
      if (this.again !== undefined && this.last !== undefined) {
        // Reading on: what is older than the newest line printed, and as many lines of its time as were printed,
        // came before.
        if (time < this.last) continue
        if (time === this.last && this.again < this.atLast) {
          this.again++
          continue
        }
        this.again = undefined
      }
      if (this.last === undefined || time > this.last) {
        this.last = time
        this.atLast = 1
      } else if (time === this.last) this.atLast++
      out.push(line.slice(m[0].length))
    }
    return out
  }
}

/**
 * What to ask for when reading on in a container's log cut short: from `sinceTime` (see {@link LogLines.reopen});
 * when no line was printed yet, what the first request asked (`asked`) as it would be now, `elapsedMs` after it
 * was sent: the lines of the last --since seconds then, all lines written since for --tail 0, else the whole log
 * (nothing in it was printed).
 */
export function reopenAsked(
  asked: {readonly tailLines?: number; readonly sinceSeconds?: number},
  sinceTime: string | undefined,
  elapsedMs: number,
): {sinceTime: string} | {sinceSeconds: number} | Record<string, never> {
  if (sinceTime !== undefined) return {sinceTime}
  const elapsed = Math.max(1, Math.ceil(elapsedMs / 1000))
  if (asked.sinceSeconds !== undefined) return {sinceSeconds: asked.sinceSeconds + elapsed}
  if (asked.tailLines === 0) return {sinceSeconds: elapsed}
  return {}
}

/** The note when following moves on: `slice 0/worker 1 restarted (container restart 2); following the new container.` */
export function restartNote(next: NextContainer): string {
  const {pod} = next
  const place = pod.head ? 'Pathways head' : `slice ${pod.slice}/worker ${pod.worker}`
  if (next.why === 'started') return `${place}: the container of pod ${pod.name} started; following it.`
  if (next.why === 'container') {
    return `${place} restarted (container restart ${pod.restarts}); following the new container.`
  }
  const attempt = pod.restartAttempt === undefined ? '' : `JobSet restart ${pod.restartAttempt}, `
  return `${place} restarted (${attempt}new pod ${pod.name}); following the new pod.`
}

/** Why following a workload stops, once its followed logs end: it finished, or its JobSet was deleted. */
export type FollowEnd = 'completed' | 'failed' | 'deleted'

/** Whether the JobSet (undefined: not there) is done: Completed or Failed (condition True), or deleted. */
export function followEnd(jobset: object | undefined): FollowEnd | undefined {
  if (!jobset) return 'deleted'
  const {status} = jobset as {status?: {conditions?: {type?: string; status?: string}[]}}
  const conditions = status?.conditions
  const isTrue = (type: string) =>
    Array.isArray(conditions) && conditions.some((c) => c.type === type && c.status === 'True')
  if (isTrue('Failed')) return 'failed'
  if (isTrue('Completed')) return 'completed'
  return undefined
}
