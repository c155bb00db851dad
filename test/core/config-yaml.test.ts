// Issue 17: an empty config file, or `configs:` with no value, means no settings; `config set` keeps comments and
// refuses to rewrite a `configs` that is not a mapping, naming the file and line.
import {loadAll} from 'js-yaml'
import {describe, expect, it} from 'vitest'

import {editConfigs, readConfigValues} from '../../src/core/config-yaml.js'
import {UsageError} from '../../src/core/errors.js'

const FILE = '/home/me/.config/xpk/config.yaml'

describe('reading: nothing there is no settings', () => {
  it.each([
    ['an empty file', ''],
    ['only a line break', '\n'],
    ['only comments', '# my defaults\n\n# none yet\n'],
    ['an explicit empty document', '---\n'],
    ['configs: with no value', 'version: v1\nconfigs:\n'],
    ['configs: ~', 'configs: ~\n'],
    ['configs: null, with a comment', 'version: v1\nconfigs: null # cleared\n'],
    ['no configs key', 'version: v1\n'],
    ['configs: {}', 'configs: {}\n'],
  ])('%s', (_name, text) => {
    expect(readConfigValues(text, FILE)).toEqual({})
  })

  it("reads settings and Python xpk's names", () => {
    const text = 'version: v1\nconfigs:\n  project-id: legacy\n  zone: us-central2-b\n  send-telemetry: "false"\n'
    expect(readConfigValues(text, FILE)).toEqual({project: 'legacy', zone: 'us-central2-b'})
  })
})

describe('reading: what is not a mapping is refused, naming the file and line', () => {
  it.each([
    ['configs: 5', 'version: v1\nconfigs: 5\n', 2, 'not the value "5"'],
    ['configs: a list', 'version: v1\n# note\nconfigs:\n  - zone\n', 4, 'not a sequence'],
    ['configs: a string', 'configs: "zone: a"\n', 1, 'not the value "zone: a"'],
    ['configs: a line break in a string', 'configs: "a\\nb"\n', 1, 'not the value "a\\nb"'],
    ['the file is a list', '# hi\n- a\n- b\n', 2, 'The file should be a mapping'],
    ['the file is a word', 'hello\n', 1, 'The file should be a mapping'],
  ])('%s', (_name, text, line, message) => {
    const error = catchError(() => readConfigValues(text, FILE))
    expect(error).toBeInstanceOf(UsageError)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain(`${FILE}:${line}: `)
    expect(error.message).toContain(message)
  })

  it.each([
    ['broken YAML', 'configs: [unclosed\n', 'is not valid YAML'],
    ['two documents', 'a: 1\n---\nb: 2\n', 'holds 2 YAML documents'],
  ])('%s', (_name, text, message) => {
    const error = catchError(() => readConfigValues(text, FILE))
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain(FILE)
    expect(error.message).toContain(message)
  })
})

const COMMENTED = `# xpk defaults, shared with Python xpk
version: v1

configs:
  # the project we bill
  project: my-project   # do not change
  send-telemetry: "false"
  zone: us-central2-b
# trailing note
other: {a: 1}
`

describe('editing: only the lines of the settings that change', () => {
  it.each<[string, string, Parameters<typeof editConfigs>[2], string]>([
    [
      'a new setting after the last entry, at its indentation',
      COMMENTED,
      {cluster: 'demo'},
      COMMENTED.replace('  zone: us-central2-b\n', '  zone: us-central2-b\n  cluster: demo\n'),
    ],
    [
      'a changed value, keeping the comment after it',
      COMMENTED,
      {project: 'other-project'},
      COMMENTED.replace('project: my-project   #', 'project: other-project   #'),
    ],
    [
      'a removed setting, keeping the comment above it',
      COMMENTED,
      {zone: undefined},
      COMMENTED.replace('  zone: us-central2-b\n', ''),
    ],
    [
      'a first setting into an empty file',
      '',
      {zone: 'us-central2-b'},
      'version: v1\nconfigs:\n  zone: us-central2-b\n',
    ],
    [
      'a first setting after comments only',
      '# mine\n',
      {zone: 'us-central2-b'},
      '# mine\nversion: v1\nconfigs:\n  zone: us-central2-b\n',
    ],
    ['configs: with no value', 'version: v1\nconfigs:\n', {zone: 'a-b1-c'}, 'version: v1\nconfigs:\n  zone: a-b1-c\n'],
    [
      'configs: ~ with a comment',
      'configs: ~ # empty\nversion: v1\n',
      {zone: 'a-b1-c'},
      'configs:  # empty\n  zone: a-b1-c\nversion: v1\n',
    ],
    ['no configs key', 'version: v1\n', {zone: 'a-b1-c'}, 'version: v1\nconfigs:\n  zone: a-b1-c\n'],
    ['no version either', 'other: 1', {zone: 'a-b1-c'}, 'other: 1\nversion: v1\nconfigs:\n  zone: a-b1-c\n'],
    [
      'a quoted value',
      'configs:\n  zone: "us-central2-b" # q\n',
      {zone: 'us-east5-a'},
      'configs:\n  zone: us-east5-a # q\n',
    ],
    [
      'a block scalar value',
      'configs:\n  zone: |\n    old\n  project: p\n',
      {zone: 'us-east5-a'},
      'configs:\n  zone: us-east5-a\n  project: p\n',
    ],
    [
      'a new setting after a block scalar',
      'configs:\n  note: |\n    a\n    b\nx: 1\n',
      {zone: 'us-east5-a'},
      'configs:\n  note: |\n    a\n    b\n  zone: us-east5-a\nx: 1\n',
    ],
    ['an empty value', 'configs:\n  zone:\n  x: 1\n', {zone: 'a-b1-c'}, 'configs:\n  zone: a-b1-c\n  x: 1\n'],
    [
      'four spaces of indentation',
      'configs:\n    zone: a-b1-c\n',
      {project: 'my-project'},
      'configs:\n    zone: a-b1-c\n    project: my-project\n',
    ],
    [
      'a value that YAML must quote',
      'configs:\n  zone: a-b1-c\n',
      {'gke-endpoint': 'http://127.0.0.1:9/x #y'},
      "configs:\n  zone: a-b1-c\n  gke-endpoint: 'http://127.0.0.1:9/x #y'\n",
    ],
    [
      "removing a setting removes Python xpk's name for it",
      'configs:\n  project-id: old\n  cluster-name: c\n  project: new\n',
      {project: undefined},
      'configs:\n  cluster-name: c\n',
    ],
    [
      'a flow configs is rewritten in flow style',
      '# top\nconfigs: {zone: a-b1-c} # end\n',
      {project: 'my-project'},
      '# top\nconfigs: {zone: a-b1-c, project: my-project} # end\n',
    ],
    [
      'a setting removed from a flow configs',
      'configs: {zone: a-b1-c, "project": my-project}\n',
      {zone: undefined},
      'configs: {project: my-project}\n',
    ],
    ['a flow file', '{version: v1}\n', {zone: 'a-b1-c'}, '{version: v1, configs: {zone: a-b1-c}}\n'],
    ['removing what is not there', COMMENTED, {cluster: undefined}, COMMENTED],
    ['removing from a file with nothing', '# only\n', {zone: undefined}, '# only\n'],
  ])('%s', (_name, before, changes, after) => {
    const edited = editConfigs(before, FILE, changes)
    expect(edited).toBe(after)
    // The result reads back as the change says, and every other key is untouched.
    const expected = {...readConfigValues(before, FILE), ...changes}
    for (const key of Object.keys(expected) as (keyof typeof expected)[]) {
      if (expected[key] === undefined) delete expected[key]
    }
    expect(readConfigValues(edited, FILE)).toEqual(expected)
    const others = (text: string) => {
      const doc = (loadAll(text)[0] ?? {}) as Record<string, unknown>
      const {configs, ...rest} = doc
      const kept = {...((configs ?? {}) as Record<string, unknown>)}
      for (const key of ['project', 'zone', 'cluster', 'registry', 'gke-endpoint', 'compute-endpoint']) delete kept[key]
      for (const key of Object.keys(changes)) if (key === 'project') delete kept['project-id']
      return {rest: {...rest, version: undefined}, kept}
    }
    expect(others(edited)).toEqual(others(before))
  })

  it.each<[string, string, Parameters<typeof editConfigs>[2], number]>([
    ['configs: 5', 'version: v1\nconfigs: 5\n', {zone: 'a-b1-c'}, 2],
    ['configs: 5 (unset)', 'version: v1\nconfigs: 5\n', {zone: undefined}, 2],
    ['configs: a list', 'configs:\n  - a\n', {zone: 'a-b1-c'}, 2],
    ['the file is a list', '- a\n', {zone: 'a-b1-c'}, 1],
    ['a setting whose value is a mapping', 'configs:\n  zone:\n    a: 1\n', {zone: 'a-b1-c'}, 3],
  ])('refuses to rewrite %s, naming the file and line', (_name, text, changes, line) => {
    const error = catchError(() => editConfigs(text, FILE, changes))
    expect(error).toBeInstanceOf(UsageError)
    expect(error.message).toContain(`${FILE}:${line}: `)
    expect(error.message).toContain('should be a mapping')
  })
})

function catchError(run: () => unknown): UsageError {
  try {
    run()
  } catch (error) {
    return error as UsageError
  }
  throw new Error('expected an error')
}
