import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

import {describe, expect, it} from 'vitest'

import type {ObservedCluster} from '../../../src/core/cluster/observed.js'
import {planCluster, planClusterDelete, type Plan} from '../../../src/core/cluster/plan.js'
import type {ObservedGpuNetworks} from '../../../src/core/cluster/gpu-networks.js'
import {describeNodePool, planToJson, renderPlan, scopeNames} from '../../../src/core/cluster/render-plan.js'
import {SCOPES} from '../../../src/core/cluster/spec.js'
import type {ClusterCreateFlags} from '../../../src/core/cluster/desired.js'
import {aMatchingPool, anObservedCluster, anObservedPool, desiredFor} from '../../builders/observed.js'

// Regenerate with `UPDATE_GOLDENS=1 npx vitest run test/core/cluster/render-plan.test.ts`, then review the diff.
const UPDATE = process.env.UPDATE_GOLDENS === '1'

interface GoldenCase {
  readonly file: string
  /** The `xpk cluster create` flags the case stands for (project, zone and cluster come from the builder). */
  readonly flags: string
  /** What GKE reports before the run. */
  readonly state: string
  readonly plan: () => Plan
}

const v5p16 = desiredFor({numSlices: 2})
const STORAGE_FLAGS =
  '--enable-gcsfuse-csi-driver --enable-gcpfilestore-csi-driver --enable-pd-csi-driver --enable-lustre-csi-driver --enable-legacy-lustre-port'
const withStorage = desiredFor({
  numSlices: 2,
  enableGcsfuseCsiDriver: true,
  enableGcpfilestoreCsiDriver: true,
  enablePdCsiDriver: true,
  enableLustreCsiDriver: true,
  enableLegacyLustrePort: true,
})

const nap = desiredFor({
  tpuType: 'tpu7x-8',
  onDemand: true,
  enableAutoprovisioning: true,
  autoprovisioningMaxChips: '16',
})
/**
 * Python xpk's recipe Cluster_create_super-slicing.md: sub-blocks sub0, sub1 and sub3 of the block have a cube's 16
 * hosts free, sub2 has 1; the service reads them and hands the planner the healthy ones with their room.
 */
const BLOCK = 'golden-reservation/reservationBlocks/block'
const superSlicing = {
  ...desiredFor({tpuType: 'tpu7x-4x4x4', superSlicing: true, numCubes: 3, reservation: BLOCK}),
  poolReservations: ['sub0', 'sub1', 'sub2', 'sub3'].map((s) => `${BLOCK}/reservationSubBlocks/${s}`),
  reservationRoom: new Map(
    Object.entries({sub0: 1, sub1: 1, sub2: 0, sub3: 1}).map(([s, room]) => [
      `${BLOCK}/reservationSubBlocks/${s}`,
      room,
    ]),
  ),
}

/** A3 High (Python's network.py): its four networks, subnetworks and firewall rules; those given exist already. */
const a3High = desiredFor({deviceType: 'h100-80gb-8', numNodes: 2, reservation: 'h100-res'})
function a3HighNetworksRead(existing: number): ObservedGpuNetworks {
  const some = (a3High.gpuNetworks ?? []).slice(0, existing)
  const observe = <T extends {name: string}>(items: T[]) => new Map(items.map((i) => [i.name, i]))
  return {
    networks: observe(
      some.map((n) => ({
        ...n.network,
        autoCreateSubnetworks: false,
        subnetworks: [`us-central2/${n.subnetwork.name}`],
      })),
    ),
    subnetworks: observe(some.map((n) => ({...n.subnetwork}))),
    firewalls: observe(some.flatMap((n) => (n.firewall ? [{...n.firewall, direction: 'INGRESS'}] : []))),
  }
}

const CASES: readonly GoldenCase[] = [
  {
    file: 'fresh-a3-high-h100-80gb-8-networks.txt',
    flags: '--device-type=h100-80gb-8 --num-nodes=2 --reservation=h100-res',
    state: 'no cluster; networks 1 and 2 (with their subnetworks and firewall rules) exist from an interrupted run',
    plan: () => planCluster(a3High, undefined, undefined, a3HighNetworksRead(2)),
  },
  {
    // Python's A3 Ultra blueprint: net-1 with sub-1 and internal-1, the RDMA network (<zone>-vpc-roce) and its 8
    // subnetworks; A4's are the same.
    file: 'fresh-a3-ultra-h200-141gb-8-networks.txt',
    flags: '--device-type=h200-141gb-8 --num-nodes=2 --reservation=h200-res',
    state: 'no cluster, no networks',
    plan: () =>
      planCluster(
        desiredFor({deviceType: 'h200-141gb-8', numNodes: 2, reservation: 'h200-res'}),
        undefined,
        undefined,
        {
          networks: new Map(),
          subnetworks: new Map(),
          firewalls: new Map(),
        },
      ),
  },
  {
    // Python's A3 Mega blueprint (Cluster Toolkit's multivpc): 8 networks, each with its subnetwork and rule.
    file: 'fresh-a3-mega-h100-mega-80gb-8-networks.txt',
    flags: '--device-type=h100-mega-80gb-8 --num-nodes=2 --reservation=mega-res',
    state: 'no cluster, no networks',
    plan: () =>
      planCluster(
        desiredFor({deviceType: 'h100-mega-80gb-8', numNodes: 2, reservation: 'mega-res'}),
        undefined,
        undefined,
        {
          networks: new Map(),
          subnetworks: new Map(),
          firewalls: new Map(),
        },
      ),
  },
  {
    file: 'a3-high-networks-there-pool-without-them.txt',
    flags: '--device-type=h100-80gb-8 --num-nodes=2 --reservation=h100-res',
    state: 'cluster with demo-np-0 made before xpk attached the GPU networks; all four networks exist',
    plan: () =>
      planCluster(
        a3High,
        anObservedCluster({
          nodePools: [aMatchingPool(a3High, 'demo-np-0', {additionalNodeNetworks: undefined})],
        }),
        undefined,
        a3HighNetworksRead(4),
      ),
  },
  {
    file: 'delete-a3-high-with-networks.txt',
    flags: '(the plan of xpk cluster delete)',
    state: 'cluster with demo-np-0; its four networks, subnetworks and firewall rules',
    plan: () =>
      planClusterDelete(
        {project: 'test-project', location: 'us-central2', name: 'demo'},
        anObservedCluster({nodePools: [aMatchingPool(a3High, 'demo-np-0')]}),
        {
          region: 'us-central2',
          networks: [1, 2, 3, 4].map((i) => `demo-net-${i}`),
          subnetworks: [1, 2, 3, 4].map((i) => `demo-us-central2-sub-${i}`),
          firewalls: [1, 2, 3, 4].map((i) => `demo-internal-${i}`),
        },
      ),
  },
  {
    file: 'fresh-v5p-16-2-slices-spot.txt',
    flags: '--tpu-type=v5p-16 --num-slices=2 --spot',
    state: 'no cluster',
    plan: () => planCluster(v5p16, undefined),
  },
  {
    file: 'fresh-gb200-4-flex-private-pinned.txt',
    flags: '--device-type=gb200-4 --num-nodes=4 --flex --private --gke-version=1.35.1-gke.1000000',
    state: 'no cluster',
    plan: () =>
      planCluster(
        desiredFor({deviceType: 'gb200-4', numNodes: 4, flex: true, private: true, gkeVersion: '1.35.1-gke.1000000'}),
        undefined,
      ),
  },
  {
    file: 'resize-mix-with-foreign-pools.txt',
    flags: '--tpu-type=v5p-16 --num-slices=4 --reservation=r1,r2',
    state:
      'np-0 on r1, np-1 ERROR, np-2 spot, np-4 provisioning on r2, np-5 stopping, np-7 on r1, ' +
      'default-pool, demo-gpu',
    plan: () => {
      const desired = desiredFor({numSlices: 4, reservation: 'r1,r2'})
      const cluster: ObservedCluster = anObservedCluster({
        nodePools: [
          anObservedPool({name: 'default-pool', machineType: 'e2-standard-16', nodeCount: 6, tpuTopology: null}),
          aMatchingPool(desired, 'demo-np-0'),
          aMatchingPool(desired, 'demo-np-1', {status: 'ERROR', statusMessage: 'Instance group has no instances'}),
          aMatchingPool(desired, 'demo-np-2', {capacity: 'spot', reservation: null}),
          aMatchingPool(desired, 'demo-np-4', {status: 'PROVISIONING', reservation: 'r2'}),
          aMatchingPool(desired, 'demo-np-5', {status: 'STOPPING'}),
          aMatchingPool(desired, 'demo-np-7'),
          anObservedPool({name: 'demo-gpu', machineType: 'a3-highgpu-8g', tpuTopology: null}),
        ],
      })
      return planCluster(desired, cluster)
    },
  },
  {
    file: 'grow-on-reservations.txt',
    flags: '--tpu-type=v5p-16 --num-slices=4 --reservation=r1,projects/other-project/reservations/r2',
    state: 'np-0 on r1, default-pool',
    plan: () => {
      const desired = desiredFor({numSlices: 4, reservation: 'r1,projects/other-project/reservations/r2'})
      return planCluster(
        desired,
        anObservedCluster({
          nodePools: [anObservedPool({name: 'default-pool', tpuTopology: null}), aMatchingPool(desired, 'demo-np-0')],
        }),
      )
    },
  },
  {
    file: 'type-change-v5p-16-to-v6e-16.txt',
    flags: '--tpu-type=v6e-16 --num-slices=2 --spot',
    state: 'two matching v5p-16 spot pools',
    plan: () =>
      planCluster(
        desiredFor({tpuType: 'v6e-16', numSlices: 2}),
        anObservedCluster({nodePools: [aMatchingPool(v5p16, 'demo-np-0'), aMatchingPool(v5p16, 'demo-np-1')]}),
      ),
  },
  {
    file: 'fresh-tpu7x-128-super-slicing-3-cubes.txt',
    flags: `--tpu-type=tpu7x-4x4x4 --super-slicing --num-cubes=3 --reservation=${BLOCK}`,
    state: 'no cluster; sub-blocks sub0, sub1, sub3 with a cube free, sub2 with 1 of 16 hosts',
    plan: () => planCluster(superSlicing, undefined, 'missing'),
  },
  {
    file: 'fresh-v5p-16-storage-drivers.txt',
    flags: `--tpu-type=v5p-16 --num-slices=2 --spot ${STORAGE_FLAGS}`,
    state: 'no cluster',
    plan: () => planCluster(withStorage, undefined),
  },
  {
    file: 'enable-storage-drivers.txt',
    flags: `--tpu-type=v5p-16 --num-slices=2 --spot ${STORAGE_FLAGS}`,
    state: 'the PD CSI driver only, no Workload Identity; np-0 on GCE_METADATA, default-pool',
    plan: () =>
      planCluster(
        withStorage,
        anObservedCluster({
          csiDrivers: ['GcePersistentDiskCsiDriver'],
          nodePools: [
            anObservedPool({name: 'default-pool', machineType: 'e2-standard-16', tpuTopology: null}),
            aMatchingPool(withStorage, 'demo-np-0', {workloadMetadataMode: 'GCE_METADATA'}),
          ],
        }),
      ),
  },
  {
    file: 'storage-drivers-enabled-already.txt',
    flags: `--tpu-type=v5p-16 --num-slices=2 --spot ${STORAGE_FLAGS}`,
    state: 'every driver (Lustre on its legacy port) and Workload Identity; both pools on GKE_METADATA',
    plan: () =>
      planCluster(
        withStorage,
        anObservedCluster({
          csiDrivers: ['GcsFuseCsiDriver', 'GcpFilestoreCsiDriver', 'GcePersistentDiskCsiDriver', 'LustreCsiDriver'],
          lustreLegacyPort: true,
          workloadPool: 'test-project.svc.id.goog',
          nodePools: [aMatchingPool(withStorage, 'demo-np-0'), aMatchingPool(withStorage, 'demo-np-1')],
        }),
      ),
  },
  {
    file: 'fresh-tpu7x-8-nap.txt',
    flags: '--tpu-type=tpu7x-8 --on-demand --enable-autoprovisioning --autoprovisioning-max-chips=16',
    state: 'no cluster',
    plan: () => planCluster(nap, undefined),
  },
  {
    file: 'enable-nap-existing.txt',
    flags: '--tpu-type=tpu7x-8 --on-demand --enable-autoprovisioning --autoprovisioning-max-chips=16',
    state: 'one matching pool, no node auto-provisioning',
    plan: () => planCluster(nap, anObservedCluster({nodePools: [aMatchingPool(nap, 'demo-np-0')]})),
  },
  {
    file: 'nap-enabled-already.txt',
    flags: '--tpu-type=tpu7x-8 --on-demand --enable-autoprovisioning --autoprovisioning-max-chips=16',
    state: 'one matching pool, node auto-provisioning of tpu7x 0-16 in us-central2-b',
    plan: () =>
      planCluster(
        nap,
        anObservedCluster({
          nodePools: [aMatchingPool(nap, 'demo-np-0')],
          autoprovisioning: {
            resourceLimits: nap.spec.autoprovisioning!.resourceLimits,
            locations: ['us-central2-b'],
          },
        }),
      ),
  },
  {
    file: 'no-changes.txt',
    flags: '--tpu-type=v5p-16 --num-slices=2 --spot',
    state: 'two matching pools',
    plan: () =>
      planCluster(
        v5p16,
        anObservedCluster({nodePools: [aMatchingPool(v5p16, 'demo-np-1'), aMatchingPool(v5p16, 'demo-np-0')]}),
      ),
  },
]

function goldenPath(file: string): string {
  return fileURLToPath(new URL(`../../golden/plans/${file}`, import.meta.url))
}

function render(c: GoldenCase): string {
  return `# xpk cluster create ${c.flags}\n# observed: ${c.state}\n${renderPlan(c.plan())}\n`
}

describe('renderPlan goldens', () => {
  it.each(CASES)('$file matches the renderer', (c) => {
    const path = goldenPath(c.file)
    const actual = render(c)
    if (UPDATE) writeFileSync(path, actual)
    expect(existsSync(path), `${c.file} is missing; run with UPDATE_GOLDENS=1`).toBe(true)
    expect(actual).toBe(readFileSync(path, 'utf8'))
  })
})

describe('plan JSON goldens: every field xpk will send, for review', () => {
  it.each(CASES)('$file (as JSON) matches', (c) => {
    const path = goldenPath(c.file.replace(/\.txt$/, '.json'))
    const actual = `${JSON.stringify(planToJson(c.plan()), null, 2)}\n`
    if (UPDATE) writeFileSync(path, actual)
    expect(existsSync(path), `${path} is missing; run with UPDATE_GOLDENS=1`).toBe(true)
    expect(actual).toBe(readFileSync(path, 'utf8'))
  })
})

describe('renderPlan', () => {
  it('aligns the step columns to the longest name', () => {
    const longest = 'a-much-longer-pool'
    const text = renderPlan(planCluster(v5p16, anObservedCluster({nodePools: [anObservedPool({name: longest})]})))
    const lines = text.split('\n').slice(1, -1)
    expect(lines).toHaveLength(4)
    // "  " + symbol(3) + " " + action(8) + " " + resource(8) + " " + name(padded) + "  " + detail
    const detailAt = 2 + 3 + 1 + 8 + 1 + 8 + 1 + longest.length + 2
    for (const line of lines) {
      expect(line).toMatch(
        /^ {2}(\+ {2}|- {2}|-\/\+|= {2}) (create {2}|delete {2}|recreate|none {4}) (cluster |nodepool) \S/,
      )
      expect(line.slice(detailAt - 2, detailAt)).toBe('  ')
      expect(line[detailAt]).not.toBe(' ')
    }
  })

  it('ends with a summary of changes, or says there are none', () => {
    expect(renderPlan(planCluster(v5p16, undefined)).split('\n').at(-1)).toBe('Summary: 3 to create, 0 unchanged.')
    const unchanged = anObservedCluster({
      nodePools: [aMatchingPool(v5p16, 'demo-np-0'), aMatchingPool(v5p16, 'demo-np-1')],
    })
    expect(renderPlan(planCluster(v5p16, unchanged)).split('\n').at(-1)).toBe(
      'No changes: the cluster already matches.',
    )
  })

  it('opens with the cluster, project and location', () => {
    expect(renderPlan(planCluster(v5p16, undefined)).split('\n')[0]).toBe(
      'Plan for cluster demo (project test-project, us-central2):',
    )
  })
})

describe('describeNodePool', () => {
  const spec = (flags: ClusterCreateFlags, reservation: string | null = null) => ({
    ...desiredFor(flags).poolTemplate,
    name: 'demo-np-0',
    reservation,
  })

  it.each<{case: string; flags: ClusterCreateFlags; reservation?: string; text: string}>([
    {case: 'multi-host TPU, spot', flags: {}, text: 'ct5p-hightpu-4t x2, compact 2x2x2, spot'},
    {
      case: 'single-host TPU, on demand',
      flags: {tpuType: 'v5p-8', onDemand: true},
      text: 'ct5p-hightpu-4t x1, on-demand',
    },
    {
      case: 'TPU on a reservation',
      flags: {reservation: 'r1'},
      reservation: 'r1',
      text: 'ct5p-hightpu-4t x2, compact 2x2x2, reservation r1',
    },
    {
      case: 'tpu7x with a workload policy, flex',
      flags: {tpuType: 'tpu7x-16', flex: true},
      text: 'tpu7x-standard-4t x0, policy tpu7x-16-2x2x2-placement-policy, flex, scales 0-2',
    },
    {
      case: 'GPU with GPU networks (A3 High)',
      flags: {deviceType: 'h100-80gb-8', numNodes: 4},
      text: 'a3-highgpu-8g x4, 8x nvidia-h100-80gb, NICs on demo-net-1, demo-net-2, demo-net-3, demo-net-4, spot',
    },
    {
      case: 'GPU',
      flags: {deviceType: 'a100-40gb-8', numNodes: 4},
      text: 'a2-highgpu-8g x4, 8x nvidia-tesla-a100, spot',
    },
    {case: 'CPU', flags: {deviceType: 'n2-standard-32-4'}, text: 'n2-standard-32 x4, spot'},
  ])('$case', ({flags, reservation, text}) => {
    expect(describeNodePool(spec(flags, reservation ?? null))).toBe(text)
  })
})

describe('planToJson', () => {
  const fresh = planCluster(v5p16, undefined)

  it('keeps project, location and cluster, and gives every step action, resource, name, reason and spec', () => {
    const json = planToJson(fresh)
    expect(json).toMatchObject({project: 'test-project', location: 'us-central2', cluster: 'demo'})
    for (const step of json.steps)
      expect(Object.keys(step).sort()).toEqual(['action', 'name', 'reason', 'resource', 'spec'])
    expect(json.steps.map((s) => [s.action, s.resource, s.name])).toEqual([
      ['create', 'cluster', 'demo'],
      ['create', 'nodePool', 'demo-np-0'],
      ['create', 'nodePool', 'demo-np-1'],
    ])
  })

  it('passes the cluster spec through', () => {
    expect(planToJson(fresh).steps[0].spec).toEqual(v5p16.spec)
  })

  it('gives node pools their spec with the placement as a string', () => {
    expect(planToJson(fresh).steps[1].spec).toMatchObject({
      name: 'demo-np-0',
      machineType: 'ct5p-hightpu-4t',
      nodeCount: 2,
      tpuTopology: '2x2x2',
      capacity: 'spot',
      reservation: null,
      placementPolicy: 'COMPACT',
    })
  })

  it.each<{case: string; flags: ClusterCreateFlags; placement: string | null; topology: string | null}>([
    {case: 'compact TPU', flags: {}, placement: 'COMPACT', topology: '2x2x2'},
    {
      case: 'workload policy',
      flags: {tpuType: 'tpu7x-16'},
      placement: 'tpu7x-16-2x2x2-placement-policy',
      topology: '2x2x2',
    },
    {case: 'GPU without placement', flags: {deviceType: 'h100-80gb-8'}, placement: null, topology: null},
    {case: 'single-host TPU', flags: {tpuType: 'v5p-8'}, placement: null, topology: '2x2x1'},
  ])('placementPolicy for $case: $placement', ({flags, placement, topology}) => {
    const pool = planToJson(planCluster(desiredFor(flags), undefined)).steps.find((s) => s.resource === 'nodePool')
    expect(pool?.spec).toMatchObject({placementPolicy: placement, tpuTopology: topology})
  })

  it.each([
    {state: 'missing' as const, action: 'create', reason: 'does not exist yet'},
    {state: undefined, action: 'create', reason: 'created unless it exists (not looked up offline)'},
    {state: 'exists' as const, action: 'none', reason: 'exists'},
  ])('a workload policy that is $state is a $action step before the pools', ({state, action, reason}) => {
    const steps = planToJson(planCluster(desiredFor({tpuType: 'tpu7x-16', numSlices: 2}), undefined, state)).steps
    expect(steps.map((s) => s.resource)).toEqual(['cluster', 'placementPolicy', 'nodePool', 'nodePool'])
    expect(steps[1]).toEqual({
      action,
      resource: 'placementPolicy',
      name: 'tpu7x-16-2x2x2-placement-policy',
      reason,
      spec:
        action === 'create'
          ? {
              project: 'test-project',
              region: 'us-central2',
              name: 'tpu7x-16-2x2x2-placement-policy',
              acceleratorTopology: '2x2x2',
            }
          : null,
    })
  })

  it('gives the reservation chosen for each new pool', () => {
    const desired = desiredFor({numSlices: 2, reservation: 'r1,r2'})
    const specs = planToJson(planCluster(desired, undefined))
      .steps.slice(1)
      .map((s) => s.spec)
    expect(specs).toMatchObject([
      {capacity: 'reservation', reservation: 'r1'},
      {capacity: 'reservation', reservation: 'r2'},
    ])
  })

  it('has null specs for deletions, foreign pools and an existing cluster', () => {
    const plan = planCluster(
      desiredFor({numSlices: 1}),
      anObservedCluster({
        nodePools: [
          aMatchingPool(v5p16, 'demo-np-0'),
          aMatchingPool(v5p16, 'demo-np-1'),
          anObservedPool({name: 'default-pool'}),
        ],
      }),
    )
    expect(planToJson(plan).steps.map((s) => [s.action, s.name, s.spec === null])).toEqual([
      ['none', 'demo', true],
      ['none', 'demo-np-0', false],
      ['delete', 'demo-np-1', true],
      ['none', 'default-pool', true],
    ])
  })

  it('is plain data: it survives a JSON round trip unchanged', () => {
    const json = planToJson(fresh)
    expect(JSON.parse(JSON.stringify(json))).toEqual(json)
  })

  it('does not change the plan it converts', () => {
    const before = JSON.stringify(fresh)
    planToJson(fresh)
    expect(JSON.stringify(fresh)).toBe(before)
    expect(fresh.steps[1].spec).toMatchObject({placementPolicy: {type: 'compact', tpuTopology: '2x2x2'}})
  })
})

describe('scopeNames', () => {
  it.each<{scopes: readonly string[]; names: string}>([
    {scopes: [SCOPES.storageFull, ...SCOPES.gkeDefault], names: 'storage-full,gke-default'},
    {scopes: SCOPES.gkeDefault, names: 'gke-default'},
    {
      scopes: [SCOPES.storageFull, ...SCOPES.gkeDefault, SCOPES.cloudPlatform],
      names: 'storage-full,gke-default,cloud-platform',
    },
    {scopes: [SCOPES.cloudPlatform], names: 'cloud-platform'},
    {
      scopes: SCOPES.gkeDefault.slice(1),
      names: SCOPES.gkeDefault
        .slice(1)
        .map((s) => s.split('/').at(-1))
        .join(','),
    },
    {scopes: [], names: 'none'},
  ])('$names', ({scopes, names}) => {
    expect(scopeNames(scopes)).toBe(names)
  })

  it('the plan shows the default pool scopes of a new cluster', () => {
    expect(renderPlan(planCluster(desiredFor({deviceType: 'a100-40gb-8'}), undefined))).toContain(
      'default pool e2-standard-16 x6 (scopes gke-default)',
    )
    expect(renderPlan(planCluster(desiredFor(), undefined))).toContain(
      'default pool e2-standard-16 x6 (scopes storage-full,gke-default)',
    )
  })

  it('--json carries the scopes themselves', () => {
    const json = planToJson(planCluster(desiredFor({deviceType: 'a100-40gb-8'}), undefined))
    const cluster = json.steps.find((s) => s.resource === 'cluster')
    expect(cluster?.spec).toMatchObject({defaultPool: {oauthScopes: SCOPES.gkeDefault}})
  })
})
