import {UsageError} from './errors.js'
import {closestMatches, orList} from './suggest.js'

/**
 * Settings are the defaults a user can keep instead of repeating flags: where to act (project, zone, cluster)
 * and where images go. Each is resolved with the precedence flag > environment variable > `xpk config` > the
 * active gcloud configuration, and remembers where its value came from (`--verbose` prints that).
 */
export interface SettingDefinition {
  readonly key: string
  readonly env: string
  /** The gcloud property (`section/name`) that supplies a fallback, if any. */
  readonly gcloudProperty?: string
  readonly description: string
  /** Returns a problem description, or undefined when the value is acceptable. */
  readonly validate?: (value: string) => string | undefined
}

const RFC1123_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/

/** The settings xpk knows. `xpk config set` accepts exactly these keys. */
export const SETTINGS = [
  {
    key: 'project',
    env: 'XPK_PROJECT',
    gcloudProperty: 'core/project',
    description: 'Google Cloud project ID.',
    validate: (v: string) =>
      /^[a-z][-a-z0-9.:]{4,61}[a-z0-9]$/.test(v)
        ? undefined
        : 'a project ID is 6-63 lowercase letters, digits or hyphens',
  },
  {
    key: 'zone',
    env: 'XPK_ZONE',
    gcloudProperty: 'compute/zone',
    description: 'Compute zone, e.g. us-central2-b; the cluster is created in its region.',
    validate: (v: string) => (zoneToRegion(v) ? undefined : 'a zone looks like us-central2-b (region plus a letter)'),
  },
  {
    key: 'cluster',
    env: 'XPK_CLUSTER',
    gcloudProperty: 'container/cluster',
    description: 'GKE cluster name.',
    validate: (v: string) => clusterNameProblem(v),
  },
  {
    key: 'registry',
    env: 'XPK_REGISTRY',
    description: 'Where built images go, e.g. us-docker.pkg.dev/PROJECT/REPO (default gcr.io/PROJECT).',
  },
  {
    key: 'gke-endpoint',
    env: 'XPK_GKE_ENDPOINT',
    gcloudProperty: 'api_endpoint_overrides/container',
    description: 'GKE API endpoint override, e.g. https://REGION-container.googleapis.com/ for a regional endpoint.',
  },
  {
    key: 'compute-endpoint',
    env: 'XPK_COMPUTE_ENDPOINT',
    gcloudProperty: 'api_endpoint_overrides/compute',
    description: 'Compute Engine API endpoint override (used for workload placement policies).',
  },
] as const satisfies readonly SettingDefinition[]

export type SettingKey = (typeof SETTINGS)[number]['key']

export const SETTING_KEYS: readonly SettingKey[] = SETTINGS.map((s) => s.key)

/** Python xpk's config keys that mean the same as ours; read (and rewritten) under our names. */
export const LEGACY_CONFIG_KEYS: Readonly<Record<string, SettingKey>> = {
  'project-id': 'project',
  'cluster-name': 'cluster',
}

/** Where a setting's value came from. */
export type SettingSource = 'flag' | 'env' | 'config' | 'gcloud' | 'unset'

export interface ResolvedSetting {
  readonly value: string | undefined
  readonly source: SettingSource
  /** Human description of the source, e.g. "--zone", "XPK_ZONE", "xpk config", "gcloud property compute/zone". */
  readonly origin: string
}

/** The raw values from each source, lowest layer last. */
export interface SettingSources {
  readonly flags: Readonly<Partial<Record<SettingKey, string>>>
  readonly env: Readonly<Record<string, string | undefined>>
  readonly config: Readonly<Partial<Record<SettingKey, string>>>
  /** Properties of the active gcloud configuration, keyed `section/name`. */
  readonly gcloud: Readonly<Record<string, string>>
}

export type ResolvedSettings = Readonly<Record<SettingKey, ResolvedSetting>>

/** A setting with its definition, as `xpk config list` reports it. */
export interface SettingReport extends ResolvedSetting {
  readonly key: SettingKey
  readonly env: string
  readonly description: string
}

/** Looks up a setting definition, or throws a usage error that suggests the closest key. */
export function settingDefinition(key: string): SettingDefinition & {key: SettingKey} {
  const found = SETTINGS.find((s) => s.key === key) ?? SETTINGS.find((s) => s.key === LEGACY_CONFIG_KEYS[key])
  if (found) return found
  throw new UsageError(`Unknown setting "${key}". Did you mean ${orList(closestMatches(key, SETTING_KEYS, 2))}?`, {
    hints: [`Settings are: ${SETTING_KEYS.join(', ')}. See \`xpk config list\`.`],
  })
}

/** Resolves every setting with precedence flag > env > xpk config > gcloud. Empty strings count as unset. */
export function resolveSettings(sources: SettingSources): ResolvedSettings {
  const resolved = {} as Record<SettingKey, ResolvedSetting>
  for (const def of SETTINGS) resolved[def.key] = resolveOne(def, sources)
  return resolved
}

function resolveOne(def: SettingDefinition & {key: SettingKey}, sources: SettingSources): ResolvedSetting {
  const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim())
  const fromFlag = nonEmpty(sources.flags[def.key])
  if (fromFlag) return {value: fromFlag, source: 'flag', origin: `--${def.key}`}
  const fromEnv = nonEmpty(sources.env[def.env])
  if (fromEnv) return {value: fromEnv, source: 'env', origin: def.env}
  const fromConfig = nonEmpty(sources.config[def.key])
  if (fromConfig) return {value: fromConfig, source: 'config', origin: 'xpk config'}
  const fromGcloud = def.gcloudProperty ? nonEmpty(sources.gcloud[def.gcloudProperty]) : undefined
  if (fromGcloud) return {value: fromGcloud, source: 'gcloud', origin: `gcloud property ${def.gcloudProperty}`}
  return {value: undefined, source: 'unset', origin: 'not set'}
}

/** Checks a value for a key; returns the problem or undefined. */
export function settingValueProblem(key: SettingKey, value: string): string | undefined {
  const def = SETTINGS.find((s) => s.key === key) as SettingDefinition | undefined
  return def?.validate?.(value)
}

/**
 * Requires a resolved setting, validating it. The error names the flag and every other way to set it.
 * @param why what the value is needed for, e.g. "to name the image"
 */
export function requireSetting(settings: ResolvedSettings, key: SettingKey, why?: string): string {
  const setting = settings[key]
  const def = settingDefinition(key)
  if (setting.value === undefined) {
    const gcloud = def.gcloudProperty ? `, or \`gcloud config set ${def.gcloudProperty} VALUE\`` : ''
    throw new UsageError(`Missing --${key}${why ? ` (needed ${why})` : ''}.`, {
      flag: `--${key}`,
      hints: [`Pass --${key}, set ${def.env}, run \`xpk config set ${key} VALUE\`${gcloud}.`],
    })
  }
  const problem = settingValueProblem(key, setting.value)
  if (problem) {
    throw new UsageError(`Invalid ${key} "${setting.value}" (from ${setting.origin}): ${problem}.`, {flag: `--${key}`})
  }
  return setting.value
}

/** The region of a zone (`us-central2-b` -> `us-central2`), or undefined when it is not a zone. */
export function zoneToRegion(zone: string): string | undefined {
  const match = /^([a-z]+-[a-z]+[0-9]+)-[a-z]$/.exec(zone)
  return match?.[1]
}

/** Why a cluster name is not acceptable, or undefined. GKE allows 40 characters, lowercase, starting with a letter. */
export function clusterNameProblem(name: string): string | undefined {
  if (name.length > 40) return `it is ${name.length} characters long; the limit is 40`
  if (!RFC1123_LABEL.test(name)) {
    return 'use lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen'
  }
  return undefined
}

/** Parses an INI file (gcloud's configuration format) into `section/name` keys. */
export function parseIniProperties(text: string): Record<string, string> {
  const properties: Record<string, string> = {}
  let section = ''
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue
    const header = /^\[(.+)\]$/.exec(line)
    if (header) {
      section = header[1].trim()
      continue
    }
    const eq = line.indexOf('=')
    if (eq > 0 && section) properties[`${section}/${line.slice(0, eq).trim()}`] = line.slice(eq + 1).trim()
  }
  return properties
}

/** gcloud's own environment overrides (`CLOUDSDK_<SECTION>_<NAME>`) for the properties we read. */
export function gcloudEnvOverrides(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const def of SETTINGS as readonly SettingDefinition[]) {
    if (!def.gcloudProperty) continue
    const name = `CLOUDSDK_${def.gcloudProperty.replace('/', '_').toUpperCase()}`
    const value = env[name]
    if (value) out[def.gcloudProperty] = value
  }
  return out
}
