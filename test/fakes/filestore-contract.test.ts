// The Filestore port's contract (port-contract.ts), held by MemoryFilestore (the planner and service tests') and by the
// REST adapter talking to FakeFilestore: what `storage create`, `attach` and `delete` of a gcpfilestore storage rest
// on (an instance CREATING from its create, READY with an address when the operation is done; DELETING, then gone;
// refusals of a taken name, of requests the API does not take, of a delete while the instance is being created), and
// the failures the one retry policy tells apart.
import {expect} from 'vitest'

import {createFilestoreClient} from '../../src/adapters/filestore-rest.js'
import type {FilestoreTier} from '../../src/core/storage/backends.js'
import type {FilestoreClient, FilestoreInstanceRequest, FilestoreOperation} from '../../src/ports/filestore.js'
import {FakeFilestore, type FilestoreFault} from './fake-filestore.js'
import {MemoryFilestore, type FilestoreCall, type FilestoreFailure} from './memory-filestore.js'
import {portContract, until, type ContractCase, type Step, type Subject} from './port-contract.js'

const PROJECT = 'p'
const ZONE = 'us-central1-a'
const HERE = {project: PROJECT, location: ZONE}
const instanceName = (id: string, location = ZONE) => `projects/${PROJECT}/locations/${location}/instances/${id}`
const REQUEST: FilestoreInstanceRequest = {
  tier: 'BASIC_HDD',
  network: 'default',
  fileShare: {name: 'vol1', capacityGb: 1024},
  labels: {'xpk-storage': 'nfs'},
}

/** The world a case starts from, in the port's terms. */
interface FilestoreGiven {
  /** Instances others made, READY, in project p. */
  readonly instances?: readonly {readonly location: string; readonly id: string; readonly tier?: FilestoreTier}[]
  /** Calls that fail, as the API answers them. */
  readonly failing?: readonly (FilestoreFailure & {readonly call: FilestoreCall})[]
  /** The next operation of the verb ends done with this error. */
  readonly operationFails?: FilestoreFailure & {readonly verb: 'create' | 'delete'}
}

let wire: FakeFilestore

const ROUTES: Readonly<Record<FilestoreCall, Pick<FilestoreFault, 'method' | 'path'>>> = {
  getInstance: {method: 'GET', path: /\/instances\/[^/]+$/},
  createInstance: {method: 'POST', path: /\/instances$/},
  deleteInstance: {method: 'DELETE', path: /\/instances\/[^/]+$/},
  getOperation: {method: 'GET', path: /\/operations\/[^/]+$/},
}

let memory: MemoryFilestore

const subjects: readonly Subject<FilestoreClient, FilestoreGiven>[] = [
  {
    name: 'MemoryFilestore',
    writes: () => memory.mutations(),
    make: async (given = {}) => {
      memory = new MemoryFilestore()
      for (const i of given.instances ?? []) {
        memory.seedInstance({project: PROJECT, location: i.location}, {id: i.id, tier: i.tier ?? 'BASIC_HDD'})
      }
      for (const {call, ...failure} of given.failing ?? []) memory.failNext(call, failure)
      if (given.operationFails) memory.failNextOperation(given.operationFails.verb, given.operationFails)
      return memory
    },
  },
  {
    name: 'the REST adapter against FakeFilestore',
    start: async () => {
      // Long enough that a read right after a create or delete finds its operation still running on a loaded machine.
      wire = await FakeFilestore.start({operationMs: 150})
    },
    stop: () => wire.stop(),
    writes: () =>
      wire.mutatingCalls().map((c) => {
        const [, , , location, , id = c.query.instanceId] = c.path.split('/')
        return `${c.method === 'POST' ? 'createInstance' : 'deleteInstance'} ${location}/${id}`
      }),
    make: async (given = {}) => {
      wire.reset()
      for (const i of given.instances ?? []) {
        wire.seedInstance({project: PROJECT, location: i.location, id: i.id, tier: i.tier ?? 'BASIC_HDD'})
      }
      for (const {call, status, message} of given.failing ?? []) wire.faults.push({...ROUTES[call], status, message})
      if (given.operationFails) {
        const {verb, status, message} = given.operationFails
        wire.failOperations({match: (target) => target.verb === verb, status, message})
      }
      return createFilestoreClient({endpoint: wire.endpoint})
    },
  },
]

const get =
  (id = 'nfs', location = ZONE) =>
  (filestore: FilestoreClient) =>
    filestore.getInstance({project: PROJECT, location}, id)
const create =
  (id = 'nfs', request: FilestoreInstanceRequest = REQUEST, location = ZONE) =>
  (filestore: FilestoreClient) =>
    filestore.createInstance({project: PROJECT, location}, id, request)
const remove =
  (id = 'nfs') =>
  (filestore: FilestoreClient) =>
    filestore.deleteInstance(HERE, id)
/** Reads the operation kept as `op` until it is done. */
const untilDone = (filestore: FilestoreClient, got: Readonly<Record<string, unknown>>) =>
  until(
    () => filestore.getOperation((got.op as FilestoreOperation).name),
    (o) => o.done,
  )

const RUNNING = {name: expect.stringMatching(/^projects\/p\/locations\/us-central1-a\/operations\/[^/]+$/), done: false}
const ADDRESS = expect.stringMatching(/^10\.\d+\.\d+\.2$/)
const instance = (state: string, ipAddress: unknown, extra: object = {}) => ({
  id: 'nfs',
  location: ZONE,
  tier: 'BASIC_HDD',
  state,
  network: 'default',
  ipAddress,
  fileShares: [{name: 'vol1', capacityGb: 1024}],
  labels: {},
  ...extra,
})
const NFS_READY = {instances: [{location: ZONE, id: 'nfs'}]}

/** A create the API refuses as INVALID_ARGUMENT (exit 2), which creates nothing. */
function refusedCreate(what: string, id: string, request: FilestoreInstanceRequest, message: RegExp) {
  return {
    name: `a create with ${what} is INVALID_ARGUMENT (exit 2), and creates nothing`,
    steps: [
      {
        call: `createInstance(${id})`,
        run: create(id, request),
        fails: {status: 'INVALID_ARGUMENT', kind: 'usage', retryable: false, exitCode: 2, message},
      },
      {call: `getInstance(${id})`, run: get(id), gives: undefined},
    ],
  } satisfies ContractCase<FilestoreClient, FilestoreGiven>
}

/** One call of each method that is briefly unavailable fails retryable (exit 7) and made nothing; again, it passes. */
function unavailableOnce(call: FilestoreCall): ContractCase<FilestoreClient, FilestoreGiven> {
  const steps: Record<FilestoreCall, Step<FilestoreClient>['run']> = {
    getInstance: get(),
    createInstance: create('fresh'),
    deleteInstance: remove(),
    getOperation: (filestore, got) => filestore.getOperation((got.op as FilestoreOperation).name),
  }
  const before: Step<FilestoreClient>[] =
    call === 'getOperation' ? [{call: 'createInstance(fresh)', run: create('fresh'), as: 'op'}] : []
  return {
    name: `a ${call} answered UNAVAILABLE fails retryable (exit 7) and changed nothing; again, it goes through`,
    given: {...NFS_READY, failing: [{call, status: 'UNAVAILABLE', message: 'The service is currently unavailable.'}]},
    steps: [
      ...before,
      {
        call,
        run: steps[call],
        fails: {status: 'UNAVAILABLE', kind: 'unavailable', retryable: true, exitCode: 7},
      },
      {
        call: 'the changes sent',
        run: async (_port, _got, seen) => seen.writes().length,
        gives: call === 'createInstance' || call === 'deleteInstance' ? 1 : before.length,
      },
      {call: `${call} again`, run: steps[call]},
    ],
  }
}

const cases: readonly ContractCase<FilestoreClient, FilestoreGiven>[] = [
  {
    name: 'an instance that does not exist reads as none, here and in another location',
    given: NFS_READY,
    steps: [
      {call: 'getInstance(gone)', run: get('gone'), gives: undefined},
      {call: 'getInstance(nfs) in us-central1-b', run: get('nfs', 'us-central1-b'), gives: undefined},
    ],
  },
  {
    name: 'an instance someone made reads as it is: READY, its network, address, share and tier',
    given: {instances: [{location: ZONE, id: 'nfs', tier: 'ZONAL'}]},
    steps: [{call: 'getInstance', run: get(), gives: instance('READY', ADDRESS, {tier: 'ZONAL'})}],
  },
  {
    name: 'a create answers a running operation; the instance is CREATING without an address until it is done, then READY with one',
    steps: [
      {call: 'createInstance', run: create(), gives: RUNNING, as: 'op'},
      {call: 'getInstance', run: get(), gives: instance('CREATING', null, {labels: REQUEST.labels})},
      {call: 'getOperation until done', run: untilDone, gives: {name: expect.any(String), done: true}},
      {call: 'getInstance', run: get(), gives: instance('READY', ADDRESS, {labels: REQUEST.labels})},
      {
        call: 'the changes sent',
        run: async (_port, _got, seen) => seen.writes(),
        gives: [`createInstance ${ZONE}/nfs`],
      },
    ],
  },
  {
    name: 'REGIONAL and ENTERPRISE instances are made in a region, apart from the zone',
    given: NFS_READY,
    steps: [
      {
        call: 'createInstance(nfs) REGIONAL in us-central1',
        run: create('nfs', {...REQUEST, tier: 'REGIONAL'}, 'us-central1'),
        gives: {...RUNNING, name: expect.stringMatching(/^projects\/p\/locations\/us-central1\/operations\//)},
      },
      {
        call: 'getInstance(nfs) in us-central1',
        run: get('nfs', 'us-central1'),
        gives: expect.objectContaining({tier: 'REGIONAL', state: 'CREATING'}),
      },
      {
        call: 'getInstance(nfs) in the zone',
        run: get(),
        gives: expect.objectContaining({tier: 'BASIC_HDD', state: 'READY'}),
      },
    ],
  },
  {
    name: 'a create of a name that exists, in any state, is ALREADY_EXISTS (exit 6) and changes nothing',
    given: NFS_READY,
    steps: [
      {
        call: 'createInstance',
        run: create('nfs', {...REQUEST, tier: 'ZONAL'}),
        fails: {
          status: 'ALREADY_EXISTS',
          kind: 'conflict',
          retryable: false,
          exitCode: 6,
          message: `Could not create Filestore instance nfs: Resource '${instanceName('nfs')}' already exists`,
        },
      },
      {call: 'getInstance', run: get(), gives: instance('READY', ADDRESS)},
    ],
  },
  refusedCreate(
    'an id with upper case',
    'Bad_Id',
    REQUEST,
    /^Could not create Filestore instance Bad_Id: Invalid instance_id "Bad_Id"/,
  ),
  refusedCreate(
    'a share under the tier minimum',
    'small',
    {...REQUEST, fileShare: {name: 'vol1', capacityGb: 100}},
    /capacity 100 GB for tier BASIC_HDD: it must be 1024-65434 GB/,
  ),
  refusedCreate(
    'BASIC_SSD at 1 TiB',
    'ssd',
    {...REQUEST, tier: 'BASIC_SSD'},
    /for tier BASIC_SSD: it must be 2560-65434 GB/,
  ),
  refusedCreate(
    'a share name with a hyphen',
    'hyphen',
    {...REQUEST, fileShare: {name: 'my-vol', capacityGb: 1024}},
    /Invalid file share name "my-vol"/,
  ),
  refusedCreate(
    'a REGIONAL tier in a zone',
    'regional',
    {...REQUEST, tier: 'REGIONAL'},
    /Tier REGIONAL instances are created in a region/,
  ),
  refusedCreate('a label key with upper case', 'label', {...REQUEST, labels: {Team: 'ml'}}, /Invalid label "Team"/),
  {
    name: 'a delete answers a running operation; the instance is DELETING, then gone',
    given: NFS_READY,
    steps: [
      {call: 'deleteInstance', run: remove(), gives: RUNNING, as: 'op'},
      {call: 'getInstance', run: get(), gives: instance('DELETING', ADDRESS)},
      {call: 'getOperation until done', run: untilDone, gives: {name: expect.any(String), done: true}},
      {call: 'getInstance', run: get(), gives: undefined},
      {
        call: 'the changes sent',
        run: async (_port, _got, seen) => seen.writes(),
        gives: [`deleteInstance ${ZONE}/nfs`],
      },
    ],
  },
  {
    name: 'a delete while the instance is being created is a retryable conflict (exit 6); once READY it goes through',
    steps: [
      {call: 'createInstance', run: create(), as: 'op'},
      {
        call: 'deleteInstance',
        run: remove(),
        fails: {
          status: 'FAILED_PRECONDITION',
          kind: 'conflict',
          retryable: true,
          exitCode: 6,
          message: `Could not delete Filestore instance nfs: Instance ${instanceName('nfs')} is CREATING: an operation is in progress on it; try again once it is done.`,
        },
      },
      {call: 'getOperation until done', run: untilDone},
      {call: 'deleteInstance', run: remove(), gives: RUNNING},
    ],
  },
  {
    name: 'a delete of what does not exist is NOT_FOUND (exit 4)',
    steps: [
      {
        call: 'deleteInstance(gone)',
        run: remove('gone'),
        fails: {
          status: 'NOT_FOUND',
          kind: 'not-found',
          retryable: false,
          exitCode: 4,
          message: `Could not delete Filestore instance gone: Resource '${instanceName('gone')}' was not found`,
        },
      },
    ],
  },
  {
    name: 'a create whose operation fails ends done with the error, and leaves no instance',
    given: {operationFails: {verb: 'create', status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for capacity'}},
    steps: [
      {call: 'createInstance', run: create(), gives: RUNNING, as: 'op'},
      {
        call: 'getOperation until done',
        run: untilDone,
        gives: {name: expect.any(String), done: true, error: {code: 8, message: 'Quota exceeded for capacity'}},
      },
      {call: 'getInstance', run: get(), gives: undefined},
    ],
  },
  {
    name: 'a delete whose operation fails ends done with the error, and leaves the instance READY',
    given: {
      ...NFS_READY,
      operationFails: {verb: 'delete', status: 'INTERNAL', message: 'An internal error has occurred.'},
    },
    steps: [
      {call: 'deleteInstance', run: remove(), as: 'op'},
      {
        call: 'getOperation until done',
        run: untilDone,
        gives: {name: expect.any(String), done: true, error: {code: 13, message: 'An internal error has occurred.'}},
      },
      {call: 'getInstance', run: get(), gives: instance('READY', ADDRESS)},
    ],
  },
  {
    name: 'an operation never started is NOT_FOUND (exit 4)',
    steps: [
      {
        call: 'getOperation(operation-99)',
        run: (filestore) => filestore.getOperation(`projects/${PROJECT}/locations/${ZONE}/operations/operation-99`),
        fails: {
          status: 'NOT_FOUND',
          kind: 'not-found',
          exitCode: 4,
          message: `Could not read Filestore operation operation-99: Operation projects/${PROJECT}/locations/${ZONE}/operations/operation-99 was not found.`,
        },
      },
    ],
  },
  ...(Object.keys(ROUTES) as FilestoreCall[]).map(unavailableOnce),
  {
    name: 'a NOT_FOUND to a read of an instance is no instance',
    given: {...NFS_READY, failing: [{call: 'getInstance', status: 'NOT_FOUND', message: 'gone meanwhile'}]},
    steps: [{call: 'getInstance', run: get(), gives: undefined}],
  },
  {
    name: 'a disabled API is a permission failure (exit 3) that says how to enable it',
    given: {
      failing: [
        {
          call: 'createInstance',
          status: 'PERMISSION_DENIED',
          message: `Cloud Filestore API has not been used in project ${PROJECT} before or it is disabled.`,
        },
      ],
    },
    steps: [
      {
        call: 'createInstance',
        run: create(),
        fails: {
          status: 'PERMISSION_DENIED',
          kind: 'permission',
          retryable: false,
          exitCode: 3,
          hints: [
            `The Filestore API is disabled in project ${PROJECT}: run \`gcloud services enable file.googleapis.com --project=${PROJECT}\`, wait a minute, and re-run.`,
          ],
        },
      },
    ],
  },
  {
    name: 'out of quota is final (exit 5); a rate limit is retried',
    given: {
      failing: [
        {call: 'createInstance', status: 'RESOURCE_EXHAUSTED', message: "Quota limit 'standard_capacity' exceeded."},
        {call: 'getInstance', status: 'RESOURCE_EXHAUSTED', message: 'Too many requests per minute.'},
      ],
    },
    steps: [
      {call: 'createInstance', run: create(), fails: {kind: 'quota', retryable: false, exitCode: 5}},
      {call: 'getInstance', run: get(), fails: {kind: 'quota', retryable: true, exitCode: 5}},
    ],
  },
]

portContract('the Filestore port', subjects, cases)
