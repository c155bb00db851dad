// `xpk cluster create --super-slicing --num-cubes N` and `--sub-slicing` in process, over the in-memory GKE and
// Compute ports: Python xpk's rules refused before any read or change (exit 2 naming the flag), each cube placed on a
// healthy sub-block of the reservation with room (listed through the Compute port), a shortage refused with the
// numbers or stated in the plan with --force, the -ss workload policy in PROVISION_ONLY mode, GKE's slice controller,
// and the Kueue objects each asks for in the in-cluster plan.
import {describe, expect, it} from 'vitest'

import {UsageError, UsageErrors} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {createCluster, type ClusterCreateOptions} from '../../src/services/cluster-create.js'
import {MemoryCompute, type BlockSeed, type ReservationSeed} from '../fakes/memory-compute.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const PROJECT = 'test-project'
const ZONE = 'us-central2-b'
const BLOCK = 'golden-reservation/reservationBlocks/block'
const superFlags = {
  cluster: 'demo',
  project: PROJECT,
  zone: ZONE,
  tpuType: 'tpu7x-4x4x4',
  superSlicing: true,
  numCubes: '3',
  reservation: BLOCK,
}
const LOCK = {
  identity: {user: 'tester', host: 'test-host', pid: 4242, boot: '29500000'},
  staleSeconds: 3600,
  alive: () => true,
}
const gkeOnly: ClusterCreateOptions['inCluster'] = {skip: true, xpkVersion: '0.1.0', manifestOverrides: {}}

const sub = (name: string, inUseCount = 0, more: Partial<BlockSeed> = {}) => ({name, count: 16, inUseCount, ...more})
/** A DENSE reservation of tpu7x-standard-4t VMs, as Cluster Director makes them. */
const dense = (blocks: readonly BlockSeed[], more: Partial<ReservationSeed> = {}): ReservationSeed => ({
  project: PROJECT,
  zone: ZONE,
  name: 'golden-reservation',
  specific: {
    machineType: 'tpu7x-standard-4t',
    count: blocks.reduce((n, b) => n + b.count, 0),
    inUseCount: blocks.reduce((n, b) => n + (b.inUseCount ?? 0), 0),
  },
  deploymentType: 'DENSE',
  blocks,
  ...more,
})
const block = (name: string, subBlocks: BlockSeed['subBlocks'] & object): BlockSeed => ({
  name,
  count: subBlocks.reduce((n, s) => n + s.count, 0),
  inUseCount: subBlocks.reduce((n, s) => n + (s.inUseCount ?? 0), 0),
  subBlocks,
})
/** Python xpk's recipe: sub2 has 1 of 16 hosts free. */
const RECIPE = dense([block('block', [sub('sub0'), sub('sub1'), sub('sub2', 15), sub('sub3')])])

function run(
  compute: MemoryCompute,
  flags: ClusterCreateOptions['flags'],
  gke = new MemoryGke(),
  options: Partial<ClusterCreateOptions> = {},
) {
  const console = new RecordingConsole()
  let connected = 0
  const done = createCluster(
    {flags, dryRun: false, offline: false, timing: DEFAULT_TIMING, inCluster: gkeOnly, lock: LOCK, ...options},
    {
      gke: async () => gke,
      compute: async () => (connected++, compute),
      kube: () => Promise.reject(new Error('the cluster was reached with --skip-in-cluster')),
      manifests: {load: () => Promise.reject(new Error('a release manifest was loaded'))},
      console,
      signal: new AbortController().signal,
      ...virtualClock(),
    },
  )
  return {console, done, gke, connected: () => connected}
}

const changes = (gke: MemoryGke) => gke.calls.filter((c) => /^(create|delete|update|set)/.test(c))
async function refusal(promise: Promise<unknown>): Promise<UsageError[]> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(UsageError)
  expect((error as UsageError).exitCode).toBe(2)
  return error instanceof UsageErrors ? [...error.problems] : [error as UsageError]
}
const poolReservations = (steps: readonly {resource: string; name: string; spec: unknown}[]) =>
  steps
    .filter((s) => s.resource === 'nodePool')
    .map((s) => [s.name, (s.spec as {reservation: string | null} | null)?.reservation ?? null])

describe('cluster create --super-slicing / --sub-slicing: refused before anything is read or changed', () => {
  const cases: {name: string; flags: ClusterCreateOptions['flags']; flag: string; message: string}[] = [
    {
      name: 'a type without super-slicing',
      flags: {...superFlags, tpuType: 'tpu7x-2x2x2'},
      flag: '--super-slicing',
      message: '--super-slicing: tpu7x-2x2x2 does not support super-slicing.',
    },
    {
      name: 'a type without sub-slicing',
      flags: {cluster: 'demo', project: PROJECT, zone: ZONE, tpuType: 'v5p-16', subSlicing: true, reservation: 'r'},
      flag: '--sub-slicing',
      message: '--sub-slicing: v5p-16 does not support sub-slicing.',
    },
    {
      name: 'no reservation',
      flags: {...superFlags, reservation: undefined, spot: true},
      flag: '--reservation',
      message: '--super-slicing needs a Cluster Director (DENSE) reservation: add --reservation NAME.',
    },
    {
      name: '--num-cubes without --super-slicing',
      flags: {...superFlags, superSlicing: false},
      flag: '--num-cubes',
      message: '--num-cubes counts the cubes of a super-slicing cluster; it needs --super-slicing.',
    },
    {
      name: '--num-cubes and --num-slices that differ',
      flags: {...superFlags, numSlices: '2'},
      flag: '--num-cubes',
      message: '--num-cubes 3 and --num-slices 2 differ; a cube is one slice.',
    },
    {
      name: 'both kinds of slicing',
      flags: {...superFlags, subSlicing: true},
      flag: '--sub-slicing',
      message: 'Pick one of --sub-slicing and --super-slicing: no type supports both.',
    },
  ]
  it.each(cases)('$name', async ({flags, flag, message}) => {
    const compute = new MemoryCompute().seedReservation(RECIPE)
    for (const dryRun of [false, true]) {
      const {done, gke, connected} = run(compute, flags, new MemoryGke(), {dryRun})
      const problems = await refusal(done)
      expect(problems.find((p) => p.flag === flag)?.message).toBe(message)
      expect(gke.calls).toEqual([])
      expect(connected()).toBe(0)
    }
  })

  it('a reservation that is not DENSE, once read: exit 2 naming --reservation, --force or not', async () => {
    const compute = new MemoryCompute().seedReservation({...RECIPE, deploymentType: 'FLEXIBLE'})
    for (const force of [false, true]) {
      const {done, gke} = run(compute, {...superFlags, force})
      const [problem] = await refusal(done)
      expect(problem!.flag).toBe('--reservation')
      expect(problem!.message).toBe(
        '--reservation: reservation golden-reservation is not a Cluster Director reservation (deployment type FLEXIBLE); --super-slicing needs a DENSE one.',
      )
      expect(problem!.hints.join('\n')).toContain('deploymentType=DENSE')
      expect(changes(gke)).toEqual([])
    }
    const subSlicing = run(compute, {
      cluster: 'demo',
      project: PROJECT,
      zone: ZONE,
      tpuType: 'v6e-4x4',
      subSlicing: true,
      reservation: 'golden-reservation',
    })
    expect((await refusal(subSlicing.done))[0]!.message).toContain('--sub-slicing needs a DENSE one')
  })

  it('too few healthy sub-blocks with room: exit 2 with each sub-block in numbers; --force goes on and says so', async () => {
    const compute = new MemoryCompute().seedReservation(
      dense([block('block', [sub('sub0'), sub('sub1', 0, {health: 'DEGRADED'}), sub('sub2', 15), sub('sub3')])]),
    )
    const refused = run(compute, superFlags)
    const [problem] = await refusal(refused.done)
    const shortage =
      'the sub-blocks of golden-reservation/reservationBlocks/block hold 2 slices of tpu7x-4x4x4 (sub-block sub0 of block block: 16 of 16 hosts free; sub-block sub1 of block block: 16 of 16 hosts free, but DEGRADED; sub-block sub2 of block block: 1 of 16 hosts free; sub-block sub3 of block block: 16 of 16 hosts free); 3 new slices need 16 free hosts each, on one healthy sub-block'
    expect(problem!.message).toBe(`--reservation: ${shortage}.`)
    expect(changes(refused.gke)).toEqual([])

    const fresh = new MemoryGke()
    fresh.cluster = 'gone'
    const forced = run(compute, {...superFlags, force: true}, fresh)
    const result = await forced.done
    expect(result.warnings).toEqual([`${shortage}; going on because of --force.`])
    // The two with room first; the third on the least used healthy one (never the DEGRADED sub1), where GKE waits
    // or fails.
    expect(poolReservations(result.steps)).toEqual([
      ['demo-np-0', `${BLOCK}/reservationSubBlocks/sub0`],
      ['demo-np-1', `${BLOCK}/reservationSubBlocks/sub3`],
      ['demo-np-2', `${BLOCK}/reservationSubBlocks/sub2`],
    ])
  })
})

describe('cluster create --super-slicing: each cube on a healthy sub-block', () => {
  it("Python xpk's recipe: sub0, sub1 and sub3 (sub2 has 1 host free), the -ss policy, the slice controller", async () => {
    const log: string[] = []
    const compute = new MemoryCompute(log).seedReservation(RECIPE)
    const fresh = new MemoryGke()
    fresh.cluster = 'gone'
    const {done, gke} = run(compute, superFlags, fresh)
    const result = await done
    expect(poolReservations(result.steps)).toEqual([
      ['demo-np-0', `${BLOCK}/reservationSubBlocks/sub0`],
      ['demo-np-1', `${BLOCK}/reservationSubBlocks/sub1`],
      ['demo-np-2', `${BLOCK}/reservationSubBlocks/sub3`],
    ])
    expect(result.warnings).toEqual([])
    const policy = result.steps.find((s) => s.resource === 'placementPolicy')
    expect(policy?.spec).toEqual({
      project: PROJECT,
      region: 'us-central2',
      name: 'tpu7x-128-4x4x4-ss-placement-policy',
      acceleratorTopology: '4x4x4',
      acceleratorTopologyMode: 'PROVISION_ONLY',
    })
    expect(compute.policies.get('tpu7x-128-4x4x4-ss-placement-policy')?.acceleratorTopologyMode).toBe('PROVISION_ONLY')
    const cluster = result.steps.find((s) => s.resource === 'cluster')
    expect((cluster?.spec as {sliceController?: boolean}).sliceController).toBe(true)
    expect(gke.sliceController).toBe(true)
    const pool = result.steps.find((s) => s.name === 'demo-np-0')?.spec as {
      nodeCount: number
      placementPolicy: unknown
      tpuTopology: string
    }
    expect(pool.nodeCount).toBe(16)
    // The JSON names the pool's policy; the policy step above says how it is made.
    expect(pool.placementPolicy).toBe('tpu7x-128-4x4x4-ss-placement-policy')
    expect(changes(gke).filter((c) => !c.startsWith('setResourceLabels') /* the lock's release */)).toEqual([
      'createCluster',
      'createNodePool demo-np-0',
      'createNodePool demo-np-1',
      'createNodePool demo-np-2',
    ])
    expect(log.filter((l) => l.startsWith('list'))).toEqual([
      `listReservationBlocks ${PROJECT}/${ZONE}/golden-reservation`,
      `listReservationSubBlocks ${PROJECT}/${ZONE}/golden-reservation/block`,
    ])

    // A re-run keeps the cubes where they are (each sub-block now full with its own pool): nothing to create.
    const again = run(compute, superFlags, gke)
    const second = await again.done
    expect(second.steps.filter((s) => s.action !== 'none').map((s) => s.name)).toEqual([])
    expect(second.warnings).toEqual([])
  })

  it('an existing cluster without the slice controller: planned as asked, with a warning (not changed)', async () => {
    const result = await run(new MemoryCompute().seedReservation(RECIPE), superFlags).done
    expect(result.warnings).toEqual([
      "--super-slicing needs GKE's slice controller, which cluster demo does not run; xpk enables it only when it creates a cluster (`gcloud container clusters update demo --enable-slice-controller` enables it).",
    ])
  })

  it('a whole reservation: the sub-blocks of every block are listed, a named sub-block is used as is', async () => {
    const log: string[] = []
    const compute = new MemoryCompute(log).seedReservation(
      dense([block('b1', [sub('s1', 16), sub('s2')]), block('b2', [sub('s1'), sub('s2', 0, {status: 'DELETING'})])]),
    )
    const result = await run(compute, {...superFlags, reservation: 'golden-reservation', numCubes: '2'}).done
    expect(poolReservations(result.steps)).toEqual([
      ['demo-np-0', 'golden-reservation/reservationBlocks/b1/reservationSubBlocks/s2'],
      ['demo-np-1', 'golden-reservation/reservationBlocks/b2/reservationSubBlocks/s1'],
    ])
    expect(log.filter((l) => l.startsWith('listReservationSubBlocks')).sort()).toEqual([
      `listReservationSubBlocks ${PROJECT}/${ZONE}/golden-reservation/b1`,
      `listReservationSubBlocks ${PROJECT}/${ZONE}/golden-reservation/b2`,
    ])
    const named = await run(compute, {
      ...superFlags,
      reservation: 'golden-reservation/reservationBlocks/b2/reservationSubBlocks/s1',
      numCubes: undefined,
      numSlices: '1',
    }).done
    expect(poolReservations(named.steps)).toEqual([
      ['demo-np-0', 'golden-reservation/reservationBlocks/b2/reservationSubBlocks/s1'],
    ])
  })

  it('the in-cluster plan: super-slice-topology, the accelerator-only flavor, ss-kueue-operator, sized controllers', async () => {
    const {done} = run(new MemoryCompute(), superFlags, new MemoryGke(), {
      dryRun: true,
      offline: true,
      inCluster: {...gkeOnly, skip: false},
    })
    const result = await done
    const objects = JSON.stringify(result.inCluster)
    expect(objects).toContain('"super-slice-topology"')
    expect(objects).toContain('"ss-kueue-operator"')
    expect(objects).toContain('"3xtpu7x-128"')
    expect(objects).not.toContain('cloud.google.com/gke-tpu-topology')
    expect(objects).toContain('"replicas":3')
    expect(objects).toContain('"cpu":"16","memory":"64Gi"')
    expect(objects).toContain('"cpu":"4","memory":"16Gi"')
  })
})

describe('cluster create --sub-slicing', () => {
  it('ordinary pools on the reservation, and the sub-slice Topology named by the flavor', async () => {
    const compute = new MemoryCompute().seedReservation({
      ...dense([block('block', [sub('sub0'), sub('sub1')])]),
      specific: {machineType: 'ct6e-standard-4t', count: 32},
    })
    const flags = {
      cluster: 'demo',
      project: PROJECT,
      zone: ZONE,
      tpuType: 'v6e-4x4',
      subSlicing: true,
      reservation: 'golden-reservation',
    }
    const result = await run(compute, flags).done
    expect(poolReservations(result.steps)).toEqual([['demo-np-0', 'golden-reservation']])
    expect(result.steps.some((s) => s.resource === 'placementPolicy')).toBe(false)
    const offline = await run(compute, flags, new MemoryGke(), {
      dryRun: true,
      offline: true,
      inCluster: {...gkeOnly, skip: false},
    }).done
    const objects = JSON.stringify(offline.inCluster)
    expect(objects).toContain('"sub-slice-topology"')
    expect(objects).toContain('cloud.google.com/gke-tpu-slice-4x4-id')
    expect(objects).not.toContain('ss-kueue-operator')
  })
})
