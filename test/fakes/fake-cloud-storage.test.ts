// FakeCloudStorage on the wire, as its spec (fake-cloud-storage.md) says: the Cloud Storage JSON API's bucket and IAM
// routes, its JSON (storage#bucket, storage#policy) and its error bodies (errors[] with a reason, no gRPC status),
// the etag check of a policy write, the refusals and the faults. Raw requests, so the bodies are checked as sent.
import {execFile} from 'node:child_process'
import {promisify} from 'node:util'

import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {FakeCloudStorage, storageErrors} from './fake-cloud-storage.js'

let fake: FakeCloudStorage

/** curl, as a worker's startup script runs it (asynchronously: the fake answers from this process). */
async function curl(...args: string[]): Promise<{code: number; stdout: string}> {
  try {
    const {stdout} = await promisify(execFile)('curl', ['-sS', '--max-time', '10', ...args], {encoding: 'utf8'})
    return {code: 0, stdout}
  } catch (error) {
    const failed = error as {code?: number; stdout?: string}
    return {code: failed.code ?? -1, stdout: failed.stdout ?? ''}
  }
}

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
      ['PUT', 'b/data/o'],
      ['POST', 'b/data/o'],
      ['PUT', 'b/data/o/a'],
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

describe('FakeCloudStorage: objects', () => {
  const upload = (bucket: string, query: string, body: string | Buffer, contentType = 'text/plain') =>
    fetch(`${fake.endpoint}/upload/storage/v1/b/${bucket}/o?${query}`, {
      method: 'POST',
      headers: {'content-type': contentType},
      body: new Uint8Array(typeof body === 'string' ? Buffer.from(body) : body),
    }).then(async (r) => ({status: r.status, body: (await r.json()) as Record<string, unknown>}))

  it('writes a media upload as storage#object: int64s as strings, MD5 and CRC32C in base64, links to itself', async () => {
    fake.seedBucket({name: 'data'})
    const reply = await upload('data', 'uploadType=media&name=runs%2Fr1%2Fcode.tgz', '123456789', 'application/gzip')
    expect(reply).toEqual({
      status: 200,
      body: {
        kind: 'storage#object',
        id: `data/runs/r1/code.tgz/${String(reply.body.generation)}`,
        selfLink: 'https://www.googleapis.com/storage/v1/b/data/o/runs%2Fr1%2Fcode.tgz',
        mediaLink: `https://storage.googleapis.com/download/storage/v1/b/data/o/runs%2Fr1%2Fcode.tgz?generation=${String(reply.body.generation)}&alt=media`,
        name: 'runs/r1/code.tgz',
        bucket: 'data',
        generation: expect.stringMatching(/^\d{16}$/),
        metageneration: '1',
        contentType: 'application/gzip',
        storageClass: 'STANDARD',
        size: '9',
        // The check values of "123456789": MD5 25f9e794323b453885f5181f1b624d0b, CRC32C e3069283.
        md5Hash: Buffer.from('25f9e794323b453885f5181f1b624d0b', 'hex').toString('base64'),
        crc32c: Buffer.from('e3069283', 'hex').toString('base64'),
        etag: expect.any(String),
        timeCreated: expect.any(String),
        updated: expect.any(String),
        timeStorageClassUpdated: expect.any(String),
      },
    })
    expect(fake.object('data', 'runs/r1/code.tgz')?.data.toString()).toBe('123456789')
    expect(fake.calls.at(-1)).toMatchObject({method: 'POST', path: '/upload/storage/v1/b/data/o', status: 200})
  })

  it('serves alt=media to any client, curl included, with the generation and hashes in x-goog headers', async () => {
    fake.seedBucket({name: 'data'})
    const seeded = fake.seedObject('data', 'code/run.sh', '#!/bin/bash\necho hi\n', {contentType: 'text/x-sh'})
    const url = `${fake.endpoint}/storage/v1/b/data/o/${encodeURIComponent('code/run.sh')}?alt=media`
    const response = await fetch(url)
    expect([response.status, await response.text()]).toEqual([200, '#!/bin/bash\necho hi\n'])
    expect({
      type: response.headers.get('content-type'),
      generation: response.headers.get('x-goog-generation'),
      hash: response.headers.get('x-goog-hash'),
    }).toEqual({
      type: 'text/x-sh',
      generation: seeded.generation,
      hash: `crc32c=${seeded.crc32c},md5=${seeded.md5Hash}`,
    })
    expect(await curl('--fail', url)).toEqual({code: 0, stdout: '#!/bin/bash\necho hi\n'})
    // The mediaLink form too.
    const media = await fetch(`${fake.endpoint}/download/storage/v1/b/data/o/code%2Frun.sh?alt=media`)
    expect(await media.text()).toBe('#!/bin/bash\necho hi\n')
    expect((await curl('--fail', `${fake.endpoint}/storage/v1/b/data/o/nothing?alt=media`)).code).toBe(22)
    // And a log uploaded with curl, as a worker uploads its log at the end.
    const uploaded = await curl(
      '--fail',
      '-X',
      'POST',
      '--data-binary',
      'exit 0\n',
      '-H',
      'content-type: text/plain',
      `${fake.endpoint}/upload/storage/v1/b/data/o?uploadType=media&name=logs%2Fslice-0-worker-0.log`,
    )
    expect([uploaded.code, JSON.parse(uploaded.stdout).name]).toEqual([0, 'logs/slice-0-worker-0.log'])
    expect(fake.object('data', 'logs/slice-0-worker-0.log')?.data.toString()).toBe('exit 0\n')
  })

  it('refuses a failed generation condition with 412 conditionNotMet, and a bad one with 400, writing nothing', async () => {
    fake.seedBucket({name: 'data'})
    const first = await upload('data', 'uploadType=media&name=state&ifGenerationMatch=0', 'v1')
    expect(first.status).toBe(200)
    expect(await upload('data', 'uploadType=media&name=state&ifGenerationMatch=0', 'v2')).toEqual({
      status: 412,
      body: storageError(412, 'conditionNotMet', 'At least one of the pre-conditions you specified did not hold.'),
    })
    expect((await upload('data', 'uploadType=media&name=state&ifGenerationMatch=x', 'v2')).status).toBe(400)
    const second = await upload(
      'data',
      `uploadType=media&name=state&ifGenerationMatch=${String(first.body.generation)}`,
      'v2',
    )
    expect(second.status).toBe(200)
    expect(BigInt(String(second.body.generation))).toBeGreaterThan(BigInt(String(first.body.generation)))
    expect(fake.object('data', 'state')?.data.toString()).toBe('v2')
  })

  it('answers missing objects and buckets 404, a missing name 400, and an upload type other than media 400', async () => {
    fake.seedBucket({name: 'data'})
    expect(await send('GET', 'b/data/o/nothing')).toEqual({
      status: 404,
      body: storageError(404, 'notFound', 'No such object: data/nothing'),
    })
    expect(await send('GET', 'b/gone/o')).toEqual({
      status: 404,
      body: storageError(404, 'notFound', 'The specified bucket does not exist.'),
    })
    expect((await upload('data', 'uploadType=media', 'x')).body).toEqual(storageError(400, 'required', 'Required'))
    expect((await upload('data', 'uploadType=resumable&name=a', 'x')).status).toBe(400)
    expect((await upload('gone', 'uploadType=media&name=a', 'x')).status).toBe(404)
    const deleted = await fetch(`${fake.endpoint}/storage/v1/b/data/o/nothing`, {method: 'DELETE'})
    expect(deleted.status).toBe(404)
  })

  it('deletes with 204 and no body', async () => {
    fake.seedBucket({name: 'data'})
    fake.seedObject('data', 'a', 'x')
    const response = await fetch(`${fake.endpoint}/storage/v1/b/data/o/a`, {method: 'DELETE'})
    expect([response.status, await response.text()]).toEqual([204, ''])
    expect(fake.objectNames('data')).toEqual([])
    expect(fake.mutatingCalls().map((c) => [c.method, c.path])).toEqual([['DELETE', 'b/data/o/a']])
  })

  it('lists storage#objects in byte order, items and prefixes counted together in pages of maxResults', async () => {
    fake.seedBucket({name: 'data'})
    for (const name of ['b/1', 'a', 'b/2', 'c', 'B', 'b/x/3', 'd/4']) fake.seedObject('data', name, name)
    const pages: unknown[] = []
    let token: string | undefined
    do {
      const query = `delimiter=%2F&maxResults=2${token ? `&pageToken=${token}` : ''}`
      const {body} = await send('GET', `b/data/o?${query}`)
      pages.push([(body.items as {name: string}[] | undefined)?.map((i) => i.name), body.prefixes])
      expect(body.kind).toBe('storage#objects')
      token = body.nextPageToken as string | undefined
    } while (token)
    expect(pages).toEqual([
      [['B', 'a'], undefined],
      [['c'], ['b/']],
      [undefined, ['d/']],
    ])
    const under = await send('GET', 'b/data/o?prefix=b%2F&delimiter=%2F')
    expect([(under.body.items as {name: string}[]).map((i) => i.name), under.body.prefixes]).toEqual([
      ['b/1', 'b/2'],
      ['b/x/'],
    ])
    expect((await send('GET', 'b/data/o?pageToken=%%%')).status).toBe(400)
    fake.pageSize = 3
    expect(((await send('GET', 'b/data/o')).body.items as unknown[]).length).toBe(3)
  })
})
