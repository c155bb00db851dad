// `xpk cluster create --host-maintenance-interval` in process, over the in-memory GKE and Compute ports: PERIODIC
// pools are created with their interval; the pools' interval is read (one `hostMaintenance` read) only when the
// cluster has pools of its own to compare, so a re-run keeps pools of the interval asked and recreates the others;
// a reservation of another interval is refused with exit 2 before anything is created.
import {describe, expect, it} from 'vitest'

import type {HostMaintenanceInterval} from '../../src/core/cluster/spec.js'
import {UsageError} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {createCluster, type ClusterCreateOptions} from '../../src/services/cluster-create.js'
import {desiredFor, observedPoolFrom} from '../builders/observed.js'
import {MemoryCompute} from '../fakes/memory-compute.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const PROJECT = 'test-project'
const ZONE = 'us-central2-b'
// v5p-16: 2 VMs of ct5p-hightpu-4t per slice.
const flags = {cluster: 'demo', project: PROJECT, zone: ZONE, tpuType: 'v5p-16', numSlices: '2'}
const LOCK = {
  identity: {user: 'tester', host: 'test-host', pid: 4242, boot: '29500000'},
  staleSeconds: 3600,
  alive: () => true,
}
const gkeOnly: ClusterCreateOptions['inCluster'] = {skip: true, xpkVersion: '0.1.0', manifestOverrides: {}}

function run(
  gke: MemoryGke,
  flagsMore: Partial<ClusterCreateOptions['flags']>,
  options: Partial<ClusterCreateOptions> = {},
  compute = new MemoryCompute(),
  answer: PromptAnswer = 'unexpected',
) {
  return createCluster(
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
      compute: async () => compute,
      kube: () => Promise.reject(new Error('the cluster was reached with --skip-in-cluster')),
      manifests: {load: () => Promise.reject(new Error('a release manifest was loaded'))},
      console: new RecordingConsole(answer),
      signal: new AbortController().signal,
      ...virtualClock(),
    },
  )
}

const changes = (gke: MemoryGke) => gke.calls.filter((c) => /^(create|delete|update|set)/.test(c))
const intervalReads = (gke: MemoryGke) => gke.calls.filter((c) => c.endsWith('hostMaintenance'))
const intervals = (gke: MemoryGke) =>
  [...gke.pools.values()].map((p) => `${p.name} ${p.hostMaintenanceInterval ?? 'AS_NEEDED'}`).sort()
const poolSteps = (result: Awaited<ReturnType<typeof createCluster>>) =>
  result.steps.filter((s) => s.resource === 'nodePool').map((s) => `${s.name} ${s.action}: ${s.reason}`)

describe('cluster create --host-maintenance-interval PERIODIC', () => {
  it('creates a new cluster with PERIODIC pools, reading no interval; a re-run reads it once and keeps them', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const created = await run(gke, {spot: true, hostMaintenanceInterval: 'PERIODIC'})
    expect(created.steps.filter((s) => s.resource === 'nodePool').map((s) => s.spec)).toMatchObject([
      {hostMaintenanceInterval: 'PERIODIC'},
      {hostMaintenanceInterval: 'PERIODIC'},
    ])
    expect(changes(gke).filter((c) => c.startsWith('create'))).toEqual([
      'createCluster',
      'createNodePool demo-np-0',
      'createNodePool demo-np-1',
    ])
    expect(intervals(gke)).toEqual(['default-pool AS_NEEDED', 'demo-np-0 PERIODIC', 'demo-np-1 PERIODIC'])
    expect(intervalReads(gke)).toEqual([])

    const before = gke.calls.length
    const again = await run(gke, {spot: true, hostMaintenanceInterval: 'PERIODIC'})
    expect(poolSteps(again)).toEqual([
      'demo-np-0 none: matches the request',
      'demo-np-1 none: matches the request',
      'default-pool none: not managed by xpk (only demo-np-* pools are)',
    ])
    const calls = gke.calls.slice(before)
    expect(calls.filter((c) => /^(create|delete|update)/.test(c))).toEqual([])
    expect(calls.filter((c) => c.endsWith('hostMaintenance'))).toEqual(['listNodePools hostMaintenance'])
  })

  it('a re-run asking the other interval recreates the pools, saying why; in a dry run it only says so', async () => {
    const gke = new MemoryGke()
    await run(gke, {spot: true, hostMaintenanceInterval: 'PERIODIC'})
    const dry = await run(gke, {spot: true}, {dryRun: true})
    const why = 'differs from the request: host maintenance interval PERIODIC → AS_NEEDED'
    expect(poolSteps(dry)).toEqual([`demo-np-0 recreate: ${why}`, `demo-np-1 recreate: ${why}`])
    expect(changes(gke).filter((c) => c.startsWith('delete'))).toEqual([])

    // Destructive: asked first, and answered yes.
    await run(gke, {spot: true}, {}, new MemoryCompute(), 'yes')
    expect(intervals(gke)).toEqual(['demo-np-0 AS_NEEDED', 'demo-np-1 AS_NEEDED'])
    const back = await run(gke, {spot: true, hostMaintenanceInterval: 'PERIODIC'}, {dryRun: true})
    expect(poolSteps(back)).toEqual([
      'demo-np-0 recreate: differs from the request: host maintenance interval AS_NEEDED → PERIODIC',
      'demo-np-1 recreate: differs from the request: host maintenance interval AS_NEEDED → PERIODIC',
    ])
  })

  it('keeps PERIODIC pools another run (or tool) made, and grows the cluster with PERIODIC ones', async () => {
    const desired = desiredFor({tpuType: 'v5p-16', spot: true, hostMaintenanceInterval: 'PERIODIC'})
    const made = observedPoolFrom(
      {...desired.poolTemplate, name: 'demo-np-0', reservation: null},
      {
        hostMaintenanceInterval: 'PERIODIC',
      },
    )
    const gke = new MemoryGke([made])
    const result = await run(gke, {spot: true, hostMaintenanceInterval: 'PERIODIC', numSlices: '3'})
    expect(poolSteps(result)).toEqual([
      'demo-np-0 none: matches the request',
      'demo-np-1 create: new slice',
      'demo-np-2 create: new slice',
    ])
    expect(intervals(gke)).toEqual(['demo-np-0 PERIODIC', 'demo-np-1 PERIODIC', 'demo-np-2 PERIODIC'])
    expect(intervalReads(gke)).toEqual(['listNodePools hostMaintenance'])
  })

  it('reads no interval when the cluster has no pool of its own (only others)', async () => {
    const other = observedPoolFrom({...desiredFor().poolTemplate, name: 'team-pool', reservation: null})
    const gke = new MemoryGke([other])
    await run(gke, {spot: true, hostMaintenanceInterval: 'PERIODIC'})
    expect(intervalReads(gke)).toEqual([])
    expect(intervals(gke)).toEqual(['demo-np-0 PERIODIC', 'demo-np-1 PERIODIC', 'team-pool AS_NEEDED'])
  })
})

describe("cluster create --reservation: the reservation's maintenance interval must be the pools'", () => {
  // Every reservation value x the interval asked, where they differ; each run dry or not: 8 runs.
  it.each<{reserved: string | undefined; asked: HostMaintenanceInterval | undefined; shown: string; hint: string}>([
    {reserved: 'PERIODIC', asked: undefined, shown: 'PERIODIC', hint: 'Add --host-maintenance-interval PERIODIC'},
    {reserved: undefined, asked: 'PERIODIC', shown: 'unset (AS_NEEDED)', hint: 'Leave --host-maintenance-interval out'},
    {reserved: 'AS_NEEDED', asked: 'PERIODIC', shown: 'AS_NEEDED', hint: 'Leave --host-maintenance-interval out'},
    {reserved: 'RECURRENT', asked: 'PERIODIC', shown: 'RECURRENT', hint: 'Leave --host-maintenance-interval out'},
  ])(
    'reservation $shown, pools $asked: exit 2 naming the flag, nothing created',
    async ({reserved, asked, shown, hint}) => {
      const compute = new MemoryCompute().seedReservation({
        project: PROJECT,
        zone: ZONE,
        name: 'r1',
        specific: {machineType: 'ct5p-hightpu-4t', count: 8, ...(reserved ? {maintenanceInterval: reserved} : {})},
      })
      for (const dryRun of [false, true]) {
        const gke = new MemoryGke()
        gke.cluster = 'gone'
        const more = {reservation: 'r1', force: true, ...(asked ? {hostMaintenanceInterval: asked} : {})}
        const error = await run(gke, more, {dryRun}, compute).then(
          () => undefined,
          (e: unknown) => e,
        )
        expect(error).toBeInstanceOf(UsageError)
        const usage = error as UsageError
        expect([usage.exitCode, usage.flag]).toEqual([2, '--host-maintenance-interval'])
        expect(usage.message).toBe(
          `--host-maintenance-interval ${asked ?? 'AS_NEEDED'}: reservation r1 has maintenance interval ${shown}, and GKE gives a reservation's VMs only to node pools of the same interval.`,
        )
        expect(usage.hints.join(' ')).toContain(hint)
        expect(changes(gke)).toEqual([])
      }
    },
  )

  it('a PERIODIC reservation with PERIODIC pools: created on it', async () => {
    const compute = new MemoryCompute().seedReservation({
      project: PROJECT,
      zone: ZONE,
      name: 'r1',
      specific: {machineType: 'ct5p-hightpu-4t', count: 8, maintenanceInterval: 'PERIODIC'},
    })
    const gke = new MemoryGke()
    await run(gke, {reservation: 'r1', hostMaintenanceInterval: 'PERIODIC'}, {}, compute)
    expect(intervals(gke)).toEqual(['demo-np-0 PERIODIC', 'demo-np-1 PERIODIC'])
    expect([...gke.pools.values()].map((p) => p.reservation)).toEqual(['r1', 'r1'])
  })
})
