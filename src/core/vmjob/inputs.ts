/** The numbers and choices of the `vm job` commands, checked as typed (every problem reported together). */
import {throwIfProblems, UsageError} from '../errors.js'
import {INTEGER_FLAGS, parseInteger} from '../input.js'
import {closestMatches, orList} from '../suggest.js'
import type {VmJobStatus} from './record.js'

function integer(flag: string, text: string | undefined, key: keyof typeof INTEGER_FLAGS, problems: UsageError[]) {
  if (text === undefined) return undefined
  const parsed = parseInteger(text, INTEGER_FLAGS[key])
  if ('problem' in parsed) {
    problems.push(new UsageError(`${flag}: ${parsed.problem}.`, {flag}))
    return undefined
  }
  return parsed.value
}

/** `vm job create`'s numbers: problems are added to `problems`, so they are reported with the config's. */
export function vmJobNumbersFromFlags(
  flags: {
    readonly maxRecoveries?: string
    readonly pollInterval?: string
    readonly sshPort?: string
    readonly timeout?: string
  },
  problems: UsageError[],
): {maxRecoveries?: number; pollMs: number; sshPort: number; timeoutSeconds?: number} {
  const maxRecoveries = integer('--max-recoveries', flags.maxRecoveries, 'vm:max-recoveries', problems)
  const pollSeconds = integer('--poll-interval', flags.pollInterval, 'vm:poll-interval', problems) ?? 5
  const sshPort = integer('--ssh-port', flags.sshPort, 'vm:ssh-port', problems) ?? 22
  const timeoutSeconds = integer('--timeout', flags.timeout, 'vm:timeout', problems)
  return {
    ...(maxRecoveries === undefined ? {} : {maxRecoveries}),
    pollMs: pollSeconds * 1000,
    sshPort,
    ...(timeoutSeconds === undefined ? {} : {timeoutSeconds}),
  }
}

/** The logs `vm job logs --module` reads: the command's, a setup module's, the code copy's, the supervisor's. */
export const LOG_MODULES = ['command', 'ssh', 'gcsfuse', 'docker', 'conda', 'venv', 'code', 'supervisor'] as const
export type LogModule = (typeof LOG_MODULES)[number]

export interface VmJobLogsInput {
  readonly worker?: number
  readonly module: LogModule
}

/** Checks a --worker index (`vm job ssh`). */
export function vmJobWorkerFromFlag(text: string | undefined): number | undefined {
  const problems: UsageError[] = []
  const worker = integer('--worker', text, 'vm:worker', problems)
  throwIfProblems(problems)
  return worker
}

/** Checks `vm job logs`'s --worker and --module. */
export function vmJobLogsInputFromFlags(flags: {readonly worker?: string; readonly module?: string}): VmJobLogsInput {
  const problems: UsageError[] = []
  const worker = integer('--worker', flags.worker, 'vm:worker', problems)
  const module = flags.module ?? 'command'
  if (!(LOG_MODULES as readonly string[]).includes(module)) {
    const close = closestMatches(module, LOG_MODULES)
    problems.push(
      new UsageError(`--module ${JSON.stringify(module)} is not a log of a job: use ${orList([...LOG_MODULES])}.`, {
        flag: '--module',
        hints: close.length > 0 ? [`Did you mean --module ${close[0]}?`] : [],
      }),
    )
  }
  throwIfProblems(problems)
  return {...(worker === undefined ? {} : {worker}), module: module as LogModule}
}

/** The statuses `vm job list --filter-by-status` takes (any case). */
export const JOB_STATUSES = [
  'QUEUEING',
  'SETTING_UP',
  'RUNNING',
  'PREEMPTED',
  'RECOVERING',
  'SUCCEEDED',
  'FAILED',
  'STOPPED',
] as const satisfies readonly VmJobStatus[]

/** Checks `vm job list --filter-by-status`. */
export function vmJobStatusFilter(text: string | undefined): VmJobStatus | undefined {
  if (text === undefined) return undefined
  const upper = text.toUpperCase()
  if ((JOB_STATUSES as readonly string[]).includes(upper)) return upper as VmJobStatus
  const close = closestMatches(upper, JOB_STATUSES)
  throw new UsageError(
    `--filter-by-status ${JSON.stringify(text)} is not a job status: use ${orList([...JOB_STATUSES])}.`,
    {
      flag: '--filter-by-status',
      hints: close.length > 0 ? [`Did you mean --filter-by-status ${close[0]}?`] : [],
    },
  )
}
