import {describe, expect, it} from 'vitest'

import {
  clusterVmCount,
  quotaResource,
  resourceFlavorName,
  totalQuota,
} from '../../../src/core/incluster/cluster-shape.js'
import {aClusterShape, accelerator} from './cluster-shapes.js'

describe('cluster shape', () => {
  // Expected values worked out by hand from the catalog: v5p-16 = 2 VMs x 4 chips, v5litepod-256 = 64 VMs x 4
  // chips, h100-80gb-8 = 8 GPUs per VM, n2-standard-32-4 = 4 VMs x 32 vCPUs, v5p-4x4x8 = v5p-256.
  it.each([
    {type: 'v5p-16', numSlices: 2, numNodes: 9, vms: 4, quota: 16, resource: 'google.com/tpu', flavor: '2xv5p-16'},
    {
      type: 'v5litepod-256',
      numSlices: 4,
      numNodes: 9,
      vms: 256,
      quota: 1024,
      resource: 'google.com/tpu',
      flavor: '4xv5litepod-256',
    },
    {
      type: 'h100-80gb-8',
      numSlices: 1,
      numNodes: 2,
      vms: 2,
      quota: 16,
      resource: 'nvidia.com/gpu',
      flavor: '1xh100-80gb-8',
    },
    {
      type: 'n2-standard-32-4',
      numSlices: 2,
      numNodes: 9,
      vms: 8,
      quota: 256,
      resource: 'cpu',
      flavor: '2xn2-standard-32-4',
    },
    {
      type: 'v5p-4x4x8',
      numSlices: 1,
      numNodes: 9,
      vms: 32,
      quota: 128,
      resource: 'google.com/tpu',
      flavor: '1xv5p-256',
    },
    {type: 'v5p-16', numSlices: 0, numNodes: 9, vms: 0, quota: 0, resource: 'google.com/tpu', flavor: '0xv5p-16'},
  ])('$type x $numSlices slices / $numNodes nodes: $vms VMs, quota $quota $resource, flavor $flavor', (c) => {
    const shape = aClusterShape({type: c.type, numSlices: c.numSlices, numNodes: c.numNodes})
    expect(clusterVmCount(shape)).toBe(c.vms)
    expect(totalQuota(shape)).toBe(c.quota)
    expect(quotaResource(shape)).toBe(c.resource)
    expect(resourceFlavorName(shape)).toBe(c.flavor)
  })

  it('turns underscores in the device type into hyphens, which Kubernetes names allow', () => {
    const shape = aClusterShape({accelerator: {...accelerator('v5p-16'), canonical: 'tpu_x-16'}, numSlices: 3})
    expect(resourceFlavorName(shape)).toBe('3xtpu-x-16')
  })
})
