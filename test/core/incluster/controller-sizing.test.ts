import {describe, expect, it} from 'vitest'

import {
  jobSetControllerMemoryMi,
  jobSetControllerPatch,
  kueueControllerPatch,
  kueueControllerResources,
  superSlicingControllerPatch,
} from '../../../src/core/incluster/controller-sizing.js'

describe('controller sizing', () => {
  // JobSet: max(ceil(nodes * 1.2), 4096) MiB; 3413 nodes are the last below the floor (4095.6 -> 4096).
  it.each([
    {nodes: 0, memoryMi: 4096},
    {nodes: 6, memoryMi: 4096},
    {nodes: 3413, memoryMi: 4096},
    {nodes: 3414, memoryMi: 4097},
    {nodes: 10_000, memoryMi: 12_000},
  ])('JobSet on $nodes nodes: $memoryMi MiB', ({nodes, memoryMi}) => {
    expect(jobSetControllerMemoryMi(nodes)).toBe(memoryMi)
  })

  // Kueue: max(ceil(nodes * 32), 4096) MiB and max(ceil(nodes * 0.004), 2) CPUs.
  it.each([
    {nodes: 0, cpu: 2, memoryMi: 4096},
    {nodes: 128, cpu: 2, memoryMi: 4096},
    {nodes: 129, cpu: 2, memoryMi: 4128},
    {nodes: 500, cpu: 2, memoryMi: 16_000},
    {nodes: 501, cpu: 3, memoryMi: 16_032},
    {nodes: 10_000, cpu: 40, memoryMi: 320_000},
  ])('Kueue on $nodes nodes: $cpu CPUs, $memoryMi MiB', ({nodes, cpu, memoryMi}) => {
    expect(kueueControllerResources(nodes)).toEqual({cpu, memoryMi})
  })

  it("patches the memory limit of JobSet's manager container, and its requests as Python's Deployment sets them", () => {
    const resources = {requests: {cpu: '1000m', memory: '128Mi'}, limits: {memory: '6000Mi'}}
    expect(jobSetControllerPatch(5000)).toEqual({
      namespace: 'jobset-system',
      name: 'jobset-controller-manager',
      patchType: 'strategic',
      body: {spec: {template: {spec: {containers: [{name: 'manager', resources}]}}}},
      reason: "size JobSet's controller for 5000 nodes: cpu request 1000m, memory limit 6000Mi",
    })
  })

  it("patches the requests and limits of Kueue's manager container alike", () => {
    const patch = kueueControllerPatch(1000)
    const quantities = {cpu: '4', memory: '32000Mi'}
    expect(patch).toEqual({
      namespace: 'kueue-system',
      name: 'kueue-controller-manager',
      patchType: 'strategic',
      body: {
        spec: {
          template: {spec: {containers: [{name: 'manager', resources: {requests: quantities, limits: quantities}}]}},
        },
      },
      reason: "size Kueue's controller for 1000 nodes: cpu 4, memory 32000Mi",
    })
  })

  it('says "node" for one node', () => {
    expect(kueueControllerPatch(1).reason).toBe("size Kueue's controller for 1 node: cpu 2, memory 4096Mi")
  })
})

describe('controller sizing of a super-slicing cluster', () => {
  it("is Python xpk's fixed sizes: Kueue 3 replicas of 16 CPUs and 64Gi, JobSet 4 CPUs and 16Gi", () => {
    const kueue = superSlicingControllerPatch('kueue')
    expect(kueue.body.spec.replicas).toBe(3)
    expect(kueue.body.spec.template.spec.containers).toEqual([
      {name: 'manager', resources: {requests: {cpu: '16', memory: '64Gi'}, limits: {cpu: '16', memory: '64Gi'}}},
    ])
    const jobset = superSlicingControllerPatch('jobset')
    expect(jobset.body.spec.replicas).toBeUndefined()
    expect(jobset.body.spec.template.spec.containers[0]!.resources).toEqual({
      requests: {cpu: '4', memory: '16Gi'},
      limits: {cpu: '4', memory: '16Gi'},
    })
    expect(jobset.namespace).toBe('jobset-system')
  })
})
