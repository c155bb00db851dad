/**
 * How the failures of the two Google services behind a storage are classified (kind, so the exit code of the one
 * table in src/core/errors.ts; whether a retry may pass; what the user can do), and the words that say what xpk was
 * doing when they came. The REST adapters (src/adapters/filestore-rest.ts, cloud-storage-rest.ts) and the in-memory
 * fakes of the ports use the same functions, so both fail alike.
 */
import {
  type ApiFailure,
  type Classified,
  classifiedApiError,
  final,
  GRPC_STATUS,
  isApiDisabled,
  isTransientStatus,
  retried,
} from '../cluster/gke-errors.js'
import type {ApiError} from '../errors.js'
import type {FilestoreLocation} from './backends.js'

/** A failure of either API: its gRPC status code, its message, and Google's error reasons when the answer had any. */
export interface StorageApiFailure extends ApiFailure {
  readonly reasons?: ReadonlySet<string>
}

/** What xpk was doing, in the words its messages use ("Could not create Filestore instance nfs: ..."). */
export const filestoreAction = {
  read: (id: string) => `read Filestore instance ${id}`,
  create: (id: string) => `create Filestore instance ${id}`,
  delete: (id: string) => `delete Filestore instance ${id}`,
  /** `name` is the operation's full name; the message names its last part. */
  operation: (name: string) => `read Filestore operation ${name.split('/').at(-1)}`,
}

export const cloudStorageAction = {
  read: (bucket: string) => `read bucket ${bucket}`,
  readIam: (bucket: string) => `read the IAM policy of bucket ${bucket}`,
  setIam: (bucket: string) => `set the IAM policy of bucket ${bucket}`,
  upload: (bucket: string, object: string) => `upload gs://${bucket}/${object}`,
  readObject: (bucket: string, object: string) => `read gs://${bucket}/${object}`,
  download: (bucket: string, object: string) => `download gs://${bucket}/${object}`,
  list: (bucket: string, prefix: string) => `list gs://${bucket}/${prefix}`,
  deleteObject: (bucket: string, object: string) => `delete gs://${bucket}/${object}`,
}

const RATE_LIMIT = /rate limit|per minute|per second|too many requests|quota metric '?[\w.]*requests/i
const IN_PROGRESS = /in progress|currently|try again|another operation|is being|busy/i

/** What an API's failures share: the hints of each, and the API's own rules for the other statuses. */
interface ApiRules {
  readonly transient: string
  readonly disabled: string
  readonly permission: string
  readonly other: string
  /** The API's own classification of a status, or undefined for `failed` with the `other` hint. */
  readonly classify: (status: string | undefined, failure: StorageApiFailure) => Classified | undefined
}

function classifyBy(failure: StorageApiFailure, rules: ApiRules): Classified {
  const status = GRPC_STATUS[failure.code]
  if (isTransientStatus(status)) return retried('unavailable', [rules.transient])
  switch (status) {
    case 'PERMISSION_DENIED':
      return final('permission', [isApiDisabled(failure.message, failure.reasons) ? rules.disabled : rules.permission])
    case 'UNAUTHENTICATED':
      return final('auth', [
        'Run `gcloud auth application-default login`, or point GOOGLE_APPLICATION_CREDENTIALS at a service-account key.',
      ])
    case 'CANCELLED':
      return final('interrupted', ['Re-run the command to continue where it stopped.'])
    default:
      return rules.classify(status, failure) ?? final('failed', [rules.other])
  }
}

function filestoreRules({project, location}: FilestoreLocation): ApiRules {
  return {
    transient: 'The Filestore API did not answer or failed transiently; re-run the command.',
    disabled: `The Filestore API is disabled in project ${project}: run \`gcloud services enable file.googleapis.com --project=${project}\`, wait a minute, and re-run.`,
    permission: `Your credentials lack a Filestore permission on project ${project}: grant roles/file.editor (Cloud Filestore Editor), e.g. \`gcloud projects add-iam-policy-binding ${project} --member=user:YOU@example.com --role=roles/file.editor\`.`,
    other: 'The Filestore API failed the request; the message above says why.',
    classify: (status, failure) => {
      switch (status) {
        case 'NOT_FOUND':
          return final('not-found', [
            `Looked in projects/${project}/locations/${location}. Check --project and --zone: BASIC_HDD, BASIC_SSD and ZONAL instances live in a zone, REGIONAL and ENTERPRISE ones in its region.`,
          ])
        case 'RESOURCE_EXHAUSTED':
          return RATE_LIMIT.test(failure.message)
            ? retried('quota', ['The Filestore API rate limit was hit; xpk slows down and retries.'])
            : final('quota', [
                `Out of Filestore quota in ${location}: request more at https://console.cloud.google.com/iam-admin/quotas?project=${project} (filter by "Filestore"), or ask for a smaller size or another tier.`,
              ])
        case 'INVALID_ARGUMENT':
          return final('usage', [
            'The Filestore API rejected the request; the message above says which field. Check the tier, the size, the file share and the location.',
          ])
        case 'ALREADY_EXISTS':
          return final('conflict', [
            `An instance of this name exists in ${location}: \`xpk storage attach --type gcpfilestore --instance NAME\` attaches it, or pick another name.`,
          ])
        case 'FAILED_PRECONDITION':
        case 'ABORTED': {
          // The instance's own operation is running (it is being created or deleted): it ends by itself.
          const busy = status === 'ABORTED' || IN_PROGRESS.test(failure.message)
          return (busy ? retried : final)('conflict', [
            'The instance is in a state that does not allow this change now (being created or deleted).',
          ])
        }
        default:
          return undefined
      }
    },
  }
}

/** Classifies a Filestore API failure (an answer, or a finished operation's error) into an {@link ApiError}. */
export function filestoreApiError(
  failure: StorageApiFailure,
  context: FilestoreLocation & {readonly action: string},
): ApiError {
  return classifiedApiError(failure, context.action, classifyBy(failure, filestoreRules(context)))
}

function cloudStorageRules(bucket: string, object: string | undefined): ApiRules {
  return {
    transient: 'Cloud Storage did not answer or failed transiently; re-run the command.',
    disabled:
      'The Cloud Storage JSON API is disabled in the project: enable it with `gcloud services enable storage-api.googleapis.com`, wait a minute, and re-run.',
    permission:
      object === undefined
        ? `Your credentials lack a permission on bucket ${bucket}: reading it needs storage.buckets.get and storage.buckets.getIamPolicy, granting access storage.buckets.setIamPolicy (roles/storage.admin on the bucket or its project).`
        : `Your credentials lack a permission on the objects of bucket ${bucket}: storage.objects.create, get, list and delete (roles/storage.objectUser on the bucket or its project).`,
    other: 'Cloud Storage failed the request; the message above says why.',
    classify: (status) => {
      switch (status) {
        case 'NOT_FOUND':
          return final('not-found', [
            `No bucket ${bucket}: check the bucket's name (without gs://), or create it first (\`gcloud storage buckets create gs://${bucket}\`).`,
          ])
        case 'RESOURCE_EXHAUSTED':
          // Cloud Storage answers its rate limits with 429; the limit resets within seconds.
          return retried('quota', ['The Cloud Storage rate limit was hit; xpk slows down and retries.'])
        case 'INVALID_ARGUMENT':
        case 'OUT_OF_RANGE':
          return final('usage', [
            "Cloud Storage rejected the request; the message above says which part. A bucket's name is 3-63 lowercase letters, digits, -, _ and . (without gs://).",
          ])
        case 'FAILED_PRECONDITION':
          // 412: the policy's etag, or the object's generation, is not the current one. The same again can never pass.
          return final('conflict', [
            object === undefined
              ? "The bucket's IAM policy changed since it was read (another change came first); re-running reads it again."
              : `gs://${bucket}/${object} is not the generation the write was made for (another writer came first); re-running reads it again.`,
          ])
        case 'ALREADY_EXISTS':
        case 'ABORTED':
          return retried('conflict', ['Another change to the bucket was under way; xpk waits and retries.'])
        default:
          return undefined
      }
    },
  }
}

/** Classifies a Cloud Storage JSON API failure into an {@link ApiError}. */
export function cloudStorageApiError(
  failure: StorageApiFailure,
  context: {readonly action: string; readonly bucket: string; readonly object?: string},
): ApiError {
  return classifiedApiError(
    failure,
    context.action,
    classifyBy(failure, cloudStorageRules(context.bucket, context.object)),
  )
}
