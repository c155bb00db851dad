// The README says the table renderer is tested against cli-table3, the library it replaces for speed (cli-table3's
// layout is quadratic: 1,700 rows took 1.3 s). Configured borderless with three spaces between columns,
// cli-table3 must produce the same text, line for line, apart from the trailing spaces it pads with.
import Table from 'cli-table3'
import {describe, expect, it} from 'vitest'

import {renderTable} from '../../../src/core/render/table.js'

function referenceTable(headers: readonly string[], rows: readonly (readonly (string | number | null)[])[]): string {
  const none = {
    top: '',
    'top-mid': '',
    'top-left': '',
    'top-right': '',
    bottom: '',
    'bottom-mid': '',
    'bottom-left': '',
  }
  const table = new Table({
    head: headers.map((h) => h.toUpperCase()),
    chars: {
      ...none,
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 3, compact: true},
  })
  for (const row of rows) table.push(row.map((cell) => (cell === null ? '-' : String(cell))))
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
}

describe('renderTable against cli-table3', () => {
  it.each<[string, string[], (string | number | null)[][]]>([
    ['one column', ['name'], [['a'], ['bbb']]],
    [
      'clusters',
      ['name', 'location', 'status', 'pools'],
      [
        ['demo', 'us-central2', 'RUNNING', 3],
        ['a-much-longer-cluster-name', 'europe-west4', 'PROVISIONING', 0],
      ],
    ],
    [
      'empty cells as dashes',
      ['key', 'value', 'source'],
      [
        ['zone', null, 'not set'],
        ['project', 'p', 'xpk config'],
      ],
    ],
    ['headers wider than cells', ['a long header', 'x'], [['1', '2']]],
    ['no rows', ['name', 'status'], []],
    [
      'unicode',
      ['name', 'note'],
      [
        ['naïve', 'ok'],
        ['x', 'plain'],
      ],
    ],
  ])('%s', (_, headers, rows) => {
    expect(renderTable(headers, rows)).toBe(referenceTable(headers, rows))
  })
})
