import {endpointProblem} from './endpoint.js'
import {UsageError, UsageErrors} from './errors.js'
import {tryParseImageReference} from './image/naming.js'
import {valueShapeProblem} from './input.js'
import {closestMatches, orList} from './suggest.js'
import {escapeInline, redactCredentials} from './text.js'

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
    validate: (v: string) => projectIdProblem(v),
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
    validate: (v: string) => registryPrefixProblem(v),
  },
  {
    key: 'gke-endpoint',
    env: 'XPK_GKE_ENDPOINT',
    gcloudProperty: 'api_endpoint_overrides/container',
    description: 'GKE API endpoint override, e.g. https://REGION-container.googleapis.com/ for a regional endpoint.',
    validate: (v: string) => endpointProblem(v),
  },
  {
    key: 'compute-endpoint',
    env: 'XPK_COMPUTE_ENDPOINT',
    gcloudProperty: 'api_endpoint_overrides/compute',
    description: 'Compute Engine API endpoint override (workload placement policies, reservations, GPU networks).',
    validate: (v: string) => endpointProblem(v),
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

/**
 * Resolves every setting with precedence flag > env > xpk config > gcloud. A value given but empty is never "unset":
 * an empty flag is refused before this runs, and an empty (or blank) XPK_* variable resolves to '' from the
 * variable, which {@link settingsProblems} reports. Only saved config and gcloud values that are blank are skipped.
 * Nothing is trimmed: a value with white space around it is kept as it is, for {@link settingsProblems} to refuse
 * by the rule every value follows (src/core/input.ts), naming where it came from.
 */
export function resolveSettings(sources: SettingSources): ResolvedSettings {
  const resolved = {} as Record<SettingKey, ResolvedSetting>
  for (const def of SETTINGS) resolved[def.key] = resolveOne(def, sources)
  return resolved
}

function resolveOne(def: SettingDefinition & {key: SettingKey}, sources: SettingSources): ResolvedSetting {
  const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v)
  const fromFlag = sources.flags[def.key]
  if (fromFlag !== undefined) return {value: blankAsEmpty(fromFlag), source: 'flag', origin: `--${def.key}`}
  const fromEnv = sources.env[def.env]
  if (fromEnv !== undefined) return {value: blankAsEmpty(fromEnv), source: 'env', origin: def.env}
  const fromConfig = nonEmpty(sources.config[def.key])
  if (fromConfig) return {value: fromConfig, source: 'config', origin: 'xpk config'}
  const fromGcloud = def.gcloudProperty ? nonEmpty(sources.gcloud[def.gcloudProperty]) : undefined
  if (fromGcloud) return {value: fromGcloud, source: 'gcloud', origin: `gcloud property ${def.gcloudProperty}`}
  return {value: undefined, source: 'unset', origin: 'not set'}
}

const blankAsEmpty = (value: string): string => (value.trim() === '' ? '' : value)

/**
 * Every problem with the resolved settings, each naming where the value came from: a flag or XPK_* variable that is
 * set but empty, or a value (from any source) that breaks the setting's rule. Commands check all of them before
 * doing anything, so a bad saved value can never be silently ignored or sent.
 */
export function settingsProblems(settings: ResolvedSettings): UsageError[] {
  const problems: UsageError[] = []
  for (const def of SETTINGS as readonly (SettingDefinition & {key: SettingKey})[]) {
    const setting = settings[def.key]
    if (setting.value === undefined) continue
    const flag = `--${def.key}`
    if (setting.value === '') {
      problems.push(
        new UsageError(
          setting.source === 'env'
            ? `${def.env} is set but empty. Unset it (\`unset ${def.env}\`) or give it a value.`
            : `${flag} is empty. Give a value or leave the flag out.`,
          {flag},
        ),
      )
      continue
    }
    const problem = settingValueProblem(def.key, setting.value)
    if (problem) problems.push(invalidSetting(def.key, setting, problem))
  }
  return problems
}

/** Throws {@link settingsProblems} together, if there are any. */
export function checkSettings(settings: ResolvedSettings): void {
  const problems = settingsProblems(settings)
  if (problems.length === 1) throw problems[0]
  if (problems.length > 1) throw new UsageErrors(problems)
}

function invalidSetting(key: SettingKey, setting: ResolvedSetting, problem: string): UsageError {
  const from = setting.source === 'flag' ? '' : ` (from ${setting.origin})`
  const fix =
    setting.source === 'config'
      ? [`Fix it with \`xpk config set ${key} VALUE\` or remove it with \`xpk config unset ${key}\`.`]
      : setting.source === 'gcloud'
        ? [`Pass --${key} to override the gcloud property, or fix the property.`]
        : []
  // A password in an endpoint's URL is refused without being shown.
  const shown = redactCredentials(escapeInline(setting.value ?? ''))
  return new UsageError(`--${key} "${shown}"${from}: ${problem}.`, {
    flag: `--${key}`,
    hints: fix,
  })
}

/** Checks a value for a key, by the rule every value follows and then the setting's own; the problem or undefined. */
export function settingValueProblem(key: SettingKey, value: string): string | undefined {
  const shape = valueShapeProblem(value, 'word')
  if (shape) return `it ${shape}`
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
  if (setting.value === '') throw settingsProblems({...emptySettings(), [key]: setting})[0]
  const problem = settingValueProblem(key, setting.value)
  if (problem) throw invalidSetting(key, setting, problem)
  return setting.value
}

/** {@link requireSetting} for each of `keys` in turn: `requireSettings(settings, 'project', 'zone')`. */
export function requireSettings<K extends SettingKey>(settings: ResolvedSettings, ...keys: K[]): Record<K, string> {
  return Object.fromEntries(keys.map((key) => [key, requireSetting(settings, key)])) as Record<K, string>
}

/** Like {@link requireSetting}, for a setting a command can do without: undefined when unset, checked when set. */
export function optionalSetting(settings: ResolvedSettings, key: SettingKey): string | undefined {
  return settings[key].value === undefined ? undefined : requireSetting(settings, key)
}

function emptySettings(): Record<SettingKey, ResolvedSetting> {
  const unset: ResolvedSetting = {value: undefined, source: 'unset', origin: 'not set'}
  return Object.fromEntries(SETTING_KEYS.map((k) => [k, unset])) as Record<SettingKey, ResolvedSetting>
}

/**
 * GCP's project ID rule: 6-30 lowercase letters, digits and hyphens, starting with a letter and not ending with a
 * hyphen; legacy domain-scoped projects (`example.com:my-project`) keep their domain prefix.
 */
export function projectIdProblem(id: string): string | undefined {
  const match = /^(?:([a-z0-9][-a-z0-9.]*[a-z0-9]):)?(.*)$/.exec(id)
  const bare = match?.[2] ?? id
  if (/^[a-z][-a-z0-9]{4,28}[a-z0-9]$/.test(bare)) return undefined
  return 'a project ID is 6-30 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen'
}

/** Where built images go: a registry host with an optional path, no tag or digest (`us-docker.pkg.dev/P/REPO`). */
export function registryPrefixProblem(prefix: string): string | undefined {
  const trimmed = prefix.replace(/\/+$/, '')
  const host = trimmed.split('/')[0] ?? ''
  // Docker's rule: a first component is a registry host when it has a dot or a port, or is localhost.
  const hasHost = /[.:]/.test(host) || host === 'localhost'
  const parsed = tryParseImageReference(`${trimmed}/probe`)
  if (!hasHost || parsed === null || parsed.tag !== null || parsed.digest !== null) {
    return 'a registry is a host and an optional path in lowercase, e.g. us-docker.pkg.dev/PROJECT/REPO or 127.0.0.1:5001/xpk'
  }
  return undefined
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

/** The variable gcloud reads for a property (`core/project` -> `CLOUDSDK_CORE_PROJECT`). */
export function gcloudVariable(property: string): string {
  return `CLOUDSDK_${property.replace('/', '_').toUpperCase()}`
}

/** gcloud's own environment overrides (`CLOUDSDK_<SECTION>_<NAME>`) for the properties we read. */
export function gcloudEnvOverrides(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const def of SETTINGS as readonly SettingDefinition[]) {
    if (!def.gcloudProperty) continue
    const value = env[gcloudVariable(def.gcloudProperty)]
    if (value) out[def.gcloudProperty] = value
  }
  return out
}
