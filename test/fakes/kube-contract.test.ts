// The Kubernetes port's contract (port-contract.ts), held by MemoryKube (the service tests') and by the real adapter
// talking to the wire-level API server (FakeKube, itself checked against kubectl): reads that find an object, find
// nothing, or find its kind not served; lists by namespace, selectors and pages (and listAll following the pages,
// each through the caller's retry), and of a cluster-scoped built-in kind (PersistentVolume); create-if-absent (201,
// then 409 AlreadyExists leaving the object as it was; exactly one of two racing creates); server-side apply (a
// re-apply changes nothing, a change bumps generation and resourceVersion, another manager's field is a 409
// Conflict unless forced, their other fields are kept); a delete with a uid precondition (409 Conflict deleting
// nothing when another object holds the name); watches (the current objects, then each change in order, resumed
// from a resourceVersion or EXPIRED when it is too old); pod logs; and
// failures the one retry policy tells apart.
import {request} from 'node:https'

import {connectKube} from '../../src/adapters/kube-client.js'
import type {KubeClient, KubeObject, KubeRef, KubeWatchEvent} from '../../src/ports/kube.js'
import {
  CLUSTER_QUEUE_CRD,
  JOBSET_API,
  jobSetCrdServing,
  KUEUE_WORKLOAD_CRD,
  LOCAL_QUEUE_CRD,
  localQueue,
} from '../builders/workload-cluster.js'
import {expect} from 'vitest'

import {FakeKube, type Obj, type Verb} from './fake-kube.js'
import {MemoryKube, type KubeVerb} from './memory-kube.js'
import {portContract, until, type ContractCase, type Step, type Subject} from './port-contract.js'

/** The world a case starts from, in the port's terms. */
interface KubeGiven {
  /** JobSet's CRD, serving v1alpha2. @default true */
  readonly jobSetCrd?: boolean
  /** ConfigMaps there at the start, as `kubectl apply --server-side` made them (field manager kubectl). */
  readonly configMaps?: readonly KubeObject[]
  /** Pods in default, each with its one container's log so far. */
  readonly pods?: readonly {readonly name: string; readonly log: string}[]
  /** Requests that fail with an HTTP status and the API server's message. */
  readonly failing?: readonly {
    readonly verb: KubeVerb
    readonly kind: string
    readonly status: number
    readonly message: string
  }[]
  /** PersistentVolumeClaims there at the start, made by kubectl and Bound to a volume of the size they request. */
  readonly boundClaims?: readonly KubeObject[]
  /** Events kept for watches that resume from a resourceVersion. */
  readonly watchHistory?: number
  /**
   * Kueue's kinds served, ClusterQueue `cluster-queue` and LocalQueue `multislice-queue` pointing at it, and these
   * Workloads in it (QuotaReserved when `reserved`).
   */
  readonly kueue?: readonly {readonly name: string; readonly priority: number; readonly reserved?: boolean}[]
  /** The next request for pending workloads is answered 503, as while Kueue's visibility server is down. */
  readonly visibilityDown?: boolean
}

/** The Kueue objects of {@link KubeGiven.kueue}, each with the status Kueue would have written (or none). */
function kueueObjects(workloads: NonNullable<KubeGiven['kueue']>): {object: KubeObject; status?: Obj}[] {
  return [
    {object: CLUSTER_QUEUE_CRD as KubeObject},
    {object: LOCAL_QUEUE_CRD as KubeObject},
    {object: KUEUE_WORKLOAD_CRD as KubeObject},
    {object: {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', metadata: {name: 'cluster-queue'}}},
    {object: localQueue()},
    ...workloads.map(({name, priority, reserved}) => ({
      object: {
        apiVersion: 'kueue.x-k8s.io/v1beta2',
        kind: 'Workload',
        metadata: {name, namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z'},
        spec: {queueName: 'multislice-queue', priority},
      },
      ...(reserved
        ? {status: {conditions: [{type: 'QuotaReserved', status: 'True', reason: 'QuotaReserved'}]} as Obj}
        : {}),
    })),
  ]
}

const WIRE_VERB: Readonly<Record<KubeVerb, Verb>> = {
  get: 'get',
  list: 'list',
  create: 'create',
  apply: 'apply',
  delete: 'delete',
  watch: 'watch',
  logs: 'log',
}

let wire: FakeKube

/** `kubectl apply --server-side` of a ConfigMap: the field manager kubectl owns its fields. */
function applyAsKubectl(object: KubeObject): Promise<void> {
  const {name, namespace = 'default'} = object.metadata
  const body = JSON.stringify(object)
  return new Promise((resolve, reject) => {
    const req = request(
      `${wire.url}/api/v1/namespaces/${namespace}/configmaps/${name}?fieldManager=kubectl&force=true`,
      {
        method: 'PATCH',
        ca: wire.caPem,
        headers: {
          authorization: `Bearer ${wire.token}`,
          'content-type': 'application/apply-patch+yaml',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        res.resume()
        res.on('end', () =>
          res.statusCode === 200 || res.statusCode === 201 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
        )
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const pod = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {name, namespace: 'default'},
  spec: {containers: [{name: 'main', image: 'trainer'}]},
})

const refOf = (o: KubeObject): KubeRef => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name,
  ...(o.metadata.namespace ? {namespace: o.metadata.namespace} : {}),
})
/** What the volume controller writes on a claim it has bound: the phase and the volume's size. */
const boundStatus = (claim: KubeObject) => ({
  phase: 'Bound',
  accessModes: (claim.spec as {accessModes: string[]}).accessModes,
  capacity: {storage: (claim.spec as {resources: {requests: {storage: string}}}).resources.requests.storage},
})

let memory: MemoryKube
/** The kinds of the resources the cases write. */
const KINDS: Readonly<Record<string, string>> = {
  configmaps: 'ConfigMap',
  jobsets: 'JobSet',
  persistentvolumes: 'PersistentVolume',
  persistentvolumeclaims: 'PersistentVolumeClaim',
  storageclasses: 'StorageClass',
}

const subjects: readonly Subject<KubeClient, KubeGiven>[] = [
  {
    name: 'MemoryKube',
    writes: () => memory.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name} ${r.status}`),
    make: async (given = {}) => {
      const kube = (memory = new MemoryKube(given.watchHistory === undefined ? {} : {watchHistory: given.watchHistory}))
      if (given.jobSetCrd ?? true) kube.seed(jobSetCrdServing('v1alpha2'))
      for (const object of given.configMaps ?? []) kube.seed(object, {manager: 'kubectl'})
      for (const object of given.boundClaims ?? []) {
        kube.seed(object, {manager: 'kubectl'})
        kube.setStatus(refOf(object), boundStatus(object))
      }
      for (const {name, log} of given.pods ?? []) {
        kube.seed(pod(name), {manager: 'kubelet'})
        kube.appendPodLog('default', name, log)
      }
      for (const {object, status} of given.kueue ? kueueObjects(given.kueue) : []) {
        kube.seed(object, {manager: 'kueue'})
        if (status) kube.setStatus(refOf(object), status as Record<string, unknown>)
      }
      if (given.visibilityDown) kube.failNext(1, {kind: 'PendingWorkloadsSummary'}, 503)
      for (const {verb, kind, status, message} of given.failing ?? []) kube.failNext(1, {verb, kind}, status, message)
      return kube
    },
  },
  {
    name: 'the adapter against FakeKube',
    writes: () =>
      wire.requests
        .filter((r) => r.mutating)
        .map((r) => {
          const name = r.name ?? (r.body as KubeObject | undefined)?.metadata?.name
          return `${r.verb} ${KINDS[r.resource ?? ''] ?? r.resource} ${name} ${r.status}`
        }),
    start: async () => {
      wire = await FakeKube.start()
    },
    stop: () => wire.stop(),
    make: async (given = {}) => {
      wire.reset()
      if (given.watchHistory !== undefined) wire.settings.watchHistory = given.watchHistory
      if (given.jobSetCrd ?? true) wire.seed(jobSetCrdServing('v1alpha2') as never)
      for (const object of given.configMaps ?? []) await applyAsKubectl(object)
      for (const object of given.boundClaims ?? []) {
        wire.seed(object as unknown as Obj)
        wire.setStatus(refOf(object), boundStatus(object) as Obj)
      }
      for (const {name, log} of given.pods ?? []) {
        wire.seed(pod(name) as unknown as Obj)
        wire.setPodLog('default', name, log)
      }
      for (const {object, status} of given.kueue ? kueueObjects(given.kueue) : []) {
        wire.seed(object as unknown as Obj)
        if (status) wire.setStatus(refOf(object), status)
      }
      if (given.visibilityDown) wire.faults.push({path: /\/pendingworkloads$/, status: 503})
      for (const {verb, kind, status, message} of given.failing ?? []) {
        const resource = `${kind.toLowerCase()}s`
        wire.faults.push({verb: WIRE_VERB[verb], match: (r) => r.resource === resource, status, message})
      }
      // The world is set up: what the case asks for is logged from here on.
      wire.requests.length = 0
      return connectKube({kind: 'gke', server: wire.url, caCertificate: wire.caData, token: async () => wire.token})
    },
  },
]

// ---- objects and what the cases compare ----

const cm = (
  name: string,
  data: Record<string, string> = {a: '1'},
  labels?: Record<string, string>,
  namespace = 'default',
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {name, namespace, ...(labels ? {labels} : {})},
  data,
})
const cmRef = (name: string, namespace = 'default'): KubeRef => ({apiVersion: 'v1', kind: 'ConfigMap', namespace, name})
const jobSet = (command: string, name = 'run-1', namespace = 'default'): KubeObject => ({
  apiVersion: JOBSET_API,
  kind: 'JobSet',
  metadata: {name, namespace},
  spec: {replicatedJobs: [{name: 'slice-job', replicas: 1, template: {command}}]},
})
/** A Cloud Storage FUSE volume, as `storage attach` makes one (cluster-scoped); `spec` replaces its fields. */
const persistentVolume = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {name},
  spec: {
    capacity: {storage: '64Gi'},
    accessModes: ['ReadWriteMany'],
    csi: {driver: 'gcsfuse.csi.storage.gke.io', volumeHandle: `${name}-bucket`},
    ...spec,
  },
})
const claim = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {name, namespace: 'default'},
  spec: {accessModes: ['ReadWriteMany'], resources: {requests: {storage: '64Gi'}}, volumeName: 'data-pv', ...spec},
})
const storageClass = (name: string, fields: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: {name},
  provisioner: 'filestore.csi.storage.gke.io',
  volumeBindingMode: 'Immediate',
  parameters: {tier: 'BASIC_HDD'},
  ...fields,
})
const INVALID = {status: 'INVALID_ARGUMENT', kind: 'failed', retryable: false, exitCode: 1}
const JOBSET_REF: KubeRef = {apiVersion: JOBSET_API, kind: 'JobSet', namespace: 'default', name: 'run-1'}
const commandOf = (o: KubeObject | undefined) =>
  (o?.spec as {replicatedJobs: {template: {command: string}}[]} | undefined)?.replicatedJobs[0]?.template.command
const names = (items: readonly KubeObject[]) => items.map((o) => o.metadata.name)
const dataOf = (o: KubeObject | undefined) => (o as {data?: unknown} | undefined)?.data
const stamps = (o: KubeObject) => ({
  generation: o.metadata.generation,
  resourceVersion: o.metadata.resourceVersion,
})
const signal = () => new AbortController().signal
const ALREADY_EXISTS = {status: 'ALREADY_EXISTS', kind: 'conflict', retryable: false, exitCode: 6}

/** A watch kept open in the background: its events as `TYPE name`, and how to end it. */
function startWatch(kube: KubeClient, resourceVersion?: string) {
  const controller = new AbortController()
  const events: string[] = []
  const done = kube.watch(
    'v1',
    'ConfigMap',
    {namespace: 'default', signal: controller.signal, ...(resourceVersion ? {resourceVersion} : {})},
    (event: KubeWatchEvent) => {
      if (event.type !== 'BOOKMARK') events.push(`${event.type} ${event.object.metadata.name}`)
    },
  )
  return {
    events,
    done,
    /** Waits for `count` events, then ends the watch; resolves what it saw. */
    async after(count: number) {
      await until(
        async () => events.length,
        (n) => n >= count,
      )
      controller.abort()
      await done
      return events
    },
  }
}

const get = (ref: KubeRef): Step<KubeClient> => ({call: `get ${ref.kind} ${ref.name}`, run: (kube) => kube.get(ref)})

const cases: readonly ContractCase<KubeClient, KubeGiven>[] = [
  {
    name: 'get and lookup: an object with the server’s stamps; absent; a kind or version not served',
    given: {configMaps: [cm('a')]},
    steps: [
      {
        ...get(cmRef('a')),
        gives: expect.objectContaining({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          data: {a: '1'},
          metadata: expect.objectContaining({
            name: 'a',
            namespace: 'default',
            uid: expect.any(String),
            resourceVersion: expect.stringMatching(/^\d+$/),
            creationTimestamp: expect.any(String),
          }),
        }),
      },
      {
        call: 'lookup ConfigMap a',
        run: (kube) => kube.lookup(cmRef('a')),
        gives: {state: 'found', object: expect.objectContaining({kind: 'ConfigMap', data: {a: '1'}})},
      },
      {...get(cmRef('b')), gives: undefined},
      {call: 'lookup ConfigMap b', run: (kube) => kube.lookup(cmRef('b')), gives: {state: 'absent'}},
      {call: 'lookup JobSet run-1', run: (kube) => kube.lookup(JOBSET_REF), gives: {state: 'absent'}},
      {
        call: 'lookup JobSet in v1 (a version its CRD does not serve)',
        run: (kube) => kube.lookup({...JOBSET_REF, apiVersion: 'jobset.x-k8s.io/v1'}),
        gives: {state: 'not-served'},
      },
    ],
  },
  {
    name: 'a kind whose CRD is not installed: not served, lists empty, deletes nothing, cannot be made',
    given: {jobSetCrd: false},
    steps: [
      {call: 'lookup JobSet', run: (kube) => kube.lookup(JOBSET_REF), gives: {state: 'not-served'}},
      {...get(JOBSET_REF), gives: undefined},
      {call: 'list JobSet', run: (kube) => kube.list(JOBSET_API, 'JobSet'), gives: {items: []}},
      {call: 'delete JobSet', run: (kube) => kube.delete(JOBSET_REF), gives: 'absent'},
      {
        call: 'watch JobSet',
        run: (kube) => kube.watch(JOBSET_API, 'JobSet', {signal: signal()}, () => {}),
        fails: {
          status: 'NOT_FOUND',
          kind: 'not-found',
          message: `Watching JobSet objects failed: the cluster does not serve JobSet in ${JOBSET_API}`,
        },
      },
      {
        call: 'apply JobSet',
        run: (kube) => kube.apply(jobSet('x')),
        fails: {
          kind: 'failed',
          status: null,
          message: `Applying JobSet default/run-1 failed: the cluster does not serve JobSet in ${JOBSET_API}.`,
        },
      },
      {
        call: 'create JobSet',
        run: (kube) => kube.create(jobSet('x')),
        fails: {
          kind: 'failed',
          status: null,
          message: `Creating JobSet default/run-1 failed: the cluster does not serve JobSet in ${JOBSET_API}.`,
        },
      },
    ],
  },
  {
    name: 'lists by namespace, label and field selectors, sorted by name, paged with limit and continue',
    given: {
      configMaps: [cm('c', {}, {app: 'x'}), cm('a', {}, {app: 'x'}), cm('b'), cm('d', {}, {app: 'x'}, 'kube-system')],
    },
    steps: [
      {
        call: 'list in default',
        run: async (kube) => names((await kube.list('v1', 'ConfigMap', {namespace: 'default'})).items),
        gives: ['a', 'b', 'c'],
      },
      {
        call: 'list app=x in every namespace',
        run: async (kube) => names((await kube.list('v1', 'ConfigMap', {labelSelector: 'app=x'})).items),
        gives: ['a', 'c', 'd'],
      },
      {
        call: 'list app!=x,!missing in default',
        run: async (kube) =>
          names((await kube.list('v1', 'ConfigMap', {namespace: 'default', labelSelector: 'app!=x,!missing'})).items),
        gives: ['b'],
      },
      {
        call: 'list metadata.name=b',
        run: async (kube) =>
          names((await kube.list('v1', 'ConfigMap', {namespace: 'default', fieldSelector: 'metadata.name=b'})).items),
        gives: ['b'],
      },
      {
        call: 'list 2 at a time',
        run: async (kube) => {
          const first = await kube.list('v1', 'ConfigMap', {namespace: 'default', limit: 2})
          const second = await kube.list('v1', 'ConfigMap', {namespace: 'default', limit: 2, continue: first.continue})
          return [names(first.items), typeof first.continue, names(second.items), second.continue]
        },
        gives: [['a', 'b'], 'string', ['c'], undefined],
      },
      {
        call: 'list by a field the server does not select on',
        run: (kube) => kube.list('v1', 'ConfigMap', {fieldSelector: 'data.a=1'}),
        fails: {
          status: 'INVALID_ARGUMENT',
          kind: 'failed',
          retryable: false,
          message: /^Listing ConfigMap objects failed: /,
        },
      },
    ],
  },
  {
    name: 'a cluster-scoped built-in kind (PersistentVolume): made, listed and read without a namespace',
    steps: [
      ...['data-pv', 'cache-pv'].map((name): Step<KubeClient> => ({
        call: `create PersistentVolume ${name}`,
        run: async (kube) => (await kube.create(persistentVolume(name))).metadata.namespace,
        gives: undefined,
      })),
      {
        call: 'listAll PersistentVolume',
        run: async (kube) => {
          const found: string[] = []
          for await (const page of kube.listAll('v1', 'PersistentVolume')) found.push(...names(page))
          return found
        },
        gives: ['cache-pv', 'data-pv'],
      },
      {
        ...get({apiVersion: 'v1', kind: 'PersistentVolume', name: 'data-pv'}),
        gives: expect.objectContaining({
          kind: 'PersistentVolume',
          spec: expect.objectContaining({csi: {driver: 'gcsfuse.csi.storage.gke.io', volumeHandle: 'data-pv-bucket'}}),
        }),
      },
    ],
  },
  {
    name: 'storage kinds the API server’s validation refuses: a 422 naming each field (a 400 for a value of the wrong type), nothing stored',
    steps: [
      {
        call: 'create a PersistentVolume with an unknown access mode, no capacity, an unknown reclaim policy',
        run: (kube) =>
          kube.create(
            persistentVolume('bad-pv', {
              capacity: undefined,
              accessModes: ['ReadWriteAll'],
              persistentVolumeReclaimPolicy: 'Keep',
            }),
          ),
        fails: {
          ...INVALID,
          message:
            'Creating PersistentVolume bad-pv failed: PersistentVolume "bad-pv" is invalid: [spec.accessModes: ' +
            'Unsupported value: "ReadWriteAll": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", ' +
            '"ReadWriteOncePod", spec.capacity: Required value, spec.persistentVolumeReclaimPolicy: Unsupported value: ' +
            '"Keep": supported values: "Delete", "Recycle", "Retain"]',
        },
      },
      {
        call: 'apply a PersistentVolume with two volume sources and a csi source with no volumeHandle',
        run: (kube) =>
          kube.apply(
            persistentVolume('bad-pv', {csi: {driver: 'gcsfuse.csi.storage.gke.io'}, nfs: {server: 'a', path: '/'}}),
          ),
        fails: {
          ...INVALID,
          message:
            'Applying PersistentVolume bad-pv failed: PersistentVolume "bad-pv" is invalid: [spec: Forbidden: may not ' +
            'specify more than 1 volume type, spec.csi.volumeHandle: Required value]',
        },
      },
      {
        call: 'apply a PersistentVolume whose capacity is no quantity',
        run: (kube) => kube.apply(persistentVolume('bad-pv', {capacity: {storage: 'lots'}})),
        fails: {
          ...INVALID,
          message:
            'Applying PersistentVolume bad-pv failed: PersistentVolume in version "v1" cannot be handled as a ' +
            "PersistentVolume: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        },
      },
      {
        call: 'apply a PersistentVolume whose accessModes is a string',
        run: (kube) => kube.apply(persistentVolume('bad-pv', {accessModes: 'ReadWriteMany'})),
        fails: {...INVALID, message: /cannot be handled as a PersistentVolume: json: cannot unmarshal string/},
      },
      {
        call: 'apply a claim with no access mode, a zero request and an unknown volume mode',
        run: (kube) =>
          kube.apply(claim('bad-pvc', {accessModes: [], resources: {requests: {storage: '0'}}, volumeMode: 'Raw'})),
        fails: {
          ...INVALID,
          message:
            'Applying PersistentVolumeClaim default/bad-pvc failed: PersistentVolumeClaim "bad-pvc" is invalid: ' +
            '[spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Invalid ' +
            'value: "0": must be greater than zero, spec.volumeMode: Unsupported value: "Raw": supported values: ' +
            '"Block", "Filesystem"]',
        },
      },
      {
        call: 'apply a StorageClass with no provisioner and an unknown binding mode',
        run: (kube) => kube.apply(storageClass('bad-sc', {provisioner: undefined, volumeBindingMode: 'Later'})),
        fails: {
          ...INVALID,
          message:
            'Applying StorageClass bad-sc failed: StorageClass.storage.k8s.io "bad-sc" is invalid: [provisioner: ' +
            'Required value, volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", ' +
            '"WaitForFirstConsumer"]',
        },
      },
      {
        call: 'get each',
        run: async (kube) => [
          await kube.get({apiVersion: 'v1', kind: 'PersistentVolume', name: 'bad-pv'}),
          await kube.get({apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'default', name: 'bad-pvc'}),
          await kube.get({apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', name: 'bad-sc'}),
        ],
        gives: [undefined, undefined, undefined],
      },
    ],
  },
  {
    name: 'storage kinds’ immutable fields: a volume’s source, a claim’s spec, a StorageClass’s provisioner and parameters are refused (422) and kept',
    steps: [
      {call: 'apply PersistentVolume data-pv', run: (kube) => kube.apply(persistentVolume('data-pv'))},
      {call: 'apply claim data-pvc', run: (kube) => kube.apply(claim('data-pvc'))},
      {call: 'apply StorageClass data-sc', run: (kube) => kube.apply(storageClass('data-sc'))},
      {
        call: 'apply data-pv naming another bucket',
        run: (kube) =>
          kube.apply(persistentVolume('data-pv', {csi: {driver: 'gcsfuse.csi.storage.gke.io', volumeHandle: 'other'}})),
        fails: {
          ...INVALID,
          message:
            'Applying PersistentVolume data-pv failed: PersistentVolume "data-pv" is invalid: ' +
            'spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation',
        },
      },
      {
        call: 'apply data-pvc with another access mode',
        run: (kube) => kube.apply(claim('data-pvc', {accessModes: ['ReadOnlyMany']})),
        fails: {
          ...INVALID,
          message:
            'Applying PersistentVolumeClaim default/data-pvc failed: PersistentVolumeClaim "data-pvc" is invalid: ' +
            'spec: Forbidden: spec is immutable after creation except resources.requests and ' +
            'volumeAttributesClassName for bound claims',
        },
      },
      {
        call: 'apply data-sc with another provisioner and tier',
        run: (kube) =>
          kube.apply(storageClass('data-sc', {provisioner: 'pd.csi.storage.gke.io', parameters: {tier: 'ZONAL'}})),
        fails: {
          ...INVALID,
          message:
            'Applying StorageClass data-sc failed: StorageClass.storage.k8s.io "data-sc" is invalid: [parameters: ' +
            'Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden.]',
        },
      },
      {
        call: 're-apply the three unchanged, and a label on each',
        run: async (kube) => {
          await kube.apply(persistentVolume('data-pv'))
          await kube.apply({...claim('data-pvc'), metadata: {name: 'data-pvc', namespace: 'default', labels: {a: 'b'}}})
          const sc = await kube.apply({...storageClass('data-sc'), metadata: {name: 'data-sc', labels: {a: 'b'}}})
          return (sc as {parameters?: unknown}).parameters
        },
        gives: {tier: 'BASIC_HDD'},
      },
      {
        call: 'what was written',
        run: async (_kube, _got, seen) => seen.writes().filter((w) => !w.endsWith(' 200') && !w.endsWith(' 201')),
        gives: [
          'apply PersistentVolume data-pv 422',
          'apply PersistentVolumeClaim data-pvc 422',
          'apply StorageClass data-sc 422',
        ],
      },
    ],
  },
  {
    name: 'a bound claim may grow, and shrink only above what its volume has; an unbound one may be given its volume once',
    given: {boundClaims: [claim('bound-pvc', {resources: {requests: {storage: '64Gi'}}})]},
    steps: [
      {
        call: 'apply bound-pvc asking for 128Gi',
        run: async (kube) => {
          const grown = await kube.apply(claim('bound-pvc', {resources: {requests: {storage: '128Gi'}}}), {force: true})
          return (grown.spec as {resources: unknown}).resources
        },
        gives: {requests: {storage: '128Gi'}},
      },
      {
        call: 'apply bound-pvc asking for 32Gi, less than the volume’s 64Gi',
        run: (kube) => kube.apply(claim('bound-pvc', {resources: {requests: {storage: '32Gi'}}}), {force: true}),
        fails: {
          ...INVALID,
          message:
            'Applying PersistentVolumeClaim default/bound-pvc failed: PersistentVolumeClaim "bound-pvc" is invalid: ' +
            'spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
        },
      },
      {
        call: 'apply an unbound claim with no volume, then the same naming its volume',
        run: async (kube) => {
          await kube.apply(claim('open-pvc', {volumeName: undefined}))
          const named = await kube.apply(claim('open-pvc', {volumeName: 'data-pv'}))
          return (named.spec as {volumeName: string}).volumeName
        },
        gives: 'data-pv',
      },
      {
        call: 'apply the unbound claim asking for more',
        run: (kube) => kube.apply(claim('open-pvc', {resources: {requests: {storage: '128Gi'}}})),
        fails: {...INVALID, message: /"open-pvc" is invalid: spec: Forbidden: spec is immutable after creation/},
      },
    ],
  },
  {
    name: 'listAll: every page in order, each request through the caller’s retry; an unknown kind is one empty page',
    given: {
      configMaps: ['e', 'c', 'a', 'd', 'b'].map((name) => cm(name)),
      failing: [{verb: 'list', kind: 'ConfigMap', status: 429, message: 'too many requests, please try again later'}],
    },
    steps: [
      {
        call: 'listAll 2 at a time, retrying a retryable failure once',
        run: async (kube) => {
          const tries: string[] = []
          const pages: string[][] = []
          const retry = <T>(request: () => Promise<T>) =>
            request().catch((error: {retryable?: boolean}) => {
              tries.push(`retried: ${String(error.retryable)}`)
              return request()
            })
          for await (const page of kube.listAll('v1', 'ConfigMap', {namespace: 'default', pageSize: 2, retry})) {
            pages.push(names(page))
          }
          return {pages, tries}
        },
        gives: {pages: [['a', 'b'], ['c', 'd'], ['e']], tries: ['retried: true']},
      },
      {
        call: 'listAll of a kind not served',
        run: async (kube) => {
          const pages: string[][] = []
          for await (const page of kube.listAll('example.com/v1', 'Widget')) pages.push(names(page))
          return pages
        },
        gives: [[]],
      },
    ],
  },
  {
    name: 'create makes the object once; a second create of the name is 409 AlreadyExists and changes nothing',
    steps: [
      {
        call: 'create JobSet run-1',
        run: (kube) => kube.create(jobSet('first')),
        gives: expect.objectContaining({
          kind: 'JobSet',
          metadata: expect.objectContaining({name: 'run-1', namespace: 'default', uid: expect.any(String)}),
        }),
        as: 'made',
      },
      {
        call: 'create JobSet run-1 again',
        run: (kube) => kube.create(jobSet('second')),
        fails: {...ALREADY_EXISTS, message: /^Creating JobSet default\/run-1 failed: .*"run-1" already exists/},
      },
      {
        call: 'get JobSet run-1',
        run: async (kube, got) => {
          const live = await kube.get(JOBSET_REF)
          return [commandOf(live), live?.metadata.uid === (got.made as KubeObject).metadata.uid]
        },
        gives: ['first', true],
      },
      {
        call: 'the writes asked for',
        run: async (_kube, _got, seen) => seen.writes(),
        gives: ['create JobSet run-1 201', 'create JobSet run-1 409'],
      },
    ],
  },
  {
    name: 'two creates of one name at once: exactly one is made, the other is told AlreadyExists',
    steps: [
      {
        call: 'create JobSet run-1 twice at once',
        run: async (kube) => {
          const outcomes = await Promise.allSettled([kube.create(jobSet('a')), kube.create(jobSet('b'))])
          const made = outcomes.findIndex((o) => o.status === 'fulfilled')
          const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
          return [
            outcomes.filter((o) => o.status === 'fulfilled').length,
            (refused?.reason as {status?: string} | undefined)?.status,
            commandOf(await kube.get(JOBSET_REF)) === 'ab'[made],
          ]
        },
        gives: [1, 'ALREADY_EXISTS', true],
      },
    ],
  },
  {
    name: 'a create or apply in a namespace that does not exist is a 404 naming it',
    steps: [
      {
        call: 'create in nowhere',
        run: (kube) => kube.create(jobSet('x', 'run-1', 'nowhere')),
        fails: {
          status: 'NOT_FOUND',
          kind: 'not-found',
          message: /^Creating JobSet nowhere\/run-1 failed: .*namespaces "nowhere" not found/,
        },
      },
      {
        call: 'apply in nowhere',
        run: (kube) => kube.apply(cm('a', {a: '1'}, undefined, 'nowhere'), {force: true}),
        fails: {
          status: 'NOT_FOUND',
          kind: 'not-found',
          message: /^Applying ConfigMap nowhere\/a failed: .*namespaces "nowhere" not found/,
        },
      },
    ],
  },
  {
    name: 'a delete with the uid read deletes; with another uid it is a 409 Conflict deleting nothing; then absent',
    steps: [
      {call: 'create JobSet run-1', run: (kube) => kube.create(jobSet('first')), as: 'made'},
      {
        call: 'delete with another uid',
        run: (kube) => kube.delete(JOBSET_REF, {uid: 'not-the-uid-read'}),
        fails: {
          status: 'CONFLICT',
          kind: 'conflict',
          retryable: false,
          message:
            /^Deleting JobSet default\/run-1 failed: .*Precondition failed: UID in precondition: not-the-uid-read/,
        },
      },
      {
        call: 'get',
        run: async (kube, got) => (await kube.get(JOBSET_REF))?.metadata.uid === (got.made as KubeObject).metadata.uid,
        gives: true,
      },
      {
        call: 'delete with the uid read',
        run: (kube, got) => kube.delete(JOBSET_REF, {uid: (got.made as KubeObject).metadata.uid as string}),
        gives: 'deleted',
      },
      {...get(JOBSET_REF), gives: undefined},
      {call: 'delete again', run: (kube) => kube.delete(JOBSET_REF), gives: 'absent'},
      {
        call: 'the writes asked for',
        run: async (_kube, _got, seen) => seen.writes(),
        gives: [
          'create JobSet run-1 201',
          'delete JobSet run-1 409',
          'delete JobSet run-1 200',
          'delete JobSet run-1 404',
        ],
      },
    ],
  },
  {
    name: 'apply makes the object; the same again changes nothing; a change bumps generation and resourceVersion',
    steps: [
      {
        call: 'apply JobSet a',
        run: async (kube) => stamps(await kube.apply(jobSet('a'), {force: true})),
        gives: {generation: 1, resourceVersion: expect.stringMatching(/^\d+$/)},
        as: 'first',
      },
      {
        call: 'apply JobSet a again',
        run: async (kube, got) => {
          const again = stamps(await kube.apply(jobSet('a'), {force: true}))
          return [again.generation, again.resourceVersion === (got.first as {resourceVersion: string}).resourceVersion]
        },
        gives: [1, true],
      },
      {
        call: 'apply JobSet b',
        run: async (kube, got) => {
          const after = stamps(await kube.apply(jobSet('b'), {force: true}))
          return [after.generation, after.resourceVersion !== (got.first as {resourceVersion: string}).resourceVersion]
        },
        gives: [2, true],
      },
      {call: 'get', run: async (kube) => commandOf(await kube.get(JOBSET_REF)), gives: 'b'},
    ],
  },
  {
    name: 'apply of a field another manager owns is a 409 Conflict naming it, unless forced; their other fields stay',
    given: {configMaps: [cm('shared', {x: '1', y: '1'})]},
    steps: [
      {
        call: 'apply x=2',
        run: (kube) => kube.apply(cm('shared', {x: '2'})),
        fails: {
          status: 'CONFLICT',
          kind: 'conflict',
          retryable: false,
          message:
            /^Applying ConfigMap default\/shared failed: Apply failed with 1 conflict: conflict with "kubectl".*\.data\.x/,
        },
      },
      {call: 'get', run: async (kube) => dataOf(await kube.get(cmRef('shared'))), gives: {x: '1', y: '1'}},
      {
        call: 'the writes asked for',
        run: async (_kube, _got, seen) => seen.writes(),
        gives: ['apply ConfigMap shared 409'],
      },
      {
        call: 'apply z=3 (no field of theirs)',
        run: async (kube) => dataOf(await kube.apply(cm('shared', {z: '3'}))),
        gives: {x: '1', y: '1', z: '3'},
      },
      {
        call: 'apply x=2, forced',
        run: async (kube) => dataOf(await kube.apply(cm('shared', {x: '2'}), {force: true})),
        gives: {x: '2', y: '1'},
      },
    ],
  },
  {
    name: 'a watch sees the current objects ADDED, then each change in order; resumed, only what came after',
    given: {configMaps: [cm('a')]},
    steps: [
      {
        call: 'watch, while b is made, a changed and b deleted',
        run: async (kube) => {
          const watch = startWatch(kube)
          await until(
            async () => watch.events.length,
            (n) => n >= 1,
          )
          await kube.create(cm('b'))
          await kube.apply(cm('a', {a: '2'}), {force: true})
          await kube.delete(cmRef('b'))
          return watch.after(4)
        },
        gives: ['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b'],
      },
      {
        call: 'watch from the resourceVersion of c’s making, then a changed',
        run: async (kube) => {
          const c = await kube.create(cm('c'))
          await kube.apply(cm('a', {a: '3'}), {force: true})
          return startWatch(kube, c.metadata.resourceVersion as string).after(1)
        },
        gives: ['MODIFIED a'],
      },
    ],
  },
  {
    name: 'a watch from a resourceVersion older than the events kept is EXPIRED',
    given: {watchHistory: 2},
    steps: [
      {call: 'create first', run: (kube) => kube.create(cm('first')), as: 'first'},
      {
        call: 'five more writes',
        run: async (kube) => {
          for (const name of ['b', 'c', 'd', 'e', 'f']) await kube.create(cm(name))
        },
      },
      {
        call: 'watch from first',
        run: (kube, got) => startWatch(kube, (got.first as KubeObject).metadata.resourceVersion as string).done,
        fails: {
          status: 'EXPIRED',
          kind: 'failed',
          retryable: false,
          message: /^Watching ConfigMap objects failed: .*too old resource version/,
        },
      },
    ],
  },
  {
    name: 'a pod’s log so far, its last lines; a pod that does not exist is absent',
    given: {pods: [{name: 'p', log: 'one\ntwo\nthree\n'}]},
    steps: [
      {
        call: 'logs p',
        run: async (kube) => {
          let text = ''
          const ended = await kube.logs('default', 'p', {signal: signal()}, (chunk) => (text += chunk))
          return [ended, text]
        },
        gives: ['ended', 'one\ntwo\nthree\n'],
      },
      {
        call: 'logs p, tailLines 1',
        run: async (kube) => {
          let text = ''
          await kube.logs('default', 'p', {signal: signal(), tailLines: 1}, (chunk) => (text += chunk))
          return text
        },
        gives: 'three\n',
      },
      {call: 'logs nope', run: (kube) => kube.logs('default', 'nope', {signal: signal()}, () => {}), gives: 'absent'},
    ],
  },
  {
    name: 'Kueue’s pending workloads of a ClusterQueue: highest priority first, then oldest; none for an unknown queue or without Kueue',
    given: {
      kueue: [
        {name: 'low', priority: 100},
        {name: 'high', priority: 750},
        {name: 'running', priority: 1000, reserved: true},
        {name: 'medium', priority: 500},
      ],
    },
    steps: [
      {
        call: 'pendingWorkloads cluster-queue',
        run: async (kube) => {
          const summary = await kube.pendingWorkloads('cluster-queue')
          if (summary === 'not-served') return summary
          return (
            summary as unknown as {
              items: {metadata: {name: string}; priority: number; positionInClusterQueue: number}[]
            }
          ).items.map((i) => `${i.positionInClusterQueue} ${i.metadata.name} ${i.priority}`)
        },
        gives: ['0 high 750', '1 medium 500', '2 low 100'],
      },
      {call: 'pendingWorkloads nope', run: (kube) => kube.pendingWorkloads('nope'), gives: 'not-served'},
    ],
  },
  {
    name: 'Kueue’s visibility server down (503): not served, at once, and served again after',
    given: {kueue: [{name: 'low', priority: 100}], visibilityDown: true},
    steps: [
      {call: 'pendingWorkloads (503)', run: (kube) => kube.pendingWorkloads('cluster-queue'), gives: 'not-served'},
      {
        call: 'pendingWorkloads again',
        run: async (kube) => {
          const summary = await kube.pendingWorkloads('cluster-queue')
          return summary === 'not-served' ? summary : (summary as unknown as {items: unknown[]}).items.length
        },
        gives: 1,
      },
    ],
  },
  {
    name: 'without Kueue’s kinds the pending workloads are not served',
    steps: [
      {
        call: 'pendingWorkloads cluster-queue',
        run: (kube) => kube.pendingWorkloads('cluster-queue'),
        gives: 'not-served',
      },
    ],
  },
  {
    name: 'a 503 or 429 is retryable, naming what was done; the next request goes through',
    given: {
      configMaps: [cm('a')],
      failing: [
        {verb: 'get', kind: 'ConfigMap', status: 503, message: 'the server is currently unable to handle the request'},
        {verb: 'list', kind: 'ConfigMap', status: 429, message: 'too many requests, please try again later'},
        {verb: 'apply', kind: 'ConfigMap', status: 403, message: 'configmaps "a" is forbidden: User cannot patch'},
      ],
    },
    steps: [
      {
        ...get(cmRef('a')),
        fails: {
          status: 'UNAVAILABLE',
          kind: 'unavailable',
          retryable: true,
          message: 'Reading ConfigMap default/a failed: the server is currently unable to handle the request',
        },
      },
      {
        call: 'list',
        run: (kube) => kube.list('v1', 'ConfigMap', {namespace: 'default'}),
        fails: {
          status: 'RESOURCE_EXHAUSTED',
          kind: 'unavailable',
          retryable: true,
          message: 'Listing ConfigMap objects failed: too many requests, please try again later',
        },
      },
      {
        call: 'apply',
        run: (kube) => kube.apply(cm('a', {a: '2'}), {force: true}),
        fails: {
          status: 'PERMISSION_DENIED',
          kind: 'permission',
          retryable: false,
          message: 'Applying ConfigMap default/a failed: configmaps "a" is forbidden: User cannot patch',
        },
      },
      {call: 'get again', run: async (kube) => dataOf(await kube.get(cmRef('a'))), gives: {a: '1'}},
      {call: 'the writes asked for', run: async (_kube, _got, seen) => seen.writes(), gives: ['apply ConfigMap a 403']},
    ],
  },
]

portContract('the Kubernetes port', subjects, cases)
