import {spawn, spawnSync} from 'node:child_process'
import {chmodSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {FakeCompute} from '../fakes/fake-compute.js'
import {FakeGke} from '../fakes/fake-gke.js'
import {isolatedEnv, REPO_ROOT, runCli} from '../helpers/cli.js'
import {fakesForFile} from '../helpers/wire-fakes.js'
import {tempDir} from '../helpers/temp.js'

const GUIDE = join(REPO_ROOT, 'xpk-large-scale-guide.sh')
const BIN = join(REPO_ROOT, 'bin/run.js')
const TOPICS = new Set(['cluster', 'workload', 'config', 'accelerator'])

interface Invocation {
  readonly command: string
  readonly flags: readonly string[]
  readonly line: string
}

/**
 * Every `xpk TOPIC COMMAND --flag ...` in the guide, code and comments alike, with continuation lines joined.
 * A command's flags run to the end of its line or to the first | ; & ` or ).
 */
function xpkInvocations(text: string): Invocation[] {
  const found: Invocation[] = []
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    for (const match of line.matchAll(/(?<![\w-])xpk ([a-z]+)(?: ([a-z]+))?/g)) {
      const [, topic, sub] = match
      if (topic !== 'version' && !(TOPICS.has(topic) && sub)) continue
      const command = topic === 'version' ? 'version' : `${topic} ${sub}`
      const rest = line.slice(match.index + match[0].length).split(/[|;&`)]/)[0]
      const flags = [...rest.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1])
      found.push({command, flags, line: line.trim()})
    }
  }
  return found
}

/** Flags an xpk command's --help lists (a `--[no-]x` flag counts as both spellings). */
async function helpFlags(command: string): Promise<Set<string>> {
  const help = await runCli([...command.split(' '), '--help'])
  expect(help.code, `xpk ${command} --help`).toBe(0)
  const flags = new Set<string>()
  for (const m of help.stdout.matchAll(/--(\[no-\])?([a-z][a-z0-9-]*)/g)) {
    flags.add(m[2])
    if (m[1]) flags.add(`no-${m[2]}`)
  }
  return flags
}

function runGuide(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{code: number | null; stdout: string; stderr: string}> {
  const child = spawn('bash', [GUIDE, ...args], {cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    }),
  )
}

describe('xpk-large-scale-guide.sh', () => {
  const text = readFileSync(GUIDE, 'utf8')

  it('is valid bash and lists its steps in order when run without arguments', () => {
    const syntax = spawnSync('bash', ['-n', GUIDE], {encoding: 'utf8'})
    expect(syntax.stderr).toBe('')
    expect(syntax.status).toBe(0)

    const listed = spawnSync('bash', [GUIDE], {encoding: 'utf8', env: {PATH: process.env.PATH}})
    expect(listed.status).toBe(0)
    const steps = [...listed.stdout.matchAll(/^ {2}(step_(\d+)_\w+) {2,}\S/gm)]
    expect(steps.map((m) => Number(m[2]))).toEqual(steps.map((_, i) => i))
    expect(steps.length).toBeGreaterThanOrEqual(10)
    const defined = [...text.matchAll(/^(step_\d+_\w+)\(\) \{$/gm)].map((m) => m[1])
    expect(steps.map((m) => m[1])).toEqual(defined)

    const unknown = spawnSync('bash', [GUIDE, 'step_99_nothing'], {encoding: 'utf8', env: {PATH: process.env.PATH}})
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain("Unknown step 'step_99_nothing'.")
  })

  it('uses only xpk commands and flags that exist', async () => {
    const invocations = xpkInvocations(text)
    // Flags passed to `xpk cluster create` through the control-plane array of create_cluster.
    const arrayFlags = [...text.matchAll(/control_plane\+?=\(([^)]*)\)/g)].flatMap((m) =>
      [...m[1].matchAll(/--([a-z][a-z0-9-]*)/g)].map((f) => f[1]),
    )
    invocations.push({command: 'cluster create', flags: arrayFlags, line: 'control_plane=(...)'})

    const commands = new Set(invocations.map((i) => i.command))
    expect([...commands].sort()).toEqual(
      expect.arrayContaining([
        'accelerator describe',
        'cluster create',
        'cluster delete',
        'cluster describe',
        'workload create',
      ]),
    )
    const createFlags = new Set(invocations.filter((i) => i.command === 'cluster create').flatMap((i) => i.flags))
    for (const flag of [
      'network',
      'subnetwork',
      'private',
      'enable-private-endpoint',
      'authorized-networks',
      'default-pool-cpu-machine-type',
      'max-pods-per-node',
      'gke-version',
      'max-parallel',
      'num-slices',
      'reservation',
    ]) {
      expect(createFlags, flag).toContain(flag)
    }

    const known = new Map<string, Set<string>>()
    for (const command of commands) known.set(command, await helpFlags(command))
    const unknown = invocations.flatMap((i) =>
      i.flags.filter((f) => !known.get(i.command)!.has(f)).map((f) => `xpk ${i.command} --${f}  (in: ${i.line})`),
    )
    expect(unknown).toEqual([])
  })
})

describe('xpk-large-scale-guide.sh against the GKE fake', () => {
  let fake: FakeGke
  let compute: FakeCompute
  fakesForFile(
    async (fakes) => {
      fake = fakes.add(await FakeGke.start({operationMs: 30}))
      compute = fakes.add(await FakeCompute.start())
    },
    {reset: false},
  )

  /** A gcloud stand-in that logs its arguments and answers the guide's read-only questions. */
  function stubGcloud(): {dir: string; log: string} {
    const dir = tempDir('xpk-guide-bin-')
    const log = join(dir, 'gcloud.log')
    writeFileSync(log, '')
    writeFileSync(
      join(dir, 'gcloud'),
      `#!/usr/bin/env bash
printf '%s\\n' "$*" >> '${log}'
case "$*" in
  "auth list"*) echo someone@example.com ;;
  "container get-server-config"*) printf 'channels:\n  validVersions:\n  - 1.34.5-gke.1200000\n' ;;
  "compute regions describe"*)
    echo '{"quotas":[{"metric":"TPU_LITE_PODSLICE_V5","usage":0,"limit":64},{"metric":"CPUS","usage":8,"limit":2400}]}' ;;
  "compute reservations describe"*)
    echo '{"name":"res-guide","specificReservation":{"count":"16","inUseCount":"4","instanceProperties":{"machineType":"ct5lp-hightpu-4t"}}}' ;;
esac
`,
    )
    chmodSync(join(dir, 'gcloud'), 0o755)
    return {dir, log}
  }

  const PROJECT = 'guide-project'
  const REGION = 'us-central2'

  it('runs its steps end to end: network, plan, create, waves, progress, teardown', async () => {
    fake.reset()
    compute.reset()
    // cluster create reads the reservation before planning: room for the guide's 4 slices of 4 VMs.
    compute.seedReservation({
      project: 'guide-project',
      zone: 'us-central2-b',
      name: 'res-guide',
      specific: {machineType: 'ct5lp-hightpu-4t', count: 16},
    })
    const gcloud = stubGcloud()
    const env = (extra: Record<string, string> = {}) =>
      isolatedEnv({
        PATH: `${gcloud.dir}:${process.env.PATH}`,
        XPK_GKE_ENDPOINT: `http://${fake.endpoint}`,
        XPK_COMPUTE_ENDPOINT: compute.endpoint,
        XPK_BIN: `${process.execPath} -- ${BIN}`,
        PROJECT,
        ZONE: 'us-central2-b',
        CLUSTER: 'guide',
        TPU_TYPE: 'v5litepod-16',
        NUM_SLICES: '4',
        FIRST_WAVE: '1',
        RESERVATION: 'res-guide',
        GKE_VERSION: '1.34.5-gke.1200000',
        // The GKE waves are under test here; the in-cluster half has its own test (cluster-in-cluster.test.ts).
        CREATE_FLAGS: '--skip-in-cluster',
        ...extra,
      })
    const step = async (args: string[], extra?: Record<string, string>) => {
      const result = await runGuide(args, env(extra))
      expect(result.code, `${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0)
      return result
    }
    const gcloudCalls = () => readFileSync(gcloud.log, 'utf8').trim().split('\n').filter(Boolean)

    const check = await step(['step_0_check'])
    expect(check.stdout).toContain('- 1.34.5-gke.1200000')
    expect(check.stdout).toContain('TPU_TYPE=v5litepod-16 NUM_SLICES=4 (first wave 1) RESERVATION=res-guide')
    await step(['1'])
    const subnet = await step(['step_2_subnet'])
    expect(subnet.stdout).toContain('Nodes: 4 slices x 4 VMs = 16 TPU nodes + 8 CPU nodes = 24 nodes.')
    expect(subnet.stdout).toContain('Pods: 15 per TPU node -> a /27 each')
    await step(['step_3_firewall'])
    await step(['step_4_nat'])
    expect(gcloudCalls()).toEqual([
      'auth list --filter=status:ACTIVE --format=value(account)',
      'container get-server-config --project=guide-project --region=us-central2 --flatten=channels --filter=channels.channel=REGULAR --format=yaml(channels.validVersions)',
      'compute networks create guide-net --project=guide-project --subnet-mode=custom --bgp-routing-mode=regional --mtu=8896',
      'compute networks subnets create guide-subnet --project=guide-project --network=guide-net --region=us-central2 --range=10.10.0.0/18 --enable-private-ip-google-access',
      'compute firewall-rules create guide-net-allow-internal --project=guide-project --network=guide-net --direction=INGRESS --allow=tcp,udp,icmp --source-ranges=10.0.0.0/8',
      'compute firewall-rules create guide-net-allow-internal-iap-ssh --project=guide-project --network=guide-net --direction=INGRESS --allow=tcp:22 --source-ranges=35.235.240.0/20',
      'compute routers create guide-net-router --project=guide-project --network=guide-net --region=us-central2',
      'compute routers nats create guide-net-nat --project=guide-project --router=guide-net-router --region=us-central2 --auto-allocate-nat-external-ips --nat-all-subnet-ip-ranges --enable-dynamic-port-allocation --enable-logging',
    ])

    const quota = await step(['step_5_quota', '2'])
    expect(quota.stdout).toContain('A cluster of 2 slices needs 32 TPU chips on 8 VMs in us-central2-b.')
    expect(quota.stdout).toContain('TPU_LITE_PODSLICE_V5: 0 used of 64')
    expect(quota.stdout).toContain('Reservation res-guide: 4 of 16 VMs in use, ct5lp-hightpu-4t')

    // A public endpoint for two networks only: the plan accepts the flags, and nothing is changed.
    const plan = await step(['step_6_plan'], {AUTHORIZED_NETWORKS: '203.0.113.7/32,198.51.100.0/24'})
    expect(plan.stderr).toContain('--authorized-networks 203.0.113.7/32 --authorized-networks 198.51.100.0/24')
    expect(plan.stdout).toMatch(/create\s+nodepool guide-np-0/)
    expect(fake.mutatingCalls()).toEqual([])

    await step(['step_7_create'])
    const cluster = fake.cluster(PROJECT, REGION, 'guide')!
    expect(cluster).toMatchObject({
      network: 'guide-net',
      subnetwork: 'guide-subnet',
      status: 'RUNNING',
      currentMasterVersion: '1.34.5-gke.1200000',
    })
    expect(cluster.releaseChannel?.channel).toBe('REGULAR')
    expect(cluster.privateClusterConfig).toMatchObject({enablePrivateNodes: true, enablePrivateEndpoint: true})
    const pools = () => fake.nodePools(PROJECT, REGION, 'guide')
    expect(pools().find((p) => p.name === 'default-pool')).toMatchObject({
      config: expect.objectContaining({machineType: 'n2-standard-32'}),
      initialNodeCount: 8,
    })
    const ownPools = () =>
      pools()
        .map((p) => p.name)
        .filter((n) => n.startsWith('guide-np-'))
        .sort()
    expect(ownPools()).toEqual(['guide-np-0'])
    const np0 = fake.nodePool(PROJECT, REGION, 'guide', 'guide-np-0')!
    expect(Number(np0.maxPodsConstraint?.maxPodsPerNode)).toBe(15)
    expect(np0.config?.reservationAffinity?.values).toEqual(['res-guide'])

    const wave1 = await step(['step_9_wave'])
    expect(wave1.stdout).toContain('Wave: 1 -> 2 slices of v5litepod-16.')
    expect(ownPools()).toEqual(['guide-np-0', 'guide-np-1'])
    const wave2 = await step(['9'])
    expect(wave2.stdout).toContain('Wave: 2 -> 4 slices of v5litepod-16.')
    expect(ownPools()).toEqual(['guide-np-0', 'guide-np-1', 'guide-np-2', 'guide-np-3'])
    // At NUM_SLICES a wave changes nothing.
    fake.calls.length = 0
    const wave3 = await step(['9'])
    expect(wave3.stdout).toContain('Wave: 4 -> 4 slices of v5litepod-16.')
    expect(fake.mutatingCalls()).toEqual([])

    const progress = await step(['step_8_progress'])
    expect(progress.stdout).toContain('Cluster guide: RUNNING')
    expect(progress.stdout).toContain('slices RUNNING: 4')

    const refused = await runGuide(['step_11_teardown'], env())
    expect(refused.code).toBe(2)
    expect(fake.cluster(PROJECT, REGION, 'guide')).toBeDefined()
    await step(['step_11_teardown', '--force'])
    expect(fake.cluster(PROJECT, REGION, 'guide')).toBeUndefined()
    expect(
      gcloudCalls()
        .slice(-5)
        .map((c) => c.split(' ').slice(0, 4).join(' ')),
    ).toEqual([
      'compute routers nats delete',
      'compute routers delete guide-net-router',
      'compute firewall-rules delete guide-net-allow-internal',
      'compute networks subnets delete',
      'compute networks delete guide-net',
    ])
  })

  it('refuses a subnet too small for the cluster before calling gcloud', async () => {
    const gcloud = stubGcloud()
    const result = await runGuide(
      ['step_2_subnet'],
      isolatedEnv({
        PATH: `${gcloud.dir}:${process.env.PATH}`,
        XPK_BIN: `${process.execPath} -- ${BIN}`,
        NODE_RANGE: '10.10.0.0/22',
      }),
    )
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('Nodes: 64 slices x 64 VMs = 4096 TPU nodes + 8 CPU nodes = 4104 nodes.')
    expect(result.stderr).toContain('NODE_RANGE 10.10.0.0/22 is too small: use a /19 or larger.')
    expect(readFileSync(gcloud.log, 'utf8')).toBe('')
  })
})
