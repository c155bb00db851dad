import {describe, expect, it} from 'vitest'

import {XpkError} from '../../../src/core/errors.js'
import {
  applyOrder,
  controllerImage,
  findControllerDeployment,
  imageTag,
  installWaves,
  listCrds,
  parseManifestOverride,
  RELEASES,
  splitApiVersion,
} from '../../../src/core/kube/release-manifest.js'
import type {KubeObject} from '../../../src/core/kube/release-manifest.js'
import {documentStartLines, parseManifest} from '../../../src/core/kube/manifest-yaml.js'
import {releaseObjects} from '../../fakes/memory-release-manifests.js'

/** A small release manifest in the shape of the real ones (kustomize output: every namespaced object names its namespace). */
const MANIFEST = `---
apiVersion: v1
kind: Namespace
metadata:
  name: kueue-system
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterqueues.kueue.x-k8s.io
spec:
  group: kueue.x-k8s.io
  names: {kind: ClusterQueue, plural: clusterqueues}
  scope: Cluster
  versions:
    - {name: v1beta1, served: true, storage: false, deprecated: true}
    - {name: v1beta2, served: true, storage: true}
---
# comments only: an empty document
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kueue-controller-manager
  namespace: kueue-system
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: kueue-validating-webhook-configuration
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kueue-manager-role
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kueue-controller-manager
  namespace: kueue-system
spec:
  template:
    spec:
      containers:
        - name: kube-rbac-proxy
          image: gcr.io/kubebuilder/kube-rbac-proxy:v0.8.0
        - name: manager
          image: registry.k8s.io/kueue/kueue:v0.17.1
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: localqueues.kueue.x-k8s.io
spec:
  group: kueue.x-k8s.io
  names: {kind: LocalQueue, plural: localqueues}
  scope: Namespaced
  versions:
    - {name: v1beta2, served: true, storage: true}
---
`

function object(kind: string, name: string, namespace?: string, apiVersion = 'v1'): KubeObject {
  return {apiVersion, kind, metadata: namespace === undefined ? {name} : {name, namespace}}
}

function parseError(text: string): XpkError {
  try {
    parseManifest(text, 'manifests.yaml')
  } catch (error) {
    return error as XpkError
  }
  throw new Error('parseManifest accepted the text')
}

describe('parseManifest', () => {
  it('returns the objects in file order, skipping empty documents', () => {
    const objects = parseManifest(MANIFEST, 'manifests.yaml')
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Namespace/kueue-system',
      'CustomResourceDefinition/clusterqueues.kueue.x-k8s.io',
      'ServiceAccount/kueue-controller-manager',
      'ValidatingWebhookConfiguration/kueue-validating-webhook-configuration',
      'ClusterRole/kueue-manager-role',
      'Deployment/kueue-controller-manager',
      'CustomResourceDefinition/localqueues.kueue.x-k8s.io',
    ])
  })

  it('reads a single document without separators', () => {
    expect(parseManifest('apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n', 'f')).toEqual([
      object('Namespace', 'a'),
    ])
  })

  it.each<{name: string; text: string; problem: RegExp}>([
    {name: 'a list', text: '- a\n- b\n', problem: /document 1 \(line 1\): not a mapping/},
    {name: 'a scalar', text: 'just text\n', problem: /document 1 \(line 1\): not a mapping/},
    {
      name: 'no apiVersion',
      text: 'kind: A\nmetadata: {name: a}\n',
      problem: /document 1 \(line 1\): missing apiVersion$/m,
    },
    {name: 'an empty kind', text: 'apiVersion: v1\nkind: ""\nmetadata: {name: a}\n', problem: /missing kind$/m},
    {name: 'no metadata', text: 'apiVersion: v1\nkind: A\n', problem: /missing metadata.name$/m},
    {name: 'a numeric name', text: 'apiVersion: v1\nkind: A\nmetadata: {name: 3}\n', problem: /missing metadata.name/},
    {
      name: 'a namespace that is not a name',
      text: 'apiVersion: v1\nkind: A\nmetadata: {name: a, namespace: [x]}\n',
      problem: /metadata.namespace is not a name/,
    },
    {name: 'nothing but separators', text: '---\n---\n', problem: /manifests.yaml holds no Kubernetes objects/},
    {
      name: 'broken YAML',
      text: 'a: [b\n',
      problem: /^manifests.yaml line 2, column 1 is not valid YAML: deficient indentation/,
    },
  ])('rejects $name as a usage error naming the source', ({text, problem}) => {
    const error = parseError(text)
    expect(error).toBeInstanceOf(XpkError)
    expect(error.kind).toBe('usage')
    expect(error.message).toMatch(/manifests.yaml/)
    expect(error.message).toMatch(problem)
  })

  it('collects the problems of every document, numbered from 1 counting empty ones, with the line each starts on', () => {
    const text = '---\napiVersion: v1\nkind: A\nmetadata: {name: a}\n---\nkind: B\n---\n---\n- x\n'
    expect(parseError(text).message).toBe(
      'manifests.yaml is not a Kubernetes manifest:\n  document 2 (line 6): missing apiVersion, metadata.name\n  document 4 (line 9): not a mapping',
    )
  })

  it.each([
    ['a: 1\n', [1]],
    ['# comment\n\na: 1\n---\nb: 2\n', [3, 5]],
    ['%YAML 1.2\n---\na: 1\n', [3]],
    ['---\n---\n---\nc: 3\n', [2, 3, 4]],
    ['--- a: 1\n', [2]],
  ])('documentStartLines(%j) is %j, as js-yaml counts documents', (text, lines) => {
    expect(documentStartLines(text)).toEqual(lines)
  })
})

describe('parseManifestOverride: what --jobset-manifest / --kueue-manifest may name', () => {
  it.each([
    ['manifests.yaml', {kind: 'file', path: 'manifests.yaml'}],
    ['/abs/jobset.yaml', {kind: 'file', path: '/abs/jobset.yaml'}],
    ['dir/name:with-colon.yaml', {kind: 'file', path: 'dir/name:with-colon.yaml'}],
    ['file:///abs/my%20jobset.yaml', {kind: 'file', path: '/abs/my jobset.yaml'}],
    ['file://localhost/abs/j.yaml', {kind: 'file', path: '/abs/j.yaml'}],
    ['https://mirror.example/jobset.yaml', {kind: 'url', url: 'https://mirror.example/jobset.yaml'}],
    ['http://127.0.0.1:8080/j.yaml', {kind: 'url', url: 'http://127.0.0.1:8080/j.yaml'}],
    ['http://localhost/j.yaml', {kind: 'url', url: 'http://localhost/j.yaml'}],
    ['http://[::1]:8080/j.yaml', {kind: 'url', url: 'http://[::1]:8080/j.yaml'}],
    [
      'https://mirror.example/j.yaml?X-Goog-Signature=ab',
      {kind: 'url', url: 'https://mirror.example/j.yaml?X-Goog-Signature=ab'},
    ],
  ])('%s is %j', (value, form) => {
    expect(parseManifestOverride(value)).toEqual(form)
  })

  it.each([
    ['http://mirror.example/j.yaml', /plain http:\/\/ is only accepted on loopback/],
    ['file://other-host/j.yaml', /not on other-host/],
    ['file:relative.yaml', /must be absolute/],
    ['file:///a%zz.yaml', /%-escapes/],
    ['ftp://mirror.example/j.yaml', /ftp: is not supported/],
    ['gs://bucket/j.yaml', /gs: is not supported/],
    ['https://', /not a valid URL/],
    ['https://me:s3cret@mirror.example/j.yaml', /user:password@ is not accepted/],
  ])('%s is refused', (value, problem) => {
    const form = parseManifestOverride(value)
    expect('problem' in form && form.problem).toMatch(problem)
  })
})

describe('listCrds', () => {
  it('summarises the CRDs: group, kind, scope, versions and the storage version', () => {
    expect(listCrds(parseManifest(MANIFEST, 'm'))).toEqual([
      {
        name: 'clusterqueues.kueue.x-k8s.io',
        group: 'kueue.x-k8s.io',
        kind: 'ClusterQueue',
        plural: 'clusterqueues',
        scope: 'Cluster',
        versions: [
          {name: 'v1beta1', served: true, storage: false, deprecated: true},
          {name: 'v1beta2', served: true, storage: true, deprecated: false},
        ],
        storageVersion: 'v1beta2',
      },
      {
        name: 'localqueues.kueue.x-k8s.io',
        group: 'kueue.x-k8s.io',
        kind: 'LocalQueue',
        plural: 'localqueues',
        scope: 'Namespaced',
        versions: [{name: 'v1beta2', served: true, storage: true, deprecated: false}],
        storageVersion: 'v1beta2',
      },
    ])
  })

  it('ignores objects named CustomResourceDefinition outside apiextensions.k8s.io', () => {
    expect(listCrds([object('CustomResourceDefinition', 'x', undefined, 'example.com/v1')])).toEqual([])
  })

  it('reads a CRD without a spec as empty, without throwing', () => {
    expect(listCrds([object('CustomResourceDefinition', 'x', undefined, 'apiextensions.k8s.io/v1')])).toEqual([
      {name: 'x', group: '', kind: '', plural: '', scope: 'Namespaced', versions: [], storageVersion: undefined},
    ])
  })
})

describe('the controller Deployment', () => {
  const objects = parseManifest(MANIFEST, 'm')

  it('is found by namespace and name, and its manager container gives the image and tag', () => {
    const deployment = findControllerDeployment(objects, 'kueue')
    expect(deployment?.metadata).toEqual({name: 'kueue-controller-manager', namespace: 'kueue-system'})
    expect(controllerImage(deployment!)).toBe('registry.k8s.io/kueue/kueue:v0.17.1')
    expect(imageTag(controllerImage(deployment!)!)).toBe('v0.17.1')
  })

  it('is not found for another component, nor in another namespace', () => {
    expect(findControllerDeployment(objects, 'jobset')).toBeUndefined()
    const moved = {...object('Deployment', 'kueue-controller-manager', 'default', 'apps/v1')}
    expect(findControllerDeployment([moved], 'kueue')).toBeUndefined()
    expect(
      findControllerDeployment(
        [object('Deployment', 'jobset-controller-manager', 'jobset-system', 'apps/v1')],
        'jobset',
      ),
    ).toBeDefined()
  })

  it('falls back to the first container when none is called manager, and to nothing without containers', () => {
    const deployment = (containers: unknown[]): KubeObject => ({
      ...object('Deployment', 'd', 'ns', 'apps/v1'),
      spec: {template: {spec: {containers}}},
    })
    expect(
      controllerImage(
        deployment([
          {name: 'a', image: 'a:1'},
          {name: 'b', image: 'b:2'},
        ]),
      ),
    ).toBe('a:1')
    expect(controllerImage(deployment([]))).toBeUndefined()
    expect(controllerImage(object('Deployment', 'd', 'ns', 'apps/v1'))).toBeUndefined()
  })
})

describe('imageTag', () => {
  it.each<[string, string | undefined]>([
    ['registry.k8s.io/kueue/kueue:v0.17.1', 'v0.17.1'],
    ['registry.k8s.io/jobset/jobset:v0.10.1@sha256:abc', 'v0.10.1'],
    ['registry.k8s.io/kueue/kueue@sha256:abc', undefined],
    ['localhost:5000/kueue', undefined],
    ['localhost:5000/kueue:dev', 'dev'],
    ['kueue', undefined],
    ['kueue:', undefined],
  ])('%s -> %s', (image, tag) => {
    expect(imageTag(image)).toBe(tag)
  })
})

describe('applyOrder', () => {
  it('puts Namespaces, CRDs, cluster-scoped objects, namespaced objects, then webhook configurations', () => {
    const ordered = applyOrder(parseManifest(MANIFEST, 'm')).map((o) => `${o.kind}/${o.metadata.name}`)
    expect(ordered).toEqual([
      'Namespace/kueue-system',
      'CustomResourceDefinition/clusterqueues.kueue.x-k8s.io',
      'CustomResourceDefinition/localqueues.kueue.x-k8s.io',
      'ClusterRole/kueue-manager-role',
      'ServiceAccount/kueue-controller-manager',
      'Deployment/kueue-controller-manager',
      'ValidatingWebhookConfiguration/kueue-validating-webhook-configuration',
    ])
  })

  it('keeps file order within a rank and does not change its input', () => {
    const input = [object('ConfigMap', 'b', 'ns'), object('Namespace', 'z'), object('ConfigMap', 'a', 'ns')]
    const copy = structuredClone(input)
    expect(applyOrder(input).map((o) => o.metadata.name)).toEqual(['z', 'b', 'a'])
    expect(input).toEqual(copy)
  })

  it('ranks a MutatingWebhookConfiguration last too, and a Namespace of another API as an ordinary object', () => {
    const input = [
      object('MutatingWebhookConfiguration', 'm', undefined, 'admissionregistration.k8s.io/v1'),
      object('Namespace', 'not-core', undefined, 'example.com/v1'),
      object('ConfigMap', 'c', 'ns'),
    ]
    expect(applyOrder(input).map((o) => o.metadata.name)).toEqual(['not-core', 'c', 'm'])
  })
})

describe('RELEASES', () => {
  it('points at the GitHub release manifests of the versions xpk installs', () => {
    expect(RELEASES.jobset.url).toBe(
      'https://github.com/kubernetes-sigs/jobset/releases/download/v0.10.1/manifests.yaml',
    )
    expect(RELEASES.kueue.url).toBe('https://github.com/kubernetes-sigs/kueue/releases/download/v0.17.1/manifests.yaml')
    expect(RELEASES.jobset.controller).toEqual({namespace: 'jobset-system', name: 'jobset-controller-manager'})
    expect(RELEASES.kueue.controller).toEqual({namespace: 'kueue-system', name: 'kueue-controller-manager'})
  })
})

describe('splitApiVersion', () => {
  it.each([
    ['kueue.x-k8s.io/v1beta2', {group: 'kueue.x-k8s.io', version: 'v1beta2'}],
    ['v1', {group: '', version: 'v1'}],
  ])('%s', (apiVersion, parts) => {
    expect(splitApiVersion(apiVersion)).toEqual(parts)
  })
})

describe('installWaves: what a release object waits for', () => {
  it.each(['jobset', 'kueue'] as const)(
    '%s: namespaced objects and webhooks after the Namespace; CRDs and cluster-wide RBAC wait for nothing',
    (component) => {
      const objects = releaseObjects(component, component === 'jobset' ? 'v0.10.1' : 'v0.17.1')
      const waves = installWaves(objects)
      expect(waves.namespaces.map((o) => o.kind)).toEqual(['Namespace'])
      expect(waves.namespaced.map((o) => o.kind)).toContain('Deployment')
      expect(
        waves.namespaced.every((o) => o.metadata.namespace !== undefined || o.kind.endsWith('WebhookConfiguration')),
      ).toBe(true)
      expect(waves.clusterWide.map((o) => o.kind)).toContain('CustomResourceDefinition')
      expect(waves.clusterWide.every((o) => o.metadata.namespace === undefined)).toBe(true)
      expect(waves.clusterWide.some((o) => o.kind.endsWith('WebhookConfiguration'))).toBe(false)
      // Every object once.
      expect([...waves.namespaces, ...waves.namespaced, ...waves.clusterWide]).toHaveLength(objects.length)
    },
  )
})
