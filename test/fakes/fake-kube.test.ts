// The fake kube-apiserver through the real @kubernetes/client-node 2.x client, configured as xpk will configure it
// for a GKE cluster: server URL, CA data and a bearer token in a KubeConfig built in code.
import {request} from 'node:https'
import {PassThrough} from 'node:stream'

import * as k8s from '@kubernetes/client-node'
import {dump} from 'js-yaml'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {CRDS, SKIP_CRD_TESTS} from '../helpers/crds.js'
import {FakeGke} from './fake-gke.js'
import {gkeClientFor} from './gke-client.js'
import type {Obj} from './fake-kube.js'
import {FakeKube} from './fake-kube.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let fake: FakeKube
let kc: k8s.KubeConfig
let core: k8s.CoreV1Api
let apps: k8s.AppsV1Api
let custom: k8s.CustomObjectsApi

/** A KubeConfig as xpk builds one from a GKE cluster: endpoint, CA data (base64 PEM) and a bearer token. */
function kubeConfigFor(server: string, caData: string, token: string): k8s.KubeConfig {
  const config = new k8s.KubeConfig()
  config.loadFromOptions({
    clusters: [{name: 'gke', server, caData}],
    users: [{name: 'xpk', token}],
    contexts: [{name: 'gke', cluster: 'gke', user: 'xpk', namespace: 'default'}],
    currentContext: 'gke',
  })
  return config
}

beforeAll(async () => {
  fake = await FakeKube.start({bookmarkIntervalMs: 50})
  kc = kubeConfigFor(fake.url, fake.caData, fake.token)
  core = kc.makeApiClient(k8s.CoreV1Api)
  apps = kc.makeApiClient(k8s.AppsV1Api)
  custom = kc.makeApiClient(k8s.CustomObjectsApi)
})

afterAll(async () => {
  await fake.stop()
})

beforeEach(() => fake.reset())

/** The v1 Status of a failed call: client-node 2.x throws ApiException whose body is the raw JSON text. */
async function statusOf(
  promise: Promise<unknown>,
): Promise<{code: number; reason: string; message: string; details?: Obj}> {
  try {
    await promise
  } catch (err) {
    expect(err).toBeInstanceOf(k8s.ApiException)
    const e = err as k8s.ApiException<string>
    expect(typeof e.body).toBe('string')
    const status = JSON.parse(e.body) as {code: number; reason: string; message: string; details?: Obj; kind: string}
    expect(status.kind).toBe('Status')
    expect(status.code).toBe(e.code)
    return status
  }
  throw new Error('expected the call to fail')
}

interface RawReply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/** A request outside the generated API (discovery variants, OpenAPI, streaming), trusting the fake's CA. */
function raw(
  method: string,
  path: string,
  options: {headers?: Record<string, string>; body?: string; token?: string} = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${fake.url}${path}`,
      {
        method,
        ca: fake.caPem,
        headers: {
          Authorization: `Bearer ${options.token ?? fake.token}`,
          ...(options.body === undefined ? {} : {'Content-Length': String(Buffer.byteLength(options.body))}),
          ...options.headers,
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({status: res.statusCode ?? 0, headers: res.headers, text}))
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

const cm = (
  name: string,
  data: Record<string, string> = {a: '1'},
  labels?: Record<string, string>,
): k8s.V1ConfigMap & Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {name, ...(labels ? {labels} : {})},
  data,
})

function deployment(name: string, image = 'nginx:1', replicas = 2): k8s.V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, labels: {app: name}},
    spec: {
      replicas,
      selector: {matchLabels: {app: name}},
      template: {
        metadata: {labels: {app: name}},
        spec: {containers: [{name: 'main', image, env: [{name: 'A', value: '1'}]}]},
      },
    },
  }
}

function pod(
  name: string,
  extra: {nodeName?: string; containers?: string[]; labels?: Record<string, string>} = {},
): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name, namespace: 'default', ...(extra.labels ? {labels: extra.labels} : {})},
    spec: {
      ...(extra.nodeName ? {nodeName: extra.nodeName} : {}),
      containers: (extra.containers ?? ['main']).map((c) => ({name: c, image: 'busybox'})),
    },
  }
}

describe('FakeKube connection', () => {
  it('serves HTTPS that the client verifies against the CA data it was given, and checks the bearer token', async () => {
    const list = await core.listNamespace()
    expect(list.items.map((n) => n.metadata?.name)).toEqual([
      'default',
      'kube-node-lease',
      'kube-public',
      'kube-system',
    ])
    expect(list.items.every((n) => n.status?.phase === 'Active')).toBe(true)

    const wrongToken = kubeConfigFor(fake.url, fake.caData, 'not-the-token').makeApiClient(k8s.CoreV1Api)
    // The generated client knows 401 from the OpenAPI spec and throws without the body (unlike other codes).
    await expect(wrongToken.listNamespace()).rejects.toMatchObject({code: 401, body: undefined})
    const rawReply = await raw('GET', '/api/v1/namespaces', {token: 'not-the-token'})
    expect(JSON.parse(rawReply.text)).toMatchObject({
      kind: 'Status',
      code: 401,
      reason: 'Unauthorized',
      message: 'Unauthorized',
    })

    // Without the CA the handshake must fail: the fake's certificate is not trusted by anything else.
    const other = await FakeKube.start()
    try {
      const wrongCa = kubeConfigFor(fake.url, other.caData, fake.token).makeApiClient(k8s.CoreV1Api)
      const before = fake.requests.length
      await expect(wrongCa.listNamespace()).rejects.toThrow()
      expect(fake.requests.length).toBe(before)
    } finally {
      await other.stop()
    }
  })

  it('outage(ms): cuts open connections, drops new ones during the TLS handshake, then serves again as it was', async () => {
    await core.createNamespacedConfigMap({namespace: 'default', body: {metadata: {name: 'kept'}}})
    // A log stream that would go on: the outage cuts it.
    fake.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'p', namespace: 'default'},
      spec: {containers: [{name: 'main', image: 'busybox'}]},
    })
    fake.setPodLog('default', 'p', 'first\n')
    const streamEnded = raw('GET', '/api/v1/namespaces/default/pods/p/log?follow=true').then(
      () => 'ended',
      () => 'cut',
    )
    await sleep(100)
    const down = fake.outage(300)
    expect(['ended', 'cut']).toContain(await streamEnded)
    const cut = await raw('GET', '/api/v1/namespaces').catch((e: unknown) => e as NodeJS.ErrnoException)
    expect(cut).toMatchObject({code: 'ECONNRESET'})
    expect(String((cut as Error).message)).toMatch(/before secure TLS connection was established|socket hang up/)
    await down
    const after = await core.readNamespacedConfigMap({namespace: 'default', name: 'kept'})
    expect(after.metadata?.name).toBe('kept')
  })

  it('is what FakeGke reports as a cluster endpoint and CA when started with gkeClusterOptions()', async () => {
    const gke = await FakeGke.start({operationMs: 1, ...fake.gkeClusterOptions()})
    const client = gkeClientFor(gke)
    try {
      gke.seedCluster({project: 'p', location: 'us-central1', name: 'c1'})
      const [cluster] = await client.getCluster({name: 'projects/p/locations/us-central1/clusters/c1'})
      expect(cluster.endpoint).toBe(`127.0.0.1:${fake.port}`)
      const caPem = Buffer.from(cluster.masterAuth!.clusterCaCertificate!, 'base64').toString('utf8')
      expect(caPem).toBe(fake.caPem)
      expect(caPem).toMatch(/^-----BEGIN CERTIFICATE-----/)
      // Exactly what an adapter does with a GKE cluster: https://<endpoint>, the CA as is, a token.
      const fromGke = kubeConfigFor(
        `https://${cluster.endpoint}`,
        cluster.masterAuth!.clusterCaCertificate!,
        fake.token,
      )
      const ns = await fromGke.makeApiClient(k8s.CoreV1Api).readNamespace({name: 'kube-system'})
      expect(ns.metadata?.name).toBe('kube-system')
    } finally {
      await client.close()
      await gke.stop()
    }
  })
})

describe('FakeKube discovery', () => {
  it('answers /version, /api, /apis and the resource lists KubernetesObjectApi resolves kinds with', async () => {
    const version = await kc.makeApiClient(k8s.VersionApi).getCode()
    expect(version).toMatchObject({major: '1', minor: '32', gitVersion: 'v1.32.4-gke.1000'})
    const api = await kc.makeApiClient(k8s.CoreApi).getAPIVersions()
    expect(api.versions).toEqual(['v1'])
    const groups = await kc.makeApiClient(k8s.ApisApi).getAPIVersions()
    expect(groups.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining([
        'apps',
        'batch',
        'rbac.authorization.k8s.io',
        'scheduling.k8s.io',
        'apiextensions.k8s.io',
      ]),
    )
    const appsResources = await kc.makeApiClient(k8s.AppsV1Api).getAPIResources()
    const deployments = appsResources.resources.find((r) => r.name === 'deployments')
    expect(deployments).toMatchObject({kind: 'Deployment', namespaced: true, shortNames: ['deploy']})
    expect(deployments?.verbs).toEqual(
      expect.arrayContaining(['create', 'get', 'list', 'watch', 'patch', 'update', 'delete']),
    )
    expect(appsResources.resources.find((r) => r.name === 'deployments/status')).toMatchObject({kind: 'Deployment'})
    const coreResources = await core.getAPIResources()
    expect(coreResources.resources.find((r) => r.name === 'pods/log')).toMatchObject({verbs: ['get']})
    expect(coreResources.resources.find((r) => r.name === 'namespaces')).toMatchObject({namespaced: false})
  })

  it('answers aggregated discovery (apidiscovery.k8s.io/v2) when asked for it, plain JSON otherwise', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'
    const aggregated = await raw('GET', '/apis', {headers: {Accept: accept}})
    expect(aggregated.headers['content-type']).toBe(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    )
    const list = JSON.parse(aggregated.text) as {kind: string; items: Obj[]}
    expect(list.kind).toBe('APIGroupDiscoveryList')
    const appsGroup = list.items.find((g) => (g.metadata as Obj).name === 'apps') as {
      versions: {version: string; resources: Obj[]}[]
    }
    expect(appsGroup.versions[0].resources.find((r) => r.resource === 'daemonsets')).toMatchObject({
      responseKind: {group: 'apps', version: 'v1', kind: 'DaemonSet'},
      scope: 'Namespaced',
      shortNames: ['ds'],
      subresources: [{subresource: 'status'}],
    })
    const legacy = JSON.parse((await raw('GET', '/api', {headers: {Accept: accept}})).text) as {items: Obj[]}
    expect(legacy.items).toHaveLength(1)
    const plain = await raw('GET', '/api', {headers: {Accept: 'application/json'}})
    expect(JSON.parse(plain.text)).toMatchObject({kind: 'APIVersions', versions: ['v1']})
  })

  it('publishes OpenAPI v3 paths that declare fieldValidation on PATCH (what kubectl checks before applying)', async () => {
    const root = JSON.parse((await raw('GET', '/openapi/v3')).text) as {
      paths: Record<string, {serverRelativeURL: string}>
    }
    expect(Object.keys(root.paths)).toEqual(expect.arrayContaining(['api/v1', 'apis/apps/v1']))
    const doc = JSON.parse((await raw('GET', root.paths['apis/apps/v1'].serverRelativeURL)).text) as {
      paths: Record<string, Obj>
    }
    const item = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'] as {
      patch: {parameters: Obj[]; 'x-kubernetes-group-version-kind': Obj}
    }
    expect(item.patch['x-kubernetes-group-version-kind']).toEqual({group: 'apps', version: 'v1', kind: 'Deployment'})
    expect(item.patch.parameters.map((p) => p.name)).toContain('fieldValidation')
    expect((await raw('GET', '/openapi/v2')).status).toBe(404)
  })
})

describe('FakeKube reads and writes', () => {
  it('creates with server stamps, reads, replaces with resourceVersion preconditions and deletes', async () => {
    const created = await core.createNamespacedConfigMap({namespace: 'default', body: cm('c1')})
    expect(created.metadata).toMatchObject({name: 'c1', namespace: 'default'})
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/)
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date)
    const rv1 = Number(created.metadata?.resourceVersion)
    expect(rv1).toBeGreaterThan(0)
    // A non-apply write belongs to the User-Agent's product name when the client names no field manager.
    expect(created.metadata?.managedFields?.map((f) => [f.manager, f.operation])).toEqual([
      ['kubernetes-client-javascript', 'Update'],
    ])

    const dup = await statusOf(core.createNamespacedConfigMap({namespace: 'default', body: cm('c1')}))
    expect(dup).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'configmaps "c1" already exists',
      details: {name: 'c1', kind: 'configmaps'},
    })

    const read = await core.readNamespacedConfigMap({name: 'c1', namespace: 'default'})
    const replaced = await core.replaceNamespacedConfigMap({
      name: 'c1',
      namespace: 'default',
      body: {...read, data: {a: '2'}},
    })
    expect(replaced.data).toEqual({a: '2'})
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(rv1)
    expect(replaced.metadata?.uid).toBe(created.metadata?.uid)

    // The first read is stale now.
    const stale = await statusOf(
      core.replaceNamespacedConfigMap({name: 'c1', namespace: 'default', body: {...read, data: {a: '3'}}}),
    )
    expect(stale).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on configmaps "c1": the object has been modified; please apply your changes to the latest version and try again',
    })

    const deleted = await core.deleteNamespacedConfigMap({name: 'c1', namespace: 'default'})
    expect(deleted).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: {name: 'c1', kind: 'configmaps', uid: created.metadata?.uid},
    })
    const gone = await statusOf(core.readNamespacedConfigMap({name: 'c1', namespace: 'default'}))
    expect(gone).toMatchObject({code: 404, reason: 'NotFound', message: 'configmaps "c1" not found'})
  })

  it('rejects what the API server rejects: bad names (422 with causes), missing namespaces (404), mismatched names (400)', async () => {
    const bad = await statusOf(core.createNamespacedConfigMap({namespace: 'default', body: cm('Bad_Name')}))
    expect(bad.code).toBe(422)
    expect(bad.reason).toBe('Invalid')
    expect(bad.message).toMatch(
      /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    )
    expect(bad.details).toMatchObject({
      name: 'Bad_Name',
      kind: 'ConfigMap',
      causes: [{reason: 'FieldValueInvalid', field: 'metadata.name'}],
    })

    const labels = await statusOf(
      core.createNamespacedConfigMap({namespace: 'default', body: cm('ok', {}, {'bad key!': 'x', good: 'no spaces'})}),
    )
    expect((labels.details?.causes as Obj[]).map((c) => c.field)).toEqual(['metadata.labels', 'metadata.labels'])

    const missing = await statusOf(core.createNamespacedConfigMap({namespace: 'nope', body: cm('c1')}))
    expect(missing).toMatchObject({code: 404, reason: 'NotFound', message: 'namespaces "nope" not found'})

    await core.createNamespacedConfigMap({namespace: 'default', body: cm('c1')})
    const renamed = await statusOf(core.replaceNamespacedConfigMap({name: 'c1', namespace: 'default', body: cm('c2')}))
    expect(renamed).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'the name of the object (c2) does not match the name on the URL (c1)',
    })

    const podErrors = await statusOf(
      core.createNamespacedPod({
        namespace: 'default',
        body: {metadata: {name: 'p'}, spec: {containers: [{name: 'c', image: ''}]}},
      }),
    )
    expect(podErrors.details?.causes).toEqual([
      {reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].image'},
    ])
  })

  it('lists with label selectors (=, ==, !=, in, notin, exists, !exists) and field selectors', async () => {
    fake.seed(
      {...pod('a', {labels: {app: 'x', tier: 'web'}, nodeName: 'n1'}), status: {phase: 'Running'}},
      {...pod('b', {labels: {app: 'y', tier: 'db'}, nodeName: 'n2'}), status: {phase: 'Pending'}},
      {...pod('c', {labels: {app: 'z'}}), status: {phase: 'Running'}},
    )
    const names = async (labelSelector?: string, fieldSelector?: string) =>
      (await core.listNamespacedPod({namespace: 'default', labelSelector, fieldSelector})).items.map(
        (p) => p.metadata?.name,
      )
    expect(await names('app=x')).toEqual(['a'])
    expect(await names('app==y')).toEqual(['b'])
    expect(await names('app!=x')).toEqual(['b', 'c'])
    expect(await names('app in (x, z)')).toEqual(['a', 'c'])
    expect(await names('app notin (x,z)')).toEqual(['b'])
    expect(await names('tier')).toEqual(['a', 'b'])
    expect(await names('!tier')).toEqual(['c'])
    expect(await names('tier,app in (y,z)')).toEqual(['b'])
    expect(await names(undefined, 'status.phase=Running')).toEqual(['a', 'c'])
    expect(await names(undefined, 'spec.nodeName=n2')).toEqual(['b'])
    expect(await names(undefined, 'metadata.name!=a,status.phase==Running')).toEqual(['c'])
    expect(await names(undefined, 'metadata.namespace=default')).toHaveLength(3)
    const badField = await statusOf(core.listNamespacedPod({namespace: 'default', fieldSelector: 'spec.foo=bar'}))
    expect(badField).toMatchObject({code: 400, reason: 'BadRequest', message: 'field label not supported: spec.foo'})
    const badLabel = await statusOf(core.listNamespacedPod({namespace: 'default', labelSelector: 'app in (x'}))
    expect(badLabel.code).toBe(400)
    // All namespaces, and a cluster-scoped kind.
    expect((await core.listPodForAllNamespaces({labelSelector: 'app'})).items).toHaveLength(3)
  })

  it('pages lists with limit and continue tokens, reporting the remaining count', async () => {
    for (let i = 0; i < 5; i++) fake.seed({...cm(`c${i}`), metadata: {name: `c${i}`, namespace: 'default'}})
    const first = await core.listNamespacedConfigMap({namespace: 'default', limit: 2})
    expect(first.items.map((c) => c.metadata?.name)).toEqual(['c0', 'c1'])
    expect(first.metadata?.remainingItemCount).toBe(3)
    const second = await core.listNamespacedConfigMap({
      namespace: 'default',
      limit: 2,
      _continue: first.metadata?._continue,
    })
    expect(second.items.map((c) => c.metadata?.name)).toEqual(['c2', 'c3'])
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion)
    const last = await core.listNamespacedConfigMap({
      namespace: 'default',
      limit: 2,
      _continue: second.metadata?._continue,
    })
    expect(last.items.map((c) => c.metadata?.name)).toEqual(['c4'])
    expect(last.metadata?._continue).toBeUndefined()
    const bad = await statusOf(core.listNamespacedConfigMap({namespace: 'default', _continue: 'garbage'}))
    expect(bad.code).toBe(400)
  })

  it('does not persist dryRun=All writes', async () => {
    const dry = await core.createNamespacedConfigMap({namespace: 'default', body: cm('c1'), dryRun: 'All'})
    expect(dry.metadata?.name).toBe('c1')
    expect(fake.get({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'c1'})).toBeUndefined()
  })
})

describe('RBAC names', () => {
  it('takes a ClusterRole named with a colon, its name percent-encoded in the path, and refuses one with a slash', async () => {
    const role = (name: string) =>
      JSON.stringify({apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: {name}, rules: []})
    const path = (name: string) =>
      `/apis/rbac.authorization.k8s.io/v1/clusterroles/${encodeURIComponent(name)}?fieldManager=t`
    const headers = {'Content-Type': 'application/apply-patch+yaml'}
    const made = await raw('PATCH', path('system:coredns'), {headers, body: role('system:coredns')})
    expect(made.status).toBe(201)
    const read = await raw('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Acoredns')
    expect(read.status).toBe(200)
    const slash = await raw('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      headers: {'Content-Type': 'application/json'},
      body: role('a/b'),
    })
    expect(slash.status).toBe(422)
  })
})

async function until<T>(check: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(5)
  }
}

describe('FakeKube patches', () => {
  it('applies JSON patch (the generated client default), merge patch and strategic merge patch', async () => {
    await core.createNamespacedConfigMap({namespace: 'default', body: cm('c1', {a: '1', b: '2'})})
    // client-node 2.x sends application/json-patch+json from patchNamespaced* unless told otherwise.
    const jsonPatched = await core.patchNamespacedConfigMap({
      name: 'c1',
      namespace: 'default',
      body: [{op: 'replace', path: '/data/a', value: '9'}],
    })
    expect(jsonPatched.data).toEqual({a: '9', b: '2'})
    expect(fake.requests.at(-1)?.contentType).toBe('application/json-patch+json')
    const failedTest = await statusOf(
      core.patchNamespacedConfigMap({
        name: 'c1',
        namespace: 'default',
        body: [{op: 'test', path: '/data/a', value: '1'}],
      }),
    )
    expect(failedTest.code).toBe(422)

    const merged = await core.patchNamespacedConfigMap(
      {name: 'c1', namespace: 'default', body: {data: {b: null, c: '3'}}},
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )
    expect(merged.data).toEqual({a: '9', c: '3'})

    await apps.createNamespacedDeployment({namespace: 'default', body: deployment('d1')})
    const smp = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch)
    const patched = await apps.patchNamespacedDeployment(
      {
        name: 'd1',
        namespace: 'default',
        body: {
          spec: {
            template: {
              spec: {
                containers: [
                  {name: 'main', env: [{name: 'B', value: '2'}]},
                  {name: 'side', image: 'busybox'},
                ],
              },
            },
          },
        },
      },
      smp,
    )
    const containers = patched.spec?.template.spec?.containers ?? []
    // Lists with a merge key merge item by item instead of being replaced.
    expect(containers.map((c) => c.name)).toEqual(['main', 'side'])
    expect(containers[0].image).toBe('nginx:1')
    expect(containers[0].env).toEqual([
      {name: 'A', value: '1'},
      {name: 'B', value: '2'},
    ])
    const removed = await apps.patchNamespacedDeployment(
      {
        name: 'd1',
        namespace: 'default',
        body: {spec: {template: {spec: {containers: [{name: 'side', $patch: 'delete'}]}}}},
      },
      smp,
    )
    expect(removed.spec?.template.spec?.containers.map((c) => c.name)).toEqual(['main'])
  })

  it('answers 415 for strategic merge patch on a custom resource, as CRDs support only merge and JSON patch', async () => {
    await createCrd(smallCrd())
    await custom.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: widget('w1'),
    })
    const status = await statusOf(
      custom.patchNamespacedCustomObject(
        {
          group: 'example.com',
          version: 'v1',
          namespace: 'default',
          plural: 'widgets',
          name: 'w1',
          body: {spec: {size: 3}},
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
      ),
    )
    expect(status).toMatchObject({code: 415, reason: 'UnsupportedMediaType'})
  })
})

describe('FakeKube server-side apply', () => {
  const objects = () => k8s.KubernetesObjectApi.makeApiClient(kc)
  const apply = (object: Obj, manager: string, force?: boolean) =>
    objects().patch(
      object as k8s.KubernetesObject,
      undefined,
      undefined,
      manager,
      force,
      k8s.PatchStrategy.ServerSideApply,
    )
  const managed = (object: k8s.KubernetesObject) =>
    (object.metadata?.managedFields ?? []).map((f) => ({
      manager: f.manager,
      operation: f.operation,
      fields: f.fieldsV1,
    }))

  it('creates, records the manager in managedFields, and is a no-op when re-applied unchanged', async () => {
    const first = await apply({...cm('c1', {a: '1'}, {team: 'ml'})}, 'xpk')
    expect(managed(first)).toEqual([
      {manager: 'xpk', operation: 'Apply', fields: {'f:data': {'f:a': {}}, 'f:metadata': {'f:labels': {'f:team': {}}}}},
    ])
    const again = await apply(cm('c1', {a: '1'}, {team: 'ml'}), 'xpk')
    expect(again.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion)
    const apply201 = fake.requests.filter((r) => r.verb === 'apply').map((r) => r.status)
    expect(apply201).toEqual([201, 200])
    const missingManager = await statusOf(
      core.patchNamespacedConfigMap(
        {name: 'c1', namespace: 'default', body: cm('c1')},
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
      ),
    )
    expect(missingManager).toMatchObject({
      code: 422,
      message: expect.stringContaining('fieldManager: Required value: is required for apply patch'),
    })
  })

  it('reports a conflict (409, one cause per field) when another manager owns a field with a different value; force takes it', async () => {
    await apply(cm('c1', {a: '1', b: '1'}), 'xpk')
    // Same value: shared ownership, no conflict.
    await apply(cm('c1', {a: '1'}), 'other')
    const conflict = await statusOf(apply(cm('c1', {a: '2', b: '2'}), 'other'))
    expect(conflict.code).toBe(409)
    expect(conflict.reason).toBe('Conflict')
    expect(conflict.message).toBe('Apply failed with 2 conflicts: conflicts with "xpk":\n- .data.a\n- .data.b')
    expect(conflict.details?.causes).toEqual([
      {reason: 'FieldManagerConflict', message: 'conflict with "xpk"', field: '.data.a'},
      {reason: 'FieldManagerConflict', message: 'conflict with "xpk"', field: '.data.b'},
    ])
    const one = await statusOf(apply(cm('c1', {b: '2'}), 'other'))
    expect(one.message).toBe('Apply failed with 1 conflict: conflict with "xpk": .data.b')

    const forced = (await apply(cm('c1', {a: '2', b: '2'}), 'other', true)) as k8s.V1ConfigMap
    expect(forced.data).toEqual({a: '2', b: '2'})
    expect(managed(forced)).toEqual([
      {manager: 'other', operation: 'Apply', fields: {'f:data': {'f:a': {}, 'f:b': {}}}},
    ])

    // A field last written by a non-apply update conflicts too, naming the manager's operation and version.
    await core.patchNamespacedConfigMap({
      name: 'c1',
      namespace: 'default',
      fieldManager: 'kubectl-edit',
      body: [{op: 'add', path: '/data/c', value: 'x'}],
    })
    const updateConflict = await statusOf(apply(cm('c1', {a: '2', b: '2', c: 'y'}), 'other'))
    expect(updateConflict.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.c')
  })

  it("merges with other managers' fields and removes fields only the applier owned and no longer applies", async () => {
    await apply(cm('c1', {a: '1', b: '1'}, {app: 'x'}), 'xpk')
    await apply(cm('c1', {z: '9'}, {extra: 'y'}), 'controller')
    const merged = (await apply(cm('c1', {a: '1'}, {app: 'x'}), 'xpk')) as k8s.V1ConfigMap
    // b was xpk's alone: gone; z and the extra label belong to the controller: kept.
    expect(merged.data).toEqual({a: '1', z: '9'})
    expect(merged.metadata?.labels).toEqual({app: 'x', extra: 'y'})
  })

  it('merges keyed lists item by item (containers by name) and applies Deployments', async () => {
    await apply(deployment('d1') as Obj, 'xpk')
    const withSidecar = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {name: 'd1'},
      spec: {template: {spec: {containers: [{name: 'side', image: 'busybox'}]}}},
    }
    const both = (await apply(withSidecar, 'injector')) as k8s.V1Deployment
    expect(both.spec?.template.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'main=nginx:1',
      'side=busybox',
    ])
    const fields = managed(both).find((m) => m.manager === 'injector')?.fields as Obj
    expect(JSON.stringify(fields)).toContain('k:{\\"name\\":\\"side\\"}')
    expect(both.metadata?.generation).toBe(2)
  })
})

/** A small CRD of our own, so schema behaviour is tested without the shared CRDs. */
function smallCrd(): Obj {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['size'],
        properties: {
          size: {type: 'integer', minimum: 1, maximum: 10},
          color: {type: 'string', enum: ['red', 'blue'], default: 'red'},
          name: {type: 'string', pattern: '^[a-z]+$', maxLength: 8},
          tags: {type: 'array', items: {type: 'string'}, 'x-kubernetes-list-type': 'set'},
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: {type: 'object', required: ['name'], properties: {name: {type: 'string'}, port: {type: 'integer'}}},
          },
          extra: {type: 'object', 'x-kubernetes-preserve-unknown-fields': true},
          note: {type: 'string', nullable: true},
          count: {type: 'integer'},
        },
      },
      status: {
        type: 'object',
        properties: {
          phase: {type: 'string'},
          conditions: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['type'],
            items: {
              type: 'object',
              properties: {
                type: {type: 'string'},
                status: {type: 'string'},
                reason: {type: 'string'},
                message: {type: 'string'},
                lastTransitionTime: {type: 'string'},
              },
            },
          },
        },
      },
    },
  }
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {name: 'widgets.example.com'},
    spec: {
      group: 'example.com',
      names: {plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd']},
      scope: 'Namespaced',
      versions: [
        {name: 'v1', served: true, storage: true, schema: {openAPIV3Schema: schema}, subresources: {status: {}}},
        {name: 'v1beta1', served: true, storage: false, deprecated: true, schema: {openAPIV3Schema: schema}},
      ],
    },
  }
}

function widget(name: string, spec: Obj = {size: 2}): Obj {
  return {apiVersion: 'example.com/v1', kind: 'Widget', metadata: {name, namespace: 'default'}, spec}
}

/**
 * Through k8s.loadYaml, as manifests must go: KubernetesObjectApi serializes built-in kinds through the generated
 * models, which drop JSON names they spell differently (`default`, `enum`, `x-kubernetes-*` in a CRD schema) from a
 * plain object.
 */
async function createCrd(crd: Obj): Promise<k8s.KubernetesObject> {
  return k8s.KubernetesObjectApi.makeApiClient(kc).create(k8s.loadYaml<k8s.KubernetesObject>(dump(crd)))
}

const widgets = {group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets'}

describe('FakeKube custom resources', () => {
  it('serves a custom resource once its CRD exists (discovery included) and stops when the CRD is deleted', async () => {
    const before = await statusOf(custom.listNamespacedCustomObject(widgets))
    expect(before.code).toBe(404)
    const crd = await createCrd(smallCrd())
    expect((crd as Obj).status).toMatchObject({
      conditions: expect.arrayContaining([expect.objectContaining({type: 'Established', status: 'True'})]),
      storedVersions: ['v1'],
      acceptedNames: {kind: 'Widget'},
    })
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc)
    const created = await objects.create(widget('w1') as k8s.KubernetesObject)
    expect(created.metadata?.generation).toBe(1)
    const listed = (await custom.listNamespacedCustomObject(widgets)) as {items: Obj[]}
    expect(listed.items.map((i) => [i.apiVersion, i.kind, (i.metadata as Obj).name])).toEqual([
      ['example.com/v1', 'Widget', 'w1'],
    ])
    const resources = await kc
      .makeApiClient(k8s.CustomObjectsApi)
      .getAPIResources({group: 'example.com', version: 'v1'})
    expect(resources.resources.find((r) => r.name === 'widgets')).toMatchObject({
      kind: 'Widget',
      namespaced: true,
      shortNames: ['wd'],
    })
    // Every served version reads the same objects.
    const old = (await custom.getNamespacedCustomObject({...widgets, version: 'v1beta1', name: 'w1'})) as Obj
    expect(old.apiVersion).toBe('example.com/v1beta1')
    expect(fake.requests.at(-1)?.status).toBe(200)

    await k8s.KubernetesObjectApi.makeApiClient(kc).delete(smallCrd() as k8s.KubernetesObject)
    const after = await statusOf(custom.listNamespacedCustomObject(widgets))
    expect(after.code).toBe(404)
    await createCrd(smallCrd())
    expect(((await custom.listNamespacedCustomObject(widgets)) as {items: Obj[]}).items).toEqual([])
  })

  it("validates against the served version's schema: 422 Invalid with one cause per problem", async () => {
    await createCrd(smallCrd())
    const bad = await statusOf(
      custom.createNamespacedCustomObject({
        ...widgets,
        body: widget('w1', {
          size: 'big',
          color: 'green',
          name: 'ABC',
          tags: ['a', 'a'],
          ports: [{name: 'x'}, {name: 'x'}],
          count: 1.5,
        }),
      }),
    )
    expect(bad.code).toBe(422)
    expect(bad.reason).toBe('Invalid')
    expect(bad.message.startsWith('Widget.example.com "w1" is invalid: [')).toBe(true)
    expect(bad.details).toMatchObject({name: 'w1', group: 'example.com', kind: 'Widget'})
    expect(bad.details?.causes).toEqual([
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.size',
        message: 'Invalid value: "string": spec.size in body must be of type integer: "string"',
      },
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.color',
        message: 'Unsupported value: "green": supported values: "red", "blue"',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.name',
        message: `Invalid value: "ABC": spec.name in body should match '^[a-z]+$'`,
      },
      {reason: 'FieldValueDuplicate', field: 'spec.tags[1]', message: 'Duplicate value: "a"'},
      {reason: 'FieldValueDuplicate', field: 'spec.ports[1]', message: 'Duplicate value: {"name":"x"}'},
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.count',
        message: 'Invalid value: "number": spec.count in body must be of type integer: "number"',
      },
    ])
    const limits = await statusOf(
      custom.createNamespacedCustomObject({...widgets, body: widget('w1', {size: 11, name: 'abcdefghij'})}),
    )
    expect((limits.details?.causes as Obj[]).map((c) => c.message)).toEqual([
      'Invalid value: 11: spec.size in body should be less than or equal to 10',
      'Too long: may not be longer than 8',
    ])
    const required = await statusOf(custom.createNamespacedCustomObject({...widgets, body: widget('w1', {})}))
    expect(required.details?.causes).toEqual([
      {reason: 'FieldValueRequired', message: 'Required value', field: 'spec.size'},
    ])
  })

  it('prunes unknown fields (400 under fieldValidation=Strict), keeps preserved ones, drops disallowed nulls and applies defaults', async () => {
    await createCrd(smallCrd())
    const body = widget('w1', {size: 2, bogus: 1, extra: {anything: {goes: true}}, note: null, name: null})
    ;(body as {metadata: Obj}).metadata.labels = {a: 'b'}
    const created = (await custom.createNamespacedCustomObject({...widgets, body})) as {spec: Obj}
    expect(created.spec).toEqual({size: 2, color: 'red', extra: {anything: {goes: true}}, note: null})
    const warning = fake.requests.at(-1)
    expect(warning?.status).toBe(201)
    const strict = await statusOf(
      custom.createNamespacedCustomObject({
        ...widgets,
        body: widget('w2', {size: 2, bogus: 1}),
        fieldValidation: 'Strict',
      }),
    )
    expect(strict).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"',
    })
    const reply = await raw('POST', '/apis/example.com/v1/namespaces/default/widgets', {
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify(widget('w3', {size: 1, bogus: 1})),
    })
    expect(reply.status).toBe(201)
    expect(reply.headers.warning).toBe('299 - "unknown field \\"spec.bogus\\""')
    const deprecated = await raw('GET', '/apis/example.com/v1beta1/namespaces/default/widgets')
    expect(deprecated.headers.warning).toBe('299 - "example.com/v1beta1 Widget is deprecated"')
  })

  it('keeps status behind the status subresource and bumps generation only for spec changes', async () => {
    await createCrd(smallCrd())
    const created = (await custom.createNamespacedCustomObject({
      ...widgets,
      body: {...widget('w1'), status: {phase: 'Ignored'}},
    })) as Obj
    expect(created.status).toBeUndefined()
    const withStatus = (await custom.patchNamespacedCustomObjectStatus(
      {...widgets, name: 'w1', body: {status: {phase: 'Ready'}, spec: {size: 9}}},
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as {status: Obj; spec: Obj; metadata: Obj}
    expect(withStatus.status).toEqual({phase: 'Ready'})
    expect(withStatus.spec.size).toBe(2)
    expect(withStatus.metadata.generation).toBe(1)
    const specChange = (await custom.patchNamespacedCustomObject(
      {...widgets, name: 'w1', body: {spec: {size: 3}, status: {phase: 'Lost'}}},
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as {status: Obj; spec: Obj; metadata: Obj}
    expect(specChange.spec.size).toBe(3)
    expect(specChange.status).toEqual({phase: 'Ready'})
    expect(specChange.metadata.generation).toBe(2)
    const labelOnly = (await custom.patchNamespacedCustomObject(
      {...widgets, name: 'w1', body: {metadata: {labels: {x: 'y'}}}},
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as {metadata: Obj}
    expect(labelOnly.metadata.generation).toBe(2)
    const managers = (labelOnly.metadata.managedFields as Obj[]).map((f) => [f.manager, f.operation, f.subresource])
    expect(managers).toContainEqual(['kubernetes-client-javascript', 'Update', 'status'])
  })

  it('lets tests write conditions as a controller would (setCondition), visible to the client', async () => {
    await createCrd(smallCrd())
    await custom.createNamespacedCustomObject({...widgets, body: widget('w1')})
    const ref = {apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w1'}
    fake.setCondition(ref, {type: 'Admitted', status: 'False', reason: 'Pending'})
    const first = fake.get(ref) as {status: {conditions: Obj[]}}
    const firstTime = first.status.conditions[0].lastTransitionTime
    fake.setCondition(ref, {type: 'Admitted', status: 'False', reason: 'StillPending', message: 'waiting'})
    fake.setCondition(ref, {type: 'Finished', status: 'True', reason: 'Succeeded'})
    const read = (await custom.getNamespacedCustomObject({...widgets, name: 'w1'})) as {
      status: {conditions: Obj[]}
      metadata: Obj
    }
    expect(read.status.conditions).toEqual([
      {type: 'Admitted', status: 'False', reason: 'StillPending', message: 'waiting', lastTransitionTime: firstTime},
      {type: 'Finished', status: 'True', reason: 'Succeeded', message: '', lastTransitionTime: expect.any(String)},
    ])
    expect((read.metadata.managedFields as Obj[]).map((f) => [f.manager, f.subresource])).toContainEqual([
      'fake-kube-controller',
      'status',
    ])
  })
})

describe('FakeKube status and rollout', () => {
  const ref = {apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'd1'}

  it('drops status on create, ignores it on main-resource writes, and writes only status through /status', async () => {
    const created = await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {...deployment('d1'), status: {replicas: 9}},
    })
    expect(created.status).toBeUndefined()
    expect(created.metadata?.generation).toBe(1)
    const statusWrite = await apps.replaceNamespacedDeploymentStatus({
      name: 'd1',
      namespace: 'default',
      body: {...created, spec: {...created.spec!, replicas: 7}, status: {replicas: 2, readyReplicas: 1}},
    })
    expect(statusWrite.status).toMatchObject({replicas: 2, readyReplicas: 1})
    expect(statusWrite.spec?.replicas).toBe(2)
    expect(statusWrite.metadata?.generation).toBe(1)
    const specWrite = await apps.replaceNamespacedDeployment({
      name: 'd1',
      namespace: 'default',
      body: {...statusWrite, spec: {...statusWrite.spec!, replicas: 3}, status: {replicas: 0}},
    })
    expect(specWrite.spec?.replicas).toBe(3)
    expect(specWrite.status?.readyReplicas).toBe(1)
    expect(specWrite.metadata?.generation).toBe(2)
  })

  it('makes Deployments and DaemonSets ready when the test says so, never on their own by default', async () => {
    await apps.createNamespacedDeployment({namespace: 'default', body: deployment('d1', 'nginx:1', 3)})
    await sleep(30)
    expect(fake.get(ref)?.status).toBeUndefined()
    fake.setDeploymentAvailable('default', 'd1')
    const ready = await apps.readNamespacedDeployment({name: 'd1', namespace: 'default'})
    expect(ready.status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      updatedReplicas: 3,
    })
    expect(ready.status?.conditions?.find((c) => c.type === 'Available')).toMatchObject({
      status: 'True',
      reason: 'MinimumReplicasAvailable',
    })

    const ds: k8s.V1DaemonSet = {
      metadata: {name: 'ds1'},
      spec: {
        selector: {matchLabels: {a: 'b'}},
        template: {metadata: {labels: {a: 'b'}}, spec: {containers: [{name: 'c', image: 'i'}]}},
      },
    }
    await apps.createNamespacedDaemonSet({namespace: 'kube-system', body: ds})
    fake.setDaemonSetReady('kube-system', 'ds1', 4)
    const dsRead = await apps.readNamespacedDaemonSet({name: 'ds1', namespace: 'kube-system'})
    expect(dsRead.status).toMatchObject({
      desiredNumberScheduled: 4,
      numberReady: 4,
      updatedNumberScheduled: 4,
      observedGeneration: 1,
    })
  })

  it('rolls out automatically after rolloutMs, again after each spec change', async () => {
    fake.settings.rolloutMs = 20
    await apps.createNamespacedDeployment({namespace: 'default', body: deployment('d1')})
    await until(() => fake.get(ref)?.status, 'the first rollout')
    const patched = await apps.patchNamespacedDeployment(
      {name: 'd1', namespace: 'default', body: {spec: {replicas: 5}}},
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )
    // Until the controller catches up, the status describes the previous generation.
    expect(patched.metadata?.generation).toBe(2)
    expect(patched.status).toMatchObject({observedGeneration: 1, replicas: 2})
    const rolled = await until(() => {
      const s = fake.get(ref)?.status as Obj | undefined
      return s?.observedGeneration === 2 && s
    }, 'the second rollout')
    expect(rolled).toMatchObject({replicas: 5, availableReplicas: 5})
  })
})

describe('FakeKube watch', () => {
  interface Seen {
    type: string
    name: string
    rv: string
  }
  async function watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
  ): Promise<{events: Seen[]; stop: () => void; done: Promise<unknown>}> {
    const events: Seen[] = []
    let finish!: (err: unknown) => void
    const done = new Promise((resolve) => (finish = resolve))
    const controller = await new k8s.Watch(kc).watch(
      path,
      query,
      (type, object: k8s.KubernetesObject) =>
        events.push({type, name: object.metadata?.name ?? '', rv: object.metadata?.resourceVersion ?? ''}),
      (err) => finish(err),
    )
    return {events, stop: () => controller.abort(), done}
  }

  it('streams ADDED for what exists, then ADDED, MODIFIED and DELETED as they happen', async () => {
    await core.createNamespacedConfigMap({namespace: 'default', body: cm('old')})
    const w = await watch('/api/v1/namespaces/default/configmaps', {})
    await until(() => w.events.length === 1, 'the initial ADDED')
    await core.createNamespacedConfigMap({namespace: 'default', body: cm('new')})
    await core.patchNamespacedConfigMap({
      name: 'new',
      namespace: 'default',
      body: [{op: 'add', path: '/data/b', value: '2'}],
    })
    await core.deleteNamespacedConfigMap({name: 'old', namespace: 'default'})
    await core.createNamespacedConfigMap({namespace: 'kube-system', body: cm('elsewhere')})
    await until(() => w.events.length >= 4, 'four events')
    w.stop()
    expect(w.events.map((e) => `${e.type} ${e.name}`)).toEqual([
      'ADDED old',
      'ADDED new',
      'MODIFIED new',
      'DELETED old',
    ])
    const rvs = w.events.slice(1).map((e) => Number(e.rv))
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b))
  })

  it('resumes from a resourceVersion without replaying older events, and follows label selectors in and out', async () => {
    const first = await core.createNamespacedConfigMap({namespace: 'default', body: cm('a')})
    await core.createNamespacedConfigMap({namespace: 'default', body: cm('b')})
    await core.createNamespacedConfigMap({namespace: 'default', body: cm('c', {}, {team: 'ml'})})
    const resumed = await watch('/api/v1/namespaces/default/configmaps', {
      resourceVersion: first.metadata?.resourceVersion,
    })
    await until(() => resumed.events.length === 2, 'the two later events')
    expect(resumed.events.map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED b', 'ADDED c'])
    resumed.stop()

    const selected = await watch('/api/v1/namespaces/default/configmaps', {labelSelector: 'team=ml'})
    await until(() => selected.events.length === 1, 'the labelled object')
    const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)
    await core.patchNamespacedConfigMap(
      {name: 'a', namespace: 'default', body: {metadata: {labels: {team: 'ml'}}}},
      merge,
    )
    await core.patchNamespacedConfigMap(
      {name: 'c', namespace: 'default', body: {metadata: {labels: {team: null}}}},
      merge,
    )
    await until(() => selected.events.length === 3, 'in and out')
    selected.stop()
    expect(selected.events.map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED c', 'ADDED a', 'DELETED c'])
  })

  it('watches one object by field selector, sends bookmarks when allowed, and ends at timeoutSeconds', async () => {
    await core.createNamespacedConfigMap({namespace: 'default', body: cm('a')})
    await core.createNamespacedConfigMap({namespace: 'default', body: cm('b')})
    const w = await watch('/api/v1/namespaces/default/configmaps', {
      fieldSelector: 'metadata.name=b',
      allowWatchBookmarks: true,
      timeoutSeconds: 1,
    })
    await until(() => w.events.some((e) => e.type === 'BOOKMARK'), 'a bookmark')
    expect(w.events.filter((e) => e.type !== 'BOOKMARK').map((e) => e.name)).toEqual(['b'])
    // The server ends the watch; the client reports it as done without an error.
    expect(await w.done).toBeNull()
  })

  it('sends the initial state then a bookmark marking its end when asked for sendInitialEvents (watch-list)', async () => {
    await core.createNamespacedConfigMap({namespace: 'default', body: cm('a')})
    const w = await watch('/api/v1/namespaces/default/configmaps', {
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      resourceVersionMatch: 'NotOlderThan',
    })
    await until(() => w.events.length >= 2, 'the initial events')
    w.stop()
    expect(w.events.slice(0, 2).map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED a', 'BOOKMARK '])
    const reply = await raw(
      'GET',
      '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&timeoutSeconds=1',
    )
    const bookmark = JSON.parse(reply.text.split('\n')[1]) as {type: string; object: {metadata: Obj}}
    expect(bookmark).toMatchObject({
      type: 'BOOKMARK',
      object: {metadata: {annotations: {'k8s.io/initial-events-end': 'true'}}},
    })
  })

  it('reports 410 Expired in an ERROR event for a resourceVersion older than its history', async () => {
    fake.settings.watchHistory = 2
    const first = await core.createNamespacedConfigMap({namespace: 'default', body: cm('a')})
    for (const name of ['b', 'c', 'd']) await core.createNamespacedConfigMap({namespace: 'default', body: cm(name)})
    const events: {type: string; object: Obj}[] = []
    const controller = await new k8s.Watch(kc).watch(
      '/api/v1/namespaces/default/configmaps',
      {resourceVersion: first.metadata?.resourceVersion},
      (type, object: Obj) => events.push({type, object}),
      () => undefined,
    )
    await until(() => events.length === 1, 'the error event')
    controller.abort()
    expect(events[0]).toMatchObject({type: 'ERROR', object: {kind: 'Status', code: 410, reason: 'Expired'}})
  })
})

describe('FakeKube deletion', () => {
  function owned(name: string, owner: k8s.KubernetesObject, kind = 'ConfigMap'): Obj {
    const base = kind === 'Pod' ? pod(name) : cm(name)
    return {
      ...base,
      metadata: {
        name,
        namespace: 'default',
        ownerReferences: [
          {
            apiVersion: owner.apiVersion,
            kind: owner.kind,
            name: owner.metadata?.name,
            uid: owner.metadata?.uid,
            controller: true,
          },
        ],
      },
    }
  }
  const configMap = (name: string) => fake.get({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name})
  const exists = (name: string) =>
    fake.get({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name}) !== undefined

  it('deletes dependents in the background after their owner, keeps them (without the reference) on Orphan', async () => {
    const [owner] = fake.seed(cm('owner')) as k8s.KubernetesObject[]
    fake.seed(owned('dep1', owner), owned('dep2', owner))
    await core.deleteNamespacedConfigMap({name: 'owner', namespace: 'default'})
    await fake.settled()
    expect(['owner', 'dep1', 'dep2'].map(exists)).toEqual([false, false, false])

    const [owner2] = fake.seed(cm('owner2')) as k8s.KubernetesObject[]
    fake.seed(owned('kept', owner2))
    // Raw, because the typed client reads every DELETE answer as a V1Status; the server answers the held object.
    const reply = await raw('DELETE', '/api/v1/namespaces/default/configmaps/owner2', {
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({propagationPolicy: 'Orphan'}),
    })
    // Held by the garbage collector's orphan finalizer until the references are gone.
    expect(reply.status, reply.text).toBe(200)
    expect(JSON.parse(reply.text).metadata).toMatchObject({
      finalizers: ['orphan'],
      deletionTimestamp: expect.any(String),
    })
    await fake.settled()
    expect(exists('owner2')).toBe(false)
    const kept = await core.readNamespacedConfigMap({name: 'kept', namespace: 'default'})
    expect(kept.metadata?.ownerReferences).toBeUndefined()
  })

  it("orphans a Job's pods by default (the batch/v1 default) and cascades when asked", async () => {
    const batch = kc.makeApiClient(k8s.BatchV1Api)
    const job: k8s.V1Job = {
      metadata: {name: 'j1'},
      spec: {template: {spec: {restartPolicy: 'Never', containers: [{name: 'c', image: 'i'}]}}},
    }
    const created = await batch.createNamespacedJob({namespace: 'default', body: job})
    fake.seed(owned('p1', created, 'Pod'), owned('p2', created, 'Pod'))
    await batch.deleteNamespacedJob({name: 'j1', namespace: 'default'})
    await fake.settled()
    expect(fake.list('v1', 'Pod', 'default').map((p) => (p.metadata as Obj).name)).toEqual(['p1', 'p2'])
    const again = await batch.createNamespacedJob({namespace: 'default', body: {...job, metadata: {name: 'j2'}}})
    fake.seed(owned('p3', again, 'Pod'))
    await batch.deleteNamespacedJob({name: 'j2', namespace: 'default', propagationPolicy: 'Foreground'})
    await fake.settled()
    expect(fake.list('v1', 'Pod', 'default').map((p) => (p.metadata as Obj).name)).toEqual(['p1', 'p2'])
    expect(fake.get({apiVersion: 'batch/v1', kind: 'Job', namespace: 'default', name: 'j2'})).toBeUndefined()
  })

  it('keeps an object with finalizers (deletionTimestamp set) until they are removed', async () => {
    fake.seed({...cm('held'), metadata: {name: 'held', namespace: 'default', finalizers: ['example.com/cleanup']}})
    // The typed client reads the answer as a V1Status; the server sent the object, still there.
    await core.deleteNamespacedConfigMap({name: 'held', namespace: 'default'})
    expect(fake.requests.at(-1)?.status).toBe(200)
    expect(configMap('held')?.metadata).toMatchObject({
      deletionTimestamp: expect.any(String),
      finalizers: ['example.com/cleanup'],
    })
    expect(exists('held')).toBe(true)
    const addMore = await statusOf(
      core.patchNamespacedConfigMap({
        name: 'held',
        namespace: 'default',
        body: [{op: 'add', path: '/metadata/finalizers/-', value: 'x/y'}],
      }),
    )
    expect(addMore.code).toBe(422)
    await core.patchNamespacedConfigMap({
      name: 'held',
      namespace: 'default',
      body: [{op: 'remove', path: '/metadata/finalizers'}],
    })
    expect(exists('held')).toBe(false)
  })

  it('terminates a namespace: 403 for new content while its objects go, then it is gone; default cannot be deleted', async () => {
    await core.createNamespace({body: {metadata: {name: 'team'}}})
    await core.createNamespacedConfigMap({namespace: 'team', body: cm('c1')})
    // Held Terminating until the test lets it go, so the checks below cannot race the deletion.
    fake.settings.namespaceDeletionMs = Infinity
    await core.deleteNamespace({name: 'team'})
    expect((await core.readNamespace({name: 'team'})).status?.phase).toBe('Terminating')
    const refused = await statusOf(core.createNamespacedConfigMap({namespace: 'team', body: cm('c2')}))
    expect(refused).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: 'unable to create new content in namespace team because it is being terminated',
    })
    fake.finishNamespaceDeletions()
    await fake.settled()
    expect((await statusOf(core.readNamespace({name: 'team'}))).code).toBe(404)
    expect(fake.list('v1', 'ConfigMap', 'team')).toEqual([])
    const protectedNs = await statusOf(core.deleteNamespace({name: 'default'}))
    expect(protectedNs).toMatchObject({code: 403, reason: 'Forbidden'})
  })

  it('deletes collections by label selector', async () => {
    fake.seed(cm('a', {}, {x: '1'}), cm('b', {}, {x: '1'}), cm('c'))
    await core.deleteCollectionNamespacedConfigMap({namespace: 'default', labelSelector: 'x=1'})
    expect(fake.list('v1', 'ConfigMap', 'default').map((c) => (c.metadata as Obj).name)).toEqual(['c'])
  })
})

describe('FakeKube pod logs', () => {
  it('returns the log the test set, honours tailLines, and names containers as the API server does', async () => {
    fake.seed(
      {...pod('p1'), status: {phase: 'Running'}},
      {...pod('p2', {containers: ['a', 'b']}), status: {phase: 'Running'}},
    )
    fake.setPodLog('default', 'p1', 'one\ntwo\nthree\n')
    expect(await core.readNamespacedPodLog({name: 'p1', namespace: 'default'})).toBe('one\ntwo\nthree\n')
    expect(await core.readNamespacedPodLog({name: 'p1', namespace: 'default', tailLines: 2})).toBe('two\nthree\n')
    const stamped = await core.readNamespacedPodLog({name: 'p1', namespace: 'default', timestamps: true})
    expect(stamped.split('\n')[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z one$/)
    fake.setPodLog('default', 'p2', 'from b\n', 'b')
    expect(await core.readNamespacedPodLog({name: 'p2', namespace: 'default', container: 'b'})).toBe('from b\n')
    const unnamed = await statusOf(core.readNamespacedPodLog({name: 'p2', namespace: 'default'}))
    expect(unnamed).toMatchObject({
      code: 400,
      message: 'a container name must be specified for pod p2, choose one of: [a b]',
    })
    const wrong = await statusOf(core.readNamespacedPodLog({name: 'p2', namespace: 'default', container: 'z'}))
    expect(wrong.message).toBe('container z is not valid for pod p2')
    await core.createNamespacedPod({namespace: 'default', body: pod('p3') as k8s.V1Pod})
    const waiting = await statusOf(core.readNamespacedPodLog({name: 'p3', namespace: 'default'}))
    expect(waiting).toMatchObject({
      code: 400,
      message: 'container "main" in pod "p3" is waiting to start: ContainerCreating',
    })
    expect((await statusOf(core.readNamespacedPodLog({name: 'nope', namespace: 'default'}))).code).toBe(404)
  })

  it('timestamps go before each line only; sinceTime keeps the lines not before its second', async () => {
    fake.seed({...pod('p1'), status: {phase: 'Running'}})
    fake.setPodLog('default', 'p1', 'one\n')
    const log = async (query: string) => {
      const reply = await raw('GET', `/api/v1/namespaces/default/pods/p1/log?${query}`)
      return {status: reply.status, body: reply.text}
    }
    const stamped = await core.readNamespacedPodLog({name: 'p1', namespace: 'default', timestamps: true})
    const first = stamped.split(' ')[0]!
    const second = `${first.slice(0, 19)}Z`
    // Inclusive, to the second: a sinceTime later in the line's second still keeps it.
    const later = `${first.slice(0, 19)}.999999999Z`
    expect((await log(`sinceTime=${encodeURIComponent(later)}`)).body).toBe('one\n')
    const next = new Date(Date.parse(second) + 1000).toISOString().replace('.000Z', 'Z')
    expect(await log(`sinceTime=${encodeURIComponent(second)}`)).toMatchObject({status: 200, body: 'one\n'})
    expect(await log(`sinceTime=${encodeURIComponent(next)}`)).toMatchObject({status: 200, body: ''})
    expect((await log(`sinceTime=${encodeURIComponent(second)}&sinceSeconds=10`)).status).toBe(422)
    expect((await log('sinceTime=soon')).status).toBe(400)
    // A followed log with timestamps: the time before each new line, not before the rest of a line.
    const out = new PassThrough()
    let text = ''
    out.on('data', (chunk: Buffer) => (text += chunk.toString()))
    await new k8s.Log(kc).log('default', 'p1', 'main', out, {follow: true, timestamps: true, tailLines: 0})
    await until(() => fake.requests.some((r) => r.verb === 'log' && r.query.follow === 'true'), 'the stream')
    await new Promise((r) => setTimeout(r, 20))
    fake.appendPodLog('default', 'p1', 'tw')
    fake.appendPodLog('default', 'p1', 'o\nthree\n')
    await until(() => text.endsWith('three\n'), 'the lines')
    expect(text).toMatch(/(^|\n)\S+Z two\n\S+Z three\n$/)
    fake.endPodLog('default', 'p1')
  })

  it('streams a followed log as it grows and ends it when the pod finishes', async () => {
    fake.seed({...pod('p1'), status: {phase: 'Running'}})
    fake.setPodLog('default', 'p1', 'start\n')
    const out = new PassThrough()
    let text = ''
    out.on('data', (chunk: Buffer) => (text += chunk.toString()))
    const ended = new Promise((resolve) => out.on('end', resolve))
    await new k8s.Log(kc).log('default', 'p1', 'main', out, {follow: true})
    await until(() => text === 'start\n', 'the existing log')
    fake.appendPodLog('default', 'p1', 'step 1\n')
    await until(() => text === 'start\nstep 1\n', 'the appended line')
    fake.setStatus({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p1'}, {phase: 'Succeeded'})
    await ended
    expect(text).toBe('start\nstep 1\n')
  })

  it('restarts a container: the followed log ends, the next read is the new container, the status counts it', async () => {
    fake.seed({
      ...pod('p1'),
      status: {phase: 'Running', containerStatuses: [{name: 'main', restartCount: 0, state: {running: {}}}]},
    })
    fake.setPodLog('default', 'p1', 'old\n')
    const out = new PassThrough()
    let text = ''
    out.on('data', (chunk: Buffer) => (text += chunk.toString()))
    const ended = new Promise((resolve) => out.on('end', resolve))
    await new k8s.Log(kc).log('default', 'p1', 'main', out, {follow: true})
    await until(() => text === 'old\n', 'the old log')
    const before = Number(
      (fake.get({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p1'})?.metadata as Obj).resourceVersion,
    )
    fake.restartPodContainer('default', 'p1')
    await ended
    fake.appendPodLog('default', 'p1', 'new\n')
    expect(text).toBe('old\n')
    expect(await core.readNamespacedPodLog({name: 'p1', namespace: 'default'})).toBe('new\n')
    const restarted = fake.get({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p1'})!
    expect(Number((restarted.metadata as Obj).resourceVersion)).toBeGreaterThan(before)
    expect((restarted.status as Obj).containerStatuses).toEqual([
      {
        name: 'main',
        restartCount: 1,
        state: {running: {startedAt: expect.any(String)}},
        lastState: {terminated: {exitCode: 1, reason: 'Error', finishedAt: expect.any(String)}},
      },
    ])
    fake.restartPodContainer('default', 'p1')
    expect(await core.readNamespacedPodLog({name: 'p1', namespace: 'default'})).toBe('')
    expect(
      (
        (fake.get({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p1'})!.status as Obj)
          .containerStatuses as Obj[]
      )[0]!.restartCount,
    ).toBe(2)
  })
})

describe('FakeKube test controls', () => {
  it('logs every request with its verb and whether it mutates, so tests can count writes', async () => {
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc)
    await objects.patch(
      cm('c1') as k8s.KubernetesObject,
      undefined,
      undefined,
      'xpk',
      true,
      k8s.PatchStrategy.ServerSideApply,
    )
    await objects.read({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'c1', namespace: 'default'}})
    await core.listNamespacedConfigMap({namespace: 'default'})
    await objects.delete({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'c1', namespace: 'default'}})
    // KubernetesObjectApi resolves the kind once per apiVersion (GET /api/v1), then caches it.
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.verb}${r.mutating ? ' (mutating)' : ''}`)).toEqual([
      'GET /api/v1 discovery',
      'PATCH /api/v1/namespaces/default/configmaps/c1 apply (mutating)',
      'GET /api/v1/namespaces/default/configmaps/c1 get',
      'GET /api/v1/namespaces/default/configmaps list',
      'DELETE /api/v1/namespaces/default/configmaps/c1 delete (mutating)',
    ])
    expect(fake.mutatingRequests()).toHaveLength(2)
    expect(fake.requests[1]).toMatchObject({
      query: {fieldManager: 'xpk', force: 'true'},
      contentType: 'application/apply-patch+yaml',
      resource: 'configmaps',
      namespace: 'default',
      name: 'c1',
      status: 201,
      body: {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'c1', namespace: 'default'}},
    })
    expect(fake.requestCount({verb: 'apply'})).toBe(1)
  })

  it('fails the next N matching requests with an injected status (Retry-After included), then serves normally', async () => {
    fake.faults.push({method: 'POST', path: /\/configmaps$/, status: 429, retryAfterSeconds: 1, times: 2})
    const first = await statusOf(core.createNamespacedConfigMap({namespace: 'default', body: cm('c1')}))
    expect(first).toMatchObject({code: 429, reason: 'TooManyRequests', details: {retryAfterSeconds: 1}})
    await statusOf(core.createNamespacedConfigMap({namespace: 'default', body: cm('c1')}))
    await core.createNamespacedConfigMap({namespace: 'default', body: cm('c1')})
    expect(fake.requests.map((r) => [r.status, r.faulted ?? false])).toEqual([
      [429, true],
      [429, true],
      [201, false],
    ])
    expect(fake.faults).toEqual([])
  })

  it('can lose the answer after the write took effect, and delay requests', async () => {
    fake.faults.push({verb: 'create', status: 504, reason: 'Timeout', message: 'timeout', afterApply: true})
    const lost = await statusOf(core.createNamespacedConfigMap({namespace: 'default', body: cm('c1')}))
    expect(lost).toMatchObject({code: 504, reason: 'Timeout'})
    expect(fake.get({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'c1'})).toBeDefined()

    fake.settings.latencyMs = 60
    fake.faults.push({verb: 'get', delayMs: 60})
    const started = Date.now()
    await core.readNamespacedConfigMap({name: 'c1', namespace: 'default'})
    expect(Date.now() - started).toBeGreaterThanOrEqual(115)
  })

  it('seeds objects with status as given and lists them back', async () => {
    const [node] = fake.seed({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name: 'n1', labels: {'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice'}},
      status: {allocatable: {'google.com/tpu': '4'}},
    })
    expect(node.metadata).toMatchObject({uid: expect.any(String), resourceVersion: expect.any(String)})
    const nodes = await core.listNode({labelSelector: 'cloud.google.com/gke-tpu-accelerator'})
    expect(nodes.items.map((n) => [n.metadata?.name, n.status?.allocatable?.['google.com/tpu']])).toEqual([['n1', '4']])
    expect(() => fake.seed({...cm('x'), metadata: {name: 'x', namespace: 'missing'}})).toThrow(
      /namespaces "missing" not found/,
    )
    expect(() => fake.seed({apiVersion: 'example.com/v1', kind: 'Widget', metadata: {name: 'w'}})).toThrow(
      /no resource type serves/,
    )
  })
})

/** The JobSet and Kueue CRDs wherever the tests find them (test/helpers/crds.ts: the shared CRDs, the cache, a download). */
const realCrds = (): Obj[] => (CRDS.found ? CRDS.components.flatMap((c) => c.crds()) : []) as unknown as Obj[]

describe.skipIf(SKIP_CRD_TESTS)('FakeKube with the JobSet and Kueue CRDs', () => {
  const objects = () => k8s.KubernetesObjectApi.makeApiClient(kc)
  const jobsets = {group: 'jobset.x-k8s.io', version: 'v1alpha2', namespace: 'default', plural: 'jobsets'}

  /** Through the client, as xpk will install them (about 2 s: client-node's model (de)serialization is slow). */
  async function install(): Promise<void> {
    const api = objects()
    for (const crd of realCrds() as k8s.KubernetesObject[]) {
      await api.patch(crd, undefined, undefined, 'xpk', true, k8s.PatchStrategy.ServerSideApply)
    }
  }

  /** Straight into the fake, for tests about what comes after the install. */
  function seedCrds(): void {
    fake.seed(...realCrds())
  }

  function jobSet(name: string, replicas: unknown = 2): Obj {
    return {
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: {name, namespace: 'default', labels: {'kueue.x-k8s.io/queue-name': 'multislice-queue'}},
      spec: {
        failurePolicy: {maxRestarts: 0},
        replicatedJobs: [
          {
            name: 'slice-job',
            replicas,
            template: {
              spec: {
                parallelism: 4,
                completions: 4,
                backoffLimit: 0,
                template: {
                  spec: {
                    restartPolicy: 'Never',
                    containers: [{name: 'main', image: 'busybox', command: ['bash', '-c', 'echo hi']}],
                  },
                },
              },
            },
          },
        ],
      },
    }
  }

  it('installs the CRDs by server-side apply and serves JobSets and Kueue kinds with their scopes', async () => {
    await install()
    const jobsetResources = await custom.getAPIResources({group: 'jobset.x-k8s.io', version: 'v1alpha2'})
    expect(jobsetResources.resources.find((r) => r.name === 'jobsets')).toMatchObject({
      kind: 'JobSet',
      namespaced: true,
    })
    const kueue = await custom.getAPIResources({group: 'kueue.x-k8s.io', version: 'v1beta2'})
    const scope = Object.fromEntries(
      kueue.resources.filter((r) => !r.name.includes('/')).map((r) => [r.kind, r.namespaced]),
    )
    expect(scope).toMatchObject({ClusterQueue: false, LocalQueue: true, ResourceFlavor: false, Workload: true})
    // Re-applying the same CRDs changes nothing.
    const writesBefore = fake.history().length
    await install()
    expect(fake.history().length).toBe(writesBefore)
  })

  it('accepts a JobSet as xpk builds one and rejects a bad one with the causes a real API server gives', async () => {
    seedCrds()
    const created = await objects().create(jobSet('wl-1') as k8s.KubernetesObject)
    expect(created.metadata?.generation).toBe(1)
    const listed = (await custom.listNamespacedCustomObject({
      ...jobsets,
      labelSelector: 'kueue.x-k8s.io/queue-name=multislice-queue',
    })) as {items: Obj[]}
    expect(listed.items.map((i) => (i.metadata as Obj).name)).toEqual(['wl-1'])
    const bad = await statusOf(custom.createNamespacedCustomObject({...jobsets, body: jobSet('wl-2', 'two')}))
    expect(bad).toMatchObject({code: 422, reason: 'Invalid', details: {kind: 'JobSet', group: 'jobset.x-k8s.io'}})
    expect(bad.details?.causes).toContainEqual({
      reason: 'FieldValueTypeInvalid',
      field: 'spec.replicatedJobs[0].replicas',
      message: 'Invalid value: "string": spec.replicatedJobs[0].replicas in body must be of type integer: "string"',
    })
  })

  it('lets a test act as Kueue and JobSet: Workload and JobSet conditions through the status subresource', async () => {
    seedCrds()
    const api = objects()
    const apply = (o: Obj) =>
      api.patch(o as k8s.KubernetesObject, undefined, undefined, 'xpk', true, k8s.PatchStrategy.ServerSideApply)
    await apply({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ResourceFlavor', metadata: {name: 'default-flavor'}})
    await apply({
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ClusterQueue',
      metadata: {name: 'cluster-queue'},
      spec: {
        namespaceSelector: {},
        resourceGroups: [
          {
            coveredResources: ['cpu'],
            flavors: [{name: 'default-flavor', resources: [{name: 'cpu', nominalQuota: 10}]}],
          },
        ],
      },
    })
    await apply({
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'LocalQueue',
      metadata: {name: 'multislice-queue', namespace: 'default'},
      spec: {clusterQueue: 'cluster-queue'},
    })
    const workload = {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'Workload',
      metadata: {name: 'jobset-wl-1', namespace: 'default'},
      spec: {
        queueName: 'multislice-queue',
        podSets: [{name: 'slice-job', count: 8, template: {spec: {containers: [{name: 'main', image: 'busybox'}]}}}],
      },
    }
    await apply(workload)
    const ref = {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Workload', namespace: 'default', name: 'jobset-wl-1'}
    fake.setCondition(ref, {
      type: 'QuotaReserved',
      status: 'True',
      reason: 'QuotaReserved',
      message: 'Quota reserved in ClusterQueue cluster-queue',
    })
    fake.setCondition(ref, {type: 'Admitted', status: 'True', reason: 'Admitted', message: 'The workload is admitted'})
    const read = (await custom.getNamespacedCustomObject({
      group: 'kueue.x-k8s.io',
      version: 'v1beta2',
      namespace: 'default',
      plural: 'workloads',
      name: 'jobset-wl-1',
    })) as {status: {conditions: Obj[]}}
    expect(read.status.conditions.map((c) => [c.type, c.status])).toEqual([
      ['QuotaReserved', 'True'],
      ['Admitted', 'True'],
    ])
    const old = await raw('GET', '/apis/kueue.x-k8s.io/v1beta1/namespaces/default/workloads/jobset-wl-1')
    expect(old.headers.warning).toBe('299 - "This version is deprecated. Use v1beta2 instead."')

    await custom.createNamespacedCustomObject({...jobsets, body: jobSet('wl-1')})
    await custom.patchNamespacedCustomObjectStatus(
      {
        ...jobsets,
        name: 'wl-1',
        body: {
          status: {
            conditions: [
              {
                type: 'Completed',
                status: 'True',
                reason: 'AllJobsCompleted',
                message: 'jobset completed successfully',
                lastTransitionTime: '2026-01-01T00:00:00Z',
              },
            ],
          },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )
    const done = (await custom.getNamespacedCustomObject({...jobsets, name: 'wl-1'})) as {
      status: {conditions: Obj[]}
      metadata: Obj
    }
    expect(done.status.conditions[0]).toMatchObject({type: 'Completed', status: 'True'})
    expect(done.metadata.generation).toBe(1)
  })
})
