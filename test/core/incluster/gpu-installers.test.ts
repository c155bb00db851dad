import {describe, expect, it} from 'vitest'

import {acceleratorCatalog} from '../../../src/core/catalog/catalog.js'
import {daemonSetWaiting, gpuInstallersFor} from '../../../src/core/incluster/gpu-installers.js'
import {planInCluster, type ObservedInCluster} from '../../../src/core/incluster/plan.js'
import {installerObjects} from '../../fakes/memory-installer-manifests.js'
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

describe('the installer step against what is live', () => {
  const shape = aClusterShape({type: 'b200-8', numSlices: 1, numNodes: 2})
  const base = {shape, xpkVersion: '1', expectedNodes: 3, placement: {compactPlacementPool: false}}
  const objects = installerObjects('nccl-rdma')
  /** `o` as the API server returns it once applied: its generation seen, `ready` of 2 pods ready. */
  const applied = (o: (typeof objects)[number], ready: number) => ({
    ...structuredClone(o),
    metadata: {...o.metadata, generation: 1},
    status: {observedGeneration: 1, desiredNumberScheduled: 2, numberReady: ready},
  })
  const step = (installers: ObservedInCluster['installers']) => {
    const observed: ObservedInCluster = {
      nodeCount: 3,
      controllers: {jobset: {installed: false}, kueue: {installed: false}},
      kueueCrds: [],
      live: new Map(),
      releases: {},
      ...(installers ? {installers} : {}),
    }
    const plan = planInCluster({...base, gpuInstallers: gpuInstallersFor(shape.accelerator)}, observed)
    const found = plan.steps.find((s) => s.kind === 'gpu-installer')
    return found?.kind === 'gpu-installer' ? [found.change, found.reason] : undefined
  }
  it.each([
    ['not read (no source)', undefined, 'apply', /^apply the NCCL RDMA \(gIB\) installer/],
    ['unreadable', {'nccl-rdma': {unread: 'offline'}}, 'apply', /^apply /],
    [
      'missing',
      {'nccl-rdma': {objects, live: [undefined]}},
      'apply',
      /DaemonSet nccl-rdma-installer missing or different$/,
    ],
    [
      'another image',
      {
        'nccl-rdma': {
          objects,
          live: installerObjects('nccl-rdma', 'example.com/installer:v0').map((o) => applied(o, 2)),
        },
      },
      'apply',
      /missing or different$/,
    ],
    [
      'applied, not ready',
      {'nccl-rdma': {objects, live: objects.map((o) => applied(o, 1))}},
      'wait',
      /kube-system\/nccl-rdma-installer: 1 of 2 pods ready/,
    ],
    [
      'applied and ready',
      {'nccl-rdma': {objects, live: objects.map((o) => applied(o, 2))}},
      'none',
      /^unchanged: the NCCL RDMA \(gIB\) installer, ready on every node$/,
    ],
  ] as const)('%s', (_label, installers, change, reason) => {
    const [actual, line] = step(installers as ObservedInCluster['installers']) ?? []
    expect(actual).toBe(change)
    expect(line).toMatch(reason)
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
