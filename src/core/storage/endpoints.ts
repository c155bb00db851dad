/**
 * The endpoint overrides of the two Google services behind a storage, by the rule every endpoint follows
 * (src/core/endpoint.ts): a flag of the command that talks to the service, else its XPK_* variable, else the
 * service's own endpoint.
 */
import type {EndpointSetting} from '../endpoint.js'
import {resolveEndpointOverride, type Environment} from '../environment.js'

/** The Filestore API (file.googleapis.com): gcpfilestore storages. */
export const FILESTORE_ENDPOINT = {
  flag: '--filestore-endpoint',
  variable: 'XPK_FILESTORE_ENDPOINT',
  example: 'https://file.googleapis.com/',
} as const satisfies EndpointSetting

/** The Cloud Storage JSON API (storage.googleapis.com): gcsfuse storages' buckets and their IAM policies. */
export const STORAGE_ENDPOINT = {
  flag: '--storage-endpoint',
  variable: 'XPK_STORAGE_ENDPOINT',
  example: 'https://storage.googleapis.com/',
} as const satisfies EndpointSetting

/**
 * The Filestore API endpoint: `--filestore-endpoint` when the command has it and it is given, else
 * XPK_FILESTORE_ENDPOINT, else undefined (the default). @throws UsageError naming the flag or the variable
 */
export function resolveFilestoreEndpoint(flag: string | undefined, env: Environment): string | undefined {
  return resolveEndpointOverride(flag, env, FILESTORE_ENDPOINT)
}

/**
 * The Cloud Storage JSON API endpoint: `--storage-endpoint` when the command has it and it is given, else
 * XPK_STORAGE_ENDPOINT, else undefined (the default). @throws UsageError naming the flag or the variable
 */
export function resolveStorageEndpoint(flag: string | undefined, env: Environment): string | undefined {
  return resolveEndpointOverride(flag, env, STORAGE_ENDPOINT)
}
