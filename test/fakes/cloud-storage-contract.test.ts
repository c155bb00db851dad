// The Cloud Storage port's contract (port-contract.ts), held by MemoryCloudStorage (the planner and service tests')
// and by the REST adapter talking to FakeCloudStorage: what attaching a gcsfuse storage and granting the workloads
// access rest on (a bucket read as name, location and type; its IAM policy read and set with its etag, a stale etag
// refused and nothing overwritten; conditions only at version 3), what TPU VM jobs rest on (objects uploaded,
// conditioned on their generation, read, downloaded byte for byte, listed under a prefix with a delimiter across
// pages, deleted), and the failures the one retry policy tells apart.
import {Readable} from 'node:stream'

import {expect} from 'vitest'

import {createCloudStorageClient} from '../../src/adapters/cloud-storage-rest.js'
import type {IamBinding, IamPolicy} from '../../src/core/storage/backends.js'
import type {CloudStorageClient} from '../../src/ports/cloud-storage.js'
import {crc32c, defaultBindings, md5Base64} from './cloud-storage-shapes.js'
import {FakeCloudStorage, type StorageFault} from './fake-cloud-storage.js'
import {HTTP_ERROR_OF} from './fake-server.js'
import {MemoryCloudStorage, type CloudStorageCall, type CloudStorageFailure} from './memory-cloud-storage.js'
import {portContract, type ContractCase, type Step, type Subject} from './port-contract.js'

/** The world a case starts from, in the port's terms. */
interface StorageGiven {
  /** Buckets that exist (default US-CENTRAL1, a region), their policies a new bucket's for project p. */
  readonly buckets?: readonly {readonly name: string; readonly location?: string; readonly locationType?: string}[]
  /** Objects that exist, in those buckets. */
  readonly objects?: readonly {readonly bucket: string; readonly name: string; readonly data: string}[]
  /** Calls that fail, as Cloud Storage answers them. */
  readonly failing?: readonly (CloudStorageFailure & {readonly call: CloudStorageCall})[]
}

let wire: FakeCloudStorage
let memory: MemoryCloudStorage

const ROUTES: Readonly<Record<CloudStorageCall, Pick<StorageFault, 'method' | 'path'>>> = {
  getBucket: {method: 'GET', path: /^b\/[^/]+$/},
  getBucketIamPolicy: {method: 'GET', path: /\/iam$/},
  setBucketIamPolicy: {method: 'PUT', path: /\/iam$/},
  uploadObject: {method: 'POST', path: /\/o$/},
  getObject: {method: 'GET', path: /\/o\/[^/]+$/},
  downloadObject: {method: 'GET', path: /\/o\/[^/]+$/},
  listObjects: {method: 'GET', path: /\/o$/},
  deleteObject: {method: 'DELETE', path: /\/o\/[^/]+$/},
}

/** A wire request that changed something, in the memory fake's words (`uploadObject data/name`). */
function wireWrite(call: {method: string; path: string; query: Readonly<Record<string, string>>}): string {
  const [, bucket = '', , object] = call.path.replace(/^\/upload\/storage\/v1\//, '').split('/')
  if (call.method === 'PUT') return `setBucketIamPolicy ${decodeURIComponent(bucket)}`
  if (call.method === 'POST') return `uploadObject ${decodeURIComponent(bucket)}/${call.query.name ?? ''}`
  return `deleteObject ${decodeURIComponent(bucket)}/${decodeURIComponent(object ?? '')}`
}

const subjects: readonly Subject<CloudStorageClient, StorageGiven>[] = [
  {
    name: 'MemoryCloudStorage',
    writes: () => memory.mutations(),
    make: async (given = {}) => {
      memory = new MemoryCloudStorage()
      for (const {name, ...where} of given.buckets ?? []) memory.addBucket(name, where)
      for (const {bucket, name, data} of given.objects ?? []) memory.addObject(bucket, name, data)
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
    writes: () => wire.mutatingCalls().map(wireWrite),
    make: async (given = {}) => {
      wire.reset()
      // Two to a page: every listing the cases make goes across pages.
      wire.pageSize = 2
      for (const bucket of given.buckets ?? []) wire.seedBucket(bucket)
      for (const {bucket, name, data} of given.objects ?? []) wire.seedObject(bucket, name, data)
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
    uploadObject: (storage) => storage.uploadObject('data', 'new.txt', Buffer.from('new'), {ifGenerationMatch: 0}),
    getObject: (storage) => storage.getObject('data', 'a.txt'),
    downloadObject: (storage) => storage.downloadObject('data', 'a.txt'),
    listObjects: (storage) => storage.listObjects('data'),
    deleteObject: (storage) => storage.deleteObject('data', 'a.txt'),
  }
  return {
    name: `a ${call} answered 503 fails retryable (exit 7) and changed nothing; again, it goes through`,
    given: {...DATA, objects: [A_TXT], failing: [{call, status: 'UNAVAILABLE', message: 'Backend Error'}]},
    steps: [
      ...(call === 'setBucketIamPolicy' ? [{call: 'getBucketIamPolicy', run: readPolicy(), as: 'policy'}] : []),
      {call, run: run[call], fails: {status: 'UNAVAILABLE', kind: 'unavailable', retryable: true, exitCode: 7}},
      ...(call === 'setBucketIamPolicy' ? [{call: 'getBucketIamPolicy', run: readPolicy(), gives: NEW_POLICY}] : []),
      {call: 'listObjects', run: names(), gives: ['a.txt']},
      {call: `${call} again`, run: run[call]},
    ],
  }
}

const A_TXT = {bucket: 'data', name: 'a.txt', data: 'a'}
/** Every byte value, twice: what a text-only path would mangle. */
const BINARY = Buffer.from([...Array.from({length: 256}, (_, i) => i), ...Array.from({length: 256}, (_, i) => 255 - i)])
/** The names listed (all pages) under the prefix, and the prefixes folded by the delimiter. */
const listing =
  (prefix?: string, delimiter?: string) =>
  async (storage: CloudStorageClient): Promise<{names: string[]; prefixes: readonly string[]}> => {
    const {objects, prefixes} = await storage.listObjects('data', {
      ...(prefix === undefined ? {} : {prefix}),
      ...(delimiter === undefined ? {} : {delimiter}),
    })
    return {names: objects.map((o) => o.name), prefixes}
  }
const names = (prefix?: string) => async (storage: CloudStorageClient) => (await listing(prefix)(storage)).names
const RUN = [
  'runs/r1/logs/slice-0-worker-1.log',
  'runs/r1/code.tgz',
  'runs/r1/logs/slice-0-worker-0.log',
  'other',
  'runs/r2/code.tgz',
  'runs/r1/status/w0',
  'runs/r1/logs/slice-1-worker-0.log',
]
const NOT_FOUND = {status: 'NOT_FOUND', kind: 'not-found', retryable: false, exitCode: 4}
const STALE = {status: 'FAILED_PRECONDITION', kind: 'conflict', retryable: false, exitCode: 6}
const generationOf = (got: Readonly<Record<string, unknown>>, key: string) =>
  (got[key] as {generation: string}).generation

const cases: readonly ContractCase<CloudStorageClient, StorageGiven>[] = [
  {
    name: 'an object uploaded reads back with its size, MD5 and CRC32C in base64, a generation and its type, and downloads byte for byte',
    given: DATA,
    steps: [
      {
        call: 'uploadObject(runs/r1/code.tgz)',
        run: (storage) => storage.uploadObject('data', 'runs/r1/code.tgz', BINARY, {contentType: 'application/gzip'}),
        gives: {
          bucket: 'data',
          name: 'runs/r1/code.tgz',
          size: 512,
          md5Hash: md5Base64(BINARY),
          crc32c: crc32c(BINARY),
          generation: expect.stringMatching(/^\d+$/),
          contentType: 'application/gzip',
          metadata: {},
          updated: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
        as: 'uploaded',
      },
      {
        call: 'getObject(runs/r1/code.tgz) is what the upload answered',
        run: async (storage, got) =>
          (await storage.getObject('data', 'runs/r1/code.tgz'))?.generation === generationOf(got, 'uploaded'),
        gives: true,
      },
      {
        call: 'downloadObject(runs/r1/code.tgz)',
        run: (s) => s.downloadObject('data', 'runs/r1/code.tgz'),
        gives: BINARY,
      },
      {
        call: 'uploadObject(from a stream)',
        run: async (storage) => {
          await storage.uploadObject('data', 'streamed', Readable.from([Buffer.from('one '), Buffer.from('two')]))
          return [
            (await storage.downloadObject('data', 'streamed'))?.toString(),
            await storage.getObject('data', 'streamed'),
          ]
        },
        gives: ['one two', expect.objectContaining({size: 7, contentType: 'application/octet-stream'})],
      },
      {...writes, gives: ['uploadObject data/runs/r1/code.tgz', 'uploadObject data/streamed']},
    ],
  },
  {
    name: 'ifGenerationMatch 0 writes only a new object, the generation read writes over it once, and a stale one is refused (exit 6, not retried), writing nothing',
    given: DATA,
    steps: [
      {
        call: 'uploadObject(v1, if none)',
        run: (s) => s.uploadObject('data', 'state', Buffer.from('v1'), {ifGenerationMatch: 0}),
        as: 'v1',
      },
      {
        call: 'uploadObject(again, if none)',
        run: (s) => s.uploadObject('data', 'state', Buffer.from('no'), {ifGenerationMatch: '0'}),
        fails: {
          ...STALE,
          message: 'Could not upload gs://data/state: At least one of the pre-conditions you specified did not hold.',
          hints: [
            'gs://data/state is not the generation the write was made for (another writer came first); re-running reads it again.',
          ],
        },
      },
      {
        call: 'uploadObject(v2, if v1)',
        run: (s, got) =>
          s.uploadObject('data', 'state', Buffer.from('v2'), {ifGenerationMatch: generationOf(got, 'v1')}),
        as: 'v2',
      },
      {
        call: 'a new generation',
        run: async (_s, got) => generationOf(got, 'v2') !== generationOf(got, 'v1'),
        gives: true,
      },
      {
        call: 'uploadObject(v3, if v1)',
        run: (s, got) =>
          s.uploadObject('data', 'state', Buffer.from('v3'), {ifGenerationMatch: Number(generationOf(got, 'v1'))}),
        fails: STALE,
      },
      {
        call: 'downloadObject(state)',
        run: async (s) => (await s.downloadObject('data', 'state'))?.toString(),
        gives: 'v2',
      },
      {
        call: 'uploadObject(if not a number)',
        run: (s) => s.uploadObject('data', 'state', Buffer.from('x'), {ifGenerationMatch: 'latest'}),
        fails: {status: 'INVALID_ARGUMENT', kind: 'usage', exitCode: 2},
      },
    ],
  },
  {
    name: 'a listing is in name order across pages; a delimiter folds the names below it into prefixes',
    given: {...DATA, objects: RUN.map((name) => ({bucket: 'data', name, data: name}))},
    steps: [
      {call: 'listObjects()', run: names(), gives: [...RUN].sort()},
      {
        call: 'listObjects(runs/r1/)',
        run: listing('runs/r1/'),
        gives: {
          names: [
            'runs/r1/code.tgz',
            'runs/r1/logs/slice-0-worker-0.log',
            'runs/r1/logs/slice-0-worker-1.log',
            'runs/r1/logs/slice-1-worker-0.log',
            'runs/r1/status/w0',
          ],
          prefixes: [],
        },
      },
      {
        call: 'listObjects(runs/, /)',
        run: listing('runs/', '/'),
        gives: {names: [], prefixes: ['runs/r1/', 'runs/r2/']},
      },
      {
        call: 'listObjects(runs/r1/, /)',
        run: listing('runs/r1/', '/'),
        gives: {names: ['runs/r1/code.tgz'], prefixes: ['runs/r1/logs/', 'runs/r1/status/']},
      },
      {
        call: 'listObjects(runs/r1/logs/slice-0)',
        run: names('runs/r1/logs/slice-0'),
        gives: ['runs/r1/logs/slice-0-worker-0.log', 'runs/r1/logs/slice-0-worker-1.log'],
      },
      {call: 'listObjects(nothing/)', run: listing('nothing/', '/'), gives: {names: [], prefixes: []}},
    ],
  },
  {
    name: 'names with slashes, spaces, #, ?, %, + and non-ASCII letters are one object each, read, listed and deleted as uploaded',
    given: DATA,
    steps: [
      ...['dir/a b#c?d%e+f', 'ü/ñ.txt', 'plain'].map((name) => ({
        call: `uploadObject(${name})`,
        run: (s: CloudStorageClient) => s.uploadObject('data', name, Buffer.from(name)),
      })),
      {
        call: 'getObject(dir/a b#c?d%e+f)',
        run: async (s) => (await s.getObject('data', 'dir/a b#c?d%e+f'))?.name,
        gives: 'dir/a b#c?d%e+f',
      },
      {
        call: 'downloadObject(ü/ñ.txt)',
        run: async (s) => (await s.downloadObject('data', 'ü/ñ.txt'))?.toString(),
        gives: 'ü/ñ.txt',
      },
      {call: 'listObjects()', run: names(), gives: ['dir/a b#c?d%e+f', 'plain', 'ü/ñ.txt']},
      {call: 'deleteObject(dir/a b#c?d%e+f)', run: (s) => s.deleteObject('data', 'dir/a b#c?d%e+f'), gives: true},
      {call: 'listObjects()', run: names(), gives: ['plain', 'ü/ñ.txt']},
    ],
  },
  {
    name: 'a deleted object is gone; a missing one reads and downloads as none and deletes as false; a bad name is INVALID_ARGUMENT',
    given: {...DATA, objects: [A_TXT]},
    steps: [
      {call: 'deleteObject(a.txt)', run: (s) => s.deleteObject('data', 'a.txt'), gives: true},
      {call: 'getObject(a.txt)', run: (s) => s.getObject('data', 'a.txt'), gives: undefined},
      {call: 'downloadObject(a.txt)', run: (s) => s.downloadObject('data', 'a.txt'), gives: undefined},
      {call: 'deleteObject(a.txt) again', run: (s) => s.deleteObject('data', 'a.txt'), gives: false},
      {call: 'listObjects()', run: names(), gives: []},
      {
        call: 'uploadObject(a line feed in the name)',
        run: (s) => s.uploadObject('data', 'a\nb', Buffer.from('x')),
        fails: {status: 'INVALID_ARGUMENT', kind: 'usage', exitCode: 2},
      },
      {...writes, gives: ['deleteObject data/a.txt', 'deleteObject data/a.txt', 'uploadObject data/a\nb']},
    ],
  },
  {
    name: 'in a bucket that does not exist, objects read as none, and an upload or a listing is NOT_FOUND (exit 4)',
    steps: [
      {call: 'getObject(gone/a)', run: (s) => s.getObject('gone', 'a'), gives: undefined},
      {call: 'downloadObject(gone/a)', run: (s) => s.downloadObject('gone', 'a'), gives: undefined},
      {call: 'deleteObject(gone/a)', run: (s) => s.deleteObject('gone', 'a'), gives: false},
      {
        call: 'uploadObject(gone/a)',
        run: (s) => s.uploadObject('gone', 'a', Buffer.from('x')),
        fails: {...NOT_FOUND, message: 'Could not upload gs://gone/a: The specified bucket does not exist.'},
      },
      {call: 'listObjects(gone)', run: (s) => s.listObjects('gone'), fails: NOT_FOUND},
    ],
  },
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
