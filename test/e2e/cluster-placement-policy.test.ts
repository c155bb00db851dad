import {describe, expect, it} from 'vitest'

import {computeErrors, FakeCompute} from '../fakes/fake-compute.js'
import {FakeGke} from '../fakes/fake-gke.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {fakesForFile} from '../helpers/wire-fakes.js'

/**
 * Types like multi-host tpu7x name a GCE workload policy as their placement policy. GKE (the fake, wired to the
 * fake Compute Engine) refuses a pool whose policy does not exist, so these runs show the CLI makes it first.
 */
const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'
const POLICY = 'tpu7x-16-2x2x2-placement-policy'

let gke: FakeGke
let compute: FakeCompute
const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${gke.endpoint}`, XPK_COMPUTE_ENDPOINT: compute.endpoint})
const create = (cluster: string, ...extra: string[]) =>
  runCli(
    ['cluster', 'create', '--project', PROJECT, '--zone', ZONE, '--cluster', cluster, '--skip-in-cluster', ...extra],
    {
      env: env(),
    },
  )
const ownPools = (cluster: string) =>
  gke
    .nodePools(PROJECT, REGION, cluster)
    .map((p) => p.name)
    .filter((n) => n.startsWith(`${cluster}-np-`))
    .sort()

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

describe('cluster create with a workload placement policy (tpu7x-16)', () => {
  it('creates the missing policy, then the pools that name it', async () => {
    const result = await create('wp', '--tpu-type', 'tpu7x-16', '--num-slices', '2', '--spot')
    expect(result.stderr).toContain('created the placement policy, created 2/2 node pools')
    expect(result.code).toBe(0)
    expect(compute.policy(PROJECT, REGION, POLICY)).toMatchObject({
      status: 'READY',
      workloadPolicy: {type: 'HIGH_THROUGHPUT', acceleratorTopology: '2x2x2'},
    })
    expect(ownPools('wp')).toEqual(['wp-np-0', 'wp-np-1'])
    expect(gke.nodePool(PROJECT, REGION, 'wp', 'wp-np-0')?.placementPolicy).toMatchObject({policyName: POLICY})
  })

  it('uses an existing policy without changing it, and creates only what is missing', async () => {
    compute.seedPolicy({project: PROJECT, region: REGION, name: POLICY, acceleratorTopology: '2x2x2'})
    expect((await create('wp', '--tpu-type', 'tpu7x-16', '--num-slices', '1', '--spot')).code).toBe(0)
    const grown = await create('wp', '--tpu-type', 'tpu7x-16', '--num-slices', '2', '--spot')
    expect(grown.code).toBe(0)
    expect(grown.stderr).toMatch(/=\s+none\s+policy\s+tpu7x-16-2x2x2-placement-policy\s+exists/)
    expect(compute.mutatingCalls()).toEqual([])
    expect(ownPools('wp')).toEqual(['wp-np-0', 'wp-np-1'])
  })

  it('plans the policy on --dry-run and creates nothing', async () => {
    const result = await create('wp', '--tpu-type', 'tpu7x-16', '--num-slices', '2', '--spot', '--dry-run', '--json')
    expect(result.code).toBe(0)
    const steps = JSON.parse(result.stdout).steps as {action: string; resource: string; name: string}[]
    expect(steps.slice(0, 2)).toMatchObject([
      {action: 'create', resource: 'cluster', name: 'wp'},
      {action: 'create', resource: 'placementPolicy', name: POLICY},
    ])
    expect(compute.mutatingCalls()).toEqual([])
    expect(gke.mutatingCalls()).toEqual([])
  })

  it('stops before any change when Compute Engine denies reading policies (exit 3)', async () => {
    compute.faults.push({method: 'GET', path: '/resourcePolicies/', ...computeErrors.permissionDenied()})
    const result = await create('wp', '--tpu-type', 'tpu7x-16', '--num-slices', '2', '--spot')
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/compute\.resourcePolicies/)
    expect(gke.mutatingCalls()).toEqual([])
  })

  it('creates no pool that names a policy it could not create, and a re-run finishes the job', async () => {
    compute.failOperations({errors: [{code: 'QUOTA_EXCEEDED', message: "Quota 'RESOURCE_POLICIES' exceeded."}]})
    const failed = await create('wp', '--tpu-type', 'tpu7x-16', '--num-slices', '2', '--spot')
    expect(failed.code).toBe(5)
    expect(failed.stderr).toMatch(/RESOURCE_POLICIES/)
    expect(failed.stderr).toContain('its placement policy could not be created')
    expect(ownPools('wp')).toEqual([])

    const rerun = await create('wp', '--tpu-type', 'tpu7x-16', '--num-slices', '2', '--spot')
    expect(rerun.code).toBe(0)
    expect(ownPools('wp')).toEqual(['wp-np-0', 'wp-np-1'])
  })

  it('waits for a policy another run left CREATING, then creates the pools', async () => {
    compute.seedPolicy({
      project: PROJECT,
      region: REGION,
      name: POLICY,
      acceleratorTopology: '2x2x2',
      status: 'CREATING',
    })
    // The other run finishes it only after this run has looked it up and tried to create it (and got a 409).
    const finishing = (async () => {
      while (!compute.calls.some((c) => c.method === 'POST')) await new Promise((r) => setTimeout(r, 10))
      await new Promise((r) => setTimeout(r, 100))
      compute.setPolicyStatus(PROJECT, REGION, POLICY, 'READY')
    })()
    const result = await create('wp', '--tpu-type', 'tpu7x-16', '--num-slices', '2', '--spot')
    await finishing
    expect(result.stderr).toMatch(/policy\s+tpu7x-16-2x2x2-placement-policy\s+is still being created/)
    expect(result.code).toBe(0)
    expect(ownPools('wp')).toEqual(['wp-np-0', 'wp-np-1'])
  })

  it('does not create pools before the policy is READY when an operation poll fails', async () => {
    compute.settings.operationMs = 400
    compute.faults.push({method: 'GET', path: /operations\//, status: 503})
    const result = await create('wp', '--tpu-type', 'tpu7x-16', '--num-slices', '2', '--spot')
    expect(result.code).toBe(0)
    expect(ownPools('wp')).toEqual(['wp-np-0', 'wp-np-1'])
    // The failed read of the operation is retried on its own (one retry policy); the insert is never sent twice.
    expect(compute.mutatingCalls().map((c) => c.status)).toEqual([200])
    expect(
      compute.calls.filter((c) => c.method === 'GET' && /operations\//.test(c.path)).map((c) => c.status),
    ).toContain(503)
  })

  it('refuses a policy of that name with another topology before changing anything (exit 6)', async () => {
    compute.seedPolicy({project: PROJECT, region: REGION, name: POLICY, acceleratorTopology: '4x4x4'})
    const result = await create('wp', '--tpu-type', 'tpu7x-16', '--num-slices', '2', '--spot')
    expect(result.code).toBe(6)
    expect(result.stderr).toContain('accelerator topology 4x4x4 instead of 2x2x2')
    expect(result.stderr).toContain('gcloud compute resource-policies delete')
    expect(gke.mutatingCalls()).toEqual([])
  })
})
