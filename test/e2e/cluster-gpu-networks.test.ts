import {describe, expect, it} from 'vitest'

import {FakeCompute} from '../fakes/fake-compute.js'
import {FakeGke} from '../fakes/fake-gke.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {expectGolden} from '../helpers/golden.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {fakesForFile} from '../helpers/wire-fakes.js'

/**
 * An A3 High cluster (h100-80gb-8) gets the four GPU networks Python xpk's network.py makes, before its node pool,
 * which attaches them; GKE (the fake, wired to the fake Compute Engine) refuses a pool whose subnetworks do not
 * exist, so these runs show the CLI makes them first, and `cluster delete` leaves none behind.
 */
const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'

let gke: FakeGke
let compute: FakeCompute
const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${gke.endpoint}`, XPK_COMPUTE_ENDPOINT: compute.endpoint})
const target = ['--project', PROJECT, '--zone', ZONE, '--cluster', 'a3']
const createOf = (type: string, cluster: string, ...extra: string[]) =>
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
      '--device-type',
      type,
      '--num-nodes',
      '2',
      '--spot',
      '--skip-in-cluster',
      ...extra,
    ],
    {
      env: env(),
    },
  )
const create = (...extra: string[]) => createOf('h100-80gb-8', 'a3', ...extra)
const remove = (...extra: string[]) => runCli(['cluster', 'delete', ...target, '--force', ...extra], {env: env()})
/**
 * Compute's mutating requests as method, path and body: what the golden holds. They run concurrently (a network's
 * subnetwork and firewall rule after it), so they are listed networks first, then subnetworks, then firewall rules.
 */
const KIND_ORDER = ['networks', 'subnetworks', 'firewalls']
const computeRequests = () =>
  compute
    .mutatingCalls()
    .map((c) => ({method: c.method, path: c.path, body: c.body as {name: string}}))
    .sort(
      (x, y) =>
        KIND_ORDER.indexOf(x.path.split('/').at(-1)!) - KIND_ORDER.indexOf(y.path.split('/').at(-1)!) ||
        x.body.name.localeCompare(y.body.name),
    )

fakesForFile(async (fakes) => {
  compute = fakes.add(await FakeCompute.start({operationMs: 20}))
  gke = fakes.add(
    await FakeGke.start({
      operationMs: 30,
      subnetworkExists: (project, region, network, subnetwork) =>
        compute
          .subnetworks()
          .some(
            (s) =>
              s.name === subnetwork &&
              s.network.endsWith(`/projects/${project}/global/networks/${network}`) &&
              s.region.endsWith(`/regions/${region}`),
          ),
    }),
  )
})

describe('cluster create and delete of an A3 High cluster (h100-80gb-8)', () => {
  it('creates the networks, subnetworks and firewall rules, then the pool on them; a re-run sends nothing', async () => {
    const result = await create()
    expect(result.stderr).toContain('created 12 GPU network resources, created 1/1 node pools')
    expect(result.code).toBe(0)
    expectGolden('gpu-networks/a3-high-compute-requests.json', `${JSON.stringify(computeRequests(), null, 2)}\n`)
    const pool = gke.nodePool(PROJECT, REGION, 'a3', 'a3-np-0')
    expectGolden(
      'gpu-networks/a3-high-node-pool-network-config.json',
      `${JSON.stringify(pool?.networkConfig, null, 2)}\n`,
    )

    const mark = markRequests({compute, gke})
    const again = await create()
    expect(again.code).toBe(0)
    expect(again.stderr).toMatch(/=\s+none\s+network\s+a3-net-4\s+exists/)
    expect(mutationsSince({compute, gke}, mark)).toEqual([])
  })

  it('plans the networks on --dry-run --json and creates nothing', async () => {
    const result = await create('--dry-run', '--json')
    expect(result.code).toBe(0)
    const steps = JSON.parse(result.stdout).steps as {action: string; resource: string; name: string; spec: unknown}[]
    expect(
      steps
        .filter((s) => ['network', 'subnetwork', 'firewall'].includes(s.resource))
        .map((s) => `${s.action} ${s.resource} ${s.name}`),
    ).toEqual(
      [1, 2, 3, 4].flatMap((i) => [
        `create network a3-net-${i}`,
        `create subnetwork a3-${REGION}-sub-${i}`,
        `create firewall a3-internal-${i}`,
      ]),
    )
    expect(steps.find((s) => s.name === 'a3-net-1')?.spec).toEqual({
      project: PROJECT,
      name: 'a3-net-1',
      mtu: 8244,
      networkProfile: null,
    })
    expect(mutationsSince({compute, gke})).toEqual([])
  })

  it('refuses (exit 6) before any change when a network of those names has other settings', async () => {
    compute.seedNetwork({project: PROJECT, name: 'a3-net-2', mtu: 1460})
    const result = await create()
    expect(result.code).toBe(6)
    expect(result.stderr).toContain('network a3-net-2 has MTU 1460, not 8244')
    expect(mutationsSince({compute, gke})).toEqual([])
  })

  it('cluster delete deletes the cluster, then every network of it; a re-run after an interrupted one finishes', async () => {
    expect((await create()).code).toBe(0)
    compute.seedNetwork({project: PROJECT, name: 'other-net-1'})
    // The first delete loses its network deletions: each ends failed (as if interrupted); the cluster is gone.
    compute.failOperations({match: (t) => t.does === 'delete networks', times: 4})
    const first = await remove()
    expect(first.code).not.toBe(0)
    expect(first.stderr).toContain('it deletes the GPU networks that are left')
    expect(gke.cluster(PROJECT, REGION, 'a3')).toBeUndefined()
    const second = await remove('--json')
    expect(second.code).toBe(0)
    expect(
      JSON.parse(second.stdout).steps.map((s: {resource: string; name: string}) => `${s.resource} ${s.name}`),
    ).toEqual(['cluster a3', ...[1, 2, 3, 4].map((i) => `network a3-net-${i}`)])
    expect(compute.vpcResources()).toEqual([`network projects/${PROJECT}/global/networks/other-net-1`])
  })
})

/**
 * The types whose networks Python xpk makes with Cluster Toolkit blueprints: A3 Ultra (and A4, the same networks) with
 * the gVNIC network and the RDMA network of 8 subnetworks under the `<zone>-vpc-roce` profile, and A3 Mega with 8
 * multivpc networks. Each: the Compute requests and the pool's networkConfig against goldens, a re-run sends nothing,
 * `cluster delete` leaves none of them.
 */
describe.each([
  {type: 'h200-141gb-8', cluster: 'ultra', golden: 'a3-ultra', resources: 12, last: 'network ultra-rdma-net'},
  {type: 'h100-mega-80gb-8', cluster: 'mega', golden: 'a3-mega', resources: 24, last: 'network mega-gpunet-7'},
])('cluster create and delete of $type', ({type, cluster, golden, resources, last}) => {
  it('creates the networks before the pool on them, a re-run sends nothing, and delete leaves none', async () => {
    const result = await createOf(type, cluster)
    expect(result.stderr).toContain(`created ${resources} GPU network resources, created 1/1 node pools`)
    expect(result.code).toBe(0)
    expectGolden(`gpu-networks/${golden}-compute-requests.json`, `${JSON.stringify(computeRequests(), null, 2)}\n`)
    const pool = gke.nodePool(PROJECT, REGION, cluster, `${cluster}-np-0`)
    expectGolden(
      `gpu-networks/${golden}-node-pool-network-config.json`,
      `${JSON.stringify(pool?.networkConfig, null, 2)}\n`,
    )

    const mark = markRequests({compute, gke})
    const again = await createOf(type, cluster)
    expect(again.code).toBe(0)
    expect(mutationsSince({compute, gke}, mark)).toEqual([])

    const deleted = await runCli(
      ['cluster', 'delete', '--project', PROJECT, '--zone', ZONE, '--cluster', cluster, '--force', '--json'],
      {env: env()},
    )
    expect(deleted.code).toBe(0)
    const steps = JSON.parse(deleted.stdout).steps as {resource: string; name: string}[]
    expect(steps.length).toBe(1 + resources)
    expect(steps.map((s) => `${s.resource} ${s.name}`)).toContain(last)
    expect(compute.vpcResources()).toEqual([])
  })
})
