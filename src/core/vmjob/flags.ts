/**
 * `xpk vm job create` without a config file: the flags of the simple case, checked into a {@link VmJobSpec}, and
 * the rules both ways of asking share (which workers, job names).
 */
import {throwIfProblems, UsageError} from '../errors.js'
import {checkTypeAndRuntime} from '../vm/catalog.js'
import {idProblem} from '../vm/naming.js'
import type {VmJobSpec, VmJobWorkers} from './spec.js'

/** The flags of `xpk vm job create` that say something about the job (as typed; none is required here). */
export interface VmJobFlags {
  readonly name?: string
  readonly tpuType?: string
  readonly zone?: string
  readonly project?: string
  readonly command?: string
  /** A local directory copied to every worker before setup (`~` and relative paths as the shell gave them). */
  readonly scriptDir?: string
  readonly spot?: boolean
  readonly loop?: boolean
  readonly runtimeVersion?: string
  /** `all`, one worker index (`0`) or a comma-separated list (`0,2`). */
  readonly workers?: string
  readonly maxRecoveries?: number
}

/** The input of the simple case: the flags, with the four a job cannot do without. */
export interface VmJobFlagsInput extends VmJobFlags {
  readonly tpuType: string
  readonly zone: string
  readonly project: string
  readonly command: string
  /** Picks the default name (`job-YYYYMMDD-HHMMSS`) when --name is not given. */
  readonly now: Date
}

/** The default job name: `job-` and the time, which is also a valid TPU name. */
export function defaultVmJobName(now: Date): string {
  const iso = now.toISOString()
  return `job-${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}`
}

/**
 * Which workers run the command, from the --workers text or a config's `workers` (a number or a list); `hosts` is
 * the TPU's worker count. Returns the problem (without the name of the flag or key) when the text is no such list.
 */
export function checkWorkers(
  spec: 'all' | number | readonly number[],
  hosts: number,
): {workers: VmJobWorkers} | {problem: string} {
  if (spec === 'all') return {workers: 'all'}
  const list = typeof spec === 'number' ? [spec] : spec
  if (list.length === 0) return {problem: 'lists no worker; give worker indexes, or "all"'}
  const seen = new Set<number>()
  for (const w of list) {
    if (!Number.isSafeInteger(w) || w < 0 || w >= hosts) {
      return {
        problem: `worker ${w} does not exist: this TPU has ${hosts} worker${hosts === 1 ? '' : 's'} (${hosts === 1 ? '0' : `0 to ${hosts - 1}`})`,
      }
    }
    if (seen.has(w)) return {problem: `lists worker ${w} twice`}
    seen.add(w)
  }
  return {workers: list}
}

/** The --workers text as a worker spec; undefined when it is neither `all` nor indexes separated by commas. */
export function parseWorkersText(text: string): 'all' | number[] | undefined {
  if (text === 'all') return 'all'
  if (!/^\d+(,\d+)*$/.test(text)) return undefined
  return text.split(',').map(Number)
}

/** Job names become directory names and the default TPU name: the rule of TPU names. */
export function jobNameProblem(name: string, what: string): UsageError | undefined {
  return idProblem(name, what)
}

/**
 * The job of `xpk vm job create` without --config: a queued resource, on-demand unless --spot, the type's default
 * runtime version unless --runtime-version, the command on every worker unless --workers, in the login shell
 * (no environment, no setup modules), the TPU named after the job.
 * @throws UsageError naming each bad flag, all at once
 */
export function vmJobSpecFromFlags(input: VmJobFlagsInput): VmJobSpec {
  const problems: UsageError[] = []
  const name = input.name ?? defaultVmJobName(input.now)
  const nameProblem = jobNameProblem(name, '--name')
  if (nameProblem) problems.push(nameProblem)
  const {type, runtimeVersion} = checkTypeAndRuntime(input.tpuType, input.runtimeVersion, problems)
  for (const [flag, value] of [
    ['--zone', input.zone],
    ['--project', input.project],
    ['--command', input.command],
  ] as const) {
    if (value.trim() === '') problems.push(new UsageError(`${flag} is empty.`, {flag}))
  }
  let workers: VmJobWorkers = 'all'
  if (input.workers !== undefined) {
    const parsed = parseWorkersText(input.workers)
    const checked = parsed === undefined ? undefined : type ? checkWorkers(parsed, type.hosts) : {workers: parsed}
    if (checked === undefined || 'problem' in checked) {
      const why =
        checked === undefined ? 'give "all", a worker index or indexes separated by commas (0,2)' : checked.problem
      problems.push(new UsageError(`--workers=${input.workers}: ${why}.`, {flag: '--workers'}))
    } else {
      workers = checked.workers
    }
  }
  if (input.maxRecoveries !== undefined && !(Number.isSafeInteger(input.maxRecoveries) && input.maxRecoveries >= 0)) {
    problems.push(
      new UsageError(`--max-recoveries=${input.maxRecoveries}: give a whole number, 0 or more.`, {
        flag: '--max-recoveries',
      }),
    )
  }
  throwIfProblems(problems)
  return {
    name,
    project: input.project,
    envType: 'none',
    loop: input.loop ?? false,
    ...(input.maxRecoveries === undefined ? {} : {maxRecoveries: input.maxRecoveries}),
    tpu: {
      allocationMode: 'queued-resources',
      accelerator: type!.name,
      name,
      zone: input.zone,
      runtimeVersion,
      pricing: input.spot ? 'spot' : 'ondemand',
      startupScript: null,
      tags: [],
      metadata: {},
    },
    modules: [],
    command: {run: input.command, workers},
    ...(input.scriptDir === undefined ? {} : {scriptDir: input.scriptDir}),
  }
}
