import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'

import {XpkError} from '../core/errors.js'
import {LEGACY_CONFIG_KEYS, SETTING_KEYS, type SettingKey} from '../core/settings.js'
import type {SettingsStore} from '../ports/settings-store.js'

/** `$XDG_CONFIG_HOME/xpk/config.yaml` (default `~/.config/xpk/config.yaml`), the file Python xpk uses too. */
export function defaultSettingsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config')
  return join(base, 'xpk', 'config.yaml')
}

interface ConfigDocument {
  version?: string
  configs?: Record<string, unknown>
  [other: string]: unknown
}

/**
 * Settings kept in Python xpk's config file format (`version: v1`, `configs: {key: value}`). Keys this CLI does
 * not know are preserved on write, so sharing the file with Python xpk loses nothing.
 */
export class SettingsFile implements SettingsStore {
  constructor(readonly location: string = defaultSettingsPath()) {}

  async read(): Promise<Partial<Record<SettingKey, string>>> {
    const configs = (await this.readDocument()).configs ?? {}
    const values: Partial<Record<SettingKey, string>> = {}
    for (const [legacy, key] of Object.entries(LEGACY_CONFIG_KEYS)) {
      if (typeof configs[legacy] === 'string' && configs[legacy] !== '') values[key] = configs[legacy] as string
    }
    for (const key of SETTING_KEYS) {
      const value = configs[key]
      if (value !== undefined && value !== null && value !== '') values[key] = String(value)
    }
    return values
  }

  async write(values: Partial<Record<SettingKey, string>>): Promise<void> {
    const document = await this.readDocument()
    const configs: Record<string, unknown> = {...document.configs}
    for (const key of SETTING_KEYS) {
      if (values[key] === undefined) delete configs[key]
      else configs[key] = values[key]
    }
    for (const [legacy, key] of Object.entries(LEGACY_CONFIG_KEYS)) {
      // A legacy key left behind would resurrect an unset value on the next read.
      if (values[key] === undefined) delete configs[legacy]
    }
    const {dump} = await import('js-yaml')
    const text = dump({...document, version: document.version ?? 'v1', configs}, {lineWidth: -1})
    await mkdir(dirname(this.location), {recursive: true})
    const temporary = `${this.location}.${process.pid}.tmp`
    await writeFile(temporary, text, {mode: 0o600})
    await rename(temporary, this.location)
  }

  private async readDocument(): Promise<ConfigDocument> {
    let text: string
    try {
      text = await readFile(this.location, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw new XpkError('failed', `Cannot read ${this.location}: ${(error as Error).message}`, {cause: error})
    }
    // Loaded only when there is a file to parse: most runs have none, and the YAML library costs start-up time.
    const {load} = await import('js-yaml')
    let parsed: unknown
    try {
      parsed = load(text)
    } catch (error) {
      throw new XpkError('usage', `${this.location} is not valid YAML: ${(error as Error).message.split('\n')[0]}`, {
        hints: ['Fix the file, or delete it and set your defaults again with `xpk config set`.'],
        cause: error,
      })
    }
    if (parsed === undefined || parsed === null) return {}
    if (typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new XpkError('usage', `${this.location} should hold a mapping with a "configs" key.`, {
        hints: ['Fix the file, or delete it and set your defaults again with `xpk config set`.'],
      })
    }
    const document = parsed as ConfigDocument
    if (document.configs !== undefined && (typeof document.configs !== 'object' || document.configs === null)) {
      throw new XpkError('usage', `${this.location}: "configs" should be a mapping of key: value.`)
    }
    return document
  }
}
