import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

import {load} from 'js-yaml'
import {describe, expect, it} from 'vitest'

import {CRDS} from './crds.js'
import {SKIP_CRD_TESTS, validateJobSet} from './jobset-schema.js'

type Json = Record<string, unknown>

/** A fresh copy of a golden manifest, to break on purpose. */
function golden(file = 'jobset-tpu-v5p-8.yaml'): Json {
  return load(readFileSync(fileURLToPath(new URL(`../golden/${file}`, import.meta.url)), 'utf8')) as Json
}

/** Walks a path of keys/indexes into a manifest and returns the object holding the last key. */
function at(manifest: Json, path: (string | number)[]): Json {
  let node: unknown = manifest
  for (const key of path) node = (node as Json)[key as string]
  return node as Json
}

const POD_SPEC = ['spec', 'replicatedJobs', 0, 'template', 'spec', 'template', 'spec']
const CONTAINER = [...POD_SPEC, 'containers', 0]
const JOB_SPEC = ['spec', 'replicatedJobs', 0, 'template', 'spec']

describe.skipIf(SKIP_CRD_TESTS)('validateJobSet', () => {
  it('validates against the real JobSet CRD (crds.ts says where it was found)', () => {
    expect(CRDS.components.map((c) => c.component)).toContain('jobset')
  })

  it.each(['jobset-tpu-v5p-8.yaml', 'jobset-gpu-h100-mega-80gb-8.yaml', 'jobset-cpu-n2-standard-32-4.yaml'])(
    'accepts the golden %s',
    (file) => {
      expect(validateJobSet(golden(file))).toEqual([])
    },
  )

  it.each<{name: string; path: (string | number)[]; key: string; value: unknown; problem: RegExp}>([
    {
      name: 'a typo in a JobSet field',
      path: JOB_SPEC,
      key: 'parallelizm',
      value: 1,
      problem: /unknown field "parallelizm"/,
    },
    {
      name: 'a typo in a container field',
      path: CONTAINER,
      key: 'imagePulPolicy',
      value: 'Always',
      problem: /unknown field "imagePulPolicy"/,
    },
    {
      name: 'a typo in the pod spec',
      path: POD_SPEC,
      key: 'nodeSelectors',
      value: {a: 'b'},
      problem: /unknown field "nodeSelectors"/,
    },
    {
      name: 'a wrong type',
      path: JOB_SPEC,
      key: 'parallelism',
      value: 'four',
      problem: /\/parallelism: must be integer/,
    },
    {
      name: 'a boolean as a string',
      path: POD_SPEC,
      key: 'hostNetwork',
      value: 'true',
      problem: /hostNetwork: must be boolean/,
    },
    {
      name: 'a bad enum value',
      path: ['spec', 'failurePolicy', 'rules', 0],
      key: 'action',
      value: 'Explode',
      problem: /action: must be equal to one of the allowed values \(\["FailJobSet"/,
    },
    {
      name: 'a bad resource quantity',
      path: [...CONTAINER, 'resources', 'limits'],
      key: 'google.com/tpu',
      value: 'four',
      problem: /google.com~1tpu: must match pattern/,
    },
    {
      name: 'an int32 out of range',
      path: ['spec'],
      key: 'ttlSecondsAfterFinished',
      value: 2 ** 40,
      problem: /ttlSecondsAfterFinished: must match format "int32"/,
    },
  ])('rejects $name', ({path, key, value, problem}) => {
    const manifest = golden()
    at(manifest, path)[key] = value
    const problems = validateJobSet(manifest)
    expect(problems.join('\n')).toMatch(problem)
  })

  it.each<{name: string; path: (string | number)[]; key: string; problem: RegExp}>([
    {name: 'the container name', path: CONTAINER, key: 'name', problem: /containers\/0: missing required field "name"/},
    {
      name: 'the replicated job name',
      path: ['spec', 'replicatedJobs', 0],
      key: 'name',
      problem: /missing required field "name"/,
    },
    {name: 'the pod containers', path: POD_SPEC, key: 'containers', problem: /missing required field "containers"/},
    {
      name: 'the exit code values',
      path: [...JOB_SPEC, 'podFailurePolicy', 'rules', 0, 'onExitCodes'],
      key: 'values',
      problem: /missing required field "values"/,
    },
    {
      name: 'the JobSet name',
      path: ['metadata'],
      key: 'name',
      problem: /\/metadata\/name: missing required field "name"/,
    },
  ])('rejects a manifest missing $name', ({path, key, problem}) => {
    const manifest = golden()
    delete at(manifest, path)[key]
    expect(validateJobSet(manifest).join('\n')).toMatch(problem)
  })

  it('rejects two env vars with the same name (a list-map key)', () => {
    const manifest = golden()
    at(manifest, CONTAINER).env = [
      {name: 'A', value: '1'},
      {name: 'A', value: '2'},
    ]
    expect(validateJobSet(manifest).join('\n')).toMatch(/env: duplicate entry for name \["A"\]/)
  })

  it('rejects duplicate exit codes (a list-type set)', () => {
    const manifest = golden()
    at(manifest, [...JOB_SPEC, 'podFailurePolicy', 'rules', 0, 'onExitCodes']).values = [42, 42]
    expect(validateJobSet(manifest).join('\n')).toMatch(/values: must not contain duplicate items/)
  })

  it.each([
    {name: 'Upper-Case', problem: /RFC 1123 label/},
    {name: 'a'.repeat(64), problem: /RFC 1123 label/},
    {name: 'trailing-', problem: /RFC 1123 label/},
  ])('rejects the JobSet name $name', ({name, problem}) => {
    const manifest = golden()
    at(manifest, ['metadata']).name = name
    expect(validateJobSet(manifest).join('\n')).toMatch(problem)
  })

  it('rejects label values longer than 63 characters, at JobSet and pod level', () => {
    const manifest = golden()
    at(manifest, ['metadata', 'labels'])['xpk.google.com/workload'] = 'x'.repeat(64)
    at(manifest, [...JOB_SPEC, 'template', 'metadata', 'labels'])['xpk.google.com/workload'] = 'bad value'
    const problems = validateJobSet(manifest)
    expect(problems).toHaveLength(2)
    expect(problems[0]).toMatch(/^\/metadata\/labels\/xpk.google.com\/workload: .* not a valid label value/)
    expect(problems[1]).toMatch(/template\/spec\/template\/metadata\/labels\/xpk.google.com\/workload/)
  })

  it('rejects non-string annotation values', () => {
    const manifest = golden()
    at(manifest, ['metadata', 'annotations']).count = 3
    expect(validateJobSet(manifest)).toEqual(['/metadata/annotations/count: must be a string'])
  })

  it('rejects another apiVersion or kind', () => {
    const manifest = golden()
    manifest.apiVersion = 'jobset.x-k8s.io/v1alpha1'
    manifest.kind = 'Job'
    expect(validateJobSet(manifest)).toEqual(['/apiVersion: must be jobset.x-k8s.io/v1alpha2', '/kind: must be JobSet'])
  })

  it('rejects something that is not an object', () => {
    expect(validateJobSet('apiVersion: x')).toContain('/: must be an object')
  })
})
