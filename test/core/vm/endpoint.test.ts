import {describe, expect, it} from 'vitest'

import {UsageError} from '../../../src/core/errors.js'
import {parseTpuEndpoint} from '../../../src/core/vm/endpoint.js'

describe('parseTpuEndpoint: the rule of every endpoint override, naming --tpu-endpoint', () => {
  it.each([
    [
      'https://tpu.googleapis.com/',
      {host: 'tpu.googleapis.com', port: 443, insecure: false, origin: 'https://tpu.googleapis.com', path: '/'},
    ],
    [
      'https://tpu.example.com:8443/proxy/v2',
      {
        host: 'tpu.example.com',
        port: 8443,
        insecure: false,
        origin: 'https://tpu.example.com:8443',
        path: '/proxy/v2/',
      },
    ],
    [
      'http://127.0.0.1:9000',
      {host: '127.0.0.1', port: 9000, insecure: true, origin: 'http://127.0.0.1:9000', path: '/'},
    ],
  ])('%s is accepted', (text, parsed) => expect(parseTpuEndpoint(text)).toEqual(parsed))

  it.each([
    ['http://tpu.example.com', 'plain http is only allowed on loopback'],
    ['https://user:secret@tpu.example.com', 'contains credentials'],
    ['ftp://127.0.0.1', 'must use https://'],
    ['https://tpu.example.com/?key=1', 'query or fragment'],
    ['tpu example', 'white space'],
    ['', 'it is empty'],
    ['tpu.googleapis.com', 'it has no scheme'],
    ['localhost:8080', 'it has no scheme'],
    ['https://', 'it has no host'],
    ['https:///v1', 'it has no host'],
    ['http://:8080', 'not a URL'],
  ])('%s is refused: %s', (text, problem) => {
    const error = (() => {
      try {
        parseTpuEndpoint(text)
      } catch (e) {
        return e
      }
    })() as UsageError
    expect(error).toBeInstanceOf(UsageError)
    expect(error.flag).toBe('--tpu-endpoint')
    expect(error.message).toContain(problem)
  })
})
