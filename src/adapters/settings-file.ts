import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'

import {xdgDirectory} from '../core/environment.js'
import {XpkError} from '../core/errors.js'
import {SETTING_KEYS, type SettingKey} from '../core/settings.js'
import type {SettingsStore} from '../ports/settings-store.js'

/** `$XDG_CONFIG_HOME/xpk/config.yaml` (default `~/.config/xpk/config.yaml`), the file Python xpk uses too. */
export function defaultSettingsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = xdgDirectory(env, 'XDG_CONFIG_HOME', homedir())
  return join(base, 'xpk', 'config.yaml')
}

/**
 * Settings kept in Python xpk's config file format (`version: v1`, `configs: {key: value}`). Writing changes only
 * the lines of the settings that change (src/core/config-yaml.ts): comments, order and the keys this CLI does not
 * know stay, so sharing the file with Python xpk loses nothing.
 */
export class SettingsFile implements SettingsStore {
  constructor(readonly location: string = defaultSettingsPath()) {}

  async read(): Promise<Partial<Record<SettingKey, string>>> {
    const text = await this.readText()
    if (text === undefined) return {}
    // Loaded only when there is a file to parse: most runs have none, and the YAML library costs start-up time.
    const {readConfigValues} = await import('../core/config-yaml.js')
    return readConfigValues(text, this.location)
  }

  async write(values: Partial<Record<SettingKey, string>>): Promise<void> {
    const text = (await this.readText()) ?? ''
    const {editConfigs, readConfigValues} = await import('../core/config-yaml.js')
    const current = readConfigValues(text, this.location)
    const changes: Partial<Record<SettingKey, string>> = {}
    for (const key of SETTING_KEYS) if (values[key] !== current[key]) changes[key] = values[key]
    const edited = editConfigs(text, this.location, changes)
    if (edited === text) return
    await mkdir(dirname(this.location), {recursive: true})
    const temporary = `${this.location}.${process.pid}.tmp`
    await writeFile(temporary, edited, {mode: 0o600})
    await rename(temporary, this.location)
  }

  private async readText(): Promise<string | undefined> {
    try {
      return await readFile(this.location, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw new XpkError('failed', `Cannot read ${this.location}: ${(error as Error).message}`, {cause: error})
    }
  }
}
