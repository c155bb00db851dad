// The input rules every command shares, checked against every flag of every command (issue 7, rules 1, 3, 8, 9):
// the tables are built from the command definitions themselves, so a new flag is covered the day it is added.
import {describe, expect, it} from 'vitest'

import {strayArgumentProblem, valueProblems} from '../../src/cli/base-command.js'
import {desiredClusterFromFlags, type ClusterCreateFlags} from '../../src/core/cluster/desired.js'
import {UsageError, UsageErrors} from '../../src/core/errors.js'
import {INTEGER_FLAGS} from '../../src/core/input.js'
import {checkVmCreateInput} from '../../src/core/vm/create-options.js'
import {checkRunInput} from '../../src/core/vm/run-plan.js'
import {workloadListInputFromFlags} from '../../src/core/workload/list-options.js'
import {workloadLogsInputFromFlags} from '../../src/core/workload/logs.js'
import {workloadInputFromFlags, type WorkloadFlags} from '../../src/core/workload/options.js'
import {vmJobLogsInputFromFlags, vmJobNumbersFromFlags} from '../../src/core/vmjob/inputs.js'
import {COMMANDS} from '../../src/index.js'
import {attachRequestFromFlags} from '../../src/core/storage/rules.js'
import {DATASETS_FLAGS} from '../builders/storage.js'

type CommandId = keyof typeof COMMANDS
type Definition = {type: 'option' | 'boolean'; helpValue?: string; multiple?: boolean; char?: string}

const STUB_CONFIG = {
  bin: 'xpk',
  runHook: async () => ({successes: [], failures: []}),
  scopedEnvVar: () => undefined,
  scopedEnvVarTrue: () => false,
  findCommand: () => undefined,
}

/** Runs a command's real flag parsing in process (no build, no subprocess) and returns what it threw. */
async function parseError(id: CommandId, argv: string[]): Promise<UsageError | undefined> {
  const Cmd = COMMANDS[id] as unknown as new (
    argv: string[],
    config: unknown,
  ) => {
    id: string
    parse(cmd: unknown): Promise<unknown>
  }
  const command = new Cmd(argv, STUB_CONFIG)
  command.id = id
  try {
    await command.parse(COMMANDS[id])
    return undefined
  } catch (error) {
    if (error instanceof UsageError) return error
    throw error
  }
}

function flagsOf(id: CommandId): Record<string, Definition> {
  const cmd = COMMANDS[id] as unknown as {flags?: Record<string, Definition>; baseFlags?: Record<string, Definition>}
  return {...cmd.baseFlags, ...cmd.flags}
}

const problemsOf = (error: unknown): UsageError[] =>
  error instanceof UsageErrors ? [...error.problems] : error instanceof UsageError ? [error] : []

const optionFlags = (Object.keys(COMMANDS) as CommandId[]).flatMap((id) =>
  Object.entries(flagsOf(id))
    .filter(([, def]) => def.type === 'option')
    .map(([name, def]) => ({id, name, multiple: Boolean(def.multiple)})),
)

describe('rule 1: an explicitly given empty value is an error, never "unset"', () => {
  const cases = optionFlags.flatMap(({id, name}) => [
    {id, name, argv: [`--${name}`, '']},
    {id, name, argv: [`--${name}=`]},
    {id, name, argv: [`--${name}`, ' \t ']},
  ])

  it('covers every option flag of every command', () => {
    expect(optionFlags.length).toBeGreaterThan(50)
    expect(optionFlags.map((f) => `${f.id} --${f.name}`)).toContain('cluster:delete --cluster')
    expect(optionFlags.map((f) => `${f.id} --${f.name}`)).toContain('cluster:create --private-endpoint-subnetwork')
  })

  it.each(cases)('$id $argv is a usage error naming the flag', async ({id, name, argv}) => {
    const error = await parseError(id, argv)
    const problem = problemsOf(error).find((p) => p.flag === `--${name}`)
    expect(problem?.message).toBe(`--${name} was given an empty value. Give a value, or leave the flag out.`)
    expect(error?.exitCode).toBe(2)
  })

  it('checks each value of a repeatable flag, and stops reading at --', () => {
    const defs = flagsOf('workload:create')
    expect(valueProblems(['--env', 'A=1', '', '--zone', 'us-central2-b'], defs).map((p) => p.flag)).toEqual(['--env'])
    expect(valueProblems(['--', '--zone', ''], defs)).toEqual([])
    expect(valueProblems(['--zone', 'us-central2-b', '--cluster', 'c'], defs)).toEqual([])
  })

  it('reports empty values together with oclif problems such as flags that cannot be combined', async () => {
    const error = await parseError('workload:create', ['--cluster', '', '--env', 'A=1', '--env-file', 'f'])
    expect(problemsOf(error).map((p) => p.message)).toEqual([
      '--cluster was given an empty value. Give a value, or leave the flag out.',
      '--env and --env-file cannot be used together.',
    ])
  })
})

describe('rule 3: every number has the bounds of the field it ends up in', () => {
  const base: Record<string, {cluster?: ClusterCreateFlags; workload?: WorkloadFlags}> = {
    TPU: {
      cluster: {cluster: 'c', project: 'my-project', zone: 'us-central2-b', tpuType: 'v5p-8', onDemand: true},
      workload: {workload: 'w', cluster: 'c', command: 'true', tpuType: 'v5p-8'},
    },
    GPU: {
      cluster: {cluster: 'c', project: 'my-project', zone: 'us-central2-b', deviceType: 'h100-80gb-8', onDemand: true},
      workload: {workload: 'w', cluster: 'c', command: 'true', deviceType: 'h100-80gb-8'},
    },
  }
  const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
  /** The problems the core validator reports for one integer flag given as text. */
  function problemsFor(key: keyof typeof INTEGER_FLAGS, text: string): UsageError[] {
    const [topic, flag] = key.split(':') as [string, string]
    const kind = flag === 'num-nodes' ? 'GPU' : 'TPU'
    try {
      // The chip limits of node auto-provisioning apply with --enable-autoprovisioning (refused without it).
      const nap = flag.startsWith('autoprovisioning-') ? {enableAutoprovisioning: true} : {}
      // --num-cubes counts the cubes of --super-slicing only (without it, that is the one problem reported).
      const slicing = flag === 'num-cubes' ? {superSlicing: true} : {}
      if (topic === 'cluster') {
        desiredClusterFromFlags({...base[kind]!.cluster, ...nap, ...slicing, [camel(flag)]: text})
      } else if (topic === 'vm' && flag === 'num-slices')
        checkVmCreateInput({tpuPrefix: 'p', tpuType: 'v4-8', capacity: 'on-demand', numSlices: text})
      else if (key === 'vm:max-recoveries' || key === 'vm:poll-interval' || key === 'vm:timeout') {
        const problems: UsageError[] = []
        vmJobNumbersFromFlags({[camel(flag)]: text}, problems)
        return problems.filter((p) => p.flag === `--${flag}`)
      } else if (key === 'vm:worker') vmJobLogsInputFromFlags({worker: text})
      else if (topic === 'vm') checkRunInput({tpuPrefix: 'p', command: 'true', runName: 'r', sshPort: text})
      else if (topic === 'storage') attachRequestFromFlags({...DATASETS_FLAGS, [camel(flag)]: text})
      else if (key === 'workload:timeout') workloadListInputFromFlags({waitForJobCompletion: 'w', timeout: text})
      else if (key === 'workload:slice' || key === 'workload:worker' || key === 'workload:tail')
        workloadLogsInputFromFlags({workload: 'w', [flag]: text})
      else if (key === 'workload:elastic-slices' || key === 'workload:max-slice-restarts')
        workloadInputFromFlags({...base[kind]!.workload, pathways: {[camel(flag)]: text}}, undefined, {})
      else workloadInputFromFlags({...base[kind]!.workload, [camel(flag)]: text}, undefined, {})
      return []
    } catch (error) {
      return problemsOf(error).filter((p) => p.flag === `--${flag}`)
    }
  }
  const keys = Object.keys(INTEGER_FLAGS) as (keyof typeof INTEGER_FLAGS)[]
  const rejected = keys.flatMap((key) => {
    const {min, max} = INTEGER_FLAGS[key]
    // " 4" and "+4" were read as 4 until issue 17: a value is used exactly as given (src/core/input.ts ValueShape).
    const texts = [String(min - 1), String(max + 1), '99999999999999999999', '1.5', '1e3', 'ten', '0x10', `${max}0`]
    return [...texts, ` ${min} `, `+${max}`, `${min}\n`].map((text) => ({key, text}))
  })
  const accepted = keys.flatMap((key) => {
    const {min, max} = INTEGER_FLAGS[key]
    return [String(min), String(max)].map((text) => ({key, text}))
  })

  it.each(rejected)('$key $text is rejected with the range in the message', ({key, text}) => {
    const {min, max} = INTEGER_FLAGS[key]
    const problems = problemsFor(key, text)
    expect(problems).toHaveLength(1)
    expect(problems[0]!.message).toContain(`a whole number from ${min} to ${max} (${INTEGER_FLAGS[key].limit})`)
  })

  it.each(accepted)('$key $text is accepted', ({key, text}) => {
    expect(problemsFor(key, text)).toEqual([])
  })

  it('keeps int32 fields within int32 and never rounds through a float', () => {
    expect(INTEGER_FLAGS['workload:max-restarts'].max).toBe(2 ** 31 - 1)
    expect(INTEGER_FLAGS['workload:ttl-seconds-after-finished'].max).toBe(2 ** 31 - 1)
    expect(problemsFor('workload:termination-grace-period-seconds', '9007199254740993')).toHaveLength(1)
    const input = workloadInputFromFlags(
      {...base.TPU!.workload, terminationGracePeriodSeconds: '9007199254740991'},
      undefined,
      {},
    )
    expect(input.terminationGracePeriodSeconds).toBe(Number.MAX_SAFE_INTEGER)
  })

  it('every integer flag of every command is in the table, and every table entry is a flag', () => {
    const fromCommands = (Object.keys(COMMANDS) as CommandId[]).flatMap((id) =>
      Object.entries(flagsOf(id))
        .filter(([, def]) => def.helpValue === '<n>')
        .map(([name]) => `${id.split(':')[0]}:${name}`),
    )
    expect([...new Set(fromCommands)].sort()).toEqual([...keys].sort())
  })

  it.each(optionFlags)(
    'oclif never judges the value of $id --$name (the core does, with every other problem)',
    async ({id, name}) => {
      // oclif stops at the first value it rejects (an integer it cannot parse, a value outside `options`), hiding
      // every other problem; every value must reach the core validators as typed.
      const def = flagsOf(id)[name] as Definition & {
        options?: unknown
        parse: (i: string, c: unknown, d: unknown) => Promise<unknown>
      }
      expect(def.options).toBeUndefined()
      await expect(def.parse('not valid at all', {}, def)).resolves.toBe('not valid at all')
    },
  )
})

describe('rule 8: all problems are reported together', () => {
  it('reports a bad --priority with every other bad value, not instead of them', () => {
    let error: unknown
    try {
      workloadInputFromFlags(
        {
          workload: 'Bad_Name',
          cluster: 'c',
          command: 'true',
          tpuType: 'v5p-8',
          priority: 'urgent',
          maxRestarts: 'lots',
          dockerImage: 'Not A Valid Image!!',
          imagePullSecret: 'Bad_Secret',
        },
        undefined,
        {},
      )
    } catch (e) {
      error = e
    }
    expect(problemsOf(error).map((p) => p.flag)).toEqual([
      '--workload',
      '--max-restarts',
      '--priority',
      '--docker-image-pull-secret',
      '--docker-image',
    ])
  })

  it.each([
    ['dockerImage', 'Not A Valid Image!!', '--docker-image'],
    ['dockerImage', 'UPPER/case:tag', '--docker-image'],
    ['dockerImage', 'repo@sha256:short', '--docker-image'],
    ['dockerImage', 'img:tag with space', '--docker-image'],
    ['imagePullSecret', 'Bad_Secret', '--docker-image-pull-secret'],
    ['imagePullSecret', '-leading', '--docker-image-pull-secret'],
    ['imagePullSecret', 'x'.repeat(254), '--docker-image-pull-secret'],
    ['scheduler', 'Default Scheduler', '--scheduler'],
    ['priority', 'urgent', '--priority'],
    ['debugDumpGcs', 'gs://bucket/x; rm -rf /', '--debug-dump-gcs'],
    ['debugDumpGcs', 'gs://bucket/$(id)', '--debug-dump-gcs'],
    ['debugDumpGcs', 's3://bucket/x', '--debug-dump-gcs'],
    ['cluster', 'Bad_Cluster', '--cluster'],
  ])('%s %j is rejected naming %s', (field, value, flag) => {
    let error: unknown
    try {
      workloadInputFromFlags(
        {workload: 'w', cluster: 'c', command: 'true', tpuType: 'v5p-8', [field]: value},
        undefined,
        {},
      )
    } catch (e) {
      error = e
    }
    expect(problemsOf(error).map((p) => p.flag)).toEqual([flag])
  })

  it.each([
    ['dockerImage', 'us-docker.pkg.dev/my-project/repo/trainer:v3'],
    ['dockerImage', 'python:3.10'],
    ['dockerImage', '127.0.0.1:5001/xpk/img@sha256:' + 'a'.repeat(64)],
    ['imagePullSecret', 'my-registry.secret-1'],
    ['priority', 'HIGH'],
    ['debugDumpGcs', 'gs://my-bucket/dumps/run-1'],
  ])('%s %j is accepted', (field, value) => {
    expect(() =>
      workloadInputFromFlags(
        {workload: 'w', cluster: 'c', command: 'true', tpuType: 'v5p-8', [field]: value},
        undefined,
        {},
      ),
    ).not.toThrow()
  })
})

describe('rule 9: a stray argument says which flag it probably belongs to', () => {
  const subjects: Array<[CommandId, string]> = (Object.keys(COMMANDS) as CommandId[]).flatMap((id) => {
    const subject = {cluster: 'cluster', workload: 'workload', vm: 'tpu-prefix'}[id.split(':')[0]!]
    return subject && subject in flagsOf(id) ? [[id, subject] as [CommandId, string]] : []
  })

  it('covers the cluster and workload commands', () => {
    expect(subjects.map(([id]) => id)).toEqual(expect.arrayContaining(['cluster:delete', 'workload:create']))
  })

  it.each(subjects)('xpk %s demo: did you mean --%s demo?', async (id, subject) => {
    const error = await parseError(id, ['demo'])
    const problem = problemsOf(error).find((p) => p.message.startsWith('Unexpected argument'))
    expect(problem?.message).toBe(
      `Unexpected argument "demo": xpk ${id.replaceAll(':', ' ')} takes flags only. Did you mean --${subject} demo?`,
    )
  })

  it('names every stray argument and guesses no flag for several', () => {
    const problem = strayArgumentProblem('a, b', 'cluster:delete', flagsOf('cluster:delete'))
    expect(problem.message).toBe('Unexpected arguments "a", "b": xpk cluster delete takes flags only.')
  })
})
