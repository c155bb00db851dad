import {describe, expect, it} from 'vitest'

import {acceleratorCatalog} from '../../../src/core/catalog/catalog.js'
import {daemonSetWaiting, gpuInstallersFor} from '../../../src/core/incluster/gpu-installers.js'
import {planInCluster} from '../../../src/core/incluster/plan.js'
import {inClusterPlanToJson, renderInClusterPlan} from '../../../src/core/incluster/render.js'
import {expectGolden} from '../../helpers/golden.js'
import {aClusterShape, accelerator} from './cluster-shapes.js'

/** The installers each type gets, as Python's `prepare_gpus` applies them; every other type gets none. */
const EXPECTED: Readonly<Record<string, readonly string[]>> = {
  'h100-80gb-8': ['nccl-tcpx', 'nri-device-injector'],
  'h100-mega-80gb-8': ['nccl-tcpxo', 'nri-device-injector'],
  'h200-141gb-8': ['nccl-rdma'],
  'b200-8': ['nccl-rdma'],
}

describe('gpuInstallersFor', () => {
  const catalog = [...acceleratorCatalog().entries()]
  it.each(catalog.map(([name, a]) => [name, a] as const))('%s', (_name, a) => {
    expect(gpuInstallersFor(a).map((i) => i.name)).toEqual(EXPECTED[a.canonical] ?? [])
  })

  it('covers every type expected (the catalog has them all)', () => {
    const canonical = new Set(catalog.map(([, a]) => a.canonical))
    expect(Object.keys(EXPECTED).filter((t) => !canonical.has(t))).toEqual([])
  })

  it('takes the NCCL installer from one flag and the NRI injector from another, the URLs from master', () => {
    const flags = Object.keys(EXPECTED).flatMap((t) =>
      gpuInstallersFor(accelerator(t)).map((i) => [i.name, i.overrideFlag]),
    )
    expect(Object.fromEntries(flags)).toEqual({
      'nccl-tcpx': '--nccl-installer-manifest',
      'nccl-tcpxo': '--nccl-installer-manifest',
      'nccl-rdma': '--nccl-installer-manifest',
      'nri-device-injector': '--nri-device-injector-manifest',
    })
  })
})

describe('the in-cluster plan of a GPU type with installers', () => {
  const plans = Object.keys(EXPECTED).map((type) => {
    const shape = aClusterShape({type, numSlices: 1, numNodes: 2})
    const plan = planInCluster(
      {
        shape,
        xpkVersion: '1.2.3',
        expectedNodes: 3,
        placement: {compactPlacementPool: false},
        gpuInstallers: gpuInstallersFor(shape.accelerator),
      },
      null,
    )
    return {type, plan}
  })

  it('applies each installer last and waits for it (golden)', () => {
    const text = plans.map(({type, plan}) => `# --device-type=${type}\n${renderInClusterPlan(plan)}\n`).join('\n')
    expectGolden('incluster/gpu-installers-plan.txt', text)
  })

  it('shows each installer in --json with its URL', () => {
    for (const {type, plan} of plans) {
      const steps = inClusterPlanToJson(plan).steps.filter((s) => s.kind === 'gpu-installer')
      expect(steps.map((s) => ('installer' in s ? s.installer : undefined))).toEqual(EXPECTED[type])
      for (const s of steps) expect('url' in s && s.url).toMatch(/^https:\/\/raw\.githubusercontent\.com\/.+\.yaml$/)
    }
  })

  it('plans none for a TPU or a GPU type without them', () => {
    for (const type of ['v5p-16', 'l4-1', 'a100-40gb-8']) {
      const shape = aClusterShape({type, numSlices: 1})
      const plan = planInCluster(
        {
          shape,
          xpkVersion: '1',
          expectedNodes: 1,
          placement: {compactPlacementPool: false},
          gpuInstallers: gpuInstallersFor(shape.accelerator),
        },
        null,
      )
      expect(plan.steps.filter((s) => s.kind === 'gpu-installer')).toEqual([])
    }
  })
})

describe('daemonSetWaiting', () => {
  const cases: [string, Parameters<typeof daemonSetWaiting>[0], string | undefined][] = [
    ['missing', undefined, 'it does not exist'],
    [
      'spec not seen yet',
      {metadata: {generation: 2}, status: {observedGeneration: 1}},
      'its controller has not seen its spec yet',
    ],
    [
      'some pods not ready',
      {metadata: {generation: 1}, status: {observedGeneration: 1, desiredNumberScheduled: 4, numberReady: 3}},
      '3 of 4 pods ready',
    ],
    [
      'ready on every node',
      {metadata: {generation: 1}, status: {observedGeneration: 1, desiredNumberScheduled: 4, numberReady: 4}},
      undefined,
    ],
    [
      'no node to run on yet',
      {metadata: {generation: 1}, status: {observedGeneration: 1, desiredNumberScheduled: 0, numberReady: 0}},
      undefined,
    ],
  ]
  it.each(cases)('%s', (_label, daemonSet, expected) => {
    expect(daemonSetWaiting(daemonSet)).toBe(expected)
  })
})
