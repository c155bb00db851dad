import {describe, expect, it} from 'vitest'

import type {KubeObject} from '../../src/core/kube/release-manifest.js'
import {createCrdValidator, SKIP_CRD_TESTS, validateAgainstCrd} from './crd-schema.js'
import type {CrdLookup} from './crds.js'

type Json = Record<string, unknown>

/** A CRD of our own, small enough to read, that uses every schema feature the validator handles. */
function crd(group: string, kind: string, scope: 'Cluster' | 'Namespaced', spec: Json): KubeObject {
  const schema = {
    type: 'object',
    properties: {apiVersion: {type: 'string'}, kind: {type: 'string'}, metadata: {type: 'object'}, spec},
  }
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {name: `${kind.toLowerCase()}s.${group}`},
    spec: {
      group,
      names: {kind, plural: `${kind.toLowerCase()}s`},
      scope,
      versions: [
        {name: 'v1alpha1', served: false, storage: false, schema: {openAPIV3Schema: schema}},
        {name: 'v1beta1', served: true, storage: false, deprecated: true, schema: {openAPIV3Schema: schema}},
        {name: 'v1beta2', served: true, storage: true, schema: {openAPIV3Schema: schema}},
      ],
    },
  }
}

const WIDGET_SPEC = {
  type: 'object',
  required: ['size'],
  properties: {
    size: {type: 'integer', format: 'int32'},
    // Go's syntax for a case-insensitive pattern, as in Kueue's AdmissionCheck.
    controller: {type: 'string', pattern: '^(?i)[a-z]+$'},
    mode: {type: 'string', enum: ['Fast', 'Slow']},
    quota: {'x-kubernetes-int-or-string': true},
    flavors: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {type: 'object', required: ['name'], properties: {name: {type: 'string'}, count: {type: 'integer'}}},
    },
    tags: {type: 'array', 'x-kubernetes-list-type': 'set', items: {type: 'string'}},
    free: {type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: {known: {type: 'string'}}},
    template: {type: 'object', properties: {metadata: {type: 'object'}, spec: {type: 'object', properties: {}}}},
  },
}

const JOBSET_SPEC = {type: 'object', properties: {replicas: {type: 'integer'}}}

let kueueParsed = 0
let jobsetParsed = 0

const LOOKUP: CrdLookup = {
  found: true,
  components: [
    {
      component: 'jobset',
      source: '/fixture/jobset',
      crds: () => {
        jobsetParsed++
        return [crd('jobset.x-k8s.io', 'JobSet', 'Namespaced', JOBSET_SPEC)]
      },
    },
    {
      component: 'kueue',
      source: '/fixture/kueue',
      crds: () => {
        kueueParsed++
        return [
          crd('kueue.x-k8s.io', 'Widget', 'Cluster', WIDGET_SPEC),
          crd('kueue.x-k8s.io', 'Gadget', 'Namespaced', WIDGET_SPEC),
        ]
      },
    },
  ],
}

const validate = createCrdValidator(LOOKUP)

function widget(spec: Json = {}, metadata: Json = {name: 'w'}): Json {
  return {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Widget', metadata, spec: {size: 1, ...spec}}
}

describe('createCrdValidator, over CRDs of its own', () => {
  it('accepts a valid object, and parses only the CRDs of its group', () => {
    const jobsetBefore = jobsetParsed
    expect(
      validate(
        widget({
          mode: 'Fast',
          quota: '10Gi',
          flavors: [{name: 'a', count: 1}, {name: 'b'}],
          tags: ['x', 'y'],
          free: {anything: {goes: 1}},
          template: {metadata: {labels: {'example.com/role': 'worker'}}, spec: {}},
        }),
      ),
    ).toEqual([])
    expect(kueueParsed).toBeGreaterThan(0)
    expect(jobsetParsed).toBe(jobsetBefore)
  })

  it.each<{name: string; spec: Json; problem: string}>([
    {
      name: 'a misspelt field (objects with properties are closed)',
      spec: {sise: 2},
      problem: '/spec: unknown field "sise"',
    },
    {name: 'a wrong type', spec: {size: 'big'}, problem: '/spec/size: must be integer'},
    {name: 'an int32 out of range', spec: {size: 2 ** 31}, problem: '/spec/size: must match format "int32"'},
    {
      name: 'a value outside the enum',
      spec: {mode: 'Warp'},
      problem: '/spec/mode: must be equal to one of the allowed values (["Fast","Slow"])',
    },
    {name: 'an int-or-string that is neither', spec: {quota: true}, problem: '/spec/quota: must be integer'},
    {
      name: 'two list-map items with one key',
      spec: {flavors: [{name: 'a'}, {name: 'a', count: 2}]},
      problem: '/spec/flavors: duplicate entry for name ["a"]',
    },
    {
      name: 'duplicate list-set items',
      spec: {tags: ['x', 'x']},
      problem: '/spec/tags: must not contain duplicate items (list-type set)',
    },
    {
      name: 'a missing required field',
      spec: {flavors: [{count: 1}]},
      problem: '/spec/flavors/0: missing required field "name"',
    },
    {
      name: 'a misspelt field in an empty declared object',
      spec: {template: {spec: {x: 1}}},
      problem: '/spec/template/spec: unknown field "x"',
    },
  ])('rejects $name', ({spec, problem}) => {
    expect(validate(widget(spec))).toContain(problem)
  })

  it("understands Go's (?i) in patterns", () => {
    expect(validate(widget({controller: 'MiXed'}))).toEqual([])
    expect(validate(widget({controller: 'a1'}))).toEqual(['/spec/controller: must match pattern "^(?i)[a-z]+$"'])
  })

  it('leaves objects marked x-kubernetes-preserve-unknown-fields open, but still checks their declared fields', () => {
    expect(validate(widget({free: {other: 1}}))).toEqual([])
    expect(validate(widget({free: {known: 1}}))).toEqual(['/spec/free/known: must be string'])
  })

  it('validates against the version the apiVersion names, which must be served and not deprecated', () => {
    expect(validate({...widget(), apiVersion: 'kueue.x-k8s.io/v1beta1'})).toEqual([
      '/apiVersion: kueue.x-k8s.io/v1beta1 is deprecated for Widget (storage version: v1beta2)',
    ])
    expect(validate({...widget(), apiVersion: 'kueue.x-k8s.io/v1beta1'}, {allowDeprecated: true})).toEqual([])
    expect(validate({...widget(), apiVersion: 'kueue.x-k8s.io/v1alpha1'})).toEqual([
      '/apiVersion: kueue.x-k8s.io/v1alpha1 is not served by the Widget CRD (served: v1beta1, v1beta2)',
    ])
    expect(validate({...widget(), apiVersion: 'kueue.x-k8s.io/v9'})).toEqual([
      '/apiVersion: kueue.x-k8s.io/v9 is not served by the Widget CRD (served: v1beta1, v1beta2)',
    ])
  })

  it('names the kinds a group has when the kind is unknown, and the groups it knows when the group is', () => {
    expect(validate({...widget(), kind: 'Gizmo'})).toEqual([
      '/kind: no CRD defines Gizmo in kueue.x-k8s.io (/fixture/kueue has Gadget, Widget)',
    ])
    expect(validate({...widget(), apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass'})).toEqual([
      '/apiVersion: no CRDs of API group "scheduling.k8s.io" (only of jobset.x-k8s.io, kueue.x-k8s.io)',
    ])
  })

  it('checks the namespace against the scope: none on cluster-scoped kinds, a label on namespaced ones', () => {
    expect(validate(widget({}, {name: 'w', namespace: 'default'}))).toEqual([
      '/metadata/namespace: must not be set: the kind is cluster-scoped (the API server would drop it)',
    ])
    const gadget = {...widget(), kind: 'Gadget'}
    expect(validate({...gadget, metadata: {name: 'g', namespace: 'default'}})).toEqual([])
    expect(validate({...gadget, metadata: {name: 'g'}})).toEqual([])
    expect(validate({...gadget, metadata: {name: 'g', namespace: 'Default'}})).toEqual([
      '/metadata/namespace: "Default" must be an RFC 1123 label',
    ])
  })

  it.each<{name: string; valid: boolean}>([
    {name: '1xv5p-8', valid: true},
    {name: 'dws.config', valid: true},
    {name: 'a'.repeat(253), valid: true},
    {name: 'a'.repeat(254), valid: false},
    {name: 'Upper', valid: false},
    {name: 'under_score', valid: false},
    {name: '-lead', valid: false},
  ])('names: $name is valid as a DNS subdomain: $valid', ({name, valid}) => {
    const problems = validate(widget({}, {name}))
    expect(problems).toEqual(
      valid
        ? []
        : [`/metadata/name: "${name}" must be a DNS subdomain (lowercase alphanumerics, '-' and '.', at most 253)`],
    )
  })

  it('holds a JobSet name to an RFC 1123 label, as the JobSet webhook does', () => {
    const jobset = (name: string): Json => ({apiVersion: 'jobset.x-k8s.io/v1beta2', kind: 'JobSet', metadata: {name}})
    expect(validate(jobset('run-1'))).toEqual([])
    expect(validate(jobset('run.1'))).toEqual([
      `/metadata/name: "run.1" must be an RFC 1123 label (lowercase alphanumerics and '-', at most 63)`,
    ])
    expect(validate(jobset('a'.repeat(64)))).toHaveLength(1)
  })

  it('checks labels and annotations in every metadata block, in document order', () => {
    const object = widget(
      {template: {metadata: {labels: {good: 'ok', 'bad key!': 'v'}, annotations: {n: 3}}, spec: {}}},
      {name: 'w', labels: {'example.com/a': 'x'.repeat(64)}, annotations: {'example.com/note': 'any text, even long'}},
    )
    expect(validate(object)).toEqual([
      `/metadata/labels/example.com/a: "${'x'.repeat(64)}" is not a valid label value (at most 63 alphanumerics, '-', '_', '.')`,
      "/spec/template/metadata/labels/bad key!: not a valid key ([prefix/]name: a DNS subdomain prefix, a name of at most 63 alphanumerics, '-', '_', '.')",
      '/spec/template/metadata/annotations/n: must be a string',
    ])
  })

  it.each([
    ['example.com/name', true],
    ['name', true],
    ['Example.com/name', false],
    ['/name', false],
    ['a/b/c', false],
    [`example.com/${'n'.repeat(64)}`, false],
    ['example.com/', false],
  ])('label key %s is valid: %s', (key, valid) => {
    expect(validate(widget({}, {name: 'w', labels: {[key]: 'v'}}))).toHaveLength(valid ? 0 : 1)
  })

  it('with `as`, reports another apiVersion or kind and validates as the expected one', () => {
    const object = {...widget({sise: 1}), apiVersion: 'kueue.x-k8s.io/v1', kind: 'Widgets'}
    expect(validate(object, {as: {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Widget'}})).toEqual([
      '/spec: unknown field "sise"',
      '/apiVersion: must be kueue.x-k8s.io/v1beta2',
      '/kind: must be Widget',
    ])
  })

  it.each<[string, unknown, string[]]>([
    ['a string', 'apiVersion: x', ['/: must be an object']],
    ['a list', [], ['/: must be an object']],
    ['null', null, ['/: must be an object']],
    [
      'an object without apiVersion and kind',
      {metadata: {name: 'a'}},
      ['/: missing required field "apiVersion"', '/: missing required field "kind"'],
    ],
    [
      'an object without metadata',
      {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Widget', spec: {size: 1}},
      ['/: missing required field "metadata"'],
    ],
    ['an object without a name', widget({}, {labels: {}}), ['/metadata/name: missing required field "name"']],
  ])('rejects %s', (_name, manifest, problems) => {
    expect(validate(manifest)).toEqual(problems)
  })

  it('throws when the CRDs of the group were not found, with the reason (how CI fails on missing CRDs)', () => {
    const missing: CrdLookup = {
      found: false,
      components: [LOOKUP.components[0]!],
      reason: 'Skipping the CRD schema tests: no Kueue v0.17.1 CRDs (not in /x). To run them, set CRDS_DIR.',
    }
    const strict = createCrdValidator(missing)
    expect(() => strict(widget())).toThrow(
      'The CRD schema tests cannot run: no Kueue v0.17.1 CRDs (not in /x). To run them, set CRDS_DIR.',
    )
    expect(strict({apiVersion: 'jobset.x-k8s.io/v1beta2', kind: 'JobSet', metadata: {name: 'j'}})).toEqual([])
    expect(strict({apiVersion: 'example.com/v1', kind: 'X', metadata: {name: 'x'}})).toEqual([
      '/apiVersion: no CRDs of API group "example.com" (only of jobset.x-k8s.io)',
    ])
  })
})

describe.skipIf(SKIP_CRD_TESTS)('validateAgainstCrd, over the real Kueue v0.17.1 CRDs', () => {
  const v1beta2 = 'kueue.x-k8s.io/v1beta2'
  const clusterQueue = {
    apiVersion: v1beta2,
    kind: 'ClusterQueue',
    metadata: {name: 'cluster-queue'},
    spec: {
      namespaceSelector: {},
      preemption: {reclaimWithinCohort: 'Never', withinClusterQueue: 'LowerPriority'},
      resourceGroups: [
        {
          coveredResources: ['google.com/tpu', 'cpu', 'memory'],
          flavors: [
            {
              name: '2xv5p-16',
              resources: [
                {name: 'google.com/tpu', nominalQuota: 16},
                {name: 'cpu', nominalQuota: 480},
                {name: 'memory', nominalQuota: '2000G'},
              ],
            },
          ],
        },
      ],
    },
  }

  it.each<[string, Json]>([
    ['ClusterQueue', JSON.parse(JSON.stringify(clusterQueue)) as Json],
    [
      'LocalQueue',
      {
        apiVersion: v1beta2,
        kind: 'LocalQueue',
        metadata: {name: 'multislice-queue', namespace: 'default'},
        spec: {clusterQueue: 'cluster-queue'},
      },
    ],
    [
      'ResourceFlavor',
      {
        apiVersion: v1beta2,
        kind: 'ResourceFlavor',
        metadata: {name: '2xv5p-16'},
        spec: {
          nodeLabels: {
            'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice',
            'cloud.google.com/gke-tpu-topology': '2x2x2',
          },
        },
      },
    ],
    [
      'AdmissionCheck',
      {
        apiVersion: v1beta2,
        kind: 'AdmissionCheck',
        metadata: {name: 'dws-prov'},
        spec: {
          controllerName: 'kueue.x-k8s.io/provisioning-request',
          parameters: {apiGroup: 'kueue.x-k8s.io', kind: 'ProvisioningRequestConfig', name: 'dws-config'},
        },
      },
    ],
    [
      'Topology',
      {
        apiVersion: v1beta2,
        kind: 'Topology',
        metadata: {name: 'gke-default'},
        spec: {levels: [{nodeLabel: 'cloud.google.com/gce-topology-block'}, {nodeLabel: 'kubernetes.io/hostname'}]},
      },
    ],
  ])('accepts a %s of the storage version', (_kind, object) => {
    expect(validateAgainstCrd(object)).toEqual([])
  })

  it('rejects the deprecated v1beta1, and the v1beta1 field name cohort in v1beta2 (now cohortName)', () => {
    const queue = JSON.parse(JSON.stringify(clusterQueue)) as Json
    expect(validateAgainstCrd({...queue, apiVersion: 'kueue.x-k8s.io/v1beta1'})).toEqual([
      '/apiVersion: kueue.x-k8s.io/v1beta1 is deprecated for ClusterQueue (storage version: v1beta2)',
    ])
    ;(queue.spec as Json).cohort = 'all'
    expect(validateAgainstCrd(queue)).toEqual(['/spec: unknown field "cohort"'])
  })

  it('rejects two flavors of one name (a list-map key) and a bad quantity', () => {
    const queue = JSON.parse(JSON.stringify(clusterQueue)) as {spec: {resourceGroups: [{flavors: Json[]}]}}
    const [flavor] = queue.spec.resourceGroups[0].flavors
    ;((flavor as {resources: Json[]}).resources[0] as Json).nominalQuota = 'lots'
    queue.spec.resourceGroups[0].flavors.push(flavor!)
    const problems = validateAgainstCrd(queue)
    expect(problems).toContain('/spec/resourceGroups/0/flavors: duplicate entry for name ["2xv5p-16"]')
    expect(problems.join('\n')).toMatch(
      /\/spec\/resourceGroups\/0\/flavors\/0\/resources\/0\/nominalQuota: must match pattern/,
    )
  })
})
