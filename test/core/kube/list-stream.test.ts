// The streaming list parser: whatever the pieces the body arrives in, it reads what JSON.parse of the whole body
// reads, with the list's keys in any order; it refuses what is not one JSON object.
import {describe, expect, it} from 'vitest'

import {ListStream, ListSyntaxError} from '../../../src/core/kube/list-stream.js'

function parseInPieces(text: string, size: number, fields?: ConstructorParameters<typeof ListStream>[0]) {
  const stream = new ListStream(fields)
  for (let i = 0; i < text.length; i += size) stream.push(text.slice(i, i + size))
  return stream.end()
}

const tricky = [
  {metadata: {name: 'quotes', annotations: {a: 'say "hi" \\ and \\"', b: '}]{[,:'}}},
  {metadata: {name: 'unicode é 😀 \u2028'}, spec: {list: [1, -2.5e3, true, false, null, [], {}]}},
  {metadata: {name: 'ends in backslash \\'}},
  null,
  'a string item',
  42,
]

describe('ListStream', () => {
  it('reads every item and the continue token, however the body is split', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'ThingList',
      metadata: {continue: 'next', remainingItemCount: 3},
      items: tricky,
    }
    for (const text of [JSON.stringify(list), JSON.stringify(list, null, 2)]) {
      for (let size = 1; size <= text.length; size += size < 40 ? 1 : 37) {
        expect(parseInPieces(text, size)).toEqual({items: tricky, continue: 'next'})
      }
    }
  })

  it("takes the list's metadata after its items, as the API server sorts custom resource lists' keys", () => {
    const text = JSON.stringify({apiVersion: 'x/v1', items: tricky, kind: 'L', metadata: {continue: 'later'}})
    expect(parseInPieces(text, 7)).toEqual({items: tricky, continue: 'later'})
  })

  it('has no continue token on the last page, and no items in an empty list', () => {
    expect(parseInPieces(JSON.stringify({metadata: {resourceVersion: '5'}, items: []}), 3)).toEqual({items: []})
    expect(parseInPieces(JSON.stringify({metadata: {continue: ''}, items: null}), 3)).toEqual({items: []})
  })

  it('cuts each item down to the fields asked for', () => {
    const text = JSON.stringify({items: [{metadata: {name: 'a', uid: 'u'}, spec: {big: 'x'}}]})
    expect(parseInPieces(text, 5, {metadata: {name: true}})).toEqual({items: [{metadata: {name: 'a'}}]})
  })

  it('refuses what is not one whole JSON object', () => {
    for (const bad of [
      '',
      '<html>',
      '[1]',
      '{',
      '{"items":[1,]}',
      '{"items":[{"a":1}}',
      '{"items":[1]} x',
      '{"a":1,}',
      '{"a" 1}',
      '{"items":[{"a":"unterminated}]}',
    ]) {
      expect(() => parseInPieces(bad, 2), bad).toThrow(ListSyntaxError)
    }
  })
})
