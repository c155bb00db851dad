import {describe, expect, it} from 'vitest'

import {renderKeyValues, renderTable} from '../../../src/core/render/table.js'

describe('renderTable', () => {
  it('upper-cases headers, pads columns to the widest cell with three spaces, and trims line ends', () => {
    expect(
      renderTable(
        ['name', 'kind', 'vms'],
        [
          ['v5p-8', 'TPU', 1],
          ['h100-80gb-8', 'GPU', null],
        ],
      ),
    ).toBe(['NAME          KIND   VMS', 'v5p-8         TPU    1', 'h100-80gb-8   GPU    -'].join('\n'))
  })

  it('does not pad the last column, so short last cells leave no trailing spaces', () => {
    const out = renderTable(
      ['a', 'description'],
      [
        ['x', 'long text here'],
        ['y', ''],
      ],
    )
    expect(out.split('\n')).toEqual(['A   DESCRIPTION', 'x   long text here', 'y'])
  })

  it('prints only the header for no rows', () => {
    expect(renderTable(['a', 'b'], [])).toBe('A   B')
  })
})

describe('renderKeyValues', () => {
  it('aligns values after the longest key and shows null as a dash', () => {
    expect(
      renderKeyValues([
        ['Name', 'v5p-8'],
        ['VMs per slice', 1],
        ['Topology', null],
      ]),
    ).toBe(['Name:           v5p-8', 'VMs per slice:  1', 'Topology:       -'].join('\n'))
  })
})
