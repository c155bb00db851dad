import {ApiError, type ErrorKind} from '../errors.js'

/**
 * Whether a pool's ERROR message says its creation failed for capacity (a stockout or a quota), so that no node
 * was ever provisioned: replacing such a pool destroys nothing and needs no confirmation.
 */
export function creationFailedForCapacity(statusMessage: string): boolean {
  return STOCKOUT.test(statusMessage) || CREATE_QUOTA.test(statusMessage)
}

/** A failure as the API reports it: a gRPC status code and message (from an RPC or a finished operation). */
export interface ApiFailure {
  readonly code: number
  readonly message: string
}

/** What was being done, for the message and hints. */
export interface ApiContext {
  /** e.g. "create node pool demo-np-0" */
  readonly action: string
  readonly project: string
  readonly location: string
}

/** gRPC status code names, by number. */
export const GRPC_STATUS = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const

const STOCKOUT =
  /does not have enough resources|lack of capacity|ZONE_RESOURCE_POOL_EXHAUSTED|stockout|resource pool exhausted|Requested resource is exhausted|out of capacity/i
// Creation failures of this kind leave a pool in ERROR with no node ever provisioned.
const CREATE_QUOTA = /quota[^.]* exceeded|exceeded[^.]* quota|insufficient[^.]* quota|QUOTA_EXCEEDED/i
const RATE_LIMIT = /rate limit|per minute|per second|too many requests|quota metric '?[\w.]*requests/i
// GKE caps concurrent operations per cluster and answers the excess with RESOURCE_EXHAUSTED, e.g. "Too many
// operations: cluster "c" hits the concurrent operations quota 5, please try again later".
const OPERATIONS_QUOTA = /too many operations|concurrent operations/i
// A cluster in ERROR never becomes ready: retrying a change against it would only spin.
const BROKEN_CLUSTER = /status is (ERROR|DEGRADED)|in (an )?ERROR state/i
// SetLabels naming a labelFingerprint that is no longer current ("Labels could not be set due to fingerprint mismatch;
// try again with the proper fingerprint"): the labels changed since they were read. Not a busy cluster (which its
// "try again" would otherwise match): retrying with the same fingerprint can never succeed.
const FINGERPRINT_MISMATCH = /fingerprint mismatch/i
const IN_PROGRESS =
  /incompatible operation|another operation|operation [\w-]+ is (currently|in progress)|currently (creating|deleting|updating|upgrading|running)|in progress|try again|is not ready/i

/** A failure's kind, whether a retry may succeed, and what the user can do about it. */
export interface Classified {
  readonly kind: ErrorKind
  readonly retryable: boolean
  readonly hints: readonly string[]
}

/** A failure that a retry may get past (xpk retries it). */
export const retried = (kind: ErrorKind, hints: readonly string[]): Classified => ({kind, retryable: true, hints})

/** A failure that a retry would only repeat. */
export const final = (kind: ErrorKind, hints: readonly string[]): Classified => ({kind, retryable: false, hints})

/** The statuses of a server that did not answer, or failed on its own side: the same request may pass next time. */
export function isTransientStatus(status: (typeof GRPC_STATUS)[number] | undefined): boolean {
  return status === 'UNAVAILABLE' || status === 'DEADLINE_EXCEEDED' || status === 'INTERNAL' || status === 'UNKNOWN'
}

function classify(failure: ApiFailure, context: ApiContext): Classified {
  const {project, location} = context
  const status = GRPC_STATUS[failure.code]
  if (isTransientStatus(status)) {
    return retried('unavailable', [
      'GKE did not answer or failed transiently; re-run the command to continue where it stopped.',
    ])
  }
  switch (status) {
    case 'PERMISSION_DENIED':
      return final('permission', [
        `Your credentials lack a permission on project ${project}: grant roles/container.admin (Kubernetes Engine Admin), e.g. \`gcloud projects add-iam-policy-binding ${project} --member=user:YOU@example.com --role=roles/container.admin\`.`,
        'Node pools also need roles/iam.serviceAccountUser on the node service account, and the Kubernetes Engine API must be enabled (`gcloud services enable container.googleapis.com`).',
      ])
    case 'UNAUTHENTICATED':
      return final('auth', [
        'Run `gcloud auth application-default login`, or point GOOGLE_APPLICATION_CREDENTIALS at a service-account key.',
      ])
    case 'NOT_FOUND':
      return final('not-found', [
        `Looked in projects/${project}/locations/${location}. Check --project and --zone (xpk clusters live in the zone's region); \`xpk cluster list\` shows your clusters.`,
      ])
    case 'RESOURCE_EXHAUSTED':
      if (OPERATIONS_QUOTA.test(failure.message)) {
        return retried('conflict', [
          'GKE limits concurrent operations per cluster; xpk waits and retries (`xpk cluster create --max-parallel N` starts fewer at once).',
        ])
      }
      if (STOCKOUT.test(failure.message)) {
        return final('stockout', [
          `The zone has no free capacity for this machine type right now (a stockout), not a quota problem. Ask for other capacity or another zone (\`xpk cluster create ... --reservation NAME | --spot | --flex | --zone ZONE\`), or re-run the same command later.`,
        ])
      }
      if (RATE_LIMIT.test(failure.message)) {
        return retried('quota', [
          'The API rate limit was hit; xpk slows down and retries. If it persists, re-run later (`xpk cluster create --max-parallel N` sends fewer requests at once).',
        ])
      }
      return final('quota', [
        `Out of quota in ${location}: request an increase at https://console.cloud.google.com/iam-admin/quotas?project=${project} (filter by the metric in the message), or use a reservation (\`xpk cluster create ... --reservation NAME\`).`,
      ])
    case 'FAILED_PRECONDITION':
    case 'ABORTED':
      if (FINGERPRINT_MISMATCH.test(failure.message)) {
        return final('conflict', ["The cluster's labels changed since they were read: read it again and re-run."])
      }
      return !BROKEN_CLUSTER.test(failure.message) && (IN_PROGRESS.test(failure.message) || status === 'ABORTED')
        ? retried('conflict', [
            'Another operation is running on the cluster; xpk waits and retries. If this persists, re-run later.',
          ])
        : final('conflict', [
            'The cluster is in a state that does not allow this change; `xpk cluster describe` shows its state.',
          ])
    case 'ALREADY_EXISTS':
      return final('conflict', ['It exists already; re-running `xpk cluster create` reconciles it.'])
    case 'CANCELLED':
      return final('interrupted', ['Re-run the command to continue where it stopped.'])
    default:
      return /machine type|not supported in zone|accelerator/i.test(failure.message)
        ? final('failed', [
            'This zone may not offer the requested machine type; see https://cloud.google.com/tpu/docs/regions-zones and pick a zone that does with --zone.',
          ])
        : final('failed', ['GKE rejected the request; the message above says which field.'])
  }
}

/** Turns an API failure into a classified {@link ApiError} with a message that says what was being done. */
export function gkeApiError(failure: ApiFailure, context: ApiContext): ApiError {
  return classifiedApiError(failure, context.action, classify(failure, context))
}

/**
 * The {@link ApiError} of a failure once its API's rules have classified it: `Could not ACTION: ` and the first line
 * of what the API said (or its status name), with the status name, whether to retry and the hints.
 */
export function classifiedApiError(failure: ApiFailure, action: string, classified: Classified): ApiError {
  const status = GRPC_STATUS[failure.code] ?? `CODE_${failure.code}`
  // gRPC connection failures repeat their causes many times over; the first line says what happened.
  const firstLine = failure.message
    .replace(/^\d+ [A-Z_]+: /, '')
    .trim()
    .split('\n')[0]
  const detail = (firstLine.length > 400 ? `${firstLine.slice(0, 400)}...` : firstLine) || status
  const {kind, retryable, hints} = classified
  return new ApiError(kind, `Could not ${action}: ${detail}`, {status, retryable, hints})
}

const API_DISABLED_REASONS = new Set(['accessNotConfigured', 'SERVICE_DISABLED'])

/**
 * Whether a PERMISSION_DENIED says the API is not enabled in the project (Google's error reason, or its wording
 * "X API has not been used in project P before or it is disabled"), which no IAM role fixes.
 */
export function isApiDisabled(message: string, reasons: ReadonlySet<string> = new Set()): boolean {
  return (
    [...reasons].some((r) => API_DISABLED_REASONS.has(r)) || /has not been used in project|is disabled/i.test(message)
  )
}

/** Whether a failed SetLabels says the labels changed since they were read (their fingerprint is no longer current). */
export function isLabelFingerprintMismatch(error: unknown): boolean {
  return error instanceof ApiError && error.status === 'FAILED_PRECONDITION' && FINGERPRINT_MISMATCH.test(error.message)
}
