// The Cloud Storage port's contract (port-contract.ts), held by MemoryCloudStorage (the planner and service tests')
// and by the REST adapter talking to FakeCloudStorage: what attaching a gcsfuse storage and granting the workloads
// access rest on (a bucket read as name, location and type; its IAM policy read and set with its etag, a stale etag
// refused and nothing overwritten; conditions only at version 3), and the failures the one retry policy tells apart.
import {expect} from 'vitest'

import {createCloudStorageClient} from '../../src/adapters/cloud-storage-rest.js'
import type {IamBinding, IamPolicy} from '../../src/core/storage/backends.js'
import type {CloudStorageClient} from '../../src/ports/cloud-storage.js'
import {defaultBindings} from './cloud-storage-shapes.js'
import {FakeCloudStorage, type StorageFault} from './fake-cloud-storage.js'
import {HTTP_ERROR_OF} from './fake-server.js'
import {MemoryCloudStorage, type CloudStorageCall, type CloudStorageFailure} from './memory-cloud-storage.js'
import {portContract, type ContractCase, type Step, type Subject} from './port-contract.js'

/** The world a case starts from, in the port's terms. */
interface StorageGiven {
  /** Buckets that exist (default US-CENTRAL1, a region), their policies a new bucket's for project p. */
  readonly buckets?: readonly {readonly name: string; readonly location?: string; readonly locationType?: string}[]
  /** Calls that fail, as Cloud Storage answers them. */
  readonly failing?: readonly (CloudStorageFailure & {readonly call: CloudStorageCall})[]
}

let wire: FakeCloudStorage
let memory: MemoryCloudStorage

const ROUTES: Readonly<Record<CloudStorageCall, Pick<StorageFault, 'method' | 'path'>>> = {
  getBucket: {method: 'GET', path: /^b\/[^/]+$/},
  getBucketIamPolicy: {method: 'GET', path: /\/iam$/},
  setBucketIamPolicy: {method: 'PUT', path: /\/iam$/},
}

const subjects: readonly Subject<CloudStorageClient, StorageGiven>[] = [
  {
    name: 'MemoryCloudStorage',
    writes: () => memory.mutations(),
    make: async (given = {}) => {
      memory = new MemoryCloudStorage()
      for (const {name, ...where} of given.buckets ?? []) memory.addBucket(name, where)
      for (const {call, ...failure} of given.failing ?? []) memory.failNext(call, failure)
      return memory
    },
  },
  {
    name: 'the REST adapter against FakeCloudStorage',
    start: async () => {
      wire = await FakeCloudStorage.start()
    },
    stop: () => wire.stop(),
    writes: () => wire.mutatingCalls().map((c) => `setBucketIamPolicy ${decodeURIComponent(c.path.split('/')[1]!)}`),
    make: async (given = {}) => {
      wire.reset()
      for (const bucket of given.buckets ?? []) wire.seedBucket(bucket)
      for (const {call, status, message} of given.failing ?? []) {
        const [httpStatus, reason] = HTTP_ERROR_OF[status]!
        wire.faults.push({...ROUTES[call], status: httpStatus, reason, message})
      }
      return createCloudStorageClient({endpoint: wire.endpoint})
    },
  },
]

const DATA = {buckets: [{name: 'data'}]}
const VIEWER: IamBinding = {
  role: 'roles/storage.objectViewer',
  members: [
    'principal://iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/p.svc.id.goog/subject/ns/default/sa/xpk-sa',
  ],
}
const USER: IamBinding = {role: 'roles/storage.objectUser', members: ['serviceAccount:sa@p.iam.gserviceaccount.com']}
const CONDITIONAL: IamBinding = {
  ...VIEWER,
  condition: {title: 'checkpoints', expression: 'resource.name.startsWith("projects/_/buckets/data/objects/ckpt")'},
}
const NEW_POLICY: IamPolicy = {version: 1, etag: 'CAE=', bindings: defaultBindings('p')}

const readPolicy =
  (name = 'data') =>
  (storage: CloudStorageClient) =>
    storage.getBucketIamPolicy(name)
/** Sets the policy read earlier (kept as `policy`) with `bindings` added, at `version`. */
const addBindings =
  (bindings: readonly IamBinding[], version?: number) =>
  (storage: CloudStorageClient, got: Readonly<Record<string, unknown>>) => {
    const read = got.policy as IamPolicy
    return storage.setBucketIamPolicy('data', {
      ...read,
      version: version ?? read.version,
      bindings: [...read.bindings, ...bindings],
    })
  }
const writes = {
  call: 'the changes sent',
  run: async (_p: unknown, _g: unknown, seen: {writes: () => readonly string[]}) => seen.writes(),
}

/** One call of each method answered 503 fails retryable (exit 7) and changed nothing; again, it goes through. */
function unavailableOnce(call: CloudStorageCall): ContractCase<CloudStorageClient, StorageGiven> {
  const run: Record<CloudStorageCall, Step<CloudStorageClient>['run']> = {
    getBucket: (storage) => storage.getBucket('data'),
    getBucketIamPolicy: readPolicy(),
    setBucketIamPolicy: addBindings([USER]),
  }
  return {
    name: `a ${call} answered 503 fails retryable (exit 7) and changed nothing; again, it goes through`,
    given: {...DATA, failing: [{call, status: 'UNAVAILABLE', message: 'Backend Error'}]},
    steps: [
      ...(call === 'setBucketIamPolicy' ? [{call: 'getBucketIamPolicy', run: readPolicy(), as: 'policy'}] : []),
      {call, run: run[call], fails: {status: 'UNAVAILABLE', kind: 'unavailable', retryable: true, exitCode: 7}},
      ...(call === 'setBucketIamPolicy' ? [{call: 'getBucketIamPolicy', run: readPolicy(), gives: NEW_POLICY}] : []),
      {call: `${call} again`, run: run[call]},
    ],
  }
}

const cases: readonly ContractCase<CloudStorageClient, StorageGiven>[] = [
  {
    name: 'a bucket that does not exist reads as none',
    steps: [{call: 'getBucket(nothing)', run: (storage) => storage.getBucket('nothing'), gives: undefined}],
  },
  {
    name: 'a bucket reads as its name, its location in upper case and its location type',
    given: {buckets: [{name: 'data'}, {name: 'multi', location: 'eu', locationType: 'multi-region'}]},
    steps: [
      {
        call: 'getBucket(data)',
        run: (storage) => storage.getBucket('data'),
        gives: {name: 'data', location: 'US-CENTRAL1', locationType: 'region'},
      },
      {
        call: 'getBucket(multi)',
        run: (storage) => storage.getBucket('multi'),
        gives: {name: 'multi', location: 'EU', locationType: 'multi-region'},
      },
    ],
  },
  {
    name: 'a name Cloud Storage does not take is INVALID_ARGUMENT (exit 2) on every call',
    steps: (['getBucket', 'getBucketIamPolicy', 'setBucketIamPolicy'] as const).map((call) => ({
      call: `${call}(Bad_Name)`,
      run: (storage: CloudStorageClient) =>
        call === 'setBucketIamPolicy' ? storage.setBucketIamPolicy('Bad_Name', NEW_POLICY) : storage[call]('Bad_Name'),
      fails: {
        status: 'INVALID_ARGUMENT',
        kind: 'usage',
        retryable: false,
        exitCode: 2,
        message: /: Invalid bucket name: 'Bad_Name'$/,
      },
    })),
  },
  {
    name: "a new bucket's policy: version 1, etag CAE=, the project's legacy roles",
    given: DATA,
    steps: [{call: 'getBucketIamPolicy', run: readPolicy(), gives: NEW_POLICY}],
  },
  {
    name: 'a policy set with the etag read is replaced and gets a new etag; the etag read before is then stale, and refused (exit 6, not retried)',
    given: DATA,
    steps: [
      {call: 'getBucketIamPolicy', run: readPolicy(), as: 'policy'},
      {
        call: 'setBucketIamPolicy(+viewer)',
        run: addBindings([VIEWER]),
        gives: {version: 1, etag: 'CAI=', bindings: [...NEW_POLICY.bindings, VIEWER]},
      },
      {
        call: 'getBucketIamPolicy',
        run: readPolicy(),
        gives: {version: 1, etag: 'CAI=', bindings: [...NEW_POLICY.bindings, VIEWER]},
      },
      {
        call: 'setBucketIamPolicy(+user) with the old etag',
        run: addBindings([USER]),
        fails: {
          status: 'FAILED_PRECONDITION',
          kind: 'conflict',
          retryable: false,
          exitCode: 6,
          message: 'Could not set the IAM policy of bucket data: Precondition Failed',
          hints: [
            "The bucket's IAM policy changed since it was read (another change came first); re-running reads it again.",
          ],
        },
      },
      {
        call: 'getBucketIamPolicy',
        run: readPolicy(),
        gives: expect.objectContaining({etag: 'CAI=', bindings: [...NEW_POLICY.bindings, VIEWER]}),
      },
      {...writes, gives: ['setBucketIamPolicy data', 'setBucketIamPolicy data']},
    ],
  },
  {
    name: 'a binding with a condition needs a version 3 policy (INVALID_ARGUMENT otherwise), and reads back whole',
    given: DATA,
    steps: [
      {call: 'getBucketIamPolicy', run: readPolicy(), as: 'policy'},
      {
        call: 'setBucketIamPolicy(+conditional) at version 1',
        run: addBindings([CONDITIONAL], 1),
        fails: {
          status: 'INVALID_ARGUMENT',
          kind: 'usage',
          exitCode: 2,
          message: /has a condition: the policy's version must be 3, not 1/,
        },
      },
      {call: 'setBucketIamPolicy(+conditional) at version 3', run: addBindings([CONDITIONAL], 3)},
      {
        call: 'getBucketIamPolicy',
        run: readPolicy(),
        gives: {version: 3, etag: 'CAI=', bindings: [...NEW_POLICY.bindings, CONDITIONAL]},
      },
    ],
  },
  {
    name: 'a member of no known type, or a role that is not one, is INVALID_ARGUMENT (exit 2), changing nothing',
    given: DATA,
    steps: [
      {call: 'getBucketIamPolicy', run: readPolicy(), as: 'policy'},
      {
        call: 'setBucketIamPolicy(+member without a type)',
        run: addBindings([{role: 'roles/storage.objectViewer', members: ['xpk-sa']}]),
        fails: {
          status: 'INVALID_ARGUMENT',
          exitCode: 2,
          message: /Invalid member "xpk-sa" of role roles\/storage.objectViewer/,
        },
      },
      {
        call: 'setBucketIamPolicy(+role without roles/)',
        run: addBindings([{role: 'storage.objectViewer', members: ['user:a@example.com']}]),
        fails: {status: 'INVALID_ARGUMENT', exitCode: 2, message: /Role storage.objectViewer is not a valid role/},
      },
      {call: 'getBucketIamPolicy', run: readPolicy(), gives: NEW_POLICY},
    ],
  },
  {
    name: 'the IAM calls on a bucket that does not exist are NOT_FOUND (exit 4)',
    steps: [
      {
        call: 'getBucketIamPolicy(gone)',
        run: readPolicy('gone'),
        fails: {
          status: 'NOT_FOUND',
          kind: 'not-found',
          exitCode: 4,
          message: 'Could not read the IAM policy of bucket gone: The specified bucket does not exist.',
        },
      },
      {
        call: 'setBucketIamPolicy(gone)',
        run: (storage) => storage.setBucketIamPolicy('gone', NEW_POLICY),
        fails: {status: 'NOT_FOUND', kind: 'not-found', exitCode: 4},
      },
    ],
  },
  ...(Object.keys(ROUTES) as CloudStorageCall[]).map(unavailableOnce),
  {
    name: 'a rate limit is retried (exit 5 when it lasts); a permission denied is not (exit 3)',
    given: {
      ...DATA,
      failing: [
        {call: 'getBucket', status: 'RESOURCE_EXHAUSTED', message: 'The rate of requests to the bucket is too high.'},
        {call: 'getBucketIamPolicy', status: 'PERMISSION_DENIED', message: 'no storage.buckets.getIamPolicy access'},
      ],
    },
    steps: [
      {
        call: 'getBucket',
        run: (storage) => storage.getBucket('data'),
        fails: {status: 'RESOURCE_EXHAUSTED', kind: 'quota', retryable: true, exitCode: 5},
      },
      {
        call: 'getBucketIamPolicy',
        run: readPolicy(),
        fails: {
          status: 'PERMISSION_DENIED',
          kind: 'permission',
          retryable: false,
          exitCode: 3,
          message: 'Could not read the IAM policy of bucket data: no storage.buckets.getIamPolicy access',
        },
      },
    ],
  },
  {
    name: 'a NOT_FOUND to a read of a bucket is no bucket',
    given: {...DATA, failing: [{call: 'getBucket', status: 'NOT_FOUND', message: 'gone meanwhile'}]},
    steps: [{call: 'getBucket', run: (storage) => storage.getBucket('data'), gives: undefined}],
  },
]

portContract('the Cloud Storage port', subjects, cases)
