import type {ProjectFound} from '../core/doctor/checks.js'

export type {ProjectFound}

/**
 * Cloud Resource Manager (cloudresourcemanager.googleapis.com/v3) in xpk's terms: a project, and which of some
 * permissions the caller holds on it. Implementations throw ApiError (classified, with hints); a project that does
 * not exist is PERMISSION_DENIED, as the API answers it (it does not tell "missing" from "not yours"). No retries.
 */
export interface ResourceManagerClient {
  getProject(projectId: string): Promise<ProjectFound>
  /** The subset of `permissions` the caller holds on the project. */
  testIamPermissions(projectId: string, permissions: readonly string[]): Promise<readonly string[]>
  close(): Promise<void>
}
