// Issue 17, class 2: a value given is the value meant. The rule every value follows (src/core/input.ts ValueShape),
// checked against every option flag and argument of every command, from the command definitions themselves: a new
// flag is covered the day it is added, with the shape it declares. One defect per flag, in turn, runs through the built CLI
// against the wire fakes in test/e2e/value-rules.test.ts, which also checks that none sent a mutating request.
import {Writable} from 'node:stream'
import {describe, expect, it} from 'vitest'

import {TerminalConsole} from '../../src/adapters/terminal-console.js'
import {formatError, strayArgumentProblem} from '../../src/cli/base-command.js'
import {errorToJson, UsageError, UsageErrors, XpkError} from '../../src/core/errors.js'
import {configFile} from '../../src/core/messages/config.js'
import {imageCredentialProblem} from '../../src/core/messages/image.js'
import {VALUE_SHAPES, valueShapeProblem, type ValueShape} from '../../src/core/input.js'
import {COMMANDS} from '../../src/index.js'

type CommandId = keyof typeof COMMANDS
type Definition = {
  type: 'option' | 'boolean'
  helpValue?: string
  multiple?: boolean
  valueShape?: ValueShape
  exclusive?: string[]
}

const STUB_CONFIG = {
  bin: 'xpk',
  runHook: async () => ({successes: [], failures: []}),
  scopedEnvVar: () => undefined,
  scopedEnvVarTrue: () => false,
  findCommand: () => undefined,
}

/** Runs a command's real flag parsing in process and returns the usage problems it threw. */
async function parseProblems(id: CommandId, argv: string[]): Promise<UsageError[]> {
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
    return []
  } catch (error) {
    if (error instanceof UsageErrors) return [...error.problems]
    if (error instanceof UsageError) return [error]
    // One problem from oclif alone (a missing required flag) is a plain usage XpkError with no flag.
    if (error instanceof XpkError && error.kind === 'usage') return [error as UsageError]
    throw error
  }
}

function flagsOf(id: CommandId): Record<string, Definition> {
  const cmd = COMMANDS[id] as unknown as {flags?: Record<string, Definition>; baseFlags?: Record<string, Definition>}
  return {...cmd.baseFlags, ...cmd.flags}
}

const ids = Object.keys(COMMANDS) as CommandId[]
const optionFlags = ids.flatMap((id) =>
  Object.entries(flagsOf(id))
    .filter(([, def]) => def.type === 'option')
    .map(([name, def]) => ({
      id,
      name,
      shape: def.valueShape ?? 'word',
      multiple: Boolean(def.multiple),
      exclusive: def.exclusive ?? [],
    })),
)

/** Values each shape refuses (with the words the message must hold), built per flag. */
export function refusedValues(shape: ValueShape): {value: string; why: string}[] {
  if (shape === 'text') return []
  const good = shape === 'integer' ? '1' : shape === 'list' ? 'a,b' : 'a'
  const out = [
    {value: ` ${good}`, why: 'starts with white space'},
    {value: `${good} `, why: 'ends with white space'},
    {value: `${good}\t`, why: 'ends with white space'},
    {value: `${good}\u00a0`, why: 'ends with white space'},
    {value: `${good}\nx-injected`, why: 'line break or another control character'},
    {value: `${good}\u001b[2J`, why: 'line break or another control character'},
  ]
  if (shape === 'integer') out.push({value: '+1', why: 'has a plus sign'})
  if (shape === 'list') {
    out.push(
      {value: 'a,,b', why: 'has an empty item'},
      {value: 'a,', why: 'has an empty item'},
      {value: ',a', why: 'has an empty item'},
      {value: 'a, b', why: 'white space around it'},
    )
  }
  return out
}

describe('every flag declares the shape of its value', () => {
  it('covers every option flag of every command', () => {
    expect(optionFlags.length).toBeGreaterThan(60)
  })

  it.each(optionFlags)('$id --$name is a $shape', ({shape}) => {
    expect(Object.keys(VALUE_SHAPES)).toContain(shape)
  })

  it('integer flags (help value <n>) are integers, and only they are', () => {
    for (const id of ids) {
      for (const [name, def] of Object.entries(flagsOf(id))) {
        if (def.type !== 'option') continue
        expect([`${id} --${name}`, def.helpValue === '<n>']).toEqual([`${id} --${name}`, def.valueShape === 'integer'])
      }
    }
  })

  it('free text is a decision made flag by flag: these are the flags whose values may hold spaces at either end and line breaks', () => {
    const text = optionFlags.filter((f) => f.shape === 'text').map((f) => `${f.id} --${f.name}`)
    expect(text).toEqual([
      'cluster:create --custom-nodepool-arguments',
      'cluster:create --custom-tpu-nodepool-arguments',
      'cluster:create --custom-cluster-arguments',
      'cluster:create-pathways --custom-nodepool-arguments',
      'cluster:create-pathways --custom-tpu-nodepool-arguments',
      'cluster:create-pathways --custom-cluster-arguments',
      'cluster:create-ray --custom-nodepool-arguments',
      'cluster:create-ray --custom-tpu-nodepool-arguments',
      'cluster:create-ray --custom-cluster-arguments',
      'vm:job:create --command',
      'vm:run --command',
      'workload:create --command',
      'workload:create --env',
      'workload:create-pathways --command',
      'workload:create-pathways --env',
      'workload:create-pathways --custom-pathways-server-args',
      'workload:create-pathways --custom-pathways-proxy-server-args',
      'workload:create-pathways --custom-pathways-worker-args',
    ])
  })
})

describe('a value is used exactly as given: white space, a line break, a sign, an empty list item are refused', () => {
  const cases = optionFlags.flatMap(({id, name, shape, multiple, exclusive}) =>
    refusedValues(shape).flatMap(({value, why}) => {
      const argv = [[`--${name}`, value]]
      // Each value of a repeatable flag is checked, not only the first.
      if (multiple) argv.push([`--${name}`, 'a', `--${name}`, value])
      argv.push([`--${name}=${value}`])
      // oclif's own problem with it (a flag it excludes) quotes the value too.
      const partner = exclusive[0]
      if (partner !== undefined) {
        const partnerIsOption = flagsOf(id)[partner]?.type === 'option'
        argv.push([`--${name}`, value, `--${partner}`, ...(partnerIsOption ? ['a'] : [])])
      }
      return argv.map((a) => ({id, name, argv: a, shown: JSON.stringify(a), why}))
    }),
  )

  it('tries every shape', () => {
    const shapes = new Set(optionFlags.map((f) => f.shape))
    expect([...shapes].sort()).toEqual(['integer', 'list', 'text', 'word'])
    expect(cases.length).toBeGreaterThan(500)
  })

  it.each(cases)('$id $shown is refused naming the flag: $why', async ({id, name, argv, why}) => {
    const problems = await parseProblems(id, argv)
    const problem = problems.find((p) => p.flag === `--${name}`)
    expect(problem?.message).toContain(`--${name} "`)
    expect(problem?.message).toContain(why)
    expect(problem?.exitCode).toBe(2)
    // The value is quoted with its line break or control character escaped, never raw, in every problem reported
    // (oclif's own too: two flags that cannot be combined quote the value).
    for (const p of problems) {
      // oclif puts its own problems on lines of their own; none of them starts with what followed a line break.
      expect(p.message).not.toMatch(/^x-injected/m)
      // eslint-disable-next-line no-control-regex
      expect(p.message + p.hints.join('')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/)
    }
  })

  const accepted = optionFlags
    .filter((f) => f.shape === 'text')
    .flatMap(({id, name}) => [' leading', 'trailing ', 'two\nlines', '\tx\t'].map((value) => ({id, name, value})))

  it.each(accepted)('$id --$name $value is free text: the shape rule takes it as it is', async ({id, name, value}) => {
    const problems = await parseProblems(id, [`--${name}`, value])
    expect(problems.filter((p) => p.flag === `--${name}`)).toEqual([])
  })
})

describe('free text with a line break is never echoed raw, even by oclif', () => {
  const cases = optionFlags.filter((f) => f.shape === 'text' && f.exclusive.length > 0)

  it.each(cases)('$id --$name with a line break and a flag it excludes', async ({id, name, exclusive}) => {
    const problems = await parseProblems(id, [`--${name}`, 'A=1\nx-injected', `--${exclusive[0]}`, 'f'])
    expect(problems.length).toBeGreaterThan(0)
    for (const p of problems) expect(p.message).not.toMatch(/^x-injected/m)
  })
})

describe('arguments follow the same rule', () => {
  const withArgs = ids.flatMap((id) => {
    const args = (COMMANDS[id] as unknown as {args?: Record<string, unknown>}).args ?? {}
    const names = Object.keys(args)
    return names.length === 0 ? [] : [{id, names}]
  })

  it('covers every command that takes arguments', () => {
    expect(withArgs.map((c) => c.id).sort()).toEqual([
      'accelerator:describe',
      'config:get',
      'config:set',
      'config:unset',
      'storage:attach',
      'storage:create',
      'storage:delete',
      'storage:detach',
      'vm:job:delete',
      'vm:job:logs',
      'vm:job:resume',
      'vm:job:ssh',
      'vm:job:stop',
      'vm:job:supervise',
      'workload:describe',
      'workload:logs',
      'workload:why',
    ])
  })

  const cases = withArgs.flatMap(({id, names}) =>
    refusedValues('word').map(({value, why}) => ({
      id,
      // The value under test as the last argument; the ones before it are good.
      argv: [...names.slice(0, -1).map(() => 'zone'), value],
      name: names[names.length - 1]!.toUpperCase(),
      why,
    })),
  )

  it.each(cases)('$id $argv is refused naming the argument: $why', async ({id, argv, name, why}) => {
    const problems = await parseProblems(id, argv)
    const problem = problems.find((p) => p.message.startsWith(`The argument ${name} "`))
    expect(problem?.message).toContain(why)
    // eslint-disable-next-line no-control-regex
    expect(problem?.message).not.toMatch(/[\u0000-\u001f\u007f]/)
  })

  it.each(withArgs)('$id with one argument too many says which arguments it takes, not "flags only"', async ({id}) => {
    const names = Object.keys((COMMANDS[id] as unknown as {args: Record<string, unknown>}).args)
    const problems = await parseProblems(id, [...names.map(() => 'zone'), 'extra'])
    const stray = problems.find((p) => p.message.startsWith('Unexpected argument'))
    expect(stray?.message).not.toContain('flags only')
    expect(stray?.message).toContain(names.map((n) => n.toUpperCase()).join(' and '))
  })

  it('a stray argument with a line break is quoted escaped', () => {
    const problem = strayArgumentProblem('a\nb', 'cluster:delete', flagsOf('cluster:delete'))
    expect(problem.message).toContain('"a\\nb"')
    expect(problem.message).toContain('Did you mean --cluster a\\nb?')
  })
})

describe('the shape rule itself', () => {
  it.each([
    ['word', 'demo', undefined],
    ['word', 'My Documents/train', undefined],
    ['integer', '007', undefined],
    ['integer', '-1', undefined],
    ['list', '3,5-7', undefined],
    ['text', ' python3 train.py\n', undefined],
    ['text', '   ', 'is empty'],
    ['word', '', 'is empty'],
    ['list', ' ', 'is empty'],
  ] as const)('%s %j -> %s', (shape, value, problem) => {
    const found = valueShapeProblem(value, shape)
    if (problem === undefined) expect(found).toBeUndefined()
    else expect(found).toContain(problem)
  })
})

describe('a password in a URL is never printed, whatever prints the message', () => {
  const secret = 'could not reach https://admin:s3cret@10.0.0.1:6443 (context c)'

  it('in an error, as text and as --json', () => {
    const error = new XpkError('unavailable', secret, {hints: [`Check ${secret}.`], cause: new Error(secret)})
    for (const text of [formatError(error, true), JSON.stringify(errorToJson(error))]) {
      expect(text).toContain('https://***@10.0.0.1:6443')
      expect(text).not.toContain('s3cret')
    }
  })

  it('in a note, a warning and a --verbose line', () => {
    let written = ''
    const stderr = new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk)
        done()
      },
    })
    const terminal = new TerminalConsole({stderr, verbose: true})
    terminal.info(configFile({file: secret}))
    terminal.warn(imageCredentialProblem({problem: secret}))
    terminal.debug(secret)
    expect(written.split('https://***@10.0.0.1').length).toBe(4)
    expect(written).not.toContain('s3cret')
  })
})
