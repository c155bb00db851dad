// The GKE port's contract (port-contract.ts), held by MemoryGke (the executor and service tests') and by the REST
// adapter talking to FakeGke: what cluster create and delete rest on. Reads that find nothing; creates of what exists
// and deletes of what does not; the lifecycles and operations (read until DONE, listed by location, failing with
// their resource left in ERROR, aborted by the cluster's delete); the refusals a busy or broken cluster answers
// (retried or not); the labels and their fingerprint, which the cluster lock rests on; the updates that enable CSI
// drivers and Workload Identity, one at a time, and switch node pools to the GKE metadata server; and transient
// failures.
import {expect} from 'vitest'

import {createGkeClient, toApiNodePool} from '../../src/adapters/gke-container-api.js'
import type {ObservedCluster, ObservedNodePool} from '../../src/core/cluster/observed.js'
import type {ClusterUpdate, NodePoolSpec} from '../../src/core/cluster/spec.js'
import type {ClusterRef, GkeClient, GkeOperation} from '../../src/ports/gke.js'
import {desiredFor, observedPoolFrom} from '../builders/observed.js'
import {FakeGke, type ClusterStatus, type SeedNodePool} from './fake-gke.js'
import {MemoryGke, type GkeCall, type GkeFailure} from './memory-gke.js'
import {failureOf, portContract, until, type ContractCase, type Step, type Subject} from './port-contract.js'

const PROJECT = 'test-project'
const REF: ClusterRef = {project: PROJECT, location: 'us-central2', name: 'demo'}
const KEY = `projects/${PROJECT}/locations/us-central2/clusters/demo`
const DESIRED = desiredFor({tpuType: 'v5p-16'})
const poolSpec = (name: string): NodePoolSpec => ({...DESIRED.poolTemplate, name, reservation: null})

/** The world a case starts from, in the port's terms. */
interface GkeGiven {
  /** Cluster demo in us-central2 in this state (default RUNNING), or none. */
  readonly cluster?: Exclude<ClusterStatus, 'STATUS_UNSPECIFIED'> | 'none'
  readonly labels?: Readonly<Record<string, string>>
  /** Its node pools, RUNNING, as xpk makes them. */
  readonly pools?: readonly string[]
  /** Calls that fail, as GKE answers them. */
  readonly failing?: readonly (GkeFailure & {readonly call: GkeCall})[]
  /** The next operation of the type ends DONE with this error. */
  readonly operationFails?: GkeFailure & {readonly type: string}
}

const LABELS = {gke_product_type: 'xpk'}
const GRPC_CODE: Readonly<Record<string, number>> = {UNAVAILABLE: 14, RESOURCE_EXHAUSTED: 8, PERMISSION_DENIED: 7}
const RPC: Readonly<Record<GkeCall, string>> = {
  getServerConfig: 'GetServerConfig',
  listClusters: 'ListClusters',
  getCluster: 'GetCluster',
  createCluster: 'CreateCluster',
  deleteCluster: 'DeleteCluster',
  setResourceLabels: 'SetLabels',
  updateCluster: 'UpdateCluster',
  updateNodePool: 'UpdateNodePool',
  listNodePools: 'ListNodePools',
  getNodePool: 'GetNodePool',
  createNodePool: 'CreateNodePool',
  deleteNodePool: 'DeleteNodePool',
  getOperation: 'GetOperation',
  listOperations: 'ListOperations',
}

let wire: FakeGke

const subjects: readonly Subject<GkeClient, GkeGiven>[] = [
  {
    name: 'MemoryGke',
    make: async (given = {}) => {
      const gke = new MemoryGke()
      if (given.cluster === 'none') gke.cluster = 'gone'
      else {
        gke.cluster = given.cluster ?? 'RUNNING'
        for (const name of given.pools ?? []) gke.pools.set(name, observedPoolFrom(poolSpec(name)))
      }
      gke.labels = {...(given.labels ?? LABELS)}
      for (const {call, ...failure} of given.failing ?? []) gke.failNext(call, failure)
      if (given.operationFails) {
        const {type, ...failure} = given.operationFails
        gke.failNextOperation(type, failure)
      }
      return gke
    },
  },
  {
    name: 'the REST adapter against FakeGke',
    start: async () => {
      // Long enough that what a case does right after starting an operation finds it running on a loaded machine.
      wire = await FakeGke.start({operationMs: 150})
    },
    stop: () => wire.stop(),
    make: async (given = {}) => {
      wire.reset()
      if (given.cluster !== 'none') {
        wire.seedCluster({
          ...REF,
          status: given.cluster ?? 'RUNNING',
          fields: {resourceLabels: {...(given.labels ?? LABELS)}, locations: ['us-central2-b']},
          nodePools: (given.pools ?? []).map((name) => toApiNodePool(poolSpec(name)) as SeedNodePool),
        })
      }
      for (const {call, status, message} of given.failing ?? []) {
        wire.faults.push({method: RPC[call], code: GRPC_CODE[status]!, message})
      }
      if (given.operationFails) {
        const {type, status, message} = given.operationFails
        wire.failOperations({type: type as never, code: GRPC_CODE[status]!, message})
      }
      return createGkeClient({endpoint: `http://${wire.endpoint}`})
    },
  },
]

// ---- what the cases compare: the fields the services read, not those each fake fills in its own way ----

const clusterView = (c: ObservedCluster | undefined) =>
  c && {
    name: c.name,
    location: c.location,
    project: c.project,
    status: c.status,
    labels: c.labels,
    network: c.network,
    pools: c.nodePools.map((p) => `${p.name} ${p.status}`).sort(),
  }
const poolView = (p: ObservedNodePool | undefined) =>
  p && {
    name: p.name,
    status: p.status,
    machineType: p.machineType,
    nodeCount: p.nodeCount,
    locations: p.locations,
    tpuTopology: p.tpuTopology,
    placementType: p.placementType,
    capacity: p.capacity,
    workloadMetadataMode: p.workloadMetadataMode,
    ...(p.additionalNodeNetworks ? {additionalNodeNetworks: p.additionalNodeNetworks} : {}),
  }
/** What a cluster has enabled: its CSI drivers and Workload Identity. */
const enabledView = (c: ObservedCluster | undefined) =>
  c && {status: c.status, csiDrivers: c.csiDrivers, lustreLegacyPort: c.lustreLegacyPort, workloadPool: c.workloadPool}
const opView = (op: GkeOperation) => ({type: op.type, status: op.status, error: op.error && failureOf(op.error)})

const getCluster =
  (ref: ClusterRef = REF) =>
  async (gke: GkeClient) =>
    clusterView(await gke.getCluster(ref))
const getPool = (name: string) => async (gke: GkeClient) => poolView(await gke.getNodePool(REF, name))
/** Reads an operation (kept under `as`) until it is DONE. */
const untilDone =
  (as: string) =>
  async (gke: GkeClient, got: Readonly<Record<string, unknown>>): Promise<unknown> =>
    opView(
      await until(
        () => gke.getOperation(PROJECT, REF.location, (got[as] as GkeOperation).name),
        (op) => op.status === 'DONE',
      ),
    )
const started = (type: string) => ({
  name: expect.stringMatching(/\/operations\/operation-\d+$/),
  type,
  status: 'RUNNING',
  error: null,
})
const DONE = (type: string) => ({type, status: 'DONE', error: null})
const createPool = (name: string, as?: string): Step<GkeClient> => ({
  call: `createNodePool(${name})`,
  run: (gke) => gke.createNodePool(REF, poolSpec(name)),
  gives: started('CREATE_NODE_POOL'),
  ...(as ? {as} : {}),
})
const RUNNING_POOL = {
  name: 'demo-np-0',
  status: 'RUNNING',
  machineType: 'ct5p-hightpu-4t',
  nodeCount: 2,
  locations: ['us-central2-b'],
  tpuTopology: '2x2x2',
  placementType: 'COMPACT',
  capacity: 'spot',
  workloadMetadataMode: null,
}
const WORKLOAD_POOL = `${PROJECT}.svc.id.goog`
const ENABLE_WORKLOAD_IDENTITY: ClusterUpdate = {kind: 'workloadIdentity', workloadPool: WORKLOAD_POOL}
const ENABLE_ADDONS: ClusterUpdate = {
  kind: 'addons',
  enable: ['LustreCsiDriver', 'GcsFuseCsiDriver'],
  lustreLegacyPort: true,
}
const TO_GKE_METADATA = {workloadMetadataMode: 'GKE_METADATA'} as const
/** The cluster once both updates are done. */
const ALL_ENABLED = {
  status: 'RUNNING',
  csiDrivers: ['GcsFuseCsiDriver', 'LustreCsiDriver'],
  lustreLegacyPort: true,
  workloadPool: WORKLOAD_POOL,
}
/** Deleting demo-np-0 while `operation` is `doing` it is refused, and retried. */
const deleteOfBusyPool = (call: string, operation: string, doing: string): Step<GkeClient> => ({
  call,
  run: (gke) => gke.deleteNodePool(REF, 'demo-np-0'),
  fails: {
    ...RETRIED_CONFLICT,
    message: `Could not delete node pool demo-np-0: Operation ${operation} is currently ${doing} node pool demo-np-0. Please wait and try again once it is done.`,
  },
})
/** Node auto-provisioning of tpu7x, 0-16 chips, as `cluster create --enable-autoprovisioning` asks for it. */
const NAP = {
  resourceLimits: [
    {resourceType: 'cpu', minimum: 1, maximum: 1_000_000},
    {resourceType: 'memory', minimum: 1, maximum: 10_000_000},
    {resourceType: 'tpu7x', minimum: 0, maximum: 16},
  ],
  oauthScopes: ['https://www.googleapis.com/auth/devstorage.read_write'],
  management: {autoRepair: true, autoUpgrade: true},
  locations: ['us-central2-b'],
}
const NAP_UPDATE: ClusterUpdate = {
  kind: 'autoprovisioning',
  autoprovisioning: NAP,
  autoscalingProfile: 'OPTIMIZE_UTILIZATION',
}
/** Sends a cluster update and reads its operation until DONE. */
const updatedCluster = (what: string, update: ClusterUpdate): Step<GkeClient>[] => [
  {
    call: `updateCluster(${what})`,
    run: (gke) => gke.updateCluster(REF, update),
    gives: started('UPDATE_CLUSTER'),
    as: what,
  },
  {call: 'getOperation until DONE', run: untilDone(what), gives: DONE('UPDATE_CLUSTER')},
]
/** Reads what the cluster has enabled. */
const enabledIs = (call: string, gives: unknown): Step<GkeClient> => ({
  call,
  run: async (gke) => enabledView(await gke.getCluster(REF)),
  gives,
})
const RETRIED_CONFLICT = {status: 'FAILED_PRECONDITION', kind: 'conflict', retryable: true, exitCode: 6}
const NOT_FOUND = {status: 'NOT_FOUND', kind: 'not-found', retryable: false}

const cases: readonly ContractCase<GkeClient, GkeGiven>[] = [
  {
    name: 'the server config names a default among the valid versions, and the three release channels',
    steps: [
      {
        call: 'getServerConfig',
        run: async (gke) => {
          const config = await gke.getServerConfig(PROJECT, REF.location)
          return {
            defaultValid: config.validMasterVersions.includes(config.defaultVersion),
            channels: Object.keys(config.channels).sort(),
            channelDefaultsValid: Object.values(config.channels).every((c) =>
              c.validVersions.includes(c.defaultVersion),
            ),
          }
        },
        gives: {defaultValid: true, channels: ['RAPID', 'REGULAR', 'STABLE'], channelDefaultsValid: true},
      },
    ],
  },
  {
    name: 'the cluster reads with its labels and pools; another name or location finds nothing',
    given: {pools: ['demo-np-0']},
    steps: [
      {
        call: 'getCluster(demo)',
        run: getCluster(),
        gives: {
          name: 'demo',
          location: 'us-central2',
          project: PROJECT,
          status: 'RUNNING',
          labels: LABELS,
          network: 'default',
          pools: ['demo-np-0 RUNNING'],
        },
      },
      {call: 'getCluster(other)', run: getCluster({...REF, name: 'other'}), gives: undefined},
      {call: 'getCluster(demo in the zone)', run: getCluster({...REF, location: 'us-central2-b'}), gives: undefined},
      {call: 'getNodePool(demo-np-0)', run: getPool('demo-np-0'), gives: RUNNING_POOL},
      {call: 'getNodePool(nope)', run: getPool('nope'), gives: undefined},
      {
        call: 'listNodePools',
        run: async (gke) => (await gke.listNodePools(REF)).map((p) => p.name),
        gives: ['demo-np-0'],
      },
    ],
  },
  {
    name: 'clusters are listed by project, or by location',
    steps: [
      {call: 'listClusters', run: async (gke) => (await gke.listClusters(PROJECT)).map((c) => c.name), gives: ['demo']},
      {
        call: 'listClusters(us-central2)',
        run: async (gke) => (await gke.listClusters(PROJECT, 'us-central2')).map((c) => c.name),
        gives: ['demo'],
      },
      {call: 'listClusters(us-east5)', run: (gke) => gke.listClusters(PROJECT, 'us-east5'), gives: []},
    ],
  },
  {
    name: 'no cluster: reads find nothing, changes are NOT_FOUND naming it',
    given: {cluster: 'none'},
    steps: [
      {call: 'getCluster', run: getCluster(), gives: undefined},
      {call: 'listClusters', run: (gke) => gke.listClusters(PROJECT), gives: []},
      {call: 'getNodePool', run: getPool('demo-np-0'), gives: undefined},
      {
        call: 'deleteCluster',
        run: (gke) => gke.deleteCluster(REF),
        fails: {
          ...NOT_FOUND,
          message: `Could not delete cluster demo: Not found: ${KEY}.`,
          hints: [
            `Looked in projects/${PROJECT}/locations/us-central2. Check --project and --zone (xpk clusters live in the zone's region); \`xpk cluster list\` shows your clusters.`,
          ],
        },
      },
      {
        call: 'listNodePools',
        run: (gke) => gke.listNodePools(REF),
        fails: {...NOT_FOUND, message: `Could not list node pools of demo: Not found: ${KEY}.`},
      },
      {
        call: 'createNodePool',
        run: (gke) => gke.createNodePool(REF, poolSpec('demo-np-0')),
        fails: {...NOT_FOUND, message: `Could not create node pool demo-np-0: Not found: ${KEY}.`},
      },
      {
        call: 'setResourceLabels',
        run: (gke) => gke.setResourceLabels(REF, LABELS, 'abcd1234'),
        fails: {...NOT_FOUND, message: `Could not set the labels of cluster demo: Not found: ${KEY}.`},
      },
      {
        call: 'updateCluster',
        run: (gke) => gke.updateCluster(REF, ENABLE_WORKLOAD_IDENTITY),
        fails: {...NOT_FOUND, message: `Could not enable Workload Identity on cluster demo: Not found: ${KEY}.`},
      },
      {
        call: 'updateNodePool',
        run: (gke) => gke.updateNodePool(REF, 'demo-np-0', TO_GKE_METADATA),
        fails: {...NOT_FOUND, message: `Could not update node pool demo-np-0: Not found: ${KEY}.`},
      },
    ],
  },
  {
    name: 'a cluster made on a VPC network reads with it (the network a Filestore instance is created on)',
    given: {cluster: 'none'},
    steps: [
      {
        call: 'createCluster(network team-vpc)',
        run: (gke) => gke.createCluster({...DESIRED.spec, network: 'team-vpc'}),
        gives: started('CREATE_CLUSTER'),
      },
      {call: 'getCluster', run: async (gke) => (await gke.getCluster(REF))?.network, gives: 'team-vpc'},
    ],
  },
  {
    name: 'GKE’s Ray operator addon: made with the cluster when asked for, read back as on',
    given: {cluster: 'none'},
    steps: [
      {
        call: 'createCluster(rayOperator)',
        run: (gke) => gke.createCluster({...DESIRED.spec, rayOperator: true}),
        gives: started('CREATE_CLUSTER'),
      },
      {call: 'getCluster', run: async (gke) => (await gke.getCluster(REF))?.rayOperator, gives: true},
    ],
  },
  {
    name: 'GKE’s Ray operator addon on an existing cluster: off, an update turns it on, the other addons stay',
    steps: [
      {call: 'getCluster', run: async (gke) => (await gke.getCluster(REF))?.rayOperator, gives: undefined},
      ...updatedCluster('addons', ENABLE_ADDONS),
      ...updatedCluster('ray operator', {kind: 'rayOperator'}),
      {
        call: 'getCluster',
        run: async (gke) => {
          const c = await gke.getCluster(REF)
          return {rayOperator: c?.rayOperator, csiDrivers: c?.csiDrivers}
        },
        gives: {rayOperator: true, csiDrivers: ['GcsFuseCsiDriver', 'LustreCsiDriver']},
      },
      ...updatedCluster('ray operator again, as a retry would', {kind: 'rayOperator'}),
      {call: 'getCluster', run: async (gke) => (await gke.getCluster(REF))?.rayOperator, gives: true},
    ],
  },
  {
    name: 'creating the cluster that exists is ALREADY_EXISTS (exit 6, not retried)',
    steps: [
      {
        call: 'createCluster',
        run: (gke) => gke.createCluster(DESIRED.spec),
        fails: {
          status: 'ALREADY_EXISTS',
          kind: 'conflict',
          retryable: false,
          exitCode: 6,
          message: `Could not create cluster demo: Already exists: ${KEY}.`,
        },
      },
    ],
  },
  {
    name: 'a cluster is made PROVISIONING with its default pool and labels; changes wait for it; then RUNNING',
    given: {cluster: 'none'},
    steps: [
      {
        call: 'createCluster',
        run: (gke) => gke.createCluster(DESIRED.spec),
        gives: started('CREATE_CLUSTER'),
        as: 'op',
      },
      {
        call: 'getCluster',
        run: getCluster(),
        gives: {
          name: 'demo',
          location: 'us-central2',
          project: PROJECT,
          status: 'PROVISIONING',
          labels: DESIRED.spec.labels,
          network: 'default',
          pools: ['default-pool PROVISIONING'],
        },
      },
      {
        call: 'createNodePool while it is made',
        run: (gke) => gke.createNodePool(REF, poolSpec('demo-np-0')),
        fails: {
          ...RETRIED_CONFLICT,
          message: 'Could not create node pool demo-np-0: Cluster is running incompatible operation operation-1.',
        },
      },
      {
        call: 'setResourceLabels while it is made',
        run: async (gke) => {
          const {labelFingerprint} = (await gke.getCluster(REF))!
          return gke.setResourceLabels(REF, {a: 'b'}, labelFingerprint)
        },
        fails: {
          ...RETRIED_CONFLICT,
          message: /^Could not set the labels of cluster demo: Cluster is running incompatible/,
        },
      },
      {call: 'getOperation until DONE', run: untilDone('op'), gives: DONE('CREATE_CLUSTER')},
      {
        call: 'getCluster',
        run: async (gke) => {
          const c = (await gke.getCluster(REF))!
          return [c.status, c.nodePools.map((p) => `${p.name} ${p.status}`)]
        },
        gives: ['RUNNING', ['default-pool RUNNING']],
      },
    ],
  },
  {
    name: 'a deleted cluster is STOPPING, refuses a second delete, then is gone',
    given: {pools: ['demo-np-0']},
    steps: [
      {call: 'deleteCluster', run: (gke) => gke.deleteCluster(REF), gives: started('DELETE_CLUSTER'), as: 'op'},
      {
        call: 'getCluster',
        run: async (gke) => clusterView(await gke.getCluster(REF))?.pools.concat((await gke.getCluster(REF))!.status),
        gives: ['demo-np-0 STOPPING', 'STOPPING'],
      },
      {
        call: 'deleteCluster again',
        run: (gke) => gke.deleteCluster(REF),
        fails: {
          ...RETRIED_CONFLICT,
          message:
            'Could not delete cluster demo: Operation operation-1 is currently deleting cluster demo. Please wait and try again once it is done.',
        },
      },
      {call: 'getOperation until DONE', run: untilDone('op'), gives: DONE('DELETE_CLUSTER')},
      {call: 'getCluster', run: getCluster(), gives: undefined},
    ],
  },
  {
    name: 'deleting the cluster aborts the operations running on its pools',
    steps: [
      createPool('demo-np-0', 'pool'),
      {call: 'deleteCluster', run: (gke) => gke.deleteCluster(REF), gives: started('DELETE_CLUSTER')},
      {
        call: 'getOperation(the pool’s)',
        run: async (gke, got) => opView(await gke.getOperation(PROJECT, REF.location, (got.pool as GkeOperation).name)),
        gives: {
          type: 'CREATE_NODE_POOL',
          status: 'DONE',
          error: expect.objectContaining({
            status: 'ABORTED',
            kind: 'conflict',
            retryable: true,
            message: 'Could not create node pool demo-np-0: Operation was aborted: the cluster is being deleted.',
          }),
        },
      },
    ],
  },
  {
    name: 'a node pool is PROVISIONING, then RUNNING; made twice is ALREADY_EXISTS; a busy pool refuses its delete',
    steps: [
      createPool('demo-np-0', 'create'),
      {call: 'getNodePool', run: getPool('demo-np-0'), gives: {...RUNNING_POOL, status: 'PROVISIONING'}},
      {
        call: 'createNodePool again',
        run: (gke) => gke.createNodePool(REF, poolSpec('demo-np-0')),
        fails: {
          status: 'ALREADY_EXISTS',
          kind: 'conflict',
          retryable: false,
          message: `Could not create node pool demo-np-0: Already exists: ${KEY}/nodePools/demo-np-0.`,
        },
      },
      deleteOfBusyPool('deleteNodePool while it is made', 'operation-1', 'creating'),
      {call: 'getOperation until DONE', run: untilDone('create'), gives: DONE('CREATE_NODE_POOL')},
      {call: 'getNodePool', run: getPool('demo-np-0'), gives: RUNNING_POOL},
      {
        call: 'deleteNodePool',
        run: (gke) => gke.deleteNodePool(REF, 'demo-np-0'),
        gives: started('DELETE_NODE_POOL'),
        as: 'delete',
      },
      {call: 'getNodePool', run: getPool('demo-np-0'), gives: {...RUNNING_POOL, status: 'STOPPING'}},
      {call: 'getOperation until DONE', run: untilDone('delete'), gives: DONE('DELETE_NODE_POOL')},
      {call: 'getNodePool', run: getPool('demo-np-0'), gives: undefined},
    ],
  },
  {
    name: 'a GPU pool made with additional node networks reads back with them, in order',
    steps: [
      {
        call: 'createNodePool(a3)',
        run: (gke) =>
          gke.createNodePool(REF, {
            ...poolSpec('demo-np-0'),
            additionalNodeNetworks: [1, 2].map((i) => ({
              network: `demo-net-${i}`,
              subnetwork: `demo-us-central2-sub-${i}`,
            })),
          }),
        gives: started('CREATE_NODE_POOL'),
        as: 'create',
      },
      {call: 'getOperation until DONE', run: untilDone('create'), gives: DONE('CREATE_NODE_POOL')},
      {
        call: 'getNodePool',
        run: getPool('demo-np-0'),
        gives: {...RUNNING_POOL, additionalNodeNetworks: ['demo-net-1', 'demo-net-2']},
      },
    ],
  },
  {
    name: 'deleting a pool that does not exist is NOT_FOUND naming it',
    steps: [
      {
        call: 'deleteNodePool(nope)',
        run: (gke) => gke.deleteNodePool(REF, 'nope'),
        fails: {...NOT_FOUND, message: `Could not delete node pool nope: Not found: ${KEY}/nodePools/nope.`},
      },
    ],
  },
  {
    name: 'a cluster in ERROR refuses node-pool changes, not retried',
    given: {cluster: 'ERROR'},
    steps: [
      {
        call: 'createNodePool',
        run: (gke) => gke.createNodePool(REF, poolSpec('demo-np-0')),
        fails: {
          status: 'FAILED_PRECONDITION',
          kind: 'conflict',
          retryable: false,
          message: 'Could not create node pool demo-np-0: Cluster demo is not ready: its status is ERROR.',
        },
      },
    ],
  },
  {
    name: 'an operation that fails (a stockout) ends DONE with its error; its pool is left in ERROR saying why',
    given: {
      operationFails: {
        type: 'CREATE_NODE_POOL',
        status: 'RESOURCE_EXHAUSTED',
        message:
          "[GCE_STOCKOUT]: The zone 'projects/test-project/zones/us-central2-b' does not have enough resources available to fulfill the request.",
      },
    },
    steps: [
      createPool('demo-np-0', 'create'),
      {
        call: 'getOperation until DONE',
        run: untilDone('create'),
        gives: {
          type: 'CREATE_NODE_POOL',
          status: 'DONE',
          error: expect.objectContaining({
            status: 'RESOURCE_EXHAUSTED',
            kind: 'stockout',
            retryable: false,
            message: expect.stringMatching(/^Could not create node pool demo-np-0: \[GCE_STOCKOUT\]/),
          }),
        },
      },
      {
        call: 'getNodePool',
        run: async (gke) => {
          const pool = (await gke.getNodePool(REF, 'demo-np-0'))!
          return [pool.status, pool.statusMessage]
        },
        gives: ['ERROR', expect.stringMatching(/^\[GCE_STOCKOUT\]: The zone .* does not have enough resources/)],
      },
    ],
  },
  {
    name: 'operations are read by name and listed by location; an unknown one is NOT_FOUND',
    steps: [
      createPool('demo-np-0', 'op'),
      {
        call: 'listOperations(us-central2)',
        run: async (gke, got) =>
          (await gke.listOperations(PROJECT, 'us-central2')).map((op) => op.name === (got.op as GkeOperation).name),
        gives: [true],
      },
      {call: 'listOperations(us-east5)', run: (gke) => gke.listOperations(PROJECT, 'us-east5'), gives: []},
      {
        call: 'getOperation(operation-99)',
        run: (gke) =>
          gke.getOperation(PROJECT, 'us-central2', `projects/${PROJECT}/locations/us-central2/operations/operation-99`),
        fails: {
          ...NOT_FOUND,
          message: `Could not check an operation: Not found: projects/${PROJECT}/locations/us-central2/operations/operation-99.`,
        },
      },
    ],
  },
  {
    name: 'SetLabels with the fingerprint read replaces the labels; the fingerprint follows their content',
    steps: [
      {
        call: 'setResourceLabels',
        run: async (gke) => {
          const before = (await gke.getCluster(REF))!
          await gke.setResourceLabels(REF, {...LABELS, 'xpk-lock': 'abc'}, before.labelFingerprint)
          const locked = (await gke.getCluster(REF))!
          await gke.setResourceLabels(REF, LABELS, locked.labelFingerprint)
          const after = (await gke.getCluster(REF))!
          return {
            locked: locked.labels,
            changed: locked.labelFingerprint !== before.labelFingerprint,
            // Labels put back as they were give the old fingerprint again (why xpk's lock counts a generation).
            sameAgain: after.labelFingerprint === before.labelFingerprint,
          }
        },
        gives: {locked: {...LABELS, 'xpk-lock': 'abc'}, changed: true, sameAgain: true},
      },
    ],
  },
  {
    name: 'a stale fingerprint is a mismatch (exit 6, not retried) and changes nothing; two writers: one wins',
    steps: [
      {call: 'getCluster', run: async (gke) => (await gke.getCluster(REF))!.labelFingerprint, as: 'read'},
      {
        call: 'setResourceLabels',
        run: (gke, got) => gke.setResourceLabels(REF, {'xpk-lock': 'first'}, got.read as string),
        gives: started('SET_LABELS'),
      },
      {
        call: 'setResourceLabels with the same fingerprint',
        run: (gke, got) => gke.setResourceLabels(REF, {'xpk-lock': 'second'}, got.read as string),
        fails: {
          status: 'FAILED_PRECONDITION',
          kind: 'conflict',
          retryable: false,
          exitCode: 6,
          message: /^Could not set the labels of cluster demo: Labels could not be set due to fingerprint mismatch/,
          hints: ["The cluster's labels changed since they were read: read it again and re-run."],
        },
      },
      {
        call: 'two writers at once',
        run: async (gke) => {
          const {labelFingerprint} = (await gke.getCluster(REF))!
          const outcomes = await Promise.allSettled(
            ['a', 'b'].map((v) => gke.setResourceLabels(REF, {'xpk-lock': v}, labelFingerprint)),
          )
          const winner = outcomes.findIndex((o) => o.status === 'fulfilled')
          return [
            outcomes.map((o) => o.status).sort(),
            (await gke.getCluster(REF))!.labels['xpk-lock'] === 'ab'[winner],
          ]
        },
        gives: [['fulfilled', 'rejected'], true],
      },
    ],
  },
  {
    name: 'a label GKE does not accept is INVALID_ARGUMENT, not retried',
    steps: [
      {
        call: 'setResourceLabels({Upper: x})',
        run: async (gke) => gke.setResourceLabels(REF, {Upper: 'x'}, (await gke.getCluster(REF))!.labelFingerprint),
        fails: {
          status: 'INVALID_ARGUMENT',
          kind: 'failed',
          retryable: false,
          message: 'Could not set the labels of cluster demo: Invalid label key "Upper".',
        },
      },
    ],
  },
  {
    name: 'a cluster update runs alone: RECONCILING, refusing other changes (retried) until DONE; then it shows',
    given: {pools: ['demo-np-0']},
    steps: [
      {
        call: 'getCluster',
        run: async (gke) => enabledView(await gke.getCluster(REF)),
        gives: {status: 'RUNNING', csiDrivers: [], lustreLegacyPort: false, workloadPool: null},
      },
      {
        call: 'updateCluster(workload identity)',
        run: (gke) => gke.updateCluster(REF, ENABLE_WORKLOAD_IDENTITY),
        gives: started('UPDATE_CLUSTER'),
        as: 'identity',
      },
      {
        call: 'getCluster',
        run: async (gke) => enabledView(await gke.getCluster(REF)),
        gives: {status: 'RECONCILING', csiDrivers: [], lustreLegacyPort: false, workloadPool: null},
      },
      {
        call: 'updateCluster(addons) meanwhile',
        run: (gke) => gke.updateCluster(REF, ENABLE_ADDONS),
        fails: {
          ...RETRIED_CONFLICT,
          message:
            'Could not enable LustreCsiDriver, GcsFuseCsiDriver on cluster demo: Cluster is running incompatible operation operation-1.',
        },
      },
      {
        call: 'createNodePool meanwhile',
        run: (gke) => gke.createNodePool(REF, poolSpec('demo-np-1')),
        fails: {
          ...RETRIED_CONFLICT,
          message: 'Could not create node pool demo-np-1: Cluster is running incompatible operation operation-1.',
        },
      },
      {call: 'getOperation until DONE', run: untilDone('identity'), gives: DONE('UPDATE_CLUSTER')},
      ...updatedCluster('addons', ENABLE_ADDONS),
      enabledIs('getCluster', ALL_ENABLED),
      ...updatedCluster('addons again, as a retry would', {
        kind: 'addons',
        enable: ['GcsFuseCsiDriver'],
        lustreLegacyPort: false,
      }),
      enabledIs('getCluster: what was enabled stays', ALL_ENABLED),
    ],
  },
  {
    name: 'node auto-provisioning: an update sets it whole and the read shows it; GKE refuses it without cpu limits',
    steps: [
      {call: 'getCluster', run: async (gke) => (await gke.getCluster(REF))?.autoprovisioning, gives: null},
      ...updatedCluster('autoprovisioning', NAP_UPDATE),
      {
        call: 'getCluster',
        run: async (gke) => (await gke.getCluster(REF))?.autoprovisioning,
        gives: {resourceLimits: NAP.resourceLimits, locations: ['us-central2-b']},
      },
      {
        call: 'updateCluster(autoprovisioning without a cpu limit)',
        run: (gke) =>
          gke.updateCluster(REF, {
            ...NAP_UPDATE,
            autoprovisioning: {...NAP, resourceLimits: NAP.resourceLimits.filter((l) => l.resourceType !== 'cpu')},
          }),
        fails: {
          status: 'INVALID_ARGUMENT',
          kind: 'failed',
          retryable: false,
          message:
            'Could not set node auto-provisioning of cluster demo: Autoprovisioning requires a resource limit for cpu: the cluster autoscaler needs maximum cpu to be set.',
        },
      },
    ],
  },
  {
    name: 'a cluster update waits for the node-pool operations running (retried); another project’s pool is refused',
    steps: [
      createPool('demo-np-0', 'pool'),
      {
        call: 'updateCluster while a pool is made',
        run: (gke) => gke.updateCluster(REF, ENABLE_WORKLOAD_IDENTITY),
        fails: {
          ...RETRIED_CONFLICT,
          message:
            'Could not enable Workload Identity on cluster demo: Cluster is running incompatible operation operation-1.',
        },
      },
      {call: 'getOperation until DONE', run: untilDone('pool'), gives: DONE('CREATE_NODE_POOL')},
      {
        call: 'updateCluster(other-project.svc.id.goog)',
        run: (gke) => gke.updateCluster(REF, {kind: 'workloadIdentity', workloadPool: 'other-project.svc.id.goog'}),
        fails: {
          status: 'INVALID_ARGUMENT',
          kind: 'failed',
          retryable: false,
          message: `Could not enable Workload Identity on cluster demo: Invalid workload pool "other-project.svc.id.goog": the only pool of project ${PROJECT} is "${WORKLOAD_POOL}".`,
        },
      },
    ],
  },
  {
    name: 'node pools use GKE_METADATA only with Workload Identity: then new pools get it, an update switches old ones',
    given: {pools: ['demo-np-0']},
    steps: [
      {
        call: 'updateNodePool(GKE_METADATA) without Workload Identity',
        run: (gke) => gke.updateNodePool(REF, 'demo-np-0', TO_GKE_METADATA),
        fails: {
          status: 'INVALID_ARGUMENT',
          kind: 'failed',
          retryable: false,
          message:
            'Could not update node pool demo-np-0: Node pool demo-np-0 cannot use workload metadata mode GKE_METADATA: Workload Identity is not enabled on the cluster.',
        },
      },
      {
        call: 'createNodePool(GKE_METADATA) without Workload Identity',
        run: (gke) => gke.createNodePool(REF, {...poolSpec('demo-np-1'), workloadMetadataMode: 'GKE_METADATA'}),
        fails: {
          status: 'INVALID_ARGUMENT',
          kind: 'failed',
          retryable: false,
          message:
            'Could not create node pool demo-np-1: Node pool demo-np-1 cannot use workload metadata mode GKE_METADATA: Workload Identity is not enabled on the cluster.',
        },
      },
      ...updatedCluster('workload identity', ENABLE_WORKLOAD_IDENTITY),
      {call: 'getNodePool: as it was', run: getPool('demo-np-0'), gives: RUNNING_POOL},
      {
        call: 'updateNodePool(GKE_METADATA)',
        run: (gke) => gke.updateNodePool(REF, 'demo-np-0', TO_GKE_METADATA),
        gives: started('UPGRADE_NODES'),
        as: 'update',
      },
      {call: 'getNodePool', run: getPool('demo-np-0'), gives: {...RUNNING_POOL, status: 'RECONCILING'}},
      deleteOfBusyPool('deleteNodePool meanwhile', 'operation-2', 'updating'),
      {call: 'getOperation until DONE', run: untilDone('update'), gives: DONE('UPGRADE_NODES')},
      {
        call: 'getNodePool',
        run: getPool('demo-np-0'),
        gives: {...RUNNING_POOL, workloadMetadataMode: 'GKE_METADATA'},
      },
      createPool('demo-np-1', 'create'),
      {call: 'getOperation until DONE', run: untilDone('create'), gives: DONE('CREATE_NODE_POOL')},
      {
        call: 'getNodePool(the new one)',
        run: getPool('demo-np-1'),
        gives: {...RUNNING_POOL, name: 'demo-np-1', workloadMetadataMode: 'GKE_METADATA'},
      },
    ],
  },
  {
    name: 'a PERIODIC pool keeps its host maintenance interval, read only when asked (v1beta1); others read AS_NEEDED',
    given: {pools: ['demo-np-0']},
    steps: [
      {
        call: 'createNodePool(demo-np-1, PERIODIC)',
        run: (gke) => gke.createNodePool(REF, {...poolSpec('demo-np-1'), hostMaintenanceInterval: 'PERIODIC'}),
        gives: started('CREATE_NODE_POOL'),
        as: 'create',
      },
      {call: 'getOperation until DONE', run: untilDone('create'), gives: DONE('CREATE_NODE_POOL')},
      {
        call: 'listNodePools(hostMaintenance)',
        run: async (gke) =>
          (await gke.listNodePools(REF, {hostMaintenance: true})).map((p) => `${p.name} ${p.hostMaintenanceInterval}`),
        gives: ['demo-np-0 AS_NEEDED', 'demo-np-1 PERIODIC'],
      },
      {
        call: 'getNodePool(demo-np-1, hostMaintenance)',
        run: async (gke) => {
          const pool = await gke.getNodePool(REF, 'demo-np-1', {hostMaintenance: true})
          return pool && {...poolView(pool), hostMaintenanceInterval: pool.hostMaintenanceInterval}
        },
        gives: {...RUNNING_POOL, name: 'demo-np-1', hostMaintenanceInterval: 'PERIODIC'},
      },
      {
        call: 'listNodePools, getNodePool and getCluster (v1): no interval',
        run: async (gke) =>
          [
            ...(await gke.listNodePools(REF)),
            await gke.getNodePool(REF, 'demo-np-1'),
            ...((await gke.getCluster(REF))?.nodePools ?? []),
          ].map((p) => p && 'hostMaintenanceInterval' in p),
        gives: [false, false, false, false, false],
      },
    ],
  },
  {
    name: 'transient failures (unavailable, too many operations) are retryable and changed nothing',
    given: {
      failing: [
        {call: 'getCluster', status: 'UNAVAILABLE', message: 'connection reset'},
        {
          call: 'createNodePool',
          status: 'RESOURCE_EXHAUSTED',
          message:
            'Too many operations: cluster "demo" hits the concurrent operations quota 5, please try again later.',
        },
      ],
    },
    steps: [
      {
        call: 'getCluster',
        run: getCluster(),
        fails: {
          status: 'UNAVAILABLE',
          kind: 'unavailable',
          retryable: true,
          message: 'Could not read cluster demo: connection reset',
        },
      },
      {
        call: 'createNodePool',
        run: (gke) => gke.createNodePool(REF, poolSpec('demo-np-0')),
        fails: {
          status: 'RESOURCE_EXHAUSTED',
          kind: 'conflict',
          retryable: true,
          message: /^Could not create node pool demo-np-0: Too many operations/,
        },
      },
      {call: 'getNodePool', run: getPool('demo-np-0'), gives: undefined},
      createPool('demo-np-0'),
    ],
  },
]

portContract('the GKE port', subjects, cases)
