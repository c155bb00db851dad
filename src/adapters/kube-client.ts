import type * as K8s from '@kubernetes/client-node'
import type {IncomingMessage} from 'node:http'
import {delimiter, dirname, resolve} from 'node:path'
import {Agent, request, type RequestOptions} from 'node:https'
import {createSecureContext, type SecureContext} from 'node:tls'
import type {Readable} from 'node:stream'
import {createGunzip, gunzipSync} from 'node:zlib'

import {UsageError, XpkError} from '../core/errors.js'
import {NodeFiles} from './local-files.js'
import {textFileProblem} from '../core/text-file.js'
import {redactCredentials} from '../core/text.js'
import {knownKind} from '../core/kube/known-kinds.js'
import {kubeApiError, kubeNetworkError, type KubeStatusBody} from '../core/kube/kube-errors.js'
import {
  FIELD_MANAGER,
  type KubeAccess,
  type KubeClient,
  type KubeDeleteOptions,
  type KubeListOptions,
  type KubeLookup,
  type KubeObject,
  type KubePage,
  type KubeLogOptions,
  type KubeRef,
  type KubeWatchEvent,
  type KubeWatchOptions,
} from '../ports/kube.js'

/**
 * Talks to a cluster's Kubernetes API with plain HTTPS and JSON (node:https), sending and returning objects in
 * their wire form.
 *
 * Why not @kubernetes/client-node's KubernetesObjectApi: loading the package costs 1.0-1.4 s of CPU (its ESM
 * build is some 900 modules), and it converts every object to and from its typed form, which drops keys it does not
 * model (`x-kubernetes-preserve-unknown-fields` of CRDs) unless converted back by hand, at about 0.5 s per apply
 * of the Kueue workloads CRD (1.4 MB of YAML). The package is still used to read kubeconfig files (`--kubeconfig`,
 * KUBECONFIG): exec plugins, auth providers, client certificates and proxies are its business; GKE access needs
 * none of that (endpoint, CA and an access token) and never loads it.
 */
export async function connectKube(access: KubeAccess): Promise<KubeClient> {
  if (access.kind === 'gke') {
    const token = await access.token()
    const ca = access.caCertificate
    const transport = new HttpsTransport(access.server, {
      // No CA for DNS endpoints: their certificate is publicly trusted.
      tls: ca ? {ca: pemOf(ca)} : {},
      auth: async () => ({authorization: `Bearer ${token}`}),
    })
    return new HttpKube(transport, access.server, 'default')
  }
  const k8s = await import('@kubernetes/client-node')
  const config = await loadKubeconfig(k8s, access)
  const cluster = config.getCurrentCluster()
  const server = cluster?.server
  if (!server) {
    throw new UsageError('The kubeconfig names no cluster for its current context.', {
      flag: access.context ? '--context' : '--kubeconfig',
      hints: ['Pick a context with --context.'],
    })
  }
  const context = config.getContextObject(config.getCurrentContext())
  let tls: TlsSettings
  try {
    tls = await kubeconfigTls(config)
  } catch (error) {
    throw new XpkError('auth', `Could not use the kubeconfig's credentials: ${(error as Error).message}`, {
      hints: ['Check the certificate and key files it names, or pass another --context.'],
      cause: error,
    })
  }
  const transport = new HttpsTransport(server, {
    tls,
    // Per request, as client-node does: exec plugins and auth providers hand out tokens that expire.
    auth: async () => {
      const options: RequestOptions = {headers: {}}
      await config.applyToHTTPSOptions(options)
      const headers = lowerCaseHeaders(options.headers)
      // A kubeconfig user with username and password (basic auth, for servers that still take it).
      if (options.auth && !headers.authorization) {
        headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`
      }
      return headers
    },
    // A proxy-url in the kubeconfig: client-node's agent (HTTP CONNECT or SOCKS) carries the requests.
    proxyAgent: cluster.proxyUrl
      ? async () => {
          const options: RequestOptions = {}
          await config.applyToHTTPSOptions(options)
          return options.agent as Agent
        }
      : undefined,
  })
  // The server as shown (describe, errors, --verbose): a password in its URL is never printed.
  const shown = `${redactCredentials(server)} (context ${config.getCurrentContext()})`
  return new HttpKube(transport, shown, context?.namespace || 'default')
}

/** A kubeconfig is a few KB; client-node would read a device or a huge file whole (and block on a pipe). */
const MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024

/**
 * The kubeconfig file's text, checked first on the open file (a regular UTF-8 text file of bounded size), so a
 * directory, /dev/zero or a pipe is a usage error naming it instead of a hang or a crash.
 */
async function readKubeconfigFile(path: string, flag: string): Promise<string> {
  const read = await new NodeFiles().readText(path, {maxBytes: MAX_KUBECONFIG_BYTES})
  if (read.kind === 'text') return read.text
  throw textFileProblem(read, {
    flag,
    path,
    what: 'a kubeconfig file',
    maxBytes: MAX_KUBECONFIG_BYTES,
    hints: ['Pass a kubeconfig file that kubectl can use, or leave --kubeconfig out to use the GKE cluster.'],
  })
}

async function loadKubeconfig(
  k8s: typeof K8s,
  access: Extract<KubeAccess, {kind: 'kubeconfig'}>,
): Promise<K8s.KubeConfig> {
  const config = new k8s.KubeConfig()
  // The files are read by xpk (checked, bounded); client-node only parses them.
  const files = access.path
    ? [{path: access.path, flag: '--kubeconfig'}]
    : (process.env.KUBECONFIG ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((path) => ({path, flag: 'KUBECONFIG'}))
  const texts = await Promise.all(files.map(async (f) => ({...f, text: await readKubeconfigFile(f.path, f.flag)})))
  try {
    if (texts.length === 0) config.loadFromDefault()
    for (const [i, f] of texts.entries()) {
      const one = i === 0 ? config : new k8s.KubeConfig()
      one.loadFromString(f.text)
      one.makePathsAbsolute(dirname(resolve(f.path)))
      if (one !== config) config.mergeConfig(one)
    }
  } catch (error) {
    throw new UsageError(
      `Could not read the kubeconfig${access.path ? ` ${access.path}` : ''}: ${(error as Error).message}`,
      {
        flag: '--kubeconfig',
        hints: ['Pass a kubeconfig file that kubectl can use, or leave --kubeconfig out to use the GKE cluster.'],
      },
    )
  }
  if (!access.path && madeUpDefault(config)) {
    throw new UsageError('There is no kubeconfig to read: KUBECONFIG is not set and ~/.kube/config does not exist.', {
      flag: access.context ? '--context' : '--kubeconfig',
      hints: [
        access.context
          ? 'Name the kubeconfig with --kubeconfig FILE (or KUBECONFIG), or leave --context out to reach the GKE cluster.'
          : 'Name the kubeconfig with --kubeconfig FILE, or leave it out to reach the GKE cluster.',
      ],
    })
  }
  if (access.context) {
    const known = config.getContexts().map((c) => c.name)
    if (!known.includes(access.context)) {
      throw new UsageError(`The kubeconfig has no context "${access.context}".`, {
        flag: '--context',
        hints: [known.length > 0 ? `Its contexts: ${known.join(', ')}.` : 'It defines no contexts.'],
      })
    }
    config.setCurrentContext(access.context)
  }
  return config
}

/**
 * Whether client-node found no kubeconfig at all: it then makes one up, a context "loaded-context" for
 * http://localhost:8080 (config.js loadFromDefault), which xpk must neither name in a hint nor connect to.
 */
function madeUpDefault(config: K8s.KubeConfig): boolean {
  const contexts = config.getContexts()
  return (
    contexts.length === 1 &&
    contexts[0]!.name === 'loaded-context' &&
    config.getClusters().length === 1 &&
    config.getClusters()[0]!.server === 'http://localhost:8080'
  )
}

/** The TLS settings of the kubeconfig's current cluster and user (CA, client certificate, server name, verify). */
async function kubeconfigTls(config: K8s.KubeConfig): Promise<TlsSettings> {
  const options: RequestOptions = {}
  await config.applyToHTTPSOptions(options)
  return {
    ca: options.ca as Buffer | undefined,
    cert: options.cert as Buffer | undefined,
    key: options.key as Buffer | undefined,
    servername: options.servername,
    rejectUnauthorized: options.rejectUnauthorized,
  }
}

/** GKE hands out the cluster CA base64-encoded (`masterAuth.clusterCaCertificate`); a PEM is taken as is. */
function pemOf(ca: string): string {
  return ca.includes('-----BEGIN') ? ca : Buffer.from(ca, 'base64').toString('utf8')
}

function lowerCaseHeaders(headers: RequestOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) out[name.toLowerCase()] = String(value)
  }
  return out
}

interface TlsSettings {
  readonly ca?: string | Buffer
  readonly cert?: Buffer
  readonly key?: Buffer
  readonly servername?: string
  readonly rejectUnauthorized?: boolean
}

interface TransportOptions {
  readonly tls: TlsSettings
  /** Headers that authenticate one request (Authorization, impersonation). */
  readonly auth: () => Promise<Record<string, string>>
  readonly proxyAgent?: () => Promise<Agent>
}

interface Reply {
  readonly status: number
  readonly text: string
}

interface RawReply {
  readonly status: number
  readonly body: Buffer
  /** Whether `body` is gzip-compressed (Content-Encoding). */
  readonly gzip: boolean
}

/** The answer's text, gunzipped if it came compressed; throws when it is not the gzip it says it is. */
function decode(raw: RawReply): Reply {
  return {status: raw.status, text: (raw.gzip ? gunzipSync(raw.body) : raw.body).toString('utf8')}
}

/**
 * Sockets kept open to the API server: enough for the widest wave of requests xpk sends at once (a release's
 * objects, one list per kind), so a wave costs one round trip, and few enough that a burst cannot open hundreds
 * of TLS connections.
 */
const MAX_SOCKETS = 32
/** A request that sends or receives nothing for this long is given up (and retried by the caller's policy). */
const IDLE_TIMEOUT_MS = 60_000
/**
 * A watch that carries nothing for this long ends (the caller watches again from where it was). The watch asks
 * for bookmarks, which the API server sends about once a minute, so a live but quiet watch is never this idle.
 */
const WATCH_IDLE_MS = 5 * 60_000

/** HTTPS requests to one API server over kept-alive connections sharing one TLS context. */
class HttpsTransport {
  private readonly url: URL
  private readonly agent: Agent
  private proxy?: Promise<Agent>

  constructor(
    server: string,
    private readonly options: TransportOptions,
  ) {
    this.url = new URL(server)
    if (this.url.protocol !== 'https:') {
      throw new UsageError(`The Kubernetes API server ${redactCredentials(server)} is not an https:// URL.`, {
        hints: ['xpk talks to the API server over HTTPS only.'],
      })
    }
    const {ca, cert, key, servername, rejectUnauthorized} = options.tls
    // One secure context for every connection: building one per connection parses the CA each time.
    const secureContext: SecureContext = createSecureContext({ca, cert, key})
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: MAX_SOCKETS,
      secureContext,
      ...(servername ? {servername} : {}),
      ...(rejectUnauthorized === false ? {rejectUnauthorized: false} : {}),
    })
  }

  /** The request's credentials; a kubeconfig's exec plugin or auth provider that fails is an auth error. */
  private async credentials(): Promise<Record<string, string>> {
    try {
      return await this.options.auth()
    } catch (error) {
      throw new XpkError('auth', `Could not get credentials for ${this.url.origin}: ${(error as Error).message}`, {
        hints: [
          "Check the kubeconfig user's credentials (e.g. run its exec plugin by hand), or pass another --context.",
        ],
        cause: error,
      })
    }
  }

  /** Sends a request and reads the whole answer as the bytes that came (still compressed, if they were). */
  async receive(method: string, path: string, query: Query, body?: Body): Promise<RawReply> {
    const res = await this.open(method, path, query, {body, gzip: true, idleMs: IDLE_TIMEOUT_MS})
    return new Promise<RawReply>((resolve, reject) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks),
          gzip: res.headers['content-encoding'] === 'gzip',
        }),
      )
    })
  }

  /** Sends a request and resolves with the answer's head; its body is the caller's to read. */
  async open(
    method: string,
    path: string,
    query: Query,
    options: {readonly body?: Body; readonly gzip?: boolean; readonly idleMs: number; readonly signal?: AbortSignal},
  ): Promise<IncomingMessage> {
    const params = new URLSearchParams()
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value))
    const search = params.size > 0 ? `?${params}` : ''
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'xpk',
      // The API server compresses large answers (an applied CRD comes back whole: 0.7 MB of JSON for Kueue's Workload).
      ...(options.gzip ? {'accept-encoding': 'gzip'} : {}),
      ...(await this.credentials()),
    }
    const body = options.body
    if (body) {
      headers['content-type'] = body.contentType
      headers['content-length'] = String(Buffer.byteLength(body.text))
    }
    const agent = this.options.proxyAgent ? await (this.proxy ??= this.options.proxyAgent()) : this.agent
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        {
          // URL.hostname keeps an IPv6 address in brackets; the socket wants it bare.
          hostname: this.url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: this.url.port || 443,
          method,
          path: `${this.url.pathname.replace(/\/$/, '')}${path}${search}`,
          headers,
          agent,
          timeout: options.idleMs,
          signal: options.signal,
        },
        resolve,
      )
      req.on('timeout', () => req.destroy(new IdleTimeout(options.idleMs)))
      req.on('error', reject)
      req.end(body?.text)
    })
  }
}

type Query = Record<string, string | number | boolean | undefined>

interface Body {
  readonly contentType: string
  readonly text: string
}

/** A connection that carried nothing for too long. */
class IdleTimeout extends Error {
  constructor(ms: number) {
    super(`no answer for ${Math.round(ms / 1000)} s`)
  }
}

/** Where a kind is served: its URL segment and whether its objects live in namespaces. */
interface Resource {
  readonly plural: string
  readonly namespaced: boolean
}

/**
 * Built-in kinds by group version, so that reaching them costs no discovery request (kubectl caches discovery on
 * disk for the same reason). These are the stable APIs of every supported Kubernetes version; a kind missing here
 * is looked up through discovery. `true` = namespaced.
 */
const BUILT_IN: Readonly<Record<string, Readonly<Record<string, readonly [string, boolean]>>>> = {
  v1: {
    Namespace: ['namespaces', false],
    Node: ['nodes', false],
    PersistentVolume: ['persistentvolumes', false],
    ConfigMap: ['configmaps', true],
    Secret: ['secrets', true],
    Pod: ['pods', true],
    Service: ['services', true],
    ServiceAccount: ['serviceaccounts', true],
    Event: ['events', true],
    Endpoints: ['endpoints', true],
    PersistentVolumeClaim: ['persistentvolumeclaims', true],
    LimitRange: ['limitranges', true],
    ResourceQuota: ['resourcequotas', true],
  },
  'apps/v1': {
    Deployment: ['deployments', true],
    DaemonSet: ['daemonsets', true],
    StatefulSet: ['statefulsets', true],
    ReplicaSet: ['replicasets', true],
    ControllerRevision: ['controllerrevisions', true],
  },
  'batch/v1': {Job: ['jobs', true], CronJob: ['cronjobs', true]},
  'rbac.authorization.k8s.io/v1': {
    ClusterRole: ['clusterroles', false],
    ClusterRoleBinding: ['clusterrolebindings', false],
    Role: ['roles', true],
    RoleBinding: ['rolebindings', true],
  },
  'scheduling.k8s.io/v1': {PriorityClass: ['priorityclasses', false]},
  'apiextensions.k8s.io/v1': {CustomResourceDefinition: ['customresourcedefinitions', false]},
  'admissionregistration.k8s.io/v1': {
    MutatingWebhookConfiguration: ['mutatingwebhookconfigurations', false],
    ValidatingWebhookConfiguration: ['validatingwebhookconfigurations', false],
  },
  'apiregistration.k8s.io/v1': {APIService: ['apiservices', false]},
  'policy/v1': {PodDisruptionBudget: ['poddisruptionbudgets', true]},
  'networking.k8s.io/v1': {NetworkPolicy: ['networkpolicies', true], Ingress: ['ingresses', true]},
  'coordination.k8s.io/v1': {Lease: ['leases', true]},
  'storage.k8s.io/v1': {StorageClass: ['storageclasses', false]},
  'flowcontrol.apiserver.k8s.io/v1': {
    FlowSchema: ['flowschemas', false],
    PriorityLevelConfiguration: ['prioritylevelconfigurations', false],
  },
}

/** One group version's discovery document: kind -> resource; undefined when the group version is not served. */
interface Discovery {
  readonly kinds: Promise<ReadonlyMap<string, Resource> | undefined>
  /** Whether the answer is in (see {@link ResourceMap.find}). */
  settled: boolean
}

/**
 * Maps kinds to URLs: built-in kinds from {@link BUILT_IN}, custom resources from the CRDs this client applied
 * (the CRD says its plural and scope, so no request is needed), then xpk's own JobSet and Kueue kinds from
 * core/kube/known-kinds.ts (whether the cluster serves them is then told by the request itself: see
 * {@link servedNotFound}), others through discovery, one request per group version shared by every lookup waiting
 * for it.
 */
class ResourceMap {
  private readonly learned = new Map<string, Resource>()
  private readonly discovered = new Map<string, Discovery>()

  constructor(private readonly discover: (apiVersion: string) => Promise<ReadonlyMap<string, Resource> | undefined>) {}

  async find(apiVersion: string, kind: string): Promise<Resource | undefined> {
    const builtIn = BUILT_IN[apiVersion]?.[kind]
    if (builtIn) return {plural: builtIn[0], namespaced: builtIn[1]}
    const learned = this.learned.get(`${apiVersion}/${kind}`)
    if (learned) return learned
    const known = knownKind(apiVersion, kind)
    if (known) return known
    const before = this.discovered.get(apiVersion)
    const answeredBefore = before?.settled === true
    const found = (await (before ?? this.fetch(apiVersion)).kinds)?.get(kind)
    // A document still on its way when this lookup began is as fresh as asking again; one answered earlier may
    // predate the kind's CRD, so a miss asks again (once for every lookup in the same position).
    if (found || !answeredBefore) return found
    const current = this.discovered.get(apiVersion)
    return (await (current && current !== before ? current : this.fetch(apiVersion)).kinds)?.get(kind)
  }

  /** What an applied CRD serves, known from the CRD itself. */
  learn(crd: KubeObject): void {
    const spec = crd.spec as
      | {group?: string; scope?: string; names?: {kind?: string; plural?: string}; versions?: {name?: string}[]}
      | undefined
    if (!spec?.group || !spec.names?.kind || !spec.names.plural) return
    for (const version of spec.versions ?? []) {
      if (!version.name) continue
      this.learned.set(`${spec.group}/${version.name}/${spec.names.kind}`, {
        plural: spec.names.plural,
        namespaced: spec.scope === 'Namespaced',
      })
    }
  }

  private fetch(apiVersion: string): Discovery {
    const entry: Discovery = {kinds: this.discover(apiVersion), settled: false}
    this.discovered.set(apiVersion, entry)
    entry.kinds.then(
      () => (entry.settled = true),
      // A failed discovery is not remembered: the next lookup tries again.
      () => {
        if (this.discovered.get(apiVersion) === entry) this.discovered.delete(apiVersion)
      },
    )
    return entry
  }
}

const CRD_API = 'apiextensions.k8s.io/v1'

class HttpKube implements KubeClient {
  private readonly resources: ResourceMap

  constructor(
    private readonly http: HttpsTransport,
    readonly target: string,
    /** Where namespaced objects named without a namespace go: the kubeconfig context's namespace, or default. */
    private readonly defaultNamespace: string,
  ) {
    this.resources = new ResourceMap((apiVersion) => this.discover(apiVersion))
  }

  async get(ref: KubeRef): Promise<KubeObject | undefined> {
    const found = await this.lookup(ref)
    return found.state === 'found' ? found.object : undefined
  }

  async lookup(ref: KubeRef): Promise<KubeLookup> {
    const doing = `Reading ${describe(ref)}`
    const path = await this.path(ref.apiVersion, ref.kind, ref.namespace, ref.name, doing)
    // Discovery already said the group version does not serve the kind.
    if (path === undefined) return {state: 'not-served'}
    const reply = await this.send(doing, 'GET', path, {})
    if (reply.status === 404) return {state: servedNotFound(reply.text) ? 'absent' : 'not-served'}
    return {state: 'found', object: withType(this.parse(reply, doing) as KubeObject, ref.apiVersion, ref.kind)}
  }

  async list(apiVersion: string, kind: string, options: KubeListOptions = {}): Promise<KubePage> {
    const doing = `Listing ${kind} objects`
    const path = await this.path(apiVersion, kind, options.namespace, undefined, doing)
    if (path === undefined) return {items: []}
    const query: Query = {
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      limit: options.limit,
      continue: options.continue,
    }
    let res: IncomingMessage
    try {
      res = await this.http.open('GET', path, query, {gzip: true, idleMs: IDLE_TIMEOUT_MS})
    } catch (error) {
      throw this.failure(error, doing)
    }
    const status = res.statusCode ?? 0
    if (status < 200 || status >= 300) {
      const text = await readText(res, true).catch(() => '')
      if (status === 404) return {items: []}
      throw kubeApiError(status, statusBody(text), doing)
    }
    // One JSON.parse of the whole page: native, it beat parsing item by item as the page arrives, with or without
    // dropping the fields the reader skips (bench:list-projection; README, Speed).
    let text: string
    try {
      text = await readText(res, true)
    } catch (error) {
      throw this.failure(error, doing)
    }
    const page = wholeList(text)
    if (page === undefined) throw this.notJson(status, doing)
    // The API server leaves apiVersion and kind out of the items of built-in kinds.
    const items = page.items.map((item) => withType(item as KubeObject, apiVersion, kind))
    return page.continue ? {items, continue: page.continue} : {items}
  }

  async apply(object: KubeObject, options: {readonly force?: boolean} = {}): Promise<KubeObject> {
    const doing = `Applying ${describe(object)}`
    const path = await this.path(object.apiVersion, object.kind, object.metadata.namespace, object.metadata.name, doing)
    if (path === undefined) throw notServed(object.apiVersion, object.kind, doing)
    // Server-side apply takes YAML, and JSON is YAML: the object goes as it is, nothing converted or dropped.
    const reply = await this.send(
      doing,
      'PATCH',
      path,
      {fieldManager: FIELD_MANAGER, force: options.force ?? false},
      {contentType: 'application/apply-patch+yaml', text: JSON.stringify(object)},
    )
    if (reply.status === 404) {
      // A kind of known-kinds.ts at a version the cluster does not serve, as discovery would have said; else what
      // is missing is named by the server (the namespace, say).
      if (!servedNotFound(reply.text)) throw notServed(object.apiVersion, object.kind, doing)
      throw kubeApiError(404, statusBody(reply.text), doing)
    }
    const applied = withType(this.parse(reply, doing) as KubeObject, object.apiVersion, object.kind)
    if (object.apiVersion === CRD_API && object.kind === 'CustomResourceDefinition') this.resources.learn(object)
    return applied
  }

  async create(object: KubeObject): Promise<KubeObject> {
    const doing = `Creating ${describe(object)}`
    // The collection the object goes into (a namespaced kind's object without a namespace goes to the default one).
    const namespace = object.metadata.namespace ?? this.defaultNamespace
    const path = await this.path(object.apiVersion, object.kind, namespace, undefined, doing)
    if (path === undefined) throw notServed(object.apiVersion, object.kind, doing)
    // A 409 AlreadyExists is thrown by send as an ApiError with status ALREADY_EXISTS, for the caller to report.
    const reply = await this.send(
      doing,
      'POST',
      path,
      {fieldManager: FIELD_MANAGER},
      {contentType: 'application/json', text: JSON.stringify(object)},
    )
    if (reply.status === 404) {
      if (!servedNotFound(reply.text)) throw notServed(object.apiVersion, object.kind, doing)
      throw kubeApiError(404, statusBody(reply.text), doing)
    }
    return withType(this.parse(reply, doing) as KubeObject, object.apiVersion, object.kind)
  }

  async delete(ref: KubeRef, options: KubeDeleteOptions = {}): Promise<'deleted' | 'absent'> {
    const doing = `Deleting ${describe(ref)}`
    const path = await this.path(ref.apiVersion, ref.kind, ref.namespace, ref.name, doing)
    if (path === undefined) return 'absent'
    // A uid precondition goes in the DeleteOptions body; a different object under the name is a 409 Conflict.
    const body =
      options.uid === undefined
        ? undefined
        : {
            contentType: 'application/json',
            text: JSON.stringify({apiVersion: 'v1', kind: 'DeleteOptions', preconditions: {uid: options.uid}}),
          }
    const reply = await this.send(doing, 'DELETE', path, {propagationPolicy: 'Background'}, body)
    if (reply.status === 404) return 'absent'
    this.parse(reply, doing)
    return 'deleted'
  }

  async watch(
    apiVersion: string,
    kind: string,
    options: KubeWatchOptions,
    onEvent: (event: KubeWatchEvent) => void,
  ): Promise<void> {
    const doing = `Watching ${kind} objects`
    const path = await this.path(apiVersion, kind, options.namespace, undefined, doing)
    if (path === undefined) throw notServedWatch(apiVersion, kind, doing)
    if (options.signal.aborted) return
    const query: Query = {
      watch: 'true',
      allowWatchBookmarks: 'true',
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      resourceVersion: options.resourceVersion,
    }
    let res: IncomingMessage
    try {
      res = await this.http.open('GET', path, query, {idleMs: WATCH_IDLE_MS, signal: options.signal})
    } catch (error) {
      if (options.signal.aborted) return
      throw this.failure(error, doing)
    }
    if (res.statusCode !== 200) {
      const text = await readText(res).catch(() => '')
      if (res.statusCode === 404 && !servedNotFound(text)) throw notServedWatch(apiVersion, kind, doing)
      throw kubeApiError(res.statusCode ?? 0, statusBody(text), doing)
    }
    return new Promise<void>((resolve, reject) => {
      let pending = ''
      let failed = false
      const fail = (error: XpkError) => {
        failed = true
        res.destroy()
        reject(error)
      }
      // One JSON event per line; a line may arrive in pieces.
      const take = (line: string) => {
        if (!line.trim() || failed) return
        let event: {type?: string; object?: Record<string, unknown>}
        try {
          event = JSON.parse(line) as typeof event
        } catch {
          return fail(new XpkError('failed', `${doing} failed: the API server sent a watch event that is not JSON.`))
        }
        const object = event.object ?? {}
        if (event.type === 'ERROR') {
          const status = object as KubeStatusBody & {code?: number}
          return fail(kubeApiError(status.code ?? 500, status, doing))
        }
        if (event.type === 'BOOKMARK') {
          const version = (object.metadata as {resourceVersion?: string} | undefined)?.resourceVersion ?? ''
          return onEvent({type: 'BOOKMARK', resourceVersion: version})
        }
        if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
          onEvent({type: event.type, object: withType(object as unknown as KubeObject, apiVersion, kind)})
        }
      }
      // The caller's onEvent may throw: the watch then ends with its error.
      const takeSafely = (line: string) => {
        try {
          take(line)
        } catch (error) {
          failed = true
          res.destroy()
          reject(error as Error)
        }
      }
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        pending += chunk
        let end: number
        while ((end = pending.indexOf('\n')) >= 0 && !failed) {
          const line = pending.slice(0, end)
          pending = pending.slice(end + 1)
          takeSafely(line)
        }
      })
      // The server ended the stream, the caller aborted, or the connection went quiet or broke: the caller may
      // watch again from the last resourceVersion it saw.
      res.on('end', () => {
        if (!failed && pending.trim()) takeSafely(pending)
        if (!failed) resolve()
      })
      res.on('close', () => {
        if (!failed) resolve()
      })
      res.on('error', () => {
        if (!failed) resolve()
      })
    })
  }

  async logs(
    namespace: string,
    pod: string,
    options: KubeLogOptions,
    onChunk: (text: string) => void,
  ): Promise<'ended' | 'absent'> {
    const doing = `Reading the log of pod ${namespace}/${pod}`
    if (options.signal.aborted) return 'ended'
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`
    const query: Query = {
      container: options.container,
      follow: options.follow ? 'true' : undefined,
      tailLines: options.tailLines,
      sinceSeconds: options.sinceSeconds,
      sinceTime: options.sinceTime,
      timestamps: options.timestamps ? 'true' : undefined,
    }
    let res: IncomingMessage
    try {
      // A followed log may be quiet for long stretches: only the watch's idle limit ends it.
      res = await this.http.open('GET', path, query, {idleMs: WATCH_IDLE_MS, signal: options.signal})
    } catch (error) {
      if (options.signal.aborted) return 'ended'
      throw this.failure(error, doing)
    }
    if (res.statusCode !== 200) {
      const text = await readText(res).catch(() => '')
      // 404 is the pod gone; an unknown container is a 400.
      if (res.statusCode === 404) return 'absent'
      throw kubeApiError(res.statusCode ?? 0, statusBody(text), doing)
    }
    return new Promise<'ended' | 'absent'>((resolve, reject) => {
      let failed = false
      // Bytes, decoded as a stream: a multi-byte character split across chunks stays whole.
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        if (failed) return
        try {
          onChunk(chunk)
        } catch (error) {
          failed = true
          res.destroy()
          reject(error as Error)
        }
      })
      const done = () => {
        if (!failed) resolve('ended')
      }
      res.on('end', done)
      res.on('close', done)
      res.on('error', done)
    })
  }

  /** The object's (or the list's) URL path; undefined when the cluster does not serve the kind. */
  private async path(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string | undefined,
    doing: string,
  ): Promise<string | undefined> {
    let resource: Resource | undefined
    try {
      resource = await this.resources.find(apiVersion, kind)
    } catch (error) {
      throw this.failure(error, doing)
    }
    if (!resource) return undefined
    const parts = [apiVersion.includes('/') ? '/apis' : '/api', apiVersion]
    // A list without a namespace spans them all; a single object without one is in the default namespace.
    const ns = resource.namespaced ? (namespace ?? (name === undefined ? undefined : this.defaultNamespace)) : undefined
    if (ns !== undefined) parts.push('namespaces', encodeURIComponent(ns))
    parts.push(resource.plural)
    if (name !== undefined) parts.push(encodeURIComponent(name))
    return parts.join('/')
  }

  /** The group version's discovery document (APIResourceList); undefined when it is not served. */
  private async discover(apiVersion: string): Promise<ReadonlyMap<string, Resource> | undefined> {
    const doing = `Looking up the kinds of ${apiVersion}`
    const reply = await this.send(doing, 'GET', `${apiVersion.includes('/') ? '/apis' : '/api'}/${apiVersion}`, {})
    if (reply.status === 404) return undefined
    const list = this.parse(reply, doing) as {resources?: {name: string; kind: string; namespaced: boolean}[]}
    const kinds = new Map<string, Resource>()
    // Subresources (`deployments/status`) share their parent's kind; the resource itself is the one without a slash.
    for (const r of list.resources ?? []) {
      if (!r.name.includes('/')) kinds.set(r.kind, {plural: r.name, namespaced: r.namespaced})
    }
    return kinds
  }

  /**
   * Sends a request; an answer that is neither success nor 404 becomes an error, as does no answer at all. (A 404
   * to an apply is the caller's to explain: a kind not served, or a missing namespace.)
   */
  private async send(doing: string, method: string, path: string, query: Query, body?: Body): Promise<Reply> {
    const reply = await this.receive(doing, method, path, query, body)
    try {
      return decode(reply)
    } catch (error) {
      throw this.failure(error, doing)
    }
  }

  /** {@link send}, with the answer's body as it came (for a list's parser). */
  private async receive(doing: string, method: string, path: string, query: Query, body?: Body): Promise<RawReply> {
    let reply: RawReply
    try {
      reply = await this.http.receive(method, path, query, body)
    } catch (error) {
      throw this.failure(error, doing)
    }
    if ((reply.status >= 200 && reply.status < 300) || reply.status === 404) return reply
    let text = ''
    try {
      text = decode(reply).text
    } catch {
      // A compressed error body that does not gunzip: the status alone says what happened.
    }
    throw kubeApiError(reply.status, statusBody(text), doing)
  }

  private parse(reply: Reply, doing: string): unknown {
    try {
      return JSON.parse(reply.text)
    } catch {
      throw this.notJson(reply.status, doing)
    }
  }

  private notJson(status: number, doing: string): XpkError {
    return new XpkError('failed', `${doing} failed: the API server answered HTTP ${status} with no JSON.`, {
      hints: [`Check that ${this.target} is a Kubernetes API server.`],
    })
  }

  private failure(error: unknown, doing: string): XpkError {
    if (error instanceof XpkError) return error
    return kubeNetworkError(error as Error, this.target, doing)
  }
}

/**
 * Whether a 404 answer says the object is absent from a resource the server serves, rather than the resource not
 * being served. A missing object is a `Status` whose details name it (`{"reason":"NotFound","details":{"name":
 * "x","group":"jobset.x-k8s.io","kind":"jobsets"}}`); a resource the API server does not serve (no CRD, a version the
 * CRD does not serve, an unknown group) is a `Status` with empty details ("the server could not find the requested
 * resource") or, for unknown groups on some versions, the plain text "404 page not found". Only a Status naming
 * the object counts as served: anything else is not the API server saying the object is missing.
 */
function servedNotFound(text: string): boolean {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return false
  }
  const details = (body as {details?: unknown} | null)?.details
  if (details === null || typeof details !== 'object') return false
  const {name, kind} = details as {name?: unknown; kind?: unknown}
  return (typeof name === 'string' && name !== '') || (typeof kind === 'string' && kind !== '')
}

/** A watch of a kind the cluster does not serve: a 404 saying so (the caller's retry policy does not retry it). */
function notServedWatch(apiVersion: string, kind: string, doing: string): XpkError {
  return kubeApiError(404, {reason: 'NotFound', message: `the cluster does not serve ${kind} in ${apiVersion}`}, doing)
}

function notServed(apiVersion: string, kind: string, doing: string): XpkError {
  return new XpkError('failed', `${doing} failed: the cluster does not serve ${kind} in ${apiVersion}.`, {
    hints: ['Its CustomResourceDefinition is not installed yet: `xpk cluster create` installs JobSet and Kueue.'],
  })
}

/** A list answer parsed whole: its items and continue token, or undefined when it is not a list in JSON. */
function wholeList(text: string): {items: unknown[]; continue?: string} | undefined {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return undefined
  }
  if (body === null || typeof body !== 'object') return undefined
  const {items, metadata} = body as {items?: unknown; metadata?: {continue?: unknown}}
  if (items !== undefined && items !== null && !Array.isArray(items)) return undefined
  const token = metadata?.continue
  const list = Array.isArray(items) ? items : []
  return typeof token === 'string' && token !== '' ? {items: list, continue: token} : {items: list}
}

/** The answer's whole body as text (gunzipped when compressed and `gzip` allows). */
async function readText(res: IncomingMessage, gzip = false): Promise<string> {
  let text = ''
  await readBody(res, (chunk) => (text += chunk), gzip)
  return text
}

/**
 * Passes the answer's body to `take` as text, piece by piece as it arrives (gunzipped on the way when the server
 * compressed it and `gzip` allows); a multi-byte character split between pieces stays whole. `take` throwing ends
 * the read with its error.
 */
function readBody(res: IncomingMessage, take: (text: string) => void, gzip = true): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let failed = false
    const fail = (error: Error) => {
      if (failed) return
      failed = true
      res.destroy()
      reject(error)
    }
    const source: Readable = gzip && res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res
    source.setEncoding('utf8')
    source.on('data', (text: string) => {
      if (failed) return
      try {
        take(text)
      } catch (error) {
        fail(error as Error)
      }
    })
    source.on('end', () => {
      if (!failed) resolve()
    })
    source.on('error', fail)
    if (source !== res) res.on('error', fail)
  })
}

function withType(object: KubeObject, apiVersion: string, kind: string): KubeObject {
  return object.apiVersion && object.kind ? object : {...object, apiVersion, kind}
}

function describe(ref: KubeRef | KubeObject): string {
  const name = 'metadata' in ref ? ref.metadata.name : ref.name
  const namespace = 'metadata' in ref ? ref.metadata.namespace : ref.namespace
  return `${ref.kind} ${namespace ? `${namespace}/` : ''}${name}`
}

function statusBody(text: string): KubeStatusBody | undefined {
  try {
    const body = JSON.parse(text) as unknown
    if (typeof body === 'object' && body !== null) return body as KubeStatusBody
  } catch {
    // Not JSON (a proxy's HTML page, plain text): its text is the message.
  }
  return text.trim() ? {message: text.trim().slice(0, 500)} : undefined
}
