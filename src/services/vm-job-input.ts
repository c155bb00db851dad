/**
 * What `vm job create` was given, checked: the job's spec (from --config through the jobman config reader, or from
 * the flags of the simple case), how the supervisor reaches the workers, and the config's text (kept in the job's
 * directory). Every problem is reported at once, before anything is recorded or requested.
 */
import {homedir} from 'node:os'

import {throwIfProblems, UsageError, UsageErrors} from '../core/errors.js'
import {vmJobConfigIgnored} from '../core/messages/vm-job.js'
import {sshUserProblem} from '../core/vm/run-plan.js'
import {readVmJobConfig} from '../core/vmjob/config.js'
import {vmJobNumbersFromFlags} from '../core/vmjob/inputs.js'
import {vmJobSpecFromFlags, type VmJobFlags as SpecFlags} from '../core/vmjob/flags.js'
import type {VmJobAccess} from '../core/vmjob/record.js'
import type {VmJobSpec} from '../core/vmjob/spec.js'
import type {Console} from '../ports/console.js'

export interface VmJobFlags extends Omit<SpecFlags, 'maxRecoveries'> {
  readonly config?: string
  readonly maxRecoveries?: string
  readonly pollInterval?: string
  readonly sshUser?: string
  readonly sshPort?: string
  readonly internalIp?: boolean
}

export interface VmJobInputDeps {
  readonly console: Console
  /** A small text file, or undefined when it cannot be read. */
  readonly readText: (path: string) => string | undefined
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly now: () => number
}

/** Collects the problems a check throws, so that every problem is reported together. */
function collect<T>(check: () => T, problems: UsageError[]): T | undefined {
  try {
    return check()
  } catch (error) {
    if (error instanceof UsageErrors) problems.push(...error.problems)
    else if (error instanceof UsageError) problems.push(error)
    else throw error
    return undefined
  }
}

export function vmJobInput(
  flags: VmJobFlags,
  settings: {readonly project?: string; readonly zone?: string},
  deps: VmJobInputDeps,
): {spec: VmJobSpec; access: VmJobAccess; configText?: string} {
  const problems: UsageError[] = []
  const {maxRecoveries, pollMs, sshPort} = vmJobNumbersFromFlags(flags, problems)
  const specFlags: SpecFlags = {...flags, maxRecoveries}
  let spec: VmJobSpec | undefined
  let configText: string | undefined
  if (flags.config !== undefined) {
    configText = deps.readText(flags.config)
    if (configText === undefined) {
      problems.push(
        new UsageError(`--config ${flags.config}: the file cannot be read.`, {
          flag: '--config',
          hints: ['Give the path of a jobman config file (YAML).'],
        }),
      )
    } else {
      const read = collect(
        () =>
          readVmJobConfig(configText!, {
            path: flags.config!,
            cwd: deps.cwd,
            homeDir: homedir(),
            defaults: settings,
            flags: specFlags,
            env: deps.env,
            readFile: deps.readText,
          }),
        problems,
      )
      for (const w of read?.warnings ?? []) {
        deps.console.warn(vmJobConfigIgnored({file: flags.config, line: w.line, key: w.path, text: w.text}))
      }
      spec = read?.spec
    }
  } else {
    const missing = (
      [
        ['--tpu-type', flags.tpuType],
        ['--command', flags.command],
        ['--zone', flags.zone ?? settings.zone],
        ['--project', flags.project ?? settings.project],
      ] as const
    ).filter(([, value]) => value === undefined)
    for (const [flag] of missing) {
      problems.push(
        new UsageError(`${flag} is required without --config.`, {
          flag,
          hints: ['Give it, or describe the job in a jobman config file with --config job.yaml.'],
        }),
      )
    }
    if (missing.length === 0) {
      spec = collect(
        () =>
          vmJobSpecFromFlags({
            ...specFlags,
            tpuType: flags.tpuType!,
            command: flags.command!,
            zone: (flags.zone ?? settings.zone)!,
            project: (flags.project ?? settings.project)!,
            now: new Date(deps.now()),
          }),
        problems,
      )
    }
  }
  const sshUser = flags.sshUser ?? spec?.remoteUser ?? deps.env.USER ?? deps.env.LOGNAME ?? 'root'
  const source = flags.sshUser ? '--ssh-user' : spec?.remoteUser ? 'job.remote_user' : 'Your user name ($USER)'
  const userProblem = sshUserProblem(sshUser, source)
  if (userProblem) problems.push(userProblem)
  throwIfProblems(problems)
  const access: VmJobAccess = {sshUser, sshPort, internalIp: flags.internalIp ?? false, pollMs}
  return {spec: spec!, access, ...(configText === undefined ? {} : {configText})}
}
