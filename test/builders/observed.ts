import {desiredClusterFromFlags, type ClusterCreateFlags, type DesiredCluster} from '../../src/core/cluster/desired.js'
import type {ObservedCluster, ObservedNodePool} from '../../src/core/cluster/observed.js'
import type {NodePoolSpec} from '../../src/core/cluster/spec.js'

/**
 * A RUNNING on-demand node pool of cluster `demo` as GKE reports it: `demo-np-0`, one v5p-16 slice (two
 * ct5p-hightpu-4t VMs, compact 2x2x2) in us-central2-b.
 */
export function anObservedPool(overrides: Partial<ObservedNodePool> = {}): ObservedNodePool {
  return {
    name: 'demo-np-0',
    status: 'RUNNING',
    statusMessage: '',
    machineType: 'ct5p-hightpu-4t',
    nodeCount: 2,
    locations: ['us-central2-b'],
    version: '1.35.1-gke.1000000',
    tpuTopology: '2x2x2',
    placementType: 'COMPACT',
    placementPolicyName: null,
    capacity: 'on-demand',
    reservation: null,
    gpu: null,
    autoscaling: null,
    workloadMetadataMode: null,
    ...overrides,
  }
}

/** A RUNNING cluster `demo` in project `test-project`, regional in us-central2 with nodes in us-central2-b. */
export function anObservedCluster(overrides: Partial<ObservedCluster> = {}): ObservedCluster {
  return {
    project: 'test-project',
    name: 'demo',
    location: 'us-central2',
    status: 'RUNNING',
    statusMessage: '',
    version: '1.35.1-gke.1000000',
    nodeLocations: ['us-central2-b'],
    endpoint: '203.0.113.10',
    dnsEndpoint: null,
    caCertificate: null,
    releaseChannel: 'RAPID',
    privateNodes: false,
    labels: {gke_product_type: 'xpk'},
    labelFingerprint: 'a1b2c3d4',
    csiDrivers: [],
    lustreLegacyPort: false,
    workloadPool: null,
    network: 'default',
    autoprovisioning: null,
    nodePools: [],
    ...overrides,
  }
}

/** The pool GKE would report after creating `spec`: RUNNING and matching it in every compared field. */
export function observedPoolFrom(spec: NodePoolSpec, overrides: Partial<ObservedNodePool> = {}): ObservedNodePool {
  const placement = spec.placementPolicy
  return anObservedPool({
    name: spec.name,
    machineType: spec.machineType,
    nodeCount: spec.nodeCount,
    locations: [...spec.locations],
    tpuTopology: spec.tpuTopology,
    placementType: placement?.type === 'compact' ? 'COMPACT' : null,
    placementPolicyName: placement?.type === 'workload-policy' ? placement.name : null,
    capacity: spec.capacity,
    reservation: spec.reservation,
    gpu: spec.gpu,
    autoscaling: spec.flexMaxNodes === null ? null : {enabled: true, minNodes: 0, maxNodes: spec.flexMaxNodes},
    workloadMetadataMode: spec.workloadMetadataMode,
    ...(spec.additionalNodeNetworks?.length
      ? {additionalNodeNetworks: spec.additionalNodeNetworks.map((n) => n.network)}
      : {}),
    ...overrides,
  })
}

/** A RUNNING pool named `name` that matches what `desired` asks for (optionally on a given reservation). */
export function aMatchingPool(
  desired: DesiredCluster,
  name: string,
  overrides: Partial<ObservedNodePool> = {},
): ObservedNodePool {
  const reservation = desired.poolTemplate.capacity === 'reservation' ? (desired.reservations[0] ?? null) : null
  return observedPoolFrom({...desired.poolTemplate, name, reservation}, overrides)
}

const CAPACITY_FLAGS = ['onDemand', 'spot', 'reservation', 'flex'] as const

/**
 * `desiredClusterFromFlags` with valid defaults: project test-project, zone us-central2-b, cluster demo,
 * --tpu-type v5p-16, --spot. Giving any capacity flag replaces --spot, and giving --device-type replaces
 * --tpu-type; an override of `undefined` removes a default.
 */
export function desiredFor(flagsOverrides: ClusterCreateFlags = {}): DesiredCluster {
  const capacityGiven = CAPACITY_FLAGS.some((flag) => flag in flagsOverrides)
  const flags: ClusterCreateFlags = {
    project: 'test-project',
    zone: 'us-central2-b',
    cluster: 'demo',
    ...('deviceType' in flagsOverrides ? {} : {tpuType: 'v5p-16'}),
    ...(capacityGiven ? {} : {spot: true}),
    ...flagsOverrides,
  }
  return desiredClusterFromFlags(flags)
}
