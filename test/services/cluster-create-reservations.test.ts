// `xpk cluster create --reservation` in process, over the in-memory GKE and Compute ports: every reservation is read
// before planning (through the retry policy, with the cluster reads), one that cannot be used or cannot hold the new
// pools is refused with exit 2 before any change, --force goes on and the plan says so, and new pools go where there
// is room.
import {describe, expect, it} from 'vitest'

import {UsageError} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {createCluster, type ClusterCreateOptions} from '../../src/services/cluster-create.js'
import {desiredFor, observedPoolFrom} from '../builders/observed.js'
import {MemoryCompute, type ReservationSeed} from '../fakes/memory-compute.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const PROJECT = 'test-project'
const ZONE = 'us-central2-b'
// v5p-128: 16 VMs of ct5p-hightpu-4t per slice.
const flags = {cluster: 'demo', project: PROJECT, zone: ZONE, tpuType: 'v5p-128', numSlices: '4'}
const LOCK = {
  identity: {user: 'tester', host: 'test-host', pid: 4242, boot: '29500000'},
  staleSeconds: 3600,
  alive: () => true,
}
const gkeOnly: ClusterCreateOptions['inCluster'] = {skip: true, xpkVersion: '0.1.0', manifestOverrides: {}}

const reservation = (name: string, count: number, inUseCount = 0, more: Partial<ReservationSeed> = {}) => ({
  project: PROJECT,
  zone: ZONE,
  name,
  specific: {machineType: 'ct5p-hightpu-4t', count, inUseCount},
  ...more,
})

function run(
  compute: MemoryCompute,
  flagsMore: Partial<ClusterCreateOptions['flags']>,
  gke = new MemoryGke(),
  options: Partial<ClusterCreateOptions> = {},
) {
  const console = new RecordingConsole()
  let connected = 0
  const done = createCluster(
    {
      flags: {...flags, ...flagsMore},
      dryRun: false,
      offline: false,
      timing: DEFAULT_TIMING,
      inCluster: gkeOnly,
      lock: LOCK,
      ...options,
    },
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
async function refusal(promise: Promise<unknown>): Promise<UsageError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(UsageError)
  expect((error as UsageError).exitCode).toBe(2)
  return error as UsageError
}

describe('cluster create --reservation: refused before any change', () => {
  it.each([
    {
      name: 'too few free VMs, with the numbers',
      seeds: [reservation('r1', 64, 52)],
      given: 'r1',
      message: '--reservation: reservation r1 has 12 of 64 VMs free; 4 new slices of v5p-128 need 64 (16 VMs each).',
    },
    {
      name: 'several reservations that together hold too few slices',
      seeds: [reservation('r1', 64, 40), reservation('r2', 32, 0)],
      given: 'r1,r2',
      message:
        '--reservation: reservations r1 and r2 hold 3 slices together (r1: 24 of 64 VMs free, 1 slice; r2: 32 of 32 VMs free, 2 slices); 4 new slices of v5p-128 need 64 (16 VMs each).',
    },
    {
      name: 'a missing reservation (a 404), not an API error',
      seeds: [],
      given: 'nope',
      message: `--reservation: no reservation nope in project ${PROJECT}, zone ${ZONE}.`,
    },
    {
      name: 'a shared reservation missing in its own project',
      seeds: [reservation('r1', 64)],
      given: 'projects/other-project/reservations/r1',
      message: `--reservation: no reservation r1 in project other-project, zone ${ZONE}.`,
    },
    {
      name: 'a reservation not READY',
      seeds: [reservation('r1', 64, 0, {status: 'CREATING'})],
      given: 'r1',
      message: '--reservation: reservation r1 is CREATING, not READY.',
    },
    {
      name: 'a reservation of another machine type',
      seeds: [reservation('r1', 64, 0, {specific: {machineType: 'ct6e-standard-4t', count: 64}})],
      given: 'r1',
      message: '--reservation: reservation r1 reserves ct6e-standard-4t VMs; v5p-128 needs ct5p-hightpu-4t.',
    },
    {
      name: 'a degraded sub-block',
      seeds: [
        reservation('r1', 64, 0, {
          blocks: [{name: 'b1', count: 64, subBlocks: [{name: 's1', count: 64, health: 'DEGRADED'}]}],
        }),
      ],
      given: 'r1/reservationBlocks/b1/reservationSubBlocks/s1',
      message:
        '--reservation: reservation r1/reservationBlocks/b1/reservationSubBlocks/s1 has sub-block s1 of block b1: 64 of 64 hosts free, but DEGRADED; 4 new slices of v5p-128 need 64 (16 VMs each).',
    },
  ])('$name', async ({seeds, given, message}) => {
    const compute = new MemoryCompute()
    for (const seed of seeds) compute.seedReservation(seed)
    for (const dryRun of [false, true]) {
      const {done, gke} = run(compute, {reservation: given}, new MemoryGke(), {dryRun})
      const error = await refusal(done)
      expect(error.message).toBe(message)
      expect(error.flag).toBe('--reservation')
      expect(changes(gke)).toEqual([])
    }
  })

  it('refuses every unusable reservation at once, --force or not', async () => {
    const compute = new MemoryCompute().seedReservation(reservation('r1', 64, 0, {status: 'DELETING'}))
    const {done, gke} = run(compute, {reservation: 'r1,r2', force: true})
    const error = await refusal(done)
    expect(error.message).toContain('reservation r1 is DELETING, not READY')
    expect(error.message).toContain(`no reservation r2 in project ${PROJECT}, zone ${ZONE}`)
    expect(changes(gke)).toEqual([])
  })
})

describe('cluster create --reservation: what goes on', () => {
  it('--force goes on with a shortage, and the plan says so', async () => {
    const compute = new MemoryCompute().seedReservation(reservation('r1', 64, 52))
    const {done, gke} = run(compute, {reservation: 'r1', force: true})
    const result = await done
    expect(result.warnings).toEqual([
      'reservation r1 has 12 of 64 VMs free; 4 new slices of v5p-128 need 64 (16 VMs each); going on because of --force.',
    ])
    expect(gke.calls.filter((c) => c.startsWith('create'))).toEqual([
      'createNodePool demo-np-0',
      'createNodePool demo-np-1',
      'createNodePool demo-np-2',
      'createNodePool demo-np-3',
    ])
  })

  it('puts new pools where there is room, spread over the reservations that have some', async () => {
    const compute = new MemoryCompute()
      .seedReservation(reservation('r1', 64, 48)) // room for 1
      .seedReservation({...reservation('r2', 64), project: 'shared-proj'}) // room for 4, in another project
    const {done} = run(compute, {reservation: 'r1,projects/shared-proj/reservations/r2'})
    const result = await done
    const pools = result.steps.filter((s) => s.resource === 'nodePool')
    expect(pools.map((s) => [s.name, s.spec && 'reservation' in s.spec ? s.spec.reservation : null])).toEqual([
      ['demo-np-0', 'r1'],
      ['demo-np-1', 'projects/shared-proj/reservations/r2'],
      ['demo-np-2', 'projects/shared-proj/reservations/r2'],
      ['demo-np-3', 'projects/shared-proj/reservations/r2'],
    ])
  })

  it('counts only the pools it creates: existing pools on the reservation are its VMs in use', async () => {
    const pool = (name: string) =>
      observedPoolFrom({...desiredFor({...flags, reservation: 'r1'}).poolTemplate, name, reservation: 'r1'})
    const compute = new MemoryCompute().seedReservation(reservation('r1', 64, 48))
    const gke = new MemoryGke([pool('demo-np-0'), pool('demo-np-1'), pool('demo-np-2')])
    const {done} = run(compute, {reservation: 'r1'}, gke)
    const result = await done
    expect(result.steps.filter((s) => s.action === 'create').map((s) => s.name)).toEqual(['demo-np-3'])
    expect(result.warnings).toEqual([])
    // One more slice than the room: refused.
    const again = run(
      compute,
      {reservation: 'r1', numSlices: '5'},
      new MemoryGke([pool('demo-np-0'), pool('demo-np-1'), pool('demo-np-2')]),
    )
    expect((await refusal(again.done)).message).toContain('2 new slices of v5p-128 need 32')
  })

  it('reads each reservation once, with its block and sub-block, through the retry policy', async () => {
    const log: string[] = []
    const compute = new MemoryCompute(log).seedReservation(
      reservation('r1', 64, 0, {blocks: [{name: 'b1', count: 64, subBlocks: [{name: 's1', count: 64}]}]}),
    )
    compute.failNext('getReservation', {status: 'UNAVAILABLE', message: 'Backend Error'})
    const {done} = run(compute, {
      reservation: 'r1/reservationBlocks/b1,r1/reservationBlocks/b1/reservationSubBlocks/s1',
    })
    await done
    expect(log.filter((l) => l.startsWith('getReservation'))).toEqual([
      `getReservation ${PROJECT}/${ZONE}/r1`,
      `getReservation ${PROJECT}/${ZONE}/r1`,
    ])
    expect(log.filter((l) => l.startsWith('list'))).toEqual([
      `listReservationBlocks ${PROJECT}/${ZONE}/r1`,
      `listReservationSubBlocks ${PROJECT}/${ZONE}/r1/b1`,
    ])
  })

  it('reads nothing for other capacity, and an offline dry run says the reservations were not read', async () => {
    const spot = run(new MemoryCompute(), {spot: true})
    await spot.done
    expect(spot.connected()).toBe(0)
    const offline = run(new MemoryCompute(), {reservation: 'r1,r2'}, new MemoryGke(), {dryRun: true, offline: true})
    await offline.done
    expect(offline.connected()).toBe(0)
    expect(offline.console.the('cluster.create.offline-reservations').text).toBe(
      'Offline dry run: reservations r1, r2 not read; whether they exist and hold the new pools is checked when run without --offline.',
    )
  })
})
