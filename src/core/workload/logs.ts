/**
 * `xpk workload logs`: which pods of a workload to read, and how their lines are shown. A JobSet's pods carry the
 * JobSet's name (`jobset.sigs.k8s.io/jobset-name`), their slice (`jobset.sigs.k8s.io/job-index`, the index of the
 * slice's Job) and their worker (`batch.kubernetes.io/job-completion-index`, the pod's index in its indexed Job; a
 * label since Kubernetes 1.28, an annotation before), so one list by label selector finds them all.
 */
import {escapeControl} from '../text.js'
import {INTEGER_FLAGS, Problems} from '../input.js'
import {jobSetNameProblem} from './jobsets.js'

export const JOB_INDEX_LABEL = 'jobset.sigs.k8s.io/job-index'
export const COMPLETION_INDEX_KEY = 'batch.kubernetes.io/job-completion-index'

/** The flags as typed (numbers are accepted too, from in-process callers). */
export interface WorkloadLogsFlags {
  readonly workload: string
  readonly follow?: boolean
  readonly slice?: string | number
  readonly worker?: string | number
  readonly all?: boolean
  readonly tail?: string | number
  readonly since?: string
}

export interface WorkloadLogsInput {
  readonly workload: string
  readonly follow: boolean
  /** Every pod, or one slice and worker. */
  readonly select: {readonly all: true} | {readonly all: false; readonly slice: number; readonly worker: number}
  readonly tailLines?: number
  readonly sinceSeconds?: number
}

/** A pod of the workload and where it sits. */
export interface WorkloadPod {
  readonly name: string
  readonly slice: number
  readonly worker: number
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
  if (!/^(\d+[smhd])+$/.test(trimmed)) return {problem: `"${escapeControl(text)}" is not ${expected}`}
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
  const nameProblem = jobSetNameProblem(flags.workload)
  if (nameProblem) {
    problems.add(`Workload name "${escapeControl(flags.workload)}": ${nameProblem}.`, {
      hints: ['Give the name the workload was created with; `xpk workload list` shows them.'],
    })
  }
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
  if (all && (flags.slice !== undefined || flags.worker !== undefined)) {
    problems.add('--all reads every pod; it cannot be combined with --slice or --worker.', {flag: '--all'})
  }
  problems.throwIfAny()
  return {
    workload: flags.workload,
    follow: flags.follow === true,
    select: all ? {all: true} : {all: false, slice: slice ?? 0, worker: worker ?? 0},
    ...(tailLines === undefined ? {} : {tailLines}),
    ...(sinceSeconds === undefined ? {} : {sinceSeconds}),
  }
}

interface PodLike {
  readonly metadata: {
    readonly name: string
    readonly creationTimestamp?: string
    readonly labels?: Readonly<Record<string, string>>
    readonly annotations?: Readonly<Record<string, string>>
  }
  readonly spec?: unknown
}

/** Where a pod of a JobSet sits; undefined for a pod without the JobSet's indexes. */
export function readWorkloadPod(pod: PodLike): WorkloadPod | undefined {
  const {labels = {}, annotations = {}} = pod.metadata
  const slice = index(labels[JOB_INDEX_LABEL] ?? annotations[JOB_INDEX_LABEL])
  const worker = index(labels[COMPLETION_INDEX_KEY] ?? annotations[COMPLETION_INDEX_KEY])
  if (slice === undefined || worker === undefined) return undefined
  const containers = (pod.spec as {containers?: {name?: string}[]} | undefined)?.containers ?? []
  const container = containers.length > 1 ? containers[0]?.name : undefined
  return {
    name: pod.metadata.name,
    slice,
    worker,
    ...(container ? {container} : {}),
    created: pod.metadata.creationTimestamp ?? '',
  }
}

function index(text: string | undefined): number | undefined {
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined
}

/**
 * The pods to read: the one at `slice`/`worker`, or every one ordered by slice then worker. Where a restart left
 * more than one pod in a place, the newest is read.
 */
export function selectPods(pods: readonly WorkloadPod[], select: WorkloadLogsInput['select']): WorkloadPod[] {
  const newest = new Map<string, WorkloadPod>()
  for (const pod of pods) {
    const key = `${pod.slice}/${pod.worker}`
    const seen = newest.get(key)
    if (!seen || seen.created < pod.created || (seen.created === pod.created && seen.name < pod.name)) {
      newest.set(key, pod)
    }
  }
  const chosen = [...newest.values()].sort((a, b) => a.slice - b.slice || a.worker - b.worker)
  return select.all ? chosen : chosen.filter((p) => p.slice === select.slice && p.worker === select.worker)
}

/** `[slice 3/worker 1] `: what `--all` puts before each line. */
export function podPrefix(place: {readonly slice: number; readonly worker: number}): string {
  return `[slice ${place.slice}/worker ${place.worker}] `
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
