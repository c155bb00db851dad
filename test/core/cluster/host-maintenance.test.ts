// `cluster create --host-maintenance-interval`: the rule against a reservation's VMs (GKE gives them only to pools
// of the same interval), the reconciliation of pools whose interval is known (read through v1beta1) or not, and the
// requests a PERIODIC pool makes (goldens: v1beta1 with the policy) beside an AS_NEEDED one (v1, nothing sent).
import {describe, expect, it} from 'vitest'

import {createGkeClient} from '../../../src/adapters/gke-container-api.js'
import {planCluster, type NodePoolStep} from '../../../src/core/cluster/plan.js'
import {
  maintenanceIntervalMismatches,
  reservationRef,
  type ObservedReservation,
} from '../../../src/core/cluster/reservations.js'
import type {HostMaintenanceInterval} from '../../../src/core/cluster/spec.js'
import {aMatchingPool, anObservedCluster, desiredFor} from '../../builders/observed.js'
import {expectGolden} from '../../helpers/golden.js'

function reservation(name: string, maintenanceInterval: string | null): ObservedReservation {
  return {
    name,
    zone: 'us-central2-b',
    status: 'READY',
    specific: {machineType: 'ct5p-hightpu-4t', guestAccelerators: [], count: 64, inUseCount: 0, maintenanceInterval},
    aggregate: null,
    deploymentType: null,
    resourcePolicies: [],
    specificReservationRequired: false,
    shareType: null,
  }
}
const readOf = (path: string, r: ObservedReservation | undefined) => ({ref: reservationRef(path, 'p1'), reservation: r})

describe("the reservation's maintenance interval against the pools'", () => {
  // Every value a reservation reports (unset, the three Compute Engine names) against both intervals: 8 pairs.
  it.each<[string | null, HostMaintenanceInterval, boolean]>([
    [null, 'AS_NEEDED', false],
    ['AS_NEEDED', 'AS_NEEDED', false],
    ['PERIODIC', 'AS_NEEDED', true],
    ['RECURRENT', 'AS_NEEDED', false],
    [null, 'PERIODIC', true],
    ['AS_NEEDED', 'PERIODIC', true],
    ['PERIODIC', 'PERIODIC', false],
    ['RECURRENT', 'PERIODIC', true],
  ])('reservation %s, pools %s: refused %s', (reserved, asked, refused) => {
    const found = maintenanceIntervalMismatches([readOf('r1', reservation('r1', reserved))], asked)
    expect(found).toEqual(refused ? [{reservation: 'r1', reserved, asked}] : [])
  })

  it('judges each reservation once (blocks of it too), and neither missing nor aggregate ones', () => {
    const aggregate = {...reservation('agg', null), specific: null, aggregate: {reserved: [], inUse: []}}
    const reads = [
      readOf('r1', reservation('r1', 'PERIODIC')),
      readOf('r1/reservationBlocks/b1', reservation('r1', 'PERIODIC')),
      readOf('projects/other/reservations/r1', reservation('r1', 'PERIODIC')),
      readOf('missing', undefined),
      readOf('agg', aggregate),
      readOf('r2', reservation('r2', null)),
    ]
    expect(maintenanceIntervalMismatches(reads, 'AS_NEEDED').map((m) => m.reservation)).toEqual(['r1', 'r1'])
    expect(maintenanceIntervalMismatches(reads, 'PERIODIC').map((m) => m.reservation)).toEqual(['r2'])
  })
})

describe('pools of another interval are recreated; an interval not read is not compared', () => {
  const poolStep = (steps: readonly unknown[], name: string) =>
    steps.find((s) => (s as NodePoolStep).resource === 'nodePool' && (s as NodePoolStep).name === name) as NodePoolStep

  // The desired interval x the observed one (read: AS_NEEDED or PERIODIC; not read: absent): 6 cases.
  it.each<[HostMaintenanceInterval, HostMaintenanceInterval | undefined, string]>([
    ['PERIODIC', 'PERIODIC', 'none'],
    ['PERIODIC', 'AS_NEEDED', 'recreate'],
    ['PERIODIC', undefined, 'none'],
    ['AS_NEEDED', 'AS_NEEDED', 'none'],
    ['AS_NEEDED', 'PERIODIC', 'recreate'],
    ['AS_NEEDED', undefined, 'none'],
  ])('asked %s, pool %s: %s', (asked, observed, action) => {
    const desired = desiredFor({hostMaintenanceInterval: asked})
    const pool = aMatchingPool(desired, 'demo-np-0', observed ? {hostMaintenanceInterval: observed} : {})
    const step = poolStep(planCluster(desired, anObservedCluster({nodePools: [pool]})).steps, 'demo-np-0')
    expect(step.action).toBe(action)
    if (action === 'recreate') {
      expect(step.reason).toBe(`differs from the request: host maintenance interval ${observed} → ${asked}`)
      expect(step.spec?.hostMaintenanceInterval).toBe(asked)
    }
  })
})

describe('the requests of a PERIODIC and an AS_NEEDED pool (goldens)', () => {
  /** Creates the plan's first pool through the adapter and records the request: method, URL and body. */
  async function sent(interval: HostMaintenanceInterval): Promise<string> {
    const desired = desiredFor({
      project: 'my-project',
      zone: 'us-east5-a',
      tpuType: 'v5p-16',
      reservation: 'r1',
      hostMaintenanceInterval: interval,
    })
    const step = planCluster(desired, undefined).steps.find((s) => s.resource === 'nodePool') as NodePoolStep
    const seen: {method: string; url: string; body: unknown}[] = []
    const gke = await createGkeClient({
      endpoint: 'https://container.googleapis.com/',
      accessToken: 'token',
      fetch: async (input, init) => {
        seen.push({method: init?.method ?? 'GET', url: String(input), body: JSON.parse(String(init?.body))})
        const operation = {name: 'operation-1', operationType: 'CREATE_NODE_POOL', status: 'RUNNING'}
        return new Response(JSON.stringify(operation), {status: 200})
      },
    })
    await gke.createNodePool({project: 'my-project', location: 'us-east5', name: 'demo'}, step.spec!)
    expect(seen).toHaveLength(1)
    return `${JSON.stringify(seen[0], null, 2)}\n`
  }

  it('PERIODIC: POST v1beta1/.../nodePools with config.hostMaintenancePolicy', async () => {
    const request = await sent('PERIODIC')
    expect(request).toContain('"url": "https://container.googleapis.com/v1beta1/projects/my-project/')
    expect(request).toContain('"hostMaintenancePolicy"')
    expectGolden('requests/create-node-pool-periodic-v5p-16.json', request)
  })

  it('AS_NEEDED: POST v1/.../nodePools with no policy, the same body otherwise', async () => {
    const request = await sent('AS_NEEDED')
    expect(request).toContain('"url": "https://container.googleapis.com/v1/projects/my-project/')
    expect(request).not.toContain('hostMaintenancePolicy')
    expectGolden('requests/create-node-pool-as-needed-v5p-16.json', request)
    const periodic = JSON.parse(await sent('PERIODIC')) as {body: {nodePool: {config: Record<string, unknown>}}}
    delete periodic.body.nodePool.config.hostMaintenancePolicy
    expect(periodic.body).toEqual((JSON.parse(request) as {body: unknown}).body)
  })
})
