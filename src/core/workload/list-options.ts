/**
 * The input of `xpk workload list`, checked before any request: the status filter (any case), the job filter, and
 * the workload to wait for with its timeout. Every problem is reported at once.
 */
import {escapeInline} from '../text.js'
import {INTEGER_FLAGS, Problems} from '../input.js'
import {jobSetNameProblem} from './jobsets.js'
import {parseStatusFilter, type StatusFilter} from './status.js'

/** One week, Python xpk's (and `kubectl wait`'s) wait when no --timeout is given. */
export const DEFAULT_WAIT_TIMEOUT_SECONDS = 7 * 24 * 3600

/** The flags as typed (numbers are accepted too, from in-process callers). */
export interface WorkloadListFlags {
  readonly filterByStatus?: string
  readonly filterByJob?: string
  readonly waitForJobCompletion?: string
  readonly timeout?: string | number
}

export interface WorkloadListInput {
  readonly status: StatusFilter
  /** Keep rows whose name contains this text (plain substring, as in Python xpk); null keeps every row. */
  readonly job: string | null
  /** Wait for this workload (JobSet name) to finish, at most this long. */
  readonly wait: {readonly name: string; readonly timeoutSeconds: number} | null
}

/**
 * Checks the flags of `workload list`.
 * @throws UsageError or UsageErrors with every problem at once
 */
export function workloadListInputFromFlags(flags: WorkloadListFlags): WorkloadListInput {
  const problems = new Problems()
  let status: StatusFilter = 'EVERYTHING'
  if (flags.filterByStatus !== undefined) {
    const parsed = parseStatusFilter(flags.filterByStatus)
    if ('value' in parsed) status = parsed.value
    else problems.add(`--filter-by-status ${escapeInline(parsed.problem)}.`, {flag: '--filter-by-status'})
  }
  const timeout = problems.integer('--timeout', flags.timeout, INTEGER_FLAGS['workload:timeout'])
  let wait: WorkloadListInput['wait'] = null
  const name = flags.waitForJobCompletion
  if (name !== undefined) {
    const problem = jobSetNameProblem(name)
    if (problem) {
      problems.add(`--wait-for-job-completion "${escapeInline(name)}": ${problem}.`, {
        flag: '--wait-for-job-completion',
        hints: [
          'Give the name the workload was created with (`xpk workload create --workload NAME`); `xpk workload list` shows them.',
        ],
      })
    } else wait = {name, timeoutSeconds: timeout ?? DEFAULT_WAIT_TIMEOUT_SECONDS}
  } else if (flags.timeout !== undefined && !problems.has('--timeout')) {
    problems.add('--timeout only applies with --wait-for-job-completion NAME.', {flag: '--timeout'})
  }
  problems.throwIfAny()
  return {status, job: flags.filterByJob ?? null, wait}
}

/** "7 days", "90 s", "2 h 30 min": how long a wait is, for messages. */
export function describeSeconds(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}`
  if (seconds % 3600 === 0) return `${seconds / 3600} h`
  if (seconds % 60 === 0 && seconds >= 60) return `${seconds / 60} min`
  return `${seconds} s`
}
