// The REST adapters of the two Google services behind a storage (src/adapters/filestore-rest.ts,
// cloud-storage-rest.ts): what they send (paths, query, bodies, the endpoint's root and credentials), how they read
// the answers into the ports' types, and how their failures are classified. What both adapters and the in-memory
// fakes do alike is in the contracts (test/fakes/filestore-contract.test.ts, cloud-storage-contract.test.ts).
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {createCloudStorageClient} from '../../src/adapters/cloud-storage-rest.js'
import {createFilestoreClient} from '../../src/adapters/filestore-rest.js'
import {ApiError, XpkError} from '../../src/core/errors.js'
import type {CloudStorageClient} from '../../src/ports/cloud-storage.js'
import type {FilestoreClient, FilestoreInstanceRequest} from '../../src/ports/filestore.js'
import {FakeCloudStorage, storageErrors} from '../fakes/fake-cloud-storage.js'
import {FakeFilestore, filestoreErrors} from '../fakes/fake-filestore.js'
import {rejection} from '../helpers/thrown.js'

const WHERE = {project: 'p1', location: 'us-central1-a'}
const REQUEST: FilestoreInstanceRequest = {
  tier: 'BASIC_HDD',
  network: 'default',
  fileShare: {name: 'vol1', capacityGb: 1024},
  description: 'XPK created filestore instance',
  labels: {'xpk-storage': 'data'},
}

let filestoreFake: FakeFilestore
let storageFake: FakeCloudStorage
let filestore: FilestoreClient
let storage: CloudStorageClient

beforeAll(async () => {
  filestoreFake = await FakeFilestore.start({operationMs: Infinity})
  storageFake = await FakeCloudStorage.start()
  filestore = await createFilestoreClient({endpoint: filestoreFake.endpoint})
  storage = await createCloudStorageClient({endpoint: storageFake.endpoint})
})
afterAll(async () => {
  await filestoreFake.stop()
  await storageFake.stop()
})
beforeEach(() => {
  filestoreFake.reset()
  storageFake.reset()
})

const failure = (promise: Promise<unknown>) => rejection(promise, XpkError)

const classified = (e: XpkError) => ({
  kind: e.kind,
  exitCode: e.exitCode,
  status: e instanceof ApiError ? e.status : null,
  retryable: e instanceof ApiError ? e.retryable : false,
})

/** A fetch that records each URL and sends it to `target` instead of the real service (nothing leaves the machine). */
function redirectingFetch(seen: {url: string; authorization: string | undefined}[], target: () => string) {
  return (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input)
    seen.push({url, authorization: new Headers(init?.headers).get('authorization') ?? undefined})
    return fetch(url.replace(/^https:\/\/[^/]+/, target()), init)
  }
}

describe('the Filestore adapter', () => {
  it('creates an instance as the API takes it: instanceId in the query, one share (capacity an int64 string), one network', async () => {
    const op = await filestore.createInstance(WHERE, 'data', REQUEST)
    expect(op).toEqual({
      name: expect.stringMatching(/^projects\/p1\/locations\/us-central1-a\/operations\//),
      done: false,
    })
    expect(filestoreFake.calls.map((c) => [c.method, c.path, c.query, c.body])).toEqual([
      [
        'POST',
        'projects/p1/locations/us-central1-a/instances',
        {instanceId: 'data'},
        {
          tier: 'BASIC_HDD',
          description: 'XPK created filestore instance',
          labels: {'xpk-storage': 'data'},
          fileShares: [{name: 'vol1', capacityGb: '1024'}],
          networks: [{network: 'default', modes: ['MODE_IPV4']}],
        },
      ],
    ])
  })

  it('reads an instance into the port: id and location from its name, the network by name, its first address', async () => {
    filestoreFake.seedInstance({
      ...WHERE,
      id: 'shared',
      tier: 'ZONAL',
      network: 'projects/host/global/networks/shared-vpc',
      capacityGb: 10240,
      ipAddress: '10.9.8.2',
      labels: {a: 'b'},
    })
    expect(await filestore.getInstance(WHERE, 'shared')).toEqual({
      id: 'shared',
      location: 'us-central1-a',
      tier: 'ZONAL',
      state: 'READY',
      network: 'shared-vpc',
      ipAddress: '10.9.8.2',
      fileShares: [{name: 'vol1', capacityGb: 10240}],
      labels: {a: 'b'},
    })
  })

  it.each([
    ['STANDARD', 'BASIC_HDD'],
    ['PREMIUM', 'BASIC_SSD'],
    ['HIGH_SCALE_SSD', 'ZONAL'],
  ])('reads the old tier name %s as %s', async (old, tier) => {
    filestoreFake.seedInstance({...WHERE, id: 'old', tier: old})
    expect((await filestore.getInstance(WHERE, 'old'))?.tier).toBe(tier)
  })

  it('refuses an instance of a tier it does not know, naming the tier, as a failure a re-run does not fix', async () => {
    filestoreFake.seedInstance({...WHERE, id: 'future', tier: 'HYPERSCALE'})
    const error = await failure(filestore.getInstance(WHERE, 'future'))
    expect(classified(error)).toEqual({kind: 'failed', exitCode: 1, status: 'UNIMPLEMENTED', retryable: false})
    expect(error.message).toMatch(/^Could not read Filestore instance future: instance future: its tier "HYPERSCALE"/)
  })

  it('reads an operation by its full name, with its error when it failed', async () => {
    filestoreFake.failOperations({status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded'})
    const op = await filestore.createInstance(WHERE, 'data', REQUEST)
    filestoreFake.finishOperations()
    expect(await filestore.getOperation(op.name)).toEqual({
      name: op.name,
      done: true,
      error: {code: 8, message: 'Quota exceeded'},
    })
    expect(filestoreFake.calls.at(-1)!.path).toBe(op.name)
  })

  it('says how to enable the API when it is disabled in the project (exit 3)', async () => {
    filestoreFake.faults.push(filestoreErrors.apiDisabled('p1'))
    const error = await failure(filestore.createInstance(WHERE, 'data', REQUEST))
    expect(classified(error)).toEqual({kind: 'permission', exitCode: 3, status: 'PERMISSION_DENIED', retryable: false})
    expect(error.hints).toEqual([expect.stringContaining('gcloud services enable file.googleapis.com --project=p1')])
  })

  it('takes out-of-quota as final (exit 5), a rate limit as retryable', async () => {
    filestoreFake.faults.push(filestoreErrors.quotaExceeded())
    const quota = await failure(filestore.createInstance(WHERE, 'data', REQUEST))
    expect(classified(quota)).toEqual({kind: 'quota', exitCode: 5, status: 'RESOURCE_EXHAUSTED', retryable: false})
    filestoreFake.faults.push({status: 'RESOURCE_EXHAUSTED', message: 'Too many requests per minute'})
    expect(classified(await failure(filestore.getInstance(WHERE, 'data')))).toMatchObject({
      kind: 'quota',
      retryable: true,
    })
  })

  it('reads a 200 that is not JSON (a proxy page) as a retryable INTERNAL failure', async () => {
    const proxied = await createFilestoreClient({
      endpoint: 'https://file.example.test/',
      accessToken: 't',
      fetch: async () => new Response('<html>hello</html>', {status: 200}),
    })
    const error = await failure(proxied.getInstance(WHERE, 'data'))
    expect(classified(error)).toEqual({kind: 'unavailable', exitCode: 7, status: 'INTERNAL', retryable: true})
  })
})

describe('the Cloud Storage adapter', () => {
  it('reads a bucket into name, location and location type; a missing one as undefined', async () => {
    storageFake.seedBucket({name: 'datasets', location: 'eu', locationType: 'multi-region'})
    expect(await storage.getBucket('datasets')).toEqual({
      name: 'datasets',
      location: 'EU',
      locationType: 'multi-region',
    })
    expect(await storage.getBucket('nothing')).toBeUndefined()
  })

  it('reads the policy at version 3 and sends it back with its version, etag and bindings, conditions kept', async () => {
    storageFake.seedBucket({name: 'datasets', project: 'p1'})
    const read = await storage.getBucketIamPolicy('datasets')
    expect(read).toMatchObject({version: 1, etag: 'CAE='})
    const binding = {
      role: 'roles/storage.objectViewer',
      members: ['serviceAccount:sa@p1.iam.gserviceaccount.com'],
      condition: {title: 'data', expression: 'resource.name.startsWith("projects/_/buckets/datasets/objects/data")'},
    }
    const set = await storage.setBucketIamPolicy('datasets', {
      ...read,
      version: 3,
      bindings: [...read.bindings, binding],
    })
    expect(set).toEqual({version: 3, etag: 'CAI=', bindings: [...read.bindings, binding]})
    expect(storageFake.calls.map((c) => [c.method, c.path, c.query])).toEqual([
      ['GET', 'b/datasets/iam', {optionsRequestedPolicyVersion: '3'}],
      ['PUT', 'b/datasets/iam', {}],
    ])
    expect(storageFake.calls[1]!.body).toEqual({version: 3, etag: 'CAE=', bindings: [...read.bindings, binding]})
  })

  it('refuses a stale etag as a conflict that is not retried (exit 6), the policy untouched', async () => {
    storageFake.seedBucket({name: 'datasets'})
    const read = await storage.getBucketIamPolicy('datasets')
    storageFake.changePolicy('datasets', [{role: 'roles/storage.objectViewer', members: ['user:a@example.com']}])
    const error = await failure(storage.setBucketIamPolicy('datasets', read))
    expect(classified(error)).toEqual({kind: 'conflict', exitCode: 6, status: 'FAILED_PRECONDITION', retryable: false})
    expect(error.message).toBe('Could not set the IAM policy of bucket datasets: Precondition Failed')
    expect(error.hints).toEqual([expect.stringContaining('changed since it was read')])
  })

  it("classifies Cloud Storage's 403, 429 and 400 by their HTTP status (its bodies name no gRPC status)", async () => {
    storageFake.seedBucket({name: 'datasets'})
    storageFake.faults.push(storageErrors.permissionDenied('datasets'))
    const denied = await failure(storage.getBucketIamPolicy('datasets'))
    expect(classified(denied)).toEqual({kind: 'permission', exitCode: 3, status: 'PERMISSION_DENIED', retryable: false})
    expect(denied.hints).toEqual([expect.stringContaining('lack a permission on bucket datasets')])
    storageFake.faults.push(storageErrors.rateLimited())
    expect(classified(await failure(storage.getBucket('datasets')))).toEqual({
      kind: 'quota',
      exitCode: 5,
      status: 'RESOURCE_EXHAUSTED',
      retryable: true,
    })
    const badName = await failure(storage.getBucket('Bad Name'))
    expect(classified(badName)).toEqual({kind: 'usage', exitCode: 2, status: 'INVALID_ARGUMENT', retryable: false})
    expect(badName.message).toBe("Could not read bucket Bad Name: Invalid bucket name: 'Bad Name'")
  })
})

describe('the Cloud Storage adapter: objects', () => {
  it('uploads to the upload root beside the API root (a proxy path too), the bytes as they are, with the token', async () => {
    storageFake.seedBucket({name: 'datasets'})
    const seen: {url: string; authorization: string | undefined}[] = []
    const fetch = redirectingFetch(seen, () => storageFake.endpoint)
    const bytes = Buffer.from([0, 255, 13, 10, 128])
    const direct = await createCloudStorageClient({accessToken: 'tok-1', fetch})
    const written = await direct.uploadObject('datasets', 'runs/r 1/code.tgz', bytes, {
      ifGenerationMatch: 0,
      contentType: 'application/gzip',
    })
    const proxied = await createCloudStorageClient({
      endpoint: 'https://proxy.example.test/gcs/storage/v1/',
      accessToken: 'tok-1',
      fetch,
    })
    await proxied.uploadObject('datasets', 'x', bytes).catch(() => undefined)
    expect(seen).toEqual([
      {
        url: 'https://storage.googleapis.com/upload/storage/v1/b/datasets/o?uploadType=media&name=runs%2Fr+1%2Fcode.tgz&ifGenerationMatch=0',
        authorization: 'Bearer tok-1',
      },
      {
        url: 'https://proxy.example.test/upload/gcs/storage/v1/b/datasets/o?uploadType=media&name=x',
        authorization: 'Bearer tok-1',
      },
    ])
    expect(storageFake.object('datasets', 'runs/r 1/code.tgz')).toMatchObject({
      data: bytes,
      json: {contentType: 'application/gzip', size: '5', generation: written.generation},
    })
    // The download is the bytes, not text decoded and encoded again.
    expect(await direct.downloadObject('datasets', 'runs/r 1/code.tgz')).toEqual(bytes)
    expect(seen.at(-1)?.url).toBe(
      'https://storage.googleapis.com/storage/v1/b/datasets/o/runs%2Fr%201%2Fcode.tgz?alt=media',
    )
  })
})

describe('endpoints and credentials', () => {
  const cases = [
    {
      api: 'Filestore',
      flag: '--filestore-endpoint',
      make: createFilestoreClient,
      call: (c: FilestoreClient | CloudStorageClient) => (c as FilestoreClient).getInstance(WHERE, 'x'),
      target: () => filestoreFake.endpoint,
      defaultUrl: 'https://file.googleapis.com/v1/projects/p1/locations/us-central1-a/instances/x',
      pathUrl: 'https://proxy.example.test/filestore/v1/projects/p1/locations/us-central1-a/instances/x',
      pathEndpoint: 'https://proxy.example.test/filestore/v1',
    },
    {
      api: 'Cloud Storage',
      flag: '--storage-endpoint',
      make: createCloudStorageClient,
      call: (c: FilestoreClient | CloudStorageClient) => (c as CloudStorageClient).getBucket('datasets'),
      target: () => storageFake.endpoint,
      defaultUrl: 'https://storage.googleapis.com/storage/v1/b/datasets',
      pathUrl: 'https://proxy.example.test/gcs/storage/v1/b/datasets',
      pathEndpoint: 'https://proxy.example.test/gcs/storage/v1/',
    },
  ] as const

  it.each(cases)('$api: the default root and a given path, the token as a Bearer header over https', async (c) => {
    const seen: {url: string; authorization: string | undefined}[] = []
    const fetch = redirectingFetch(seen, c.target)
    await c.call(await c.make({accessToken: 'tok-1', fetch}))
    await c.call(await c.make({endpoint: c.pathEndpoint, accessToken: 'tok-1', fetch}))
    expect(seen).toEqual([
      {url: c.defaultUrl, authorization: 'Bearer tok-1'},
      {url: c.pathUrl, authorization: 'Bearer tok-1'},
    ])
  })

  it.each(cases)('$api: no credentials to a loopback http endpoint, even when given a token', async (c) => {
    await c.call(await c.make({endpoint: c.target(), accessToken: 'do-not-leak'}))
    const calls = c.api === 'Filestore' ? filestoreFake.calls : storageFake.calls
    expect(calls.map((call) => call.authorization)).toEqual([undefined])
  })

  it.each(cases)('$api: a bad endpoint is bad input naming its flag (exit 2)', async (c) => {
    for (const endpoint of ['http://file.example.com', 'ftp://127.0.0.1:21', 'https://user:pw@host/']) {
      const error = await failure(c.make({endpoint}))
      expect([error.kind, error.exitCode, error.message.startsWith(`${c.flag} "`)]).toEqual(['usage', 2, true])
    }
  })
})
