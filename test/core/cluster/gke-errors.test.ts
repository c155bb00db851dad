import {describe, expect, it} from 'vitest'

import {GRPC_STATUS, gkeApiError, type ApiContext} from '../../../src/core/cluster/gke-errors.js'
import {ApiError, type ErrorKind} from '../../../src/core/errors.js'

const context: ApiContext = {action: 'create node pool demo-np-0', project: 'test-project', location: 'us-central2'}
const code = (name: (typeof GRPC_STATUS)[number]) => GRPC_STATUS.indexOf(name)

describe('gkeApiError classification', () => {
  it.each<{
    case: string
    status: (typeof GRPC_STATUS)[number]
    message: string
    kind: ErrorKind
    retryable: boolean
    exit: number
  }>([
    {
      case: 'permission denied',
      status: 'PERMISSION_DENIED',
      message: `7 PERMISSION_DENIED: Required "container.nodePools.create" permission(s) for "projects/test-project".`,
      kind: 'permission',
      retryable: false,
      exit: 3,
    },
    {
      case: 'unauthenticated',
      status: 'UNAUTHENTICATED',
      message: '16 UNAUTHENTICATED: Request had invalid authentication credentials. Expected OAuth 2 access token.',
      kind: 'auth',
      retryable: false,
      exit: 3,
    },
    {
      case: 'not found',
      status: 'NOT_FOUND',
      message: '5 NOT_FOUND: Not found: projects/test-project/locations/us-central2/clusters/demo.',
      kind: 'not-found',
      retryable: false,
      exit: 4,
    },
    {
      case: 'stockout: the zone does not have enough resources',
      status: 'RESOURCE_EXHAUSTED',
      message:
        "8 RESOURCE_EXHAUSTED: The zone 'projects/test-project/zones/us-central2-b' does not have enough resources available to fulfill the request. Try a different zone, or try again later.",
      kind: 'stockout',
      retryable: false,
      exit: 5,
    },
    {
      case: 'stockout: GCE_STOCKOUT from the instance group',
      status: 'RESOURCE_EXHAUSTED',
      message:
        "Google Compute Engine: Not all instances running in IGM after 20m. Expected 2, running 0, transitioning 2. Current errors: [GCE_STOCKOUT]: Instance 'gke-demo-demo-np-0-5c1e2f3a-x1y2' creation failed.",
      kind: 'stockout',
      retryable: false,
      exit: 5,
    },
    {
      case: 'stockout: zone resource pool exhausted',
      status: 'RESOURCE_EXHAUSTED',
      message: 'Instance creation failed: ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS: The zone is out of TPU capacity.',
      kind: 'stockout',
      retryable: false,
      exit: 5,
    },
    {
      case: 'quota',
      status: 'RESOURCE_EXHAUSTED',
      message:
        "8 RESOURCE_EXHAUSTED: Insufficient quota to satisfy the request: Quota 'TPUS_PER_TPU_FAMILY' exceeded. Limit: 32.0 in region us-central2.",
      kind: 'quota',
      retryable: false,
      exit: 5,
    },
    {
      case: 'rate limit',
      status: 'RESOURCE_EXHAUSTED',
      message:
        "8 RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'container.googleapis.com' for consumer 'project_number:123456789012'.",
      kind: 'quota',
      retryable: true,
      exit: 5,
    },
    {
      case: 'conflicting operation (failed precondition)',
      status: 'FAILED_PRECONDITION',
      message:
        '9 FAILED_PRECONDITION: Cluster is running incompatible operation operation-1735689600000-5c1e2f3a-4b5c-6d7e. Please wait and try again.',
      kind: 'conflict',
      retryable: true,
      exit: 6,
    },
    {
      case: 'state forbids the change (failed precondition)',
      status: 'FAILED_PRECONDITION',
      message: '9 FAILED_PRECONDITION: Private endpoint cannot be enabled for a cluster with public nodes.',
      kind: 'conflict',
      retryable: false,
      exit: 6,
    },
    {
      case: 'aborted',
      status: 'ABORTED',
      message: '10 ABORTED: The request was aborted.',
      kind: 'conflict',
      retryable: true,
      exit: 6,
    },
    {
      case: 'already exists',
      status: 'ALREADY_EXISTS',
      message:
        '6 ALREADY_EXISTS: Already exists: projects/test-project/locations/us-central2/clusters/demo/nodePools/demo-np-0.',
      kind: 'conflict',
      retryable: false,
      exit: 6,
    },
    {
      case: 'unavailable',
      status: 'UNAVAILABLE',
      message: '14 UNAVAILABLE: Connection dropped',
      kind: 'unavailable',
      retryable: true,
      exit: 7,
    },
    {
      case: 'deadline exceeded',
      status: 'DEADLINE_EXCEEDED',
      message: '4 DEADLINE_EXCEEDED: Deadline exceeded',
      kind: 'unavailable',
      retryable: true,
      exit: 7,
    },
    {
      case: 'internal',
      status: 'INTERNAL',
      message: '13 INTERNAL: Internal error encountered.',
      kind: 'unavailable',
      retryable: true,
      exit: 7,
    },
    {
      case: 'unknown',
      status: 'UNKNOWN',
      message: '2 UNKNOWN: Stream removed',
      kind: 'unavailable',
      retryable: true,
      exit: 7,
    },
    {
      case: 'cancelled',
      status: 'CANCELLED',
      message: '1 CANCELLED: Call cancelled',
      kind: 'interrupted',
      retryable: false,
      exit: 130,
    },
    {
      case: 'invalid argument',
      status: 'INVALID_ARGUMENT',
      message: '3 INVALID_ARGUMENT: Node pool name must be at most 40 characters.',
      kind: 'failed',
      retryable: false,
      exit: 1,
    },
    {
      case: 'unimplemented',
      status: 'UNIMPLEMENTED',
      message: '12 UNIMPLEMENTED: Method not found.',
      kind: 'failed',
      retryable: false,
      exit: 1,
    },
  ])('$case -> $kind, retryable $retryable, exit $exit', ({status, message, kind, retryable, exit}) => {
    const error = gkeApiError({code: code(status), message}, context)
    expect(error).toBeInstanceOf(ApiError)
    expect(error.kind).toBe(kind)
    expect(error.retryable).toBe(retryable)
    expect(error.exitCode).toBe(exit)
    expect(error.status).toBe(status)
    expect(error.hints.length).toBeGreaterThan(0)
  })

  it('names an unknown numeric code CODE_<n> and treats it as a plain failure', () => {
    const error = gkeApiError({code: 42, message: 'strange'}, context)
    expect(error.status).toBe('CODE_42')
    expect(error.kind).toBe('failed')
    expect(error.retryable).toBe(false)
    expect(error.message).toBe('Could not create node pool demo-np-0: strange')
  })
})

describe('gkeApiError hints', () => {
  const hintsOf = (status: (typeof GRPC_STATUS)[number], message: string) =>
    gkeApiError({code: code(status), message}, context).hints.join(' ')

  it('permission: names the project and the role to grant', () => {
    const hints = hintsOf('PERMISSION_DENIED', 'Required "container.clusters.get" permission(s).')
    expect(hints).toContain('project test-project')
    expect(hints).toContain('roles/container.admin')
    expect(hints).toContain('gcloud projects add-iam-policy-binding test-project')
  })

  it('auth: says how to log in', () => {
    expect(hintsOf('UNAUTHENTICATED', 'bad token')).toContain('gcloud auth application-default login')
  })

  it('not found: names where it looked and the flags to check', () => {
    const hints = hintsOf('NOT_FOUND', 'Not found: cluster demo')
    expect(hints).toContain('projects/test-project/locations/us-central2')
    expect(hints).toContain('--project')
    expect(hints).toContain('--zone')
    expect(hints).toContain('xpk cluster list')
  })

  it('stockout: says it is not quota and offers reservation, spot, flex, another zone or a later re-run', () => {
    const hints = hintsOf('RESOURCE_EXHAUSTED', 'does not have enough resources available to fulfill the request')
    expect(hints).toContain('not a quota problem')
    for (const next of ['--reservation', '--spot', '--flex', '--zone', 're-run the same command later'])
      expect(hints).toContain(next)
  })

  it('quota: links the quota page of the project and names the location', () => {
    const hints = hintsOf(
      'RESOURCE_EXHAUSTED',
      "Quota 'TPUS_PER_TPU_FAMILY' exceeded. Limit: 32.0 in region us-central2.",
    )
    expect(hints).toContain('Out of quota in us-central2')
    expect(hints).toContain('https://console.cloud.google.com/iam-admin/quotas?project=test-project')
  })

  it('rate limit: says xpk retries', () => {
    expect(hintsOf('RESOURCE_EXHAUSTED', "limit 'Requests per minute'")).toContain('rate limit')
  })

  it('conflict: waits for a running operation, or points at describe when the state forbids it', () => {
    expect(hintsOf('FAILED_PRECONDITION', 'operation operation-1 is in progress')).toContain('xpk waits and retries')
    expect(hintsOf('FAILED_PRECONDITION', 'Autopilot clusters do not support this')).toContain('xpk cluster describe')
  })

  it('already exists: re-running reconciles', () => {
    expect(hintsOf('ALREADY_EXISTS', 'Already exists')).toContain('re-running `xpk cluster create` reconciles it')
  })

  it('invalid machine type for the zone: points at the regions and zones page and --zone', () => {
    const hints = hintsOf('INVALID_ARGUMENT', 'Machine type "ct5p-hightpu-4t" is not supported in zone us-central1-a.')
    expect(hints).toContain('https://cloud.google.com/tpu/docs/regions-zones')
    expect(hints).toContain('--zone')
  })

  it('other rejections: points at the message', () => {
    expect(hintsOf('INVALID_ARGUMENT', 'Node pool name is invalid.')).toContain('the message above says which field')
  })
})

describe('gkeApiError message', () => {
  it.each([
    {
      case: 'strips the "14 UNAVAILABLE: " prefix',
      message: '14 UNAVAILABLE: Connection dropped',
      detail: 'Connection dropped',
    },
    {
      case: 'strips the "8 RESOURCE_EXHAUSTED: " prefix',
      message: '8 RESOURCE_EXHAUSTED: Quota exceeded',
      detail: 'Quota exceeded',
    },
    {case: 'keeps a message without prefix', message: 'Connection dropped', detail: 'Connection dropped'},
    {
      case: 'strips only a leading prefix',
      message: 'Upstream said 14 UNAVAILABLE: x',
      detail: 'Upstream said 14 UNAVAILABLE: x',
    },
    {case: 'trims whitespace', message: '14 UNAVAILABLE:   spaced out  ', detail: 'spaced out'},
    {case: 'falls back to the status for an empty message', message: '', detail: 'UNAVAILABLE'},
    {case: 'falls back to the status for a bare prefix', message: '14 UNAVAILABLE: ', detail: 'UNAVAILABLE'},
  ])('$case', ({message, detail}) => {
    const error = gkeApiError({code: code('UNAVAILABLE'), message}, context)
    expect(error.message).toBe(`Could not create node pool demo-np-0: ${detail}`)
  })
})
