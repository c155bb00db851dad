import {describe, expect, it} from 'vitest'

import type {Capacity} from '../../../src/core/cluster/spec.js'
import {
  capacityFromTypeName,
  capacityTypeName,
  clusterConfigMaps,
  parseMetadataConfigMap,
  parseResourcesConfigMap,
} from '../../../src/core/incluster/configmaps.js'
import type {CapacityTypeName, ClusterResources} from '../../../src/core/incluster/configmaps.js'
import {aClusterShape} from './cluster-shapes.js'

describe('clusterConfigMaps', () => {
  it('names both after the cluster, in namespace default', () => {
    const {resources, metadata} = clusterConfigMaps(aClusterShape({clusterName: 'golden-cluster'}), {
      xpkVersion: '1.2.3',
    })
    expect(resources.metadata).toEqual({name: 'golden-cluster-resources-configmap', namespace: 'default'})
    expect(metadata.metadata).toEqual({name: 'golden-cluster-metadata-configmap', namespace: 'default'})
  })

  // The canonical device type (an alias is written as the type it stands for) and its VMs as a decimal string.
  it.each([
    {type: 'v5p-16', numSlices: 2, numNodes: 7, data: {'v5p-16': '4'}},
    {type: 'v5litepod-256', numSlices: 4, numNodes: 7, data: {'v5litepod-256': '256'}},
    {type: 'v5p-4x4x8', numSlices: 1, numNodes: 7, data: {'v5p-256': '32'}},
    {type: 'h100-80gb-8', numSlices: 1, numNodes: 2, data: {'h100-80gb-8': '2'}},
    {type: 'n2-standard-32-4', numSlices: 3, numNodes: 7, data: {'n2-standard-32-4': '12'}},
    {type: 'tpu7x-8', numSlices: 0, numNodes: 7, data: {'tpu7x-8': '0'}},
  ])('resources of $type x $numSlices slices / $numNodes nodes: $data', ({data, ...shape}) => {
    expect(clusterConfigMaps(aClusterShape(shape), {xpkVersion: '1.0.0'}).resources.data).toEqual(data)
  })

  it.each<{capacity: Capacity; reservation: string | null; data: Record<string, string>}>([
    {capacity: 'on-demand', reservation: null, data: {xpk_version: 'v0.9.1', capacity_type: 'ON_DEMAND'}},
    {capacity: 'spot', reservation: null, data: {xpk_version: 'v0.9.1', capacity_type: 'SPOT'}},
    {capacity: 'flex', reservation: null, data: {xpk_version: 'v0.9.1', capacity_type: 'FLEX_START'}},
    {
      capacity: 'reservation',
      reservation: 'res-a,projects/other/reservations/res-b/reservationBlocks/b1',
      data: {
        xpk_version: 'v0.9.1',
        capacity_type: 'RESERVATION',
        reservation_id: 'res-a,projects/other/reservations/res-b/reservationBlocks/b1',
      },
    },
  ])('metadata on $capacity: $data', ({capacity, reservation, data}) => {
    const shape = aClusterShape({capacity, reservation})
    expect(clusterConfigMaps(shape, {xpkVersion: '0.9.1'}).metadata.data).toEqual(data)
  })

  it.each(['0.9.1', 'v0.9.1'])('writes xpk_version %s as v0.9.1, as Python does', (xpkVersion) => {
    expect(clusterConfigMaps(aClusterShape(), {xpkVersion}).metadata.data.xpk_version).toBe('v0.9.1')
  })

  it('round-trips through the parsers', () => {
    const shape = aClusterShape({type: 'v5p-16', numSlices: 3, capacity: 'reservation', reservation: 'r1'})
    const {resources, metadata} = clusterConfigMaps(shape, {xpkVersion: '2.0.0'})
    expect(parseResourcesConfigMap(resources.data)).toEqual({
      vmsByDeviceType: {'v5p-16': 6},
      autoprovisioning: null,
      unreadable: [],
    })
    expect(parseMetadataConfigMap(metadata.data)).toMatchObject({
      xpkVersion: 'v2.0.0',
      capacityType: 'RESERVATION',
      capacity: 'reservation',
      reservation: 'r1',
      unreadable: [],
    })
  })
})

describe('parseResourcesConfigMap', () => {
  it.each<{
    name: string
    data: Record<string, string>
    vms: Record<string, number>
    autoprovisioning: ClusterResources['autoprovisioning']
    unreadable: string[]
  }>([
    {
      name: "Python's TPU form",
      data: {'tpu7x-16': '2'},
      vms: {'tpu7x-16': 2},
      autoprovisioning: null,
      unreadable: [],
    },
    {
      name: "Python's node auto-provisioning form",
      data: {'tpu-v5p-slice': 'AUTOPROVISION', minimum_chips: '0', maximum_chips: '512'},
      vms: {},
      autoprovisioning: {gkeAccelerators: ['tpu-v5p-slice'], minimumChips: 0, maximumChips: 512},
      unreadable: [],
    },
    {
      name: 'a value with spaces around it',
      data: {'h100-80gb-8': ' 4 '},
      vms: {'h100-80gb-8': 4},
      autoprovisioning: null,
      unreadable: [],
    },
    {
      name: 'values that are not counts',
      data: {'v5p-16': 'four', 'v5p-8': '-1', 'v5p-32': '1.5', maximum_chips: 'lots'},
      vms: {},
      autoprovisioning: null,
      unreadable: ['v5p-16: four', 'v5p-8: -1', 'v5p-32: 1.5', 'maximum_chips: lots'],
    },
    {name: 'an empty map', data: {}, vms: {}, autoprovisioning: null, unreadable: []},
  ])('$name', ({data, vms, autoprovisioning, unreadable}) => {
    expect(parseResourcesConfigMap(data)).toEqual({vmsByDeviceType: vms, autoprovisioning, unreadable})
  })
})

describe('parseMetadataConfigMap', () => {
  it("reads Python xpk's metadata with TensorBoard keys", () => {
    expect(
      parseMetadataConfigMap({
        xpk_version: 'v0.14.3',
        tensorboard_region: 'us-central1',
        tensorboard_name: 'demo-tb-instance',
        tensorboard_id: '123',
        capacity_type: 'SPOT',
      }),
    ).toEqual({
      xpkVersion: 'v0.14.3',
      capacityType: 'SPOT',
      capacity: 'spot',
      reservation: null,
      tensorboard: {region: 'us-central1', name: 'demo-tb-instance', id: '123'},
      provisioner: null,
      unreadable: [],
    })
  })

  it("reads Cluster Toolkit's lower-case capacity type and its provisioner", () => {
    expect(parseMetadataConfigMap({capacity_type: 'flex_start', provisioner: 'gcluster'})).toMatchObject({
      capacityType: 'FLEX_START',
      capacity: 'flex',
      provisioner: 'gcluster',
    })
  })

  it.each([
    {value: 'UNKNOWN', capacityType: 'UNKNOWN', capacity: null, unreadable: []},
    {value: 'PREEMPTIBLE', capacityType: null, capacity: null, unreadable: ['capacity_type: PREEMPTIBLE']},
    {value: '', capacityType: null, capacity: null, unreadable: []},
  ])('capacity_type "$value" reads as $capacityType', ({value, capacityType, capacity, unreadable}) => {
    expect(parseMetadataConfigMap({capacity_type: value})).toMatchObject({capacityType, capacity, unreadable})
  })

  it('reads absent keys as null', () => {
    expect(parseMetadataConfigMap({})).toEqual({
      xpkVersion: null,
      capacityType: null,
      capacity: null,
      reservation: null,
      tensorboard: {region: null, name: null, id: null},
      provisioner: null,
      unreadable: [],
    })
  })
})

describe('capacity type names', () => {
  it.each<[Capacity, CapacityTypeName]>([
    ['on-demand', 'ON_DEMAND'],
    ['spot', 'SPOT'],
    ['reservation', 'RESERVATION'],
    ['flex', 'FLEX_START'],
  ])('%s <-> %s', (capacity, name) => {
    expect(capacityTypeName(capacity)).toBe(name)
    expect(capacityFromTypeName(name)).toBe(capacity)
  })

  it('UNKNOWN has no capacity of ours', () => {
    expect(capacityFromTypeName('UNKNOWN')).toBeNull()
  })
})
