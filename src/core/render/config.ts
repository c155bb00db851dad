import type {SettingReport} from '../settings.js'
import {PLAIN_TABLE, renderColumns, type Column, type OutputView, type TableStyle} from './output.js'

/** The `xpk config list` columns; `-o wide` adds the environment variable of each setting. */
const SETTING_COLUMNS: readonly Column<SettingReport>[] = [
  {header: 'key', cell: (e) => e.key},
  {header: 'value', cell: (e) => e.value ?? ''},
  {header: 'from', cell: (e) => (e.source === 'unset' ? '' : e.origin)},
  {header: 'env', cell: (e) => e.env, wide: true},
  {header: 'description', cell: (e) => e.description},
]

/** The `xpk config list` table. */
export function renderConfigList(entries: readonly SettingReport[], style: TableStyle = PLAIN_TABLE): string {
  return renderColumns(SETTING_COLUMNS, entries, style)
}

/**
 * `xpk config list`: every setting, set or not, so the list is never empty; `-o name` prints the keys `xpk config
 * get`, `set` and `unset` take.
 */
export const configListView: OutputView<readonly SettingReport[]> = {
  text: renderConfigList,
  names: (entries) => entries.map((e) => e.key),
}
