// `xpk cluster delete` in process, over the in-memory GKE port: a plan with one step, applied by the executor that
// `cluster create` uses (same retries, operation watching, Ctrl-C), with confirmation and every outcome.
import {MemoryCompute} from '../fakes/memory-compute.js'
import {describe, expect, it} from 'vitest'

import {gkeApiError} from '../../src/core/cluster/gke-errors.js'
import {XpkError} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {deleteCluster, type ClusterDeleteOptions} from '../../src/services/cluster-delete.js'
import {observedPoolFrom, desiredFor} from '../builders/observed.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const options: ClusterDeleteOptions = {
  project: 'test-project',
  zone: 'us-central2-b',
  cluster: 'demo',
  dryRun: false,
  timing: DEFAULT_TIMING,
  lock: {
    identity: {user: 'tester', host: 'test-host', pid: 4242, boot: '29500000'},
    staleSeconds: 3600,
    alive: () => true,
  },
}
const pool = observedPoolFrom({...desiredFor({tpuType: 'v5p-8'}).poolTemplate, name: 'demo-np-0', reservation: null})

function run(
  gke: MemoryGke,
  answer: PromptAnswer = 'yes',
  overrides: Partial<ClusterDeleteOptions> = {},
  signal = new AbortController().signal,
  compute = new MemoryCompute(),
) {
  const console = new RecordingConsole(answer)
  const done = deleteCluster(
    {...options, ...overrides},
    {gke: async () => gke, compute: async () => compute, console, signal, ...virtualClock()},
  )
  return {console, done}
}

/** The GPU networks `cluster create` makes for an A3 High cluster `demo` (and some that are not its own). */
function withA3HighNetworks(compute = new MemoryCompute()): MemoryCompute {
  const region = 'us-central2'
  const a3 = desiredFor({deviceType: 'h100-80gb-8', numNodes: 2})
  for (const n of a3.gpuNetworks ?? []) {
    compute.networks.set(`test-project/${n.network.name}`, {
      ...n.network,
      autoCreateSubnetworks: false,
      subnetworks: [],
    })
    compute.subnetworks.set(`test-project/${region}/${n.subnetwork.name}`, {...n.subnetwork})
    if (n.firewall) compute.firewalls.set(`test-project/${n.firewall.name}`, {...n.firewall, direction: 'INGRESS'})
  }
  // Not this cluster's: another cluster's, and names that only start like its own.
  for (const name of ['other-net-1', 'demo-net-x', 'demo-net-1-extra']) {
    compute.networks.set(`test-project/${name}`, {
      name,
      mtu: 1460,
      autoCreateSubnetworks: false,
      networkProfile: null,
      subnetworks: [],
    })
  }
  return compute
}

describe('deleteCluster with GPU networks', () => {
  const LEFT = [
    'network test-project/demo-net-1-extra',
    'network test-project/demo-net-x',
    'network test-project/other-net-1',
  ]

  it('deletes the firewall rules and subnetworks after the cluster, then the networks: none of its own is left', async () => {
    const gke = new MemoryGke([pool])
    const log: string[] = []
    const compute = withA3HighNetworks(new MemoryCompute(log))
    const {done} = run(gke, 'yes', {}, undefined, compute)
    const result = await done
    expect(result.steps.map((s) => `${s.action} ${s.resource} ${s.name}`)).toEqual([
      'delete cluster demo',
      ...[1, 2, 3, 4].map((i) => `delete firewall demo-internal-${i}`),
      ...[1, 2, 3, 4].map((i) => `delete subnetwork demo-us-central2-sub-${i}`),
      ...[1, 2, 3, 4].map((i) => `delete network demo-net-${i}`),
    ])
    expect(gke.cluster).toBe('gone')
    expect(compute.vpcResources()).toEqual(LEFT)
    // Every network was deleted only once nothing on it was left: no delete ended in a conflict.
    expect(log.filter((l) => l.startsWith('deleteNetwork'))).toHaveLength(4)
  })

  it('deletes what is left of the networks of a cluster that is gone, after asking; a dry run deletes nothing', async () => {
    const gke = new MemoryGke([pool])
    await run(gke).done
    const compute = withA3HighNetworks()
    const planned = await run(gke, 'yes', {dryRun: true}, undefined, compute).done
    expect(planned.outcome).toBe('planned')
    expect(compute.vpcResources()).toHaveLength(15)
    const {console, done} = run(gke, 'yes', {}, undefined, compute)
    expect((await done).outcome).toBe('deleted')
    expect(console.questions).toMatchObject([
      {code: 'cluster.delete.confirm-networks', data: {networks: [1, 2, 3, 4].map((i) => `demo-net-${i}`)}},
    ])
    expect(compute.vpcResources()).toEqual(LEFT)
    const again = await run(gke, 'yes', {}, undefined, compute).done
    expect(again.outcome).toBe('absent')
  })
})

describe('deleteCluster', () => {
  it('asks, deletes through the executor, and returns only once the cluster is gone', async () => {
    const gke = new MemoryGke([pool])
    const {console, done} = run(gke)
    const result = await done
    expect(result).toMatchObject({
      outcome: 'deleted',
      nodePools: ['demo-np-0'],
      steps: [{action: 'delete', resource: 'cluster'}],
    })
    expect(console.questions).toMatchObject([
      {code: 'cluster.delete.confirm', default: false, data: {cluster: 'demo', nodePools: ['demo-np-0']}},
    ])
    expect(gke.cluster).toBe('gone')
    expect(gke.calls.filter((c) => c === 'deleteCluster')).toHaveLength(1)
    expect(gke.calls).toContain('listOperations')
  })

  it.each([
    ['no', 'declined', 'Nothing was deleted.'],
    ['no-terminal', 'usage', 'This needs your confirmation, but there is no terminal to ask on.'],
    ['quiet', 'usage', 'This needs your confirmation, and --quiet does not answer questions.'],
  ] as const)('answered %s changes nothing (%s)', async (answer, kind, message) => {
    const gke = new MemoryGke([pool])
    const error = (await run(gke, answer).done.catch((e: unknown) => e)) as XpkError
    expect([error.kind, error.message.split('\n').at(-1)]).toEqual([kind, message])
    expect(gke.calls).not.toContain('deleteCluster')
    expect(gke.cluster).toBe('RUNNING')
  })

  it('plans without changing anything on --dry-run', async () => {
    const gke = new MemoryGke([pool])
    const {console, done} = run(gke, 'no-terminal', {dryRun: true})
    await expect(done).resolves.toMatchObject({outcome: 'planned'})
    expect(console.results.join('\n')).toContain('-   delete   cluster  demo')
    expect(gke.calls).not.toContain('deleteCluster')
  })

  it('a cluster already gone is success with a note, and no delete is sent', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const {console, done} = run(gke, 'no-terminal')
    await expect(done).resolves.toMatchObject({outcome: 'absent', steps: [{action: 'none'}]})
    expect(console.codes()).toEqual(['cluster.delete.absent'])
    expect(gke.calls).not.toContain('deleteCluster')
  })

  it('a cluster GKE is already deleting is waited for, without a question or a second delete', async () => {
    const gke = new MemoryGke([pool])
    gke.cluster = 'STOPPING'
    const {console, done} = run(gke, 'no-terminal')
    const getCluster = gke.getCluster.bind(gke)
    let reads = 0
    gke.getCluster = async (ref) => (++reads >= 3 ? ((gke.cluster = 'gone'), getCluster(ref)) : getCluster(ref))
    await expect(done).resolves.toMatchObject({outcome: 'deleted'})
    expect(console.questions).toEqual([])
    expect(gke.calls).not.toContain('deleteCluster')
  })

  it.each([
    ['PROVISIONING', 'a new cluster of that name, made by another run once this one was gone: deleted', 'deleted'],
    ['RUNNING', 'GKE gave the deletion up: a failure', 'failed'],
    ['ERROR', 'GKE gave the deletion up: a failure', 'failed'],
  ] as const)('a cluster %s after the deletion finished: %s', async (after, _why, outcome) => {
    const gke = new MemoryGke([pool])
    const deleteCluster = gke.deleteCluster.bind(gke)
    gke.deleteCluster = async (ref) => {
      const op = await deleteCluster(ref)
      const entry = gke.ops.get(op.name)!
      const finish = entry.finish
      entry.finish = () => {
        finish()
        gke.cluster = after
      }
      return op
    }
    const {done} = run(gke, 'yes')
    if (outcome === 'deleted') await expect(done).resolves.toMatchObject({outcome: 'deleted'})
    else await expect(done).rejects.toMatchObject({kind: 'failed', message: `Cluster demo is ${after}, not deleted.`})
  })

  it('rides out transient failures of the reads before planning and of the delete itself', async () => {
    const gke = new MemoryGke([pool])
    const context = {action: 'x', project: 'test-project', location: 'us-central2'}
    const unavailable = () => gkeApiError({code: 14, message: 'connection reset'}, context)
    const getCluster = gke.getCluster.bind(gke)
    const deleteOnce = gke.deleteCluster.bind(gke)
    let reads = 0
    let deletes = 0
    gke.getCluster = async (ref) => (++reads === 1 ? Promise.reject(unavailable()) : getCluster(ref))
    gke.deleteCluster = async (ref) => (++deletes === 1 ? Promise.reject(unavailable()) : deleteOnce(ref))
    await expect(run(gke).done).resolves.toMatchObject({outcome: 'deleted'})
    expect(deletes).toBe(2)
  })

  it('stops on Ctrl-C after the delete was sent, and says GKE keeps deleting', async () => {
    const gke = new MemoryGke([pool])
    const controller = new AbortController()
    const deleteOnce = gke.deleteCluster.bind(gke)
    gke.deleteCluster = async (ref) => {
      const op = await deleteOnce(ref)
      controller.abort(new XpkError('interrupted', 'Interrupted.'))
      return op
    }
    const error = (await run(gke, 'yes', {}, controller.signal).done.catch((e: unknown) => e)) as XpkError
    expect([error.kind, error.exitCode, error.message]).toEqual([
      'interrupted',
      130,
      'Interrupted: GKE keeps deleting cluster demo.',
    ])
  })
})
