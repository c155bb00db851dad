// `cluster create --host-maintenance-interval PERIODIC` through the built CLI against the GKE and Compute wire
// fakes: PERIODIC pools are created through GKE's v1beta1 API with the policy (the cluster and everything else through
// v1), a re-run reads the pools' interval once through v1beta1 and changes nothing, and a reservation of another
// interval is refused before any request that changes anything. The request counts are logged for the issue note.
import {describe, expect, it} from 'vitest'

import {FakeCompute} from '../fakes/fake-compute.js'
import {FakeGke} from '../fakes/fake-gke.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {fakesForFile} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'

let gke: FakeGke
let compute: FakeCompute
const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${gke.endpoint}`, XPK_COMPUTE_ENDPOINT: compute.endpoint})
const create = (cluster: string, ...extra: string[]) =>
  runCli(
    [
      'cluster',
      'create',
      '--project',
      PROJECT,
      '--zone',
      ZONE,
      '--cluster',
      cluster,
      '--skip-in-cluster',
      '--tpu-type',
      'v5p-16',
      '--num-slices',
      '2',
      ...extra,
    ],
    {env: env()},
  )
const reservation = (name: string, maintenanceInterval?: string) =>
  compute.seedReservation({
    project: PROJECT,
    zone: ZONE,
    name,
    specific: {machineType: 'ct5p-hightpu-4t', count: 8, ...(maintenanceInterval ? {maintenanceInterval} : {})},
  })
/** GKE requests since `from`, as `Method` or `Method v1beta1`, in order. */
const gkeRequests = (from: number) => gke.calls.slice(from).map((c) => `${c.method}${c.api ? ` ${c.api}` : ''}`)

fakesForFile(async (fakes) => {
  gke = fakes.add(await FakeGke.start({operationMs: 30}))
  compute = fakes.add(await FakeCompute.start())
})

describe('cluster create --host-maintenance-interval PERIODIC against the GKE API', () => {
  it('creates the pools through v1beta1 with the policy, and a re-run reads it once and sends nothing', async () => {
    reservation('periodic-res', 'PERIODIC')
    const start = gke.calls.length
    const first = await create('maint', '--reservation', 'periodic-res', '--host-maintenance-interval', 'PERIODIC')
    expect(first.stderr).toContain('created the cluster')
    expect(first.code).toBe(0)
    const created = gkeRequests(start)
    expect(created.filter((r) => r.startsWith('Create'))).toEqual([
      'CreateCluster',
      'CreateNodePool v1beta1',
      'CreateNodePool v1beta1',
    ])
    // Nothing else went through v1beta1: no interval is read for a new cluster.
    expect(created.filter((r) => r.endsWith('v1beta1'))).toHaveLength(2)
    for (const name of ['maint-np-0', 'maint-np-1']) {
      const pool = gke.nodePool(PROJECT, REGION, 'maint', name)!
      expect(pool.config).toMatchObject({
        hostMaintenancePolicy: {maintenanceInterval: 'PERIODIC'},
        reservationAffinity: {values: ['periodic-res']},
      })
    }
    console.log(`GKE requests, fresh PERIODIC create: ${created.length} (${created.join(', ')})`)

    const mark = markRequests({gke, compute})
    const again = await create('maint', '--reservation', 'periodic-res', '--host-maintenance-interval', 'PERIODIC')
    expect(again.code).toBe(0)
    expect(mutationsSince({gke, compute}, mark).filter((m) => !m.endsWith('SetLabels'))).toEqual([])
    const rerun = gkeRequests(mark.gke)
    expect(rerun.filter((r) => r.endsWith('v1beta1'))).toEqual(['ListNodePools v1beta1'])
    console.log(`GKE requests, PERIODIC re-run: ${rerun.length} (${rerun.join(', ')})`)

    // The plan of a run asking AS_NEEDED says why both pools would be recreated.
    const other = await create('maint', '--spot', '--dry-run', '--json')
    expect(other.code).toBe(0)
    const plan = JSON.parse(other.stdout) as {steps: {resource: string; action: string; reason: string}[]}
    expect(plan.steps.filter((s) => s.resource === 'nodePool' && s.action === 'recreate').map((s) => s.reason)).toEqual(
      [
        'differs from the request: capacity reservation → spot; host maintenance interval PERIODIC → AS_NEEDED',
        'differs from the request: capacity reservation → spot; host maintenance interval PERIODIC → AS_NEEDED',
      ],
    )
  })

  it('AS_NEEDED: v1 creates with no policy; its re-run pays the same one v1beta1 read, to see a PERIODIC pool', async () => {
    const start = gke.calls.length
    expect((await create('plain', '--spot')).code).toBe(0)
    const created = gkeRequests(start)
    expect(created.filter((r) => r.startsWith('CreateNodePool'))).toEqual(['CreateNodePool', 'CreateNodePool'])
    expect(created.filter((r) => r.endsWith('v1beta1'))).toEqual([])
    expect(gke.nodePool(PROJECT, REGION, 'plain', 'plain-np-0')!.config).not.toHaveProperty('hostMaintenancePolicy')
    const mark = gke.calls.length
    expect((await create('plain', '--spot')).code).toBe(0)
    const rerun = gkeRequests(mark)
    // One read of the pools through v1beta1 and nothing else but reads of the cluster (on a loaded machine the run may
    // find an operation of the first still running, and read the cluster again while it waits).
    expect(rerun.filter((r) => !r.startsWith('Get'))).toEqual(['ListNodePools v1beta1'])
    expect(rerun.slice(0, 2).sort()).toEqual(['GetCluster', 'GetServerConfig'])
    console.log(`GKE requests, AS_NEEDED create: ${created.length}; its re-run: ${rerun.length} (${rerun.join(', ')})`)
  })

  it.each([
    [
      'AS_NEEDED pools on a PERIODIC reservation',
      'PERIODIC',
      [],
      'reservation r-periodic has maintenance interval PERIODIC',
    ],
    [
      'PERIODIC pools on a reservation without one',
      undefined,
      ['--host-maintenance-interval', 'PERIODIC'],
      'reservation r-plain has maintenance interval unset (AS_NEEDED)',
    ],
  ])('refuses %s (exit 2, naming the flag) and changes nothing', async (_case, interval, extra, says) => {
    const name = interval ? 'r-periodic' : 'r-plain'
    reservation(name, interval)
    const mark = markRequests({gke, compute})
    const result = await create('maint-refused', '--reservation', name, ...extra)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--host-maintenance-interval')
    expect(result.stderr).toContain(says)
    expect(mutationsSince({gke, compute}, mark)).toEqual([])
  })
})
