import type {SettingKey} from '../core/settings.js'

/** The user's saved xpk defaults (`xpk config`). */
export interface SettingsStore {
  /** Where the settings live, for messages. */
  readonly location: string
  read(): Promise<Partial<Record<SettingKey, string>>>
  /** Replaces all saved settings; writes atomically so a crash never leaves a half-written file. */
  write(values: Partial<Record<SettingKey, string>>): Promise<void>
}

/** Properties of the active gcloud configuration, read from its files (gcloud itself is never run). */
export interface GcloudProperties {
  /** `section/name` -> value, with gcloud's CLOUDSDK_* environment overrides applied. */
  read(): Promise<Record<string, string>>
}
