import {final, GRPC_STATUS, isTransientStatus, retried, type Classified} from '../cluster/gke-errors.js'
import {ApiError} from '../errors.js'

/** A failure as the TPU API reports it: a gRPC status code and message (from an RPC or a FAILED queued resource). */
export interface TpuFailure {
  readonly code: number
  readonly message: string
}

const STOCKOUT =
  /no more capacity|not enough resources|does not have enough resources|stockout|resource pool exhausted|out of capacity|insufficient capacity/i
const RATE_LIMIT = /rate limit|per minute|per second|too many requests/i
const RUNTIME = /runtime version|runtime_version|software version/i
const IN_PROGRESS = /in progress|currently|try again|another operation|is being/i

function classify(failure: TpuFailure, project: string, zone: string): Classified {
  const status = GRPC_STATUS[failure.code] ?? 'UNKNOWN'
  if (isTransientStatus(status)) {
    return retried('unavailable', ['The TPU API did not answer or failed transiently; re-run the command.'])
  }
  switch (status) {
    case 'PERMISSION_DENIED':
      return final('permission', [
        `Your credentials lack a permission on project ${project}: grant roles/tpu.admin (TPU Admin), and enable the API with \`gcloud services enable tpu.googleapis.com\`.`,
      ])
    case 'UNAUTHENTICATED':
      return final('auth', [
        'Run `gcloud auth application-default login`, or point GOOGLE_APPLICATION_CREDENTIALS at a key file.',
      ])
    case 'NOT_FOUND':
      return final('not-found', [
        `Looked in projects/${project}/locations/${zone}. Check --project and --zone; \`xpk vm list\` shows what exists.`,
      ])
    case 'RESOURCE_EXHAUSTED':
      if (RATE_LIMIT.test(failure.message)) {
        return retried('quota', ['The TPU API rate limit was hit; xpk slows down and retries.'])
      }
      if (STOCKOUT.test(failure.message)) {
        return final('stockout', [
          `${zone} has no free TPU capacity of this type right now (a stockout). Re-run later, or ask for other capacity or another zone: \`xpk vm create ... --reserved | --spot | --best-effort | --zone ZONE\`.`,
        ])
      }
      return final('quota', [
        `Out of TPU quota in ${zone}: request more at https://console.cloud.google.com/iam-admin/quotas?project=${project} (filter by "TPU"), or ask for Spot or best-effort capacity, which use other quotas (\`xpk vm create ... --spot | --best-effort\`).`,
      ])
    case 'INVALID_ARGUMENT':
      return RUNTIME.test(failure.message)
        ? final('usage', [
            'Pick a runtime version for this TPU generation: `xpk vm create ... --runtime-version VERSION` (see `xpk vm create --help`).',
          ])
        : final('usage', [
            'The TPU API rejected the request; the message above says which field. Check --zone, and what `xpk vm create --tpu-type T --runtime-version V` was given.',
          ])
    case 'ALREADY_EXISTS':
      return final('conflict', [
        'Pick another name (`xpk vm create --tpu-prefix P --queued-resource-id ID`), or delete the old one with `xpk vm delete`.',
      ])
    case 'FAILED_PRECONDITION':
    case 'ABORTED':
      return {
        kind: 'conflict',
        retryable: status === 'ABORTED' || IN_PROGRESS.test(failure.message),
        hints: ['The resource is in a state that does not allow this change; `xpk vm list` shows its state.'],
      }
    case 'CANCELLED':
      return final('interrupted', [])
    default:
      return final('failed', [])
  }
}

/** Classifies a TPU API failure into an {@link ApiError} with hints. */
export function tpuApiError(failure: TpuFailure, context: {action: string; project: string; zone: string}): ApiError {
  const {kind, retryable, hints} = classify(failure, context.project, context.zone)
  const status = GRPC_STATUS[failure.code] ?? `CODE_${failure.code}`
  return new ApiError(kind, `Could not ${context.action}: ${failure.message || status} (${status}).`, {
    status,
    retryable,
    hints,
  })
}
