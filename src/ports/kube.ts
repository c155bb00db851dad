import type {KubeObject} from '../core/kube/release-manifest.js'

export type {KubeObject} from '../core/kube/release-manifest.js'

/** Which object: apiVersion and kind say the type, namespace is left out for cluster-scoped kinds. */
export interface KubeRef {
  readonly apiVersion: string
  readonly kind: string
  readonly name: string
  readonly namespace?: string
}

/** One page of a list. */
export interface KubePage {
  readonly items: readonly KubeObject[]
  /** The token for the next page; undefined on the last one. */
  readonly continue?: string
}

export interface KubeListOptions {
  readonly namespace?: string
  readonly labelSelector?: string
  readonly fieldSelector?: string
  readonly limit?: number
  readonly continue?: string
}

/** What {@link KubeClient.listAll} lists, and how it asks for each page. */
export interface KubeListAllOptions extends Omit<KubeListOptions, 'limit' | 'continue'> {
  /** Objects per request. @default LIST_PAGE_SIZE (src/core/kube/list-pages.ts) */
  readonly pageSize?: number
  /**
   * Sends each page's request: the caller's retry policy (src/executor/retry.ts, `retrying`), so a page that fails
   * transiently is asked for again, not the pages before it. @default the request as it is
   */
  readonly retry?: (request: () => Promise<KubePage>) => Promise<KubePage>
}

/** Which changes a watch follows, and from when. */
export interface KubeWatchOptions {
  readonly namespace?: string
  readonly labelSelector?: string
  readonly fieldSelector?: string
  /**
   * Start after this resourceVersion (an object's, or the last one a watch saw). Without it, the stream starts
   * with every current object as ADDED, then follows changes.
   */
  readonly resourceVersion?: string
  /** Ends the watch: the promise resolves. */
  readonly signal: AbortSignal
}

/**
 * One change seen by a watch. BOOKMARK carries only the resourceVersion the stream has reached, so a watch that
 * sees no change for a while can still resume from a recent point.
 */
export type KubeWatchEvent =
  | {readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: KubeObject}
  | {readonly type: 'BOOKMARK'; readonly resourceVersion: string}

/** Which container's log, and how much of it. */
export interface KubeLogOptions {
  /** Needed when the pod has more than one container. */
  readonly container?: string
  /** Keep the stream open and pass on what the container writes until it exits (or `signal` aborts). */
  readonly follow?: boolean
  /** Only the last N lines written so far. */
  readonly tailLines?: number
  /** Only lines written in the last N seconds. */
  readonly sinceSeconds?: number
  /**
   * Only lines written at or after this time (RFC 3339; the API server passes it on to the kubelet to the second,
   * and the kubelet keeps lines whose own time is not before it).
   */
  readonly sinceTime?: string
  /**
   * Each line starts with the time the container wrote it (RFC 3339 with nanoseconds, trailing zeros cut, as Go's
   * RFC3339Nano) and a space.
   */
  readonly timestamps?: boolean
  /** Ends the stream: the promise resolves. */
  readonly signal: AbortSignal
}

/** How {@link KubeClient.delete} deletes. */
export interface KubeDeleteOptions {
  /** Delete only the object of this uid (the one that was read), not another created under its name since. */
  readonly uid?: string
}

/** What a {@link KubeClient.lookup} found. */
export type KubeLookup =
  {readonly state: 'found'; readonly object: KubeObject} | {readonly state: 'absent'} | {readonly state: 'not-served'}

/**
 * The Kubernetes API as xpk uses it. What xpk configures goes through server-side apply under one field manager, so
 * re-runs converge and fields owned by other tools are left alone; a workload is created (create-if-absent), so two
 * submits of one name cannot silently replace each other. Failures are XpkErrors (ApiError
 * with the HTTP status name and whether a retry may help), so the executor's one retry policy handles them.
 */
export interface KubeClient {
  /** Where the client talks to, for messages (the API server URL or the kubeconfig context). */
  readonly target: string
  /** The object, or undefined when it (or its kind) does not exist; {@link lookup} tells those two apart. */
  get(ref: KubeRef): Promise<KubeObject | undefined>
  /**
   * The same read (one GET, no more requests than {@link get}), saying why nothing came back: `absent` when the API
   * server serves the kind at `ref.apiVersion` and has no object of that name, `not-served` when it does not serve
   * the kind at that version (its CRD is not installed or lacks the version, or the API group is unknown).
   */
  lookup(ref: KubeRef): Promise<KubeLookup>
  /** One page of objects of a kind; an unknown kind (its CRD not installed) is an empty page. */
  list(apiVersion: string, kind: string, options?: KubeListOptions): Promise<KubePage>
  /**
   * Every object of a kind, a page at a time as the pages are read (one {@link list} request each, following the
   * continue tokens), so a caller can reduce each page before the next comes. An unknown kind is one empty page.
   */
  listAll(apiVersion: string, kind: string, options?: KubeListAllOptions): AsyncIterable<readonly KubeObject[]>
  /**
   * Server-side apply of `object` under the field manager `xpk`. `force` takes over fields another manager owns
   * (what `kubectl apply --server-side --force-conflicts` does for release manifests).
   */
  apply(object: KubeObject, options?: {readonly force?: boolean}): Promise<KubeObject>
  /**
   * Creates the object (a POST under the field manager `xpk`), never touching one that exists: when an object of its
   * name is there, an ApiError with status ALREADY_EXISTS (the API server's 409 AlreadyExists). This is the
   * create-if-absent that two writers racing for one name need: exactly one of them gets the object.
   */
  create(object: KubeObject): Promise<KubeObject>
  /**
   * Deletes the object (dependents by background propagation); 'absent' when it was not there. With `uid`, only the
   * object of that uid is deleted (the API server's precondition): another object under the name since (someone
   * deleted it and created their own) is an ApiError with status CONFLICT, and nothing is deleted.
   */
  delete(ref: KubeRef, options?: KubeDeleteOptions): Promise<'deleted' | 'absent'>
  /**
   * Follows changes to objects of a kind, calling `onEvent` for each in order, until the server ends the stream
   * (it does now and then) or `options.signal` aborts: then the promise resolves, and the caller may watch again
   * from the last resourceVersion it saw. Rejects when the watch cannot start or the server ends it with an error:
   * an ApiError with status EXPIRED when the resourceVersion is too old to resume from (start again without one).
   */
  watch(
    apiVersion: string,
    kind: string,
    options: KubeWatchOptions,
    onEvent: (event: KubeWatchEvent) => void,
  ): Promise<void>
  /**
   * A container's log (`GET .../pods/NAME/log`), passed to `onChunk` in the order written, as text in pieces that
   * may split lines. Resolves 'ended' when the log (or, with `follow`, the container) ends or `signal` aborts, and
   * 'absent' when the pod does not exist. Rejects when the log cannot be read (e.g. the container has not started).
   */
  logs(
    namespace: string,
    pod: string,
    options: KubeLogOptions,
    onChunk: (text: string) => void,
  ): Promise<'ended' | 'absent'>
  /**
   * Kueue's pending workloads of a ClusterQueue in the order it will admit them, with each one's position (its
   * visibility API: `GET /apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/NAME/pendingworkloads`, a
   * PendingWorkloadsSummary). 'not-served' when the cluster does not serve that API (Kueue older than 0.9, the
   * VisibilityOnDemand feature off, or its server unavailable) or has no such ClusterQueue.
   */
  pendingWorkloads(clusterQueue: string): Promise<KubeObject | 'not-served'>
}

/** How `--kubeconfig` / `--context` / GKE pick the cluster to talk to. */
export type KubeAccess =
  | {
      readonly kind: 'gke'
      /** `https://<ip or DNS endpoint>`, or with a port for the local stand-in. */
      readonly server: string
      /** The cluster CA certificate, PEM, as GKE hands it out base64-encoded in `masterAuth`; none for DNS endpoints. */
      readonly caCertificate?: string
      /** An OAuth access token (Application Default Credentials or XPK_ACCESS_TOKEN). */
      readonly token: () => Promise<string>
    }
  | {readonly kind: 'kubeconfig'; readonly path?: string; readonly context?: string}

/** The field manager of everything xpk applies. */
export const FIELD_MANAGER = 'xpk'
