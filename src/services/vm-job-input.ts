/**
 * What `vm job create` was given, checked: the job's spec (from --config, or the flags of the simple case), how the
 * supervisor reaches the workers, and the config's text (kept in the job's directory).
 */
import {userInfo} from 'node:os'

import {UsageError, throwIfProblems} from '../core/errors.js'
import {INTEGER_FLAGS, parseInteger} from '../core/input.js'
import {resolveTpuVmType, validateRuntimeVersion} from '../core/vm/catalog.js'
import {sshUserProblem} from '../core/vm/run-plan.js'
import type {VmJobAccess} from '../core/vmjob/record.js'
import type {VmJobSpec} from '../core/vmjob/spec.js'

export interface VmJobFlags {
  readonly project?: string
  readonly zone?: string
  readonly config?: string
  readonly name?: string
  readonly tpuName?: string
  readonly tpuType?: string
  readonly command?: string
  readonly scriptDir?: string
  readonly runtimeVersion?: string
  readonly spot?: boolean
  readonly loop?: boolean
  readonly maxRecoveries?: string
  readonly pollInterval?: string
  readonly sshUser?: string
  readonly sshPort?: string
  readonly internalIp?: boolean
}

function integer(flag: string, text: string | undefined, key: keyof typeof INTEGER_FLAGS, problems: UsageError[]) {
  if (text === undefined) return undefined
  const parsed = parseInteger(text, INTEGER_FLAGS[key])
  if ('problem' in parsed) {
    problems.push(new UsageError(`${flag}: ${parsed.problem}.`, {flag}))
    return undefined
  }
  return parsed.value
}

export async function vmJobInput(
  flags: VmJobFlags,
  settings: {readonly project?: string; readonly zone?: string},
  readFile: (path: string) => Promise<Buffer>,
): Promise<{spec: VmJobSpec; access: VmJobAccess; configText?: string}> {
  const problems: UsageError[] = []
  const maxRecoveries = integer('--max-recoveries', flags.maxRecoveries, 'vm:max-recoveries', problems)
  const pollSeconds = integer('--poll-interval', flags.pollInterval, 'vm:poll-interval', problems) ?? 5
  const sshPort = integer('--ssh-port', flags.sshPort, 'vm:ssh-port', problems) ?? 22
  const sshUser = flags.sshUser ?? process.env.USER ?? userInfo().username
  const userProblem = sshUserProblem(sshUser, flags.sshUser ? '--ssh-user' : 'Your user name')
  if (userProblem) problems.push(userProblem)
  const project = settings.project
  if (!project)
    problems.push(
      new UsageError('No project: pass --project or set one with `xpk config set project P`.', {flag: '--project'}),
    )
  const access: VmJobAccess = {sshUser, sshPort, internalIp: flags.internalIp ?? false, pollMs: pollSeconds * 1000}
  if (flags.config !== undefined) {
    throwIfProblems(problems)
    throw new UsageError('--config is not read yet.', {flag: '--config'})
  }
  const zone = settings.zone
  if (!zone)
    problems.push(new UsageError('No zone: pass --zone or set one with `xpk config set zone Z`.', {flag: '--zone'}))
  if (!flags.tpuType) problems.push(new UsageError('--tpu-type is required without --config.', {flag: '--tpu-type'}))
  if (!flags.command || flags.command.trim() === '') {
    problems.push(
      new UsageError('--command is required without --config: give the command to run.', {flag: '--command'}),
    )
  }
  let runtimeVersion = flags.runtimeVersion
  if (flags.tpuType) {
    try {
      const type = resolveTpuVmType(flags.tpuType)
      runtimeVersion ??= type.defaultRuntime
      validateRuntimeVersion(runtimeVersion, type)
    } catch (error) {
      if (error instanceof UsageError) problems.push(error)
      else throw error
    }
  }
  throwIfProblems(problems)
  const tpuName = flags.tpuName ?? `xpk-job-${sshUser.replaceAll('_', '-')}`
  void readFile
  return {
    access,
    spec: {
      name: flags.name ?? tpuName,
      project: project!,
      envType: 'none',
      loop: flags.loop ?? false,
      ...(maxRecoveries === undefined ? {} : {maxRecoveries}),
      tpu: {
        allocationMode: 'queued-resources',
        accelerator: flags.tpuType!,
        name: tpuName,
        zone: zone!,
        runtimeVersion: runtimeVersion!,
        pricing: flags.spot ? 'spot' : 'ondemand',
        startupScript: null,
        tags: [],
        metadata: {},
      },
      modules: [],
      command: {run: flags.command!, workers: 'all'},
      ...(flags.scriptDir ? {scriptDir: flags.scriptDir} : {}),
    },
  }
}
