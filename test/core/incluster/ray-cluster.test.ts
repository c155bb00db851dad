import {describe, expect, it} from 'vitest'

import {resolveAccelerator} from '../../../src/core/catalog/lookup.js'
import {rayCluster, rayClusterObjects, shareOf, type RayClusterInputs} from '../../../src/core/incluster/ray-cluster.js'
import {toYamlDocuments} from '../../../src/core/manifests/to-yaml.js'
import {createOneCrdValidator} from '../../helpers/crd-schema.js'
import {RAY_CLUSTER_CRD, SKIP_RAY_CRD_TESTS} from '../../helpers/crds.js'
import {expectGolden} from '../../helpers/golden.js'

type PodTemplate = {spec: {containers: {image: string}[]; nodeSelector: Record<string, string>}}

/** A v5p-16 cluster (2 VMs of 4 chips per slice) of 2 slices on e2-standard-16 CPU nodes. */
const INPUTS: RayClusterInputs = {
  version: '2.38.0',
  accelerator: resolveAccelerator({tpuType: 'v5p-16'}),
  slicePools: ['demo-np-0', 'demo-np-1'],
  headPool: 'default-pool',
  headNode: {cpu: '15890m', memory: '60055592Ki'},
  workerNode: {cpu: '207', memory: '462542412Ki'},
}

describe('shareOf (Python xpk generate_available_resources)', () => {
  it.each<[string, number, 'cpu' | 'memory', string]>([
    ['15890m', 0.5, 'cpu', '7945m'],
    ['15891m', 0.5, 'cpu', '7945m'],
    ['207', 0.9, 'cpu', '186300m'],
    ['60055592Ki', 0.5, 'memory', '30027796Ki'],
    ['1000Mi', 0.9, 'memory', '900Mi'],
    ['123456789', 0.5, 'memory', '61728394'],
  ])('%s x %s (%s) = %s', (quantity, share, resource, expected) => {
    expect(shareOf(quantity, share, resource)).toBe(expected)
  })
  it.each(['1.5', '2e3', '', '-5m'])('refuses %j, which the API server does not report', (quantity) => {
    expect(() => shareOf(quantity, 0.5, 'cpu')).toThrow(/Cannot take a share/)
  })
})

describe('rayCluster', () => {
  it('matches its golden (v5p-16, 2 slices)', () => {
    expectGolden('ray/raycluster-v5p-16-2-slices.yaml', toYamlDocuments(rayClusterObjects(INPUTS)))
  })

  it('has one worker group per slice, each of its VMs, pinned to its pool; the version in image and rayVersion', () => {
    const spec = rayCluster({...INPUTS, slicePools: ['demo-np-0', 'demo-np-1', 'demo-np-2'], version: '2.40.0'})
      .spec as {
      rayVersion: string
      workerGroupSpecs: {groupName: string; numOfHosts: number; replicas: number; template: PodTemplate}[]
      headGroupSpec: {template: PodTemplate}
    }
    expect(spec.rayVersion).toBe('2.40.0')
    expect(spec.headGroupSpec.template.spec.containers[0].image).toBe('rayproject/ray:2.40.0')
    expect(
      spec.workerGroupSpecs.map((g) => [
        g.groupName,
        g.replicas,
        g.numOfHosts,
        g.template.spec.nodeSelector['cloud.google.com/gke-nodepool'],
      ]),
    ).toEqual([
      ['workergroup0', 1, 2, 'demo-np-0'],
      ['workergroup1', 1, 2, 'demo-np-1'],
      ['workergroup2', 1, 2, 'demo-np-2'],
    ])
  })

  it.each([{deviceType: 'h100-80gb-8'}, {deviceType: 'n2-standard-32-1'}])('refuses a non-TPU type: %j', (type) => {
    expect(() => rayCluster({...INPUTS, accelerator: resolveAccelerator(type)})).toThrow(/made for TPU slices/)
  })

  describe.skipIf(SKIP_RAY_CRD_TESTS)('against the KubeRay RayCluster CRD', () => {
    const validate = () => createOneCrdValidator(RAY_CLUSTER_CRD!)
    it.each([
      ['v5p-16, 2 slices', INPUTS],
      [
        'v5litepod-8 (one VM), 1 slice',
        {...INPUTS, accelerator: resolveAccelerator({tpuType: 'v5litepod-8'}), slicePools: ['demo-np-0']},
      ],
      [
        'v6e-256, 4 slices',
        {
          ...INPUTS,
          accelerator: resolveAccelerator({tpuType: 'v6e-256'}),
          slicePools: ['a-np-0', 'a-np-1', 'a-np-2', 'a-np-3'],
        },
      ],
    ])('%s is valid', (_, inputs) => {
      expect(validate()(rayCluster(inputs))).toEqual([])
    })
    it('a misspelt field is caught (the check can fail)', () => {
      const bad = rayCluster(INPUTS)
      expect(validate()({...bad, spec: {...bad.spec, workerGroups: []}})).not.toEqual([])
    })
  })
})
