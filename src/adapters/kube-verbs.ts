/**
 * The verbs of the Kubernetes port (get, list, apply, create, delete, watch, logs) over the API server's REST API:
 * each object's URL from kube-discovery.ts, each request through kube-transport.ts, objects in their wire form.
 */
import type {IncomingMessage} from 'node:http'

import {ApiError, XpkError} from '../core/errors.js'
import {VISIBILITY_API_VERSION} from '../core/versions.js'
import {listPages, LIST_PAGE_SIZE} from '../core/kube/list-pages.js'
import {kubeApiError, type KubeStatusBody} from '../core/kube/kube-errors.js'
import {
  FIELD_MANAGER,
  type KubeClient,
  type KubeDeleteOptions,
  type KubeListAllOptions,
  type KubeListOptions,
  type KubeLookup,
  type KubeObject,
  type KubePage,
  type KubeLogOptions,
  type KubeRef,
  type KubeWatchEvent,
  type KubeWatchOptions,
} from '../ports/kube.js'
import {ResourceMap, type Resource} from './kube-discovery.js'
import {followText, IDLE_TIMEOUT_MS, readText, statusBody, type HttpsTransport, type Query} from './kube-transport.js'

const CRD_API = 'apiextensions.k8s.io/v1'

/** A cluster's Kubernetes API as the {@link KubeClient} port. */
export class HttpKube implements KubeClient {
  private readonly resources: ResourceMap
  readonly target: string

  constructor(
    private readonly http: HttpsTransport,
    /** Where namespaced objects named without a namespace go: the kubeconfig context's namespace, or default. */
    private readonly defaultNamespace: string,
  ) {
    this.target = http.target
    this.resources = new ResourceMap(http)
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
    const reply = await this.http.send(doing, 'GET', path, {})
    if (reply.status === 404) return {state: servedNotFound(reply.text) ? 'absent' : 'not-served'}
    return {state: 'found', object: withType(this.http.parse(reply, doing) as KubeObject, ref.apiVersion, ref.kind)}
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
      throw this.http.failure(error, doing)
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
      throw this.http.failure(error, doing)
    }
    const page = wholeList(text)
    if (page === undefined) throw this.http.notJson(status, doing)
    // The API server leaves apiVersion and kind out of the items of built-in kinds.
    const items = page.items.map((item) => withType(item as KubeObject, apiVersion, kind))
    return page.continue ? {items, continue: page.continue} : {items}
  }

  listAll(apiVersion: string, kind: string, options: KubeListAllOptions = {}): AsyncIterable<readonly KubeObject[]> {
    const {pageSize = LIST_PAGE_SIZE, retry = (request) => request(), ...list} = options
    return listPages((token) => retry(() => this.list(apiVersion, kind, {...list, limit: pageSize, continue: token})))
  }

  async apply(object: KubeObject, options: {readonly force?: boolean} = {}): Promise<KubeObject> {
    const doing = `Applying ${describe(object)}`
    const path = await this.path(object.apiVersion, object.kind, object.metadata.namespace, object.metadata.name, doing)
    if (path === undefined) throw notServed(object.apiVersion, object.kind, doing)
    // Server-side apply takes YAML, and JSON is YAML: the object goes as it is, nothing converted or dropped.
    const reply = await this.http.send(
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
    const applied = withType(this.http.parse(reply, doing) as KubeObject, object.apiVersion, object.kind)
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
    const reply = await this.http.send(
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
    return withType(this.http.parse(reply, doing) as KubeObject, object.apiVersion, object.kind)
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
    const reply = await this.http.send(doing, 'DELETE', path, {propagationPolicy: 'Background'}, body)
    if (reply.status === 404) return 'absent'
    this.http.parse(reply, doing)
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
    const opened = await this.http.openStream(doing, path, query, options.signal)
    if (opened === undefined) return
    if (!('ok' in opened)) {
      if (opened.status === 404 && !servedNotFound(opened.text)) throw notServedWatch(apiVersion, kind, doing)
      throw kubeApiError(opened.status, statusBody(opened.text), doing)
    }
    // One JSON event per line; a line may arrive in pieces. The caller's onEvent may throw: the watch then ends
    // with its error. The server ended the stream, the caller aborted, or the connection went quiet or broke: the
    // caller may watch again from the last resourceVersion it saw.
    const take = (line: string) => {
      if (!line.trim()) return
      let event: {type?: string; object?: Record<string, unknown>}
      try {
        event = JSON.parse(line) as typeof event
      } catch {
        throw new XpkError('failed', `${doing} failed: the API server sent a watch event that is not JSON.`)
      }
      const object = event.object ?? {}
      if (event.type === 'ERROR') {
        const status = object as KubeStatusBody & {code?: number}
        throw kubeApiError(status.code ?? 500, status, doing)
      }
      if (event.type === 'BOOKMARK') {
        const version = (object.metadata as {resourceVersion?: string} | undefined)?.resourceVersion ?? ''
        return onEvent({type: 'BOOKMARK', resourceVersion: version})
      }
      if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
        onEvent({type: event.type, object: withType(object as unknown as KubeObject, apiVersion, kind)})
      }
    }
    let pending = ''
    return followText(
      opened.ok,
      (chunk) => {
        pending += chunk
        let end: number
        while ((end = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, end)
          pending = pending.slice(end + 1)
          take(line)
        }
      },
      () => take(pending),
    )
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
    // A followed log may be quiet for long stretches: only the watch's idle limit ends it.
    const opened = await this.http.openStream(doing, path, query, options.signal)
    if (opened === undefined) return 'ended'
    if (!('ok' in opened)) {
      // 404 is the pod gone; an unknown container is a 400.
      if (opened.status === 404) return 'absent'
      throw kubeApiError(opened.status, statusBody(opened.text), doing)
    }
    // Bytes, decoded as a stream: a multi-byte character split across chunks stays whole. The caller's onChunk may
    // throw: the read then ends with its error.
    await followText(opened.ok, onChunk)
    return 'ended'
  }

  async pendingWorkloads(clusterQueue: string): Promise<KubeObject | 'not-served'> {
    const doing = `Reading the pending workloads of ClusterQueue ${clusterQueue}`
    const path = `/apis/${VISIBILITY_API_VERSION}/clusterqueues/${encodeURIComponent(clusterQueue)}/pendingworkloads`
    let reply
    try {
      reply = await this.http.send(doing, 'GET', path, {})
    } catch (error) {
      // An aggregated API whose server is down answers 503: Kueue's own answer is not to be had now, and waiting
      // for it would only delay one the caller can work out itself.
      if (error instanceof ApiError && error.status === 'UNAVAILABLE') return 'not-served'
      throw error
    }
    // An unknown group, or no such ClusterQueue.
    if (reply.status === 404) return 'not-served'
    return this.http.parse(reply, doing) as KubeObject
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
      throw this.http.failure(error, doing)
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

function withType(object: KubeObject, apiVersion: string, kind: string): KubeObject {
  return object.apiVersion && object.kind ? object : {...object, apiVersion, kind}
}

function describe(ref: KubeRef | KubeObject): string {
  const name = 'metadata' in ref ? ref.metadata.name : ref.name
  const namespace = 'metadata' in ref ? ref.metadata.namespace : ref.namespace
  return `${ref.kind} ${namespace ? `${namespace}/` : ''}${name}`
}
