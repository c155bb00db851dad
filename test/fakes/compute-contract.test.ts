// The Compute Engine port's contract (port-contract.ts), held by MemoryCompute (the executor and service tests') and
// by the REST adapter talking to FakeCompute: what creating a workload policy rests on (the policy CREATING from its
// insert, READY when the insert's operation is DONE; `exists` for a name taken; an operation lost to another creator
// ending ALREADY_EXISTS with that creator's policy left), the reservation reads cluster create checks capacity with
// (a reservation, its blocks and their sub-blocks, with usage and health; missing ones read as none), and the failures
// the one retry policy tells apart.
import {expect} from 'vitest'

import {createComputeClient} from '../../src/adapters/compute-rest.js'
import type {
  ComputeClient,
  ComputeOperation,
  FirewallSpec,
  NetworkSpec,
  SubnetworkSpec,
  WorkloadPolicySpec,
} from '../../src/ports/compute.js'
import {FakeCompute, type HttpFault} from './fake-compute.js'
import {MemoryCompute, type ComputeCall, type ComputeFailure, type ReservationSeed} from './memory-compute.js'
import {failureOf, portContract, until, type ContractCase, type Subject} from './port-contract.js'

const PROJECT = 'p1'
const REGION = 'us-east5'
const SPEC: WorkloadPolicySpec = {
  project: PROJECT,
  region: REGION,
  name: 'tpu7x-16-2x2x2',
  acceleratorTopology: '2x2x2',
}

/** The world a case starts from, in the port's terms. */
interface ComputeGiven {
  /** Policies others made (no operation of this port's runs for them). */
  readonly policies?: readonly {readonly name: string; readonly status: string}[]
  /** Calls that fail, as Compute Engine answers them. */
  readonly failing?: readonly (ComputeFailure & {readonly call: ComputeCall})[]
  /** The next insert's operation ends DONE with this error. */
  readonly operationFails?: ComputeFailure
  readonly reservations?: readonly ReservationSeed[]
  /** Quotas of REGION in PROJECT. */
  readonly quotas?: readonly {readonly metric: string; readonly limit: number; readonly usage: number}[]
}

let wire: FakeCompute

/** How FakeCompute answers each failure: HTTP status and Google's error reason. */
const HTTP: Readonly<Record<string, [number, string]>> = {
  UNAVAILABLE: [503, 'backendError'],
  RESOURCE_EXHAUSTED: [429, 'rateLimitExceeded'],
  PERMISSION_DENIED: [403, 'forbidden'],
  NOT_FOUND: [404, 'notFound'],
  ALREADY_EXISTS: [409, 'alreadyExists'],
}
/** The operation error code Compute Engine reports for each failure. */
const OPERATION_CODE: Readonly<Record<string, string>> = {
  ALREADY_EXISTS: 'RESOURCE_ALREADY_EXISTS',
  RESOURCE_EXHAUSTED: 'QUOTA_EXCEEDED',
  INTERNAL: 'INTERNAL_ERROR',
}
const ROUTES: Readonly<Record<ComputeCall, Pick<HttpFault, 'method' | 'path'>>> = {
  getWorkloadPolicy: {method: 'GET', path: /\/resourcePolicies\/[^/]+$/},
  insertWorkloadPolicy: {method: 'POST', path: /\/resourcePolicies$/},
  getRegionOperation: {method: 'GET', path: /\/operations\/[^/]+$/},
  getReservation: {method: 'GET', path: /\/reservations\/[^/]+$/},
  listReservationBlocks: {method: 'GET', path: /\/reservationBlocks$/},
  listReservationSubBlocks: {method: 'GET', path: /\/reservationSubBlocks$/},
  getMachineType: {method: 'GET', path: /\/machineTypes\/[^/]+$/},
  getRegionQuotas: {method: 'GET', path: /^projects\/[^/]+\/regions\/[^/]+$/},
  getNetwork: {method: 'GET', path: /\/global\/networks\/[^/]+$/},
  listNetworks: {method: 'GET', path: /\/global\/networks$/},
  insertNetwork: {method: 'POST', path: /\/global\/networks$/},
  deleteNetwork: {method: 'DELETE', path: /\/global\/networks\/[^/]+$/},
  getSubnetwork: {method: 'GET', path: /\/subnetworks\/[^/]+$/},
  listSubnetworks: {method: 'GET', path: /\/subnetworks$/},
  insertSubnetwork: {method: 'POST', path: /\/subnetworks$/},
  deleteSubnetwork: {method: 'DELETE', path: /\/subnetworks\/[^/]+$/},
  getFirewall: {method: 'GET', path: /\/firewalls\/[^/]+$/},
  listFirewalls: {method: 'GET', path: /\/firewalls$/},
  insertFirewall: {method: 'POST', path: /\/firewalls$/},
  deleteFirewall: {method: 'DELETE', path: /\/firewalls\/[^/]+$/},
  getGlobalOperation: {method: 'GET', path: /\/global\/operations\/[^/]+$/},
}

const subjects: readonly Subject<ComputeClient, ComputeGiven>[] = [
  {
    name: 'MemoryCompute',
    make: async (given = {}) => {
      const compute = new MemoryCompute()
      for (const p of given.policies ?? []) {
        compute.policies.set(p.name, {...p, acceleratorTopology: '2x2x2', type: 'HIGH_THROUGHPUT'})
      }
      for (const {call, ...failure} of given.failing ?? []) compute.failNext(call, failure)
      if (given.operationFails) compute.failNextOperation(given.operationFails)
      for (const r of given.reservations ?? []) compute.seedReservation(r)
      if (given.quotas) compute.seedRegionQuotas(PROJECT, REGION, given.quotas)
      return compute
    },
  },
  {
    name: 'the REST adapter against FakeCompute',
    start: async () => {
      // Long enough that a read right after an insert finds the operation still running on a loaded machine.
      wire = await FakeCompute.start({operationMs: 150})
    },
    stop: () => wire.stop(),
    make: async (given = {}) => {
      wire.reset()
      for (const p of given.policies ?? []) {
        wire.seedPolicy({
          project: PROJECT,
          region: REGION,
          name: p.name,
          acceleratorTopology: '2x2x2',
          status: p.status as never,
        })
      }
      for (const {call, status, message} of given.failing ?? []) {
        const [httpStatus, reason] = HTTP[status]!
        wire.faults.push({...ROUTES[call], status: httpStatus, reason, message})
      }
      if (given.operationFails) {
        const {status, message} = given.operationFails
        wire.failOperations({errors: [{code: OPERATION_CODE[status]!, message}]})
      }
      for (const r of given.reservations ?? []) wire.seedReservation(r)
      if (given.quotas) wire.seedRegionQuotas(PROJECT, REGION, [...given.quotas])
      return createComputeClient({endpoint: wire.endpoint})
    },
  },
]

const theirs = (status: string) => ({name: 'theirs', acceleratorTopology: '2x2x2', type: 'HIGH_THROUGHPUT', status})
const ours = (status: string) => ({name: SPEC.name, acceleratorTopology: '2x2x2', type: 'HIGH_THROUGHPUT', status})
const get =
  (name = SPEC.name) =>
  (compute: ComputeClient) =>
    compute.getWorkloadPolicy(PROJECT, REGION, name)
/** Reads the insert's operation until it is DONE; its failure as the port classifies it. */
const untilDone = async (compute: ComputeClient, got: Readonly<Record<string, unknown>>) => {
  const op = await until(
    () => compute.getRegionOperation(PROJECT, REGION, (got.op as ComputeOperation).name),
    (o) => o.done,
  )
  return {done: op.done, error: op.error && failureOf(op.error)}
}
const RUNNING = {name: expect.any(String), done: false, error: null}

const cases: readonly ContractCase<ComputeClient, ComputeGiven>[] = [
  {
    name: "a region's quotas read as metric, limit and usage; a region without seeded quotas reports none",
    given: {
      quotas: [
        {metric: 'TPU_PODSLICE_V5', limit: 64, usage: 16},
        {metric: 'CPUS', limit: 96.5, usage: 0},
      ],
    },
    steps: [
      {
        call: 'getRegionQuotas',
        run: (c) => c.getRegionQuotas(PROJECT, REGION),
        gives: [
          {metric: 'TPU_PODSLICE_V5', limit: 64, usage: 16},
          {metric: 'CPUS', limit: 96.5, usage: 0},
        ],
      },
      {call: 'getRegionQuotas(another region)', run: (c) => c.getRegionQuotas(PROJECT, 'europe-west4'), gives: []},
    ],
  },
  {
    name: 'a region that does not exist reads as none',
    steps: [{call: 'getRegionQuotas(a zone)', run: (c) => c.getRegionQuotas(PROJECT, 'us-east5-a'), gives: undefined}],
  },
  {
    name: 'quotas a caller may not read fail as a permission problem (exit 3), not retried',
    given: {
      failing: [
        {call: 'getRegionQuotas', status: 'PERMISSION_DENIED', message: "Required 'compute.regions.get' permission"},
      ],
    },
    steps: [
      {
        call: 'getRegionQuotas',
        run: (c) => c.getRegionQuotas(PROJECT, REGION),
        fails: {kind: 'permission', status: 'PERMISSION_DENIED', retryable: false, exitCode: 3},
      },
    ],
  },
  {
    name: 'a machine type reads as its vCPUs and memory; one the zone lacks reads as none',
    steps: [
      {
        call: 'getMachineType',
        run: (c) => c.getMachineType(PROJECT, 'us-east5-a', 'ct5p-hightpu-4t'),
        gives: {name: 'ct5p-hightpu-4t', guestCpus: 208, memoryMb: 458752},
      },
      {
        call: 'getMachineType(unknown)',
        run: (c) => c.getMachineType(PROJECT, 'us-east5-a', 'nope-1'),
        gives: undefined,
      },
    ],
  },
  {
    name: 'a policy that does not exist reads as none',
    steps: [{call: 'getWorkloadPolicy', run: get(), gives: undefined}],
  },
  {
    name: 'a policy someone else made reads as it is, in its state',
    given: {policies: [{name: 'theirs', status: 'READY'}]},
    steps: [{call: 'getWorkloadPolicy(theirs)', run: get('theirs'), gives: theirs('READY')}],
  },
  {
    name: 'an insert answers a running operation; the policy is CREATING until it is DONE, then READY',
    steps: [
      {call: 'insertWorkloadPolicy', run: (c) => c.insertWorkloadPolicy(SPEC), gives: RUNNING, as: 'op'},
      {call: 'getWorkloadPolicy', run: get(), gives: ours('CREATING')},
      {call: 'getRegionOperation until done', run: untilDone, gives: {done: true, error: null}},
      {call: 'getWorkloadPolicy', run: get(), gives: ours('READY')},
      {call: 'insertWorkloadPolicy again', run: (c) => c.insertWorkloadPolicy(SPEC), gives: 'exists'},
    ],
  },
  {
    name: 'an insert of a name taken, in any state, is `exists` and changes nothing',
    given: {policies: [{name: SPEC.name, status: 'DELETING'}]},
    steps: [
      {call: 'insertWorkloadPolicy', run: (c) => c.insertWorkloadPolicy(SPEC), gives: 'exists'},
      {call: 'getWorkloadPolicy', run: get(), gives: ours('DELETING')},
    ],
  },
  {
    name: 'an operation that ends ALREADY_EXISTS (another creator won) leaves that creator’s policy, READY',
    given: {operationFails: {status: 'ALREADY_EXISTS', message: `The resource '${SPEC.name}' already exists`}},
    steps: [
      {call: 'insertWorkloadPolicy', run: (c) => c.insertWorkloadPolicy(SPEC), gives: RUNNING, as: 'op'},
      {
        call: 'getRegionOperation until done',
        run: untilDone,
        gives: {
          done: true,
          error: expect.objectContaining({
            status: 'ALREADY_EXISTS',
            kind: 'conflict',
            retryable: false,
            message: `Could not create workload policy ${SPEC.name}: The resource '${SPEC.name}' already exists`,
          }),
        },
      },
      {call: 'getWorkloadPolicy', run: get(), gives: ours('READY')},
    ],
  },
  {
    name: 'an operation that fails otherwise takes its policy away, its error classified',
    given: {
      operationFails: {status: 'RESOURCE_EXHAUSTED', message: "Quota 'RESOURCE_POLICIES' exceeded. Limit: 10.0"},
    },
    steps: [
      {call: 'insertWorkloadPolicy', run: (c) => c.insertWorkloadPolicy(SPEC), as: 'op'},
      {
        call: 'getRegionOperation until done',
        run: untilDone,
        gives: {
          done: true,
          error: expect.objectContaining({
            status: 'RESOURCE_EXHAUSTED',
            kind: 'quota',
            retryable: false,
            message: `Could not create workload policy ${SPEC.name}: Quota 'RESOURCE_POLICIES' exceeded. Limit: 10.0`,
          }),
        },
      },
      {call: 'getWorkloadPolicy', run: get(), gives: undefined},
    ],
  },
  {
    name: 'an operation never started reads as NOT_FOUND',
    steps: [
      {
        call: 'getRegionOperation(operation-99)',
        run: (c) => c.getRegionOperation(PROJECT, REGION, 'operation-99'),
        fails: {
          status: 'NOT_FOUND',
          kind: 'not-found',
          retryable: false,
          message: `Could not check operation operation-99: The resource 'projects/${PROJECT}/regions/${REGION}/operations/operation-99' was not found`,
        },
      },
    ],
  },
  {
    name: 'a 503 to an insert is retryable and made nothing; the insert again goes through',
    given: {failing: [{call: 'insertWorkloadPolicy', status: 'UNAVAILABLE', message: 'Backend Error'}]},
    steps: [
      {
        call: 'insertWorkloadPolicy',
        run: (c) => c.insertWorkloadPolicy(SPEC),
        fails: {
          status: 'UNAVAILABLE',
          kind: 'unavailable',
          retryable: true,
          message: `Could not create workload policy ${SPEC.name}: Backend Error`,
          hints: [
            'Compute Engine did not answer or failed transiently; re-run the command to continue where it stopped.',
          ],
        },
      },
      {call: 'getWorkloadPolicy', run: get(), gives: undefined},
      {call: 'insertWorkloadPolicy again', run: (c) => c.insertWorkloadPolicy(SPEC), gives: RUNNING},
    ],
  },
  {
    name: 'a rate limit on a read is retryable',
    given: {failing: [{call: 'getWorkloadPolicy', status: 'RESOURCE_EXHAUSTED', message: 'Rate Limit Exceeded'}]},
    steps: [
      {
        call: 'getWorkloadPolicy',
        run: get(),
        fails: {
          status: 'RESOURCE_EXHAUSTED',
          kind: 'quota',
          retryable: true,
          message: `Could not read workload policy ${SPEC.name}: Rate Limit Exceeded`,
        },
      },
      {call: 'getWorkloadPolicy again', run: get(), gives: undefined},
    ],
  },
  {
    name: 'a permission denied is not retryable',
    given: {
      failing: [
        {
          call: 'insertWorkloadPolicy',
          status: 'PERMISSION_DENIED',
          message: "Required 'compute.resourcePolicies.create'",
        },
      ],
    },
    steps: [
      {
        call: 'insertWorkloadPolicy',
        run: (c) => c.insertWorkloadPolicy(SPEC),
        fails: {status: 'PERMISSION_DENIED', kind: 'permission', retryable: false, exitCode: 3},
      },
    ],
  },
]

const ZONE = 'us-east5-a'
const SHARED = 'shared-proj'
const SPECIFIC: ReservationSeed = {
  project: PROJECT,
  zone: ZONE,
  name: 'r1',
  specific: {machineType: 'ct5p-hightpu-4t', count: 64, inUseCount: 52, maintenanceInterval: 'PERIODIC'},
  deploymentType: 'DENSE',
  resourcePolicies: {policy: `projects/${PROJECT}/regions/${REGION}/resourcePolicies/compact-1`},
  specificReservationRequired: true,
  shareType: 'LOCAL',
  blocks: [
    {
      name: 'b1',
      count: 32,
      inUseCount: 20,
      subBlocks: [
        {name: 'sb1', count: 16, inUseCount: 4},
        {name: 'sb2', count: 16, inUseCount: 16, health: 'DEGRADED'},
      ],
    },
    {name: 'b2', count: 32, inUseCount: 32, status: 'CREATING', health: 'DEGRADED'},
  ],
}
const AGGREGATE: ReservationSeed = {
  project: SHARED,
  zone: ZONE,
  name: 'pods',
  status: 'UPDATING',
  aggregate: {
    reserved: [{type: `projects/${SHARED}/zones/${ZONE}/acceleratorTypes/v5p`, count: 512}],
    inUse: [{type: `projects/${SHARED}/zones/${ZONE}/acceleratorTypes/v5p`, count: 128}],
  },
}
const GPU: ReservationSeed = {
  project: PROJECT,
  zone: ZONE,
  name: 'gpus',
  specific: {machineType: 'a3-megagpu-8g', count: 4, guestAccelerators: [{type: 'nvidia-h100-mega-80gb', count: 8}]},
}

const reservationCases: readonly ContractCase<ComputeClient, ComputeGiven>[] = [
  {
    name: 'a reservation that is not there reads as none, and so do its blocks and sub-blocks',
    given: {reservations: [GPU]},
    steps: [
      {call: 'getReservation(r1)', run: (c) => c.getReservation(PROJECT, ZONE, 'r1'), gives: undefined},
      {
        call: 'getReservation(gpus) in another zone',
        run: (c) => c.getReservation(PROJECT, 'us-east5-b', 'gpus'),
        gives: undefined,
      },
      {call: 'listReservationBlocks(r1)', run: (c) => c.listReservationBlocks(PROJECT, ZONE, 'r1'), gives: undefined},
      {
        call: 'listReservationSubBlocks(r1, b1)',
        run: (c) => c.listReservationSubBlocks(PROJECT, ZONE, 'r1', 'b1'),
        gives: undefined,
      },
      {
        call: 'listReservationBlocks(gpus): none',
        run: (c) => c.listReservationBlocks(PROJECT, ZONE, 'gpus'),
        gives: [],
      },
    ],
  },
  {
    name: 'a specific reservation reads with its machine type, counts, maintenance interval, policies and sharing',
    given: {reservations: [SPECIFIC, GPU]},
    steps: [
      {
        call: 'getReservation(r1)',
        run: (c) => c.getReservation(PROJECT, ZONE, 'r1'),
        gives: {
          name: 'r1',
          zone: ZONE,
          status: 'READY',
          specific: {
            machineType: 'ct5p-hightpu-4t',
            guestAccelerators: [],
            count: 64,
            inUseCount: 52,
            maintenanceInterval: 'PERIODIC',
          },
          aggregate: null,
          deploymentType: 'DENSE',
          resourcePolicies: [`projects/${PROJECT}/regions/${REGION}/resourcePolicies/compact-1`],
          specificReservationRequired: true,
          shareType: 'LOCAL',
        },
      },
      {
        call: 'getReservation(gpus)',
        run: (c) => c.getReservation(PROJECT, ZONE, 'gpus'),
        gives: expect.objectContaining({
          specific: {
            machineType: 'a3-megagpu-8g',
            guestAccelerators: [{type: 'nvidia-h100-mega-80gb', count: 8}],
            count: 4,
            inUseCount: 0,
            maintenanceInterval: null,
          },
          deploymentType: null,
          resourcePolicies: [],
          specificReservationRequired: false,
          shareType: null,
        }),
      },
    ],
  },
  {
    name: 'an aggregate reservation of another project reads its reserved and used accelerators, in its status',
    given: {reservations: [AGGREGATE]},
    steps: [
      {
        call: 'getReservation(shared pods)',
        run: (c) => c.getReservation(SHARED, ZONE, 'pods'),
        gives: expect.objectContaining({
          status: 'UPDATING',
          specific: null,
          aggregate: {
            reserved: [{type: `projects/${SHARED}/zones/${ZONE}/acceleratorTypes/v5p`, count: 512}],
            inUse: [{type: `projects/${SHARED}/zones/${ZONE}/acceleratorTypes/v5p`, count: 128}],
          },
        }),
      },
    ],
  },
  {
    name: 'blocks and sub-blocks read with hosts, hosts in use, status and health',
    given: {reservations: [SPECIFIC]},
    steps: [
      {
        call: 'listReservationBlocks(r1)',
        run: (c) => c.listReservationBlocks(PROJECT, ZONE, 'r1'),
        gives: [
          {name: 'b1', count: 32, inUseCount: 20, status: 'READY', health: 'HEALTHY'},
          {name: 'b2', count: 32, inUseCount: 32, status: 'CREATING', health: 'DEGRADED'},
        ],
      },
      {
        call: 'listReservationSubBlocks(r1, b1)',
        run: (c) => c.listReservationSubBlocks(PROJECT, ZONE, 'r1', 'b1'),
        gives: [
          {name: 'sb1', count: 16, inUseCount: 4, status: 'READY', health: 'HEALTHY'},
          {name: 'sb2', count: 16, inUseCount: 16, status: 'READY', health: 'DEGRADED'},
        ],
      },
      {
        call: 'listReservationSubBlocks(r1, b2): none',
        run: (c) => c.listReservationSubBlocks(PROJECT, ZONE, 'r1', 'b2'),
        gives: [],
      },
      {
        call: 'listReservationSubBlocks(r1, b9)',
        run: (c) => c.listReservationSubBlocks(PROJECT, ZONE, 'r1', 'b9'),
        gives: undefined,
      },
    ],
  },
  {
    name: 'a rate limit on a reservation read is retryable; a permission denied is not',
    given: {
      reservations: [SPECIFIC],
      failing: [
        {call: 'getReservation', status: 'RESOURCE_EXHAUSTED', message: 'Rate Limit Exceeded'},
        {call: 'listReservationBlocks', status: 'PERMISSION_DENIED', message: "Required 'compute.reservations.list'"},
      ],
    },
    steps: [
      {
        call: 'getReservation',
        run: (c) => c.getReservation(PROJECT, ZONE, 'r1'),
        fails: {
          status: 'RESOURCE_EXHAUSTED',
          kind: 'quota',
          retryable: true,
          message: 'Could not read reservation r1: Rate Limit Exceeded',
        },
      },
      {
        call: 'getReservation again',
        run: (c) => c.getReservation(PROJECT, ZONE, 'r1'),
        gives: expect.objectContaining({name: 'r1'}),
      },
      {
        call: 'listReservationBlocks',
        run: (c) => c.listReservationBlocks(PROJECT, ZONE, 'r1'),
        fails: {status: 'PERMISSION_DENIED', kind: 'permission', retryable: false, exitCode: 3},
      },
    ],
  },
]

const NET: NetworkSpec = {project: PROJECT, name: 'c1-net-1', mtu: 8244, networkProfile: null}
const SUB: SubnetworkSpec = {
  project: PROJECT,
  region: REGION,
  name: `c1-${REGION}-sub-1`,
  network: NET.name,
  ipCidrRange: '192.168.1.0/24',
}
const FW: FirewallSpec = {
  project: PROJECT,
  name: 'c1-internal-1',
  network: NET.name,
  sourceRanges: ['192.168.0.0/16'],
  allowed: [
    {protocol: 'tcp', ports: ['0-65535']},
    {protocol: 'udp', ports: ['0-65535']},
    {protocol: 'icmp', ports: []},
  ],
}
type OpAnswer = ComputeOperation | 'exists' | 'gone'
/** Reads a global (networks, firewall rules) or regional (subnetworks) operation until DONE; its failure classified. */
const untilDoneIn =
  (scope: 'global' | 'region', key = 'op') =>
  async (compute: ComputeClient, got: Readonly<Record<string, unknown>>) => {
    const name = (got[key] as ComputeOperation).name
    const op = await until(
      () =>
        scope === 'global'
          ? compute.getGlobalOperation(PROJECT, name)
          : compute.getRegionOperation(PROJECT, REGION, name),
      (o) => o.done,
    )
    return {done: op.done, error: op.error && failureOf(op.error)}
  }
const DONE = {done: true, error: null}
const OBSERVED_NET = {name: NET.name, mtu: 8244, autoCreateSubnetworks: false, networkProfile: null, subnetworks: []}
const OBSERVED_SUB = {name: SUB.name, region: REGION, network: NET.name, ipCidrRange: '192.168.1.0/24'}
const OBSERVED_FW = {
  name: FW.name,
  network: NET.name,
  direction: 'INGRESS',
  sourceRanges: ['192.168.0.0/16'],
  allowed: FW.allowed,
}
/** Makes NET with SUB and FW on it, each insert waited for. */
const madeNetwork = [
  {call: 'insertNetwork', run: (c: ComputeClient) => c.insertNetwork(NET), gives: RUNNING, as: 'net'},
  {call: 'getGlobalOperation until done', run: untilDoneIn('global', 'net'), gives: DONE},
  {call: 'insertSubnetwork', run: (c: ComputeClient) => c.insertSubnetwork(SUB), gives: RUNNING, as: 'sub'},
  {call: 'getRegionOperation until done', run: untilDoneIn('region', 'sub'), gives: DONE},
  {call: 'insertFirewall', run: (c: ComputeClient) => c.insertFirewall(FW), gives: RUNNING, as: 'fw'},
  {call: 'getGlobalOperation until done', run: untilDoneIn('global', 'fw'), gives: DONE},
] as const

const networkCases: readonly ContractCase<ComputeClient, ComputeGiven>[] = [
  {
    name: 'networks, subnetworks and firewall rules that do not exist read as none, and their deletes as `gone`',
    steps: [
      {call: 'getNetwork', run: (c) => c.getNetwork(PROJECT, NET.name), gives: undefined},
      {call: 'getSubnetwork', run: (c) => c.getSubnetwork(PROJECT, REGION, SUB.name), gives: undefined},
      {call: 'getFirewall', run: (c) => c.getFirewall(PROJECT, FW.name), gives: undefined},
      {call: 'listNetworks', run: (c) => c.listNetworks(PROJECT), gives: []},
      {call: 'deleteNetwork', run: (c): Promise<OpAnswer> => c.deleteNetwork(PROJECT, NET.name), gives: 'gone'},
      {call: 'deleteSubnetwork', run: (c) => c.deleteSubnetwork(PROJECT, REGION, SUB.name), gives: 'gone'},
      {call: 'deleteFirewall', run: (c) => c.deleteFirewall(PROJECT, FW.name), gives: 'gone'},
    ],
  },
  {
    name: 'a network, its subnetwork and firewall rule read back as inserted, listed too; inserts again are `exists`',
    steps: [
      ...madeNetwork,
      {
        call: 'getNetwork',
        run: (c) => c.getNetwork(PROJECT, NET.name),
        gives: {...OBSERVED_NET, subnetworks: [`${REGION}/${SUB.name}`]},
      },
      {call: 'getSubnetwork', run: (c) => c.getSubnetwork(PROJECT, REGION, SUB.name), gives: OBSERVED_SUB},
      {call: 'getFirewall', run: (c) => c.getFirewall(PROJECT, FW.name), gives: OBSERVED_FW},
      {call: 'listSubnetworks', run: (c) => c.listSubnetworks(PROJECT, REGION), gives: [OBSERVED_SUB]},
      {call: 'listSubnetworks(another region)', run: (c) => c.listSubnetworks(PROJECT, 'europe-west4'), gives: []},
      {call: 'listFirewalls', run: (c) => c.listFirewalls(PROJECT), gives: [OBSERVED_FW]},
      {call: 'insertNetwork again', run: (c) => c.insertNetwork(NET), gives: 'exists'},
      {call: 'insertSubnetwork again', run: (c) => c.insertSubnetwork(SUB), gives: 'exists'},
      {call: 'insertFirewall again', run: (c) => c.insertFirewall(FW), gives: 'exists'},
    ],
  },
  {
    name: 'an RDMA network reads with its network profile and MTU',
    steps: [
      {
        call: 'insertNetwork',
        run: (c) => c.insertNetwork({...NET, name: 'c1-rdma-net', mtu: 8896, networkProfile: `${ZONE}-vpc-roce`}),
        as: 'net',
      },
      {call: 'getGlobalOperation until done', run: untilDoneIn('global', 'net'), gives: DONE},
      {
        call: 'listNetworks',
        run: (c) => c.listNetworks(PROJECT),
        gives: [{...OBSERVED_NET, name: 'c1-rdma-net', mtu: 8896, networkProfile: `${ZONE}-vpc-roce`}],
      },
    ],
  },
  {
    name: 'a network still used by a subnetwork or firewall rule is not deleted (a conflict); once they are gone it is',
    steps: [
      ...madeNetwork,
      {call: 'deleteNetwork', run: (c) => c.deleteNetwork(PROJECT, NET.name), gives: RUNNING, as: 'del'},
      {
        call: 'getGlobalOperation until done',
        run: untilDoneIn('global', 'del'),
        gives: {
          done: true,
          error: expect.objectContaining({kind: 'conflict', status: 'FAILED_PRECONDITION', retryable: false}),
        },
      },
      {
        call: 'getNetwork',
        run: (c) => c.getNetwork(PROJECT, NET.name),
        gives: expect.objectContaining({name: NET.name}),
      },
      {call: 'deleteFirewall', run: (c) => c.deleteFirewall(PROJECT, FW.name), as: 'fwDel'},
      {call: 'getGlobalOperation until done', run: untilDoneIn('global', 'fwDel'), gives: DONE},
      {call: 'deleteSubnetwork', run: (c) => c.deleteSubnetwork(PROJECT, REGION, SUB.name), as: 'subDel'},
      {call: 'getRegionOperation until done', run: untilDoneIn('region', 'subDel'), gives: DONE},
      {call: 'deleteNetwork again', run: (c) => c.deleteNetwork(PROJECT, NET.name), as: 'del2'},
      {call: 'getGlobalOperation until done', run: untilDoneIn('global', 'del2'), gives: DONE},
      {call: 'getNetwork', run: (c) => c.getNetwork(PROJECT, NET.name), gives: undefined},
      {call: 'listFirewalls', run: (c) => c.listFirewalls(PROJECT), gives: []},
    ],
  },
  {
    name: 'a subnetwork of a network that does not exist is refused as not found',
    steps: [
      {
        call: 'insertSubnetwork',
        run: (c) => c.insertSubnetwork(SUB),
        fails: {kind: 'not-found', status: 'NOT_FOUND', retryable: false},
      },
    ],
  },
  {
    name: 'a 503 to a network insert is retryable and made nothing; a permission denied on a list is not retryable',
    given: {
      failing: [
        {call: 'insertNetwork', status: 'UNAVAILABLE', message: 'Backend Error'},
        {call: 'listFirewalls', status: 'PERMISSION_DENIED', message: "Required 'compute.firewalls.list'"},
      ],
    },
    steps: [
      {
        call: 'insertNetwork',
        run: (c) => c.insertNetwork(NET),
        fails: {
          status: 'UNAVAILABLE',
          kind: 'unavailable',
          retryable: true,
          message: `Could not create network ${NET.name}: Backend Error`,
        },
      },
      {call: 'getNetwork', run: (c) => c.getNetwork(PROJECT, NET.name), gives: undefined},
      {
        call: 'listFirewalls',
        run: (c) => c.listFirewalls(PROJECT),
        fails: {status: 'PERMISSION_DENIED', kind: 'permission', retryable: false, exitCode: 3},
      },
    ],
  },
]

portContract('the Compute Engine port', subjects, [...cases, ...reservationCases, ...networkCases])
