/** The numbers and choices of the `vm job` commands, checked as typed (every problem reported together). */
import {throwIfProblems, UsageError} from '../errors.js'
import {INTEGER_FLAGS, parseInteger} from '../input.js'
import {closestMatches, orList} from '../suggest.js'

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
  flags: {readonly maxRecoveries?: string; readonly pollInterval?: string; readonly sshPort?: string},
  problems: UsageError[],
): {maxRecoveries?: number; pollMs: number; sshPort: number} {
  const maxRecoveries = integer('--max-recoveries', flags.maxRecoveries, 'vm:max-recoveries', problems)
  const pollSeconds = integer('--poll-interval', flags.pollInterval, 'vm:poll-interval', problems) ?? 5
  const sshPort = integer('--ssh-port', flags.sshPort, 'vm:ssh-port', problems) ?? 22
  return {...(maxRecoveries === undefined ? {} : {maxRecoveries}), pollMs: pollSeconds * 1000, sshPort}
}

/** The logs `vm job logs --module` reads: the command's, a setup module's, the code copy's, the supervisor's. */
export const LOG_MODULES = ['command', 'ssh', 'gcsfuse', 'docker', 'conda', 'venv', 'code', 'supervisor'] as const
export type LogModule = (typeof LOG_MODULES)[number]

export interface VmJobLogsInput {
  readonly worker?: number
  readonly module: LogModule
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
