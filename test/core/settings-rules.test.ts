// Rule 2 of issue 7: every command validates and resolves settings the same way, whatever the value's source, and
// `xpk config set` stores nothing that a later command would reject. Table-driven over every setting.
import {describe, expect, it} from 'vitest'

import {UsageError} from '../../src/core/errors.js'
import {
  checkSettings,
  projectIdProblem,
  registryPrefixProblem,
  resolveSettings,
  settingsProblems,
  SETTINGS,
  type SettingKey,
  type SettingSources,
} from '../../src/core/settings.js'
import {endpointProblem} from '../../src/core/endpoint.js'
import {setConfig, unsetConfig, type ConfigDeps} from '../../src/services/config.js'
import {RecordingConsole} from '../helpers/recording-console.js'

/** Values each setting must refuse, and one it must accept. */
const VALUES: Record<SettingKey, {bad: string[]; good: string}> = {
  project: {
    bad: ['p', 'My-Project', 'x'.repeat(31), 'project-', '1project', 'my project', 'a'.repeat(63)],
    good: 'my-project-123',
  },
  zone: {bad: ['US-CENTRAL2-B', 'us-central2', 'uscentral2b', 'us-central2-b ; x'], good: 'us-central2-b'},
  cluster: {bad: ['Bad_Name', 'x'.repeat(41), '-demo', 'demo\u001b[2J'], good: 'demo'},
  registry: {
    bad: ['Not A Registry!', 'justaname', 'gcr.io/My-Project', 'gcr.io/p/img:tag', 'gcr.io/p@sha256:' + 'a'.repeat(64)],
    good: 'us-docker.pkg.dev/my-project/repo',
  },
  'gke-endpoint': {
    bad: [
      'ftp://x y',
      'ftp://127.0.0.1:21',
      'http://container.example.com',
      'https://user:secret@container.example.com/',
      'https://container.example.com/?key=1',
    ],
    good: 'https://us-central1-container.googleapis.com/',
  },
  'compute-endpoint': {
    bad: ['https://u:p@compute.example.com', 'http://compute.example.com', 'not a url'],
    good: 'http://127.0.0.1:8080/compute/v1/',
  },
}

const sources = (key: SettingKey, value: string): Array<[string, SettingSources]> => {
  const def = SETTINGS.find((s) => s.key === key)!
  const empty = {flags: {}, env: {}, config: {}, gcloud: {}}
  const list: Array<[string, SettingSources]> = [
    ['flag', {...empty, flags: {[key]: value}}],
    ['env', {...empty, env: {[def.env]: value}}],
    ['config', {...empty, config: {[key]: value}}],
  ]
  if ('gcloudProperty' in def) list.push(['gcloud', {...empty, gcloud: {[def.gcloudProperty]: value}}])
  return list
}

const badCases = SETTINGS.flatMap((def) =>
  VALUES[def.key].bad.flatMap((value) =>
    sources(def.key, value).map(([source, s]) => ({key: def.key, value, source, s})),
  ),
)

describe('settings: one rule per setting, whatever the source', () => {
  it.each(badCases)('$key $value from $source is refused, naming the flag and the source', ({key, source, s}) => {
    const problems = settingsProblems(resolveSettings(s))
    expect(problems).toHaveLength(1)
    expect(problems[0]!.flag).toBe(`--${key}`)
    expect(problems[0]!.exitCode).toBe(2)
    if (source !== 'flag') expect(problems[0]!.message).toMatch(/\(from (XPK_|xpk config|gcloud property)/)
    // Nothing raw reaches the terminal, even in the refusal.
    expect(problems[0]!.message).not.toContain('\u001b')
  })

  it.each(SETTINGS.map((d) => d.key))('%s accepts a good value from every source', (key) => {
    for (const [, s] of sources(key, VALUES[key].good)) expect(settingsProblems(resolveSettings(s))).toEqual([])
  })

  it.each(SETTINGS.map((d) => [d.env, d.key] as const))('%s set but empty is refused by name', (env, key) => {
    const settings = resolveSettings({flags: {}, env: {[env]: ''}, config: {[key]: VALUES[key].good}, gcloud: {}})
    const problems = settingsProblems(settings)
    expect(problems.map((p) => p.message)).toEqual([
      `${env} is set but empty. Unset it (\`unset ${env}\`) or give it a value.`,
    ])
  })

  it('reports every bad setting at once', () => {
    const settings = resolveSettings({
      flags: {zone: 'US-CENTRAL2-B'},
      env: {XPK_PROJECT: ''},
      config: {registry: 'Not A Registry!'},
      gcloud: {},
    })
    expect(() => checkSettings(settings)).toThrow(UsageError)
    expect(settingsProblems(settings).map((p) => p.flag)).toEqual(['--project', '--zone', '--registry'])
  })
})

describe("the project ID rule is GCP's: 6-30 characters", () => {
  it.each([
    ['abcdef', true],
    ['a'.repeat(30), true],
    ['a'.repeat(31), false],
    ['abcde', false],
    ['my-project-1', true],
    ['my-project-', false],
    ['example.com:my-project', true],
    ['Example.com:my-project', false],
  ])('%s -> %s', (id, ok) => expect(projectIdProblem(id) === undefined).toBe(ok))

  it('is the rule every other check uses too', () => {
    expect(registryPrefixProblem('127.0.0.1:5001/xpk')).toBeUndefined()
    expect(endpointProblem('https://x.example.com')).toBeUndefined()
  })
})

describe('xpk config set stores only values a later command accepts', () => {
  function deps(saved: Record<string, string> = {}): ConfigDeps & {writes: number} {
    const state = {writes: 0}
    return Object.assign(state, {
      store: {
        location: '/config.yaml',
        read: async () => ({...saved}),
        write: async () => {
          state.writes++
        },
      },
      gcloud: {read: async () => ({})},
      env: {},
      console: new RecordingConsole(),
    })
  }
  const cases = SETTINGS.flatMap((def) => [...VALUES[def.key].bad, '', '  '].map((value) => ({key: def.key, value})))

  it.each(cases)('config set $key $value is refused and nothing is written', async ({key, value}) => {
    const d = deps()
    await expect(setConfig({key, value}, d)).rejects.toBeInstanceOf(UsageError)
    expect(d.writes).toBe(0)
  })

  it.each(SETTINGS.map((d) => d.key))('config set %s with a good value is written', async (key) => {
    const d = deps()
    await expect(setConfig({key, value: VALUES[key].good}, d)).resolves.toEqual({key, value: VALUES[key].good})
    expect(d.writes).toBe(1)
  })

  it.each(SETTINGS.map((d) => d.key))(
    'config set and unset %s --dry-run check the value and write nothing',
    async (key) => {
      const d = deps()
      await expect(setConfig({key, value: VALUES[key].good, dryRun: true}, d)).resolves.toEqual({
        key,
        value: VALUES[key].good,
      })
      await expect(setConfig({key, value: '  ', dryRun: true}, d)).rejects.toBeInstanceOf(UsageError)
      await expect(unsetConfig({key, dryRun: true}, d)).resolves.toEqual({key, value: null})
      expect(d.writes).toBe(0)
    },
  )
})
