/**
 * How Cloud Resource Manager's and Service Usage's failures are classified (kind, so the exit code; whether a retry
 * may pass; the fix), shared by their REST adapters and in-memory fakes so both fail alike.
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

export interface ProjectApiFailure extends ApiFailure {
  readonly reasons?: ReadonlySet<string>
}

/** Which API failed: their words differ only in the service to enable and the role that reads it. */
export type ProjectApi = 'resource-manager' | 'service-usage'

const API: Readonly<Record<ProjectApi, {readonly title: string; readonly service: string; readonly role: string}>> = {
  'resource-manager': {
    title: 'Cloud Resource Manager API',
    service: 'cloudresourcemanager.googleapis.com',
    role: 'roles/browser',
  },
  'service-usage': {
    title: 'Service Usage API',
    service: 'serviceusage.googleapis.com',
    role: 'roles/serviceusage.serviceUsageViewer',
  },
}

function classify(failure: ProjectApiFailure, api: ProjectApi, project: string): Classified {
  const status = GRPC_STATUS[failure.code]
  const {title, service, role} = API[api]
  if (isTransientStatus(status))
    return retried('unavailable', [`The ${title} did not answer or failed transiently; re-run.`])
  switch (status) {
    case 'PERMISSION_DENIED':
      return final('permission', [
        isApiDisabled(failure.message, failure.reasons)
          ? `The ${title} is disabled in project ${project}: \`gcloud services enable ${service} --project=${project}\`.`
          : `Check --project; reading it needs ${role} on project ${project}.`,
      ])
    case 'UNAUTHENTICATED':
      return final('auth', [
        'Run `gcloud auth application-default login`, or point GOOGLE_APPLICATION_CREDENTIALS at a service-account key.',
      ])
    case 'NOT_FOUND':
      return final('not-found', [`Check --project: \`gcloud projects list\` lists the projects you can use.`])
    case 'RESOURCE_EXHAUSTED':
      return retried('quota', [`The ${title} rate limit was hit; xpk slows down and retries.`])
    case 'INVALID_ARGUMENT':
      return final('usage', [`The ${title} rejected the request; the message above says which part.`])
    case 'CANCELLED':
      return final('interrupted', ['Re-run the command to continue where it stopped.'])
    default:
      return final('failed', [`The ${title} failed the request; the message above says why.`])
  }
}

/** Classifies a failure of either API into an {@link ApiError} saying what xpk was doing. */
export function projectApiError(
  failure: ProjectApiFailure,
  context: {readonly api: ProjectApi; readonly project: string; readonly action: string},
): ApiError {
  return classifiedApiError(failure, context.action, classify(failure, context.api, context.project))
}
