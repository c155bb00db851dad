import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

import {load} from 'js-yaml'
import {describe, expect, it} from 'vitest'

import {buildPathwaysJobSet} from '../../../src/core/manifests/pathways-jobset.js'
import type {JobSet} from '../../../src/core/manifests/k8s-types.js'
import {toYaml} from '../../../src/core/manifests/to-yaml.js'
import {Problems} from '../../../src/core/input.js'
import {pathwaysSpecFromFlags, type PathwaysFlags} from '../../../src/core/workload/pathways.js'
import {aWorkloadSpec, type WorkloadSpecOverrides} from '../../builders/workload-spec.js'
import {SKIP_CRD_TESTS, validateJobSet} from '../../helpers/jobset-schema.js'

// Regenerate with `UPDATE_GOLDENS=1 npx vitest run test/core/manifests/pathways-golden.test.ts`, then review the diff.
const UPDATE = process.env.UPDATE_GOLDENS === '1'

interface PathwaysCase {
  readonly file: string
  readonly flags: string
  readonly spec: WorkloadSpecOverrides
  readonly pathways: PathwaysFlags
}

const CASES: readonly PathwaysCase[] = [
  {
    // Python xpk's recipe Workload_create_pathways.md (its image built from --script-dir).
    file: 'jobset-pathways-v5p-8-batch.yaml',
    flags: '--tpu-type=v5p-8 --num-slices=1 --command "bash hello" --script-dir=/tmp',
    spec: {
      type: 'v5p-8',
      command: 'bash hello',
      name: 'golden-workload',
      image: 'gcr.io/golden-project/jax-tpu@sha256:' + 'a'.repeat(64),
    },
    pathways: {},
  },
  {
    file: 'jobset-pathways-v5p-8-headless.yaml',
    flags: '--tpu-type=v5p-8 --num-slices=2 --headless',
    spec: {type: 'v5p-8', command: '', numSlices: 2, image: ''},
    pathways: {headless: true},
  },
  {
    file: 'jobset-pathways-v6e-16-user-image.yaml',
    flags:
      '--tpu-type=v6e-16 --num-slices=4 --priority=high --docker-image=us-docker.pkg.dev/p/r/trainer:v3 ' +
      '--command "python3 train.py" --env STEPS=100 --server-image=us-docker.pkg.dev/p/r/server:v2 ' +
      '--colocated-python-sidecar-image=us-docker.pkg.dev/p/r/sidecar:v1 --custom-pathways-server-args="--a=1 --b=2" ' +
      '--custom-pathways-proxy-server-args=--c=3 --custom-pathways-worker-args=--d=4 --elastic-slices=1 --max-slice-restarts=3 ' +
      '--docker-image-pull-secret=regcred',
    spec: {
      type: 'v6e-16',
      numSlices: 4,
      priority: 'high',
      image: 'us-docker.pkg.dev/p/r/trainer:v3',
      env: [{name: 'STEPS', value: '100'}],
      imagePullSecret: 'regcred',
    },
    pathways: {
      serverImage: 'us-docker.pkg.dev/p/r/server:v2',
      colocatedPythonSidecarImage: 'us-docker.pkg.dev/p/r/sidecar:v1',
      customPathwaysServerArgs: '--a=1  --b=2',
      customPathwaysProxyServerArgs: '--c=3',
      customPathwaysWorkerArgs: '--d=4',
      elasticSlices: 1,
      maxSliceRestarts: 3,
    },
  },
]

function build(c: PathwaysCase): JobSet {
  const problems = new Problems()
  const pathways = pathwaysSpecFromFlags(c.pathways, problems)
  problems.throwIfAny()
  return buildPathwaysJobSet(aWorkloadSpec(c.spec), pathways)
}

const goldenPath = (file: string) => fileURLToPath(new URL(`../../golden/${file}`, import.meta.url))

describe('Pathways JobSet goldens', () => {
  it.each(CASES)('$file matches the builder', (c) => {
    const path = goldenPath(c.file)
    const actual = `# xpk workload create-pathways ${c.flags}\n${toYaml(build(c))}`
    if (UPDATE) writeFileSync(path, actual)
    expect(existsSync(path), `${c.file} is missing; run with UPDATE_GOLDENS=1`).toBe(true)
    expect(actual).toBe(readFileSync(path, 'utf8'))
  })

  it.skipIf(SKIP_CRD_TESTS).each(CASES)('$file is a valid JobSet v1alpha2 (the real CRD)', (c) => {
    expect(validateJobSet(load(readFileSync(goldenPath(c.file), 'utf8')))).toEqual([])
  })
})

describe('the Pathways JobSet, against Python xpk', () => {
  const batch = build(CASES[0]!)
  const headless = build(CASES[1]!)
  const elastic = build(CASES[2]!)
  const head = (js: JobSet) => js.spec.replicatedJobs[0]!.template.spec.template.spec
  const worker = (js: JobSet) => js.spec.replicatedJobs[1]!.template.spec

  it('batch: proxy and resource manager are sidecars of the user container, and the head decides success', () => {
    expect(head(batch).initContainers?.map((c) => [c.name, c.restartPolicy])).toEqual([
      ['pathways-proxy', 'Always'],
      ['pathways-rm', 'Always'],
    ])
    expect(head(batch).containers.map((c) => c.name)).toEqual(['jax-tpu'])
    expect(
      head(batch)
        .containers[0]!.env?.slice(0, 4)
        .map((e) => e.name),
    ).toEqual(['PATHWAYS_HEAD', 'JAX_PLATFORMS', 'XCLOUD_ENVIRONMENT', 'JAX_BACKEND_TARGET'])
    expect(batch.spec.successPolicy).toEqual({operator: 'All', targetReplicatedJobs: ['pathways-head']})
    expect(head(batch).containers[0]!.resources?.limits).toEqual({cpu: '24', memory: '100G'})
  })

  it('headless: the proxy and resource manager are the containers, no success policy, no user image', () => {
    expect(head(headless).initContainers).toBeUndefined()
    expect(head(headless).containers.map((c) => [c.name, c.restartPolicy])).toEqual([
      ['pathways-proxy', undefined],
      ['pathways-rm', undefined],
    ])
    expect(headless.spec.successPolicy).toBeUndefined()
    expect(JSON.stringify(headless)).not.toContain('"image":""')
  })

  it('workers: one Job per slice, one pod per VM, the instance type and the backoff limits', () => {
    expect(worker(batch)).toMatchObject({backoffLimit: 4, completions: 1, parallelism: 1})
    expect(batch.spec.replicatedJobs[1]!.replicas).toBe(1)
    // v6e-16: 4 VMs per slice; elastic: --max-slice-restarts x VMs.
    expect(elastic.spec.replicatedJobs[1]!.replicas).toBe(4)
    expect(worker(elastic)).toMatchObject({backoffLimit: 12, completions: 4, parallelism: 4})
    expect(head(batch).initContainers![1]!.args).toContain('--instance_type=tpuv5:2x2x1')
    expect(head(elastic).initContainers![1]!.args).toEqual(
      expect.arrayContaining(['--instance_count=4', '--a=1', '--b=2']),
    )
    expect(head(elastic).initContainers![0]!.args).toEqual(expect.arrayContaining(['--num_elastic_slices=1', '--c=3']))
    expect(worker(elastic).template.spec.initContainers?.[0]?.name).toBe('colocated-python-sidecar')
    expect(worker(elastic).template.spec.priorityClassName).toBe('high')
    expect(worker(elastic).template.spec.containers[0]!.resources?.limits).toEqual({'google.com/tpu': '4'})
  })
})
