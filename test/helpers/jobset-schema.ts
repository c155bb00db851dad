import {JOBSET_API_VERSION} from '../../src/core/versions.js'
import {SKIP_CRD_TESTS, validateAgainstCrd} from './crd-schema.js'

export {SKIP_CRD_TESTS}

/**
 * Problems the API server (with JobSet `JOBSET_VERSION` installed) would have with `manifest`, one line each; empty
 * when it is valid. {@link validateAgainstCrd} with the JobSet CRD, and the manifest must be a JobSet of the API
 * version xpk writes.
 */
export function validateJobSet(manifest: unknown): string[] {
  return validateAgainstCrd(manifest, {as: {apiVersion: JOBSET_API_VERSION, kind: 'JobSet'}})
}
