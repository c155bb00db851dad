// What each `-o` prints, from a command's view (src/core/render/output.ts), and -o yaml as the same value --json
// prints (src/core/render/yaml-output.ts). The exact text of each table in each form is in tables-golden.test.ts;
// the flags' parsing in test/cli/output-flags.test.ts.
import {load} from 'js-yaml'
import {describe, expect, it} from 'vitest'

import {acceleratorListView} from '../../../src/core/render/accelerators.js'
import {clusterDescribeView, clusterListView} from '../../../src/core/render/clusters.js'
import {configListView} from '../../../src/core/render/config.js'
import {renderOutput, type OutputView} from '../../../src/core/render/output.js'
import {oneLine} from '../../../src/core/text.js'
import {outputChoice, TABLE_OUTPUT, type OutputChoice} from '../../../src/core/render/output-format.js'
import {vmListView} from '../../../src/core/render/vms.js'
import {workloadListView} from '../../../src/core/render/workloads.js'
import {renderYamlOutput} from '../../../src/core/render/yaml-output.js'
import {renderTable} from '../../../src/core/render/table.js'
import {errorToJson, UsageError} from '../../../src/core/errors.js'
import {listAccelerators} from '../../../src/services/accelerators.js'
import {anObservedCluster, anObservedPool} from '../../builders/observed.js'

const CHOICES: Record<string, OutputChoice> = {
  table: TABLE_OUTPUT,
  'no-headers': {format: 'table', headers: false},
  wide: {format: 'wide', headers: true},
  name: {format: 'name', headers: true},
  json: {format: 'json', headers: true},
  yaml: {format: 'yaml', headers: false},
}

describe('renderOutput', () => {
  const listView: OutputView<string[]> = {
    text: (items, style) => `${style.wide ? 'wide' : 'table'} ${style.headers ? 'with' : 'without'} headers: ${items}`,
    names: (items) => items.map((i) => `thing/${i}`),
    isEmpty: (items) => items.length === 0,
  }

  it.each([
    ['table', {kind: 'text', text: 'table with headers: a,b'}],
    ['no-headers', {kind: 'text', text: 'table without headers: a,b'}],
    ['wide', {kind: 'text', text: 'wide with headers: a,b'}],
    ['name', {kind: 'text', text: 'thing/a\nthing/b'}],
    ['json', {kind: 'data'}],
    ['yaml', {kind: 'data'}],
  ])('-o %s', (choice, shown) => {
    expect(renderOutput(listView, ['a', 'b'], CHOICES[choice]!)).toEqual(shown)
  })

  it.each(['table', 'no-headers', 'wide', 'name'])('-o %s of an empty list: the note, not a table', (choice) => {
    expect(renderOutput(listView, [], CHOICES[choice]!)).toEqual({kind: 'none-found'})
  })

  it.each(['json', 'yaml'])('-o %s of an empty list: the data (an empty list), no note', (choice) => {
    expect(renderOutput(listView, [], CHOICES[choice]!)).toEqual({kind: 'data'})
  })

  it('a view without isEmpty (a describe) always prints', () => {
    const describeView: OutputView<string[]> = {text: (items) => `${items.length}`, names: () => []}
    expect(renderOutput(describeView, [], TABLE_OUTPUT)).toEqual({kind: 'text', text: '0'})
    expect(renderOutput(describeView, [], CHOICES.name!)).toEqual({kind: 'text', text: ''})
  })

  it("each list's view finds its empty result empty, and a describe's never", () => {
    expect(workloadListView.isEmpty!([])).toBe(true)
    expect(clusterListView.isEmpty!([])).toBe(true)
    expect(acceleratorListView.isEmpty!([])).toBe(true)
    expect(vmListView.isEmpty!({queuedResources: [], nodes: []})).toBe(true)
    expect(clusterDescribeView.isEmpty).toBeUndefined()
    // config list lists every setting, set or not.
    expect(configListView.isEmpty).toBeUndefined()
  })

  it('cluster describe through a kubeconfig has no GKE name for -o name', () => {
    const inside = {
      reached: true,
      via: 'kubeconfig',
      target: 'https://127.0.0.1:6443',
      jobset: {installed: false, version: null, image: null, available: null},
      kueue: {installed: false, version: null, image: null, available: null},
      clusterQueues: [],
      nodes: {ready: 0, total: 0},
      nodePools: [],
      rayClusters: [],
    } as const
    expect(clusterDescribeView.names({inCluster: inside})).toEqual([])
    expect(clusterDescribeView.names({...anObservedCluster(), inCluster: inside})).toEqual(['demo'])
  })
})

describe('outputChoice', () => {
  it('--json alone is -o json; --no-headers is kept for every form', () => {
    expect(outputChoice({json: true})).toEqual({format: 'json', headers: true})
    expect(outputChoice({json: false, noHeaders: true})).toEqual({format: 'table', headers: false})
    expect(outputChoice({json: false, output: 'NAME', noHeaders: true})).toEqual({format: 'name', headers: false})
  })

  it('refuses an unknown form with the forms, and a second output flag', () => {
    expect(() => outputChoice({json: false, output: 'table'})).toThrow(UsageError)
    expect(() => outputChoice({json: false, output: 'a\nb'})).toThrow('--output "a\\nb" is not an output format')
    expect(() => outputChoice({json: true, output: 'wide'})).toThrow('--json and -o wide cannot be used together')
    expect(outputChoice({json: true, output: 'json'})).toEqual({format: 'json', headers: true})
  })
})

describe('-o yaml', () => {
  /** What --json prints, read back. */
  const asJson = (value: unknown) => JSON.parse(JSON.stringify(value, null, 2)) as unknown

  it(`is the same value as --json for the whole catalog (${listAccelerators({aliases: true}).length} types)`, () => {
    const catalog = listAccelerators({aliases: true})
    expect(load(renderYamlOutput(catalog))).toEqual(asJson(catalog))
  })

  it('is the same value for nulls, empty lists and maps, numbers, and text a YAML reader could take for more', () => {
    const cluster = anObservedCluster({
      statusMessage: 'line one\nline two\n',
      labels: {'x-k8s.io/on': 'yes', empty: '', '0755': 'null', 'a: b': '# not a comment'},
      nodePools: [anObservedPool({reservation: null, autoscaling: {enabled: true, minNodes: 0, maxNodes: 3}})],
      releaseChannel: null,
    })
    const value = {clusters: [cluster], none: [], nothing: {}, at: new Date(0), gone: undefined, list: [1, null, 'x']}
    const yaml = renderYamlOutput(value)
    expect(load(yaml)).toEqual(asJson(value))
    expect(yaml).toContain('at: "1970-01-01T00:00:00.000Z"\n')
    expect(yaml).not.toContain('gone')
  })

  it('is the error object as --json prints it', () => {
    const error = errorToJson(new UsageError('bad "value"\n\tthere', {hints: ['a hint: see']}))
    expect(load(renderYamlOutput(error))).toEqual(asJson(error))
  })

  it('of an empty list is []', () => {
    expect(renderYamlOutput([])).toBe('[]\n')
  })
})

describe('renderTable --no-headers', () => {
  it('drops the header line, and columns are as wide as their cells', () => {
    const rows = [
      ['v5p-8', 'TPU'],
      ['h100-80gb-8', 'GPU'],
    ]
    expect(renderTable(['name', 'kind'], rows, {headers: false})).toBe('v5p-8         TPU\nh100-80gb-8   GPU')
    expect(renderTable(['a-long-header', 'kind'], [['x', 'y']], {headers: false})).toBe('x   y')
    expect(renderTable(['a'], [], {headers: false})).toBe('')
  })
})

describe('oneLine', () => {
  it('keeps plain text, and puts text with line breaks and control characters on one escaped line', () => {
    expect(oneLine('plain text: 1, 2')).toBe('plain text: 1, 2')
    expect(oneLine('one\r\n  two\tthree \u001b[2J')).toBe('one two three \\x1b[2J')
  })
})
