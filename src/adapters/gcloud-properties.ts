import {readFile} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join} from 'node:path'

import {gcloudEnvOverrides, parseIniProperties} from '../core/settings.js'
import type {GcloudProperties} from '../ports/settings-store.js'

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8')
  } catch {
    return undefined
  }
}

/**
 * Reads the active gcloud configuration the way gcloud does, without running gcloud: `$CLOUDSDK_CONFIG` (default
 * `~/.config/gcloud`), the configuration named by `$CLOUDSDK_ACTIVE_CONFIG_NAME` or the `active_config` file, then
 * `CLOUDSDK_<SECTION>_<NAME>` environment overrides.
 */
export class GcloudConfigFiles implements GcloudProperties {
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async read(): Promise<Record<string, string>> {
    const dir = this.env.CLOUDSDK_CONFIG || join(homedir(), '.config', 'gcloud')
    const active =
      this.env.CLOUDSDK_ACTIVE_CONFIG_NAME || (await readIfPresent(join(dir, 'active_config')))?.trim() || 'default'
    const text = await readIfPresent(join(dir, 'configurations', `config_${active}`))
    return {...(text ? parseIniProperties(text) : {}), ...gcloudEnvOverrides(this.env)}
  }
}
