import {oneLine} from '../text.js'

/**
 * Renders rows as a borderless, kubectl-style table: upper-case headers, columns separated by three spaces.
 * Written here rather than with cli-table3, whose layout pass is quadratic in the rows: `xpk accelerator list` (1,700
 * rows) took over a second with it (README, Speed, has the measurement). Without the header line (`--no-headers`),
 * the columns are as wide as their widest cell, as kubectl's are.
 */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly (string | number | null)[])[],
  options: {readonly headers?: boolean; readonly verbatimHeaders?: boolean} = {},
): string {
  const withHeaders = options.headers ?? true
  // Headers named by API objects (xpk info's flavor:resource columns) keep their case, on one line as every cell.
  const shownHeaders = options.verbatimHeaders ? headers.map(oneLine) : headers.map((h) => h.toUpperCase())
  // Written for cold code (start-up runs it in the interpreter): one conversion per cell, one pass per line.
  const columns = headers.length
  const widths = shownHeaders.map((h) => (withHeaders ? h.length : 0))
  const cells: string[][] = []
  for (const row of rows) {
    const texts: string[] = []
    for (let c = 0; c < columns; c++) {
      const value = row[c]
      // Every cell on one line, whatever an API put in it: a table row is one line of text.
      const cell =
        value === null || value === undefined ? '-' : typeof value === 'string' ? oneLine(value) : String(value)
      if (cell.length > widths[c]) widths[c] = cell.length
      texts.push(cell)
    }
    cells.push(texts)
  }
  const spaces = ' '.repeat(Math.max(...widths) + 3)
  const render = (texts: readonly string[]): string => {
    let line = ''
    for (let c = 0; c < columns - 1; c++) line += texts[c] + spaces.slice(0, widths[c] + 3 - texts[c].length)
    return (line + texts[columns - 1]).trimEnd()
  }
  let out = withHeaders ? render(shownHeaders) : undefined
  for (const texts of cells) out = out === undefined ? render(texts) : `${out}\n${render(texts)}`
  return out ?? ''
}

/** Renders `key: value` lines with aligned values, each value on its line (as a table cell). */
export function renderKeyValues(entries: readonly (readonly [string, string | number | boolean | null])[]): string {
  const width = Math.max(...entries.map(([k]) => k.length))
  return entries.map(([k, v]) => `${`${k}:`.padEnd(width + 1)}  ${v === null ? '-' : oneLine(String(v))}`).join('\n')
}
