// The Kubernetes adapter (plain HTTPS + JSON) against the fake API server over real TLS: objects go and come back
// in their wire form (the CRD keys a typed client drops survive), kinds are found without needless discovery, and
// every kind of failure maps to the ApiError the executor's retry policy expects.
import {writeFileSync} from 'node:fs'
import type {ServerResponse} from 'node:http'
import {createServer as createHttpsServer, request} from 'node:https'
import {createServer as createTcpServer, type AddressInfo} from 'node:net'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'

import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {connectKube} from '../../src/adapters/kube-client.js'
import {ApiError, UsageError, XpkError} from '../../src/core/errors.js'
import type {KubeClient, KubeObject, KubeWatchEvent} from '../../src/ports/kube.js'
import {FakeKube} from '../fakes/fake-kube.js'
import {makeFakeKubeTls} from '../fakes/fake-kube-tls.js'
import {tempDir} from '../helpers/temp.js'

let fake: FakeKube
let kube: KubeClient

/** Connected as xpk connects to a GKE cluster: endpoint, the CA base64-encoded as GKE hands it out, a token. */
const gkeAccess = (token = fake.token, caCertificate = fake.caData, server = fake.url) =>
  connectKube({kind: 'gke', server, caCertificate, token: async () => token})

beforeAll(async () => {
  fake = await FakeKube.start()
})
afterAll(async () => {
  await fake?.stop()
})
beforeEach(async () => {
  fake.reset()
  // A new client per test: each starts with nothing discovered, as a new CLI process does.
  kube = await gkeAccess()
})

/** A CRD whose schema uses the extension keys client-node's typed form loses unless converted back by hand. */
const WIDGET_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {name: 'widgets.example.com'},
  spec: {
    group: 'example.com',
    names: {kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget'},
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: {'x-kubernetes-int-or-string': true},
                  count: {type: 'integer'},
                  free: {type: 'object', 'x-kubernetes-preserve-unknown-fields': true},
                  tags: {type: 'array', items: {type: 'string'}, 'x-kubernetes-list-type': 'set'},
                },
              },
            },
          },
        },
      },
    ],
  },
}

const widget = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: {name, namespace: 'default'},
  spec,
})

const configMap = (name: string, data: Record<string, string>, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {name, namespace},
  data,
})

/** The error a call rejects with (the test fails when it resolves). */
async function failure(call: Promise<unknown>): Promise<ApiError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ApiError)
  return error as ApiError
}

/** A server-side apply by another field manager, straight over HTTPS (the adapter always applies as xpk). */
function applyAs(manager: string, object: KubeObject, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${fake.url}${path}?fieldManager=${manager}`,
      {
        method: 'PATCH',
        ca: fake.caPem,
        headers: {authorization: `Bearer ${fake.token}`, 'content-type': 'application/apply-patch+yaml'},
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(object))
  })
}

describe('objects in their wire form', () => {
  it('a CRD keeps x-kubernetes-preserve-unknown-fields, -int-or-string and -list-type through apply', async () => {
    const applied = await kube.apply(WIDGET_CRD, {force: true})
    const stored = fake.get({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: 'widgets.example.com',
    }) as {
      spec: {versions: {schema: {openAPIV3Schema: {properties: {spec: {properties: Record<string, unknown>}}}}}[]}
    }
    const properties = stored.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties
    expect(properties.size).toEqual({'x-kubernetes-int-or-string': true})
    expect(properties.free).toEqual({type: 'object', 'x-kubernetes-preserve-unknown-fields': true})
    expect(properties.tags).toMatchObject({'x-kubernetes-list-type': 'set'})
    // What apply returns is the server's object, also in wire form.
    expect(JSON.stringify(applied)).toContain('"x-kubernetes-preserve-unknown-fields":true')

    // And the schema acts on what the fake stores: the unknown fields under `free` are kept, an int-or-string is either.
    await kube.apply(widget('a', {size: '10Gi', count: 2, free: {any: {thing: [1]}}, tags: ['x', 'y']}))
    await kube.apply(widget('b', {size: 3}))
    expect(
      (fake.get({apiVersion: 'example.com/v1', kind: 'Widget', name: 'a', namespace: 'default'}) as KubeObject).spec,
    ).toEqual({size: '10Gi', count: 2, free: {any: {thing: [1]}}, tags: ['x', 'y']})
  })

  it('get and list return what the server sent: strings for timestamps, apiVersion and kind on list items', async () => {
    await kube.apply(configMap('one', {a: '1'}))
    await kube.apply(configMap('two', {b: '2'}))
    const got = await kube.get({apiVersion: 'v1', kind: 'ConfigMap', name: 'one', namespace: 'default'})
    expect(got).toMatchObject({apiVersion: 'v1', kind: 'ConfigMap', data: {a: '1'}})
    expect(typeof got?.metadata.creationTimestamp).toBe('string')
    expect(got?.metadata.managedFields).toEqual([expect.objectContaining({manager: 'xpk', operation: 'Apply'})])

    const page = await kube.list('v1', 'ConfigMap', {namespace: 'default'})
    expect(page.items.map((i) => [i.apiVersion, i.kind, i.metadata.name])).toEqual([
      ['v1', 'ConfigMap', 'one'],
      ['v1', 'ConfigMap', 'two'],
    ])
    expect(typeof page.items[0].metadata.creationTimestamp).toBe('string')
  })

  it('pages with limit and continue, and filters by label', async () => {
    for (const name of ['a', 'b', 'c']) {
      await kube.apply({
        ...configMap(name, {}),
        metadata: {name, namespace: 'default', labels: {keep: name === 'b' ? 'no' : 'yes'}},
      })
    }
    const first = await kube.list('v1', 'ConfigMap', {namespace: 'default', limit: 2})
    expect(first.items.map((i) => i.metadata.name)).toEqual(['a', 'b'])
    expect(first.continue).toBeTruthy()
    const second = await kube.list('v1', 'ConfigMap', {namespace: 'default', limit: 2, continue: first.continue})
    expect(second.items.map((i) => i.metadata.name)).toEqual(['c'])
    expect(second.continue).toBeUndefined()
    const kept = await kube.list('v1', 'ConfigMap', {namespace: 'default', labelSelector: 'keep=yes'})
    expect(kept.items.map((i) => i.metadata.name)).toEqual(['a', 'c'])
  })

  it('deletes, and says absent for what is not there', async () => {
    await kube.apply(configMap('gone', {}))
    expect(await kube.delete({apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', namespace: 'default'})).toBe('deleted')
    expect(fake.get({apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', namespace: 'default'})).toBeUndefined()
    expect(await kube.delete({apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', namespace: 'default'})).toBe('absent')
    expect(await kube.delete({apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'default'})).toBe(
      'absent',
    )
  })
})

describe('finding kinds', () => {
  it('sends no discovery request for built-in kinds, nor for the kinds of a CRD it applied', async () => {
    await kube.apply(configMap('c', {}))
    await kube.list('apps/v1', 'Deployment')
    await kube.apply(WIDGET_CRD)
    await kube.apply(widget('w', {count: 1}))
    expect(
      await kube.get({apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'default'}),
    ).toBeDefined()
    expect(fake.requests.filter((r) => r.verb === 'discovery')).toEqual([])
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toContain(
      'PATCH /apis/example.com/v1/namespaces/default/widgets/w',
    )
  })

  it('a kind that is not served reads as nothing; lookups at once share one discovery request', async () => {
    const [list, other, got] = await Promise.all([
      kube.list('example.com/v1', 'Widget'),
      kube.list('example.com/v1', 'Gadget'),
      kube.get({apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'default'}),
    ])
    expect(list).toEqual({items: []})
    expect(other).toEqual({items: []})
    expect(got).toBeUndefined()
    expect(fake.requests.filter((r) => r.verb === 'discovery').map((r) => r.path)).toEqual(['/apis/example.com/v1'])
  })

  it('finds a kind installed by someone else since it last looked', async () => {
    expect(await kube.list('example.com/v1', 'Widget')).toEqual({items: []})
    fake.seed(WIDGET_CRD as never, widget('w', {count: 1}) as never)
    const page = await kube.list('example.com/v1', 'Widget')
    expect(page.items.map((i) => [i.kind, i.metadata.name])).toEqual([['Widget', 'w']])
  })

  it('applying a kind the cluster does not serve says its CRD is missing', async () => {
    const error = await kube.apply(widget('w', {})).then(
      () => undefined,
      (e: unknown) => e as XpkError,
    )
    expect(error).toBeInstanceOf(XpkError)
    expect(error?.message).toMatch(
      /Applying Widget default\/w failed: the cluster does not serve Widget in example.com\/v1/,
    )
    expect(error?.hints.join(' ')).toContain('CustomResourceDefinition')
  })

  it('an object named without a namespace goes to the default namespace; a list without one spans them all', async () => {
    await kube.apply({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'plain'}, data: {}})
    expect(fake.get({apiVersion: 'v1', kind: 'ConfigMap', name: 'plain', namespace: 'default'})).toBeDefined()
    await kube.apply(configMap('elsewhere', {}, 'kube-system'))
    const all = await kube.list('v1', 'ConfigMap')
    expect(all.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(
      expect.arrayContaining(['default/plain', 'kube-system/elsewhere']),
    )
  })
})

describe('failures', () => {
  it('409: a field another manager owns is a CONFLICT naming it; force takes it over', async () => {
    expect(
      await applyAs('kubectl', configMap('shared', {a: 'theirs'}), '/api/v1/namespaces/default/configmaps/shared'),
    ).toBe(201)
    const error = await failure(kube.apply(configMap('shared', {a: 'ours'})))
    expect(error).toMatchObject({kind: 'conflict', status: 'CONFLICT', retryable: false})
    expect(error.message).toMatch(
      /^Applying ConfigMap default\/shared failed: Apply failed with 1 conflict: conflict with "kubectl"/,
    )
    await kube.apply(configMap('shared', {a: 'ours'}), {force: true})
    expect(fake.get({apiVersion: 'v1', kind: 'ConfigMap', name: 'shared', namespace: 'default'})).toMatchObject({
      data: {a: 'ours'},
    })
  })

  it('422: the server says which fields are invalid', async () => {
    await kube.apply(WIDGET_CRD)
    const error = await failure(kube.apply(widget('bad', {count: 'many'})))
    expect(error).toMatchObject({kind: 'failed', status: 'INVALID_ARGUMENT', retryable: false})
    expect(error.message).toContain('Applying Widget default/bad failed:')
    expect(error.message).toContain('spec.count')
  })

  it('404 on apply: the namespace does not exist', async () => {
    const error = await failure(kube.apply(configMap('c', {}, 'nowhere')))
    expect(error).toMatchObject({kind: 'not-found', status: 'NOT_FOUND'})
    expect(error.message).toContain('namespaces "nowhere" not found')
  })

  it('401: a token the server refuses is an auth error with a hint', async () => {
    const stranger = await gkeAccess('not-the-token')
    const error = await failure(stranger.list('v1', 'ConfigMap'))
    expect(error).toMatchObject({kind: 'auth', status: 'UNAUTHENTICATED', retryable: false})
    expect(error.hints.join(' ')).toMatch(/credentials|XPK_ACCESS_TOKEN/)
  })

  it('a refused connection is unavailable and worth retrying', async () => {
    const port = await closedPort()
    const away = await gkeAccess(fake.token, fake.caData, `https://127.0.0.1:${port}`)
    const error = await failure(away.get({apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'default'}))
    expect(error).toMatchObject({kind: 'unavailable', status: 'UNAVAILABLE', retryable: true})
    expect(error.message).toContain(`could not reach the Kubernetes API at https://127.0.0.1:${port}`)
    expect(error.message).toContain('ECONNREFUSED')
  })

  it('a server whose certificate the cluster CA did not sign is refused', async () => {
    const other = await makeFakeKubeTls()
    const wrongCa = Buffer.from(other.caPem).toString('base64')
    const error = await failure((await gkeAccess(fake.token, wrongCa)).list('v1', 'ConfigMap'))
    expect(error).toMatchObject({kind: 'auth', retryable: false})
    expect(fake.requests).toEqual([])
  })

  it('a 500 is retryable', async () => {
    fake.faults.push({verb: 'list', status: 500})
    expect(await failure(kube.list('v1', 'ConfigMap'))).toMatchObject({kind: 'unavailable', retryable: true})
  })
})

describe('watch', () => {
  it('sends the current objects as ADDED, then changes, until aborted', async () => {
    await kube.apply(configMap('first', {v: '1'}))
    const events: KubeWatchEvent[] = []
    const abort = new AbortController()
    const done = kube.watch('v1', 'ConfigMap', {namespace: 'default', signal: abort.signal}, (event) => {
      events.push(event)
      if (event.type === 'ADDED' && event.object.metadata.name === 'first') {
        void kube.apply(configMap('first', {v: '2'}))
      }
      if (event.type === 'MODIFIED') abort.abort()
    })
    await done
    expect(events.map((e) => (e.type === 'BOOKMARK' ? e.type : [e.type, e.object.kind, e.object.data]))).toEqual([
      ['ADDED', 'ConfigMap', {v: '1'}],
      ['MODIFIED', 'ConfigMap', {v: '2'}],
    ])
  })

  it('a resourceVersion too old to resume from rejects with EXPIRED', async () => {
    fake.settings.watchHistory = 1
    await kube.apply(configMap('a', {}))
    const old = (await kube.get({apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'default'}))?.metadata
      .resourceVersion as string
    await kube.apply(configMap('b', {}))
    await kube.apply(configMap('c', {}))
    const error = await failure(
      kube.watch(
        'v1',
        'ConfigMap',
        {namespace: 'default', resourceVersion: old, signal: new AbortController().signal},
        () => {},
      ),
    )
    expect(error).toMatchObject({status: 'EXPIRED'})
  })
})

describe('watch, when it cannot go on', () => {
  it('a kind the cluster does not serve rejects as not found', async () => {
    const error = await failure(
      kube.watch('example.com/v1', 'Widget', {signal: new AbortController().signal}, () => {}),
    )
    expect(error).toMatchObject({kind: 'not-found', status: 'NOT_FOUND'})
  })

  it("the caller's onEvent throwing ends the watch with its error", async () => {
    await kube.apply(configMap('a', {}))
    const thrown = new Error('caller gave up')
    const outcome = await kube
      .watch('v1', 'ConfigMap', {namespace: 'default', signal: new AbortController().signal}, () => {
        throw thrown
      })
      .then(
        () => 'resolved',
        (e: unknown) => e,
      )
    expect(outcome).toBe(thrown)
  })
})

describe('connections', () => {
  it('reaches the cluster through a kubeconfig file, and names the contexts it has when asked for another', async () => {
    const file = join(tempDir('xpk-kubeconfig-'), 'config')
    writeFileSync(file, fake.kubeconfig())
    const viaFile = await connectKube({kind: 'kubeconfig', path: file})
    await viaFile.apply(configMap('from-file', {}))
    expect(fake.get({apiVersion: 'v1', kind: 'ConfigMap', name: 'from-file', namespace: 'default'})).toBeDefined()
    expect(viaFile.target).toBe(`${fake.url} (context fake-kube)`)

    const error = await connectKube({kind: 'kubeconfig', path: file, context: 'elsewhere'}).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).hints).toEqual(['Its contexts: fake-kube.'])
  })

  it('never shows a password in the server URL of a kubeconfig (issue 17): not in the target, not in errors', async () => {
    const file = join(tempDir('xpk-kubeconfig-'), 'config')
    const withPassword = fake.url.replace('https://', 'https://admin:s3cret@')
    writeFileSync(file, fake.kubeconfig().replace(fake.url, withPassword))
    const client = await connectKube({kind: 'kubeconfig', path: file})
    await client.apply(configMap('with-password', {}))
    expect(client.target).toBe(`${fake.url.replace('https://', 'https://***@')} (context fake-kube)`)
    expect(client.target).not.toContain('s3cret')

    // An error that quotes the server hides the password too.
    writeFileSync(file, fake.kubeconfig().replace(fake.url, 'https://admin:s3cret@127.0.0.1:9'))
    const unreachable = await connectKube({kind: 'kubeconfig', path: file})
    const error = await unreachable.get({apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'default'}).then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(error?.message).toContain('https://***@127.0.0.1:9 (context fake-kube)')
    expect(error?.message).not.toContain('s3cret')
  })

  it('says there is no kubeconfig, instead of naming the context client-node makes up ("loaded-context")', async () => {
    const home = tempDir('xpk-home-')
    const saved = {KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME}
    delete process.env.KUBECONFIG
    process.env.HOME = home
    try {
      for (const context of ['elsewhere', undefined]) {
        const error = await connectKube({kind: 'kubeconfig', context}).then(
          () => undefined,
          (e: unknown) => e as UsageError,
        )
        expect(error).toBeInstanceOf(UsageError)
        expect(error!.message).toBe(
          'There is no kubeconfig to read: KUBECONFIG is not set and ~/.kube/config does not exist.',
        )
        expect(error!.flag).toBe(context ? '--context' : '--kubeconfig')
        expect(JSON.stringify([error!.message, error!.hints])).not.toContain('loaded-context')
      }
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
  })

  it('reads gzip-compressed answers', async () => {
    // The fake never compresses, so a one-route server answers like an API server with compression on.
    const tls = await makeFakeKubeTls()
    const server = createHttpsServer({key: tls.serverKeyPem, cert: tls.serverCertPem}, (req, res) => {
      const body = JSON.stringify({
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: {},
        items: [{metadata: {name: 'zipped'}}],
      })
      const zipped = /gzip/.test(String(req.headers['accept-encoding']))
      res.writeHead(200, {'content-type': 'application/json', ...(zipped ? {'content-encoding': 'gzip'} : {})})
      res.end(zipped ? gzipSync(body) : body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const port = (server.address() as AddressInfo).port
      const client = await gkeAccess('t', Buffer.from(tls.caPem).toString('base64'), `https://127.0.0.1:${port}`)
      const page = await client.list('v1', 'ConfigMap')
      expect(page.items.map((i) => [i.kind, i.metadata.name])).toEqual([['ConfigMap', 'zipped']])
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('lists, read as they arrive', () => {
  /** A one-route HTTPS server with its own CA, and a client of it. */
  async function answering(handle: (res: ServerResponse, gzip: boolean) => void): Promise<{
    client: KubeClient
    close: () => Promise<void>
  }> {
    const tls = await makeFakeKubeTls()
    const server = createHttpsServer({key: tls.serverKeyPem, cert: tls.serverCertPem}, (req, res) =>
      handle(res, /gzip/.test(String(req.headers['accept-encoding']))),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    const client = await gkeAccess('t', Buffer.from(tls.caPem).toString('base64'), `https://127.0.0.1:${port}`)
    return {client, close: () => new Promise((resolve) => server.close(() => resolve()))}
  }

  it('reads a page sent in small pieces, with its metadata last', async () => {
    const items = Array.from({length: 50}, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {name: `cm-${i}`, uid: `u${i}`, annotations: {note: 'a "quoted" \\ value é'}},
      data: {big: 'x'.repeat(2000)},
    }))
    // Keys sorted, as the API server writes lists of custom resources: metadata (with the token) after items.
    const body = Buffer.from(
      JSON.stringify({apiVersion: 'v1', items, kind: 'ConfigMapList', metadata: {continue: 'c2'}}),
    )
    const {client, close} = await answering((res) => {
      res.writeHead(200, {'content-type': 'application/json'})
      for (let i = 0; i < body.length; i += 777) res.write(body.subarray(i, i + 777))
      res.end()
    })
    try {
      const page = await client.list('v1', 'ConfigMap')
      expect(page.continue).toBe('c2')
      expect(page.items).toEqual(items)
    } finally {
      await close()
    }
  })

  it('a list answer that is not JSON is refused, as is one cut short', async () => {
    for (const text of ['<html>proxy error</html>', '{"kind":"ConfigMapList","items":[{"metadata":{}}']) {
      const {client, close} = await answering((res) => {
        res.writeHead(200, {'content-type': 'application/json'})
        res.end(text)
      })
      try {
        const error = await client.list('v1', 'ConfigMap').catch((e: unknown) => e)
        expect(error).toBeInstanceOf(XpkError)
        expect((error as XpkError).message).toMatch(/Listing ConfigMap objects failed: .*HTTP 200 with no JSON/)
      } finally {
        await close()
      }
    }
  })

  it('reads a compressed error answer for its message', async () => {
    const {client, close} = await answering((res, gzip) => {
      const body = JSON.stringify({kind: 'Status', status: 'Failure', reason: 'Forbidden', message: 'no lists for you'})
      res.writeHead(403, {'content-type': 'application/json', ...(gzip ? {'content-encoding': 'gzip'} : {})})
      res.end(gzip ? gzipSync(body) : body)
    })
    try {
      const error = await client.list('v1', 'ConfigMap').catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ApiError)
      expect((error as ApiError).message).toMatch(/no lists for you/)
    } finally {
      await close()
    }
  })
})

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createTcpServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('pod logs', () => {
  const seedPod = (name: string, containers: string[]) =>
    fake.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name, namespace: 'default'},
      spec: {containers: containers.map((c) => ({name: c, image: 'python:3.12'}))},
    })
  const never = new AbortController().signal

  it('reads a container log with tailLines and sinceSeconds sent as the API names them', async () => {
    seedPod('p', ['main', 'sidecar'])
    fake.setPodLog('default', 'p', 'a\nb\nc\n', 'main')
    const chunks: string[] = []
    const outcome = await kube.logs(
      'default',
      'p',
      {container: 'main', tailLines: 2, sinceSeconds: 600, signal: never},
      (t) => chunks.push(t),
    )
    expect(outcome).toBe('ended')
    expect(chunks.join('')).toBe('b\nc\n')
    const sent = fake.requests.find((r) => r.verb === 'log')!
    expect(sent.path).toBe('/api/v1/namespaces/default/pods/p/log')
    expect(sent.query).toEqual({container: 'main', tailLines: '2', sinceSeconds: '600'})
  })

  it('asks for timestamps and sinceTime as the API names them', async () => {
    seedPod('p', ['main'])
    fake.setPodLog('default', 'p', 'a\n')
    let text = ''
    await kube.logs(
      'default',
      'p',
      {timestamps: true, sinceTime: '2020-01-01T00:00:00Z', signal: never},
      (t) => (text += t),
    )
    expect(text).toMatch(/^\S+Z a\n$/)
    const sent = fake.requests.find((r) => r.verb === 'log')!
    expect(sent.query).toEqual({timestamps: 'true', sinceTime: '2020-01-01T00:00:00Z'})
  })

  it('follows what the container writes, in order, until it exits', async () => {
    seedPod('p', ['main'])
    fake.setPodLog('default', 'p', 'first\n')
    const chunks: string[] = []
    const done = kube.logs('default', 'p', {follow: true, signal: never}, (t) => chunks.push(t))
    while (!fake.requests.some((r) => r.verb === 'log')) await new Promise((r) => setTimeout(r, 5))
    await new Promise((r) => setTimeout(r, 20))
    for (let i = 0; i < 5; i++) fake.appendPodLog('default', 'p', `line ${i}\n`)
    fake.endPodLog('default', 'p')
    expect(await done).toBe('ended')
    expect(chunks.join('')).toBe('first\nline 0\nline 1\nline 2\nline 3\nline 4\n')
  })

  it('a pod that does not exist is absent; a container not started yet is a 400 error', async () => {
    expect(await kube.logs('default', 'gone', {signal: never}, () => {})).toBe('absent')
    seedPod('waiting', ['main'])
    const error = (await kube
      .logs('default', 'waiting', {signal: never}, () => {})
      .catch((e: unknown) => e)) as ApiError
    expect(error).toBeInstanceOf(ApiError)
    expect(error.status).toBe('INVALID_ARGUMENT')
    expect(error.message).toMatch(/waiting to start/)
  })

  it('an abort ends a followed log', async () => {
    seedPod('p', ['main'])
    fake.setPodLog('default', 'p', 'x\n')
    const controller = new AbortController()
    const done = kube.logs('default', 'p', {follow: true, signal: controller.signal}, () => controller.abort())
    expect(await done).toBe('ended')
  })
})
