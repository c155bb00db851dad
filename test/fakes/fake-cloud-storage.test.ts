// FakeCloudStorage on the wire, as its spec (fake-cloud-storage.md) says: the Cloud Storage JSON API's bucket and IAM
// routes, its JSON (storage#bucket, storage#policy) and its error bodies (errors[] with a reason, no gRPC status),
// the etag check of a policy write, the refusals and the faults. Raw requests, so the bodies are checked as sent.
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {FakeCloudStorage, storageErrors} from './fake-cloud-storage.js'

let fake: FakeCloudStorage

beforeAll(async () => {
  fake = await FakeCloudStorage.start()
})
afterAll(() => fake.stop())
beforeEach(() => fake.reset())

async function send(method: string, path: string, body?: unknown) {
  const response = await fetch(`${fake.endpoint}/storage/v1/${path}`, {
    method,
    ...(body === undefined ? {} : {body: typeof body === 'string' ? body : JSON.stringify(body)}),
  })
  return {status: response.status, body: (await response.json()) as Record<string, unknown>}
}

/** Cloud Storage's error body: errors[] with domain and reason, and no gRPC status name. */
const storageError = (code: number, reason: string, message: string | RegExp) => {
  const text = typeof message === 'string' ? message : expect.stringMatching(message)
  return {error: {code, message: text, errors: [{message: text, domain: 'global', reason}]}}
}

const VIEWER = {role: 'roles/storage.objectViewer', members: ['serviceAccount:sa@p.iam.gserviceaccount.com']}
const WI_USER = {
  role: 'roles/storage.objectUser',
  members: [
    'principal://iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/p.svc.id.goog/subject/ns/default/sa/xpk-sa',
  ],
}

describe('FakeCloudStorage: buckets', () => {
  it('reads a bucket as storage#bucket, its location in upper case', async () => {
    fake.seedBucket({name: 'data', location: 'us-central1'})
    expect(await send('GET', 'b/data')).toEqual({
      status: 200,
      body: expect.objectContaining({
        kind: 'storage#bucket',
        id: 'data',
        name: 'data',
        selfLink: 'https://www.googleapis.com/storage/v1/b/data',
        location: 'US-CENTRAL1',
        locationType: 'region',
        storageClass: 'STANDARD',
        iamConfiguration: expect.objectContaining({uniformBucketLevelAccess: {enabled: true}}),
      }),
    })
  })

  it('answers a missing bucket 404 notFound, with no gRPC status in the body', async () => {
    const reply = await send('GET', 'b/nothing')
    expect(reply).toEqual({status: 404, body: storageError(404, 'notFound', 'The specified bucket does not exist.')})
    expect(reply.body.error).not.toHaveProperty('status')
  })

  const badNames = [
    'ab',
    'Upper',
    'has space',
    '-dash-first',
    'dash-last-',
    '192.168.1.1',
    'a'.repeat(64),
    'goog-bucket',
    'my-google-data',
    'my-g00gle-data',
    'under_score_',
    `${'a'.repeat(64)}.b`,
  ]
  it.each(badNames)('refuses the bucket name %j (400 invalid) on every route', async (name) => {
    const encoded = encodeURIComponent(name)
    for (const [method, path] of [
      ['GET', `b/${encoded}`],
      ['GET', `b/${encoded}/iam`],
      ['PUT', `b/${encoded}/iam`],
    ] as const) {
      expect(await send(method, path, method === 'PUT' ? {bindings: []} : undefined)).toEqual({
        status: 400,
        body: storageError(400, 'invalid', `Invalid bucket name: '${name}'`),
      })
    }
  })

  it.each(['abc', 'my_bucket-1', 'a.b.c', `${'a'.repeat(63)}.b`])('takes the bucket name %j', async (name) => {
    expect((await send('GET', `b/${name}`)).status).toBe(404)
  })

  it('answers 404 to routes it does not serve', async () => {
    fake.seedBucket({name: 'data'})
    for (const [method, path] of [
      ['POST', 'b/data/iam'],
      ['GET', 'b/data/o'],
      ['GET', 'b'],
      ['DELETE', 'b/data'],
      ['GET', 'b/data/iam/testPermissions'],
    ]) {
      expect([method, path, (await send(method!, path!)).status]).toEqual([method, path, 404])
    }
  })
})

describe('FakeCloudStorage: IAM policies and their etags', () => {
  it("reads a new bucket's policy: version 1, etag CAE=, the project's legacy roles", async () => {
    fake.seedBucket({name: 'data', project: 'p1'})
    expect((await send('GET', 'b/data/iam?optionsRequestedPolicyVersion=3')).body).toEqual({
      kind: 'storage#policy',
      resourceId: 'projects/_/buckets/data',
      version: 1,
      etag: 'CAE=',
      bindings: [
        {role: 'roles/storage.legacyBucketOwner', members: ['projectEditor:p1', 'projectOwner:p1']},
        {role: 'roles/storage.legacyBucketReader', members: ['projectViewer:p1']},
        {role: 'roles/storage.legacyObjectOwner', members: ['projectEditor:p1', 'projectOwner:p1']},
        {role: 'roles/storage.legacyObjectReader', members: ['projectViewer:p1']},
      ],
    })
  })

  it('replaces the policy when the etag is the current one, and gives it a new etag', async () => {
    fake.seedBucket({name: 'data'})
    const set = await send('PUT', 'b/data/iam', {version: 1, etag: 'CAE=', bindings: [VIEWER, WI_USER]})
    expect(set).toEqual({
      status: 200,
      body: {
        kind: 'storage#policy',
        resourceId: 'projects/_/buckets/data',
        version: 1,
        etag: 'CAI=',
        bindings: [VIEWER, WI_USER],
      },
    })
    expect((await send('GET', 'b/data/iam')).body).toEqual(set.body)
  })

  it('refuses a stale etag with 412 conditionNotMet "Precondition Failed", changing nothing', async () => {
    fake.seedBucket({name: 'data'})
    await send('PUT', 'b/data/iam', {etag: 'CAE=', bindings: [VIEWER]})
    expect(await send('PUT', 'b/data/iam', {etag: 'CAE=', bindings: [WI_USER]})).toEqual({
      status: 412,
      body: storageError(412, 'conditionNotMet', 'Precondition Failed'),
    })
    expect(fake.policy('data')?.bindings).toEqual([VIEWER])
  })

  it('makes an etag read before another writer changed the policy stale', async () => {
    fake.seedBucket({name: 'data'})
    const read = (await send('GET', 'b/data/iam')).body
    fake.changePolicy('data', [VIEWER])
    expect((await send('PUT', 'b/data/iam', {...read, bindings: [WI_USER]})).status).toBe(412)
    expect(fake.policy('data')).toMatchObject({etag: 'CAI=', bindings: [VIEWER]})
  })

  it('replaces the policy whatever it became when no etag is sent', async () => {
    fake.seedBucket({name: 'data'})
    fake.changePolicy('data', [VIEWER])
    expect((await send('PUT', 'b/data/iam', {bindings: [WI_USER]})).body).toMatchObject({bindings: [WI_USER]})
  })

  it('takes conditions in a version 3 policy only, and then refuses to read it below version 3', async () => {
    fake.seedBucket({name: 'data'})
    const conditional = {...VIEWER, condition: {title: 'prefix', expression: 'resource.name.startsWith("x")'}}
    expect(await send('PUT', 'b/data/iam', {version: 1, etag: 'CAE=', bindings: [conditional]})).toEqual({
      status: 400,
      body: storageError(400, 'invalid', /has a condition: the policy's version must be 3, not 1/),
    })
    expect((await send('PUT', 'b/data/iam', {version: 3, etag: 'CAE=', bindings: [conditional]})).status).toBe(200)
    expect(await send('GET', 'b/data/iam')).toEqual({
      status: 400,
      body: storageError(
        400,
        'invalid',
        'Requested policy version (1) cannot be less than the existing policy version (3).',
      ),
    })
    expect((await send('GET', 'b/data/iam?optionsRequestedPolicyVersion=3')).body).toMatchObject({
      version: 3,
      bindings: [conditional],
    })
  })

  const badPolicies: [string, unknown, RegExp][] = [
    [
      'a role without roles/',
      {bindings: [{role: 'storage.objectViewer', members: ['user:a@b.c']}]},
      /not a valid role/,
    ],
    ['a member without a type', {bindings: [{role: 'roles/x', members: ['a@b.c']}]}, /Invalid member "a@b.c"/],
    ['a member of an unknown type', {bindings: [{role: 'roles/x', members: ['robot:a']}]}, /Invalid member/],
    ['a binding without members', {bindings: [{role: 'roles/x'}]}, /Invalid value for bindings/],
    ['bindings that are not a list', {bindings: {role: 'roles/x'}}, /Invalid value for bindings/],
    ['version 4', {version: 4, bindings: []}, /Invalid policy version 4/],
  ]
  it.each(badPolicies)('refuses %s (400 invalid), changing nothing', async (_what, body, message) => {
    fake.seedBucket({name: 'data'})
    expect(await send('PUT', 'b/data/iam', body)).toEqual({status: 400, body: storageError(400, 'invalid', message)})
    expect(fake.policy('data')?.etag).toBe('CAE=')
  })

  it('refuses a body that is not a JSON object (400 parseError)', async () => {
    fake.seedBucket({name: 'data'})
    expect(await send('PUT', 'b/data/iam', '{bindings')).toEqual({
      status: 400,
      body: storageError(400, 'parseError', 'Parse Error'),
    })
  })

  it('answers the IAM routes of a missing bucket 404', async () => {
    expect((await send('GET', 'b/gone/iam')).status).toBe(404)
    expect((await send('PUT', 'b/gone/iam', {bindings: []})).status).toBe(404)
  })
})

describe('FakeCloudStorage: faults and the log', () => {
  it("answers Cloud Storage's own 403 for a permission it lacks, on the bucket the fault names", async () => {
    fake.seedBucket({name: 'data'})
    fake.seedBucket({name: 'other'})
    fake.faults.push({method: 'GET', ...storageErrors.permissionDenied('data'), times: Infinity})
    expect(await send('GET', 'b/data/iam')).toEqual({
      status: 403,
      body: storageError(
        403,
        'forbidden',
        "xpk@p.iam.gserviceaccount.com does not have storage.buckets.getIamPolicy access to the Google Cloud Storage bucket. Permission 'storage.buckets.getIamPolicy' denied on resource (or it may not exist).",
      ),
    })
    expect((await send('GET', 'b/other/iam')).status).toBe(200)
  })

  it('answers a rate limit 429 rateLimitExceeded, then serves again', async () => {
    fake.seedBucket({name: 'data'})
    fake.faults.push(storageErrors.rateLimited())
    expect(await send('GET', 'b/data')).toEqual({
      status: 429,
      body: storageError(429, 'rateLimitExceeded', 'The rate of requests to the bucket is too high.'),
    })
    expect((await send('GET', 'b/data')).status).toBe(200)
  })

  it('applies a write whose answer an afterApply fault loses', async () => {
    fake.seedBucket({name: 'data'})
    fake.faults.push({method: 'PUT', status: 503, afterApply: true})
    expect((await send('PUT', 'b/data/iam', {etag: 'CAE=', bindings: [VIEWER]})).status).toBe(503)
    expect(fake.policy('data')).toMatchObject({etag: 'CAI=', bindings: [VIEWER]})
  })

  it('sends a raw body when told, and only delays without a status', async () => {
    fake.faults.push({status: 502, rawBody: '<html>Bad Gateway</html>'})
    const response = await fetch(`${fake.endpoint}/storage/v1/b/data`)
    expect([response.status, await response.text()]).toEqual([502, '<html>Bad Gateway</html>'])
    fake.faults.push({delayMs: 30})
    const started = Date.now()
    expect((await send('GET', 'b/data')).status).toBe(404)
    expect(Date.now() - started).toBeGreaterThanOrEqual(25)
  })

  it('logs every request with its query and body; mutatingCalls are the PUTs', async () => {
    fake.seedBucket({name: 'data'})
    await send('GET', 'b/data/iam?optionsRequestedPolicyVersion=3')
    await send('PUT', 'b/data/iam', {etag: 'CAE=', bindings: [VIEWER]})
    expect(fake.calls.map((c) => [c.method, c.path, c.query, c.status])).toEqual([
      ['GET', 'b/data/iam', {optionsRequestedPolicyVersion: '3'}, 200],
      ['PUT', 'b/data/iam', {}, 200],
    ])
    expect(fake.mutatingCalls().map((c) => c.body)).toEqual([{etag: 'CAE=', bindings: [VIEWER]}])
  })
})
