// The Kubernetes adapter telling "no such object" from "no such kind" on a read (KubeClient.lookup), against the
// fake API server and one-route servers answering as API servers do: xpk's own JobSet and Kueue kinds are reached
// with no discovery request, and a version the cluster does not serve is then told by the 404 of the read itself.
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo} from 'node:net'

import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {connectKube} from '../../src/adapters/kube-client.js'
import {ApiError, XpkError} from '../../src/core/errors.js'
import type {KubeClient, KubeObject, KubeRef} from '../../src/ports/kube.js'
import {jobSetCrdServing} from '../builders/workload-cluster.js'
import {FakeKube} from '../fakes/fake-kube.js'
import {makeFakeKubeTls} from '../fakes/fake-kube-tls.js'

let fake: FakeKube
let kube: KubeClient

beforeAll(async () => {
  fake = await FakeKube.start()
})
afterAll(async () => {
  await fake?.stop()
})
beforeEach(async () => {
  fake.reset()
  // A new client per test: nothing discovered or learned, as in a new CLI process.
  kube = await connectKube({kind: 'gke', server: fake.url, caCertificate: fake.caData, token: async () => fake.token})
})

const jobSet = (name: string, version = 'v1alpha2'): KubeRef => ({
  apiVersion: `jobset.x-k8s.io/${version}`,
  kind: 'JobSet',
  namespace: 'default',
  name,
})

const discovery = () => fake.requests.filter((r) => r.verb === 'discovery').map((r) => r.path)
const reads = () => fake.requests.filter((r) => r.verb !== 'discovery').map((r) => `${r.method} ${r.path} ${r.status}`)

describe('lookup: absent or not served', () => {
  it('a cluster without the JobSet CRD: not served, told by the one GET (no discovery, no CRD read)', async () => {
    expect(await kube.lookup(jobSet('run-1'))).toEqual({state: 'not-served'})
    expect(reads()).toEqual(['GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/run-1 404'])
    expect(discovery()).toEqual([])
  })

  it('a CRD without the version asked for: not served at it, absent at the version it serves', async () => {
    fake.seed(jobSetCrdServing('v1alpha1') as never)
    expect(await kube.lookup(jobSet('run-1'))).toEqual({state: 'not-served'})
    expect(await kube.lookup(jobSet('run-1', 'v1alpha1'))).toEqual({state: 'absent'})
    expect(discovery()).toEqual([])
  })

  it('served: absent until the object is there, then found', async () => {
    fake.seed(jobSetCrdServing('v1alpha2') as never)
    expect(await kube.lookup(jobSet('run-1'))).toEqual({state: 'absent'})
    fake.seed({apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: {name: 'run-1', namespace: 'default'}})
    const found = await kube.lookup(jobSet('run-1'))
    expect(found).toMatchObject({state: 'found', object: {kind: 'JobSet', metadata: {name: 'run-1'}}})
    expect(reads()).toEqual([
      'GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/run-1 404',
      'GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/run-1 200',
    ])
    expect(discovery()).toEqual([])
  })

  it('built-in kinds: a missing object is absent', async () => {
    expect(await kube.lookup({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'none'})).toEqual({
      state: 'absent',
    })
    expect(await kube.lookup({apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', name: 'very-high'})).toEqual({
      state: 'absent',
    })
  })

  it('a kind found through discovery and not served: not served, with no GET of the object', async () => {
    expect(await kube.lookup({apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w'})).toEqual({
      state: 'not-served',
    })
    expect(discovery()).toEqual(['/apis/example.com/v1'])
    expect(reads()).toEqual([])
  })

  it('Kueue not installed: its kinds read, list and delete as nothing, as before, without discovery', async () => {
    const queue = {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'LocalQueue', namespace: 'default', name: 'q'}
    expect(await kube.lookup(queue)).toEqual({state: 'not-served'})
    expect(await kube.get(queue)).toBeUndefined()
    expect(await kube.list('kueue.x-k8s.io/v1beta2', 'ClusterQueue')).toEqual({items: []})
    expect(await kube.list('kueue.x-k8s.io/v1beta2', 'Workload', {namespace: 'default'})).toEqual({items: []})
    expect(await kube.delete(queue)).toBe('absent')
    expect(reads()).toEqual([
      'GET /apis/kueue.x-k8s.io/v1beta2/namespaces/default/localqueues/q 404',
      'GET /apis/kueue.x-k8s.io/v1beta2/namespaces/default/localqueues/q 404',
      'GET /apis/kueue.x-k8s.io/v1beta2/clusterqueues 404',
      'GET /apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads 404',
      'DELETE /apis/kueue.x-k8s.io/v1beta2/namespaces/default/localqueues/q 404',
    ])
    expect(discovery()).toEqual([])
  })

  it('get still says undefined for both', async () => {
    expect(await kube.get(jobSet('run-1'))).toBeUndefined()
    fake.seed(jobSetCrdServing('v1alpha2') as never)
    expect(await kube.get(jobSet('run-1'))).toBeUndefined()
  })
})

describe('writes and watches of a known kind the cluster does not serve', () => {
  const object: KubeObject = {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: {name: 'run-1', namespace: 'default'},
    spec: {},
  }

  it('an apply says the kind is not served and its CRD is missing, as when discovery said so', async () => {
    const error = (await kube.apply(object).catch((e: unknown) => e)) as XpkError
    expect(error).toBeInstanceOf(XpkError)
    expect(error.message).toBe(
      'Applying JobSet default/run-1 failed: the cluster does not serve JobSet in jobset.x-k8s.io/v1alpha2.',
    )
    expect(error.hints.join(' ')).toContain('CustomResourceDefinition')
    expect(discovery()).toEqual([])
  })

  it('an apply into a namespace that does not exist is the server 404 naming it, not "not served"', async () => {
    fake.seed(jobSetCrdServing('v1alpha2') as never)
    const error = (await kube
      .apply({...object, metadata: {name: 'run-1', namespace: 'nowhere'}})
      .catch((e: unknown) => e)) as ApiError
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({status: 'NOT_FOUND'})
    expect(error.message).toMatch(/^Applying JobSet nowhere\/run-1 failed: .*nowhere/)
  })

  it('a watch is a 404 saying the kind is not served', async () => {
    const error = (await kube
      .watch('jobset.x-k8s.io/v1alpha2', 'JobSet', {signal: new AbortController().signal}, () => undefined)
      .catch((e: unknown) => e)) as ApiError
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({status: 'NOT_FOUND', retryable: false})
    expect(error.message).toBe(
      'Watching JobSet objects failed: the cluster does not serve JobSet in jobset.x-k8s.io/v1alpha2',
    )
  })
})

describe('404 answers as API servers send them', () => {
  /** A server answering every request with one 404 body. */
  async function answering404(
    body: string,
    contentType: string,
  ): Promise<{client: KubeClient; close: () => Promise<void>}> {
    const tls = await makeFakeKubeTls()
    const server = createHttpsServer({key: tls.serverKeyPem, cert: tls.serverCertPem}, (_req, res) => {
      res.writeHead(404, {'content-type': contentType})
      res.end(body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    const client = await connectKube({
      kind: 'gke',
      server: `https://127.0.0.1:${port}`,
      caCertificate: Buffer.from(tls.caPem).toString('base64'),
      token: async () => 't',
    })
    return {client, close: () => new Promise((resolve) => server.close(() => resolve()))}
  }

  const status = (details: Record<string, unknown>, message: string) =>
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message,
      reason: 'NotFound',
      details,
      code: 404,
    })

  it.each<[string, string, string, 'absent' | 'not-served']>([
    [
      'a Status naming the object',
      status({name: 'run-1', group: 'jobset.x-k8s.io', kind: 'jobsets'}, 'jobsets.jobset.x-k8s.io "run-1" not found'),
      'application/json',
      'absent',
    ],
    [
      'a Status with empty details',
      status({}, 'the server could not find the requested resource'),
      'application/json',
      'not-served',
    ],
    ['a Status with no details', status(undefined as never, 'not found'), 'application/json', 'not-served'],
    ['plain text', '404 page not found\n', 'text/plain; charset=utf-8', 'not-served'],
    ['an HTML page (not the API server)', '<html>Not Found</html>', 'text/html', 'not-served'],
  ])('%s', async (_name, body, contentType, state) => {
    const {client, close} = await answering404(body, contentType)
    try {
      expect(await client.lookup(jobSet('run-1'))).toEqual({state})
      expect(await client.get(jobSet('run-1'))).toBeUndefined()
    } finally {
      await close()
    }
  })
})
