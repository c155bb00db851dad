// The endpoint overrides of the Filestore and Cloud Storage APIs: the flag when given, else the XPK_* variable, else
// the API's default, each checked by the one rule of endpoints before any request (a bad one names where it came
// from, exit 2).
import {describe, expect, it} from 'vitest'

import {UsageError} from '../../../src/core/errors.js'
import {resolveTpuEndpoint} from '../../../src/core/vm/endpoint.js'
import {resolveFilestoreEndpoint, resolveStorageEndpoint} from '../../../src/core/storage/endpoints.js'
import {thrown} from '../../helpers/thrown.js'

const overrides = [
  ['--filestore-endpoint', 'XPK_FILESTORE_ENDPOINT', resolveFilestoreEndpoint],
  ['--storage-endpoint', 'XPK_STORAGE_ENDPOINT', resolveStorageEndpoint],
  ['--tpu-endpoint', 'XPK_TPU_ENDPOINT', resolveTpuEndpoint],
] as const

const refusal = (resolve: () => unknown) => thrown(resolve, UsageError)

describe.each(overrides)('%s / %s', (flag, variable, resolve) => {
  it('is the API default (undefined) when neither is given', () => {
    expect(resolve(undefined, {})).toBeUndefined()
  })

  it('takes the variable as written when the flag is not given, and the flag over it', () => {
    expect(resolve(undefined, {[variable]: 'http://127.0.0.1:8080'})).toBe('http://127.0.0.1:8080')
    expect(resolve('https://proxy.example.test/x/', {[variable]: 'http://127.0.0.1:8080'})).toBe(
      'https://proxy.example.test/x/',
    )
  })

  it('refuses a bad flag naming the flag, with an example and the variable', () => {
    const error = refusal(() => resolve('http://example.com', {}))
    expect([error.flag, error.message]).toEqual([
      flag,
      `${flag} "http://example.com": plain http is only allowed on loopback; use https://.`,
    ])
    expect(error.hints).toEqual([
      expect.stringMatching(new RegExp(`^For example ${flag} https://.* \\(or set ${variable}\\)\\.$`)),
    ])
  })

  it.each(['', '   ', 'file.googleapis.com', 'https://u:p@host/'])(
    'refuses the variable set to %j, naming it',
    (value) => {
      expect(refusal(() => resolve(undefined, {[variable]: value})).message).toMatch(new RegExp(`^${variable}\\b`))
    },
  )
})
