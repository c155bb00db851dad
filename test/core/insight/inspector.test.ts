// xpk inspector's core: the kinds it may read (never a Secret), objects as written in its file (no bookkeeping,
// credential-named env values hidden, references to Secrets left as references), the file's frame, and the links.
import {describe, expect, it} from 'vitest'

import {
  INSPECTED_KINDS,
  hiddenValue,
  inspectorLinks,
  objectsText,
  prefixedLog,
  renderInspectorFile,
  requireInspectedKind,
  withoutSecrets,
} from '../../../src/core/insight/inspector.js'
import type {KubeObject} from '../../../src/ports/kube.js'

describe('requireInspectedKind', () => {
  const allowed = Object.entries(INSPECTED_KINDS).flatMap(([group, kinds]) =>
    kinds.map((kind) => [group === '' ? 'v1' : `${group}/v1`, kind] as const),
  )
  it.each(allowed)('%s %s is read', (apiVersion, kind) =>
    expect(() => requireInspectedKind(apiVersion, kind)).not.toThrow(),
  )

  it.each([
    ['v1', 'Secret'],
    ['v1', 'ServiceAccount'],
    ['apps/v1', 'Secret'],
    ['kueue.x-k8s.io/v1beta2', 'Secret'],
    ['v1', 'Deployment'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
    ['secrets-store.csi.x-k8s.io/v1', 'SecretProviderClass'],
  ])('%s %s is refused before any request', (apiVersion, kind) =>
    expect(() => requireInspectedKind(apiVersion, kind)).toThrow(/reads no/),
  )

  it('lists no Secret in any group', () => {
    expect(Object.values(INSPECTED_KINDS).flat()).not.toContain('Secret')
  })
})

describe('withoutSecrets', () => {
  const pod = (env: unknown[]): KubeObject => ({
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: {
      name: 'run-1',
      managedFields: [{manager: 'xpk'}],
      annotations: {'kubectl.kubernetes.io/last-applied-configuration': '{"big": true}', keep: 'me'},
    },
    spec: {
      replicatedJobs: [
        {template: {spec: {template: {spec: {containers: [{name: 'c', env}], initContainers: [{name: 'i', env}]}}}}},
      ],
    },
  })

  it.each([
    ['HF_TOKEN', 'hf_abcdef', true],
    ['WANDB_API_KEY', 'k-123', true],
    ['DB_PASSWORD', 'pw', true],
    ['my_secret', 'val-9f3', true],
    ['AWS_SECRET_ACCESS_KEY', 'aws-xyz-123', true],
    ['GOOGLE_APPLICATION_CREDENTIALS', '/x', true],
    ['LIBTPU_INIT_ARGS', '--xla_flag=true', false],
    ['JAX_PLATFORMS', 'tpu', false],
  ])('%s=%s hidden: %s, in every env list', (name, value, hidden) => {
    const text = objectsText([pod([{name, value}])], '')
    expect(text.includes(value)).toBe(!hidden)
    if (hidden) expect(text.split(hiddenValue(value)).length - 1).toBe(2)
  })

  it('keeps a reference to a Secret as it is (the API gives no value, nothing resolves one)', () => {
    const ref = {name: 'TOKEN_FROM_SECRET', valueFrom: {secretKeyRef: {name: 'hf', key: 'token'}}}
    const out = withoutSecrets(pod([ref])) as unknown as {
      spec: {replicatedJobs: [{template: {spec: {template: {spec: {containers: [{env: unknown[]}]}}}}}]}
    }
    expect(out.spec.replicatedJobs[0].template.spec.template.spec.containers[0].env).toEqual([ref])
  })

  it('drops managedFields and the last-applied annotation, keeps other annotations', () => {
    const out = withoutSecrets(pod([]))
    expect(out.metadata).toEqual({name: 'run-1', annotations: {keep: 'me'}})
  })
})

describe('the file', () => {
  it('frames each section as Python does, escapes control characters and hides URL credentials', () => {
    const text = renderInspectorFile(
      {header: ['about']},
      [{title: 'T', source: 'S', body: 'evil \u001b[2J https://admin:pw@10.0.0.1 end\n', error: null}],
      [{description: 'D', url: 'https://x'}],
    )
    expect(text).toBe(
      [
        '==================',
        'XPK inspector OUTPUT:',
        '==================',
        'about',
        '========================================================',
        'Source: S',
        'Description: T',
        '',
        'evil \\x1b[2J https://***@10.0.0.1 end',
        '========================================================',
        'Link Description: D',
        'Link: https://x',
        '========================================================',
        '',
      ].join('\n'),
    )
  })

  it('prefixes every log line as kubectl logs --prefix', () => {
    expect(prefixedLog('[pod/p/manager]', 'a\nb\n')).toBe('[pod/p/manager] a\n[pod/p/manager] b')
  })

  it("links as Python's, names percent-encoded, the workload's last", () => {
    const links = inspectorLinks({project: 'p', location: 'us-central2', cluster: 'demo', workload: 'run 1'})
    expect(links.map((l) => l.url)).toEqual([
      'https://console.cloud.google.com/kubernetes/clusters/details/us-central2/demo/details?project=p',
      'https://console.cloud.google.com/kubernetes/workload/overview?project=p&pageState=((gke%2Fus-central2%2Fdemo))',
      'https://console.cloud.google.com/iam-admin/iam?project=p',
      'https://console.cloud.google.com/iam-admin/quotas?project=p',
      'https://console.cloud.google.com/kubernetes/service/us-central2/demo/default/run%201/details?project=p',
    ])
    expect(inspectorLinks({project: 'p', location: 'l', cluster: 'c', workload: null})).toHaveLength(4)
  })
})
