// The contracts (port-contract.ts) of the two ports only `xpk doctor` uses, held by their in-memory fakes (the
// doctor's service tests') and by the REST adapters talking to FakeResourceManager and FakeServiceUsage: a project
// read as id, number and state; a project that is missing or not the caller's denied (exit 3) alike; the
// permissions held of those asked; the enabled APIs over every page; and the failures the retry policy tells apart.
import {createResourceManagerClient} from '../../src/adapters/resource-manager-rest.js'
import {createServiceUsageClient} from '../../src/adapters/service-usage-rest.js'
import type {ResourceManagerClient} from '../../src/ports/resource-manager.js'
import type {ServiceUsageClient} from '../../src/ports/service-usage.js'
import {HTTP_ERROR_OF} from './fake-server.js'
import {FakeResourceManager} from './fake-resource-manager.js'
import {FakeServiceUsage} from './fake-service-usage.js'
import {MemoryResourceManager, MemoryServiceUsage, type ProjectFailure} from './memory-project-apis.js'
import {portContract, type ContractCase, type Subject} from './port-contract.js'

interface Given {
  readonly projects?: readonly {readonly id: string; readonly granted?: readonly string[]; readonly state?: string}[]
  readonly enabled?: Readonly<Record<string, readonly string[]>>
  readonly failing?: ProjectFailure
  /** Service Usage's page size (the wire fake's; the memory fake has no pages). */
  readonly pageSize?: number
}

let rm: FakeResourceManager
let su: FakeServiceUsage

const NUMBER = '123456789012'

const rmSubjects: readonly Subject<ResourceManagerClient, Given>[] = [
  {
    name: 'MemoryResourceManager',
    make: async (given = {}) => {
      const memory = new MemoryResourceManager()
      for (const p of given.projects ?? []) memory.seedProject(p.id, p.granted, p.state, NUMBER)
      if (given.failing) memory.failNext(given.failing)
      return memory
    },
  },
  {
    name: 'the REST adapter against FakeResourceManager',
    start: async () => {
      rm = await FakeResourceManager.start()
    },
    stop: () => rm.stop(),
    make: async (given = {}) => {
      rm.reset()
      for (const p of given.projects ?? []) {
        rm.seedProject({
          projectId: p.id,
          projectNumber: NUMBER,
          granted: p.granted ?? [],
          ...(p.state ? {state: p.state} : {}),
        })
      }
      if (given.failing) {
        const [status, reason] = HTTP_ERROR_OF[given.failing.status]!
        rm.faults.push({status, reason, message: given.failing.message})
      }
      return createResourceManagerClient({endpoint: rm.endpoint})
    },
  },
]

const suSubjects: readonly Subject<ServiceUsageClient, Given>[] = [
  {
    name: 'MemoryServiceUsage',
    make: async (given = {}) => {
      const memory = new MemoryServiceUsage()
      for (const [project, on] of Object.entries(given.enabled ?? {})) memory.seedProject(project, on)
      if (given.failing) memory.failNext(given.failing)
      return memory
    },
  },
  {
    name: 'the REST adapter against FakeServiceUsage',
    start: async () => {
      su = await FakeServiceUsage.start()
    },
    stop: () => su.stop(),
    make: async (given = {}) => {
      su.reset()
      if (given.pageSize) su.pageSize = given.pageSize
      for (const [project, on] of Object.entries(given.enabled ?? {})) su.seedProject(project, on)
      if (given.failing) {
        const [status, reason] = HTTP_ERROR_OF[given.failing.status]!
        su.faults.push({status, reason, message: given.failing.message})
      }
      return createServiceUsageClient({endpoint: su.endpoint})
    },
  },
]

const DENIED = {kind: 'permission', status: 'PERMISSION_DENIED', retryable: false, exitCode: 3}
const UNAVAILABLE = {status: 'UNAVAILABLE' as const, message: 'The service is currently unavailable.'}

const rmCases: readonly ContractCase<ResourceManagerClient, Given>[] = [
  {
    name: 'a project reads as its id, number and state',
    given: {projects: [{id: 'p1'}, {id: 'gone', state: 'DELETE_REQUESTED'}]},
    steps: [
      {
        call: 'getProject(p1)',
        run: (c) => c.getProject('p1'),
        gives: {projectId: 'p1', projectNumber: NUMBER, state: 'ACTIVE'},
      },
      {
        call: 'getProject(gone)',
        run: (c) => c.getProject('gone'),
        gives: {projectId: 'gone', projectNumber: NUMBER, state: 'DELETE_REQUESTED'},
      },
    ],
  },
  {
    name: 'a project that does not exist is denied, as one that is not yours (exit 3)',
    steps: [
      {
        call: 'getProject(nope)',
        run: (c) => c.getProject('nope'),
        fails: {...DENIED, message: /^Could not read project nope: Permission/},
      },
    ],
  },
  {
    name: 'testIamPermissions answers the permissions held of those asked, none as an empty list',
    given: {projects: [{id: 'p1', granted: ['container.clusters.get', 'tpu.nodes.list']}], enabled: {}},
    steps: [
      {
        call: 'testIamPermissions(p1)',
        run: (c) =>
          c.testIamPermissions('p1', ['container.clusters.create', 'container.clusters.get', 'tpu.nodes.list']),
        gives: ['container.clusters.get', 'tpu.nodes.list'],
      },
      {
        call: 'testIamPermissions(p1, none held)',
        run: (c) => c.testIamPermissions('p1', ['file.instances.get']),
        gives: [],
      },
      {
        call: 'testIamPermissions(nope)',
        run: (c) => c.testIamPermissions('nope', ['file.instances.get']),
        fails: DENIED,
      },
    ],
  },
  {
    name: 'a 503 fails retryable (exit 7); again, it goes through',
    given: {projects: [{id: 'p1'}], failing: UNAVAILABLE},
    steps: [
      {call: 'getProject', run: (c) => c.getProject('p1'), fails: {kind: 'unavailable', retryable: true, exitCode: 7}},
      {
        call: 'getProject again',
        run: (c) => c.getProject('p1'),
        gives: {projectId: 'p1', projectNumber: NUMBER, state: 'ACTIVE'},
      },
    ],
  },
]

const suCases: readonly ContractCase<ServiceUsageClient, Given>[] = [
  {
    name: 'the enabled APIs are listed over every page; one API reads as enabled or not',
    given: {enabled: {p1: ['container.googleapis.com', 'compute.googleapis.com', 'tpu.googleapis.com']}, pageSize: 2},
    steps: [
      {
        call: 'listEnabledServices(p1)',
        run: async (c) => [...(await c.listEnabledServices('p1'))].sort(),
        gives: ['compute.googleapis.com', 'container.googleapis.com', 'tpu.googleapis.com'],
      },
      {call: 'isServiceEnabled(tpu)', run: (c) => c.isServiceEnabled('p1', 'tpu.googleapis.com'), gives: true},
      {call: 'isServiceEnabled(file)', run: (c) => c.isServiceEnabled('p1', 'file.googleapis.com'), gives: false},
    ],
  },
  {
    name: 'a project that does not exist is denied (exit 3)',
    steps: [{call: 'listEnabledServices(nope)', run: (c) => c.listEnabledServices('nope'), fails: DENIED}],
  },
  {
    name: 'Service Usage disabled is a permission problem whose fix enables it',
    given: {
      enabled: {p1: []},
      failing: {
        status: 'PERMISSION_DENIED',
        message: 'Service Usage API has not been used in project p1 before or it is disabled.',
      },
    },
    steps: [
      {
        call: 'listEnabledServices',
        run: (c) => c.listEnabledServices('p1'),
        fails: {
          ...DENIED,
          hints: [
            'The Service Usage API is disabled in project p1: `gcloud services enable serviceusage.googleapis.com --project=p1`.',
          ],
        },
      },
    ],
  },
]

portContract('Cloud Resource Manager', rmSubjects, rmCases)
portContract('Service Usage', suSubjects, suCases)
