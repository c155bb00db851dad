import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {FakeTpu} from '../fakes/fake-tpu.js'
import {isolatedEnv, runCli, startCli, type CliResult} from '../helpers/cli.js'
import {expectGolden} from '../helpers/golden.js'

const PROJECT = 'vm-project'
const ZONE = 'us-central2-b'
let fake: FakeTpu
const target = ['--project', PROJECT, '--zone', ZONE]
const env = () => isolatedEnv({XPK_TPU_ENDPOINT: `http://${fake.endpoint}`})
const xpk = (...args: string[]) => runCli([...args, ...target], {env: env()})

/**
 * Runs `xpk vm create` while moving queued resource `id` one state forward each time the CLI has read it, so every
 * state is seen however slow the machine is (the fake holds each state: stepMs Infinity).
 */
async function createDriven(id: string, ...args: string[]): Promise<CliResult> {
  const {done} = startCli(['vm', 'create', ...args, ...target], {env: env()})
  let finished = false
  void done.then(() => (finished = true))
  let seen = 0
  while (!finished) {
    const reads = fake.calls.filter(
      (c) => c.method === 'GetQueuedResource' && c.code === 0 && String(c.request.name).endsWith(`/${id}`),
    ).length
    if (reads > seen && fake.queuedResource(PROJECT, ZONE, id)) {
      seen = reads
      fake.advance(PROJECT, ZONE, id)
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  return done
}

beforeAll(async () => {
  fake = await FakeTpu.start({stepMs: Infinity, waitForResources: true, deleteMs: 30})
})
afterAll(async () => {
  await fake.stop()
})
beforeEach(() => {
  fake.calls.length = 0
})

describe('xpk vm create / list / delete against the fake TPU API', () => {
  it('creates a 2-slice queued resource, reports each state, and lists its slices with workers and IPs', async () => {
    const created = await createDriven(
      'demo',
      '--tpu-prefix',
      'demo',
      '--tpu-type',
      'v4-16',
      '--num-slices',
      '2',
      '--json',
    )
    expect(created.code, created.stderr).toBe(0)
    expect(JSON.parse(created.stdout)).toMatchObject({
      queuedResource: 'demo',
      state: 'ACTIVE',
      outcome: 'created',
      nodes: [
        {id: 'demo-0', state: 'READY', workers: ['10.0.0.2', '10.0.0.3']},
        {id: 'demo-1', state: 'READY', workers: ['10.1.0.2', '10.1.0.3']},
      ],
    })
    // No terminal here: one timestamped line per state, each state once (it was read more than once).
    const states = created.stderr
      .split('\n')
      .map((line) => /^\d{4}-\d\d-\d\dT[\d:]+Z {2}demo {2}(\w+)/.exec(line)?.[1])
      .filter(Boolean)
    expect(states).toEqual(['ACCEPTED', 'WAITING_FOR_RESOURCES', 'PROVISIONING', 'ACTIVE'])
    expect(created.stderr).toMatch(/ {2}demo {2}WAITING_FOR_RESOURCES {2}waiting for capacity/)
    const reads = fake.calls.filter((c) => c.method === 'GetQueuedResource' && String(c.request.name).endsWith('/demo'))
    expect(reads.length).toBeGreaterThan(states.length)
    const request = fake.calls.find((c) => c.method === 'CreateQueuedResource')!.request
    expect(request).toMatchObject({
      parent: `projects/${PROJECT}/locations/${ZONE}`,
      queuedResourceId: 'demo',
      queuedResource: {
        tpu: {
          nodeSpec: [
            {
              multisliceParams: {nodeCount: 2, nodeIdPrefix: 'demo'},
              node: {acceleratorType: 'v4-16', runtimeVersion: 'tpu-ubuntu2204-base'},
            },
          ],
        },
      },
    })

    const listed = await xpk('vm', 'list', '--tpu-prefix', 'demo')
    expect(listed.code, listed.stderr).toBe(0)
    // The queued resource, then its two slices with their workers' IPs.
    expectGolden('cli/vm-list.txt', listed.stdout)
    const json = JSON.parse((await xpk('vm', 'list', '--json')).stdout)
    expect(json.nodes.map((n: {id: string}) => n.id)).toEqual(expect.arrayContaining(['demo-0', 'demo-1']))

    // Re-running the same request finds it and succeeds without a second create.
    const again = await xpk(
      'vm',
      'create',
      '--tpu-prefix',
      'demo',
      '--tpu-type',
      'v4-16',
      '--num-slices',
      '2',
      '--json',
    )
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout).outcome).toBe('existing')
    expect(fake.calls.filter((c) => c.method === 'CreateQueuedResource')).toHaveLength(1)
  })

  it('rejects bad input all at once, with exit 2 and suggestions, before any request', async () => {
    const result = await xpk(
      'vm',
      'create',
      '--tpu-prefix',
      'Bad_Name',
      '--tpu-type',
      'v4-9',
      '--runtime-version',
      'tpu-ubuntu2204-bas',
    )
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--tpu-prefix "Bad_Name"')
    expect(result.stderr).toMatch(/--tpu-type=v4-9: unknown TPU VM type\. Did you mean v4-8/)
    expect(fake.calls).toEqual([])
    const runtime = await xpk(
      'vm',
      'create',
      '--tpu-prefix',
      'x',
      '--tpu-type',
      'v4-8',
      '--runtime-version',
      'tpu-ubuntu2204-bas',
    )
    expect(runtime.code).toBe(2)
    expect(runtime.stderr).toMatch(/unknown TPU runtime version\. Did you mean tpu-ubuntu2204-base/)
    const wrongGen = await xpk(
      'vm',
      'create',
      '--tpu-prefix',
      'x',
      '--tpu-type',
      'v6e-8',
      '--runtime-version',
      'tpu-vm-v4-base',
    )
    expect(wrongGen.code).toBe(2)
    expect(wrongGen.stderr).toContain('does not run on v6e TPUs')
    expect(fake.calls).toEqual([])
  })

  it('reports a stockout with exit 5 and a hint', async () => {
    fake.injectProvisioningFault({match: (id) => id === 'nocap'})
    const result = await createDriven('nocap', '--tpu-prefix', 'nocap', '--tpu-type', 'v5litepod-16', '--spot')
    expect(result.code).toBe(5)
    expect(result.stderr).toMatch(/Z {2}nocap {2}FAILED {2}the request failed\n/)
    expect(result.stderr).toContain('no more capacity')
    expect(result.stderr).toMatch(/Hint: .*stockout/)
    expect(fake.queuedResource(PROJECT, ZONE, 'nocap')).toMatchObject({state: 'FAILED', data: {spot: {}}})
  })

  it('returns at once with --async', async () => {
    const result = await xpk('vm', 'create', '--tpu-prefix', 'quick', '--tpu-type', 'v4-8', '--async', '--json')
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({queuedResource: 'quick', state: 'ACCEPTED', nodes: []})
  })

  it('deletes only with --force when there is no terminal, waits until gone, and treats gone as success', async () => {
    expect((await createDriven('bye', '--tpu-prefix', 'bye', '--tpu-type', 'v4-8')).code).toBe(0)
    const refused = await xpk('vm', 'delete', '--tpu-prefix', 'bye')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--force')
    expect(fake.calls.some((c) => c.method === 'DeleteQueuedResource')).toBe(false)

    const deleted = await xpk('vm', 'delete', '--tpu-prefix', 'bye', '--force', '--json')
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(JSON.parse(deleted.stdout)).toMatchObject({
      queuedResource: 'bye',
      outcome: 'deleted',
      nodes: ['bye'],
      dryRun: false,
    })
    expect(fake.queuedResource(PROJECT, ZONE, 'bye')).toBeUndefined()
    expect(fake.node(PROJECT, ZONE, 'bye')).toBeUndefined()
    expect(fake.calls.find((c) => c.method === 'DeleteQueuedResource')!.request).toMatchObject({force: true})

    const again = await xpk('vm', 'delete', '--tpu-prefix', 'bye', '--force')
    expect(again.code).toBe(0)
    expect(again.stderr).toContain('nothing to delete')
  })

  it('retries a transient failure once per policy (gax does not retry on its own)', async () => {
    fake.injectFault({method: 'ListQueuedResources', code: 14, message: 'unavailable', times: 2})
    const result = await xpk('vm', 'list', '--json')
    expect(result.code, result.stderr).toBe(0)
    expect(fake.calls.filter((c) => c.method === 'ListQueuedResources').map((c) => c.code)).toEqual([14, 14, 0])
  })

  it('runs the offline --help examples of every vm command', async () => {
    for (const verb of ['create', 'list', 'delete']) {
      const help = await runCli(['vm', verb, '--help'])
      expect(help.code).toBe(0)
      expect(help.stdout).toContain('EXAMPLES')
      expect(help.stdout).toContain(`xpk vm ${verb} --tpu-prefix`.replace('vm list --tpu-prefix', 'vm list'))
    }
  })
})
