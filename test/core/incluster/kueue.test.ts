import {describe, expect, it} from 'vitest'

import type {Capacity} from '../../../src/core/cluster/spec.js'
import {kueueConfiguration, kueueConfigurationObjects} from '../../../src/core/incluster/kueue.js'
import type {ClusterShape} from '../../../src/core/incluster/cluster-shape.js'
import type {InClusterObject} from '../../../src/core/incluster/types.js'
import {CLUSTER_QUEUE_NAME, KUEUE_API_VERSION, LOCAL_QUEUE_NAME} from '../../../src/core/versions.js'
import {PRIORITIES} from '../../../src/core/workload/priority.js'
import {aClusterShape} from './cluster-shapes.js'

function configFor(overrides: Parameters<typeof aClusterShape>[0], topologyAwareScheduling = false) {
  return kueueConfiguration(aClusterShape(overrides), {topologyAwareScheduling})
}

describe('kueueConfiguration', () => {
  it('--cpu-limit and --memory-limit add cpu and memory after the accelerator, in its flavor, as Python writes them', () => {
    const queue = configFor({type: 'v5p-16', numSlices: 2, cpuQuota: 208, memoryQuota: '458752Mi'}).clusterQueue
    expect(queue.spec.resourceGroups).toEqual([
      {
        coveredResources: ['google.com/tpu', 'cpu', 'memory'],
        flavors: [
          {
            name: '2xv5p-16',
            resources: [
              {name: 'google.com/tpu', nominalQuota: 16},
              {name: 'cpu', nominalQuota: 208},
              {name: 'memory', nominalQuota: '458752Mi'},
            ],
          },
        ],
      },
    ])
    const memoryOnly = configFor({type: 'h100-80gb-8', numNodes: 2, memoryQuota: '64Gi'}).clusterQueue
    expect(memoryOnly.spec.resourceGroups[0]!.coveredResources).toEqual(['nvidia.com/gpu', 'memory'])
    expect(configFor({type: 'v5p-16'}).clusterQueue.spec.resourceGroups[0]!.coveredResources).toEqual([
      'google.com/tpu',
    ])
  })

  it.each<{type: string; labels: Record<string, string> | undefined}>([
    {
      type: 'v5p-16',
      labels: {'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice', 'cloud.google.com/gke-tpu-topology': '2x2x2'},
    },
    {
      type: 'v5litepod-256',
      labels: {
        'cloud.google.com/gke-tpu-accelerator': 'tpu-v5-lite-podslice',
        'cloud.google.com/gke-tpu-topology': '16x16',
      },
    },
    {type: 'h100-80gb-8', labels: {'cloud.google.com/gke-accelerator': 'nvidia-h100-80gb'}},
    // gb200 has a topology (1x72), but GPU nodes carry no TPU topology label.
    {type: 'gb200-4', labels: {'cloud.google.com/gke-accelerator': 'nvidia-gb200'}},
    {type: 'n2-standard-32-4', labels: undefined},
  ])('the $type flavor selects nodes by $labels', ({type, labels}) => {
    expect(configFor({type}).resourceFlavor.spec.nodeLabels).toEqual(labels)
  })

  it.each([
    {type: 'v5p-16', numSlices: 2, numNodes: 1, resource: 'google.com/tpu', quota: 16},
    {type: 'h100-80gb-8', numSlices: 1, numNodes: 3, resource: 'nvidia.com/gpu', quota: 24},
    {type: 'n2-standard-32-4', numSlices: 3, numNodes: 1, resource: 'cpu', quota: 384},
  ])('$type: the ClusterQueue covers $quota $resource of the flavor, and DWS manages $resource', (c) => {
    const config = configFor(c)
    expect(config.clusterQueue.spec.resourceGroups).toEqual([
      {
        coveredResources: [c.resource],
        flavors: [{name: config.resourceFlavor.metadata.name, resources: [{name: c.resource, nominalQuota: c.quota}]}],
      },
    ])
    expect(config.provisioningRequestConfig.spec.managedResources).toEqual([c.resource])
  })

  it('preempts lower priorities within the queue only, and admits every namespace', () => {
    const {clusterQueue, localQueue} = configFor({})
    expect(clusterQueue.metadata.name).toBe(CLUSTER_QUEUE_NAME)
    expect(clusterQueue.spec.preemption).toEqual({reclaimWithinCohort: 'Never', withinClusterQueue: 'LowerPriority'})
    expect(clusterQueue.spec.namespaceSelector).toEqual({})
    expect(localQueue.metadata).toEqual({name: LOCAL_QUEUE_NAME, namespace: 'default'})
    expect(localQueue.spec.clusterQueue).toBe(CLUSTER_QUEUE_NAME)
  })

  it("writes every Kueue object in Kueue's storage version", () => {
    const kueueObjects = kueueConfigurationObjects(configFor({type: 'h100-80gb-8', capacity: 'flex'}, true)).filter(
      (o) => o.apiVersion.startsWith('kueue.x-k8s.io/'),
    )
    expect(kueueObjects.length).toBe(6)
    expect(new Set(kueueObjects.map((o) => o.apiVersion))).toEqual(new Set([KUEUE_API_VERSION]))
  })

  it('creates the five PriorityClasses of the priority table, none of them the global default', () => {
    expect(configFor({}).priorityClasses).toEqual(
      PRIORITIES.map((p) => ({
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: {name: p.name},
        value: p.value,
        globalDefault: false,
        description: p.description,
      })),
    )
  })

  describe('topology-aware scheduling', () => {
    it('gives a GPU cluster the gke-default Topology, hostname last, and names it in the flavor', () => {
      const {topology, resourceFlavor} = configFor({type: 'h200-141gb-8'}, true)
      expect(topology?.metadata.name).toBe('gke-default')
      expect(topology?.spec.levels.map((l) => l.nodeLabel)).toEqual([
        'cloud.google.com/gce-topology-block',
        'cloud.google.com/gce-topology-subblock',
        'cloud.google.com/gce-topology-host',
        'kubernetes.io/hostname',
      ])
      expect(resourceFlavor.spec.topologyName).toBe('gke-default')
    })

    it.each([
      {type: 'h200-141gb-8', possible: false},
      {type: 'v5p-16', possible: true},
      {type: 'n2-standard-32-4', possible: true},
    ])('$type with TAS possible=$possible: no Topology, no topologyName', ({type, possible}) => {
      const {topology, resourceFlavor} = configFor({type}, possible)
      expect(topology).toBeNull()
      expect(resourceFlavor.spec).not.toHaveProperty('topologyName')
    })
  })

  describe('Dynamic Workload Scheduler admission check', () => {
    it.each<{type: string; capacity: Capacity; numSlices: number; check: boolean}>([
      {type: 'h100-80gb-8', capacity: 'flex', numSlices: 1, check: true},
      {type: 'h100-80gb-8', capacity: 'flex', numSlices: 2, check: false},
      {type: 'h100-80gb-8', capacity: 'spot', numSlices: 1, check: false},
      {type: 'h100-80gb-8', capacity: 'reservation', numSlices: 1, check: false},
      {type: 'v5p-16', capacity: 'flex', numSlices: 1, check: false},
      {type: 'n2-standard-32-4', capacity: 'flex', numSlices: 1, check: false},
    ])('$type on $capacity, $numSlices slice(s): admission check $check', ({check, ...shape}) => {
      const config = configFor(shape)
      expect(config.admissionCheck !== null).toBe(check)
      expect(config.clusterQueue.spec.admissionChecksStrategy !== undefined).toBe(check)
      // The ProvisioningRequestConfig is always there, as in Python xpk.
      expect(config.provisioningRequestConfig.metadata.name).toBe('dws-config')
    })

    it('the ClusterQueue names the check, and the check names the ProvisioningRequestConfig', () => {
      const config = configFor({type: 'h100-80gb-8', capacity: 'flex'})
      expect(config.clusterQueue.spec.admissionChecksStrategy).toEqual({
        admissionChecks: [{name: config.admissionCheck?.metadata.name}],
      })
      expect(config.admissionCheck?.spec).toEqual({
        controllerName: 'kueue.x-k8s.io/provisioning-request',
        parameters: {
          apiGroup: 'kueue.x-k8s.io',
          kind: config.provisioningRequestConfig.kind,
          name: config.provisioningRequestConfig.metadata.name,
        },
      })
    })
  })

  describe('kueueConfigurationObjects', () => {
    const shapes: readonly {name: string; shape: ClusterShape; tas: boolean}[] = [
      {name: 'TPU', shape: aClusterShape({type: 'v5p-16', numSlices: 2}), tas: false},
      {name: 'GPU flex with TAS', shape: aClusterShape({type: 'h100-80gb-8', capacity: 'flex'}), tas: true},
      {name: 'CPU', shape: aClusterShape({type: 'n2-standard-32-4'}), tas: false},
    ]

    it.each(shapes)('$name: lists every object once, each after the objects it refers to', ({shape, tas}) => {
      const config = kueueConfiguration(shape, {topologyAwareScheduling: tas})
      const objects = kueueConfigurationObjects(config)
      const present = Object.values(config)
        .flat()
        .filter((o): o is InClusterObject => o !== null)
      expect(objects).toHaveLength(present.length)
      expect(new Set(objects)).toEqual(new Set(present))
      const position = (kind: string, name: string) =>
        objects.findIndex((o) => o.kind === kind && o.metadata.name === name)
      for (const [i, object] of objects.entries()) {
        for (const [kind, name] of references(object)) {
          expect(position(kind, name), `${object.kind} ${object.metadata.name} -> ${kind} ${name}`).toBeGreaterThan(-1)
          expect(position(kind, name)).toBeLessThan(i)
        }
      }
    })
  })
})

/** The objects `object` names by kind and name. */
function references(object: InClusterObject): [string, string][] {
  switch (object.kind) {
    case 'ResourceFlavor':
      return object.spec.topologyName === undefined ? [] : [['Topology', object.spec.topologyName]]
    case 'AdmissionCheck':
      return object.spec.parameters ? [[object.spec.parameters.kind, object.spec.parameters.name]] : []
    case 'ClusterQueue':
      return [
        ...object.spec.resourceGroups.flatMap((g) =>
          g.flavors.map((f): [string, string] => ['ResourceFlavor', f.name]),
        ),
        ...(object.spec.admissionChecksStrategy?.admissionChecks ?? []).map((c): [string, string] => [
          'AdmissionCheck',
          c.name,
        ]),
      ]
    case 'LocalQueue':
      return [['ClusterQueue', object.spec.clusterQueue]]
    default:
      return []
  }
}
