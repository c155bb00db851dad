// Which GPU types read the cluster's GKENetworkParamSets, and the NIC order of the names.
import {describe, expect, it} from 'vitest'

import {resolveAccelerator} from '../../../src/core/catalog/lookup.js'
import {gpuNetworkNames, needsClusterGpuNetworks} from '../../../src/core/workload/gpu-networks.js'
import type {KubeObject} from '../../../src/ports/kube.js'

const paramSet = (name: string, deviceMode: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'networking.gke.io/v1',
  kind: 'GKENetworkParamSet',
  metadata: {name, ...extra},
  spec: {deviceMode},
})

describe('needsClusterGpuNetworks', () => {
  it.each([
    ['h100-mega-80gb-8', true],
    ['h200-141gb-8', true],
    ['b200-8', true],
    ['gb200-4', true],
    // A3 High pods always name vpc1..vpc4; generic GPUs, TPUs and CPUs attach no extra network.
    ['h100-80gb-8', false],
    ['a100-40gb-1', false],
    ['l4-1', false],
    ['v5p-8', false],
    ['n2-standard-32-1', false],
  ])('%s: %s', (type, expected) => {
    expect(needsClusterGpuNetworks(resolveAccelerator({deviceType: type}))).toBe(expected)
  })
})

describe('gpuNetworkNames', () => {
  it('plain networks first, then RDMA ones, each in natural order', () => {
    const names = gpuNetworkNames([
      paramSet('demo-rdma-sub-10', 'RDMA'),
      paramSet('demo-rdma-sub-2', 'RDMA'),
      paramSet('demo-sub-1', 'NetDevice'),
      paramSet('demo-rdma-sub-0', 'RDMA'),
    ])
    expect(names).toEqual(['demo-sub-1', 'demo-rdma-sub-0', 'demo-rdma-sub-2', 'demo-rdma-sub-10'])
  })

  it('TCPXO networks (all NetDevice) in natural order; ones being deleted are left out', () => {
    const names = gpuNetworkNames([
      paramSet('gpunet-10-subnet', 'NetDevice'),
      paramSet('gpunet-1-subnet', 'NetDevice'),
      paramSet('gpunet-0-subnet', 'NetDevice', {deletionTimestamp: '2026-01-01T00:00:00Z'}),
      paramSet('gpunet-2-subnet', 'NetDevice'),
    ])
    expect(names).toEqual(['gpunet-1-subnet', 'gpunet-2-subnet', 'gpunet-10-subnet'])
  })

  it('none', () => {
    expect(gpuNetworkNames([])).toEqual([])
  })
})
