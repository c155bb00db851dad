// The JSON every command prints under --json is a contract: its schema is generated from the result types (the
// awaited return type of each command's run()) and committed, so a field that appears, goes, changes type or
// becomes nullable is a visible diff in review. Every e2e run with --json is validated against these files by
// test/helpers/cli.ts; here they are kept in step with the types, and shown able to reject.
import {mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'

import {EXIT_CODE_TABLE, errorToJson, XpkError} from '../../src/core/errors.js'
import {COMMANDS} from '../../src/index.js'
import {listAccelerators} from '../../src/services/accelerators.js'
import {SCHEMA_DIR, schemaForRun, schemaProblems} from '../helpers/schema-check.js'
import {
  ERROR_SCHEMA,
  generateSchemas,
  schemaName,
  WORKER_FAILURE_SCHEMA,
  type JsonSchema,
} from '../helpers/schema-generator.js'

let generated: Record<string, JsonSchema>
beforeAll(() => {
  generated = generateSchemas()
})

const committed = (): string[] =>
  readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort()

describe('the --json schemas of test/golden/contract/schemas', () => {
  it('are the ones the result types give (UPDATE_GOLDENS=1 to accept a change)', () => {
    if (process.env.UPDATE_GOLDENS) {
      rmSync(SCHEMA_DIR, {recursive: true, force: true})
      mkdirSync(SCHEMA_DIR, {recursive: true})
      for (const [name, schema] of Object.entries(generated)) {
        writeFileSync(join(SCHEMA_DIR, `${name}.json`), `${JSON.stringify(schema, null, 2)}\n`)
      }
    }
    expect(committed()).toEqual(Object.keys(generated).sort())
    for (const [name, schema] of Object.entries(generated)) {
      const file = readFileSync(join(SCHEMA_DIR, `${name}.json`), 'utf8')
      expect(`${JSON.stringify(schema, null, 2)}\n`, `${name}.json`).toBe(file)
    }
  })

  it('cover every command, the error object and the worker failure of vm run', () => {
    const expected = [...Object.keys(COMMANDS).map(schemaName), ERROR_SCHEMA, WORKER_FAILURE_SCHEMA].sort()
    expect(Object.keys(generated).sort()).toEqual(expected)
  })

  it('say every field, closing every object the types close', () => {
    // An open object or an `{}` would accept anything: only `unknown` in the types and index signatures may.
    const loose: string[] = []
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return
      const n = node as Record<string, unknown>
      const types = Array.isArray(n.type) ? n.type : [n.type]
      if (types.includes('object') && !('additionalProperties' in n)) loose.push(at)
      for (const [k, v] of Object.entries(n)) walk(v, `${at}/${k}`)
    }
    for (const [name, schema] of Object.entries(generated)) walk(schema, name)
    expect(loose).toEqual([])
  })
})

describe('the schemas reject what the types do not allow', () => {
  const accelerators = listAccelerators({aliases: true})
  const tpu = accelerators.find((a) => a.kind === 'TPU')!

  it(`accept the whole catalog (${accelerators.length} accelerators) and each describe`, () => {
    expect(accelerators.length).toBeGreaterThan(50)
    expect(schemaProblems('accelerator-list', accelerators)).toEqual([])
    for (const a of accelerators) expect(schemaProblems('accelerator-describe', a)).toEqual([])
  })

  it.each([
    ['a field made null', {...tpu, name: null}, '/name must be string'],
    ['a field left out', Object.fromEntries(Object.entries(tpu).filter(([k]) => k !== 'family')), 'family'],
    ['a field the type does not declare', {...tpu, extra: 1}, 'must NOT have additional properties'],
    ['a value outside an enum', {...tpu, kind: 'FPGA'}, '/kind must be equal to one of the allowed values'],
    ['a number as a string', {...tpu, vmsPerSlice: '2'}, '/vmsPerSlice must be number'],
  ])('reject %s', (_, value, expected) => {
    expect(schemaProblems('accelerator-describe', value).join('\n')).toContain(expected)
  })

  it('accept the error object of every kind, and nothing else beside it', () => {
    const kinds = EXIT_CODE_TABLE.flatMap((row) => row.kinds)
    expect(kinds.length).toBeGreaterThan(10)
    for (const kind of kinds) {
      expect(schemaProblems('error', errorToJson(new XpkError(kind, 'it failed', {hints: ['a hint']})))).toEqual([])
    }
    const json = errorToJson(new XpkError('usage', 'bad'))
    expect(schemaProblems('error', {...json, error: {...json.error, exitCode: null}})).not.toEqual([])
    expect(schemaProblems('error', {...json, result: []})).not.toEqual([])
  })
})

describe('which schema a run of the CLI is held to', () => {
  it.each([
    [['cluster', 'list', '--json'], 0, '[]', 'cluster-list'],
    [['version', '--json'], 0, '{}', 'version'],
    [['cluster', 'create', '--cluster', 'x', '--json'], 2, '{"error": {}}', 'error'],
    [['vm', 'run', '--json'], 3, '{"workers": [], "error": {}}', 'vm-run-failure'],
    [['vm', 'run', '--json'], 2, '{"error": {}}', 'error'],
    [['nonsense', '--json'], 2, '{"error": {}}', 'error'],
    [['cluster', 'list', '-o', 'json'], 0, '[]', 'cluster-list'],
    [['cluster', 'list', '-oJSON'], 0, '[]', 'cluster-list'],
    [['cluster', 'list', '--output=yaml'], 0, '[]', 'cluster-list'],
    [['cluster', 'list', '-o', 'yaml'], 0, '- name: demo', 'cluster-list'],
    [['cluster', 'list', '-o=yaml'], 2, 'error:\n  kind: usage', 'error'],
  ])('xpk %j exiting %i', (args, code, stdout, name) => {
    expect(schemaForRun(args, code, stdout)?.name).toBe(name)
  })

  it.each([
    [['cluster', 'list'], 0, '[]'],
    [['workload', 'logs', 'x', '--', 'echo', '--json'], 0, '[]'],
    [['cluster', 'list', '--json'], 0, 'not json'],
    [['cluster', 'list', '--json'], 1, '[]'],
    [['cluster', 'list', '-o', 'name'], 0, '[]'],
    [['cluster', 'list', '-o', 'yaml'], 1, 'Error: bad'],
    [['workload', 'logs', 'x', '--', 'echo', '-o', 'json'], 0, '[]'],
  ])('none for xpk %j exiting %i with %j', (args, code, stdout) => {
    expect(schemaForRun(args, code, stdout)).toBeUndefined()
  })
})
