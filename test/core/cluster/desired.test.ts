import {describe, expect, it} from 'vitest'

import {
  CLUSTER_DEFAULTS,
  desiredClusterFromFlags,
  placementPolicyName,
  reservationPath,
  workloadPolicyName,
  type ClusterCreateFlags,
  type NodePoolTemplate,
} from '../../../src/core/cluster/desired.js'
import {SCOPES} from '../../../src/core/cluster/spec.js'
import {findAccelerator} from '../../../src/core/catalog/lookup.js'
import {UsageError, UsageErrors} from '../../../src/core/errors.js'
import {desiredFor} from '../../builders/observed.js'

const FULL_SCOPES = [SCOPES.storageFull, ...SCOPES.gkeDefault, SCOPES.cloudPlatform]
const DRA_LABEL = {'cloud.google.com/gke-networking-dra-driver': 'true'}

/** The usage problems `desiredFor(flags)` reports, one entry per problem; [] when the flags are valid. */
function problemsOf(flags: ClusterCreateFlags): UsageError[] {
  try {
    desiredFor(flags)
  } catch (error) {
    if (error instanceof UsageErrors) return [...error.problems]
    if (error instanceof UsageError) return [error]
    throw error
  }
  return []
}

describe('desiredClusterFromFlags defaults', () => {
  it('creates one slice, a regional cluster in the zone, and the e2-standard-16 x6 default pool', () => {
    const desired = desiredFor()
    expect(desired.poolCount).toBe(1)
    expect(desired.reservations).toEqual([])
    expect(desired.accelerator.name).toBe('v5p-16')
    expect(desired.spec).toEqual({
      name: 'demo',
      project: 'test-project',
      region: 'us-central2',
      zone: 'us-central2-b',
      releaseChannel: 'RAPID',
      version: null,
      autoUpgrade: true,
      defaultPool: {
        machineType: 'e2-standard-16',
        nodeCount: 6,
        minNodes: 1,
        maxNodes: 1000,
        locationPolicy: 'BALANCED',
        autoRepair: true,
        oauthScopes: [SCOPES.storageFull, ...SCOPES.gkeDefault],
      },
      networking: {ipAliases: true, dataplaneV2: true, multiNetworking: true},
      autoscalingProfile: 'OPTIMIZE_UTILIZATION',
      network: null,
      subnetwork: null,
      private: null,
      dnsEndpoint: true,
      labels: {gke_product_type: 'xpk'},
      csiDrivers: [],
      lustreLegacyPort: false,
      workloadPool: null,
      autoprovisioning: null,
      custom: {},
    })
  })

  it('uses the documented default constants', () => {
    expect(CLUSTER_DEFAULTS).toEqual({
      numSlices: 1,
      gpuNumNodes: 2,
      defaultPoolCpuMachineType: 'e2-standard-16',
      defaultPoolCpuNumNodes: 6,
      multiHostTpuMaxPodsPerNode: 15,
      pathwaysGceMachineType: 'n2-standard-64',
    })
  })

  it('gives GPU pools 2 nodes unless --num-nodes says otherwise', () => {
    expect(desiredFor({deviceType: 'h100-80gb-8'}).poolTemplate.nodeCount).toBe(2)
    expect(desiredFor({deviceType: 'h100-80gb-8', numNodes: 5}).poolTemplate.nodeCount).toBe(5)
  })

  // Python xpk: --scopes=storage-full,gke-default unless the type is a GPU, where gcloud's default (gke-default)
  // applies. The API has no default, so each set is spelled out.
  it.each<{flags: ClusterCreateFlags; scopes: readonly string[]}>([
    {flags: {deviceType: 'a100-40gb-8'}, scopes: SCOPES.gkeDefault},
    {flags: {deviceType: 'l4-4'}, scopes: SCOPES.gkeDefault},
    {flags: {deviceType: 'h100-mega-80gb-8'}, scopes: SCOPES.gkeDefault},
    {flags: {deviceType: 'gb200-4'}, scopes: SCOPES.gkeDefault},
    {flags: {tpuType: 'v5p-16'}, scopes: [SCOPES.storageFull, ...SCOPES.gkeDefault]},
    {flags: {tpuType: 'tpu7x-8'}, scopes: [SCOPES.storageFull, ...SCOPES.gkeDefault]},
    {flags: {deviceType: 'n2-standard-32-4'}, scopes: [SCOPES.storageFull, ...SCOPES.gkeDefault]},
  ])('default pool scopes for $flags', ({flags, scopes}) => {
    expect(desiredFor(flags).spec.defaultPool.oauthScopes).toEqual(scopes)
  })

  it('gke-default is the six scopes gcloud expands it to', () => {
    expect([...SCOPES.gkeDefault].sort()).toEqual(
      [
        'devstorage.read_only',
        'logging.write',
        'monitoring',
        'service.management.readonly',
        'servicecontrol',
        'trace.append',
      ].map((scope) => `https://www.googleapis.com/auth/${scope}`),
    )
  })

  it('takes the default pool machine type and size from the flags', () => {
    const pool = desiredFor({defaultPoolCpuMachineType: 'n2-standard-8', defaultPoolCpuNumNodes: 3}).spec.defaultPool
    expect(pool).toMatchObject({machineType: 'n2-standard-8', nodeCount: 3, minNodes: 1, maxNodes: 1000})
  })

  it.each([
    {
      case: 'no --gke-version: RAPID, channel default, auto-upgrade',
      gkeVersion: undefined,
      channel: 'RAPID',
      upgrade: true,
    },
    {
      case: 'pinned full version: REGULAR, no auto-upgrade',
      gkeVersion: '1.35.1-gke.1000000',
      channel: 'REGULAR',
      upgrade: false,
    },
    {case: 'pinned minor: REGULAR, no auto-upgrade', gkeVersion: '1.35', channel: 'REGULAR', upgrade: false},
  ])('release channel, $case', ({gkeVersion, channel, upgrade}) => {
    const spec = desiredFor({gkeVersion}).spec
    expect(spec.releaseChannel).toBe(channel)
    expect(spec.autoUpgrade).toBe(upgrade)
    expect(spec.version).toBe(gkeVersion ?? null)
  })

  it('passes --network and --subnetwork through', () => {
    const spec = desiredFor({network: 'projects/test-project/global/networks/my-net', subnetwork: 'my-subnet'}).spec
    expect(spec.network).toBe('projects/test-project/global/networks/my-net')
    expect(spec.subnetwork).toBe('my-subnet')
  })
})

describe('desiredClusterFromFlags node pool template', () => {
  const base: Omit<NodePoolTemplate, 'machineType' | 'nodeCount' | 'tpuTopology' | 'placementPolicy'> = {
    capacity: 'spot',
    gpu: null,
    locations: ['us-central2-b'],
    oauthScopes: FULL_SCOPES,
    maxPodsPerNode: null,
    gvnic: true,
    acceleratorNetworkProfile: null,
    labels: {},
    flexMaxNodes: null,
    autoscalingLocationPolicy: null,
    management: {autoRepair: true, autoUpgrade: true},
    queuedProvisioning: false,
    version: null,
    workloadMetadataMode: null,
    custom: {},
    hostMaintenanceInterval: 'AS_NEEDED',
  }

  it.each<{case: string; flags: ClusterCreateFlags; poolCount: number; template: NodePoolTemplate}>([
    {
      case: 'multi-host TPU v5p-16: compact placement with topology, 15 pods per node',
      flags: {tpuType: 'v5p-16', numSlices: 2},
      poolCount: 2,
      template: {
        ...base,
        machineType: 'ct5p-hightpu-4t',
        nodeCount: 2,
        tpuTopology: '2x2x2',
        placementPolicy: {type: 'compact', tpuTopology: '2x2x2'},
        maxPodsPerNode: 15,
      },
    },
    {
      case: 'single-host TPU v5p-8: no placement, no pod limit',
      flags: {tpuType: 'v5p-8'},
      poolCount: 1,
      template: {...base, machineType: 'ct5p-hightpu-4t', nodeCount: 1, tpuTopology: '2x2x1', placementPolicy: null},
    },
    {
      case: 'multi-host tpu7x-16: workload policy instead of compact placement',
      flags: {tpuType: 'tpu7x-16'},
      poolCount: 1,
      template: {
        ...base,
        machineType: 'tpu7x-standard-4t',
        nodeCount: 2,
        tpuTopology: '2x2x2',
        placementPolicy: {type: 'workload-policy', name: 'tpu7x-16-2x2x2-placement-policy', topology: '2x2x2'},
        maxPodsPerNode: 15,
      },
    },
    {
      case: 'single-host tpu7x-8: no workload policy',
      flags: {tpuType: 'tpu7x-8'},
      poolCount: 1,
      template: {...base, machineType: 'tpu7x-standard-4t', nodeCount: 1, tpuTopology: '2x2x1', placementPolicy: null},
    },
    {
      case: 'multi-host v6e-16: accelerator network profile and the DRA label',
      flags: {tpuType: 'v6e-16'},
      poolCount: 1,
      template: {
        ...base,
        machineType: 'ct6e-standard-4t',
        nodeCount: 4,
        tpuTopology: '4x4',
        placementPolicy: {type: 'compact', tpuTopology: '4x4'},
        maxPodsPerNode: 15,
        acceleratorNetworkProfile: 'auto',
        labels: DRA_LABEL,
      },
    },
    {
      case: 'gb200-4: workload policy for the 1x72 NVL domain, one pool',
      flags: {deviceType: 'gb200-4', numSlices: 1, reservation: 'gb-res'},
      poolCount: 1,
      template: {
        ...base,
        capacity: 'reservation',
        machineType: 'a4x-highgpu-4g',
        nodeCount: 2,
        tpuTopology: null,
        placementPolicy: {type: 'workload-policy', name: 'gb200-4-1x72-placement-policy', topology: '1x72'},
        gpu: {type: 'nvidia-gb200', count: 4, driverVersion: 'LATEST'},
        oauthScopes: [SCOPES.cloudPlatform],
        acceleratorNetworkProfile: 'auto',
        labels: DRA_LABEL,
      },
    },
    {
      case: 'gb200-4-nolssd: an alias, so the policy carries the canonical name',
      flags: {deviceType: 'gb200-4-nolssd', onDemand: true},
      poolCount: 1,
      template: {
        ...base,
        capacity: 'on-demand',
        machineType: 'a4x-highgpu-4g-nolssd',
        nodeCount: 2,
        tpuTopology: null,
        placementPolicy: {type: 'workload-policy', name: 'gb200-4-1x72-placement-policy', topology: '1x72'},
        gpu: {type: 'nvidia-gb200', count: 4, driverVersion: 'LATEST'},
        oauthScopes: [SCOPES.cloudPlatform],
        acceleratorNetworkProfile: 'auto',
        labels: DRA_LABEL,
      },
    },
    {
      case: "h100-80gb-8: accelerator type and count, cloud-platform scope only, NICs on the cluster's four GPU networks",
      flags: {deviceType: 'h100-80gb-8', numNodes: 4},
      poolCount: 1,
      template: {
        ...base,
        machineType: 'a3-highgpu-8g',
        nodeCount: 4,
        tpuTopology: null,
        placementPolicy: null,
        gpu: {type: 'nvidia-h100-80gb', count: 8, driverVersion: 'LATEST'},
        oauthScopes: [SCOPES.cloudPlatform],
        acceleratorNetworkProfile: 'auto',
        additionalNodeNetworks: [1, 2, 3, 4].map((i) => ({
          network: `demo-net-${i}`,
          subnetwork: `demo-us-central2-sub-${i}`,
        })),
        labels: DRA_LABEL,
      },
    },
    {
      case: 'l4-1: a GPU without the accelerator network profile',
      flags: {deviceType: 'l4-1'},
      poolCount: 1,
      template: {
        ...base,
        machineType: 'g2-standard-12',
        nodeCount: 2,
        tpuTopology: null,
        placementPolicy: null,
        gpu: {type: 'nvidia-l4', count: 1, driverVersion: 'LATEST'},
        oauthScopes: [SCOPES.cloudPlatform],
      },
    },
    {
      case: 'CPU n2-standard-32-4: 4 nodes per slice, one pool per slice',
      flags: {deviceType: 'n2-standard-32-4', numSlices: 3},
      poolCount: 3,
      template: {...base, machineType: 'n2-standard-32', nodeCount: 4, tpuTopology: null, placementPolicy: null},
    },
  ])('$case', ({flags, poolCount, template}) => {
    const desired = desiredFor(flags)
    expect(desired.poolCount).toBe(poolCount)
    expect(desired.poolTemplate).toEqual(template)
  })

  it('refuses (exit 2, naming --cluster) a cluster name that makes an A3 High GPU subnetwork name longer than 63', () => {
    const name = 'a'.repeat(35)
    const thrown = (() => {
      try {
        desiredFor({deviceType: 'h100-80gb-8', cluster: name, zone: 'northamerica-northeast1-a'})
      } catch (error) {
        return error as {exitCode: number; message: string; flag?: string}
      }
      return undefined
    })()
    expect(thrown?.exitCode).toBe(2)
    expect(thrown?.message).toContain(
      `${name}-northamerica-northeast1-sub-1 is 65 characters long; Compute Engine allows 63`,
    )
    // The same name is fine for a type without GPU networks, and for A3 Ultra, whose names are shorter.
    expect(
      desiredFor({deviceType: 'gb200-4', cluster: name, zone: 'northamerica-northeast1-a'}).gpuNetworks,
    ).toBeUndefined()
    expect(
      desiredFor({deviceType: 'h200-141gb-8', cluster: name, zone: 'northamerica-northeast1-a'}).gpuNetworks,
    ).toHaveLength(9)
  })

  it("refuses an A3 Mega cluster name whose firewall rule names (Cluster Toolkit's) pass 63 characters", () => {
    // <cluster>-gpunet-<i>-fw-allow-internal-traffic: 35 characters after the name, so 28 is the longest name.
    expect(desiredFor({deviceType: 'h100-mega-80gb-8', cluster: 'a'.repeat(28)}).gpuNetworks).toHaveLength(8)
    expect(() => desiredFor({deviceType: 'h100-mega-80gb-8', cluster: 'a'.repeat(29)})).toThrow(
      /gpunet-0-fw-allow-internal-traffic is 64 characters long; Compute Engine allows 63/,
    )
  })

  it.each<{case: string; flags: ClusterCreateFlags; flexMaxNodes: number; queued: boolean; poolCount: number}>([
    {
      case: 'multi-host TPU scales to one slice',
      flags: {tpuType: 'v5p-16'},
      flexMaxNodes: 2,
      queued: false,
      poolCount: 1,
    },
    {case: 'TPU multislice', flags: {tpuType: 'v6e-16', numSlices: 4}, flexMaxNodes: 4, queued: false, poolCount: 4},
    {
      case: 'single-slice GPU queues',
      flags: {deviceType: 'h100-80gb-8'},
      flexMaxNodes: 1000,
      queued: true,
      poolCount: 1,
    },
    {case: 'CPU', flags: {deviceType: 'n2-standard-32-4'}, flexMaxNodes: 1000, queued: false, poolCount: 1},
  ])('--flex, $case: 0 nodes, autoscaling up to $flexMaxNodes', ({flags, flexMaxNodes, queued, poolCount}) => {
    const desired = desiredFor({...flags, flex: true})
    expect(desired.poolCount).toBe(poolCount)
    expect(desired.poolTemplate).toMatchObject({
      capacity: 'flex',
      nodeCount: 0,
      flexMaxNodes,
      queuedProvisioning: queued,
    })
  })

  it.each<{case: string; flags: ClusterCreateFlags; capacity: string}>([
    {case: '--on-demand', flags: {onDemand: true}, capacity: 'on-demand'},
    {case: '--spot', flags: {spot: true}, capacity: 'spot'},
    {case: '--reservation', flags: {reservation: 'r1'}, capacity: 'reservation'},
    {case: '--flex', flags: {flex: true}, capacity: 'flex'},
    {case: '--spot with --on-demand=false', flags: {spot: true, onDemand: false}, capacity: 'spot'},
  ])('capacity from $case', ({flags, capacity}) => {
    expect(desiredFor(flags).poolTemplate.capacity).toBe(capacity)
  })

  it.each([
    {case: 'multi-host TPU', tpuType: 'v5p-16', want: 32},
    {case: 'single-host TPU', tpuType: 'v5p-8', want: 32},
  ])('--max-pods-per-node wins over the default on $case', ({tpuType, want}) => {
    expect(desiredFor({tpuType, maxPodsPerNode: want}).poolTemplate.maxPodsPerNode).toBe(want)
  })

  it('merges --custom-tpu-nodepool-arguments after --custom-nodepool-arguments for multi-host TPUs', () => {
    const template = desiredFor({
      tpuType: 'v6e-16',
      customNodepoolArguments: '--node-labels=team=ml,tier=a --disk-size=200 --no-enable-gvnic',
      customTpuNodepoolArguments: '--node-labels=tier=b --max-pods-per-node=40 --disk-size 500GB',
    }).poolTemplate
    expect(template.custom).toEqual({
      labels: {team: 'ml', tier: 'b'},
      diskSizeGb: 500,
      gvnic: false,
      maxPodsPerNode: 40,
    })
    expect(template.labels).toEqual({...DRA_LABEL, team: 'ml', tier: 'b'})
    expect(template.maxPodsPerNode).toBe(40)
    expect(template.gvnic).toBe(false)
  })

  it('lets --max-pods-per-node win over a custom --max-pods-per-node', () => {
    const template = desiredFor({maxPodsPerNode: 64, customNodepoolArguments: '--max-pods-per-node=40'}).poolTemplate
    expect(template.maxPodsPerNode).toBe(64)
  })

  it.each([
    {case: 'single-host TPU', flags: {tpuType: 'v5p-8'}},
    {case: 'GPU', flags: {deviceType: 'l4-1'}},
    {case: 'CPU', flags: {deviceType: 'n2-standard-32-4'}},
  ])('ignores --custom-tpu-nodepool-arguments on a $case', ({flags}) => {
    const template = desiredFor({
      ...flags,
      customNodepoolArguments: '--disk-type=pd-ssd',
      customTpuNodepoolArguments: '--disk-type=hyperdisk-balanced --node-labels=a=b',
    }).poolTemplate
    expect(template.custom).toEqual({diskType: 'pd-ssd'})
    expect(template.labels).toEqual({})
  })

  it('names workload policies <canonical>-<topology>-placement-policy', () => {
    expect(placementPolicyName(findAccelerator('tpu7x-4x4x4')!)).toBe('tpu7x-128-4x4x4-placement-policy')
    expect(placementPolicyName(findAccelerator('gb200-4')!)).toBe('gb200-4-1x72-placement-policy')
  })

  // Workloads select these nodes by the same name (manifests/jobset.ts), so it must follow from the type alone.
  it.each<[string, string | null]>([
    ['tpu7x-16', 'tpu7x-16-2x2x2-placement-policy'],
    ['tpu7x-4x4x4', 'tpu7x-128-4x4x4-placement-policy'],
    ['tpu7-16', 'tpu7-16-2x2x2-placement-policy'],
    ['gb200-4', 'gb200-4-1x72-placement-policy'],
    ['gb200-4-nolssd', 'gb200-4-1x72-placement-policy'],
    ['tpu7x-8', null],
    ['v5p-16', null],
    ['h100-80gb-8', null],
    ['n2-standard-32-4', null],
  ])('workloadPolicyName(%s) = %s', (type, name) => {
    expect(workloadPolicyName(findAccelerator(type)!)).toBe(name)
  })
})

describe('desiredClusterFromFlags CSI drivers and Workload Identity', () => {
  const GKE = 'GKE_METADATA'
  it.each<{
    case: string
    flags: ClusterCreateFlags
    drivers: readonly string[]
    legacy: boolean
    pool: string | null
    mode: string | null
    identityWhy: string | null
  }>([
    {case: 'none asked', flags: {}, drivers: [], legacy: false, pool: null, mode: null, identityWhy: null},
    {
      case: 'Workload Identity alone',
      flags: {enableWorkloadIdentity: true},
      drivers: [],
      legacy: false,
      pool: 'test-project.svc.id.goog',
      mode: GKE,
      identityWhy: '--enable-workload-identity',
    },
    {
      case: 'GCS FUSE implies Workload Identity, as in Python xpk',
      flags: {enableGcsfuseCsiDriver: true},
      drivers: ['GcsFuseCsiDriver'],
      legacy: false,
      pool: 'test-project.svc.id.goog',
      mode: GKE,
      identityWhy: 'GCS FUSE needs it: --enable-gcsfuse-csi-driver',
    },
    {
      case: 'both: the flag that asks for it is named',
      flags: {enableGcsfuseCsiDriver: true, enableWorkloadIdentity: true},
      drivers: ['GcsFuseCsiDriver'],
      legacy: false,
      pool: 'test-project.svc.id.goog',
      mode: GKE,
      identityWhy: '--enable-workload-identity',
    },
    {
      case: 'every other driver, in Python xpk order, without Workload Identity',
      flags: {
        enableLustreCsiDriver: true,
        enablePdCsiDriver: true,
        enableParallelstoreCsiDriver: true,
        enableGcpfilestoreCsiDriver: true,
      },
      drivers: ['GcpFilestoreCsiDriver', 'ParallelstoreCsiDriver', 'GcePersistentDiskCsiDriver', 'LustreCsiDriver'],
      legacy: false,
      pool: null,
      mode: null,
      identityWhy: null,
    },
    {
      case: 'Lustre on its legacy port',
      flags: {enableLustreCsiDriver: true, enableLegacyLustrePort: true},
      drivers: ['LustreCsiDriver'],
      legacy: true,
      pool: null,
      mode: null,
      identityWhy: null,
    },
    {
      case: 'a custom --workload-metadata wins, as it comes last on Python xpk’s command line',
      flags: {enableWorkloadIdentity: true, customNodepoolArguments: '--workload-metadata=GCE_METADATA'},
      drivers: [],
      legacy: false,
      pool: 'test-project.svc.id.goog',
      mode: 'GCE_METADATA',
      identityWhy: '--enable-workload-identity',
    },
  ])('$case', ({flags, drivers, legacy, pool, mode, identityWhy}) => {
    const desired = desiredFor(flags)
    expect(desired.spec.csiDrivers).toEqual(drivers)
    expect(desired.needs.csiDrivers.map((n) => n.driver)).toEqual(drivers)
    expect(desired.spec.lustreLegacyPort).toBe(legacy)
    expect(desired.needs.lustreLegacyPort !== null).toBe(legacy)
    expect(desired.spec.workloadPool).toBe(pool)
    expect(desired.poolTemplate.workloadMetadataMode).toBe(mode)
    expect(desired.needs.workloadIdentity?.why ?? null).toBe(identityWhy)
  })

  it('names the flag that asks for each driver', () => {
    const needs = desiredFor({enableGcpfilestoreCsiDriver: true, enablePdCsiDriver: true}).needs.csiDrivers
    expect(needs).toEqual([
      {driver: 'GcpFilestoreCsiDriver', why: '--enable-gcpfilestore-csi-driver'},
      {driver: 'GcePersistentDiskCsiDriver', why: '--enable-pd-csi-driver'},
    ])
  })
})

describe('desiredClusterFromFlags reservations', () => {
  it.each([
    {case: 'bare name', item: 'my-res', path: 'my-res'},
    {case: 'same project path -> bare name', item: 'projects/test-project/reservations/my-res', path: 'my-res'},
    {
      case: 'other project path kept',
      item: 'projects/other-project/reservations/my-res',
      path: 'projects/other-project/reservations/my-res',
    },
    {case: 'block of a bare name', item: 'my-res/reservationBlocks/block-1', path: 'my-res/reservationBlocks/block-1'},
    {
      case: 'sub-block in the same project -> relative path',
      item: 'projects/test-project/reservations/my-res/reservationBlocks/b1/reservationSubBlocks/sb-2',
      path: 'my-res/reservationBlocks/b1/reservationSubBlocks/sb-2',
    },
    {
      case: 'block in another project',
      item: 'projects/other-project/reservations/my-res/reservationBlocks/b1',
      path: 'projects/other-project/reservations/my-res/reservationBlocks/b1',
    },
  ])('reservationPath: $case', ({item, path}) => {
    expect(reservationPath(item, 'test-project')).toBe(path)
    expect(desiredFor({reservation: item}).reservations).toEqual([path])
  })

  it.each([
    {case: 'uppercase', item: 'My-Res'},
    {case: 'underscore', item: 'my_res'},
    {case: 'empty', item: ''},
    {case: 'starts with a digit', item: '1res'},
    {case: 'ends with a hyphen', item: 'res-'},
    {case: 'project too short', item: 'projects/abc/reservations/r1'},
    {case: 'missing reservations segment', item: 'projects/other-project/r1'},
    {case: 'sub-block without block', item: 'r1/reservationSubBlocks/sb1'},
    {case: 'trailing slash', item: 'r1/'},
  ])('reservationPath rejects $case', ({item}) => {
    expect(reservationPath(item, 'test-project')).toBeUndefined()
    const problems = problemsOf({reservation: item})
    expect(problems.map((p) => p.flag)).toEqual(['--reservation'])
    expect(problems[0].message).toContain(`"${item}"`)
  })

  it('splits a comma list and drops duplicates, keeping the order given', () => {
    const desired = desiredFor({reservation: 'r2,projects/test-project/reservations/r1,r2,r1'})
    expect(desired.reservations).toEqual(['r2', 'r1'])
    expect(desired.poolTemplate.capacity).toBe('reservation')
  })

  // Issue 17: the rule every list follows (src/core/input.ts): nothing is trimmed or skipped.
  it.each([
    ['r2, r1', 'has an item with white space around it'],
    ['r1,,r2', 'has an empty item'],
    ['r1,', 'has an empty item'],
  ])('refuses %j: it %s', (reservation, problem) => {
    expect(problemsOf({reservation}).map((p) => [p.flag, p.message])).toEqual([
      ['--reservation', expect.stringContaining(problem)],
    ])
  })

  it('reports every malformed item of a list', () => {
    expect(problemsOf({reservation: 'ok-res,Bad,also_bad'}).map((p) => p.message)).toEqual([
      expect.stringContaining('"Bad"'),
      expect.stringContaining('"also_bad"'),
    ])
  })
})

describe('desiredClusterFromFlags private clusters', () => {
  const publicSpec = {
    enablePrivateNodes: true,
    enablePrivateEndpoint: false,
    privateEndpointSubnetwork: null,
    masterGlobalAccess: false,
    authorizedNetworks: [],
  }
  it.each<{case: string; flags: ClusterCreateFlags; private: object | null; dnsEndpoint: boolean}>([
    {case: 'no private flags: public', flags: {}, private: null, dnsEndpoint: true},
    {case: '--private', flags: {private: true}, private: publicSpec, dnsEndpoint: true},
    {case: '--private=false stays public', flags: {private: false}, private: null, dnsEndpoint: true},
    {
      case: '--authorized-networks implies private',
      flags: {authorizedNetworks: ['203.0.113.0/24', '10.0.0.0/8']},
      private: {...publicSpec, authorizedNetworks: ['203.0.113.0/24', '10.0.0.0/8']},
      dnsEndpoint: true,
    },
    {
      case: 'empty --authorized-networks stays public',
      flags: {authorizedNetworks: []},
      private: null,
      dnsEndpoint: true,
    },
    {
      case: '--private --enable-private-endpoint turns off the DNS endpoint',
      flags: {private: true, enablePrivateEndpoint: true},
      private: {...publicSpec, enablePrivateEndpoint: true},
      dnsEndpoint: false,
    },
    {
      case: '--private --private-endpoint-subnetwork implies a private endpoint',
      flags: {private: true, privateEndpointSubnetwork: 'cp-subnet'},
      private: {...publicSpec, enablePrivateEndpoint: true, privateEndpointSubnetwork: 'cp-subnet'},
      dnsEndpoint: false,
    },
    {
      case: '--enable-master-global-access implies private',
      flags: {enableMasterGlobalAccess: true},
      private: {...publicSpec, masterGlobalAccess: true},
      dnsEndpoint: true,
    },
  ])('$case', ({flags, private: expected, dnsEndpoint}) => {
    const spec = desiredFor(flags).spec
    expect(spec.private).toEqual(expected)
    expect(spec.dnsEndpoint).toBe(dnsEndpoint)
  })
})

describe('desiredClusterFromFlags usage errors', () => {
  it.each<{case: string; flags: ClusterCreateFlags; flag: string | undefined; message: RegExp}>([
    {case: 'missing cluster', flags: {cluster: undefined}, flag: '--cluster', message: /Missing --cluster/},
    {
      case: 'ray on a GPU type',
      flags: {rayVersion: '2.38.0', tpuType: undefined, deviceType: 'h100-80gb-8'},
      flag: '--device-type',
      message: /RayCluster of TPU workers, and h100-80gb-8 is a GPU type/,
    },
    {
      case: 'ray version not a release',
      flags: {rayVersion: 'latest'},
      flag: '--ray-version',
      message: /"latest" is not a Ray release/,
    },
    {
      case: 'ray version with a suffix',
      flags: {rayVersion: '2.38.0-py310'},
      flag: '--ray-version',
      message: /not a Ray release/,
    },
    {
      case: 'cluster with uppercase',
      flags: {cluster: 'Demo'},
      flag: '--cluster',
      message: /--cluster "Demo": use lowercase/,
    },
    {case: 'cluster too long', flags: {cluster: 'a'.repeat(41)}, flag: '--cluster', message: /41 characters long/},
    {case: 'missing project', flags: {project: undefined}, flag: '--project', message: /Missing --project/},
    {
      case: 'bad project',
      flags: {project: 'My_Project'},
      flag: '--project',
      message: /"My_Project": a project ID is 6-30 lowercase letters/,
    },
    {case: 'missing zone', flags: {zone: undefined}, flag: '--zone', message: /Missing --zone/},
    {
      case: 'region as zone',
      flags: {zone: 'us-central2'},
      flag: '--zone',
      message: /"us-central2": a zone looks like us-central2-b/,
    },
    {case: 'no accelerator', flags: {tpuType: undefined}, flag: '--tpu-type', message: /No accelerator type given/},
    {case: 'unknown TPU', flags: {tpuType: 'v5p-7'}, flag: '--tpu-type', message: /unknown accelerator type/},
    {case: 'GPU as --tpu-type', flags: {tpuType: 'h100-80gb-8'}, flag: '--tpu-type', message: /is a GPU, not a TPU/},
    {case: 'unknown device', flags: {deviceType: 'h100-80gb-9'}, flag: '--device-type', message: /unknown accelerator/},
    {
      case: 'negative slices',
      flags: {numSlices: -1},
      flag: '--num-slices',
      message: /-1 is out of range: use a whole number from 0 to 1000/,
    },
    {
      case: 'too many slices',
      flags: {numSlices: 1001},
      flag: '--num-slices',
      message: /1001 is out of range: use a whole number from 0 to 1000/,
    },
    {
      case: 'GPU with slices',
      flags: {deviceType: 'h100-80gb-8', numSlices: 2},
      flag: '--num-slices',
      message: /GPU cluster has one pool/,
    },
    {
      case: 'cluster name too long for its pools',
      flags: {cluster: 'a'.repeat(36), numSlices: 11},
      flag: '--cluster',
      message: /named a{36}-np-10 and GKE allows 40/,
    },
    {case: 'fractional slices', flags: {numSlices: 1.5}, flag: '--num-slices', message: /"1.5" is not a whole number/},
    {
      case: 'zero GPU nodes',
      flags: {deviceType: 'h100-80gb-8', numNodes: 0},
      flag: '--num-nodes',
      message: /0 is out of range: use a whole number from 1 to 1000/,
    },
    {
      case: '--num-nodes on a TPU',
      flags: {tpuType: 'v5p-16', numNodes: 2},
      flag: '--num-nodes',
      message: /applies to GPU types; v5p-16 has 2 VM\(s\) per slice/,
    },
    {case: 'no capacity flag', flags: {spot: undefined}, flag: '--on-demand', message: /Say how to get the VMs/},
    {case: 'capacity flags all false', flags: {spot: false, flex: false}, flag: '--on-demand', message: /--spot/},
    {
      case: 'two capacity flags',
      flags: {spot: true, flex: true},
      flag: '--spot',
      message: /Pick one capacity flag, not --spot and --flex/,
    },
    {
      case: 'three capacity flags',
      flags: {onDemand: true, reservation: 'r1', flex: true},
      flag: '--on-demand',
      message: /not --on-demand and --reservation and --flex/,
    },
    {case: 'malformed reservation', flags: {reservation: 'R1'}, flag: '--reservation', message: /"R1": expected NAME/},
    {case: 'bad GKE version', flags: {gkeVersion: 'latest'}, flag: '--gke-version', message: /"latest" is not a GKE/},
    {
      case: 'GKE version without build',
      flags: {gkeVersion: '1.35.1-gke'},
      flag: '--gke-version',
      message: /1\.35\.1-gke/,
    },
    {
      case: 'bad default pool machine type',
      flags: {defaultPoolCpuMachineType: 'E2_STANDARD'},
      flag: '--default-pool-cpu-machine-type',
      message: /"E2_STANDARD" is not a machine type/,
    },
    {
      case: 'default pool of 0 nodes',
      flags: {defaultPoolCpuNumNodes: 0},
      flag: '--default-pool-cpu-num-nodes',
      message: /0 is out of range: use a whole number from 1 to 1000/,
    },
    {
      case: 'default pool of 1001 nodes',
      flags: {defaultPoolCpuNumNodes: 1001},
      flag: '--default-pool-cpu-num-nodes',
      message: /1001 is out of range: use a whole number from 1 to 1000/,
    },
    {case: 'bad network', flags: {network: 'My_Net'}, flag: '--network', message: /"My_Net" is not a network/},
    {
      case: 'bad subnetwork path',
      flags: {subnetwork: 'projects/p/regions/r/subnetworks/Sub_1'},
      flag: '--subnetwork',
      message: /is not a network resource name/,
    },
    {
      case: 'CIDR prefix too long',
      flags: {authorizedNetworks: ['10.0.0.0/33']},
      flag: '--authorized-networks',
      message: /"10\.0\.0\.0\/33" is not an IPv4 CIDR/,
    },
    {
      case: 'CIDR octet too big',
      flags: {authorizedNetworks: ['256.0.0.0/8']},
      flag: '--authorized-networks',
      message: /256\.0\.0\.0\/8/,
    },
    {
      case: 'address without prefix',
      flags: {authorizedNetworks: ['203.0.113.7']},
      flag: '--authorized-networks',
      message: /203\.0\.113\.7/,
    },
    {
      case: 'too few pods',
      flags: {maxPodsPerNode: 7},
      flag: '--max-pods-per-node',
      message: /7 is out of range: use a whole number from 8 to 256/,
    },
    {case: 'too many pods', flags: {maxPodsPerNode: 257}, flag: '--max-pods-per-node', message: /257 is out of range/},
    {
      case: 'custom node pool argument xpk owns',
      flags: {customNodepoolArguments: '--spot'},
      flag: '--custom-nodepool-arguments',
      message: /--spot: xpk sets this itself/,
    },
    {
      case: 'unknown custom TPU node pool argument',
      flags: {customTpuNodepoolArguments: '--frobnicate=1'},
      flag: '--custom-tpu-nodepool-arguments',
      message: /--frobnicate cannot be mapped/,
    },
    {
      case: 'legacy Lustre port without the Lustre driver',
      flags: {enableLegacyLustrePort: true, enableGcsfuseCsiDriver: true},
      flag: '--enable-legacy-lustre-port',
      message: /sets the port of the Lustre CSI driver, which is not asked for/,
    },
  ])('$case -> one UsageError naming $flag', ({flags, flag, message}) => {
    let thrown: unknown
    try {
      desiredFor(flags)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(UsageError)
    expect(thrown).not.toBeInstanceOf(UsageErrors)
    const error = thrown as UsageError
    expect(error.flag).toBe(flag)
    expect(error.message).toMatch(message)
    expect(error.exitCode).toBe(2)
  })

  it.each([
    {flag: '--cluster', env: 'XPK_CLUSTER', config: 'xpk config set cluster VALUE'},
    {flag: '--project', env: 'XPK_PROJECT', config: 'xpk config set project VALUE'},
    {flag: '--zone', env: 'XPK_ZONE', config: 'xpk config set zone VALUE'},
  ])('a missing $flag says where else it can come from', ({flag, env, config}) => {
    const [problem] = problemsOf({[flag.slice(2)]: undefined})
    expect(problem.hints.join(' ')).toContain(env)
    expect(problem.hints.join(' ')).toContain(config)
  })

  it('collects every problem into one UsageErrors, in flag order', () => {
    let thrown: unknown
    try {
      desiredFor({
        cluster: undefined,
        project: 'X',
        zone: 'nowhere',
        tpuType: 'v5p-7',
        numSlices: -2,
        spot: true,
        onDemand: true,
        gkeVersion: 'newest',
        maxPodsPerNode: 1,
      })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(UsageErrors)
    const errors = thrown as UsageErrors
    expect(errors.problems.map((p) => p.flag)).toEqual([
      '--cluster',
      '--project',
      '--zone',
      '--tpu-type',
      '--num-slices',
      '--on-demand',
      '--gke-version',
      '--max-pods-per-node',
    ])
    expect(errors.message.split('\n')).toEqual(errors.problems.map((p) => p.message))
    expect(errors.hints).toEqual(errors.problems.flatMap((p) => p.hints))
    expect(errors.exitCode).toBe(2)
  })

  it('still reports other problems when the accelerator is unknown', () => {
    expect(problemsOf({tpuType: 'nope', numNodes: 2, authorizedNetworks: ['x']}).map((p) => p.flag)).toEqual([
      '--tpu-type',
      '--authorized-networks',
    ])
  })

  it.each([
    {case: 'TPU', flags: {tpuType: 'v5p-16'}},
    {case: 'GPU', flags: {deviceType: 'h100-80gb-8'}},
    {case: 'CPU', flags: {deviceType: 'n2-standard-32-4'}},
  ])('accepts --num-slices 0 for $case: no pools wanted', ({flags}) => {
    expect(desiredFor({...flags, numSlices: 0}).poolCount).toBe(0)
  })

  it('does not depend on the builder: the raw function reports a missing capacity flag', () => {
    expect(() =>
      desiredClusterFromFlags({project: 'test-project', zone: 'us-central2-b', cluster: 'demo', tpuType: 'v5p-8'}),
    ).toThrow(/Say how to get the VMs/)
  })
})
