import {spawn} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import * as grpc from '@grpc/grpc-js'
import {describe, expect, it} from 'vitest'

import {FakeGke, type SeedNodePool} from '../fakes/fake-gke.js'
import {isolatedEnv, REPO_ROOT, runCli} from '../helpers/cli.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile} from '../helpers/wire-fakes.js'
import {FakeCompute} from '../fakes/fake-compute.js'
import {expectGolden} from '../helpers/golden.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'
const BIN = join(REPO_ROOT, 'bin/run.js')

let fake: FakeGke
// cluster delete looks for the cluster's GPU networks in Compute Engine.
let compute: FakeCompute
const env = (extra: Record<string, string | undefined> = {}) =>
  isolatedEnv({XPK_GKE_ENDPOINT: `http://${fake.endpoint}`, XPK_COMPUTE_ENDPOINT: compute.endpoint, ...extra})
const target = ['--project', PROJECT, '--zone', ZONE]
const xpk = (...args: string[]) => runCli(args, {env: env()})

/** A multi-host TPU slice as xpk creates it (v5p-16: 2 VMs of 4 chips, 2x2x2). */
const v5pSlice = (name: string, extra: Partial<SeedNodePool> = {}): SeedNodePool => ({
  name,
  initialNodeCount: 2,
  config: {machineType: 'ct5p-hightpu-4t', spot: true},
  placementPolicy: {type: 'COMPACT', tpuTopology: '2x2x2'},
  ...extra,
})
const defaultPool: SeedNodePool = {name: 'default-pool', initialNodeCount: 6, config: {machineType: 'e2-standard-16'}}

function seed(name: string, location = REGION, nodePools: SeedNodePool[] = [defaultPool, v5pSlice(`${name}-np-0`)]) {
  return fake.seedCluster({project: PROJECT, location, name, nodePools})
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`

/**
 * Runs the CLI on a real pseudo-terminal (util-linux `script`), answers the first "(y/N)" prompt with `answer`
 * and returns everything the terminal showed (stdout and stderr share the terminal).
 */
function runInTerminal(
  args: readonly string[],
  answer: string,
  options: {env: Record<string, string>; timeoutMs?: number},
): Promise<{code: number | null; output: string; prompted: boolean}> {
  const command = [process.execPath, '--', BIN, ...args].map(shellQuote).join(' ')
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: REPO_ROOT,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let output = ''
  let prompted = false
  child.stdin.on('error', () => {}) // the terminal may be gone before we write
  const onData = (data: Buffer) => {
    output += data
    if (!prompted && output.includes('(y/N)')) {
      prompted = true
      child.stdin.write(answer)
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000)
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer)
      child.stdin.destroy()
      resolve({code, output, prompted})
    })
  })
}

fakesForFile(async (fakes) => {
  fake = fakes.add(await FakeGke.start({operationMs: 30}))
  compute = fakes.add(await FakeCompute.start({operationMs: 20}))
})

describe('cluster delete', () => {
  it('refuses without a terminal and without --force, and changes nothing', async () => {
    seed('keep')
    const result = await xpk('cluster', 'delete', ...target, '--cluster', 'keep')
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/no terminal to ask on/)
    expect(result.stderr).toContain('--force')
    expect(result.stderr).toContain(
      'Delete cluster keep in us-central2 with its 2 node pools (default-pool, keep-np-0)',
    )
    expect(fake.mutatingCalls()).toEqual([])
    expect(fake.cluster(PROJECT, REGION, 'keep')?.status).toBe('RUNNING')
  })

  it('deletes with --force and returns only once the cluster is gone', async () => {
    seed('doomed')
    fake.settings.operationMsByType.DELETE_CLUSTER = 400
    const result = await xpk('cluster', 'delete', ...target, '--cluster', 'doomed', '--force', '--json')
    expect(result.code).toBe(0)
    // No settling allowed: the CLI itself must have waited for the deletion to finish.
    expect(fake.cluster(PROJECT, REGION, 'doomed')).toBeUndefined()
    expect(JSON.parse(result.stdout)).toEqual({
      project: PROJECT,
      cluster: 'doomed',
      location: REGION,
      warnings: [],
      steps: [
        {
          action: 'delete',
          resource: 'cluster',
          name: 'doomed',
          reason: 'with its 2 node pools (default-pool, doomed-np-0) and every workload on them',
          spec: null,
        },
      ],
      outcome: 'deleted',
      nodePools: ['default-pool', 'doomed-np-0'],
      lock: {labels: 'xpk-lock-*', state: 'free', holder: null, ageSeconds: null, staleAfterSeconds: 10800},
    })
    expect(result.stderr).toMatch(/Deleted cluster doomed in \d+s\./)
    const deletes = fake.mutatingCalls()
    // The lock first (SetLabels), so no cluster create can be changing it; it goes with the cluster.
    expect(deletes.map((c) => [c.method, c.request.name])).toEqual([
      ['SetLabels', `projects/${PROJECT}/locations/${REGION}/clusters/doomed`],
      ['DeleteCluster', `projects/${PROJECT}/locations/${REGION}/clusters/doomed`],
    ])
    deletes.shift()
    // The operation is watched (one ListOperations per tick), then the cluster is read once more: gone.
    expect(fake.calls.filter((c) => c.method === 'ListOperations' && c.at >= deletes[0].at).length).toBeGreaterThan(0)
    const polls = fake.calls.filter((c) => c.method === 'GetCluster' && c.at >= deletes[0].at)
    expect(polls.length).toBeGreaterThanOrEqual(1)
    expect(polls.at(-1)!.at - deletes[0].at).toBeGreaterThanOrEqual(390)
    expect(polls.at(-1)!.code).toBe(grpc.status.NOT_FOUND)
  })

  it('treats a cluster that does not exist as done, with a note', async () => {
    const result = await xpk('cluster', 'delete', ...target, '--cluster', 'ghost', '--force', '--json')
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(
      'Cluster ghost does not exist in project e2e-project (us-central2 or us-central2-b): nothing to delete.',
    )
    expect(JSON.parse(result.stdout)).toMatchObject({
      cluster: 'ghost',
      outcome: 'absent',
      nodePools: [],
      steps: [{action: 'none', resource: 'cluster', name: 'ghost', reason: 'does not exist: nothing to delete'}],
    })
    expect(fake.mutatingCalls()).toEqual([])
    // Both places a cluster of that name could be were looked at.
    expect(fake.calls.filter((c) => c.method === 'GetCluster').map((c) => c.request.name)).toEqual([
      `projects/${PROJECT}/locations/${REGION}/clusters/ghost`,
      `projects/${PROJECT}/locations/${ZONE}/clusters/ghost`,
    ])
  })

  it('prints the plan on --dry-run and makes no mutating call', async () => {
    seed('planned', REGION, [defaultPool, v5pSlice('planned-np-0'), v5pSlice('planned-np-1')])
    const result = await xpk('cluster', 'delete', ...target, '--cluster', 'planned', '--dry-run')
    expect(result.code).toBe(0)
    expect(result.stdout.trim()).toBe(
      [
        'Plan for cluster planned (project e2e-project, us-central2):',
        '  -   delete   cluster  planned  with its 3 node pools (default-pool, planned-np-0, planned-np-1) and every workload on them',
        '  ~   lock     cluster  planned  free: taken while the plan is applied (labels xpk-lock-*) and released when the run ends',
        'Summary: 1 to delete, 0 unchanged.',
      ].join('\n'),
    )
    expect(result.stderr).toContain('Dry run: nothing was changed.')

    const json = await xpk('cluster', 'delete', ...target, '--cluster', 'planned', '--dry-run', '--json')
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toMatchObject({outcome: 'planned', location: REGION})
    expect(fake.mutatingCalls()).toEqual([])
    expect(fake.cluster(PROJECT, REGION, 'planned')?.status).toBe('RUNNING')
  })

  it('finds and deletes a zonal cluster', async () => {
    seed('zonal', ZONE, [defaultPool])
    const result = await xpk('cluster', 'delete', ...target, '--cluster', 'zonal', '--force', '--json')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({outcome: 'deleted', location: ZONE, nodePools: ['default-pool']})
    expect(fake.mutatingCalls().map((c) => [c.method, c.request.name])).toEqual([
      ['SetLabels', `projects/${PROJECT}/locations/${ZONE}/clusters/zonal`],
      ['DeleteCluster', `projects/${PROJECT}/locations/${ZONE}/clusters/zonal`],
    ])
    expect(fake.cluster(PROJECT, ZONE, 'zonal')).toBeUndefined()
  })

  it('reports a deletion that GKE fails, instead of waiting forever', async () => {
    seed('failing')
    fake.failOperations({
      type: 'DELETE_CLUSTER',
      code: grpc.status.INTERNAL,
      message: 'Internal error deleting the cluster.',
      times: 1,
    })
    const result = await xpk('cluster', 'delete', ...target, '--cluster', 'failing', '--force')
    expect(result.code).not.toBe(0)
    expect(result.signal).toBeNull()
    expect(result.stderr).toContain('Internal error deleting the cluster')
  })

  it('explains PERMISSION_DENIED with the role to grant, and exits 3', async () => {
    seed('locked')
    fake.faults.push({
      method: 'DeleteCluster',
      code: grpc.status.PERMISSION_DENIED,
      message:
        "Required 'container.clusters.delete' permission for 'projects/e2e-project/locations/us-central2/clusters/locked'.",
    })
    const result = await xpk('cluster', 'delete', ...target, '--cluster', 'locked', '--force')
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/^Error: /m)
    expect(result.stderr).toMatch(/Hint: .*roles\/container\.admin/)
    expect(fake.cluster(PROJECT, REGION, 'locked')?.status).toBe('RUNNING')
  })
})

describe('cluster list', () => {
  const seedThree = () => {
    seed('beta')
    seed('alpha', REGION, [defaultPool, v5pSlice('alpha-np-0'), v5pSlice('alpha-np-1')])
    seed('euro', 'europe-west4', [{name: 'default-pool', initialNodeCount: 3, config: {machineType: 'n2-standard-8'}}])
  }

  it('shows every location as a table sorted by location and name', async () => {
    seedThree()
    const result = await xpk('cluster', 'list', '--project', PROJECT)
    expect(result.code).toBe(0)
    // euro, alpha, beta: by location, then name.
    expectGolden('cli/cluster-list.txt', result.stdout)
    expect(fake.calls.map((c) => [c.method, c.request.parent])).toEqual([
      ['ListClusters', `projects/${PROJECT}/locations/-`],
    ])
  })

  it('prints a JSON array with --json', async () => {
    seedThree()
    const result = await xpk('cluster', 'list', '--project', PROJECT, '--json')
    expect(result.code).toBe(0)
    const clusters = JSON.parse(result.stdout)
    expect(clusters.map((c: {name: string}) => c.name)).toEqual(['euro', 'alpha', 'beta'])
    expect(clusters[2]).toMatchObject({
      project: PROJECT,
      name: 'beta',
      location: REGION,
      status: 'RUNNING',
      version: '1.34.5-gke.1200000',
      nodeLocations: ['us-central2-a', 'us-central2-b', 'us-central2-c'],
    })
    expect(clusters[2].nodePools).toEqual([
      expect.objectContaining({
        name: 'default-pool',
        machineType: 'e2-standard-16',
        nodeCount: 6,
        capacity: 'on-demand',
      }),
      expect.objectContaining({
        name: 'beta-np-0',
        status: 'RUNNING',
        machineType: 'ct5p-hightpu-4t',
        nodeCount: 2,
        tpuTopology: '2x2x2',
        placementType: 'COMPACT',
        capacity: 'spot',
        gpu: null,
      }),
    ])
  })

  it("narrows to the zone's region with --zone, zonal clusters included", async () => {
    seedThree()
    seed('zonal', ZONE)
    const result = await xpk('cluster', 'list', ...target, '--json')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).map((c: {name: string}) => c.name)).toEqual(['alpha', 'beta', 'zonal'])
    // Listed everywhere and filtered: asking for the region alone would leave out clusters in its zones.
    expect(fake.calls.map((c) => [c.method, c.request.parent])).toEqual([
      ['ListClusters', `projects/${PROJECT}/locations/-`],
    ])
  })

  it('says on stderr that the region has no cluster (stdout stays empty), and [] with --json', async () => {
    seed('elsewhere', 'europe-west4')
    const result = await xpk('cluster', 'list', ...target)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(`No clusters found in project ${PROJECT} in the region of zone ${ZONE}.`)
    const json = await xpk('cluster', 'list', '--project', 'empty-project', '--json')
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual([])
  })
})

describe('cluster describe', () => {
  const seedMixed = () =>
    seed('mixed', REGION, [
      defaultPool,
      v5pSlice('mixed-np-0'),
      v5pSlice('mixed-np-1', {
        config: {
          machineType: 'ct5p-hightpu-4t',
          reservationAffinity: {
            consumeReservationType: 'SPECIFIC_RESERVATION',
            key: 'compute.googleapis.com/reservation-name',
            values: ['res-a'],
          },
        },
        status: 'PROVISIONING',
      }),
      {
        name: 'gpus',
        initialNodeCount: 2,
        config: {
          machineType: 'a3-highgpu-8g',
          accelerators: [{acceleratorType: 'nvidia-h100-80gb', acceleratorCount: '8'}],
        },
      },
    ])

  it('shows the cluster and a table of its node pools', async () => {
    seedMixed()
    const result = await xpk('cluster', 'describe', ...target, '--cluster', 'mixed')
    expect(result.code).toBe(0)
    // Facts, then the node pools: TPU on-demand, spot and reservation, and GPU (no inside: no cluster to reach).
    expectGolden('cli/cluster-describe-gke.txt', result.stdout)
    expect(fake.mutatingCalls()).toEqual([])
  })

  it('prints the cluster as JSON with --json', async () => {
    seedMixed()
    const result = await xpk('cluster', 'describe', ...target, '--cluster', 'mixed', '--json')
    expect(result.code).toBe(0)
    const cluster = JSON.parse(result.stdout)
    expect(cluster).toMatchObject({project: PROJECT, name: 'mixed', location: REGION, status: 'RUNNING'})
    expect(cluster.nodePools.map((p: {name: string}) => p.name)).toEqual([
      'default-pool',
      'mixed-np-0',
      'mixed-np-1',
      'gpus',
    ])
    expect(cluster.nodePools[2]).toMatchObject({capacity: 'reservation', reservation: 'res-a', tpuTopology: '2x2x2'})
    expect(cluster.nodePools[3]).toMatchObject({gpu: {type: 'nvidia-h100-80gb', count: 8}, tpuTopology: null})
  })

  it('exits 4 with a hint when the cluster does not exist', async () => {
    const result = await xpk('cluster', 'describe', ...target, '--cluster', 'nope')
    expect(result.code).toBe(4)
    expect(result.stderr).toContain(
      'Error: Cluster nope not found in project e2e-project (us-central2 or us-central2-b).',
    )
    expect(result.stderr).toMatch(/Hint: .*xpk cluster list/)
    expect(result.stdout).toBe('')
  })
})

describe('prompts on a real terminal', () => {
  const createArgs = (slices: number) => [
    'cluster',
    'create',
    ...target,
    '--cluster',
    'tty',
    '--tpu-type',
    'v5litepod-16',
    '--num-slices',
    String(slices),
    '--spot',
    '--skip-in-cluster',
  ]
  const seedFourSlices = async () => {
    expect((await xpk(...createArgs(4))).code).toBe(0)
    fake.calls.length = 0
  }
  const ownPools = () =>
    fake
      .nodePools(PROJECT, REGION, 'tty')
      .map((p) => p.name)
      .filter((n) => n.startsWith('tty-np-'))
      .sort()

  it('shrinking 4 -> 2 answered "n" changes nothing and exits 1', async () => {
    await seedFourSlices()
    const result = await runInTerminal(createArgs(2), 'n\n', {env: env()})
    expect(result.prompted).toBe(true)
    expect(result.output).toMatch(/This deletes 2 node pools \(tty-np-2, tty-np-3\).*Continue\? \(y\/N\): /)
    expect(result.output).toContain('Nothing was changed.')
    expect(result.code).toBe(1)
    expect(fake.mutatingCalls()).toEqual([])
    expect(ownPools()).toEqual(['tty-np-0', 'tty-np-1', 'tty-np-2', 'tty-np-3'])
  })

  it('shrinking 4 -> 2 answered "y" deletes the extra slices', async () => {
    await seedFourSlices()
    const result = await runInTerminal(createArgs(2), 'y\n', {env: env()})
    expect(result.prompted).toBe(true)
    expect(result.code).toBe(0)
    expect(ownPools()).toEqual(['tty-np-0', 'tty-np-1'])
    expect(
      fake
        .mutatingCalls()
        .map((c) => `${c.method} ${c.request.name}`)
        .sort(),
    ).toEqual([
      `DeleteNodePool projects/${PROJECT}/locations/${REGION}/clusters/tty/nodePools/tty-np-2`,
      `DeleteNodePool projects/${PROJECT}/locations/${REGION}/clusters/tty/nodePools/tty-np-3`,
      `SetLabels projects/${PROJECT}/locations/${REGION}/clusters/tty`,
      `SetLabels projects/${PROJECT}/locations/${REGION}/clusters/tty`,
    ])
  })

  it('cluster delete answered "y" deletes the cluster', async () => {
    seed('bye')
    const result = await runInTerminal(['cluster', 'delete', ...target, '--cluster', 'bye'], 'y\n', {env: env()})
    expect(result.prompted).toBe(true)
    expect(result.output).toContain('This cannot be undone. Continue? (y/N): ')
    expect(result.output).toMatch(/Deleted cluster bye in \d+s\./)
    expect(result.code).toBe(0)
    expect(fake.cluster(PROJECT, REGION, 'bye')).toBeUndefined()
  })

  it('cluster delete answered "n" keeps the cluster and exits 1', async () => {
    seed('stay')
    const result = await runInTerminal(['cluster', 'delete', ...target, '--cluster', 'stay'], 'n\n', {env: env()})
    expect(result.prompted).toBe(true)
    expect(result.output).toContain('Nothing was deleted.')
    expect(result.code).toBe(1)
    expect(fake.mutatingCalls()).toEqual([])
    expect(fake.cluster(PROJECT, REGION, 'stay')?.status).toBe('RUNNING')
  })
})

describe('where project and zone come from', () => {
  const emptyGcloud = () => tempDir('xpk-gcloud-empty-')

  it('exits 2 naming --project when nothing sets the project, before any API call', async () => {
    const commands = [
      ['cluster', 'list'],
      ['cluster', 'describe', '--zone', ZONE, '--cluster', 'c'],
      ['cluster', 'delete', '--zone', ZONE, '--cluster', 'c', '--force'],
      ['cluster', 'create', '--zone', ZONE, '--cluster', 'c', '--tpu-type', 'v5p-8', '--spot'],
    ]
    for (const args of commands) {
      const result = await runCli(args, {env: env({CLOUDSDK_CONFIG: emptyGcloud()})})
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toMatch(/^Error: .*Missing --project/m)
    }
    expect(fake.callCount()).toBe(0)
  })

  it('exits 2 naming --zone when nothing sets the zone', async () => {
    const result = await runCli(['cluster', 'describe', '--project', PROJECT, '--cluster', 'c'], {
      env: env({CLOUDSDK_CONFIG: emptyGcloud()}),
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^Error: Missing --zone/m)
    expect(result.stderr).toMatch(/Hint: .*XPK_ZONE.*gcloud config set compute\/zone/)
    expect(fake.callCount()).toBe(0)
  })

  it('uses the active gcloud configuration and says so with --verbose', async () => {
    const gcloud = tempDir('xpk-gcloud-')
    writeFileSync(join(gcloud, 'active_config'), 'default\n')
    mkdirSync(join(gcloud, 'configurations'))
    writeFileSync(
      join(gcloud, 'configurations', 'config_default'),
      '[core]\nproject = from-gcloud\n[compute]\nzone = us-central2-b\n',
    )
    fake.seedCluster({project: 'from-gcloud', location: REGION, name: 'gc', nodePools: [defaultPool]})
    const result = await runCli(['cluster', 'describe', '--cluster', 'gc', '--verbose'], {
      env: env({CLOUDSDK_CONFIG: gcloud}),
    })
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Project:\s+from-gcloud$/m)
    expect(result.stderr).toContain('project = from-gcloud (from gcloud property core/project)')
    expect(result.stderr).toContain('zone = us-central2-b (from gcloud property compute/zone)')
    expect(fake.calls.map((c) => [c.method, c.request.name])).toEqual([
      ['GetCluster', `projects/from-gcloud/locations/${REGION}/clusters/gc`],
    ])

    // A flag still wins over gcloud.
    fake.calls.length = 0
    const flagged = await runCli(['cluster', 'delete', '--cluster', 'gc', '--project', PROJECT, '--dry-run'], {
      env: env({CLOUDSDK_CONFIG: gcloud}),
    })
    expect(flagged.code).toBe(0)
    expect(fake.calls.map((c) => c.request.name)).toEqual([
      `projects/${PROJECT}/locations/${REGION}/clusters/gc`,
      `projects/${PROJECT}/locations/${ZONE}/clusters/gc`,
    ])
  })
})
