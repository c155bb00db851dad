import * as grpc from '@grpc/grpc-js'
import {describe, expect, it} from 'vitest'

import {FakeCompute} from '../fakes/fake-compute.js'
import {FakeGke, gkeErrors} from '../fakes/fake-gke.js'
import {isolatedEnv, runCli, startCli} from '../helpers/cli.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {fakesForFile} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'

let fake: FakeGke
let compute: FakeCompute
const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${fake.endpoint}`, XPK_COMPUTE_ENDPOINT: compute.endpoint})
const createArgs = (cluster: string, ...extra: string[]) => [
  'cluster',
  'create',
  '--project',
  PROJECT,
  '--zone',
  ZONE,
  '--cluster',
  cluster,
  // The GKE half: the in-cluster half runs against the Kubernetes fake in cluster-in-cluster.test.ts.
  '--skip-in-cluster',
  ...extra,
]
const create = (cluster: string, ...extra: string[]) => runCli(createArgs(cluster, ...extra), {env: env()})
const pools = (cluster: string) =>
  fake
    .nodePools(PROJECT, REGION, cluster)
    .map((p) => p.name)
    .sort()
const ownPools = (cluster: string) => pools(cluster).filter((n) => n.startsWith(`${cluster}-np-`))

fakesForFile(async (fakes) => {
  fake = fakes.add(await FakeGke.start({operationMs: 30}))
  compute = fakes.add(await FakeCompute.start())
})

describe('cluster create against the GKE API', () => {
  it('creates a regional cluster and one node pool per slice, with the fields xpk sets', async () => {
    const result = await create('fresh', '--tpu-type', 'v5p-16', '--num-slices', '2', '--spot')
    expect(result.stderr).toContain('created the cluster, created 2/2 node pools')
    expect(result.code).toBe(0)

    const cluster = fake.cluster(PROJECT, REGION, 'fresh')!
    expect(cluster.status).toBe('RUNNING')
    expect(cluster.locations).toEqual([ZONE])
    // Created with the run's lock among its labels, released at the end: the generation stays.
    expect(cluster.resourceLabels).toEqual({gke_product_type: 'xpk', 'xpk-generation': '1'})
    const created = fake.calls.find((c) => c.method === 'CreateCluster')!
    expect((created.request.cluster as {resourceLabels: Record<string, string>}).resourceLabels).toMatchObject({
      gke_product_type: 'xpk',
      'xpk-lock': expect.stringMatching(/^[0-9a-f]{16}$/),
      'xpk-lock-pid': expect.stringMatching(/^\d+$/),
      'xpk-lock-command': 'cluster-create',
      'xpk-generation': '1',
    })
    expect(cluster.releaseChannel?.channel).toBe('RAPID')
    expect(cluster.currentMasterVersion).toBe('1.35.1-gke.1000000')

    expect(pools('fresh')).toEqual(['default-pool', 'fresh-np-0', 'fresh-np-1'])
    const np0 = fake.nodePool(PROJECT, REGION, 'fresh', 'fresh-np-0')!
    expect(np0.status).toBe('RUNNING')
    expect(np0.config?.machineType).toBe('ct5p-hightpu-4t')
    expect(np0.config?.spot).toBe(true)
    expect(np0.initialNodeCount).toBe(2)
    expect(np0.locations).toEqual([ZONE])
    expect(np0.placementPolicy).toMatchObject({type: 'COMPACT', tpuTopology: '2x2x2'})
    expect(Number(np0.maxPodsConstraint?.maxPodsPerNode)).toBe(15)
    expect(np0.config?.gvnic?.enabled).toBe(true)
    expect(np0.config?.oauthScopes).toContain('https://www.googleapis.com/auth/cloud-platform')
    expect(np0.version).toBe('1.35.1-gke.1000000')
  })

  it('grows 2 -> 4 by creating only the missing slices', async () => {
    expect((await create('grow', '--tpu-type', 'v5litepod-16', '--num-slices', '2', '--on-demand')).code).toBe(0)
    fake.calls.length = 0
    const result = await create('grow', '--tpu-type', 'v5litepod-16', '--num-slices', '4', '--on-demand')
    expect(result.code).toBe(0)
    expect(ownPools('grow')).toEqual(['grow-np-0', 'grow-np-1', 'grow-np-2', 'grow-np-3'])
    const mutating = fake
      .mutatingCalls()
      .map((c) => `${c.method} ${(c.request.nodePool as {name?: string})?.name ?? ''}`)
    // The lock taken before the changes and released after them.
    expect(mutating).toEqual(['SetLabels ', 'CreateNodePool grow-np-2', 'CreateNodePool grow-np-3', 'SetLabels '])
  })

  it('refuses to shrink without a terminal or --force, and changes nothing', async () => {
    expect((await create('shrink', '--tpu-type', 'v5litepod-16', '--num-slices', '4', '--spot')).code).toBe(0)
    fake.calls.length = 0
    const refused = await create('shrink', '--tpu-type', 'v5litepod-16', '--num-slices', '2', '--spot')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/no terminal to ask on/)
    expect(refused.stderr).toContain('--force')
    expect(refused.stderr).toMatch(/-\s+delete\s+nodepool shrink-np-2/)
    expect(fake.mutatingCalls()).toEqual([])
    expect(ownPools('shrink')).toHaveLength(4)

    const forced = await create('shrink', '--tpu-type', 'v5litepod-16', '--num-slices', '2', '--spot', '--force')
    expect(forced.code).toBe(0)
    expect(ownPools('shrink')).toEqual(['shrink-np-0', 'shrink-np-1'])
  })

  it('recreates every slice when the accelerator type changes, deleting before creating', async () => {
    expect((await create('retype', '--tpu-type', 'v5p-16', '--num-slices', '2', '--spot')).code).toBe(0)
    fake.calls.length = 0
    const result = await create('retype', '--tpu-type', 'v6e-16', '--num-slices', '2', '--spot', '--force')
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(
      /recreate\s+nodepool retype-np-0\s+differs from the request: machine type ct5p-hightpu-4t → ct6e-standard-4t/,
    )
    for (const name of ['retype-np-0', 'retype-np-1']) {
      expect(fake.nodePool(PROJECT, REGION, 'retype', name)?.config?.machineType).toBe('ct6e-standard-4t')
    }
    const order = fake.mutatingCalls().map((c) => c.method)
    expect(order.lastIndexOf('DeleteNodePool')).toBeLessThan(order.indexOf('CreateNodePool'))
    expect(pools('retype')).toContain('default-pool')
  })

  it('makes no mutating call when re-run after success', async () => {
    expect((await create('again', '--tpu-type', 'v6e-8', '--num-slices', '3', '--flex')).code).toBe(0)
    fake.calls.length = 0
    const result = await create('again', '--tpu-type', 'v6e-8', '--num-slices', '3', '--flex')
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('No changes: the cluster already matches.')
    expect(fake.mutatingCalls()).toEqual([])
  })

  it('converges through a storm of transient faults without duplicate or leaked pools', async () => {
    fake.faults.push(
      {method: 'CreateCluster', code: grpc.status.UNAVAILABLE, message: 'connection reset', times: 2},
      // The pool is created but the answer is lost: the retry sees ALREADY_EXISTS and must treat it as done.
      {
        method: 'CreateNodePool',
        code: grpc.status.UNAVAILABLE,
        message: 'upstream connect error',
        times: 3,
        afterApply: true,
      },
      {method: 'CreateNodePool', code: grpc.status.UNAVAILABLE, message: 'unavailable', times: 4},
      {method: 'ListOperations', code: grpc.status.DEADLINE_EXCEEDED, message: 'deadline', times: 5},
      {method: 'GetNodePool', code: grpc.status.UNAVAILABLE, message: 'unavailable', times: 3},
      {
        method: 'CreateNodePool',
        code: grpc.status.RESOURCE_EXHAUSTED,
        message: "Quota exceeded for quota metric 'Requests' per minute",
        times: 2,
      },
    )
    const result = await create('storm', '--tpu-type', 'v5litepod-16', '--num-slices', '6', '--spot')
    expect(result.stderr).toContain('created 6/6 node pools')
    expect(result.code).toBe(0)
    expect(ownPools('storm')).toEqual([
      'storm-np-0',
      'storm-np-1',
      'storm-np-2',
      'storm-np-3',
      'storm-np-4',
      'storm-np-5',
    ])
    expect(fake.nodePools(PROJECT, REGION, 'storm').every((p) => p.status === 'RUNNING')).toBe(true)
    expect(fake.faults.filter((f) => (f.times ?? 1) > 0)).toEqual([])
  })

  it.each([
    ['incompatible-operation', grpc.status.FAILED_PRECONDITION],
    ['too-many-operations', grpc.status.RESOURCE_EXHAUSTED],
  ] as const)("waits out GKE's limit on concurrent operations (%s)", async (form, code) => {
    fake.settings.maxConcurrentOperationsPerCluster = 2
    fake.settings.concurrencyLimitError = form
    const result = await create('limited', '--tpu-type', 'v5litepod-16', '--num-slices', '6', '--on-demand')
    expect(result.code).toBe(0)
    expect(ownPools('limited')).toHaveLength(6)
    expect(fake.calls.some((c) => c.method === 'CreateNodePool' && c.code === code)).toBe(true)
  })

  it('reports a stockout with its hint, keeps the rest, and finishes on re-run', async () => {
    fake.failOperations({
      type: 'CREATE_NODE_POOL',
      match: (t) => t.nodePool === 'stock-np-2',
      ...gkeErrors.stockout(),
      times: 1,
    })
    const failed = await create('stock', '--tpu-type', 'v5litepod-16', '--num-slices', '4', '--spot')
    expect(failed.code).toBe(5)
    expect(failed.stderr).toContain('created 3/4 node pools')
    expect(failed.stderr).toMatch(/stock-np-2: .*does not have enough resources available/)
    expect(failed.stderr).toMatch(/stockout.*--reservation.*--spot.*--flex.*--zone/)
    expect(fake.nodePool(PROJECT, REGION, 'stock', 'stock-np-2')?.status).toBe('ERROR')

    expect(failed.stderr).toContain('replaces those in ERROR')
    // No terminal and no --force: replacing a pool that never had a node asks nothing, so this re-run just works.
    const retried = await create('stock', '--tpu-type', 'v5litepod-16', '--num-slices', '4', '--spot')
    expect(retried.stderr).toMatch(
      /recreate\s+nodepool stock-np-2\s+in ERROR state.*never provisioned: nothing is lost/,
    )
    expect(retried.code).toBe(0)
    expect(fake.nodePools(PROJECT, REGION, 'stock').every((p) => p.status === 'RUNNING')).toBe(true)
  })

  it('converges when re-run after the process was killed mid-way', async () => {
    fake.settings.operationMs = 400
    const run = startCli(
      createArgs('killed', '--tpu-type', 'v5litepod-16', '--num-slices', '5', '--spot', '--max-parallel', '2'),
      {env: env()},
    )
    // Kill once the first node-pool creations are under way: two pools provisioning, three not started.
    for (let i = 0; i < 500 && fake.calls.filter((c) => c.method === 'CreateNodePool').length < 2; i++) {
      await new Promise((r) => setTimeout(r, 10))
    }
    run.child.kill('SIGKILL')
    const killed = await run.done
    expect(killed.signal).toBe('SIGKILL')
    expect(ownPools('killed')).toHaveLength(2)
    expect(fake.nodePools(PROJECT, REGION, 'killed').some((p) => p.status === 'PROVISIONING')).toBe(true)

    fake.settings.operationMs = 30
    const resumed = await create('killed', '--tpu-type', 'v5litepod-16', '--num-slices', '5', '--spot')
    expect(resumed.code).toBe(0)
    expect(ownPools('killed')).toEqual(['killed-np-0', 'killed-np-1', 'killed-np-2', 'killed-np-3', 'killed-np-4'])
    await fake.settled()
    expect(fake.nodePools(PROJECT, REGION, 'killed').every((p) => p.status === 'RUNNING')).toBe(true)
  })

  it('stops on Ctrl-C with exit 130 and a resume hint, and a re-run finishes the job', async () => {
    fake.settings.operationMs = 1500
    const run = startCli(createArgs('ctrlc', '--tpu-type', 'v5litepod-16', '--num-slices', '3', '--spot'), {env: env()})
    for (let i = 0; i < 500 && fake.calls.filter((c) => c.method === 'CreateNodePool').length < 3; i++) {
      await new Promise((r) => setTimeout(r, 10))
    }
    run.child.kill('SIGINT')
    const interrupted = await run.done
    expect(interrupted.code).toBe(130)
    expect(interrupted.stderr).toContain('Interrupted')
    expect(interrupted.stderr).toContain('Re-run the same command')

    fake.settings.operationMs = 30
    const resumed = await create('ctrlc', '--tpu-type', 'v5litepod-16', '--num-slices', '3', '--spot')
    expect(resumed.code).toBe(0)
    expect(ownPools('ctrlc')).toEqual(['ctrlc-np-0', 'ctrlc-np-1', 'ctrlc-np-2'])
    expect(fake.nodePools(PROJECT, REGION, 'ctrlc').every((p) => p.status === 'RUNNING')).toBe(true)
    expect(fake.mutatingCalls().filter((c) => c.method === 'CreateNodePool')).toHaveLength(3)
  })

  it.each(['SIGTERM', 'SIGHUP'] as const)(
    'stops on %s like Ctrl-C: exit 130, says what was sent, and a re-run finishes',
    async (signal) => {
      const name = signal.toLowerCase()
      fake.settings.operationMs = 1500
      const run = startCli(createArgs(name, '--tpu-type', 'v5litepod-16', '--num-slices', '2', '--spot'), {env: env()})
      for (let i = 0; i < 500 && fake.calls.filter((c) => c.method === 'CreateNodePool').length < 2; i++) {
        await new Promise((r) => setTimeout(r, 10))
      }
      run.child.kill(signal)
      const stopped = await run.done
      expect([stopped.code, stopped.signal]).toEqual([130, null])
      expect(stopped.stderr).toContain('Interrupted: operations already sent to GKE')
      expect(stopped.stderr).toContain('Re-run the same command')

      fake.settings.operationMs = 30
      const resumed = await create(name, '--tpu-type', 'v5litepod-16', '--num-slices', '2', '--spot')
      expect(resumed.code).toBe(0)
      expect(ownPools(name)).toEqual([`${name}-np-0`, `${name}-np-1`])
    },
  )

  it('never touches pools it does not own', async () => {
    fake.seedCluster({
      project: PROJECT,
      location: REGION,
      name: 'shared',
      nodePools: [
        {name: 'default-pool', config: {machineType: 'e2-standard-16'}, initialNodeCount: 3},
        {name: 'team-gpus', config: {machineType: 'a2-highgpu-1g'}, initialNodeCount: 1},
      ],
    })
    const result = await create('shared', '--tpu-type', 'v5p-8', '--num-slices', '0', '--on-demand')
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/=\s+none\s+nodepool team-gpus\s+not managed by xpk/)
    expect(fake.mutatingCalls()).toEqual([])
  })
})

describe('cluster create: CSI drivers and Workload Identity', () => {
  /** Mutating calls as `Method target`, where an UpdateCluster's target is the ClusterUpdate field it sets. */
  const mutating = (calls = fake.mutatingCalls()) =>
    calls.map((c) => {
      const update = c.request.update as Record<string, unknown> | undefined
      return `${c.method} ${update ? Object.keys(update).join() : ((c.request.name as string) ?? '').split('/').at(-1)}`
    })

  it('creates a new cluster with them in its create request', async () => {
    const drivers = ['--enable-gcsfuse-csi-driver', '--enable-parallelstore-csi-driver']
    const result = await create('stored', '--tpu-type', 'v5p-8', '--spot', ...drivers)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(
      'workload identity (pool e2e-project.svc.id.goog), addons GcsFuseCsiDriver, ParallelstoreCsiDriver in the create request',
    )
    const created = fake.calls.find((c) => c.method === 'CreateCluster')!.request.cluster as Record<string, unknown>
    expect(created).toMatchObject({
      addonsConfig: {gcsFuseCsiDriverConfig: {enabled: true}, parallelstoreCsiDriverConfig: {enabled: true}},
      workloadIdentityConfig: {workloadPool: 'e2e-project.svc.id.goog'},
    })
    expect(fake.callCount('UpdateCluster')).toBe(0)
    const np0 = fake.nodePool(PROJECT, REGION, 'stored', 'stored-np-0')!
    expect(np0.config?.workloadMetadataConfig).toEqual({mode: 'GKE_METADATA'})
  })

  it('updates an existing cluster one change at a time, switches its pools, and a re-run sends nothing', async () => {
    expect((await create('later', '--tpu-type', 'v5p-8', '--spot')).code).toBe(0)
    fake.calls.length = 0
    const flags = ['--enable-gcsfuse-csi-driver', '--enable-lustre-csi-driver', '--enable-legacy-lustre-port']
    const asked = await create('later', '--tpu-type', 'v5p-8', '--spot', ...flags)
    // Switching a pool to the GKE metadata server recreates its nodes: asked first, refused without a terminal.
    expect(asked.code).toBe(2)
    expect(asked.stderr).toMatch(/~\s+update\s+nodepool later-np-0\s+workload metadata GKE_METADATA/)
    expect(mutating()).toEqual([])

    const result = await create('later', '--tpu-type', 'v5p-8', '--spot', ...flags, '--force')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/~\s+update\s+cluster\s+later\s+workload identity \(pool e2e-project.svc.id.goog\)/)
    expect(result.stderr).toMatch(
      /~\s+update\s+cluster\s+later\s+addons GcsFuseCsiDriver, LustreCsiDriver \(Lustre on its legacy port 6988\)/,
    )
    // Refused attempts (the lock's SetLabels still running) are retried: the order of what went through counts.
    expect(mutating(fake.mutatingCalls().filter((c) => c.code === grpc.status.OK))).toEqual([
      'SetLabels later',
      'UpdateCluster desiredWorkloadIdentityConfig',
      'UpdateCluster desiredAddonsConfig',
      'UpdateNodePool later-np-0',
      'SetLabels later',
    ])
    const cluster = fake.cluster(PROJECT, REGION, 'later')!
    expect(cluster.workloadIdentityConfig).toEqual({workloadPool: 'e2e-project.svc.id.goog'})
    expect(cluster.addonsConfig).toMatchObject({
      gcsFuseCsiDriverConfig: {enabled: true},
      lustreCsiDriverConfig: {enabled: true, enableLegacyLustrePort: true},
    })
    expect(fake.nodePool(PROJECT, REGION, 'later', 'later-np-0')?.config?.workloadMetadataConfig).toEqual({
      mode: 'GKE_METADATA',
    })

    fake.calls.length = 0
    const again = await create('later', '--tpu-type', 'v5p-8', '--spot', ...flags)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(
      /=\s+none\s+cluster\s+later\s+addons GcsFuseCsiDriver, LustreCsiDriver .*: already enabled/,
    )
    expect(mutating()).toEqual([])
  })
})

describe('cluster create plans', () => {
  it('prints the plan as JSON on --dry-run against live state, with zero mutating calls', async () => {
    expect((await create('planned', '--tpu-type', 'v5p-16', '--num-slices', '1', '--spot')).code).toBe(0)
    compute.seedReservation({
      project: PROJECT,
      zone: ZONE,
      name: 'res-a',
      specific: {machineType: 'ct5p-hightpu-4t', count: 4},
    })
    fake.calls.length = 0
    const result = await create(
      'planned',
      '--tpu-type',
      'v5p-16',
      '--num-slices',
      '2',
      '--reservation',
      'res-a',
      '--dry-run',
      '--json',
    )
    expect(result.code).toBe(0)
    const plan = JSON.parse(result.stdout)
    expect(plan.steps.map((s: {action: string; name: string}) => `${s.action} ${s.name}`)).toEqual([
      'none planned',
      'recreate planned-np-0',
      'create planned-np-1',
      'none default-pool',
    ])
    expect(plan.steps[2].spec).toMatchObject({
      machineType: 'ct5p-hightpu-4t',
      nodeCount: 2,
      tpuTopology: '2x2x2',
      capacity: 'reservation',
      reservation: 'res-a',
      placementPolicy: 'COMPACT',
    })
    expect(plan.steps[1].reason).toContain('capacity spot → reservation')
    expect(fake.mutatingCalls()).toEqual([])
  })

  it('rejects bad input with exit 2 before any API call', async () => {
    const cases = [
      ['--cluster', 'Bad_Name', '--tpu-type', 'v5p-8', '--spot'],
      ['--cluster', 'ok', '--zone', 'uscentral2', '--tpu-type', 'v5p-8', '--spot'],
      ['--cluster', 'ok', '--tpu-type', 'v5p-8', '--num-slices', '-1', '--spot'],
      ['--cluster', 'ok', '--tpu-type', 'v5p-8', '--spot', '--on-demand'],
      ['--cluster', 'ok', '--tpu-type', 'v5p-9', '--spot'],
      ['--cluster', 'ok', '--tpu-type', 'v5p-8'],
      ['--cluster', 'ok', '--tpu-type', 'v5p-8', '--spot', '--custom-nodepool-arguments', '--frobnicate=1'],
      ['--cluster', 'ok', '--tpu-type', 'v5p-8', '--spot', '--enable-legacy-lustre-port'],
    ]
    for (const args of cases) {
      const zone = args.includes('--zone') ? [] : ['--zone', ZONE]
      const result = await runCli(['cluster', 'create', '--project', PROJECT, ...zone, ...args], {env: env()})
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toMatch(/^Error: /)
    }
    expect(fake.callCount()).toBe(0)
  })
})

describe('cluster create --reservation against the Compute fake', () => {
  it('refuses a reservation without room with exit 2 and the numbers, changing nothing; --force goes on', async () => {
    // v5p-128: slices of 16 VMs; 12 of 64 free holds none of the 4 asked for.
    compute.seedReservation({
      project: PROJECT,
      zone: ZONE,
      name: 'r1',
      specific: {machineType: 'ct5p-hightpu-4t', count: 64, inUseCount: 52},
    })
    const args = ['--tpu-type', 'v5p-128', '--num-slices', '4', '--reservation', 'r1']
    const fakes = {gke: fake, compute}
    const mark = markRequests(fakes)
    const refused = await create('reserved', ...args)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(
      '--reservation: reservation r1 has 12 of 64 VMs free; 4 new slices of v5p-128 need 64 (16 VMs each).',
    )
    expect(refused.stderr).toContain('re-run with --force')
    expect(mutationsSince(fakes, mark)).toEqual([])
    expect(compute.calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      `GET projects/${PROJECT}/zones/${ZONE}/reservations/r1 200`,
    ])

    const missing = await create('reserved', '--tpu-type', 'v5p-128', '--reservation', 'nope')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain(`--reservation: no reservation nope in project ${PROJECT}, zone ${ZONE}.`)
    expect(mutationsSince(fakes, mark)).toEqual([])

    const forced = await create('reserved', ...args, '--force', '--json')
    expect(forced.code, forced.stderr).toBe(0)
    const result = JSON.parse(forced.stdout)
    expect(result.warnings).toEqual([
      'reservation r1 has 12 of 64 VMs free; 4 new slices of v5p-128 need 64 (16 VMs each); going on because of --force.',
    ])
    expect(ownPools('reserved')).toEqual(['reserved-np-0', 'reserved-np-1', 'reserved-np-2', 'reserved-np-3'])
    expect(fake.nodePool(PROJECT, REGION, 'reserved', 'reserved-np-0')?.config?.reservationAffinity?.values).toEqual([
      'r1',
    ])
  })
})
