/**
 * The endpoint overrides of the two APIs only `xpk doctor` calls, by the rule every endpoint follows
 * (src/core/endpoint.ts). They have no flags: the variable, else the API's own endpoint.
 */
import type {EndpointSetting} from '../endpoint.js'
import {resolveEndpointOverride, type Environment} from '../environment.js'

/** Cloud Resource Manager (cloudresourcemanager.googleapis.com): the project, and testIamPermissions. */
export const RESOURCE_MANAGER_ENDPOINT = {
  flag: 'XPK_RESOURCE_MANAGER_ENDPOINT',
  variable: 'XPK_RESOURCE_MANAGER_ENDPOINT',
  example: 'https://cloudresourcemanager.googleapis.com/',
} as const satisfies EndpointSetting

/** Service Usage (serviceusage.googleapis.com): the enabled APIs. */
export const SERVICE_USAGE_ENDPOINT = {
  flag: 'XPK_SERVICE_USAGE_ENDPOINT',
  variable: 'XPK_SERVICE_USAGE_ENDPOINT',
  example: 'https://serviceusage.googleapis.com/',
} as const satisfies EndpointSetting

/** Both endpoints, checked (a bad one is exit 2 naming its variable); undefined for the API's own. */
export function doctorEndpoints(env: Environment): {resourceManager?: string; serviceUsage?: string} {
  return {
    resourceManager: resolveEndpointOverride(undefined, env, RESOURCE_MANAGER_ENDPOINT),
    serviceUsage: resolveEndpointOverride(undefined, env, SERVICE_USAGE_ENDPOINT),
  }
}
