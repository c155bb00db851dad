import {UsageError} from '../core/errors.js'
import {
  resolveSettings,
  settingDefinition,
  settingValueProblem,
  SETTINGS,
  type SettingReport,
  type SettingKey,
} from '../core/settings.js'
import {escapeInline, redactCredentials} from '../core/text.js'
import type {Console} from '../ports/console.js'
import type {GcloudProperties, SettingsStore} from '../ports/settings-store.js'
import {configDryRun, configFile, configNotSet, configSet, configUnset} from '../core/messages/config.js'

export interface ConfigDeps {
  readonly store: SettingsStore
  readonly gcloud: GcloudProperties
  readonly env: Readonly<Record<string, string | undefined>>
  readonly console: Console
}

export interface ConfigValue {
  readonly key: SettingKey
  readonly value: string | null
}

/** What `config set` and `config unset` are asked to do. */
export interface ConfigChangeOptions {
  readonly key: string
  /** `--dry-run`: check and say what would change; write nothing. */
  readonly dryRun?: boolean
}

/** Saves a default after validating the key and the value; a dry run validates and writes nothing. */
export async function setConfig(
  options: ConfigChangeOptions & {readonly value: string},
  deps: ConfigDeps,
): Promise<ConfigValue> {
  const {key, value} = options
  const def = settingDefinition(key)
  if (value.trim() === '') {
    throw new UsageError(`The value for ${def.key} is empty.`, {
      hints: [`To remove the saved value, run \`xpk config unset ${def.key}\`.`],
    })
  }
  const problem = settingValueProblem(def.key, value)
  if (problem) {
    throw new UsageError(`Invalid value "${redactCredentials(escapeInline(value))}" for ${def.key}: ${problem}.`)
  }
  const values = await deps.store.read()
  if (options.dryRun) {
    deps.console.info(
      configDryRun({key: def.key, now: values[def.key] ?? null, then: value, file: deps.store.location}),
    )
    return {key: def.key, value}
  }
  await deps.store.write({...values, [def.key]: value})
  deps.console.info(configSet({key: def.key, value, file: deps.store.location}))
  return {key: def.key, value}
}

/** Reads one saved default (not the effective value: see `config list`). */
export async function getConfig(key: string, deps: ConfigDeps): Promise<ConfigValue> {
  const def = settingDefinition(key)
  const value = (await deps.store.read())[def.key] ?? null
  if (value === null) deps.console.info(configNotSet({key: def.key, file: deps.store.location}))
  return {key: def.key, value}
}

/** Removes one saved default. Removing an unset key is fine; a dry run writes nothing. */
export async function unsetConfig(options: ConfigChangeOptions, deps: ConfigDeps): Promise<ConfigValue> {
  const def = settingDefinition(options.key)
  const values = await deps.store.read()
  const {[def.key]: _removed, ...rest} = values
  if (options.dryRun) {
    deps.console.info(configDryRun({key: def.key, now: values[def.key] ?? null, then: null, file: deps.store.location}))
    return {key: def.key, value: null}
  }
  await deps.store.write(rest)
  deps.console.info(configUnset({key: def.key, file: deps.store.location}))
  return {key: def.key, value: null}
}

/** Every setting with its effective value (as a command without flags would see it) and where it comes from. */
export async function listConfig(deps: ConfigDeps): Promise<SettingReport[]> {
  const [config, gcloud] = await Promise.all([deps.store.read(), deps.gcloud.read()])
  const resolved = resolveSettings({flags: {}, env: deps.env, config, gcloud})
  deps.console.info(configFile({file: deps.store.location}))
  return SETTINGS.map((def) => ({key: def.key, env: def.env, description: def.description, ...resolved[def.key]}))
}
