import {ApiError, type ErrorKind} from '../errors.js'
import {certificateError} from '../tls-errors.js'

/** The parts of a Kubernetes `Status` error body xpk reads. */
export interface KubeStatusBody {
  readonly reason?: string
  readonly message?: string
  readonly details?: {readonly causes?: readonly {readonly field?: string; readonly message?: string}[]}
}

interface Row {
  readonly status: string
  readonly kind: ErrorKind
  readonly retryable: boolean
  readonly hint?: string
}

/**
 * HTTP status -> what it means to xpk. Retryable ones are what the API server sends under load or during a
 * control-plane upgrade (GKE's regional control planes restart one replica at a time).
 */
const BY_HTTP_STATUS: Readonly<Record<number, Row>> = {
  400: {status: 'INVALID_ARGUMENT', kind: 'failed', retryable: false},
  401: {
    status: 'UNAUTHENTICATED',
    kind: 'auth',
    retryable: false,
    hint: 'Refresh your credentials (`gcloud auth application-default login`, or set XPK_ACCESS_TOKEN), or check --kubeconfig.',
  },
  403: {
    status: 'PERMISSION_DENIED',
    kind: 'permission',
    retryable: false,
    hint: 'Your account needs the Kubernetes Engine Developer role (roles/container.developer) or RBAC rights on the cluster.',
  },
  404: {status: 'NOT_FOUND', kind: 'not-found', retryable: false},
  409: {status: 'ALREADY_EXISTS', kind: 'conflict', retryable: false},
  410: {status: 'EXPIRED', kind: 'failed', retryable: false},
  422: {status: 'INVALID_ARGUMENT', kind: 'failed', retryable: false},
  429: {status: 'RESOURCE_EXHAUSTED', kind: 'unavailable', retryable: true},
  500: {status: 'INTERNAL', kind: 'unavailable', retryable: true},
  502: {status: 'UNAVAILABLE', kind: 'unavailable', retryable: true},
  503: {status: 'UNAVAILABLE', kind: 'unavailable', retryable: true},
  504: {status: 'DEADLINE_EXCEEDED', kind: 'unavailable', retryable: true},
}

/**
 * A Kubernetes API failure as an ApiError: its HTTP status mapped to a kind and status name, the server's
 * message and field causes kept, and what was being done named. A 409 whose reason is `Conflict` (a field owned
 * by another manager, or a stale resourceVersion) is CONFLICT rather than ALREADY_EXISTS.
 */
export function kubeApiError(httpStatus: number, body: KubeStatusBody | undefined, doing: string): ApiError {
  const row = BY_HTTP_STATUS[httpStatus] ?? {
    status: `HTTP_${httpStatus}`,
    kind: httpStatus >= 500 ? 'unavailable' : 'failed',
    retryable: httpStatus >= 500,
  }
  const status = httpStatus === 409 && body?.reason === 'Conflict' ? 'CONFLICT' : row.status
  const causes = (body?.details?.causes ?? [])
    .map((c) => (c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? '')))
    .filter(Boolean)
  const said = body?.message ?? `HTTP ${httpStatus}`
  const message = `${doing} failed: ${said}${causes.length > 0 && !said.includes(causes[0]) ? ` (${causes.join('; ')})` : ''}`
  return new ApiError(row.kind, message, {status, retryable: row.retryable, hints: row.hint ? [row.hint] : []})
}

/**
 * A request that never got an HTTP answer: refused, reset or closed (during the TLS handshake too, as while an API
 * server restarts), DNS: worth retrying, like a 503. Only a handshake that completed with a certificate that failed
 * verification (see tls-errors.ts) is a certificate problem, not retried.
 */
export function kubeNetworkError(cause: Error, server: string, doing: string): ApiError {
  const certificate = certificateError(cause, `${doing} failed: the certificate of the Kubernetes API at ${server}`, [
    "The server's certificate does not match the cluster CA xpk was given: check --kubeconfig or the cluster.",
  ])
  if (certificate) return certificate
  return new ApiError(
    'unavailable',
    `${doing} failed: could not reach the Kubernetes API at ${server} (${cause.message}).`,
    {
      status: 'UNAVAILABLE',
      retryable: true,
      cause,
      hints: [
        'Check that the cluster is RUNNING (`xpk cluster describe`) and reachable from here: a private control plane ' +
          'is reached from inside its network or through a kubeconfig (--kubeconfig); `cluster create --skip-in-cluster` ' +
          'changes only GKE.',
      ],
    },
  )
}
