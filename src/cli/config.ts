/**
 * The `config` topic (saved defaults): the flags and the wiring of its commands, which take arguments (`config list`
 * the output flags, `set` and `unset` --dry-run). The settings file and gcloud's configuration are read when a
 * command runs, never for `--help`.
 */
import type {SettingReport} from '../core/settings.js'
import type {ConfigValue} from '../services/config.js'
import type {Invocation} from './base-command.js'
import type {FlagOptions} from './flag-kinds.js'
import {changeFlags, outputFlags} from './flags.js'

/** The flags of `xpk config list`. */
export const configListFlags = {...outputFlags}

/** The flags of `xpk config set` and `xpk config unset`: they change the config file, so --dry-run. */
export const configChangeFlags = {'dry-run': changeFlags['dry-run']}

/** `xpk config get KEY`: prints the value, if set. */
export async function getConfig(options: {readonly key: string}, run: Invocation): Promise<ConfigValue> {
  const [wiring, {getConfig}] = await Promise.all([import('./wiring.js'), import('../services/config.js')])
  const result = await getConfig(options.key, wiring.configDeps(run.console))
  if (result.value !== null) run.console.result(result.value)
  return result
}

/** `xpk config list`: every setting with its effective value and its source, as a table. */
export async function listConfig(_options: object, run: Invocation): Promise<SettingReport[]> {
  const [wiring, {listConfig}, {configListView}, {showOutput}] = await Promise.all([
    import('./wiring.js'),
    import('../services/config.js'),
    import('../core/render/config.js'),
    import('../services/show-output.js'),
  ])
  const entries = await listConfig(wiring.configDeps(run.console))
  showOutput(run.console, run.output, configListView, entries)
  return entries
}

/** `xpk config set KEY VALUE`. */
export async function setConfig(
  options: FlagOptions<typeof configChangeFlags> & {readonly key: string; readonly value: string},
  run: Invocation,
): Promise<ConfigValue> {
  const [wiring, {setConfig}] = await Promise.all([import('./wiring.js'), import('../services/config.js')])
  return setConfig(options, wiring.configDeps(run.console))
}

/** `xpk config unset KEY`. */
export async function unsetConfig(
  options: FlagOptions<typeof configChangeFlags> & {readonly key: string},
  run: Invocation,
): Promise<ConfigValue> {
  const [wiring, {unsetConfig}] = await Promise.all([import('./wiring.js'), import('../services/config.js')])
  return unsetConfig(options, wiring.configDeps(run.console))
}
