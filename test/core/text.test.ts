import {describe, expect, it} from 'vitest'

import {escapeControl, hasControlCharacters} from '../../src/core/text.js'

describe('escapeControl', () => {
  it.each([
    ['plain text', 'plain text'],
    ['tab\tand\nnewline stay', 'tab\tand\nnewline stay'],
    ['\u001b[2J clear screen', '\\x1b[2J clear screen'],
    ['bell\u0007', 'bell\\x07'],
    ['carriage\rreturn', 'carriage\\rreturn'],
    ['nul\u0000', 'nul\\x00'],
    ['del\u007f', 'del\\x7f'],
    ['c1 csi\u009b', 'c1 csi\\x9b'],
    ['bidi \u202eevil\u2066', 'bidi \\u202eevil\\u2066'],
    ['unicode ok: naïve 日本 🚀', 'unicode ok: naïve 日本 🚀'],
  ])('%j -> %j', (input, output) => {
    expect(escapeControl(input)).toBe(output)
    expect(hasControlCharacters(input)).toBe(input !== 'plain text' && input !== 'unicode ok: naïve 日本 🚀')
  })
})
