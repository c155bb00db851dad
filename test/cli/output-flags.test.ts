// kubectl's output flags on every list and describe command (README, "Output"), checked from the command
// definitions: a command whose id ends in `list` or `describe` has `-o` and `--no-headers`, the same definitions
// (src/cli/flags.ts outputFlags), and its real parse turns them into one output choice or a usage problem. The same
// runs through the built CLI against the wire fakes in test/e2e/output.test.ts, which also checks what each form
// prints and that a refused one sends no request.
import {describe, expect, it} from 'vitest'

import type {Invocation} from '../../src/cli/base-command.js'
import {outputFlags} from '../../src/cli/flags.js'
import {UsageError, UsageErrors, XpkError} from '../../src/core/errors.js'
import {OUTPUT_FORMATS, type OutputChoice} from '../../src/core/render/output-format.js'
import {COMMANDS} from '../../src/index.js'

type CommandId = keyof typeof COMMANDS

const STUB_CONFIG = {
  bin: 'xpk',
  runHook: async () => ({successes: [], failures: []}),
  scopedEnvVar: () => undefined,
  scopedEnvVarTrue: () => false,
  findCommand: () => undefined,
}

/**
 * The list and describe commands, by their ids: every one takes the output flags. `info` is a list (of queues) by
 * another name, Python's.
 */
const LIST_AND_DESCRIBE = (Object.keys(COMMANDS) as CommandId[]).filter((id) => /(^|:)(list|describe)$|^info$/.test(id))

/** What a command needs besides flags to parse (its arguments). */
const ARGS: Partial<Record<CommandId, string[]>> = {'accelerator:describe': ['v5p-8'], 'workload:describe': ['run-1']}

const definitions = (id: CommandId) => {
  const cmd = COMMANDS[id] as unknown as {flags?: Record<string, unknown>; baseFlags?: Record<string, unknown>}
  return {...cmd.baseFlags, ...cmd.flags}
}

/** Parses `argv` with the command's real parse: the output it chose and whether it prints data, or the problems. */
async function parsed(
  id: CommandId,
  argv: string[],
): Promise<{output: OutputChoice; data: boolean} | {problems: UsageError[]}> {
  const Cmd = COMMANDS[id] as unknown as new (
    argv: string[],
    config: unknown,
  ) => {id: string; parse(cmd: unknown): Promise<unknown>; jsonEnabled(): boolean; invocation: Invocation}
  const command = new Cmd([...(ARGS[id] ?? []), ...argv], STUB_CONFIG)
  command.id = id
  try {
    await command.parse(COMMANDS[id])
    return {output: command.invocation.output, data: command.jsonEnabled()}
  } catch (error) {
    if (error instanceof UsageErrors) return {problems: [...error.problems]}
    if (error instanceof UsageError) return {problems: [error]}
    if (error instanceof XpkError && error.kind === 'usage') return {problems: [error as UsageError]}
    throw error
  }
}

describe('the list and describe commands', () => {
  it('are the eleven of README "Output"', () => {
    expect(LIST_AND_DESCRIBE.sort()).toEqual([
      'accelerator:describe',
      'accelerator:list',
      'cluster:describe',
      'cluster:list',
      'config:list',
      'info',
      'storage:list',
      'vm:job:list',
      'vm:list',
      'workload:describe',
      'workload:list',
    ])
  })

  it.each(LIST_AND_DESCRIBE)('%s has -o and --no-headers, as declared once', (id) => {
    const flags = definitions(id)
    expect(flags.output).toBe(outputFlags.output)
    expect(flags['no-headers']).toBe(outputFlags['no-headers'])
    expect(outputFlags.output).toMatchObject({char: 'o', type: 'option', helpValue: OUTPUT_FORMATS.join('|')})
  })

  it.each(LIST_AND_DESCRIBE)('%s shows -o in a --help example (each of them runs in test/e2e)', (id) => {
    const examples = (COMMANDS[id] as unknown as {examples: string[]}).examples
    expect(examples.some((e) => / -o (json|yaml|name|wide)\b/.test(e))).toBe(true)
  })

  it('no other command has them', () => {
    const others = (Object.keys(COMMANDS) as CommandId[]).filter((id) => !LIST_AND_DESCRIBE.includes(id))
    expect(others.length).toBeGreaterThan(10)
    for (const id of others) {
      expect(Object.keys(definitions(id)), id).not.toContain('output')
      expect(Object.keys(definitions(id)), id).not.toContain('no-headers')
    }
  })
})

describe.each(LIST_AND_DESCRIBE)('%s parses the output flags', (id) => {
  it.each([
    [[], {format: 'table', headers: true}, false],
    [['--no-headers'], {format: 'table', headers: false}, false],
    [['-o', 'wide'], {format: 'wide', headers: true}, false],
    [['-o', 'wide', '--no-headers'], {format: 'wide', headers: false}, false],
    [['-o', 'name'], {format: 'name', headers: true}, false],
    [['-o', 'json'], {format: 'json', headers: true}, true],
    [['-ojson'], {format: 'json', headers: true}, true],
    [['-o=YAML'], {format: 'yaml', headers: true}, true],
    [['--output', 'Yaml', '--no-headers'], {format: 'yaml', headers: false}, true],
    [['--output=name'], {format: 'name', headers: true}, false],
    [['--json'], {format: 'json', headers: true}, true],
    [['--json', '-o', 'json'], {format: 'json', headers: true}, true],
  ])('%j', async (argv, output, data) => {
    expect(await parsed(id, argv)).toEqual({output, data})
  })

  it.each([['xml'], ['jsonpath'], ['custom-columns=NAME:.name'], ['go-template']])(
    '-o %s is refused, listing the forms',
    async (value) => {
      const result = await parsed(id, ['-o', value])
      expect(result).toEqual({problems: [expect.any(UsageError)]})
      const [problem] = (result as {problems: UsageError[]}).problems
      expect(problem!.flag).toBe('--output')
      expect(problem!.message).toBe(
        `--output "${value}" is not an output format: use one of json, yaml, name, wide (or leave -o out for the table).`,
      )
    },
  )

  it.each(['yaml', 'name', 'wide'])('--json with -o %s is refused: --json is -o json', async (format) => {
    const result = await parsed(id, ['--json', '-o', format])
    expect(result).toEqual({problems: [expect.any(UsageError)]})
    expect((result as {problems: UsageError[]}).problems[0]!.message).toBe(
      `--json and -o ${format} cannot be used together: --json is the same as -o json.`,
    )
  })

  it('an empty -o is one problem, the empty value', async () => {
    const result = await parsed(id, ['-o', ''])
    expect((result as {problems: UsageError[]}).problems.map((p) => p.message)).toEqual([
      '--output was given an empty value. Give a value, or leave the flag out.',
    ])
  })

  it('-o twice is refused', async () => {
    expect(await parsed(id, ['-o', 'json', '-o', 'yaml'])).toEqual({problems: [expect.any(XpkError)]})
  })
})

describe('the other commands', () => {
  it('print data only with --json; -o is not their flag', async () => {
    expect(await parsed('config:get', ['zone', '--json'])).toEqual({
      output: {format: 'json', headers: true},
      data: true,
    })
    expect(await parsed('config:get', ['zone'])).toEqual({output: {format: 'table', headers: true}, data: false})
    const refused = await parsed('config:get', ['zone', '-o', 'yaml'])
    expect((refused as {problems: UsageError[]}).problems[0]!.message).toMatch(/Nonexistent flag/)
  })
})
