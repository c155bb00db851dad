// How the failures of the Filestore and Cloud Storage APIs are classified: every gRPC status of both, to a kind (so an
// exit code of the one table), whether a retry may pass, and a hint; and the message saying what was being done.
import {describe, expect, it} from 'vitest'

import {GRPC_STATUS} from '../../../src/core/cluster/gke-errors.js'
import {
  cloudStorageAction,
  cloudStorageApiError,
  filestoreAction,
  filestoreApiError,
} from '../../../src/core/storage/api-errors.js'

const where = {project: 'p1', location: 'us-central1-a'}
const filestore = (status: string, message = 'it failed', reasons?: ReadonlySet<string>) =>
  filestoreApiError({code: GRPC_STATUS.indexOf(status as never), message, reasons}, {...where, action: 'do it'})
const storage = (status: string, message = 'it failed') =>
  cloudStorageApiError({code: GRPC_STATUS.indexOf(status as never), message}, {action: 'do it', bucket: 'datasets'})

/** kind, exit code and retry of every status but OK, for [Filestore, Cloud Storage]. */
const EXPECTED: Record<string, [[string, number, boolean], [string, number, boolean]]> = {
  CANCELLED: [
    ['interrupted', 130, false],
    ['interrupted', 130, false],
  ],
  UNKNOWN: [
    ['unavailable', 7, true],
    ['unavailable', 7, true],
  ],
  INVALID_ARGUMENT: [
    ['usage', 2, false],
    ['usage', 2, false],
  ],
  DEADLINE_EXCEEDED: [
    ['unavailable', 7, true],
    ['unavailable', 7, true],
  ],
  NOT_FOUND: [
    ['not-found', 4, false],
    ['not-found', 4, false],
  ],
  ALREADY_EXISTS: [
    ['conflict', 6, false],
    ['conflict', 6, true],
  ],
  PERMISSION_DENIED: [
    ['permission', 3, false],
    ['permission', 3, false],
  ],
  RESOURCE_EXHAUSTED: [
    ['quota', 5, false],
    ['quota', 5, true],
  ],
  FAILED_PRECONDITION: [
    ['conflict', 6, false],
    ['conflict', 6, false],
  ],
  ABORTED: [
    ['conflict', 6, true],
    ['conflict', 6, true],
  ],
  OUT_OF_RANGE: [
    ['failed', 1, false],
    ['usage', 2, false],
  ],
  UNIMPLEMENTED: [
    ['failed', 1, false],
    ['failed', 1, false],
  ],
  INTERNAL: [
    ['unavailable', 7, true],
    ['unavailable', 7, true],
  ],
  UNAVAILABLE: [
    ['unavailable', 7, true],
    ['unavailable', 7, true],
  ],
  DATA_LOSS: [
    ['failed', 1, false],
    ['failed', 1, false],
  ],
  UNAUTHENTICATED: [
    ['auth', 3, false],
    ['auth', 3, false],
  ],
}

describe('every status of both APIs', () => {
  it('covers each gRPC status but OK', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(GRPC_STATUS.filter((s) => s !== 'OK').sort())
  })

  it.each(Object.entries(EXPECTED))('%s', (status, [forFilestore, forStorage]) => {
    for (const [error, want] of [
      [filestore(status), forFilestore],
      [storage(status), forStorage],
    ] as const) {
      expect([error.kind, error.exitCode, error.retryable]).toEqual(want)
      expect(error.status).toBe(status)
      expect(error.message).toBe('Could not do it: it failed')
      expect(error.hints.length).toBeGreaterThan(0)
    }
  })
})

describe('what the words and the reasons change', () => {
  it('retries a Filestore FAILED_PRECONDITION only while an operation is in progress', () => {
    expect(filestore('FAILED_PRECONDITION', 'Instance x is CREATING: an operation is in progress').retryable).toBe(true)
    expect(filestore('FAILED_PRECONDITION', 'The instance has snapshots').retryable).toBe(false)
  })

  it('retries a Filestore RESOURCE_EXHAUSTED that is a rate limit, not one that is a quota', () => {
    expect(filestore('RESOURCE_EXHAUSTED', 'Too many requests per minute').retryable).toBe(true)
    expect(filestore('RESOURCE_EXHAUSTED', "Quota limit 'capacity' has been exceeded").retryable).toBe(false)
  })

  it('tells a disabled API from a missing role, by its wording or its reason', () => {
    const enable = 'gcloud services enable file.googleapis.com --project=p1'
    expect(filestore('PERMISSION_DENIED', 'Cloud Filestore API has not been used in project p1').hints[0]).toContain(
      enable,
    )
    expect(filestore('PERMISSION_DENIED', 'denied', new Set(['SERVICE_DISABLED'])).hints[0]).toContain(enable)
    expect(filestore('PERMISSION_DENIED', "Permission 'file.instances.create' denied").hints[0]).toContain(
      'roles/file.editor',
    )
  })

  it('names what was being done, from the one set of words the adapters and the fakes use', () => {
    expect(filestoreAction.operation('projects/p/locations/l/operations/operation-1-a')).toBe(
      'read Filestore operation operation-1-a',
    )
    expect([filestoreAction.read('i'), filestoreAction.create('i'), filestoreAction.delete('i')]).toEqual([
      'read Filestore instance i',
      'create Filestore instance i',
      'delete Filestore instance i',
    ])
    expect(Object.values(cloudStorageAction).map((action) => action('b', 'logs/w0.log'))).toEqual([
      'read bucket b',
      'read the IAM policy of bucket b',
      'set the IAM policy of bucket b',
      'upload gs://b/logs/w0.log',
      'read gs://b/logs/w0.log',
      'download gs://b/logs/w0.log',
      'list gs://b/logs/w0.log',
      'delete gs://b/logs/w0.log',
    ])
  })

  it("says which object a failed generation condition or a missing permission was about, and the bucket's otherwise", () => {
    const onObject = (status: string) =>
      cloudStorageApiError(
        {code: GRPC_STATUS.indexOf(status as never), message: 'no'},
        {action: 'upload gs://datasets/code.tgz', bucket: 'datasets', object: 'code.tgz'},
      )
    expect(onObject('FAILED_PRECONDITION').hints.join(' ')).toContain('gs://datasets/code.tgz is not the generation')
    expect(storage('FAILED_PRECONDITION').hints.join(' ')).toContain("bucket's IAM policy changed")
    expect(onObject('PERMISSION_DENIED').hints.join(' ')).toContain('storage.objects.create')
    expect(storage('PERMISSION_DENIED').hints.join(' ')).not.toContain('storage.objects')
    expect([onObject('FAILED_PRECONDITION').kind, onObject('FAILED_PRECONDITION').retryable]).toEqual([
      'conflict',
      false,
    ])
  })
})
