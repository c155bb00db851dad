// `xpk cluster create` in process, over the in-memory GKE and Compute ports: validation before any call, reads
// through the retry policy, plan, confirmation, apply and the summary, without a build or a subprocess.
import {describe, expect, it} from 'vitest'

import {gkeApiError} from '../../src/core/cluster/gke-errors.js'
import {XpkError} from '../../src/core/errors.js'
import {UsageError, UsageErrors} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {createCluster, type ClusterCreateOptions} from '../../src/services/cluster-create.js'
import {desiredFor, observedPoolFrom} from '../builders/observed.js'
import {MemoryCompute} from '../fakes/memory-compute.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {crd, NETWORK_PARAM_SET_CRD} from '../builders/workload-cluster.js'
import {MemoryInstallerManifests} from '../fakes/memory-installer-manifests.js'
import {MemoryReleaseManifests} from '../fakes/memory-release-manifests.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const flags = {cluster: 'demo', project: 'test-project', zone: 'us-central2-b', tpuType: 'v5p-16', spot: true}
const context = {action: 'x', project: 'test-project', location: 'us-central2'}

/** The GKE half only: these tests never reach inside the cluster (test/services/in-cluster.test.ts does). */
const gkeOnly: ClusterCreateOptions['inCluster'] = {skip: true, xpkVersion: '0.1.0', manifestOverrides: {}}
/** The real timing, with a short wait for the controllers (where a test reaches inside the cluster). */
const TIMING = {...DEFAULT_TIMING, controllers: {poll: {initialMs: 10, maxMs: 10, factor: 1}, timeoutMs: 1000}}
/** This run as the cluster lock's holder; locks of others are stale after an hour. */
const LOCK = {
  identity: {user: 'tester', host: 'test-host', pid: 4242, boot: '29500000'},
  staleSeconds: 3600,
  alive: () => true,
}
const noKube = {
  kube: () => Promise.reject(new Error('the cluster was reached with --skip-in-cluster')),
  manifests: {load: () => Promise.reject(new Error('a release manifest was loaded with --skip-in-cluster'))},
}

function run(gke: MemoryGke, overrides: Partial<ClusterCreateOptions> = {}, answer: PromptAnswer = 'unexpected') {
  const console = new RecordingConsole(answer)
  const options: ClusterCreateOptions = {
    flags: {...flags, numSlices: '2'},
    dryRun: false,
    offline: false,
    timing: TIMING,
    inCluster: gkeOnly,
    lock: LOCK,
    ...overrides,
  }
  const compute = new MemoryCompute()
  const done = createCluster(options, {
    gke: async () => gke,
    compute: async () => compute,
    ...noKube,
    console,
    signal: new AbortController().signal,
    ...virtualClock(),
  })
  return {console, done}
}

const pool = (name: string, extra = {}) => ({
  ...observedPoolFrom({...desiredFor({tpuType: 'v5p-16'}).poolTemplate, name, reservation: null}),
  ...extra,
})

describe('createCluster', () => {
  it('reports every bad flag before connecting to GKE', async () => {
    let connected = false
    const console = new RecordingConsole()
    const error = await createCluster(
      {
        flags: {...flags, numSlices: 'many', zone: 'US'},
        dryRun: false,
        offline: false,
        timing: TIMING,
        inCluster: gkeOnly,
        lock: LOCK,
      },
      {
        gke: async () => ((connected = true), new MemoryGke()),
        compute: async () => new MemoryCompute(),
        ...noKube,
        console,
        signal: new AbortController().signal,
        ...virtualClock(),
      },
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageErrors)
    expect((error as UsageErrors).problems.map((p) => p.flag)).toEqual(['--zone', '--num-slices'])
    expect(connected).toBe(false)
  })

  it('creates the cluster and its slices, and says what it did', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const {console, done} = run(gke)
    const result = await done
    expect(result.applied).toBe(true)
    expect(gke.calls.filter((c) => c.startsWith('create'))).toEqual([
      'createCluster',
      'createNodePool demo-np-0',
      'createNodePool demo-np-1',
    ])
    expect(console.codes().at(-1)).toBe('cluster.create.summary')
    expect(console.the('cluster.create.summary').data).toEqual({
      cluster: 'demo',
      poolsCreated: 2,
      poolsWanted: 2,
      poolsFound: 0,
      poolsDeleted: 0,
    })
  })

  it('tells one story when the cluster itself does not come up: delete it and create again', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const createCluster = gke.createCluster.bind(gke)
    gke.createCluster = async (spec) => {
      const op = await createCluster(spec)
      gke.ops.get(op.name)!.finish = () => (gke.cluster = 'ERROR')
      return op
    }
    const error = (await run(gke).done.catch((e: unknown) => e)) as XpkError
    expect(error.message).toContain('Cluster demo is ERROR instead of RUNNING')
    expect(error.hints.at(-1)).toBe(
      'The cluster itself did not come up, so a re-run cannot repair it: `xpk cluster delete` it, then run the same `xpk cluster create` again.',
    )
    expect(error.hints.join(' ')).not.toContain('replaces those in ERROR')
  })

  it('rides out a transient failure of the reads made before planning', async () => {
    const gke = new MemoryGke([pool('demo-np-0'), pool('demo-np-1')])
    const read = gke.getServerConfig.bind(gke)
    let reads = 0
    gke.getServerConfig = async (project, location) => {
      if (++reads === 1) throw gkeApiError({code: 8, message: 'Too many requests per minute'}, context)
      return read(project, location)
    }
    await expect(run(gke).done).resolves.toMatchObject({applied: true, outcomes: []})
    expect(reads).toBe(2)
  })

  it('asks before deleting slices, and changes nothing when told no', async () => {
    const gke = new MemoryGke([pool('demo-np-0'), pool('demo-np-1'), pool('demo-np-2')])
    const {console, done} = run(gke, {}, 'no')
    const error = (await done.catch((e: unknown) => e)) as XpkError
    expect(error.kind).toBe('declined')
    expect(console.questions).toMatchObject([
      {code: 'cluster.create.confirm-delete-pools', default: false, data: {nodePools: ['demo-np-2']}},
    ])
    expect(gke.calls.some((c) => c.startsWith('delete'))).toBe(false)
  })

  it('replaces a slice whose creation failed for capacity without asking (nothing to lose)', async () => {
    const stockout = 'The zone does not have enough resources available to fulfill the request.'
    const gke = new MemoryGke([pool('demo-np-0'), pool('demo-np-1', {status: 'ERROR', statusMessage: stockout})])
    const {console, done} = run(gke)
    await expect(done).resolves.toMatchObject({applied: true})
    expect(console.questions).toEqual([])
    expect(gke.calls).toContain('deleteNodePool demo-np-1')
    expect(gke.calls).toContain('createNodePool demo-np-1')
  })

  it('plans without changing anything on --dry-run, and without any call offline', async () => {
    const gke = new MemoryGke()
    const dry = run(gke, {dryRun: true})
    await expect(dry.done).resolves.toMatchObject({dryRun: true, applied: false})
    expect(gke.calls.filter((c) => /^(create|delete)/.test(c))).toEqual([])
    const offline = run(gke, {dryRun: true, offline: true})
    const before = gke.calls.length
    await expect(offline.done).resolves.toMatchObject({steps: [{action: 'create', resource: 'cluster'}, {}, {}]})
    expect(gke.calls.length).toBe(before)
  })
})

describe('createCluster: CSI drivers and Workload Identity (--enable-*)', () => {
  const storage = {...flags, numSlices: '2', enableGcsfuseCsiDriver: true, enableGcpfilestoreCsiDriver: true}
  const gcePools = () => [pool('demo-np-0', {workloadMetadataMode: 'GCE_METADATA'}), pool('demo-np-1')]
  /** What changes the cluster (the lock's SetLabels aside: test/services/cluster-lock.test.ts). */
  const mutations = (gke: MemoryGke) => gke.calls.filter((c) => /^(create|delete|update)/.test(c))

  it('creates a new cluster with them in the create request: no update is sent', async () => {
    const gke = new MemoryGke()
    gke.cluster = 'gone'
    const result = await run(gke, {flags: storage}).done
    expect(mutations(gke)).toEqual(['createCluster', 'createNodePool demo-np-0', 'createNodePool demo-np-1'])
    expect([gke.workloadPool, gke.csiDrivers]).toEqual([
      'test-project.svc.id.goog',
      ['GcsFuseCsiDriver', 'GcpFilestoreCsiDriver'],
    ])
    expect([...gke.pools.values()].map((p) => p.workloadMetadataMode)).toEqual([
      'GKE_METADATA',
      'GKE_METADATA',
      'GKE_METADATA',
    ])
    expect(result.steps[0].spec).toMatchObject({
      csiDrivers: ['GcsFuseCsiDriver', 'GcpFilestoreCsiDriver'],
      workloadPool: 'test-project.svc.id.goog',
    })
  })

  it('updates an existing cluster, asks before its pools’ nodes are recreated, and says what it did', async () => {
    const gke = new MemoryGke(gcePools())
    const {console, done} = run(gke, {flags: storage}, 'yes')
    const result = await done
    expect(console.questions).toMatchObject([
      {code: 'cluster.create.confirm-recreate-nodes', default: false, data: {nodePools: ['demo-np-0', 'demo-np-1']}},
    ])
    // The first update is refused (and retried) while the cluster lock's SetLabels runs, as GKE does.
    expect([...new Set(mutations(gke))]).toEqual([
      'updateCluster workloadIdentity',
      'updateCluster addons',
      'updateNodePool demo-np-0',
      'updateNodePool demo-np-1',
    ])
    expect(result.outcomes.every((o) => o.status === 'done')).toBe(true)
    expect(console.the('cluster.create.summary').text).toContain(
      'enabled workload identity (pool test-project.svc.id.goog), enabled addons GcsFuseCsiDriver, GcpFilestoreCsiDriver, switched 2 node pools to the GKE metadata server',
    )
  })

  it('sends nothing when told no to recreating the nodes', async () => {
    const gke = new MemoryGke(gcePools())
    const {done} = run(gke, {flags: storage}, 'no')
    await expect(done).rejects.toMatchObject({kind: 'declined'})
    expect(mutations(gke)).toEqual([])
  })

  it('a re-run finds everything enabled and sends nothing', async () => {
    const gke = new MemoryGke(gcePools())
    await run(gke, {flags: storage}, 'yes').done
    const before = gke.calls.length
    const {console, done} = run(gke, {flags: storage})
    const result = await done
    expect(mutations({calls: gke.calls.slice(before)} as MemoryGke)).toEqual([])
    expect(result.steps.filter((s) => s.action !== 'none')).toEqual([])
    expect(console.questions).toEqual([])
  })

  it('shows the updates on --dry-run and in --json, sending nothing', async () => {
    const gke = new MemoryGke(gcePools())
    const {console, done} = run(gke, {flags: storage, dryRun: true})
    const result = await done
    expect(mutations(gke)).toEqual([])
    expect(result.steps.filter((s) => s.action === 'update')).toEqual([
      {
        action: 'update',
        resource: 'clusterUpdate',
        name: 'demo',
        reason: 'not enabled yet (GCS FUSE needs it: --enable-gcsfuse-csi-driver)',
        spec: {kind: 'workloadIdentity', workloadPool: 'test-project.svc.id.goog'},
      },
      {
        action: 'update',
        resource: 'clusterUpdate',
        name: 'demo',
        reason: 'not enabled yet (--enable-gcsfuse-csi-driver, --enable-gcpfilestore-csi-driver)',
        spec: {kind: 'addons', enable: ['GcsFuseCsiDriver', 'GcpFilestoreCsiDriver'], lustreLegacyPort: false},
      },
      ...['demo-np-0', 'demo-np-1'].map((name) => ({
        action: 'update',
        resource: 'nodePoolUpdate',
        name,
        reason: expect.stringContaining('GKE recreates its nodes'),
        spec: {workloadMetadataMode: 'GKE_METADATA'},
      })),
    ])
    expect(console.results.join('\n')).toContain(
      '~   update   cluster  demo       addons GcsFuseCsiDriver, GcpFilestoreCsiDriver: not enabled yet',
    )
  })
})

describe('createCluster: the Topology decided from the node pools', () => {
  const h200 = {cluster: 'demo', project: 'test-project', zone: 'us-central2-b', deviceType: 'h200-141gb-8'}
  const gpuPool = (name: string, placementType: 'COMPACT' | null) => ({
    ...observedPoolFrom({...desiredFor({...h200, reservation: 'res-a'}).poolTemplate, name, reservation: 'res-a'}),
    placementType,
  })
  const inCluster = {...gkeOnly, skip: false}
  const reservedH200 = () =>
    new MemoryCompute().seedReservation({
      project: 'test-project',
      zone: 'us-central2-b',
      name: 'res-a',
      specific: {machineType: 'a3-ultragpu-8g', count: 8, guestAccelerators: [{type: 'nvidia-h200-141gb', count: 8}]},
    })
  const topologyStep = (result: {inCluster: object | null}) =>
    (result.inCluster as {steps: {kind: string; reason: string; object?: {kind: string}}[]}).steps.find(
      (s) => s.object?.kind === 'Topology',
    )

  function dryRun(gke: MemoryGke, flags: ClusterCreateOptions['flags'], offline = false) {
    const console = new RecordingConsole()
    const kube = new MemoryKube()
    const done = createCluster(
      {flags, dryRun: true, offline, timing: TIMING, inCluster, lock: LOCK},
      {
        gke: async () => gke,
        compute: async () => reservedH200(),
        kube: async () => kube,
        manifests: new MemoryReleaseManifests(),
        console,
        signal: new AbortController().signal,
        ...virtualClock(),
      },
    )
    return {console, done, kube}
  }

  it.each([
    {name: 'a foreign COMPACT pool on a reserved cluster', pools: ['a3u-compact'], capacity: {reservation: 'res-a'}},
    {name: 'flex capacity, whatever the pools', pools: [], capacity: {flex: true}},
  ])('$name: the dry run shows the Topology with its reason, and --json has it', async ({pools, capacity}) => {
    const gke = new MemoryGke([gpuPool('demo-np-0', null), ...pools.map((p) => gpuPool(p, 'COMPACT'))])
    const {console, done} = dryRun(gke, {...h200, ...capacity})
    const result = await done
    const step = topologyStep(result)
    expect(step?.reason).toMatch(/^create Topology gke-default \(topology-aware scheduling: /)
    expect(step?.reason).toContain(pools.length > 0 ? 'node pool a3u-compact has COMPACT placement' : 'flex-start')
    expect(console.results.join('\n')).toContain(step!.reason)
  })

  it('a reserved cluster without a COMPACT pool gets no Topology', async () => {
    const gke = new MemoryGke([gpuPool('demo-np-0', null)])
    const result = await dryRun(gke, {...h200, reservation: 'res-a'}).done
    expect(topologyStep(result)).toBeUndefined()
  })

  it('a COMPACT pool the plan deletes does not count', async () => {
    // Only xpk's own pools are deleted: demo-np-1 is one too many for a GPU cluster (one pool).
    const gke = new MemoryGke([gpuPool('demo-np-0', null), gpuPool('demo-np-1', 'COMPACT')])
    const result = await dryRun(gke, {...h200, reservation: 'res-a'}).done
    expect(result.steps.find((s) => s.name === 'demo-np-1')?.action).toBe('delete')
    expect(topologyStep(result)).toBeUndefined()
  })

  it('a cluster that does not exist yet is planned from the pools it will get (offline: flex GPU)', async () => {
    const result = await dryRun(new MemoryGke(), {...h200, flex: true}, true).done
    expect(topologyStep(result)?.reason).toContain('flex-start')
    const noTopology = await dryRun(new MemoryGke(), {...h200, reservation: 'res-a'}, true).done
    expect(topologyStep(noTopology)).toBeUndefined()
  })
})

describe('createCluster: the quota describes the node pools RUNNING after the GKE steps', () => {
  const STOCKOUT = "The zone 'us-central2-b' does not have enough resources available to fulfill the request."
  const inCluster = {...gkeOnly, skip: false}

  /** GKE where creating the named pools ends in a stockout: the pool is left in ERROR, the operation fails. */
  function withStockouts(gke: MemoryGke, pools: readonly string[]): MemoryGke {
    const create = gke.createNodePool.bind(gke)
    gke.createNodePool = async (ref, spec) => {
      const op = await create(ref, spec)
      if (!pools.includes(spec.name)) return op
      // The operation ends DONE with the stockout as its error, and leaves the pool in ERROR, as GKE does.
      const entry = gke.ops.get(op.name)!
      entry.finish = () => {
        gke.pools.set(spec.name, {...gke.pools.get(spec.name)!, status: 'ERROR', statusMessage: STOCKOUT})
        entry.op = {...entry.op, error: gkeApiError({code: 8, message: STOCKOUT}, context)}
      }
      return op
    }
    return gke
  }

  async function createWith(gke: MemoryGke, kube: MemoryKube, numSlices: number) {
    const console = new RecordingConsole()
    const result = await createCluster(
      {
        flags: {...flags, numSlices: String(numSlices)},
        dryRun: false,
        offline: false,
        timing: TIMING,
        inCluster,
        lock: LOCK,
      },
      {
        gke: async () => gke,
        compute: async () => new MemoryCompute(),
        kube: async () => kube,
        manifests: new MemoryReleaseManifests(),
        console,
        signal: new AbortController().signal,
        ...virtualClock(),
      },
    ).catch((e: unknown) => e as XpkError)
    return {result, console}
  }

  const quotaOf = (kube: MemoryKube) => {
    const queue = kube.peek({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'cluster-queue'}) as
      {spec: {resourceGroups: {flavors: {name: string; resources: {nominalQuota: unknown}[]}[]}[]}} | undefined
    const flavor = queue?.spec.resourceGroups[0]?.flavors[0]
    const configMap = kube.peek({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'demo-resources-configmap',
    })
    return {
      queue: `${flavor?.name} ${String(flavor?.resources[0]?.nominalQuota)}`,
      flavors: kube.all('ResourceFlavor').map((f) => f.metadata.name),
      vms: (configMap as {data?: Record<string, string>} | undefined)?.data?.['v5p-16'],
    }
  }

  // v5p-16: 2 VMs of 4 chips a slice.
  it.each([
    {
      name: 'a grow 2 -> 4 whose new pools all meet a stockout',
      from: 2,
      to: 4,
      stockouts: ['demo-np-2', 'demo-np-3'],
      exit: 'stockout',
      quota: {queue: '2xv5p-16 16', flavors: ['2xv5p-16'], vms: '4'},
    },
    {
      name: 'a grow 2 -> 4 where one new pool meets a stockout',
      from: 2,
      to: 4,
      stockouts: ['demo-np-3'],
      exit: 'stockout',
      quota: {queue: '3xv5p-16 24', flavors: ['3xv5p-16'], vms: '6'},
    },
    {
      name: 'a grow 2 -> 4 that succeeds',
      from: 2,
      to: 4,
      stockouts: [],
      exit: null,
      quota: {queue: '4xv5p-16 32', flavors: ['4xv5p-16'], vms: '8'},
    },
    {
      name: 'a new cluster of 2 with one pool in a stockout',
      from: 0,
      to: 2,
      stockouts: ['demo-np-1'],
      exit: 'stockout',
      quota: {queue: '1xv5p-16 8', flavors: ['1xv5p-16'], vms: '2'},
    },
    {
      name: 'a new cluster of 2 with both pools in a stockout',
      from: 0,
      to: 2,
      stockouts: ['demo-np-0', 'demo-np-1'],
      exit: 'stockout',
      quota: {queue: '0xv5p-16 0', flavors: ['0xv5p-16'], vms: '0'},
    },
  ])(
    '$name: quota $quota.queue, flavors $quota.flavors, $quota.vms VMs',
    async ({from, to, stockouts, exit, quota}) => {
      const gke = new MemoryGke()
      const kube = new MemoryKube()
      if (from > 0) {
        const first = await createWith(gke, kube, from)
        expect(first.result).toMatchObject({applied: true})
      } else gke.cluster = 'gone'
      const {result} = await createWith(withStockouts(gke, stockouts), kube, to)
      if (exit === null) expect(result).toMatchObject({applied: true})
      else expect((result as XpkError).kind).toBe(exit)
      expect(quotaOf(kube)).toEqual(quota)
    },
  )

  it('the flavor of the pools still running is not deleted when the grow fails, and a re-run finishes the grow', async () => {
    const gke = new MemoryGke()
    const kube = new MemoryKube()
    await createWith(gke, kube, 2)
    kube.clearLog()
    await createWith(withStockouts(gke, ['demo-np-2', 'demo-np-3']), kube, 4)
    expect(kube.mutatingRequests()).toEqual([])
    const again = await createWith(new MemoryGke([...gke.pools.values()]), kube, 4)
    expect(again.result).toMatchObject({applied: true})
    expect(quotaOf(kube)).toEqual({queue: '4xv5p-16 32', flavors: ['4xv5p-16'], vms: '8'})
  })
})

describe('createCluster: --cpu-limit and --memory-limit (the ClusterQueue quota, against the cluster’s capacity)', () => {
  const withInside: ClusterCreateOptions['inCluster'] = {skip: false, xpkVersion: '0.1.0', manifestOverrides: {}}

  async function plan(
    limits: {cpuLimit?: string; memoryLimit?: string},
    compute = new MemoryCompute(),
    offline = false,
  ) {
    const console = new RecordingConsole()
    const result = await createCluster(
      {
        flags: {...flags, ...limits},
        dryRun: true,
        offline,
        timing: TIMING,
        inCluster: withInside,
        lock: LOCK,
      },
      {
        gke: async () => new MemoryGke(),
        compute: async () => compute,
        kube: async () => new MemoryKube(),
        manifests: new MemoryReleaseManifests(),
        console,
        signal: new AbortController().signal,
        ...virtualClock(),
      },
    )
    const queue = result.inCluster!.steps.find(
      (s) => s.kind === 'apply' && (s.object as {kind: string}).kind === 'ClusterQueue',
    ) as unknown as {object: {spec: {resourceGroups: {flavors: {resources: unknown[]}[]}[]}}}
    return {console, resources: queue.object.spec.resourceGroups[0]!.flavors[0]!.resources}
  }

  it('compares each limit with what the cluster’s VMs hold (2 x ct5p-hightpu-4t): above is lowered, below kept', async () => {
    const compute = new MemoryCompute()
    const {console, resources} = await plan({cpuLimit: '20', memoryLimit: '1Ti'}, compute)
    expect(resources).toEqual([
      {name: 'google.com/tpu', nominalQuota: 8},
      {name: 'cpu', nominalQuota: 20},
      {name: 'memory', nominalQuota: '917504Mi'},
    ])
    expect(console.codes('info').filter((c) => c === 'cluster.create.limit-corrected')).toHaveLength(2)
    const text = console.messages.map((m) => m.text).join('\n')
    expect(text).toContain(
      '--cpu-limit 20 is below what the cluster holds (2 x ct5p-hightpu-4t: 416): Kueue admits workloads up to 20 only.',
    )
    expect(text).toContain(
      "--memory-limit 1Ti is above what the cluster holds (2 x ct5p-hightpu-4t: 917504Mi): the ClusterQueue's memory quota is 917504Mi.",
    )
  })

  it('keeps a value equal to the capacity as written, without a note, and adds nothing without the flags', async () => {
    const equal = await plan({memoryLimit: '896Gi'})
    expect(equal.resources).toEqual([
      {name: 'google.com/tpu', nominalQuota: 8},
      {name: 'memory', nominalQuota: '896Gi'},
    ])
    expect(equal.console.codes()).not.toContain('cluster.create.limit-corrected')
    const none = await plan({})
    expect(none.resources).toEqual([{name: 'google.com/tpu', nominalQuota: 8}])
    expect(none.console.codes()).not.toContain('cluster.create.limits-unverified')
  })

  it('uses the values as given, with a warning, when the machine type cannot be read (and offline)', async () => {
    const compute = new MemoryCompute()
    compute.machineTypes.clear()
    const missing = await plan({cpuLimit: '20', memoryLimit: '1Gi'}, compute)
    expect(missing.resources).toEqual([
      {name: 'google.com/tpu', nominalQuota: 8},
      {name: 'cpu', nominalQuota: 20},
      {name: 'memory', nominalQuota: '1Gi'},
    ])
    expect(missing.console.codes('warn')).toContain('cluster.create.limits-unverified')
    const offline = await plan({cpuLimit: '20'}, new MemoryCompute(), true)
    expect(offline.resources).toContainEqual({name: 'cpu', nominalQuota: 20})
    expect(offline.console.codes('warn')).toContain('cluster.create.limits-unverified')
  })

  it.each([
    [{cpuLimit: '0'}, '--cpu-limit'],
    [{cpuLimit: 'x'}, '--cpu-limit'],
    [{memoryLimit: '64GB'}, '--memory-limit'],
    [{memoryLimit: '0'}, '--memory-limit'],
  ])('%o is exit 2 naming %s, before any call', async (limits, flag) => {
    const log: string[] = []
    const error = await plan(limits, new MemoryCompute(log)).catch((e: unknown) => e)
    expect(flagsOf(error)).toEqual([flag])
    expect(log).toEqual([])
  })

  it('--cpu-limit is refused for CPU types, whose quota counts vCPUs already', async () => {
    const error = await createCluster(
      {
        flags: {...flags, tpuType: undefined, deviceType: 'n2-standard-32-4', cpuLimit: '32'},
        dryRun: true,
        offline: true,
        timing: TIMING,
        inCluster: withInside,
        lock: LOCK,
      },
      {
        gke: async () => new MemoryGke(),
        compute: async () => new MemoryCompute(),
        ...noKube,
        console: new RecordingConsole(),
        signal: new AbortController().signal,
        ...virtualClock(),
      },
    ).catch((e: unknown) => e)
    expect(flagsOf(error)).toEqual(['--cpu-limit'])
    expect((error as Error).message).toMatch(/CPU type whose quota is its vCPUs/)
  })
})

/** The flags a usage error names, one per problem. */
function flagsOf(error: unknown): (string | undefined)[] {
  if (error instanceof UsageErrors) return error.problems.map((p) => p.flag)
  if (error instanceof UsageError) return [error.flag]
  throw error
}

describe('createCluster: the GPU networks of an A3 High cluster (h100-80gb-8)', () => {
  const a3 = {
    cluster: 'demo',
    project: 'test-project',
    zone: 'us-central2-b',
    deviceType: 'h100-80gb-8',
    numNodes: '2',
    spot: true,
  }
  /** GKE with multi-networking serves these kinds (networking.gke.io). */
  const multiNetworkingKube = () => {
    const kube = new MemoryKube()
    kube.seed(NETWORK_PARAM_SET_CRD)
    kube.seed(crd('networking.gke.io', 'Network', 'networks', 'v1', 'Cluster'))
    return kube
  }
  async function create(gke: MemoryGke, kube: MemoryKube, compute: MemoryCompute) {
    return createCluster(
      {flags: a3, dryRun: false, offline: false, timing: TIMING, inCluster: {...gkeOnly, skip: false}, lock: LOCK},
      {
        gke: async () => gke,
        compute: async () => compute,
        kube: async () => kube,
        manifests: new MemoryReleaseManifests(),
        installers: new MemoryInstallerManifests(),
        console: new RecordingConsole(),
        signal: new AbortController().signal,
        ...virtualClock(),
      },
    )
  }

  it("creates the networks, the pool on them, and the cluster's Network and GKENetworkParamSet objects; a re-run changes nothing", async () => {
    const gke = new MemoryGke()
    const kube = multiNetworkingKube()
    const log: string[] = []
    const compute = new MemoryCompute(log)
    await create(gke, kube, compute)
    expect(compute.vpcResources()).toHaveLength(12)
    expect(gke.pools.get('demo-np-0')?.additionalNodeNetworks).toEqual([1, 2, 3, 4].map((i) => `demo-net-${i}`))
    for (const i of [1, 2, 3, 4]) {
      const ref = (kind: string) => ({apiVersion: 'networking.gke.io/v1', kind, name: `vpc${i}`})
      expect(kube.peek(ref('Network'))?.spec).toEqual({
        parametersRef: {group: 'networking.gke.io', kind: 'GKENetworkParamSet', name: `vpc${i}`},
        type: 'Device',
      })
      expect(kube.peek(ref('GKENetworkParamSet'))?.spec).toEqual({
        vpc: `demo-net-${i}`,
        vpcSubnet: `demo-us-central2-sub-${i}`,
        deviceMode: 'NetDevice',
      })
    }
    const inserts = log.filter((l) => l.startsWith('insert')).length
    const again = await create(gke, kube, compute)
    expect(log.filter((l) => l.startsWith('insert'))).toHaveLength(inserts)
    const networkSteps = (again.inCluster?.steps ?? []).filter((s) =>
      /Network|GKENetworkParamSet/.test(JSON.stringify(s)),
    )
    expect(networkSteps).toHaveLength(8)
    expect(networkSteps.every((s) => (s as {change?: string}).change === 'none')).toBe(true)
  })

  it('fails the installer step (timeout) when its DaemonSet is not ready on every GPU node in time, naming it', async () => {
    const kube = multiNetworkingKube()
    kube.addNodes(['gpu-1', 'gpu-2'], {'cloud.google.com/gke-gpu': 'true'})
    kube.failPullOn('gpu-2')
    const error = await create(new MemoryGke(), kube, new MemoryCompute([])).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    const failed = (error as XpkError).message
    expect(failed).toContain('DaemonSet kube-system/nccl-tcpx-installer (NCCL TCPX installer) was not ready')
    expect(failed).toContain('1 of 2 pods ready')
    expect((error as XpkError).kind).toBe('timeout')
  })

  it('applies the NCCL TCPX installer and the NRI device injector, and a re-run applies neither again', async () => {
    const gke = new MemoryGke()
    const kube = multiNetworkingKube()
    const compute = new MemoryCompute([])
    const result = await create(gke, kube, compute)
    const daemonSet = (name: string) =>
      kube.peek({apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: 'kube-system', name})
    expect(daemonSet('nccl-tcpx-installer')).toBeDefined()
    expect(daemonSet('device-injector')).toBeDefined()
    expect(result.outcomes.filter((o) => o.resource === 'installer').map((o) => [o.name, o.status])).toEqual([
      ['NCCL TCPX installer', 'done'],
      ['NRI device injector', 'done'],
    ])
    const before = daemonSet('nccl-tcpx-installer')?.metadata.resourceVersion
    expect(before).toMatch(/^\d+$/)
    const sent = kube.requests.length
    const again = await create(gke, kube, compute)
    expect(
      (again.inCluster?.steps ?? []).flatMap((s) => (s.kind === 'gpu-installer' ? [[s.installer, s.change]] : [])),
    ).toEqual([
      ['nccl-tcpx', 'none'],
      ['nri-device-injector', 'none'],
    ])
    expect(again.outcomes.filter((o) => o.resource === 'installer')).toEqual([])
    expect(daemonSet('nccl-tcpx-installer')?.metadata.resourceVersion).toBe(before)
    const daemonSetWrites = kube.requests.slice(sent).filter((r) => r.kind === 'DaemonSet' && r.verb !== 'get')
    expect(daemonSetWrites).toEqual([])
    expect(kube.requests.slice(sent).filter((r) => r.kind === 'DaemonSet').length).toBeGreaterThan(0)
  })
})
