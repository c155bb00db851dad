// Issue 17, class 2: every environment variable the CLI reads is in one table, validated when read (exit 2 naming
// the variable and the fix) and documented from that table.
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'

import {
  endpointVariable,
  ENVIRONMENT,
  environmentProblems,
  environmentTable,
  integerVariable,
  tokenVariable,
  xdgDirectory,
  type VariableDefinition,
  type VariableName,
} from '../../src/core/environment.js'
import {UsageError} from '../../src/core/errors.js'
import {REPO_ROOT} from '../helpers/cli.js'

const variables = Object.entries(ENVIRONMENT as Record<string, VariableDefinition>) as [
  VariableName,
  VariableDefinition,
][]
const ofKind = (kind: VariableDefinition['kind']) => variables.filter(([, def]) => def.kind === kind)

function refusal(read: () => unknown): UsageError {
  try {
    read()
  } catch (error) {
    if (error instanceof UsageError) return error
    throw error
  }
  throw new Error('expected a usage error')
}

describe('integer variables: a whole number in range, exactly as written', () => {
  const bad = ofKind('integer').flatMap(([name, def]) => {
    const {min, max} = def.range!
    return [
      '',
      '   ',
      'abc',
      '1.5',
      '1e3',
      '0x10',
      `+${min + 1}`,
      ` ${min}`,
      `${min} `,
      `${min}\n`,
      '99999999999999999999',
    ]
      .concat([String(min - 1), String(max + 1)])
      .map((value) => ({name, value}))
  })
  const good = ofKind('integer').flatMap(([name, def]) =>
    [def.range!.min, def.range!.max].map((value) => ({name, value})),
  )

  it('covers the poll, retry and timeout variables', () => {
    expect(ofKind('integer').map(([name]) => name)).toEqual(
      expect.arrayContaining(['XPK_POLL_INTERVAL_MS', 'XPK_RETRY_INTERVAL_MS', 'XPK_CONTROLLER_TIMEOUT_S']),
    )
  })

  it.each(bad)('$name=$value is refused by name, with the fix', ({name, value}) => {
    const error = refusal(() => integerVariable({[name]: value}, name))
    expect(error.exitCode).toBe(2)
    expect(error.message).toMatch(new RegExp(`^${name}[ :]`))
    expect(error.message + error.hints.join(' ')).toMatch(new RegExp(`[Uu]nset.* ${name}|\`unset ${name}\``))
    // eslint-disable-next-line no-control-regex
    expect(error.message).not.toMatch(/[\u0000-\u001f]/)
  })

  it.each(good)('$name=$value is read as $value', ({name, value}) => {
    expect(integerVariable({[name]: String(value)}, name)).toBe(value)
  })

  it.each(ofKind('integer'))('%s unset is undefined (the default applies)', (name) => {
    expect(integerVariable({}, name)).toBeUndefined()
  })
})

describe('endpoint variables: the one endpoint rule', () => {
  const bad = ofKind('endpoint').flatMap(([name]) =>
    [
      ['', 'set but empty'],
      ['tpu.googleapis.com', 'no scheme'],
      ['localhost:8080', 'no scheme'],
      ['https://', 'no host'],
      ['https:///v1', 'no host'],
      ['http://tpu.example.com', 'only allowed on loopback'],
      ['https://user:secret@tpu.example.com', 'credentials'],
      ['https://tpu.example.com/?key=1', 'query'],
      [' https://tpu.example.com', 'white space'],
      ['https://tpu.example.com/\n', 'white space'],
    ].map(([value, why]) => ({name, value: value!, why: why!})),
  )

  it.each(bad)('$name=$value is refused: $why', ({name, value, why}) => {
    const error = refusal(() => endpointVariable({[name]: value}, name))
    expect(error.message).toContain(name)
    expect(error.message).toContain(why)
    expect(error.message).not.toContain('secret')
  })

  it.each(ofKind('endpoint'))('%s takes https anywhere and http on loopback', (name) => {
    expect(endpointVariable({[name]: 'https://tpu.example.com:8443/'}, name)).toMatchObject({port: 8443})
    expect(endpointVariable({[name]: 'http://127.0.0.1:9/'}, name)).toMatchObject({insecure: true})
  })
})

describe('XPK_ACCESS_TOKEN: used as given, never printed', () => {
  it.each([
    ['', 'XPK_ACCESS_TOKEN is set but empty'],
    ['  ', 'XPK_ACCESS_TOKEN is set but empty'],
    [' ya29.secret', 'starts with white space'],
    ['ya29.secret\n', 'ends with white space'],
    ['ya29.se\u0007cret', 'control character'],
    ['Bearer ya29.secret', 'has white space inside'],
    ['ya29.sec ret', 'has white space inside'],
  ])('%j is refused: %s', (value, why) => {
    const error = refusal(() => tokenVariable({XPK_ACCESS_TOKEN: value}, 'XPK_ACCESS_TOKEN'))
    expect(error.message).toContain(why)
    expect(error.message).not.toContain('secret')
  })

  it('an empty one says what unsetting it does (Application Default Credentials), not "no Google credentials"', () => {
    const error = refusal(() => tokenVariable({XPK_ACCESS_TOKEN: ''}, 'XPK_ACCESS_TOKEN'))
    expect(error.message).toContain('Application Default Credentials')
  })

  it('reads a token as it is', () => {
    expect(tokenVariable({XPK_ACCESS_TOKEN: 'ya29.a-b_c'}, 'XPK_ACCESS_TOKEN')).toBe('ya29.a-b_c')
    expect(tokenVariable({}, 'XPK_ACCESS_TOKEN')).toBeUndefined()
  })
})

describe('environmentProblems: every checked variable at once', () => {
  it('reports each bad one, and nothing for a clean environment', () => {
    const problems = environmentProblems({
      XPK_POLL_INTERVAL_MS: 'fast',
      XPK_ACCESS_TOKEN: '',
      XPK_TPU_ENDPOINT: 'tpu.googleapis.com',
      XPK_CONTROLLER_TIMEOUT_S: '600',
      HOME: '',
    })
    expect(problems.map((p) => p.message.split(/[ :]/)[0])).toEqual([
      'XPK_TPU_ENDPOINT',
      'XPK_ACCESS_TOKEN',
      'XPK_POLL_INTERVAL_MS',
    ])
    expect(environmentProblems({XPK_CONTROLLER_TIMEOUT_S: '600', HOME: '/home/me'})).toEqual([])
  })
})

describe('the table is complete and documented', () => {
  it('says whose every other variable is', () => {
    for (const [name, def] of ofKind('standard')) expect([name, def.owner]).toEqual([name, expect.any(String)])
    for (const [name, def] of ofKind('integer')) expect([name, def.range, def.default]).not.toContain(undefined)
  })

  it("is the README's list, generated from it (between <!-- environment:start --> and <!-- environment:end -->)", () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
    const section = /<!-- environment:start -->\n([\s\S]*?)<!-- environment:end -->/.exec(readme)?.[1]
    expect(section, 'README environment section').toBeDefined()
    expect(section).toBe(`${environmentTable()}\n`)
  })

  /** Every file of src/ and bin/. */
  function sources(): {path: string; text: string}[] {
    const out: {path: string; text: string}[] = []
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) walk(path)
        else if (/\.(ts|js|mjs)$/.test(name))
          out.push({path: relative(REPO_ROOT, path), text: readFileSync(path, 'utf8')})
      }
    }
    walk(join(REPO_ROOT, 'src'))
    walk(join(REPO_ROOT, 'bin'))
    return out
  }

  it('holds every variable the source reads, and the source reads them only by name or through the table', () => {
    const read = new Set<string>()
    const computed: string[] = []
    for (const {path, text} of sources()) {
      // `process.env.X`, `env.X`, `this.env.X`, `env?.X`, and the table's readers: integerVariable(env, 'X').
      for (const m of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) read.add(m[1]!)
      for (const m of text.matchAll(/Variable\([^)]*'([A-Z][A-Z0-9_]*)'/g)) read.add(m[1]!)
      // A variable read by a computed name escapes this check: only the table's own modules may do that.
      for (const m of text.matchAll(/\benv\[([^\]]+)\]/g)) computed.push(`${path}: env[${m[1]}]`)
    }
    expect(computed.sort()).toEqual([
      // SETTINGS' own XPK_* names and gcloud's CLOUDSDK_* names, both in the table by construction.
      'src/core/environment.ts: env[name]',
      'src/core/settings.ts: env[def.env]',
      'src/core/settings.ts: env[gcloudVariable(def.gcloudProperty)]',
      // `${oc.env:NAME}` in a `vm job` config file: a variable the user's file names, not a setting of xpk's.
      'src/core/vmjob/interpolation.ts: env[variable]',
    ])
    const known = new Set(Object.keys(ENVIRONMENT))
    expect([...read].filter((name) => !known.has(name)).sort()).toEqual([])
    expect(read.size).toBeGreaterThan(10)
  })
})

describe('xdgDirectory: the XDG base directories', () => {
  it.each([
    ['XDG_CONFIG_HOME', undefined, '/home/me/.config'],
    ['XDG_CONFIG_HOME', '', '/home/me/.config'],
    ['XDG_CONFIG_HOME', 'relative/conf', '/home/me/.config'],
    ['XDG_CONFIG_HOME', '/etc/me', '/etc/me'],
    ['XDG_CACHE_HOME', undefined, '/home/me/.cache'],
    ['XDG_CACHE_HOME', '.cache', '/home/me/.cache'],
    ['XDG_CACHE_HOME', '/var/cache/me', '/var/cache/me'],
    ['XDG_STATE_HOME', undefined, '/home/me/.local/state'],
    ['XDG_STATE_HOME', 'state', '/home/me/.local/state'],
    ['XDG_STATE_HOME', '/var/lib/me', '/var/lib/me'],
  ] as const)('%s=%j is %s (a relative or empty one is ignored, as the specification says)', (name, value, dir) => {
    expect(xdgDirectory({[name]: value}, name, '/home/me/')).toBe(dir)
  })
})
