/**
 * The release manifests of JobSet and Kueue: one multi-document YAML file per release, holding every object the
 * component needs (namespace, CRDs, RBAC, the controller Deployment, webhooks). This module answers the questions an
 * install asks of such a file's objects; manifest-yaml.ts turns the file into checked objects (apart, so that js-yaml
 * loads only when a manifest is parsed, not with every cluster command). Pure: the text comes from an adapter.
 */

import {isLoopbackHost} from '../endpoint.js'
import {
  JOBSET_API_GROUP,
  JOBSET_RELEASE_MANIFEST_URL,
  JOBSET_VERSION,
  KUEUE_API_GROUP,
  KUEUE_RELEASE_MANIFEST_URL,
  KUEUE_VERSION,
} from '../versions.js'

/** A Kubernetes object from a manifest: its identity is checked, everything else is left as data. */
export interface KubeObject {
  readonly apiVersion: string
  readonly kind: string
  readonly metadata: KubeMetadata
  readonly [field: string]: unknown
}

/** The part of `metadata` a manifest must carry (`namespace` only on namespaced objects). */
export interface KubeMetadata {
  readonly name: string
  readonly namespace?: string
  readonly [field: string]: unknown
}

/** The in-cluster components xpk installs from a release manifest. */
export type ReleaseComponent = 'jobset' | 'kueue'

/** Everything xpk knows about one component's release. */
export interface Release {
  readonly component: ReleaseComponent
  /** Human name, for messages. */
  readonly title: string
  readonly version: string
  readonly url: string
  /** The API group of its custom resources. */
  readonly group: string
  /** The Deployment that runs its controller (what installs check, patch and wait for). */
  readonly controller: {readonly namespace: string; readonly name: string}
  /** The CLI flag that replaces {@link url} with a local file or another URL (air-gapped clusters, tests). */
  readonly overrideFlag: string
}

/** The releases xpk installs, by component. */
export const RELEASES: Readonly<Record<ReleaseComponent, Release>> = {
  jobset: {
    component: 'jobset',
    title: 'JobSet',
    version: JOBSET_VERSION,
    url: JOBSET_RELEASE_MANIFEST_URL,
    group: JOBSET_API_GROUP,
    controller: {namespace: 'jobset-system', name: 'jobset-controller-manager'},
    overrideFlag: '--jobset-manifest',
  },
  kueue: {
    component: 'kueue',
    title: 'Kueue',
    version: KUEUE_VERSION,
    url: KUEUE_RELEASE_MANIFEST_URL,
    group: KUEUE_API_GROUP,
    controller: {namespace: 'kueue-system', name: 'kueue-controller-manager'},
    overrideFlag: '--kueue-manifest',
  },
}

/** The components, in install order (Kueue manages JobSets, so JobSet goes first). */
export const RELEASE_COMPONENTS: readonly ReleaseComponent[] = ['jobset', 'kueue']

/** `--jobset-manifest` / `--kueue-manifest` as given: a local file, or a URL to download. */
export type ManifestOverride =
  {readonly kind: 'file'; readonly path: string} | {readonly kind: 'url'; readonly url: string}

/**
 * What a manifest override names, or why it cannot be used. A path is a local file; `file:///PATH` (or
 * `file://localhost/PATH`) is the same local file; `https://` is downloaded. Plain `http://` is accepted on loopback
 * only (local mirrors and tests): a release manifest installs cluster-wide objects and must not come unauthenticated
 * over the network. Any other scheme, or a `file:` URL naming another host or a relative path, is refused.
 */
export function parseManifestOverride(value: string): ManifestOverride | {readonly problem: string} {
  // `name:with-colon.yaml` is a file; `x://...` and `file:...` are URLs.
  const scheme = /^([a-z][a-z0-9+.-]*):(?=\/\/)|^(file):/i.exec(value)?.slice(1).find(Boolean)?.toLowerCase()
  if (scheme === undefined) return {kind: 'file', path: value}
  if (scheme !== 'http' && scheme !== 'https' && scheme !== 'file') {
    return {problem: `${scheme}: is not supported: give a local file, or an https:// URL`}
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return {problem: 'is not a valid URL'}
  }
  if (scheme === 'file') {
    if (!value.toLowerCase().startsWith('file://')) return {problem: 'a file: URL must be absolute: file:///PATH'}
    if (url.host !== '' && url.host !== 'localhost') {
      return {problem: `a file: URL must name a file on this machine (file:///PATH), not on ${url.host}`}
    }
    if (url.search || url.hash) return {problem: 'a file: URL has no query or fragment'}
    try {
      return {kind: 'file', path: decodeURIComponent(url.pathname)}
    } catch {
      return {problem: 'its %-escapes are not valid'}
    }
  }
  if (url.username || url.password) {
    return {problem: 'a URL with user:password@ is not accepted: the password would be shown and logged'}
  }
  if (scheme === 'http' && !isLoopbackHost(url.hostname)) {
    return {problem: 'plain http:// is only accepted on loopback; a release manifest must come over https://'}
  }
  return {kind: 'url', url: url.href}
}

/** `group/version` split; the core group ("v1") has group "". */
export function splitApiVersion(apiVersion: string): {readonly group: string; readonly version: string} {
  const slash = apiVersion.lastIndexOf('/')
  return slash < 0
    ? {group: '', version: apiVersion}
    : {group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1)}
}

/** One version of a CRD, as the API server serves it. */
export interface CrdVersion {
  readonly name: string
  readonly served: boolean
  readonly storage: boolean
  readonly deprecated: boolean
}

/** What a CustomResourceDefinition defines. */
export interface CrdSummary {
  /** The CRD's own name: `<plural>.<group>`. */
  readonly name: string
  readonly group: string
  readonly kind: string
  readonly plural: string
  readonly scope: 'Namespaced' | 'Cluster'
  readonly versions: readonly CrdVersion[]
  /** The version objects are stored in (exactly one per CRD); undefined only for a malformed CRD. */
  readonly storageVersion: string | undefined
}

/** Whether an object is a CustomResourceDefinition (apiextensions.k8s.io, any version). */
export function isCrd(object: KubeObject): boolean {
  return (
    object.kind === 'CustomResourceDefinition' && splitApiVersion(object.apiVersion).group === 'apiextensions.k8s.io'
  )
}

/** The CRDs among `objects`, in file order, summarised. Fields a CRD lacks read as empty, never throw. */
export function listCrds(objects: readonly KubeObject[]): CrdSummary[] {
  return objects.filter(isCrd).map(summarizeCrd)
}

/** Summarises one CRD object (see {@link listCrds}). */
export function summarizeCrd(crd: KubeObject): CrdSummary {
  const spec = asRecord(crd.spec)
  const names = asRecord(spec.names)
  const versions = (Array.isArray(spec.versions) ? spec.versions : []).map((entry) => {
    const v = asRecord(entry)
    return {
      name: String(v.name ?? ''),
      served: v.served === true,
      storage: v.storage === true,
      deprecated: v.deprecated === true,
    }
  })
  return {
    name: crd.metadata.name,
    group: String(spec.group ?? ''),
    kind: String(names.kind ?? ''),
    plural: String(names.plural ?? ''),
    scope: spec.scope === 'Cluster' ? 'Cluster' : 'Namespaced',
    versions,
    storageVersion: versions.find((v) => v.storage)?.name,
  }
}

/** The component's controller Deployment in its release manifest, if the manifest has it. */
export function findControllerDeployment(
  objects: readonly KubeObject[],
  component: ReleaseComponent,
): KubeObject | undefined {
  const {namespace, name} = RELEASES[component].controller
  return objects.find(
    (o) =>
      o.kind === 'Deployment' &&
      splitApiVersion(o.apiVersion).group === 'apps' &&
      o.metadata.name === name &&
      o.metadata.namespace === namespace,
  )
}

/**
 * The image of a Deployment's controller: the container named `manager` (what both releases call it), else the
 * first container. Undefined when the Deployment has no containers.
 */
export function controllerImage(deployment: KubeObject): string | undefined {
  const podSpec = asRecord(asRecord(asRecord(deployment.spec).template).spec)
  const containers = (Array.isArray(podSpec.containers) ? podSpec.containers : []).map(asRecord)
  const container = containers.find((c) => c.name === 'manager') ?? containers[0]
  return typeof container?.image === 'string' ? container.image : undefined
}

/**
 * The tag of an image reference (`registry.k8s.io/kueue/kueue:v0.17.1` -> `v0.17.1`); undefined for an untagged
 * reference, including one pinned only by digest (`...@sha256:...`). A registry port (`host:5000/img`) is not a tag.
 */
export function imageTag(image: string): string | undefined {
  const withoutDigest = image.split('@')[0] ?? ''
  const colon = withoutDigest.lastIndexOf(':')
  if (colon < 0 || colon < withoutDigest.lastIndexOf('/')) return undefined
  const tag = withoutDigest.slice(colon + 1)
  return tag === '' ? undefined : tag
}

const WEBHOOK_CONFIGURATIONS = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'])

/**
 * The order to apply a manifest's objects in, stable within each rank: Namespaces (everything else lives in
 * them), CRDs (their custom resources need them), other cluster-scoped objects (ClusterRoles before the bindings
 * and Deployments that use them), namespaced objects, then webhook configurations, so the API server does not send
 * requests to a webhook whose Service and Deployment do not exist yet. An object is namespaced when its manifest
 * names a namespace, as release manifests always do for namespaced objects.
 */
export function applyOrder(objects: readonly KubeObject[]): KubeObject[] {
  return objects
    .map((object, index) => ({object, index, rank: applyRank(object)}))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({object}) => object)
}

/**
 * A release's objects in the order the API server needs them: Namespaces, then what lives in them, with the webhook
 * configurations (they point at a Service in the namespace, and stay with the rest of the controller as in the
 * release file); CRDs and the other cluster-wide objects need nothing before them. Each list keeps the apply order.
 */
export function installWaves(objects: readonly KubeObject[]): {
  readonly namespaces: readonly KubeObject[]
  readonly namespaced: readonly KubeObject[]
  readonly clusterWide: readonly KubeObject[]
} {
  const namespaces = objects.filter((o) => o.kind === 'Namespace')
  const afterNamespaces = (o: KubeObject) => o.metadata.namespace !== undefined || WEBHOOK_CONFIGURATIONS.has(o.kind)
  return {
    namespaces,
    namespaced: objects.filter((o) => o.kind !== 'Namespace' && afterNamespaces(o)),
    clusterWide: objects.filter((o) => o.kind !== 'Namespace' && !afterNamespaces(o)),
  }
}

function applyRank(object: KubeObject): number {
  if (object.kind === 'Namespace' && object.apiVersion === 'v1') return 0
  if (isCrd(object)) return 1
  if (WEBHOOK_CONFIGURATIONS.has(object.kind)) return 4
  return object.metadata.namespace === undefined ? 2 : 3
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}
