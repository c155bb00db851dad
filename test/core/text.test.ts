import {describe, expect, it} from 'vitest'

import {escapeControl, escapeInline, hasControlCharacters, redactCredentials} from '../../src/core/text.js'

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

describe('escapeInline: a one-line value as a message quotes it', () => {
  it.each([
    ['demo', 'demo'],
    ['a\nb', 'a\\nb'],
    ['tab\there', 'tab\\there'],
    ['\u001b[2J', '\\x1b[2J'],
    ['cr\r\n', 'cr\\r\\n'],
  ])('%j -> %j', (input, output) => expect(escapeInline(input)).toBe(output))
})

describe('redactCredentials: a password in a URL is never printed', () => {
  it.each([
    ['https://admin:s3cret@10.0.0.1:6443', 'https://***@10.0.0.1:6443'],
    ['could not reach https://u:p@h/api (context c)', 'could not reach https://***@h/api (context c)'],
    ['https://token@host and http://a:b@[::1]:8080/', 'https://***@host and http://***@[::1]:8080/'],
    ['https://host/path@v1', 'https://host/path@v1'],
    ['mail me@example.com', 'mail me@example.com'],
    ['https://host:443/', 'https://host:443/'],
  ])('%j -> %j', (input, output) => expect(redactCredentials(input)).toBe(output))
})
