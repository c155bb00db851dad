/**
 * Renders rows as a borderless, kubectl-style table: upper-case headers, columns separated by three spaces.
 * Written here rather than with cli-table3, whose layout pass is quadratic: `xpk accelerator list` (1,700 rows)
 * took 1.3 s with it and takes milliseconds this way.
 */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly (string | number | null)[])[],
): string {
  const cells = [
    headers.map((h) => h.toUpperCase()),
    ...rows.map((row) => row.map((c) => (c === null ? '-' : String(c)))),
  ]
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)))
  return cells
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column])))
        .join('   ')
        .trimEnd(),
    )
    .join('\n')
}

/** Renders `key: value` lines with aligned values. */
export function renderKeyValues(entries: readonly (readonly [string, string | number | boolean | null])[]): string {
  const width = Math.max(...entries.map(([k]) => k.length))
  return entries.map(([k, v]) => `${`${k}:`.padEnd(width + 1)}  ${v === null ? '-' : String(v)}`).join('\n')
}
