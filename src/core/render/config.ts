import type {SettingReport} from '../settings.js'
import {renderTable} from './table.js'

/** The `xpk config list` table. */
export function renderConfigList(entries: readonly SettingReport[]): string {
  return renderTable(
    ['key', 'value', 'from', 'description'],
    entries.map((e) => [e.key, e.value ?? '', e.source === 'unset' ? '' : e.origin, e.description]),
  )
}
