// An in-memory double of the KubeClient port for in-process service tests: real state, every request logged (with
// whether it mutates, so tests can count what a re-run sends), faults injected per verb and kind, and the bits of
// controller behaviour the in-cluster steps wait on (Deployments becoming Available, DaemonSet pods pulling an
// image on matching nodes). The wire-level fake API server (fake-kube.ts) is what the adapter is tested against;
// this one is for services, where speed and direct control of cluster state matter more than HTTP. The two are held
// together by test/fakes/kube-contract.test.ts (the port's contract, run on both): where they part, this one is
// wrong. Its failures are the adapter's: kubeApiError with what was being done worded as the adapter words it.
//
// What it models, and how far:
//   - Objects are keyed by API group, kind, namespace and name (so one object is served in every version its type
//     serves). Built-in kinds are known; custom kinds are known while a CRD that serves the requested version is
//     stored. An unknown kind lists empty and gets undefined (as the port says; `lookup` says 'not-served', a
//     missing object of a served kind 'absent'); creating or applying one fails as the adapter says it, "the
//     cluster does not serve KIND in VERSION", which is no API error and not retried.
//   - Server-side apply for two parties: the field manager `xpk` and "others" (what tests seed, e.g. an older
//     release applied by kubectl or Helm). xpk's last applied configuration replaces its previous one (fields it
//     stops sending disappear); fields others set are kept. A field both set to different values is a 409 conflict
//     unless the apply forces, which hands the field to xpk. Lists are atomic, except lists of maps that all have a
//     `name` (containers, env, volumes), which merge by name as Kubernetes' list-map types do.
//   - Create (POST) makes the object as an Update by the field manager `xpk` (stored with other managers' fields,
//     as a real server's managedFields keep an Update apart from an Apply); an object of the name already there is
//     a 409 AlreadyExists and is left as it is. A delete with a uid precondition that names another object is a 409
//     Conflict and deletes nothing.
//   - `metadata.generation` starts at 1 and is bumped when anything outside metadata and status changes;
//     `resourceVersion` is bumped on every change (an apply that changes nothing leaves it alone); `uid` and
//     `creationTimestamp` are set on create. `status` in an applied object is ignored, as the status subresource is.
//   - PersistentVolumes, PersistentVolumeClaims and StorageClasses are checked as the wire fake checks them, by the
//     same rules (kube-storage-kinds.ts): on create and apply, what the object would become (and, on an update, what
//     it was) is refused as the API server refuses it, a 422 Invalid naming each field or a 400 for a value of the
//     wrong type, and nothing is stored. Unlike the wire fake it fills in none of the server's defaults. Other kinds,
//     custom ones included, are stored as sent.
//   - Namespaced objects need their namespace to exist. A webhook configuration whose service lives in a namespace
//     with no Available Deployment makes applies of the API groups it intercepts fail with a 500, as the API server
//     does while a controller is down ("no endpoints available for service").
//   - Deleting a CRD deletes its objects; deleting a Namespace deletes what is in it; deleting an owner deletes the
//     objects that name it in ownerReferences, and theirs in turn (JobSet -> Jobs -> pods). Deletion is immediate
//     unless {@link MemoryKubeOptions.lingering} keeps a kind terminating for some requests (a CRD waits for its
//     objects' finalizers on a real cluster; a pod for its grace period).
//   - Deployments: with `autoAvailable` (the default) an applied spec change is rolled out at once; otherwise a new
//     Deployment reports Available=False until the test calls `setAvailable`, and a changed one keeps its old pods
//     Available while the new ReplicaSet's pod is not ready (a rollout in progress), as a one-replica Deployment
//     with the default strategy does.
//   - DaemonSets: one pod per Node matching the pod template's node affinity and node selector. Each read of the
//     DaemonSet lets `daemonSetPullsPerRead` more pods finish pulling (all by default); pods on nodes given to
//     `failPullOn` go ErrImagePull, then ImagePullBackOff, with a Warning Event each, like the kubelet's. A changed
//     template replaces every pod at once (simpler than a rolling update; the status fields say the same).
//   - Label selectors: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`, comma-separated. Field
//     selectors: `path=value` and `path!=value` on the fields the real server lets each kind be selected by
//     (metadata.name and metadata.namespace, and a few per kind); any other field is a 400, as there.
//   - Lists are sorted by namespace and name and paged with `limit`/`continue` (an opaque offset); `listAll` pages
//     as the adapter does (core/kube/list-pages.ts), one logged list request per page.
//   - Watches: every write (apply, seed, setStatus, setAvailable, delete, a lingering delete's deletionTimestamp)
//     is an event with the object's new resourceVersion; a watch gets ADDED for the current matches when it names
//     no resourceVersion, else the retained events after it (`watchHistory`, default 1,000; older is a 410
//     Expired), then changes as they happen, in order, on later microtasks. A change that moves an object into or
//     out of the selectors is ADDED or DELETED, as on the API server. Writes made by the modelled controllers
//     inside other requests (DaemonSet pods pulling their image) are not events. `endWatches` closes open watches as a server does
//     now and then, `failWatches` ends them with an error, `forgetHistory` compacts the retained events.
//   - Kueue's visibility API (pending workloads of a ClusterQueue in Kueue's order) as the wire fake serves it, from
//     the same model (kueue-visibility.ts); `visibility: false` turns it off, a 503 on it is 'not-served' as in the
//     adapter.
//   - Pod logs: what tests write with `appendPodLog`, followed until `endPodLog` or the pod's deletion;
//     `restartPodContainer` starts a new container's log and bumps its restartCount, as the kubelet does;
//     `exitPodContainer` ends the log and says the container terminated; `cutPodLogs` ends the streams open on a
//     log that goes on. Each line
//     has the time its first piece was written (one millisecond apart from 2026-01-01, or what `setLogTime` says),
//     which `timestamps` puts before it as the kubelet does (RFC 3339 with nanoseconds, trailing zeros cut, and a
//     space; not before the pieces that continue a line); `sinceTime` keeps the lines not before its second (the
//     API server passes it on to the kubelet to the second), `tailLines` the last lines; sinceSeconds is not
//     modelled (every line is recent).
import {ApiError, XpkError} from '../../src/core/errors.js'
import {kubeApiError} from '../../src/core/kube/kube-errors.js'
import {listPages, LIST_PAGE_SIZE} from '../../src/core/kube/list-pages.js'
import {splitApiVersion} from '../../src/core/kube/release-manifest.js'
import {pendingWorkloadsSummary} from './kueue-visibility.js'
import {VISIBILITY_API_VERSION} from '../../src/core/versions.js'
import {
  FIELD_MANAGER,
  type KubeClient,
  type KubeDeleteOptions,
  type KubeListAllOptions,
  type KubeListOptions,
  type KubeLookup,
  type KubeObject,
  type KubePage,
  type KubeRef,
  type KubeWatchEvent,
  type KubeLogOptions,
  type KubeWatchOptions,
} from '../../src/ports/kube.js'
import {invalid, logTimeNanos} from './fake-kube-util.js'
import {storageKindRefusal} from './kube-storage-kinds.js'

type Json = Record<string, unknown>

export type KubeVerb = 'get' | 'list' | 'create' | 'apply' | 'delete' | 'watch' | 'logs'

/** One request as the fake received it. */
export interface KubeRequest {
  readonly verb: KubeVerb
  readonly apiVersion: string
  readonly kind: string
  readonly namespace?: string
  readonly name?: string
  /** Whether the request asks for a change (create, apply, delete), whatever it answered. */
  readonly mutating: boolean
  /** The HTTP status the fake answered with (200, 201, 404, 409, an injected 503, ...). */
  readonly status: number
  /** The object sent, for creates and applies. */
  readonly body?: KubeObject
  readonly force?: boolean
  readonly list?: KubeListOptions
  /** What a watch asked for. */
  readonly watch?: Omit<KubeWatchOptions, 'signal'>
  /** What a log request asked for. */
  readonly logs?: Omit<KubeLogOptions, 'signal'>
}

/** Which requests an injected fault hits; unset fields match anything. */
export interface FaultMatch {
  readonly verb?: KubeVerb
  readonly kind?: string
  readonly name?: string
}

export interface MemoryKubeOptions {
  /** Deployments become Available as soon as a spec change is applied. @default true */
  readonly autoAvailable?: boolean
  /** Pods of a DaemonSet that finish pulling per read of the DaemonSet. @default Infinity */
  readonly daemonSetPullsPerRead?: number
  /** Kinds whose deleted objects stay, terminating, for this many further requests (of any kind). */
  readonly lingering?: Readonly<Record<string, number>>
  /** Events kept for watches that resume from a resourceVersion; older ones are a 410 Expired. @default 1000 */
  readonly watchHistory?: number
  /**
   * Kueue's visibility API is served while the ClusterQueue kind is (its CRD stored); false: never, as with Kueue's
   * VisibilityOnDemand feature off. @default true
   */
  readonly visibility?: boolean
}

/** How a test seeds an object: as applied by xpk before, or by another manager (kubectl, Helm, the kubelet). */
export interface SeedOptions {
  /** @default 'kubectl' */
  readonly manager?: string
  readonly status?: Json
  /** For a Deployment: rolled out and Available, as a controller that has been running for a while. */
  readonly available?: boolean
}

interface TypeInfo {
  readonly group: string
  readonly namespaced: boolean
}

interface Entry {
  readonly group: string
  readonly kind: string
  readonly namespace: string | undefined
  readonly name: string
  apiVersion: string
  readonly uid: string
  readonly creationTimestamp: string
  resourceVersion: number
  generation: number
  /** xpk's last applied configuration (apiVersion, kind and system metadata removed). */
  xpk: Json | undefined
  /** Fields other managers set. */
  others: Json
  otherManager: string | undefined
  status: Json | undefined
  /** While terminating: the request count at which the object goes. */
  goneAt: number | undefined
}

/** One write, as watches see it: the object after it (before it, for a delete). */
interface WatchRecord {
  readonly version: number
  readonly group: string
  readonly kind: string
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'
  readonly object: KubeObject
  /** The object as the previous event left it, to tell whether it moved into or out of a watch's selectors. */
  readonly previous: KubeObject | undefined
}

/** One line of a container's log: the time its first piece was written, and its text (with its newline once whole). */
interface LogLine {
  readonly time: string
  text: string
}

/** A piece of a log as followers get it: whether it starts a line, so a timestamp goes before it. */
interface LogPiece {
  readonly time: string
  readonly text: string
  readonly lineStart: boolean
}

interface PodLog {
  readonly lines: LogLine[]
  ended: boolean
  readonly followers: Set<(piece: LogPiece | null) => void>
}

interface Watcher {
  readonly group: string
  readonly kind: string
  readonly apiVersion: string
  readonly namespace: string | undefined
  readonly matches: (object: KubeObject) => boolean
  readonly onEvent: (event: KubeWatchEvent) => void
  readonly end: (error?: unknown) => void
}

interface PullFailure {
  readonly reason: string
  readonly message: string
}

/** Built-in kinds the fake serves: `group/kind` -> versions and scope. */
const BUILT_IN: Readonly<Record<string, {readonly versions: readonly string[]; readonly namespaced: boolean}>> = {
  '/Namespace': {versions: ['v1'], namespaced: false},
  '/Node': {versions: ['v1'], namespaced: false},
  '/ConfigMap': {versions: ['v1'], namespaced: true},
  '/Secret': {versions: ['v1'], namespaced: true},
  '/ServiceAccount': {versions: ['v1'], namespaced: true},
  '/Service': {versions: ['v1'], namespaced: true},
  '/Pod': {versions: ['v1'], namespaced: true},
  '/Event': {versions: ['v1'], namespaced: true},
  '/PersistentVolume': {versions: ['v1'], namespaced: false},
  '/PersistentVolumeClaim': {versions: ['v1'], namespaced: true},
  'storage.k8s.io/StorageClass': {versions: ['v1'], namespaced: false},
  'apps/Deployment': {versions: ['v1'], namespaced: true},
  'apps/DaemonSet': {versions: ['v1'], namespaced: true},
  'apps/ReplicaSet': {versions: ['v1'], namespaced: true},
  'apps/StatefulSet': {versions: ['v1'], namespaced: true},
  'batch/Job': {versions: ['v1'], namespaced: true},
  'policy/PodDisruptionBudget': {versions: ['v1'], namespaced: true},
  'rbac.authorization.k8s.io/Role': {versions: ['v1'], namespaced: true},
  'rbac.authorization.k8s.io/RoleBinding': {versions: ['v1'], namespaced: true},
  'rbac.authorization.k8s.io/ClusterRole': {versions: ['v1'], namespaced: false},
  'rbac.authorization.k8s.io/ClusterRoleBinding': {versions: ['v1'], namespaced: false},
  'scheduling.k8s.io/PriorityClass': {versions: ['v1'], namespaced: false},
  'apiextensions.k8s.io/CustomResourceDefinition': {versions: ['v1'], namespaced: false},
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': {versions: ['v1'], namespaced: false},
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': {versions: ['v1'], namespaced: false},
  'apiregistration.k8s.io/APIService': {versions: ['v1'], namespaced: false},
}

/** Namespaces every cluster starts with. */
const INITIAL_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system']

const SYSTEM_METADATA = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'managedFields',
  'selfLink',
]

/** A Kubernetes API in memory; see the module comment for what it models. */
export class MemoryKube implements KubeClient {
  readonly target = 'memory://kube'
  /** Every request, in the order received. */
  readonly requests: KubeRequest[] = []
  private readonly entries = new Map<string, Entry>()
  private readonly faults: Array<FaultMatch & {status: number; message: string; left: number}> = []
  private readonly pullFailures = new Map<string, PullFailure>()
  private readonly options: Required<MemoryKubeOptions>
  private readonly watchers = new Set<Watcher>()
  private readonly watchLog: WatchRecord[] = []
  /** The newest event of each object, by key: what its next event is compared with. */
  private readonly lastEvent = new Map<string, KubeObject>()
  /** Versions at or below this are no longer retained for resuming watches. */
  private forgottenUpTo = 0
  /** Container logs set by tests, by `namespace/pod/container` (container '' when the test named none). */
  private readonly podLogs = new Map<string, PodLog>()
  /** The time the next log line gets, when a test fixed it; else one millisecond after the last. */
  private logTime: string | undefined
  private logTicks = 0
  private ticks = 0
  private nextUid = 1
  private nextVersion = 1
  /** Seconds since the fake's epoch, for timestamps: one per request, so they are ordered and stable. */
  private readonly epoch = Date.UTC(2026, 0, 1)

  constructor(options: MemoryKubeOptions = {}) {
    this.options = {
      autoAvailable: options.autoAvailable ?? true,
      daemonSetPullsPerRead: options.daemonSetPullsPerRead ?? Number.POSITIVE_INFINITY,
      lingering: options.lingering ?? {},
      watchHistory: options.watchHistory ?? 1000,
      visibility: options.visibility ?? true,
    }
    for (const name of INITIAL_NAMESPACES) {
      this.seed({apiVersion: 'v1', kind: 'Namespace', metadata: {name}}, {manager: 'kube-apiserver'})
    }
  }

  // ---- the port ----

  async get(ref: KubeRef): Promise<KubeObject | undefined> {
    const found = await this.lookup(ref)
    return found.state === 'found' ? found.object : undefined
  }

  /** The same request as `get` (logged as a get), telling a missing object from a kind not served. */
  async lookup(ref: KubeRef): Promise<KubeLookup> {
    const request = this.begin('get', ref.apiVersion, ref.kind, ref.namespace, ref.name)
    const type = this.typeOf(ref.apiVersion, ref.kind)
    if (!type) {
      this.log(request, 404)
      return {state: 'not-served'}
    }
    const entry = this.entries.get(
      this.key(type.group, ref.kind, type.namespaced ? ref.namespace : undefined, ref.name),
    )
    if (!entry) {
      this.log(request, 404)
      return {state: 'absent'}
    }
    if (entry.kind === 'DaemonSet' && entry.group === 'apps') this.advanceDaemonSet(entry)
    this.log(request, 200)
    return {state: 'found', object: this.render(entry, ref.apiVersion)}
  }

  async list(apiVersion: string, kind: string, options: KubeListOptions = {}): Promise<KubePage> {
    const request = this.begin('list', apiVersion, kind, options.namespace, undefined, {list: options})
    const type = this.typeOf(apiVersion, kind)
    if (!type) {
      this.log(request, 404)
      return {items: []}
    }
    const labels = parseLabelSelector(options.labelSelector)
    const fields = parseFieldSelector(options.fieldSelector, kind)
    if (typeof fields === 'string') {
      this.log(request, 400)
      throw kubeApiError(400, {reason: 'BadRequest', message: fields}, doingOn('list', kind))
    }
    const matching = [...this.entries.values()]
      .filter((e) => e.group === type.group && e.kind === kind)
      .filter((e) => !type.namespaced || options.namespace === undefined || e.namespace === options.namespace)
      .map((e) => this.render(e, apiVersion))
      .filter((o) => labels((o.metadata.labels ?? {}) as Record<string, string>) && fields(o))
      .sort((a, b) => sortKey(a).localeCompare(sortKey(b)))
    const offset = options.continue === undefined ? 0 : decodeContinue(options.continue)
    if (offset === undefined) {
      this.log(request, 410)
      throw kubeApiError(
        410,
        {reason: 'Expired', message: 'The provided continue parameter is too old'},
        doingOn('list', kind),
      )
    }
    const end = options.limit === undefined || options.limit <= 0 ? matching.length : offset + options.limit
    this.log(request, 200)
    const items = matching.slice(offset, end)
    return end < matching.length ? {items, continue: encodeContinue(end)} : {items}
  }

  listAll(apiVersion: string, kind: string, options: KubeListAllOptions = {}): AsyncIterable<readonly KubeObject[]> {
    const {pageSize = LIST_PAGE_SIZE, retry = (request) => request(), ...list} = options
    return listPages((token) => retry(() => this.list(apiVersion, kind, {...list, limit: pageSize, continue: token})))
  }

  async apply(object: KubeObject, options: {readonly force?: boolean} = {}): Promise<KubeObject> {
    const {apiVersion, kind} = object
    const doing = doingOn('apply', kind, object.metadata.namespace, object.metadata.name)
    const body = structuredClone(object) as KubeObject
    const request = this.begin('apply', apiVersion, kind, object.metadata.namespace, object.metadata.name, {
      body,
      force: options.force ?? false,
    })
    const type = this.typeOf(apiVersion, kind)
    if (!type) {
      this.log(request, 404)
      throw notServed(apiVersion, kind, doing)
    }
    const namespace = type.namespaced ? (object.metadata.namespace ?? 'default') : undefined
    if (namespace !== undefined && !this.entries.has(this.key('', 'Namespace', undefined, namespace))) {
      this.log(request, 404)
      throw kubeApiError(404, {reason: 'NotFound', message: `namespaces "${namespace}" not found`}, doing)
    }
    const blocked = this.webhookBlocking(type.group)
    if (blocked) {
      this.log(request, 500)
      throw kubeApiError(
        500,
        {
          reason: 'InternalError',
          message:
            `Internal error occurred: failed calling webhook "${blocked.webhook}": failed to call webhook: ` +
            `no endpoints available for service "${blocked.service}"`,
        },
        doing,
      )
    }
    const key = this.key(type.group, kind, namespace, object.metadata.name)
    const existing = this.entries.get(key)
    const applied = appliedConfiguration(object)
    const previous = existing && {...this.body(existing), status: existing.status}
    const candidate = existing ? merge(withoutConflicts(existing.others, applied), applied) : applied
    this.refuseInvalid(request, type.group, kind, object.metadata.name, candidate, previous, doing)
    if (existing) {
      const clashes = conflicts(applied, existing.others)
      if (clashes.length > 0 && !options.force) {
        this.log(request, 409)
        throw kubeApiError(
          409,
          {
            reason: 'Conflict',
            message: `Apply failed with ${clashes.length} conflict${clashes.length === 1 ? '' : 's'}: conflict with "${existing.otherManager}": ${clashes.join(', ')}`,
          },
          doing,
        )
      }
      const before = this.body(existing)
      existing.others = withoutConflicts(existing.others, applied)
      existing.xpk = applied
      existing.apiVersion = apiVersion
      const after = this.body(existing)
      const specChanged = !deepEqual(withoutMetadata(before), withoutMetadata(after))
      if (specChanged) existing.generation++
      if (!deepEqual(before, after)) existing.resourceVersion = this.nextVersion++
      this.log(request, 200)
      this.afterWrite(existing, specChanged)
      if (!deepEqual(before, after)) this.emit('MODIFIED', existing)
      return this.render(existing, apiVersion)
    }
    const entry = this.newEntry(type.group, kind, apiVersion, namespace, object.metadata.name)
    entry.xpk = applied
    this.entries.set(key, entry)
    this.log(request, 201)
    this.afterWrite(entry, true)
    this.emit('ADDED', entry)
    return this.render(entry, apiVersion)
  }

  /** A POST: the object is made by xpk (an Update under its field manager); one of the name already there is a 409. */
  async create(object: KubeObject): Promise<KubeObject> {
    const {apiVersion, kind} = object
    const doing = doingOn('create', kind, object.metadata.namespace, object.metadata.name)
    const body = structuredClone(object) as KubeObject
    const request = this.begin('create', apiVersion, kind, object.metadata.namespace, object.metadata.name, {body})
    const type = this.typeOf(apiVersion, kind)
    if (!type) {
      this.log(request, 404)
      throw notServed(apiVersion, kind, doing)
    }
    const namespace = type.namespaced ? (object.metadata.namespace ?? 'default') : undefined
    const key = this.key(type.group, kind, namespace, object.metadata.name)
    if (this.entries.has(key)) {
      this.log(request, 409)
      const resource = `${kind.toLowerCase()}s${type.group ? `.${type.group}` : ''}`
      throw kubeApiError(
        409,
        {reason: 'AlreadyExists', message: `${resource} "${object.metadata.name}" already exists`},
        doing,
      )
    }
    if (namespace !== undefined && !this.entries.has(this.key('', 'Namespace', undefined, namespace))) {
      this.log(request, 404)
      throw kubeApiError(404, {reason: 'NotFound', message: `namespaces "${namespace}" not found`}, doing)
    }
    this.refuseInvalid(request, type.group, kind, object.metadata.name, appliedConfiguration(object), undefined, doing)
    const entry = this.newEntry(type.group, kind, apiVersion, namespace, object.metadata.name)
    entry.others = appliedConfiguration(object)
    entry.otherManager = FIELD_MANAGER
    this.entries.set(key, entry)
    this.log(request, 201)
    this.afterWrite(entry, true)
    this.emit('ADDED', entry)
    return this.render(entry, apiVersion)
  }

  async delete(ref: KubeRef, options: KubeDeleteOptions = {}): Promise<'deleted' | 'absent'> {
    const request = this.begin('delete', ref.apiVersion, ref.kind, ref.namespace, ref.name)
    const type = this.typeOf(ref.apiVersion, ref.kind)
    const key = type && this.key(type.group, ref.kind, type.namespaced ? ref.namespace : undefined, ref.name)
    const entry = key ? this.entries.get(key) : undefined
    if (!entry) {
      this.log(request, 404)
      return 'absent'
    }
    if (options.uid !== undefined && options.uid !== entry.uid) {
      this.log(request, 409)
      throw kubeApiError(
        409,
        {
          reason: 'Conflict',
          message: `Operation cannot be fulfilled on ${ref.kind.toLowerCase()}s "${ref.name}": Precondition failed: UID in precondition: ${options.uid}, UID in object meta: ${entry.uid}`,
        },
        doingOn('delete', ref.kind, ref.namespace, ref.name),
      )
    }
    this.log(request, 200)
    if (entry.goneAt === undefined) this.remove(entry)
    return 'deleted'
  }

  async watch(
    apiVersion: string,
    kind: string,
    options: KubeWatchOptions,
    onEvent: (event: KubeWatchEvent) => void,
  ): Promise<void> {
    const {signal, ...asked} = options
    const request = this.begin('watch', apiVersion, kind, options.namespace, undefined, {watch: asked})
    const type = this.typeOf(apiVersion, kind)
    if (!type) {
      this.log(request, 404)
      throw kubeApiError(
        404,
        {reason: 'NotFound', message: `the cluster does not serve ${kind} in ${apiVersion}`},
        doingOn('watch', kind),
      )
    }
    const labels = parseLabelSelector(options.labelSelector)
    const fields = parseFieldSelector(options.fieldSelector, kind)
    if (typeof fields === 'string') {
      this.log(request, 400)
      throw kubeApiError(400, {reason: 'BadRequest', message: fields}, doingOn('watch', kind))
    }
    const from = options.resourceVersion === undefined ? undefined : Number(options.resourceVersion)
    if (from !== undefined && (!Number.isInteger(from) || from < this.forgottenUpTo)) {
      this.log(request, 410)
      throw kubeApiError(
        410,
        {reason: 'Expired', message: `too old resource version: ${options.resourceVersion}`},
        doingOn('watch', kind),
      )
    }
    this.log(request, 200)
    if (signal.aborted) return
    const namespace = type.namespaced ? options.namespace : undefined
    const start =
      from === undefined
        ? [...this.entries.values()]
            .filter((e) => e.group === type.group && e.kind === kind && e.goneAt === undefined)
            .filter((e) => namespace === undefined || e.namespace === namespace)
            .map((e) => ({type: 'ADDED' as const, object: this.render(e, apiVersion)}))
            .filter(
              (event) => labels((event.object.metadata.labels ?? {}) as Record<string, string>) && fields(event.object),
            )
            .sort((a, b) => sortKey(a.object).localeCompare(sortKey(b.object)))
        : []
    return new Promise<void>((resolve, reject) => {
      const watcher: Watcher = {
        group: type.group,
        kind,
        apiVersion,
        namespace,
        matches: (o) => labels((o.metadata.labels ?? {}) as Record<string, string>) && fields(o),
        onEvent,
        end: (error) => {
          this.watchers.delete(watcher)
          signal.removeEventListener('abort', stop)
          if (error === undefined) resolve()
          else reject(error)
        },
      }
      const stop = () => watcher.end()
      signal.addEventListener('abort', stop, {once: true})
      this.watchers.add(watcher)
      for (const event of start) this.deliver(watcher, () => event)
      if (from !== undefined) {
        for (const record of this.watchLog.filter((r) => r.version > from)) this.send(watcher, record)
      }
    })
  }

  async logs(
    namespace: string,
    pod: string,
    options: KubeLogOptions,
    onChunk: (text: string) => void,
  ): Promise<'ended' | 'absent'> {
    const {signal, ...asked} = options
    const request = this.begin('logs', 'v1', 'Pod', namespace, pod, {logs: asked})
    if (!this.entries.get(this.key('', 'Pod', namespace, pod))) {
      this.log(request, 404)
      return 'absent'
    }
    const since = options.sinceTime === undefined ? undefined : logTimeNanos(options.sinceTime)
    if (options.sinceTime !== undefined && since === undefined) {
      this.log(request, 400)
      throw kubeApiError(
        400,
        {
          reason: 'BadRequest',
          message: `parsing time "${options.sinceTime}" as "2006-01-02T15:04:05Z07:00": cannot parse`,
        },
        doingOn('logs', 'Pod', namespace, pod),
      )
    }
    this.log(request, 200)
    const log = this.podLog(`${namespace}/${pod}/${options.container ?? ''}`)
    if (signal.aborted) return 'ended'
    // The log so far as one piece: its last tailLines lines, those not before sinceTime's second.
    let lines = log.lines
    if (options.tailLines !== undefined) lines = options.tailLines === 0 ? [] : lines.slice(-options.tailLines)
    if (since !== undefined) {
      const second = since - (since % 1_000_000_000n)
      lines = lines.filter((line) => logTimeNanos(line.time)! >= second)
    }
    const stamp = options.timestamps === true
    const text = lines.map((line) => (stamp ? `${line.time} ${line.text}` : line.text)).join('')
    if (text) onChunk(text)
    if (!options.follow || log.ended) return 'ended'
    return new Promise((resolve) => {
      const follower = (piece: LogPiece | null) => {
        if (piece !== null) return onChunk(stamp && piece.lineStart ? `${piece.time} ${piece.text}` : piece.text)
        stop()
      }
      const stop = () => {
        log.followers.delete(follower)
        signal.removeEventListener('abort', stop)
        resolve('ended')
      }
      log.followers.add(follower)
      signal.addEventListener('abort', stop, {once: true})
    })
  }

  async pendingWorkloads(clusterQueue: string): Promise<KubeObject | 'not-served'> {
    let request: KubeRequest
    try {
      request = this.begin('get', VISIBILITY_API_VERSION, 'PendingWorkloadsSummary', undefined, clusterQueue)
    } catch (error) {
      // As the adapter: the aggregated API's server down (503) is Kueue's answer not to be had, not a failure.
      if (error instanceof ApiError && error.status === 'UNAVAILABLE') return 'not-served'
      throw error
    }
    const summary =
      this.options.visibility && this.typeOf('kueue.x-k8s.io/v1beta2', 'ClusterQueue')
        ? pendingWorkloadsSummary(this.all('Workload'), this.all('LocalQueue'), this.all('ClusterQueue'), clusterQueue)
        : undefined
    this.log(request, summary ? 200 : 404)
    return summary ?? 'not-served'
  }

  // ---- for tests ----

  /** Appends to a container's log (`container` omitted: the log read without naming one); followers get it at once. */
  appendPodLog(namespace: string, pod: string, text: string, container?: string): void {
    if (!text) return
    const log = this.podLog(`${namespace}/${pod}/${container ?? ''}`)
    const time = this.logTime ?? goTime(this.epoch, ++this.logTicks * 1_000_000)
    const pieces: LogPiece[] = []
    for (const part of text.split(/(?<=\n)/)) {
      const last = log.lines.at(-1)
      if (last && !last.text.endsWith('\n')) {
        last.text += part
        pieces.push({time: last.time, text: part, lineStart: false})
      } else {
        log.lines.push({time, text: part})
        pieces.push({time, text: part, lineStart: true})
      }
    }
    for (const follower of [...log.followers]) for (const piece of pieces) follower(piece)
  }

  /**
   * The time the lines written from now on have (RFC 3339, as the kubelet prints it), so several lines can share one;
   * undefined goes back to one millisecond apart.
   */
  setLogTime(time: string | undefined): void {
    this.logTime = time
  }

  /**
   * Ends the followed streams of a container's log while the container goes on (a connection reset, an idle
   * limit, the kubelet's streaming timeout): the log is not ended, so a stream opened again follows it.
   */
  cutPodLogs(namespace: string, pod: string, container?: string): void {
    const log = this.podLogs.get(`${namespace}/${pod}/${container ?? ''}`)
    for (const follower of [...(log?.followers ?? [])]) follower(null)
  }

  /** Ends a container's log, as when it exits: followers' streams end. */
  endPodLog(namespace: string, pod: string, container?: string): void {
    const log = this.podLogs.get(`${namespace}/${pod}/${container ?? ''}`)
    if (!log) return
    log.ended = true
    for (const follower of [...log.followers]) follower(null)
  }

  /**
   * A pod's container exits, as the kubelet reports it: followers of its log end, and the pod's status says the
   * container terminated with `exitCode` (phase Succeeded for 0, else Failed: restartPolicy Never), a MODIFIED
   * event. `container` omitted: the log read without naming one, and the pod's first container.
   */
  exitPodContainer(namespace: string, pod: string, exitCode = 0, container?: string): void {
    const ref = {apiVersion: 'v1', kind: 'Pod', namespace, name: pod}
    const stored = this.peek(ref)
    if (!stored) throw new Error(`no pod ${namespace}/${pod} whose container to end`)
    this.endPodLog(namespace, pod, container)
    const containers = ((stored.spec as Json | undefined)?.containers ?? []) as {name?: string}[]
    const name = container ?? containers[0]?.name ?? ''
    const status = structuredClone((stored.status ?? {}) as Json)
    const statuses = Array.isArray(status.containerStatuses) ? (status.containerStatuses as Json[]) : []
    const old = statuses.find((c) => c.name === name) ?? {name, restartCount: 0}
    const now = new Date(this.epoch + this.ticks * 1000).toISOString().replace('.000', '')
    const reason = exitCode === 0 ? 'Completed' : 'Error'
    const exited: Json = {...old, ready: false, state: {terminated: {exitCode, reason, finishedAt: now}}}
    this.setStatus(ref, {
      ...status,
      phase: exitCode === 0 ? 'Succeeded' : 'Failed',
      containerStatuses: [...statuses.filter((c) => c.name !== name), exited],
    })
  }

  /**
   * Restarts a pod's container, as the kubelet does after it exits (restartPolicy OnFailure/Always): followers of
   * the old container's log end, the log read from then on is the new container's (empty until it writes), and the
   * pod's status says so: the container's restartCount goes up by one, it is running, its last state terminated
   * (a MODIFIED event). `container` omitted: the log read without naming one, and the pod's first container.
   */
  restartPodContainer(namespace: string, pod: string, container?: string): void {
    const ref = {apiVersion: 'v1', kind: 'Pod', namespace, name: pod}
    const stored = this.peek(ref)
    if (!stored) throw new Error(`no pod ${namespace}/${pod} to restart a container of`)
    this.endPodLog(namespace, pod, container)
    this.podLogs.set(`${namespace}/${pod}/${container ?? ''}`, {lines: [], ended: false, followers: new Set()})
    const containers = ((stored.spec as Json | undefined)?.containers ?? []) as {name?: string}[]
    const name = container ?? containers[0]?.name ?? ''
    const status = structuredClone((stored.status ?? {}) as Json)
    const statuses = Array.isArray(status.containerStatuses) ? (status.containerStatuses as Json[]) : []
    const old = statuses.find((c) => c.name === name) ?? {name, restartCount: 0, state: {running: {}}}
    const now = new Date(this.epoch + this.ticks * 1000).toISOString().replace('.000', '')
    const restarted: Json = {
      ...old,
      restartCount: Number(old.restartCount ?? 0) + 1,
      state: {running: {startedAt: now}},
      lastState: {terminated: {exitCode: 1, reason: 'Error', finishedAt: now}},
    }
    this.setStatus(ref, {
      ...status,
      phase: 'Running',
      containerStatuses: [...statuses.filter((c) => c.name !== name), restarted],
    })
  }

  /** Sends every open watch a BOOKMARK with the newest resourceVersion, as the API server does about once a minute. */
  bookmarkWatches(): void {
    const resourceVersion = String(this.nextVersion - 1)
    for (const watcher of [...this.watchers]) this.deliver(watcher, () => ({type: 'BOOKMARK', resourceVersion}))
  }

  /** Closes every open watch cleanly, as the API server does now and then: the clients resume from where they were. */
  endWatches(): void {
    for (const watcher of [...this.watchers]) this.deliver(watcher, () => 'end')
  }

  /** Ends every open watch with an error event of this HTTP status (410: their resourceVersion expired). */
  failWatches(status = 410, message = 'too old resource version'): void {
    for (const watcher of [...this.watchers]) {
      const error = kubeApiError(
        status,
        {reason: status === 410 ? 'Expired' : undefined, message},
        doingOn('watch', watcher.kind),
      )
      this.deliver(watcher, () => error)
    }
  }

  /** Drops every retained event, as etcd compaction does: a watch resuming from an older resourceVersion gets 410. */
  forgetHistory(): void {
    this.forgottenUpTo = this.nextVersion - 1
    this.watchLog.length = 0
  }

  /** Watches open now. */
  openWatches(): number {
    return this.watchers.size
  }

  /** Puts an object in place without a request, as applied by `manager` (xpk, or another tool). */
  seed(object: KubeObject | Json, options: SeedOptions = {}): void {
    const o = object as KubeObject
    const manager = options.manager ?? 'kubectl'
    const {group} = splitApiVersion(o.apiVersion)
    const type = this.typeOf(o.apiVersion, o.kind) ?? {group, namespaced: o.metadata.namespace !== undefined}
    const namespace = type.namespaced ? (o.metadata.namespace ?? 'default') : undefined
    const key = this.key(type.group, o.kind, namespace, o.metadata.name)
    const entry = this.entries.get(key) ?? this.newEntry(type.group, o.kind, o.apiVersion, namespace, o.metadata.name)
    const applied = appliedConfiguration(o)
    if (manager === FIELD_MANAGER) entry.xpk = applied
    else {
      entry.others = merge(entry.others, applied)
      entry.otherManager = manager
    }
    if (options.status !== undefined) entry.status = structuredClone(options.status)
    if (options.available) entry.status = availableStatus(entry.generation, replicasOf(this.body(entry)))
    const existed = this.entries.has(key)
    // A re-seed is a write like any other: a new resourceVersion, so watches can tell it from the previous state.
    if (existed) entry.resourceVersion = this.nextVersion++
    this.entries.set(key, entry)
    this.emit(existed ? 'MODIFIED' : 'ADDED', entry)
  }

  /** The object as stored (no request is logged), or undefined. */
  peek(ref: KubeRef): KubeObject | undefined {
    const type = this.typeOf(ref.apiVersion, ref.kind)
    const entry =
      type && this.entries.get(this.key(type.group, ref.kind, type.namespaced ? ref.namespace : undefined, ref.name))
    return entry ? this.render(entry, ref.apiVersion) : undefined
  }

  /** Every stored object of a kind (any group, any version), sorted; no request is logged. */
  all(kind: string): KubeObject[] {
    return [...this.entries.values()]
      .filter((e) => e.kind === kind)
      .map((e) => this.render(e, e.apiVersion))
      .sort((a, b) => sortKey(a).localeCompare(sortKey(b)))
  }

  /** The next `times` requests matching `match` fail with `status` (503 by default: retryable). */
  failNext(
    times: number,
    match: FaultMatch = {},
    status = 503,
    message = 'the server is currently unable to handle the request',
  ): this {
    this.faults.push({...match, status, message, left: times})
    return this
  }

  /** Rolls the Deployment out: its pods are ready and it reports Available for its current generation. */
  setAvailable(namespace: string, name: string): void {
    const entry = this.entries.get(this.key('apps', 'Deployment', namespace, name))
    if (!entry) throw new Error(`no Deployment ${namespace}/${name} to make Available`)
    entry.status = availableStatus(entry.generation, replicasOf(this.body(entry)))
    entry.resourceVersion = this.nextVersion++
    this.emit('MODIFIED', entry)
  }

  /** Replaces the status of an object (a controller or kubelet writing it). */
  setStatus(ref: KubeRef, status: Json): void {
    const type = this.typeOf(ref.apiVersion, ref.kind)
    const entry =
      type && this.entries.get(this.key(type.group, ref.kind, type.namespaced ? ref.namespace : undefined, ref.name))
    if (!entry) throw new Error(`no ${ref.kind} ${ref.name} to set the status of`)
    entry.status = structuredClone(status)
    entry.resourceVersion = this.nextVersion++
    this.emit('MODIFIED', entry)
  }

  /** Adds Ready nodes `names` with `labels`; DaemonSets that match schedule pods on them. */
  addNodes(names: readonly string[], labels: Readonly<Record<string, string>> = {}): void {
    for (const name of names) {
      this.seed(
        {apiVersion: 'v1', kind: 'Node', metadata: {name, labels: {'kubernetes.io/hostname': name, ...labels}}},
        {manager: 'kubelet', status: {conditions: [{type: 'Ready', status: 'True', reason: 'KubeletReady'}]}},
      )
    }
    for (const ds of [...this.entries.values()].filter((e) => e.group === 'apps' && e.kind === 'DaemonSet')) {
      this.scheduleDaemonSet(ds, false)
    }
  }

  /** Pods of DaemonSets on `node` fail to pull their image with this reason and message. */
  failPullOn(node: string, failure: PullFailure = {reason: 'ErrImagePull', message: 'manifest unknown'}): void {
    this.pullFailures.set(node, failure)
  }

  /** Requests that asked for a change. */
  mutatingRequests(): KubeRequest[] {
    return this.requests.filter((r) => r.mutating)
  }

  /** Read requests (get and list) per kind. */
  readsByKind(): Map<string, number> {
    const counts = new Map<string, number>()
    for (const r of this.requests.filter((q) => !q.mutating)) counts.set(r.kind, (counts.get(r.kind) ?? 0) + 1)
    return counts
  }

  /** Forgets the requests logged so far. */
  clearLog(): void {
    this.requests.length = 0
  }

  // ---- internals ----

  /** Records a write for watches (open ones get it on a later microtask) and keeps the retained history bounded. */
  private emit(type: WatchRecord['type'], entry: Entry): void {
    const key = this.key(entry.group, entry.kind, entry.namespace, entry.name)
    const object = this.render(entry, entry.apiVersion)
    const record: WatchRecord = {
      version: entry.resourceVersion,
      group: entry.group,
      kind: entry.kind,
      type,
      object,
      previous: this.lastEvent.get(key),
    }
    if (type === 'DELETED') this.lastEvent.delete(key)
    else this.lastEvent.set(key, object)
    this.watchLog.push(record)
    if (this.watchLog.length > this.options.watchHistory) {
      const dropped = this.watchLog.splice(0, this.watchLog.length - this.options.watchHistory)
      this.forgottenUpTo = Math.max(this.forgottenUpTo, dropped.at(-1)!.version)
    }
    for (const watcher of this.watchers) this.send(watcher, record)
  }

  /** Sends a write to a watch that follows its kind, as ADDED/DELETED when it moves into or out of the selectors. */
  private send(watcher: Watcher, record: WatchRecord): void {
    if (record.group !== watcher.group || record.kind !== watcher.kind) return
    if (watcher.namespace !== undefined && record.object.metadata.namespace !== watcher.namespace) return
    const now = watcher.matches(record.object)
    const before = record.previous !== undefined && watcher.matches(record.previous)
    const type =
      record.type === 'ADDED'
        ? now
          ? 'ADDED'
          : undefined
        : record.type === 'DELETED'
          ? now || before
            ? 'DELETED'
            : undefined
          : now && before
            ? 'MODIFIED'
            : now
              ? 'ADDED'
              : before
                ? 'DELETED'
                : undefined
    if (type === undefined) return
    const object = {...structuredClone(record.object), apiVersion: watcher.apiVersion}
    this.deliver(watcher, () => ({type, object}))
  }

  /**
   * Hands a watch its next event, or ends it ('end', or an error), on a later microtask: in order, and never inside
   * the write that caused it (a real client reads the stream after the server has answered).
   */
  private deliver(watcher: Watcher, next: () => KubeWatchEvent | 'end' | Error): void {
    queueMicrotask(() => {
      if (!this.watchers.has(watcher)) return
      const item = next()
      if (item === 'end') watcher.end()
      else if (item instanceof Error) watcher.end(item)
      else {
        try {
          watcher.onEvent(item)
        } catch (error) {
          watcher.end(error)
        }
      }
    })
  }

  /** A container's log by `namespace/pod/container`; one that has written nothing yet is empty (followers wait). */
  private podLog(key: string): PodLog {
    let log = this.podLogs.get(key)
    if (!log) this.podLogs.set(key, (log = {lines: [], ended: false, followers: new Set()}))
    return log
  }

  private begin(
    verb: KubeVerb,
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string | undefined,
    extra: {
      body?: KubeObject
      force?: boolean
      list?: KubeListOptions
      watch?: Omit<KubeWatchOptions, 'signal'>
      logs?: Omit<KubeLogOptions, 'signal'>
    } = {},
  ): KubeRequest {
    this.ticks++
    this.purgeTerminated()
    const request: KubeRequest = {
      verb,
      apiVersion,
      kind,
      ...(namespace === undefined ? {} : {namespace}),
      ...(name === undefined ? {} : {name}),
      mutating: verb === 'create' || verb === 'apply' || verb === 'delete',
      status: 0,
      ...extra,
    }
    const fault = this.faults.find(
      (f) =>
        f.left > 0 &&
        (f.verb === undefined || f.verb === verb) &&
        (f.kind === undefined || f.kind === kind) &&
        (f.name === undefined || f.name === name),
    )
    if (fault) {
      fault.left--
      this.log(request, fault.status)
      throw kubeApiError(fault.status, {message: fault.message}, doingOn(verb, kind, namespace, name))
    }
    return request
  }

  /** The built-in storage kinds' rules (kube-storage-kinds.ts), refused as the adapter reports the API server's answer. */
  private refuseInvalid(
    request: KubeRequest,
    group: string,
    kind: string,
    name: string,
    candidate: Json,
    previous: Json | undefined,
    doing: string,
  ): void {
    const refusal = storageKindRefusal(group, kind, candidate, previous)
    if (!refusal) return
    if ('decode' in refusal) {
      this.log(request, 400)
      throw kubeApiError(400, {reason: 'BadRequest', message: refusal.decode}, doing)
    }
    const error = invalid(kind, group, name, refusal.problems)
    this.log(request, 422)
    throw kubeApiError(422, {reason: error.reason, message: error.message, details: error.details}, doing)
  }

  private log(request: KubeRequest, status: number): void {
    this.requests.push({...request, status})
  }

  private typeOf(apiVersion: string, kind: string): TypeInfo | undefined {
    const {group, version} = splitApiVersion(apiVersion)
    const builtIn = BUILT_IN[`${group}/${kind}`]
    if (builtIn) return builtIn.versions.includes(version) ? {group, namespaced: builtIn.namespaced} : undefined
    for (const crd of this.entries.values()) {
      if (crd.kind !== 'CustomResourceDefinition' || crd.group !== 'apiextensions.k8s.io') continue
      const spec = (this.body(crd).spec ?? {}) as {
        group?: string
        scope?: string
        names?: {kind?: string}
        versions?: {name: string; served?: boolean}[]
      }
      if (spec.group !== group || spec.names?.kind !== kind) continue
      if (!(spec.versions ?? []).some((v) => v.name === version && v.served)) return undefined
      return {group, namespaced: spec.scope !== 'Cluster'}
    }
    return undefined
  }

  private key(group: string, kind: string, namespace: string | undefined, name: string): string {
    return `${group}/${kind}/${namespace ?? ''}/${name}`
  }

  private newEntry(
    group: string,
    kind: string,
    apiVersion: string,
    namespace: string | undefined,
    name: string,
  ): Entry {
    return {
      group,
      kind,
      namespace,
      name,
      apiVersion,
      uid: `00000000-0000-4000-8000-${String(this.nextUid++).padStart(12, '0')}`,
      creationTimestamp: new Date(this.epoch + this.ticks * 1000).toISOString().replace('.000', ''),
      resourceVersion: this.nextVersion++,
      generation: 1,
      xpk: undefined,
      others: {},
      otherManager: undefined,
      status: undefined,
      goneAt: undefined,
    }
  }

  /** The object's fields as its managers set them: others' merged with xpk's. */
  private body(entry: Entry): Json {
    return entry.xpk === undefined ? structuredClone(entry.others) : merge(entry.others, entry.xpk)
  }

  private render(entry: Entry, apiVersion: string): KubeObject {
    const body = this.body(entry)
    const managers = [
      ...(entry.otherManager === undefined ? [] : [{manager: entry.otherManager, operation: 'Update'}]),
      ...(entry.xpk === undefined ? [] : [{manager: FIELD_MANAGER, operation: 'Apply'}]),
    ]
    const metadata: Json = {
      ...((body.metadata ?? {}) as Json),
      name: entry.name,
      ...(entry.namespace === undefined ? {} : {namespace: entry.namespace}),
      uid: entry.uid,
      resourceVersion: String(entry.resourceVersion),
      generation: entry.generation,
      creationTimestamp: entry.creationTimestamp,
      ...(entry.goneAt === undefined
        ? {}
        : {deletionTimestamp: new Date(this.epoch + this.ticks * 1000).toISOString()}),
      managedFields: managers,
    }
    const {metadata: _, ...rest} = body
    return {
      apiVersion,
      kind: entry.kind,
      metadata: metadata as KubeObject['metadata'],
      ...rest,
      ...(entry.status === undefined ? {} : {status: structuredClone(entry.status)}),
    } as KubeObject
  }

  private remove(entry: Entry): void {
    const linger = this.options.lingering[entry.kind] ?? 0
    if (entry.kind === 'CustomResourceDefinition' && entry.group === 'apiextensions.k8s.io') {
      const spec = (this.body(entry).spec ?? {}) as {group?: string; names?: {kind?: string}}
      for (const o of [...this.entries.values()]) {
        if (o.group === spec.group && o.kind === spec.names?.kind) this.drop(o)
      }
    }
    if (entry.kind === 'Namespace' && entry.group === '') {
      for (const o of [...this.entries.values()]) if (o.namespace === entry.name) this.drop(o)
    }
    // The garbage collector, in the background: dependents go too (and theirs, in turn), each lingering as its kind
    // does, so a test can watch a JobSet's Jobs and pods outlive it for a while.
    for (const o of [...this.entries.values()]) {
      if (o.goneAt !== undefined || o === entry) continue
      const owners = ((this.body(o).metadata as Json | undefined)?.ownerReferences ?? []) as {uid?: string}[]
      if (owners.some((r) => r.uid === entry.uid)) this.remove(o)
    }
    if (linger > 0) {
      entry.goneAt = this.ticks + linger
      entry.resourceVersion = this.nextVersion++
      this.emit('MODIFIED', entry)
    } else this.drop(entry)
  }

  private drop(entry: Entry): void {
    const key = this.key(entry.group, entry.kind, entry.namespace, entry.name)
    if (!this.entries.delete(key)) return
    // A deleted pod's containers are gone: their followed logs end, and a pod made again with its name starts afresh.
    if (entry.group === '' && entry.kind === 'Pod') {
      const prefix = `${entry.namespace}/${entry.name}/`
      for (const [logKey, log] of [...this.podLogs]) {
        if (!logKey.startsWith(prefix)) continue
        this.podLogs.delete(logKey)
        for (const follower of [...log.followers]) follower(null)
      }
    }
    entry.resourceVersion = this.nextVersion++
    this.emit('DELETED', entry)
  }

  private purgeTerminated(): void {
    for (const entry of [...this.entries.values()]) {
      if (entry.goneAt !== undefined && this.ticks > entry.goneAt) this.drop(entry)
    }
  }

  /** A webhook that intercepts `group` and whose service has no Available Deployment in its namespace. */
  private webhookBlocking(group: string): {webhook: string; service: string} | undefined {
    for (const config of this.entries.values()) {
      if (config.group !== 'admissionregistration.k8s.io' || !config.kind.endsWith('WebhookConfiguration')) continue
      if (config.goneAt !== undefined) continue
      const webhooks = (this.body(config).webhooks ?? []) as {
        name?: string
        clientConfig?: {service?: {namespace?: string; name?: string}}
        rules?: {apiGroups?: string[]}[]
      }[]
      for (const hook of webhooks) {
        const service = hook.clientConfig?.service
        if (!service?.namespace) continue
        const intercepts = (hook.rules ?? []).some((r) => (r.apiGroups ?? []).some((g) => g === group || g === '*'))
        if (!intercepts) continue
        const serving = [...this.entries.values()].some(
          (e) =>
            e.group === 'apps' &&
            e.kind === 'Deployment' &&
            e.namespace === service.namespace &&
            conditionTrue(e.status, 'Available'),
        )
        if (!serving) return {webhook: hook.name ?? config.name, service: `${service.namespace}/${service.name}`}
      }
    }
    return undefined
  }

  private afterWrite(entry: Entry, specChanged: boolean): void {
    if (entry.group !== 'apps' || !specChanged) return
    if (entry.kind === 'Deployment') this.rollDeployment(entry)
    if (entry.kind === 'DaemonSet') this.scheduleDaemonSet(entry, true)
  }

  private rollDeployment(entry: Entry): void {
    const replicas = replicasOf(this.body(entry))
    if (this.options.autoAvailable) entry.status = availableStatus(entry.generation, replicas)
    else if (conditionTrue(entry.status, 'Available')) entry.status = rollingStatus(entry.generation, replicas)
    else entry.status = unavailableStatus(entry.generation, replicas)
  }

  /** Creates the DaemonSet's missing pods (all of them, replacing the old ones, when its template changed). */
  private scheduleDaemonSet(ds: Entry, templateChanged: boolean): void {
    const body = this.body(ds)
    const template = ((body.spec as Json | undefined)?.template ?? {}) as {metadata?: {labels?: Json}; spec?: Json}
    const pods = () => this.podsOf(ds)
    if (templateChanged) for (const pod of pods()) this.drop(pod)
    const nodes = [...this.entries.values()]
      .filter((e) => e.group === '' && e.kind === 'Node' && nodeMatches(this.body(e), template.spec ?? {}))
      .map((e) => e.name)
      .sort()
    const covered = new Set(pods().map((p) => (this.body(p).spec as {nodeName: string}).nodeName))
    for (const node of nodes.filter((n) => !covered.has(n))) {
      const name = `${ds.name}-${podSuffix(node, ds.generation)}`
      const containers = ((template.spec?.containers ?? []) as {name: string; image: string}[]).map((c) => ({
        name: c.name,
        image: c.image,
        ready: false,
        started: false,
        restartCount: 0,
        state: {waiting: {reason: 'ContainerCreating'}},
      }))
      this.seed(
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name,
            namespace: ds.namespace,
            labels: {...(template.metadata?.labels ?? {}), 'pod-template-generation': String(ds.generation)},
            ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.name, uid: ds.uid, controller: true}],
          },
          spec: {...structuredClone(template.spec ?? {}), nodeName: node},
        },
        {manager: 'kube-controller-manager', status: {phase: 'Pending', containerStatuses: containers}},
      )
    }
    this.updateDaemonSetStatus(ds, nodes.length)
  }

  private podsOf(ds: Entry): Entry[] {
    return [...this.entries.values()]
      .filter((e) => e.group === '' && e.kind === 'Pod' && e.namespace === ds.namespace)
      .filter((e) =>
        (((this.body(e).metadata as Json).ownerReferences ?? []) as {uid: string}[]).some((r) => r.uid === ds.uid),
      )
      .sort((a, b) => a.name.localeCompare(b.name))
  }

  /** One read's worth of kubelet progress on the DaemonSet's pods. */
  private advanceDaemonSet(ds: Entry): void {
    let budget = this.options.daemonSetPullsPerRead
    for (const pod of this.podsOf(ds)) {
      const node = (this.body(pod).spec as {nodeName: string}).nodeName
      const status = pod.status as {containerStatuses: Json[]}
      const waiting = (status.containerStatuses[0]?.state as {waiting?: {reason: string}} | undefined)?.waiting
      if (!waiting) continue
      const failure = this.pullFailures.get(node)
      if (failure) {
        const image = String(status.containerStatuses[0]?.image)
        // The kubelet backs off after ErrImagePull; other reasons (InvalidImageName, ...) stay as they are.
        if (waiting.reason !== 'ContainerCreating' && waiting.reason !== 'ErrImagePull') continue
        const backOff = waiting.reason === 'ErrImagePull'
        const state = backOff
          ? {reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"`}
          : {reason: failure.reason, message: failure.message}
        pod.status = {
          phase: 'Pending',
          containerStatuses: status.containerStatuses.map((c) => ({...c, state: {waiting: state}})),
        }
        if (!backOff) this.recordEvent(pod, 'Failed', `Failed to pull image "${image}": ${failure.message}`)
        continue
      }
      // Other waiting states (CrashLoopBackOff, ...) are a test's doing, through setStatus: leave them be.
      if (waiting.reason !== 'ContainerCreating' || budget <= 0) continue
      budget--
      pod.status = {
        phase: 'Running',
        conditions: [{type: 'Ready', status: 'True'}],
        containerStatuses: status.containerStatuses.map((c) => ({
          ...c,
          ready: true,
          started: true,
          state: {running: {startedAt: new Date(this.epoch + this.ticks * 1000).toISOString()}},
        })),
      }
    }
    this.updateDaemonSetStatus(ds, (ds.status?.desiredNumberScheduled as number | undefined) ?? 0)
  }

  private updateDaemonSetStatus(ds: Entry, desired: number): void {
    const pods = this.podsOf(ds)
    const ready = pods.filter((p) => {
      const statuses = (p.status as {containerStatuses?: {ready?: boolean}[]} | undefined)?.containerStatuses ?? []
      return statuses.length > 0 && statuses.every((c) => c.ready)
    }).length
    const updated = pods.filter(
      (p) => ((this.body(p).metadata as Json).labels as Json)['pod-template-generation'] === String(ds.generation),
    ).length
    const status = {
      currentNumberScheduled: pods.length,
      desiredNumberScheduled: desired,
      numberMisscheduled: 0,
      numberReady: ready,
      numberAvailable: ready,
      ...(desired - ready > 0 ? {numberUnavailable: desired - ready} : {}),
      observedGeneration: ds.generation,
      updatedNumberScheduled: updated,
    }
    if (!deepEqual(status, ds.status)) {
      ds.status = status
      ds.resourceVersion = this.nextVersion++
    }
  }

  private recordEvent(pod: Entry, reason: string, text: string): void {
    this.seed(
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: {name: `${pod.name}.${String(this.ticks).padStart(6, '0')}`, namespace: pod.namespace},
        involvedObject: {apiVersion: 'v1', kind: 'Pod', name: pod.name, namespace: pod.namespace, uid: pod.uid},
        reason,
        message: text,
        type: 'Warning',
        lastTimestamp: new Date(this.epoch + this.ticks * 1000).toISOString().replace('.000', ''),
        source: {component: 'kubelet', host: (this.body(pod).spec as {nodeName: string}).nodeName},
      },
      {manager: 'kubelet'},
    )
  }
}

// ---- server-side apply, reduced to two parties ----

/** What an apply sets: the object without apiVersion, kind, status and system metadata. */
function appliedConfiguration(object: KubeObject | Json): Json {
  const {apiVersion: _v, kind: _k, status: _s, ...rest} = structuredClone(object) as Json
  const metadata = {...((rest.metadata ?? {}) as Json)}
  for (const field of SYSTEM_METADATA) delete metadata[field]
  return {...rest, metadata}
}

function isMap(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Lists whose items are maps that all have a `name` merge by it (containers, env, volumes). */
function isNamedList(value: unknown): value is Json[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => isMap(item) && typeof item.name === 'string')
}

/** `over` merged onto `base`: maps and named lists merge, everything else is replaced. */
function merge(base: Json, over: Json): Json {
  const out: Json = structuredClone(base)
  for (const [key, value] of Object.entries(over)) {
    const current = out[key]
    if (isMap(current) && isMap(value)) out[key] = merge(current, value)
    else if (isNamedList(current) && isNamedList(value)) out[key] = mergeNamed(current, value)
    else out[key] = structuredClone(value)
  }
  return out
}

function mergeNamed(base: Json[], over: Json[]): Json[] {
  const out = base.map((item) => {
    const mine = over.find((o) => o.name === item.name)
    return mine ? merge(item, mine) : structuredClone(item)
  })
  for (const item of over) if (!base.some((b) => b.name === item.name)) out.push(structuredClone(item))
  return out
}

/** Paths of fields `applied` sets to another value than `others` holds. */
function conflicts(applied: Json, others: Json, path = ''): string[] {
  const out: string[] = []
  for (const [key, value] of Object.entries(applied)) {
    if (!(key in others)) continue
    const theirs = others[key]
    const here = `${path}.${key}`
    if (isMap(value) && isMap(theirs)) out.push(...conflicts(value, theirs, here))
    else if (isNamedList(value) && isNamedList(theirs)) {
      for (const item of value) {
        const match = theirs.find((t) => t.name === item.name)
        if (match) out.push(...conflicts(item, match, `${here}[name=${String(item.name)}]`))
      }
    } else if (!deepEqual(value, theirs)) out.push(here)
  }
  return out
}

/** `others` without the fields a forced apply of `applied` takes over (those with another value). */
function withoutConflicts(others: Json, applied: Json): Json {
  const out: Json = {}
  for (const [key, theirs] of Object.entries(others)) {
    if (!(key in applied)) {
      out[key] = theirs
      continue
    }
    const value = applied[key]
    if (isMap(value) && isMap(theirs)) out[key] = withoutConflicts(theirs, value)
    else if (isNamedList(value) && isNamedList(theirs)) {
      out[key] = theirs.map((t) => {
        const mine = value.find((v) => v.name === t.name)
        return mine ? {...withoutConflicts(t, mine), name: t.name} : t
      })
    } else if (deepEqual(value, theirs)) out[key] = theirs
  }
  return out
}

function withoutMetadata(body: Json): Json {
  const {metadata: _, ...rest} = body
  return rest
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  if (isMap(a) && isMap(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && deepEqual(a[k], b[k]))
  }
  return false
}

// ---- controllers ----

function replicasOf(body: Json): number {
  const replicas = (body.spec as {replicas?: unknown} | undefined)?.replicas
  return typeof replicas === 'number' ? replicas : 1
}

function conditionTrue(status: Json | undefined, type: string): boolean {
  const conditions = (status?.conditions ?? []) as {type: string; status: string}[]
  return conditions.some((c) => c.type === type && c.status === 'True')
}

function availableStatus(generation: number, replicas: number): Json {
  return {
    observedGeneration: generation,
    replicas,
    updatedReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      },
      {
        type: 'Progressing',
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        message: 'ReplicaSet has successfully progressed.',
      },
    ],
  }
}

/** A rollout in progress: the old pods still serve, the new ReplicaSet's one pod is not ready yet. */
function rollingStatus(generation: number, replicas: number): Json {
  return {
    observedGeneration: generation,
    replicas: replicas + 1,
    updatedReplicas: 1,
    readyReplicas: replicas,
    availableReplicas: replicas,
    unavailableReplicas: 1,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      },
      {type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: 'ReplicaSet is progressing.'},
    ],
  }
}

function unavailableStatus(generation: number, replicas: number): Json {
  return {
    observedGeneration: generation,
    replicas,
    updatedReplicas: replicas,
    unavailableReplicas: replicas,
    conditions: [
      {
        type: 'Available',
        status: 'False',
        reason: 'MinimumReplicasUnavailable',
        message: 'Deployment does not have minimum availability.',
      },
      {type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: 'ReplicaSet is progressing.'},
    ],
  }
}

/** Whether a pod spec's node selector and required node affinity admit the node. */
function nodeMatches(node: Json, podSpec: Json): boolean {
  const labels = (((node.metadata ?? {}) as Json).labels ?? {}) as Record<string, string>
  const selector = (podSpec.nodeSelector ?? {}) as Record<string, string>
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false
  const terms = ((podSpec.affinity as Json | undefined)?.nodeAffinity as Json | undefined)
    ?.requiredDuringSchedulingIgnoredDuringExecution as {nodeSelectorTerms?: {matchExpressions?: Json[]}[]} | undefined
  if (!terms?.nodeSelectorTerms?.length) return true
  return terms.nodeSelectorTerms.some((term) =>
    (term.matchExpressions ?? []).every((e) => {
      const {key, operator, values = []} = e as {key: string; operator: string; values?: string[]}
      const has = key in labels
      switch (operator) {
        case 'Exists':
          return has
        case 'DoesNotExist':
          return !has
        case 'In':
          return has && values.includes(labels[key]!)
        case 'NotIn':
          return !has || !values.includes(labels[key]!)
        default:
          throw new Error(`node affinity operator ${operator} is not modelled by MemoryKube`)
      }
    }),
  )
}

/** A stable, pod-name-like suffix per node and generation. */
function podSuffix(node: string, generation: number): string {
  let hash = generation * 7919
  for (const c of node) hash = (hash * 31 + c.charCodeAt(0)) >>> 0
  return hash.toString(36).slice(-5).padStart(5, '0')
}

// ---- selectors and paging ----

/** `ms` after the epoch plus `nanos`, as Go's RFC3339Nano prints it (UTC, trailing zeros of the fraction cut). */
function goTime(epochMs: number, nanos: number): string {
  const ms = epochMs + Math.floor(nanos / 1_000_000)
  const whole = new Date(ms - (ms % 1000)).toISOString().replace('.000Z', '')
  const fraction = (String(ms % 1000).padStart(3, '0') + String(nanos % 1_000_000).padStart(6, '0')).replace(/0+$/, '')
  return `${whole}${fraction ? `.${fraction}` : ''}Z`
}

function sortKey(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name}`
}

function encodeContinue(offset: number): string {
  return Buffer.from(JSON.stringify({offset})).toString('base64url')
}

function decodeContinue(token: string): number | undefined {
  try {
    const offset = (JSON.parse(Buffer.from(token, 'base64url').toString()) as {offset?: unknown}).offset
    return typeof offset === 'number' && Number.isInteger(offset) && offset >= 0 ? offset : undefined
  } catch {
    return undefined
  }
}

/** A label selector as a predicate on labels (see the module comment for the syntax). */
export function parseLabelSelector(selector: string | undefined): (labels: Record<string, string>) => boolean {
  if (!selector?.trim()) return () => true
  const terms = splitTerms(selector).map((term): ((labels: Record<string, string>) => boolean) => {
    const set = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term)
    if (set) {
      const [, key, op, list] = set as unknown as [string, string, string, string]
      const values = list.split(',').map((v) => v.trim())
      return op === 'in' ? (l) => key in l && values.includes(l[key]!) : (l) => !(key in l) || !values.includes(l[key]!)
    }
    const compare = /^([^\s!=]+)\s*(==|=|!=)\s*(\S*)$/.exec(term)
    if (compare) {
      const [, key, op, value] = compare as unknown as [string, string, string, string]
      return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value
    }
    if (/^![^\s!=]+$/.test(term)) return (l) => !(term.slice(1) in l)
    if (/^[^\s!=]+$/.test(term)) return (l) => term in l
    throw new Error(`label selector term "${term}" is not modelled by MemoryKube`)
  })
  return (labels) => terms.every((t) => t(labels))
}

/** `a,b in (c,d),e` -> terms, keeping the commas inside parentheses. */
function splitTerms(selector: string): string[] {
  const terms: string[] = []
  let depth = 0
  let current = ''
  for (const c of selector) {
    if (c === '(') depth++
    if (c === ')') depth--
    if (c === ',' && depth === 0) {
      terms.push(current.trim())
      current = ''
    } else current += c
  }
  terms.push(current.trim())
  return terms.filter(Boolean)
}

/** Fields each kind can be selected by besides metadata.name and metadata.namespace, as on the real server. */
const SELECTABLE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Pod: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase'],
  Event: [
    'involvedObject.kind',
    'involvedObject.name',
    'involvedObject.namespace',
    'involvedObject.uid',
    'reason',
    'type',
    'source',
  ],
  Node: ['spec.unschedulable'],
  Namespace: ['status.phase'],
}

/** A field selector as a predicate, or the API server's complaint about a field the kind cannot be selected by. */
function parseFieldSelector(selector: string | undefined, kind: string): ((object: KubeObject) => boolean) | string {
  if (!selector?.trim()) return () => true
  const allowed = new Set(['metadata.name', 'metadata.namespace', ...(SELECTABLE_FIELDS[kind] ?? [])])
  const bad = selector
    .split(',')
    .map((term) => /^([\w.]+)/.exec(term.trim())?.[1] ?? term)
    .find((path) => !allowed.has(path))
  if (bad !== undefined) return `field label not supported: ${bad}`
  const terms = selector.split(',').map((term) => {
    const match = /^([\w.]+)\s*(==|=|!=)\s*(.*)$/.exec(term.trim())
    if (!match) throw new Error(`field selector term "${term}" is not modelled by MemoryKube`)
    const [, path, op, value] = match as unknown as [string, string, string, string]
    return (o: KubeObject) => {
      const found = path.split('.').reduce<unknown>((at, part) => (isMap(at) ? at[part] : undefined), o)
      const text = found === undefined ? '' : String(found)
      return op === '!=' ? text !== value : text === value
    }
  })
  return (o) => terms.every((t) => t(o))
}

/** What a request was doing, as the adapter (src/adapters/kube-client.ts) names it in its errors. */
function doingOn(verb: KubeVerb, kind: string, namespace?: string, name?: string): string {
  const object = `${kind} ${namespace ? `${namespace}/` : ''}${name ?? ''}`
  switch (verb) {
    case 'list':
      return `Listing ${kind} objects`
    case 'watch':
      return `Watching ${kind} objects`
    case 'logs':
      return `Reading the log of pod ${namespace}/${name}`
    case 'get':
      return `Reading ${object}`
    case 'create':
      return `Creating ${object}`
    case 'apply':
      return `Applying ${object}`
    case 'delete':
      return `Deleting ${object}`
  }
}

/** A create or apply of a kind the cluster does not serve, as the adapter reports it (discovery said so). */
function notServed(apiVersion: string, kind: string, doing: string): XpkError {
  return new XpkError('failed', `${doing} failed: the cluster does not serve ${kind} in ${apiVersion}.`, {
    hints: ['Its CustomResourceDefinition is not installed yet: `xpk cluster create` installs JobSet and Kueue.'],
  })
}
