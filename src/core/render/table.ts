import Table from 'cli-table3'

/**
 * Renders rows as a borderless, kubectl-style table: upper-case headers, columns separated by three spaces, no
 * colour codes (cli-table3 adds them by default even when stdout is not a terminal).
 */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly (string | number | null)[])[],
): string {
  const table = new Table({
    head: headers.map((h) => h.toUpperCase()),
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '   ',
    },
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0},
  })
  for (const row of rows) table.push(row.map((cell) => (cell === null ? '-' : String(cell))))
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
}

/** Renders `key: value` lines with aligned values. */
export function renderKeyValues(entries: readonly (readonly [string, string | number | boolean | null])[]): string {
  const width = Math.max(...entries.map(([k]) => k.length))
  return entries.map(([k, v]) => `${`${k}:`.padEnd(width + 1)}  ${v === null ? '-' : String(v)}`).join('\n')
}
