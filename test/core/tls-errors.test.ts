// Which failed connections are certificate problems (exit 3, not retried) and which are the server being
// unavailable (retried): by the error code Node gives, never by the words of the message.
import {describe, expect, it} from 'vitest'

import {kubeNetworkError} from '../../src/core/kube/kube-errors.js'
import {CERTIFICATE_ERROR_CODES, certificateFailure, connectionErrorCode} from '../../src/core/tls-errors.js'

const failed = (code: string | undefined, message: string) => Object.assign(new Error(message), code ? {code} : {})
/** How fetch (undici) reports the same failures: a TypeError whose cause is the socket's error. */
const viaFetch = (cause: Error) => new TypeError('fetch failed', {cause})

/** A handshake that completed with a certificate that failed verification, as Node reports each. */
const CERTIFICATE_FAILURES: ReadonlyArray<readonly [string, string]> = [
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'],
  [
    'ERR_TLS_CERT_ALTNAME_INVALID',
    "Hostname/IP does not match certificate's altnames: IP: 10.0.0.1 is not in the cert's list: 127.0.0.1",
  ],
  ['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'],
  ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'],
  ['CERT_HAS_EXPIRED', 'certificate has expired'],
  ['CERT_NOT_YET_VALID', 'certificate is not yet valid'],
  ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'unable to get local issuer certificate'],
  ['CERT_SIGNATURE_FAILURE', 'certificate signature failure'],
  ['HOSTNAME_MISMATCH', 'Hostname mismatch'],
]

/** Everything else a connection dies of before an answer: the server is unavailable, for now. */
const NOT_CERTIFICATE: ReadonlyArray<readonly [string | undefined, string]> = [
  ['ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'],
  ['ECONNRESET', 'socket hang up'],
  ['ECONNRESET', 'read ECONNRESET'],
  ['EPIPE', 'write EPIPE'],
  ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:443'],
  ['ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:443'],
  ['UND_ERR_SOCKET', 'other side closed'],
  ['ERR_SSL_WRONG_VERSION_NUMBER', 'SSL routines::wrong version number'],
  [undefined, 'TLS certificate self-signed SSL CERT_ words in a message without a code'],
]

describe('certificateFailure', () => {
  it.each(CERTIFICATE_FAILURES)('%s is a certificate problem, on the error or as its cause', (code, message) => {
    expect(CERTIFICATE_ERROR_CODES.has(code)).toBe(true)
    expect(certificateFailure(failed(code, message))).toBe(code)
    expect(certificateFailure(viaFetch(failed(code, message)))).toBe(code)
  })

  it.each(NOT_CERTIFICATE)('%s (%s) is not', (code, message) => {
    expect(certificateFailure(failed(code, message))).toBeUndefined()
    expect(certificateFailure(viaFetch(failed(code, message)))).toBeUndefined()
    expect(connectionErrorCode(viaFetch(failed(code, message)))).toBe(code)
  })
})

describe('kubeNetworkError, by code', () => {
  it.each(CERTIFICATE_FAILURES)('%s: exit 3, not retried, naming the code', (code, message) => {
    const error = kubeNetworkError(failed(code, message), 'https://10.0.0.1', 'Listing Pod')
    expect([error.kind, error.exitCode, error.status, error.retryable]).toEqual(['auth', 3, 'UNAUTHENTICATED', false])
    expect(error.message).toContain(`failed verification (${code}`)
  })

  it.each(NOT_CERTIFICATE)('%s (%s): unavailable, retried', (code, message) => {
    const error = kubeNetworkError(failed(code, message), 'https://10.0.0.1', 'Listing Pod')
    expect([error.kind, error.exitCode, error.status, error.retryable]).toEqual(['unavailable', 7, 'UNAVAILABLE', true])
  })
})
