import {describe, expect, it} from 'vitest'

import {FakeCompute} from '../fakes/fake-compute.js'
import type {ReservationSeed} from '../fakes/memory-compute.js'
import {FakeGke} from '../fakes/fake-gke.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {fakesForFile} from '../helpers/wire-fakes.js'

/**
 * `cluster create --super-slicing` through the built CLI against the wire fakes: the sub-blocks are listed through
 * Compute Engine's REST API, each cube goes to a healthy sub-block with room by its path, the -ss workload policy is
 * made in PROVISION_ONLY mode first (GKE refuses a pool naming a missing policy), and the slice controller is in the
 * cluster's create request. A reservation that is not DENSE is refused with exit 2 and no mutating request.
 */
const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'
const POLICY = 'tpu7x-128-4x4x4-ss-placement-policy'
const BLOCK = 'golden-reservation/reservationBlocks/block'

let gke: FakeGke
let compute: FakeCompute
const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${gke.endpoint}`, XPK_COMPUTE_ENDPOINT: compute.endpoint})
const create = (cluster: string, ...extra: string[]) =>
  runCli(
    ['cluster', 'create', '--project', PROJECT, '--zone', ZONE, '--cluster', cluster, '--skip-in-cluster', ...extra],
    {env: env()},
  )
const sub = (name: string, inUseCount = 0) => ({name, count: 16, inUseCount})
/** Python xpk's recipe Cluster_create_super-slicing.md: sub2 has 1 of 16 hosts free. */
const recipe = (deploymentType: string): ReservationSeed => ({
  project: PROJECT,
  zone: ZONE,
  name: 'golden-reservation',
  specific: {machineType: 'tpu7x-standard-4t', count: 64, inUseCount: 15},
  deploymentType,
  blocks: [
    {name: 'block', count: 64, inUseCount: 15, subBlocks: [sub('sub0'), sub('sub1'), sub('sub2', 15), sub('sub3')]},
  ],
})

fakesForFile(async (fakes) => {
  compute = fakes.add(await FakeCompute.start({operationMs: 30}))
  gke = fakes.add(
    await FakeGke.start({
      operationMs: 30,
      placementPolicyExists: (policy) => {
        const [, project, , region, , name] = policy.split('/')
        return compute.policy(project, region, name)?.status === 'READY'
      },
    }),
  )
})

const superSlicing = ['--tpu-type', 'tpu7x-4x4x4', '--super-slicing', '--num-cubes', '3', '--reservation', BLOCK]

describe('cluster create --super-slicing against the wire fakes', () => {
  it('refuses a reservation that is not DENSE, and the rules, with exit 2 and no mutating request', async () => {
    compute.seedReservation(recipe('FLEXIBLE'))
    const fakes = {gke, compute}
    const mark = markRequests(fakes)
    const refused = await create('ss', ...superSlicing)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(
      '--reservation: reservation golden-reservation is not a Cluster Director reservation (deployment type FLEXIBLE); --super-slicing needs a DENSE one.',
    )
    const rules = [
      ['--tpu-type', 'tpu7x-2x2x2', '--super-slicing', '--reservation', BLOCK],
      ['--tpu-type', 'tpu7x-4x4x4', '--num-cubes', '2', '--reservation', BLOCK],
      [...superSlicing, '--num-slices', '2'],
    ]
    const before = compute.calls.length
    for (const args of rules) {
      const result = await create('ss', ...args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toMatch(/^Error: .*--(super-slicing|num-cubes)/m)
    }
    expect(compute.calls.length).toBe(before)
    expect(mutationsSince(fakes, mark)).toEqual([])
  })

  it("places Python's recipe: sub0, sub1 and sub3, the PROVISION_ONLY policy, the slice controller", async () => {
    compute.seedReservation(recipe('DENSE'))
    const result = await create('ss', ...superSlicing)
    expect(result.code, result.stderr).toBe(0)
    expect(compute.policy(PROJECT, REGION, POLICY)).toMatchObject({
      status: 'READY',
      workloadPolicy: {
        type: 'HIGH_THROUGHPUT',
        acceleratorTopology: '4x4x4',
        acceleratorTopologyMode: 'PROVISION_ONLY',
      },
    })
    expect(gke.cluster(PROJECT, REGION, 'ss')?.addonsConfig?.sliceControllerConfig).toEqual({enabled: true})
    const placed = ['ss-np-0', 'ss-np-1', 'ss-np-2'].map((name) => {
      const pool = gke.nodePool(PROJECT, REGION, 'ss', name)
      return [
        name,
        pool?.config?.reservationAffinity?.values,
        pool?.placementPolicy?.policyName,
        pool?.initialNodeCount,
      ]
    })
    expect(placed).toEqual([
      ['ss-np-0', [`${BLOCK}/reservationSubBlocks/sub0`], POLICY, 16],
      ['ss-np-1', [`${BLOCK}/reservationSubBlocks/sub1`], POLICY, 16],
      ['ss-np-2', [`${BLOCK}/reservationSubBlocks/sub3`], POLICY, 16],
    ])
    expect(
      compute.calls.filter((c) => c.path.includes('reservationSubBlocks')).map((c) => `${c.method} ${c.status}`),
    ).toEqual(['GET 200'])
  })
})
