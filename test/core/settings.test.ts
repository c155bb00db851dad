import {describe, expect, it} from 'vitest'

import {UsageError} from '../../src/core/errors.js'
import {
  clusterNameProblem,
  gcloudEnvOverrides,
  parseIniProperties,
  requireSetting,
  resolveSettings,
  settingDefinition,
  zoneToRegion,
} from '../../src/core/settings.js'

const sources = {
  flags: {zone: 'us-east5-a'},
  env: {XPK_PROJECT: 'env-project', XPK_ZONE: 'europe-west4-b'},
  config: {project: 'config-project', cluster: 'config-cluster', zone: 'asia-east1-c'},
  gcloud: {'core/project': 'gcloud-project', 'compute/zone': 'us-central1-a', 'container/cluster': 'gcloud-cluster'},
}

describe('resolveSettings precedence: flag > env > xpk config > gcloud', () => {
  const settings = resolveSettings(sources)

  it.each([
    ['zone', 'us-east5-a', 'flag', '--zone'],
    ['project', 'env-project', 'env', 'XPK_PROJECT'],
    ['cluster', 'config-cluster', 'config', 'xpk config'],
    ['registry', undefined, 'unset', 'not set'],
  ] as const)('%s comes from the highest layer that has it', (key, value, source, origin) => {
    expect(settings[key]).toEqual({value, source, origin})
  })

  it('falls back to the gcloud property when nothing else is set', () => {
    const only = resolveSettings({flags: {}, env: {}, config: {}, gcloud: sources.gcloud})
    expect(only.project).toEqual({value: 'gcloud-project', source: 'gcloud', origin: 'gcloud property core/project'})
    expect(only.cluster.value).toBe('gcloud-cluster')
  })

  it('never falls back past a value that was given empty; blank saved or gcloud values are skipped', () => {
    const fromEnv = resolveSettings({flags: {}, env: {XPK_PROJECT: ' '}, config: {project: 'p-config'}, gcloud: {}})
    expect([fromEnv.project.value, fromEnv.project.origin]).toEqual(['', 'XPK_PROJECT'])
    const fromFlag = resolveSettings({flags: {project: ''}, env: {XPK_PROJECT: 'p-env'}, config: {}, gcloud: {}})
    expect([fromFlag.project.value, fromFlag.project.origin]).toEqual(['', '--project'])
    const blankBelow = resolveSettings({
      flags: {},
      env: {},
      config: {project: ' '},
      gcloud: {'core/project': 'p-gcloud1'},
    })
    expect(blankBelow.project.value).toBe('p-gcloud1')
  })
})

describe('requireSetting', () => {
  it('names the flag and every other way to set a missing value', () => {
    const s = resolveSettings({flags: {}, env: {}, config: {}, gcloud: {}})
    expect(() => requireSetting(s, 'project', 'to name the image')).toThrow(UsageError)
    try {
      requireSetting(s, 'project', 'to name the image')
    } catch (error) {
      const e = error as UsageError
      expect(e.message).toBe('Missing --project (needed to name the image).')
      expect(e.flag).toBe('--project')
      expect(e.hints[0]).toContain('XPK_PROJECT')
      expect(e.hints[0]).toContain('gcloud config set core/project VALUE')
    }
  })

  it('validates the value and says where the bad value came from', () => {
    const s = resolveSettings({flags: {}, env: {XPK_ZONE: 'uscentral'}, config: {}, gcloud: {}})
    expect(() => requireSetting(s, 'zone')).toThrow(/--zone "uscentral" \(from XPK_ZONE\): a zone looks like/)
  })
})

describe('value checks', () => {
  it.each([
    ['us-central2-b', 'us-central2'],
    ['europe-west4-a', 'europe-west4'],
    ['us-central2', undefined],
    ['central2-b', undefined],
  ])('zoneToRegion(%s) = %s', (zone, region) => expect(zoneToRegion(zone)).toBe(region))

  it.each([
    ['my-cluster', undefined],
    ['a'.repeat(40), undefined],
    ['a'.repeat(41), 'it is 41 characters long; the limit is 40'],
    ['My-Cluster', expect.stringContaining('lowercase')],
    ['-x', expect.stringContaining('starting with a letter')],
    ['x-', expect.stringContaining('not ending with a hyphen')],
  ])('clusterNameProblem(%s)', (name, problem) => expect(clusterNameProblem(name)).toEqual(problem))

  it('suggests the closest key for an unknown one and accepts Python xpk names', () => {
    expect(() => settingDefinition('projcet')).toThrow(/Did you mean project/)
    expect(settingDefinition('project-id').key).toBe('project')
  })
})

describe('gcloud configuration files', () => {
  it('parses INI sections into section/name keys, ignoring comments', () => {
    const text = '# comment\n[core]\nproject = my-proj\naccount=me@example.com\n\n[compute]\nzone = us-east5-a\n; x\n'
    expect(parseIniProperties(text)).toEqual({
      'core/project': 'my-proj',
      'core/account': 'me@example.com',
      'compute/zone': 'us-east5-a',
    })
  })

  it('applies CLOUDSDK_* environment overrides the way gcloud does', () => {
    expect(gcloudEnvOverrides({CLOUDSDK_CORE_PROJECT: 'p', CLOUDSDK_COMPUTE_ZONE: 'z', OTHER: 'x'})).toEqual({
      'core/project': 'p',
      'compute/zone': 'z',
    })
  })
})
