// A test double of the Kubernetes API server, served over HTTPS with a throwaway CA and a bearer token, so the
// unmodified @kubernetes/client-node client (and kubectl) run against it as against a GKE control plane.
// Behaviour spec: fake-kube.md next to this file.
import {createHash, randomBytes, randomUUID} from 'node:crypto'
import type {IncomingMessage, ServerResponse} from 'node:http'
import type {Socket} from 'node:net'

import {dump, load} from 'js-yaml'

import type {ManagerEntry, Scope, Writer} from './fake-kube-apply.js'
import {recordUpdate, renderManagedFields, serverSideApply} from './fake-kube-apply.js'
import type {Shape} from './fake-kube-merge.js'
import {BuiltinShape, SchemaShape, jsonMergePatch, jsonPatch, strategicMergePatch} from './fake-kube-merge.js'
import type {ResourceType} from './fake-kube-resources.js'
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  builtinTypes,
  crdTypes,
  groupVersion,
  groupsOf,
  openApiDocument,
  openApiKey,
  splitGroupVersion,
} from './fake-kube-resources.js'
import {applyDefaults, prune, validate} from './fake-kube-schema.js'
import type {Matcher} from './fake-kube-selectors.js'
import {SelectorError, parseFieldSelector, parseLabelSelector} from './fake-kube-selectors.js'
import type {FakeKubeTls} from './fake-kube-tls.js'
import {makeFakeKubeTls} from './fake-kube-tls.js'
import type {FieldError, Obj} from './fake-kube-util.js'
import {
  KubeError,
  asObj,
  clone,
  deepEqual,
  errors,
  invalid,
  isObj,
  kubeMicroTime,
  kubeTime,
  logTimeNanos,
} from './fake-kube-util.js'
import {defaultBuiltin, initialStatus, validateBuiltin, validateMeta} from './fake-kube-validation.js'
import {defaultStorageKind, storageKindRefusal} from './kube-storage-kinds.js'
import {pendingWorkloadsSummary} from './kueue-visibility.js'
import type {KubeObject} from '../../src/ports/kube.js'
import {
  closeServer,
  readBody,
  Running,
  serveWithFaults,
  startHttpServer,
  Timers,
  type Fault,
  type StartedServer,
} from './fake-server.js'

export type {Obj} from './fake-kube-util.js'

export type Verb =
  | 'discovery'
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'apply'
  | 'delete'
  | 'deletecollection'
  | 'log'
  | 'other'

const MUTATING: ReadonlySet<Verb> = new Set(['create', 'update', 'patch', 'apply', 'delete', 'deletecollection'])

export interface RequestRecord {
  method: string
  /** URL path without the query string. */
  path: string
  query: Record<string, string>
  verb: Verb
  mutating: boolean
  /** Set for resource requests. */
  group?: string
  version?: string
  resource?: string
  subresource?: string
  namespace?: string
  name?: string
  contentType?: string
  userAgent?: string
  /** The parsed request body (JSON or YAML), when there was one. */
  body?: unknown
  /** HTTP status sent back; undefined while the request is being served (or a watch is open). */
  status?: number
  /** Whether an injected fault answered or delayed it. */
  faulted?: boolean
  /** Date.now() on arrival. */
  at: number
}

/** A request-level fault (`times`, `delayMs` and `afterApply` as every fake's: fake-server.ts). */
export interface KubeFault extends Fault {
  /** HTTP method (GET, PATCH, ...); any when omitted. */
  method?: string
  /** Exact path, or a pattern tested against the path; any when omitted. */
  path?: string | RegExp
  verb?: Verb
  match?: (request: RequestRecord) => boolean
  /** HTTP status answered with a v1 Status body; omit to only delay. */
  status?: number
  reason?: string
  message?: string
  /** Sent as Retry-After and details.retryAfterSeconds (429 and 503 clients honour it). */
  retryAfterSeconds?: number
}

/** Kueue's pending workloads of a ClusterQueue (its visibility API), the one aggregated API the fake serves. */
const PENDING_WORKLOADS = /^\/apis\/visibility\.kueue\.x-k8s\.io\/v1beta2\/clusterqueues\/([^/]+)\/pendingworkloads$/

export interface FakeKubeOptions {
  /** Bearer token the server accepts; anything else is 401. */
  token?: string
  /** Added before every request is processed. */
  latencyMs?: number
  /**
   * Deployments, DaemonSets and StatefulSets report ready this long after they are created or their spec changes.
   * Infinity (the default): only when the test calls setDeploymentAvailable / setDaemonSetReady / ... .
   */
  rolloutMs?: number
  /** `/version` gitVersion. */
  gitVersion?: string
  /** BOOKMARK events on watches that allow them (client-node's Watch aborts after 30 s without data). */
  bookmarkIntervalMs?: number
  /** Namespaces besides default, kube-system, kube-public and kube-node-lease that exist at start. */
  namespaces?: string[]
  /** Events kept for watches that resume from a resourceVersion; older ones answer 410 Expired. */
  watchHistory?: number
  /**
   * How long a deleted namespace stays Terminating before its contents go (the real one takes seconds). Infinity:
   * until finishNamespaceDeletions().
   */
  namespaceDeletionMs?: number
  /**
   * Kueue's visibility API (pending workloads of a ClusterQueue, kueue-visibility.ts) is served while the
   * ClusterQueue kind is; false: never (Kueue's VisibilityOnDemand feature off: 404). @default true
   */
  visibility?: boolean
}

export type FakeKubeSettings = Required<Omit<FakeKubeOptions, 'token' | 'namespaces'>>

/** How tests name an object: as in a manifest. */
export interface ObjectRef {
  apiVersion: string
  kind: string
  namespace?: string
  name: string
}

export interface Condition {
  type: string
  status: 'True' | 'False' | 'Unknown'
  reason?: string
  message?: string
  lastTransitionTime?: string
  observedGeneration?: number
  [extra: string]: unknown
}

interface Stored {
  object: Obj
  entries: ManagerEntry[]
}

interface HistoryEvent {
  rv: number
  storageKey: string
  type: 'ADDED' | 'MODIFIED' | 'DELETED'
  object: Obj
  previous?: Obj
}

interface Watcher {
  storageKey: string
  type: ResourceType
  namespace?: string
  name?: string
  matches: Matcher
  send: (type: string, object: Obj) => void
  close: () => void
}

interface LogLine {
  time: string
  text: string
}

interface PodLog {
  lines: LogLine[]
  /** The test said it is written (setPodLog/appendPodLog), so it is readable whatever the pod's phase. */
  set: boolean
  ended: boolean
  followers: Set<{res: ServerResponse; timestamps: boolean}>
}

interface Target {
  type: ResourceType
  namespace?: string
  name?: string
  subresource?: string
}

interface Reply {
  status: number
  body: unknown
  headers?: Record<string, string>
}

const STATUS_REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
}

const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease']
const UNDELETABLE_NAMESPACES = new Set(['default', 'kube-system', 'kube-public'])
const CONTROLLER = 'fake-kube-controller'

function resolveSettings(options: FakeKubeOptions): FakeKubeSettings {
  return {
    latencyMs: options.latencyMs ?? 0,
    rolloutMs: options.rolloutMs ?? Infinity,
    gitVersion: options.gitVersion ?? 'v1.32.4-gke.1000',
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 5000,
    watchHistory: options.watchHistory ?? 10_000,
    namespaceDeletionMs: options.namespaceDeletionMs ?? 100,
    visibility: options.visibility ?? true,
  }
}

function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`
}

function meta(object: Obj): Obj {
  if (!isObj(object.metadata)) object.metadata = {}
  return object.metadata as Obj
}

function nameOf(object: Obj): string {
  return String(asObj(object.metadata).name ?? '')
}

function namespaceOf(object: Obj): string | undefined {
  const ns = asObj(object.metadata).namespace
  return typeof ns === 'string' && ns !== '' ? ns : undefined
}

function parseBool(value: string | undefined): boolean {
  return value === 'true' || value === '1'
}

function generateSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789'
  return [...randomBytes(5)].map((b) => alphabet[b % alphabet.length]).join('')
}

function encodeContinue(rv: number, after: string): string {
  return Buffer.from(JSON.stringify({v: 'meta.k8s.io/v1', rv, start: after})).toString('base64url')
}

/** A JSON body in pieces, sent one after the other (a list page: its head, items and commas, its end). */
class JsonPieces {
  constructor(readonly pieces: readonly Buffer[]) {}
}
const COMMA = Buffer.from(',')

/** The index of the first key after `key` in sorted `keys`. */
function firstAfter(keys: readonly string[], key: string): number {
  let low = 0
  let high = keys.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (keys[mid] <= key) low = mid + 1
    else high = mid
  }
  return low
}

function decodeContinue(token: string): {rv: number; start: string} {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {rv?: unknown; start?: unknown}
    if (typeof parsed.rv === 'number' && typeof parsed.start === 'string') return {rv: parsed.rv, start: parsed.start}
  } catch {
    // fall through to the error
  }
  throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)')
}

export class FakeKube {
  readonly requests: RequestRecord[] = []
  readonly faults: KubeFault[] = []
  settings: FakeKubeSettings

  private readonly types = new Map<string, ResourceType>()
  private readonly stores = new Map<string, Map<string, Stored>>()
  private events: HistoryEvent[] = []
  private readonly watchers = new Set<Watcher>()
  private readonly logs = new Map<string, PodLog>()
  /** Namespaces deleted and still Terminating. */
  private readonly terminating = new Set<string>()
  /** Background work (garbage collection, namespace deletion, rollouts), each a job of its own. */
  private readonly pending = new Running<object>()
  private readonly delays = new Timers()
  private rv = 0
  private stopped = false
  /** While set (see {@link outage}), every new connection is dropped during its TLS handshake. */
  private down = false
  /** Sorted keys per store, as of a resourceVersion (see {@link sortedKeys}). */
  private readonly keyOrder = new WeakMap<Map<string, Stored>, {rv: number; keys: string[]}>()
  /** List items' JSON per stored object and served version (see {@link itemBytes}). */
  private readonly itemTexts = new WeakMap<Obj, Map<string, Buffer>>()

  private started!: StartedServer

  private constructor(
    private readonly tls: FakeKubeTls,
    readonly token: string,
    private readonly options: FakeKubeOptions,
  ) {
    this.settings = resolveSettings(options)
    this.initState()
  }

  static async start(options: FakeKubeOptions = {}): Promise<FakeKube> {
    const tls = await makeFakeKubeTls()
    const fake = new FakeKube(tls, options.token ?? `fake-kube-${randomBytes(12).toString('hex')}`, options)
    fake.started = await startHttpServer('fake-kube', (req, res) => fake.handle(req, res), {
      key: tls.serverKeyPem,
      cert: tls.serverCertPem,
    })
    const server = fake.started.server
    // Before the TLS server sees it: a connection that comes during an outage is cut before its handshake is done.
    server.prependListener('connection', (socket: Socket) => {
      if (fake.down) socket.destroy()
    })
    return fake
  }

  /**
   * The API server restarts: every open connection (watches, log streams, kept-alive ones) is cut, and for `ms` every
   * new connection is dropped during its TLS handshake, as a load balancer in front of a restarting API server does.
   * Then it serves again, its objects and logs as they were. Resolves when it serves again.
   */
  async outage(ms: number): Promise<void> {
    this.down = true
    this.closeStreams()
    this.started.server.closeAllConnections()
    await new Promise((resolve) => setTimeout(resolve, ms))
    this.down = false
  }

  /** The loopback port it serves on. */
  get port(): number {
    return this.started.port
  }

  /** `https://127.0.0.1:<port>`, the kubeconfig server URL. */
  get url(): string {
    return `https://127.0.0.1:${this.port}`
  }

  /** `127.0.0.1:<port>`, as GKE reports a cluster's endpoint (no scheme). */
  get endpoint(): string {
    return `127.0.0.1:${this.port}`
  }

  /** The CA certificate (PEM) that signed the server's certificate. */
  get caPem(): string {
    return this.tls.caPem
  }

  /** The CA as base64 of the PEM: GKE's masterAuth.clusterCaCertificate and a kubeconfig's certificate-authority-data. */
  get caData(): string {
    return Buffer.from(this.tls.caPem).toString('base64')
  }

  /** Options for FakeGke.start so the clusters it creates point at this server. */
  gkeClusterOptions(): {clusterEndpoint: string; clusterCaCertificate: string} {
    return {clusterEndpoint: this.endpoint, clusterCaCertificate: this.caData}
  }

  /** A kubeconfig (YAML) with one context for this server, for kubectl or a CLI subprocess. */
  kubeconfig(namespace = 'default'): string {
    return dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'fake-kube', cluster: {server: this.url, 'certificate-authority-data': this.caData}}],
      users: [{name: 'fake-kube', user: {token: this.token}}],
      contexts: [{name: 'fake-kube', context: {cluster: 'fake-kube', user: 'fake-kube', namespace}}],
      'current-context': 'fake-kube',
    })
  }

  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    this.pending.stop()
    this.delays.clear()
    this.closeStreams()
    await closeServer(this.started.server)
  }

  /**
   * Back to the state right after start: only the initial namespaces, no custom resource types, no requests or
   * faults, settings as started. Open watches and log streams are closed. resourceVersion keeps counting up, so a
   * client that cached one never sees it again.
   */
  reset(): void {
    this.pending.clear()
    this.closeStreams()
    this.requests.length = 0
    this.faults.length = 0
    this.settings = resolveSettings(this.options)
    this.initState()
  }

  /** Resolves once no background work (garbage collection, namespace deletion) is pending. */
  settled(): Promise<void> {
    return this.pending.settled()
  }

  mutatingRequests(): RequestRecord[] {
    return this.requests.filter((r) => r.mutating)
  }

  requestCount(filter?: Partial<Pick<RequestRecord, 'method' | 'verb' | 'resource' | 'name' | 'namespace'>>): number {
    if (!filter) return this.requests.length
    return this.requests.filter((r) =>
      Object.entries(filter).every(([k, v]) => (r as unknown as Record<string, unknown>)[k] === v),
    ).length
  }

  // ---- seeding and inspection ----

  /**
   * Stores objects as they are (status included), with the server's stamps (uid, resourceVersion, ...), without a
   * request. Kinds must be known (built-in, or a custom resource whose CRD exists). Watches see ADDED events.
   */
  seed(...objects: Obj[]): Obj[] {
    return objects.map((input) => {
      const object = clone(input)
      const type = this.typeFor(String(object.apiVersion ?? ''), String(object.kind ?? ''))
      const namespace = type.namespaced ? (namespaceOf(object) ?? 'default') : undefined
      try {
        if (namespace) this.requireNamespace(namespace, false)
        const result = this.create(type, namespace, object, {seed: true})
        return this.present(result, type)
      } catch (err) {
        if (err instanceof KubeError)
          throw new Error(`seed ${type.kind} ${nameOf(object)}: ${err.message}`, {cause: err})
        throw err
      }
    })
  }

  /** A copy of the stored object, as a GET in `ref.apiVersion` returns it; undefined when absent. */
  get(ref: ObjectRef): Obj | undefined {
    const type = this.typeFor(ref.apiVersion, ref.kind)
    const stored = this.store(type).get(objectKey(type.namespaced ? (ref.namespace ?? 'default') : undefined, ref.name))
    return stored && this.present(stored.object, type)
  }

  /** Copies of the stored objects of a kind, in one namespace or all, sorted by namespace and name. */
  list(apiVersion: string, kind: string, namespace?: string): Obj[] {
    const type = this.typeFor(apiVersion, kind)
    return [...this.store(type).entries()]
      .filter(([, s]) => namespace === undefined || namespaceOf(s.object) === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, s]) => this.present(s.object, type))
  }

  /** Every stored change so far (within the watch history), oldest first: what a watch from the start would see. */
  history(): {resourceVersion: string; type: string; kind: string; namespace?: string; name: string}[] {
    return this.events.map((e) => ({
      resourceVersion: String(e.rv),
      type: e.type,
      kind: String(e.object.kind),
      ...(namespaceOf(e.object) ? {namespace: namespaceOf(e.object)} : {}),
      name: nameOf(e.object),
    }))
  }

  /** The resource types served now (built-in and from CRDs). */
  resourceTypes(): ResourceType[] {
    return [...this.types.values()].map((t) => ({...t}))
  }

  /**
   * Writes status as a controller would, through the status subresource (or the object, for kinds without one):
   * resourceVersion bumps, watches see MODIFIED, managedFields gets a `fake-kube-controller` entry.
   */
  setStatus(ref: ObjectRef, status: Obj | ((current: Obj) => Obj)): Obj {
    const type = this.typeFor(ref.apiVersion, ref.kind)
    const stored = this.requireStored(type, ref)
    const current = asObj(stored.object.status)
    const next = typeof status === 'function' ? status(clone(current)) : clone(status)
    const object = {...clone(stored.object), status: next}
    const scope: Scope = type.statusSubresource ? 'status' : 'all'
    const writer = {
      manager: CONTROLLER,
      apiVersion: groupVersion(type.group, type.version),
      ...(type.statusSubresource ? {subresource: 'status'} : {}),
    }
    const result = this.commitUpdate(type, stored, object, writer, scope)
    return this.present(result, type)
  }

  /** Adds or replaces one condition (by type) in status.conditions; lastTransitionTime changes only with status. */
  setCondition(ref: ObjectRef, condition: Condition): Obj {
    return this.setStatus(ref, (status) => {
      const conditions = Array.isArray(status.conditions) ? (status.conditions as Obj[]) : []
      const previous = conditions.find((c) => c.type === condition.type)
      const transition =
        condition.lastTransitionTime ??
        (previous && previous.status === condition.status ? previous.lastTransitionTime : kubeTime())
      const next: Obj = {
        reason: condition.status === 'True' ? condition.type : `Not${condition.type}`,
        message: '',
        ...condition,
        lastTransitionTime: transition,
      }
      return {...status, conditions: [...conditions.filter((c) => c.type !== condition.type), next]}
    })
  }

  /** Removes `metadata.finalizers` entries as their controller would, finishing a pending deletion. */
  removeFinalizers(ref: ObjectRef, ...finalizers: string[]): Obj | undefined {
    const type = this.typeFor(ref.apiVersion, ref.kind)
    const stored = this.requireStored(type, ref)
    const object = clone(stored.object)
    const current = Array.isArray(meta(object).finalizers) ? (meta(object).finalizers as string[]) : []
    meta(object).finalizers = finalizers.length === 0 ? [] : current.filter((f) => !finalizers.includes(f))
    const result = this.commitUpdate(
      type,
      stored,
      object,
      {manager: CONTROLLER, apiVersion: groupVersion(type.group, type.version)},
      type.statusSubresource ? 'main' : 'all',
    )
    const left = this.store(type).get(objectKey(namespaceOf(result), nameOf(result)))
    return left && this.present(left.object, type)
  }

  /** The Deployment reports all replicas updated, ready and available (Available=True), as the controller would. */
  setDeploymentAvailable(namespace: string, name: string): Obj {
    return this.markReady({apiVersion: 'apps/v1', kind: 'Deployment', namespace, name})
  }

  /** The DaemonSet reports `nodes` pods scheduled, ready and available (default 1). */
  setDaemonSetReady(namespace: string, name: string, nodes = 1): Obj {
    return this.markReady({apiVersion: 'apps/v1', kind: 'DaemonSet', namespace, name}, nodes)
  }

  setStatefulSetReady(namespace: string, name: string): Obj {
    return this.markReady({apiVersion: 'apps/v1', kind: 'StatefulSet', namespace, name})
  }

  /** Lets Terminating namespaces go now (their contents first), whatever namespaceDeletionMs says. */
  finishNamespaceDeletions(): void {
    for (const name of [...this.terminating]) this.background(() => this.finishNamespace(name))
  }

  /** Replaces a container's log (the only container when `container` is omitted). */
  setPodLog(namespace: string, pod: string, text: string, container?: string): void {
    const log = this.podLog(namespace, pod, container ?? this.onlyContainer(namespace, pod))
    log.lines = []
    log.set = true
    this.writeLog(log, text)
  }

  /** Appends to a container's log; followers (`follow=true`) receive it at once. */
  appendPodLog(namespace: string, pod: string, text: string, container?: string): void {
    const log = this.podLog(namespace, pod, container ?? this.onlyContainer(namespace, pod))
    log.set = true
    this.writeLog(log, text)
  }

  /** Ends a followed log, as when the container exits. */
  endPodLog(namespace: string, pod: string, container?: string): void {
    const log = this.podLog(namespace, pod, container ?? this.onlyContainer(namespace, pod))
    log.ended = true
    for (const f of log.followers) f.res.end()
    log.followers.clear()
  }

  /**
   * Restarts a pod's container as the kubelet does after it exits (restartPolicy OnFailure/Always): followers of the
   * old container's log end, the log served from then on is the new container's (empty until written), and the
   * pod's status says so through the status subresource: the container's restartCount goes up by one, it is
   * running, its last state terminated, the pod Running.
   */
  restartPodContainer(namespace: string, pod: string, container?: string): Obj {
    const name = container ?? this.onlyContainer(namespace, pod)
    const old = this.podLog(namespace, pod, name)
    for (const f of old.followers) f.res.end()
    old.followers.clear()
    this.logs.set(`${namespace}/${pod}/${name}`, {lines: [], set: true, ended: false, followers: new Set()})
    const now = kubeTime()
    return this.setStatus({apiVersion: 'v1', kind: 'Pod', namespace, name: pod}, (status) => {
      const statuses = Array.isArray(status.containerStatuses) ? (status.containerStatuses as Obj[]) : []
      const previous = statuses.find((c) => c.name === name) ?? {name, restartCount: 0}
      const restarted: Obj = {
        ...previous,
        restartCount: Number(previous.restartCount ?? 0) + 1,
        state: {running: {startedAt: now}},
        lastState: {terminated: {exitCode: 1, reason: 'Error', finishedAt: now}},
      }
      return {...status, phase: 'Running', containerStatuses: [...statuses.filter((c) => c.name !== name), restarted]}
    })
  }

  // ---- state ----

  private initState(): void {
    this.terminating.clear()
    this.types.clear()
    for (const t of builtinTypes()) this.types.set(typeKey(t.group, t.version, t.resource), t)
    this.stores.clear()
    this.events = []
    this.logs.clear()
    const nsType = this.typeFor('v1', 'Namespace')
    for (const name of [...INITIAL_NAMESPACES, ...(this.options.namespaces ?? [])]) {
      this.create(nsType, undefined, {apiVersion: 'v1', kind: 'Namespace', metadata: {name}}, {seed: true})
    }
  }

  private typeFor(apiVersion: string, kind: string): ResourceType {
    const {group, version} = splitGroupVersion(apiVersion)
    const type = [...this.types.values()].find((t) => t.group === group && t.version === version && t.kind === kind)
    if (!type) throw new Error(`fake-kube: no resource type serves ${apiVersion} ${kind}`)
    return type
  }

  private store(type: ResourceType): Map<string, Stored> {
    let store = this.stores.get(type.storageKey)
    if (!store) {
      store = new Map()
      this.stores.set(type.storageKey, store)
    }
    return store
  }

  private requireStored(type: ResourceType, ref: ObjectRef): Stored {
    const namespace = type.namespaced ? (ref.namespace ?? 'default') : undefined
    const stored = this.store(type).get(objectKey(namespace, ref.name))
    if (!stored)
      throw new Error(`fake-kube: ${type.kind} ${namespace ? `${namespace}/` : ''}${ref.name} does not exist`)
    return stored
  }

  /** The object as served in `type`'s version; built-in list items are served without apiVersion/kind. */
  private present(object: Obj, type: ResourceType): Obj {
    const copy = clone(object)
    copy.apiVersion = groupVersion(type.group, type.version)
    copy.kind = type.kind
    return {apiVersion: copy.apiVersion, kind: copy.kind, ...copy}
  }

  private shapeOf(type: ResourceType): Shape {
    return type.schema ? new SchemaShape(type.schema) : new BuiltinShape(type.kind)
  }

  private requireNamespace(namespace: string, creating: boolean): void {
    const ns = this.stores.get('/namespaces')?.get(objectKey(undefined, namespace))
    if (!ns) throw errors.notFound({group: '', resource: 'namespaces', name: namespace})
    if (creating && asObj(ns.object.metadata).deletionTimestamp) {
      throw new KubeError(
        403,
        'Forbidden',
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        {
          name: namespace,
          kind: 'namespaces',
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${namespace} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      )
    }
  }

  // ---- writes ----

  /**
   * Normalises and validates a candidate object (defaults, pruning, schema), throwing 422/400 as the server would.
   * Returns the fields pruned as unknown (for field validation warnings).
   */
  private admit(type: ResourceType, object: Obj, fieldValidation: string, previous?: Obj): string[] {
    let unknown: string[] = []
    if (type.schema) {
      applyDefaults(object, type.schema)
      unknown = prune(object, type.schema)
      if (unknown.length > 0 && fieldValidation === 'Strict') {
        throw errors.badRequest(
          `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ` +
            unknown.map((u) => `unknown field "${u}"`).join(', '),
        )
      }
    } else {
      defaultBuiltin(object, type)
      defaultStorageKind(type.group, type.kind, object)
    }
    const problems: FieldError[] = [...validateMeta(object, type)]
    if (type.schema) {
      const body = clone(object)
      delete body.metadata
      problems.push(...validate(body, type.schema))
    } else problems.push(...validateBuiltin(object, type))
    const storage = storageKindRefusal(type.group, type.kind, object, previous)
    if (storage && 'decode' in storage) throw errors.badRequest(storage.decode)
    if (storage) problems.push(...storage.problems)
    if (type.kind === 'CustomResourceDefinition') problems.push(...this.validateCrd(object))
    if (problems.length > 0) throw invalid(type.kind, type.group, nameOf(object), problems)
    return unknown
  }

  private validateCrd(crd: Obj): FieldError[] {
    const spec = asObj(crd.spec)
    const names = asObj(spec.names)
    const errs: FieldError[] = []
    const expected = `${String(names.plural ?? '')}.${String(spec.group ?? '')}`
    if (nameOf(crd) !== expected) {
      errs.push({
        type: 'FieldValueInvalid',
        field: 'metadata.name',
        value: nameOf(crd),
        detail: 'must be spec.names.plural+"."+spec.group',
      })
    }
    if (!names.kind) errs.push({type: 'FieldValueRequired', field: 'spec.names.kind'})
    if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
      errs.push({
        type: 'FieldValueNotSupported',
        field: 'spec.scope',
        value: spec.scope ?? '',
        detail: 'supported values: "Cluster", "Namespaced"',
      })
    }
    const versions = Array.isArray(spec.versions) ? spec.versions.map(asObj) : []
    if (versions.filter((v) => v.storage === true).length !== 1) {
      errs.push({
        type: 'FieldValueInvalid',
        field: 'spec.versions',
        value: versions.map((v) => v.name),
        detail: 'must have exactly one version marked as storage version',
      })
    }
    versions.forEach((v, i) => {
      if (!isObj(asObj(v.schema).openAPIV3Schema)) {
        errs.push({
          type: 'FieldValueRequired',
          field: `spec.versions[${i}].schema.openAPIV3Schema`,
          detail: 'schemas are required',
        })
      }
    })
    return errs
  }

  private create(
    type: ResourceType,
    namespace: string | undefined,
    input: Obj,
    opts: {seed?: boolean; writer?: Writer; dryRun?: boolean; fieldValidation?: string; warnings?: string[]},
  ): Obj {
    const object = clone(input)
    object.apiVersion = groupVersion(type.group, type.version)
    object.kind = type.kind
    const m = meta(object)
    if (!opts.seed && m.resourceVersion !== undefined && m.resourceVersion !== '') {
      throw errors.internal('resourceVersion should not be set on objects to be created')
    }
    if (!m.name && typeof m.generateName === 'string' && m.generateName) m.name = `${m.generateName}${generateSuffix()}`
    if (type.namespaced) {
      if (m.namespace !== undefined && m.namespace !== '' && m.namespace !== namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request')
      }
      m.namespace = namespace
    } else delete m.namespace
    for (const key of [
      'uid',
      'resourceVersion',
      'generation',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'managedFields',
      'selfLink',
    ]) {
      if (!opts.seed || key === 'managedFields' || key === 'resourceVersion') delete m[key]
    }
    if (type.statusSubresource && !opts.seed) delete object.status
    if (type.kind === 'CustomResourceDefinition') object.status = this.crdStatus(object)
    else if (object.status === undefined) {
      const initial = initialStatus(type)
      if (initial) object.status = initial
    }
    const unknown = this.admit(type, object, opts.fieldValidation ?? 'Warn')
    opts.warnings?.push(...unknown.map((u) => `unknown field "${u}"`))
    const key = objectKey(namespace, nameOf(object))
    if (this.store(type).has(key))
      throw errors.alreadyExists({group: type.group, resource: type.resource, name: nameOf(object)})
    if (namespace && !opts.seed) this.requireNamespace(namespace, true)
    m.uid ??= randomUUID()
    m.creationTimestamp ??= kubeTime()
    if (type.generation) m.generation = 1
    else delete m.generation
    let entries: ManagerEntry[] = []
    if (opts.writer)
      entries = recordUpdate([], opts.writer, {}, object, type.statusSubresource ? 'main' : 'all', this.shapeOf(type))
    if (opts.dryRun) {
      m.resourceVersion = ''
      if (entries.length) m.managedFields = renderManagedFields(entries)
      return object
    }
    return this.commit(type, undefined, object, entries)
  }

  /**
   * Stores a new version of an existing object (or a new one when `previous` is undefined) with a fresh
   * resourceVersion, unless nothing changed; notifies watches and starts whatever follows from the change.
   */
  private commit(type: ResourceType, previous: Stored | undefined, object: Obj, entries: ManagerEntry[]): Obj {
    const m = meta(object)
    if (entries.length) m.managedFields = renderManagedFields(entries)
    else delete m.managedFields
    if (previous) {
      const before = clone(previous.object)
      delete asObj(before.metadata).resourceVersion
      const after = clone(object)
      delete asObj(after.metadata).resourceVersion
      if (deepEqual(before, after)) return previous.object
    }
    m.resourceVersion = String(++this.rv)
    const key = objectKey(namespaceOf(object), nameOf(object))
    const stored: Stored = {object, entries}
    this.store(type).set(key, stored)
    this.record(type, previous ? 'MODIFIED' : 'ADDED', object, previous?.object)
    this.afterWrite(type, previous?.object, object)
    return object
  }

  private remove(type: ResourceType, stored: Stored): void {
    const key = objectKey(namespaceOf(stored.object), nameOf(stored.object))
    if (this.store(type).get(key) !== stored) return
    this.store(type).delete(key)
    const object = clone(stored.object)
    meta(object).resourceVersion = String(++this.rv)
    this.record(type, 'DELETED', object, stored.object)
    this.afterRemove(type, object)
  }

  private record(type: ResourceType, eventType: HistoryEvent['type'], object: Obj, previous?: Obj): void {
    const event: HistoryEvent = {rv: this.rv, storageKey: type.storageKey, type: eventType, object: clone(object)}
    if (previous) event.previous = previous
    this.events.push(event)
    if (this.events.length > this.settings.watchHistory)
      this.events.splice(0, this.events.length - this.settings.watchHistory)
    for (const w of this.watchers) if (w.storageKey === type.storageKey) this.deliver(w, event)
  }

  /** Updates an existing object through the normal write path (generation, status rules, ownership, no-op check). */
  private commitUpdate(
    type: ResourceType,
    stored: Stored,
    candidate: Obj,
    writer: Writer,
    scope: Scope,
    opts: {dryRun?: boolean; fieldValidation?: string; warnings?: string[]; entries?: ManagerEntry[]} = {},
  ): Obj {
    const previous = stored.object
    const object = this.mergeScope(type, previous, candidate, scope)
    const unknown = this.admit(type, object, opts.fieldValidation ?? 'Warn', previous)
    opts.warnings?.push(...unknown.map((u) => `unknown field "${u}"`))
    const entries = opts.entries ?? recordUpdate(stored.entries, writer, previous, object, scope, this.shapeOf(type))
    if (opts.dryRun) return object
    const result = this.commit(type, stored, object, entries)
    this.finishDeletionIfDone(type, result)
    return result
  }

  /**
   * Applies the write's scope to a candidate: the main resource cannot change status (for kinds with the status
   * subresource), the status subresource cannot change anything else; server-owned metadata always stays.
   */
  private mergeScope(type: ResourceType, previous: Obj, candidate: Obj, scope: Scope): Obj {
    let object: Obj
    if (scope === 'status') {
      object = clone(previous)
      if (candidate.status === undefined) delete object.status
      else object.status = clone(candidate.status)
    } else {
      object = clone(candidate)
      if (scope === 'main') {
        if (previous.status === undefined) delete object.status
        else object.status = clone(previous.status)
      }
    }
    object.apiVersion = groupVersion(type.group, type.version)
    object.kind = type.kind
    const m = meta(object)
    const p = asObj(previous.metadata)
    for (const key of [
      'name',
      'namespace',
      'uid',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
    ]) {
      if (p[key] === undefined) delete m[key]
      else m[key] = p[key]
    }
    if (p.deletionTimestamp) {
      // A terminating object may lose finalizers but not gain new ones.
      const before = Array.isArray(p.finalizers) ? (p.finalizers as string[]) : []
      const after = Array.isArray(m.finalizers) ? (m.finalizers as string[]) : []
      if (after.some((f) => !before.includes(f))) {
        throw new KubeError(
          422,
          'Invalid',
          `${type.kind} "${nameOf(previous)}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted`,
        )
      }
    }
    if (type.generation && this.specChanged(type, previous, object)) m.generation = Number(p.generation ?? 1) + 1
    if (type.kind === 'CustomResourceDefinition')
      object.status = scope === 'status' ? object.status : this.crdStatus(object)
    return object
  }

  private specChanged(type: ResourceType, before: Obj, after: Obj): boolean {
    const strip = (o: Obj) => {
      const c = clone(o)
      delete c.metadata
      if (type.statusSubresource) delete c.status
      return c
    }
    return !deepEqual(strip(before), strip(after))
  }

  // ---- what follows a write ----

  private afterWrite(type: ResourceType, previous: Obj | undefined, object: Obj): void {
    if (type.kind === 'CustomResourceDefinition') this.registerCrd(object)
    if (['Deployment', 'DaemonSet', 'StatefulSet'].includes(type.kind)) {
      const generation = asObj(object.metadata).generation
      if (!previous || asObj(previous.metadata).generation !== generation) this.scheduleRollout(type, object)
    }
    if (type.kind === 'Pod') {
      const phase = asObj(object.status).phase
      if (phase === 'Succeeded' || phase === 'Failed') this.endLogs(namespaceOf(object) ?? '', nameOf(object))
    }
  }

  private afterRemove(type: ResourceType, object: Obj): void {
    if (type.kind === 'CustomResourceDefinition') this.unregisterCrd(object)
    if (type.kind === 'Pod') this.endLogs(namespaceOf(object) ?? '', nameOf(object), true)
    if (type.kind === 'Namespace') {
      for (const w of [...this.watchers]) if (w.namespace === nameOf(object) && w.type.kind !== 'Namespace') w.close()
    }
    this.background(() => this.collectDependents(asObj(object.metadata).uid as string, 'Background'))
  }

  private crdStatus(crd: Obj): Obj {
    const spec = asObj(crd.spec)
    const now = kubeTime()
    const versions = Array.isArray(spec.versions) ? spec.versions.map(asObj) : []
    const storage = versions.find((v) => v.storage === true)
    const previous = asObj(crd.status)
    const stored = Array.isArray(previous.storedVersions) ? (previous.storedVersions as string[]) : []
    // An established CRD keeps its conditions (and their times) across updates.
    const conditions =
      Array.isArray(previous.conditions) && previous.conditions.length > 0
        ? previous.conditions
        : [
            {
              type: 'NamesAccepted',
              status: 'True',
              lastTransitionTime: now,
              reason: 'NoConflicts',
              message: 'no conflicts found',
            },
            {
              type: 'Established',
              status: 'True',
              lastTransitionTime: now,
              reason: 'InitialNamesAccepted',
              message: 'the initial names have been accepted',
            },
          ]
    return {
      acceptedNames: {...asObj(spec.names)},
      conditions,
      storedVersions: [...new Set([...stored, ...(storage ? [String(storage.name)] : [])])],
    }
  }

  private registerCrd(crd: Obj): void {
    const name = nameOf(crd)
    for (const [key, t] of this.types) if (t.crd === name) this.types.delete(key)
    for (const t of crdTypes(crd)) this.types.set(typeKey(t.group, t.version, t.resource), t)
  }

  private unregisterCrd(crd: Obj): void {
    const name = nameOf(crd)
    const types = [...this.types.values()].filter((t) => t.crd === name)
    for (const t of types) this.types.delete(typeKey(t.group, t.version, t.resource))
    const first = types[0]
    if (!first) return
    for (const stored of [...this.store(first).values()]) this.remove(first, stored)
    this.stores.delete(first.storageKey)
    for (const w of [...this.watchers]) if (w.storageKey === first.storageKey) w.close()
  }

  private markReady(ref: ObjectRef, nodes = 1): Obj {
    const type = this.typeFor(ref.apiVersion, ref.kind)
    const object = this.requireStored(type, ref).object
    const spec = asObj(object.spec)
    const generation = asObj(object.metadata).generation
    const now = kubeTime()
    let status: Obj
    if (type.kind === 'DaemonSet') {
      status = {
        currentNumberScheduled: nodes,
        desiredNumberScheduled: nodes,
        numberAvailable: nodes,
        numberMisscheduled: 0,
        numberReady: nodes,
        observedGeneration: generation,
        updatedNumberScheduled: nodes,
      }
    } else {
      const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1
      status = {
        observedGeneration: generation,
        replicas,
        updatedReplicas: replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
      }
      if (type.kind === 'StatefulSet') Object.assign(status, {currentReplicas: replicas})
      else {
        status.conditions = [
          {
            type: 'Available',
            status: 'True',
            lastUpdateTime: now,
            lastTransitionTime: now,
            reason: 'MinimumReplicasAvailable',
            message: 'Deployment has minimum availability.',
          },
          {
            type: 'Progressing',
            status: 'True',
            lastUpdateTime: now,
            lastTransitionTime: now,
            reason: 'NewReplicaSetAvailable',
            message: `ReplicaSet "${nameOf(object)}" has successfully progressed.`,
          },
        ]
      }
    }
    return this.setStatus(ref, status)
  }

  private scheduleRollout(type: ResourceType, object: Obj): void {
    const delay = this.settings.rolloutMs
    if (!Number.isFinite(delay)) return
    const ref: ObjectRef = {
      apiVersion: groupVersion(type.group, type.version),
      kind: type.kind,
      namespace: namespaceOf(object),
      name: nameOf(object),
    }
    const generation = asObj(object.metadata).generation
    this.later(Math.max(0, delay), () => {
      const current = this.store(type).get(objectKey(ref.namespace, ref.name))
      // A newer spec has its own timer; a deleted object has nothing to report.
      if (!current || asObj(current.object.metadata).generation !== generation) return
      this.markReady(ref)
    })
  }

  /** Runs `work` after the current request, counted by settled(). */
  private background(work: () => void): void {
    this.later(0, work)
  }

  private later(ms: number, work: () => void): void {
    this.pending.start({}, ms, (job) => {
      try {
        if (!this.stopped) work()
      } finally {
        this.pending.end(job)
      }
    })
  }

  private closeStreams(): void {
    for (const w of [...this.watchers]) w.close()
    for (const log of this.logs.values()) {
      for (const f of log.followers) f.res.end()
      log.followers.clear()
    }
  }

  // ---- deletion and garbage collection ----

  private dependentsOf(uid: string): {type: ResourceType; stored: Stored}[] {
    const out: {type: ResourceType; stored: Stored}[] = []
    const seen = new Set<string>()
    for (const type of this.types.values()) {
      if (seen.has(type.storageKey)) continue
      seen.add(type.storageKey)
      for (const stored of this.store(type).values()) {
        const refs = asObj(stored.object.metadata).ownerReferences
        if (Array.isArray(refs) && refs.some((r) => asObj(r).uid === uid)) out.push({type, stored})
      }
    }
    return out
  }

  /** What the garbage collector does once an owner is gone (or is being deleted in the foreground). */
  private collectDependents(uid: string, propagation: string): void {
    for (const {type, stored} of this.dependentsOf(uid)) {
      if (propagation === 'Orphan') {
        const object = clone(stored.object)
        const m = meta(object)
        m.ownerReferences = (m.ownerReferences as Obj[]).filter((r) => r.uid !== uid)
        if ((m.ownerReferences as Obj[]).length === 0) delete m.ownerReferences
        this.commitUpdate(
          type,
          stored,
          object,
          {manager: 'generic-garbage-collector', apiVersion: groupVersion(type.group, type.version)},
          type.statusSubresource ? 'main' : 'all',
        )
      } else this.deleteObject(type, stored, 'Background')
    }
  }

  /**
   * Deletes an object as the API server does: at once when nothing holds it, else it gets a deletionTimestamp and
   * stays until its finalizers are gone (orphan/foreground deletion use finalizers of the garbage collector).
   * Returns whether it was removed now.
   */
  private deleteObject(type: ResourceType, stored: Stored, propagation: string): boolean {
    const object = stored.object
    const m = asObj(object.metadata)
    if (m.deletionTimestamp) return false
    const finalizers = Array.isArray(m.finalizers) ? [...(m.finalizers as string[])] : []
    if (type.kind === 'Namespace') {
      const next = clone(object)
      meta(next).deletionTimestamp = kubeTime()
      next.status = {...asObj(next.status), phase: 'Terminating'}
      this.commit(type, stored, next, stored.entries)
      const name = nameOf(object)
      this.terminating.add(name)
      if (Number.isFinite(this.settings.namespaceDeletionMs)) {
        this.later(this.settings.namespaceDeletionMs, () => this.finishNamespace(name))
      }
      return false
    }
    const uid = String(m.uid)
    const hasDependents = this.dependentsOf(uid).length > 0
    if (propagation === 'Orphan' && hasDependents) finalizers.push('orphan')
    if (propagation === 'Foreground' && hasDependents) finalizers.push('foregroundDeletion')
    if (finalizers.length === 0) {
      this.remove(type, stored)
      return true
    }
    const next = clone(object)
    const nm = meta(next)
    nm.deletionTimestamp = kubeTime()
    nm.deletionGracePeriodSeconds = 0
    nm.finalizers = [...new Set(finalizers)]
    if (type.generation) nm.generation = Number(nm.generation ?? 1) + 1
    const committed = this.commit(type, stored, next, stored.entries)
    if (propagation === 'Orphan' && hasDependents)
      this.background(() => this.finishGcFinalizer(type, committed, 'orphan'))
    if (propagation === 'Foreground' && hasDependents)
      this.background(() => this.finishGcFinalizer(type, committed, 'foregroundDeletion'))
    return false
  }

  private finishGcFinalizer(type: ResourceType, object: Obj, finalizer: 'orphan' | 'foregroundDeletion'): void {
    const uid = String(asObj(object.metadata).uid)
    this.collectDependents(uid, finalizer === 'orphan' ? 'Orphan' : 'Foreground')
    const check = () => {
      const stored = this.store(type).get(objectKey(namespaceOf(object), nameOf(object)))
      if (!stored || asObj(stored.object.metadata).uid !== uid) return
      // Foreground deletion waits until every dependent is gone (their own finalizers may hold them).
      if (finalizer === 'foregroundDeletion' && this.dependentsOf(uid).length > 0) {
        this.later(10, check)
        return
      }
      const next = clone(stored.object)
      meta(next).finalizers = (asObj(next.metadata).finalizers as string[]).filter((f) => f !== finalizer)
      const result = this.commit(type, stored, next, stored.entries)
      this.finishDeletionIfDone(type, result)
    }
    this.background(check)
  }

  /** An object being deleted goes away once its last finalizer is removed. */
  private finishDeletionIfDone(type: ResourceType, object: Obj): void {
    const m = asObj(object.metadata)
    if (!m.deletionTimestamp || type.kind === 'Namespace') return
    if (Array.isArray(m.finalizers) && m.finalizers.length > 0) return
    const stored = this.store(type).get(objectKey(namespaceOf(object), nameOf(object)))
    if (stored) this.remove(type, stored)
  }

  private finishNamespace(name: string): void {
    if (!this.terminating.has(name)) return
    const seen = new Set<string>()
    for (const type of this.types.values()) {
      if (!type.namespaced || seen.has(type.storageKey)) continue
      seen.add(type.storageKey)
      for (const stored of [...this.store(type).values()]) {
        if (namespaceOf(stored.object) === name) this.deleteObject(type, stored, 'Background')
      }
    }
    const left = [...seen].some((key) =>
      [...(this.stores.get(key)?.values() ?? [])].some((s) => namespaceOf(s.object) === name),
    )
    if (left) {
      // Objects with finalizers keep the namespace Terminating until they go.
      this.later(10, () => this.finishNamespace(name))
      return
    }
    this.terminating.delete(name)
    const nsType = this.typeFor('v1', 'Namespace')
    const ns = this.store(nsType).get(objectKey(undefined, name))
    if (ns) this.remove(nsType, ns)
  }

  // ---- pod logs ----

  private podLog(namespace: string, pod: string, container: string): PodLog {
    const key = `${namespace}/${pod}/${container}`
    let log = this.logs.get(key)
    if (!log) {
      log = {lines: [], set: false, ended: false, followers: new Set()}
      this.logs.set(key, log)
    }
    return log
  }

  private onlyContainer(namespace: string, pod: string): string {
    const stored = this.stores.get('/pods')?.get(objectKey(namespace, pod))
    const containers = Array.isArray(asObj(stored?.object.spec).containers)
      ? (asObj(stored?.object.spec).containers as Obj[])
      : []
    if (containers.length !== 1) {
      throw new Error(`fake-kube: pod ${namespace}/${pod} has ${containers.length} containers; name the container`)
    }
    return String(containers[0].name)
  }

  private writeLog(log: PodLog, text: string): void {
    if (!text) return
    const time = kubeMicroTime()
    const parts = text.split(/(?<=\n)/)
    // The kubelet puts the time before each line, not before the pieces that continue a line written in parts.
    let lineStart = !log.lines.at(-1) || log.lines.at(-1)!.text.endsWith('\n')
    const pieces = parts.map((part) => {
      const atStart = lineStart
      lineStart = part.endsWith('\n')
      return {part, atStart}
    })
    for (const part of parts) {
      const last = log.lines.at(-1)
      if (last && !last.text.endsWith('\n')) last.text += part
      else log.lines.push({time, text: part})
    }
    log.ended = false
    for (const f of log.followers) {
      for (const {part, atStart} of pieces) f.res.write(f.timestamps && atStart ? `${time} ${part}` : part)
    }
  }

  private endLogs(namespace: string, pod: string, removed = false): void {
    const prefix = `${namespace}/${pod}/`
    for (const [key, log] of this.logs) {
      if (!key.startsWith(prefix)) continue
      for (const f of log.followers) f.res.end()
      log.followers.clear()
      if (removed) this.logs.delete(key)
    }
  }

  // ---- HTTP ----

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req)
    await this.serve(req, res, raw).catch((err: unknown) => {
      if (!res.headersSent)
        this.sendError(res, errors.internal(`fake-kube: ${err instanceof Error ? err.stack : String(err)}`))
    })
  }

  private async serve(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://fake')
    const query: Record<string, string> = {}
    for (const [k, v] of url.searchParams) query[k] = v
    const record: RequestRecord = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      verb: 'other',
      mutating: false,
      at: Date.now(),
    }
    const contentType = req.headers['content-type']
    if (contentType) record.contentType = contentType
    if (req.headers['user-agent']) record.userAgent = req.headers['user-agent']
    this.requests.push(record)
    res.on('finish', () => (record.status = res.statusCode))

    let target: Target | undefined
    try {
      target = this.describe(record)
    } catch {
      // Unknown paths are answered 404 below, after auth.
    }
    if (raw) {
      try {
        record.body = this.parseBody(raw, contentType ?? 'application/json')
      } catch {
        record.body = raw
      }
    }

    if (req.headers.authorization !== `Bearer ${this.token}`) {
      return this.sendError(res, new KubeError(401, 'Unauthorized', 'Unauthorized'))
    }

    try {
      const outcome = await serveWithFaults({
        faults: this.faults,
        fits: (f) =>
          (!f.method || f.method.toUpperCase() === record.method) &&
          (f.path === undefined || (typeof f.path === 'string' ? f.path === record.path : f.path.test(record.path))) &&
          (!f.verb || f.verb === record.verb) &&
          (!f.match || f.match(record)),
        answers: (f) => f.status !== undefined,
        taken: () => (record.faulted = true),
        latencyMs: this.settings.latencyMs,
        timers: this.delays,
        stopped: () => this.stopped,
        serve: () => this.route(req, res, record, target, raw),
      })
      if (outcome.kind === 'stopped') return
      // A watch or a log stream answered as it went.
      const reply = outcome.kind === 'served' ? outcome.value : outcome.applied?.value
      if (outcome.kind === 'fault' && (!outcome.applied || reply)) return this.sendFault(res, outcome.fault)
      if (reply) this.send(res, reply.status, reply.body, reply.headers)
    } catch (err) {
      if (err instanceof KubeError) return this.sendError(res, err)
      if (err instanceof SelectorError) return this.sendError(res, errors.badRequest(err.message))
      throw err
    }
  }

  private sendFault(res: ServerResponse, fault: KubeFault): void {
    const status = fault.status ?? 500
    const reason = fault.reason ?? STATUS_REASONS[status] ?? 'Unknown'
    const error = new KubeError(
      status,
      reason,
      fault.message ?? `fake-kube: injected ${status}`,
      fault.retryAfterSeconds !== undefined ? {retryAfterSeconds: fault.retryAfterSeconds} : undefined,
    )
    const headers: Record<string, string> = {}
    if (fault.retryAfterSeconds !== undefined) headers['Retry-After'] = String(fault.retryAfterSeconds)
    this.send(res, status, error.toStatus(), headers)
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, {'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', ...headers})
    if (body instanceof JsonPieces) {
      // Corked, the pieces leave as one chunk of the chunked body.
      res.cork()
      for (const piece of body.pieces) res.write(piece)
      res.uncork()
      res.end()
      return
    }
    res.end(typeof body === 'string' ? body : JSON.stringify(body))
  }

  private sendError(res: ServerResponse, err: KubeError): void {
    this.send(res, err.code, err.toStatus())
  }

  /** Fills in what a request is (verb, resource, ...) for the log and for fault matching. */
  private describe(record: RequestRecord): Target | undefined {
    // Each segment percent-decoded, as the API server reads a path (`system%3Acoredns` is `system:coredns`).
    const segments = record.path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => {
        try {
          return decodeURIComponent(s)
        } catch {
          return s
        }
      })
    let group = ''
    let version: string
    let rest: string[]
    if (segments[0] === 'api' && segments.length >= 2) {
      version = segments[1]
      rest = segments.slice(2)
    } else if (segments[0] === 'apis' && segments.length >= 3) {
      group = segments[1]
      version = segments[2]
      rest = segments.slice(3)
    } else {
      record.verb = record.method === 'GET' ? 'discovery' : 'other'
      return undefined
    }
    if (rest.length === 0) {
      record.verb = 'discovery'
      return undefined
    }
    let watchPath = false
    if (rest[0] === 'watch') {
      watchPath = true
      rest = rest.slice(1)
    }
    let namespace: string | undefined
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      const candidate = this.types.get(typeKey(group, version, rest[2]))
      if (candidate?.namespaced) {
        namespace = rest[1]
        rest = rest.slice(2)
      }
    }
    const [resource, name, subresource] = rest
    const type = this.types.get(typeKey(group, version, resource))
    Object.assign(record, {group, version, resource})
    if (namespace !== undefined) record.namespace = namespace
    if (name !== undefined) record.name = name
    if (subresource !== undefined) record.subresource = subresource
    const m = record.method
    const watch = watchPath || parseBool(record.query.watch)
    if (m === 'GET') record.verb = subresource === 'log' ? 'log' : watch ? 'watch' : name ? 'get' : 'list'
    else if (m === 'POST') record.verb = 'create'
    else if (m === 'PUT') record.verb = 'update'
    else if (m === 'PATCH')
      record.verb = (record.contentType ?? '').startsWith('application/apply-patch') ? 'apply' : 'patch'
    else if (m === 'DELETE') record.verb = name ? 'delete' : 'deletecollection'
    record.mutating = MUTATING.has(record.verb)
    if (!type || rest.length > 3) return undefined
    if (subresource !== undefined && !type.subresources.includes(subresource)) return undefined
    if (type.namespaced && namespace === undefined && (name !== undefined || m === 'POST')) return undefined
    const target: Target = {type}
    if (namespace !== undefined) target.namespace = namespace
    if (name !== undefined) target.name = name
    if (subresource !== undefined) target.subresource = subresource
    return target
  }

  private parseBody(raw: string, contentType: string): unknown {
    if (contentType.includes('yaml')) return load(raw)
    return JSON.parse(raw)
  }

  private route(
    req: IncomingMessage,
    res: ServerResponse,
    record: RequestRecord,
    target: Target | undefined,
    raw: string,
  ): Reply | undefined {
    const path = record.path
    if (record.verb === 'discovery') return this.discovery(path, req.headers.accept ?? '')
    const pending = PENDING_WORKLOADS.exec(path)
    if (pending && record.method === 'GET') return this.pendingWorkloads(decodeURIComponent(pending[1]))
    if (!target) throw new KubeError(404, 'NotFound', 'the server could not find the requested resource', {})
    const {type} = target
    const q = record.query
    const dryRun = q.dryRun === 'All'
    const warnings: string[] = []
    const withWarnings = (reply: Reply): Reply => {
      if (warnings.length > 0)
        reply.headers = {...reply.headers, Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ')}
      return reply
    }
    const fieldValidation = q.fieldValidation ?? 'Warn'
    if (type.deprecationWarning) warnings.push(type.deprecationWarning)
    switch (record.verb) {
      case 'get':
        return withWarnings({status: 200, body: this.present(this.find(target).object, type)})
      case 'list':
        return withWarnings({status: 200, body: this.listReply(target, q)})
      case 'watch':
        this.watch(res, record, target)
        return undefined
      case 'log':
        this.log(res, target, q)
        return undefined
      case 'create': {
        if (target.name !== undefined) throw errors.methodNotAllowed()
        const body = this.requireObjectBody(record, raw, type)
        const writer = this.writerFor(record, type)
        const object = this.create(type, target.namespace, body, {writer, dryRun, fieldValidation, warnings})
        return withWarnings({status: 201, body: this.present(object, type)})
      }
      case 'update': {
        const body = this.requireObjectBody(record, raw, type)
        return withWarnings({
          status: 200,
          body: this.present(this.update(target, body, record, {dryRun, fieldValidation, warnings}), type),
        })
      }
      case 'patch':
        return withWarnings({
          status: 200,
          body: this.present(this.patch(target, record, raw, {dryRun, fieldValidation, warnings}), type),
        })
      case 'apply': {
        const {object, created} = this.apply(target, record, {dryRun, fieldValidation, warnings})
        return withWarnings({status: created ? 201 : 200, body: this.present(object, type)})
      }
      case 'delete':
        return withWarnings(this.delete(target, record, dryRun))
      case 'deletecollection':
        return withWarnings(this.deleteCollection(target, record, dryRun))
      default:
        throw errors.methodNotAllowed()
    }
  }

  /** Kueue's visibility API: served while Kueue's ClusterQueue kind is (and the option allows). */
  private pendingWorkloads(clusterQueue: string): Reply {
    const served = (kind: string) =>
      [...this.types.values()].some((t) => t.group === 'kueue.x-k8s.io' && t.version === 'v1beta2' && t.kind === kind)
    const summary =
      this.settings.visibility && served('ClusterQueue') && served('LocalQueue') && served('Workload')
        ? pendingWorkloadsSummary(
            this.list('kueue.x-k8s.io/v1beta2', 'Workload') as KubeObject[],
            this.list('kueue.x-k8s.io/v1beta2', 'LocalQueue') as KubeObject[],
            this.list('kueue.x-k8s.io/v1beta2', 'ClusterQueue') as KubeObject[],
            clusterQueue,
          )
        : undefined
    if (!summary) throw new KubeError(404, 'NotFound', 'the server could not find the requested resource', {})
    return {status: 200, body: summary}
  }

  private discovery(path: string, accept: string): Reply {
    const aggregated =
      /g=apidiscovery\.k8s\.io;\s*v=v2(;|,|$)/.test(accept) || /g=apidiscovery\.k8s\.io;\s*v=v2;/.test(accept)
    const types = [...this.types.values()]
    const aggregatedType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
    if (path === '/version' || path === '/version/') {
      const m = /^v(\d+)\.(\d+)/.exec(this.settings.gitVersion)
      return {
        status: 200,
        body: {
          major: m?.[1] ?? '1',
          minor: m?.[2] ?? '32',
          gitVersion: this.settings.gitVersion,
          gitCommit: '0000000000000000000000000000000000000000',
          gitTreeState: 'clean',
          buildDate: '2026-01-01T00:00:00Z',
          goVersion: 'go1.23.8',
          compiler: 'gc',
          platform: 'linux/amd64',
        },
      }
    }
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      return {status: 200, body: 'ok', headers: {'Content-Type': 'text/plain; charset=utf-8'}}
    }
    if (path === '/api') {
      if (aggregated)
        return {status: 200, body: aggregatedDiscovery(types, true), headers: {'Content-Type': aggregatedType}}
      return {
        status: 200,
        body: {
          kind: 'APIVersions',
          versions: ['v1'],
          serverAddressByClientCIDRs: [{clientCIDR: '0.0.0.0/0', serverAddress: this.endpoint}],
        },
      }
    }
    if (path === '/apis') {
      if (aggregated)
        return {status: 200, body: aggregatedDiscovery(types, false), headers: {'Content-Type': aggregatedType}}
      return {status: 200, body: apiGroupList(types)}
    }
    if (path === '/openapi/v3' || path === '/openapi/v3/') {
      const paths: Obj = {}
      for (const [group, versions] of groupsOf(types)) {
        for (const [version, list] of versions) {
          const key = openApiKey(group, version)
          const hash = createHash('sha256')
            .update(JSON.stringify(openApiDocument(list, this.settings.gitVersion)))
            .digest('hex')
            .slice(0, 32)
            .toUpperCase()
          paths[key] = {serverRelativeURL: `/openapi/v3/${key}?hash=${hash}`}
        }
      }
      return {status: 200, body: {paths}}
    }
    const openApi = /^\/openapi\/v3\/(.+?)\/?$/.exec(path)
    if (openApi) {
      for (const [group, versions] of groupsOf(types)) {
        for (const [version, list] of versions) {
          if (openApiKey(group, version) === openApi[1])
            return {status: 200, body: openApiDocument(list, this.settings.gitVersion)}
        }
      }
    }
    const legacy = /^\/api\/([^/]+)\/?$/.exec(path)
    if (legacy) {
      const list = types.filter((t) => t.group === '' && t.version === legacy[1])
      if (list.length > 0) return {status: 200, body: apiResourceList(legacy[1], list)}
    }
    const groupOnly = /^\/apis\/([^/]+)\/?$/.exec(path)
    if (groupOnly) {
      const versions = groupsOf(types).get(groupOnly[1])
      if (versions)
        return {
          status: 200,
          body: {kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(groupOnly[1], [...versions.keys()])},
        }
    }
    const named = /^\/apis\/([^/]+)\/([^/]+)\/?$/.exec(path)
    if (named) {
      const list = types.filter((t) => t.group === named[1] && t.version === named[2])
      if (list.length > 0) return {status: 200, body: apiResourceList(`${named[1]}/${named[2]}`, list)}
    }
    throw new KubeError(404, 'NotFound', 'the server could not find the requested resource', {})
  }

  private find(target: Target): Stored {
    const stored = this.store(target.type).get(objectKey(target.namespace, target.name ?? ''))
    if (!stored) throw errors.notFound({group: target.type.group, resource: target.type.resource, name: target.name})
    return stored
  }

  private matcher(target: Target, q: Record<string, string>): Matcher {
    const labels = parseLabelSelector(q.labelSelector)
    const fields = parseFieldSelector(q.fieldSelector, target.type.kind)
    return (o) =>
      (target.namespace === undefined || namespaceOf(o) === target.namespace) &&
      (target.name === undefined || nameOf(o) === target.name) &&
      labels(o) &&
      fields(o)
  }

  /**
   * One page of a list, as pieces of JSON: each item's bytes are made once per stored version of the object and
   * kept (the API server's watch cache keeps serialized objects too), and the pieces are written as they are, so
   * serving 10,000 objects a page at a time costs a walk over the sorted keys, not a copy and serialization of
   * every object, nor a megabyte string, on every page.
   */
  private listReply(target: Target, q: Record<string, string>): JsonPieces {
    const {type} = target
    const matches = this.matcher(target, q)
    const store = this.store(type)
    const keys = this.sortedKeys(store)
    let listRv = this.rv
    let start = ''
    if (q.continue) {
      const token = decodeContinue(q.continue)
      listRv = token.rv
      start = token.start
    }
    const limit = q.limit ? Number(q.limit) : 0
    const page: Buffer[] = []
    let count = 0
    let last = ''
    let remaining = 0
    for (let i = start ? firstAfter(keys, start) : 0; i < keys.length; i++) {
      const stored = store.get(keys[i])!
      if (!matches(stored.object)) continue
      if (limit > 0 && count === limit) {
        remaining++
        continue
      }
      if (count++ > 0) page.push(COMMA)
      page.push(this.itemBytes(stored.object, type))
      last = keys[i]
    }
    const metadata: Obj = {resourceVersion: String(listRv)}
    if (remaining > 0) {
      metadata.continue = encodeContinue(listRv, last)
      metadata.remainingItemCount = remaining
    }
    const head = {apiVersion: groupVersion(type.group, type.version), kind: `${type.kind}List`, metadata}
    return new JsonPieces([Buffer.from(`${JSON.stringify(head).slice(0, -1)},"items":[`), ...page, Buffer.from(']}')])
  }

  /** A store's keys in order, sorted again only after a write (every write moves the resourceVersion on). */
  private sortedKeys(store: Map<string, Stored>): string[] {
    const kept = this.keyOrder.get(store)
    if (kept?.rv === this.rv) return kept.keys
    const keys = [...store.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    this.keyOrder.set(store, {rv: this.rv, keys})
    return keys
  }

  /**
   * A stored object as a list item, as JSON: what {@link present} makes, without apiVersion and kind for built-in
   * kinds (their typed lists leave them out; custom resource lists keep them). Kept per object and version:
   * stored objects are replaced on every write, never changed in place.
   */
  private itemBytes(object: Obj, type: ResourceType): Buffer {
    const variant = type.crd ? groupVersion(type.group, type.version) : ''
    let texts = this.itemTexts.get(object)
    if (!texts) this.itemTexts.set(object, (texts = new Map()))
    let bytes = texts.get(variant)
    if (bytes === undefined) {
      const item: Obj = {apiVersion: groupVersion(type.group, type.version), kind: type.kind, ...object}
      item.apiVersion = groupVersion(type.group, type.version)
      item.kind = type.kind
      if (!type.crd) {
        delete item.apiVersion
        delete item.kind
      }
      bytes = Buffer.from(JSON.stringify(item))
      texts.set(variant, bytes)
    }
    return bytes
  }

  private requireObjectBody(record: RequestRecord, raw: string, type: ResourceType): Obj {
    const contentType = record.contentType ?? 'application/json'
    if (contentType.includes('protobuf') || contentType.includes('cbor')) throw errors.unsupportedMediaType(contentType)
    let body: unknown
    try {
      body = this.parseBody(raw, contentType)
    } catch (err) {
      throw errors.badRequest(
        `the object provided is unrecognized (must be of type ${type.kind}): ${err instanceof Error ? err.message : String(err)}`,
      )
    }
    if (!isObj(body)) throw errors.badRequest(`the object provided is unrecognized (must be of type ${type.kind})`)
    this.checkKind(body, type)
    return body
  }

  private checkKind(body: Obj, type: ResourceType): void {
    const gv = groupVersion(type.group, type.version)
    if (body.kind !== undefined && body.kind !== type.kind) {
      throw errors.badRequest(
        `the kind in the data (${String(body.kind)}) does not match the expected kind (${type.kind})`,
      )
    }
    if (body.apiVersion !== undefined && body.apiVersion !== gv) {
      const {group} = splitGroupVersion(String(body.apiVersion))
      if (group !== type.group) {
        throw errors.badRequest(
          `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${gv})`,
        )
      }
    }
  }

  /** The field manager of a non-apply write: the `fieldManager` parameter, else the User-Agent up to its first `/`. */
  private writerFor(record: RequestRecord, type: ResourceType, subresource = record.subresource): Writer {
    const given = record.query.fieldManager
    if (given !== undefined && given.length > 128) {
      throw invalid('PatchOptions', 'meta.k8s.io', '', [
        {type: 'FieldValueTooLong', field: 'fieldManager', detail: 'may not be longer than 128'},
      ])
    }
    const manager = given || (record.userAgent ?? 'unknown').split('/')[0]
    return {
      manager,
      apiVersion: groupVersion(type.group, type.version),
      ...(subresource === 'status' ? {subresource: 'status'} : {}),
    }
  }

  private scopeOf(target: Target): Scope {
    if (target.subresource === 'status') return 'status'
    return target.type.statusSubresource ? 'main' : 'all'
  }

  private checkName(body: Obj, target: Target): void {
    const name = asObj(body.metadata).name
    if (name !== undefined && name !== '' && name !== target.name) {
      throw errors.badRequest(
        `the name of the object (${String(name)}) does not match the name on the URL (${target.name})`,
      )
    }
    const ns = asObj(body.metadata).namespace
    if (target.type.namespaced && ns !== undefined && ns !== '' && ns !== target.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request')
    }
  }

  private checkResourceVersion(body: Obj, stored: Stored, target: Target): void {
    const wanted = asObj(body.metadata).resourceVersion
    if (wanted !== undefined && wanted !== '' && wanted !== asObj(stored.object.metadata).resourceVersion) {
      throw errors.conflict(
        {group: target.type.group, resource: target.type.resource, name: target.name},
        'the object has been modified; please apply your changes to the latest version and try again',
      )
    }
  }

  private update(
    target: Target,
    body: Obj,
    record: RequestRecord,
    opts: {dryRun: boolean; fieldValidation: string; warnings: string[]},
  ): Obj {
    if (target.subresource === 'log') throw errors.methodNotAllowed()
    const stored = this.find(target)
    this.checkName(body, target)
    this.checkResourceVersion(body, stored, target)
    const candidate = clone(body)
    meta(candidate).name = target.name
    return this.commitUpdate(
      target.type,
      stored,
      candidate,
      this.writerFor(record, target.type),
      this.scopeOf(target),
      opts,
    )
  }

  private patch(
    target: Target,
    record: RequestRecord,
    raw: string,
    opts: {dryRun: boolean; fieldValidation: string; warnings: string[]},
  ): Obj {
    if (target.subresource === 'log') throw errors.methodNotAllowed()
    const contentType = (record.contentType ?? '').split(';')[0].trim()
    if (record.query.force !== undefined) {
      throw invalid('PatchOptions', 'meta.k8s.io', '', [
        {type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch'},
      ])
    }
    const stored = this.find(target)
    let patchBody: unknown
    try {
      patchBody = JSON.parse(raw || 'null')
    } catch (err) {
      throw errors.badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`)
    }
    const current = this.present(stored.object, target.type)
    let next: unknown
    switch (contentType) {
      case 'application/merge-patch+json':
        next = jsonMergePatch(current, patchBody)
        break
      case 'application/json-patch+json':
        next = jsonPatch(current, patchBody)
        break
      case 'application/strategic-merge-patch+json':
        if (target.type.crd) {
          throw new KubeError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
          )
        }
        next = strategicMergePatch(current, patchBody, new BuiltinShape(target.type.kind))
        break
      default:
        throw errors.unsupportedMediaType(contentType)
    }
    if (!isObj(next)) throw new KubeError(422, 'Invalid', 'the patch did not produce an object')
    if (isObj(patchBody)) this.checkResourceVersion(asObj(patchBody), stored, target)
    if (nameOf(next) !== target.name)
      throw errors.badRequest(
        `the name of the object (${nameOf(next)}) does not match the name on the URL (${target.name})`,
      )
    // resourceVersion in a patch is a precondition (checked above), not a field to store.
    delete meta(next).resourceVersion
    return this.commitUpdate(target.type, stored, next, this.writerFor(record, target.type), this.scopeOf(target), opts)
  }

  private apply(
    target: Target,
    record: RequestRecord,
    opts: {dryRun: boolean; fieldValidation: string; warnings: string[]},
  ): {object: Obj; created: boolean} {
    const {type} = target
    const contentType = record.contentType ?? ''
    if (contentType.includes('cbor')) throw errors.unsupportedMediaType(contentType)
    const manager = record.query.fieldManager
    if (!manager) {
      throw invalid('PatchOptions', 'meta.k8s.io', '', [
        {type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch'},
      ])
    }
    const body = record.body
    if (!isObj(body)) throw errors.badRequest('error decoding YAML: the apply patch is not an object')
    if (body.apiVersion === undefined || body.kind === undefined) {
      throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`)
    }
    this.checkKind(body, type)
    this.checkName(body, target)
    const writer = this.writerFor(record, type)
    const force = parseBool(record.query.force)
    const scope = this.scopeOf(target)
    const shape = this.shapeOf(type)
    const applied = clone(body)
    applied.apiVersion = groupVersion(type.group, type.version)
    const am = meta(applied)
    am.name = target.name
    if (type.namespaced) am.namespace = target.namespace
    delete am.resourceVersion
    if (scope === 'main') delete applied.status
    const existing = this.store(type).get(objectKey(target.namespace, target.name ?? ''))
    if (!existing) {
      if (scope === 'status') throw errors.notFound({group: type.group, resource: type.resource, name: target.name})
      const {entries} = serverSideApply(undefined, applied, [], writer, force, scope, shape)
      const object = this.create(type, target.namespace, applied, {
        dryRun: true,
        fieldValidation: opts.fieldValidation,
        warnings: opts.warnings,
      })
      if (opts.dryRun) return {object, created: true}
      delete meta(object).resourceVersion
      return {object: this.commit(type, undefined, object, entries), created: true}
    }
    if (isObj(body.metadata) && body.metadata.resourceVersion) this.checkResourceVersion(body, existing, target)
    const {object, entries} = serverSideApply(existing.object, applied, existing.entries, writer, force, scope, shape)
    return {object: this.commitUpdate(type, existing, object, writer, scope, {...opts, entries}), created: false}
  }

  private deleteOptions(record: RequestRecord): Obj {
    const body = isObj(record.body) ? record.body : {}
    const q = record.query
    const options: Obj = {...body}
    if (q.propagationPolicy) options.propagationPolicy = q.propagationPolicy
    if (q.orphanDependents) options.orphanDependents = parseBool(q.orphanDependents)
    if (q.gracePeriodSeconds) options.gracePeriodSeconds = Number(q.gracePeriodSeconds)
    return options
  }

  private propagation(options: Obj, type: ResourceType): string {
    const policy = options.propagationPolicy
    if (policy !== undefined) {
      if (policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') {
        throw invalid('DeleteOptions', 'meta.k8s.io', '', [
          {
            type: 'FieldValueNotSupported',
            field: 'propagationPolicy',
            value: policy,
            detail: 'supported values: "Foreground", "Background", "Orphan", "nil"',
          },
        ])
      }
      return policy
    }
    if (options.orphanDependents === true) return 'Orphan'
    if (options.orphanDependents === false) return 'Background'
    return type.defaultPropagation
  }

  private delete(target: Target, record: RequestRecord, dryRun: boolean): Reply {
    const {type} = target
    if (target.subresource) throw errors.methodNotAllowed()
    const stored = this.find(target)
    const options = this.deleteOptions(record)
    const preconditions = asObj(options.preconditions)
    const m = asObj(stored.object.metadata)
    if (preconditions.uid !== undefined && preconditions.uid !== m.uid) {
      throw errors.conflict(
        {group: type.group, resource: type.resource, name: target.name},
        `Precondition failed: UID in precondition: ${String(preconditions.uid)}, UID in object meta: ${String(m.uid)}`,
      )
    }
    if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== m.resourceVersion) {
      throw errors.conflict(
        {group: type.group, resource: type.resource, name: target.name},
        `Precondition failed: ResourceVersion in precondition: ${String(preconditions.resourceVersion)}, ResourceVersion in object meta: ${String(m.resourceVersion)}`,
      )
    }
    if (type.kind === 'Namespace' && UNDELETABLE_NAMESPACES.has(target.name ?? '')) {
      throw new KubeError(
        403,
        'Forbidden',
        `namespaces "${target.name}" is forbidden: this namespace may not be deleted`,
        {name: target.name, kind: 'namespaces'},
      )
    }
    const propagation = this.propagation(options, type)
    if (dryRun) return {status: 200, body: this.present(stored.object, type)}
    const removed = this.deleteObject(type, stored, propagation)
    if (!removed) {
      const current = this.store(type).get(objectKey(target.namespace, target.name ?? ''))
      return {status: 200, body: this.present(current?.object ?? stored.object, type)}
    }
    if (type.crd) return {status: 200, body: this.present(stored.object, type)}
    return {
      status: 200,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: {name: target.name, ...(type.group ? {group: type.group} : {}), kind: type.resource, uid: m.uid},
      },
    }
  }

  private deleteCollection(target: Target, record: RequestRecord, dryRun: boolean): Reply {
    const {type} = target
    const matches = this.matcher(target, record.query)
    const options = this.deleteOptions(record)
    const propagation = this.propagation(options, type)
    const victims = [...this.store(type).values()].filter((s) => matches(s.object))
    const items = victims.map((s) => this.present(s.object, type))
    if (!dryRun) for (const stored of victims) this.deleteObject(type, stored, propagation)
    return {
      status: 200,
      body: {
        apiVersion: groupVersion(type.group, type.version),
        kind: `${type.kind}List`,
        metadata: {resourceVersion: String(this.rv)},
        items,
      },
    }
  }

  // ---- watch ----

  private watch(res: ServerResponse, record: RequestRecord, target: Target): void {
    const {type} = target
    const q = record.query
    const matches = this.matcher(target, q)
    const from = q.resourceVersion
    const sendInitial = parseBool(q.sendInitialEvents)
    let replay: HistoryEvent[] = []
    if (from && from !== '0' && !sendInitial) {
      const n = Number(from)
      if (!Number.isFinite(n)) throw errors.badRequest(`invalid resource version: ${from}`)
      const oldest = this.events[0]?.rv ?? this.rv + 1
      if (n < oldest - 1 && this.events.length >= this.settings.watchHistory) {
        res.writeHead(200, {'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked'})
        const gone = errors.gone(`too old resource version: ${n} (${oldest - 1})`).toStatus()
        res.end(`${JSON.stringify({type: 'ERROR', object: gone})}\n`)
        return
      }
      replay = this.events.filter((e) => e.rv > n && e.storageKey === type.storageKey)
    }
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache, private',
    })
    res.flushHeaders()
    record.status = 200
    const send = (eventType: string, object: Obj) => {
      if (!res.writableEnded) res.write(`${JSON.stringify({type: eventType, object})}\n`)
    }
    const timers: NodeJS.Timeout[] = []
    const watcher: Watcher = {
      storageKey: type.storageKey,
      type,
      ...(target.namespace !== undefined ? {namespace: target.namespace} : {}),
      ...(target.name !== undefined ? {name: target.name} : {}),
      matches,
      send,
      close: () => {
        this.watchers.delete(watcher)
        for (const t of timers) clearTimeout(t)
        if (!res.writableEnded) res.end()
      },
    }
    const gv = groupVersion(type.group, type.version)
    const bookmark = (annotations?: Obj) =>
      send('BOOKMARK', {
        kind: type.kind,
        apiVersion: gv,
        metadata: {resourceVersion: String(this.rv), ...(annotations ? {annotations} : {})},
      })
    if (!from || from === '0' || sendInitial) {
      const current = [...this.store(type).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      for (const [, s] of current) if (matches(s.object)) send('ADDED', this.present(s.object, type))
      if (sendInitial && parseBool(q.allowWatchBookmarks)) bookmark({'k8s.io/initial-events-end': 'true'})
    }
    for (const event of replay) this.deliver(watcher, event)
    this.watchers.add(watcher)
    if (parseBool(q.allowWatchBookmarks) && Number.isFinite(this.settings.bookmarkIntervalMs)) {
      timers.push(setInterval(() => bookmark(), this.settings.bookmarkIntervalMs))
    }
    if (q.timeoutSeconds) timers.push(setTimeout(() => watcher.close(), Number(q.timeoutSeconds) * 1000))
    // Not req's 'close': an IncomingMessage closes once its (empty) body has been read.
    res.on('close', () => watcher.close())
  }

  /** Sends one stored event to a watch, as ADDED/DELETED when the change moves the object into or out of its filter. */
  private deliver(w: Watcher, event: HistoryEvent): void {
    const now = w.matches(event.object)
    const before = event.previous ? w.matches(event.previous) : false
    const object = this.present(event.object, w.type)
    if (event.type === 'ADDED') {
      if (now) w.send('ADDED', object)
    } else if (event.type === 'DELETED') {
      if (now || before) w.send('DELETED', object)
    } else if (now && before) w.send('MODIFIED', object)
    else if (now) w.send('ADDED', object)
    else if (before) w.send('DELETED', object)
  }

  // ---- logs ----

  private log(res: ServerResponse, target: Target, q: Record<string, string>): void {
    const pod = this.find(target).object
    const spec = asObj(pod.spec)
    const containers = [
      ...(Array.isArray(spec.containers) ? spec.containers : []),
      ...(Array.isArray(spec.initContainers) ? spec.initContainers : []),
    ].map((c) => String(asObj(c).name))
    let container = q.container
    if (!container) {
      const main = Array.isArray(spec.containers) ? spec.containers.map((c) => String(asObj(c).name)) : []
      if (main.length !== 1) {
        throw errors.badRequest(
          `a container name must be specified for pod ${target.name}, choose one of: [${main.join(' ')}]`,
        )
      }
      container = main[0]
    } else if (!containers.includes(container)) {
      throw errors.badRequest(`container ${container} is not valid for pod ${target.name}`)
    }
    const log = this.podLog(target.namespace ?? '', target.name ?? '', container)
    const phase = asObj(pod.status).phase
    if (!log.set && (phase === undefined || phase === 'Pending')) {
      throw errors.badRequest(`container "${container}" in pod "${target.name}" is waiting to start: ContainerCreating`)
    }
    const timestamps = parseBool(q.timestamps)
    if (q.sinceTime !== undefined && q.sinceSeconds !== undefined) {
      throw invalid('PodLogOptions', '', target.name ?? '', [
        {
          type: 'FieldValueForbidden',
          field: 'sinceSeconds',
          detail: 'at most one of `sinceTime` or `sinceSeconds` may be specified',
        },
      ])
    }
    // sinceTime is RFC 3339; the API server passes it on to the kubelet to the second, which keeps the lines whose
    // own time is not before it.
    const since = q.sinceTime === undefined ? undefined : logTimeNanos(q.sinceTime)
    if (since === undefined && q.sinceTime !== undefined) {
      throw errors.badRequest(`parsing time "${q.sinceTime}" as "2006-01-02T15:04:05Z07:00": cannot parse`)
    }
    let lines = log.lines
    if (q.tailLines !== undefined) lines = Number(q.tailLines) > 0 ? lines.slice(-Number(q.tailLines)) : []
    if (since !== undefined) {
      const second = since - (since % 1_000_000_000n)
      lines = lines.filter((l) => logTimeNanos(l.time)! >= second)
    }
    let text = lines.map((l) => (timestamps ? `${l.time} ${l.text}` : l.text)).join('')
    if (q.limitBytes) text = Buffer.from(text).subarray(0, Number(q.limitBytes)).toString('utf8')
    res.writeHead(200, {'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private'})
    const follow = parseBool(q.follow) && !log.ended && phase !== 'Succeeded' && phase !== 'Failed'
    if (!follow) {
      res.end(text)
      return
    }
    res.write(text)
    const follower = {res, timestamps}
    log.followers.add(follower)
    res.on('close', () => log.followers.delete(follower))
  }
}

function typeKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`
}
