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
import {detachedFromFlags, type DetachedFlags} from '../core/vmjob/detached.js'
import {resolveTpuVmType} from '../core/vm/catalog.js'
import {vmJobNumbersFromFlags} from '../core/vmjob/inputs.js'
import {vmJobSpecFromFlags, type VmJobFlags as SpecFlags} from '../core/vmjob/flags.js'
import type {VmJobAccess} from '../core/vmjob/record.js'
import type {VmJobSpec} from '../core/vmjob/spec.js'
import type {Console} from '../ports/console.js'

export interface VmJobFlags extends Omit<SpecFlags, 'maxRecoveries'>, DetachedFlags {
  readonly config?: string
  readonly detach?: boolean
  /** `--detach --wait --timeout`: seconds, as typed. */
  readonly timeout?: string
  readonly maxRecoveries?: string
  readonly pollInterval?: string
  readonly sshUser?: string
  readonly sshPort?: string
  readonly internalIp?: boolean
}

export interface VmJobInputDeps {
  readonly console: Console
  /** A small text file, or undefined when it is missing, not a regular file, too large or unreadable. */
  readonly readText: (path: string) => string | undefined
  readonly isDirectory: (path: string) => boolean
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly now: () => number
}

/**
 * Collects the problems a check throws, so that every problem is reported together; `hint` (when given) is added to
 * the last of them, to say where they come from.
 */
function collect<T>(check: () => T, problems: UsageError[], hint?: string): T | undefined {
  try {
    return check()
  } catch (error) {
    const found = error instanceof UsageErrors ? error.problems : error instanceof UsageError ? [error] : undefined
    if (!found) throw error
    problems.push(...found.slice(0, -1))
    const last = found.at(-1)!
    problems.push(hint ? new UsageError(last.message, {flag: last.flag, hints: [...last.hints, hint]}) : last)
    return undefined
  }
}

/** The spec of a detached job: the command only (no setup modules or environment), on a queued resource. */
function detachedSpec(spec: VmJobSpec, flags: VmJobFlags, deps: VmJobInputDeps, problems: UsageError[]): VmJobSpec {
  const refuse = (flag: string, why: string) =>
    problems.push(
      new UsageError(`${flag} ${why}`, {
        flag,
        hints: [
          'A detached job runs its command only: set up in it, e.g. --command "bash setup.sh && python3 train.py".',
        ],
      }),
    )
  if (spec.modules.length > 0 || spec.envType !== 'none') {
    refuse(
      '--detach',
      `runs the command alone: the config's setup modules (${spec.modules.join(', ') || spec.envType}) cannot run without a supervisor.`,
    )
  }
  if (spec.loop)
    refuse(
      '--loop',
      'is for supervised jobs: a detached worker that is rescheduled runs its startup script again by itself.',
    )
  if (spec.tpu.allocationMode !== 'queued-resources')
    refuse('--detach', 'needs allocation_mode queued-resources (its nodes carry the startup script).')
  const workersPerSlice = (() => {
    try {
      return resolveTpuVmType(spec.tpu.accelerator).hosts
    } catch {
      return 1
    }
  })()
  const detached = collect(
    () =>
      detachedFromFlags(flags, {
        user: deps.env.USER ?? deps.env.LOGNAME ?? 'xpk',
        now: new Date(deps.now()),
        workersPerSlice,
      }),
    problems,
  )
  // The queued resource is the run: its name is the TPU's, as the job's other commands read it.
  return detached
    ? {...spec, loop: false, tpu: {...spec.tpu, name: detached.runName}, detached: {...detached, archive: null}}
    : spec
}

export function vmJobInput(
  flags: VmJobFlags,
  settings: {readonly project?: string; readonly zone?: string},
  deps: VmJobInputDeps,
): {spec: VmJobSpec; access: VmJobAccess; configText?: string; timeoutSeconds?: number} {
  const problems: UsageError[] = []
  const {maxRecoveries, pollMs, sshPort, timeoutSeconds} = vmJobNumbersFromFlags(flags, problems)
  const specFlags: SpecFlags = {...flags, maxRecoveries}
  let spec: VmJobSpec | undefined
  let configText: string | undefined
  if (flags.config !== undefined) {
    configText = deps.readText(flags.config)
    if (configText === undefined) {
      problems.push(
        new UsageError(
          `--config ${flags.config}: no readable file there (it is missing, not a regular file, or larger than 1 MiB).`,
          {flag: '--config', hints: ['Give the path of a jobman config file (YAML).']},
        ),
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
        `The problems above are in --config ${flags.config}.`,
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
  if (flags.scriptDir !== undefined && !deps.isDirectory(flags.scriptDir)) {
    problems.push(
      new UsageError(`--script-dir ${flags.scriptDir}: no directory there.`, {
        flag: '--script-dir',
        hints: ['Give the directory to copy to every worker (the command runs in its copy).'],
      }),
    )
  }
  if (flags.detach && spec) spec = detachedSpec(spec, flags, deps, problems)
  const sshUser = flags.sshUser ?? spec?.remoteUser ?? deps.env.USER ?? deps.env.LOGNAME ?? 'root'
  const source = flags.sshUser ? '--ssh-user' : spec?.remoteUser ? 'job.remote_user' : 'Your user name ($USER)'
  const userProblem = sshUserProblem(sshUser, source)
  if (userProblem) problems.push(userProblem)
  throwIfProblems(problems)
  const access: VmJobAccess = {sshUser, sshPort, internalIp: flags.internalIp ?? false, pollMs}
  return {
    spec: spec!,
    access,
    ...(configText === undefined ? {} : {configText}),
    ...(timeoutSeconds === undefined ? {} : {timeoutSeconds}),
  }
}
