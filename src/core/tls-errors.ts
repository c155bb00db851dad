/**
 * Which failed connections are certificate problems. Only a handshake that completed with a certificate that failed
 * verification is one: OpenSSL's verification codes as Node reports them, and Node's own check of the host name.
 * Everything else a connection can die of before an answer (reset or closed during the handshake, as while an API
 * server restarts; refused; timed out) is the server being unavailable, which the one retry policy retries: telling
 * those apart by the message would call "Client network socket disconnected before secure TLS connection was
 * established" (the word TLS) a certificate problem.
 */

import {ApiError} from './errors.js'

/** Node's `error.code` for a server certificate that failed verification. */
export const CERTIFICATE_ERROR_CODES: ReadonlySet<string> = new Set([
  // Node's host name check, after OpenSSL accepted the chain.
  'ERR_TLS_CERT_ALTNAME_INVALID',
  // OpenSSL's X509_V_ERR_* codes (node/src/crypto/crypto_common.cc), without OUT_OF_MEM.
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
])

/**
 * The verification code when `error` (or one of its causes: fetch wraps the socket's error) says the server's
 * certificate failed verification; undefined for every other failure.
 */
export function certificateFailure(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as {code?: unknown}).code
    if (typeof code === 'string' && CERTIFICATE_ERROR_CODES.has(code)) return code
    current = (current as {cause?: unknown}).cause
  }
  return undefined
}

/** The system error code of a failed connection (ECONNRESET, ECONNREFUSED, ...), from it or its causes. */
export function connectionErrorCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as {code?: unknown}).code
    if (typeof code === 'string') return code
    current = (current as {cause?: unknown}).cause
  }
  return undefined
}

/**
 * The error for a connection whose server certificate failed verification (see {@link certificateFailure}), or
 * undefined for any other failure: exit 3, never retried. `subject` says whose certificate, e.g. "Could not list
 * clusters: the certificate of container.googleapis.com".
 */
export function certificateError(error: unknown, subject: string, hints: readonly string[]): ApiError | undefined {
  const code = certificateFailure(error)
  if (code === undefined) return undefined
  return new ApiError('auth', `${subject} failed verification (${code}: ${(error as Error).message}).`, {
    status: 'UNAUTHENTICATED',
    retryable: false,
    hints: [...hints],
    cause: error,
  })
}
